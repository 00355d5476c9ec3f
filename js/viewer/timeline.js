// The context timeline: the core's estimate at every entry of the active path (pathEstimates), as an SVG
// plot (x = entry on the path, y = tokens or % of a chosen window) with anchors, rewinds (branch summaries)
// and compactions marked. Clicking the plot or a marker selects that entry. When the selected entry is off
// the active path, its own path is drawn too (dashed): both start at the root, so the plot shows where the
// branches part and what a rewind took off the context.
import { h, int, svg } from "./dom.js";

const HEIGHT = 170;
const M = { left: 52, right: 14, top: 26, bottom: 22 };
const KIND_TITLE = { anchor: "anchor", rewind: "rewind (branch summary)", compaction: "compaction" };

export class Timeline {
  /**
   * @param {HTMLElement} container
   * @param {{onPick(row: number): void, format(value: number, window: number): string, saving?(saving: object): string}} handlers
   *   `format` is the core's formatPct1 (`840`, `12.3k`, or `9.6%` of a window; in the cost lens its formatUsd);
   *   `saving` the text of what a rewind or compaction saved (its marker's `saving`: the cost model's item)
   */
  constructor(container, handlers) {
    this.container = container;
    this.handlers = handlers;
    this.readout = h("div", { class: "readout" }, "");
    this.plot = h("div", { class: "plot" });
    container.replaceChildren(this.plot, this.readout);
    this.data = null;
    this.window = 0;
    this.selectedPos = -1;
    this.alt = null;
    this.width = 0;
    new ResizeObserver(() => {
      if (this.container.clientWidth !== this.width) this.render();
    }).observe(container);
  }

  /**
   * `data = {pathRows, idOf, series, markers, lens}`: the active path as tree rows, a row's entry id, the estimate
   * (lens "cost": the money spent) at each path position and the markers; `window` = context window in tokens
   * (0: plot tokens).
   */
  set(data, window) {
    this.data = data;
    this.window = window;
    this.readout.textContent = ""; // the leaf's line again, in this data's unit
    this.render();
  }

  setWindow(window) {
    this.window = window;
    this.render();
  }

  /** Marks the selection: `pos` on the active path, or -1 with `alt = {pathRows, series}` for another path. */
  select(pos, alt = null) {
    const redraw = alt !== this.alt;
    this.selectedPos = pos;
    this.alt = alt;
    if (redraw) return this.render();
    const cursor = this.plot.querySelector(".cursor");
    if (!cursor || !this.geom) return this.render();
    const x = pos >= 0 ? this.geom.x(pos) : -10;
    cursor.setAttribute("x1", x);
    cursor.setAttribute("x2", x);
    cursor.setAttribute("visibility", pos >= 0 ? "visible" : "hidden");
  }

