// Sessions holding ledgered summaries (issue 30), for the differential test: pi must build the same context, estimate
// and labels from a session whose branch summaries carry the ledger as the plugin writes it. `RunWriter` (also used by
// tests/bench/ledger-bench.mjs) continues a session the way a real run does and carries out its rewinds through the
// built package exactly as the extension does: `toolPlan` plans it, `rewindSummary` writes the summary with the ledger
// of the collapsed entries as pi holds them, the summary is appended as pi's `branchWithSummary` stores it (parent =
// the target, `fromId` = the abandoned leaf, `details`), then `rewindFinish`'s labels, synthetic assistant and result.
//
// `addLedgeredSessions`: every `every`-th generated session (current format) is continued by an anchor on an entry of its
// active branch, work after it — a `read`, a failed `bash` with a compiler error, its location and a test summary
// (plus bulk, so the rewind saves enough once its summary and ledger are counted), a user message, a `write` — and the rewind, then written as a new session
// of the batch with the summary, the target and the abandoned leaf among its leaves. The random session's own entries
// are collapsed with the planted ones, whatever they hold.
import { readFileSync, writeFileSync } from "node:fs";

const MODEL = { api: "faux", provider: "faux", id: "faux-1" };
const CARGO = "error[E0308]: mismatched types\n  --> src/parser.rs:42:7\n\ntest result: FAILED. 12 passed; 2 failed\n\nCommand exited with code 101";

/** The entries of a session file, in order (the header and unreadable lines left out). */
function entriesOf(text) {
  const out = [];
  for (const line of text.split("\n")) {
    try {
      const e = JSON.parse(line);
      if (e && typeof e === "object" && e.type !== "session" && typeof e.id === "string") out.push(e);
    } catch {}
  }
  return out;
}

/**
 * A session being continued: entries appended as pi appends them (ids `<prefix>x<n>`, parent = the leaf), fed to a
 * plugin index of the package `api` under `hostVersion`. `usage`: what each assistant reports as its context (a
 * number, or a function of the writer) — the rewind's "before".
 */
export class RunWriter {
  constructor(api, { hostVersion, text = "", prefix = "w", start = Date.parse("2027-01-01T00:00:00.000Z"), usage = 300_000 }) {
    this.index = api.SessionIndex.plugin();
    this.index.setHostVersion(hostVersion);
    if (text) this.index.appendJsonl(text);
    this.known = new Map(entriesOf(text).map((e) => [e.id, e]));
    this.lines = [];
    this.leaf = this.index.leafId();
    this.prefix = prefix;
    this.clock = start;
    this.n = 0;
    this.calls = 0;
    this.usage = usage;
  }

  free() {
    this.index.free();
  }

  /** Appends an entry under the leaf (or under `parentId`) and feeds it to the index. */
  append(fields, parentId = this.leaf) {
    const entry = { ...fields, id: `${this.prefix}x${++this.n}`, parentId, timestamp: new Date(this.clock++).toISOString() };
    this.lines.push(entry);
    this.known.set(entry.id, entry);
    this.index.appendEntries([entry]);
    this.leaf = entry.id;
    return entry;
  }

  message(m) {
    return this.append({ type: "message", message: { timestamp: this.clock, ...m } });
  }

  user(text) {
    return this.message({ role: "user", content: [{ type: "text", text }] });
  }

