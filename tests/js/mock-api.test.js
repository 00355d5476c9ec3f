// The wire mocks (tests/e2e/lib/mock-api.mjs) enforce the APIs' rules: each rule here is broken once on
// purpose and must be reported and answered with the API's 400 shape; well-formed traffic passes.
import assert from "node:assert/strict";
import test from "node:test";
import { startAnthropicMock, startChatCompletionsMock, startResponsesMock } from "../e2e/lib/mock-api.mjs";

async function post(mock, body, headers = {}, path = "/v1/messages?beta=true") {
  const r = await fetch(`${mock.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { status: r.status, text: await r.text() };
}

/** The SSE events of a streamed reply: [{ event, data }]. */
function events(text) {
  return text.split("\n\n").filter(Boolean).map((chunk) => {
    const event = chunk.match(/^event: (.*)$/m)?.[1];
    const data = JSON.parse(chunk.match(/^data: (.*)$/m)[1]);
    return { event, data };
  });
}

const user = (text) => ({ role: "user", content: [{ type: "text", text }] });
const THREADS = { "anthropic-beta": "message-threads-2026-08-12" };

test("anthropic mock: streams scripted text and tool_use replies in the API's event order", async (t) => {
  const mock = await startAnthropicMock({ replies: [{ text: "hello", calls: [{ name: "f", input: { a: 1 } }] }] });
  t.after(() => mock.close());
  const r = await post(mock, { model: "m", max_tokens: 10, messages: [user("hi")], stream: true });
  assert.equal(r.status, 200);
  const ev = events(r.text);
  assert.deepEqual([...new Set(ev.map((e) => e.event))], ["message_start", "ping", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"]);
  assert.match(ev[0].data.message.id, /^msg_01[0-9A-Za-z]{22}$/);
  const tool = ev.find((e) => e.data.content_block?.type === "tool_use").data.content_block;
  assert.match(tool.id, /^toolu_01[0-9A-Za-z]{22}$/);
  const json = ev.filter((e) => e.data.delta?.type === "input_json_delta").map((e) => e.data.delta.partial_json).join("");
  assert.deepEqual(JSON.parse(json), { a: 1 });
  assert.equal(ev.find((e) => e.event === "message_delta").data.delta.stop_reason, "tool_use");
  assert.deepEqual(mock.violations, []);
});

test("anthropic mock: a call without its result, a result without its call, a result after text and a non-user start are 400s", async (t) => {
  const mock = await startAnthropicMock();
  t.after(() => mock.close());
  const call = { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "f", input: {} }] };
  const result = (id) => ({ type: "tool_result", tool_use_id: id, content: "r" });
  const cases = [
    [user("a"), call, user("b")],
    [user("a"), { role: "assistant", content: "x" }, { role: "user", content: [result("toolu_1")] }],
    [user("a"), call, { role: "user", content: [{ type: "text", text: "t" }, result("toolu_1")] }],
    [{ role: "assistant", content: "x" }, user("a")],
    [user("a"), { ...call, content: [{ ...call.content[0], id: "bad id!" }] }, { role: "user", content: [result("bad id!")] }],
  ];
  for (const messages of cases) {
    const r = await post(mock, { model: "m", max_tokens: 10, messages, stream: true });
    assert.equal(r.status, 400, JSON.stringify(messages));
    const body = JSON.parse(r.text);
    assert.equal(body.type, "error");
    assert.equal(body.error.type, "invalid_request_error");
  }
  assert.equal(mock.requests.filter((q) => q.violations.length).length, cases.length);
  const ok = await post(mock, { model: "m", max_tokens: 10, messages: [user("a"), call, { role: "user", content: [result("toolu_1"), { type: "text", text: "t" }] }] });
  assert.equal(ok.status, 200);
});

test("anthropic mock: a thread continuation is checked as the whole conversation, and continues once", async (t) => {
  const mock = await startAnthropicMock({ replies: [{ calls: [{ name: "f", input: {} }] }, { text: "ok" }] });
  t.after(() => mock.close());
  const first = await post(mock, { model: "m", max_tokens: 10, system: [{ type: "text", text: "s" }], messages: [user("a")], thread: { type: "create" } }, THREADS);
  const reply = mock.requests[0].reply;
  assert.equal(first.status, 200);
  // Only the new message: a result for a call the server holds in the thread's history.
  const cont = { model: "m", max_tokens: 10, messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: reply.content[0].id, content: "r" }] }], thread: { type: "continue", previous_message_id: reply.id } };
  assert.equal((await post(mock, cont, THREADS)).status, 200);
  assert.equal(mock.requests[1].thread, "continue");
  assert.equal(mock.requests[1].full.messages.length, 3);
  assert.deepEqual(mock.requests[1].full.system, [{ type: "text", text: "s" }]);
  const again = await post(mock, cont, THREADS);
  assert.equal(again.status, 409);
  assert.equal(JSON.parse(again.text).error.details.error_code, "thread_already_continued");
  const unknown = await post(mock, { ...cont, thread: { type: "continue", previous_message_id: "msg_nope" } }, THREADS);
  assert.equal(JSON.parse(unknown.text).error.details.error_code, "thread_not_found");
  // A continuation whose new messages start with an orphan result (the history ends with a text reply).
  const orphan = { ...cont, thread: { type: "continue", previous_message_id: mock.requests[1].reply.id } };
  assert.equal((await post(mock, orphan, THREADS)).status, 400);
  assert.match(mock.violations.at(-1), /tool_use_id/);
});

test("chat completions mock: streams chunks with call_ ids and usage; unanswered, orphan and interleaved tool messages are 400s", async (t) => {
  const mock = await startChatCompletionsMock({ replies: [{ text: "hi", calls: [{ name: "f", input: { a: 1 } }] }] });
  t.after(() => mock.close());
  const path = "/v1/chat/completions";
  const ok = await post(mock, { model: "m", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "a" }] }, {}, path);
  assert.equal(ok.status, 200);
  const chunks = ok.text.split("\n\n").filter(Boolean).map((c) => c.slice("data: ".length));
  assert.equal(chunks.at(-1), "[DONE]");
  const data = chunks.slice(0, -1).map((c) => JSON.parse(c));
  assert.match(data[0].id, /^chatcmpl-/);
  const call = data.flatMap((d) => d.choices[0]?.delta?.tool_calls ?? []).find((c) => c.id);
  assert.match(call.id, /^call_[0-9A-Za-z]{24}$/);
  assert.equal(data.find((d) => d.choices[0]?.finish_reason).choices[0].finish_reason, "tool_calls");
  assert.ok(data.at(-1).usage.prompt_tokens > 0);
  const asst = { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: "{}" } }] };
  const tool = (id) => ({ role: "tool", tool_call_id: id, content: "r" });
  for (const messages of [
    [{ role: "user", content: "a" }, asst, { role: "user", content: "b" }],
    [{ role: "user", content: "a" }, tool("call_1")],
    [{ role: "user", content: "a" }, asst, { role: "user", content: "b" }, tool("call_1")],
    [{ role: "user", content: "a" }, asst, tool("call_2")],
  ]) {
    const r = await post(mock, { model: "m", messages }, {}, path);
    assert.equal(r.status, 400, JSON.stringify(messages));
    assert.equal(JSON.parse(r.text).error.type, "invalid_request_error");
  }
  assert.equal((await post(mock, { model: "m", messages: [{ role: "user", content: "a" }, asst, tool("call_1")] }, {}, path)).status, 200);
});

test("responses mock: streams items with resp_/msg_/fc_/call_ ids; missing outputs, orphan outputs and wrong item ids are 400s", async (t) => {
  const mock = await startResponsesMock({ replies: [{ text: "hi", calls: [{ name: "f", input: { a: 1 } }] }] });
  t.after(() => mock.close());
  const path = "/v1/responses";
  const ok = await post(mock, { model: "m", stream: true, input: [{ role: "user", content: [{ type: "input_text", text: "a" }] }] }, {}, path);
  assert.equal(ok.status, 200);
  const ev = events(ok.text);
  assert.equal(ev[0].event, "response.created");
  assert.match(ev[0].data.response.id, /^resp_/);
  const items = ev.filter((e) => e.event === "response.output_item.done").map((e) => e.data.item);
  assert.match(items[0].id, /^msg_/);
  assert.match(items[1].id, /^fc_/);
  assert.match(items[1].call_id, /^call_/);
  assert.equal(ev.at(-1).event, "response.completed");
  const fc = { type: "function_call", id: "fc_1", call_id: "call_1", name: "f", arguments: "{}" };
  const out = (id) => ({ type: "function_call_output", call_id: id, output: "r" });
  const user = { role: "user", content: [{ type: "input_text", text: "b" }] };
  for (const input of [[user, fc, user], [user, out("call_1")], [user, fc, user, out("call_1")], [user, { ...fc, id: "call_1" }, out("call_1")], [user, fc, out("call_2")]]) {
    const r = await post(mock, { model: "m", input }, {}, path);
    assert.equal(r.status, 400, JSON.stringify(input));
    assert.equal(JSON.parse(r.text).error.type, "invalid_request_error");
  }
  assert.equal((await post(mock, { model: "m", input: [user, fc, out("call_1")] }, {}, path)).status, 200);
});
