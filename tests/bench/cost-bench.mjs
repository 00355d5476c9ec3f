#!/usr/bin/env node
// The cost model's time (issue 39) over the generated long run (tests/bench/long-session.mjs, priced), against
// `stats` without it: the cost model reads nothing again — every usage was read with its line when the file was
// loaded (src/session/spend.rs) — so its own time is a pass over those usages and the active path; and `stats`
// reads each line once (the loops' steps are taken in the same read: `collectLoops`, src/loops/waste.rs).
//
//   node tests/bench/cost-bench.mjs [--mb 300] [--rounds 3] [--pkg <built pkg dir>] [--before <pkg dir>,…]
//
// In process, each round loads the file as the plugin does (a facts-only index fed 1 MB pieces) and as the CLI's
// `stats` does (the same, `collectLoops` first), and times what `stats --json` asks of it: `stats(bytes)`,
// `rewindSavings()`, `cost()`, `wasteView()`. Then whole processes: `stats --json` of this package and of each
// `--before` package (e.g. a copy of pkg/ built before a change), interleaved, wall time and peak RSS
// (/usr/bin/time). Prints tables (medians of the rounds) and the machine's load; holds the bench lock.
import { spawnSync } from "node:child_process";
import { closeSync, cpSync, fstatSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { writeLongSession } from "./long-session.mjs";
import { benchLock, uptime } from "./timing.mjs";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const mb = Number(arg("--mb", 300));
const rounds = Number(arg("--rounds", 3));
const before = arg("--before", "").split(",").filter(Boolean).map((p) => resolve(p));
const release = await benchLock();
const work = mkdtempSync(join(tmpdir(), "ptn-cost-bench-"));
// Copies of the packages: a rebuild elsewhere cannot change a module mid-run.
const pkgs = [resolve(arg("--pkg", join(REPO, "pkg"))), ...before].map((p, i) => {
  const copy = join(work, `pkg${i}`);
  cpSync(p, copy, { recursive: true });
  return { name: i === 0 ? "this package" : `--before ${basename(p)}`, dir: copy };
});
const api = await import(pathToFileURL(join(pkgs[0].dir, "index-node.js")).href);
await api.ready;
const loadAtStart = uptime();

const file = join(work, "run.jsonl");
const made = writeLongSession(file, { mb, priced: true });
console.error(`[cost-bench] ${(made.bytes / 1e6).toFixed(0)} MB, ${made.entries} entries, ${made.rewinds} rewinds`);

/**
 * The CLI's load of `file` (js/cli.js `load`): a facts-only index fed 1 MB pieces; `loops`: as `stats` loads it
 * (`collectLoops` first).
 */
function load(loops) {
  const index = api.SessionIndex.plugin();
  if (loops) index.collectLoops();
  const fd = openSync(file, "r");
  const piece = Buffer.allocUnsafe(1 << 20);
  let total = 0;
  try {
    index.beginFile(fstatSync(fd).size);
    for (let n; (n = readSync(fd, piece, 0, piece.length, null)) > 0; total += n) index.feedFile(piece.subarray(0, n));
    index.endFile();
  } finally {
    closeSync(fd);
  }
  return { index, bytes: total };
}

const time = (fn) => {
  const t = performance.now();
  const r = fn();
  return [performance.now() - t, r];
};
const PLAIN = "load, facts only (the plugin's)";
const ALL = "all of `stats --json`: its load and the four";
const rows = { [PLAIN]: [], "load as `stats` loads it (the loops' steps in the same read)": [], "stats(bytes)": [], "rewindSavings()": [], "cost()": [], "wasteView()": [], [ALL]: [] };
let report;
load(true).index.free(); // a warm-up round, not counted (the module's first calls)
for (let r = 0; r < rounds; r++) {
  {
    const [tLoad, { index }] = time(() => load(false));
    rows[PLAIN].push(tLoad);
    index.free();
  }
  {
    const [tLoad, { index, bytes }] = time(() => load(true));
    const [tStats] = time(() => index.stats(bytes));
    const [tSavings] = time(() => index.rewindSavings());
    // (a package from before the cost model has none: 0 ms, to compare its load and `stats` with this one's)
    const [tCost, cost] = time(() => (typeof index.cost === "function" ? index.cost() : null));
    const [tWaste] = time(() => index.wasteView());
    report = cost;
    rows["load as `stats` loads it (the loops' steps in the same read)"].push(tLoad);
    rows["stats(bytes)"].push(tStats);
    rows["rewindSavings()"].push(tSavings);
    rows["cost()"].push(tCost);
    rows["wasteView()"].push(tWaste);
    rows[ALL].push(tLoad + tStats + tSavings + tCost + tWaste);
    index.free();
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const what = !report ? "a package without the cost model" : `${report.messages.requests} requests, ${report.savings.rewinds.items.length} rewinds and ${report.savings.compactions.items.length} compactions on the active path`;
console.log(`\n${(made.bytes / 1e6).toFixed(0)} MB generated run (${made.entries} entries, ${what}), ${rounds} rounds, Node ${process.version}`);
console.log("| step | ms (median) | all rounds |\n|---|---:|---|");
for (const [k, xs] of Object.entries(rows)) console.log(`| ${k} | ${median(xs).toFixed(0)} | ${xs.map((x) => x.toFixed(0)).join(", ")} |`);
const plain = median(rows[PLAIN]);
console.log(`\ncost() / the plugin's load: ${((median(rows["cost()"]) / plain) * 100).toFixed(1)} %; all of stats --json / the plugin's load: ${(median(rows[ALL]) / plain).toFixed(2)}×`);

// Whole processes: `stats --json`, each package in turn, `rounds` times.
const runs = new Map(pkgs.map((p) => [p.name, []]));
for (let r = 0; r < rounds; r++) {
  for (const p of pkgs) {
    const run = spawnSync("/usr/bin/time", ["-f", "%e %M", process.execPath, join(p.dir, "cli.js"), "stats", "--json", file], { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
    if (run.status !== 0) throw new Error(`${p.name}: stats --json failed: ${run.stderr}`);
    const [s, kb] = run.stderr.trim().split("\n").pop().split(" ").map(Number);
    runs.get(p.name).push({ ms: s * 1000, mb: kb / 1024 });
  }
}
console.log(`\n\`pi-tree-navigator stats --json\` as a process, ${rounds} runs each, interleaved\n| package | wall ms (median) | all runs | peak RSS MB (median) |\n|---|---:|---|---:|`);
for (const [name, xs] of runs) {
  console.log(`| ${name} | ${median(xs.map((x) => x.ms)).toFixed(0)} | ${xs.map((x) => x.ms.toFixed(0)).join(", ")} | ${median(xs.map((x) => x.mb)).toFixed(0)} |`);
}
console.log(`\nload at the start: ${loadAtStart}\nload at the end:   ${uptime()}`);
rmSync(work, { recursive: true, force: true });
release();
