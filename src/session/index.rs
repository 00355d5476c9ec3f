//! The resident session index: a short façade over its parts, in the order a line goes through them —
//! the [`Feed`] reads input into entries (`feed.rs`), [`Entries`] holds their facts, ids and labels
//! (`entries.rs`), [`Children`] and the walks make them a tree (`tree.rs`) — plus the leaf and the
//! profile. What is asked of the index (contexts, estimates, views) builds on these methods.

use super::chunk::FactsStream;
use super::entries::Entries;
use super::entry::{Facts, Header, LineProblem};
use super::feed::{utf8_lossy, Feed, IngestReport, Sink};
use super::profile::{Profile, ProfileSource};
use super::read::read_line;
use super::record::{Call, Record, Slot};
use super::store::Span;
use super::tree::{self, Children};
use crate::error::SessionError;

/// What an index keeps besides the facts of each entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Facts only: what the pi plugin needs for decisions. Memory stays a small fraction of the file.
    Plugin,
    /// Facts plus each entry's JSON text, so whole contexts can be built (CLI, viewer). The text is kept
    /// only in builds with the `serde-json` feature, the ones that can read it.
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

/// A table lent out by `&self` methods: a `Cell`, not a `RefCell`, as it is taken whole and put back, so
/// there is no borrow flag to check (and no panic path for it).
#[derive(Default)]
struct Scratch(std::cell::Cell<Vec<u32>>);

impl std::fmt::Debug for Scratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Scratch")
    }
}

/// Feeds a byte stream to an index in pieces, so the input never has to be in wasm memory whole: only
/// the current piece and a line cut by its end (linear memory never shrinks, so a whole file copied in
/// once would stay in the high-water mark for good).
#[derive(Debug, Default)]
pub struct ByteFeed {
    carry: Vec<u8>,
    report: IngestReport,
}

impl ByteFeed {
    /// Feeds the next piece: every complete line in it (with the carried start of the first) goes in now;
    /// only a line the piece's end cuts is copied, to wait for the next piece.
    pub fn push(&mut self, index: &mut SessionIndex, piece: &[u8]) {
        // Checked slicing throughout (the cuts are in range): no panic paths to carry.
        let Some(last) = piece.iter().rposition(|&b| b == b'\n') else {
            self.carry.extend_from_slice(piece);
            return;
        };
        let (mut lines, rest) = (piece.get(..=last).unwrap_or_default(), piece.get(last + 1..).unwrap_or_default());
        if !self.carry.is_empty() {
            // Complete the carried line with the piece's first one, then go on in the piece itself.
            let first = lines.iter().position(|&b| b == b'\n').map_or(lines.len(), |at| at + 1);
            self.carry.extend_from_slice(lines.get(..first).unwrap_or_default());
            let carried = std::mem::take(&mut self.carry);
            self.feed(index, &carried);
            self.carry = carried;
            self.carry.clear();
            lines = lines.get(first..).unwrap_or_default();
        }
        if !lines.is_empty() {
            self.feed(index, lines);
        }
        self.carry.extend_from_slice(rest);
    }

    /// Feeds what is left (a last line without a newline) and returns what the whole stream did.
    pub fn finish(mut self, index: &mut SessionIndex) -> IngestReport {
        if !self.carry.is_empty() {
            let carried = std::mem::take(&mut self.carry);
            self.feed(index, &carried);
        }
        index.with_feed(|feed, index| feed.end_file(index, &mut self.report));
        self.report
    }

    fn feed(&mut self, index: &mut SessionIndex, bytes: &[u8]) {
        let text = utf8_lossy(bytes);
        index.with_feed(|feed, index| {
            let text = feed.begin_input(&text);
            feed.feed_jsonl(index, text, &mut self.report);
        });
    }
}

