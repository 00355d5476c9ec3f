// Trap recovery of the navigate_tree shim: when the wasm instance traps, the call answers with an error,
// the instance is retired (its indexes freed, so no finalizer calls into it), a fresh instance is made, the
// index is rebuilt from the host's entries, and the next call works.
//
// Traps here are real where possible. The test-only way to provoke one uses wasm-bindgen's internals (the
// product never does): growing its table of JS values from JS behind the instance's back, once the slab that
// hands out the table's slots is full, makes the instance's next call that holds a JS value abort (wasm
// `unreachable`, as a Rust panic does: the core bounds every recursion) — before a call, and to crash
// `rewindFinish` after the tree moved. Freeing an index needs no slot, so a retired instance still frees them.
// Injected cores whose methods throw `WebAssembly.RuntimeError` cover the restart limits. Run `npm run build` first.
import { test } from "node:test";
import assert from "node:assert/strict";
import { register } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { FAKE_TUI_URL } from "./fake-pi.js";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc");

const FAKE_PI = `
export class AgentSession { async prompt() {} }
export async function generateBranchSummary() {
  return { summary: "## Goal\\nfake summary", readFiles: [], modifiedFiles: [] };
}`;
const FAKE_URL = `data:text/javascript,${encodeURIComponent(FAKE_PI)}`;
register(
  `data:text/javascript,${encodeURIComponent(`
export async function resolve(specifier, context, next) {
  if (specifier === "@earendil-works/pi-tui") return { url: ${JSON.stringify(FAKE_TUI_URL)}, shortCircuit: true };
  if (specifier === "@earendil-works/pi-coding-agent") return { url: ${JSON.stringify(FAKE_URL)}, shortCircuit: true };
  return next(specifier, context);
}`)}`,
);

const pkgDir = process.env.PTN_PKG_DIR ?? fileURLToPath(new URL("../../pkg/", import.meta.url));
const load = (name) => import(pathToFileURL(join(pkgDir, name)).href);
const fakePi = await import(FAKE_URL);
const extension = await load("extension.js");
const core = await load("index-node.js");
/**
 * A new wasm instance of the package's module, for a test that breaks one: a trapped instance stays broken (as
 * after a real panic), so the tests that break an instance never break the shared `core` the others use.
 */
const freshCore = extension.freshCoreLoader(pathToFileURL(join(pkgDir, "extension.js")).href);
const REGISTRY = Symbol.for("pi-tree-navigator.registry");
const stats = () => globalThis[REGISTRY].stats;
/** Forget the process-wide replacement core an earlier test made, so a test's own `instantiate` is used. */
const isolate = () => {
  if (globalThis[REGISTRY]) globalThis[REGISTRY].liveCore = null;
};
const FOCUS = "User asked: 'build the parser'. Done: read data. Left: tests.";

// ---------------------------------------------------------------------------------------------------
// A minimal pi host: append-only session manager, ExtensionAPI, tool context.

let clock = Date.parse("2026-01-01T00:00:00Z");
let nextId = 0;

class FakeSessionManager {
  constructor() {
    this.entries = [];
    this.byId = new Map();
    this.leaf = null;
    this.labels = new Map();
  }
  #append(entry) {
    const full = { ...entry, id: `t${String(++nextId).padStart(7, "0")}`, parentId: this.leaf, timestamp: new Date(clock++).toISOString() };
    this.entries.push(full);
    this.byId.set(full.id, full);
    this.leaf = full.id;
    return full.id;
  }
  getEntries() { return this.entries.slice(); }
  getLeafId() { return this.leaf; }
  getEntry(id) { return this.byId.get(id); }
  getLabel(id) { return this.labels.get(id); }
  branch(id) { this.leaf = id; }
  resetLeaf() { this.leaf = null; }
  getBranch() {
    const out = [];
    for (let id = this.leaf; id; id = this.byId.get(id).parentId) out.unshift(this.byId.get(id));
    return out;
  }
  appendMessage(message) { return this.#append({ type: "message", message }); }
  appendLabelChange(targetId, label) {
    if (label) this.labels.set(targetId, label);
    else this.labels.delete(targetId);
    return this.#append({ type: "label", targetId, label });
  }
  branchWithSummary(from, summary, details) {
    this.leaf = from;
    return this.#append({ type: "branch_summary", fromId: from, summary, details });
  }
  buildSessionContext() {
    return { messages: this.getBranch().filter((e) => e.type === "message").map((e) => e.message) };
  }
}

