// pi extension: registers the agent-callable tool `navigate_tree`.
//
// Wiring only. The wasm core decides everything (validation, guards, labels, numbers, every text the
// model reads) and returns plans as data; host.js performs the pi calls those plans name; summarize.js
// calls the summarizer. The session index stays resident in wasm, one per SessionManager, and is fed
// only the entries appended since the last call.
//
// Two kinds of failure are handled here, because the core cannot handle them itself:
// - The wasm instance traps (a panic is `unreachable` with panic = "abort"; a stack overflow is an
//   out-of-bounds access). Its memory and stack are then unusable, so the whole instance is retired and
//   a fresh one instantiated; the index is rebuilt from the host's entries and the call answers with an
//   error. The texts about a crashed core live here: the core cannot be asked to describe its own crash.
// - A host write fails (full disk, read-only file, a throwing pi call). pi appends an entry in memory
//   before writing it, so after a failed write the leaf may sit on an entry that is not on disk. The shim
//   moves the leaf back to the newest entry known to be written before anything else is appended, so
//   the file never holds a child of a missing entry and every tool call keeps its result.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import * as wasmCore from "./load-node.js";
import { createHost, hostGenerateBranchSummary, registry } from "./host.js";
import { makeSummarizer } from "./summarize.js";
import { installAgentFeatures, ledgerTokensOf } from "./agent.js";
import { cacheSummarizer, installCapture } from "./cache-summary.js";
import { installCompaction } from "./compaction.js";
import * as tui from "@earendil-works/pi-tui";
import { makeRenderers } from "./render.js";
import { installAnchorsCommand } from "./anchors-command.js";
import { readArchivedEntries } from "./archive.js";
import { installArchiveNotice } from "./archive-notice.js";
import { installArchiveOnExit } from "./archive-on-exit.js";
import { installResume } from "./resume.js";
import { installLoopHint } from "./loop-hint.js";
import { wasmBytes } from "./wasm-bytes.js";

/** A navigator stops restarting its core after this many crashes (each retired instance keeps its memory). */
export const MAX_CORE_RESTARTS = 5;

/**
 * The pi extension factory.
 * @param {object} pi pi's ExtensionAPI
 * @param {{summarize?: Function}} [opts] `summarize` replaces pi's generateBranchSummary (same signature)
 */
export default function navigateTreeExtension(pi, opts) {
  createNavigator({ core: wasmCore, pi, opts });
}

/**
 * Returns `() => Promise<api>` that instantiates the wasm again, in a fresh copy of the wasm-bindgen glue
 * (the glue keeps its instance in module state, so a new instance needs a new module copy). `base` is the
 * URL of a file next to `pi_tree_navigator.js` and the package's one wasm module (js/wasm-bytes.js).
 */
export function freshCoreLoader(base) {
  let compiled;
  return async () => {
    compiled ??= new WebAssembly.Module(wasmBytes(base));
    const copy = ++registry().coreCopies; // process-wide: two navigators must never share a copy
    const glue = await importCopy(new URL("./pi_tree_navigator.js", base), copy);
    glue.initSync({ module: compiled });
    return glue;
  };
}

/**
 * Imports a new copy of the glue module at `url`. The glue keeps its instance in module state, so a new
 * instance needs a new module; module loaders cache by path (pi's loader also drops a `?query`), so the copy
 * gets a path of its own in a temporary directory, removed once it is imported.
 */
