//! The viewer/CLI part of the binding: whole contexts, tree rows and columns, search, stats and the text
//! helpers. The same module serves the plugin (one wasm since issue 12).

use js_sys::JSON;
use wasm_bindgen::prelude::*;

use super::to_js;
use super::error::{invalid, js_error};
use super::{leaf_of, nullable, report_js, SessionIndex};
use crate::session;
use crate::text;

#[wasm_bindgen]
impl SessionIndex {
    /// An index that also keeps every entry's JSON text, so `buildContext` can return whole messages
    /// (CLI, viewer).
    pub fn full() -> SessionIndex {
        SessionIndex { inner: session::SessionIndex::new(session::Mode::Full), pending: None, recall: None, stream: None, row_slots: Vec::new(), loop_steps: None }
    }

    /// Loads a whole session file into this (empty) index with pi's rule: a file whose first JSON line is
    /// not a `session` header loads as empty (the report's warning says so). Bad lines are skipped and reported.
    #[wasm_bindgen(js_name = loadFile, unchecked_return_type = "IngestReport")]
    pub fn load_file(&mut self, text: &str) -> Result<JsValue, JsValue> {
        super::headroom(super::index_size(self.inner.mode(), text.len()));
        report_js(&self.inner.load_file(text).map_err(js_error)?)
    }

    /// `loadFile` from the file's bytes (e.g. `readFileSync(path)` or a fetched `ArrayBuffer`): no string
    /// decoding and re-encoding on the way in. Invalid UTF-8 is replaced, as Node's `"utf8"` decoding does.
    /// The report also says whether the file is a pi session at all (`problem`, see `file::not_a_session`).
    #[wasm_bindgen(js_name = loadFileBytes, unchecked_return_type = "FileReport")]
    pub fn load_file_bytes(&mut self, bytes: &[u8]) -> Result<JsValue, JsValue> {
        super::headroom(super::index_size(self.inner.mode(), bytes.len()));
        let report = self.inner.load_file_bytes(bytes).map_err(js_error)?;
        let problem = crate::file::not_a_session(bytes, &self.inner, &report);
        to_js(&crate::file::FileReport { report, problem, partial: crate::file::partial_line(bytes) })
    }

    /// Starts loading a session file into this (empty) index in parts, as its bytes arrive (a fetch's body
    /// stream): `feedFile` each part, cut anywhere, then `endFile`. The index is fed as the parts come, so
    /// reading the file and indexing it overlap, and only a line still arriving is held. `size`: the
    /// file's size when known (a `Content-Length`), so memory for the index is made in one step.
    #[wasm_bindgen(js_name = beginFile)]
    pub fn begin_file(&mut self, size: Option<u32>) -> Result<(), JsValue> {
        self.stream = Some(crate::file::FileStream::begin(&mut self.inner).map_err(js_error)?);
        super::headroom(super::index_size(self.inner.mode(), size.unwrap_or(0) as usize));
        Ok(())
    }

    /// The next bytes of the file `beginFile` started.
    #[wasm_bindgen(js_name = feedFile)]
    pub fn feed_file(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        let stream = self.stream.as_mut().ok_or_else(|| invalid("feedFile needs beginFile first"))?;
        stream.push(&mut self.inner, bytes);
        Ok(())
    }

    /// Ends the load `beginFile` started: the whole file's report, as `loadFileBytes` gives it.
    #[wasm_bindgen(js_name = endFile, unchecked_return_type = "FileReport")]
    pub fn end_file(&mut self) -> Result<JsValue, JsValue> {
        let stream = self.stream.take().ok_or_else(|| invalid("endFile needs beginFile first"))?;
        to_js(&stream.finish(&mut self.inner))
    }

    /// Entry ids from the root to the leaf.
    pub fn path(&mut self, leaf_id: Option<String>) -> Result<Vec<String>, JsValue> {
                let slot = self.inner.resolve_leaf(leaf_of(leaf_id.as_deref()));
        let path = self.inner.path(slot).map_err(js_error)?;
        Ok(path.into_iter().map(|s| self.inner.id_of(s).to_string()).collect())
    }

