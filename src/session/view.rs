//! Read-only views over an index: anchors with their cumulative estimates, the tree as rows or text,
//! and summary statistics.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use tsify_next::Tsify;

use super::entry::{Kind, RoleKind, StopReason};
use super::index::{Leaf, SessionIndex};
use super::record::Slot;
use super::tokens::{cumulative, TokenEstimate};
use crate::error::SessionError;
use crate::text::{one_line, to_one_line, ListRow, ANCHOR_PREFIX};

/// Preview length for `list` rows.
pub const LIST_HINT_MAX: usize = 50;
/// Preview length for tree rows.
const TREE_HINT_MAX: usize = 60;

/// An `anchor:<name>` label on the active path with the estimate as if its entry were the leaf.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct Anchor {
    /// The name after `anchor:`.
    pub name: String,
    /// The labelled entry's id.
    pub entry_id: String,
    /// The labelled entry (inside the core only).
    #[serde(skip)]
    pub slot: Slot,
    /// Estimated context tokens with this entry as leaf.
    pub tokens: f64,
    /// Preview of the text the anchor sits after.
    pub hint: Option<String>,
}

impl Anchor {
    /// The anchor as a row of the `list` text.
    pub fn row(&self) -> ListRow<'_> {
        ListRow { name: &self.name, tokens: self.tokens, hint: self.hint.as_deref() }
    }
}

/// The anchors on the path and the estimate at the leaf: what `list` shows.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
pub struct AnchorList {
    /// The anchors, root → leaf.
    pub anchors: Vec<Anchor>,
    /// The estimate at the leaf.
    pub estimate: TokenEstimate,
}

/// pi's `collectEntriesForBranchSummary`, as ids.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct EntriesBetween {
    /// The entries left behind, oldest first.
    pub entry_ids: Vec<String>,
    /// The deepest entry on both paths.
    pub common_ancestor_id: Option<String>,
}

/// One row of the tree in display order. `depth` grows only at branch points.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct TreeRow {
    /// The entry (inside the core only).
    #[serde(skip)]
    pub slot: Slot,
    /// The entry's id.
    pub id: String,
    /// Its parent's id.
    pub parent_id: Option<String>,
    /// The entry's `type`.
    #[serde(rename = "type")]
    pub ty: String,
    /// The message's role, for message entries.
    pub role: Option<String>,
    /// Indentation level: grows only where the tree branches, so long chains stay flat.
    pub depth: u32,
    /// Number of children.
    pub children: u32,
    /// On the path from the root to the current leaf.
    pub active: bool,
    /// The current leaf.
    pub leaf: bool,
    /// The entry's current label.
    pub label: Option<String>,
    /// The anchor's name when `label` is an anchor label (`anchor:<name>`), else null.
    pub anchor: Option<String>,
    /// The entry's own estimated tokens.
    pub tokens: f64,
    /// A one-line description: `user: "…"`, `branch_summary: "…"`, `label`, …
    pub text: String,
    /// One past the last row of this row's subtree (rows `i+1..end` are its descendants): for folding.
    pub end: u32,
}

/// The tree in display order as columns: element `i` of each is row `i` of [`SessionIndex::tree_rows`],
/// without the preview text ([`SessionIndex::describe`] gives a row's when it is drawn). Built for a view
/// of a big session: a few arrays instead of an object and several strings per row.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeColumns {
    /// The rows' entries (inside the core only).
    pub slots: Vec<Slot>,
    /// Every row's id, one after the other: row `i`'s is `ids[id_ends[i - 1]..id_ends[i]]` in UTF-16 units
    /// (a JavaScript `slice`), so the ids cross as one string.
    pub ids: String,
    /// Where each row's id ends in [`Self::ids`], in UTF-16 units.
    pub id_ends: Vec<u32>,
    /// The parent's row, or -1 for a root (no parent, or one the file does not hold).
    pub parent: Vec<i32>,
    /// Indentation level ([`TreeRow::depth`]).
    pub depth: Vec<u32>,
    /// Number of children.
    pub children: Vec<u32>,
    /// One past the last row of the row's subtree.
    pub end: Vec<u32>,
    /// 1 on the path from the root to the current leaf, else 0.
    pub active: Vec<u8>,
    /// Which of pi's `/tree` filters show the row (a bit per [`TreeFilter`]; see [`Self::filter`]).
    pub shown: Vec<u8>,
    /// The current leaf's row.
    pub leaf: Option<u32>,
    /// The row's `type` and role, as a position in [`Self::kinds`].
    pub kind: Vec<u32>,
    /// The distinct (`type`, role) pairs of the rows.
    pub kinds: Vec<RowKind>,
    /// The entry's own estimated tokens.
    pub tokens: Vec<f64>,
    /// The labelled rows, in row order.
    pub labels: Vec<RowLabel>,
}

