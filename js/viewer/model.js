// The viewer's model of one loaded session: what the core computed (rows with their subtree extents, pi's
// /tree filters, the active path and its estimates, anchors, stats), indexed for rendering. No session logic
// lives here, only lookups.

/** pi's /tree filter modes, in pi's cycling order. */
export const FILTERS = ["default", "no-tools", "user-only", "labeled-only", "all"];

export class SessionModel {
  /**
   * @param {object} index a full `SessionIndex` with the session loaded (owned by the model: `dispose` frees it)
   * @param {number} fileBytes the file's size, for the stats
   */
  constructor(index, fileBytes) {
    this.index = index;
    this.fileBytes = fileBytes;
    /** @type {import("../pi_tree_navigator.js").TreeRow[]} */
    // The JSON form: one JSON.parse instead of an object built per field across the wasm boundary. Without
    // the rows' texts (most of the time a big tree takes): `textOf` asks for those on screen.
    this.rows = JSON.parse(index.treeRowsJson(false));
    const n = this.rows.length;
    this.rowOf = new Map();
    for (let i = 0; i < n; i++) if (!this.rowOf.has(this.rows[i].id)) this.rowOf.set(this.rows[i].id, i);
    this.end = Uint32Array.from(this.rows, (r) => r.end);
    this.leafId = index.leafId();
    /** The active path (root → leaf) and the estimate at each of its entries. */
    this.pathIds = index.path();
    this.series = index.pathEstimates();
    this.pathPos = new Map(this.pathIds.map((id, i) => [id, i]));
    /** Rows that start a branch (their parent has several children; or one of several roots): fold handles. */
    this.foldable = new Uint8Array(n);
    const roots = this.rows.reduce((k, r) => k + (r.parentId === null || !this.rowOf.has(r.parentId) ? 1 : 0), 0);
    for (let i = 0; i < n; i++) {
      const p = this.rows[i].parentId;
      const pi = p === null ? undefined : this.rowOf.get(p);
      this.foldable[i] = (pi === undefined ? roots > 1 : this.rows[pi].children > 1) && this.end[i] > i + 1 ? 1 : 0;
    }
    this._filterCache = new Map();
  }

  /** Row `i`'s one-line description (the core's; fetched once, when the row is first drawn). */
  textOf(i) {
    const r = this.rows[i];
    // A row's text is never empty once fetched (it names at least the entry's type).
    if (r.text === "") r.text = this.index.rowText(i);
    return r.text;
  }

  /** Anchors, rewinds (branch summaries) and compactions on the active path, for the timeline. */
  markers() {
    const out = [];
    for (const a of this.index.anchors()) {
      const pos = this.pathPos.get(a.entryId);
      if (pos !== undefined) out.push({ kind: "anchor", pos, id: a.entryId, name: a.name, tokens: a.tokens });
    }
    this.pathIds.forEach((id, pos) => {
      const type = this.rows[this.rowOf.get(id)]?.type;
      if (type === "branch_summary") out.push({ kind: "rewind", pos, id });
      else if (type === "compaction") out.push({ kind: "compaction", pos, id });
    });
    return out;
  }

  /** Abandoned branches: every branch start off the active path. Folded by default. */
  defaultFolds() {
    const folds = new Set();
    for (let i = 0; i < this.rows.length; i++) if (this.foldable[i] && !this.rows[i].active) folds.add(i);
    return folds;
  }

  /**
   * Row indices (tree order) that pass `filter`, before folding: pi's /tree rules from the core. "all" is
   * every row (pi's own "all" still hides assistant messages that only call tools; the viewer shows the file).
   */
  filtered(filter) {
    let rows = this._filterCache.get(filter);
    if (!rows) {
      rows = filter === "all" ? Uint32Array.from(this.rows, (_, i) => i) : this.index.treeFilter(filter);
      this._filterCache.set(filter, rows);
    }
    return rows;
  }

  /**
   * The rows to display for `filter` and `folds` (a Set of folded row indices): `{rows, handleOf}`.
   * A folded row stays visible and hides its subtree. When the filter hides a branch's first row, the first
   * visible row of the branch stands in for it as the fold handle (`handleOf.get(shown) === branchRow`).
   * `pinned` (a row index or -1) is shown even when the filter hides it: the selected entry stays in view.
   */
  visible(filter, folds, pinned = -1) {
    const n = this.rows.length;
    const ok = new Uint8Array(n);
    for (const i of this.filtered(filter)) ok[i] = 1;
    if (pinned >= 0 && pinned < n) ok[pinned] = 1;
    const out = [];
    const handleOf = new Map();
    let skipUntil = 0;
    let foldedStandIn = -1; // a folded branch whose first row is filtered out: its first visible row stands in
    let pending = []; // unfolded branches whose first row is filtered out, waiting for a stand-in
    for (let i = 0; i < n; i++) {
      if (i < skipUntil) {
        if (foldedStandIn >= 0 && ok[i]) {
          out.push(i);
          handleOf.set(i, foldedStandIn);
          foldedStandIn = -1;
        }
        continue;
      }
      foldedStandIn = -1;
      if (folds.has(i)) {
        skipUntil = this.end[i];
        if (ok[i]) out.push(i);
        else foldedStandIn = i;
        continue;
      }
      if (!ok[i]) {
        if (this.foldable[i]) pending.push(i);
        continue;
      }
      out.push(i);
      if (pending.length) {
        const outer = pending.find((p) => i < this.end[p]);
        if (outer !== undefined && !this.foldable[i]) handleOf.set(i, outer);
        pending = [];
      }
    }
    return { rows: Int32Array.from(out), handleOf };
  }

  /** Folded rows whose subtree holds row `i` (to unfold when `i` must be shown). */
  foldsAround(i, folds) {
    const out = [];
    for (const f of folds) if (f < i && i < this.end[f]) out.push(f);
    return out;
  }

  /** Stats from the core. */
  stats() {
    return this.index.stats(this.fileBytes);
  }

  dispose() {
    this.index.free();
  }
}
