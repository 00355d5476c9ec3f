// pi extension: registers the agent-callable tool `navigate_tree`.
//
// Wiring only. The wasm core decides everything (validation, guards, labels, numbers, every text the
// model reads) and returns plans as data; host.js performs the pi calls those plans name; summarize.js
// calls the summarizer. The session index stays resident in wasm, one per SessionManager, and is fed
// only the entries appended since the last call.
import * as wasmCore from "./load-node.js";
import { createHost, hostGenerateBranchSummary } from "./host.js";
import { makeSummarizer } from "./summarize.js";

/**
 * The pi extension factory.
 * @param {object} pi pi's ExtensionAPI
 * @param {{summarize?: Function}} [opts] `summarize` replaces pi's generateBranchSummary (same signature)
 */
export default function navigateTreeExtension(pi, opts) {
  createNavigator({ core: wasmCore, pi, opts });
}

function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

function toolResult(text, details) {
  return { content: [{ type: "text", text }], details };
}

/**
 * Registers the tool on `pi` using the wasm API object `core` (injected, so tests can use any build).
 * `hostOptions.pkg` replaces the host's pi-coding-agent module (tests).
 */
export function createNavigator({ core, pi, opts = {}, hostOptions }) {
  const host = createHost(pi, hostOptions);
  const summarize = makeSummarizer(opts?.summarize ?? hostGenerateBranchSummary(hostOptions?.pkg));
  /** SessionManager → { index, fed } */
  const indexes = new WeakMap();

  function drop(sm) {
    const state = indexes.get(sm);
    indexes.delete(sm);
    try {
      state?.index.free();
    } catch {
      // An index whose instance trapped cannot be freed; dropping the reference is enough.
    }
  }

  function sync(sm) {
    let state = indexes.get(sm);
    if (!state) {
      state = { index: core.SessionIndex.plugin(), fed: 0 };
      indexes.set(sm, state);
    }
    const fresh = host.entriesSince(sm, state.fed);
    if (fresh.length > 0) {
      state.index.appendEntries(fresh);
      state.fed += fresh.length;
    }
    state.index.setLeaf(host.leafId(sm));
    return state.index;
  }

  /** Runs `fn(index)`; if the index fails (a trap, a lost entry), rebuilds it from the host once. */
  function withIndex(sm, fn) {
    try {
      return fn(sync(sm));
    } catch {
      drop(sm);
      return fn(sync(sm));
    }
  }

  function refuse(toolCallId, refusal) {
    host.markRefused(toolCallId);
    return { ...toolResult(refusal.text, { refused: refusal.code }), isError: true };
  }

  async function rewind(toolCallId, plan, signal, ctx) {
    const sm = ctx.sessionManager;
    const auth = await host.resolveAuth(ctx);
    const authRefusal = core.checkAuth({ ok: auth.ok, error: auth.error });
    if (authRefusal) return refuse(toolCallId, authRefusal);

    let outcome;
    try {
      outcome = await summarize({
        entries: plan.summarizeIds.map((id) => host.getEntry(sm, id)),
        model: ctx.model,
        auth,
        signal,
        focus: plan.focus,
        streamFn: host.streamFunction(sm),
      });
    } catch (error) {
      return refuse(toolCallId, core.summaryError(messageOf(error)));
    }
    const summaryRefusal = core.checkSummary({ summary: outcome.summary, aborted: outcome.aborted, error: outcome.error });
    if (summaryRefusal) return refuse(toolCallId, summaryRefusal);

    // The tree moves now. Whatever fails from here, the synthetic call is appended and the context
    // refreshed before the error surfaces, so the conversation never keeps an orphaned tool result.
    const leafBefore = host.leafId(sm);
    let step = "branch";
    let finish;
    let failure;
    try {
      const details = { readFiles: outcome.readFiles ?? [], modifiedFiles: outcome.modifiedFiles ?? [] };
      const summaryId = host.branchWithSummary(sm, plan.targetId, outcome.summary, details);
      step = "index";
      finish = withIndex(sm, (index) => index.rewindFinish(plan, summaryId, Date.now()));
      step = "labels";
      for (const write of finish.labels) host.setLabel(write.entryId, write.label);
    } catch (error) {
      failure = error;
    }
    if (failure && step === "branch" && host.leafId(sm) === leafBefore) throw failure;
    host.appendMessage(sm, finish?.synthetic ?? plan.fallbackSynthetic);
    const stateRefreshed = host.afterRewind(sm);
    if (failure) throw new Error(core.salvageText(step, messageOf(failure)), { cause: failure });
    return toolResult(finish.text, { ...finish.details, stateRefreshed });
  }

  async function execute(toolCallId, params, signal, _onUpdate, ctx) {
    const sm = ctx.sessionManager;
    const facts = {
      callId: toolCallId,
      contextWindow: host.contextWindow(ctx.model),
      model: host.modelFacts(ctx.model),
      refreshReaches: host.refreshReaches(sm),
      nowMs: Date.now(),
    };
    const plan = withIndex(sm, (index) => index.toolPlan(params ?? {}, facts));
    switch (plan.kind) {
      case "refuse":
        return refuse(toolCallId, plan);
      case "list":
        return toolResult(plan.text, plan.details);
      case "anchor":
        host.setLabel(plan.entryId, plan.label);
        if (plan.moveFrom) host.setLabel(plan.moveFrom, null);
        return toolResult(plan.text, plan.details);
      case "rewind":
        return rewind(toolCallId, plan, signal, ctx);
      default:
        throw new Error(`navigate_tree: unknown plan kind ${plan.kind}`);
    }
  }

  host.installHooks({ onShutdown: drop });
  host.registerTool(core.toolDefinition(), execute);
  return { host, execute };
}
