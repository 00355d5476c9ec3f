// Local mock servers of the model APIs pi's own providers speak (127.0.0.1 only, no key, no network), for
// e2e tests "on the wire": pi's real provider code builds, sends and parses the HTTP requests.
//
//   const mock = await startAnthropicMock({ replies: [{ calls: [{ name: "bulk_read", input: { chars: 10 } }] }, { text: "done" }] });
//   // point a pi model at it: { api: "anthropic-messages", baseUrl: mock.url, ... }
//   ... run pi ...
//   mock.requests   // every request, in arrival order (see "Request records")
//   mock.violations // every broken API rule, [] when the client behaved
//   await mock.close();
//
// Options (every start* function):
//   replies   scripted replies, taken in order, one per request. A reply is a spec or a function
//             `(record, mock) => spec` called when the request arrives (record: see below). `mock.replies` is
//             the same array: tests may push to it later. An exhausted script answers "(script exhausted)"
//             and counts it in `mock.exhausted`. `replies` may also be one function `(record, mock) => spec`
//             asked for every request (a router over several scripts).
//   threads   (Anthropic only; default true) serve message threads: `thread: {type:"create"}` /
//             `{type:"continue", previous_message_id}` (pi ≥1.5.1, beta `message-threads-2026-08-12`).
//   onRequest `(record, mock) => void`, called before the reply is chosen.
//   scale     (Anthropic only) `(record) => number`: the prompt's token counts (cache read, cache write) times this
//             factor, rounded — a model whose tokenizer counts the same text differently (default 1: chars/4).
//
// A reply spec: { text?: string, calls?: [{ name, input, id? }], stop?: string (the API's own stop reason;
//   default: tool use when there are calls, else end of turn), usage?: { input?, output?, cacheRead?, cacheWrite? },
//   error?: { status?, type?, message?, code?, retry? } (answered as the API's error response instead of a reply:
//   a fault; with `x-should-retry: false` unless `retry`, so the SDK does not retry it itself),
//   cut?: true (the stream stops after the first content event and the socket is destroyed: a fault) }.
//   Ids the mock mints have the API's formats: Anthropic `msg_01…`/`toolu_01…`, Chat Completions `chatcmpl-…`/
//   `call_…`, Responses `resp_…`/`fc_…` items with `call_…` call ids.
//
// Request records (`mock.requests[i]`): { index, api, path, headers, body (as sent), thread ("create" |
//   "continue" | null), full ({ system, tools, messages } in the API's own shapes — for a thread continuation the
//   server-side history it extends, reconstructed), violations (strings), status (HTTP status answered), reply
//   ({ id, content } as streamed, null on an error), usage (the usage reported) }.
//
// Rules enforced (a violation is recorded on the request and in `mock.violations`, and answered with the API's
// 400 error shape, so pi sees what the real API would do):
//   - Anthropic: the first message is a user message; roles are user/assistant; every tool_use of an assistant
//     message is answered by a tool_result in the very next message, which must be a user message with the
//     tool_result blocks first; no tool_result without a tool_use in the message before; tool_use ids unique and
//     `^[a-zA-Z0-9_-]+$`; a continuation names a reply of this server not continued before and carries no
//     system/tools (pi drops them) — unknown/used replies get the API's `thread_not_found` /
//     `thread_already_continued` error code, which pi answers with a fresh `create`.
//   - Chat Completions (`chatViolations`): roles system/developer/user/assistant/tool; an assistant message with
//     tool_calls is followed by one tool message per call id before any other message; no tool message that does
//     not answer a call of the assistant message right before its run; call ids non-empty and unique.
//   - Responses (`responsesViolations`): a run of function_call items is followed by one function_call_output
//     per call_id before any other item (stricter than the API, which only requires the output to exist: the
//     order pi's providers must keep anyway); no output without its call; call_ids unique; item ids begin with
//     `fc` (function calls) and `msg` (messages) as the API requires; no previous_response_id (pi sends
//     store: false).
//
// Prompt caching is simulated from the bytes: each request's canonical prefix (system, tools, messages without
// cache_control) is stored; a later request whose canonical form starts with a stored prefix reads that many
// tokens from the cache (chars/4) — plain and thread requests share entries by content. `usage` of a reply
// overrides the numbers.
import { createServer } from "node:http";
import { createHash, randomBytes } from "node:crypto";

