// The ledger under a rewind's summary (issue 30): what it costs against what each rewind saves, and which planted facts
// it keeps, over generated long runs.
//
//   node tests/bench/ledger-bench.mjs [--seed 7] [--runs 6] [--budget 600] [--pkg <dir>]
//
// A manual run (not in `npm test` or `npm run bench`). Seeded generated runs, each a few stages of autonomous work:
// the user's prompt, an anchor, then tool calls — `read` (1k–16k characters of a file), `bash` (0.3k–8k of output; a
// third fail with a compiler error, its `-->` location and a test summary, some pass with their summary), `edit` /
// `write`, `grep`, the model's text between them, now and then a user message steered in — and at the stage's end
// a rewind to its anchor, carried out through the built package as the extension does (tests/diff/ledgered.mjs:
// toolPlan, rewindSummary with the collapsed entries as pi holds them, rewindFinish). Every stage plants one fact of
// each kind the ledger keeps (a steered user message, a file read, a file written, a failing command and its exit
// status, its error line with the location, its test summary); the summarizer's own text mentions none. Three
// shapes of stage (calls per stage). Per shape: the rewinds' median tokens saved (context before − after, pi's
// estimate), the ledger's median tokens and its share of what the rewind saved (median, p90, max: goal ≤10 % at the
// median), the items it left out for room, and the share of planted facts found verbatim in the summary, per kind
// (goal 100 %). Token counts, not timings: the machine's load does not change them (printed anyway).
import { loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { RunWriter } from "../diff/ledgered.mjs";
import { rng as mulberry32 } from "./rng.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const argv = process.argv.slice(2);
const opt = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const SEED = Number(opt("--seed", "7"));
const RUNS = Number(opt("--runs", "6"));
const BUDGET = Number(opt("--budget", "600"));
const api = await import(pathToFileURL(join(resolve(opt("--pkg", join(root, "pkg"))), "index-node.js")).href);
await api.ready;

const SHAPES = [
  { name: "short stages", calls: [6, 12], stages: 6 },
  { name: "medium stages", calls: [20, 40], stages: 5 },
  { name: "long stages", calls: [60, 120], stages: 4 },
];
const KINDS = ["user message", "file read", "file modified", "command + exit", "error + location", "test summary"];
/** The ledger's heading each kind is listed under (errors and test summaries share one). */
const HEADINGS = ["User messages:", "Files read:", "Files modified:", "Commands run:", "Errors and test results:", "Errors and test results:"];
const SUMMARY = "## Goal\nContinue the work on the project.\n## Progress\n### Done\n- the stage's work\n### In Progress\n- (none)\n## Key Decisions\n- **Approach**: as planned\n## Next Steps\n1. The next stage";

/** A seeded generator (mulberry32, ./rng.mjs: the runs must be the same for a seed) with the draws used here. */
function rng(seed) {
  const next = mulberry32(seed);
  return { next, int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)), chance: (p) => next() < p, pick: (xs) => xs[Math.floor(next() * xs.length)] };
}

const WORDS = "parser lexer token expression module state result value handler config stream buffer error index tree node".split(" ");
/** `n` characters of code-like text (lines of words). */
function code(r, n) {
  let out = "";
  while (out.length < n) out += `    let ${r.pick(WORDS)}_${r.int(0, 99)} = ${r.pick(WORDS)}::${r.pick(WORDS)}(${r.int(0, 9)});\n`;
  return out.slice(0, n);
}
/** A path of the generated project. */
const path = (r, k) => `src/${r.pick(WORDS)}/${r.pick(WORDS)}_${k}.rs`;

