// Layout of navigate_tree in pi's TUI (pkg/render.js) with a fake theme and fake components: which text goes
// in which colour, collapsed vs expanded, the cache-miss line only with the setting. A supplement: the proof in
// the real interactive pi is tests/e2e/tui.test.mjs. Run `npm run build` first.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadPkg } from "./fake-pi.js";

const { makeRenderers } = await loadPkg("render.js");
const core = await loadPkg("index-node.js");

class Text {
  constructor(text) {
    this.text = text;
  }
}
class Container {}
const theme = { fg: (color, s) => `<${color}>${s}</${color}>`, bold: (s) => `*${s}*` };
const keyHint = (id, what) => `[${id}] ${what}`;

function renderers(notices) {
  return makeRenderers({ tui: { Text, Container }, core: () => core, title: "navigate_tree", cacheNotices: () => notices, keyHint });
}

const TEXT = "[rewind 'a' → 'b'] · context 61.8% → 0.9% of 100k\n\nThe work after 'a' is now the branch summary above.";
const result = {
  content: [{ type: "text", text: TEXT }],
  details: { labelStart: "a", labelEnd: "b", contextBefore: 61_800, contextAfter: 900, contextWindow: 100_000, summaryCache: { mode: "fallback", reason: "no-capture", input: 5000 } },
};

test("the call is one line: the tool's name, then the action and its names", () => {
  const c = renderers(false).renderCall({ action: "rewind", labelStart: "a", labelEnd: "b", summaryFocus: "keep\nthis" }, theme, {});
  assert.equal(c.text, "<toolTitle>*navigate_tree*</toolTitle> <accent>rewind a → b · “keep this”</accent>");
});

test("collapsed: the core's headline with pi's expand hint; the cache-miss line only with the setting", () => {
  const off = renderers(false).renderResult(result, { expanded: false, isPartial: false }, theme, {});
  assert.equal(off.text, "<success>rewind 'a' → 'b' · context 61.8% → 0.9% of 100k · summary cold (no-capture)</success> <muted>(</muted>[app.tools.expand] to expand<muted>)</muted>");
  const on = renderers(true).renderResult(result, { expanded: false, isPartial: false }, theme, {});
  assert.match(on.text, /\n<warning>cache miss: the rewind's summary was written cold \(no-capture\): 5\.0k prompt tokens not read from the cache<\/warning>$/);
});

test("expanded: the full text the model read", () => {
  const r = renderers(false).renderResult(result, { expanded: true, isPartial: false }, theme, {});
  assert.equal(r.text, `<toolOutput>${TEXT}</toolOutput>`);
});

test("a refusal is in the error colour with its reason; the render context's keyHint wins", () => {
  const refused = { content: [{ type: "text", text: "No anchor 'x' on the active branch. Anchors here:" }], details: { refused: "UnknownAnchor" } };
  const r = renderers(false).renderResult(refused, { expanded: false }, theme, { isError: true, keyHint: () => "K" });
  assert.equal(r.text, "<error>refused: No anchor 'x' on the active branch.</error> <muted>(</muted>K<muted>)</muted>");
});

test("without a live core the renderers throw, so pi falls back to its plain rendering", () => {
  const r = makeRenderers({ tui: { Text, Container }, core: () => null, title: "t", cacheNotices: () => false });
  assert.throws(() => r.renderCall({}, theme, {}));
  assert.throws(() => r.renderResult(result, {}, theme, {}));
});
