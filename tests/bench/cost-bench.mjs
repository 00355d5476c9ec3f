#!/usr/bin/env node
// The cost model's time (issue 39) over the generated long run (tests/bench/long-session.mjs, priced), against
// `stats` without it: the cost model reads nothing again — every usage was read with its line when the file was
// loaded (src/session/spend.rs) — so its own time is a pass over those usages and the active path.
//
//   node tests/bench/cost-bench.mjs [--mb 300] [--rounds 3] [--pkg <built pkg dir>]
//
// Each round loads the file as the CLI's `stats` does (a facts-only index fed 1 MB pieces), then times
// `stats(bytes)` and `cost()` on it; the rounds alternate with a load + `stats` alone. Prints a table (ms, median
// of the rounds) and the machine's load.
import { closeSync, cpSync, fstatSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { writeLongSession } from "./long-session.mjs";
import { uptime } from "./timing.mjs";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const mb = Number(arg("--mb", 300));
const rounds = Number(arg("--rounds", 3));
const work = mkdtempSync(join(tmpdir(), "ptn-cost-bench-"));
// A copy of the package: a rebuild elsewhere cannot change the module mid-run.
cpSync(resolve(arg("--pkg", join(REPO, "pkg"))), join(work, "pkg"), { recursive: true });
const api = await import(pathToFileURL(join(work, "pkg", "index-node.js")).href);
await api.ready;

const file = join(work, "run.jsonl");
const made = writeLongSession(file, { mb, priced: true });
console.error(`[cost-bench] ${(made.bytes / 1e6).toFixed(0)} MB, ${made.entries} entries, ${made.rewinds} rewinds`);

/** The CLI's load of `file` (js/cli.js `load(…, "facts")`): a facts-only index fed 1 MB pieces. */
function load() {
  const index = api.SessionIndex.plugin();
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
const rows = { "load (read + index)": [], "stats(bytes)": [], "cost()": [], "load + stats": [], "load + stats + cost()": [] };
let report;
for (let r = 0; r < rounds; r++) {
  {
    const [tLoad, { index, bytes }] = time(load);
    const [tStats] = time(() => index.stats(bytes));
    rows["load + stats"].push(tLoad + tStats);
    index.free();
  }
  {
    const [tLoad, { index, bytes }] = time(load);
    const [tStats] = time(() => index.stats(bytes));
    // (a package from before the cost model has none: its load alone, to compare the read with and without it)
    const [tCost, cost] = time(() => (typeof index.cost === "function" ? index.cost() : null));
    report = cost;
    rows["load (read + index)"].push(tLoad);
    rows["stats(bytes)"].push(tStats);
    rows["cost()"].push(tCost);
    rows["load + stats + cost()"].push(tLoad + tStats + tCost);
    index.free();
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const what = report ? `${report.messages.requests} requests, ${report.savings.rewinds.items.length} rewinds and ${report.savings.compactions.items.length} compactions on the active path` : "a package without the cost model";
console.log(`\n${(made.bytes / 1e6).toFixed(0)} MB generated run (${made.entries} entries, ${what}), ${rounds} rounds, Node ${process.version}`);
console.log("| step | ms (median) | all rounds |\n|---|---:|---|");
for (const [k, xs] of Object.entries(rows)) console.log(`| ${k} | ${median(xs).toFixed(0)} | ${xs.map((x) => x.toFixed(0)).join(", ")} |`);
console.log(`\ncost() / load: ${(median(rows["cost()"]) / median(rows["load (read + index)"]) * 100).toFixed(1)} %   load: ${uptime()}`);
rmSync(work, { recursive: true, force: true });
