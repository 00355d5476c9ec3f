// Where a summary request's usage goes (issue 39), without a real host (the real-host proof is
// tests/e2e/cost.e2e.mjs): pi ≥0.87's `branchWithSummary(target, summary, details, fromHook, usage)` gets it as its
// own argument (fromHook left unset, as before); an older one (four parameters) gets it in `details.summaryUsage`;
// without a usage nothing changes. The summarizer passes on the usage pi's summarizer returns, else the one of the
// reply its stream saw. Run `npm run build` first.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fakePi, loadPkg } from "./fake-pi.js";

fakePi(`export class AgentSession { async prompt() {} }
export function getAgentDir() { return undefined; }`);
const { createHost } = await loadPkg("host.js");
const { makeSummarizer } = await loadPkg("summarize.js");

const USAGE = { input: 10, output: 5, cacheRead: 900, cacheWrite: 0, totalTokens: 915, cost: { input: 3e-5, output: 7.5e-5, cacheRead: 2.7e-4, cacheWrite: 0, total: 3.75e-4 } };
const host = createHost({ on() {}, registerTool() {}, setLabel() {} }, { pkg: {} });

test("a host whose branchWithSummary takes a usage gets it as its fifth argument", () => {
  const calls = [];
  const sm = { branchWithSummary(target, summary, details, fromHook, usage) { calls.push([...arguments]); return "s1"; } };
  assert.equal(host.branchWithSummary(sm, "t", "text", { readFiles: [] }, USAGE), "s1");
  assert.deepEqual(calls, [["t", "text", { readFiles: [] }, undefined, USAGE]]);
});

test("an older host keeps the usage in details.summaryUsage; no usage changes nothing", () => {
  const calls = [];
  const sm = { branchWithSummary(target, summary, details) { calls.push([...arguments]); return "s2"; } };
  host.branchWithSummary(sm, "t", "text", { readFiles: ["a"] }, USAGE);
  host.branchWithSummary(sm, "t", "text", { readFiles: ["a"] }, undefined);
  host.branchWithSummary(sm, "t", "text", { readFiles: ["a"] }, "not a usage");
  assert.deepEqual(calls, [
    ["t", "text", { readFiles: ["a"], summaryUsage: USAGE }],
    ["t", "text", { readFiles: ["a"] }],
    ["t", "text", { readFiles: ["a"] }],
  ]);
  const newer = [];
  const sm5 = { branchWithSummary(target, summary, details, fromHook, usage) { newer.push([...arguments]); } };
  host.branchWithSummary(sm5, "t", "text", { readFiles: [] });
  assert.deepEqual(newer, [["t", "text", { readFiles: [] }]], "without a usage the call is as it was");
});

test("the summarizer passes on pi's usage, else the usage of the reply its stream saw", async () => {
  const reply = { role: "assistant", content: [{ type: "text", text: "sum" }], stopReason: "stop", usage: USAGE };
  const stream = async () => ({ result: async () => reply });
  const request = { entries: [], model: { maxTokens: 100 }, auth: {}, focus: "f", streamFn: stream };
  // pi ≥0.87: its summarizer returns the usage itself.
  const own = { ...USAGE, output: 6 };
  const withOwn = makeSummarizer(async (_e, o) => {
    await (await o.streamFn({}, {}, {})).result();
    return { summary: "sum", usage: own };
  });
  assert.equal((await withOwn(request)).usage, own);
  // A summarizer that returns none (pi 0.80-0.86): the reply's.
  const without = makeSummarizer(async (_e, o) => {
    await (await o.streamFn({}, {}, {})).result();
    return { summary: "sum" };
  });
  assert.equal((await without(request)).usage, USAGE);
  // No stream function went through ours (pi 0.74/0.75): nothing is known.
  const cold = makeSummarizer(async () => ({ summary: "sum" }));
  assert.equal((await cold({ ...request, streamFn: undefined })).usage, undefined);
});
