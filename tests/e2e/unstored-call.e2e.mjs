// A tool runs before pi stored its call (docs/hosts.md, "When pi stores the in-flight call"). On pi 0.74.2 the
// session persists messages from a queue of extension-event work that the agent loop does not wait for: with an
// extension whose `message_end` handler takes a while (fixture slow-ext), a tool executes while its assistant
// message (and the prompt before it) is not in the session yet. pi waits for that queue before a tool runs only when
// some extension handles `tool_call`, which navigate_tree does for this reason. Checked on every host (on the others
// the agent loop awaits the persistence): the anchor lands on the prompt (the parent of the call's message), a
// batched rewind is refused, a lone rewind keeps every request paired and the session's chain whole.
import assert from "node:assert/strict";
import { join } from "node:path";
import test from "node:test";
import { assertAllPaired, assertChainWhole, resultEntry, resultText, text } from "./lib/checks.mjs";
import { createSession, loadHost, ScriptedModel } from "./lib/harness.mjs";
import { FIXTURES, PKG_DIR } from "./lib/hosts.mjs";

const host = await loadHost();
const EXTENSIONS = [PKG_DIR, join(FIXTURES, "bulk-ext/index.js"), join(FIXTURES, "slow-ext/index.js")];
const TOOLS = ["navigate_tree", "bulk_read"];
const FOCUS = "Done: read the bulk data twice. Left: nothing at all.";

test(`pi ${host.version}: a tool that runs before pi stored its call (slow message_end handler): anchor, batched and lone rewind`, async (t) => {
  const m = new ScriptedModel(host);
  m.agent.push(
    m.calls([["navigate_tree", { action: "anchor", name: "start" }, "c1"]]),
    m.calls([["bulk_read", { chars: 40000, tag: "bulk" }, "c2"]]),
    m.calls([["bulk_read", { chars: 2000, tag: "aside" }, "c3"], ["navigate_tree", { action: "rewind", labelStart: "start", labelEnd: "end", summaryFocus: FOCUS }, "c4"]]),
    m.calls([["navigate_tree", { action: "rewind", labelStart: "start", labelEnd: "end", summaryFocus: FOCUS }, "c5"]]),
    m.text("all done"),
  );
  m.summary.push(m.text("## Goal\nread\n## Progress\n### Done\n- read the bulk (BRANCH-SUMMARY)"));
  const { session, sm, dispose } = await createSession(host, m, { extensions: EXTENSIONS, tools: TOOLS });
  t.after(dispose);
  await session.prompt("read the data");
  // pi 0.74.2's prompt() may return before its queue stored the last messages: wait for the final reply.
  for (let i = 0; i < 200 && !sm.getBranch().some((e) => e.type === "message" && JSON.stringify(e.message.content).includes("all done")); i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }

  const prompt = sm.getEntries().find((e) => e.type === "message" && e.message.role === "user");
  const label = sm.getEntries().find((e) => sm.getLabel(e.id) === "anchor:start");
  assert.equal(label?.id, prompt?.id, "anchor:start is on the prompt, the parent of the call's message");
  const batched = resultEntry(sm, "c4");
  assert.ok(batched?.isError, "the rewind batched with bulk_read is refused");
  assert.match(resultText(sm, "c4"), /rewind must be the only tool call in its message; this message also calls bulk_read \(c3\)/);
  assert.match(resultText(sm, "c5"), /^\[rewind 'start' → 'end'\]/);
  assert.equal(m.requests.length, 5, "five requests");
  assert.ok(text(m.requests[4]).includes("BRANCH-SUMMARY") && !text(m.requests[4]).includes("bulk: lorem ipsum"), "the last request holds the summary, not the bulk");
  assertAllPaired(m);
  assertChainWhole(sm);
});
