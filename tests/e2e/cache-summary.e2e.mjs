// Cache-preserving rewind summaries in real pi (faux model, offline): on hosts with `context_with_system`
// (≥0.87) the summary request replays the last main-loop request unchanged plus one instruction, through
// the host's model registry with the live session id; every fallback reason is produced here.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import test from "node:test";
import { resultEntry, resultText } from "./lib/checks.mjs";
import { createSession, loadHost, routedModel, testDir, useAgentDir } from "./lib/harness.mjs";
import { FIXTURES, PKG_DIR } from "./lib/hosts.mjs";

// The driver switches these features off for the older scenarios; these tests are about them.
for (const k of ["PI_TREE_NAVIGATOR_NO_START_ANCHOR", "PI_TREE_NAVIGATOR_NO_HINT", "PI_TREE_NAVIGATOR_NO_CACHE_SUMMARY"]) delete process.env[k];
const host = await loadHost();
const CAPTURES = host.major > 0 || host.minor >= 87; // the host has context_with_system
const EXTENSIONS = [PKG_DIR, join(FIXTURES, "bulk-ext/index.js")];
const TOOLS = ["navigate_tree", "bulk_read"];
const FOCUS = "User asked: 'read the data'. Done: read it. Left: nothing.";
const INSTRUCTION = "Stop the task here: do not continue the work";

const anchor = (name, id) => ["navigate_tree", { action: "anchor", name }, id];
const bulk = (chars, id) => ["bulk_read", { chars, tag: id }, id];
const rewind = (id) => ["navigate_tree", { action: "rewind", labelStart: "a", labelEnd: "a-done", summaryFocus: FOCUS }, id];

function isCacheSummary(request) {
  const last = request.messages.at(-1);
  return last?.role === "user" && JSON.stringify(last.content).includes(INSTRUCTION);
}

/** Steps: tool-call triples, strings (final text) or functions `(request, ctx) => step`. */
async function start(t, steps, { config = null, summary = "## Goal\nread the data (LIVE-SUMMARY)" } = {}) {
  const made = testDir(t, "ptn-cache-");
  const dirs = made.dir;
  const agentDir = join(dirs, "agent");
  mkdirSync(agentDir, { recursive: true });
  useAgentDir(t, agentDir, config);
  const { m, order } = routedModel(host, isCacheSummary);
  const box = {};
  m.agentBy.main = steps.map((s) =>
    typeof s === "function" ? (request) => m.calls([s(request, box)]) : typeof s === "string" ? m.text(s) : m.calls([s]),
  );
  m.agentBy.live = [typeof summary === "function" ? summary(m) : m.text(summary)];
  m.summary.push(m.text("## Goal\nread the data (COLD-SUMMARY)"));
  const s = (made.session = await createSession(host, m, { extensions: EXTENSIONS, tools: TOOLS }));
  box.sm = s.sm;
  box.session = s.session;
  return { m, s, sm: s.sm, order };
}

function cacheDetails(sm, callId) {
  const r = resultEntry(sm, callId);
  assert.ok(r, `no result for ${callId}`);
  assert.notEqual(r.isError, true, `rewind failed: ${resultText(sm, callId)}`);
  return r.details?.summaryCache;
}

test(CAPTURES ? "the summary request replays the last main-loop request unchanged, plus one instruction" : `pi ${host.version} has no request to replay: the summary request is the cold one, reason no-capture`, async (t) => {
  const { sm, s, order } = await start(t, [anchor("a", "c1"), bulk(30_000, "b1"), bulk(2_000, "b2"), rewind("r1"), "done"]);
  await s.session.prompt("read the data");
  const details = cacheDetails(sm, "r1");
  if (!CAPTURES) {
    assert.deepEqual({ mode: details.mode, reason: details.reason }, { mode: "fallback", reason: "no-capture" });
    assert.equal(order.filter((o) => o.kind === "cold").length, 1);
    return;
  }
  const at = order.findIndex((o) => o.kind === "live");
  assert.ok(at > 0, `no cache-preserving summary request: ${order.map((o) => o.kind)}`);
  const live = order[at].request;
  const last = order[at - 1];
  assert.equal(last.kind, "main");
  // The proof: everything before the instruction is the request the provider got for the rewind call.
  assert.deepEqual(live.rawMessages.slice(0, -1), last.request.rawMessages);
  assert.equal(live.rawMessages.length, last.request.rawMessages.length + 1);
  const instruction = JSON.stringify(live.messages.at(-1).content);
  assert.ok(instruction.includes(FOCUS.slice(0, 30)), "the focus is carried");
  // Messages: 1 user, 2 assistant(anchor c1), 3 result(c1), 4 assistant(b1)… — the first collapsed one is 2.
  assert.match(instruction, /Summarize messages 2 to \d+ /);
  assert.equal(order.filter((o) => o.kind === "cold").length, 0, "no cold request");
  assert.equal(details.mode, "live-prefix");
  assert.equal(details.reason, null);
  assert.ok(details.cacheRead > 5_000, `served from the prompt cache: ${JSON.stringify(details)}`);
  assert.ok(details.input < details.cacheRead / 10, `little fresh input: ${JSON.stringify(details)}`);
  // The branch summary is the model's reply, and the next request carries it.
  const next = order[at + 1].request;
  assert.ok(JSON.stringify(next.messages).includes("LIVE-SUMMARY"));
});

