// Sessions holding ledgered summaries (issue 30), for the differential test: pi must build the same context, estimate
// and labels from a session whose branch summaries carry the ledger as the plugin writes them.
//
// Every `every`-th generated session (current format) is continued the way a real run ends: an anchor label on an
// entry of its active branch, then work after it — a `read`, a failed `bash` with a compiler error, its location and
// a test summary (plus bulk, so the rewind saves enough), a user message, a `write` — and the model's rewind call. The
// rewind is then carried out through the built package exactly as the extension does it: `toolPlan` plans it,
// `rewindSummary` writes the summary with the ledger of the collapsed entries (the random session's own entries
// included, whatever they hold), the summary is appended as pi's `branchWithSummary` stores it (parent = the
// target, `fromId` = the abandoned leaf, `details`), then `rewindFinish`'s labels, synthetic assistant and the tool
// result. The result is written as a new session of the batch, with the summary, the target and the abandoned leaf
// among its leaves.
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
 * Adds a ledgered variant of every `every`-th v3 session of `manifest` (written into `dir`) and returns how many were
 * added. `api`: the built package; `hostVersion`: the profile the plugin index uses (the running pi's).
 */
export function addLedgeredSessions(manifest, api, { every = 10, hostVersion }) {
  let added = 0;
  let refused = 0;
  const base = manifest.sessions.filter((s) => !s.format && s.index % every === 0);
  for (const session of base) {
    const text = readFileSync(session.file, "utf8");
    const index = api.SessionIndex.plugin();
    try {
      index.setHostVersion(hostVersion);
      index.appendJsonl(text);
      const leaf = index.leafId();
      const path = leaf ? index.path() : [];
      if (path.length < 2) continue;
      let n = 0;
      let parent = leaf;
      let clock = Date.parse("2027-01-01T00:00:00.000Z") + session.index * 1000;
      const lines = [];
      const known = new Map(entriesOf(text).map((e) => [e.id, e]));
      const append = (fields) => {
        const entry = { ...fields, id: `led${session.index}x${++n}`, parentId: parent, timestamp: new Date(clock++).toISOString() };
        lines.push(entry);
        known.set(entry.id, entry);
        parent = entry.id;
        return entry;
      };
      const message = (m) => append({ type: "message", message: { timestamp: clock, ...m } });
      // Usage as a long run reports it (the rewind's "before" is the last one): above what the random session's own
      // entries report, so the rewind frees enough to be carried out.
      const usage = () => ({ input: 300_000 + n * 100, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: 300_010 + n * 100, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } });
      const assistant = (calls) => message({ role: "assistant", content: calls.map(([name, args, id]) => ({ type: "toolCall", id, name, arguments: args })), api: "faux", provider: "faux", model: "faux-1", usage: usage(), stopReason: "toolUse" });
      const result = (id, name, out, isError = false) => message({ role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text: out }], isError });
      // The anchor: on an entry of the active branch, a third of the way down.
      const target = path[Math.floor(path.length / 3)];
      append({ type: "label", targetId: target, label: "anchor:led-start" });
      assistant([["read", { path: "src/lexer/tokens.rs" }, "lr1"]]);
      result("lr1", "read", "pub enum Token { Ident(String) }\n");
      assistant([["bash", { command: "cargo test" }, "lr2"]]);
      result("lr2", "bash", `${"   Compiling parser v0.1.0\n".repeat(700)}${CARGO}`, true);
      message({ role: "user", content: [{ type: "text", text: "Keep the public API of Token unchanged." }] });
      assistant([["write", { path: "src/parser/expr.rs", content: "pub fn expr() {}\n" }, "lr3"]]);
      result("lr3", "write", "Successfully wrote 17 bytes");
      const call = assistant([["navigate_tree", { action: "rewind", labelStart: "led-start", labelEnd: "led-end", summaryFocus: "the user's instruction; done: the parser; left: nothing" }, "lr4"]]);
      index.appendEntries(lines.slice());
      index.setLeaf(call.id);
      const facts = { callId: "lr4", contextWindow: 128000, model: MODEL, refreshReaches: true, nowMs: clock };
      const plan = index.toolPlan(call.message.content[0].arguments, facts);
      if (plan.kind !== "rewind") {
        refused++;
        continue;
      }
      const written = index.rewindSummary(plan.summarizeIds.map((id) => known.get(id)), { summary: "## Goal\nthe parser\n## Progress\n### Done\n- it", ledgerTokens: 100 + (session.index % 9) * 100 });
      if (written.kind !== "summary") throw new Error(`session ${session.index}: ${written.text}`);
      // The planted facts are always there to list (the user's message first): a summary without its ledger would
      // test nothing new.
      if (!written.summary.includes("\n<ledger>\n") || !written.summary.includes("] Keep the public API of Token unchanged.\n")) {
        throw new Error(`session ${session.index}: no ledger in the summary: ${written.summary}`);
      }
      // pi's branchWithSummary: the summary under the target, fromId the leaf it leaves.
      parent = plan.targetId;
      const summary = append({ type: "branch_summary", fromId: call.id, summary: written.summary, details: written.details });
      index.appendEntries([summary]);
      const finish = index.rewindFinish(summary.id, clock);
      const more = [];
      for (const w of finish.labels) more.push(append({ type: "label", targetId: w.entryId, label: w.label ?? undefined }));
      more.push(message(finish.synthetic));
      more.push(result("lr4", "navigate_tree", finish.text));
      const file = session.file.replace(/\.jsonl$/, "-ledgered.jsonl");
      writeFileSync(file, `${text.endsWith("\n") || text === "" ? text : `${text}\n`}${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
      const types = { ...session.types };
      for (const l of lines) types[l.type] = (types[l.type] ?? 0) + 1;
      manifest.sessions.push({
        index: manifest.sessions.length,
        file,
        leaves: ["$default", summary.id, plan.targetId, call.id, leaf],
        entryCount: session.entryCount + lines.length,
        types,
        features: [...session.features, "ledgered-summary"],
        base: session.index,
        ledgered: true,
      });
      added++;
    } finally {
      index.free();
    }
  }
  return { added, refused };
}
