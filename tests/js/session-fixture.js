// A tiny pi session (header + user + assistant with usage + user) shared by the Node and Bun smoke tests,
// with its token estimates worked out by hand (pi's estimateContextTokens: chars/4 rounded up per message,
// usage = totalTokens of the last assistant with usage, plus the estimates of the messages after it).
export const header = { type: "session", version: 3, id: "0195f3a4-0000-7000-8000-000000000001",
  timestamp: "2026-01-01T00:00:00.000Z", cwd: "/tmp/smoke" };

const usage = { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 120,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

export const entries = [
  { type: "message", id: "a0000001", parentId: null, timestamp: "2026-01-01T00:00:01.000Z",
    message: { role: "user", content: "hello world!", timestamp: 1767225601000 } },          // 12 chars -> 3
  { type: "message", id: "a0000002", parentId: "a0000001", timestamp: "2026-01-01T00:00:02.000Z",
    message: { role: "assistant", content: [{ type: "text", text: "Hi there, friend." }],      // 17 chars -> 5
      api: "faux", provider: "faux", model: "faux-1", usage, stopReason: "stop", timestamp: 1767225602000 } },
  { type: "message", id: "a0000003", parentId: "a0000002", timestamp: "2026-01-01T00:00:03.000Z",
    message: { role: "user", content: [{ type: "text", text: "what now?" }], timestamp: 1767225603000 } }, // 9 -> 3
];

export const jsonl = [header, ...entries].map((e) => JSON.stringify(e)).join("\n") + "\n";

/** Expected estimate(leaf) for each leaf argument. */
export const expected = {
  // current leaf = last entry: usage 120 of the assistant + 3 for the trailing user message
  current: { tokens: 123, usageTokens: 120, trailingTokens: 3, lastUsageIndex: 1 },
  a0000002: { tokens: 120, usageTokens: 120, trailingTokens: 0, lastUsageIndex: 1 },
  // no usage yet: every message is estimated
  a0000001: { tokens: 3, usageTokens: 0, trailingTokens: 3, lastUsageIndex: null },
  // null = before the first entry: empty context
  none: { tokens: 0, usageTokens: 0, trailingTokens: 0, lastUsageIndex: null },
};

/** The four TokenEstimate fields (works for plain objects and for getter-backed wasm classes alike). */
export const pickEstimate = (e) => ({ tokens: e.tokens, usageTokens: e.usageTokens,
  trailingTokens: e.trailingTokens, lastUsageIndex: e.lastUsageIndex });