const B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** `n` random base-62 characters (the alphabet of Anthropic's ids). */
function base62(n) {
  const bytes = randomBytes(n);
  let s = "";
  for (let i = 0; i < n; i++) s += B62[bytes[i] % 62];
  return s;
}
/** A hex-ish id tail as OpenAI mints them. */
const hex = (n) => randomBytes(Math.ceil(n / 2)).toString("hex").slice(0, n);

export const ids = {
  anthropicMessage: () => `msg_01${base62(22)}`,
  anthropicToolUse: () => `toolu_01${base62(22)}`,
  chatCompletion: () => `chatcmpl-${base62(29)}`,
  openaiCall: () => `call_${base62(24)}`,
  responsesResponse: () => `resp_${hex(48)}`,
  responsesMessage: () => `msg_${hex(48)}`,
  responsesFunctionCall: () => `fc_${hex(48)}`,
};

const tokens = (chars) => Math.ceil(chars / 4);

/** Strips `cache_control` keys (they do not change what a prompt is). */
function canonical(value) {
  return JSON.stringify(value, (k, v) => (k === "cache_control" ? undefined : v));
}

/**
 * The shared server: reads JSON bodies, records, checks (`check(record)` → violations), and answers through
 * `respond(res, record, spec)` or the API's error shape `errorBody(status, type, message, code)`.
 */
async function startServer({ api, replies = [], onRequest, route, check, respond, errorBody }) {
  const mock = {
    api,
    replies,
    requests: [],
    violations: [],
    exhausted: 0,
    cache: new Set(),
    url: "",
    port: 0,
    close: null,
  };
  const sockets = new Set();
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const path = req.url;
    if (req.method !== "POST" || !route(path)) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify(errorBody(404, "not_found_error", `no route ${req.method} ${path}`)));
      return;
    }
    let body;
    try {
      body = JSON.parse(raw);
    } catch {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify(errorBody(400, "invalid_request_error", "body is not JSON")));
      return;
    }
    const record = { index: mock.requests.length, api, path, headers: req.headers, body, thread: null, full: null, violations: [], status: 200, reply: null, usage: null };
    mock.requests.push(record);
    let failure;
    try {
      failure = check(record, mock);
    } catch (e) {
      failure = { status: 400, type: "invalid_request_error", message: `malformed request: ${e.message}` };
      record.violations.push(failure.message);
    }
    for (const v of record.violations) mock.violations.push(`request ${record.index}: ${v}`);
    if (!failure && record.violations.length) failure = { status: 400, type: "invalid_request_error", message: record.violations[0] };
    onRequest?.(record, mock);
    if (failure) {
      record.status = failure.status;
      res.writeHead(failure.status, { "content-type": "application/json", "request-id": `req_${base62(24)}` });
      res.end(JSON.stringify(errorBody(failure.status, failure.type, failure.message, failure.code)));
      return;
    }
    let spec = typeof mock.replies === "function" ? mock.replies(record, mock) : mock.replies.shift();
    if (typeof spec === "function") spec = spec(record, mock);
    if (spec === undefined) {
      mock.exhausted++;
      spec = { text: "(script exhausted)" };
    }
    if (spec.error) {
      const e = spec.error;
      record.status = e.status ?? 500;
      // `x-should-retry: false` (honoured by the Anthropic and OpenAI SDKs, sent by the real APIs at times): the
      // fault reaches pi at once instead of after the SDK's own backoff retries; `retry: true` leaves it out.
      res.writeHead(record.status, { "content-type": "application/json", ...(e.retry ? {} : { "x-should-retry": "false" }) });
      res.end(JSON.stringify(errorBody(record.status, e.type ?? "api_error", e.message ?? "scripted fault", e.code)));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    await respond(res, record, spec, mock);
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  mock.port = server.address().port;
  mock.close = () =>
    new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return mock;
}

/**
 * Cache accounting for a request whose canonical prompt is `parts` (strings, in prompt order). Each prefix is
 * kept as its length and SHA-256 (long runs send hundreds of requests of hundreds of kB: their prefixes as
 * strings would not fit in memory).
 */
