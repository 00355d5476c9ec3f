// Realistic pi session files for the benchmarks (deterministic from a seed).
//
// Unlike tests/diff/generate.mjs (adversarial shapes for correctness), these look like a long autonomous
// coding run with this plugin: user prompts, assistant turns with thinking and 1–3 tool calls (read, bash,
// edit, grep, write) whose results are mostly small but sometimes large (file reads up to ~60 KB), usage on
// every assistant message tracking the growing context, navigate_tree anchors (assistant call → label →
// result, as the plugin writes them), rewinds (branch_summary on a sibling branch back at an anchor + its
// `anchor:<labelEnd>` label + the synthetic assistant + the tool result), plain user labels, model and
// thinking-level changes, extension `custom` entries, a few aborted/error stops, and compactions whenever the
// context passes pi's auto-compaction threshold (so usage and % stay in a 128k window, as in a real run).
//
// generateBase(entries, seed) builds the tree; withAnchors(base, k) returns the JSONL text with exactly k
// `anchor:*` labels on the active path (the last entry's path): surplus anchors on the path are renamed to
// plain labels, missing ones are added as label entries at the end (as `/label anchor:x` writes them).
import { pathToFileURL } from "node:url";

function makeRng(seed) {
  let a = seed >>> 0 || 1, b = 0x9e3779b9, c = 0x243f6a88, d = 0x85a308d3;
  const u32 = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 16; i++) u32();
  const r = {
    float: () => u32() / 4294967296,
    int: (n) => Math.floor(r.float() * n),
    range: (lo, hi) => lo + r.int(hi - lo + 1),
    chance: (p) => r.float() < p,
    pick: (xs) => xs[r.int(xs.length)],
    /** Log-uniform integer in [lo, hi]: many small values, a long tail of large ones. */
    logRange: (lo, hi) => Math.round(Math.exp(Math.log(lo) + r.float() * (Math.log(hi) - Math.log(lo)))),
    weighted(table) {
      let total = 0;
      for (const [w] of table) total += w;
      let x = r.float() * total;
      for (const [w, v] of table) if ((x -= w) < 0) return v;
      return table[table.length - 1][1];
    },
  };
  return r;
}

// ---- text corpus: code-ish and prose lines; slices of it make tool output and messages ------------------
const IDENT = ["index", "entry", "parent", "leaf", "tokens", "session", "label", "anchor", "path", "context", "build", "parse",
  "value", "result", "error", "config", "options", "buffer", "reader", "writer", "state", "cache", "node", "tree", "items"];
const PROSE = ["the", "parser", "now", "handles", "empty", "input", "and", "returns", "an", "error", "when", "a", "line",
  "is", "malformed", "I", "will", "run", "tests", "again", "after", "fixing", "this", "function", "so", "that", "it",
  "keeps", "order", "check", "file", "changes", "done", "next", "step", "looks", "good", "café", "naïve", "→", "✓", "—"];