/** One stage of work after its anchor; returns the facts it planted, by kind. */
function stage(run, r, k, calls) {
  const planted = {};
  // Where the planted facts go among the stage's calls.
  const at = Object.fromEntries(KINDS.map((kind) => [kind, r.int(0, calls - 1)]));
  for (let i = 0; i < calls; i++) {
    if (r.chance(0.5)) run.message({ role: "assistant", content: [{ type: "text", text: code(r, r.int(50, 1500)) }], api: "faux", provider: "faux", model: "faux-1", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop" });
    if (i === at["user message"]) {
      planted["user message"] = `Stage ${k}: also keep ${r.pick(WORDS)}_${r.int(100, 999)} backwards compatible.`;
      run.user(planted["user message"]);
    }
    if (i === at["file read"]) {
      planted["file read"] = path(r, `read${k}`);
      run.tool("read", { path: planted["file read"] }, code(r, r.int(1000, 16000)));
    }
    if (i === at["file modified"]) {
      planted["file modified"] = path(r, `mod${k}`);
      run.tool("write", { path: planted["file modified"], content: code(r, r.int(200, 3000)) }, `Successfully wrote to ${planted["file modified"]}`);
    }
    if (i === at["command + exit"]) {
      // The failing command: its error with the location under it, its test summary, exit 101.
      const line = r.int(10, 900);
      planted["command + exit"] = `\`cargo test -p stage${k}\` → exit 101`;
      planted["error + location"] = `error[E0${r.int(100, 799)}]: mismatched types --> src/stage${k}.rs:${line}:${r.int(1, 80)}`;
      const [error, location] = planted["error + location"].split(" --> ");
      planted["test summary"] = `test result: FAILED. ${r.int(5, 200)} passed; ${r.int(1, 9)} failed; 0 ignored`;
      run.tool("bash", { command: `cargo test -p stage${k}` }, `${code(r, r.int(300, 6000))}\n${error}\n  --> ${location}\n\n${planted["test summary"]}\n\nCommand exited with code 101`, true);
    }
    // The rest of the work.
    const kind = r.pick(["read", "read", "bash", "bash", "edit", "grep"]);
    if (kind === "read") run.tool("read", { path: path(r, i) }, code(r, r.int(1000, 16000)));
    else if (kind === "bash") {
      const fails = r.chance(0.33);
      const out = fails
        ? `${code(r, r.int(300, 8000))}\nerror: could not compile \`${r.pick(WORDS)}\`\n\nCommand exited with code 1`
        : `${code(r, r.int(300, 8000))}\ntest result: ok. ${r.int(5, 300)} passed; 0 failed; 0 ignored`;
      run.tool("bash", { command: `cargo ${r.pick(["build", "test", "clippy"])} -q` }, out, fails);
    } else if (kind === "edit") run.tool("edit", { path: path(r, i), oldText: code(r, 120), newText: code(r, 200) }, "Successfully replaced text");
    else run.tool("grep", { pattern: r.pick(WORDS) }, code(r, r.int(200, 4000)));
  }
  return planted;
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN;
};
const pct = (x) => `${(100 * x).toFixed(1)} %`;

console.log(`ledger-bench · seed ${SEED} · ${RUNS} runs per shape · ledger bound ${BUDGET} tokens · load ${loadavg().map((x) => x.toFixed(2)).join(" ")}`);
const rows = [];
for (const [s, shape] of SHAPES.entries()) {
  const rewinds = [];
  const kept = Object.fromEntries(KINDS.map((k) => [k, [0, 0]]));
  let everyKind = 0;
  for (let n = 0; n < RUNS; n++) {
    const r = rng(SEED * 1000 + s * 100 + n);
    // Each assistant reports the context as pi's estimate of it, plus a system prompt's 3,000 tokens until one reported
    // usage carries them: the rewind's "before".
    const usage = (w) => {
      const e = w.index.estimate();
      return e.tokens + (e.usageTokens > 0 ? 0 : 3000);
    };
    const run = new RunWriter(api, { hostVersion: "1.6.0", prefix: `r${s}n${n}`, usage });
    try {
      run.user("Work through the project's stages.");
      for (let k = 0; k < shape.stages; k++) {
        const prompt = run.user(`Stage ${k}: go on.`);
        run.label(prompt.id, `anchor:stage-${k}`);
        const planted = stage(run, r, k, r.int(...shape.calls));
        const done = run.rewind(`stage-${k}`, `stage-${k}-done`, SUMMARY, BUDGET);
        if (!done.written) throw new Error(`stage ${k}: the rewind was refused: ${done.plan.text}`);
        const d = done.finish.details;
        rewinds.push({ saved: d.contextBefore - d.contextAfter, ledger: done.written.ledgerTokens });
        for (const kind of KINDS) {
          kept[kind][1]++;
          if (done.written.summary.includes(planted[kind])) kept[kind][0]++;
        }
        if (HEADINGS.every((h) => done.written.summary.includes(`\n${h}\n`))) everyKind++;
      }
    } finally {
      run.free();
    }
  }
  const ratios = rewinds.map((x) => x.ledger / x.saved);
  rows.push({
    shape: `${shape.name} (${shape.calls[0]}–${shape.calls[1]} calls)`,
    rewinds: rewinds.length,
    saved: quantile(rewinds.map((x) => x.saved), 0.5),
    ledger: quantile(rewinds.map((x) => x.ledger), 0.5),
    median: quantile(ratios, 0.5),
    p90: quantile(ratios, 0.9),
    max: Math.max(...ratios),
    kept: KINDS.map((k) => kept[k][0] / kept[k][1]),
    everyKind: everyKind / rewinds.length,
  });
}

console.log("");
console.log("| stages | rewinds | saved (median) | ledger (median) | ledger ÷ saved: median · p90 · max | ledgers listing every kind | planted facts kept: " + KINDS.join(" · ") + " |");
console.log("|---|---|---|---|---|---|---|");
for (const row of rows) {
  console.log(`| ${row.shape} | ${row.rewinds} | ${row.saved} | ${row.ledger} | ${pct(row.median)} · ${pct(row.p90)} · ${pct(row.max)} | ${pct(row.everyKind)} | ${row.kept.map(pct).join(" · ")} |`);
}
const medians = rows.map((r) => r.median);
console.log("");
console.log(`Goal ≤10 % of the saved tokens at the median: ${medians.every((m) => m <= 0.1) ? "met" : "NOT met"} (${medians.map(pct).join(", ")}).`);
console.log(`Goal: every kind of fact kept — listed in every ledger: ${rows.every((r) => r.everyKind === 1) ? "met" : "NOT met"}; the very fact planted, of every kind: ${rows.every((r) => r.kept.every((k) => k === 1)) ? "met" : "NOT met"} (${rows.map((r) => `${r.shape.split(" (")[0]}: ${KINDS.filter((_, i) => r.kept[i] < 1).join(", ") || "all"}${KINDS.some((_, i) => r.kept[i] < 1) ? " below 100 %" : ""}`).join("; ")}).`);