/// Called with each entry's slot and facts, its tool calls and result included, as the index takes it (see
/// [`SessionIndex::observe_entries`]).
pub type EntryObserver = Box<dyn FnMut(Slot, &Facts<'_>)>;

/// The observer an index may have (a newtype: a closure has no `Debug`).
#[derive(Default)]
struct Observer(Option<EntryObserver>);

impl std::fmt::Debug for Observer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "Observer(set)" } else { "Observer(none)" })
    }
}

/// The resident index of one pi session. Sessions are append-only, so it only ever grows; feed it the
/// new entries as they come.
#[derive(Debug)]
pub struct SessionIndex {
    mode: Mode,
    /// The state of reading the input (header, line numbers, held and skimmed lines).
    feed: Feed,
    /// Every entry's facts, its strings, the id table and the labels.
    entries: Entries,
    /// Children lists, built on first use: only tree views need them, and the plugin never asks.
    children: Children,
    leaf: Option<Slot>,
    /// A reusable per-slot table for [`super::tokens::cumulative`] (all `u32::MAX` between uses).
    position_scratch: Scratch,
    /// The host generation's estimation rules (see [`super::profile`]).
    pub(super) profile: Profile,
    pub(super) profile_source: ProfileSource,
    /// Who else reads each entry's text as it is taken (a facts-only index keeps none of it).
    observer: Observer,
}

impl SessionIndex {
    /// An empty index.
    pub fn new(mode: Mode) -> Self {
        SessionIndex {
            mode,
            feed: Feed::default(),
            entries: Entries::default(),
            children: Children::default(),
            leaf: None,
            position_scratch: Scratch::default(),
            profile: Profile::default(),
            profile_source: ProfileSource::default(),
            observer: Observer::default(),
        }
    }

    /// Hands every entry taken from now on, with its slot, to `observer` as its facts, read with its tool calls'
    /// arguments and its tool result's text (which the index itself does not keep) in the same one read of its
    /// line: what the loops of `crate::loops::waste` need, without reading any line again.
    pub fn observe_entries(&mut self, observer: EntryObserver) {
        self.observer = Observer(Some(observer));
    }

    /// The mode this index was created with.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// Uses `profile` for the entries fed from now on (call it before feeding: entries already held keep
    /// their estimates), and stops inferring one from the contents.
    pub fn set_profile(&mut self, profile: Profile) {
        self.profile = profile;
        self.profile_source = ProfileSource::Set;
    }

    /// The profile estimates use, and how it was chosen.
    pub fn profile(&self) -> (Profile, ProfileSource) {
        (self.profile, self.profile_source)
    }

    /// The session header, once a header line was fed.
    pub fn header(&self) -> Option<&Header> {
        self.feed.header()
    }

    /// Number of entries (header excluded).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no entry was fed yet.
    pub fn is_empty(&self) -> bool {
        self.entries.len() == 0
    }

    /// Runs `f` with the feed and the index it feeds (the feed is set aside meanwhile: what a line becomes
    /// never reads the feed's state).
    fn with_feed<R>(&mut self, f: impl FnOnce(&mut Feed, &mut Self) -> R) -> R {
        let mut feed = std::mem::take(&mut self.feed);
        let out = f(&mut feed, self);
        self.feed = feed;
        out
    }

    /// Feeds JSONL text: a whole file or a newly appended tail. Blank lines are ignored; a line that does
    /// not parse is skipped and reported with its line number (counted across calls); nothing is fatal.
    pub fn append_jsonl(&mut self, text: &str) -> IngestReport {
        self.with_feed(|feed, index| feed.append_jsonl(index, text))
    }

    /// Loads a whole session file into an empty index with pi's file rule: when the first line that parses
    /// as JSON is not a `session` header with a string id, pi loads the file as empty — so does this, with a
    /// warning saying why. Otherwise the same as [`Self::append_jsonl`].
    pub fn load_file(&mut self, text: &str) -> Result<IngestReport, SessionError> {
        self.with_feed(|feed, index| feed.load_file(index, text))
    }

