// navigate_tree on the wire: real pi sessions through pi's OWN Anthropic provider (anthropic-messages) pointed
// at a local mock of the Messages API (lib/mock-api.mjs), which enforces the API's rules on every request
// (tool_use/tool_result pairing, role order, ids; thread continuations checked against the server-side
// history). Message threads are on where the host has them (pi ≥1.5.1, via compat.supportsMessageThreads);
// idle cache warming is forced where the host has it (pi ≥0.99). See docs/hosts.md, "On the wire".
import assert from "node:assert/strict";
import { join } from "node:path";
import test from "node:test";
import { compareVersions } from "../../js/tested-hosts.js";
import { resultEntry } from "./lib/checks.mjs";
import { createSession, loadHost } from "./lib/harness.mjs";
import { FIXTURES, PKG_DIR } from "./lib/hosts.mjs";
import { startAnthropicMock } from "./lib/mock-api.mjs";
import { WireModel } from "./lib/wire.mjs";

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

const blocks = (m) => (typeof m?.content === "string" ? [{ type: "text", text: m.content }] : m?.content ?? []);
const textOf = (m) => blocks(m).map((b) => b.text ?? (typeof b.content === "string" ? b.content : JSON.stringify(b.content ?? ""))).join("");
/** JSON without cache_control: what a prompt is (the marker moves to the last message of each request). */
const canon = (v) => JSON.parse(JSON.stringify(v ?? null, (k, x) => (k === "cache_control" ? undefined : x)));

/** What a request is: a cache warm, the live-prefix summary, pi's cold summary, or a main-loop request. */
function kindOf(record) {
  if (record.body.max_tokens === 1) return "warm";
  const full = record.full ?? { messages: record.body.messages ?? [] };
  if (textOf(full.messages.at(-1)).includes(INSTRUCTION)) return "live";
  if (JSON.stringify(full.system ?? "").includes(COLD_MARK)) return "cold";
  return "main";
}

/**
 * A session on pi's Anthropic provider against a fresh mock. `main`: replies to main-loop requests, in order;
 * summaries get `summary`; warms get a one-token text. `fault(record)`: a spec to answer instead (or undefined).
 */
