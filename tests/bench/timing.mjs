// Timing helpers: calibrated samples, alternating comparisons, medians with min–max spread.
//
// A sample times `n` back-to-back calls and reports the time per call; `n` is calibrated once so a sample
// lasts about `targetMs` (fast operations) or is 1 (slow ones). Compared functions run in the same process,
// alternating A,B / B,A every round, each sample after a forced GC when `--expose-gc` is on (and a 50 ms pause
// for V8's concurrent sweeping, plus one untimed call for fast calls), so neither side pays the other's garbage.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const gc = globalThis.gc ?? (() => {});
const require = createRequire(import.meta.url);

/** A bench script's command line: `opt(name, fallback)`, the built package under test (`--pkg`, default the repo's pkg/), `--quick`. */
export function benchArgs(argv = process.argv.slice(2)) {
  const opt = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
  return { argv, opt, pkg: resolve(opt("--pkg", join(repo, "pkg"))), quick: argv.includes("--quick") };
}

/** The machine's load as `uptime` prints it, for the line beside a benchmark's numbers. */
export const uptime = () => execFileSync("uptime", { encoding: "utf8" }).trim();

export function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  return { median, min: s[0], max: s[s.length - 1], runs: s.length };
}

function calibrate(fn, targetMs, maxN) {
  fn(); // warm-up (JIT, wasm tier-up, first-touch allocations)
  const t0 = performance.now();
  fn();
  const one = Math.max(performance.now() - t0, 1e-4);
  return Math.max(1, Math.min(maxN, Math.ceil(targetMs / one)));
}

const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function sample(fn, n, setup) {
  const arg = setup?.();
  if (globalThis.gc) {
    gc();
    // A forced GC leaves the heap to V8's concurrent sweepers; with pi's ~1 GB SessionManager next to us,
    // calls made right away run 5–10× slower while they compete for the two cores. Let them finish first.
    pause(50);
  }
  if (!setup && n > 1) fn(undefined, 0); // fast calls: one untimed call first, caches warm again after the GC
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn(arg, i);
  return (performance.now() - t0) / n;
}

/**
 * Times each function of `fns` ({label: fn}) over `rounds` rounds, rotating the order every round.
 * `setup` (optional, per label) runs untimed before each sample and its result is passed to fn;
 * `n` (optional, per label) fixes the calls per sample instead of calibrating.
 * Returns {label: {median, min, max, runs, n}} in milliseconds per call.
 */
export function compare(fns, { rounds = 9, targetMs = 20, maxN = 10000, setup = {}, n: fixedN = {} } = {}) {
  const labels = Object.keys(fns);
  const n = {};
  for (const l of labels) n[l] = fixedN[l] ?? calibrate(() => fns[l](setup[l]?.(), 0), targetMs, maxN);
  const times = Object.fromEntries(labels.map((l) => [l, []]));
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...labels].reverse() : labels;
    for (const l of order) times[l].push(sample(fns[l], n[l], setup[l]));
  }
  return Object.fromEntries(labels.map((l) => [l, { ...stats(times[l]), n: n[l] }]));
}

/** Rounds for an operation that takes about `ms` per call, bounded by a time budget per side. */
export function roundsFor(ms, { budgetMs = 4000, min = 3, max = 15 } = {}) {
  return Math.max(min, Math.min(max, Math.floor(budgetMs / Math.max(ms, 1e-3))));
}

/** Formats milliseconds with 3 significant digits and a unit (µs / ms / s). */
export function fmtMs(ms) {
  if (ms < 1) return `${sig(ms * 1000)} µs`;
  if (ms < 1000) return `${sig(ms)} ms`;
  return `${sig(ms / 1000)} s`;
}
function sig(x) {
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}

/** "median (min–max)" */
export function fmtStat(s) {
  return `${fmtMs(s.median)} (${fmtMs(s.min)}–${fmtMs(s.max)})`;
}

export function fmtBytes(b) {
  if (b < 1024) return `${b} B`;
  if (b < 1024 * 1024) return `${(b / 1024).toFixed(1)} KB`;
  return `${(b / 1024 / 1024).toFixed(1)} MB`;
}

export function fmtRatio(x) {
  return x >= 100 ? `${Math.round(x)}×` : x >= 10 ? `${x.toFixed(1)}×` : `${x.toFixed(2)}×`;
}

/**
 * The bench lock: one benchmark at a time on this machine (several engineers share it, and two benchmarks side by
 * side measure each other). An exclusive file `$PTN_CACHE/bench.lock` holding the holder's pid; a holder that is
 * gone leaves a stale lock, taken over. Waits (saying so every minute) until it is free; returns `release()`, also
 * run at exit. PTN_BENCH_LOCK_HELD=1: an outer script holds it already (run.mjs for its children).
 */
export async function benchLock(log = (m) => console.error(`[bench] ${m}`)) {
  if (process.env.PTN_BENCH_LOCK_HELD === "1") return () => {};
  const { mkdirSync, openSync, closeSync, readFileSync, rmSync, writeSync } = await import("node:fs");
  const { ptnCache } = await import("../../scripts/hosts.mjs");
  const path = join(ptnCache(), "bench.lock");
  mkdirSync(dirname(path), { recursive: true });
  for (let waited = 0; ; waited++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      break;
    } catch (e) {
      if (e.code !== "EEXIST") throw e;
      let holder = NaN;
      try {
        holder = Number(readFileSync(path, "utf8").trim());
      } catch {}
      let alive = false;
      try {
        process.kill(holder, 0);
        alive = true;
      } catch (k) {
        alive = k.code === "EPERM";
      }
      if (!alive) {
        rmSync(path, { force: true }); // its holder is gone
        continue;
      }
      if (waited % 12 === 0) log(`waiting for the bench lock ${path} (held by pid ${holder})`);
      await new Promise((r) => setTimeout(r, 5000));
    }
  }
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    try {
      if (readFileSync(path, "utf8").trim() === String(process.pid)) rmSync(path, { force: true });
    } catch {}
  };
  process.on("exit", release);
  process.env.PTN_BENCH_LOCK_HELD = "1";
  return release;
}

/**
 * Puts `lines` into docs/benchmarks.md between the markers `<!-- bench:<name> (generated by <by>; edit outside the
 * markers) -->` and `<!-- /bench:<name> -->` (appended at the end the first time); returns the file's path.
 */
export function writeBenchBlock(name, by, lines) {
  const { readFileSync, writeFileSync } = require("node:fs");
  const doc = join(dirname(fileURLToPath(import.meta.url)), "../../docs/benchmarks.md");
  const A = `<!-- bench:${name} (generated by ${by}; edit outside the markers) -->`;
  const B = `<!-- /bench:${name} -->`;
  const body = readFileSync(doc, "utf8");
  const block = `${A}\n${lines.join("\n")}\n${B}`;
  const a = body.indexOf(A);
  const b = body.indexOf(B);
  writeFileSync(doc, a >= 0 && b > a ? body.slice(0, a) + block + body.slice(b + B.length) : `${body.trimEnd()}\n\n${block}\n`);
  return doc;
}
