// The session tree as a virtualized list: only the rows in (and just around) the viewport exist in the DOM,
// positioned absolutely inside a spacer as tall as the whole list, so a session of any size scrolls at the
// cost of ~60 rows. Rows come from the core's treeRows(); this file only draws them.
import { h, int, textNodes } from "./dom.js";

export const ROW_HEIGHT = 22;
const OVERSCAN = 12;
const INDENT_PX = 14;
const MAX_INDENT = 24; // deeper levels show their depth as a number instead of more indentation

export class TreeView {
  /**
   * @param {HTMLElement} scroller a focusable, scrollable element (the list is built inside it)
   * @param {{onSelect(row: number): void, onToggle(row: number): void}} handlers
   */
  constructor(scroller, handlers) {
    this.scroller = scroller;
    this.handlers = handlers;
    this.spacer = h("div", { class: "tree-spacer", role: "presentation" });
    scroller.replaceChildren(this.spacer);
    this.model = null;
    this.visible = new Int32Array(0);
    this.posOf = new Int32Array(0);
    this.handleOf = new Map();
    this.folds = new Set();
    this.hits = new Set();
    this.query = "";
    this.selected = -1;
    this.pathMarks = new Set();
    this.pool = new Map(); // row index → element currently shown
    this.frame = 0;
    scroller.addEventListener("scroll", () => this.schedule());
    new ResizeObserver(() => this.schedule()).observe(scroller);
    this.spacer.addEventListener("click", (ev) => {
      const el = ev.target.closest(".row");
      if (!el) return;
      const row = Number(el.dataset.row);
      if (ev.target.closest(".fold")) this.handlers.onToggle(this.handleOf.get(row) ?? row);
      else this.handlers.onSelect(row);
    });
    this.spacer.addEventListener("dblclick", (ev) => {
      const el = ev.target.closest(".row");
      if (el && !ev.target.closest(".fold")) this.handlers.onToggle(this.handleOf.get(Number(el.dataset.row)) ?? Number(el.dataset.row));
    });
  }

  /** New rows to show (`visible`: row indices in display order). Keeps the scroll position. */
  setRows(model, { rows, handleOf }, folds) {
    this.model = model;
    this.visible = rows;
    this.handleOf = handleOf;
    this.folds = folds;
    this.posOf = new Int32Array(model.count).fill(-1);
    for (let p = 0; p < rows.length; p++) this.posOf[rows[p]] = p;
    this.spacer.style.height = `${rows.length * ROW_HEIGHT}px`;
    this.invalidate();
  }

  /** Search hits (row indices) and the query to mark inside row text. */
  setHits(hits, query) {
    this.hits = hits;
    this.query = query;
    this.invalidate();
  }

  /** The selected row and the rows on its path (marked lightly, so the selected branch is visible). */
  setSelected(row, pathRows) {
    this.selected = row;
    this.pathMarks = pathRows;
    this.invalidate();
  }

  /** Position of a row in the display list, or -1 when hidden. */
  position(row) {
    return row >= 0 && row < this.posOf.length ? this.posOf[row] : -1;
  }

  /** Rows that fit in the viewport (for PageUp/PageDown). */
  pageSize() {
    return Math.max(1, Math.floor(this.scroller.clientHeight / ROW_HEIGHT) - 1);
  }

  /** Scrolls so that display position `pos` is visible (centred when it was far away). */
  scrollToPosition(pos) {
    const top = pos * ROW_HEIGHT;
    const view = this.scroller.clientHeight;
    const st = this.scroller.scrollTop;
    if (top >= st && top + ROW_HEIGHT <= st + view) return;
    const near = top < st ? st - top < view : top + ROW_HEIGHT - (st + view) < view;
    if (near) this.scroller.scrollTop = top < st ? top : top + ROW_HEIGHT - view;
    else this.scroller.scrollTop = Math.max(0, top - view / 2);
    this.render();
  }

  invalidate() {
    for (const el of this.pool.values()) el.remove();
    this.pool.clear();
    this.schedule();
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  /** Draws the rows in view now (also called by schedule()). */
  render() {
    if (!this.model) return;
    const count = this.visible.length;
    const st = this.scroller.scrollTop;
    const first = Math.max(0, Math.floor(st / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(count, Math.ceil((st + this.scroller.clientHeight) / ROW_HEIGHT) + OVERSCAN);
    const keep = new Set();
    for (let p = first; p < last; p++) keep.add(this.visible[p]);
    for (const [row, el] of this.pool) {
      if (!keep.has(row)) {
        el.remove();
        this.pool.delete(row);
      }
    }
    for (let p = first; p < last; p++) {
      const row = this.visible[p];
      if (this.pool.has(row)) continue;
      const el = this.rowElement(row, p);
      this.pool.set(row, el);
      this.spacer.append(el);
    }
  }

  rowElement(i, pos) {
    const r = this.model.row(i);
    const foldRow = this.handleOf.get(i) ?? i;
    const foldable = this.model.foldable[foldRow] === 1;
    const folded = this.folds.has(foldRow);
    const hidden = folded ? this.model.end[foldRow] - foldRow - 1 : 0;
    const cls = ["row", `type-${r.type}`];
    if (r.role) cls.push(`role-${r.role}`);
    if (r.active) cls.push("active");
    else cls.push("abandoned");
    if (r.leaf) cls.push("leaf");
    if (this.model.archived?.has(r.id)) cls.push("archived");
    if (i === this.selected) cls.push("selected");
    else if (this.pathMarks.has(i)) cls.push("on-selected-path");
    if (this.hits.has(i)) cls.push("hit");
    if (r.label !== null) cls.push("labelled");
    const depth = Math.min(r.depth, MAX_INDENT);
    const el = h(
      "div",
      {
        class: cls.join(" "),
        role: "treeitem",
        "aria-selected": i === this.selected ? "true" : "false",
        "aria-level": r.depth + 1,
        "aria-expanded": foldable ? String(!folded) : null,
        dataset: { row: i, id: r.id },
      },
      h("span", { class: "fold", title: foldable ? (folded ? "unfold branch" : "fold branch") : null },
        foldable ? (folded ? "▸" : "▾") : ""),
      r.depth > MAX_INDENT ? h("span", { class: "deep", title: `depth ${r.depth}` }, `${r.depth}›`) : null,
      h("span", { class: "mark" }, r.leaf ? "◆" : r.active ? "•" : "·"),
      h("span", { class: "txt" }, ...textNodes(this.model.textOf(i), this.query)),
      r.label !== null ? labelChip(r.label, r.anchor) : null,
      r.leaf ? h("span", { class: "leaf-mark" }, "◀ leaf") : null,
      folded ? h("span", { class: "folded-count", title: "entries in this folded branch" }, `+${int(hidden)}`) : null,
      r.tokens > 0 ? h("span", { class: "tok", title: "this entry's tokens (estimate)" }, int(r.tokens)) : null,
    );
    el.style.transform = `translateY(${pos * ROW_HEIGHT}px)`;
    el.firstChild.style.marginLeft = `${depth * INDENT_PX}px`;
    return el;
  }
}

/** A label chip; anchor labels (`anchor`: the name the core read from the label, or null) get their own look. */
export function labelChip(label, anchor) {
  return h("span", { class: anchor !== null ? "chip anchor" : "chip label", title: label, dataset: { label } },
    ...textNodes(anchor !== null ? `⚓ ${anchor}` : label));
}
