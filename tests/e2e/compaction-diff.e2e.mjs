// Differential (issue 31): pi builds the same context after our compaction entry as after the one it writes itself
// with the same summary. Each scenario runs twice in real pi with the same scripted conversation: A with the plugin
// writing the compaction from the prompt cache, B with the feature off, so pi compacts on its own and its cold
// summarizer is scripted to return the same text (for a split turn the two parts pi asks for separately). Compared,
// per compaction: the summary, `tokensBefore`, `details`, the kept entry (by position), and the messages of the
// request after it and of pi's `buildSessionContext` at the end (ids and timestamps aside; `usage` and `fromHook`
// are what differs by design). Then the session file of A is read by the core as the CLI and the viewer read a file
// (`SessionIndex.full()`): its context is pi's, its estimate the same as B's, the compaction a row of the tree.
// pi 0.74/0.75 compact on their own in both runs (no live request), which the same checks cover.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import test from "node:test";
import { createSession, loadHost, ScriptedModel } from "./lib/harness.mjs";
import { FIXTURES, PKG_DIR } from "./lib/hosts.mjs";

for (const k of ["PI_TREE_NAVIGATOR_NO_START_ANCHOR", "PI_TREE_NAVIGATOR_NO_HINT", "PI_TREE_NAVIGATOR_NO_CACHE_SUMMARY", "PI_TREE_NAVIGATOR_NO_CACHE_COMPACTION"]) delete process.env[k];
const host = await loadHost();
const CAPTURES = host.major > 0 || host.minor >= 87;
/**
 * A test's name on this host: `what`, then that it is the same as pi's own — or, on pi <0.87 (no live request, so pi
 * compacts on its own in both runs), that both runs are pi's and the core reads the file as pi does.
 */
const named = (what) => `${what}: ${CAPTURES ? "the same as pi's own" : `pi ${host.version} has no live request to reuse, so both runs compact on their own and agree; the core reads the file as pi`}`;
const core = await import(pathToFileURL(join(PKG_DIR, "index-node.js")).href);
const EXTENSIONS = [PKG_DIR, join(FIXTURES, "bulk-ext/index.js")];
const TOOLS = ["navigate_tree", "bulk_read", "read"];
const MARK = "Write a context checkpoint instead";
const TURN = "\n\n---\n\n**Turn Context (split turn):**\n\n";

const textOf = (m) => (typeof m?.content === "string" ? m.content : (m?.content ?? []).map((c) => c.text ?? "").join(""));
const isCompaction = (request) => request.messages.at(-1)?.role === "user" && textOf(request.messages.at(-1)).includes(MARK);
/** JSON with what differs between two runs by design removed: ids, timestamps, usage, and pi's fromHook flag. */
const norm = (v) => JSON.parse(JSON.stringify(v, (k, x) => (["id", "parentId", "timestamp", "usage", "fromHook", "responseId", "firstKeptEntryId", "durationMs"].includes(k) ? undefined : x)));

/**
 * One run. `steps`: the main conversation (tool-call triples or final texts); `actions(s)`: the prompts and
 * compactions; `ours`: the checkpoint replies to our requests (A); `cold`: pi's summarizer's replies (B).
 */
async function run(t, { steps, actions, ours, cold, live, compaction, cwd = sharedCwd(t) }) {
  const m = new ScriptedModel(host);
  m.router = (request) => (isCompaction(request) ? "live" : "main");
  m.agentBy.main = steps.map((s) => (typeof s === "string" ? m.text(s) : m.calls([s])));
  m.agentBy.live = ours.map((text) => (typeof text === "function" ? (request) => m.text(text(request)) : m.text(text)));
  m.summary.push(...cold.map((text) => m.text(text)));
  const requests = [];
  m.onRequest = (request, isSummary) => requests.push({ request, kind: isSummary ? "cold" : isCompaction(request) ? "live" : "main" });
  if (live) delete process.env.PI_TREE_NAVIGATOR_NO_CACHE_COMPACTION;
  else process.env.PI_TREE_NAVIGATOR_NO_CACHE_COMPACTION = "1";
  t.after(() => delete process.env.PI_TREE_NAVIGATOR_NO_CACHE_COMPACTION);
  const s = await createSession(host, m, { extensions: EXTENSIONS, tools: TOOLS, compaction, cwd });
  t.after(() => s.dispose());
  await actions(s);
  for (const end = Date.now() + 5000; Date.now() < end && s.session.isCompacting; ) await new Promise((r) => setTimeout(r, 20));
  delete process.env.PI_TREE_NAVIGATOR_NO_CACHE_COMPACTION;
  return { s, sm: s.sm, requests };
}