    /// [`Self::load_file`] from the file's bytes, decoded as UTF-8 with invalid sequences replaced (as
    /// Node's `readFileSync(path, "utf8")` does); valid input is not copied.
    pub fn load_file_bytes(&mut self, bytes: &[u8]) -> Result<IngestReport, SessionError> {
        self.load_file(&utf8_lossy(bytes))
    }

    /// Starts loading a whole session file into this (empty) index in parts, as it arrives: feed it with
    /// [`Self::load_file_part`], end with [`Self::end_file_load`]; the index then holds what
    /// [`Self::load_file_bytes`] of the whole file gives, and the report is the same.
    ///
    /// # Errors
    /// `InvalidArgument` when the index is not empty or a load is already open.
    pub fn begin_file_load(&mut self) -> Result<(), SessionError> {
        self.with_feed(|feed, index| feed.begin_file(index))
    }

    /// The next part of the file [`Self::begin_file_load`] started, as UTF-8 bytes (invalid sequences
    /// replaced): whole lines, ending with a newline, except for the file's last part — a `\n` byte ends
    /// any broken sequence, so line-sized parts decode as the whole file does.
    pub fn load_file_part(&mut self, bytes: &[u8]) {
        self.with_feed(|feed, index| feed.file_part(index, &utf8_lossy(bytes)));
    }

    /// Ends the load [`Self::begin_file_load`] started: what the whole file did (see [`Self::load_file`]).
    pub fn end_file_load(&mut self) -> IngestReport {
        self.with_feed(|feed, index| feed.end_file_load(index))
    }

    /// [`Self::append_jsonl`] from UTF-8 bytes (invalid sequences replaced).
    pub fn append_jsonl_bytes(&mut self, bytes: &[u8]) -> IngestReport {
        self.append_jsonl(&utf8_lossy(bytes))
    }

    /// Feeds entries given one JSON text each (e.g. objects the host holds, stringified); an `Err` item
    /// is an entry the caller could not serialise, reported as skipped with its reason. Positions in the
    /// report are 1-based within this batch.
    pub fn append_entry_texts<S: AsRef<str>>(&mut self, texts: impl IntoIterator<Item = Result<S, String>>) -> IngestReport {
        self.with_feed(|feed, index| feed.append_entry_texts(index, texts))
    }

    /// Feeds the entries of a facts stream (see [`super::chunk`]): each pushed as if its line had been read
    /// here. Streams of a file's parts, taken in file order, give what reading the file gives. Returns the
    /// number of entries taken.
    ///
    /// # Errors
    /// `InvalidArgument` for a full index (a stream carries no entry texts) or a stream that is no facts
    /// stream; the entries before the fault stay taken.
    pub fn append_facts(&mut self, bytes: &[u8]) -> Result<usize, SessionError> {
        if self.mode == Mode::Full {
            return Err(SessionError::InvalidArgument("a facts stream has no entry texts for a full index".into()));
        }
        let mut stream = FactsStream::new(bytes);
        let mut taken = 0;
        while let Some(facts) = stream.next_facts() {
            let facts = facts.map_err(|_| SessionError::InvalidArgument(format!("not a facts stream (after {taken} entries)")))?;
            self.push(&facts);
            taken += 1;
        }
        Ok(taken)
    }

    /// Feeds one batch of new entries given as a single JSON array text (one `JSON.stringify(newEntries)`
    /// in the shim), each item read like a JSONL line; positions in the report are 1-based within the
    /// array, and a text that is not a JSON array is one skip at position 0.
    pub fn append_entry_array(&mut self, json: &str) -> IngestReport {
        self.with_feed(|feed, index| feed.append_entry_array(index, json))
    }

    /// [`Self::load_file`] taking the user, assistant and tool result messages of `text` skimmed (see
    /// [`super::skim`]); [`Self::measure`] reads one in full later, from the same `text`.
    pub(super) fn load_file_skimming(&mut self, text: &str) -> Result<IngestReport, SessionError> {
        self.with_feed(|feed, index| feed.load_file_skimming(index, text))
    }