const MODEL = { api: "faux", provider: "faux", id: "faux-1", contextWindow: 100_000 };
const usage = (total) => ({ input: total, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: total + 1, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } });
const assistant = (calls) => ({
  role: "assistant",
  content: calls.map(([id, name, args = {}]) => ({ type: "toolCall", id, name, arguments: args })),
  api: "faux", provider: "faux", model: "faux-1", usage: usage(100), stopReason: "toolUse", timestamp: clock,
});
const toolResultMessage = (id, text, isError = false) => ({ role: "toolResult", toolCallId: id, toolName: "x", content: [{ type: "text", text }], isError, timestamp: clock });

/** Loads the extension on a fake host. `navigatorCore`/`instantiate` replace the wasm API and its restart. */
function setup({ navigatorCore = core, instantiate, sm = new FakeSessionManager() } = {}) {
  const tools = new Map();
  const handlers = new Map();
  const pi = {
    registerTool: (def) => tools.set(def.name, def),
    on: (event, handler) => handlers.set(event, [...(handlers.get(event) ?? []), handler]),
    setLabel: (id, label) => sm.appendLabelChange(id, label),
  };
  const options = { core: navigatorCore, pi, hostOptions: { pkg: fakePi } };
  if (instantiate !== undefined) options.instantiate = instantiate;
  const nav = extension.createNavigator(options);
  const ctx = { sessionManager: sm, model: MODEL, modelRegistry: { getApiKeyAndHeaders: async () => ({ ok: true, apiKey: "k" }) } };
  const emit = async (event, payload = {}) => {
    let out;
    for (const h of handlers.get(event) ?? []) out = (await h({ type: event, ...payload }, ctx)) ?? out;
    return out;
  };
  /** The model calls navigate_tree: its assistant message, the tool, the result (as pi appends them). */
  const call = async (id, params, recorded = params) => {
    await emit("context", { messages: [] });
    sm.appendMessage(assistant([[id, "navigate_tree", recorded]]));
    let result;
    let thrown;
    try {
      result = await tools.get("navigate_tree").execute(id, params, new AbortController().signal, undefined, ctx);
    } catch (e) {
      thrown = e;
    }
    const hook = thrown ? undefined : await emit("tool_result", { toolCallId: id });
    const isError = thrown ? true : (hook?.isError ?? result.isError ?? false);
    const text = thrown ? thrown.message : result.content[0].text;
    sm.appendMessage(toolResultMessage(id, text, isError));
    return { result, thrown, isError, text };
  };
  const work = (id, chars) => {
    sm.appendMessage(assistant([[id, "read"]]));
    sm.appendMessage(toolResultMessage(id, "x".repeat(chars)));
  };
  return { sm, nav, call, work, emit };
}

function userTurn(sm, text = "build the parser") {
  sm.appendMessage({ role: "user", content: text, timestamp: clock });
}

/** Strict pairing over the active path's messages (what the next request would carry). */
function assertPaired(sm) {
  const msgs = sm.getBranch().filter((e) => e.type === "message").map((e) => e.message);
  for (let i = 0; i < msgs.length; i++) {
    if (msgs[i].role === "toolResult") assert.fail(`toolResult ${msgs[i].toolCallId} at ${i} has no call right before it`);
    if (msgs[i].role !== "assistant") continue;
    const calls = msgs[i].content.filter((c) => c.type === "toolCall").map((c) => c.id);
    let j = i + 1;
    const seen = [];
    while (j < msgs.length && msgs[j].role === "toolResult") seen.push(msgs[j++].toolCallId);
    assert.deepEqual(seen.sort(), calls.sort(), `assistant ${i}: results ${seen} for calls ${calls}`);
    i = j - 1;
  }
}