function cacheUsage(mock, parts, override = {}, scale = 1) {
  const hash = createHash("sha256");
  let length = 0;
  let read = 0;
  const prefixes = [];
  for (const p of parts) {
    hash.update(p);
    length += p.length;
    const key = `${length}:${hash.copy().digest("base64")}`;
    prefixes.push(key);
    if (mock.cache.has(key)) read = length;
  }
  for (const p of prefixes) mock.cache.add(p);
  const total = length;
  const cacheRead = override.cacheRead ?? Math.round(tokens(read) * scale);
  const cacheWrite = override.cacheWrite ?? Math.round(tokens(total - read) * scale);
  return { input: override.input ?? 0, cacheRead, cacheWrite };
}

function sse(res, event, data) {
  res.write(`${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
}

/** Splits a string into up to three pieces (a streamed text or JSON arrives in deltas). */
function pieces(s) {
  if (s.length < 3) return [s];
  const a = Math.floor(s.length / 3), b = Math.floor((2 * s.length) / 3);
  return [s.slice(0, a), s.slice(a, b), s.slice(b)];
}

const tick = () => new Promise((r) => setImmediate(r));

// ───────────────────────────── Anthropic Messages ─────────────────────────────

const TOOL_ID = /^[a-zA-Z0-9_-]+$/;

/** Content blocks of an Anthropic message (a string is one text block). */
const blocksOf = (m) => (typeof m.content === "string" ? [{ type: "text", text: m.content }] : Array.isArray(m.content) ? m.content : []);

/** The Anthropic Messages rules over a whole conversation; returns violation strings. */
export function anthropicViolations(messages) {
  const out = [];
  if (!Array.isArray(messages) || messages.length === 0) return ["messages: at least one message is required"];
  if (messages[0].role !== "user") out.push(`messages.0: the first message must use the "user" role, got "${messages[0].role}"`);
  const seenIds = new Set();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m.role !== "user" && m.role !== "assistant") out.push(`messages.${i}: unexpected role "${m.role}"`);
    const blocks = blocksOf(m);
    const results = blocks.filter((b) => b.type === "tool_result");
    if (m.role === "assistant" && results.length) out.push(`messages.${i}: tool_result blocks are only allowed in user messages`);
    if (m.role === "user") {
      if (blocks.some((b) => b.type === "tool_use")) out.push(`messages.${i}: tool_use blocks are only allowed in assistant messages`);
      const firstOther = blocks.findIndex((b) => b.type !== "tool_result");
      if (firstOther >= 0 && blocks.slice(firstOther).some((b) => b.type === "tool_result")) {
        out.push(`messages.${i}: tool_result blocks must come first in the content, before any other block`);
      }
      const prev = messages[i - 1];
      const prevCalls = prev?.role === "assistant" ? blocksOf(prev).filter((b) => b.type === "tool_use").map((b) => b.id) : [];
      for (const r of results) {
        if (!prevCalls.includes(r.tool_use_id)) {
          out.push(`messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${r.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`);
        }
      }
    }
    if (m.role === "assistant") {
      const calls = blocks.filter((b) => b.type === "tool_use");
      for (const c of calls) {
        if (typeof c.id !== "string" || !TOOL_ID.test(c.id)) out.push(`messages.${i}: tool_use id ${JSON.stringify(c.id)} does not match ^[a-zA-Z0-9_-]+$`);
        if (seenIds.has(c.id)) out.push(`messages.${i}: \`tool_use\` ids must be unique: ${c.id}`);
        seenIds.add(c.id);
      }
      if (calls.length) {
        const next = messages[i + 1];
        const answered = next?.role === "user" ? blocksOf(next).filter((b) => b.type === "tool_result").map((b) => b.tool_use_id) : [];
        const missing = calls.filter((c) => !answered.includes(c.id)).map((c) => c.id);
        // The last message may be an assistant message with calls only as a prefill; pi never sends that.
        if (missing.length) {
          out.push(`messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`);
        }
      }
    }
  }
  return out;
}