function buildCorpus(rng) {
  const lines = [];
  let size = 0;
  while (size < 1 << 20) {
    const kind = rng.int(6);
    let line;
    const id = () => rng.pick(IDENT) + (rng.chance(0.3) ? rng.pick(["Id", "Count", "s", "_map", "Ref"]) : "");
    const indent = " ".repeat(4 * rng.int(4));
    if (kind === 0) line = `${indent}let ${id()} = ${id()}.${id()}(${id()}, ${rng.int(1000)});`;
    else if (kind === 1) line = `${indent}if ${id()}.is_empty() { return Err(Error::${rng.pick(["Parse", "Io", "Missing"])}("${rng.pick(PROSE)} ${rng.pick(PROSE)}")); }`;
    else if (kind === 2) line = `${indent}// ${Array.from({ length: rng.range(3, 12) }, () => rng.pick(PROSE)).join(" ")}`;
    else if (kind === 3) line = `src/${id()}.rs:${rng.range(1, 900)}:${rng.range(1, 80)}: ${id()}(${id()})`;
    else if (kind === 4) line = `test ${id()}::${id()}_${id()} ... ${rng.chance(0.9) ? "ok" : "FAILED"}`;
    else line = `${indent}fn ${id()}_${id()}(&mut self, ${id()}: &str) -> Result<${rng.pick(["usize", "String", "()"])}, Error> {`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}

function slicer(rng, corpus) {
  return (n) => {
    if (n <= 0) return "";
    if (n >= corpus.length) return corpus.repeat(Math.ceil(n / corpus.length)).slice(0, n);
    const at = rng.int(corpus.length - n);
    return corpus.slice(at, at + n);
  };
}

function prose(rng, minWords, maxWords) {
  const n = rng.range(minWords, maxWords);
  const out = new Array(n);
  for (let i = 0; i < n; i++) out[i] = rng.pick(PROSE);
  return out.join(" ");
}

/** pi's auto-compaction threshold for a 128k window (contextWindow − reserveTokens 16384). */
const COMPACT_AT = 128000 - 16384;
const MODEL = { api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5" };

/**
 * The tree of one session: { header, entries: [{obj}], anchorLabelIdx: Map<labelEntryIndex, name> }.
 * `entries` counts every entry (labels, summaries, …); the file has one more line (the header).
 */
export function generateBase(total, seed = 1) {
  const rng = makeRng(seed ^ Math.imul(total, 0x9e3779b1));
  const text = slicer(rng, buildCorpus(rng));
  const entries = [];
  const byId = new Map();
  const ctxOf = new Map(); // id → approximate context tokens at that entry (chars/4 along its path)
  const ownOf = new Map(); // id → approximate tokens of the entry itself
  const usedIds = new Set();
  let leaf = null;
  let t = Date.UTC(2026, 0, 5, 9, 0, 0);
  let callSeq = 0;
  let anchorSeq = 0;
  const anchorsOnPath = []; // [{name, entryId, pathLen}] stack of anchors on the current path (for rewinds)
  let pathLen = 0;
  const pathLenOf = new Map();

  const newId = () => {
    for (;;) {
      const id = (rng.int(0x10000000) + 0x10000000 * rng.int(16)).toString(16).padStart(8, "0");
      if (!usedIds.has(id)) {
        usedIds.add(id);
        return id;
      }
    }
  };
  const tick = (lo = 200, hi = 30000) => (t += rng.range(lo, hi));
  const append = (type, fields, parentId = leaf, chars = 0, ctx) => {
    const id = newId();
    const obj = { type, id, parentId, timestamp: new Date(tick()).toISOString(), ...fields };
    entries.push({ obj });
    byId.set(id, obj);
    ownOf.set(id, Math.ceil(chars / 4));
    ctxOf.set(id, ctx ?? (parentId ? ctxOf.get(parentId) : 0) + Math.ceil(chars / 4));
    pathLenOf.set(id, (parentId ? pathLenOf.get(parentId) : 0) + 1);
    leaf = id;
    pathLen = pathLenOf.get(id);
    return id;
  };
  const message = (msg, chars) => append("message", { message: msg }, leaf, chars);
  const usage = () => {
    const ctx = ctxOf.get(leaf) ?? 0;
    const output = rng.range(20, 1500);
    const cacheRead = Math.max(0, Math.round(ctx * rng.range(70, 98) / 100));
    const input = Math.max(0, ctx - cacheRead) + rng.range(50, 400);
    const totalTokens = input + output + cacheRead;
    return {
      input, output, cacheRead, cacheWrite: 0, totalTokens,
      cost: { input: input * 3e-6, output: output * 15e-6, cacheRead: cacheRead * 3e-7, cacheWrite: 0, total: input * 3e-6 + output * 15e-6 + cacheRead * 3e-7 },
    };
  };
  const assistant = (content, stopReason, chars) => {
    const msg = { role: "assistant", content, ...MODEL, usage: usage(), stopReason, timestamp: t };
    if (stopReason === "error") msg.errorMessage = "overloaded_error: Overloaded";
    if (stopReason === "aborted") msg.errorMessage = "Request was aborted";
    return message(msg, chars);
  };
  const toolResult = (call, body, isError = false) =>
    message({ role: "toolResult", toolCallId: call.id, toolName: call.name, content: [{ type: "text", text: body }], isError, timestamp: t }, body.length);

  const toolCall = () => {
    const name = rng.weighted([[30, "read"], [35, "bash"], [18, "edit"], [10, "grep"], [7, "write"]]);
    const id = `toolu_${(++callSeq).toString(36).padStart(6, "0")}${rng.int(1e6).toString(36)}`;
    const path = `src/${rng.pick(IDENT)}/${rng.pick(IDENT)}.rs`;
    let args, result;
    if (name === "read") {
      args = { path };
      result = text(rng.chance(0.05) ? rng.range(20000, 60000) : rng.logRange(300, 16000));
    } else if (name === "bash") {
      args = { command: rng.pick(["cargo test", "cargo build --release", "git diff --stat", "npm test", "ls -la src", "rg -n TODO src"]) };
      result = text(rng.chance(0.04) ? rng.range(10000, 30000) : rng.logRange(40, 4000));
    } else if (name === "edit") {
      const oldText = text(rng.logRange(40, 800));
      args = { path, oldText, newText: text(rng.logRange(40, 900)) };
      result = rng.chance(0.7) ? `Successfully replaced text in ${path}.` : text(rng.logRange(200, 2000));
    } else if (name === "grep") {
      args = { pattern: rng.pick(IDENT), path: "src" };
      result = text(rng.logRange(100, 3000));
    } else {
      args = { path, content: text(rng.logRange(200, 6000)) };
      result = `Successfully wrote ${args.content.length} bytes to ${path}`;
    }
    return { call: { type: "toolCall", id, name, arguments: args }, result, argChars: JSON.stringify(args).length };
  };

  // One agent turn: assistant (thinking?, text?, tool calls) + results.
  const turn = () => {
    const content = [];
    let chars = 0;
    if (rng.chance(0.5)) {
      const thinking = prose(rng, 10, 250);
      content.push({ type: "thinking", thinking, thinkingSignature: "sig_" + rng.int(1e9).toString(36).repeat(8) });
      chars += thinking.length;
    }
    if (rng.chance(0.6)) {
      const said = prose(rng, 4, 80);
      content.push({ type: "text", text: said });
      chars += said.length;
    }
    const calls = [];
    for (let i = rng.weighted([[75, 1], [18, 2], [7, 3]]); i > 0; i--) calls.push(toolCall());
    for (const c of calls) {
      content.push(c.call);
      chars += c.call.name.length + c.argChars;
    }
    const stop = rng.chance(0.005) ? "aborted" : rng.chance(0.004) ? "error" : "toolUse";
    assistant(content, stop, chars);
    if (stop !== "toolUse") return;
    for (const c of calls) toolResult(c.call, c.result, rng.chance(0.05));
  };

  const userPrompt = () => {
    const body = rng.chance(0.15) ? prose(rng, 60, 400) + "\n\n" + text(rng.logRange(200, 3000)) : prose(rng, 5, 80);
    message({ role: "user", content: rng.chance(0.8) ? body : [{ type: "text", text: body }], timestamp: t }, body.length);
  };

  const finalAnswer = () => {
    const said = prose(rng, 20, 300);
    assistant([{ type: "text", text: said }], "stop", said.length);
  };

  const navCall = (args) => {
    const id = `toolu_nav${(++callSeq).toString(36)}`;
    return { type: "toolCall", id, name: "navigate_tree", arguments: args };
  };

  // The plugin's anchor: assistant(call) → label(target = entry before the assistant) → toolResult.
  const anchor = () => {
    const target = leaf;
    const name = `step-${(++anchorSeq).toString(36)}`;
    const call = navCall({ action: "anchor", name });
    assistant([{ type: "text", text: "Marking this point." }, call], "toolUse", 60);
    append("label", { targetId: target, label: `anchor:${name}` });
    anchorsOnPath.push({ name, entryId: target, pathLen: pathLenOf.get(target) });
    toolResult(call, `[anchor '${name}'] set at ${(ctxOf.get(target) / 1280).toFixed(1)}% of 128k`);
  };

  // The plugin's rewind: assistant(call) on the old branch, branch_summary under the anchor, label for
  // labelEnd on the summary, the synthetic assistant carrying the call, and the tool result.
  const rewind = () => {
    const candidates = anchorsOnPath.filter((a) => pathLen - a.pathLen >= 12);
    if (!candidates.length) return false;
    const start = candidates[Math.max(0, candidates.length - 1 - rng.int(Math.min(3, candidates.length)))];
    const endName = `step-${(++anchorSeq).toString(36)}`;
    const focus = `User's latest instruction, verbatim: '${prose(rng, 5, 20)}'. Done: ${prose(rng, 10, 40)}. Left: ${prose(rng, 5, 30)}.`;
    const call = navCall({ action: "rewind", labelStart: start.name, labelEnd: endName, summaryFocus: focus });
    assistant([call], "toolUse", focus.length + 60);
    const oldLeaf = leaf;
    const summary = "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n" +
      `## Goal\n${prose(rng, 10, 40)}\n## Progress\n### Done\n- ${prose(rng, 20, 120)}\n### In Progress\n- ${prose(rng, 5, 40)}\n## Next Steps\n- ${prose(rng, 5, 40)}` +
      `\n\n<read-files>\nsrc/${rng.pick(IDENT)}.rs\nsrc/${rng.pick(IDENT)}.rs\n</read-files>`;
    const summaryId = append("branch_summary", { fromId: start.entryId, summary, details: { readFiles: [], modifiedFiles: [] } }, start.entryId, summary.length);
    // drop the anchors that were abandoned
    while (anchorsOnPath.length && anchorsOnPath[anchorsOnPath.length - 1] !== start) anchorsOnPath.pop();
    append("label", { targetId: summaryId, label: `anchor:${endName}` });
    anchorsOnPath.push({ name: endName, entryId: summaryId, pathLen: pathLenOf.get(summaryId) });
    const synthetic = { ...call, arguments: { action: "rewind", labelStart: start.name, labelEnd: endName, summaryFocus: focus.slice(0, 1024) } };
    assistant([synthetic], "toolUse", 60);
    toolResult(call, `[rewind '${start.name}' → '${endName}'] · context ${(ctxOf.get(oldLeaf) / 1280).toFixed(1)}% → ${(ctxOf.get(leaf) / 1280).toFixed(1)}% of 128k`);
    return true;
  };

  const header = { type: "session", version: 3, id: "019b8e2a-1c00-7000-8000-0000000bench", timestamp: new Date(t).toISOString(), cwd: "/home/dev/project" };
  append("model_change", { provider: "anthropic", modelId: "claude-sonnet-4-5" });
  append("thinking_level_change", { thinkingLevel: "medium" });
  userPrompt();
  let sinceUser = 0;
  let sinceAnchor = 0;
  let sinceRewind = 0;
  while (entries.length < total) {
    const before = entries.length;
    if (sinceUser > rng.range(20, 80)) {
      finalAnswer();
      if (rng.chance(0.05)) append("custom", { customType: "todo-tracker", data: { open: rng.int(9), done: rng.int(20) } });
      if (rng.chance(0.04)) append("model_change", { provider: "anthropic", modelId: rng.pick(["claude-sonnet-4-5", "claude-opus-4-1"]) });
      if (rng.chance(0.03)) append("thinking_level_change", { thinkingLevel: rng.pick(["low", "medium", "high"]) });
      if (rng.chance(0.05)) append("label", { targetId: leaf, label: rng.pick(["checkpoint", "bug-found", "tests-green", "wip"]) });
      userPrompt();
      sinceUser = 0;
    } else if (sinceAnchor > rng.range(15, 60)) {
      anchor();
      sinceAnchor = 0;
    } else if (sinceRewind > rng.range(60, 250) && rewind()) {
      sinceRewind = 0;
    } else if (ctxOf.get(leaf) > COMPACT_AT) {
      // pi's auto-compaction: context above window − reserve; keep ~20k recent tokens
      let kept = 0;
      let first = leaf;
      for (let cur = leaf; cur && kept < 20000; cur = byId.get(cur).parentId) {
        if (byId.get(cur).type === "compaction") break;
        kept += ownOf.get(cur);
        first = cur;
      }
      const summary = `## Goal\n${prose(rng, 20, 60)}\n## Progress\n${prose(rng, 80, 300)}\n## Next Steps\n${prose(rng, 10, 60)}`;
      append("compaction", { summary, firstKeptEntryId: first, tokensBefore: ctxOf.get(leaf) }, leaf, summary.length, kept + Math.ceil(summary.length / 4));
    } else {
      turn();
    }
    const added = entries.length - before;
    sinceUser += added;
    sinceAnchor += added;
    sinceRewind += added;
  }
  entries.length = total; // the last step may overshoot by a few entries
  return { header, entries };
}

/** Active path (root → leaf) of the last entry, as indexes into `entries`. */
function activePath(entries) {
  const at = new Map(entries.map((e, i) => [e.obj.id, i]));
  const path = [];
  for (let i = entries.length - 1; i !== undefined; ) {
    path.push(i);
    const p = entries[i].obj.parentId;
    i = p ? at.get(p) : undefined;
  }
  return path.reverse();
}

/**
 * JSONL text of `base` with exactly `k` anchors on the active path. Returns
 * { text, entryCount, anchors: [names on the path, root → leaf], bytes }.
 */
export function withAnchors(base, k) {
  const entries = base.entries.map((e) => ({ obj: e.obj }));
  const path = activePath(entries);
  // Replay labels like pi: latest label per target wins.
  const labelOf = new Map(); // targetId → entry index of the live label entry
  entries.forEach((e, i) => {
    if (e.obj.type === "label") labelOf.set(e.obj.targetId, i);
  });
  const live = path
    .map((i) => entries[i].obj.id)
    .filter((id) => labelOf.has(id) && String(entries[labelOf.get(id)].obj.label).startsWith("anchor:"));
  if (live.length > k) {
    // keep k evenly spread; the rest become plain labels
    const keep = new Set(Array.from({ length: k }, (_, j) => live[Math.floor(((j + 0.5) * live.length) / k)]));
    for (const id of live) {
      if (keep.has(id)) continue;
      const i = labelOf.get(id);
      entries[i] = { obj: { ...entries[i].obj, label: entries[i].obj.label.replace(/^anchor:/, "note:") } };
    }
  } else if (live.length < k) {
    // add labels on unlabelled message entries of the path, evenly spread, appended at the end
    const free = path.filter((i) => entries[i].obj.type === "message" && !labelOf.has(entries[i].obj.id));
    const need = k - live.length;
    let t = Date.parse(entries[entries.length - 1].obj.timestamp);
    let leaf = entries[entries.length - 1].obj.id;
    for (let j = 0; j < need; j++) {
      const target = entries[free[Math.floor(((j + 0.5) * free.length) / need)]].obj.id;
      const id = `e${(j + 1).toString(16).padStart(7, "0")}`;
      t += 1000;
      entries.push({ obj: { type: "label", id, parentId: leaf, timestamp: new Date(t).toISOString(), targetId: target, label: `anchor:mark-${j + 1}` } });
      leaf = id;
    }
  }
  const lines = [JSON.stringify(base.header)];
  for (const e of entries) lines.push(JSON.stringify(e.obj));
  const text = lines.join("\n") + "\n";
  return { text, entryCount: entries.length, bytes: Buffer.byteLength(text) };
}

// CLI: node tests/bench/gen.mjs <entries> <anchors,…> <out dir>   → <out dir>/s<entries>-a<anchors>.jsonl
//      (prints {file: {anchors, entries, bytes}} as JSON; the benchmarks generate in a child process so
//      the generator's objects never sit in the measuring process's heap)
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { writeFileSync } = await import("node:fs");
  const { join } = await import("node:path");
  const n = Number(process.argv[2] ?? 1000);
  const ks = String(process.argv[3] ?? "10").split(",").map(Number);
  const dir = process.argv[4] ?? ".";
  const base = generateBase(n);
  const out = {};
  for (const k of ks) {
    const s = withAnchors(base, k);
    const file = join(dir, `s${n}-a${k}.jsonl`);
    writeFileSync(file, s.text);
    out[k] = { file, entries: s.entryCount, bytes: s.bytes };
  }
  console.log(JSON.stringify(out));
}