/**
 * Test only: makes the instance trap (a real trap) at its next call that holds a JS value — nearly every call:
 * an argument, or the result it builds. wasm-bindgen's slab grows the table of JS values when it is full and
 * aborts when the table grew by other hands in between: so the slab is filled to its capacity (allocate until
 * the table grows, which shows the new capacity, then the rest) and the table grown by one slot here.
 */
function breakSlots(api) {
  const exports = api.initSync(); // an initialised glue returns its instance's exports
  const table = exports.__wbindgen_externrefs;
  const length = table.length;
  while (table.length === length) exports.__externref_table_alloc();
  for (let left = table.length - length - 1; left > 0; left--) exports.__externref_table_alloc();
  table.grow(1);
}

function deepArgument(depth) {
  let v = {};
  for (let i = 0; i < depth; i++) v = { x: v };
  return v;
}

/** Let wasm-bindgen's FinalizationRegistry run for everything collectable (an exception there kills Node). */
async function collectGarbage() {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
}

// ---------------------------------------------------------------------------------------------------

test("a real trap (wasm-bindgen's slab aborts): error for that call, new instance, rebuilt index, next call works", async () => {
  const env = setup({ navigatorCore: await freshCore() });
  userTurn(env.sm);
  assert.equal((await env.call("c1", { action: "anchor", name: "start" })).isError, false);
  const before = env.nav.core;
  const restarts = stats().coreRestarts;

  const count = env.sm.entries.length;
  breakSlots(env.nav.core); // the call's first step into wasm traps
  const r = await env.call("c2", { action: "list" });
  assert.equal(r.isError, true);
  assert.equal(r.result.isError, true);
  assert.match(r.text, /^navigate_tree failed: its WebAssembly core crashed on this call \(RuntimeError: unreachable\)\. Nothing was written\./);
  assert.match(r.text, /The core was restarted and its index rebuilt from the session \(\d+ entries\); call navigate_tree again\.$/);
  assert.deepEqual(r.result.details, { crashed: true });
  assert.equal(env.sm.entries.length, count + 2, "only the call and its result were appended");
  assert.notEqual(env.nav.core, before, "the instance was replaced, not only the index");
  assert.equal(stats().coreRestarts, restarts + 1);

  // The next call works on the new instance and sees the anchor set before the crash.
  const list = await env.call("c3", { action: "list" });
  assert.equal(list.isError, false, list.text);
  assert.match(list.text, /\[list\] · 1 anchor/);
  assertPaired(env.sm);
  await collectGarbage();
});

test("10,000-deep arguments are refused with a reason, not a crash (the core stops reading at its depth limit)", async () => {
  const env = setup();
  userTurn(env.sm);
  const before = env.nav.core;
  const restarts = stats().coreRestarts;
  // The session records a plain call; the arguments handed to execute are 10,000 levels deep.
  const r = await env.call("c1", { action: "list", extra: deepArgument(10_000) }, { action: "list" });
  assert.equal(r.isError, true);
  // The core reads the JavaScript value itself and stops at its depth limit.
  assert.match(r.text, /^The arguments could not be read \(nested deeper than 64 levels\)\. Send a flat object/);
  assert.equal(r.result.details.refused, "InvalidArguments");
  assert.equal(env.nav.core, before, "no restart");
  assert.equal(stats().coreRestarts, restarts);
  // A cycle is no deeper than the limit allows either.
  const cycle = { action: "list" };
  cycle.self = cycle;
  const r2 = await env.call("c2", cycle, { action: "list" });
  assert.match(r2.text, /^The arguments could not be read \(nested deeper than 64 levels\)\. Send a flat object/);
  assert.equal(r2.result.details.refused, "InvalidArguments");
  const list = await env.call("c3", { action: "list" });
  assert.equal(list.isError, false, list.text);
  assertPaired(env.sm);
});

