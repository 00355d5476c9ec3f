// Row 4: the plugin's per-call cost inside a real pi (pi-host.md §4 recipe A: AgentSession + faux model).
//
//   PTN_HOST_VERSION=0.75.5 <node22> --expose-gc tests/bench/inhost.mjs <pkg dir> <session.jsonl> [rounds]
//
// The session file is opened with SessionManager.open (a copy), so the tool runs on a real 10k-entry session.
// A wrapper extension (written next to the package's extension.js) loads the real extension through pi's own
// loader and times `execute` per call, the `context` hook per request and `agent.prepareNextTurn` per turn.
// Next to each of our calls it runs the seed's computation for the same call on the same live session
// (alternating which goes first): `list` → the seed's list numbers; `anchor` → the seed's path lookup and
// active-branch estimate; per request → the seed's per-turn `buildSessionContext()` (it rebuilt every turn).
// The rewind's summarizer call (pi's generateBranchSummary with the faux model) is timed and subtracted.
// Prints one JSON line: {piVersion, node, entries, anchors, ops: {name: {ours, seed?}}, notes}.
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSession, loadHost, ScriptedModel } from "../e2e/lib/harness.mjs";
import { FIXTURES } from "../e2e/lib/hosts.mjs";
import { hostDir } from "../../scripts/hosts.mjs";
import { assertSameList, loadReference, seedAnchorCompute, seedList } from "./seed.mjs";
import { stats } from "./timing.mjs";

const [pkg, file, roundsArg] = process.argv.slice(2);
const ROUNDS = Number(roundsArg ?? 10);
const SESSIONS = 3; // fresh sessions: each one's first call is a cold index build
const host = await loadHost();
const ref = await loadReference(hostDir(host.version));
const B = (globalThis[Symbol.for("ptn-bench")] = { calls: [], context: [], pnt: [], flip: 0 });
B.seedList = (sm, projected) => seedList(ref, sm, projected);
B.seedAnchor = (sm, name) => seedAnchorCompute(ref, sm, name);

// The wrapper extension: the real extension from the package, with timed execute/hooks.
const wrapper = join(pkg, "bench-wrapper.js");
writeFileSync(
  wrapper,
  `import navigateTree from "./extension.js";
import { generateBranchSummary } from "@earendil-works/pi-coding-agent";
export default function benchWrapper(pi) {
  const B = globalThis[Symbol.for("ptn-bench")];
  let summarizeMs = 0;
  const summarize = async (...args) => {
    const t = performance.now();
    try { return await generateBranchSummary(...args); } finally { summarizeMs += performance.now() - t; }
  };
  const timedSeed = (fn) => { const t = performance.now(); const out = fn(); return { ms: performance.now() - t, out }; };
  const proxy = new Proxy(pi, {
    get(target, key) {
      if (key === "registerTool") return (def) => target.registerTool({ ...def, async execute(id, params, signal, onUpdate, ctx) {
        const sm = ctx.sessionManager;
        const seedFn = params?.action === "list" ? () => B.seedList(sm) : params?.action === "anchor" ? () => B.seedAnchor(sm, params.name) : null;
        const seedFirst = (B.flip++ % 2) === 0;
        let seed = seedFn && seedFirst ? timedSeed(seedFn) : null;
        summarizeMs = 0;
        const t0 = performance.now();
        const result = await def.execute(id, params, signal, onUpdate, ctx);
        const ms = performance.now() - t0;
        if (seedFn && !seedFirst) seed = timedSeed(seedFn);
        // The check's numbers: pi's with the projected rule (seed.mjs), untimed; a list changes nothing in the session.
        const seedOut = params?.action === "list" ? B.seedList(sm, true) : seed?.out ?? null;
        B.calls.push({ action: params?.action, ms, summarizeMs, seedMs: seed?.ms ?? null, seedOut,
          details: result?.details, isError: !!result?.isError, text: result?.content?.[0]?.text ?? "" });
        return result;
      } });
      if (key === "on") return (event, handler) => target.on(event, event !== "context" ? handler : (e, ctx) => {
        const sm = ctx?.sessionManager;
        const seedFirst = (B.flip++ % 2) === 0;
        let seedMs = null;
        const seed = () => { const t = performance.now(); sm?.buildSessionContext(); seedMs = performance.now() - t; };
        if (seedFirst) seed();
        const t0 = performance.now();
        const r = handler(e, ctx);
        const ms = performance.now() - t0;
        if (!seedFirst) seed();
        B.context.push({ ms, replaced: !!r?.messages, seedMs });
        return r;
      });
      const v = Reflect.get(target, key, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  navigateTree(proxy, { summarize });
}
`,
);

function timePrepareNextTurn(agent) {
  let stored = agent.prepareNextTurn;
  const wrap = (fn) => {
    if (typeof fn !== "function") return fn;
    const timed = async (...args) => {
      const t0 = performance.now();
      const r = await fn(...args);
      B.pnt.push({ ms: performance.now() - t0, replaced: !!r?.context?.messages });
      return r;
    };
    for (const s of Object.getOwnPropertySymbols(fn)) timed[s] = fn[s];
    return timed;
  };
  Object.defineProperty(agent, "prepareNextTurn", { configurable: true, enumerable: true, get: () => stored, set: (fn) => (stored = wrap(fn)) });
}

