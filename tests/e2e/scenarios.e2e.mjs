// navigate_tree inside a real pi AgentSession, offline with pi-ai's scripted faux model.
// Run per host by tests/e2e/e2e.test.mjs (PTN_HOST_VERSION selects the pi install). The extension is
// loaded from the built package (pkg/) through pi's own resource loader, like `pi install pkg/` does.
import assert from "node:assert/strict";
import { join } from "node:path";
import test from "node:test";
import {
  assertAllPaired,
  BRANCH_SUMMARY_PREFIX,
  entriesOfType,
  labelsOf,
  resultEntry,
  resultText,
  size,
  text,
  toolResult,
} from "./lib/checks.mjs";
import { createSession, loadHost, ScriptedModel } from "./lib/harness.mjs";
import { FIXTURES, PKG_DIR } from "./lib/hosts.mjs";

const host = await loadHost();
const EXTENSIONS = [PKG_DIR, join(FIXTURES, "bulk-ext/index.js")];
const TOOLS = ["navigate_tree", "bulk_read"];
const FOCUS = "User asked: 'build the parser'. Done: read the input data. Left: write the tests.";
const SUMMARY = "## Goal\nBuild the parser\n## Progress\n### Done\n- read the input data (MARK-SUMMARY)\n## Next Steps\n- write the tests";
const SUMMARY_2 = "## Goal\nBuild the parser\n## Progress\n### Done\n- second stage (MARK-SUMMARY-2)";
const REGISTRY = Symbol.for("pi-tree-navigator.registry");
const ORIGINAL = Symbol.for("pi-tree-navigator.original-prompt");
const WRAPPER = Symbol.for("pi-tree-navigator.prompt-wrapper");

const anchor = (name, id) => ["navigate_tree", { action: "anchor", name }, id];
const rewind = (labelStart, labelEnd, id, summaryFocus = FOCUS) => ["navigate_tree", { action: "rewind", labelStart, labelEnd, summaryFocus }, id];
const list = (id) => ["navigate_tree", { action: "list" }, id];
const bulk = (chars, id, tag = "bulk") => ["bulk_read", { chars, tag }, id];

/** A session with the built extension; `steps` are tool-call triples or strings (final text). */
async function start(t, steps = [], summaries = []) {
  const m = new ScriptedModel(host);
  for (const s of steps) m.agent.push(typeof s === "string" ? m.text(s) : m.calls([s]));
  for (const s of summaries) m.summary.push(typeof s === "string" ? m.text(s) : s);
  const s = await createSession(host, m, { extensions: EXTENSIONS, tools: TOOLS });
  t.after(() => s.dispose());
  return { m, s, sm: s.sm };
}

function isError(sm, callId) {
  const m = resultEntry(sm, callId);
  assert.ok(m, `no result for ${callId}`);
  return m.isError === true;
}

function messageEntry(sm, predicate) {
  return sm.getEntries().find((e) => e.type === "message" && predicate(e.message));
}

function userEntry(sm, textContent) {
  return messageEntry(sm, (m) => m.role === "user" && JSON.stringify(m.content).includes(textContent));
}

function resultEntryId(sm, callId) {
  return messageEntry(sm, (m) => m.role === "toolResult" && m.toolCallId === callId).id;
}

/** No branch was created: every entry is on the active path. */
function assertLinear(sm) {
  assert.equal(sm.getBranch().length, sm.getEntries().length, "the tree branched");
}

test("anchor labels the point before its own call and reports the position", async (t) => {
  const { m, sm, s } = await start(t, [anchor("start", "c1"), "ok"]);
  await s.session.prompt("build it");
  const txt = resultText(sm, "c1");
  assert.match(txt, /^\[anchor 'start'\] set at \d+\.\d% of 128k \(after: “build it”\)/);
  assert.match(txt, /labelStart='start'/);
  assert.equal(isError(sm, "c1"), false);
  assert.deepEqual(labelsOf(sm).get("anchor:start"), [userEntry(sm, "build it").id]);
  assertAllPaired(m);
});