/**
 * Anthropic Messages API mock: POST /v1/messages (also `?beta=true`, as pi's SDK client sends it), streamed
 * as the API streams (message_start, content_block_start/delta/stop for text and tool_use with
 * input_json_delta, message_delta with stop_reason and usage, message_stop). Threads: the server keeps each
 * reply's whole conversation (system, tools, messages + the reply) by its message id; a continuation extends
 * it with the request's new messages, is checked as that whole conversation, and a reply may be continued once.
 */
export async function startAnthropicMock({ replies = [], threads = true, onRequest, scale } = {}) {
  const history = new Map(); // reply id → { system, tools, messages (incl. the reply), continued }
  const mock = await startServer({
    api: "anthropic",
    replies,
    onRequest,
    route: (path) => path === "/v1/messages" || path.startsWith("/v1/messages?"),
    errorBody: (status, type, message, code) => ({
      type: "error",
      error: { type, message, ...(code ? { details: { error_code: code } } : {}) },
      request_id: `req_${base62(24)}`,
    }),
    check(record) {
      const { body } = record;
      const thread = body.thread;
      if (thread !== undefined && !threads) {
        record.violations.push("thread: message threads are not enabled for this server");
      }
      if (thread?.type === "continue" && threads) {
        record.thread = "continue";
        const prev = history.get(thread.previous_message_id);
        if (!prev) return { status: 404, type: "not_found_error", message: `thread not found: ${thread.previous_message_id}`, code: "thread_not_found" };
        if (prev.continued) return { status: 409, type: "invalid_request_error", message: `thread already continued: ${thread.previous_message_id}`, code: "thread_already_continued" };
        if (body.system !== undefined || body.tools !== undefined) record.violations.push("thread continue: system and tools are fixed by the thread and must be omitted");
        prev.continued = true;
        record.full = { system: prev.system, tools: prev.tools, messages: [...prev.messages, ...(body.messages ?? [])] };
      } else {
        if (thread !== undefined) {
          if (thread?.type !== "create") record.violations.push(`thread: unknown type ${JSON.stringify(thread?.type)}`);
          record.thread = "create";
        }
        record.full = { system: body.system, tools: body.tools, messages: body.messages ?? [] };
      }
      if (record.thread) {
        const beta = String(record.headers["anthropic-beta"] ?? "");
        if (!beta.split(",").map((s) => s.trim()).includes("message-threads-2026-08-12")) record.violations.push("thread without the message-threads-2026-08-12 beta header");
      }
      if (typeof body.model !== "string" || !body.model) record.violations.push("model: Field required");
      if (typeof body.max_tokens !== "number" || body.max_tokens < 1) record.violations.push("max_tokens: must be a positive integer");
      record.violations.push(...anthropicViolations(record.full.messages));
      return undefined;
    },
    async respond(res, record, spec, mock) {
      const id = ids.anthropicMessage();
      const { full } = record;
      const parts = [canonical([full.system ?? null, full.tools ?? null]), ...full.messages.map((m) => canonical(m))];
      const u = cacheUsage(mock, parts, spec.usage, scale?.(record) ?? 1);
      const content = [];
      if (spec.text !== undefined) content.push({ type: "text", text: spec.text });
      for (const c of spec.calls ?? []) content.push({ type: "tool_use", id: c.id ?? ids.anthropicToolUse(), name: c.name, input: c.input ?? c.args ?? {} });
      const stop = spec.stop ?? (spec.calls?.length ? "tool_use" : "end_turn");
      const output = spec.usage?.output ?? Math.max(1, tokens(JSON.stringify(content).length));
      record.reply = { id, content };
      record.usage = { input_tokens: u.input, cache_read_input_tokens: u.cacheRead, cache_creation_input_tokens: u.cacheWrite, output_tokens: output };
      sse(res, "message_start", {
        type: "message_start",
        message: { id, type: "message", role: "assistant", content: [], model: record.body.model, stop_reason: null, stop_sequence: null, usage: { ...record.usage, output_tokens: 1 } },
      });
      sse(res, "ping", { type: "ping" });
      let index = 0;
      for (const block of content) {
        if (block.type === "text") {
          sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
          if (spec.cut) break;
          for (const p of pieces(block.text)) sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: p } });
        } else {
          sse(res, "content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
          if (spec.cut) break;
          for (const p of pieces(JSON.stringify(block.input))) sse(res, "content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: p } });
        }
        sse(res, "content_block_stop", { type: "content_block_stop", index });
        index++;
        await tick();
      }
      if (spec.cut) {
        record.reply = null;
        res.socket?.destroy();
        return;
      }
      sse(res, "message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: record.usage });
      sse(res, "message_stop", { type: "message_stop" });
      res.end();
      if (record.thread) {
        history.set(id, { system: full.system, tools: full.tools, messages: [...full.messages, { role: "assistant", content }], continued: false });
      }
    },
  });
  mock.url = `http://127.0.0.1:${mock.port}`;
  mock.threadHistory = history;
  return mock;
}

