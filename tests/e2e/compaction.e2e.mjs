// Right after a compaction pi has no number (issue 13): its getContextUsage() reports `tokens: null` until a reply
// with usage arrives after the compaction, because the last usage it holds measured the context before it.
// navigate_tree must never say null: it reports its estimate of the compacted context, and that estimate must be
// pi's own estimator on the compacted context (lib/pi-estimate.mjs: on pi ≥0.87 the projected estimate, where
// usage recorded before the compaction is not trusted, i.e. summary + kept entries, every message estimated; on
// 0.74/0.75 estimateContextTokens on the compacted messages with that usage taken off: the tool's rule on every
// host). Wherever pi has a number the tool's equals it (footer parity, as in hosts.e2e.mjs).
//
// The run, per host and per trigger (the SDK's `session.compact()`; an extension command's `ctx.compact()`), the
// compaction summary written by the faux model:
//   prompt 1: bulk_read 40k chars → "read";  prompt 2 (a long user text): "ok"  → compaction
//   (keepRecentTokens 500: prompt 2 and its reply are kept, prompt 1's turn is summarized)
//   prompt 3: anchor "post" (pi: null) → bulk_read → list → rewind to "post" → "done"
import assert from "node:assert/strict";
import { join } from "node:path";
import test, { after } from "node:test";
import { assertAllPaired, entriesOfType, resultText, text } from "./lib/checks.mjs";
import { assertFooterParity, assertReferenceIsPi, footerPairs, withReference } from "./lib/footer.mjs";
import { createSession, loadHost, ScriptedModel } from "./lib/harness.mjs";
import { FIXTURES, PKG_DIR } from "./lib/hosts.mjs";
import { piEstimator } from "./lib/pi-estimate.mjs";

const host = await loadHost();
const estimate = await piEstimator(host);
const PROBE = Symbol.for("ptn.e2e.probe");
const EXTENSIONS = [PKG_DIR, join(FIXTURES, "bulk-ext/index.js"), join(FIXTURES, "probe-ext/index.js")];
const TOOLS = ["navigate_tree", "bulk_read"];
const COMPACT_SUMMARY = "## Goal\nread the old data\n## Progress\n### Done\n- read it (COMPACT-SUMMARY)";
const LONG_PROMPT = `phase two: ${"keep this request in the kept range. ".repeat(60)}`;

// One session per trigger for the file's tests (they look at the same run from two sides). The compaction is
// started through the SDK (`session.compact()`) or by an extension command (`ctx.compact()`, fixture probe-ext).
const TRIGGERS = {
  sdk: (s) => s.session.compact(),
  command: async (s, probe) => {
    await s.session.prompt("/ptn-compact");
    return probe.compaction;
  },
};
const runs = {};
after(async () => {
  for (const r of Object.values(runs)) (await r.catch(() => null))?.s.dispose();
});

function compactedRun(trigger) {
  return (runs[trigger] ??= (async () => {
    const m = new ScriptedModel(host);
    m.agent.push(m.calls([["bulk_read", { chars: 40000, tag: "old" }, "c1"]]), m.text("read"), m.text("ok"));
    m.summary.push(m.text(COMPACT_SUMMARY));
    const s = await createSession(host, m, { extensions: EXTENSIONS, tools: TOOLS, compaction: { keepRecentTokens: 500 } });
    const { sm } = s;
    await s.session.prompt("phase one");
    await s.session.prompt(LONG_PROMPT);
    const compacted = await TRIGGERS[trigger](s, globalThis[PROBE]);
    const compaction = sm.getLeafEntry();
    const compactionSummaries = m.summaryRequests.length;
    const firstAfter = m.requests.length;
    m.agent.push(
      m.calls([["navigate_tree", { action: "anchor", name: "post" }, "c2"]]),
      m.calls([["bulk_read", { chars: 40000, tag: "new" }, "c3"]]),
      m.calls([["navigate_tree", { action: "list" }, "c4"]]),
      m.calls([["navigate_tree", { action: "rewind", labelStart: "post", labelEnd: "end", summaryFocus: "Done: read the new data." }, "c5"]]),
      m.text("done"),
    );
    m.summary.push(m.text("## Goal\nread the new data\n## Progress\n### Done\n- read (BRANCH-SUMMARY)"));
    await s.session.prompt("phase three");
    const checked = withReference(footerPairs(globalThis[PROBE]), { sm, estimate, where: `pi ${host.version}` });
    return { m, s, sm, compacted, compaction, compactionSummaries, firstAfter, checked };
  })());
}

for (const trigger of Object.keys(TRIGGERS)) {
  test(`pi ${host.version} [${trigger}]: right after a compaction pi reports null; navigate_tree reports a number`, async () => {
    const { m, sm, compacted, compaction, compactionSummaries, firstAfter, checked } = await compactedRun(trigger);
    assert.equal(compactionSummaries, 1, "one compaction summary request");
    assert.equal(compaction?.type, "compaction", "the compaction entry is the leaf");
    assert.equal(entriesOfType(sm, "compaction").length, 1);
    assert.ok(compacted?.firstKeptEntryId, "the compaction keeps a range");
    // The model saw the compacted context: the summary, the kept request, not the old bulk.
    const first = text(m.requests[firstAfter]);
    assert.ok(first.includes("COMPACT-SUMMARY") && first.includes("phase two:"), "the first request after the compaction holds the summary and the kept range");
    assert.ok(!first.includes("old: lorem ipsum"), "the old bulk is compacted away");
    // pi's number at that request (the anchor's point): null. The tool's: a number.
    const anchor = checked.find((p) => p.action === "anchor");
    assert.ok(anchor, "the anchor call was compared");
    assert.equal(anchor.pi, null, "pi's getContextUsage() at the first request after the compaction: tokens null");
    assert.equal(typeof anchor.ours, "number", "the tool reports a number");
    assert.ok(anchor.ours > 0 && anchor.ref > 0, `the compacted context is not empty (tool ${anchor.ours}, pi's estimator ${anchor.ref})`);
    // The reference the null moment is compared with is pi's own estimator: it gives pi's number wherever pi has one.
    assertReferenceIsPi(checked, `pi ${host.version}`);
    assertAllPaired(m);
  });

  test(`pi ${host.version} [${trigger}]: after a compaction navigate_tree's numbers are pi's (its estimator where pi says null)`, async () => {
    const { m, sm, checked } = await compactedRun(trigger);
    assertFooterParity(checked, `pi ${host.version}`);
    assert.equal(m.summaryRequests.length, 2, "the rewind's summary request followed the compaction's");
    assert.deepEqual(checked.map((p) => p.action).sort(), ["anchor", "list", "rewind-after", "rewind-before"], "every call compared (the rewind was not refused)");
    assert.match(resultText(sm, "c5"), /^\[rewind 'post' → 'end'\]/);
  });
}
