//! The resident session index: entries by id, parent/child links, labels, the leaf, and the walks
//! pi's own tree navigation does (path, common ancestor, entries between two points).

use std::collections::HashMap;

use super::entry::{parse_line, Entry, EntryKind, Header, Line, LineProblem};
use crate::error::SessionError;

/// Position of an entry in append order. Cheap to copy and to send across the wasm boundary.
pub type Slot = u32;

const NONE: Slot = Slot::MAX;

/// What an index keeps besides the facts of each entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Facts only: what the pi plugin needs for decisions. Memory stays a small fraction of the file.
    Plugin,
    /// Facts plus each entry's JSON text, so whole contexts can be built (CLI, viewer).
    Full,
}

/// Which leaf a query is about, with pi's `buildSessionContext` rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leaf<'a> {
    /// The index's current leaf.
    Current,
    /// Before the first entry: an empty context.
    Null,
    /// This entry id; an unknown id falls back to the last entry, as pi does.
    Id(&'a str),
}

/// A line that was not taken, with its 1-based line number in the fed text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// 1-based line number within the text given to [`SessionIndex::append_jsonl`] (for entries given
    /// one by one: the 1-based position in that batch).
    pub line: usize,
    /// Why it was skipped.
    pub reason: String,
}

/// Children naming one parent id.
#[derive(Debug)]
struct Kids {
    list: Vec<Slot>,
    /// Timestamp of the last child appended (to notice out-of-order arrivals).
    last_ts: f64,
    sorted: bool,
}

impl Default for Kids {
    fn default() -> Self {
        Kids { list: Vec::new(), last_ts: f64::NEG_INFINITY, sorted: true }
    }
}

/// What one append call did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IngestReport {
    /// Entries added.
    pub appended: usize,
    /// Lines not taken.
    pub skipped: Vec<Skipped>,
    /// Entries taken with a caveat (duplicate ids, …).
    pub warnings: Vec<String>,
}

/// The resident index of one pi session. Sessions are append-only, so it only ever grows; feed it the
/// new entries as they come.
#[derive(Debug)]
pub struct SessionIndex {
    mode: Mode,
    header: Option<Header>,
    entries: Vec<Entry>,
    /// Entry JSON text per slot (full mode only).
    raw: Vec<Box<str>>,
    by_id: HashMap<Box<str>, Slot>,
    /// Resolved parent per slot (`NONE`: no parent, or not resolved yet). Trusted unless the parent slot
    /// was shadowed by a later entry with the same id.
    parent: Vec<Slot>,
    /// Whether a later entry took over this slot's id (pi's id map keeps the later one).
    shadowed: Vec<bool>,
    /// Children by the parent id they name — so they belong to whichever entry holds that id now, a
    /// parent that arrives later, or a duplicate that takes the id over, with nothing to move.
    children: HashMap<Box<str>, Kids>,
    /// Current label per target id (latest change wins).
    labels: HashMap<Box<str>, Box<str>>,
    leaf: Option<Slot>,
    /// Lines seen by `append_jsonl`, so line numbers continue across appended chunks.
    lines_seen: usize,
    /// A reusable per-slot table for [`super::tokens::cumulative`] (all `u32::MAX` between uses).
    position_scratch: std::cell::RefCell<Vec<u32>>,
    /// Whether some id was seen twice (rare; makes a few lookups go by id instead of by slot).
    duplicate_ids: bool,
    /// Per slot: whether a label was ever set on the id it holds (most entries never are, so lookups skip
    /// hashing them).
    maybe_labeled: Vec<bool>,
    /// Per slot, the number of the last walk that visited it: finds a parent cycle at its first repeat.
    visited: Vec<u32>,
    walk: u32,
}

impl SessionIndex {
    /// An empty index.
    pub fn new(mode: Mode) -> Self {
        SessionIndex {
            mode,
            header: None,
            entries: Vec::new(),
            raw: Vec::new(),
            by_id: HashMap::new(),
            parent: Vec::new(),
            shadowed: Vec::new(),
            children: HashMap::new(),
            labels: HashMap::new(),
            leaf: None,
            lines_seen: 0,
            visited: Vec::new(),
            walk: 0,
            duplicate_ids: false,
            position_scratch: std::cell::RefCell::new(Vec::new()),
            maybe_labeled: Vec::new(),
        }
    }

    /// The mode this index was created with.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The session header, once a header line was fed.
    pub fn header(&self) -> Option<&Header> {
        self.header.as_ref()
    }

