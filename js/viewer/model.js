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
    // The tree as the core's columns (typed arrays, one string of ids): no object per row is built up
    // front; `row(i)` makes one for a row being drawn, `textOf(i)` fetches its text then.
    const c = index.treeColumns();
    const n = c.length;
    /** Number of rows (entries), in tree order. */
    this.count = n;
    this.ids = c.ids;
    this.idEnds = c.idEnds;
    /** Per row: the parent's row (-1: a root), depth, child count, subtree end, on the active path (1/0), kind. */
    this.parent = c.parent;
    this.depth = c.depth;
    this.children = c.children;
    this.end = c.end;
    this.active = c.active;
    this.tokens = c.tokens;
    this.kind = c.kind;
    this.kinds = c.kinds;
    this.leafRow = c.leaf ?? -1;
    this.labelOf = new Map(c.labels.map((l) => [l.row, l]));
    // Kept for `filter(mode)`: pi's /tree filters of these rows without another walk of the tree.
    this.columns = c;
    this.texts = new Array(n);
    this.leafId = index.leafId();
    /** The active path (root → leaf) as rows, each row's position on it (-1: off it), the estimate at each. */
    this.pathRows = index.pathRows();
    this.pathPos = new Int32Array(n).fill(-1);
    this.pathRows.forEach((row, pos) => (this.pathPos[row] = pos));
    this.series = index.pathEstimates();
    /** What the session cost and saved (the core's one result, src/cost/), and the money spent along the path. */
    this.cost = index.cost();
    this.costs = index.pathCosts();
    /** Rows that start a branch (their parent has several children; or one of several roots): fold handles. */
    this.foldable = new Uint8Array(n);
    let roots = 0;
    for (let i = 0; i < n; i++) if (this.parent[i] < 0) roots++;
    for (let i = 0; i < n; i++) {
      const p = this.parent[i];
      this.foldable[i] = (p < 0 ? roots > 1 : this.children[p] > 1) && this.end[i] > i + 1 ? 1 : 0;
    }
    this._filterCache = new Map();
  }

  /** The first row of entry `id` (a file can repeat an id), or undefined: for ids from outside the tree. */
  rowOfId(id) {
    if (!this._rowOf) {
      // Built on first use (a link, a search, the URL's hash): the tree itself goes by rows.
      this._rowOf = new Map();
      for (let i = 0; i < this.count; i++) {
        const k = this.id(i);
        if (!this._rowOf.has(k)) this._rowOf.set(k, i);
      }
    }
    return this._rowOf.get(id);
  }

  /** Row `i`'s entry id. */
  id(i) {
    return this.ids.slice(i > 0 ? this.idEnds[i - 1] : 0, this.idEnds[i]);
  }

  /** Row `i`'s entry `type`. */
  typeOf(i) {
    return this.kinds[this.kind[i]].type;
  }

  /** Row `i` as one object, for drawing it: the fields of the core's `TreeRow` but `text` (see `textOf`). */
  row(i) {
    const k = this.kinds[this.kind[i]];
    const l = this.labelOf.get(i);
    return {
      id: this.id(i),
      type: k.type,
      role: k.role,
      depth: this.depth[i],
      children: this.children[i],
      active: this.active[i] === 1,
      leaf: i === this.leafRow,
      label: l ? l.label : null,
      anchor: l ? l.anchor : null,
      tokens: this.tokens[i],
      end: this.end[i],
    };
  }

  /** Row `i`'s one-line description (the core's; fetched once, when the row is first drawn). */
  textOf(i) {
    return (this.texts[i] ??= this.index.rowText(i));
  }

  /** What the summary entry `id` saved (the cost model's item for it), or undefined. */
  saving(id) {
    const s = this.cost.savings;
    return s.rewinds.items.find((i) => i.entryId === id) ?? s.compactions.items.find((i) => i.entryId === id);
  }

  /**
   * Anchors, rewinds (branch summaries) and compactions on the active path, for the timeline; each summary carries
   * what it saved (`saving`: the cost model's item — for a rewind of this tool, `tokensRemoved` is the number its
   * result reported, and `usd` the money at the requests' prices; another summary's `tokensRemoved` is null).
   */
  markers() {
    const out = [];
    const anchors = new Map(this.index.anchors().map((a) => [a.entryId, a]));
    this.pathRows.forEach((row, pos) => {
      const type = this.typeOf(row);
      // Only a labelled row can carry an anchor: its id is looked at then.
      const a = this.labelOf.has(row) ? anchors.get(this.id(row)) : undefined;
      if (a) out.push({ kind: "anchor", pos, id: a.entryId, name: a.name, tokens: a.tokens });
      if (type === "branch_summary") out.push({ kind: "rewind", pos, id: this.id(row), saving: this.saving(this.id(row)) ?? null });
      else if (type === "compaction") out.push({ kind: "compaction", pos, id: this.id(row), saving: this.saving(this.id(row)) ?? null });
    });
    return out;
  }

  /** Abandoned branches: every branch start off the active path. Folded by default. */
  defaultFolds() {
    const folds = new Set();
    for (let i = 0; i < this.count; i++) if (this.foldable[i] && !this.active[i]) folds.add(i);
    return folds;
  }

  /**
   * Row indices (tree order) that pass `filter`, before folding: pi's /tree rules from the core. "all" is
   * every row (pi's own "all" still hides assistant messages that only call tools; the viewer shows the file).
   */
  filtered(filter) {
    let rows = this._filterCache.get(filter);
    if (!rows) {
      rows = filter === "all" ? Uint32Array.from({ length: this.count }, (_, i) => i) : this.columns.filter(filter);
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
    const n = this.count;
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

  /** Every loop in the session (any branch) and the lines that show them: the core's `wasteView`, once. */
  waste() {
    return (this.loops ??= this.index.wasteView());
  }

  dispose() {
    this.columns.free();
    this.index.free();
  }
}
