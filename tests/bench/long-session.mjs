// A long autonomous run with many rewinds, written as a pi session file (format v3) of about `mb` MB — the shape of
// the sessions people resume after days of work with this plugin (deterministic: the same bytes for the same size).
//
// On the active path: user prompts, assistant turns with tool calls and results, an anchor (assistant call → label →
// result) before each exploration, and after it a rewind (branch_summary on a sibling + anchor label + synthetic
// assistant + result); the abandoned explorations (large tool results: file reads, test logs, 4–64 KB) stay off the
// path; one compaction near the end keeps the last turns. Used by archive-bench.mjs and resume-bench.mjs.
//
//   writeLongSession(file, { mb, cwd, priced, id, parentSession, seed }) → { bytes, entries (header excluded), rewinds, compacted }
//   (`priced`: usage with costs and cache reads, for the cost model's bench; otherwise every cost 0; `id`,
//   `parentSession`: the header's, for a folder of sessions and their families; `seed`: other text and times)
//   node tests/bench/long-session.mjs <file> <mb> [cwd]
import { closeSync, openSync, writeSync } from "node:fs";
import { pathToFileURL } from "node:url";

const WORDS = "the of a fn let const return if else match struct impl pub use mod test assert error line file read write cargo npm build session entry leaf path anchor rewind".split(" ");

/**
 * Writes the session to `file`. `cwd`: the header's working directory (pi refuses to resume a session whose cwd is
 * missing, so a run that resumes it must name a directory that exists).
 */
export function writeLongSession(file, { mb, cwd = "/work/project", priced = false, id: sessionId = "0193a0b0-0000-7000-8000-000000000001", parentSession, seed = 0 }) {
  let seq = 0;
  const id = () => (++seq).toString(16).padStart(8, "0");
  let clock = Date.parse("2026-11-26T00:00:00.000Z") + seed * 86_400_000;
  const ts = () => new Date((clock += 1000)).toISOString();
  let rng = 12345 + seed;
  const rand = () => ((rng = (rng * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const text = (n) => {
    let s = "";
    while (s.length < n) s += WORDS[Math.floor(rand() * WORDS.length)] + (rand() < 0.1 ? "\n" : " ");
    return s.slice(0, n);
  };
  const fd = openSync(file, "w");
  let buf = [];
  let bufLen = 0;
  let written = 0;
  let lines = 0;
  const flush = () => {
    const b = Buffer.from(buf.join(""));
    writeSync(fd, b);
    written += b.length;
    buf = [];
    bufLen = 0;
  };
  const emit = (obj) => {
    const line = JSON.stringify(obj) + "\n";
    lines++;
    buf.push(line);
    bufLen += line.length;
    if (bufLen > 1 << 20) flush();
  };
  let context = 2000;
  const usage = (out) => {
    context += out;
    if (!priced) return { input: context, output: out, cacheRead: 0, cacheWrite: 0, totalTokens: context + out, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
    // `priced` (the cost bench): most of the prompt read from the cache, at Claude Sonnet's prices.
    const read = Math.max(0, context - 600);
    const c = { input: (context - read) * 3e-6, output: out * 15e-6, cacheRead: read * 3e-7, cacheWrite: 0 };
    return { input: context - read, output: out, cacheRead: read, cacheWrite: 0, totalTokens: context + out, cost: { ...c, total: c.input + c.output + c.cacheRead } };
  };
  const message = (parentId, message) => {
    const e = { type: "message", id: id(), parentId, timestamp: ts(), message: { ...message, timestamp: clock } };
    emit(e);
    return e.id;
  };
  const assistant = (parentId, calls, words = 200) =>
    message(parentId, {
      role: "assistant",
      content: [{ type: "text", text: text(words) }, ...calls.map((c) => ({ type: "toolCall", id: c.id, name: c.name, arguments: c.args }))],
      api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: usage(words / 4), stopReason: calls.length ? "toolUse" : "stop",
    });
  const result = (parentId, call, size) =>
    message(parentId, { role: "toolResult", toolCallId: call.id, toolName: call.name, content: [{ type: "text", text: text(size) }], isError: false });
  const call = (name, args) => ({ id: `toolu_${id()}`, name, args });

  emit({ type: "session", version: 3, id: sessionId, timestamp: ts(), cwd, ...(parentSession ? { parentSession } : {}) });
  let leaf = message(null, { role: "user", content: [{ type: "text", text: "Please refactor the session reader and keep the tests green." }] });
  const target = mb * 1e6;
  let rewinds = 0;
  let compacted = false;
  while (written + bufLen < target) {
    // On the path: a short turn.
    leaf = message(leaf, { role: "user", content: [{ type: "text", text: text(300) }] });
    const c1 = call("read", { path: "src/x.rs" });
    leaf = assistant(leaf, [c1]);
    leaf = result(leaf, c1, 4000);
    // An anchor before the exploration (assistant call -> label -> result, as the plugin writes it).
    const ca = call("navigate_tree", { action: "anchor", name: `try-${rewinds}` });
    const anchorMsg = assistant(leaf, [ca], 40);
    const label = { type: "label", id: id(), parentId: anchorMsg, timestamp: ts(), targetId: anchorMsg, label: `anchor:try-${rewinds}` };
    emit(label);
    const anchorResult = result(label.id, ca, 80);
    // The exploration, later abandoned: large tool results.
    let b = anchorResult;
    const steps = 20 + Math.floor(rand() * 20);
    for (let i = 0; i < steps; i++) {
      const c = call(rand() < 0.5 ? "bash" : "read", { command: "cargo test" });
      b = assistant(b, [c], 120);
      b = result(b, c, 4000 + Math.floor(rand() * 60000));
    }
    const cr = call("navigate_tree", { action: "rewind", name: `try-${rewinds}` });
    b = assistant(b, [cr], 40);
    // The rewind: a branch summary on a sibling, back at the anchor's result.
    const summary = { type: "branch_summary", id: id(), parentId: anchorResult, timestamp: ts(), fromId: b, summary: text(1500), details: { readFiles: ["src/x.rs"], modifiedFiles: [] } };
    emit(summary);
    emit({ type: "label", id: id(), parentId: summary.id, timestamp: ts(), targetId: summary.id, label: `anchor:after-${rewinds}` });
    const turn = assistant(summary.id, [cr], 40);
    leaf = result(turn, cr, 200);
    context = 20000;
    rewinds++;
    if (!compacted && written + bufLen > target * 0.97) {
      // A compaction that keeps the last turn (from its assistant call: a kept tool result needs its call).
      const kept = turn;
      leaf = message(leaf, { role: "user", content: [{ type: "text", text: text(200) }] });
      const comp = { type: "compaction", id: id(), parentId: leaf, timestamp: ts(), summary: text(4000), firstKeptEntryId: kept, tokensBefore: context };
      emit(comp);
      leaf = comp.id;
      compacted = true;
    }
  }
  leaf = message(leaf, { role: "user", content: [{ type: "text", text: "Now summarise what changed." }] });
  leaf = assistant(leaf, [], 400);
  flush();
  closeSync(fd);
  return { bytes: written, entries: lines - 1, rewinds, compacted };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [file, mb, cwd] = process.argv.slice(2);
  if (!file || !Number(mb)) {
    console.error("usage: node tests/bench/long-session.mjs <file> <mb> [cwd]");
    process.exit(2);
  }
  process.stdout.write(JSON.stringify(writeLongSession(file, { mb: Number(mb), cwd })) + "\n");
}