// ───────────────────────────── OpenAI (shared) ─────────────────────────────

/** OpenAI's error body. */
const openaiError = (_status, type, message, code) => ({ error: { message, type, param: null, code: code ?? null } });

/**
 * An OpenAI API mock at `path` (pi's base URL: `${url}/v1`): `full(body)` is what the record keeps as the
 * request, `rules(record)` its violations besides a missing model.
 */
async function startOpenAIServer({ api, path, replies, onRequest, full, rules, respond }) {
  const mock = await startServer({
    api,
    replies,
    onRequest,
    route: (p) => p === path,
    errorBody: openaiError,
    check(record) {
      const { body } = record;
      record.full = full(body);
      if (typeof body.model !== "string" || !body.model) record.violations.push("model: you must provide a model parameter");
      record.violations.push(...rules(record));
      return undefined;
    },
    respond,
  });
  mock.url = `http://127.0.0.1:${mock.port}`;
  return mock;
}

/** The reply a spec asks for, with OpenAI ids: [{ type: "text", text } | { type: "call", callId, itemId, name, arguments }]. */
function openaiContent(spec) {
  const out = [];
  if (spec.text !== undefined) out.push({ type: "text", text: spec.text });
  for (const c of spec.calls ?? []) {
    out.push({ type: "call", callId: c.id ?? ids.openaiCall(), itemId: ids.responsesFunctionCall(), name: c.name, arguments: JSON.stringify(c.input ?? c.args ?? {}) });
  }
  return out;
}

// ───────────────────────────── OpenAI Chat Completions ─────────────────────────────

/** The Chat Completions rules over `messages`; returns violation strings. */
export function chatViolations(messages) {
  const out = [];
  if (!Array.isArray(messages) || messages.length === 0) return ["messages: must be a non-empty array"];
  const roles = new Set(["system", "developer", "user", "assistant", "tool"]);
  const seen = new Set();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!roles.has(m.role)) out.push(`messages[${i}].role: invalid value ${JSON.stringify(m.role)}`);
    if (m.role === "tool") {
      // Answered calls are consumed below; a tool message reaching here answers nothing before it.
      out.push(`messages[${i}]: messages with role 'tool' must be a response to a preceeding message with 'tool_calls' (tool_call_id ${m.tool_call_id}).`);
      continue;
    }
    if (m.role !== "assistant" || !Array.isArray(m.tool_calls) || m.tool_calls.length === 0) continue;
    const calls = m.tool_calls.map((c) => c.id);
    for (const id of calls) {
      if (typeof id !== "string" || id === "") out.push(`messages[${i}].tool_calls: id must be a non-empty string`);
      if (seen.has(id)) out.push(`messages[${i}].tool_calls: duplicate tool_call id ${id}`);
      seen.add(id);
    }
    const answered = new Set();
    let j = i + 1;
    for (; j < messages.length && messages[j].role === "tool"; j++) {
      const id = messages[j].tool_call_id;
      if (!calls.includes(id) || answered.has(id)) out.push(`messages[${j}]: messages with role 'tool' must be a response to a preceeding message with 'tool_calls' (tool_call_id ${id}).`);
      answered.add(id);
    }
    const missing = calls.filter((id) => !answered.has(id));
    if (missing.length) out.push(`messages[${i}]: An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(", ")}`);
    i = j - 1;
  }
  return out;
}

/**
 * OpenAI Chat Completions mock: POST /v1/chat/completions (pi's base URL: `${url}/v1`), streamed as the API
 * streams (`chat.completion.chunk`s: role, content and tool_calls deltas, a finish_reason chunk, a usage chunk
 * with `choices: []` when `stream_options.include_usage`, `[DONE]`). Records `full = { tools, messages }`.
 */