/** One working folder per test, shared by its two runs (the system prompt names it). */
const cwds = new WeakMap();
function sharedCwd(t) {
  if (!cwds.has(t)) {
    const dir = join(mkdtempSync(join(tmpdir(), "ptn-diff-")), "cwd");
    mkdirSync(dir);
    t.after(() => rmSync(dirname(dir), { recursive: true, force: true }));
    cwds.set(t, dir);
  }
  return cwds.get(t);
}

/**
 * What pi's own summarizer must answer for pi to store A's summaries: each summary without pi's file lists (pi
 * appends them itself); a split turn with no history is its one turn request (after pi's "No prior history." and
 * heading); a split turn with history is two requests, the history and the turn's prefix (the ledger, last, is
 * part of the prefix's). `lives`: A's instructions, to tell the split turns with history.
 */
function coldAnswers(sm, lives) {
  const summaries = sm.getEntries().filter((e) => e.type === "compaction");
  return summaries.flatMap((e, i) => {
    const files = ["readFiles", "modifiedFiles"].map((k, j) => (e.details[k].length ? `<${["read-files", "modified-files"][j]}>\n${e.details[k].join("\n")}\n</${["read-files", "modified-files"][j]}>` : "")).filter(Boolean);
    const suffix = files.length ? `\n\n${files.join("\n\n")}` : "";
    assert.ok(e.summary.endsWith(suffix));
    const text = e.summary.slice(0, e.summary.length - suffix.length);
    const head = `No prior history.${TURN}`;
    if (text.startsWith(head)) return [text.slice(head.length)];
    if (lives?.[i]?.includes("**Turn Context (split turn):**")) return text.split(TURN);
    return [text];
  });
}

/** The session as its file holds it (header + entries, JSONL). */
const fileOf = (sm) => [sm.getHeader(), ...sm.getEntries()].map((e) => JSON.stringify(e)).join("\n") + "\n";

function compare(a, b) {
  const entries = (sm) => sm.getEntries();
  const comps = (sm) => entries(sm).map((e, i) => [e, i]).filter(([e]) => e.type === "compaction");
  const [ca, cb] = [comps(a.sm), comps(b.sm)];
  assert.ok(ca.length >= 1, "A compacted");
  assert.equal(ca.length, cb.length, "as many compactions");
  ca.forEach(([ea, ia], k) => {
    const [eb, ib] = cb[k];
    assert.equal(ia, ib, `compaction ${k} at the same place`);
    assert.equal(ea.summary, eb.summary, `compaction ${k}: summary`);
    assert.equal(ea.tokensBefore, eb.tokensBefore, `compaction ${k}: tokensBefore`);
    assert.deepEqual(ea.details, eb.details, `compaction ${k}: details`);
    const kept = (sm, e) => entries(sm).findIndex((x) => x.id === e.firstKeptEntryId);
    assert.equal(kept(a.sm, ea), kept(b.sm, eb), `compaction ${k}: the first kept entry`);
    assert.deepEqual(norm(ea), norm(eb), `compaction ${k}: the entry`);
  });
  // Every main request the model got, the ones after the compactions included, is the same.
  const mains = (r) => r.requests.filter((x) => x.kind === "main").map((x) => norm(x.request.messages));
  assert.deepEqual(mains(a), mains(b), "the main requests");
  const { pca } = host;
  const context = (sm) => norm(pca.buildSessionContext(sm.getEntries(), sm.getLeafId()).messages);
  assert.deepEqual(context(a.sm), context(b.sm), "pi's context at the end");
  // A's file as the CLI and the viewer read it: pi's context, and the same estimate as B's.
  const read = (sm) => {
    const index = core.SessionIndex.full();
    index.setHostVersion(host.version);
    index.loadFile(fileOf(sm));
    return index;
  };
  const [ia, ib] = [read(a.sm), read(b.sm)];
  try {
    assert.deepEqual(norm(JSON.parse(ia.contextJson()).messages), context(a.sm), "the core's context of A's file is pi's");
    assert.deepEqual(ia.estimate(), ib.estimate(), "the same estimate");
    const rows = JSON.parse(ia.treeRowsJson(true));
    const ids = new Set(ca.map(([e]) => e.id));
    assert.equal(rows.filter((r) => ids.has(r.id) && r.type === "compaction" && r.active).length, ca.length, "each compaction is a row of the tree, on the active path");
  } finally {
    ia.free();
    ib.free();
  }
}

