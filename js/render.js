// How navigate_tree looks in pi's interactive TUI: `renderCall` / `renderResult` built from the host's own
// pi-tui components and theme colours. Layout only: every word comes from the core (`toolCallLine`,
// `toolResultView`); the expanded view is the text the model read, unchanged. Nothing here reaches the model.
//
// Collapsed: the headline (error colour for a refusal or a failure) and pi's expand hint. Expanded: the full
// text. Either way, when pi's `showCacheMissNotices` setting is on, the rewind's cache-miss line.
// If the core is gone (crashed) the renderers throw, and pi falls back to its plain rendering.
// The loop hint's message (js/loop-hint.js) gets one line too: the core's headline, written when it was sent.
// Components are never changed after they are returned, and no array a component's render() returned is
// modified (pi 1.6.0 caches them read-only).

/**
 * The renderers for `pi.registerTool`.
 * @param {{Text: Function, Container: Function}} tui the host's pi-tui components
 * @param {() => object|null} core the live wasm API (null after a crash)
 * @param {string} title the tool's name, shown first on the call line
 * @param {() => boolean} cacheNotices whether pi's `showCacheMissNotices` is on
 * @param {Function} [keyHint] the host's `keyHint` (older hosts do not pass it in the render context)
 */
export function makeRenderers({ tui, core, title, cacheNotices, keyHint }) {
  const { Text, Container } = tui;
  const api = () => {
    const live = core();
    if (!live) throw new Error("navigate_tree: no core to describe the call");
    return live;
  };
  return {
    renderCall(args, theme) {
      const line = api().toolCallLine(args ?? {});
      return new Text(theme.fg("toolTitle", theme.bold(title)) + (line ? ` ${theme.fg("accent", line)}` : ""), 0, 0);
    },
    renderResult(result, options, theme, context) {
      if (options?.isPartial) return new Container();
      const text = textOf(result);
      const details = result?.details && typeof result.details === "object" ? result.details : undefined;
      const view = api().toolResultView({ text, isError: context?.isError === true, details });
      const lines = [];
      if (options?.expanded) {
        lines.push(theme.fg("toolOutput", text));
      } else {
        const hint = (context?.keyHint ?? keyHint)?.("app.tools.expand", "to expand");
        lines.push(theme.fg(view.error ? "error" : "success", view.headline) + (hint ? ` ${theme.fg("muted", "(")}${hint}${theme.fg("muted", ")")}` : ""));
      }
      if (view.cacheMiss && safe(cacheNotices)) lines.push(theme.fg("warning", view.cacheMiss));
      return new Text(lines.join("\n"), 0, 0);
    },
  };
}

/**
 * pi's renderer for the loop hint's message: collapsed, the core's one line (`details.headline`, written when the
 * hint was sent) and pi's expand hint; expanded, the text the model read. Without a headline (a message from
 * elsewhere) pi's own rendering shows it.
 */
export function makeLoopRenderer({ tui, keyHint }) {
  return (message, options, theme) => {
    const headline = message?.details?.headline;
    if (typeof headline !== "string" || !tui?.Text) return undefined;
    if (options?.expanded) return new tui.Text(theme.fg("customMessageText", contentText(message)), 1, 0);
    const hint = (options?.keyHint ?? keyHint)?.("app.tools.expand", "to expand");
    return new tui.Text(theme.fg("warning", `↻ ${headline}`) + (hint ? ` ${theme.fg("muted", "(")}${hint}${theme.fg("muted", ")")}` : ""), 1, 0);
  };
}

/** A custom message's text (a string, or its text parts joined). */
function contentText(message) {
  return typeof message?.content === "string" ? message.content : textOf(message);
}

/** The text parts of a tool result's (or a message's) content, joined by newlines: what the model read. */
export function textOf(result) {
  const parts = Array.isArray(result?.content) ? result.content : [];
  // One text part (most results): its text, no arrays made (the loop hint reads every result).
  if (parts.length === 1) return parts[0]?.type === "text" && typeof parts[0].text === "string" ? parts[0].text : "";
  return parts.filter((c) => c?.type === "text" && typeof c.text === "string").map((c) => c.text).join("\n");
}

function safe(fn) {
  try {
    return fn() === true;
  } catch {
    return false;
  }
}