export async function startChatCompletionsMock({ replies = [], onRequest } = {}) {
  return startOpenAIServer({
    api: "openai-completions",
    path: "/v1/chat/completions",
    replies,
    onRequest,
    full: (body) => ({ tools: body.tools, messages: body.messages ?? [] }),
    rules: (record) => chatViolations(record.full.messages),
    async respond(res, record, spec, mock) {
      const id = ids.chatCompletion();
      const { full, body } = record;
      const u = cacheUsage(mock, [canonical(full.tools ?? null), ...full.messages.map((m) => canonical(m))], spec.usage);
      const content = openaiContent(spec);
      record.reply = { id, content };
      const chunk = (delta, finish = null) => ({ id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] });
      sse(res, null, chunk({ role: "assistant", content: "" }));
      let toolIndex = 0;
      for (const c of content) {
        if (c.type === "text") {
          if (spec.cut) break;
          for (const p of pieces(c.text)) sse(res, null, chunk({ content: p }));
        } else {
          sse(res, null, chunk({ tool_calls: [{ index: toolIndex, id: c.callId, type: "function", function: { name: c.name, arguments: "" } }] }));
          if (spec.cut) break;
          for (const p of pieces(c.arguments)) sse(res, null, chunk({ tool_calls: [{ index: toolIndex, function: { arguments: p } }] }));
          toolIndex++;
        }
        await tick();
      }
      if (spec.cut) {
        record.reply = null;
        res.socket?.destroy();
        return;
      }
      const finish = spec.stop ?? (spec.calls?.length ? "tool_calls" : "stop");
      sse(res, null, chunk({}, finish));
      const prompt = u.input + u.cacheRead + u.cacheWrite;
      const completion = spec.usage?.output ?? Math.max(1, tokens(JSON.stringify(content).length));
      record.usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: u.cacheRead } };
      if (body.stream_options?.include_usage) sse(res, null, { id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: body.model, choices: [], usage: record.usage });
      sse(res, null, "[DONE]");
      res.end();
    },
  });
}

// ───────────────────────────── OpenAI Responses ─────────────────────────────

/** The Responses rules over `input` items; returns violation strings. */
export function responsesViolations(input) {
  const out = [];
  if (typeof input === "string") return out;
  if (!Array.isArray(input) || input.length === 0) return ["input: must be a string or a non-empty array"];
  const kind = (item) => item.type ?? (item.role ? "message" : "unknown");
  const seen = new Set();
  for (let i = 0; i < input.length; i++) {
    const item = input[i];
    const k = kind(item);
    if (k === "message" && item.id !== undefined && !String(item.id).startsWith("msg")) out.push(`Invalid 'input[${i}].id': '${item.id}'. Expected an ID that begins with 'msg'.`);
    if (k === "function_call_output") {
      out.push(`input[${i}]: No tool call found for function call output with call_id ${item.call_id}.`);
      continue;
    }
    if (k !== "function_call") continue;
    // A run of calls (reasoning items may sit between them), then each call's output, before anything else.
    const calls = [];
    let j = i;
    for (; j < input.length && (kind(input[j]) === "function_call" || kind(input[j]) === "reasoning"); j++) {
      const c = input[j];
      if (kind(c) !== "function_call") continue;
      if (c.id !== undefined && !String(c.id).startsWith("fc")) out.push(`Invalid 'input[${j}].id': '${c.id}'. Expected an ID that begins with 'fc'.`);
      if (typeof c.call_id !== "string" || c.call_id === "") out.push(`input[${j}].call_id: must be a non-empty string`);
      if (seen.has(c.call_id)) out.push(`input[${j}]: duplicate call_id ${c.call_id}`);
      seen.add(c.call_id);
      calls.push(c.call_id);
    }
    const answered = new Set();
    for (; j < input.length && kind(input[j]) === "function_call_output"; j++) {
      const id = input[j].call_id;
      if (!calls.includes(id) || answered.has(id)) out.push(`input[${j}]: No tool call found for function call output with call_id ${id}.`);
      answered.add(id);
    }
    for (const id of calls) if (!answered.has(id)) out.push(`input[${i}]: No tool output found for function call ${id}.`);
    i = j - 1;
  }
  return out;
}

