// Every call into the pi host lives here: tool registration, hooks, session-manager reads and writes,
// credentials, and the one patch of pi internals (AgentSession.prototype.prompt). No decisions are made
// here; the wasm core decides (see extension.js).
//
// Why the patch: a tool's ctx does not expose the AgentSession. Capturing sessions from `prompt()` lets a
// rewind refresh `agent.state.messages` (so the next prompt() starts from the rewound context) and wire
// `agent.prepareNextTurn` on hosts whose loop still honours it (pi ≤0.79). Within the running prompt() the
// public `context` event hands every request the session's current context, on every host.
//
// The patch is installed once per process: the original `prompt` is stashed once under a global symbol,
// the wrapper only reads a process-wide registry (also behind a global symbol), so a /reload finds it in
// place and changes nothing. It is feature-detected and reversible (`unpatchPrompt`).
import * as piPackage from "@earendil-works/pi-coding-agent";

const ORIGINAL = Symbol.for("pi-tree-navigator.original-prompt");
const WRAPPER = Symbol.for("pi-tree-navigator.prompt-wrapper");
const REGISTRY = Symbol.for("pi-tree-navigator.registry");
const PNT = Symbol.for("pi-tree-navigator.prepare-next-turn");

/**
 * Process-wide state shared by every load of the extension (survives /reload):
 * - sessions: SessionManager → AgentSession (captured by the prompt wrapper)
 * - pending:  SessionManager → { stateRefreshed } while the rewound context must be handed to requests
 * - contextSeen: SessionManager instances whose requests passed through our `context` handler
 * - coreCopies: wasm instances made after traps (each imports its own copy of the glue)
 * - retiredCores: instances that trapped, by `instanceKey` (their glue's `SessionIndex` class); liveCore: the newest replacement, which every
 *   load of the extension in this process moves to
 * - stats: counters for tests and diagnostics (indexes created/freed, traps, core restarts, context
 *   handlers installed)
 */
export function registry() {
  const g = globalThis;
  if (!g[REGISTRY]) {
    g[REGISTRY] = { sessions: new WeakMap(), pending: new WeakMap(), contextSeen: new WeakSet(), contextCalls: 0 };
  }
  const reg = g[REGISTRY];
  // Fields added later: a registry made by an older load in this process lacks them.
  reg.coreCopies ??= 0;
  reg.retiredCores ??= new WeakSet();
  reg.liveCore ??= null;
  reg.stats ??= { indexesCreated: 0, indexesFreed: 0, traps: 0, coreRestarts: 0, contextHandlers: 0 };
  return reg;
}

/** A usage object as pi's requests report it (plain data to store with an entry). */
export function isUsage(usage) {
  return usage !== null && typeof usage === "object" && !Array.isArray(usage);
}

/** Whether a session-manager method takes a `usage` argument at position `arity` (pi ≥0.87: one more parameter). */
export function takesUsage(method, arity) {
  return typeof method === "function" && method.length >= arity;
}

/** The host's `generateBranchSummary` (undefined if this pi does not export it). */
export function hostGenerateBranchSummary(pkg = piPackage) {
  return pkg.generateBranchSummary;
}

/** Whether this host's agent loop calls `agent.prepareNextTurn` (pi ≤0.79: no `prepareNextTurnWithContext`). */
function honoursPrepareNextTurn(agent) {
  return !!agent && "prepareNextTurn" in agent && !("prepareNextTurnWithContext" in agent);
}

/** Whether this host rebuilds every request from the session manager itself (pi ≥0.87). */
function rebuildsFromSession(agent) {
  return !!agent && typeof agent.prepareRequest === "function";
}

/** The session's current context as the `context` event must return it (no system messages: the host adds its own). */
function sessionMessages(sm) {
  return sm.buildSessionContext().messages.filter((m) => m.role !== "system");
}

/**
 * Wires `agent.prepareNextTurn` on hosts that honour it: after a rewind it replaces the loop's working
 * messages with the session's; otherwise it passes the previous hook's result through untouched.
 */