/// An entry `type` and, for messages, the role: one of [`TreeColumns::kinds`].
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[tsify(missing_as_null)]
pub struct RowKind {
    /// The entry's `type`.
    #[serde(rename = "type")]
    pub ty: String,
    /// The message's role, for message entries.
    pub role: Option<String>,
}

/// A labelled row of [`TreeColumns`].
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[tsify(missing_as_null)]
pub struct RowLabel {
    /// The row.
    pub row: u32,
    /// The entry's current label.
    pub label: String,
    /// The anchor's name when the label is an anchor label (`anchor:<name>`), else null.
    pub anchor: Option<String>,
}

impl TreeColumns {
    /// The rows `filter` shows: [`SessionIndex::tree_filter`] of the index these columns came from.
    pub fn filter(&self, filter: TreeFilter) -> Vec<u32> {
        (0..self.shown.len() as u32).filter(|&i| self.shown[i as usize] & filter.bit() != 0).collect()
    }
}

/// A [`TreeRow`]'s place in the tree, before its texts.
struct Layout {
    slot: Slot,
    depth: u32,
    children: u32,
    /// The parent's row, or -1 for a root.
    parent: i32,
    active: bool,
    leaf: bool,
    end: u32,
}

/// pi's `/tree` filter modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeFilter {
    /// Everything but bookkeeping entries (labels, custom, model/thinking changes, session info).
    Default,
    /// The default view without tool results.
    NoTools,
    /// User messages only.
    UserOnly,
    /// Labelled entries only.
    LabeledOnly,
    /// Everything.
    All,
}

impl TreeFilter {
    /// This mode's bit in [`TreeColumns::shown`].
    fn bit(self) -> u8 {
        match self {
            TreeFilter::Default => 1,
            TreeFilter::NoTools => 2,
            TreeFilter::UserOnly => 4,
            TreeFilter::LabeledOnly => 8,
            TreeFilter::All => 16,
        }
    }

    /// Parses `default`, `no-tools`, `user-only`, `labeled-only`, `all`.
    pub fn parse(mode: &str) -> Option<TreeFilter> {
        Some(match mode {
            "default" => TreeFilter::Default,
            "no-tools" => TreeFilter::NoTools,
            "user-only" => TreeFilter::UserOnly,
            "labeled-only" => TreeFilter::LabeledOnly,
            "all" => TreeFilter::All,
            _ => return None,
        })
    }
}

/// Session statistics.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    /// Entries held (header excluded).
    pub entries: usize,
    /// Entry count per `type`.
    #[tsify(type = "Record<string, number>")]
    pub by_type: BTreeMap<String, usize>,
    /// Entries with no children (tips of branches).
    pub tips: usize,
    /// Entries with two or more children.
    pub branch_points: usize,
    /// Entries on the active path.
    pub active_path: usize,
    /// Share of entries off the active path (0–1).
    pub abandoned_share: f64,
    /// Entries carrying a label.
    pub labels: usize,
    /// Labels in the `anchor:` namespace.
    pub anchors: usize,
    /// Size of the file, as given by the caller.
    pub file_bytes: f64,
    /// The estimate at the current leaf.
    pub estimate: TokenEstimate,
}