    /// Whether the entry at `slot` is only skimmed so far.
    pub(super) fn is_skimmed(&self, slot: Slot) -> bool {
        self.entries.get(slot).is_some_and(|r| r.has(super::record::flag::SKIMMED))
    }

    /// Reads a skimmed entry's line in full from `text` (the one [`Self::load_file_skimming`] read): its
    /// tokens, preview and tool calls join its record, as if it had been read in full at first.
    pub(super) fn measure(&mut self, slot: Slot, text: &str) {
        if !self.is_skimmed(slot) {
            return;
        }
        let Some((line, profile)) = self.feed.skimmed_line(slot, text) else { return };
        self.entries.measure(slot, line, self.feed.is_legacy_v2(), profile);
    }

    /// The string at `span` in the arena.
    pub(super) fn text(&self, span: Span) -> Option<&str> {
        self.entries.text(span)
    }

    /// Tool call `i` (of an assistant record's run).
    pub(super) fn call(&self, i: u32) -> Call {
        self.entries.call(i)
    }

    /// The usage the entry at `slot` records (see [`super::SpendRecord`]).
    pub fn spend_at(&self, slot: Slot) -> Option<&super::SpendRecord> {
        self.entries.spend_at(slot)
    }

    /// The record at `slot`.
    pub(super) fn record(&self, slot: Slot) -> &Record {
        self.entries.record(slot)
    }

    /// The parent id the entry at `slot` names.
    pub(super) fn parent_id_at(&self, slot: Slot) -> Option<&str> {
        self.entries.parent_id_at(slot)
    }

    /// The entry's JSON text (full mode), as fed.
    pub fn raw(&self, slot: Slot) -> Option<&str> {
        self.entries.raw(slot)
    }

    /// The slot holding entry `id` (the later one when an id repeats).
    pub fn slot_of(&self, id: &str) -> Option<Slot> {
        self.entries.slot_of(id)
    }

    /// The id of the entry at `slot`.
    pub fn id_of(&self, slot: Slot) -> &str {
        self.entries.id_of(slot)
    }

    /// The parent slot, when the parent is known: the entry that holds the parent id now (a parent may
    /// arrive after its children, and a repeated id moves to the later entry, as in pi's id map).
    pub fn parent_of(&mut self, slot: Slot) -> Option<Slot> {
        self.entries.parent_of(slot)
    }

    /// Children of `slot`, oldest first (none for an entry whose id a later entry took over).
    pub fn children_of(&mut self, slot: Slot) -> &[Slot] {
        self.children.of(&self.entries, slot)
    }

    /// Root entries in append order: no parent, an unknown parent, or themselves as parent.
    pub fn roots(&mut self) -> Vec<Slot> {
        tree::roots(&mut self.entries)
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
        let last = || self.len().checked_sub(1).map(|i| i as Slot);
        match leaf {
            Leaf::Current => self.leaf,
            Leaf::Null => None,
            Leaf::Id(id) => self.slot_of(id).or_else(last),
        }
    }

    /// Borrows the scratch position table (empty or all unset; grow it with `u32::MAX`).
    pub(super) fn take_position_scratch(&self) -> Vec<u32> {
        self.position_scratch.0.take()
    }

    /// Returns the scratch table, all entries unset again.
    pub(super) fn return_position_scratch(&self, table: Vec<u32>) {
        self.position_scratch.0.set(table);
    }

    /// Whether some entry id occurs twice.
    pub fn has_duplicate_ids(&self) -> bool {
        self.entries.has_duplicate_ids()
    }

    /// The label currently on the entry at `slot` (the same as [`Self::label_of`] its id, without hashing
    /// entries that were never labelled).
    pub fn label_at(&self, slot: Slot) -> Option<&str> {
        if !self.record(slot).has(super::record::flag::MAYBE_LABELED) {
            return None;
        }
        self.label_of(self.id_of(slot))
    }

