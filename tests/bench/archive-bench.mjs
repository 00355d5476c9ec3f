// Benchmark of `pi-tree-navigator archive` on a large generated session (a manual run; not in npm test):
//
//   node tests/bench/archive-bench.mjs [--mb 1024] [--host 1.6.0] [--keep]
//
// Writes a session of about --mb MB shaped like a long autonomous run with many rewinds: on the active path user
// prompts, assistant turns with tool calls and results, an anchor (assistant call -> label -> result) before each
// exploration, and after it a rewind (branch_summary on a sibling + anchor label + synthetic assistant + result);
// the abandoned explorations (large tool results: file reads, test logs) stay off the path; one compaction near the
// end keeps the last turns. Then, each in its own process:
//   1. the built CLI's `archive --min-idle 0 --json` (peak RSS from /usr/bin/time -f %M, wall time);
//   2. pi's own SessionManager.open + buildSessionContext + estimateProjectedContextTokens (host --host, Node 22) on
//      the original and on the archived file: wall time, peak RSS, and whether context and estimate are equal;
//   3. `restore`, then the SHA-256 of the result against the original's.
// Prints one table row (docs/benchmarks.md, "Archive").
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { hostDir, nodeFor } from "../../scripts/hosts.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const targetMb = Number(arg("--mb", "1024"));
const host = arg("--host", "1.6.0");
const keep = process.argv.includes("--keep");
const dir = mkdtempSync(join(tmpdir(), "ptn-archive-bench-"));
const file = join(dir, "2026-11-26T00-00-00-000Z_bench.jsonl");

