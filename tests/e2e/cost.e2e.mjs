// What a run cost and what its summaries saved (issue 39), in real pi 1.6.0 with a priced model: pi's own Anthropic
// provider against the local mock (lib/mock-api.mjs, which reports usage), the model priced in its provider config
// as in pi's models.json ($3 / $15 / $0.30 / $3.75 per million tokens: lib/wire.mjs). The run: an anchor, big reads,
// a rewind through the cache path, five more requests, a compaction through our path (`/compact`), three more.
// Both summary entries carry their request's usage with pi's cost; pi's own getSessionStats counts them; the CLI's
// `stats --json` cost block is pi's total, and its rewind's and compaction's savings are this test's own arithmetic
// on the file (the rewind's tokens: what pi's estimateTokens gives the messages it removed, less its summary — the
// number its own result reported — at the cache-read price of each request after it, less the summary's cost); the
// built core's /anchors row of the rewind ends with that money. Every host: the rewind's saving; the summary
// entries carry the usage where that pi keeps one (pi ≥0.87), else none is known (nothing subtracted).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import test from "node:test";
import { compareVersions } from "../../js/tested-hosts.js";
import { pathToFileURL } from "node:url";
import { createSession, loadHost, testDir } from "./lib/harness.mjs";
import { FIXTURES, PKG_DIR } from "./lib/hosts.mjs";
import { WireModel, textOf, wireApis } from "./lib/wire.mjs";

for (const k of ["PI_TREE_NAVIGATOR_NO_START_ANCHOR", "PI_TREE_NAVIGATOR_NO_HINT", "PI_TREE_NAVIGATOR_NO_CACHE_SUMMARY", "PI_TREE_NAVIGATOR_NO_CACHE_COMPACTION"]) delete process.env[k];
const host = await loadHost();
/** The built package's core (what /anchors reads). */
const core = await import(pathToFileURL(join(PKG_DIR, "index-node.js")).href);
const at = (v) => compareVersions(host.version, v) >= 0;
/** pi keeps a summary's usage in its entries (`branchWithSummary`'s and `appendCompaction`'s `usage`). */
const KEEPS_USAGE = at("0.87.0");
const REWIND_MARK = "Stop the task here";
const COMPACT_MARK = "Write a context checkpoint instead";
const COLD_MARK = "context summarization assistant";
const FOCUS = "User asked: 'read the data'. Done: read it. Left: nothing.";
const A = wireApis({ threads: at("1.5.1") }).anthropic;

const anchor = (name) => ({ calls: [{ name: "navigate_tree", input: { action: "anchor", name } }] });
const bulk = (chars, tag) => ({ calls: [{ name: "bulk_read", input: { chars, tag } }] });
const rewind = { calls: [{ name: "navigate_tree", input: { action: "rewind", labelStart: "work", labelEnd: "work-done", summaryFocus: FOCUS } }] };

function kindOf(record) {
  const conv = A.conv(record);
  if (A.maxOut(record) === 1) return "warm";
  const last = textOf(conv.at(-1));
  // (the compaction's instruction says "stop the task" too)
  if (last.includes(COMPACT_MARK)) return "compaction";
  if (last.includes(REWIND_MARK)) return "rewind";
  if (JSON.stringify([A.head(record), conv[0]]).includes(COLD_MARK)) return "cold";
  return "main";
}