impl SessionIndex {
    /// Anchors on the path to `leaf`, root → leaf, each with the estimate as if it were the leaf.
    /// One pass over the path, however many anchors there are.
    pub fn anchors(&mut self, leaf: Leaf<'_>) -> Result<Vec<Anchor>, SessionError> {
        self.anchors_and_estimate(leaf).map(|(anchors, _)| anchors)
    }

    /// [`Self::anchors`] and the estimate at the leaf itself, from one walk (what `list` shows).
    pub fn anchors_and_estimate(&mut self, leaf: Leaf<'_>) -> Result<(Vec<Anchor>, TokenEstimate), SessionError> {
        let slot = self.resolve_leaf(leaf);
        let path = self.path(slot)?;
        let estimates = cumulative(self, &path);
        // Previews as the leaf's context sends them (after its `context_edit`s).
        let edits = self.context_edits(&path);
        let mut out = Vec::new();
        for (&s, estimate) in path.iter().zip(&estimates) {
            let name = match self.label_at(s).and_then(|l| l.strip_prefix(ANCHOR_PREFIX)) {
                Some(n) => String::from(n),
                None => continue,
            };
            let hint = self.hint_from(s, LIST_HINT_MAX, &edits);
            out.push(Anchor { name, entry_id: self.id_of(s).into(), slot: s, tokens: estimate.tokens, hint });
        }
        Ok((out, estimates.last().copied().unwrap_or_default()))
    }

    /// The whole tree in display order (roots in file order, children oldest first), iteratively.
    pub fn tree_rows(&mut self) -> Result<Vec<TreeRow>, SessionError> {
        self.tree_rows_with(true)
    }

    /// [`Self::tree_rows`], with every row's `text` left empty when `texts` is false: the previews cost
    /// most of the rows' time (~40% on a 55k-entry session), and a virtualized view shows a screenful of
    /// them, which it asks for with [`Self::describe`].
    pub fn tree_rows_with(&mut self, texts: bool) -> Result<Vec<TreeRow>, SessionError> {
        let layout = self.tree_layout()?;
        let mut rows = Vec::with_capacity(layout.len());
        for l in layout {
            let text = if texts { self.describe(l.slot) } else { String::new() };
            let e = self.entry(l.slot);
            let label = self.label_at(l.slot).map(String::from);
            rows.push(TreeRow {
                slot: l.slot,
                id: e.id().into(),
                parent_id: e.parent_id().map(String::from),
                ty: e.type_name().into(),
                role: e.role_name().map(String::from),
                depth: l.depth,
                children: l.children,
                active: l.active,
                leaf: l.leaf,
                anchor: label.as_deref().and_then(crate::text::anchor_name).map(String::from),
                label,
                tokens: e.tokens(),
                text,
                end: l.end,
            });
        }
        Ok(rows)
    }

    /// The whole tree in display order as [`TreeColumns`]: the rows' facts without an object (or a string)
    /// per row, for a view that draws a screenful at a time and asks for the rest by row.
    pub fn tree_columns(&mut self) -> Result<TreeColumns, SessionError> {
        let layout = self.tree_layout()?;
        let leaf = self.leaf();
        let n = layout.len();
        let mut cols = TreeColumns {
            slots: Vec::with_capacity(n),
            ids: String::new(),
            id_ends: Vec::with_capacity(n),
            parent: Vec::with_capacity(n),
            depth: Vec::with_capacity(n),
            children: Vec::with_capacity(n),
            end: Vec::with_capacity(n),
            active: Vec::with_capacity(n),
            shown: Vec::with_capacity(n),
            leaf: None,
            kind: Vec::with_capacity(n),
            kinds: Vec::new(),
            tokens: Vec::with_capacity(n),
            labels: Vec::new(),
        };
        let mut kind_of: HashMap<(&str, Option<&str>), u32> = HashMap::new();
        let mut id_units = 0u32;
        for (i, l) in layout.iter().enumerate() {
            let e = self.entry(l.slot);
            cols.ids.push_str(e.id());
            id_units += crate::js::utf16_len(e.id()) as u32;
            cols.id_ends.push(id_units);
            let next = kind_of.len() as u32;
            let kind = *kind_of.entry((e.type_name(), e.role_name())).or_insert_with_key(|&(ty, role)| {
                cols.kinds.push(RowKind { ty: ty.into(), role: role.map(String::from) });
                next
            });
            cols.kind.push(kind);
            cols.tokens.push(e.tokens());
            if let Some(label) = self.label_at(l.slot) {
                let anchor = crate::text::anchor_name(label).map(String::from);
                cols.labels.push(RowLabel { row: i as u32, label: label.to_string(), anchor });
            }
            cols.slots.push(l.slot);
            cols.parent.push(l.parent);
            cols.depth.push(l.depth);
            cols.children.push(l.children);
            cols.end.push(l.end);
            cols.active.push(u8::from(l.active));
            cols.shown.push(self.shown_by(l.slot, leaf));
            if l.leaf {
                cols.leaf = Some(i as u32);
            }
        }
        Ok(cols)
    }

