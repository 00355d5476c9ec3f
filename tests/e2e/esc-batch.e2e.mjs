// Esc during a batch that holds a rewind (pi-host.md §8). pi 1.6.0 gives the calls of a batch that never started an
// "Operation aborted" result (written after the results before them); a rewind earlier in that batch that moved the
// tree would leave those results behind a synthetic assistant message that carries only navigate_tree's call, so the
// next request would send results without their calls — which the real APIs reject. The batched-rewind guard refuses
// a rewind that shares its message with other calls. Here, with sequential tool execution and the batch
// [wait, navigate_tree(rewind), wait, wait], the run is aborted while the call after the rewind runs, and while the
// one before it runs; then the user prompts again. Checked: the rewind was refused and the tree did not move, the
// never-started calls have a result (pi's "Operation aborted" on ≥1.6.0), and every request — the next one above all —
// has no tool result without its call (and, where pi answers every call, the strict pairing both ways). Run on every
// host: pi 0.74 runs the remaining calls (they fail on the aborted signal); pi 0.75–1.5 leave them unanswered.
import assert from "node:assert/strict";
import { join } from "node:path";
import test from "node:test";
import { assertAllPaired, assertChainWhole, assertPaired, entriesOfType, resultEntry, resultText } from "./lib/checks.mjs";
import { createSession, loadHost, ScriptedModel } from "./lib/harness.mjs";
import { FIXTURES, PKG_DIR } from "./lib/hosts.mjs";
import { compareVersions } from "../../js/tested-hosts.js";

const host = await loadHost();
const EXTENSIONS = [PKG_DIR, join(FIXTURES, "bulk-ext/index.js"), join(FIXTURES, "wait-ext/index.js")];
const TOOLS = ["navigate_tree", "bulk_read", "wait_a_bit"];
const FOCUS = "Done: read the bulk data. Left: wait for the batch and report.";
const ABORTED_RESULTS = compareVersions(host.version, "1.6.0") >= 0; // pi writes "Operation aborted" for unstarted calls

/** No toolResult in `request` without its call in the assistant message right before its block of results. */
function assertNoResultWithoutCall(request, label) {
  let calls = [];
  request.messages.forEach((m, i) => {
    if (m.role === "assistant") calls = (m.content ?? []).filter((c) => c.type === "toolCall").map((c) => c.id);
    else if (m.role === "toolResult") assert.ok(calls.includes(m.toolCallId), `${label}: toolResult ${m.toolCallId} at ${i} answers no call of the assistant message before it (${calls})`);
    else calls = [];
  });
}

for (const [when, abortAt] of [["while the call after the rewind runs", "c5"], ["while the call before the rewind runs", "c3"]]) {
  test(`pi ${host.version}: Esc in the sequential batch [wait, rewind, wait, wait] ${when}: no result without its call in the next request`, async (t) => {
    const m = new ScriptedModel(host);
    const wait = (ms, id) => ["wait_a_bit", { ms }, id];
    m.agent.push(
      m.calls([["navigate_tree", { action: "anchor", name: "a" }, "c1"]]),
      m.calls([["bulk_read", { chars: 40000, tag: "bulk" }, "c2"]]),
      m.calls([wait(abortAt === "c3" ? 10_000 : 5, "c3"), ["navigate_tree", { action: "rewind", labelStart: "a", labelEnd: "b", summaryFocus: FOCUS }, "c4"],
        wait(abortAt === "c5" ? 10_000 : 5, "c5"), wait(5, "c6")]),
    );
    m.summary.push(m.text("## Goal\nread\n## Progress\n### Done\n- read the bulk (BRANCH-SUMMARY)"));
    const { session, sm, dispose } = await createSession(host, m, { extensions: EXTENSIONS, tools: TOOLS });
    t.after(dispose);
    session.agent.toolExecution = "sequential";
    let aborted = false;
    const unsubscribe = session.subscribe((event) => {
      if (event.type === "tool_execution_start" && event.toolCallId === abortAt && !aborted) {
        aborted = true;
        setTimeout(() => void session.abort(), 50); // Esc while the call is running
      }
    });
    t.after(() => unsubscribe?.());
    await session.prompt("read the data, then wait");
    assert.ok(aborted, `${abortAt} never started`);

    // The run ended inside the batch, the rewind moved nothing. pi ≥1.6.0 answers every call of it; pi 0.75–1.5
    // leave the calls that never started without a result (pi's own gap, which the next request shows as is).
    const unstarted = abortAt === "c5" ? ["c6"] : ["c4", "c5", "c6"];
    const unanswered = ["c3", "c4", "c5", "c6"].filter((id) => !resultEntry(sm, id));
    if (ABORTED_RESULTS) assert.deepEqual(unanswered, []);
    else assert.ok(unanswered.every((id) => unstarted.includes(id)), `calls that ran have no result: ${unanswered}`);
    if (resultEntry(sm, "c4")) assert.ok(resultEntry(sm, "c4").isError, "the batched rewind is not a success");
    if (abortAt === "c5") assert.match(resultText(sm, "c4"), /rewind must be the only tool call in its message; this message also calls wait_a_bit \(c3\), wait_a_bit \(c5\), wait_a_bit \(c6\)/);
    if (ABORTED_RESULTS) {
      // pi ≥1.6.0: the calls that never started get pi's own result.
      for (const id of unstarted) assert.equal(resultText(sm, id), "Operation aborted", id);
    }
    assert.equal(entriesOfType(sm, "branch_summary").length, 0, "no branch summary: the tree did not move");
    assert.equal(m.summaryRequests.length, 0, "no summary was asked for");
    assertChainWhole(sm);

    // The next request after the Esc: the user goes on.
    m.agent.push(m.text("ok, going on"));
    await session.prompt("go on");
    const next = m.requests.at(-1);
    const lastUser = next.messages.filter((x) => x.role === "user").at(-1);
    assert.match(JSON.stringify(lastUser?.content), /go on/, "the last request is the one after the Esc");
    assertNoResultWithoutCall(next, "the request after the Esc");
    m.requests.forEach((r, i) => assertNoResultWithoutCall(r, `request ${i}`));
    assertChainWhole(sm);
    if (!unanswered.length) {
      // Every call answered: the strict pairing in both directions, and the next request carries every result.
      assertPaired(next, "the request after the Esc");
      for (const id of ["c3", "c4", "c5", "c6"]) {
        assert.ok(next.messages.some((x) => x.role === "toolResult" && x.toolCallId === id), `the next request lacks ${id}'s result`);
      }
      assertAllPaired(m);
    }
  });
}
