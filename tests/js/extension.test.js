// Unit tests of the navigate_tree shim (pkg/extension.js, pkg/host.js, pkg/summarize.js) against a fake
// pi host, for what a real host cannot easily be made to do: failing label writes, a throwing
// branchWithSummary, a trapping wasm index, missing auth, hosts with or without prepareNextTurn.
// The real-host proof is tests/e2e. Run `npm run build` first.
//
// host.js imports "@earendil-works/pi-coding-agent"; a module hook points that name at the fake below.
import { test } from "node:test";
import assert from "node:assert/strict";
import { register } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { FAKE_TUI_URL } from "./fake-pi.js";

const FAKE_PI = `
export class AgentSession {
  constructor(sessionManager, agent) { this.sessionManager = sessionManager; this.agent = agent; this.prompts = 0; }
  async prompt(text) { this.prompts++; return text; }
}
export const calls = [];
export async function generateBranchSummary(entries, options) {
  calls.push({ entries, options });
  return { summary: "## Goal\\nfake summary", readFiles: [], modifiedFiles: [] };
}
`;
const FAKE_URL = `data:text/javascript,${encodeURIComponent(FAKE_PI)}`;
const HOOKS = `
export async function resolve(specifier, context, next) {
  if (specifier === "@earendil-works/pi-tui") return { url: ${JSON.stringify(FAKE_TUI_URL)}, shortCircuit: true };
  if (specifier === "@earendil-works/pi-coding-agent") return { url: ${JSON.stringify(FAKE_URL)}, shortCircuit: true };
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(HOOKS)}`);

const pkgDir = process.env.PTN_PKG_DIR ?? fileURLToPath(new URL("../../pkg/", import.meta.url));
const load = (name) => import(pathToFileURL(join(pkgDir, name)).href);
const fakePi = await import(FAKE_URL);
const extension = await load("extension.js");
const hostModule = await load("host.js");
const core = await load("index-node.js");

const REGISTRY = Symbol.for("pi-tree-navigator.registry");
const FOCUS = "User asked: 'build the parser'. Done: read data. Left: tests.";

// ---------------------------------------------------------------------------------------------------
// A small SessionManager with pi's append-only semantics.

let clock = Date.parse("2026-01-01T00:00:00Z");
let nextId = 0;

class FakeSessionManager {
  constructor() {
    this.entries = [];
    this.byId = new Map();
    this.leaf = null;
    this.labels = new Map();
    this.fail = {};
  }
  #append(entry) {
    const full = { ...entry, id: `e${String(++nextId).padStart(7, "0")}`, parentId: this.leaf, timestamp: new Date(clock++).toISOString() };
    this.entries.push(full);
    this.byId.set(full.id, full);
    this.leaf = full.id;
    return full.id;
  }
  getEntries() { return this.entries.slice(); }
  branch(id) {
    if (!this.byId.has(id)) throw new Error(`Entry ${id} not found`);
    this.leaf = id;
  }
  resetLeaf() { this.leaf = null; }
  getLeafId() { return this.leaf; }
  getEntry(id) { return this.byId.get(id); }
  getLabel(id) { return this.labels.get(id); }
  getBranch() {
    const out = [];
    for (let id = this.leaf; id; id = this.byId.get(id).parentId) out.unshift(this.byId.get(id));
    return out;
  }
  appendMessage(message) {
    if (this.fail.appendMessage) throw new Error("disk full");
    return this.#append({ type: "message", message });
  }
  appendLabelChange(targetId, label) {
    if (this.fail.label?.()) throw new Error("label write failed");
    if (!this.byId.has(targetId)) throw new Error(`Entry ${targetId} not found`);
    if (label) this.labels.set(targetId, label);
    else this.labels.delete(targetId);
    return this.#append({ type: "label", targetId, label });
  }
  branchWithSummary(from, summary, details) {
    if (this.fail.branchBefore) throw new Error("branch refused");
    this.leaf = from;
    if (this.fail.branchAfterMove) throw new Error("write failed after moving");
    return this.#append({ type: "branch_summary", fromId: from, summary, details });
  }
  buildSessionContext() {
    const messages = [];
    for (const e of this.getBranch()) {
      if (e.type === "message") messages.push(e.message);
      if (e.type === "branch_summary") messages.push({ role: "branchSummary", summary: e.summary, fromId: e.fromId, timestamp: 0 });
    }
    return { messages: [{ role: "system", content: "sys" }, ...messages], thinkingLevel: "off", model: null };
  }
}