  render() {
    this.width = this.container.clientWidth;
    if (!this.data || this.width < 100) return;
    const { pathRows, idOf, series, markers } = this.data;
    const n = series.length;
    const alt = this.alt;
    const span = Math.max(n, alt ? alt.series.length : 0);
    const W = this.width;
    const pw = W - M.left - M.right;
    const ph = HEIGHT - M.top - M.bottom;
    let max = 0;
    for (let i = 0; i < n; i++) if (series[i] > max) max = series[i];
    if (alt) for (const v of alt.series) if (v > max) max = v;
    const cost = this.data.lens === "cost";
    // Money is plotted to its own scale (a session of $0.30 is no flat line under $1).
    const top = cost ? max || 1 : Math.max(this.window > 0 ? this.window : 0, max, 1);
    const x = (i) => M.left + (span <= 1 ? pw / 2 : (i / (span - 1)) * pw);
    const y = (v) => M.top + ph - (v / top) * ph;
    this.geom = { x, n };
    const fmt = (v) => this.handlers.format(v, this.window);

    const d = polyline(series, x, y, pw, span);
    const altD = alt ? polyline(alt.series, x, y, pw, span) : "";
    const area = n > 0 ? `${d}L${x(n - 1).toFixed(1)},${y(0)}L${x(0).toFixed(1)},${y(0)}Z` : "";

    const grid = [];
    for (const f of [0, 0.5, 1]) {
      const v = top * f;
      grid.push(svg("line", { class: "grid", x1: M.left, x2: W - M.right, y1: y(v), y2: y(v) }));
      grid.push(svg("text", { class: "axis", x: M.left - 6, y: y(v) + 4, "text-anchor": "end" }, fmt(v)));
    }
    if (this.window > 0 && !cost) {
      grid.push(svg("line", { class: "window-line", x1: M.left, x2: W - M.right, y1: y(this.window), y2: y(this.window) }));
    }
    grid.push(svg("text", { class: "axis", x: M.left, y: HEIGHT - 6 }, "root"));
    grid.push(svg("text", { class: "axis", x: W - M.right, y: HEIGHT - 6, "text-anchor": "end" }, `leaf · ${int(n)} entries on the active path`));

    // Glyphs of markers at (nearly) the same entry are set side by side; their lines stay at the entry.
    let lastGlyph = -Infinity;
    const marks = [...markers].sort((a, b) => a.pos - b.pos).map((m) => {
      const mx = x(m.pos);
      const gx = Math.max(mx, lastGlyph + 11);
      lastGlyph = gx;
      const saved = m.saving ? this.handlers.saving?.(m.saving) : "";
      const title = m.kind === "anchor"
        ? `anchor ${m.name} · ${fmt(cost ? series[m.pos] : m.tokens)} · ${m.id}`
        : `${KIND_TITLE[m.kind]}${saved ? ` · ${saved}` : ""} · ${fmt(series[m.pos])} · ${m.id}`;
      const glyph = m.kind === "anchor" ? "⚓" : m.kind === "rewind" ? "↶" : "▼";
      return svg("g", { class: `marker ${m.kind}`, dataset: { kind: m.kind, id: m.id, pos: m.pos, saved: m.saving?.usd ?? "" }, tabindex: 0, role: "button", "aria-label": title },
        svg("title", null, title),
        svg("line", { x1: mx, x2: mx, y1: M.top - 4, y2: M.top + ph }),
        svg("text", { x: gx, y: M.top - 8, "text-anchor": "middle" }, glyph));
    });
    const cursorPos = alt ? alt.series.length - 1 : this.selectedPos;
    const cx = cursorPos >= 0 ? x(cursorPos) : -10;
    const root = svg("svg", { class: "timeline-svg", width: W, height: HEIGHT, viewBox: `0 0 ${W} ${HEIGHT}`, role: "img", "aria-label": cost ? "money spent along the active path" : "estimated context along the active path" },
      ...grid,
      svg("path", { class: "area", d: area }),
      svg("path", { class: "line", d }),
      alt ? svg("path", { class: "alt-line", d: altD }) : null,
      alt ? svg("text", { class: "alt-label", x: cx - 6, y: Math.max(M.top + 10, y(alt.series[alt.series.length - 1] ?? 0) - 8), "text-anchor": "end" }, "selected branch") : null,
      svg("line", { class: "cursor", x1: cx, x2: cx, y1: M.top, y2: M.top + ph, visibility: cursorPos >= 0 ? "visible" : "hidden" }),
      svg("line", { class: "hover", x1: -10, x2: -10, y1: M.top, y2: M.top + ph }),
      svg("rect", { class: "hit-area", x: M.left, y: M.top, width: pw, height: ph }),
      ...marks);
    const posAt = (ev) => {
      const r = root.getBoundingClientRect();
      const px = ev.clientX - r.left;
      return span <= 1 ? 0 : Math.max(0, Math.min(n - 1, Math.round(((px - M.left) / pw) * (span - 1))));
    };
    const hover = root.querySelector(".hover");
    root.addEventListener("mousemove", (ev) => {
      if (!n) return;
      const p = posAt(ev);
      hover.setAttribute("x1", x(p));
      hover.setAttribute("x2", x(p));
      const a = alt && p < alt.series.length && alt.pathRows[p] !== pathRows[p] ? ` · selected branch: ${fmt(alt.series[p])}` : "";
      this.readout.textContent = `entry ${int(p + 1)} of ${int(n)} on the active path · ${fmt(series[p])} · ${idOf(pathRows[p])}${a}`;
    });
    root.addEventListener("mouseleave", () => {
      hover.setAttribute("x1", -10);
      hover.setAttribute("x2", -10);
    });
    root.addEventListener("click", (ev) => {
      const mk = ev.target.closest?.(".marker");
      if (mk) this.handlers.onPick(pathRows[Number(mk.dataset.pos)]);
      else if (n) this.handlers.onPick(pathRows[posAt(ev)]);
    });
    root.addEventListener("keydown", (ev) => {
      const mk = ev.target.closest?.(".marker");
      if (mk && (ev.key === "Enter" || ev.key === " ")) {
        ev.preventDefault();
        this.handlers.onPick(pathRows[Number(mk.dataset.pos)]);
      }
    });
    this.plot.replaceChildren(root);
    if (!this.readout.textContent) this.readout.textContent = n ? `${int(n)} entries on the active path · ${fmt(series[n - 1])} at the leaf` : "empty path";
  }
}

/** SVG path data for a series; one min/max pair per pixel column keeps it small for paths of any length. */
function polyline(series, x, y, pw, span) {
  const n = series.length;
  let d = "";
  if (n === 0) return d;
  const cols = Math.max(1, Math.floor((pw * n) / Math.max(span, 1)));
  if (n <= cols * 2) {
    for (let i = 0; i < n; i++) d += `${i ? "L" : "M"}${x(i).toFixed(1)},${y(series[i]).toFixed(1)}`;
    return d;
  }
  for (let c = 0; c < cols; c++) {
    const a = Math.floor((c * n) / cols);
    const b = Math.max(a + 1, Math.floor(((c + 1) * n) / cols));
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = a; i < b; i++) {
      if (series[i] < lo) lo = series[i];
      if (series[i] > hi) hi = series[i];
    }
    const xc = x((a + b - 1) / 2).toFixed(1);
    d += `${c ? "L" : "M"}${xc},${y(series[a]).toFixed(1)}L${xc},${y(hi).toFixed(1)}L${xc},${y(lo).toFixed(1)}L${xc},${y(series[b - 1]).toFixed(1)}`;
  }
  return d;
}
