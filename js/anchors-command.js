// The user's `/anchors` command: the anchors on the active branch with the context at each and every rewind
// with what it saved (rows from the core's `anchorsView`); choosing one shows, page by page, what was collapsed
// there — the very pages `recall` gives the model, without the lines written for the model (`anchorsRecall` +
// `anchorsPage`).
//
// A command runs on the user's side: it reads the session (after `archive`, with the sidecar's entries put back,
// as `recall` does) and writes nothing (no entry, no label, no message),
// and it keeps no plan in the index, so a rewind in flight is not disturbed. Every word comes from the core.
//
// A page is shown in a pager: a full-screen overlay (`ctx.ui.custom`) built from pi-tui's own helpers that every
// host with `/anchors` has (wrapTextWithAnsi, truncateToWidth, matchesKey: pi ≥0.74). It opens at the page's
// first line, scrolls with ↑↓ and PgUp/PgDn (pi's `tui.select.*` keys) and Home/End; → is the next page, ← the
// list, Esc (or q) closes; the footer (the core's `anchorsPagerFooter`) names those keys. A host whose
// `ui.custom` shows nothing (RPC) gets the page in pi's editor dialog and the next/back choices; one without
// dialogs (print mode, no `ui.select`) gets the rows as one note.

/**
 * Registers `/anchors` on `pi` (nothing on a host without `registerCommand`).
 * @param {object} pi pi's ExtensionAPI
 * @param {() => object|null} core the live wasm API (null after a crash)
 * @param {Function} withIndex `withIndex(sm, fn)`: runs `fn(index, entryOf)` on the index of what the session
 *   holds — after `archive`, a temporary index of the original session (the sidecar's entries put back)
 * @param {(sm) => Promise<void>} [settle] waits for a resumed session's index read from its file (js/resume.js)
 * @param {object} host host.js's adapter (`contextWindow`)
 * @param {object} [tui] the host's pi-tui module (the pager's helpers; without them, the editor dialog)
 */
export function installAnchorsCommand({ pi, core, withIndex, settle = async () => {}, host, tui }) {
  if (typeof pi?.registerCommand !== "function") return;
  pi.registerCommand("anchors", {
    description: "Anchors with their context %, rewinds with what each saved; choose one to read what was collapsed",
    handler: async (_args, ctx) => {
      const api = core();
      if (!api) return say(ctx, "navigate_tree's core crashed earlier; run /reload.", "error");
      const sm = ctx.sessionManager;
      const window = host.contextWindow(ctx.model);
      await settle(sm);
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
        return api.anchorsPage(plan, plan.entryIds.map(entryOf));
      });
      if (answer.kind !== "page") {
        say(ctx, answer.text, "warning");
        return true;
      }
      const action = (await showPager(ctx, answer, (...at) => api.anchorsPagerFooter(answer.page, answer.pages, ...at))) ?? (await showInEditor(ctx, answer));
      if (action !== "next" || !answer.next) return action === "back";
    }
  }

  /**
   * The page in the pager; resolves to "next", "back" or "close", or to null when this host shows no custom
   * component (its `ui.custom` returns without calling the factory, as in RPC mode).
   */
  async function showPager(ctx, page, footer) {
    const kit = ["wrapTextWithAnsi", "truncateToWidth", "matchesKey"].every((f) => typeof tui?.[f] === "function");
    if (!kit || typeof ctx.ui.custom !== "function") return null;
    let shown = false;
    const action = await ctx.ui.custom(
      (screen, theme, keybindings, done) => {
        shown = true;
        return pager({ tui, screen, theme, keybindings, done, page, footer });
      },
      { overlay: true, overlayOptions: { anchor: "top-left", width: "100%", maxHeight: "100%" } },
    );
    return shown ? (action ?? "close") : null;
  }
}

/**
 * The pager component (pi-tui's Component: `render(width)`, `handleInput(data)`, `invalidate()`): a border, the
 * page's title, as many of the page's lines as the terminal has room for (wrapped to its width), the footer, a
 * border — one screen. `done(action)` ends it with "next" (only when there is a next page), "back" or "close".
 */
