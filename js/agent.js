// Helps the model use navigate_tree without the user: the system-prompt guidance, the context-pressure
// hint and the automatic start anchor. Every decision and text comes from the core (src/guidance.rs,
// src/config.rs); this file reads the host's state, performs the core's decisions, and never lets an error
// reach pi's agent loop.
import { loadConfig } from "./config.js";

/** Env kill switches (any value but "", "0", "false"). */
export const ENV_NO_START_ANCHOR = "PI_TREE_NAVIGATOR_NO_START_ANCHOR";
export const ENV_NO_CACHE_SUMMARY = "PI_TREE_NAVIGATOR_NO_CACHE_SUMMARY";
export const ENV_NO_HINT = "PI_TREE_NAVIGATOR_NO_HINT";
export const ENV_NO_ARCHIVE_NOTICE = "PI_TREE_NAVIGATOR_NO_ARCHIVE_NOTICE";
export const ENV_NO_LEDGER = "PI_TREE_NAVIGATOR_NO_LEDGER";
export const ENV_NO_LOOP_HINT = "PI_TREE_NAVIGATOR_NO_LOOP_HINT";

export function envFlag(name, env = process.env) {
  const v = env[name];
  return v !== undefined && v !== "" && v !== "0" && v.toLowerCase() !== "false";
}

/** Env switch of archiveOnExit, both ways: `1` turns it on, `0` off, whatever the config says. */
export const ENV_ARCHIVE_ON_EXIT = "PI_TREE_NAVIGATOR_ARCHIVE_ON_EXIT";

/** Whether a session whose effective config is `config` is archived after pi quits (js/archive-on-exit.js). */
export function archiveOnExitOn(config, env = process.env) {
  return env[ENV_ARCHIVE_ON_EXIT] ? envFlag(ENV_ARCHIVE_ON_EXIT, env) : config?.archiveOnExit === true;
}

/**
 * Steers a hint into the running loop (`pi.sendMessage`: while the agent streams, pi delivers it before the next
 * request); a host that cannot steer gets it as a custom message entry in the session (the next context carries
 * it), and when the session cannot take that either the user gets `text` as a note. `later(store)`: where the entry
 * must wait for the turn's end (mid-turn it would land between a tool call and its result), `store(ctx)` is handed
 * to it instead of called. Never throws.
 */
export function steerHint({ pi, ctx, customType, text, details, notify, later }) {
  try {
    pi.sendMessage({ customType, content: text, display: true, details });
    return;
  } catch {}
  const store = (at) => {
    try {
      at.sessionManager.appendCustomMessageEntry(customType, text, true, details);
    } catch {
      notify(at, text, "warning");
    }
  };
  if (later) later(store);
  else store(ctx);
}

/** Shows `text` as a UI note at `level` when the host has a UI; a UI that cannot is no reason to fail a turn. */
export function notify(ctx, text, level) {
  try {
    if (ctx?.hasUI) ctx.ui.notify(text, level);
  } catch {}
}

/** No resume read (the navigator without js/resume.js). */
const NO_RESUME = { reading: () => false, ready: () => false, settle: async () => {} };

/**
 * The ledger's bound for a summary (rewind or compaction) in the session whose effective config is `config`:
 * 0 (none) with the env switch or `ledgerTokens` off, `undefined` (the core's default) when the config was
 * never read.
 */
export function ledgerTokensOf(config, env = process.env) {
  return envFlag(ENV_NO_LEDGER, env) ? 0 : config ? (config.ledgerTokens ?? 0) : undefined;
}

/**
 * Installs the hooks. `core()` returns the live wasm API (null while the core is down); `withIndex(sm, fn)`
 * runs `fn` on the session's synced index; `resume`: js/resume.js's read of a resumed session's file (`reading`,
 * `ready`, `settle`); `host`: js/host.js's adapter (the start anchor reads the active path's labels and the leaf
 * from pi: no index needed). Returns `{ stateOf(sm), configOf(ctx) }` (per-session state: config, tracker, turn count,
 * whether the start anchor is done) for the tool and for tests.
 */