const MODEL = { api: "faux", provider: "faux", id: "faux-1", contextWindow: 100_000 };

function usage(total) {
  return { input: total, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: total + 1, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
}
function assistant(calls, total = 100) {
  return {
    role: "assistant",
    content: calls.map(([id, name, args = {}]) => ({ type: "toolCall", id, name, arguments: args })),
    api: "faux", provider: "faux", model: "faux-1", usage: usage(total), stopReason: "toolUse", timestamp: clock,
  };
}
function toolResultMessage(id, text) {
  return { role: "toolResult", toolCallId: id, toolName: "x", content: [{ type: "text", text }], isError: false, timestamp: clock };
}

/** A fake ExtensionAPI + session manager + tool context, with the extension loaded. */
function setup({ opts, sm = new FakeSessionManager(), auth = { ok: true, apiKey: "k" }, model = MODEL, navigatorCore = core } = {}) {
  const tools = new Map();
  const handlers = new Map();
  const labelCalls = [];
  const commands = new Map();
  const pi = {
    registerTool: (def) => tools.set(def.name, def),
    registerCommand: (name, def) => commands.set(name, def),
    on: (event, handler) => handlers.set(event, [...(handlers.get(event) ?? []), handler]),
    setLabel: (id, label) => {
      labelCalls.push([id, label]);
      sm.appendLabelChange(id, label);
    },
  };
  extension.createNavigator({ core: navigatorCore, pi, opts, hostOptions: { pkg: fakePi } });
  const ctx = {
    sessionManager: sm,
    model,
    modelRegistry: { getApiKeyAndHeaders: async () => (typeof auth === "function" ? auth() : auth) },
  };
  const emit = async (event, payload = {}) => {
    let out;
    for (const h of handlers.get(event) ?? []) out = (await h({ type: event, ...payload }, ctx)) ?? out;
    return out;
  };
  /** The model calls navigate_tree: append its assistant message, run the tool, append the result. */
  const call = async (id, params, { others = [], total = 100 } = {}) => {
    await emit("context", { messages: [] });
    sm.appendMessage(assistant([[id, "navigate_tree", params], ...others], total));
    const tool = tools.get("navigate_tree");
    let result;
    let thrown;
    try {
      result = await tool.execute(id, params, new AbortController().signal, undefined, ctx);
    } catch (e) {
      thrown = e;
    }
    const hook = thrown ? undefined : await emit("tool_result", { toolCallId: id, toolName: "navigate_tree", content: result.content, isError: false });
    const isError = thrown ? true : (hook?.isError ?? false);
    const text = thrown ? thrown.message : result.content[0].text;
    sm.appendMessage({ ...toolResultMessage(id, text), isError });
    return { result, thrown, isError, text };
  };
  /** Some tool work of `chars` characters (another tool's call and result). */
  const work = (id, chars) => {
    sm.appendMessage(assistant([[id, "read"]], 200));
    sm.appendMessage(toolResultMessage(id, "x".repeat(chars)));
  };
  return { sm, pi, tools, commands, handlers, ctx, emit, call, work, labelCalls };
}

function userTurn(sm, text = "build the parser") {
  sm.appendMessage({ role: "user", content: text, timestamp: clock });
}

/** anchor 'start' → 40k chars of work → ready to rewind. */
async function worked(env) {
  userTurn(env.sm);
  const a = await env.call("c1", { action: "anchor", name: "start" });
  assert.equal(a.isError, false, a.text);
  env.work("w1", 40_000);
}

const rewindParams = (extra = {}) => ({ action: "rewind", labelStart: "start", labelEnd: "done", summaryFocus: FOCUS, ...extra });

// ---------------------------------------------------------------------------------------------------

test("registers one tool from the core's definition, sequential, flat object schema, under 400 tokens", () => {
  const { tools } = setup();
  const def = tools.get("navigate_tree");
  assert.equal(def.executionMode, "sequential");
  assert.equal(def.parameters.type, "object");
  assert.deepEqual(def.parameters.required, ["action"]);
  assert.deepEqual(Object.keys(def.parameters.properties), ["action", "name", "labelStart", "labelEnd", "summaryFocus", "query", "page"]);
  assert.ok(def.promptSnippet.length > 0 && def.promptSnippet.length < 120);
  const prose = def.description + Object.values(def.parameters.properties).map((p) => p.description).join("");
  assert.ok(Math.ceil(prose.length / 4) < 400, `${Math.ceil(prose.length / 4)} tokens`);
  assert.equal(typeof def.execute, "function");
});

test("anchor labels the entry before its call; re-anchoring sets the new label, then clears the old", async () => {
  const env = setup();
  userTurn(env.sm);
  const first = await env.call("c1", { action: "anchor", name: "start" });
  const userId = env.sm.entries[0].id;
  assert.deepEqual(env.labelCalls, [[userId, "anchor:start"]]);
  assert.match(first.text, /^\[anchor 'start'\] set at /);
  env.work("w1", 100);
  const before = env.sm.getLeafId();
  await env.call("c2", { action: "anchor", name: "start" });
  assert.deepEqual(env.labelCalls.slice(1), [[before, "anchor:start"], [userId, undefined]]);
  assert.equal(env.sm.getLabel(userId), undefined);
});

test("refusals are failed calls: returned with isError and marked through the tool_result hook", async () => {
  const env = setup();
  userTurn(env.sm);
  const r = await env.call("c1", { action: "anchor", name: "Not Kebab" });
  assert.equal(r.isError, true);
  assert.equal(r.result.isError, true);
  assert.match(r.text, /kebab-case/);
  // Only the refused call is marked, and only once.
  assert.equal(await env.emit("tool_result", { toolCallId: "c1" }), undefined);
  const ok = await env.call("c2", { action: "list" });
  assert.equal(ok.isError, false);
});

test("rewind: summarizer gets pi's entries and the whole focus; labels, then the synthetic call, then the result", async () => {
  const seen = [];
  const env = setup({
    opts: {
      summarize: async (entries, options) => {
        seen.push({ entries, options });
        return { summary: "## Goal\nparser (SUMMARY)", readFiles: ["a.ts"], modifiedFiles: [] };
      },
    },
  });
  await worked(env);
  const target = env.sm.entries[0].id;
  const leafBefore = env.sm.getLeafId();
  const r = await env.call("c9", rewindParams());
  assert.equal(r.isError, false, r.text);
  assert.match(r.text, /^\[rewind 'start' → 'done'\] · context \d+\.\d% → \d+\.\d% of 100k/);

  assert.equal(seen.length, 1);
  assert.equal(seen[0].options.customInstructions, FOCUS);
  assert.ok(seen[0].options.signal instanceof AbortSignal);
  assert.equal(seen[0].options.apiKey, "k");
  const ids = seen[0].entries.map((e) => e.id);
  assert.ok(ids.includes(leafBefore));
  assert.equal(env.sm.getEntry(ids.at(-1)).message.content[0].id, "c9", "the in-flight assistant is the last collected entry");
  assert.ok(!ids.includes(target));

  // After the tree moved: summary ← label(done) ← synthetic(c9) ← result(c9).
  const branch = env.sm.getBranch();
  const types = branch.slice(1).map((e) => e.type + (e.message ? `:${e.message.role}` : ""));
  assert.deepEqual(types, ["branch_summary", "label", "message:assistant", "message:toolResult"]);
  const summary = branch[1];
  assert.equal(summary.parentId, target);
  assert.deepEqual(summary.details, { readFiles: ["a.ts"], modifiedFiles: [] });
  assert.equal(env.sm.getLabel(summary.id), "anchor:done");
  const synthetic = branch[3].message;
  assert.deepEqual(synthetic.content.map((c) => c.id), ["c9"]);
  assert.equal(synthetic.stopReason, "toolUse");
  assert.equal(synthetic.usage.totalTokens, r.result.details.contextAfter);
  assert.equal(branch[4].message.toolCallId, "c9");
});

test("rewind: the labelEnd collision on the new path is cleared after the new label is written", async () => {
  const env = setup();
  userTurn(env.sm);
  await env.call("c1", { action: "anchor", name: "done" });
  env.work("w1", 100);
  await env.call("c2", { action: "anchor", name: "start" });
  env.work("w2", 40_000);
  const labelsBefore = env.labelCalls.length;
  const r = await env.call("c3", rewindParams());
  assert.equal(r.isError, false, r.text);
  const summaryId = env.sm.entries.find((e) => e.type === "branch_summary").id;
  assert.deepEqual(env.labelCalls.slice(labelsBefore), [[summaryId, "anchor:done"], [env.sm.entries[0].id, undefined]]);
});

test("salvage: a failing label write still appends the synthetic call, then raises the error with its cause", async () => {
  const env = setup();
  await worked(env);
  env.sm.fail.label = () => true;
  const r = await env.call("c9", rewindParams());
  assert.ok(r.thrown, "the tool failed");
  assert.match(r.thrown.message, /summary was written, but writing the anchor labels failed: label write failed/);
  assert.equal(r.thrown.cause?.message, "label write failed");
  const branch = env.sm.getBranch();
  const synthetic = branch.at(-2).message;
  assert.deepEqual([synthetic.role, synthetic.content[0].id], ["assistant", "c9"]);
  assert.equal(branch.at(-1).message.toolCallId, "c9");
  assert.equal(branch.at(-3).type, "branch_summary");
});

test("salvage: branchWithSummary failing after it moved the leaf is undone: the result pairs with the call's own message", async () => {
  const env = setup();
  await worked(env);
  env.sm.fail.branchAfterMove = true;
  const r = await env.call("c9", rewindParams());
  assert.match(r.thrown.message, /rewind failed while writing the session \(write failed after moving\) and was undone/);
  const branch = env.sm.getBranch();
  assert.equal(branch.at(-2).message.content[0].id, "c9", "the original assistant message");
  assert.equal(branch.at(-2).message.usage.totalTokens, 101, "not a synthetic");
  assert.equal(branch.at(-1).message.toolCallId, "c9");
  assert.equal(env.sm.getBranch().length, env.sm.entries.length, "still one linear branch");
});

test("a branchWithSummary that refuses before moving changes nothing", async () => {
  const env = setup();
  await worked(env);
  env.sm.fail.branchBefore = true;
  const count = env.sm.entries.length;
  const r = await env.call("c9", rewindParams());
  assert.equal(r.thrown.message, "The rewind failed: moving the tree failed (branch refused). The session was not changed.");
  assert.equal(env.sm.entries.length, count + 2, "only the call and its result were appended");
  assert.equal(env.sm.entries.filter((e) => e.type === "branch_summary").length, 0);
});

test("summarizer failures are refusals and the tree does not move", async () => {
  for (const [outcome, expected] of [
    [async () => { throw new Error("network down"); }, /^Summarization failed: network down/],
    [async () => ({ aborted: true }), /^Summarization aborted\.$/],
    [async () => ({ error: "rate limited" }), /^Summarization failed: rate limited/],
    [async () => ({ summary: "  " }), /^Summarization failed: the summary is empty/],
  ]) {
    const env = setup({ opts: { summarize: outcome } });
    await worked(env);
    const r = await env.call("c9", rewindParams());
    assert.equal(r.isError, true);
    assert.match(r.text, expected);
    assert.equal(env.sm.entries.filter((e) => e.type === "branch_summary").length, 0);
    assert.equal(env.sm.getBranch().length, env.sm.entries.length);
  }
});

test("no model and failed auth are refused before summarizing", async () => {
  let summarized = 0;
  const opts = { summarize: async () => { summarized++; return { summary: "x" }; } };
  const noModel = setup({ opts, model: null });
  await worked(noModel);
  assert.match((await noModel.call("c9", rewindParams())).text, /No model is configured/);
  const noAuth = setup({ opts, auth: { ok: false, error: "No API key found for \"faux\"" } });
  await worked(noAuth);
  const r = await noAuth.call("c9", rewindParams());
  assert.equal(r.isError, true);
  assert.match(r.text, /credentials did not resolve \(No API key found for "faux"\)/);
  const throwing = setup({ opts, auth: () => { throw new Error("keychain locked"); } });
  await worked(throwing);
  assert.match((await throwing.call("c9", rewindParams())).text, /keychain locked/);
  assert.equal(summarized, 0);
});

test("the default summarizer is the host's generateBranchSummary, with the live agent's stream function", async () => {
  fakePi.calls.length = 0;
  const env = setup({ model: { ...MODEL, maxTokens: 32_000 } });
  const sent = [];
  const streamFunction = (model, context, options) => {
    sent.push({ model, context, options });
    return { result: async () => ({ role: "assistant", stopReason: "length", content: [{ type: "text", text: "cut sum" }] }) };
  };
  const session = new fakePi.AgentSession(env.sm, { state: { messages: [] }, streamFunction, prepareRequest: () => {} });
  await session.prompt("capture me");
  await worked(env);
  const r = await env.call("c9", rewindParams());
  assert.equal(r.isError, false, r.text);
  assert.equal(fakePi.calls.length, 1);
  assert.equal(fakePi.calls[0].options.customInstructions, FOCUS);
  // The summarizer gets the live agent's stream function, wrapped: the model's own output limit (over pi's cap)…
  const wrapped = fakePi.calls[0].options.streamFn;
  const reply = await (await wrapped(env.ctx.model, { messages: [] }, { maxTokens: 4096, apiKey: "k" })).result();
  assert.deepEqual(sent.map((s) => s.options), [{ maxTokens: 32_000, apiKey: "k" }]);
  assert.equal(sent[0].context.messages.length, 0);
  assert.equal(reply.stopReason, "length", "the reply passes through unchanged");
});

test("a cold summary cut at the output limit still rewinds, and says so", async () => {
  // pi ≥0.87 turns a reply that stopped for length into an error; the stream function saw the reply.
  const opts = {
    summarize: async (_entries, options) => {
      const reply = await (await options.streamFn({ maxTokens: 100 }, { messages: [] }, {})).result();
      return reply.stopReason === "length" ? { error: "Branch summarization failed: generation hit the token cap" } : { summary: "x" };
    },
  };
  const env = setup({ opts });
  const streamFunction = () => ({ result: async () => ({ role: "assistant", stopReason: "length", content: [{ type: "text", text: "## Goal\nhalf a summ" }] }) });
  const session = new fakePi.AgentSession(env.sm, { state: { messages: [] }, streamFunction, prepareRequest: () => {} });
  await session.prompt("capture me");
  await worked(env);
  const r = await env.call("c9", rewindParams());
  assert.equal(r.isError, false, r.text);
  assert.equal(r.result.details.summaryCut, true);
  assert.match(r.text, /The summary was cut off at the output limit/);
  const summary = env.sm.getEntries().find((e) => e.type === "branch_summary");
  assert.match(summary.summary, /^Summary of the work this rewind collapsed:\n\n## Goal\nhalf a summ\n\n\(This summary was cut off at the model's output limit\./);
});

test("prompt patch: one wrapper however often loaded, sessions captured, reversible", async () => {
  setup();
  const proto = fakePi.AgentSession.prototype;
  const wrapper = proto.prompt;
  setup();
  setup();
  assert.equal(proto.prompt, wrapper, "a reload replaced the wrapper");
  assert.equal(hostModule.promptWrapperDepth(fakePi.AgentSession), 1);
  const sm = new FakeSessionManager();
  const session = new fakePi.AgentSession(sm, { state: { messages: [] } });
  assert.equal(await session.prompt("hi"), "hi");
  assert.equal(globalThis[REGISTRY].sessions.get(sm), session);
  hostModule.unpatchPrompt(fakePi.AgentSession);
  assert.equal(hostModule.promptWrapperDepth(fakePi.AgentSession), 0);
  assert.equal(proto.prompt.name, "prompt");
  hostModule.patchPrompt(fakePi.AgentSession);
  assert.equal(hostModule.promptWrapperDepth(fakePi.AgentSession), 1);
});

test("prepareNextTurn is wired only where the loop honours it, composes with an earlier hook, and acts only after a rewind", async () => {
  const env = setup();
  const prior = async () => ({ thinkingLevel: "low" });
  const old = { state: { messages: [], systemPrompt: "S", tools: ["t"] }, prepareNextTurn: prior };
  const modern = { state: { messages: [] }, prepareNextTurn: undefined, prepareNextTurnWithContext: async () => undefined };
  const oldSession = new fakePi.AgentSession(env.sm, old);
  await oldSession.prompt("a");
  await oldSession.prompt("b");
  await new fakePi.AgentSession(new FakeSessionManager(), modern).prompt("c");
  assert.notEqual(old.prepareNextTurn, prior);
  assert.equal(modern.prepareNextTurn, undefined);
  assert.deepEqual(await old.prepareNextTurn(), { thinkingLevel: "low" }, "no rewind yet: the earlier hook's result passes through");
  await worked(env);
  await env.call("c9", rewindParams());
  const update = await old.prepareNextTurn();
  assert.equal(update.thinkingLevel, "low");
  assert.equal(update.context.systemPrompt, "S");
  assert.deepEqual(update.context.tools, ["t"]);
  assert.ok(update.context.messages.some((m) => m.role === "branchSummary"));
  // agent.state was refreshed from the session at rewind time.
  assert.ok(old.state.messages.some((m) => m.role === "branchSummary"));
});

test("context hook: hands the session's context (without system messages) to requests after a rewind, until the run ends", async () => {
  const env = setup();
  const agent = { state: { messages: [] } };
  await new fakePi.AgentSession(env.sm, agent).prompt("go");
  await worked(env);
  assert.equal(await env.emit("context", { messages: [] }), undefined, "nothing to replace before a rewind");
  await env.call("c9", rewindParams());
  const out = await env.emit("context", { messages: [] });
  assert.ok(out.messages.some((m) => m.role === "branchSummary"));
  assert.ok(out.messages.every((m) => m.role !== "system"));
  await env.emit("agent_end", { messages: [] });
  assert.equal(await env.emit("context", { messages: [] }), undefined, "agent.state was refreshed, so later runs need nothing");
});

test("context hook: without a captured session the replacement stays on after the run", async () => {
  const env = setup();
  await worked(env);
  await env.call("c9", rewindParams());
  await env.emit("agent_end", { messages: [] });
  const out = await env.emit("context", { messages: [] });
  assert.ok(out?.messages.some((m) => m.role === "branchSummary"));
});

test("hosts that rebuild every request from the session get no replacement", async () => {
  const env = setup();
  await new fakePi.AgentSession(env.sm, { state: { messages: [] }, prepareRequest: () => {} }).prompt("go");
  await worked(env);
  await env.call("c9", rewindParams());
  assert.equal(await env.emit("context", { messages: [] }), undefined);
});

test("the refresh warning appears only when a rewind could not reach the next request", async () => {
  const env = setup();
  userTurn(env.sm);
  // No context event seen for this session manager yet and no captured session: call execute directly.
  const tool = env.tools.get("navigate_tree");
  env.sm.appendMessage(assistant([["c1", "navigate_tree", { action: "list" }]]));
  const blind = await tool.execute("c1", { action: "list" }, undefined, undefined, env.ctx);
  assert.match(blind.content[0].text, /⚠/);
  const seen = await env.call("c2", { action: "list" });
  assert.doesNotMatch(seen.text, /⚠/);
});

test("the index is fed only new entries, and rebuilt once if the wasm index fails (not a trap: see trap.test.js)", async () => {
  const fed = [];
  let trapNext = false;
  const spyCore = {
    ...core,
    SessionIndex: {
      plugin() {
        const real = core.SessionIndex.plugin();
        return {
          appendEntries: (entries) => {
            fed.push(entries.map((e) => e.id));
            return real.appendEntries(entries);
          },
          setLeaf: (id) => real.setLeaf(id),
          sync(entries, leaf) {
            if (entries.length > 0) this.appendEntries(entries);
            this.setLeaf(leaf);
          },
          toolPlan: (params, facts) => {
            if (trapNext) {
              trapNext = false;
              throw Object.assign(new Error("unknown entry id e0000001"), { code: "UnknownEntry" });
            }
            return real.toolPlan(params, facts);
          },
          rewindFinish: (...args) => real.rewindFinish(...args),
          free: () => real.free(),
        };
      },
    },
  };
  const env = setup({ navigatorCore: spyCore });
  userTurn(env.sm);
  await env.call("c1", { action: "list" });
  await env.call("c2", { action: "list" });
  assert.equal(fed.length, 2);
  assert.deepEqual(fed[1].length, 2, "the second call feeds only the result of c1 and the call c2");
  trapNext = true;
  const r = await env.call("c3", { action: "list" });
  assert.equal(r.isError, false);
  assert.equal(fed.at(-1).length, env.sm.entries.length - 1, "the rebuilt index was fed everything");
});

test("two session managers keep separate indexes and state", async () => {
  const a = setup();
  const b = setup();
  await worked(a);
  userTurn(b.sm, "other");
  await b.call("c1", { action: "anchor", name: "start" });
  await a.call("c9", rewindParams());
  assert.equal(b.sm.entries.filter((e) => e.type === "branch_summary").length, 0);
  assert.equal(await b.emit("context", { messages: [] }), undefined);
  const list = await b.call("c2", { action: "list" });
  assert.match(list.text, /\[list\] · 1 anchor/);
});

test("/anchors: rows from the core, a chosen rewind shows recall's page, pages on; nothing is written", async () => {
  const env = setup({ opts: { summarize: async () => ({ summary: "## Goal\nparser", readFiles: [], modifiedFiles: [] }) } });
  await worked(env);
  assert.equal((await env.call("c9", rewindParams())).isError, false);
  const entries = env.sm.entries.length;
  const { handler, description } = env.commands.get("anchors");
  assert.match(description, /anchors/i);
  // A UI without dialogs (no `select`): the rows as one note.
  const notes = [];
  await handler("", { ...env.ctx, hasUI: true, ui: { notify: (text, level) => notes.push([text, level]) } });
  assert.equal(notes.length, 1);
  assert.match(notes[0][0], /^Anchors and rewinds · context now \d+\.\d% of 100k/);
  assert.match(notes[0][0], /\nrewind 1: start → done · saved \d+(\.\d)?k tokens · context \d+\.\d% → \d+\.\d% of 100k/);
  // Interactive on a host whose ui.custom shows nothing (RPC: it returns without calling the factory): the page
  // in pi's editor dialog, then the choices. Choose the rewind, read page 1, then the next page, then Esc.
  const shown = [];
  const asked = [];
  const picks = [(rows) => rows.find((r) => r.startsWith("rewind 1")), (o) => o[0], () => undefined];
  const ui = {
    select: async (title, options) => (asked.push([title, options]), picks.shift()(options)),
    editor: async (title, text) => (shown.push([title, text]), undefined),
    notify: (text) => notes.push([text]),
    custom: async () => undefined,
  };
  await handler("", { ...env.ctx, hasUI: true, ui });
  assert.equal(shown.length, 2, JSON.stringify(asked));
  assert.match(shown[0][0], /^What was collapsed at 'done' · page 1 of (\d+)$/);
  // The page as the person reads it: from its first entry, without the model's header and recall hint.
  assert.match(shown[0][1], /^──── entry \S+ · tool result of x/);
  assert.doesNotMatch(shown[0][1], /\[recall 'done'\]|Page \d+ of \d+: navigate_tree/);
  assert.match(shown[1][0], /page 2 of/);
  assert.deepEqual(asked[1][1].slice(-1), ["Back to the anchors"]);
  assert.equal(env.sm.entries.length, entries, "the command appended nothing");
  assert.equal(notes.length, 1, "no warning on the way");
});

test("/anchors while a rewind waits for its summary: the rewind still finishes (the command keeps no plan)", async () => {
  const notes = [];
  let env;
  const summarize = async () => {
    const picks = [(rows) => rows[0], () => undefined]; // anchor 'start': nothing collapsed there yet
    const ui = { select: async (_t, options) => picks.shift()(options), editor: async () => undefined, notify: (text) => notes.push(text) };
    await env.commands.get("anchors").handler("", { ...env.ctx, hasUI: true, ui });
    return { summary: "## Goal\nparser", readFiles: [], modifiedFiles: [] };
  };
  env = setup({ opts: { summarize } });
  await worked(env);
  const r = await env.call("c9", rewindParams());
  assert.equal(r.isError, false, r.text);
  assert.match(r.text, /^\[rewind 'start' → 'done'\]/);
  assert.equal(notes.length, 1);
  assert.match(notes[0], /^Nothing was collapsed at 'start'/);
});

test("/anchors and /archive are not registered on a host without registerCommand, and the tool still is", () => {
  const env = setup();
  assert.deepEqual([...env.commands.keys()].sort(), ["anchors", "archive"], "setup's pi has them");
  const tools = new Map();
  extension.createNavigator({ core, pi: { registerTool: (d) => tools.set(d.name, d), on: () => {} }, hostOptions: { pkg: fakePi } });
  assert.ok(tools.has("navigate_tree"));
});