  /** An assistant message with `text` (optional) and tool calls `[name, args]`; returns it with the calls' ids. */
  assistant(calls, text = "") {
    const total = typeof this.usage === "function" ? this.usage(this) : this.usage + this.n;
    const content = calls.map(([name, args]) => ({ type: "toolCall", id: `${this.prefix}c${++this.calls}`, name, arguments: args }));
    if (text) content.unshift({ type: "text", text });
    const usage = { input: total - 10, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: total, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
    const entry = this.message({ role: "assistant", content, api: "faux", provider: "faux", model: "faux-1", usage, stopReason: "toolUse" });
    return { entry, ids: content.filter((c) => c.type === "toolCall").map((c) => c.id) };
  }

  result(callId, name, text, isError = false) {
    return this.message({ role: "toolResult", toolCallId: callId, toolName: name, content: [{ type: "text", text }], isError });
  }

  /** One tool call and its result. */
  tool(name, args, output, isError = false) {
    const { entry, ids } = this.assistant([[name, args]]);
    return { call: entry, result: this.result(ids[0], name, output, isError) };
  }

  label(targetId, label) {
    return this.append({ type: "label", targetId, label });
  }

  /**
   * The model's rewind to `start` as `end`, carried out as the extension does. `summary`: the summarizer's text;
   * `ledgerTokens`: the bound. Returns `{plan}` when the plan refuses, `{plan, refusal}` when the summary is refused,
   * else `{plan, written, finish, summary}`.
   */
  rewind(start, end, summary, ledgerTokens) {
    const args = { action: "rewind", labelStart: start, labelEnd: end, summaryFocus: "the user's instruction; done: the work; left: nothing" };
    const { entry: call, ids } = this.assistant([["navigate_tree", args]]);
    const facts = { callId: ids[0], contextWindow: 128000, model: MODEL, refreshReaches: true, nowMs: this.clock };
    const plan = this.index.toolPlan(args, facts);
    if (plan.kind !== "rewind") return { plan };
    const written = this.index.rewindSummary(plan.summarizeIds.map((id) => this.known.get(id)), { summary, ledgerTokens });
    // The guard is judged again on what the summary leaves (removed minus the summary and its ledger, issue 37): a
    // span the plan took can still be refused here, as the extension refuses it.
    if (written.kind !== "summary") return { plan, refusal: written };
    // pi's branchWithSummary: the summary under the target, fromId the leaf it leaves.
    const entry = this.append({ type: "branch_summary", fromId: call.id, summary: written.summary, details: written.details }, plan.targetId);
    const finish = this.index.rewindFinish(entry.id, this.clock);
    for (const w of finish.labels) this.label(w.entryId, w.label ?? undefined);
    this.message(finish.synthetic);
    this.result(ids[0], "navigate_tree", finish.text);
    return { plan, written, finish, summary: entry, call };
  }

  /** The session's new lines as JSONL. */
  jsonl() {
    return this.lines.map((l) => JSON.stringify(l)).join("\n");
  }
}

/**
 * Adds a ledgered variant of every `every`-th v3 session of `manifest` (written next to it) and returns how many
 * were added and how many such rewinds the core refused. `api`: the built package; `hostVersion`: the profile the
 * plugin index uses (the running pi's).
 */
export function addLedgeredSessions(manifest, api, { every = 10, hostVersion }) {
  let added = 0;
  let refused = 0;
  for (const session of manifest.sessions.filter((s) => !s.format && s.index % every === 0)) {
    const text = readFileSync(session.file, "utf8");
    const run = new RunWriter(api, { hostVersion, text, prefix: `led${session.index}`, start: Date.parse("2027-01-01T00:00:00.000Z") + session.index * 1000 });
    try {
      const leaf = run.leaf;
      const path = leaf ? run.index.path() : [];
      if (path.length < 2) continue;
      // The anchor: on an entry of the active branch, a third of the way down.
      const target = path[Math.floor(path.length / 3)];
      run.label(target, "anchor:led-start");
      run.tool("read", { path: "src/lexer/tokens.rs" }, "pub enum Token { Ident(String) }\n");
      run.tool("bash", { command: "cargo test" }, `${"   Compiling parser v0.1.0\n".repeat(1200)}${CARGO}`, true);
      run.user("Keep the public API of Token unchanged.");
      run.tool("write", { path: "src/parser/expr.rs", content: "pub fn expr() {}\n" }, "Successfully wrote 17 bytes");
      const done = run.rewind("led-start", "led-end", "## Goal\nthe parser\n## Progress\n### Done\n- it", 100 + (session.index % 9) * 100);
      if (!done.written) {
        refused++;
        continue;
      }
      // The planted facts are always there to list (the user's message first): a summary without its ledger would
      // test nothing new.
      if (!done.written.summary.includes("\n<ledger>\n") || !done.written.summary.includes("] Keep the public API of Token unchanged.\n")) {
        throw new Error(`session ${session.index}: no ledger in the summary: ${done.written.summary}`);
      }
      const file = session.file.replace(/\.jsonl$/, "-ledgered.jsonl");
      writeFileSync(file, `${text.endsWith("\n") || text === "" ? text : `${text}\n`}${run.jsonl()}\n`);
      const types = { ...session.types };
      for (const l of run.lines) types[l.type] = (types[l.type] ?? 0) + 1;
      manifest.sessions.push({
        index: manifest.sessions.length,
        file,
        leaves: ["$default", done.summary.id, done.plan.targetId, done.call.id, leaf],
        entryCount: session.entryCount + run.lines.length,
        types,
        features: [...session.features, "ledgered-summary"],
        base: session.index,
        ledgered: true,
      });
      added++;
    } finally {
      run.free();
    }
  }
  return { added, refused };
}
