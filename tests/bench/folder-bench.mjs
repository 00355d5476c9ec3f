#!/usr/bin/env node
// Issue 40's row "cost" of `npm run bench`: `stats <folder> --json` (the cost model over a folder of sessions, with
// families) against @ccusage/pi's `ccusage-pi session --json --piPath <dir>` on the same ≥1 GB folder of generated long
// runs (tests/bench/long-session.mjs, priced; two project folders, children naming their parents), alternating
// processes, medians, and each one's peak RSS (/usr/bin/time). Checks first that both count the same money.
//
//   node tests/bench/folder-bench.mjs --pkg <built pkg> [--mb 1100] [--files 8] [--runs 3] [--write] [--quick]
//
// PTN_BENCH_FOLDER=<dir> keeps the generated folder there (made once, reused). `uptime` is printed beside the table
// (the machine is shared: 2 cores). Takes the bench lock (timing.mjs) unless run.mjs holds it.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { writeLongSession } from "./long-session.mjs";
import { benchArgs, benchLock, stats, uptime, writeBenchBlock } from "./timing.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, "../..");
const { argv, opt, pkg: PKG, quick: QUICK } = benchArgs();
const MB = Number(opt("--mb", QUICK ? "60" : "1100"));
const FILES = Number(opt("--files", QUICK ? "3" : "8"));
const RUNS = Number(opt("--runs", QUICK ? "2" : "3"));
const CCUSAGE = join(REPO, "node_modules", "@ccusage", "pi", "dist", "index.js");
const log = (m) => console.error(`[bench:cost] ${m}`);
const s = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);

await benchLock(log);
const work = mkdtempSync(join(tmpdir(), "ptn-bench-folder-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
const folder = process.env.PTN_BENCH_FOLDER ? resolve(process.env.PTN_BENCH_FOLDER) : join(work, "sessions");

/** The folder: `FILES` long runs of MB/FILES each, in two project folders; every other one a child of the one before. */
function makeFolder() {
  const marker = join(folder, `.made-${MB}-${FILES}`);
  if (existsSync(marker)) return;
  rmSync(folder, { recursive: true, force: true });
  const each = MB / FILES;
  let prev = null;
  for (let i = 0; i < FILES; i++) {
    const dir = join(folder, i % 2 ? "--work-b--" : "--work-a--");
    mkdirSync(dir, { recursive: true });
    const id = `0193a0b0-0000-7000-8000-${String(i + 1).padStart(12, "0")}`;
    const file = join(dir, `2026-11-${String(10 + i).padStart(2, "0")}T00-00-00-000Z_${id}.jsonl`);
    writeLongSession(file, { mb: each, priced: true, cwd: "/work/project", id, seed: i, parentSession: i % 2 ? prev : undefined });
    prev = file;
    log(`made ${file} (${(statSync(file).size / 1e6).toFixed(0)} MB)`);
  }
  mkdirSync(marker);
}

/** `cmd args` under /usr/bin/time: { ms, rssMb, stdout }. */
function timed(cmd, args) {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn("/usr/bin/time", ["-f", "%M", cmd, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    const out = [];
    let err = "";
    child.stdout.on("data", (d) => out.push(d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", fail);
    child.on("close", (code) => {
      const ms = performance.now() - t0;
      const lines = err.trim().split("\n");
      if (code !== 0) return fail(new Error(`${cmd} ${args.join(" ")} exited ${code}: ${err}`));
      done({ ms, rssMb: Number(lines[lines.length - 1]) / 1024, stdout: Buffer.concat(out).toString() });
    });
  });
}

makeFolder();
let bytes = 0;
const walk = (d) => readdirSync(d, { withFileTypes: true }).forEach((e) => (e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith(".jsonl") && (bytes += statSync(join(d, e.name)).size)));
walk(folder);
const ours = () => timed(process.execPath, [join(PKG, "cli.js"), "stats", folder, "--json"]);
const theirs = () => timed(process.execPath, [CCUSAGE, "session", "--json", "--piPath", folder]);

// The same money first: our assistant messages (`cost.messages`, what @ccusage/pi counts) against its totals.
log(`${(bytes / 1e6).toFixed(0)} MB in ${FILES} files; ${RUNS} alternating runs each; ${uptime()}`);
const load0 = uptime();
const runs = { ours: [], theirs: [] };
let check = "";
for (let r = 0; r < RUNS; r++) {
  for (const [name, fn] of r % 2 ? [["theirs", theirs], ["ours", ours]] : [["ours", ours], ["theirs", theirs]]) {
    const x = await fn();
    runs[name].push(x);
    log(`${name} run ${r + 1}: ${s(x.ms)}, peak RSS ${x.rssMb.toFixed(0)} MB`);
    if (r === 0 && name === "ours") runs.report = JSON.parse(x.stdout);
    if (r === 0 && name === "theirs") runs.cc = JSON.parse(x.stdout);
  }
}
const report = runs.report;
const ourUsd = report.sessions.reduce((a, x) => a + (x.cost.messages.usd ?? 0), 0);
const ccUsd = runs.cc.totals?.totalCost ?? (runs.cc.sessions ?? []).reduce((a, x) => a + x.totalCost, 0);
check = `assistant messages' USD: ours ${ourUsd.toFixed(6)}, ccusage-pi ${ccUsd.toFixed(6)}${Math.abs(ourUsd - ccUsd) <= 1e-6 * Math.max(1, ccUsd) ? " (equal)" : " (DIFFERENT)"}`;
const med = (xs) => stats(xs).median;
const oursMs = med(runs.ours.map((x) => x.ms));
const theirsMs = med(runs.theirs.map((x) => x.ms));
const peak = (xs) => Math.max(...xs.map((x) => x.rssMb));
const lines = [
  `Folder: ${(bytes / 1e6).toFixed(0)} MB, ${FILES} generated long runs (priced; ${report.totals.sessions} sessions, ${report.sessions.filter((x) => x.children.length).length} with children, ${report.totals.requests} requests), ${RUNS} alternating runs, Node ${process.version}, package ${PKG.includes("ptn-bench-pkg") ? "snapshot" : PKG}. Load before: \`${load0}\`; after: \`${uptime()}\`.`,
  "",
  "| row | ours: `stats <folder> --json` | `ccusage-pi session --json` | ours / ccusage | peak RSS ours | peak RSS ccusage |",
  "|---|---:|---:|---:|---:|---:|",
  `| cost | ${s(oursMs)} (${runs.ours.map((x) => s(x.ms)).join(", ")}) | ${s(theirsMs)} (${runs.theirs.map((x) => s(x.ms)).join(", ")}) | ${(oursMs / theirsMs).toFixed(2)}× | ${peak(runs.ours).toFixed(0)} MB | ${peak(runs.theirs).toFixed(0)} MB |`,
  "",
  check,
];
console.log(`\n${lines.join("\n")}\n`);
if (argv.includes("--write") && !QUICK) log(`written into ${writeBenchBlock("cost", "tests/bench/folder-bench.mjs", lines)}`);