test("after a trap, indexes left in the broken instance are safe to garbage-collect; another load moves to the replacement", async () => {
  // Two extension loads sharing one wasm instance (the native import), each with its own session.
  const shared = await freshCore();
  const a = setup({ navigatorCore: shared });
  const b = setup({ navigatorCore: shared });
  userTurn(a.sm);
  userTurn(b.sm, "other task");
  await a.call("a1", { action: "anchor", name: "x" });
  await b.call("b1", { action: "anchor", name: "y" });
  // Indexes nobody frees explicitly: wasm-bindgen's FinalizationRegistry frees them when collected, by
  // calling into the instance. Were that call to trap again, the exception in a finalizer would end the Node
  // process (pi with it); freeing needs no JS-value slot, so the retired instance still frees them.
  let orphans = Array.from({ length: 20 }, () => shared.SessionIndex.plugin());

  breakSlots(a.nav.core);
  const r = await a.call("a2", { action: "list" });
  assert.match(r.text, /core crashed on this call/);
  orphans = null;
  await collectGarbage();

  const list = await b.call("b2", { action: "list" });
  assert.equal(list.isError, false, list.text);
  assert.equal(b.nav.core, a.nav.core, "the other load moved to the replacement instance");
  assert.notEqual(b.nav.core, shared);
  assert.match(list.text, /\[list\] · 1 anchor/);
  const again = await a.call("a3", { action: "list" });
  assert.match(again.text, /\[list\] · 1 anchor/);
  assertPaired(a.sm);
  assertPaired(b.sm);
  await collectGarbage();
});

test("session_shutdown frees the session's index", async () => {
  const env = setup();
  userTurn(env.sm);
  await env.call("c1", { action: "list" });
  const freed = stats().indexesFreed;
  await env.emit("session_shutdown", {});
  assert.equal(stats().indexesFreed, freed + 1);
  await env.emit("session_shutdown", {});
  assert.equal(stats().indexesFreed, freed + 1, "a second shutdown frees nothing twice");
  const again = await env.call("c2", { action: "list" });
  assert.equal(again.isError, false, "a new index is built if the session is used again");
});

