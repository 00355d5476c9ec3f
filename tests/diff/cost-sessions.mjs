// Generated sessions with money in them, for the cost model's differential test (tests/diff/cost.test.mjs):
// random trees (branches as /tree leaves them) of user, assistant and tool result messages, priced as pi prices
// a request (`usage.cost` from per-million prices; a free provider records 0), an answering model that differs
// from the one asked (`responseModel`), tool results that record a usage, `usage` entries (cache warming and
// another kind), and branch summaries and compactions with and without the summary request's usage. Every
// field is well-formed (pi's own sums break on hostile ones: that is tests/js/cost.test.js's part).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { rng } from "../bench/rng.mjs";


/** Per-million prices: input, output, cacheRead, cacheWrite. */
const MODELS = [
  { provider: "anthropic", model: "claude-sonnet-4-5", price: [3, 15, 0.3, 3.75] },
  { provider: "anthropic", model: "claude-opus-4-1", price: [15, 75, 1.5, 18.75] },
  { provider: "openai", model: "gpt-5.4", price: [1.25, 10, 0.125, 0] },
  { provider: "local", model: "qwen", price: [0, 0, 0, 0] },
];

/** A usage with pi's cost fields (`calculateCost`: tokens × price per million). */
export function priced(price, input, output, cacheRead, cacheWrite) {
  const c = [input, output, cacheRead, cacheWrite].map((n, i) => (n * price[i]) / 1e6);
  return {
    input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite,
    cost: { input: c[0], output: c[1], cacheRead: c[2], cacheWrite: c[3], total: c[0] + c[1] + c[2] + c[3] },
  };
}

/** One session's lines (header first). `n`: the session's number, which spreads the timestamps apart. */
export function costSession(seed, n) {
  const r = rng(seed * 7919 + n);
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const int = (max) => Math.floor(r() * max);
  const start = Date.UTC(2026, 0, 1) + n * 86_400_000;
  let t = 0;
  const ts = () => new Date(start + (t += 1000 + int(5000))).toISOString();
  const lines = [{ type: "session", version: 3, id: `cost-${seed}-${n}`, timestamp: new Date(start).toISOString(), cwd: "/tmp/cost" }];
  const entries = [];
  let prompt = 0;
  const add = (entry) => {
    // Mostly a chain; sometimes a branch off an earlier entry (what /tree and rewinds leave).
    const parent = entries.length === 0 ? null : r() < 0.9 ? entries[entries.length - 1] : pick(entries);
    const e = { ...entry, id: `${n.toString(16)}${entries.length.toString(16).padStart(6, "0")}`, parentId: parent?.id ?? null, timestamp: ts() };
    entries.push(e);
    lines.push(e);
    return e;
  };
  const count = 20 + int(120);
  for (let i = 0; i < count; i++) {
    const x = r();
    if (x < 0.25) {
      add({ type: "message", message: { role: "user", content: [{ type: "text", text: `question ${i}` }], timestamp: start + i } });
    } else if (x < 0.65) {
      const m = pick(MODELS);
      prompt += int(20_000);
      const read = r() < 0.7 ? Math.floor(prompt * r()) : 0;
      const write = m.price[3] > 0 && r() < 0.4 ? int(prompt - read + 1) : 0;
      const stop = r() < 0.05 ? pick(["error", "aborted"]) : pick(["toolUse", "stop"]);
      const usage = stop === "error" && r() < 0.5 ? priced(m.price, 0, 0, 0, 0) : priced(m.price, Math.max(0, prompt - read - write), int(4000), read, write);
      const message = { role: "assistant", content: [{ type: "text", text: `answer ${i}` }], api: "x", provider: m.provider, model: m.model, usage, stopReason: stop, timestamp: start + i };
      if (r() < 0.1) message.responseModel = `${m.model}-2026`;
      add({ type: "message", message });
    } else if (x < 0.85) {
      const message = { role: "toolResult", toolCallId: `c${i}`, toolName: "bash", content: [{ type: "text", text: "ok" }], isError: false, timestamp: start + i };
      if (r() < 0.15) message.usage = priced(pick(MODELS).price, int(3000), int(500), int(2000), 0);
      add({ type: "message", message });
    } else if (x < 0.9) {
      const m = pick(MODELS);
      add({ type: "usage", kind: r() < 0.85 ? "cache_warm" : "other", provider: m.provider, model: m.model, usage: priced(m.price, int(200), 1, prompt, 0) });
    } else if (x < 0.95 && entries.length > 2) {
      const e = { type: "branch_summary", fromId: entries[entries.length - 1].id, summary: `summary ${i}` };
      if (r() < 0.5) e.usage = priced(pick(MODELS).price, int(2000), int(800), int(prompt + 1), 0);
      add(e);
    } else if (entries.length > 4) {
      const kept = entries[entries.length - 1 - int(3)];
      const e = { type: "compaction", summary: `checkpoint ${i}`, firstKeptEntryId: kept.id, tokensBefore: prompt };
      if (r() < 0.5) e.usage = priced(pick(MODELS).price, int(3000), int(1500), int(prompt + 1), 0);
      add(e);
      prompt = int(5000);
    } else {
      add({ type: "custom", customType: "note", data: { i } });
    }
  }
  return lines;
}

/** Writes `count` sessions for `seed` into `dir`; returns their paths. */
export function writeCostSessions({ seed, count, dir }) {
  mkdirSync(dir, { recursive: true });
  const files = [];
  for (let n = 0; n < count; n++) {
    const file = join(dir, `cost-${n}.jsonl`);
    writeFileSync(file, costSession(seed, n).map((l) => JSON.stringify(l)).join("\n") + "\n");
    files.push(file);
  }
  return files;
}