function wirePrepareNextTurn(session) {
  const agent = session.agent;
  if (!honoursPrepareNextTurn(agent) || agent.prepareNextTurn?.[PNT]) return;
  const prior = agent.prepareNextTurn;
  const reg = registry();
  const next = async (...args) => {
    const priorResult = typeof prior === "function" ? await prior(...args) : undefined;
    try {
      const sm = session.sessionManager;
      if (!reg.pending.has(sm)) return priorResult;
      const ctx = priorResult?.context;
      return {
        ...priorResult,
        context: {
          ...ctx,
          systemPrompt: ctx?.systemPrompt ?? agent.state.systemPrompt,
          tools: ctx?.tools ?? agent.state.tools,
          messages: sm.buildSessionContext().messages,
        },
      };
    } catch {
      // Never break pi's loop: without the refresh the `context` event still hands over the session.
      return priorResult;
    }
  };
  next[PNT] = true;
  agent.prepareNextTurn = next;
}

/** Installs the prompt wrapper once per process. Returns false when this host has no patchable prompt. */
export function patchPrompt(AgentSession = piPackage.AgentSession) {
  const proto = AgentSession?.prototype;
  if (!proto || typeof proto.prompt !== "function") return false;
  if (proto.prompt[WRAPPER]) return true;
  if (!proto[ORIGINAL]) proto[ORIGINAL] = proto.prompt;
  const original = proto[ORIGINAL];
  const wrapper = function prompt(...args) {
    try {
      if (this?.sessionManager) registry().sessions.set(this.sessionManager, this);
      if (this?.agent) wirePrepareNextTurn(this);
    } catch {
      // Capturing is best effort; the prompt itself must never fail because of it.
    }
    return original.apply(this, args);
  };
  wrapper[WRAPPER] = true;
  proto.prompt = wrapper;
  return true;
}

/** Restores the original `prompt` (tests, or an embedding app that wants pi untouched). */
export function unpatchPrompt(AgentSession = piPackage.AgentSession) {
  const proto = AgentSession?.prototype;
  if (!proto?.[ORIGINAL]) return;
  proto.prompt = proto[ORIGINAL];
  delete proto[ORIGINAL];
}

/** Wrapper layers around the original prompt: 1 when patched (however often loaded), 0 when not. */
export function promptWrapperDepth(AgentSession = piPackage.AgentSession) {
  const proto = AgentSession?.prototype;
  if (!proto) return 0;
  return (proto.prompt?.[WRAPPER] ? 1 : 0) + (proto[ORIGINAL]?.[WRAPPER] ? 1 : 0);
}

/**
 * The host adapter used by extension.js. `pi` is the ExtensionAPI of this load; `pkg` the host's
 * `@earendil-works/pi-coding-agent` module (injectable for tests).
 */
