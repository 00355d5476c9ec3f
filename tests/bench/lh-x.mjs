// The loop hint's cost per tool result inside a real pi (issue 41: ≤ 0.05 ms at 10k entries), as a table row.
//
//   node tests/bench/loop-hint.mjs [--pkg <built pkg>] [--quick] [--entries N]
//
// tests/bench/per-turn.mjs on pi 1.6.0 with a generated session (tests/bench/gen.mjs, 10k entries, 10 anchors),
// resumed: 400 turns of a tool call whose result differs each time (2,000 characters: no loop, what every result
// costs), then the same call three times (the third completes a loop: the hint, its anchor read from the index).
// The loop hint's `tool_result` handler (js/loop-hint.js, `loopHintToolResult`) is read from per-turn's times by
// handler name. Prints the table (markdown) and a JSON line, with `uptime` beside it: the numbers mean something
// only on a quiet machine.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { hostAvailable, nodeFor } from "../../scripts/hosts.mjs";
import { benchLock, stats, uptime } from "./timing.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const HOST = "1.6.0";
const args = process.argv.slice(2);
const arg = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
if (!hostAvailable(HOST)) throw new Error(`pi ${HOST} is missing: npm run setup`);
const pkg = resolve(arg("--pkg", join(HERE, "../../pkg")));
const entries = Number(arg("--entries", 10_000));
const turns = args.includes("--quick") ? 100 : 400;

await benchLock();
const work = mkdtempSync(join(tmpdir(), "ptn-bench-loop-"));
try {
  const gen = JSON.parse(execFileSync(process.execPath, [join(HERE, "gen.mjs"), String(entries), "10", work], { encoding: "utf8", maxBuffer: 1 << 24 }));
  const before = uptime();
  const r = spawnSync(nodeFor(HOST), [...(process.env.XFLAGS ? process.env.XFLAGS.split(" ") : []), join(HERE, "per-turn.mjs"), pkg, gen[10].file, String(turns), "loop"], { env: { ...process.env, PTN_HOST_VERSION: HOST }, encoding: "utf8", maxBuffer: 1 << 26 });
  process.stderr.write(r.stderr.split("\n").filter((l) => l.startsWith("PHASES")).join("\n") + "\n"); if (r.status !== 0) throw new Error(`per-turn on pi ${HOST}: ${r.stderr.slice(-2000)}`);
  const d = JSON.parse(r.stdout.trim().split("\n").pop());
  // One time per tool result: the first list's, the turns', the three identical calls' (the third found the loop),
  // the last list's.
  const times = d.byName?.loopHintToolResult ?? [];
  const plain = times.slice(1, 1 + turns);
  const found = times[turns + 3];
  if (plain.length !== turns || times.length !== turns + 5 || d.loopHints !== 1) throw new Error(`loop-hint bench: ${times.length} results timed, ${d.loopHints} hints`);
  const sorted = [...plain].sort((a, b) => a - b);
  const s = { ...stats(plain), p90: sorted[Math.floor(sorted.length * 0.9)] };
  const ms = (x) => `${x.toFixed(4)} ms`;
  console.log("### The loop hint per tool result (issue 41)");
  console.log();
  console.log(`Its \`tool_result\` handler inside real pi ${d.piVersion} (tests/bench/loop-hint.mjs over per-turn.mjs): a resumed session of`);
  console.log(`${d.entries.toLocaleString("en-US")} entries, ${turns} tool results that all differ (2,000 characters each: no loop), then the same call three times (the`);
  console.log("third completes a loop: the hint, its anchor read from the index). Goal ≤ 0.05 ms per result.");
  console.log(`Load before: \`${before}\`; after: \`${uptime()}\`.`);
  console.log();
  console.log("| pi | entries | per result (median) | p90 | max | results | the result that completes a loop (hint sent) |");
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  console.log(`| ${d.piVersion} | ${d.entries.toLocaleString("en-US")} | **${ms(s.median)}** | ${ms(s.p90)} | ${ms(s.max)} | ${turns} | ${found.toFixed(2)} ms |`);
  console.log(JSON.stringify({ piVersion: d.piVersion, node: d.node, entries: d.entries, results: turns, perResult: s, found }));
} finally {
  rmSync(work, { recursive: true, force: true });
}
