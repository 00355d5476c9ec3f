// context_edit entries (pi ≥0.87, SessionManager.appendContextEdit; issue 13): an extension replaces an earlier tool
// result's content, and omits another call with `null` edits; then navigate_tree anchor / list / rewind. Checked:
// - footer parity after every call with pi's ctx.getContextUsage() (lib/footer.mjs); usage recorded before a
//   context_edit is not trusted by pi (its projected estimate), so right after an edit pi estimates every message;
// - the model's requests after each edit (faux capture) show the edited content and not the omitted call, also
//   after the rewind.
// A second run edits an assistant message's text and batches edits with navigate_tree: the anchor's preview is
// the edited text (what the model is sent), the anchor of a batch lands before the batch's message although the
// batch's context_edit sits between that message and the leaf, and a batched rewind is refused.
// Hosts without appendContextEdit (0.74.2, 0.75.5) report the tests as skipped.
import assert from "node:assert/strict";
import { join } from "node:path";
import test, { after } from "node:test";
import { assertAllPaired, entriesOfType, resultEntry, resultText, text } from "./lib/checks.mjs";
import { assertFooterParity, assertReferenceIsPi, footerPairs, withReference } from "./lib/footer.mjs";
import { createSession, loadHost, ScriptedModel } from "./lib/harness.mjs";
import { FIXTURES, PKG_DIR } from "./lib/hosts.mjs";
import { piEstimator } from "./lib/pi-estimate.mjs";

const host = await loadHost();
const hasContextEdit = typeof host.pca.SessionManager?.prototype?.appendContextEdit === "function";
const estimate = hasContextEdit ? await piEstimator(host) : null;
const PROBE = Symbol.for("ptn.e2e.probe");
const EXTENSIONS = [PKG_DIR, join(FIXTURES, "bulk-ext/index.js"), join(FIXTURES, "edit-ext/index.js"), join(FIXTURES, "probe-ext/index.js")];
const TOOLS = ["navigate_tree", "bulk_read", "edit_context"];
const EDITED = "EDITED-BY-EXTENSION: the bulk, in one line";

const SKIP = hasContextEdit ? false : `pi ${host.version} has no SessionManager.appendContextEdit (context_edit entries start with 0.87)`;

let run; // one session for the file's tests (they look at the same run from two sides)
after(() => run?.then((r) => r.s.dispose()));

function editedRun() {
  run ??= (async () => {
    const m = new ScriptedModel(host);
    m.agent.push(
      m.calls([["navigate_tree", { action: "anchor", name: "start" }, "c1"]]),
      m.calls([["bulk_read", { chars: 40000, tag: "bulk" }, "c2"]]),
      m.calls([["bulk_read", { chars: 6000, tag: "aside" }, "c3"]]),
      m.calls([["edit_context", { callId: "c2", text: EDITED }, "c4"]]),
      m.calls([["edit_context", { callId: "c3" }, "c5"]]),
      m.calls([["navigate_tree", { action: "anchor", name: "edited" }, "c6"]]),
      m.calls([["navigate_tree", { action: "list" }, "c7"]]),
      m.calls([["bulk_read", { chars: 30000, tag: "more" }, "c8"]]),
      m.calls([["navigate_tree", { action: "rewind", labelStart: "edited", labelEnd: "end", summaryFocus: "Done: read more data. Left: nothing." }, "c9"]]),
      m.text("all done"),
    );
    m.summary.push(m.text("## Goal\nread more\n## Progress\n### Done\n- read more (BRANCH-SUMMARY)"));
    const s = await createSession(host, m, { extensions: EXTENSIONS, tools: TOOLS });
    await s.session.prompt("do the work");
    const checked = withReference(footerPairs(globalThis[PROBE]), { sm: s.sm, estimate, where: `pi ${host.version}` });
    return { m, s, sm: s.sm, checked };
  })();
  return run;
}

test(`pi ${host.version}: context_edit (replace a tool result, omit a call): the model's view, pi's numbers`, { skip: SKIP }, async () => {
  const { m, sm, checked } = await editedRun();
  assert.equal(m.requests.length, 10, "ten requests");
  assert.equal(entriesOfType(sm, "context_edit").length, 3, "one replacement, two omissions");
  // The model's view: request 4 (after c4) holds the replacement, not the bulk; from request 5 (after c5) the
  // omitted call and its result are gone; both stay so after the rewind (request 9, the last).
  for (const i of [4, 5, 6, 7, 8, 9]) {
    const seen = text(m.requests[i]);
    assert.ok(seen.includes(EDITED), `request ${i} shows the edited tool result`);
    assert.ok(!seen.includes("bulk: lorem ipsum"), `request ${i} no longer holds the replaced bulk`);
    if (i >= 5) {
      const c3 = m.requests[i].messages.some((msg) => msg.toolCallId === "c3" || (Array.isArray(msg.content) && msg.content.some((c) => c.type === "toolCall" && c.id === "c3")));
      assert.ok(!seen.includes("aside: lorem ipsum") && !c3, `request ${i} no longer holds the omitted call c3`);
    }
  }
  assert.ok(text(m.requests[4]).includes("aside: lorem ipsum"), "request 4 still holds c3 (omitted only by c5)");
  // Right after the edits pi trusts no usage (it was recorded before them) and estimates every edited message:
  // the anchor's point. The reference estimator is pi's: it gives pi's number wherever pi has one.
  const edited = checked.find((p) => p.label === "c6 anchor");
  assert.ok(edited && edited.pi !== null, "pi's number at the first request after the edits");
  assertReferenceIsPi(checked, `pi ${host.version}`);
  assertAllPaired(m);
});

