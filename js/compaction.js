// Cache-preserving compaction. pi's own compaction summary request is cold by design (its own system prompt,
// the conversation serialized into one user message), so every compaction bills the whole context again as
// fresh input. pi asks extensions first (`session_before_compact`); here the answer is a summary written by
// the request pi sent last for the session (captured by js/cache-summary.js), replayed unchanged through the
// host's model registry with the live session id, plus one instruction carrying pi's compaction format: the
// provider reads that prefix from its prompt cache. The summary is the model's checkpoint and the ledger of what
// the compaction removes (issue 30's, from the entries pi holds); pi's own cut, `tokensBefore` and file lists are
// returned, and pi appends its compaction entry as always.
//
// The core decides (src/compaction.rs): whether the live request can be reused and why not, the instruction,
// what a reply means, the summary and its file lists, the notices. This file captures, measures, sends and
// returns. When the core says no, pi compacts on its own (the handler returns nothing) — never a failed
// compaction; an abort by the user cancels (pi reports it cancelled), never a cold request after it.
import * as piPackage from "@earendil-works/pi-coding-agent";
import { envFlag, ledgerTokensOf } from "./agent.js";
import { replayMessages, replayOptions } from "./cache-summary.js";
import { isUsage, takesUsage } from "./host.js";

/** Env kill switch (any value but "", "0", "false"). */
export const ENV_NO_CACHE_COMPACTION = "PI_TREE_NAVIGATOR_NO_CACHE_COMPACTION";

/** Outcomes kept for inspection (`registry().compactions`, newest last): tests and the doctor read them. */
export const MAX_OUTCOMES = 32;

