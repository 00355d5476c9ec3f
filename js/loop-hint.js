// The loop hint: a model repeating itself (the same call answered the same way, or the same error again) is
// told once, right after the result that completes the loop, how to get out — rewind to the anchor before the
// loop, another approach, or the user. The rule, the hint and its one-line view are the core's (src/loops/,
// src/guidance.rs); this file hands the core each tool call with its result as pi reports them (`tool_result`),
// steers the hint into the run as the pressure hint is steered (js/agent.js), and registers its one-line view in
// pi's TUI (js/render.js). Never lets an error reach pi's agent loop.
import { ENV_NO_LOOP_HINT, envFlag, notify, steerHint } from "./agent.js";
import { makeLoopRenderer, textOf } from "./render.js";

/** No resume read (the navigator without js/resume.js). */
const NO_RESUME = { reading: () => false, settle: async () => {} };

/**
 * Installs the hooks and the message renderer. `core()`: the live wasm API (null while the core is down);
 * `withIndex(sm, fn)`: `fn` on the session's synced index; `configOf(ctx)`: the session's effective config
 * (js/agent.js); `busy(sm)`: whether a rewind of that session is in flight (no hint then); `tui`, `keyHint`: the
 * host's pi-tui components and key hints. Returns `{ stateOf(sm) }` (`hints`, `notes`: counts, for tests).
 */
export function installLoopHint({ pi, core, withIndex, configOf, busy = () => false, resume = NO_RESUME, tui, keyHint, env = process.env }) {
  /**
   * SessionManager → { detector (null: the hint is off), api, repeats, hints, notes, unsent (hints to store at the
   * turn's end), and how results reach the detector: tail (the units of a result's end it reads), memory, bytes (a
   * view of it), at, room (its buffer's address and size) }.
   */
  const sessions = new WeakMap();
  /** The session `stateOf` was asked for last, and its state. */
  const last = { sm: null, state: null };

  /**
   * The session's state, its detector made for the configured repeats in the live core: at a run's start, and
   * after a core restart. The config and the env switch are read then, not at every result.
   */
  function stateOf(ctx, sm, api, fresh = false) {
    // The last session's state at hand (one session at a time runs): no map lookup for every result (~3 µs cold).
    let state = sm === last.sm ? last.state : sessions.get(sm);
    if (!state) sessions.set(sm, (state = { detector: null, api: null, repeats: null, hints: 0, notes: 0, unsent: [] }));
    last.sm = sm;
    last.state = state;
    if (!fresh && state.api === api) return state;
    const repeats = envFlag(ENV_NO_LOOP_HINT, env) ? null : (configOf(ctx)?.loopHint ?? null);
    if (state.api !== api || state.repeats !== repeats) {
      try {
        state.detector?.free();
      } catch {}
      state.detector = repeats === null ? null : new api.LoopDetector(repeats);
      Object.assign(state, { tail: api.LoopDetector.tailUnits(), memory: api.moduleMemory(), bytes: new Uint8Array(0), at: 0, room: 0 });
      state.api = api;
      state.repeats = repeats;
    }
    return state;
  }

  // A run starts (prompt) or the user steers a message into it: both start afresh.
  pi.on("before_agent_start", function loopHintRunStart(_event, ctx) {
    try {
      const sm = ctx?.sessionManager;
      const api = core();
      if (sm && api) stateOf(ctx, sm, api, true).detector?.reset();
    } catch {}
  });
  pi.on("message_end", function loopHintMessageEnd(event, ctx) {
    try {
      if (event?.message?.role !== "user") return;
      const state = sessions.get(ctx?.sessionManager);
      if (state?.api === core()) state.detector?.reset();
    } catch {}
  });

  // Each result as pi hands it over, before the next one runs: every tested pi awaits `tool_result` handlers
  // (they may change the result), while on pi 0.74/0.75 `turn_end` handlers run from a queue the agent loop does
  // not wait for. A message steered here reaches the model with the next request, after the whole batch: pi takes
  // steered messages only between turns. Synchronous unless a loop is found (it runs for every result).
  pi.on("tool_result", function loopHintToolResult(event, ctx) {
    try {
      const sm = ctx?.sessionManager;
      const api = core();
      if (!sm || !api || !event) return undefined;
      const state = stateOf(ctx, sm, api);
      const found = state.detector && observe(state, String(event.toolCallId ?? ""), String(event.toolName ?? ""), argumentsText(event.input), resultText(event), event.isError === true);
      if (found && !busy(sm)) return hint(ctx, sm, api, state);
    } catch {}
    return undefined;
  });

  /** Steers the hint for the loop `state.detector` found last. Never throws. */
  async function hint(ctx, sm, api, state) {
    try {
      // The hint names the anchor before the loop: it needs the session's index (a resumed one's may still be read).
      if (resume.reading(sm)) await resume.settle(sm);
      const message = withIndex(sm, (index) => index.loopMessage(state.detector));
      if (message.note) {
        notify(ctx, message.note, "info");
        state.notes++;
      }
      const details = { headline: message.headline, anchor: message.anchor };
      steerHint({ pi, ctx, customType: api.loopHintType(), text: message.text, details, notify, later: (store) => state.unsent.push(store) });
      state.hints++;
    } catch {}
    return undefined;
  }

  // A hint the host could not steer goes into the session when the turn is over: its results are all stored then.
  pi.on("turn_end", function loopHintTurnEnd(_event, ctx) {
    const state = sessions.get(ctx?.sessionManager);
    for (const store of state?.unsent.splice(0) ?? []) store(ctx);
  });

  try {
    pi.registerMessageRenderer?.(core().loopHintType(), makeLoopRenderer({ tui, keyHint }));
  } catch {}

  return { stateOf: (sm) => sessions.get(sm) ?? null };
}

