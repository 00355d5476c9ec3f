// navigate_tree on the wire: real pi sessions through pi's OWN providers — Anthropic Messages, OpenAI Responses
// and OpenAI Chat Completions — pointed at local mocks of the APIs (lib/mock-api.mjs), which enforce each API's
// rules on every request (tool call/result pairing, role order, ids; Anthropic thread continuations checked
// against the server-side history). Anthropic message threads are on where the host has them (pi ≥1.5.1, via
// compat.supportsMessageThreads), OpenAI requests carry the session's prompt_cache_key where pi sends one
// (promptCacheKeyMode "enabled"); idle cache warming is forced where the host has it (pi ≥0.99).
// See docs/hosts.md, "On the wire".
import assert from "node:assert/strict";
import { join } from "node:path";
import test from "node:test";
import { compareVersions } from "../../js/tested-hosts.js";
import { resultEntry } from "./lib/checks.mjs";
import { createSession, loadHost } from "./lib/harness.mjs";
import { FIXTURES, PKG_DIR } from "./lib/hosts.mjs";
import { WireModel, canon, textOf, wireApis } from "./lib/wire.mjs";

// These tests are about the product as shipped: the driver's kill switches off.
for (const k of ["PI_TREE_NAVIGATOR_NO_START_ANCHOR", "PI_TREE_NAVIGATOR_NO_HINT", "PI_TREE_NAVIGATOR_NO_CACHE_SUMMARY"]) delete process.env[k];
const host = await loadHost();
const at = (v) => compareVersions(host.version, v) >= 0;
/** The host captures each request (`context_with_system`): the summary replays the rewind's request. */
const CAPTURES = at("0.87.0");
/** pi-ai's Anthropic provider has message threads (1.5.1). */
const THREADS = at("1.5.1");
/** pi has idle cache warming and the `cache_warming_decision` event (0.99). */
const WARMING = at("0.99.0");
const INSTRUCTION = "Stop the task here";
const COLD_MARK = "context summarization assistant";
const FOCUS = "User asked: 'read the data'. Done: read it. Left: nothing.";
const OLD = "OLDWORK";
const warmState = () => (globalThis[Symbol.for("ptn.e2e.warm")] ??= { decisions: 0, abortAtNavigate: 0 });

const anchor = (name) => ({ calls: [{ name: "navigate_tree", input: { action: "anchor", name } }] });
const bulk = (chars, tag) => ({ calls: [{ name: "bulk_read", input: { chars, tag } }] });
const rewind = () => ({ calls: [{ name: "navigate_tree", input: { action: "rewind", labelStart: "a", labelEnd: "a-done", summaryFocus: FOCUS } }] });


/** Each API as the tests see it (lib/wire.mjs). */
const APIS = wireApis({ threads: THREADS });

/** What a request is: a cache warm, the live-prefix summary, pi's cold summary, or a main-loop request. */
function kindOf(A, record) {
  const conv = A.conv(record);
  if (A.maxOut(record) === 1) return "warm";
  if (textOf(conv.at(-1)).includes(INSTRUCTION)) return "live";
  if (JSON.stringify([A.head(record), conv[0]]).includes(COLD_MARK)) return "cold";
  return "main";
}

/**
 * A session on pi's own provider for `api` against a fresh mock. `main`: replies to main-loop requests, in
 * order; summaries get `summary`; warms get a one-token text. `fault(record)`: a spec to answer instead.
 * `has(record, text)`: the request's conversation holds `text`.
 */
async function wireSession(t, api, { main, summary = "## Goal\nread the data (LIVE)", extensions = [], settings, promptCache, fault } = {}) {
  const A = APIS[api];
  const script = [...main];
  const mock = await A.start({
    replies(record) {
      record.kind = kindOf(A, record);
      const f = fault?.(record);
      if (f) return f;
      if (record.kind === "warm") return { text: "." };
      if (record.kind === "live" || record.kind === "cold") return { text: summary };
      return script.shift();
    },
  });
  t.after(() => mock.close());
  const model = new WireModel({ api: A.api, baseUrl: A.base(mock.url), compat: A.compat, promptCache });
  const s = await createSession(host, model, {
    extensions: [...extensions, PKG_DIR, join(FIXTURES, "bulk-ext/index.js")],
    tools: ["navigate_tree", "bulk_read"],
    settings,
  });
  t.after(() => s.dispose());
  const of = (kind) => mock.requests.filter((r) => r.kind === kind);
  const has = (record, text) => JSON.stringify(A.conv(record)).includes(text);
  return { A, mock, s, sm: s.sm, of, has };
}

