// The loop hint: a model repeating itself (the same call answered the same way, or the same error again) is
// told once, right after the result that completes the loop, how to get out — rewind to the anchor before the
// loop, another approach, or the user. The rule, the hint and its one-line view are the core's (src/loops/,
// src/guidance.rs); this file hands the core each turn's tool calls and results as pi reports them at
// `turn_end`, steers the hint into the run as the pressure hint is steered (js/agent.js), and lays out its line in
// pi's TUI. Never lets an error reach pi's agent loop.
import { ENV_NO_LOOP_HINT, envFlag, notify, steerHint } from "./agent.js";
import { makeLoopRenderer, textOf } from "./render.js";

/** No resume read (the navigator without js/resume.js). */
const NO_RESUME = { reading: () => false, settle: async () => {} };

/**
 * Installs the hooks and the message renderer. `core()`: the live wasm API (null while the core is down);
 * `withIndex(sm, fn)`: `fn` on the session's synced index; `configOf(sm)`: the session's effective config
 * (js/agent.js); `busy(sm)`: whether a rewind of that session is in flight (no hint then); `tui`, `keyHint`: the
 * host's pi-tui components and key hints. Returns `{ stateOf(sm) }` (`hints`, `notes`: counts, for tests).
 */
export function installLoopHint({ pi, core, withIndex, configOf, busy = () => false, resume = NO_RESUME, tui, keyHint, env = process.env }) {
  /** SessionManager → { detector, api, repeats, hints, notes }. */
  const sessions = new WeakMap();

  /** The session's state with a detector for `repeats` in `api` (a new one after a core restart or a config change). */
  function stateOf(sm, api, repeats) {
    let state = sessions.get(sm);
    if (!state) sessions.set(sm, (state = { detector: null, api: null, repeats: null, hints: 0, notes: 0 }));
    if (state.api !== api || state.repeats !== repeats) {
      try {
        state.detector?.free();
      } catch {}
      state.detector = new api.LoopDetector(repeats);
      state.api = api;
      state.repeats = repeats;
    }
    return state;
  }

  /** The configured repeats for the session, or null when the hint is off (config `loopHint`, the env switch). */
  function repeatsFor(sm) {
    if (envFlag(ENV_NO_LOOP_HINT, env)) return null;
    return configOf(sm)?.loopHint ?? null;
  }

  // A user message starts a new run: what came before is no loop of this one.
  pi.on("message_end", function loopHintMessageEnd(event, ctx) {
    try {
      if (event?.message?.role !== "user") return;
      const state = sessions.get(ctx?.sessionManager);
      if (state?.api === core()) state.detector.reset();
    } catch {}
  });

  pi.on("turn_end", async function loopHintTurnEnd(event, ctx) {
    try {
      const sm = ctx?.sessionManager;
      const api = core();
      const results = event?.toolResults;
      if (!sm || !api || !Array.isArray(results) || results.length === 0) return;
      const repeats = repeatsFor(sm);
      if (repeats === null) return;
      const state = stateOf(sm, api, repeats);
      // The turn's calls, by id, as the assistant made them; each result in the order pi ran them.
      const calls = new Map();
      for (const c of Array.isArray(event.message?.content) ? event.message.content : []) if (c?.type === "toolCall") calls.set(c.id, c);
      let found = null;
      for (const r of results) {
        const call = calls.get(r?.toolCallId);
        const loop = state.detector.observe(String(r?.toolCallId ?? ""), String(call?.name ?? r?.toolName ?? ""), argumentsText(call?.arguments), textOf(r), r?.isError === true);
        found ??= loop;
      }
      if (!found || busy(sm)) return;
      // The hint names the anchor before the loop: it needs the session's index (a resumed one's may still be read).
      if (resume.reading(sm)) await resume.settle(sm);
      const message = withIndex(sm, (index) => index.loopMessage(found));
      if (message.note) {
        notify(ctx, message.note, "info");
        state.notes++;
      }
      steerHint({ pi, ctx, customType: api.loopHintType(), text: message.text, details: { headline: message.headline, anchor: message.anchor }, notify });
      state.hints++;
    } catch {}
  });

  try {
    pi.registerMessageRenderer?.(core().loopHintType(), makeLoopRenderer({ tui, keyHint }));
  } catch {}

  return { stateOf: (sm) => sessions.get(sm) ?? null };
}

/** The call's arguments as JSON text (what the core compares canonically); "" for what JSON cannot write. */
function argumentsText(args) {
  try {
    return JSON.stringify(args ?? {}) ?? "";
  } catch {
    return "";
  }
}