async function importCopy(url, copy) {
  const dir = mkdtempSync(join(tmpdir(), "pi-tree-navigator-"));
  try {
    const file = join(dir, `pi_tree_navigator.${copy}.mjs`);
    writeFileSync(file, readFileSync(url));
    return await import(pathToFileURL(file).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

function describe(error) {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Whether `error` means the wasm instance is broken: a trap, or wasm-bindgen's guard tripping on an
 * object a trap left borrowed.
 */
export function isTrap(error) {
  return (
    error instanceof WebAssembly.RuntimeError ||
    (error instanceof Error && /recursive use of an object detected/.test(error.message))
  );
}

function toolResult(text, details) {
  return { content: [{ type: "text", text }], details };
}

/** Everything the navigator knows about one wasm instance: the API object and weak references to its indexes. */
function coreState(api) {
  return { api, indexes: new Set() };
}

/**
 * Makes a trapped instance safe to leave behind: frees every index this navigator made in it. `free()`
 * unregisters the index from wasm-bindgen's FinalizationRegistry before it calls into wasm, so no
 * finalizer calls into the broken instance later (an exception in a finalizer would end the Node process);
 * if the call into wasm then fails, nothing is lost. Only the glue's public API is used: the core bounds
 * every recursion by its input limits, so a trap is a panic (wasm `unreachable`), which leaves the
 * instance's stack where it can still run these frees.
 */
function retire(state) {
  for (const ref of state.indexes) {
    try {
      ref.deref()?.free();
    } catch {
      // free() unregistered the finalizer before it called into wasm; a throw here is harmless.
    }
  }
  state.indexes.clear();
}

/**
 * What identifies a wasm instance: its glue's `SessionIndex` class. Module loaders may hand each load of
 * the extension its own wrapper object around the same glue module, so the API object itself does not.
 */
function instanceKey(api) {
  return api?.SessionIndex ?? api;
}

/** Whether `api`'s instance trapped and was retired (in this process). */
function isRetired(api) {
  return registry().retiredCores.has(instanceKey(api));
}

/** `core`, or the process's replacement for it if an earlier trap retired it. */
function liveCore(core) {
  const reg = registry();
  if (!isRetired(core)) return core;
  return reg.liveCore && !isRetired(reg.liveCore) ? reg.liveCore : core;
}

/**
 * Registers the tool on `pi` using the wasm API object `core` (injected, so tests can use any build).
 * `instantiate` returns a fresh API object after a trap (default: a new instance of the wasm next to this
 * file; `null`: never restart).
 * `hostOptions.pkg` replaces the host's pi-coding-agent module (tests).
 */
export function createNavigator({ core, pi, opts = {}, hostOptions, instantiate = freshCoreLoader(import.meta.url) }) {
  const host = createHost(pi, hostOptions);
  const reg = registry();
  /** sessionId → the last request pi sent (see cache-summary.js). */
  const captures = new Map();
  const summarize = cacheSummarizer(makeSummarizer(opts?.summarize ?? hostGenerateBranchSummary(hostOptions?.pkg)), {
    core: () => current?.api ?? null,
    captures,
    pi,
    pkg: hostOptions?.pkg,
  });
  /**
   * The live instance; replaced after a trap, `null` once restarts are exhausted. Every load of the
   * extension in a process shares one instance (pi imports the package natively, so the glue module is
   * evaluated once): after one load retired it, the others move to the replacement on their next call.
   */
  let current = coreState(liveCore(core));
  let restarts = 0;
  /** SessionManager → { index, fed, owner } (owner: the coreState the index lives in) */
  const indexes = new WeakMap();

  function drop(sm) {
    const state = indexes.get(sm);
    indexes.delete(sm);
    if (!state) return;
    for (const ref of state.owner.indexes) if (ref.deref() === state.index) state.owner.indexes.delete(ref);
    try {
      state.index.free();
      reg.stats.indexesFreed++;
    } catch {
      // An index whose instance trapped cannot be freed; dropping the reference is enough.
    }
  }

  function sync(sm) {
    let state = indexes.get(sm);
    if (state && state.owner !== current) {
      indexes.delete(sm); // built in a retired instance, which freed it
      state = undefined;
    }
    if (!state) {
      const index = current.api.SessionIndex.plugin();
      // The estimation rules of the running pi (src/session/profile.rs), fixed before the first entry.
      if (host.version) index.setHostVersion(host.version);
      reg.stats.indexesCreated++;
      current.indexes.add(new WeakRef(index));
      if (current.indexes.size > 64) for (const r of current.indexes) if (!r.deref()) current.indexes.delete(r);
      state = { index, fed: 0, owner: current, cursor: {} };
      indexes.set(sm, state);
    }
    // What pi appended since the last sync: after the first, only those entries are looked at.
    const fresh = host.entriesSince(sm, state.fed, state.cursor);
    state.index.sync(fresh, host.leafId(sm)); // appendEntries + setLeaf in one crossing
    state.fed += fresh.length;
    return state.index;
  }

  /**
   * Takes the index the resume read built from `sm`'s file (js/resume.js), holding pi's first `fed` entries
   * (`cursor`: host.cursorAt for them). Returns false (the caller frees it) when it is no longer wanted: built
   * in an instance that has been replaced since, or `sm` has an index already.
   */
  function adopt(sm, api, index, fed, cursor) {
    if (!current || current.api !== api || indexes.has(sm)) return false;
    reg.stats.indexesCreated++;
    current.indexes.add(new WeakRef(index));
    indexes.set(sm, { index, fed, owner: current, cursor: cursor ?? {} });
    return true;
  }

  /**
   * Runs `fn(index)`; if the index fails (a lost entry, an inconsistency), rebuilds it from the host once.
   * A trap is not retried here: the instance is broken and the caller restarts it.
   */
  function withIndex(sm, fn) {
    try {
      return fn(sync(sm));
    } catch (error) {
      if (isTrap(error)) throw error;
      drop(sm);
      return fn(sync(sm));
    }
  }

  /**
   * After a trap: retires the broken instance and instantiates a fresh one (at most MAX_CORE_RESTARTS
   * times). Returns a sentence for the model saying what happened; never throws.
   */
  async function replaceCore() {
    if (current) {
      reg.stats.traps++;
      reg.retiredCores.add(instanceKey(current.api));
      retire(current);
      current = null;
    }
    if (adoptLiveCore()) return "";
    if (typeof instantiate !== "function") return "The core cannot be restarted in this process; restart pi.";
    if (restarts >= MAX_CORE_RESTARTS) {
      return `It has crashed ${restarts + 1} times, so navigate_tree stays off until pi restarts (or /reload).`;
    }
    restarts++;
    reg.stats.coreRestarts++;
    try {
      const api = await instantiate();
      reg.liveCore = api;
      current = coreState(api);
    } catch (e) {
      return `Restarting the core failed (${describe(e)}); the next call will try again.`;
    }
    return "";
  }

  /**
   * Moves to the instance another load made after a trap, if this one's was retired. Returns whether
   * `current` is now a live instance.
   */
  function adoptLiveCore() {
    if (current && !isRetired(current.api)) return true;
    const live = reg.liveCore;
    if (!live || isRetired(live)) return false;
    if (current) retire(current); // frees this load's indexes in the retired instance
    current = coreState(live);
    return true;
  }

  /** After a trap: a fresh instance and `sm`'s index rebuilt from the host. Returns the sentence for the model. */
  async function restart(sm) {
    const problem = await replaceCore();
    if (!current) return problem;
    try {
      const index = sync(sm);
      return `The core was restarted and its index rebuilt from the session (${index.entryCount} entries); call navigate_tree again.`;
    } catch (e) {
      if (isTrap(e)) await replaceCore();
      return `The core was restarted, but rebuilding its index failed (${describe(e)}); the next call will try again.`;
    }
  }

  /** A failed call (isError) with `text`, marked through the tool_result hook as well. */
  function failed(toolCallId, text, details = {}) {
    host.markRefused(toolCallId);
    return { ...toolResult(text, details), isError: true };
  }

  function refuse(toolCallId, refusal) {
    const details = { refused: refusal.code };
    if (refusal.savedTokens !== undefined) details.savedTokens = refusal.savedTokens;
    return failed(toolCallId, refusal.text, details);
  }

  /** Moves the leaf back to `id` if a failed write left it elsewhere (on an entry that may not be on disk). */
  function restoreLeaf(sm, id) {
    try {
      if (host.leafId(sm) !== id) host.branch(sm, id);
    } catch {
      // Moving the leaf is in-memory only in pi; if even that fails there is nothing better to do.
    }
  }

  /** The model-visible text for a host write that failed, from the core when it is alive. */
  function salvage(step, error) {
    try {
      if (current) return current.api.salvageText(step, error);
    } catch {
      // fall through: the core is gone; say it plainly
    }
    return `navigate_tree: ${step} failed: ${error}. The conversation was kept valid; check the anchors with action='list'.`;
  }

  /**
   * A label write, retried once (a transient failure — a busy disk, a racing writer — should not cost the
   * anchor). Before the retry the leaf goes back to `durable`, off an entry the failed write may have left.
   */
  function writeLabelRetrying(sm, entryId, label, durable) {
    try {
      host.setLabel(entryId, label);
    } catch {
      restoreLeaf(sm, durable);
      host.setLabel(entryId, label);
    }
  }

  async function anchor(toolCallId, plan, sm) {
    const leafBefore = host.leafId(sm);
    try {
      writeLabelRetrying(sm, plan.entryId, plan.label, leafBefore);
    } catch (error) {
      restoreLeaf(sm, leafBefore);
      throw new Error(salvage("anchor", messageOf(error)), { cause: error });
    }
    if (plan.moveFrom) {
      const written = host.leafId(sm);
      try {
        writeLabelRetrying(sm, plan.moveFrom, null, written);
      } catch (error) {
        restoreLeaf(sm, written);
        throw new Error(salvage("anchor-move", messageOf(error)), { cause: error });
      }
    }
    return toolResult(plan.text, plan.details);
  }

  /** SessionManager → rewinds of that session in flight (the loop hint waits them out). */
  const rewinding = new WeakMap();

  async function rewind(toolCallId, plan, signal, ctx) {
    const sm = ctx.sessionManager;
    rewinding.set(sm, (rewinding.get(sm) ?? 0) + 1);
    try {
      return await rewindNow(toolCallId, plan, signal, ctx);
    } finally {
      rewinding.set(sm, rewinding.get(sm) - 1);
    }
  }

  async function rewindNow(toolCallId, plan, signal, ctx) {
    const sm = ctx.sessionManager;
    const auth = await host.resolveAuth(ctx);
    const authRefusal = current.api.checkAuth({ ok: auth.ok, error: auth.error });
    if (authRefusal) return refuse(toolCallId, authRefusal);

    // The collapsed entries as pi holds them: the summarizer's input and the ledger's (the index keeps no text).
    const entries = plan.summarizeIds.map((id) => host.getEntry(sm, id));
    const config = agent.stateOf(sm)?.config;
    let outcome;
    try {
      outcome = await summarize({
        entries,
        model: ctx.model,
        auth,
        signal,
        focus: plan.focus,
        streamFn: host.streamFunction(sm, ctx),
        ctx,
        plan,
        callId: toolCallId,
        config,
        agentMessages: reg.sessions.get(sm)?.agent?.state?.messages,
      });
    } catch (error) {
      outcome = { error: String(messageOf(error)) }; // a summarizer that threw: the core refuses it as failed
    }
    // The core writes the summary: its heading, the model's text, a cut note, the ledger of the entries' facts
    // (0 tokens: off; undefined: the default, when the session's config was never read).
    const ledgerTokens = ledgerTokensOf(config);
    const { summary: text, aborted, error, stopReason, replyText, readFiles, modifiedFiles } = outcome ?? {};
    const written = withIndex(sm, (index) =>
      index.rewindSummary(entries, { summary: text, aborted, error, stopReason, replyText, readFiles, modifiedFiles, ledgerTokens }),
    );
    if (written.kind === "refuse") return refuse(toolCallId, written);

    // The tree moves now. `durable` is the newest entry known to be written: every later append goes
    // under it, so a write that failed half-way (in memory, not on disk) never gets children.
    const leafBefore = host.leafId(sm);
    let durable = leafBefore;
    let step = "branch";
    let finish;
    let failure;
    try {
      // The summary request's usage (its cost as pi priced it) goes with the entry, so pi's own totals count it.
      const summaryId = host.branchWithSummary(sm, plan.targetId, written.summary, written.details, outcome.usage);
      durable = summaryId;
      step = "index";
      finish = withIndex(sm, (index) => index.rewindFinish(summaryId, Date.now())); // the plan stays in the index
      step = "labels";
      // labelEnd comes first: the anchor the model will name next exists before anything else can fail.
      for (const write of finish.labels) {
        writeLabelRetrying(sm, write.entryId, write.label, durable);
        durable = host.leafId(sm);
      }
    } catch (error) {
      failure = error;
    }
    if (failure && isTrap(failure)) await restart(sm);

    if (failure && step === "branch") {
      if (host.leafId(sm) === leafBefore) throw new Error(salvage("unchanged", messageOf(failure)), { cause: failure });
      // The summary may exist in memory only: go back to where the call started. pi appends the result
      // under the call's own assistant message, and the summary stays behind as an unused side branch.
      restoreLeaf(sm, leafBefore);
      throw new Error(salvage("branch-undone", messageOf(failure)), { cause: failure });
    }
    restoreLeaf(sm, durable);
    try {
      host.appendMessage(sm, finish?.synthetic ?? plan.fallbackSynthetic);
    } catch (error) {
      // Without the synthetic call the result would be orphaned under the summary: undo the rewind.
      restoreLeaf(sm, leafBefore);
      const both = failure ? `${messageOf(failure)}; then ${messageOf(error)}` : messageOf(error);
      throw new Error(salvage("undone", both), { cause: error });
    }
    const stateRefreshed = host.afterRewind(sm);
    if (failure) throw new Error(salvage(step, messageOf(failure)), { cause: failure });
    return toolResult(finish.text, { ...finish.details, stateRefreshed, summaryCache: outcome.summaryCache ?? null });
  }

  /**
   * The session as it was before `archive` (the sidecar's entries in their original lines, stubs replaced by
   * their originals, pi's own entries in between and after), or `null` when it has no archive or the archive
   * cannot be read (recall then answers from pi's session alone).
   */
  function originalEntries(sm) {
    const file = sm.getSessionFile?.();
    if (!file) return null;
    let archived;
    try {
      archived = readArchivedEntries(file);
    } catch {
      return null;
    }
    if (!archived?.size) return null;
    const kept = host.entriesSince(sm, 0);
    let last = 0;
    for (const line of archived.keys()) last = Math.max(last, line);
    const out = [];
    let k = 0;
    // Line 0 is the session header; pi's entries fill, in order, the original lines the archive has none for.
    for (let line = 1; k < kept.length || line <= last; line++) {
      const old = archived.get(line);
      if (old && old.id !== kept[k]?.id) {
        out.push(old); // moved: nothing of it left in the file
        continue;
      }
      if (k < kept.length) out.push(old ?? kept[k]); // a stub's original, or pi's entry
      k++;
    }
    return out;
  }

  /**
   * Runs `fn(index, entryOf)` on a temporary index of the session as it was before `archive` (`entryOf(id)`:
   * that session's entry); `null` when the session has no readable archive or that index rejects the original
   * entries (the caller then reads pi's session alone). Used by `recall` and by `/anchors`.
   */
  function withOriginalIndex(sm, fn) {
    const entries = originalEntries(sm);
    if (!entries) return null;
    const index = current.api.SessionIndex.plugin();
    try {
      if (host.version) index.setHostVersion(host.version);
      index.sync(entries, host.leafId(sm));
      const byId = new Map(entries.map((e) => [e.id, e]));
      return fn(index, (id) => byId.get(id));
    } catch (error) {
      if (isTrap(error)) throw error;
      return null;
    } finally {
      try {
        index.free();
      } catch {
        // after a trap the instance is retired with everything in it
      }
    }
  }

  /** `recall` planned and paged on the original session (see withOriginalIndex); `null`: no archive to read. */
  function recallOriginal(toolCallId, params, facts, sm) {
    return withOriginalIndex(sm, (index, entryOf) => {
      const plan = index.toolPlan(params, facts);
      if (plan.kind !== "recall") return refuse(toolCallId, plan);
      const answer = index.recallPage(plan.entryIds.map(entryOf));
      return answer.kind === "page" ? toolResult(answer.text, answer.details) : refuse(toolCallId, answer);
    });
  }

  /** What `/anchors` reads: the original session after `archive`, else pi's session (resident index). */
  function withReadIndex(sm, fn) {
    return withOriginalIndex(sm, fn) ?? withIndex(sm, (index) => fn(index, (id) => host.getEntry(sm, id)));
  }

  async function run(toolCallId, params, signal, ctx) {
    const sm = ctx.sessionManager;
    const facts = {
      callId: toolCallId,
      contextWindow: host.contextWindow(ctx.model),
      model: host.modelFacts(ctx.model),
      refreshReaches: host.refreshReaches(sm),
      nowMs: Date.now(),
    };
    // After `pi-tree-navigator archive`, what recall reads is partly in the sidecar: the core plans on the
    // original session instead (the file's entries with the archived ones put back).
    const archived = params?.action === "recall" ? recallOriginal(toolCallId, params, facts, sm) : null;
    if (archived) return archived;
    const plan = withIndex(sm, (index) => index.toolPlan(params ?? {}, facts));
    switch (plan.kind) {
      case "refuse":
        return refuse(toolCallId, plan);
      case "list":
        return toolResult(plan.text, plan.details);
      case "anchor":
        return anchor(toolCallId, plan, sm);
      case "rewind":
        return rewind(toolCallId, plan, signal, ctx);
      case "recall": {
        // The plugin index keeps no text: hand the core the collapsed entries as pi holds them.
        const answer = withIndex(sm, (index) => index.recallPage(plan.entryIds.map((id) => host.getEntry(sm, id))));
        return answer.kind === "page" ? toolResult(answer.text, answer.details) : refuse(toolCallId, answer);
      }
      default:
        throw new Error(`navigate_tree: unknown plan kind ${plan.kind}`);
    }
  }

  async function execute(toolCallId, params, signal, _onUpdate, ctx) {
    const sm = ctx.sessionManager;
    adoptLiveCore();
    if (!current) {
      // An earlier restart failed or was refused: try again, or say why not.
      const text = await replaceCore();
      if (!current) return failed(toolCallId, `navigate_tree is unavailable: its WebAssembly core crashed earlier. ${text}`);
    }
    try {
      await resume.settle(sm); // a resumed session's index, read from its file (js/resume.js)
      return await run(toolCallId, params, signal, ctx);
    } catch (error) {
      if (!isTrap(error)) throw error;
      const text = await restart(sm);
      return failed(
        toolCallId,
        `navigate_tree failed: its WebAssembly core crashed on this call (${describe(error)}). Nothing was written. ${text}`,
        { crashed: true },
      );
    }
  }

  host.installHooks({ onShutdown: drop });
  const resume = installResume({
    pi,
    core: () => current?.api ?? null,
    host,
    adopt,
    wasmBase: import.meta.url,
  });
  const definition = current.api.toolDefinition();
  const renderers = makeRenderers({
    tui,
    core: () => current?.api ?? null,
    title: definition.name,
    cacheNotices: () => host.showCacheMissNotices(),
    keyHint: host.keyHint(),
  });
  host.registerTool({ ...definition, promptGuidelines: current.api.toolGuidelines(), ...renderers }, execute);
  installCapture(pi, captures);
  installAnchorsCommand({ pi, core: () => current?.api ?? null, withIndex: withReadIndex, settle: resume.settle, host, tui });
  // The loop hint is steered from `tool_result`, before the turn ends; the pressure hint from `turn_end`. pi
  // delivers one steered message per request, so when one turn brings both the loop hint is the one the very next
  // request carries.
  const loopHint = installLoopHint({
    pi,
    core: () => current?.api ?? null,
    withIndex,
    configOf: (ctx) => agent.configOf(ctx),
    busy: (sm) => (rewinding.get(sm) ?? 0) > 0,
    resume,
    tui,
    keyHint: host.keyHint(),
  });
  const agent = installAgentFeatures({ pi, core: () => current?.api ?? null, withIndex, resume, host, toolName: definition.name, pkg: hostOptions?.pkg });
  installCompaction({
    pi,
    core: () => current?.api ?? null,
    captures,
    resolveAuth: (ctx) => host.resolveAuth(ctx),
    withIndex: (sm, fn) => withIndex(sm, fn),
    getEntry: (sm, id) => host.getEntry(sm, id),
    config: (ctx) => agent.stateOf(ctx.sessionManager)?.config,
    showMisses: () => host.showCacheMissNotices(),
    log: (reg.compactions ??= []),
    pkg: hostOptions?.pkg,
  });
  installArchiveNotice({ pi, core: () => current?.api ?? null, configOf: (sm) => agent.stateOf(sm)?.config, after: resume.readDone });
  installArchiveOnExit({ pi, core: () => current?.api ?? null, configOf: (sm) => agent.stateOf(sm)?.config, pkg: hostOptions?.pkg });

  return {
    host,
    execute,
    agent,
    loopHint,
    /** The live wasm API object (tests: it changes after a restart). */
    get core() {
      return current?.api ?? null;
    },
  };
}