    /// The label on an entry, or `null`.
    #[wasm_bindgen(js_name = labelOf, unchecked_return_type = "string | null")]
    pub fn label_of(&self, id: &str) -> JsValue {
        nullable(self.inner.label_of(id))
    }

    /// The entry labelled `label` nearest to the leaf on its path, or `null`.
    #[wasm_bindgen(js_name = findLabel, unchecked_return_type = "string | null")]
    pub fn find_label(&mut self, label: &str, leaf_id: Option<String>) -> Result<JsValue, JsValue> {
                let slot = self.inner.resolve_leaf(leaf_of(leaf_id.as_deref()));
        let found = self.inner.find_label_on_path(label, slot).map_err(js_error)?;
        Ok(nullable(found.map(|s| self.inner.id_of(s))))
    }

    /// The deepest entry on both paths, or `null`.
    #[wasm_bindgen(js_name = commonAncestor, unchecked_return_type = "string | null")]
    pub fn common_ancestor(&mut self, a: &str, b: &str) -> Result<JsValue, JsValue> {
        let (a, b) = (self.slot(a)?, self.slot(b)?);
        let found = self.inner.common_ancestor(a, b).map_err(js_error)?;
        Ok(nullable(found.map(|s| self.inner.id_of(s))))
    }

    /// What moving from `oldLeafId` to `targetId` leaves behind (pi's `collectEntriesForBranchSummary`).
    #[wasm_bindgen(js_name = entriesBetween, unchecked_return_type = "EntriesBetween")]
    pub fn entries_between(&mut self, old_leaf_id: Option<String>, target_id: &str) -> Result<JsValue, JsValue> {
        let old = old_leaf_id.map(|id| self.slot(&id)).transpose()?;
        let target = self.slot(target_id)?;
        let (slots, ancestor) = self.inner.entries_between(old, target).map_err(js_error)?;
        to_js(&session::EntriesBetween {
            entry_ids: slots.iter().map(|&s| self.inner.id_of(s).to_string()).collect(),
            common_ancestor_id: ancestor.map(|s| self.inner.id_of(s).to_string()),
        })
    }

    /// The context pi would build for the leaf (full mode): `{messages, thinkingLevel, model}`.
    #[wasm_bindgen(js_name = buildContext, unchecked_return_type = "SessionContext")]
    pub fn build_context(&mut self, leaf_id: Option<String>) -> Result<JsValue, JsValue> {
        JSON::parse(&self.context_json(leaf_id)?)
    }

    /// The same context as JSON text (cheaper when it is only written out).
    #[wasm_bindgen(js_name = contextJson)]
    pub fn context_json(&mut self, leaf_id: Option<String>) -> Result<String, JsValue> {
                self.inner.context_json(leaf_of(leaf_id.as_deref())).map_err(js_error)
    }

    /// pi's `estimateContextTokens` for the context at the leaf.
    #[wasm_bindgen(unchecked_return_type = "TokenEstimate")]
    pub fn estimate(&mut self, leaf_id: Option<String>) -> Result<JsValue, JsValue> {
                let est = self.inner.estimate(leaf_of(leaf_id.as_deref())).map_err(js_error)?;
        to_js(&est)
    }

    /// Anchors (`anchor:<name>` labels) on the path, root → leaf, with the estimate at each.
    #[wasm_bindgen(unchecked_return_type = "Anchor[]")]
    pub fn anchors(&mut self, leaf_id: Option<String>) -> Result<JsValue, JsValue> {
                to_js(&self.inner.anchors(leaf_of(leaf_id.as_deref())).map_err(js_error)?)
    }

    /// The estimate at every entry of the path (root first), aligned with `path(leafId)`: for plotting.
    #[wasm_bindgen(js_name = pathEstimates)]
    pub fn path_estimates(&mut self, leaf_id: Option<String>) -> Result<Vec<f64>, JsValue> {
        let (_, estimates) = self.inner.path_estimates(leaf_of(leaf_id.as_deref())).map_err(js_error)?;
        Ok(estimates.into_iter().map(|e| e.tokens).collect())
    }

