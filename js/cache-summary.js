// Cache-preserving branch summaries. pi's own summarizer sends a cold, standalone request, so a rewind
// bills every collapsed turn again. Here the exact request pi last sent for the session is captured
// (`context_with_system`, pi ≥0.87) and, at a rewind, replayed unchanged through the host's model
// registry with the live session id, plus one instruction message: the provider serves the prefix from its
// prompt cache. The core decides whether that is possible (`cacheMode`, with a named fallback reason) and
// writes every text; this file captures, measures and sends.
import * as piPackage from "@earendil-works/pi-coding-agent";
import { ENV_NO_CACHE_SUMMARY, envFlag } from "./agent.js";
import { outputLimit, replyText } from "./summarize.js";

/** Captures kept (sessions), least recently used out. */
export const MAX_CAPTURES = 16;

/** Installs the observer. `captures`: Map sessionId → { messages, leafId, systemPrompt, model }. Never changes the request. */
export function installCapture(pi, captures) {
  pi.on("context_with_system", (event, ctx) => {
    try {
      const sm = ctx?.sessionManager;
      const id = sm?.getSessionId?.();
      if (!id || !Array.isArray(event?.messages)) return undefined;
      captures.delete(id);
      // The system prompt as pi holds it for this request (see replayMessages): after the run it may differ.
      let systemPrompt;
      try {
        systemPrompt = ctx.getSystemPrompt?.();
      } catch {}
      // The model it went to: a provider's cache is per model (a compaction after a model switch goes cold).
      const model = ctx.model ? `${ctx.model.provider}/${ctx.model.id}` : undefined;
      // The array copied, not the messages: pi hands `context_with_system` a copy of the request's messages
      // made for that request alone (emitContext's structuredClone, every host with this event), which nothing
      // changes after the request; a second deep copy cost ~1 ms per request at a full context.
      captures.set(id, { messages: event.messages.slice(), leafId: sm.getLeafId(), systemPrompt: typeof systemPrompt === "string" ? systemPrompt : undefined, model });
      while (captures.size > MAX_CAPTURES) captures.delete(captures.keys().next().value);
    } catch {
      // Observe only: a failed capture means the next rewind takes the cold path ("no-capture").
    }
    return undefined;
  });
}

/** The parent of the in-flight assistant message carrying `callId`: from the session, else the agent's messages. */
function callParent(sm, callId, agentMessages) {
  const has = (m) => m?.role === "assistant" && Array.isArray(m.content) && m.content.some((c) => c?.type === "toolCall" && c.id === callId);
  try {
    for (const e of sm.getBranch().slice().reverse()) if (e.type === "message" && has(e.message)) return e.parentId ?? null;
  } catch {}
  // Not persisted yet: the call's message is in the agent's state, and pi will append it at the leaf.
  if (Array.isArray(agentMessages) && agentMessages.some(has)) return sm.getLeafId();
  return null;
}

