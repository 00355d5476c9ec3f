// Issue 29's rows of `npm run bench` (after tests/bench/main.mjs): what the plugin costs where long runs live.
//
//   node tests/bench/resume-rows.mjs --pkg <built pkg> [--write] [--quick]
//
// 1. "resume": pi alone vs pi + plugin resuming a long session (tests/bench/resume-bench.mjs: `pi -p --session`,
//    alternating processes, medians, wall and peak RSS, the plain and the first-tool-call case) on pi 1.6.0 and
//    0.75.5 (which cannot open a file over ~512 MB);
// 2. "per-turn": the plugin's handlers per turn inside pi 1.6.0 and 0.75.5 on a resumed 100k-entry session
//    (tests/bench/per-turn.mjs), and its first `list` there;
// 3. "loop hint": its handler per tool result inside pi 1.6.0 on a resumed 10k-entry session (tests/bench/loop-hint.mjs);
// 4. "CLI": `cli.js list --json` on the 20k-entry session vs the floor, a Node process that only reads the file
//    (tests/bench/cli-process.mjs).
// Environment: PTN_BENCH_RESUME_SIZES (MB, default "100,300"; the 1 GB row: "100,300,1024" — generating it
// takes ~1 min and its runs ~5 min), PTN_BENCH_RESUME_RUNS (default 5), PTN_BENCH_SESSIONS (a folder that keeps
// the generated sessions between runs; default: a temp folder removed at the end). `uptime` is printed beside the
// numbers: they mean something only on a quiet machine. --write puts the tables into docs/benchmarks.md between
// the `bench:resume` markers; --quick: 100 MB, 3 runs, 20 turns.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { hostAvailable, node22Path, nodeFor } from "../../scripts/hosts.mjs";
import { runResumeBench } from "./resume-bench.mjs";
import { benchArgs, uptime, writeBenchBlock } from "./timing.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const { argv, pkg: PKG, quick: QUICK } = benchArgs();
const WRITE = argv.includes("--write") && !QUICK;
const log = (m) => console.error(`[bench:resume] ${m}`);
const sizes = (process.env.PTN_BENCH_RESUME_SIZES ?? (QUICK ? "100" : "100,300")).split(",").map(Number);
const runs = Number(process.env.PTN_BENCH_RESUME_RUNS ?? (QUICK ? 3 : 5));
const hosts = ["1.6.0", "0.75.5"].filter(hostAvailable);
const out = [];
const p = (line = "") => {
  out.push(line);
  console.log(line);
};
const x = (a, b) => `${(a / b).toFixed(2)}×`;
const s = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);