    /// The tree's shape in display order: what [`Self::tree_rows`] and [`Self::tree_filter`] walk.
    fn tree_layout(&mut self) -> Result<Vec<Layout>, SessionError> {
        let leaf = self.leaf();
        let mut active = vec![false; self.len()];
        for s in self.path(leaf)? {
            active[s as usize] = true;
        }
        let mut rows = Vec::with_capacity(self.len());
        let roots = self.roots();
        let root_depth = u32::from(roots.len() > 1);
        // (slot, depth, the parent's row or -1)
        let mut stack: Vec<(Slot, u32, i32)> = roots.iter().rev().map(|&r| (r, root_depth, -1)).collect();
        while let Some((slot, depth, parent)) = stack.pop() {
            // (A session holds far fewer than 2^31 entries: the wasm memory is 4 GiB.)
            let row = i32::try_from(rows.len()).unwrap_or(i32::MAX);
            let kids = self.children_of(slot);
            let child_depth = if kids.len() > 1 { depth + 1 } else { depth };
            let children = kids.len() as u32;
            stack.extend(kids.iter().rev().map(|&k| (k, child_depth, row)));
            rows.push(Layout { slot, depth, children, parent, active: active[slot as usize], leaf: Some(slot) == leaf, end: 0 });
        }
        // Subtree extents: in pre-order a subtree is contiguous, so its end is its row plus its size.
        let mut size = vec![1u32; rows.len()];
        for i in (0..rows.len()).rev() {
            if let Ok(p) = usize::try_from(rows[i].parent) {
                size[p] += size[i];
            }
        }
        for (i, r) in rows.iter_mut().enumerate() {
            r.end = i as u32 + size[i];
        }
        Ok(rows)
    }

    /// Positions (in [`Self::tree_rows`] order) of the rows pi 0.75's `/tree` shows with `filter`, before
    /// search and folding. In every mode an assistant message with no text is hidden unless it stopped
    /// with something other than `stop`/`toolUse`, or is the current leaf.
    pub fn tree_filter(&mut self, filter: TreeFilter) -> Result<Vec<u32>, SessionError> {
        let rows = self.tree_layout()?;
        let leaf = self.leaf();
        Ok((0..rows.len() as u32).filter(|&i| self.shown_by(rows[i as usize].slot, leaf) & filter.bit() != 0).collect())
    }

    /// The [`TreeFilter`] modes that show the entry at `slot` (their bits), with `leaf` the current leaf.
    fn shown_by(&self, slot: Slot, leaf: Option<Slot>) -> u8 {
        let entry = self.entry(slot);
        if let Some(info) = entry.assistant() {
            let odd_stop = info.stop_reason() == StopReason::Other;
            if Some(slot) != leaf && entry.hint().is_none() && !odd_stop {
                return 0;
            }
        }
        let bookkeeping =
            matches!(entry.kind(), Kind::Label | Kind::Custom | Kind::ModelChange | Kind::ThinkingLevelChange | Kind::SessionInfo);
        let mut bits = TreeFilter::All.bit();
        if !bookkeeping {
            bits |= TreeFilter::Default.bit();
            if entry.kind() != Kind::Message(RoleKind::ToolResult) {
                bits |= TreeFilter::NoTools.bit();
            }
        }
        if entry.kind() == Kind::Message(RoleKind::User) {
            bits |= TreeFilter::UserOnly.bit();
        }
        if self.label_at(slot).is_some() {
            bits |= TreeFilter::LabeledOnly.bit();
        }
        bits
    }