async function wireSession(t, { main, summary = "## Goal\nread the data (LIVE)", extensions = [], settings, promptCache, fault } = {}) {
  const script = [...main];
  const mock = await startAnthropicMock({
    replies(record) {
      record.kind = kindOf(record);
      const f = fault?.(record);
      if (f) return f;
      if (record.kind === "warm") return { text: "." };
      if (record.kind === "live" || record.kind === "cold") return { text: summary };
      return script.shift();
    },
  });
  t.after(() => mock.close());
  const model = new WireModel({
    api: "anthropic-messages",
    baseUrl: mock.url,
    compat: THREADS ? { supportsMessageThreads: true } : undefined,
    promptCache,
  });
  const s = await createSession(host, model, {
    extensions: [...extensions, PKG_DIR, join(FIXTURES, "bulk-ext/index.js")],
    tools: ["navigate_tree", "bulk_read"],
    settings,
  });
  t.after(() => s.dispose());
  const of = (kind) => mock.requests.filter((r) => r.kind === kind);
  return { mock, s, sm: s.sm, of, script };
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

test("wire: anchor, bulky work, rewind, next prompt — the API's rules hold; the summary replays the rewind's request", async (t) => {
  const { mock, s, sm, of } = await wireSession(t, { main: [anchor("a"), bulk(24000, OLD), rewind(), { text: "done" }, { text: "second" }] });
  await s.session.prompt("read the data");
  await s.session.prompt("next");
  assertClean(mock);
  const r = rewindResult(sm);
  assert.notEqual(r.isError, true, textOf(r));
  const main = of("main");
  assert.equal(main.length, 5);
  // The request after the rewind no longer carries the collapsed work; the one before did.
  assert.ok(JSON.stringify(main[2].full.messages).includes(OLD));
  assert.ok(!JSON.stringify(main[3].full.messages).includes(OLD), "the post-rewind request still holds the collapsed work");
  if (!CAPTURES) return;
  const live = of("live");
  assert.equal(live.length, 1, "one live-prefix summary request");
  const [summary, before] = [live[0].full, main[2].full];
  // Unchanged on the wire: system, tools and every message of the rewind's request, then the instruction.
  assert.deepEqual(canon(summary.system), canon(before.system), "system differs");
  assert.deepEqual(canon(summary.tools), canon(before.tools), "tools differ");
  assert.deepEqual(canon(summary.messages.slice(0, -1)), canon(before.messages), "messages differ");
  assert.equal(summary.messages.length, before.messages.length + 1);
  assert.equal(summary.messages.at(-1).role, "user");
  assert.ok(textOf(summary.messages.at(-1)).includes(INSTRUCTION));
  if (THREADS) {
    // The summary stays out of the session's thread (disableContinuation, as pi's cache warmer): no thread
    // field; the main loop's requests continue their thread except where the context was rebuilt.
    assert.equal(live[0].thread, null, "the summary request took part in the session's thread");
    assert.deepEqual(main.map((q) => q.thread), ["create", "continue", "continue", "create", "continue"]);
  }
});

test("wire: a rewind that fails after its summary leaves the main loop's thread intact", async (t) => {
  const { mock, s, sm, of } = await wireSession(t, { main: [anchor("a"), bulk(24000, OLD), rewind(), { text: "after the failure" }] });
  const real = sm.branchWithSummary.bind(sm);
  let armed = true;
  sm.branchWithSummary = (...args) => {
    if (armed) {
      armed = false;
      throw new Error("disk full (test)");
    }
    return real(...args);
  };
  await s.session.prompt("read the data");
  assertClean(mock);
  assert.equal(rewindResult(sm).isError, true, "the rewind should have failed");
  const main = of("main");
  assert.equal(main.length, 4);
  assert.ok(JSON.stringify(main[3].full.messages).includes(OLD), "the failed rewind kept the work");
  if (CAPTURES) assert.equal(of("live").length, 1, "the summary was requested before the failure");
  // Had the summary continued or re-created the session's thread, pi's thread state would now point at the
  // summary's reply and this request would resend the whole context (`create`).
  if (THREADS) assert.equal(main[3].thread, "continue", "the summary reset the main loop's thread");
});

test("wire: refusals (batched rewind, chained rewind) answer every call; the next requests keep the rules", async (t) => {
  const batched = { calls: [{ name: "bulk_read", input: { chars: 100, tag: "x" } }, rewind().calls[0]] };
  const chained = { calls: [{ name: "navigate_tree", input: { action: "rewind", labelStart: "a-done", labelEnd: "a-done2", summaryFocus: FOCUS } }] };
  const { mock, s, sm, of } = await wireSession(t, { main: [anchor("a"), bulk(24000, OLD), batched, rewind(), chained, { text: "done" }] });
  await s.session.prompt("read the data");
  assertClean(mock);
  const results = sm.getEntries().filter((e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === "navigate_tree");
  const errors = results.filter((e) => e.message.isError).length;
  assert.equal(errors, 2, "the batched and the chained rewind are refused");
  assert.equal(of("main").length, 6);
});

test("wire: provider faults around a rewind (an overloaded API, a stream cut mid-reply) leave no request breaking the rules", async (t) => {
  let faults = 0;
  const { mock, s, sm, of } = await wireSession(t, {
    // Spare replies: pi's Anthropic SDK client retries some faults itself on older hosts.
    main: [anchor("a"), bulk(24000, OLD), rewind(), ...["recovered", "second", "third", "fourth"].map((text) => ({ text }))],
    fault(record) {
      // The first post-rewind request: overloaded; the retry pi's next prompt makes: a cut stream, once.
      if (record.kind !== "main") return undefined;
      const after = of("main").length - 1; // this request's index among main requests
      if (after === 3 && faults === 0) return (faults++, { error: { status: 529, type: "overloaded_error", message: "Overloaded" } });
      if (after === 4 && faults === 1) return (faults++, { text: "partial", cut: true });
      return undefined;
    },
  });
  await s.session.prompt("read the data");
  await s.session.prompt("continue");
  await s.session.prompt("again");
  assertClean(mock);
  assert.equal(faults, 2);
  assert.notEqual(rewindResult(sm).isError, true);
  for (const q of of("main").slice(3)) assert.ok(!JSON.stringify(q.full.messages).includes(OLD), `request ${q.index} resent the collapsed work`);
});

test("wire: idle cache warming never re-sends a pre-rewind context", { skip: !WARMING && `pi ${host.version} has no idle cache warming (pi ≥0.99)` }, async (t) => {
  const warm = warmState();
  warm.decisions = 0;
  warm.abortAtNavigate = 0;
  t.after(() => (warm.abortAtNavigate = 0));
  const { mock, s, of } = await wireSession(t, {
    main: [anchor("a"), bulk(24000, OLD), { text: "paused" }, rewind(), { text: "unused" }],
    extensions: [join(FIXTURES, "warm-ext/index.js")],
    settings: { cacheWarming: "idle" },
    // An 11 s lifetime: pi warms 1 s after each request (min(0.9·TTL, TTL − 10 s)).
    promptCache: { short: 11 },
  });
  await s.session.prompt("read the data");
  await new Promise((r) => setTimeout(r, 1400));
  // Warming works here: the idle session's last request was re-sent.
  const before = of("warm");
  assert.ok(warm.decisions >= 1 && before.length >= 1, "no warm before the rewind");
  assert.deepEqual(canon(before[0].full.messages), canon(of("main").at(-1).full.messages), "the warm re-sends the last request");
  // The next run ends right after the rewind (Esc), so no request follows it: the last request pi sent is
  // the rewind's own, a context the session has left.
  warm.abortAtNavigate = 1;
  await s.session.prompt("done with that, rewind");
  assert.equal(warm.abortAtNavigate, 0, "the run was not stopped after the rewind");
  const rewindRequest = of("main").at(-1);
  assert.equal(of("main").length, 4, "a request followed the rewind");
  await new Promise((r) => setTimeout(r, 1400));
  assertClean(mock);
  const after = of("warm").filter((q) => q.index > rewindRequest.index);
  for (const q of after) assert.ok(!JSON.stringify(q.full.messages).includes(OLD), `warm request ${q.index} re-sent the pre-rewind context`);
});
