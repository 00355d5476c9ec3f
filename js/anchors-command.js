// The user's `/anchors` command: the anchors on the active branch with the context at each and every rewind
// with what it saved (rows from the core's `anchorsView`); choosing one shows, page by page, what was collapsed
// there — the very text `recall` gives the model (`anchorsRecall` + `anchorsRecallPage`).
//
// A command runs on the user's side: it reads the session (after `archive`, with the sidecar's entries put back,
// as `recall` does) and writes nothing (no entry, no label, no message),
// and it keeps no plan in the index, so a rewind in flight is not disturbed. Every word comes from the core.
// A page is shown in pi's multi-line editor dialog (read, then Enter or Esc; the text is not used); a host
// without dialogs (print mode, no `ui.select`) gets the rows as one note.

/**
 * Registers `/anchors` on `pi` (nothing on a host without `registerCommand`).
 * @param {object} pi pi's ExtensionAPI
 * @param {() => object|null} core the live wasm API (null after a crash)
 * @param {Function} withIndex `withIndex(sm, fn)`: runs `fn(index, entryOf)` on the index of what the session
 *   holds — after `archive`, a temporary index of the original session (the sidecar's entries put back)
 * @param {object} host host.js's adapter (`contextWindow`)
 */
export function installAnchorsCommand({ pi, core, withIndex, host }) {
  if (typeof pi?.registerCommand !== "function") return;
  pi.registerCommand("anchors", {
    description: "Anchors with their context %, rewinds with what each saved; choose one to read what was collapsed",
    handler: async (_args, ctx) => {
      const api = core();
      if (!api) return say(ctx, "navigate_tree's core crashed earlier; run /reload.", "error");
      const sm = ctx.sessionManager;
      const window = host.contextWindow(ctx.model);
      for (;;) {
        const view = withIndex(sm, (index) => index.anchorsView(window));
        if (view.rows.length === 0 || !canAsk(ctx)) {
          return say(ctx, [view.title, ...view.rows.map((r) => r.text)].join("\n"), "info");
        }
        const choice = await ctx.ui.select(view.title, view.rows.map((r) => r.text));
        const row = view.rows.find((r) => r.text === choice);
        if (!row) return; // Esc
        if (!row.recall) {
          say(ctx, view.unnamed, "warning");
          continue;
        }
        if (!(await showPages(ctx, api, sm, row.recall, window))) return;
      }
    },
  });

  /** Shows the pages of what was collapsed at `name`; returns whether the user asked to go back to the rows. */
  async function showPages(ctx, api, sm, name, window) {
    for (let page = 1; ; page++) {
      const answer = withIndex(sm, (index, entryOf) => {
        const plan = index.anchorsRecall(name, page, window);
        if (plan.kind !== "recall") return plan;
        return api.anchorsRecallPage(plan, plan.entryIds.map(entryOf));
      });
      if (answer.kind !== "page") {
        say(ctx, answer.text, "warning");
        return true;
      }
      const choices = api.anchorsPageChoices(name, page, answer.details.pages);
      if (typeof ctx.ui.editor === "function") await ctx.ui.editor(choices.title, answer.text);
      else say(ctx, answer.text, "info");
      const options = [choices.next, choices.back].filter((o) => typeof o === "string");
      const pick = await ctx.ui.select(choices.title, options);
      if (pick !== choices.next || !choices.next) return pick === choices.back;
    }
  }
}

/** Whether this host can show dialogs now (interactive, with `ui.select`). */
function canAsk(ctx) {
  return ctx?.hasUI !== false && typeof ctx?.ui?.select === "function";
}

/** A note to the user: pi's notify, else stdout (print mode has no UI). Never throws. */
function say(ctx, text, level) {
  try {
    if (ctx?.hasUI !== false && typeof ctx?.ui?.notify === "function") ctx.ui.notify(text, level);
    else process.stdout.write(`${text}\n`);
  } catch {
    // A UI that cannot show a note is no reason to fail the command.
  }
}