const FOCUS = "User's latest instruction, verbatim: 'keep going with the parser work'. Done: read the module. Left: write the fix.";
const m = new ScriptedModel(host);
const results = { first: [], anchor: [], list: [], rewind: [], errors: [] };
for (let s = 0; s < SESSIONS; s++) {
  const dir = join(pkg, `..`, `inhost-${s}`);
  mkdirSync(join(dir, "sessions"), { recursive: true });
  const copy = join(dir, "sessions", "bench.jsonl");
  copyFileSync(file, copy);
  const sm = host.pca.SessionManager.open(copy, join(dir, "sessions"));
  const entries = sm.getEntries().length;
  const anchors = seedList(ref, sm).anchors.length;
  const session = await createSession(host, m, {
    extensions: [wrapper, join(FIXTURES, "bulk-ext/index.js")],
    tools: ["navigate_tree", "bulk_read"],
    sessionManager: sm,
    cwd: join(dir, "cwd"),
  });
  timePrepareNextTurn(session.session.agent);
  const call = (args, id) => m.calls([["navigate_tree", args, id]]);
  const rounds = s === 0 ? ROUNDS : 1;
  // The faux model's usage doubles the first request of a session (no prompt cache yet: cacheWrite = the
  // whole prompt), so the first anchor point would look bigger than everything after it: one list first.
  m.agent.push(call({ action: "anchor", name: `first-${s}` }, `f${s}`), call({ action: "list" }, `g${s}`));
  for (let r = 0; r < rounds; r++) {
    m.agent.push(
      call({ action: "anchor", name: `bench-${s}-${r}` }, `a${s}_${r}`),
      call({ action: "list" }, `l${s}_${r}`),
      m.calls([["bulk_read", { chars: 24000, tag: `src/mod${r}.rs` }, `b${s}_${r}`]]),
      call({ action: "rewind", labelStart: `bench-${s}-${r}`, labelEnd: `done-${s}-${r}`, summaryFocus: FOCUS }, `r${s}_${r}`),
      call({ action: "list" }, `m${s}_${r}`),
    );
  }
  m.agent.push(m.text("done"));
  const from = B.calls.length;
  await session.session.prompt("Continue with the parser work; anchor, read, rewind as you go.");
  const calls = B.calls.slice(from);
  for (const c of calls) if (c.isError) results.errors.push(`${c.action}: ${c.text.slice(0, 200)}`);
  results.first.push(calls[0].ms);
  for (const c of calls.slice(1)) {
    if (c.action === "anchor") results.anchor.push(c);
    if (c.action === "list") {
      results.list.push(c);
      // same numbers: the core's list details vs the seed's list on the same live session
      const d = c.details ?? {};
      const ours = { total: d.contextTokens ?? d.currentTokens ?? d.tokens, anchors: d.anchors ?? [] };
      if (Array.isArray(d.anchors)) assertSameList(ours, c.seedOut, "in-host list");
    }
    if (c.action === "rewind") results.rewind.push(c);
  }
  results.entries ??= entries;
  results.anchorsOnPath ??= anchors;
  session.dispose();
}
// PTN_BENCH_DEBUG=1: every call with its result text on stderr
if (process.env.PTN_BENCH_DEBUG) console.error(JSON.stringify(B.calls.map((c) => [c.action, c.ms.toFixed(1), c.text.slice(0, 300)]), null, 1));
if (results.errors.length) throw new Error(`tool calls failed:\n${results.errors.join("\n")}`);

const st = (xs) => stats(xs);
const ops = {
  firstCall: { ours: st(results.first) },
  anchor: { ours: st(results.anchor.map((c) => c.ms)), seed: st(results.anchor.map((c) => c.seedMs)) },
  list: { ours: st(results.list.map((c) => c.ms)), seed: st(results.list.map((c) => c.seedMs)) },
  rewind: { ours: st(results.rewind.map((c) => c.ms - c.summarizeMs)) },
};
const idle = B.context.filter((c) => !c.replaced);
const replaced = B.context.filter((c) => c.replaced);
if (idle.length) ops.contextIdle = { ours: st(idle.map((c) => c.ms)), seed: st(idle.map((c) => c.seedMs)) };
if (replaced.length) ops.contextAfterRewind = { ours: st(replaced.map((c) => c.ms)), seed: st(replaced.map((c) => c.seedMs)) };
const pntReplaced = B.pnt.filter((c) => c.replaced);
if (pntReplaced.length) ops.prepareNextTurn = { ours: st(pntReplaced.map((c) => c.ms)) };
const summarizeMs = st(results.rewind.map((c) => c.summarizeMs));
const listChecked = results.list.filter((c) => Array.isArray(c.details?.anchors)).length;
const notes = [
  `${results.rewind.length} rewinds, ${results.list.length} lists, ${results.anchor.length} warm anchors, ${SESSIONS} cold first calls (fresh sessions); ` +
    `${B.context.length} requests through the \`context\` hook (${replaced.length} replaced after a rewind), ${B.pnt.length} \`prepareNextTurn\` calls.`,
  `The summarizer call subtracted from each rewind (pi's \`generateBranchSummary\`, faux model) took ${summarizeMs.median.toFixed(1)} ms (median).`,
  listChecked
    ? `Every in-host \`list\` was checked against the seed's numbers on the same session (${listChecked} calls).`
    : "The list plan's details carry no anchor array, so the in-host list numbers were not compared (row 1 compares them).",
  "Seed column for the `context` rows: the seed's per-turn `sm.buildSessionContext()` (it rebuilt the context after every turn, rewind or not).",
];
console.log(JSON.stringify({ piVersion: host.version, node: process.versions.node, entries: results.entries, anchors: results.anchorsOnPath, ops, notes }));