    /// A one-line description of an entry: `user: "…"`, `branch_summary: "…"`, `label`, …
    pub fn describe(&mut self, slot: Slot) -> String {
        let entry = self.entry(slot);
        let what = entry.role_name().unwrap_or_else(|| entry.type_name()).to_string();
        let detail = match entry.label_change() {
            Some((target, label)) => Some(match label {
                Some(l) => format!("{target} ← {l}"),
                None => format!("{target} ← (cleared)"),
            }),
            None => entry.hint().and_then(|h| to_one_line(h, TREE_HINT_MAX)).map(|h| format!("“{h}”")),
        };
        let tools = entry
            .assistant()
            .filter(|a| a.tool_calls().len() > 0)
            .map(|a| a.tool_calls().map(|(_, n)| n).collect::<Vec<_>>().join(", "));
        let mut out = what;
        if let Some(d) = detail {
            let _ = write!(out, ": {d}");
        }
        if let Some(t) = tools {
            let _ = write!(out, " → {t}");
        }
        // A label, a tool's name or an entry type from the file can hold a newline or a terminal escape.
        match one_line(&out) {
            Cow::Borrowed(_) => out,
            Cow::Owned(line) => line,
        }
    }

    /// The tree as text, like pi's `/tree`: branches indented with box-drawing (a chain without
    /// branches stays at one level), the active path marked `•`, the leaf `◀ leaf`, labels in brackets.
    /// One line per row: ids, labels and previews are shown by [`one_line`]'s rule.
    pub fn render_tree(&mut self) -> Result<String, SessionError> {
        let leaf = self.leaf();
        let mut active = vec![false; self.len()];
        for s in self.path(leaf)? {
            active[s as usize] = true;
        }
        let mut out = String::new();
        // (entry, prefix of its own line, prefix its children continue with)
        let mut stack: Vec<(Slot, String, String)> = Vec::new();
        let roots = self.roots();
        push_children(&mut stack, &roots, "");
        while let Some((slot, line_prefix, child_prefix)) = stack.pop() {
            let marker = if active[slot as usize] { "• " } else { "  " };
            let desc = self.describe(slot);
            let _ = write!(out, "{line_prefix}{marker}{} {desc}", one_line(self.id_of(slot)));
            if let Some(l) = self.label_at(slot) {
                let _ = write!(out, " [{}]", one_line(l));
            }
            if Some(slot) == leaf {
                out.push_str(" ◀ leaf");
            }
            out.push('\n');
            let kids = self.children_of(slot).to_vec();
            push_children(&mut stack, &kids, &child_prefix);
        }
        Ok(out)
    }

    /// Counts for `stats`.
    pub fn stats(&mut self, file_bytes: f64) -> Result<Stats, SessionError> {
        let mut by_type = BTreeMap::new();
        for s in 0..self.len() as Slot {
            *by_type.entry(self.entry(s).type_name().to_string()).or_insert(0) += 1;
        }
        let n = self.len();
        let mut tips = 0;
        let mut branch_points = 0;
        for s in 0..n as Slot {
            match self.children_of(s).len() {
                0 => tips += 1,
                1 => {}
                _ => branch_points += 1,
            }
        }
        let leaf = self.leaf();
        let active_path = self.path(leaf)?.len();
        let labelled: Vec<bool> = (0..n as Slot).map(|s| self.label_of(self.id_of(s)).is_some()).collect();
        let labels = labelled.iter().filter(|&&b| b).count();
        let anchors = (0..n as Slot)
            .filter(|&s| self.label_of(self.id_of(s)).is_some_and(|l| l.starts_with(ANCHOR_PREFIX)))
            .count();
        let estimate = self.estimate(Leaf::Current)?;
        Ok(Stats {
            entries: n,
            by_type,
            tips,
            branch_points,
            active_path,
            abandoned_share: if n == 0 { 0.0 } else { (n - active_path) as f64 / n as f64 },
            labels,
            anchors,
            file_bytes,
            estimate,
        })
    }
}