export function installAgentFeatures({ pi, core, withIndex, resume = NO_RESUME, host, toolName, pkg, env = process.env }) {
  /** SessionManager → per-session state. A subagent's session has its own (never switches off its parent's). */
  const sessions = new WeakMap();

  function fresh(ctx) {
    const api = core();
    let loaded = { config: { hintPercent: null, startAnchorTurn: null, cacheSummary: false, archiveNotice: false, ledgerTokens: null, loopHint: null }, warnings: [] };
    try {
      if (api) loaded = loadConfig(api, ctx, { pkg });
    } catch (e) {
      loaded.warnings = [`tree-navigator: config not loaded (${e instanceof Error ? e.message : String(e)}).`];
    }
    const state = {
      config: loaded.config,
      warnings: loaded.warnings,
      tracker: api ? new api.PressureTracker() : null,
      turns: 0,
      runs: 0,
      startDone: false,
      hints: 0,
      notes: 0,
    };
    for (const w of loaded.warnings) notify(ctx, w, "warning");
    return state;
  }

  function stateOf(ctx) {
    const sm = ctx?.sessionManager;
    if (!sm) return null;
    let state = sessions.get(sm);
    if (!state) {
      state = fresh(ctx);
      sessions.set(sm, state);
    }
    return state;
  }

  function toolActive() {
    try {
      const active = pi.getActiveTools?.();
      if (!Array.isArray(active)) return true; // this pi cannot say: the tool is registered, assume active
      return active.some((t) => (typeof t === "string" ? t : t?.name) === toolName);
    } catch {
      return true;
    }
  }

  /** Writes `label` on `entryId` (pi.setLabel, else the session manager). Returns whether it was written. */
  function writeLabel(sm, entryId, label) {
    try {
      pi.setLabel(entryId, label);
      return true;
    } catch {
      try {
        sm.appendLabelChange(entryId, label);
        return true;
      } catch {
        return false;
      }
    }
  }

  function startAnchor(ctx, state, runEnded) {
    if (state.startDone) return;
    const sm = ctx.sessionManager;
    try {
      const facts = { turns: state.turns, runEnded, disabledByEnv: envFlag(ENV_NO_START_ANCHOR, env) };
      // Decided from what pi says of the active path (its labels, the leaf), so it never waits for an index
      // (a resumed session's may still be read from its file).
      const api = core();
      const step = api.startAnchorStepOnPath(facts, state.config.startAnchorTurn ?? null, host.labelOnPath(sm, api.startAnchorLabel()), host.leafId(sm));
      if (step.step === "write") state.startDone = writeLabel(sm, step.entryId, step.label);
      else if (step.step !== "wait") state.startDone = true;
    } catch {
      // Retried at the next turn: only a written (or existing) anchor marks the session done.
    }
  }

  async function pressure(ctx, state) {
    if (!state.tracker) return;
    const percent = envFlag(ENV_NO_HINT, env) ? null : (state.config.hintPercent ?? null);
    if (percent === null) return;
    const sm = ctx.sessionManager;
    // A resumed session's index still being read from its file: the turn does not wait for it; the pressure
    // is looked at from the first turn that ends after the read is done (the hint names anchors: it needs
    // the index), which takes the read's index over.
    if (resume.reading(sm)) return;
    if (resume.ready(sm)) await resume.settle(sm);
    // The index's estimate, counted from the last usage (a turn's few entries), says whether pi's own reading —
    // its whole context, each time — could change anything this turn: a crossing, or a re-arming.
    let tokens;
    try {
      tokens = withIndex(sm, (index) => index.currentTokens());
    } catch {
      return;
    }
    if (!state.tracker.worthReading(tokens, host.contextWindow(ctx.model), percent)) return;
    let usage;
    try {
      usage = ctx.getContextUsage?.();
    } catch {
      return;
    }
    if (state.tracker.observe(usage ?? null, percent) !== "crossed") return;
    let message;
    try {
      message = withIndex(sm, (index) => index.pressureMessage(usage.tokens, usage.contextWindow));
    } catch {
      return; // stays unspent: next turn tries again
    }
    if (message.kind === "note") {
      notify(ctx, message.text, "info");
      state.notes++;
      state.tracker.spend();
      return;
    }
    steerHint({ pi, ctx, customType: core().pressureHintType(), text: message.text, notify });
    state.hints++;
    state.tracker.spend();
  }

  pi.on("session_start", (_event, ctx) => {
    try {
      if (ctx?.sessionManager) sessions.set(ctx.sessionManager, fresh(ctx));
    } catch {}
  });

  pi.on("before_agent_start", (event, ctx) => {
    try {
      stateOf(ctx);
      const api = core();
      if (!api || !toolActive() || typeof event?.systemPrompt !== "string") return undefined;
      return { systemPrompt: `${event.systemPrompt}\n\n${api.systemGuidance()}` };
    } catch {
      return undefined;
    }
  });

  pi.on("turn_end", async (_event, ctx) => {
    try {
      const state = stateOf(ctx);
      if (!state || !core()) return;
      state.turns++;
      startAnchor(ctx, state, false);
      await pressure(ctx, state);
    } catch {}
  });

  pi.on("agent_end", (_event, ctx) => {
    try {
      const state = stateOf(ctx);
      if (!state || !core()) return;
      state.runs++;
      startAnchor(ctx, state, true);
    } catch {}
  });

  return { stateOf: (sm) => sessions.get(sm) ?? null, configOf: (ctx) => stateOf(ctx)?.config ?? null };
}