const work = mkdtempSync(join(tmpdir(), "ptn-bench-resume-"));
try {
  // --- 1. resume ---------------------------------------------------------------------------------------------
  const before = uptime();
  const rows = await runResumeBench({ sizes, hosts, runs, cases: ["plain", "tool"], pkg: PKG, sessionsDir: process.env.PTN_BENCH_SESSIONS ? resolve(process.env.PTN_BENCH_SESSIONS) : null, log });
  p("### Resume (issue 29)");
  p();
  p(`\`pi -p --session <file> "say ok"\` against a local mock of the Anthropic API, pi alone vs pi + plugin, alternating processes, medians of ${runs};`);
  p("wall time and peak RSS of the whole process. *plain*: the model answers \"ok\" (goal ≤1.10×, RSS ≤1.10×); *tool*: its first answer is");
  p("`navigate_tree list` (pi alone: \"tool not found\"; the plugin's list names the session's anchors: the index is built), goal ≤1.30×.");
  p(`Load before: \`${before}\`; after: \`${uptime()}\`.`);
  p();
  p("| pi | session | case | pi alone | pi + plugin | ratio | peak RSS alone | + plugin | ratio | first request alone / + plugin |");
  p("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    const a = r.alone;
    const b = r.plugin;
    p(`| ${r.host} | ${r.mb} MB | ${r.kase} | ${s(a.ms.median)} | ${s(b.ms.median)} | **${x(b.ms.median, a.ms.median)}** | ${a.rssMb.median.toFixed(0)} MB | ${b.rssMb.median.toFixed(0)} MB | ${x(b.rssMb.median, a.rssMb.median)} | ${s(a.firstRequestMs.median)} / ${s(b.firstRequestMs.median)} |`);
  }
  const how = [...new Set(rows.flatMap((r) => r.plugin.debug.map((d) => d.replace(/\/\S+\.jsonl/g, "FILE").replace(/\d+(\.\d+)?/g, "N"))))];
  if (how.length) p(`\nThe plugin's own debug line per run (numbers as N): ${how.map((d) => `\`${d.slice(0, 160)}\``).join("; ")}.`);
  p();

  // --- 2. per-turn -------------------------------------------------------------------------------------------
  const gen = JSON.parse(execFileSync(process.execPath, ["--max-old-space-size=6144", join(HERE, "gen.mjs"), "100000", "100", work], { encoding: "utf8", maxBuffer: 1 << 24 }));
  const session = gen[100].file;
  p("### Per turn at 100k entries (issue 29)");
  p();
  p(`The plugin's handlers summed per turn inside real pi (tests/bench/per-turn.mjs): a resumed ${(gen[100].bytes / 1e6).toFixed(0)} MB, 100k-entry session, a first \`list\``);
  p("(it takes the resumed index over), then turns of a tool call and its result, then a `list`. Goal ≤1 ms per turn.");
  p(`Load: \`${uptime()}\`.`);
  p();
  p("| pi | per turn (median) | min – max | turns | first turn | first `list` (index taken over) | later `list` |");
  p("|---|---:|---:|---:|---:|---:|---:|");
  for (const host of hosts) {
    const r = spawnSync(nodeFor(host), [join(HERE, "per-turn.mjs"), PKG, session, QUICK ? "20" : "40"], { env: { ...process.env, PTN_HOST_VERSION: host }, encoding: "utf8", maxBuffer: 1 << 26 });
    if (r.status !== 0) throw new Error(`per-turn on pi ${host}: ${r.stderr.slice(-2000)}`);
    const d = JSON.parse(r.stdout.trim().split("\n").pop());
    if (!(d.turns > 0 && d.firstList > 0 && d.list > 0)) throw new Error(`per-turn on pi ${host}: no turns or lists measured: ${r.stdout.slice(-400)}`);
    p(`| ${d.piVersion} | **${d.perTurn.median.toFixed(2)} ms** | ${d.perTurn.min.toFixed(2)} – ${d.perTurn.max.toFixed(2)} ms | ${d.turns} | ${d.firstTurn.toFixed(1)} ms | ${d.firstList.toFixed(0)} ms | ${d.list.toFixed(1)} ms |`);
  }
  p();

  // --- 3. the loop hint per tool result (issue 41) ----------------------------------------------------------
  if (hosts.includes("1.6.0")) {
    const loop = execFileSync(node22Path(), [join(HERE, "loop-hint.mjs"), "--pkg", PKG, ...(QUICK ? ["--quick"] : [])], { encoding: "utf8", maxBuffer: 1 << 24 });
    for (const line of loop.trim().split("\n").slice(0, -1)) p(line);
    p();
  }

  // --- 4. CLI ------------------------------------------------------------------------------------------------
  p("### The CLI's `list --json` vs its floor (issue 29: ≤2.6×)");
  p();
  p(`Whole processes, interleaved, medians (tests/bench/cli-process.mjs). Load: \`${uptime()}\`.`);
  p();
  const cli = execFileSync(node22Path(), [join(HERE, "cli-process.mjs"), "--entries", "20000", "--anchors", "100", "--runs", QUICK ? "3" : "9", "--pkg", PKG, "--no-seed"], { encoding: "utf8" });
  for (const line of cli.trim().split("\n")) p(line);
} finally {
  rmSync(work, { recursive: true, force: true });
}

if (WRITE) log(`written into ${writeBenchBlock("resume", "tests/bench/resume-rows.mjs", out)}`);