test(`pi ${host.version}: context_edit: navigate_tree's numbers are pi's after every call`, { skip: SKIP }, async () => {
  const { m, sm, checked } = await editedRun();
  assertFooterParity(checked, `pi ${host.version}`);
  assert.deepEqual(checked.map((p) => p.action).sort(), ["anchor", "anchor", "list", "rewind-after", "rewind-before"], "every call compared (no refusal)");
  assert.match(resultText(sm, "c9"), /^\[rewind 'edited' → 'end'\]/);
  assert.ok(text(m.requests[9]).includes("BRANCH-SUMMARY") && !text(m.requests[9]).includes("more: lorem ipsum"), "the last request holds the summary, not the rewound bulk");
});

test(`pi ${host.version}: context_edit of an assistant message and edits batched with navigate_tree: previews and guards read what the model is sent`, { skip: SKIP }, async (t) => {
  const m = new ScriptedModel(host);
  const { fauxAssistantMessage, fauxToolCall } = host.ai;
  const call = ([name, args, id]) => fauxToolCall(name, args, { id });
  m.agent.push(
    fauxAssistantMessage([{ type: "text", text: "ORIGINAL-NOTE: reading the data" }, call(["bulk_read", { chars: 2000, tag: "first" }, "c1"])], { stopReason: "toolUse" }),
    m.calls([["edit_context", { callId: "c1", assistantText: "EDITED-NOTE: the data is read" }, "c2"]]),
    m.calls([["navigate_tree", { action: "anchor", name: "edited" }, "c3"]]),
    m.calls([["bulk_read", { chars: 40000, tag: "bulk" }, "c4"]]),
    // A batch: the edit is appended while the batch runs, between its assistant message and navigate_tree.
    m.calls([["edit_context", { callId: "c4", text: "BULK-EDITED" }, "c5"], ["navigate_tree", { action: "anchor", name: "batched" }, "c6"]]),
    m.calls([["edit_context", { callId: "c1", text: "FIRST-EDITED" }, "c7"], ["navigate_tree", { action: "rewind", labelStart: "edited", labelEnd: "end", summaryFocus: "Done: read the data. Left: nothing at all." }, "c8"]]),
    m.calls([["bulk_read", { chars: 30000, tag: "more" }, "c9"]]),
    m.calls([["navigate_tree", { action: "list" }, "c10"]]),
    m.calls([["navigate_tree", { action: "rewind", labelStart: "edited", labelEnd: "end", summaryFocus: "Done: read more data. Left: nothing at all." }, "c11"]]),
    m.text("all done"),
  );
  m.summary.push(m.text("## Goal\nread more\n## Progress\n### Done\n- read more (BRANCH-SUMMARY)"));
  const s = await createSession(host, m, { extensions: EXTENSIONS, tools: TOOLS });
  t.after(() => s.dispose());
  const sm = s.sm;
  await s.session.prompt("do the work");

  // The model is sent the edited text (request 2 is the first after c2), and the anchor's preview says the same.
  assert.ok(text(m.requests[2]).includes("EDITED-NOTE") && !text(m.requests[2]).includes("ORIGINAL-NOTE"), "request 2 holds the edited text");
  assert.match(resultText(sm, "c3"), /\(after: “EDITED-NOTE: the data is read”\)/);
  assert.equal(sm.getEntry(sm.getEntries().find((e) => sm.getLabel(e.id) === "anchor:edited")?.id)?.message?.toolCallId, "c2", "anchor:edited on c2's result, before c3's message");
  // The batch's anchor sits on c4's result, the parent of the batch's message: not on the edit after it.
  const batched = sm.getEntries().find((e) => sm.getLabel(e.id) === "anchor:batched");
  assert.equal(batched?.message?.toolCallId, "c4", `anchor:batched on c4's result (is on a ${batched?.type})`);
  assert.ok(resultEntry(sm, "c8")?.isError, "the rewind batched with an edit is refused");
  assert.match(resultText(sm, "c8"), /this message also calls edit_context \(c7\)/);
  assert.match(resultText(sm, "c10"), /edited .*EDITED-NOTE/s, "list previews the edited text");
  assert.match(resultText(sm, "c11"), /^\[rewind 'edited' → 'end'\]/);
  assert.equal(m.requests.length, 10, "ten requests");
  assert.ok(text(m.requests[9]).includes("BRANCH-SUMMARY") && !text(m.requests[9]).includes("more: lorem ipsum"), "the last request holds the summary, not the rewound bulk");
  assertAllPaired(m);
});
