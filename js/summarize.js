// The summarizer callback: pi's generateBranchSummary (or a replacement with the same signature, e.g. a
// test stub via the factory's `opts.summarize`), called with the focus as custom instructions.
//
// On hosts whose summarizer takes a stream function (pi ≥0.80) the request goes through ours, which wraps
// the host's: it sets the output limit to the model's own (pi 0.87–1.4 cap summaries at 4,096 tokens, 0.74/0.75
// at 2,048 with no way to change it) and keeps the reply, so a summary cut at that limit is known — pi ≥0.87
// turns such a reply into an error, and the core still rewinds with it (src/tool/summary.rs).

/**
 * @param {Function} generate generateBranchSummary(entries, options) → {summary?, aborted?, error?, readFiles?, modifiedFiles?, usage?};
 *   the result gains `stopReason`, `replyText` and the reply's `usage` when the reply went through the stream function
 * @returns {(request: {entries: object[], model: object, auth: object, signal?: AbortSignal, focus: string, streamFn?: Function}) => Promise<object>}
 */
export function makeSummarizer(generate) {
  return async function summarize({ entries, model, auth, signal, focus, streamFn }) {
    if (typeof generate !== "function") throw new Error("this pi does not export generateBranchSummary");
    const options = {
      model,
      headers: auth.headers,
      signal: signal ?? new AbortController().signal,
      // The whole focus, never the capped copy the synthetic message keeps.
      customInstructions: focus,
    };
    // Only a key the host resolved: pi 1.5.x takes any explicit apiKey, even "", over the stored OAuth login,
    // and resolves that login itself when none is given (older hosts read "" and no key alike).
    if (typeof auth.apiKey === "string" && auth.apiKey !== "") options.apiKey = auth.apiKey;
    if (auth.env) options.env = auth.env;
    // Hosts that take it (pi ≥0.80) route the request through the live agent, so providers registered
    // only in the session's model runtime work; older hosts ignore the option.
    const seen = {};
    if (typeof streamFn === "function") options.streamFn = watchedStream(streamFn, model, seen);
    // An abort ends the wait even if the summarizer ignores the signal (a replacement, a stuck provider):
    // the call then answers "aborted" and pi's loop moves on; a late result is dropped.
    const result = (await Promise.race([generate(entries, options), aborted(options.signal)])) ?? {};
    if (!seen.reply || result.aborted) return result;
    // The request's usage with its cost as pi priced it: pi ≥0.87's summarizer returns it, and the reply has it
    // where the stream went through ours.
    return { ...result, usage: result.usage ?? seen.reply.usage, stopReason: seen.reply.stopReason ?? null, replyText: replyText(seen.reply) };
  };
}

/** The model's own output limit (`model.maxTokens`), or undefined when it does not say. */
export function outputLimit(model) {
  const n = Number(model?.maxTokens);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/** The text parts of a reply, joined as pi joins them (`contentText`). */
export function replyText(reply) {
  return (Array.isArray(reply?.content) ? reply.content : []).filter((c) => c?.type === "text").map((c) => c.text ?? "").join("");
}

/**
 * `streamFn` with the model's own output limit, keeping the last reply it streamed in `seen.reply`. pi awaits
 * the stream function and then the stream's `result()`, which is wrapped on the returned stream.
 */
function watchedStream(streamFn, model, seen) {
  const limit = outputLimit(model);
  return async (m, context, options) => {
    const stream = await streamFn(m, context, limit ? { ...options, maxTokens: limit } : options);
    if (stream && typeof stream.result === "function") {
      const result = stream.result;
      stream.result = async function () {
        const reply = await result.apply(this, arguments);
        seen.reply = reply;
        return reply;
      };
    }
    return stream;
  };
}

/** Resolves `{aborted: true}` when `signal` aborts (at once if it already has); never rejects. */
function aborted(signal) {
  return new Promise((resolve) => {
    if (signal.aborted) resolve({ aborted: true });
    else signal.addEventListener("abort", () => resolve({ aborted: true }), { once: true });
  });
}