function pager({ tui, screen, theme, keybindings, done, page, footer }) {
  const { wrapTextWithAnsi, truncateToWidth, matchesKey } = tui;
  let top = 0;
  let maxTop = 0;
  let wrapped = null; // { width, lines }
  const height = () => Math.max(3, (screen?.terminal?.rows ?? 24) - 4);
  const is = (data, binding, ...keys) => keybindings?.matches?.(data, binding) || keys.some((k) => matchesKey(data, k));
  const linesFor = (width) => {
    if (wrapped?.width !== width) {
      const body = plain(page.body).split("\n");
      wrapped = { width, lines: body.flatMap((l) => (l === "" ? [""] : wrapTextWithAnsi(l, Math.max(1, width - 2)))) };
    }
    return wrapped.lines;
  };
  return {
    render(width) {
      const lines = linesFor(width);
      const h = height();
      maxTop = Math.max(0, lines.length - h);
      top = Math.min(Math.max(0, top), maxTop);
      const shown = lines.slice(top, top + h).map((l) => truncateToWidth(` ${l}`, width));
      while (shown.length < h) shown.push("");
      const border = theme.fg("border", "─".repeat(Math.max(1, width)));
      const at = footer(top + 1, Math.min(top + h, lines.length), lines.length);
      return [border, truncateToWidth(` ${theme.fg("accent", theme.bold(page.title))}`, width), ...shown, truncateToWidth(` ${theme.fg("dim", at)}`, width), border];
    },
    handleInput(data) {
      const step = Math.max(1, height() - 1);
      if (is(data, "tui.select.cancel", "escape", "q")) return done("close");
      if (matchesKey(data, "right") && page.next) return done("next");
      if (matchesKey(data, "left")) return done("back");
      const before = top;
      if (is(data, "tui.select.up", "up")) top -= 1;
      else if (is(data, "tui.select.down", "down")) top += 1;
      else if (is(data, "tui.select.pageUp", "pageUp")) top -= step;
      else if (is(data, "tui.select.pageDown", "pageDown", "space")) top += step;
      else if (matchesKey(data, "home")) top = 0;
      else if (matchesKey(data, "end")) top = maxTop;
      top = Math.min(Math.max(0, top), maxTop);
      if (top !== before) screen?.requestRender?.();
    },
    invalidate() {
      wrapped = null;
    },
  };
}

/**
 * Text safe to draw: tabs as spaces, without terminal escape sequences (a collapsed command output may hold
 * colours: CSI and OSC sequences) or other control characters.
 */
function plain(text) {
  return text
    .replace(/\t/g, "    ")
    .replace(/\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-_])?/g, "")
    .replace(/[\x00-\x08\x0b-\x1f\x7f\x9b]/g, "");
}

/** The page where the pager cannot be shown: pi's editor dialog (or a note), then the next/back choices. */
async function showInEditor(ctx, page) {
  if (typeof ctx.ui.editor === "function") await ctx.ui.editor(page.title, page.body);
  else say(ctx, `${page.title}\n${page.body}`, "info");
  const pick = await ctx.ui.select(page.title, [page.next, page.back].filter((o) => typeof o === "string"));
  return pick === page.next && page.next ? "next" : pick === page.back ? "back" : "close";
}

/** Whether this host can show dialogs now (interactive, with `ui.select`). */
export function canAsk(ctx) {
  return ctx?.hasUI !== false && typeof ctx?.ui?.select === "function";
}

/** A note to the user: pi's notify, else stdout (print mode has no UI). Never throws. */
export function say(ctx, text, level) {
  try {
    if (ctx?.hasUI !== false && typeof ctx?.ui?.notify === "function") ctx.ui.notify(text, level);
    else process.stdout.write(`${text}\n`);
  } catch {
    // A UI that cannot show a note is no reason to fail the command.
  }
}