/** No request broke the API's rules, and every request got a scripted answer. */
function assertClean(mock) {
  assert.deepEqual(mock.violations, [], "API rule violations on the wire");
  assert.equal(mock.exhausted, 0, "a request found the script exhausted");
}

function rewindResult(sm) {
  const e = sm.getEntries().filter((x) => x.type === "message" && x.message.role === "toolResult" && x.message.toolName === "navigate_tree").at(-1);
  assert.ok(e, "no navigate_tree result");
  return e.message;
}

for (const api of Object.keys(APIS)) {
  test(`wire ${api}: anchor, bulky work, rewind, next prompt — the API's rules hold; ${CAPTURES ? "the summary replays the rewind's request" : `pi ${host.version} has no request to replay, so the summary is the cold one`}`, async (t) => {
    const { A, mock, s, sm, of, has } = await wireSession(t, api, { main: [anchor("a"), bulk(24000, OLD), rewind(), { text: "done" }, { text: "second" }] });
    await s.session.prompt("read the data");
    await s.session.prompt("next");
    assertClean(mock);
    const r = rewindResult(sm);
    assert.notEqual(r.isError, true, textOf(r));
    const main = of("main");
    assert.equal(main.length, 5);
    // The request after the rewind no longer carries the collapsed work; the one before did.
    assert.ok(has(main[2], OLD));
    assert.ok(!has(main[3], OLD), "the post-rewind request still holds the collapsed work");
    if (!CAPTURES) {
      assert.deepEqual([of("live").length, of("cold").length], [0, 1], "one cold summary request, no live one");
      return;
    }
    const live = of("live");
    assert.equal(live.length, 1, "one live-prefix summary request");
    const [summary, before] = [live[0], main[2]];
    // Unchanged on the wire: the request's head (Anthropic: system, tools; OpenAI: instructions, tools, the
    // prompt-cache key) and every message/input item of the rewind's request, then the instruction.
    assert.deepEqual(canon(A.head(summary)), canon(A.head(before)), "system/instructions, tools or prompt-cache key differ");
    assert.deepEqual(canon(A.conv(summary).slice(0, -1)), canon(A.conv(before)), "the conversation differs");
    assert.equal(A.conv(summary).length, A.conv(before).length + 1);
    assert.equal(A.conv(summary).at(-1).role, "user");
    assert.ok(textOf(A.conv(summary).at(-1)).includes(INSTRUCTION));
    if (api === "anthropic" && THREADS) {
      // The summary stays out of the session's thread (disableContinuation, as pi's cache warmer): no thread
      // field; the main loop's requests continue their thread except where the context was rebuilt.
      assert.equal(live[0].thread, null, "the summary request took part in the session's thread");
      assert.deepEqual(main.map((q) => q.thread), ["create", "continue", "continue", "create", "continue"]);
    }
  });

  test(`wire ${api}: a rewind that fails after its summary keeps the rules (and the main loop's thread)`, async (t) => {
    const { mock, s, sm, of, has } = await wireSession(t, api, { main: [anchor("a"), bulk(24000, OLD), rewind(), { text: "after the failure" }] });
    const real = sm.branchWithSummary.bind(sm);
    let armed = true;
    sm.branchWithSummary = (...args) => {
      if (!armed) return real(...args);
      armed = false;
      throw new Error("disk full (test)");
    };
    await s.session.prompt("read the data");
    assertClean(mock);
    assert.equal(rewindResult(sm).isError, true, "the rewind should have failed");
    const main = of("main");
    assert.equal(main.length, 4);
    assert.ok(has(main[3], OLD), "the failed rewind kept the work");
    if (CAPTURES) assert.equal(of("live").length, 1, "the summary was requested before the failure");
    // Had the summary continued or re-created the session's thread, pi's thread state would now point at the
    // summary's reply and this request would resend the whole context (`create`).
    if (api === "anthropic" && THREADS) assert.equal(main[3].thread, "continue", "the summary reset the main loop's thread");
  });

  test(`wire ${api}: refusals (batched rewind, chained rewind) answer every call; the next requests keep the rules`, async (t) => {
    const batched = { calls: [{ name: "bulk_read", input: { chars: 100, tag: "x" } }, rewind().calls[0]] };
    const chained = { calls: [{ name: "navigate_tree", input: { action: "rewind", labelStart: "a-done", labelEnd: "a-done2", summaryFocus: FOCUS } }] };
    const { mock, s, sm, of } = await wireSession(t, api, { main: [anchor("a"), bulk(24000, OLD), batched, rewind(), chained, { text: "done" }] });
    await s.session.prompt("read the data");
    assertClean(mock);
    const results = sm.getEntries().filter((e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === "navigate_tree");
    assert.equal(results.filter((e) => e.message.isError).length, 2, "the batched and the chained rewind are refused");
    assert.equal(of("main").length, 6);
  });

  test(`wire ${api}: provider faults around a rewind (an overloaded API, a stream cut mid-reply) leave no request breaking the rules`, async (t) => {
    let faults = 0;
    const { A, mock, s, sm, of, has } = await wireSession(t, api, {
      // Spare replies: pi's SDK clients retry some faults themselves on older hosts.
      main: [anchor("a"), bulk(24000, OLD), rewind(), ...["recovered", "second", "third", "fourth"].map((text) => ({ text }))],
      fault(record) {
        // The first post-rewind request: overloaded; the next main request: a stream cut mid-reply.
        if (record.kind !== "main") return undefined;
        const n = of("main").length - 1;
        if (n === 3 && faults === 0) return (faults++, A.overloaded);
        if (n >= 4 && faults === 1) return (faults++, { text: "partial", cut: true });
        return undefined;
      },
    });
    await s.session.prompt("read the data");
    await s.session.prompt("continue");
    await s.session.prompt("again");
    assertClean(mock);
    assert.equal(faults, 2);
    assert.notEqual(rewindResult(sm).isError, true);
    for (const q of of("main").slice(3)) assert.ok(!has(q, OLD), `request ${q.index} resent the collapsed work`);
  });
}

test("wire anthropic: idle cache warming never re-sends a pre-rewind context", { skip: !WARMING && `pi ${host.version} has no idle cache warming (pi ≥0.99)` }, async (t) => {
  const warm = warmState();
  warm.decisions = 0;
  warm.abortAtNavigate = 0;
  t.after(() => (warm.abortAtNavigate = 0));
  const { A, mock, s, of, has } = await wireSession(t, "anthropic", {
    main: [anchor("a"), bulk(24000, OLD), { text: "paused" }, rewind(), { text: "unused" }],
    extensions: [join(FIXTURES, "warm-ext/index.js")],
    settings: { cacheWarming: "idle" },
    // A 10.5 s lifetime: pi warms 0.5 s after each request (min(0.9·TTL, TTL − 10 s)).
    promptCache: { short: 10.5 },
  });
  // Load-proof waits (≤5 s): until a warm arrived; or past the warm delay while pi still has one pending.
  const until = async (done) => {
    for (const end = Date.now() + 5000; Date.now() < end && !done(); ) await new Promise((r) => setTimeout(r, 50));
  };
  const settle = async () => {
    await new Promise((r) => setTimeout(r, 900));
    await until(() => !["scheduled", "refreshing"].includes(s.session.cacheWarmingStatus?.state));
  };
  await s.session.prompt("read the data");
  await until(() => of("warm").length > 0);
  // Warming works here: the idle session's last request was re-sent.
  const before = of("warm");
  assert.ok(warm.decisions >= 1 && before.length >= 1, "no warm before the rewind");
  assert.deepEqual(canon(A.conv(before[0])), canon(A.conv(of("main").at(-1))), "the warm re-sends the last request");
  assert.ok(has(before[0], OLD), "the check below would not see a pre-rewind warm"); // the detector fires on warms
  // The next run ends right after the rewind (Esc), so no request follows it: the last request pi sent is
  // the rewind's own, a context the session has left.
  warm.abortAtNavigate = 1;
  await s.session.prompt("done with that, rewind");
  assert.equal(warm.abortAtNavigate, 0, "the run was not stopped after the rewind");
  const rewindRequest = of("main").at(-1);
  assert.equal(of("main").length, 4, "a request followed the rewind");
  await settle();
  assertClean(mock);
  const after = of("warm").filter((q) => q.index > rewindRequest.index);
  for (const q of after) assert.ok(!has(q, OLD), `warm request ${q.index} re-sent the pre-rewind context`);
});
