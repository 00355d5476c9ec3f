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
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { hostDir, nodeFor } from "../../scripts/hosts.mjs";
import { writeLongSession } from "./long-session.mjs";

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
const made = writeLongSession(file, { mb: targetMb });
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
console.error(`[archive-bench] ${file}: ${(originalBytes / 1e6).toFixed(1)} MB, ${made.entries} entries, ${made.rewinds} rewinds, compaction: ${made.compacted}`);

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
  entries: made.entries,
  rewinds: made.rewinds,
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
