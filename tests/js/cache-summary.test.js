// The shim's summary path without a real host (the real-host proof is tests/e2e/cache-summary.e2e.mjs):
// what reaches the cold summarizer (headers, reason) when the live prefix cannot be used, and that a
// throwing `streamFunction` getter means "no stream function", not a failed rewind. Run `npm run build` first.
import { test } from "node:test";
import { fakePi, loadPkg } from "./fake-pi.js";
import assert from "node:assert/strict";

fakePi(`export class AgentSession { async prompt() {} }
export function getAgentDir() { return undefined; }`);
const core = await loadPkg("index-node.js");
const { cacheSummarizer } = await loadPkg("cache-summary.js");
const { createHost, registry } = await loadPkg("host.js");

function fakeSm() {
  return {
    getSessionId: () => "sess-1",
    getLeafId: () => "a1",
    getEntry: (id) => ({ id, type: "message" }),
    getBranch: () => [],
  };
}

function request(provider, headers) {
  const sm = fakeSm();
  return {
    ctx: { sessionManager: sm, modelRegistry: {} },
    plan: { summarizeIds: ["x1", "x2"], targetId: "t" },
    callId: "c1",
    auth: { ok: true, apiKey: "k", headers },
    focus: "keep the parser plan and the open questions",
    model: { provider, contextWindow: 128000 },
    config: { cacheSummary: true },
  };
}

test("no capture → the cold summarizer runs, reason no-capture; opencode gets its session headers, null headers are dropped", async () => {
  const seen = [];
  const cold = async (r) => {
    seen.push(r);
    return { summary: "cold", usage: { input: 500, cacheRead: 0, cacheWrite: 0 } };
  };
  const summarize = cacheSummarizer(cold, { core: () => core, captures: new Map(), pi: {}, env: {} });
  const out = await summarize(request("opencode", { Authorization: "Bearer x", "x-drop": null }));
  assert.equal(out.summary, "cold");
  assert.deepEqual(out.summaryCache, { mode: "fallback", reason: "no-capture", cacheRead: 0, input: 500, cacheWrite: 0 });
  assert.deepEqual(seen[0].auth.headers, { Authorization: "Bearer x", "x-opencode-client": "pi", "x-opencode-session": "sess-1" });
});

test("headers auth already set are never overwritten", async () => {
  let headers;
  const summarize = cacheSummarizer(async (r) => ((headers = r.auth.headers), { summary: "s" }), { core: () => core, captures: new Map(), pi: {}, env: {} });
  await summarize(request("opencode", { "X-Opencode-Session": "from-auth" }));
  assert.deepEqual(headers, { "X-Opencode-Session": "from-auth", "x-opencode-client": "pi" });
  await summarize(request("anthropic", undefined));
  assert.deepEqual(headers, {});
});

test("the env kill switch wins over the config", async () => {
  const summarize = cacheSummarizer(async () => ({ summary: "s" }), {
    core: () => core,
    captures: new Map([["sess-1", { messages: [], leafId: "a1" }]]),
    pi: {},
    env: { PI_TREE_NAVIGATOR_NO_CACHE_SUMMARY: "1" },
  });
  const out = await summarize(request("anthropic", {}));
  assert.equal(out.summaryCache.reason, "disabled");
});

test("a throwing streamFunction getter reads as no stream function (the summarizer's default request follows)", () => {
  const host = createHost({ on() {}, registerTool() {}, setLabel() {} }, { pkg: {} });
  const sm = fakeSm();
  const agent = {};
  Object.defineProperty(agent, "streamFunction", { get() { throw new Error("stale runner"); } });
  registry().sessions.set(sm, { agent });
  assert.equal(host.streamFunction(sm), undefined);
  registry().sessions.set(sm, { agent: { streamFunction: "fn" } });
  assert.equal(host.streamFunction(sm), "fn");
});