function safe(fn, fallback) {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

/**
 * Wraps the cold summarizer. The request gains `ctx`, `plan`, `callId`, `config` (the session's
 * effective config) and `agentMessages`; the outcome gains `summaryCache`.
 */
export function cacheSummarizer(cold, { core, captures, pi, pkg = piPackage, env = process.env }) {
  return async function summarize(request) {
    const { ctx, plan, callId, auth, signal, focus, model } = request;
    const api = core();
    const sm = ctx.sessionManager;
    const sessionId = safe(() => sm.getSessionId(), "") ?? "";
    const headers = api.summaryHeaders(String(model?.provider ?? ""), auth?.headers ?? null, sessionId);
    const authed = { ...auth, headers };
    const capture = captures.get(sessionId);
    const registry = safe(() => ctx.modelRegistry, undefined);
    const stream = safe(() => registry?.streamSimple, undefined);

    let replay = null;
    let instruction = "";
    let payloadChars = 0;
    if (capture) {
      try {
        replay = await buildReplay(capture, ctx, plan, sm, pkg);
        instruction = api.cacheSummaryInstruction(replay.first, replay.count, focus);
        payloadChars = JSON.stringify(replay.messages).length + instruction.length;
      } catch {
        replay = null;
      }
    }
    const facts = {
      enabled: request.config?.cacheSummary !== false && !envFlag(ENV_NO_CACHE_SUMMARY, env),
      hasStream: typeof stream === "function",
      collapsedTypes: plan.summarizeIds.map((id) => safe(() => sm.getEntry(id)?.type, undefined) ?? "unknown"),
      hasCapture: !!replay,
      captureLeaf: capture?.leafId ?? null,
      callParent: callParent(sm, callId, request.agentMessages),
      payloadChars,
      contextWindow: Number(model?.contextWindow) || 0,
    };
    let mode = api.cacheMode(facts);
    if (mode.mode === "live-prefix") {
      try {
        const messages = [...replay.messages, { role: "user", content: [{ type: "text", text: instruction }], timestamp: Date.now() }];
        const options = replayOptions({ auth: authed, sessionId, signal, pi, env });
        // The model's own output limit, as pi ≥1.5 gives its summaries; a reply cut there still rewinds.
        const limit = outputLimit(model);
        if (limit) options.maxTokens = limit;
        const reply = await stream.call(registry, model, { messages }, options).result();
        const text = replyText(reply);
        const usable = reply && reply.stopReason !== "error" && reply.stopReason !== "aborted" && text.trim() !== ""
          && !(reply.content ?? []).some((c) => c.type === "toolCall");
        if (usable) {
          // The reply as it came: the core writes the summary around it (heading, cut note, ledger) and pi's
          // file lists for the entry's details (src/tool/summary.rs).
          return { summary: text, stopReason: reply.stopReason ?? null, usage: reply.usage, summaryCache: details(mode, reply.usage) };
        }
        if (reply?.stopReason === "aborted" || signal?.aborted) return { aborted: true, summaryCache: details(mode, reply?.usage) };
      } catch {
        if (signal?.aborted) return { aborted: true, summaryCache: details(mode, undefined) };
      }
      mode = api.cacheMode({ ...facts, streamFailed: true });
    }
    const outcome = await cold({ ...request, auth: authed });
    return { ...outcome, summaryCache: details(mode, outcome?.usage) };
  };
}

/**
 * The captured request's messages as the provider received them, converted for the model (`convertToLlm`):
 * pi applies a system prompt changed in `before_agent_start` after `context_with_system`, so the captured head
 * still has the old sections; the head is rebuilt from the system prompt pi held when the request was captured
 * (`ctx.getSystemPrompt()` then; after the run pi holds its base prompt again, without what `before_agent_start`
 * added, so a compaction between runs must not ask it now). Shared with js/compaction.js.
 */
export async function replayMessages(capture, ctx, pkg = piPackage) {
  let messages = capture.messages;
  if (messages[0]?.role === "system") {
    const prompt = capture.systemPrompt ?? safe(() => ctx.getSystemPrompt?.(), undefined);
    if (typeof prompt === "string") {
      const { sections: _sections, ...head } = messages[0];
      messages = [{ ...head, content: prompt }, ...messages.slice(1)];
    }
  }
  if (typeof pkg.convertToLlm !== "function") throw new Error("host lacks convertToLlm");
  return await pkg.convertToLlm(messages);
}

/**
 * The stream options of a request that replays the live one: the session's credentials and id (the
 * provider's cache is keyed by it), its cache retention, and out of the session's Anthropic message thread
 * (pi ≥1.5.1), as pi's own cache warmer: with it the request neither continues nor replaces the thread the
 * main loop continues, so a summary costs the next main request nothing (docs/hosts.md, "On the wire").
 */
export function replayOptions({ auth, sessionId, signal, pi, env = process.env }) {
  const options = {
    apiKey: auth.apiKey,
    headers: auth.headers,
    sessionId,
    cacheRetention: env.PI_CACHE_RETENTION === "long" ? "long" : "short",
    disableContinuation: true,
    signal,
  };
  if (auth.env) options.env = auth.env;
  const level = safe(() => pi.getThinkingLevel?.(), undefined);
  if (level && level !== "off") options.reasoning = level;
  return options;
}

/** `details.summaryCache`: the mode, the fallback reason, and the provider's token accounting when known. */
function details(mode, usage) {
  const n = (x) => (typeof x === "number" && Number.isFinite(x) ? x : null);
  return { mode: mode.mode, reason: mode.reason ?? null, cacheRead: n(usage?.cacheRead), input: n(usage?.input), cacheWrite: n(usage?.cacheWrite) };
}

/**
 * The captured request as the provider received it (`replayMessages`). `first`: 1-based position (system
 * excluded) of the first collapsed message = the messages of the context at the rewind's target, plus one.
 */
async function buildReplay(capture, ctx, plan, sm, pkg) {
  const llm = await replayMessages(capture, ctx, pkg);
  const convert = pkg.convertToLlm;
  const build = pkg.buildSessionContext;
  if (typeof build !== "function") throw new Error("host lacks buildSessionContext");
  const before = (await convert(build(sm.getEntries(), plan.targetId).messages)).filter((m) => m.role !== "system").length;
  const count = llm.filter((m) => m.role !== "system").length;
  return { messages: llm, first: before + 1, count };
}