/** The CLI's `stats --json` on `file`. */
function stats(file) {
  const r = spawnSync(process.execPath, [join(PKG_DIR, "cli.js"), "stats", "--json", file], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test("a priced run: both summaries record their usage, pi's totals count them, stats' savings are the file's arithmetic", async (t) => {
  const main = [anchor("work"), bulk(24000, "R1"), bulk(24000, "R2"), bulk(24000, "R3"), rewind, { text: "rewound" },
    // five more requests, with reads for the compaction to take out
    bulk(12000, "N1"), { text: "after the rewind 1" }, bulk(12000, "N2"), { text: "after the rewind 2" }, { text: "after the rewind 3" },
    ...[1, 2, 3].map((i) => ({ text: `after the compaction ${i}` }))];
  const script = [...main];
  const mock = await A.start({
    replies(record) {
      record.kind = kindOf(record);
      if (record.kind === "warm") return { text: "." };
      if (record.kind === "rewind") return { text: "## Goal\nread the data (SUMMARY)" };
      // The instruction after the cached prefix is uncached input (this mock bills none unless told).
      if (record.kind === "compaction") return { text: "## Goal\nread the data (CHECKPOINT)\n\n## Progress\n- [x] read it", usage: { input: 60 } };
      if (record.kind === "cold") return { text: "## Goal\nread the data (COLD)" };
      return script.shift();
    },
  });
  t.after(() => mock.close());
  const model = new WireModel({ api: A.api, baseUrl: A.base(mock.url), compat: A.compat });
  const s = await createSession(host, model, { extensions: [PKG_DIR, join(FIXTURES, "bulk-ext/index.js")], tools: ["navigate_tree", "bulk_read"], compaction: { enabled: false, keepRecentTokens: 400 } });
  t.after(() => s.dispose());
  const sm = s.sm;

  await s.session.prompt("read the data");
  for (let i = 1; i <= 3; i++) await s.session.prompt(`go on ${i}`);
  await s.session.compact();
  for (let i = 1; i <= 3; i++) await s.session.prompt(`more ${i}`);
  assert.deepEqual(mock.violations, [], "API rule violations on the wire");
  assert.equal(mock.exhausted, 0, "a request found the script exhausted");

  const entries = sm.getEntries();
  const summary = entries.find((e) => e.type === "branch_summary");
  const compaction = entries.find((e) => e.type === "compaction");
  assert.ok(summary && compaction, "a rewind and a compaction");
  const dir = testDir(t, "ptn-cost-").dir;
  const file = join(dir, "session.jsonl");
  writeFileSync(file, sm.fileEntries.map((e) => JSON.stringify(e)).join("\n") + "\n");
  const { cost, rewinds } = stats(file);

  // What a request paid per prompt token at the least (the rule): its own cache-read price, else the latest
  // of its model in the file (assistants and cache warming, file order), else its input price.
  const requests = entries.filter((e) => e.type === "message" && e.message.role === "assistant");
  const prompt = (u) => u.input + u.cacheRead + u.cacheWrite;
  const latestRead = (() => {
    let p = 0;
    for (const u of entries.map((e) => (e.type === "usage" ? e.usage : e.type === "message" && e.message.role === "assistant" ? e.message.usage : null))) {
      if (u?.cacheRead > 0 && u.cost?.cacheRead > 0) p = u.cost.cacheRead / u.cacheRead;
    }
    return p;
  })();
  const price = (u) => (u.cacheRead > 0 && u.cost.cacheRead > 0 ? u.cost.cacheRead / u.cacheRead : latestRead || (u.input > 0 ? u.cost.input / u.input : 0));

  // The rewind: what it removed from the context is what pi's own estimateTokens gives the messages between its
  // anchor and the point it left (the parent of the message that called it), less its summary as pi counts a branch
  // summary — the number its result reported; its money, that times the cache-read price of each real request
  // after it up to the compaction, less the summary's recorded cost (none on a pi that keeps none: 0).
  const callEntry = requests.find((e) => e.message.content.some((c) => c.type === "toolCall" && c.name === "navigate_tree" && c.arguments?.action === "rewind"));
  const branch = sm.getBranch(callEntry.parentId);
  const removedMessages = branch.slice(branch.findIndex((e) => e.id === summary.parentId) + 1).filter((e) => e.type === "message");
  assert.ok(removedMessages.some((e) => textOf(e.message).includes("R3")), "the reads are among what the rewind removed");
  const rewindRemoved = removedMessages.reduce((n, e) => n + host.pca.estimateTokens(e.message), 0);
  const summaryTokens = host.pca.estimateTokens({ role: "branchSummary", summary: summary.summary, fromId: summary.fromId, timestamp: 0 });
  const result = entries.find((e) => e.type === "message" && e.message.role === "toolResult" && e.message.details?.summaryId === summary.id);
  assert.equal(result?.message.details.savedTokens, rewindRemoved - summaryTokens, "the rewind's result reported what it removed less its summary");
  const between = entries
    .slice(entries.indexOf(summary) + 1, entries.indexOf(compaction))
    .filter((e) => e.type === "message" && e.message.role === "assistant" && prompt(e.message.usage) > 0);
  const summaryUsd = summary.usage?.cost.total ?? null;
  const rewindExpected = (rewindRemoved - summaryTokens) * between.reduce((sum, e) => sum + price(e.message.usage), 0) - (summaryUsd ?? 0);
  const [rw] = cost.savings.rewinds.items;
  assert.equal(cost.savings.rewinds.items.length, 1);
  assert.equal(rw.entryId, summary.id);
  assert.equal(rw.label, "work-done");
  assert.equal(rw.tokensRemoved, rewindRemoved - summaryTokens);
  assert.equal(rw.tokensRemoved, rewinds[0].saving.savedTokens, "stats' rewinds say the same");
  assert.equal(rw.requestsAfter, between.length);
  assert.ok(rw.requestsAfter >= 5, "five more requests after the rewind");
  assert.equal(rw.summaryUsd, summaryUsd);
  assert.ok(Math.abs(rw.usd - rewindExpected) < 1e-9, `rewind saving ${rw.usd} vs ${rewindExpected}`);
  assert.equal(cost.savings.rewinds.usd, rw.usd);
  // /anchors (the built core on the file, as pi's command reads it): the rewind's row ends with that money.
  const index = core.SessionIndex.plugin();
  try {
    index.appendJsonl(readFileSync(file, "utf8"));
    const row = index.anchorsView(200_000).rows.find((r) => r.text.startsWith("rewind 1: work → work-done"));
    assert.ok(row?.text.endsWith(` · ≈ ${core.formatUsd(rw.usd)} saved so far`), row?.text);
  } finally {
    index.free();
  }
  t.diagnostic(`pi ${host.version}: rewind removed ${rw.tokensRemoved} tokens, ${rw.requestsAfter} requests after it, saved at least $${rw.usd.toFixed(6)} (summary $${summaryUsd ?? "not recorded"})`);

  if (!KEEPS_USAGE) {
    // pi 0.74/0.75: the summaries go cold through pi itself, which returns no usage: none is known.
    assert.equal(summary.usage, undefined);
    assert.equal(cost.summaries.recorded, 0);
    return;
  }
  const live = (kind) => mock.requests.filter((r) => r.kind === kind);
  assert.equal(live("rewind").length, 1, "the rewind's summary went through the cache path");
  assert.equal(live("compaction").length, 1, "the compaction went through our path");
  // Both entries carry what the provider reported for their request, priced by pi for this model.
  for (const [entry, request] of [[summary, live("rewind")[0]], [compaction, live("compaction")[0]]]) {
    assert.equal(entry.usage?.cacheRead, A.cache(request).read, `${entry.type}: the provider's cache reads`);
    assert.ok(entry.usage.cost.total > 0, `${entry.type}: priced`);
    const u = entry.usage;
    const priced = (u.input * 3 + u.output * 15 + u.cacheRead * 0.3 + u.cacheWrite * 3.75) / 1e6;
    assert.ok(Math.abs(u.cost.total - priced) < 1e-12, `${entry.type}: pi's price for the model (${u.cost.total} vs ${priced})`);
  }
  assert.equal(cost.summaries.recorded, 2);
  assert.equal(cost.summaries.unrecorded, 0);

  // pi's own totals (1.6.0: /session) include both; ours are the same.
  const own = requests.reduce((sum, e) => sum + e.message.usage.cost.total, 0) + summary.usage.cost.total + compaction.usage.cost.total;
  if (typeof s.session.getSessionStats === "function") {
    const pi = s.session.getSessionStats();
    assert.ok(Math.abs(pi.cost - own) < 1e-12, `pi's total ${pi.cost} counts the summaries (${own})`);
    assert.equal(cost.total.usd, pi.cost, "stats --json's total is pi's");
    assert.equal(cost.total.cacheRead, pi.tokens.cacheRead);
  }
  assert.ok(Math.abs(cost.total.usd - own) < 1e-12);

  // The compaction's saving, computed here from the file: tokensBefore minus pi's estimate of the context it
  // leaves, times the cache-read price of each real request after it, minus what its summary cost.
  sm.branch(compaction.id);
  // (the system message it re-emits included: pi's tokensBefore counts it too)
  const leaves = sm.buildSessionContext().messages.reduce((n, m) => n + host.pca.estimateTokens(m), 0);
  const after = entries.slice(entries.indexOf(compaction) + 1).filter((e) => e.type === "message" && e.message.role === "assistant");
  const real = after.filter((e) => prompt(e.message.usage) > 0);
  const removed = compaction.tokensBefore - leaves;
  const expected = removed * real.reduce((sum, e) => sum + price(e.message.usage), 0) - compaction.usage.cost.total;
  const [item] = cost.savings.compactions.items;
  assert.equal(item.entryId, compaction.id);
  assert.equal(item.tokensRemoved, removed);
  assert.equal(item.requestsAfter, 3);
  assert.equal(item.requestsAfter, real.length);
  assert.ok(Math.abs(item.usd - expected) < 1e-9, `compaction saving ${item.usd} vs ${expected}`);
  assert.equal(item.summaryUsd, compaction.usage.cost.total);
  // From the cache: what pi's own cold request would have cost (tokensBefore at the input price) minus ours.
  const inputPrice = compaction.usage.cost.input / compaction.usage.input;
  assert.ok(Math.abs(inputPrice - 3e-6) < 1e-15, "the model's input price");
  const coldSaved = compaction.tokensBefore * inputPrice - compaction.usage.cost.total;
  assert.ok(Math.abs(item.cacheSavedUsd - coldSaved) < 1e-9, `cache saved ${item.cacheSavedUsd} vs ${coldSaved} (${JSON.stringify(compaction.usage)})`);
});