/**
 * Hands one call and its result to the detector. The call's strings and the text's tail are written into the
 * detector's buffer in the module's memory and cross with the one call that reads them (a string handed to the
 * module as wasm-bindgen does costs a call into it, to allocate: this runs for every result, cold, and those
 * calls were most of its time); the text itself crosses by reference.
 */
function observe(state, id, tool, args, text, isError) {
  const tail = text.slice(-state.tail);
  // At most 3 bytes of UTF-8 for each UTF-16 unit.
  const need = 3 * (id.length + tool.length + args.length + tail.length);
  if (need > state.room) state.at = state.detector.scratch((state.room = 2 * need));
  // A view of memory that has grown since is detached (empty): view it again.
  if (state.bytes.byteLength === 0) state.bytes = new Uint8Array(state.memory.buffer);
  const { bytes, at } = state;
  const a = put(bytes, at, id);
  const b = put(bytes, at + a, tool);
  const c = put(bytes, at + a + b, args);
  const d = put(bytes, at + a + b + c, tail);
  return state.detector.observe(a, b, c, d, text, text.length, isError);
}

const encoder = new TextEncoder();

/** Writes `s` as UTF-8 into `bytes` at `at` (room for 3 bytes a unit); returns the bytes written. */
function put(bytes, at, s) {
  let i = 0;
  // ASCII byte by byte (most of it); the rest, from the first other unit, by the encoder.
  for (; i < s.length; i++) {
    const unit = s.charCodeAt(i);
    if (unit > 127) return i + encoder.encodeInto(s.slice(i), bytes.subarray(at + i, at + 3 * s.length)).written;
    bytes[at + i] = unit;
  }
  return i;
}

/**
 * The result's text, as `textOf` (js/render.js) reads it: its one text part as it is (most results), read here —
 * a call into a function of another module measured ~7 µs cold inside pi, at every result, where this costs ~1 µs.
 */
function resultText(event) {
  const parts = event.content;
  return Array.isArray(parts) && parts.length === 1 && parts[0]?.type === "text" && typeof parts[0].text === "string" ? parts[0].text : textOf(event);
}

/** The call's arguments as JSON text (what the core compares canonically); "" for what JSON cannot write. */
function argumentsText(args) {
  try {
    return JSON.stringify(args ?? {}) ?? "";
  } catch {
    return "";
  }
}