    /// Ids of entries whose text contains `query` (ASCII case ignored), at most `limit`, in file order
    /// (full mode).
    pub fn search(&self, query: &str, limit: u32) -> Result<Vec<String>, JsValue> {
        let slots = self.inner.search(query, limit as usize).map_err(js_error)?;
        Ok(slots.into_iter().map(|s| self.inner.id_of(s).to_string()).collect())
    }

    /// The entry's JSON text as it was fed (full mode), or `null` for an unknown id.
    #[wasm_bindgen(js_name = entryJson, unchecked_return_type = "string | null")]
    pub fn entry_json(&self, id: &str) -> Result<JsValue, JsValue> {
        if self.inner.mode() != session::Mode::Full {
            return Err(js_error(crate::SessionError::NeedsFullMode));
        }
        Ok(nullable(self.inner.slot_of(id).and_then(|s| self.inner.raw(s))))
    }

    /// `anchors()` and `estimate()` from one walk: what `list` shows.
    #[wasm_bindgen(js_name = listAnchors, unchecked_return_type = "AnchorList")]
    pub fn list_anchors(&mut self, leaf_id: Option<String>) -> Result<JsValue, JsValue> {
        let (anchors, estimate) = self.inner.anchors_and_estimate(leaf_of(leaf_id.as_deref())).map_err(js_error)?;
        to_js(&session::AnchorList { anchors, estimate })
    }

    /// The tree in display order, one row per entry: `JSON.parse(treeRowsJson())`, one text across the
    /// boundary instead of an object built field by field (faster for big trees, and less code in the module).
    #[wasm_bindgen(js_name = treeRows, unchecked_return_type = "TreeRow[]")]
    pub fn tree_rows(&mut self) -> Result<JsValue, JsValue> {
        JSON::parse(&self.tree_rows_json(None)?)
    }

    /// Positions in `treeRows()` of the rows pi's `/tree` shows with a filter: `"default"`, `"no-tools"`,
    /// `"user-only"`, `"labeled-only"` or `"all"` (before search and folding).
    #[wasm_bindgen(js_name = treeFilter)]
    pub fn tree_filter(&mut self, mode: &str) -> Result<Vec<u32>, JsValue> {
        let filter = session::TreeFilter::parse(mode).ok_or_else(|| invalid("filter must be default, no-tools, user-only, labeled-only or all"))?;
        self.inner.tree_filter(filter).map_err(js_error)
    }

    /// Messages `start..end` (default: all) of the context at the leaf as the model receives them, each
    /// with its source entry, roles, token share and readable parts; `total` is the full count (full mode).
    #[wasm_bindgen(js_name = contextView, unchecked_return_type = "ContextView")]
    pub fn context_view(&mut self, leaf_id: Option<String>, start: Option<u32>, end: Option<u32>) -> Result<JsValue, JsValue> {
        let (start, end) = (start.unwrap_or(0) as usize, end.map_or(usize::MAX, |e| e as usize));
        let page = self.inner.context_view(leaf_of(leaf_id.as_deref()), start, end).map_err(js_error)?;
        to_js(&page)
    }

    /// The same rows as `treeRows()`, as JSON text: much cheaper for large trees (one `JSON.parse`
    /// instead of an object built per field across the boundary). `texts: false` leaves every row's
    /// `text` empty, which saves most of the time; `rowText(row)` gives the text of a row on screen.
    #[wasm_bindgen(js_name = treeRowsJson)]
    pub fn tree_rows_json(&mut self, texts: Option<bool>) -> Result<String, JsValue> {
        let rows = self.inner.tree_rows_with(texts.unwrap_or(true)).map_err(js_error)?;
        // By row, not by id: a file can repeat an id, and each row is its own entry.
        self.row_slots = rows.iter().map(|r| r.slot).collect();
        serde_json::to_string(&rows).map_err(|e| invalid(&e.to_string()))
    }

