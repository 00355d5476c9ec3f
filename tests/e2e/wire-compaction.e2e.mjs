// pi's compaction from the prompt cache on the wire (issue 31): real pi sessions through pi's OWN providers —
// Anthropic Messages (message threads on where pi has them, ≥1.5.1), OpenAI Responses and OpenAI Chat Completions —
// against the local mocks (lib/mock-api.mjs), which enforce each API's rules and account the prompt cache from the
// bytes. A run crosses pi's compaction threshold mid-run; pi compacts before its next request (`prepareNextTurn`).
// On hosts with a live request to reuse (≥0.87): the compaction request's head (system/instructions, tools, the
// prompt-cache key) and first messages are the last main request's, byte for byte but for the cache markers, then
// one instruction; the mock reads ≥90% of its prompt from its cache; pi's compaction entry is pi's format and the
// next request carries the summary. pi 0.74/0.75 compact on their own (cold). Then `/compact` with instructions.
import assert from "node:assert/strict";
import { join } from "node:path";
import test from "node:test";
import { compareVersions } from "../../js/tested-hosts.js";
import { createSession, loadHost } from "./lib/harness.mjs";
import { FIXTURES, PKG_DIR } from "./lib/hosts.mjs";
import { WireModel, canon, textOf, wireApis } from "./lib/wire.mjs";

// These tests are about the product as shipped: the driver's kill switches off.
for (const k of ["PI_TREE_NAVIGATOR_NO_START_ANCHOR", "PI_TREE_NAVIGATOR_NO_HINT", "PI_TREE_NAVIGATOR_NO_CACHE_SUMMARY", "PI_TREE_NAVIGATOR_NO_CACHE_COMPACTION"]) delete process.env[k];
const host = await loadHost();
const at = (v) => compareVersions(host.version, v) >= 0;
const CAPTURES = at("0.87.0");
/** pi <0.87 has no live request: a test that checks our compaction there checks pi's own instead, and says so. */
const NO_LIVE = `pi ${host.version} has no live request to reuse`;
const THREADS = at("1.5.1");
const MARK = "Write a context checkpoint instead";
const COLD_MARK = "context summarization assistant";
const SUMMARY = "## Goal\nread the data (WIRE-CHECKPOINT)\n\n## Progress\n### Done\n- [x] read it";
const WINDOW = 200000;
// The threshold at 14k tokens: the third 20k-character read crosses it.
const COMPACTION = { enabled: true, reserveTokens: WINDOW - 14000, keepRecentTokens: 3000 };

const bulk = (chars, tag) => ({ calls: [{ name: "bulk_read", input: { chars, tag } }] });

/** Each API: its mock, pi's API name, base URL, a request's conversation and head, its cache accounting (lib/wire.mjs). */
const APIS = wireApis({ threads: THREADS });

function kindOf(A, record) {
  const conv = A.conv(record);
  if (A.maxOut(record) === 1) return "warm";
  if (textOf(conv.at(-1)).includes(MARK)) return "compaction";
  if (JSON.stringify([A.head(record), conv[0]]).includes(COLD_MARK)) return "cold";
  return "main";
}

async function wireSession(t, api, main, { compaction = COMPACTION } = {}) {
  const A = APIS[api];
  const script = [...main];
  const mock = await A.start({
    replies(record) {
      record.kind = kindOf(A, record);
      if (record.kind === "warm") return { text: "." };
      if (record.kind === "compaction") return { text: SUMMARY };
      if (record.kind === "cold") return { text: "## Goal\nread the data (COLD)" };
      return script.shift();
    },
  });
  t.after(() => mock.close());
  const model = new WireModel({ api: A.api, baseUrl: A.base(mock.url), compat: A.compat, contextWindow: WINDOW });
  const s = await createSession(host, model, { extensions: [PKG_DIR, join(FIXTURES, "bulk-ext/index.js")], tools: ["navigate_tree", "bulk_read"], compaction });
  t.after(() => s.dispose());
  const of = (kind) => mock.requests.filter((r) => r.kind === kind);
  return { A, mock, s, sm: s.sm, of };
}

function assertClean(mock) {
  assert.deepEqual(mock.violations, [], "API rule violations on the wire");
  assert.equal(mock.exhausted, 0, "a request found the script exhausted");
}

/** pi's compaction entry as pi writes it (`appendCompaction`): the fields and their types, the kept entry on the branch. */
function assertPiCompaction(sm, entry) {
  assert.equal(entry.type, "compaction");
  assert.equal(typeof entry.id, "string");
  assert.equal(typeof entry.summary, "string");
  assert.equal(typeof entry.tokensBefore, "number");
  assert.ok(sm.getBranch(entry.id).some((e) => e.id === entry.firstKeptEntryId), "firstKeptEntryId is on the compaction's branch");
  assert.deepEqual(Object.keys(entry.details).sort(), ["modifiedFiles", "readFiles"]);
}