/**
 * OpenAI Responses mock: POST /v1/responses (pi's base URL: `${url}/v1`), streamed as the API streams
 * (response.created, response.in_progress, per output item: output_item.added, content_part/output_text or
 * function_call_arguments deltas and done, output_item.done; response.completed with usage). Records
 * `full = { instructions, tools, input, promptCacheKey }`. Items the mock mints: `resp_…`, `msg_…`, `fc_…`
 * with `call_…` call ids.
 */
export async function startResponsesMock({ replies = [], onRequest } = {}) {
  return startOpenAIServer({
    api: "openai-responses",
    path: "/v1/responses",
    replies,
    onRequest,
    full: (body) => ({ instructions: body.instructions, tools: body.tools, input: body.input ?? [], promptCacheKey: body.prompt_cache_key }),
    rules: (record) => [
      ...(record.body.previous_response_id !== undefined ? ["previous_response_id: this mock stores no responses (pi sends store: false)"] : []),
      ...responsesViolations(record.full.input),
    ],
    async respond(res, record, spec, mock) {
      const id = ids.responsesResponse();
      const { full, body } = record;
      const input = typeof full.input === "string" ? [full.input] : full.input;
      const u = cacheUsage(mock, [canonical([full.instructions ?? null, full.tools ?? null, full.promptCacheKey ?? null]), ...input.map((m) => canonical(m))], spec.usage);
      const content = openaiContent(spec);
      record.reply = { id, content };
      const base = { id, object: "response", created_at: Math.floor(Date.now() / 1000), model: body.model };
      let seq = 0;
      const send = (type, data) => sse(res, type, { type, sequence_number: seq++, ...data });
      send("response.created", { response: { ...base, status: "in_progress", output: [] } });
      send("response.in_progress", { response: { ...base, status: "in_progress", output: [] } });
      const output = [];
      for (const [index, c] of content.entries()) {
        if (c.type === "text") {
          const item = { type: "message", id: ids.responsesMessage(), status: "in_progress", role: "assistant", content: [] };
          send("response.output_item.added", { output_index: index, item });
          send("response.content_part.added", { item_id: item.id, output_index: index, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
          if (spec.cut) break;
          for (const p of pieces(c.text)) send("response.output_text.delta", { item_id: item.id, output_index: index, content_index: 0, delta: p });
          send("response.output_text.done", { item_id: item.id, output_index: index, content_index: 0, text: c.text });
          const part = { type: "output_text", text: c.text, annotations: [] };
          send("response.content_part.done", { item_id: item.id, output_index: index, content_index: 0, part });
          const done = { ...item, status: "completed", content: [part] };
          send("response.output_item.done", { output_index: index, item: done });
          output.push(done);
        } else {
          const item = { type: "function_call", id: c.itemId, call_id: c.callId, name: c.name, arguments: "", status: "in_progress" };
          send("response.output_item.added", { output_index: index, item });
          if (spec.cut) break;
          for (const p of pieces(c.arguments)) send("response.function_call_arguments.delta", { item_id: item.id, output_index: index, delta: p });
          send("response.function_call_arguments.done", { item_id: item.id, output_index: index, arguments: c.arguments });
          const done = { ...item, arguments: c.arguments, status: "completed" };
          send("response.output_item.done", { output_index: index, item: done });
          output.push(done);
        }
        await tick();
      }
      if (spec.cut) {
        record.reply = null;
        res.socket?.destroy();
        return;
      }
      const inputTokens = u.input + u.cacheRead + u.cacheWrite;
      const outputTokens = spec.usage?.output ?? Math.max(1, tokens(JSON.stringify(content).length));
      record.usage = { input_tokens: inputTokens, input_tokens_details: { cached_tokens: u.cacheRead }, output_tokens: outputTokens, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: inputTokens + outputTokens };
      const status = spec.stop ?? "completed";
      send(status === "incomplete" ? "response.incomplete" : "response.completed", { response: { ...base, status, output, usage: record.usage, ...(status === "incomplete" ? { incomplete_details: { reason: "max_output_tokens" } } : {}) } });
      res.end();
    },
  });
}