/// Pushes `kids` so they pop in order: a single child continues its parent's column, several children
/// each get a `├─`/`└─` branch.
fn push_children(stack: &mut Vec<(Slot, String, String)>, kids: &[Slot], prefix: &str) {
    if let [only] = kids {
        stack.push((*only, prefix.to_string(), prefix.to_string()));
        return;
    }
    for (j, &kid) in kids.iter().enumerate().rev() {
        let last = j + 1 == kids.len();
        let (branch, cont) = if last { ("└─ ", "   ") } else { ("├─ ", "│  ") };
        stack.push((kid, format!("{prefix}{branch}"), format!("{prefix}{cont}")));
    }
}

impl SessionIndex {
    /// The estimate at every entry of the path to `leaf` (root first), for plotting context over time.
    pub fn path_estimates(&mut self, leaf: Leaf<'_>) -> Result<(Vec<Slot>, Vec<TokenEstimate>), SessionError> {
        let slot = self.resolve_leaf(leaf);
        let path = self.path(slot)?;
        let estimates = cumulative(self, &path);
        Ok((path, estimates))
    }
    /// Entries whose text (message text, thinking, tool calls and results, summaries, custom content,
    /// labels) contains `query`, ignoring ASCII case; at most `limit`, in file order. Needs a full index.
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<Slot>, SessionError> {
        if self.mode() != super::Mode::Full {
            return Err(SessionError::NeedsFullMode);
        }
        let needle = query.to_ascii_lowercase();
        if needle.is_empty() {
            return Ok(Vec::new());
        }
        // Cheap pre-filter on the stored JSON text: a hit needs the query's JSON-escaped spelling (or, for
        // text written with \u escapes, at least its first ASCII letter) somewhere in the line.
        let escaped = serde_json::to_string(&needle).unwrap_or_default();
        let escaped = escaped.trim_matches('"').to_string();
        let mut out = Vec::new();
        for slot in 0..self.len() as Slot {
            if out.len() >= limit {
                break;
            }
            let Some(raw) = self.raw(slot) else { continue };
            if !contains_ignore_ascii_case(raw, &escaped) && !raw.contains("\\u") {
                continue;
            }
            let Ok(value) = super::wire::parse_value(raw) else { continue };
            let mut texts = Vec::new();
            collect_text(&value, &mut texts);
            if texts.iter().any(|t| contains_ignore_ascii_case(t, &needle)) {
                out.push(slot);
            }
        }
        Ok(out)
    }
}
/// Gathers the human-readable strings of an entry: every string value except ids, types, roles and
/// timestamps (which would make every search hit everything).
fn collect_text<'a>(value: &'a serde_json::Value, out: &mut Vec<&'a str>) {
    use serde_json::Value;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => out.push(s),
            Value::Array(items) => stack.extend(items.iter()),
            Value::Object(map) => {
                for (k, v) in map {
                    let skip = matches!(
                        k.as_str(),
                        "id" | "parentId" | "type" | "role" | "timestamp" | "toolCallId" | "api" | "provider" | "model"
                            | "stopReason" | "data" | "mimeType" | "signature" | "thinkingSignature"
                    );
                    if !skip || !v.is_string() {
                        stack.push(v);
                    }
                }
            }
            _ => {}
        }
    }
}
fn contains_ignore_ascii_case(hay: &str, needle_lower: &str) -> bool {
    let (h, n) = (hay.as_bytes(), needle_lower.as_bytes());
    if n.len() > h.len() {
        return false;
    }
    h.windows(n.len()).any(|w| w.iter().zip(n).all(|(a, b)| a.to_ascii_lowercase() == *b))
}