test("bulky work then rewind: the next request of the same prompt() is much smaller and holds the summary", async (t) => {
  const { m, sm, s } = await start(
    t,
    [anchor("start", "c1"), bulk(40000, "c2"), bulk(40000, "c3"), rewind("start", "done", "c4"), "stage done"],
    [SUMMARY],
  );
  await s.session.prompt("build it");
  assert.equal(m.requests.length, 5);
  const [, , , beforeRewind, afterRewind] = m.requests;
  assert.ok(size(beforeRewind) > 80000, `before: ${size(beforeRewind)}`);
  assert.ok(size(afterRewind) * 20 < size(beforeRewind), `after ${size(afterRewind)} vs before ${size(beforeRewind)}`);
  assert.ok(text(afterRewind).includes(BRANCH_SUMMARY_PREFIX));
  assert.ok(text(afterRewind).includes("MARK-SUMMARY"));
  assert.ok(!text(afterRewind).includes("lorem ipsum"));

  // The summarizer got pi's collected entries and the whole focus as custom instructions.
  assert.equal(m.summaryRequests.length, 1);
  assert.ok(text(m.summaryRequests[0]).includes(`Additional focus: ${FOCUS}`.replace(/'/g, "'")));

  const txt = resultText(sm, "c4");
  const delta = txt.match(/^\[rewind 'start' → 'done'\] · context (\d+\.\d)% → (\d+\.\d)% of 128k/);
  assert.ok(delta, txt);
  assert.ok(Number(delta[1]) > Number(delta[2]) + 10, txt);
  assert.equal(isError(sm, "c4"), false);

  // Tree: summary under the anchored entry, labelled; the synthetic call pairs the real result.
  const anchored = userEntry(sm, "build it");
  const [summary] = entriesOfType(sm, "branch_summary");
  assert.equal(summary.parentId, anchored.id);
  assert.ok(summary.summary.includes("MARK-SUMMARY"));
  assert.deepEqual(labelsOf(sm).get("anchor:done"), [summary.id]);
  const result = messageEntry(sm, (msg) => msg.role === "toolResult" && msg.toolCallId === "c4");
  const synthetic = sm.getEntry(result.parentId);
  assert.equal(synthetic.message.role, "assistant");
  assert.deepEqual(synthetic.message.content.map((c) => [c.type, c.id, c.name]), [["toolCall", "c4", "navigate_tree"]]);
  assert.equal(synthetic.message.stopReason, "toolUse");
  assert.equal(synthetic.message.usage.input, 0);
  assert.equal(synthetic.message.usage.output, 0);
  assert.equal(synthetic.message.content[0].arguments.summaryFocus, FOCUS);
  const details = result.message.details;
  assert.ok(details.contextAfter > 0 && details.contextAfter < details.contextBefore, JSON.stringify(details));
  assert.equal(synthetic.message.usage.totalTokens, details.contextAfter);
  // The abandoned branch is kept, off the active path.
  const active = new Set(sm.getBranch().map((e) => e.id));
  assert.ok(!active.has(resultEntryId(sm, "c2")));
  assertAllPaired(m);

  // The next prompt() starts from the rewound context too.
  m.agent.push(m.text("second prompt answered"));
  await s.session.prompt("next step");
  const next = m.requests[5];
  assert.ok(text(next).includes("MARK-SUMMARY") && !text(next).includes("lorem ipsum"), text(next).slice(0, 400));
  assertAllPaired(m);
});

test("a long focus reaches the summarizer whole; the synthetic copy is capped", async (t) => {
  const longFocus = `User asked: 'build it'. ${"detail ".repeat(400)}`;
  const { m, sm, s } = await start(t, [anchor("start", "c1"), bulk(40000, "c2"), rewind("start", "done", "c3", longFocus), "ok"], [SUMMARY]);
  await s.session.prompt("build it");
  assert.ok(text(m.summaryRequests[0]).includes(longFocus.trim()));
  const result = messageEntry(sm, (msg) => msg.role === "toolResult" && msg.toolCallId === "c3");
  const copy = sm.getEntry(result.parentId).message.content[0].arguments.summaryFocus;
  assert.ok(copy.endsWith("… [truncated]") && copy.length === 1024 + "… [truncated]".length, copy.length);
  assertAllPaired(m);
});

test("list shows every anchor root → leaf with its context % and hint", async (t) => {
  const { m, sm, s } = await start(t, [anchor("first", "c1"), bulk(20000, "c2"), anchor("second", "c3"), list("c4"), "ok"]);
  await s.session.prompt("build it");
  const txt = resultText(sm, "c4");
  assert.match(txt, /^\[list\] · 2 anchors · ctx \d+\.\d% of 128k\n\nAnchors \(root → leaf\):\n/);
  const rows = txt.split("\n").filter((l) => /^\s+\d+\.\d%/.test(l));
  assert.equal(rows.length, 2);
  assert.match(rows[0], /^\s+\d+\.\d%\s+first\s+\(after: “build it”\)$/);
  assert.match(rows[1], /second/);
  const pct = rows.map((r) => Number(r.trim().split("%")[0]));
  assert.ok(pct[1] > pct[0], rows.join("\n"));
  assert.equal(isError(sm, "c4"), false);
  assertAllPaired(m);
});

test("re-anchoring a name moves the label to the new point", async (t) => {
  const { m, sm, s } = await start(t, [anchor("a", "c1"), bulk(2000, "c2"), anchor("a", "c3"), "ok"]);
  await s.session.prompt("build it");
  assert.deepEqual(labelsOf(sm).get("anchor:a"), [resultEntryId(sm, "c2")]);
  assert.equal(sm.getLabel(userEntry(sm, "build it").id), undefined);
  assert.match(resultText(sm, "c3"), /moved/);
  assertAllPaired(m);
});

test("a labelEnd already on the new path moves to the summary", async (t) => {
  const { m, sm, s } = await start(
    t,
    [anchor("base", "c1"), bulk(2000, "c2"), anchor("start", "c3"), bulk(40000, "c4"), rewind("start", "base", "c5"), "ok"],
    [SUMMARY],
  );
  await s.session.prompt("build it");
  const [summary] = entriesOfType(sm, "branch_summary");
  assert.deepEqual(labelsOf(sm).get("anchor:base"), [summary.id]);
  assert.deepEqual(labelsOf(sm).get("anchor:start"), [resultEntryId(sm, "c2")]);
  assert.equal(isError(sm, "c5"), false);
  assertAllPaired(m);
});

test("two rewinds with work between both shrink the next request", async (t) => {
  const { m, sm, s } = await start(
    t,
    [anchor("a", "c1"), bulk(40000, "c2"), rewind("a", "b", "c3"), bulk(40000, "c4"), rewind("b", "c", "c5"), list("c6"), "ok"],
    [SUMMARY, SUMMARY_2],
  );
  await s.session.prompt("build it");
  assert.equal(m.requests.length, 7);
  assert.ok(size(m.requests[3]) * 10 < size(m.requests[2]));
  assert.ok(size(m.requests[5]) * 10 < size(m.requests[4]));
  assert.ok(text(m.requests[5]).includes("MARK-SUMMARY-2") && text(m.requests[5]).includes("MARK-SUMMARY"));
  const [first, second] = entriesOfType(sm, "branch_summary");
  assert.equal(second.parentId, first.id);
  assert.deepEqual(labelsOf(sm).get("anchor:c"), [second.id]);
  const rows = resultText(sm, "c6").split("\n").filter((l) => /^\s+\d+\.\d%/.test(l));
  assert.deepEqual(rows.map((r) => r.trim().split(/\s+/)[1]), ["a", "b", "c"]);
  assertAllPaired(m);
});

test("a rewind right after a rewind is refused as a failed call", async (t) => {
  const { m, sm, s } = await start(t, [anchor("a", "c1"), bulk(40000, "c2"), rewind("a", "b", "c3"), rewind("b", "c", "c4"), "ok"], [SUMMARY]);
  await s.session.prompt("build it");
  assert.equal(isError(sm, "c4"), true);
  assert.match(resultText(sm, "c4"), /Nothing new since the last rewind/);
  assert.equal(entriesOfType(sm, "branch_summary").length, 1);
  assert.equal(labelsOf(sm).has("anchor:c"), false);
  assert.equal(m.summaryRequests.length, 1);
  assertAllPaired(m);
});

test("a rewind batched with other tool calls is refused, naming them", async (t) => {
  const { m, sm, s } = await start(t, [anchor("a", "c1"), bulk(40000, "c2")], [SUMMARY]);
  m.agent.push(m.calls([bulk(100, "c3"), rewind("a", "b", "c4")]), m.text("ok"));
  await s.session.prompt("build it");
  assert.equal(isError(sm, "c4"), true);
  assert.match(resultText(sm, "c4"), /only tool call.*bulk_read \(c3\)/s);
  assert.equal(isError(sm, "c3"), false);
  assert.equal(entriesOfType(sm, "branch_summary").length, 0);
  assertLinear(sm);
  assertAllPaired(m);
});

test("a rewind that would free under 4000 tokens is refused with the anchors and their %", async (t) => {
  const { m, sm, s } = await start(t, [anchor("a", "c1"), bulk(2000, "c2"), rewind("a", "b", "c3"), "ok"], [SUMMARY]);
  await s.session.prompt("build it");
  assert.equal(isError(sm, "c3"), true);
  const txt = resultText(sm, "c3");
  assert.match(txt, /would free only about \d+ tokens \(minimum 4000\)/);
  assert.match(txt, /\d+\.\d%\s+a$/m);
  assert.equal(m.summaryRequests.length, 0);
  assertLinear(sm);
  assertAllPaired(m);
});

test("invalid parameters are failed calls that say what to send", async (t) => {
  const { m, sm, s } = await start(t, [
    ["navigate_tree", { action: "anchor" }, "c1"],
    anchor("Bad_Name", "c2"),
    anchor("a", "c3"),
    bulk(40000, "c4"),
    rewind("a", "b", "c5", "too short"),
    rewind("nope", "b", "c6"),
    ["navigate_tree", { action: "jump" }, "c7"],
    rewind("a", "Bad End", "c8"),
    "ok",
  ]);
  await s.session.prompt("build it");
  for (const id of ["c1", "c2", "c5", "c6", "c7", "c8"]) {
    assert.equal(isError(sm, id), true, id);
    assert.equal(toolResult(m, id).isError, true, `${id}: the model saw a failed call`);
  }
  assert.match(resultText(sm, "c1"), /anchor needs `name`: kebab-case/);
  assert.match(resultText(sm, "c2"), /kebab-case/);
  assert.match(resultText(sm, "c5"), /summaryFocus.*at least 20/s);
  assert.match(resultText(sm, "c5"), /most recent instruction/);
  assert.match(resultText(sm, "c6"), /No anchor 'nope' on the active branch\. Anchors here/);
  assert.match(resultText(sm, "c7"), /action/);
  assert.match(resultText(sm, "c8"), /`labelEnd`/);
  assert.deepEqual([...labelsOf(sm).keys()], ["anchor:a"]);
  assert.equal(m.summaryRequests.length, 0);
  assertLinear(sm);
  assertAllPaired(m);
});

test("a failing summarizer leaves the tree unchanged and shows the error", async (t) => {
  const { m, sm, s } = await start(t, [anchor("a", "c1"), bulk(40000, "c2"), rewind("a", "b", "c3"), "ok"]);
  m.summary.push(m.error("provider exploded"));
  await s.session.prompt("build it");
  assert.equal(isError(sm, "c3"), true);
  assert.match(resultText(sm, "c3"), /^Summarization failed: .*provider exploded.*The session was not changed\.$/s);
  assert.equal(entriesOfType(sm, "branch_summary").length, 0);
  assert.deepEqual([...labelsOf(sm).keys()], ["anchor:a"]);
  assertLinear(sm);
  assertAllPaired(m);
});

test("an aborted summary leaves the tree unchanged and says so", async (t) => {
  const { m, sm, s } = await start(t, [anchor("a", "c1"), bulk(40000, "c2"), rewind("a", "b", "c3"), "ok"]);
  m.summary.push(m.aborted());
  await s.session.prompt("build it");
  assert.equal(isError(sm, "c3"), true);
  assert.equal(resultText(sm, "c3"), "Summarization aborted.");
  assert.equal(entriesOfType(sm, "branch_summary").length, 0);
  assertLinear(sm);
  assertAllPaired(m);
});

test("aborting the run during summarization leaves the tree unchanged", async (t) => {
  const { m, sm, s } = await start(t, [anchor("a", "c1"), bulk(40000, "c2"), rewind("a", "b", "c3"), "never reached"]);
  m.summary.push(() => {
    void s.session.abort();
    return m.aborted();
  });
  await s.session.prompt("build it");
  assert.equal(entriesOfType(sm, "branch_summary").length, 0);
  assert.equal(isError(sm, "c3"), true);
  assert.equal(resultText(sm, "c3"), "Summarization aborted.");
  assertLinear(sm);
  assertAllPaired(m);
});

test("/reload twice keeps one prompt wrapper and one context handler; rewinds still reach the next request", async (t) => {
  const { m, sm, s } = await start(t, [anchor("a", "c1"), "ok"], [SUMMARY]);
  await s.session.prompt("build it");
  const proto = host.pca.AgentSession.prototype;
  const wrapper = proto.prompt;
  assert.equal(wrapper[WRAPPER], true);
  await s.session.reload();
  await s.session.reload();
  m.register(); // the faux provider is test scaffolding: re-register it as a provider extension would
  assert.equal(proto.prompt, wrapper, "the wrapper was replaced");
  assert.equal(proto[ORIGINAL][WRAPPER], undefined, "the stashed original is itself a wrapper");

  const registry = globalThis[REGISTRY];
  const callsBefore = registry.contextCalls;
  const requestsBefore = m.requests.length;
  m.agent.push(m.calls([bulk(40000, "c2")]), m.calls([rewind("a", "b", "c3")]), m.text("ok"));
  await s.session.prompt("continue");
  const requests = m.requests.length - requestsBefore;
  assert.equal(requests, 3);
  assert.equal(registry.contextCalls - callsBefore, requests, "context handler ran more than once per request");
  const after = m.requests.at(-1);
  assert.ok(size(after) * 10 < size(m.requests.at(-2)));
  assert.ok(text(after).includes("MARK-SUMMARY"));
  assert.ok(m.requests.every((r) => r.tools.filter((n) => n === "navigate_tree").length === 1));
  assert.equal(isError(sm, "c3"), false);
  assertAllPaired(m);
});

test("two sessions in one process do not cross-talk", async (t) => {
  const m = new ScriptedModel(host);
  m.router = (r) => (ScriptedModel.firstUserText(r).includes("alpha") ? "A" : "B");
  m.agentBy.A = [m.calls([anchor("x", "a1")]), m.calls([bulk(40000, "a2", "alpha")]), m.calls([rewind("x", "y", "a3")]), m.text("A done")];
  m.agentBy.B = [m.calls([anchor("x", "b1")]), m.calls([bulk(30000, "b2", "beta")]), m.calls([list("b3")]), m.text("B done")];
  m.summary.push(m.text(SUMMARY));
  const a = await createSession(host, m, { extensions: EXTENSIONS, tools: TOOLS });
  const b = await createSession(host, m, { extensions: EXTENSIONS, tools: TOOLS });
  t.after(() => {
    a.dispose();
    b.dispose();
  });
  await Promise.all([a.session.prompt("alpha task"), b.session.prompt("beta task")]);
  assert.equal(entriesOfType(a.sm, "branch_summary").length, 1);
  assert.equal(entriesOfType(b.sm, "branch_summary").length, 0);
  assert.deepEqual([...labelsOf(b.sm).keys()], ["anchor:x"]);
  assert.deepEqual(labelsOf(b.sm).get("anchor:x"), [userEntry(b.sm, "beta task").id]);
  assert.deepEqual([...labelsOf(a.sm).keys()].sort(), ["anchor:x", "anchor:y"]);
  const forA = m.requests.filter((r) => ScriptedModel.firstUserText(r).includes("alpha"));
  const forB = m.requests.filter((r) => ScriptedModel.firstUserText(r).includes("beta"));
  assert.equal(forA.length + forB.length, m.requests.length);
  assert.ok(forA.every((r) => !text(r).includes("beta:")) && forB.every((r) => !text(r).includes("alpha:")));
  assert.ok(!text(forA.at(-1)).includes("alpha:"), "A's rewind did not reach A");
  assert.ok(text(forB.at(-1)).includes("beta:"), "B lost its context");
  assert.match(resultText(b.sm, "b3"), /\[list\] · 1 anchor ·/);
  forA.forEach((r, i) => assertAllPaired({ requests: [r] }, i));
  forB.forEach((r, i) => assertAllPaired({ requests: [r] }, i));
});