test("a real trap after the tree moved (the slab broken before rewindFinish): chain repaired, summary kept, clear error, next call works", async () => {
  // A core whose index breaks wasm-bindgen's slab right before rewindFinish: the call itself then traps.
  let breakNext = false;
  const own = await freshCore();
  const breaking = {
    ...own,
    SessionIndex: {
      plugin() {
        const real = own.SessionIndex.plugin();
        return new Proxy(real, {
          get(target, prop) {
            if (prop === "rewindFinish" && breakNext) {
              breakNext = false;
              breakSlots(own);
            }
            const v = Reflect.get(target, prop, target);
            return typeof v === "function" ? v.bind(target) : v;
          },
        });
      },
    },
  };
  const env = setup({ navigatorCore: breaking });
  userTurn(env.sm);
  await env.call("c1", { action: "anchor", name: "start" });
  env.work("w1", 40_000);
  const abandoned = env.sm.getEntries().map((e) => e.id);
  breakNext = true;
  const r = await env.call("c9", { action: "rewind", labelStart: "start", labelEnd: "done", summaryFocus: FOCUS });
  assert.equal(r.isError, true);
  assert.match(r.text, /^The rewind's summary was written, but reading the new summary back failed: unreachable/);
  assert.equal(r.thrown.cause?.name, "RuntimeError");
  // summary ← fallback synthetic(c9) ← result(c9): the result pairs; nothing of the old branch is lost.
  const branch = env.sm.getBranch();
  assert.deepEqual(branch.slice(-3).map((e) => e.type), ["branch_summary", "message", "message"]);
  assert.equal(branch.at(-2).message.content[0].id, "c9");
  assert.equal(branch.at(-2).message.usage.totalTokens, 0, "the fallback synthetic");
  for (const id of abandoned) assert.ok(env.sm.getEntry(id), `entry ${id} lost`);
  assertPaired(env.sm);
  assert.notEqual(env.nav.core, breaking, "restarted");

  const list = await env.call("c10", { action: "list" });
  assert.equal(list.isError, false, list.text);
  await collectGarbage();
});

test("an injected trap: restarts are capped, the tool keeps answering, and pi is never thrown at", async () => {
  isolate();
  const trapping = (label) => ({
    ...core,
    SessionIndex: {
      plugin() {
        const real = core.SessionIndex.plugin();
        return {
          appendEntries: (e) => real.appendEntries(e),
          setLeaf: (id) => real.setLeaf(id),
          get entryCount() { return real.entryCount; },
          toolPlan: () => { throw new WebAssembly.RuntimeError(`unreachable (${label})`); },
          free: () => real.free(),
          sync(entries, leaf) {
            if (entries.length > 0) this.appendEntries(entries);
            this.setLeaf(leaf);
          },
        };
      },
    },
  });
  let made = 0;
  const env = setup({ navigatorCore: trapping("first"), instantiate: async () => trapping(`copy ${++made}`) });
  userTurn(env.sm);
  const texts = [];
  for (let i = 1; i <= extension.MAX_CORE_RESTARTS + 2; i++) {
    const r = await env.call(`c${i}`, { action: "list" });
    assert.equal(r.thrown, undefined, "never throws to pi");
    assert.equal(r.isError, true);
    texts.push(r.text);
  }
  assert.equal(made, extension.MAX_CORE_RESTARTS);
  assert.match(texts[0], /crashed on this call \(RuntimeError: unreachable \(first\)\)/);
  assert.match(texts[0], /restarted and its index rebuilt/);
  assert.match(texts[extension.MAX_CORE_RESTARTS], /stays off until pi restarts/);
  assert.match(texts.at(-1), /^navigate_tree is unavailable: its WebAssembly core crashed earlier\./);
  assertPaired(env.sm);
});

test("a restart whose rebuild traps too says so, and the next call tries again", async () => {
  isolate();
  let rebuildTraps = true;
  const flaky = {
    ...core,
    SessionIndex: {
      plugin() {
        const real = core.SessionIndex.plugin();
        return {
          appendEntries: (e) => {
            if (rebuildTraps) {
              rebuildTraps = false;
              throw new WebAssembly.RuntimeError("unreachable (rebuild)");
            }
            return real.appendEntries(e);
          },
          setLeaf: (id) => real.setLeaf(id),
          toolPlan: (p, f) => real.toolPlan(p, f),
          free: () => real.free(),
          sync(entries, leaf) {
            if (entries.length > 0) this.appendEntries(entries);
            this.setLeaf(leaf);
          },
        };
      },
    },
  };
  let first = true;
  const broken = { ...core, SessionIndex: { plugin: () => { if (first) { first = false; throw new WebAssembly.RuntimeError("unreachable (plan)"); } return core.SessionIndex.plugin(); } } };
  const env = setup({ navigatorCore: broken, instantiate: async () => flaky });
  userTurn(env.sm);
  const r = await env.call("c1", { action: "list" });
  assert.match(r.text, /rebuilding its index failed \(RuntimeError: unreachable \(rebuild\)\); the next call will try again\.$/);
  const next = await env.call("c2", { action: "list" });
  assert.equal(next.isError, false, next.text);
  assertPaired(env.sm);
});

test("without a restart path (instantiate: null) the tool says so instead of failing silently", async () => {
  isolate();
  const broken = { ...core, SessionIndex: { plugin: () => { throw new WebAssembly.RuntimeError("unreachable"); } } };
  const env = setup({ navigatorCore: broken, instantiate: null });
  userTurn(env.sm);
  const r = await env.call("c1", { action: "list" });
  assert.match(r.text, /cannot be restarted in this process; restart pi\.$/);
  const again = await env.call("c2", { action: "list" });
  assert.match(again.text, /^navigate_tree is unavailable/);
});

test("non-trap index errors are still rebuilt once and retried (not a restart)", async () => {
  let failNext = true;
  const once = {
    ...core,
    SessionIndex: {
      plugin() {
        const real = core.SessionIndex.plugin();
        return {
          appendEntries: (e) => real.appendEntries(e),
          setLeaf: (id) => {
            if (failNext) {
              failNext = false;
              throw Object.assign(new Error("unknown entry id zz"), { code: "UnknownEntry" });
            }
            return real.setLeaf(id);
          },
          toolPlan: (p, f) => real.toolPlan(p, f),
          free: () => real.free(),
          sync(entries, leaf) {
            if (entries.length > 0) this.appendEntries(entries);
            this.setLeaf(leaf);
          },
        };
      },
    },
  };
  const restarts = stats().coreRestarts;
  const env = setup({ navigatorCore: once });
  userTurn(env.sm);
  const r = await env.call("c1", { action: "list" });
  assert.equal(r.isError, false, r.text);
  assert.equal(stats().coreRestarts, restarts);
});

test("isTrap: RuntimeError and wasm-bindgen's borrow guard count, ordinary errors do not", () => {
  assert.equal(extension.isTrap(new WebAssembly.RuntimeError("unreachable")), true);
  assert.equal(extension.isTrap(new Error("recursive use of an object detected which would lead to unsafe aliasing in rust")), true);
  assert.equal(extension.isTrap(new Error("unknown entry id x")), false);
  assert.equal(extension.isTrap("unreachable"), false);
});

test("a summarizer that ignores the abort signal: the abort still ends the call as 'aborted', nothing written", async () => {
  let release;
  const hanging = () => new Promise((resolve) => (release = resolve)); // never looks at the signal
  const tools = new Map();
  const sm = new FakeSessionManager();
  const pi = { registerTool: (d) => tools.set(d.name, d), on: () => {}, setLabel: (id, l) => sm.appendLabelChange(id, l) };
  extension.createNavigator({ core, pi, opts: { summarize: hanging }, hostOptions: { pkg: fakePi } });
  const ctx = { sessionManager: sm, model: MODEL, modelRegistry: { getApiKeyAndHeaders: async () => ({ ok: true }) } };
  const run = async (id, params) => {
    sm.appendMessage(assistant([[id, "navigate_tree", params]]));
    return tools.get("navigate_tree").execute(id, params, controller.signal, undefined, ctx);
  };
  let controller = new AbortController();
  userTurn(sm);
  await run("c1", { action: "anchor", name: "start" });
  sm.appendMessage(toolResultMessage("c1", "ok"));
  sm.appendMessage(assistant([["w1", "read"]]));
  sm.appendMessage(toolResultMessage("w1", "x".repeat(40_000)));
  controller = new AbortController();
  const pending = run("c2", { action: "rewind", labelStart: "start", labelEnd: "done", summaryFocus: FOCUS });
  setTimeout(() => controller.abort(), 20);
  const r = await pending;
  assert.equal(r.isError, true);
  assert.equal(r.content[0].text, "Summarization aborted.");
  assert.equal(sm.entries.filter((e) => e.type === "branch_summary").length, 0);
  release({ summary: "## Goal\nlate" }); // a late result changes nothing
  await new Promise((res) => setTimeout(res, 10));
  assert.equal(sm.entries.filter((e) => e.type === "branch_summary").length, 0);
});

test("the hooks never throw into pi's loop: a session that cannot build its context gets no hand-over instead of an error", async () => {
  isolate();
  const env = setup({ instantiate: null });
  const agent = { state: { messages: [], systemPrompt: "S", tools: [] }, prepareNextTurn: async () => ({ thinkingLevel: "low" }) };
  const session = new fakePi.AgentSession();
  session.sessionManager = env.sm;
  session.agent = agent;
  await session.prompt("go"); // the prototype patch captures the session and wires prepareNextTurn
  userTurn(env.sm);
  await env.call("c1", { action: "anchor", name: "start" });
  env.work("w1", 40_000);
  const r = await env.call("c9", { action: "rewind", labelStart: "start", labelEnd: "done", summaryFocus: FOCUS });
  assert.equal(r.isError, false, r.text);
  env.sm.buildSessionContext = () => {
    throw new Error("corrupt session");
  };
  assert.equal(await env.emit("context", { messages: [] }), undefined);
  assert.deepEqual(await agent.prepareNextTurn(), { thinkingLevel: "low" }, "the earlier hook's result passes through");
});