    /// Number of entries (header excluded).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no entry was fed yet.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Feeds JSONL text: a whole file or a newly appended tail. Blank lines are ignored; a line that does
    /// not parse is skipped and reported with its line number (counted across calls); nothing is fatal.
    pub fn append_jsonl(&mut self, text: &str) -> IngestReport {
        let mut report = IngestReport::default();
        // pi reads files with `content.trim()`, which also drops a byte-order mark.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        for line in text.split('\n') {
            self.lines_seen += 1;
            let trimmed = line.trim();
            if trimmed.is_empty() {
                continue;
            }
            let number = self.lines_seen;
            match parse_line(trimmed, self.is_legacy_v2()) {
                Ok(parsed) => self.take(parsed, trimmed, number, &mut report),
                Err(problem) => report.skipped.push(Skipped { line: number, reason: problem.to_string() }),
            }
        }
        // A trailing newline is not a line of its own.
        if text.ends_with('\n') {
            self.lines_seen -= 1;
        }
        report
    }

    /// Loads a whole session file into an empty index with pi's file rule: when the first line that parses
    /// as JSON is not a `session` header with a string id, pi loads the file as empty — so does this, with a
    /// warning saying why. Otherwise the same as [`Self::append_jsonl`].
    pub fn load_file(&mut self, text: &str) -> Result<IngestReport, SessionError> {
        if !self.is_empty() || self.header.is_some() {
            return Err(SessionError::InvalidArgument("load_file needs an empty index".into()));
        }
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let first = text
            .split('\n')
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .find_map(|(i, l)| super::entry::parse_json(l.trim()).ok().map(|(v, _)| (i + 1, v)));
        if let Some((line, value)) = first {
            let is_header = value.get("type").and_then(serde_json::Value::as_str) == Some("session")
                && value.get("id").is_some_and(serde_json::Value::is_string);
            if !is_header {
                let mut report = IngestReport::default();
                report.warnings.push(format!(
                    "line {line}: not a pi session header (type \"session\" with a string id); pi loads this file as empty"
                ));
                return Ok(report);
            }
        }
        Ok(self.append_jsonl(text))
    }

    /// [`Self::load_file`] from the file's bytes, decoded as UTF-8 with invalid sequences replaced (as
    /// Node's `readFileSync(path, "utf8")` does); valid input is not copied.
    pub fn load_file_bytes(&mut self, bytes: &[u8]) -> Result<IngestReport, SessionError> {
        self.load_file(&String::from_utf8_lossy(bytes))
    }

    /// [`Self::append_jsonl`] from UTF-8 bytes (invalid sequences replaced).
    pub fn append_jsonl_bytes(&mut self, bytes: &[u8]) -> IngestReport {
        self.append_jsonl(&String::from_utf8_lossy(bytes))
    }

    /// Feeds entries given one JSON text each (e.g. objects the host holds, stringified); an `Err` item
    /// is an entry the caller could not serialise, reported as skipped with its reason. Positions in the
    /// report are 1-based within this batch.
    pub fn append_entry_texts<S: AsRef<str>>(&mut self, texts: impl IntoIterator<Item = Result<S, String>>) -> IngestReport {
        let mut report = IngestReport::default();
        for (i, text) in texts.into_iter().enumerate() {
            let parsed = text.and_then(|t| {
                let t = t.as_ref();
                parse_line(t, self.is_legacy_v2()).map(|p| (p, t.to_string())).map_err(|e| e.to_string())
            });
            match parsed {
                Ok((line, t)) => self.take(line, &t, i + 1, &mut report),
                Err(reason) => report.skipped.push(Skipped { line: i + 1, reason }),
            }
        }
        report
    }

    fn is_legacy_v2(&self) -> bool {
        self.header.as_ref().is_some_and(|h| h.version.is_some_and(|v| v < 3.0))
    }

    fn take(&mut self, parsed: Line, text: &str, number: usize, report: &mut IngestReport) {
        match parsed {
            Line::Header(h) => {
                if self.header.is_some() {
                    report.warnings.push(format!("line {number}: a second session header was ignored"));
                } else {
                    self.header = Some(h);
                }
            }
            Line::Entry(entry) => {
                if self.by_id.contains_key(&entry.id) {
                    // pi's id map keeps the later entry; so do we (see `push`).
                    report.warnings.push(format!("line {number}: duplicate entry id {}", entry.id));
                }
                if self.mode == Mode::Full {
                    self.raw.push(text.into());
                }
                self.push(entry);
                report.appended += 1;
            }
        }
    }

    fn push(&mut self, entry: Entry) {
        let slot = self.entries.len() as Slot;
        if let EntryKind::Label { target, label } = &entry.kind {
            match label {
                Some(l) => {
                    self.labels.insert(target.clone(), l.clone());
                    if let Some(&t) = self.by_id.get(target) {
                        self.maybe_labeled[t as usize] = true;
                    }
                }
                None => {
                    self.labels.remove(target);
                }
            }
        }
        if let Some(old) = self.by_id.insert(entry.id.clone(), slot) {
            self.shadowed[old as usize] = true;
            self.duplicate_ids = true;
        }
        // A label written before its target arrived (pi keeps those) applies once it does.
        self.maybe_labeled.push(self.labels.contains_key(&entry.id));
        let parent = match entry.parent_id.as_deref().and_then(|pid| self.by_id.get(pid)) {
            Some(&p) if p != slot => p,
            _ => NONE,
        };
        self.parent.push(parent);
        self.shadowed.push(false);
        self.visited.push(0);
        let ts = entry.timestamp_ms.unwrap_or(f64::INFINITY);
        // A self-parented entry is a root in the tree (and a cycle for path walks), nobody's child.
        if let Some(pid) = entry.parent_id.clone().filter(|pid| *pid != entry.id) {
            let kids = self.children.entry(pid).or_default();
            // Appending keeps timestamp order in the usual case; otherwise sort later, once (stable, so
            // equal timestamps keep arrival order, like pi's sort).
            if kids.last_ts > ts {
                kids.sorted = false;
            }
            kids.last_ts = ts;
            kids.list.push(slot);
        }
        self.entries.push(entry);
        self.leaf = Some(slot);
    }

    /// The entry at `slot`.
    pub fn entry(&self, slot: Slot) -> &Entry {
        &self.entries[slot as usize]
    }

    /// All entries in append order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The entry's JSON text (full mode), as fed.
    pub fn raw(&self, slot: Slot) -> Option<&str> {
        self.raw.get(slot as usize).map(AsRef::as_ref)
    }

    /// The slot holding entry `id` (the later one when an id repeats).
    pub fn slot_of(&self, id: &str) -> Option<Slot> {
        self.by_id.get(id).copied()
    }

    /// The id of the entry at `slot`.
    pub fn id_of(&self, slot: Slot) -> &str {
        &self.entries[slot as usize].id
    }

    /// The parent slot, when the parent is known: the entry that holds the parent id now (a parent may
    /// arrive after its children, and a repeated id moves to the later entry, as in pi's id map).
    pub fn parent_of(&mut self, slot: Slot) -> Option<Slot> {
        let i = slot as usize;
        let cached = self.parent[i];
        if cached != NONE && !self.shadowed[cached as usize] {
            return Some(cached);
        }
        let entry = &self.entries[i];
        let p = entry.parent_id.as_deref().and_then(|pid| self.by_id.get(pid)).copied().filter(|&p| p != slot)?;
        self.parent[i] = p;
        Some(p)
    }

    /// Children of `slot`, oldest first (none for an entry whose id a later entry took over).
    pub fn children_of(&mut self, slot: Slot) -> &[Slot] {
        if self.shadowed[slot as usize] {
            return &[];
        }
        let entries = &self.entries;
        match self.children.get_mut(&*entries[slot as usize].id) {
            None => &[],
            Some(kids) => {
                if !kids.sorted {
                    let key = |s: &Slot| entries[*s as usize].timestamp_ms.unwrap_or(f64::INFINITY);
                    kids.list.sort_by(|a, b| key(a).total_cmp(&key(b)));
                    kids.sorted = true;
                    // Later appends compare with the newest child, wherever it arrived.
                    kids.last_ts = kids.list.last().map_or(f64::NEG_INFINITY, key);
                }
                &kids.list
            }
        }
    }

    /// Root entries in append order: no parent, an unknown parent, or themselves as parent.
    pub fn roots(&mut self) -> Vec<Slot> {
        (0..self.entries.len() as Slot).filter(|&s| self.parent_of(s).is_none()).collect()
    }

    /// The current leaf (`None` = before the first entry).
    pub fn leaf(&self) -> Option<Slot> {
        self.leaf
    }

    /// Moves the leaf, like pi's `branch(id)`; `None` is pi's `resetLeaf()`.
    pub fn set_leaf(&mut self, id: Option<&str>) -> Result<(), SessionError> {
        self.leaf = match id {
            None => None,
            Some(id) => Some(self.slot_of(id).ok_or_else(|| SessionError::UnknownEntry(id.into()))?),
        };
        Ok(())
    }

    /// Resolves a leaf argument with pi's `buildSessionContext` rules.
    pub fn resolve_leaf(&self, leaf: Leaf<'_>) -> Option<Slot> {
        let last = || self.entries.len().checked_sub(1).map(|i| i as Slot);
        match leaf {
            Leaf::Current => self.leaf,
            Leaf::Null => None,
            Leaf::Id(id) => self.slot_of(id).or_else(last),
        }
    }

    /// Borrows the scratch position table (empty or all unset; grow it with `u32::MAX`).
    pub(super) fn take_position_scratch(&self) -> Vec<u32> {
        std::mem::take(&mut *self.position_scratch.borrow_mut())
    }

    /// Returns the scratch table, all entries unset again.
    pub(super) fn return_position_scratch(&self, table: Vec<u32>) {
        *self.position_scratch.borrow_mut() = table;
    }

    /// Whether some entry id occurs twice.
    pub fn has_duplicate_ids(&self) -> bool {
        self.duplicate_ids
    }

    /// The label currently on the entry at `slot` (the same as [`Self::label_of`] its id, without hashing
    /// entries that were never labelled).
    pub fn label_at(&self, slot: Slot) -> Option<&str> {
        if !self.maybe_labeled[slot as usize] {
            return None;
        }
        self.label_of(self.id_of(slot))
    }

    /// The label currently on entry `id`.
    pub fn label_of(&self, id: &str) -> Option<&str> {
        self.labels.get(id).map(AsRef::as_ref)
    }

    /// Slots from the root to `leaf` (inclusive). Iterative, so any depth is fine; a parent cycle is an
    /// error rather than a hang.
    pub fn path(&mut self, leaf: Option<Slot>) -> Result<Vec<Slot>, SessionError> {
        let Some(mut cur) = leaf else { return Ok(Vec::new()) };
        self.walk = self.walk.wrapping_add(1);
        if self.walk == 0 {
            // The counter wrapped: forget every old mark so none can look like this walk's.
            self.visited.fill(0);
            self.walk = 1;
        }
        let mut path = Vec::new();
        loop {
            if self.visited[cur as usize] == self.walk {
                return Err(SessionError::Cycle(self.id_of(cur).into()));
            }
            self.visited[cur as usize] = self.walk;
            path.push(cur);
            let Some(p) = self.parent_of(cur) else {
                // A self-parented entry would make pi's walk loop forever.
                let entry = &self.entries[cur as usize];
                if entry.parent_id.as_deref() == Some(&*entry.id) {
                    return Err(SessionError::Cycle(entry.id.to_string()));
                }
                break;
            };
            cur = p;
        }
        path.reverse();
        Ok(path)
    }

    /// The entry labelled `label` nearest to `leaf` on its path (walking leaf → root).
    pub fn find_label_on_path(&mut self, label: &str, leaf: Option<Slot>) -> Result<Option<Slot>, SessionError> {
        let path = self.path(leaf)?;
        Ok(path.into_iter().rev().find(|&s| self.label_at(s) == Some(label)))
    }

    /// The deepest entry on both paths (pi's common ancestor for tree navigation).
    pub fn common_ancestor(&mut self, a: Slot, b: Slot) -> Result<Option<Slot>, SessionError> {
        let on_a = self.path_mask(a)?;
        let path_b = self.path(Some(b))?;
        Ok(path_b.into_iter().rev().find(|&s| on_a[s as usize]))
    }

    fn path_mask(&mut self, leaf: Slot) -> Result<Vec<bool>, SessionError> {
        let mut mask = vec![false; self.entries.len()];
        for s in self.path(Some(leaf))? {
            mask[s as usize] = true;
        }
        Ok(mask)
    }

    /// The entries a move from `old_leaf` to `target` leaves behind, oldest first, and the common
    /// ancestor — the same result as pi's `collectEntriesForBranchSummary`.
    pub fn entries_between(
        &mut self,
        old_leaf: Option<Slot>,
        target: Slot,
    ) -> Result<(Vec<Slot>, Option<Slot>), SessionError> {
        let Some(old) = old_leaf else { return Ok((Vec::new(), None)) };
        let ancestor = self.common_ancestor(old, target)?;
        let mut out = Vec::new();
        let mut cur = Some(old);
        while let Some(s) = cur {
            if Some(s) == ancestor {
                break;
            }
            out.push(s);
            cur = self.parent_of(s);
        }
        out.reverse();
        Ok((out, ancestor))
    }

    /// Preview text for an entry: walks from `slot` towards the root (at most 50 entries) to the first
    /// entry with visible text. Branch summaries are shown as `summary: …`.
    pub fn hint_from(&mut self, slot: Slot, max_len: usize) -> Option<String> {
        const MAX_WALK: usize = 50;
        let mut cur = Some(slot);
        for _ in 0..MAX_WALK {
            let s = cur?;
            let entry = &self.entries[s as usize];
            if let Some(hint) = entry.hint.as_deref() {
                let prefix = if matches!(entry.kind, EntryKind::BranchSummary { .. }) { "summary: " } else { "" };
                if let Some(line) = crate::text::to_one_line(hint, max_len.saturating_sub(prefix.len())) {
                    return Some(format!("{prefix}{line}"));
                }
            }
            cur = self.parent_of(s);
        }
        None
    }

    /// Reports why a line would be skipped, without feeding it (used by tests and tools).
    pub fn check_line(line: &str) -> Result<(), LineProblem> {
        parse_line(line, false).map(|_| ())
    }
}