for (const api of Object.keys(APIS)) {
  test(CAPTURES ? `wire ${api}: a threshold compaction mid-run is written from the cache; pi's entry; the next request carries it` : `wire ${api}, ${NO_LIVE}: a threshold compaction mid-run is pi's own cold one; pi's entry`, async (t) => {
    const main = [bulk(20000, "OLD1"), bulk(20000, "OLD2"), bulk(20000, "OLD3"), bulk(20000, "OLD4"), { text: "done" }, { text: "next" }, { text: "spare" }, { text: "spare" }];
    const { A, mock, s, sm, of } = await wireSession(t, api, main);
    await s.session.prompt("read the data");
    for (const end = Date.now() + 5000; Date.now() < end && (s.session.isCompacting || !sm.getEntries().some((e) => e.type === "compaction")); ) await new Promise((r) => setTimeout(r, 20));
    await s.session.prompt("next");
    assertClean(mock);
    const entries = sm.getEntries().filter((e) => e.type === "compaction");
    assert.ok(entries.length >= 1, "no compaction");
    for (const e of entries) assertPiCompaction(sm, e);
    if (!CAPTURES) {
      assert.equal(of("compaction").length, 0);
      assert.ok(of("cold").length >= 1, "pi's own cold request");
      return;
    }
    assert.equal(of("cold").length, 0, "no cold summary request");
    const compactions = of("compaction");
    assert.equal(compactions.length, entries.length, "one request per compaction");
    for (const c of compactions) {
      // The main request right before it (warms aside) is the live request replayed.
      const before = mock.requests.slice(0, c.index).filter((r) => r.kind === "main").at(-1);
      assert.deepEqual(canon(A.head(c)), canon(A.head(before)), "system/instructions, tools or prompt-cache key differ");
      assert.deepEqual(canon(A.conv(c).slice(0, A.conv(before).length)), canon(A.conv(before)), "the first messages differ");
      assert.equal(A.conv(c).at(-1).role, "user");
      if (api === "anthropic" && THREADS) assert.equal(c.thread, null, "the compaction request took part in the session's thread");
      // The mock's cache accounting: ≥90% of the prompt read from the cache.
      const { read, total } = A.cache(c);
      assert.ok(read >= 0.9 * total, `${read} of ${total} prompt tokens read from the cache`);
      // The request after it carries the summary, and not the compacted work.
      const next = mock.requests.slice(c.index + 1).find((r) => r.kind === "main");
      assert.ok(JSON.stringify(A.conv(next)).includes("WIRE-CHECKPOINT"), "the next request carries the summary");
      assert.ok(!JSON.stringify(A.conv(next)).includes("OLD1: lorem"), "the compacted work is still sent");
    }
    // pi's entry holds the summary and the provider's usage of our request.
    assert.ok(entries[0].summary.includes("WIRE-CHECKPOINT"));
    assert.equal(entries[0].fromHook, true);
    assert.equal(entries[0].usage?.cacheRead, A.cache(compactions[0]).read);
  });

  test(`wire ${api}: /compact with instructions between prompts is written from the cache`, { skip: !CAPTURES && NO_LIVE }, async (t) => {
    const main = [bulk(8000, "OLD1"), { text: "one" }, bulk(8000, "NEW1"), { text: "two" }, { text: "three" }];
    const { A, mock, s, sm, of } = await wireSession(t, api, main, { compaction: { enabled: false, keepRecentTokens: 500 } });
    await s.session.prompt("one");
    await s.session.prompt("two");
    await s.session.compact("keep the numbers");
    await s.session.prompt("three");
    assertClean(mock);
    const [c] = of("compaction");
    assert.ok(c, "no compaction request");
    const before = of("main")[3];
    assert.deepEqual(canon(A.head(c)), canon(A.head(before)));
    assert.deepEqual(canon(A.conv(c).slice(0, A.conv(before).length)), canon(A.conv(before)));
    assert.ok(textOf(A.conv(c).at(-1)).endsWith("Additional focus: keep the numbers"));
    const { read, total } = A.cache(c);
    assert.ok(read >= 0.9 * total, `${read} of ${total} prompt tokens read from the cache`);
    const [entry] = sm.getEntries().filter((e) => e.type === "compaction");
    assertPiCompaction(sm, entry);
    assert.ok(JSON.stringify(A.conv(of("main")[4])).includes("WIRE-CHECKPOINT"));
  });
}