export function createHost(pi, { pkg = piPackage } = {}) {
  const reg = registry();
  const patched = patchPrompt(pkg.AgentSession);
  const refused = new Set();

  return {
    patched,
    /** The running pi's version (`VERSION` of its package; every host of the matrix exports it), or null. */
    version: typeof pkg?.VERSION === "string" ? pkg.VERSION : null,

    registerTool(definition, execute) {
      pi.registerTool({ ...definition, execute });
    },

    /** pi's `showCacheMissNotices` setting (false on hosts whose extensions cannot read settings). */
    showCacheMissNotices() {
      return pi.getSettings?.()?.showCacheMissNotices === true;
    },

    /** The host's `keyHint` for renderers on hosts whose render context lacks it (undefined if not exported). */
    keyHint() {
      return typeof pkg.keyHint === "function" ? pkg.keyHint : undefined;
    },

    /** Hooks: the per-request context hand-over, the wait for stored calls, failed-call marking, run end, session teardown. */
    installHooks({ onShutdown }) {
      reg.stats.contextHandlers++;
      pi.on("context", async (_event, ctx) => {
        const sm = ctx?.sessionManager;
        if (!sm) return undefined;
        reg.contextSeen.add(sm);
        reg.contextCalls++;
        if (!reg.pending.has(sm)) return undefined;
        const session = reg.sessions.get(sm);
        if (rebuildsFromSession(session?.agent)) return undefined;
        // pi 0.74 stores messages from a queue of extension-event work its agent loop does not await (see the
        // `tool_call` hook below): the hand-over waits for it, so the rewind's own result is in the session.
        await session?._agentEventQueue;
        try {
          return { messages: sessionMessages(sm) };
        } catch {
          return undefined; // never fail a request over the hand-over; pi sends what it has
        }
      });
      // Handled only to be waited for: pi 0.74 stores messages from a queue of extension-event work that its
      // agent loop does not await, and waits for that queue before a tool runs only when some extension handles
      // `tool_call`. Without this a slow `message_end` handler elsewhere lets navigate_tree run before pi
      // stored its call (docs/hosts.md, "When pi stores the in-flight call"). Later hosts await it anyway.
      pi.on("tool_call", () => undefined);
      pi.on("tool_result", (event) => {
        if (refused.delete(event.toolCallId)) return { isError: true };
        return undefined;
      });
      pi.on("agent_end", (_event, ctx) => {
        const sm = ctx?.sessionManager;
        // Once agent.state holds the rewound context, later runs start from it; otherwise keep handing
        // the session's context to every request.
        if (sm && reg.pending.get(sm)?.stateRefreshed) reg.pending.delete(sm);
      });
      pi.on("session_shutdown", (_event, ctx) => {
        if (ctx?.sessionManager) onShutdown(ctx.sessionManager);
      });
    },

    /** Marks a tool call as failed; the `tool_result` hook turns it into `isError: true`. */
    markRefused(toolCallId) {
      refused.add(toolCallId);
    },

    setLabel(entryId, label) {
      pi.setLabel(entryId, label ?? undefined);
    },

    /**
     * Entries of the session manager after the first `from` (sessions are append-only). With a `cursor` the
     * caller keeps between calls (`{}` at first), only what pi appended since the last call is looked at:
     * pi's own entry list (its `fileEntries`: `getEntries()` is that list without headers, copied whole on
     * every call) is read from where the last call stopped, as long as it is the same list, grown, and the
     * caller asks from where it stopped. Anything else — another list (pi replaces it when it switches or
     * forks a session), a pi without one — takes `getEntries()`.
     */
    entriesSince(sm, from, cursor) {
      const raw = sm.fileEntries;
      const list = Array.isArray(raw) ? raw : null;
      if (cursor && list && cursor.list === list && cursor.fed === from && cursor.raw <= list.length) {
        const out = [];
        for (let i = cursor.raw; i < list.length; i++) if (list[i]?.type !== "session") out.push(list[i]);
        cursor.raw = list.length;
        cursor.fed = from + out.length;
        return out;
      }
      const all = sm.getEntries();
      if (cursor) Object.assign(cursor, { list, raw: list?.length ?? 0, fed: all.length });
      return all.slice(from);
    },
    /**
     * A cursor for `entriesSince` that starts after pi's first `count` entries, when pi's list holds exactly
     * those now (else one that starts over with `getEntries()`).
     */
    cursorAt(sm, count) {
      const list = Array.isArray(sm.fileEntries) ? sm.fileEntries : null;
      return list ? { list, raw: list.length, fed: count } : {};
    },
    leafId(sm) {
      return sm.getLeafId();
    },
    /** How many entries pi holds (header excluded): counted in pi's own list, without copying it. */
    entryCount(sm) {
      const list = sm.fileEntries;
      if (!Array.isArray(list)) return sm.getEntries().length;
      let n = 0;
      for (const e of list) if (e?.type !== "session") n++;
      return n;
    },
    /** The first `count` entries as the core's `disagreement` reads them: `id, parentId, type` of each in turn. */
    structure(sm, count) {
      const entries = sm.getEntries();
      const out = [];
      for (let i = 0; i < count && i < entries.length; i++) out.push(entries[i]?.id, entries[i]?.parentId, entries[i]?.type);
      return out;
    },
    /**
     * Whether `label` is on an entry of the active path. pi's label map (its `labelsById`) names the few
     * entries carrying it, and only for those is the path walked up from the leaf (no copy of the branch);
     * a pi without that map: `getBranch()` + `getLabel` per entry.
     */
    labelOnPath(sm, label) {
      const labels = sm.labelsById;
      if (labels instanceof Map) {
        const targets = new Set();
        for (const [id, l] of labels) if (l === label) targets.add(id);
        if (targets.size === 0) return false;
        // At most as many steps as pi holds entries: a parent chain that loops ends the walk.
        let steps = Array.isArray(sm.fileEntries) ? sm.fileEntries.length : Infinity;
        for (let e = sm.getEntry(sm.getLeafId()); e && steps-- > 0; e = e.parentId ? sm.getEntry(e.parentId) : undefined) {
          if (targets.has(e.id)) return true;
        }
        return false;
      }
      return sm.getBranch().some((entry) => sm.getLabel(entry.id) === label);
    },

    getEntry(sm, id) {
      return sm.getEntry(id);
    },
    /**
     * pi's `branchWithSummary`, with the summary request's `usage` (when known) where this pi keeps it: its own
     * `usage` argument (pi ≥0.87, after `fromHook`, which stays unset as before), else `details.summaryUsage`.
     */
    branchWithSummary(sm, targetId, summary, details, usage) {
      if (!isUsage(usage)) return sm.branchWithSummary(targetId, summary, details);
      if (takesUsage(sm.branchWithSummary, 5)) return sm.branchWithSummary(targetId, summary, details, undefined, usage);
      return sm.branchWithSummary(targetId, summary, { ...details, summaryUsage: usage });
    },
    appendMessage(sm, message) {
      return sm.appendMessage(message);
    },
    /** Moves the leaf without writing anything (pi's `branch`; `null` = before the first entry). */
    branch(sm, id) {
      if (id === null || id === undefined) sm.resetLeaf();
      else sm.branch(id);
    },

    /** The model facts the core records on the synthetic message. */
    modelFacts(model) {
      if (!model) return null;
      return { api: String(model.api ?? "unknown"), provider: String(model.provider ?? "unknown"), id: String(model.id ?? "unknown") };
    },
    contextWindow(model) {
      return Number(model?.contextWindow) || 0;
    },

    /** `{ok, apiKey?, headers?, env?, error?}` from the host's model registry. */
    async resolveAuth(ctx) {
      try {
        const auth = await ctx.modelRegistry.getApiKeyAndHeaders(ctx.model);
        return auth ?? { ok: false, error: "no credentials" };
      } catch (e) {
        return { ok: false, error: e instanceof Error ? e.message : String(e) };
      }
    },

    /**
     * The live agent's stream function, so providers registered only in the host's runtime work. A run started
     * without prompt() (pi.sendMessage(…, {triggerTurn: true}), an extension command) leaves the session
     * uncaptured: then pi's own ctx.modelRegistry.streamSimple (pi ≥0.87), which reaches the same providers.
     */
    streamFunction(sm, ctx) {
      try {
        const agent = reg.sessions.get(sm)?.agent;
        const own = agent?.streamFunction ?? agent?.streamFn;
        if (own != null) return own;
      } catch {
        // a throwing getter: fall through to the registry's
      }
      try {
        const registry = ctx?.modelRegistry;
        return typeof registry?.streamSimple === "function" ? registry.streamSimple.bind(registry) : undefined;
      } catch {
        return undefined; // a stale context throws on access: the summarizer's own default request
      }
    },

    /** Whether a rewind made now reaches the very next request of the running prompt(). */
    refreshReaches(sm) {
      const agent = reg.sessions.get(sm)?.agent;
      return reg.contextSeen.has(sm) || rebuildsFromSession(agent) || !!agent?.prepareNextTurn?.[PNT];
    },

    /**
     * After the tree moved: hand the session's context to the following requests and, where the
     * session was captured, refresh `agent.state.messages` for the next prompt().
     */
    afterRewind(sm) {
      let stateRefreshed = false;
      try {
        const agent = reg.sessions.get(sm)?.agent;
        if (rebuildsFromSession(agent)) {
          stateRefreshed = true; // the host rebuilds from the session itself
        } else if (agent?.state) {
          agent.state.messages = sm.buildSessionContext().messages;
          stateRefreshed = true;
        }
      } catch {
        stateRefreshed = false;
      }
      reg.pending.set(sm, { stateRefreshed });
      return stateRefreshed;
    },
  };
}
