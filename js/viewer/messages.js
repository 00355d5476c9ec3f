// "What the model saw": the context at a leaf as the core renders it for the model (contextView: pi's
// buildSessionContext + convertToLlm, with wrappers, per-message tokens and source entries), drawn readably.
// Thinking and tool results start collapsed (their content is built when opened); long contexts are paged.
import { h, int, textEl } from "./dom.js";

/** Messages rendered at once; earlier ones load on demand (contexts of large sessions hold thousands). */
export const PAGE = 200;

const STORED_TITLE = {
  user: "user",
  assistant: "assistant",
  toolResult: "tool result",
  branchSummary: "branch summary (rewind)",
  compactionSummary: "compaction summary",
  custom: "custom message",
  hookMessage: "hook message",
  bashExecution: "bash (user ran)",
};

/**
 * Renders the context at `leafId` into `container`: the last PAGE messages, and a button for earlier ones.
 * @param {HTMLElement} container
 * @param {{index: object, leafId: string, query?: string, oneLine(text: string): string}} opts
 * @returns {{total: number, model: object | null, thinkingLevel: unknown, showAll(): void}}
 */
export function renderContext(container, opts) {
  const { index, leafId } = opts;
  const list = h("ol", { class: "messages" });
  const more = h("button", { class: "more", type: "button" });
  let shownFrom = 0;
  const page = (start, end) => index.contextView(leafId, start, end);
  const first = page(0, 0);
  const total = first.total;
  shownFrom = Math.max(0, total - PAGE);
  const updateMore = () => {
    more.hidden = shownFrom === 0;
    more.textContent = `Show ${int(Math.min(PAGE, shownFrom))} earlier messages (${int(shownFrom)} not shown)`;
  };
  const loadEarlier = () => {
    const from = Math.max(0, shownFrom - PAGE);
    const frag = document.createDocumentFragment();
    page(from, shownFrom).messages.forEach((m, k) => frag.append(messageEl(m, from + k, opts)));
    list.prepend(frag);
    shownFrom = from;
    updateMore();
  };
  more.addEventListener("click", loadEarlier);
  page(shownFrom, total).messages.forEach((m, k) => list.append(messageEl(m, shownFrom + k, opts)));
  updateMore();
  container.replaceChildren(more, list);
  return {
    total,
    /** The model and thinking level in force at the leaf (as buildContext reports them). */
    model: first.model,
    thinkingLevel: first.thinkingLevel,
    /** Renders every message (the tests compare all of them with the CLI). */
    showAll() {
      while (shownFrom > 0) loadEarlier();
    },
  };
}

function messageEl(m, i, opts) {
  const { query } = opts;
  const stored = m.storedRole;
  const head = h("div", { class: "msg-head" },
    textEl("span", { class: `role role-${cssIdent(stored)}` }, STORED_TITLE[stored] ?? stored),
    m.role === "none"
      ? h("span", { class: "meta dropped", title: "pi's convertToLlm drops this message: the model never reads it (it still counts in the estimate)" }, "not sent to the model")
      : stored !== m.role ? h("span", { class: "meta", title: "the role the model receives it as" }, `sent as ${m.role}`) : null,
    m.toolName !== null ? textEl("span", { class: "meta tool" }, m.toolName) : null,
    m.isError ? h("span", { class: "error-tag" }, "error") : null,
    ...assistantMeta(m),
    h("span", { class: "spacer" }),
    h("span", { class: "meta tokens", title: "this message's share of the estimate" }, `${int(m.tokens)} tok`),
    h("button", { class: "entry-link", type: "button", title: "select the entry this message comes from", dataset: { entry: m.entryId } },
      `#${i} · `, textEl("span", null, m.entryId)),
  );
  const body = () => h("div", { class: "msg-body" }, ...m.parts.map((p) => partEl(p, query)));
  const attrs = {
    class: `msg role-${cssIdent(stored)}${m.isError ? " is-error" : ""}${m.role === "none" ? " dropped" : ""}`,
    dataset: { role: stored, llmRole: m.role, index: i, entry: m.entryId },
  };
  if (stored !== "toolResult") return h("li", attrs, head, body());
  // Tool results start collapsed: size and a one-line preview; the body is built when opened.
  const text = m.parts.filter((p) => p.kind === "text").map((p) => p.text).join("\n");
  const summary = h("summary", null,
    h("span", { class: "size" }, `${int(text.length)} chars`),
    textEl("span", { class: "preview" }, opts.oneLine(text), query));
  return h("li", attrs, head, lazyDetails(summary, body, "tool-result"));
}

function assistantMeta(m) {
  const a = m.assistant;
  if (!a) return [];
  const out = [];
  if (a.model) out.push(textEl("span", { class: "meta" }, a.model));
  if (a.stopReason && a.stopReason !== "stop" && a.stopReason !== "toolUse") out.push(textEl("span", { class: "meta stop" }, a.stopReason));
  if (a.errorMessage) out.push(textEl("span", { class: "meta error-tag" }, a.errorMessage));
  if (typeof a.usageTotal === "number" && a.usageTotal > 0) out.push(h("span", { class: "meta usage", title: "usage.totalTokens reported by the provider" }, `usage ${int(a.usageTotal)}`));
  return out;
}

function partEl(p, query) {
  switch (p.kind) {
    case "text": return textEl("div", { class: "part text" }, p.text, query);
    case "wrapper": return textEl("div", { class: "part wrapper", title: "text pi adds around this message" }, p.text);
    case "thinking": {
      const summary = h("summary", null, "thinking", h("span", { class: "size" }, `${int(p.text.length)} chars`));
      return lazyDetails(summary, () => textEl("div", { class: "part text" }, p.text, query), "thinking");
    }
    case "toolCall":
      return h("div", { class: "part tool-call" },
        h("div", { class: "call-head" }, "→ ", textEl("span", { class: "tool-name" }, p.name), " ", textEl("span", { class: "call-id" }, p.id)),
        textEl("div", { class: "args" }, indentJson(p.arguments), query));
    case "image":
      return h("div", { class: "part image" }, `[image ${p.mimeType || "?"}, ${int(p.bytes)} bytes — not displayed]`);
    default:
      return textEl("div", { class: "part json" }, JSON.stringify(p), query);
  }
}

/** A <details> whose body is built the first time it opens (tool results can be megabytes). */
function lazyDetails(summary, build, cls) {
  const d = h("details", { class: cls }, summary);
  d.addEventListener("toggle", () => {
    if (d.open && d.childNodes.length === 1) d.append(build());
  });
  return d;
}

/**
 * Line breaks and indentation for compact JSON text, without parsing it (numbers and escapes stay exactly as
 * the core wrote them). Text that is not JSON comes back unchanged.
 */
export function indentJson(text) {
  if (text.length > 200000 || !/^[[{]/.test(text)) return text;
  let out = "";
  let depth = 0;
  let inString = false;
  const nl = () => "\n" + "  ".repeat(depth);
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === "\\") out += text[++i] ?? "";
      else if (c === '"') inString = false;
      continue;
    }
    switch (c) {
      case '"': inString = true; out += c; break;
      case "{": case "[":
        if (text[i + 1] === (c === "{" ? "}" : "]")) {
          out += c + text[++i];
        } else {
          depth++;
          out += c + nl();
        }
        break;
      case "}": case "]": depth--; out += nl() + c; break;
      case ",": out += "," + nl(); break;
      case ":": out += ": "; break;
      default: out += c;
    }
  }
  return out;
}

const cssIdent = (s) => String(s).replace(/[^A-Za-z0-9_-]/g, "_");
