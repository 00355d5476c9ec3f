// The summarizer callback: pi's generateBranchSummary (or a replacement with the same signature, e.g. a
// test stub via the factory's `opts.summarize`), called with the focus as custom instructions.

/**
 * @param {Function} generate generateBranchSummary(entries, options) → {summary?, aborted?, error?, readFiles?, modifiedFiles?}
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
    if (typeof streamFn === "function") options.streamFn = streamFn;
    // An abort ends the wait even if the summarizer ignores the signal (a replacement, a stuck provider):
    // the call then answers "aborted" and pi's loop moves on; a late result is dropped.
    const result = await Promise.race([generate(entries, options), aborted(options.signal)]);
    return result ?? {};
  };
}

/** Resolves `{aborted: true}` when `signal` aborts (at once if it already has); never rejects. */
function aborted(signal) {
  return new Promise((resolve) => {
    if (signal.aborted) resolve({ aborted: true });
    else signal.addEventListener("abort", () => resolve({ aborted: true }), { once: true });
  });
}