test("fallback: switched off in the config → cold request, reason disabled", async (t) => {
  const { sm, s, order } = await start(t, [anchor("a", "c1"), bulk(30_000, "b1"), rewind("r1"), "done"], { config: { cacheSummary: false } });
  await s.session.prompt("read");
  const d = cacheDetails(sm, "r1");
  assert.deepEqual([d.mode, d.reason], ["fallback", "disabled"]);
  assert.equal(order.filter((o) => o.kind === "cold").length, 1);
  assert.equal(order.filter((o) => o.kind === "live").length, 0);
});

test("fallback: the capture is stale (an entry was appended after it) → reason stale-capture", { skip: !CAPTURES && `pi ${host.version} has no request to replay` }, async (t) => {
  const stale = (_request, box) => {
    box.sm.appendCustomEntry("test-marker", { why: "moves the leaf after the capture" });
    return rewind("r1");
  };
  const { sm, s } = await start(t, [anchor("a", "c1"), bulk(30_000, "b1"), stale, "done"]);
  await s.session.prompt("read");
  const d = cacheDetails(sm, "r1");
  assert.deepEqual([d.mode, d.reason], ["fallback", "stale-capture"]);
});

test("fallback: the replay would overflow the window → reason overflow (never truncated)", { skip: !CAPTURES && `pi ${host.version} has no request to replay` }, async (t) => {
  const { sm, s } = await start(t, [anchor("a", "c1"), bulk(460_000, "b1"), rewind("r1"), "done"]);
  await s.session.prompt("read");
  const d = cacheDetails(sm, "r1");
  assert.deepEqual([d.mode, d.reason], ["fallback", "overflow"]);
});

test("fallback: the branch crosses a compaction → reason crosses-compaction", { skip: !CAPTURES && `pi ${host.version} has no request to replay` }, async (t) => {
  const compact = (_request, box) => {
    const first = box.sm.getBranch().find((e) => e.type === "message" && e.message.role === "user");
    box.sm.appendCompaction("compacted (test)", first.id, 1000);
    return bulk(30_000, "b2");
  };
  const { sm, s } = await start(t, [anchor("a", "c1"), bulk(10_000, "b1"), compact, rewind("r1"), "done"]);
  await s.session.prompt("read");
  const d = cacheDetails(sm, "r1");
  assert.deepEqual([d.mode, d.reason], ["fallback", "crosses-compaction"]);
});

test("fallback: the registry has no streamSimple → reason no-stream", { skip: !CAPTURES && `pi ${host.version} has no request to replay` }, async (t) => {
  const noStream = (_request, box) => {
    const registry = box.session.modelRegistry ?? box.session.extensionRunner?.modelRegistry ?? box.session._extensionRunner?.modelRegistry;
    registry.streamSimple = undefined; // shadows the prototype's method for this session only
    return rewind("r1");
  };
  const { sm, s } = await start(t, [anchor("a", "c1"), bulk(30_000, "b1"), noStream, "done"]);
  await s.session.prompt("read");
  const d = cacheDetails(sm, "r1");
  assert.deepEqual([d.mode, d.reason], ["fallback", "no-stream"]);
});

test("fallback: the live-prefix request fails → the cold request follows, reason failed", { skip: !CAPTURES && `pi ${host.version} has no request to replay` }, async (t) => {
  const { sm, s, order } = await start(t, [anchor("a", "c1"), bulk(30_000, "b1"), rewind("r1"), "done"], { summary: (m) => m.error("provider overloaded") });
  await s.session.prompt("read");
  const d = cacheDetails(sm, "r1");
  assert.deepEqual([d.mode, d.reason], ["fallback", "failed"]);
  assert.deepEqual(order.filter((o) => o.kind !== "main").map((o) => o.kind), ["live", "cold"]);
});

test("fallback: the env kill switch → reason disabled", async (t) => {
  process.env.PI_TREE_NAVIGATOR_NO_CACHE_SUMMARY = "1";
  t.after(() => delete process.env.PI_TREE_NAVIGATOR_NO_CACHE_SUMMARY);
  const { sm, s } = await start(t, [anchor("a", "c1"), bulk(30_000, "b1"), rewind("r1"), "done"]);
  await s.session.prompt("read");
  const d = cacheDetails(sm, "r1");
  assert.deepEqual([d.mode, d.reason], ["fallback", "disabled"]);
});
