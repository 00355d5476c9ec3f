// A generated priced run, as a session file's text: what the docs' screenshot and the viewer's cost tests show
// (never a real user's session). An anchor, big reads, a rewind of navigate_tree to the anchor (as the tool writes
// one: its call on the abandoned branch, which keeps its requests; the summary, its label, the synthetic call and
// its result on the new one), five more requests, a compaction served from the cache, twelve more; every request
// priced as pi prices one at Claude Sonnet's rates (USD per million tokens), one of them a cache miss.
const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

/** A usage with pi's cost fields. */
export function usageOf(input, output, cacheRead, cacheWrite) {
  const c = { input: (input * PRICE.input) / 1e6, output: (output * PRICE.output) / 1e6, cacheRead: (cacheRead * PRICE.cacheRead) / 1e6, cacheWrite: (cacheWrite * PRICE.cacheWrite) / 1e6 };
  return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost: { ...c, total: c.input + c.output + c.cacheRead + c.cacheWrite } };
}

/** The run's JSONL text. */
export function pricedRun() {
  const start = Date.UTC(2026, 10, 1, 9, 0, 0);
  let n = 0;
  let parent = null;
  const lines = [{ type: "session", version: 3, id: "priced-run", timestamp: new Date(start).toISOString(), cwd: "/work/demo" }];
  const at = () => new Date(start + ++n * 4000).toISOString();
  const add = (entry, under = parent) => {
    const e = { ...entry, id: `e${String(n + 1).padStart(7, "0")}`, parentId: under, timestamp: at() };
    lines.push(e);
    parent = e.id;
    return e.id;
  };
  const user = (text) => add({ type: "message", message: { role: "user", content: text, timestamp: start + n } });
  let prompt = 3000;
  const reply = (text, { read = true, calls = [] } = {}) => {
    const cacheRead = read ? prompt - 400 : 0;
    const id = add({
      type: "message",
      message: {
        role: "assistant", content: [{ type: "text", text }, ...calls.map((c, i) => ({ type: "toolCall", id: `call-${n}-${i}`, name: c.name, arguments: c.args }))],
        api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: usageOf(prompt - cacheRead, 300, cacheRead, read ? 400 : prompt - cacheRead), stopReason: calls.length ? "toolUse" : "stop", timestamp: start + n,
      },
    });
    prompt += 700;
    return id;
  };
  const read = (path, chars) => {
    reply(`Reading ${path}.`, { calls: [{ name: "read", args: { path } }] });
    add({ type: "message", message: { role: "toolResult", toolCallId: `call-${n - 1}-0`, toolName: "read", content: [{ type: "text", text: `${path}\n${"x".repeat(chars)}` }], isError: false, timestamp: start + n } });
    prompt += chars / 4;
  };

  user("Find why the nightly build fails and fix it.");
  const anchorAt = reply("Setting an anchor before the investigation.");
  add({ type: "label", targetId: anchorAt, label: "anchor:investigate" });
  for (const f of ["build.log", "ci/nightly.yml", "src/build.rs", "Cargo.lock"]) read(f, 24_000);
  const rewind = { action: "rewind", labelStart: "investigate", labelEnd: "lockfile-found", summaryFocus: "Found: a stale Cargo.lock. Left: update it." };
  const callId = `call-${n}-0`;
  const abandonedTip = reply("The failure is a stale lockfile; rewinding to keep only that.", { calls: [{ name: "navigate_tree", args: rewind }] });
  // The rewind: a summary under the anchor, which records its request's usage (the cache path: mostly cache reads),
  // its label, and the tool's synthetic call (no usage of its own: no request) with the rewind's result.
  const summary = add({ type: "branch_summary", fromId: abandonedTip, summary: "The nightly build fails on a stale Cargo.lock (serde 1.0.200 pinned).", usage: usageOf(900, 250, prompt - 900, 0) }, anchorAt);
  add({ type: "label", targetId: summary, label: "anchor:lockfile-found" });
  add({ type: "message", message: { role: "assistant", content: [{ type: "toolCall", id: callId, name: "navigate_tree", arguments: rewind }], api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: usageOf(0, 0, 0, 0), stopReason: "toolUse", timestamp: start + n } });
  add({ type: "message", message: { role: "toolResult", toolCallId: callId, toolName: "navigate_tree", content: [{ type: "text", text: "[rewind 'investigate' → 'lockfile-found']" }], isError: false, timestamp: start + n } });
  prompt = 4200;
  user("Update the lockfile and rebuild.");
  for (let i = 0; i < 5; i++) reply(`Step ${i + 1} of the fix.`, { read: i !== 2 });
  for (const f of ["tests/build.rs", "docs/ci.md"]) read(f, 30_000);
  // A compaction through the cache: its summary request reads the context from the cache.
  const kept = user("Now write the changelog entry.");
  const before = prompt;
  add({ type: "compaction", summary: "Checkpoint: lockfile updated, nightly build green, tests pass.", firstKeptEntryId: kept, tokensBefore: before, fromHook: true, usage: usageOf(1200, 600, before - 1200, 0) });
  prompt = 2600;
  for (let i = 0; i < 12; i++) reply(i < 3 ? `Changelog, part ${i + 1}.` : `Release step ${i - 2}.`);
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}