function safe(fn, fallback) {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

const nonSystem = (messages) => messages.filter((m) => m?.role !== "system");
const strings = (xs) => (Array.isArray(xs) && xs.every((x) => typeof x === "string") ? xs : undefined);

/** The newest compaction on the branch, as far as its file lists go (`PreviousCompaction`), or null. */
function previousCompaction(branch) {
  const entry = Array.isArray(branch) ? branch.findLast((e) => e?.type === "compaction") : undefined;
  if (!entry) return null;
  return { fromHook: entry.fromHook === true, readFiles: strings(entry.details?.readFiles), modifiedFiles: strings(entry.details?.modifiedFiles) };
}

/** pi's `preparation.fileOps` (Sets) as arrays. */
function fileOpsOf(preparation) {
  const list = (x) => (x && typeof x[Symbol.iterator] === "function" ? [...x].filter((f) => typeof f === "string") : []);
  const ops = preparation?.fileOps;
  return { read: list(ops?.read), written: list(ops?.written), edited: list(ops?.edited) };
}

/** The prompt tokens the provider counted for the captured request: the usage of the reply to it. */
function captureTokens(branch, captureLeaf) {
  const at = branch.findIndex((e) => e.id === captureLeaf);
  if (at < 0) return null;
  const reply = branch.slice(at + 1).find((e) => e.type === "message" && e.message?.role === "assistant")?.message;
  const u = reply?.usage;
  if (!u || reply.stopReason === "error" || reply.stopReason === "aborted") return null;
  const tokens = [u.input, u.cacheRead, u.cacheWrite].reduce((sum, x) => sum + (Number.isFinite(x) ? x : 0), 0);
  return tokens > 0 ? tokens : null;
}

/**
 * Lines the captured request up with the compaction pi prepared: the capture must be the start of the
 * context pi compacts (same messages), and pi's messages to summarize (then a split turn's prefix) must sit
 * right after the previous summary (if any), as pi's `prepareCompaction` takes them. Messages after the
 * capture are sent only when pi summarizes some of them (the provider has not cached them yet).
 */
async function alignReplay(capture, ctx, event, pkg) {
  const sm = ctx.sessionManager;
  const prep = event.preparation;
  const convert = pkg.convertToLlm;
  const build = pkg.buildSessionContext;
  if (typeof convert !== "function" || typeof build !== "function") throw new Error("host lacks convertToLlm/buildSessionContext");
  const llm = await replayMessages(capture, ctx, pkg);
  const captured = nonSystem(llm);
  const current = nonSystem(await convert(build(sm.getEntries(), sm.getLeafId()).messages));
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const isPrefix = captured.length <= current.length && captured.every((m, i) => same(m, current[i]));
  const history = nonSystem(await convert(prep.messagesToSummarize ?? []));
  const prefix = nonSystem(await convert(prep.turnPrefixMessages ?? []));
  const start = typeof prep.previousSummary === "string" ? 1 : 0;
  const end = start + history.length + prefix.length;
  const rangeFound = end > start && same(current.slice(start, end), [...history, ...prefix]);
  const tail = isPrefix && end > captured.length ? current.slice(captured.length, end) : [];
  const range = {
    previousSummaryAt: start ? 1 : null,
    historyFirst: start + 1,
    historyCount: history.length,
    prefixCount: prefix.length,
    messageCount: captured.length + tail.length,
    customInstructions: typeof event.customInstructions === "string" ? event.customInstructions : null,
  };
  return { messages: [...llm, ...tail], tail, range, isPrefix, rangeFound, captureTokens: captureTokens(safe(() => sm.getBranch(), []), capture.leafId) };
}

/**
 * Installs the `session_before_compact` and `session_compact` handlers. `captures`: the map js/cache-summary.js
 * fills (sessionId → the last request); `resolveAuth(ctx)`: the model's credentials (host.js); `withIndex(sm, fn)`:
 * `fn` on the session's synced index; `getEntry(sm, id)`: an entry as pi holds it; `config(ctx)`: the
 * session's effective config; `showMisses()`: whether pi's `showCacheMissNotices` is on; `log`: where outcomes
 * are kept (newest last); `pkg`: the host's pi-coding-agent module (tests).
 */
export function installCompaction({ pi, core, captures, resolveAuth, withIndex, getEntry, config, showMisses, log, pkg, env = process.env }) {
  pkg ??= piPackage;
  /** SessionManager → the outcome of the compaction in flight, for the notice once pi has stored it. */
  const inFlight = new WeakMap();

  function record(ctx, outcome) {
    safe(() => inFlight.set(ctx.sessionManager, outcome));
    log.push(outcome);
    while (log.length > MAX_OUTCOMES) log.shift();
  }

  async function compactFromCache(event, ctx, api) {
    const sm = ctx.sessionManager;
    const prep = event.preparation;
    const model = ctx.model;
    const sessionId = safe(() => sm.getSessionId(), "") ?? "";
    const capture = captures.get(sessionId);
    const registry = safe(() => ctx.modelRegistry, undefined);
    const stream = safe(() => registry?.streamSimple, undefined);
    const facts = {
      enabled: config(ctx)?.cacheCompaction !== false && !envFlag(ENV_NO_CACHE_COMPACTION, env),
      hasCapture: !!capture,
      hasStream: typeof stream === "function",
      sameModel: !capture?.model || !model || capture.model === `${model.provider}/${model.id}`,
      liveRequestOverflowed: event.reason === "overflow" && event.willRetry === true,
      tokensBefore: Number(prep?.tokensBefore) || 0,
      contextWindow: Number(model?.contextWindow) || 0,
      maxTokens: Number(model?.maxTokens) || 0,
    };
    let plan = null;
    let instruction = "";
    if (capture && facts.enabled) {
      try {
        plan = await alignReplay(capture, ctx, event, pkg);
        instruction = api.compactionInstruction(plan.range);
        Object.assign(facts, {
          captureIsPrefix: plan.isPrefix,
          rangeFound: plan.rangeFound,
          captureTokens: plan.captureTokens,
          addedChars: JSON.stringify(plan.tail).length + instruction.length,
        });
      } catch {
        plan = null; // unreadable: the capture cannot be lined up (stale-capture)
      }
    }
    let mode = api.compactionMode(facts);
    const base = { sessionId, trigger: event.reason ?? null };
    if (mode.mode === "live-prefix") {
      const signal = event.signal;
      let reply;
      try {
        const auth = await resolveAuth(ctx);
        if (auth?.ok === false) throw new Error(String(auth.error ?? "no credentials"));
        const headers = api.summaryHeaders(String(model?.provider ?? ""), auth?.headers ?? null, sessionId);
        const options = replayOptions({ auth: { ...auth, headers }, sessionId, signal, pi, env });
        if (mode.maxTokens != null) options.maxTokens = mode.maxTokens;
        const messages = [...plan.messages, { role: "user", content: [{ type: "text", text: instruction }], timestamp: Date.now() }];
        reply = await stream.call(registry, model, { messages }, options).result();
      } catch {
        reply = undefined;
      }
      const content = Array.isArray(reply?.content) ? reply.content : [];
      const text = content.filter((c) => c?.type === "text" && typeof c.text === "string").map((c) => c.text).join("");
      const verdict = api.compactionReplyVerdict(
        typeof reply?.stopReason === "string" ? reply.stopReason : null,
        text,
        content.some((c) => c?.type === "toolCall"),
        signal?.aborted === true,
      );
      const usage = reply?.usage;
      if (verdict === "cancel") {
        record(ctx, { ...base, mode: "cancelled", usage: usage ?? null });
        return { cancel: true };
      }
      if (verdict === "summary") {
        const previous = previousCompaction(event.branchEntries);
        const parts = { reply: text, range: plan.range, previousSummary: prep.previousSummary ?? null, ledgerTokens: ledgerTokensOf(config(ctx), env) };
        // The ledger of what the compaction removes: the core picks the entries, pi holds their text.
        const result = withIndex(sm, (index) => {
          const span = index.compactionSpan(prep.firstKeptEntryId).map((id) => getEntry(sm, id));
          return index.compactionResult(span, parts, fileOpsOf(prep), previous);
        });
        record(ctx, { ...base, mode: mode.mode, maxTokens: mode.maxTokens ?? null, usage: usage ?? null, ledgerTokens: result.ledgerTokens });
        const compaction = { summary: result.summary, firstKeptEntryId: prep.firstKeptEntryId, tokensBefore: prep.tokensBefore, details: result.details };
        // Where pi keeps it: its entry's `usage` (pi ≥0.87 appends it: `appendCompaction(…, fromHook, usage)`),
        // else our details (pi's own totals then miss it; the plugin's cost model reads it there).
        if (isUsage(usage)) {
          if (safe(() => takesUsage(sm.appendCompaction, 6), false)) compaction.usage = usage;
          else compaction.details = { ...compaction.details, summaryUsage: usage };
        }
        return { compaction };
      }
      mode = api.compactionMode({ ...facts, streamFailed: true });
      base.failedUsage = usage ?? null;
    }
    // pi compacts on its own. It leaves out the file lists of a previous compaction an extension supplied
    // (ours): they go into its preparation, so its lists stay cumulative.
    const carried = api.compactionCarriedFiles(previousCompaction(event.branchEntries));
    const ops = prep?.fileOps;
    for (const [key, files] of Object.entries(carried)) {
      if (typeof ops?.[key]?.add === "function") for (const f of files) ops[key].add(f);
    }
    record(ctx, { ...base, mode: mode.mode, reason: mode.reason });
    return undefined;
  }

  pi.on("session_before_compact", async (event, ctx) => {
    const api = safe(core, null);
    if (!api || !event?.preparation) return undefined;
    try {
      return await compactFromCache(event, ctx, api);
    } catch {
      // Never a failed compaction because of the plugin: pi compacts on its own (an abort still stops it:
      // pi checks its signal before its own request).
      return undefined;
    }
  });

  pi.on("session_compact", (event, ctx) => {
    const outcome = safe(() => inFlight.get(ctx.sessionManager), undefined);
    if (!outcome) return undefined;
    safe(() => inFlight.delete(ctx.sessionManager));
    const api = safe(core, null);
    const ui = safe(() => (ctx.hasUI ? ctx.ui : undefined), undefined);
    if (!api || typeof ui?.notify !== "function") return undefined;
    // pi's own compaction: its usage is the entry's (pi ≥0.87 stores it).
    const usage = outcome.mode === "live-prefix" ? outcome.usage : (event?.compactionEntry?.usage ?? outcome.failedUsage);
    const n = (x) => (typeof x === "number" && Number.isFinite(x) ? x : null);
    let lines = [];
    try {
      lines = api.compactionNotices({ mode: outcome.mode, reason: outcome.reason ?? null, cacheRead: n(usage?.cacheRead), input: n(usage?.input), cacheWrite: n(usage?.cacheWrite) }, safe(showMisses, false) === true);
    } catch {
      return undefined;
    }
    // pi clears and re-renders its chat when the compaction ends (after this event): the lines go after that.
    setTimeout(() => {
      for (const line of lines) safe(() => ui.notify(line.text, line.level));
    }, 0);
    return undefined;
  });
}