    /// The label currently on entry `id`.
    pub fn label_of(&self, id: &str) -> Option<&str> {
        self.entries.label_of(id)
    }

    /// Slots from the root to `leaf` (inclusive). Iterative, so any depth is fine; a parent cycle is an
    /// error rather than a hang.
    pub fn path(&mut self, leaf: Option<Slot>) -> Result<Vec<Slot>, SessionError> {
        tree::path(&mut self.entries, leaf)
    }

    /// The entry labelled `label` nearest to `leaf` on its path (walking leaf → root).
    pub fn find_label_on_path(&mut self, label: &str, leaf: Option<Slot>) -> Result<Option<Slot>, SessionError> {
        let path = self.path(leaf)?;
        Ok(path.into_iter().rev().find(|&s| self.label_at(s) == Some(label)))
    }

    /// The deepest entry on both paths (pi's common ancestor for tree navigation).
    pub fn common_ancestor(&mut self, a: Slot, b: Slot) -> Result<Option<Slot>, SessionError> {
        tree::common_ancestor(&mut self.entries, a, b)
    }

    /// The entries a move from `old_leaf` to `target` leaves behind, oldest first, and the common
    /// ancestor — the same result as pi's `collectEntriesForBranchSummary`.
    pub fn entries_between(&mut self, old_leaf: Option<Slot>, target: Slot) -> Result<(Vec<Slot>, Option<Slot>), SessionError> {
        tree::entries_between(&mut self.entries, old_leaf, target)
    }

    /// Every usage the entries record (model requests, cache warming, tool results, summaries), in file
    /// order.
    pub fn spends(&self) -> &[super::SpendRecord] {
        self.entries.spends()
    }

    /// The key a [`super::SpendRecord`] names by index (`provider/model`, or pi's `Tools/summaries`).
    pub fn spend_key(&self, id: u32) -> &str {
        self.entries.spend_key(id)
    }

    /// The `tokensBefore` the compaction at `slot` wrote, when it is a number.
    pub fn tokens_before(&self, slot: Slot) -> Option<f64> {
        self.entries.tokens_before(slot)
    }

    /// Whether the entry at `slot` holds a usage pi's estimate may anchor on.
    pub(super) fn has_usage(&self, slot: Slot) -> bool {
        self.entries.get(slot).is_some_and(|r| r.usage().is_some())
    }

    /// Reports why a line would be skipped, without feeding it (used by tests and tools).
    pub fn check_line(line: &str) -> Result<(), LineProblem> {
        read_line(line, false, |_| ())
    }
}

/// The index as the feed sees it: where read entries go.
impl Sink for SessionIndex {
    fn len(&self) -> usize {
        self.entries.len()
    }

    fn profile(&self) -> Profile {
        self.profile
    }

    /// Stores a read entry in the next slot (the entry may tell which pi wrote the session first:
    /// [`Profile::seeing`]); it becomes the leaf, as pi's append does.
    fn push(&mut self, facts: &Facts<'_>) -> bool {
        (self.profile, self.profile_source) = self.profile.seeing(self.profile_source, facts.kind);
        let record = self.entries.record_of(facts, self.profile);
        let (slot, repeated) = self.entries.push(record);
        self.children.added(&self.entries, slot);
        self.leaf = Some(slot);
        repeated.is_some()
    }

    fn keep_text(&mut self, text: &str) {
        if self.mode == Mode::Full {
            self.entries.keep_raw(text);
        }
    }

    fn observes(&self) -> bool {
        self.observer.0.is_some()
    }

    fn observe(&mut self, facts: &Facts<'_>) {
        if let Some(observe) = self.observer.0.as_mut() {
            observe(self.entries.len() as Slot - 1, facts);
        }
    }

    fn mark_skimmed(&mut self, slot: Slot) {
        self.entries.mark_skimmed(slot);
    }

    fn id_of(&self, slot: Slot) -> &str {
        self.entries.id_of(slot)
    }
}
