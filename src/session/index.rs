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
    parent: Vec<Slot>,
    /// Children per slot, oldest timestamp first (ties keep append order, like pi's stable sort).
    children: Vec<Vec<Slot>>,
    /// Entries whose parent id has not been seen yet, by that id.
    waiting: HashMap<Box<str>, Vec<Slot>>,
    /// Current label per target id (latest change wins).
    labels: HashMap<Box<str>, Box<str>>,
    leaf: Option<Slot>,
    /// Lines seen by `append_jsonl`, so line numbers continue across appended chunks.
    lines_seen: usize,
    /// A duplicate id re-pointed `by_id`; parent links are recomputed before the next walk.
    relink_needed: bool,
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
            children: Vec::new(),
            waiting: HashMap::new(),
            labels: HashMap::new(),
            leaf: None,
            lines_seen: 0,
            relink_needed: false,
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
                    // pi's id map keeps the later entry; so do we, and every link is re-resolved.
                    report.warnings.push(format!("line {number}: duplicate entry id {}", entry.id));
                    self.relink_needed = true;
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
                Some(l) => self.labels.insert(target.clone(), l.clone()),
                None => self.labels.remove(target),
            };
        }
        self.by_id.insert(entry.id.clone(), slot);
        self.parent.push(NONE);
        self.children.push(Vec::new());
        let id = entry.id.clone();
        let parent_id = entry.parent_id.clone();
        self.entries.push(entry);
        if let Some(pid) = parent_id {
            match self.by_id.get(&pid) {
                Some(&p) if p != slot => self.link(slot, p),
                Some(_) => {} // self-parented: a root in the tree, a cycle for path walks
                None => self.waiting.entry(pid).or_default().push(slot),
            }
        }
        // Children that arrived before their parent.
        if let Some(kids) = self.waiting.remove(&id) {
            for kid in kids {
                self.link(kid, slot);
            }
        }
        self.leaf = Some(slot);
    }

    fn link(&mut self, child: Slot, parent: Slot) {
        self.parent[child as usize] = parent;
        let ts = self.timestamp_key(child);
        let kids = &mut self.children[parent as usize];
        // Insert after every sibling with an equal or earlier timestamp: sorted and stable.
        let at = kids.partition_point(|&k| self.entries[k as usize].timestamp_ms.unwrap_or(f64::INFINITY) <= ts);
        kids.insert(at, child);
    }

    fn timestamp_key(&self, slot: Slot) -> f64 {
        // Entries with an invalid date sort last.
        self.entries[slot as usize].timestamp_ms.unwrap_or(f64::INFINITY)
    }

    /// Recomputes every parent link from ids (after a duplicate id changed what an id points to).
    fn relink(&mut self) {
        self.relink_needed = false;
        self.waiting.clear();
        for kids in &mut self.children {
            kids.clear();
        }
        for slot in 0..self.entries.len() as Slot {
            self.parent[slot as usize] = NONE;
            if let Some(pid) = self.entries[slot as usize].parent_id.clone() {
                match self.by_id.get(&pid) {
                    Some(&p) if p != slot => self.link(slot, p),
                    Some(_) => {}
                    None => self.waiting.entry(pid).or_default().push(slot),
                }
            }
        }
    }

    fn ensure_linked(&mut self) {
        if self.relink_needed {
            self.relink();
        }
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

    /// The parent slot, when the parent is known.
    pub fn parent_of(&mut self, slot: Slot) -> Option<Slot> {
        self.ensure_linked();
        let p = self.parent[slot as usize];
        (p != NONE).then_some(p)
    }

    /// Children of `slot`, oldest first.
    pub fn children_of(&mut self, slot: Slot) -> &[Slot] {
        self.ensure_linked();
        &self.children[slot as usize]
    }

    /// Root entries in append order: no parent, an unknown parent, or themselves as parent.
    pub fn roots(&mut self) -> Vec<Slot> {
        self.ensure_linked();
        (0..self.entries.len() as Slot).filter(|&s| self.parent[s as usize] == NONE).collect()
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

    /// The label currently on entry `id`.
    pub fn label_of(&self, id: &str) -> Option<&str> {
        self.labels.get(id).map(AsRef::as_ref)
    }

    /// Slots from the root to `leaf` (inclusive). Iterative, so any depth is fine; a parent cycle is an
    /// error rather than a hang.
    pub fn path(&mut self, leaf: Option<Slot>) -> Result<Vec<Slot>, SessionError> {
        self.ensure_linked();
        let Some(mut cur) = leaf else { return Ok(Vec::new()) };
        let mut path = Vec::new();
        loop {
            path.push(cur);
            if path.len() > self.entries.len() {
                return Err(SessionError::Cycle(self.id_of(cur).into()));
            }
            let entry = &self.entries[cur as usize];
            let p = self.parent[cur as usize];
            if p == NONE {
                // A self-parented entry would make pi's walk loop forever.
                if entry.parent_id.as_deref() == Some(&*entry.id) {
                    return Err(SessionError::Cycle(entry.id.to_string()));
                }
                break;
            }
            cur = p;
        }
        path.reverse();
        Ok(path)
    }

    /// The entry labelled `label` nearest to `leaf` on its path (walking leaf → root).
    pub fn find_label_on_path(&mut self, label: &str, leaf: Option<Slot>) -> Result<Option<Slot>, SessionError> {
        let path = self.path(leaf)?;
        Ok(path.into_iter().rev().find(|&s| self.label_of(self.id_of(s)) == Some(label)))
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