    /// The tree in display order as columns (row `i` of each is row `i` of `treeRows()`, without its text):
    /// typed arrays and one string of ids instead of an object per row, what a view of a big session needs
    /// up front. `rowText(row)` gives the text of a row on screen.
    #[wasm_bindgen(js_name = treeColumns)]
    pub fn tree_columns(&mut self) -> Result<TreeColumns, JsValue> {
        let cols = self.inner.tree_columns().map_err(js_error)?;
        self.row_slots.clone_from(&cols.slots);
        Ok(TreeColumns(cols))
    }

    /// `path(leafId)` as rows of the last `treeRowsJson` or `treeColumns` (root → leaf).
    #[wasm_bindgen(js_name = pathRows)]
    pub fn path_rows(&mut self, leaf_id: Option<String>) -> Result<Vec<u32>, JsValue> {
        let slot = self.inner.resolve_leaf(leaf_of(leaf_id.as_deref()));
        let path = self.inner.path(slot).map_err(js_error)?;
        let mut row_of = vec![u32::MAX; self.inner.len()];
        for (row, &s) in self.row_slots.iter().enumerate() {
            row_of[s as usize] = row as u32;
        }
        let rows: Option<Vec<u32>> = path.iter().map(|&s| row_of.get(s as usize).copied().filter(|&r| r != u32::MAX)).collect();
        rows.ok_or_else(|| invalid("pathRows: call treeColumns (or treeRowsJson) after the last change"))
    }

    /// The `text` of row `row` (its position) of the last `treeRowsJson` or `treeColumns`.
    #[wasm_bindgen(js_name = rowText)]
    pub fn row_text(&mut self, row: u32) -> Result<String, JsValue> {
        let slot = *self.row_slots.get(row as usize).ok_or_else(|| invalid("rowText: no such row of the last treeRowsJson or treeColumns"))?;
        Ok(self.inner.describe(slot))
    }

    /// The tree as text, like pi's `/tree`.
    #[wasm_bindgen(js_name = renderTree)]
    pub fn render_tree(&mut self) -> Result<String, JsValue> {
        self.inner.render_tree().map_err(js_error)
    }

    /// Entry counts, branches, abandoned share, labels and the estimate at the leaf.
    #[wasm_bindgen(unchecked_return_type = "Stats")]
    pub fn stats(&mut self, file_bytes: f64) -> Result<JsValue, JsValue> {
        to_js(&self.inner.stats(file_bytes).map_err(js_error)?)
    }

    /// Every rewind of this tool on the active path, root → leaf, with what it saved (`tool::rewinds_on_path`:
    /// the number the rewind's own result reported).
    #[wasm_bindgen(js_name = rewindSavings, unchecked_return_type = "PathRewind[]")]
    pub fn rewind_savings(&mut self) -> Result<JsValue, JsValue> {
        to_js(&crate::tool::rewinds_on_path(&mut self.inner).map_err(js_error)?)
    }

    fn slot(&self, id: &str) -> Result<session::Slot, JsValue> {
        self.inner.slot_of(id).ok_or_else(|| js_error(crate::SessionError::UnknownEntry(id.into())))
    }
}


/// Whitespace-collapsed one-line preview cut to `maxLen` with `…`, or `null` when blank.
#[wasm_bindgen(js_name = toOneLine, unchecked_return_type = "string | null")]
pub fn to_one_line(text: &str, max_len: u32) -> JsValue {
    nullable(text::to_one_line(text, max_len as usize).as_deref())
}

/// `12.3%` of the window, or the count (`36`, `12.3k`) when the window is unknown (0).
#[wasm_bindgen(js_name = formatPct1)]
pub fn format_pct1(tokens: f64, context_window: f64) -> String {
    text::format_pct1(tokens, context_window)
}

/// `1.0M` / `200k`, or `""` when unknown.
#[wasm_bindgen(js_name = formatWindow)]
pub fn format_window(context_window: f64) -> String {
    text::format_window(context_window)
}




