// Safe DOM construction for the viewer. Session text only ever becomes text nodes or plain attribute values
// (data-*, title, aria-*), never HTML and never a URL: there is no innerHTML anywhere in the viewer, and the
// page's CSP enforces Trusted Types, so any HTML sink given a string would throw.

const SVG_NS = "http://www.w3.org/2000/svg";
/** Attributes that load or run something; never set from here (the viewer has no links or embedded media). */
const FORBIDDEN = /^(on|href$|src$|srcset$|srcdoc$|action$|formaction$|style$|xlink:href$|data$)/i;

function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.setAttribute("class", v);
    else if (k === "text") el.textContent = v;
    else if (k === "dataset") for (const [dk, dv] of Object.entries(v)) el.dataset[dk] = String(dv);
    else if (k === "on") for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn);
    else if (FORBIDDEN.test(k)) throw new Error(`dom: refusing to set attribute ${k}`);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(typeof c === "string" ? document.createTextNode(c) : c);
  }
}

/** Replaces `el`'s children as `h` fills a new element (null, undefined and false are skipped, not "null"). */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** `h("div", {class: "x", dataset: {id}}, "text", child…)`: strings become text nodes. */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

/** The same for SVG elements. */
export function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

// Characters that change how the text around them displays without showing themselves: bidi embeddings,
// overrides and isolates, zero-width characters, Unicode tag characters (which can smuggle text a model reads
// but a person does not see), other format and control characters. They are shown as visible `⟨U+XXXX⟩`
// markers, so a message cannot reorder or hide its own text. A zero-width joiner inside an emoji sequence
// (👨‍👩‍👧) is left alone.
const INVISIBLE_G =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B\u200C\u200E\u200F\u2028-\u202E\u2060-\u206F\u3164\uFEFF\uFFA0\uFFF9-\uFFFB\u{E0000}-\u{E007F}]|(?<!\p{Extended_Pictographic}[\uFE0F\u{1F3FB}-\u{1F3FF}]?)\u200D|\u200D(?!\p{Extended_Pictographic})/gu;
const INVISIBLE = new RegExp(INVISIBLE_G.source, "u");

/** `U+202E` for a character. */
export const codePointName = (c) => `U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}`;

/** Whether `text` holds characters `textNodes` marks. */
export const hasInvisible = (text) => INVISIBLE.test(text);

/** The text content `textNodes(text)` produces, as a string (for tests and plain-text uses). */
export const visibleText = (text) =>
  text.replace(INVISIBLE_G, (c) => `⟨${codePointName(c)}⟩${c === "\u2028" || c === "\u2029" ? "\n" : ""}`);

/**
 * Nodes for `text` with invisible and bidi control characters as visible markers and, when `query` is given,
 * its occurrences (ASCII case ignored, like the core's search) wrapped in `<mark>`.
 */
export function textNodes(text, query) {
  const out = [];
  const plain = (s) => {
    if (!s) return;
    if (query) markQuery(s, query, out);
    else out.push(document.createTextNode(s));
  };
  if (!INVISIBLE.test(text)) {
    plain(text);
    return out;
  }
  let last = 0;
  for (const m of text.matchAll(INVISIBLE_G)) {
    plain(text.slice(last, m.index));
    const c = m[0];
    // Keep real line breaks readable: U+2028/U+2029 act as line breaks and are also marked.
    out.push(h("span", { class: "ctl", title: `invisible character ${codePointName(c)}` }, `⟨${codePointName(c)}⟩`));
    if (c === "\u2028" || c === "\u2029") out.push(document.createTextNode("\n"));
    last = m.index + c.length;
  }
  plain(text.slice(last));
  return out;
}

/** ASCII-only lower case: keeps every index in place (unlike toLowerCase on e.g. "İ"). */
export const asciiLower = (s) => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());

function markQuery(s, query, out) {
  const hay = asciiLower(s);
  const needle = asciiLower(query);
  let at = 0;
  for (let i = hay.indexOf(needle); needle && i >= 0; i = hay.indexOf(needle, i + needle.length)) {
    if (i > at) out.push(document.createTextNode(s.slice(at, i)));
    out.push(h("mark", null, s.slice(i, i + needle.length)));
    at = i + needle.length;
  }
  if (at < s.length) out.push(document.createTextNode(s.slice(at)));
}

/** An element holding `text` safely (see `textNodes`); bidi is isolated per element in the CSS too. */
export function textEl(tag, attrs, text, query) {
  return h(tag, attrs, ...textNodes(String(text ?? ""), query));
}

/** `12,345` */
export const int = (n) => Math.round(n).toLocaleString("en-US");

/** `1.2 MB` */
export function bytes(n) {
  if (n < 1024) return `${n} B`;
  const units = ["KB", "MB", "GB"];
  let v = n;
  let u = -1;
  do {
    v /= 1024;
    u++;
  } while (v >= 1024 && u < units.length - 1);
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[u]}`;
}