// ---- 1. the session ------------------------------------------------------------------------------------------
let seq = 0;
const id = () => (++seq).toString(16).padStart(8, "0");
let clock = Date.parse("2026-11-26T00:00:00.000Z");
const ts = () => new Date((clock += 1000)).toISOString();
let rng = 12345;
const rand = () => ((rng = (rng * 1103515245 + 12345) >>> 0) / 2 ** 32);
const WORDS = "the of a fn let const return if else match struct impl pub use mod test assert error line file read write cargo npm build session entry leaf path anchor rewind".split(" ");
const text = (n) => {
  let s = "";
  while (s.length < n) s += WORDS[Math.floor(rand() * WORDS.length)] + (rand() < 0.1 ? "\n" : " ");
  return s.slice(0, n);
};
const fd = openSync(file, "w");
let buf = [];
let bufLen = 0;
let written = 0;
const emit = (obj) => {
  const line = JSON.stringify(obj) + "\n";
  buf.push(line);
  bufLen += line.length;
  if (bufLen > 1 << 20) flush();
};
const flush = () => {
  const b = Buffer.from(buf.join(""));
  writeSync(fd, b);
  written += b.length;
  buf = [];
  bufLen = 0;
};
let context = 2000;
const usage = (out) => {
  context += out;
  return { input: context, output: out, cacheRead: 0, cacheWrite: 0, totalTokens: context + out, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
};
const message = (parentId, message) => {
  const e = { type: "message", id: id(), parentId, timestamp: ts(), message: { ...message, timestamp: clock } };
  emit(e);
  return e.id;
};
const assistant = (parentId, calls, words = 200) =>
  message(parentId, {
    role: "assistant",
    content: [{ type: "text", text: text(words) }, ...calls.map((c) => ({ type: "toolCall", id: c.id, name: c.name, arguments: c.args }))],
    api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: usage(words / 4), stopReason: calls.length ? "toolUse" : "stop",
  });
const result = (parentId, call, size) =>
  message(parentId, { role: "toolResult", toolCallId: call.id, toolName: call.name, content: [{ type: "text", text: text(size) }], isError: false });
const call = (name, args) => ({ id: `toolu_${id()}`, name, args });

emit({ type: "session", version: 3, id: "0193a0b0-0000-7000-8000-000000000001", timestamp: ts(), cwd: "/work/project" });
let leaf = message(null, { role: "user", content: [{ type: "text", text: "Please refactor the session reader and keep the tests green." }] });
const target = targetMb * 1e6;
let rewinds = 0;
let compacted = false;
while (written + bufLen < target) {
  // On the path: a short turn.
  leaf = message(leaf, { role: "user", content: [{ type: "text", text: text(300) }] });
  const c1 = call("read", { path: "src/x.rs" });
  leaf = assistant(leaf, [c1]);
  leaf = result(leaf, c1, 4000);
  // An anchor before the exploration (assistant call -> label -> result, as the plugin writes it).
  const ca = call("navigate_tree", { action: "anchor", name: `try-${rewinds}` });
  const anchorMsg = assistant(leaf, [ca], 40);
  const label = { type: "label", id: id(), parentId: anchorMsg, timestamp: ts(), targetId: anchorMsg, label: `anchor:try-${rewinds}` };
  emit(label);
  const anchorResult = result(label.id, ca, 80);
  // The exploration, later abandoned: large tool results.
  let b = anchorResult;
  const steps = 20 + Math.floor(rand() * 20);
  for (let i = 0; i < steps; i++) {
    const c = call(rand() < 0.5 ? "bash" : "read", { command: "cargo test" });
    b = assistant(b, [c], 120);
    b = result(b, c, 4000 + Math.floor(rand() * 60000));
  }
  const cr = call("navigate_tree", { action: "rewind", name: `try-${rewinds}` });
  b = assistant(b, [cr], 40);
  // The rewind: a branch summary on a sibling, back at the anchor's result.
  const summary = { type: "branch_summary", id: id(), parentId: anchorResult, timestamp: ts(), fromId: b, summary: text(1500), details: { readFiles: ["src/x.rs"], modifiedFiles: [] } };
  emit(summary);
  emit({ type: "label", id: id(), parentId: summary.id, timestamp: ts(), targetId: summary.id, label: `anchor:after-${rewinds}` });
  leaf = assistant(summary.id, [cr], 40);
  leaf = result(leaf, cr, 200);
  context = 20000;
  rewinds++;
  if (!compacted && written + bufLen > target * 0.97) {
    // A compaction that keeps the last turn.
    const kept = leaf;
    leaf = message(leaf, { role: "user", content: [{ type: "text", text: text(200) }] });
    const comp = { type: "compaction", id: id(), parentId: leaf, timestamp: ts(), summary: text(4000), firstKeptEntryId: kept, tokensBefore: context };
    emit(comp);
    leaf = comp.id;
    compacted = true;
  }
}
leaf = message(leaf, { role: "user", content: [{ type: "text", text: "Now summarise what changed." }] });
leaf = assistant(leaf, [], 400);
flush();
closeSync(fd);
const originalBytes = statSync(file).size;
const sha = (path) => {
  const h = createHash("sha256");
  const f = openSync(path, "r");
  const b = Buffer.allocUnsafe(1 << 20);
  for (let n; (n = readSync(f, b, 0, b.length, null)) > 0; ) h.update(b.subarray(0, n));
  closeSync(f);
  return h.digest("hex");
};
const originalSha = sha(file);
console.error(`[archive-bench] ${file}: ${(originalBytes / 1e6).toFixed(1)} MB, ${seq} entries, ${rewinds} rewinds, compaction: ${compacted}`);

// ---- 2. the runs ---------------------------------------------------------------------------------------------
/** Runs a command under /usr/bin/time: {ms, rssMb, stdout}. */
function timed(cmd, args) {
  const t0 = performance.now();
  const r = spawnSync("/usr/bin/time", ["-f", "%M", cmd, ...args], { encoding: "utf8", maxBuffer: 1 << 30 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}:\n${r.stderr.slice(-3000)}`);
  const rssKb = Number(r.stderr.trim().split("\n").at(-1));
  return { ms, rssMb: rssKb / 1024, stdout: r.stdout };
}
const cli = join(root, "pkg", "cli.js");
const node22 = nodeFor(host);
const piOpen = (path) => {
  const r = timed(node22, [join(here, "child-pi-open.mjs"), "--pi", hostDir(host), "--file", path]);
  return { ...r, result: JSON.parse(r.stdout) };
};
const before = piOpen(file);
const archived = timed(process.execPath, [cli, "archive", file, "--min-idle", "0", "--json"]);
const plan = JSON.parse(archived.stdout);
const after = piOpen(file);
const mainBytes = statSync(file).size;
const same = JSON.stringify(before.result.context) === JSON.stringify(after.result.context) && JSON.stringify(before.result.estimate) === JSON.stringify(after.result.estimate) && before.result.leafId === after.result.leafId;
const restored = timed(process.execPath, [cli, "restore", file, "--min-idle", "0", "--json"]);
const roundTrip = sha(file) === originalSha;
const row = {
  originalMb: +(originalBytes / 1e6).toFixed(1),
  entries: seq,
  rewinds,
  mainMb: +(mainBytes / 1e6).toFixed(2),
  smallerPct: +((1 - mainBytes / originalBytes) * 100).toFixed(1),
  archiveS: +(archived.ms / 1000).toFixed(1),
  archivePeakRssMb: Math.round(archived.rssMb),
  restoreS: +(restored.ms / 1000).toFixed(1),
  restorePeakRssMb: Math.round(restored.rssMb),
  restoreByteIdentical: roundTrip,
  piOpenOriginalS: +(before.result.ms / 1000).toFixed(2),
  piOpenArchivedS: +(after.result.ms / 1000).toFixed(2),
  piOpenSpeedup: +(before.result.ms / after.result.ms).toFixed(1),
  piPeakRssOriginalMb: Math.round(before.rssMb),
  piPeakRssArchivedMb: Math.round(after.rssMb),
  piSameContextEstimateLeaf: same,
  moved: plan.plan.moved.entries,
  stubbed: plan.plan.stubbed.entries,
  host,
};
console.log(JSON.stringify(row));
console.log(`| ${row.originalMb} MB, ${row.entries} entries, ${row.rewinds} rewinds | ${row.mainMb} MB (−${row.smallerPct} %) | ${row.archiveS} s, ${row.archivePeakRssMb} MB | ${row.restoreS} s, ${row.restorePeakRssMb} MB, ${row.restoreByteIdentical ? "byte-identical" : "DIFFERS"} | ${row.piOpenOriginalS} s → ${row.piOpenArchivedS} s (${row.piOpenSpeedup}×), ${row.piSameContextEstimateLeaf ? "same" : "DIFFERENT"} context/estimate/leaf |`);
if (!keep) rmSync(dir, { recursive: true, force: true });
else writeFileSync(join(dir, "row.json"), JSON.stringify(row));
if (!roundTrip || !same) process.exitCode = 1;