test(named("a manual compaction with files read"), async (t) => {
  const cwd = sharedCwd(t);
  writeFileSync(join(cwd, "alpha.txt"), "alpha\n");
  const steps = [["read", { path: "alpha.txt" }, "r1"], ["bulk_read", { chars: 6000, tag: "b1" }, "b1"], "one", "two", "three"];
  const summary = "## Goal\nread alpha (SAME)";
  const actions = async (s) => {
    await s.session.prompt("one");
    await s.session.prompt("two");
    await s.session.compact();
    await s.session.prompt("three");
  };
  const compaction = { enabled: false, keepRecentTokens: 500 };
  const a = await run(t, { steps, actions, ours: [summary], cold: [summary], live: true, compaction, cwd });
  const b = await run(t, { steps, actions, ours: [], cold: coldAnswers(a.sm), live: false, compaction, cwd });
  assert.equal(a.requests.filter((r) => r.kind === "live").length, CAPTURES ? 1 : 0);
  assert.equal(b.requests.filter((r) => r.kind === "live").length, 0);
  compare(a, b);
  const ours = a.sm.getEntries().find((e) => e.type === "compaction").summary;
  assert.ok(ours.endsWith("<read-files>\nalpha.txt\n</read-files>"), ours);
  if (CAPTURES) assert.match(ours, /<ledger>[^]*\[\w+\] one[^]*Files read:[^]*alpha\.txt[^]*<\/ledger>/, "the ledger of what was compacted");
});

/**
 * Runs `steps`/`actions` with threshold compaction twice: A answers our requests with `answer(i, split)`; B's cold
 * summarizer is scripted with what pi asks for the same compactions: one request for a checkpoint (a split turn with
 * no history is only its prefix), two for a split turn with history (the history, then the prefix) that pi joins
 * with its turn heading — so the summaries are the same when both are pi's format.
 */
async function thresholdPair(t, steps, actions) {
  const compaction = { enabled: true, reserveTokens: 128000 - 14000, keepRecentTokens: 3000 };
  const answer = (i, split) => (split ? `## Goal\nH${i}${TURN}## Original Request\nT${i}` : `## Goal\nH${i}`);
  const ours = Array.from({ length: 12 }, (_, i) => (request) => answer(i, textOf(request.messages.at(-1)).includes("**Turn Context (split turn):**")));
  const a = await run(t, { steps, actions, ours, cold: [], live: true, compaction });
  const lives = a.requests.filter((r) => r.kind === "live").map((r) => textOf(r.request.messages.at(-1)));
  const b = await run(t, { steps, actions, ours: [], cold: CAPTURES ? coldAnswers(a.sm, lives) : [], live: false, compaction });
  return { a, b, lives };
}

test(named("threshold compactions of one long run (a split turn, then updates)"), async (t) => {
  const steps = [1, 2, 3, 4, 5, 6].map((i) => ["bulk_read", { chars: 20000, tag: `b${i}` }, `b${i}`]).concat(["done"]);
  const { a, b, lives } = await thresholdPair(t, steps, (s) => s.session.prompt("read everything"));
  if (CAPTURES) assert.ok(lives.length >= 2 && lives.slice(1).every((l) => l.includes("Message 1 is the summary of an earlier compaction")), "updates");
  compare(a, b);
});

test(named("a threshold compaction that splits the second prompt's turn (history and the turn's prefix)"), async (t) => {
  const steps = [["bulk_read", { chars: 4000, tag: "first" }, "f1"], "first done"].concat([1, 2, 3].map((i) => ["bulk_read", { chars: 20000, tag: `b${i}` }, `b${i}`]), ["done"]);
  const actions = async (s) => {
    await s.session.prompt("first");
    await s.session.prompt("second");
  };
  const { a, b, lives } = await thresholdPair(t, steps, actions);
  if (CAPTURES) assert.ok(lives.some((l) => l.includes("**Turn Context (split turn):**") && l.includes("Create a structured context checkpoint summary of messages 1 to")), "a split turn with history");
  compare(a, b);
});
