// Adversarial model input in a real pi host (issue 6, item 5): every malformed navigate_tree call is a
// clear failed call (pi's own argument validation or our refusal), and nothing is written — no label, no
// summary, no branch; only the call and its result are appended. Run per host by tests/e2e/e2e.test.mjs.
import assert from "node:assert/strict";
import { join } from "node:path";
import test from "node:test";
import { assertAllPaired, entriesOfType, labelsOf, resultEntry, resultText, toolResult } from "./lib/checks.mjs";
import { createSession, loadHost, ScriptedModel } from "./lib/harness.mjs";
import { FIXTURES, PKG_DIR } from "./lib/hosts.mjs";

const host = await loadHost();
const EXTENSIONS = [PKG_DIR, join(FIXTURES, "bulk-ext/index.js")];
const TOOLS = ["navigate_tree", "bulk_read"];
const FOCUS = "User asked: 'build the parser'. Done: read the input data. Left: write the tests.";
const SUMMARY = "## Goal\nBuild the parser\n## Progress\n### Done\n- read the input data (MARK-SUMMARY)";
const MB = "x".repeat(1 << 20);
const nav = (args, id) => ["navigate_tree", args, id];
const bulk = (chars, id) => ["bulk_read", { chars, tag: "bulk" }, id];

/** [arguments, what the failed result must say] — each sent as its own call. */
const CASES = [
  [{}, /action/], // missing `action`: pi's validation
  [{ action: "jump" }, /action/], // not one of the schema's values: pi's validation
  [{ action: "anchor" }, /`name` sent: it is missing/],
  [{ action: "anchor", name: { x: 1 } }, /name/], // wrong type: pi's validation
  [{ action: "anchor", name: "anchor:start" }, /drop the 'anchor:' prefix, it is added for you \(send 'start'\)/],
  [{ action: "anchor", name: "st\u0430rt" }, /U\+0430, which is not ASCII/], // Cyrillic a
  [{ action: "anchor", name: "impl\u2010start" }, /U\+2010/], // hyphen look-alike
  [{ action: "anchor", name: "\uff53\uff54\uff41\uff52\uff54" }, /U\+FF53/], // fullwidth
  [{ action: "anchor", name: "zero\u200bwidth" }, /U\+200B/],
  [{ action: "rewind", labelStart: "a", labelEnd: "b" }, /summaryFocus/],
  [{ action: "rewind", labelStart: "a", labelEnd: "anchor:b", summaryFocus: FOCUS }, /`labelEnd` sent: drop the 'anchor:' prefix/],
  [{ action: "rewind", labelStart: "\u0430", labelEnd: "b", summaryFocus: FOCUS }, /U\+0430/],
  [{ action: "rewind", labelStart: "gone", labelEnd: "b", summaryFocus: FOCUS }, /^Anchor 'gone' is not on the active branch: it sits on a branch an earlier rewind left behind/],
  // Megabyte strings last: every later request carries them.
  [{ action: "anchor", name: MB }, /it is 1048576 characters long/],
  [{ action: "rewind", labelStart: "a", labelEnd: "b", summaryFocus: MB }, /`summaryFocus` is 1048576 characters; keep it under 100000/],
  [{ action: "rewind", labelStart: MB, labelEnd: "b", summaryFocus: FOCUS }, /`labelStart` sent: it is 1048576 characters long/],
];

test(`${host.version}: adversarial arguments are clear failed calls and write nothing`, async (t) => {
  const m = new ScriptedModel(host);
  // Set up an anchor on a branch that a rewind then leaves behind: a → gone → work → rewind a→b.
  const setup = [
    nav({ action: "anchor", name: "a" }, "s1"),
    bulk(2000, "s2"),
    nav({ action: "anchor", name: "gone" }, "s3"),
    bulk(40000, "s4"),
    nav({ action: "rewind", labelStart: "a", labelEnd: "b", summaryFocus: FOCUS }, "s5"),
    bulk(100, "s6"),
  ];
  for (const s of setup) m.agent.push(m.calls([s]));
  CASES.forEach(([args], i) => m.agent.push(m.calls([nav(args, `x${i}`)])));
  m.agent.push(m.text("ok"));
  m.summary.push(m.text(SUMMARY));
  const s = await createSession(host, m, { extensions: EXTENSIONS, tools: TOOLS });
  t.after(() => s.dispose());

  let before;
  const unsubscribe = s.session.subscribe((event) => {
    if (event.type === "tool_execution_start" && event.toolCallId === "x0") {
      before = {
        labels: JSON.stringify([...labelsOf(s.sm)]),
        summaries: entriesOfType(s.sm, "branch_summary").length,
        count: s.sm.getEntries().length,
      };
    }
  });
  t.after(unsubscribe);
  await s.session.prompt("build it");
  assert.equal(resultEntry(s.sm, "s5").isError, false, resultText(s.sm, "s5"));

  CASES.forEach(([args, expected], i) => {
    const id = `x${i}`;
    const shown = JSON.stringify(args).slice(0, 80);
    const r = resultEntry(s.sm, id);
    assert.ok(r, `${shown}: no result`);
    assert.equal(r.isError, true, `${shown}: not a failed call: ${resultText(s.sm, id).slice(0, 200)}`);
    assert.match(resultText(s.sm, id), expected, shown);
    assert.ok(resultText(s.sm, id).length < 4000 || /Received arguments/.test(resultText(s.sm, id)), `${shown}: our refusal repeats the input`);
    assert.equal(toolResult(m, id)?.isError ?? true, true, `${shown}: the model saw it as a success`);
  });
  // Nothing written: the labels and summaries are as before; only calls and results were appended.
  assert.equal(JSON.stringify([...labelsOf(s.sm)]), before.labels);
  assert.equal(entriesOfType(s.sm, "branch_summary").length, before.summaries);
  assert.equal(s.sm.getEntries().length, before.count + 2 * CASES.length - 1 + 1, "only each call and its result");
  assertAllPaired(m);
});

/** A session whose 4th call (to another tool) carries arguments `depth` levels deep; then `list`. */
async function deepCall(t, depth) {
  let deep = {};
  for (let i = 0; i < depth; i++) deep = { x: deep };
  const m = new ScriptedModel(host);
  for (const s of [nav({ action: "anchor", name: "a" }, "d1"), bulk(100, "d2"), bulk(100, "d3")]) m.agent.push(m.calls([s]));
  m.agent.push(m.calls([["bulk_read", { chars: 10, tag: "deep", deep }, "d4"]]));
  m.agent.push(m.calls([nav({ action: "list" }, "d5")]), m.text("ok"));
  const s = await createSession(host, m, { extensions: EXTENSIONS, tools: TOOLS });
  t.after(() => s.dispose());
  await s.session.prompt("build it");
  assert.equal(resultEntry(s.sm, "d5").isError, false, resultText(s.sm, "d5"));
  assert.match(resultText(s.sm, "d5"), /\[list\] · 1 anchor/, "the deep entry cut the path: the anchor is gone");
  assertAllPaired(m);
}

test(`${host.version}: a tool call nested 200 levels deep (to any tool) does not cost the session its anchors`, (t) => deepCall(t, 200));

// Deeper than the old 1,000-level limit of the core (it now reads 65,536 levels without recursion). pi's own
// pipeline gives out first: in this harness a call nested ~1,700 levels deep already ends its turn with
// "Maximum call stack size exceeded", so 1,500 is about the deepest call pi writes.
test(`${host.version}: a tool call nested 1,500 levels deep does not cost the session its anchors`, (t) => deepCall(t, 1500));