/// The human `list` text (shared by the tool and the CLI) for anchors as returned by `anchors()`.
#[wasm_bindgen(js_name = formatList)]
pub fn format_list(
    #[wasm_bindgen(unchecked_param_type = "Anchor[]")] anchors: JsValue,
    current_tokens: f64,
    context_window: f64,
) -> Result<String, JsValue> {
    let anchors: Vec<session::Anchor> = serde_wasm_bindgen::from_value(anchors).map_err(|e| invalid(&e.to_string()))?;
    let rows: Vec<text::ListRow<'_>> = anchors.iter().map(session::Anchor::row).collect();
    Ok(text::format_list(&rows, current_tokens, context_window, None))
}

/// `SessionIndex.treeColumns()`: the tree in display order, one element per row in each column. Each
/// getter copies its column out (read each once).
#[wasm_bindgen]
#[derive(Debug)]
pub struct TreeColumns(session::TreeColumns);

#[wasm_bindgen]
impl TreeColumns {
    /// The number of rows.
    #[wasm_bindgen(getter)]
    pub fn length(&self) -> usize {
        self.0.end.len()
    }

    /// Every row's id, one after the other: row `i`'s is `ids.slice(idEnds[i - 1] ?? 0, idEnds[i])`.
    #[wasm_bindgen(getter)]
    pub fn ids(&self) -> String {
        self.0.ids.clone()
    }

    /// Where each row's id ends in `ids` (UTF-16 units).
    #[wasm_bindgen(getter, js_name = idEnds)]
    pub fn id_ends(&self) -> Vec<u32> {
        self.0.id_ends.clone()
    }

    /// The parent's row, or -1 for a root.
    #[wasm_bindgen(getter)]
    pub fn parent(&self) -> Vec<i32> {
        self.0.parent.clone()
    }

    /// Indentation level: grows only where the tree branches.
    #[wasm_bindgen(getter)]
    pub fn depth(&self) -> Vec<u32> {
        self.0.depth.clone()
    }

    /// Number of children.
    #[wasm_bindgen(getter)]
    pub fn children(&self) -> Vec<u32> {
        self.0.children.clone()
    }

    /// One past the last row of the row's subtree (rows `i+1..end[i]` are its descendants).
    #[wasm_bindgen(getter)]
    pub fn end(&self) -> Vec<u32> {
        self.0.end.clone()
    }

    /// 1 on the path from the root to the current leaf, else 0.
    #[wasm_bindgen(getter)]
    pub fn active(&self) -> Vec<u8> {
        self.0.active.clone()
    }

    /// The current leaf's row, or null (an empty session, or the leaf set before the first entry).
    #[wasm_bindgen(getter)]
    pub fn leaf(&self) -> Option<u32> {
        self.0.leaf
    }

    /// The row's entry `type` and role, as a position in `kinds`.
    #[wasm_bindgen(getter)]
    pub fn kind(&self) -> Vec<u32> {
        self.0.kind.clone()
    }

    /// The distinct entry types (and roles) of the rows.
    #[wasm_bindgen(getter, unchecked_return_type = "RowKind[]")]
    pub fn kinds(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.kinds)
    }

    /// Each row's own estimated tokens.
    #[wasm_bindgen(getter)]
    pub fn tokens(&self) -> Vec<f64> {
        self.0.tokens.clone()
    }

    /// The labelled rows, in row order.
    #[wasm_bindgen(getter, unchecked_return_type = "RowLabel[]")]
    pub fn labels(&self) -> Result<JsValue, JsValue> {
        to_js(&self.0.labels)
    }

    /// The rows pi's `/tree` shows with a filter (`SessionIndex.treeFilter(mode)` of these rows, without a
    /// second walk of the tree).
    pub fn filter(&self, mode: &str) -> Result<Vec<u32>, JsValue> {
        let filter = session::TreeFilter::parse(mode).ok_or_else(|| invalid("filter must be default, no-tools, user-only, labeled-only or all"))?;
        Ok(self.0.filter(filter))
    }
}
