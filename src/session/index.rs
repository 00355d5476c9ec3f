//! The resident session index: entries by id, parent/child links, labels, the leaf, and the walks
//! pi's own tree navigation does (path, common ancestor, entries between two points).

use serde::Serialize;
use tsify_next::Tsify;

use super::entry::{Facts, Header, Kind, Line, LineProblem, RoleKind, StopReason};
use super::migrate::{Format, V1Chain};
use super::profile::{Profile, ProfileSource};
use super::read::{read_line, skim_line};
use super::record::{flag, stop_bits, Call, Record, Slot, NO_PARENT, PENDING};
use super::store::{Arena, Chunks, IdTable, Keys, Span, StrMap};
use crate::error::SessionError;
use crate::js::{self, JSON_SPACE};


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

/// A line that was not taken, with its 1-based line number in the fed text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Tsify)]
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

/// Children by the parent id they name — so they belong to whichever entry holds that id now, a parent
/// that arrives later, or a duplicate that takes the id over, with nothing to move.
type Children = std::collections::HashMap<Box<str>, Kids>;

/// Adds `slot` (timestamp `ts`) to the children of `parent_id`. Appending keeps timestamp order in the
/// usual case; otherwise the list is sorted later, once (stable, so equal timestamps keep arrival order,
/// like pi's sort).
fn add_child(children: &mut Children, parent_id: &str, slot: Slot, ts: f64) {
    let kids = match children.get_mut(parent_id) {
        Some(kids) => kids,
        None => children.entry(parent_id.into()).or_default(),
    };
    if kids.last_ts > ts {
        kids.sorted = false;
    }
    kids.last_ts = ts;
    kids.list.push(slot);
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

/// The id of the record at `slot` (empty past the end): how the id table sees the records.
fn id_in<'a>(records: &'a Chunks<Record>, arena: &'a Arena, slot: Slot) -> &'a str {
    records.get(slot as usize).and_then(|r| arena.get(r.id)).unwrap_or_default()
}

/// The records' ids, as the id table sees them.
struct RecordIds<'a>(&'a Chunks<Record>, &'a Arena);

impl Keys for RecordIds<'_> {
    fn key(&self, slot: Slot) -> &str {
        id_in(self.0, self.1, slot)
    }
}

/// What one append call did (the `IngestReport` object of the wasm API).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Tsify)]
pub struct IngestReport {
    /// Entries added.
    pub appended: usize,
    /// Lines not taken.
    pub skipped: Vec<Skipped>,
    /// Entries taken with a caveat (duplicate ids, …).
    pub warnings: Vec<String>,
}

impl IngestReport {
    /// Adds the warning `line <number>: <parts…>`.
    fn warn(&mut self, number: usize, parts: &[&str]) {
        self.warnings.push(format!("line {number}: {}", parts.concat()));
    }

    /// Adds what a later call on the same input did (line numbers already count across calls).
    pub fn merge(&mut self, later: IngestReport) {
        self.appended += later.appended;
        self.skipped.extend(later.skipped);
        self.warnings.extend(later.warnings);
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
        index.end_file(&mut self.report);
        self.report
    }

    fn feed(&mut self, index: &mut SessionIndex, bytes: &[u8]) {
        let text = utf8_lossy(bytes);
        let text = index.begin_input(&text);
        index.feed_jsonl(text, &mut self.report);
    }
}

/// The byte range of `text.trim()` as JavaScript trims: pi ≤0.75 reads a file as
/// `content.trim().split("\n")`, so the first and the last non-blank line lose the whitespace at the file's
/// ends, also where `JSON.parse` would refuse it (U+00A0, U+3000, …).
fn js_trimmed_range(text: &str) -> std::ops::Range<usize> {
    let start = text.len() - text.trim_start_matches(js::is_trim_space).len();
    start..text.trim_end_matches(js::is_trim_space).len().max(start)
}

/// `String::from_utf8_lossy`: valid input (the norm) is checked by `str::from_utf8`, whose word-at-a-time
/// ASCII path is several times faster in wasm than the lossy decoder's byte-by-byte one, and invalid input
/// is repaired with the same check (each maximal invalid subpart becomes one U+FFFD, as in
/// `from_utf8_lossy` and Node's decoder), so the module carries one UTF-8 validator, not two.
fn utf8_lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    let mut rest = match std::str::from_utf8(bytes) {
        Ok(text) => return std::borrow::Cow::Borrowed(text),
        Err(_) => bytes,
    };
    let mut out = String::with_capacity(bytes.len() + 16);
    loop {
        match std::str::from_utf8(rest) {
            Ok(text) => {
                out.push_str(text);
                return std::borrow::Cow::Owned(out);
            }
            Err(e) => {
                let (valid, invalid) = (rest.get(..e.valid_up_to()), rest.get(e.valid_up_to()..));
                out.push_str(valid.and_then(|v| std::str::from_utf8(v).ok()).unwrap_or_default());
                out.push('\u{fffd}');
                // `None`: the input ends inside a sequence, which is one replacement in all.
                let skip = e.error_len().map_or(usize::MAX, usize::from);
                rest = invalid.and_then(|i| i.get(skip..)).unwrap_or_default();
            }
        }
    }
}

/// The resident index of one pi session. Sessions are append-only, so it only ever grows; feed it the
/// new entries as they come.
#[derive(Debug)]
pub struct SessionIndex {
    mode: Mode,
    header: Option<Header>,
    /// Each entry's facts, by slot. A record's `parent` is trusted unless the parent slot was shadowed
    /// by a later entry with the same id (pi's id map keeps the later one).
    records: Chunks<Record>,
    /// Every id, preview, label, name and tool call string the records point at.
    arena: Arena,
    /// Tool calls of all assistant messages, in order (a record holds its run).
    calls: Chunks<Call>,
    /// Entry JSON text per slot (full mode only). Only the `serde-json` parts (whole contexts, the LLM
    /// view, search) read it, so builds without them (the plugin's) carry no code for it.
    raw: Chunks<Box<str>>,
    /// Slot by id (the later one when an id repeats).
    ids: IdTable,
    /// Parent ids that no entry held when their child arrived, by child slot (rare: a parent may arrive
    /// later, or never). Dropped once resolved: the parent's id is then the same string.
    pending: Vec<(Slot, Span)>,
    /// Built on first use: only tree views need children, and the plugin never asks.
    children: Option<Children>,
    /// Current label per target id (latest change wins).
    labels: StrMap,
    leaf: Option<Slot>,
    /// Lines seen by `append_jsonl`, so line numbers continue across appended chunks.
    lines_seen: usize,
    /// pi ≤0.75 reads a file as `content.trim().split("\n")`: its first and last line lose the whitespace
    /// at the file's ends, also where `JSON.parse` would refuse it (U+00A0, …). Set while the fed text is
    /// at a file's start (nothing fed before it, no non-blank line yet).
    file_start: bool,
    /// A line that parses only without the whitespace after it (with its number): skipped, unless it
    /// turns out to be the file's last non-blank line (see `file_start`).
    held: Option<(String, usize)>,
    /// A reusable per-slot table for [`super::tokens::cumulative`] (all `u32::MAX` between uses).
    position_scratch: Scratch,
    /// Whether some id was seen twice (rare; makes a few lookups go by id instead of by slot).
    duplicate_ids: bool,
    /// The host generation's estimation rules (see [`super::profile`]).
    pub(super) profile: Profile,
    pub(super) profile_source: ProfileSource,
    /// While a text is fed skimming (see [`super::skim`]): where that text starts in memory, so a line's
    /// place in it is known.
    skim_base: Option<usize>,
    /// The skimmed entries' lines, by slot (ascending): where each is in the skimmed text and the profile
    /// its tokens are counted under once it is read in full.
    skimmed: Vec<SkimmedLine>,
    /// pi's v1 → v2 migration while the lines of a version-1 file are read (see [`super::migrate`]).
    v1: Option<V1Chain>,
}

/// Where a skimmed entry's line is (a byte range of the skimmed text) and the profile it was taken under.
#[derive(Debug, Clone, Copy)]
struct SkimmedLine {
    slot: Slot,
    at: u32,
    len: u32,
    profile: Profile,
}

impl SessionIndex {
    /// An empty index.
    pub fn new(mode: Mode) -> Self {
        SessionIndex {
            mode,
            header: None,
            records: Chunks::default(),
            arena: Arena::default(),
            calls: Chunks::default(),
            raw: Chunks::default(),
            ids: IdTable::default(),
            pending: Vec::new(),
            children: None,
            labels: StrMap::default(),
            leaf: None,
            lines_seen: 0,
            file_start: false,
            held: None,
            duplicate_ids: false,
            position_scratch: Scratch::default(),
            profile: Profile::default(),
            profile_source: ProfileSource::default(),
            skim_base: None,
            skimmed: Vec::new(),
            v1: None,
        }
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

    /// The profile for an entry about to be recorded: a `role:"system"` message in an index that was given
    /// none marks a pi ≥0.87 session.
    pub(super) fn profile_for(&mut self, facts: &Facts<'_>) -> Profile {
        if self.profile_source == ProfileSource::Default && facts.kind == Kind::Message(RoleKind::System) {
            self.profile = Profile::Pi087;
            self.profile_source = ProfileSource::Inferred;
        }
        self.profile
    }

    /// The session header, once a header line was fed.
    pub fn header(&self) -> Option<&Header> {
        self.header.as_ref()
    }

    /// Number of entries (header excluded).
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether no entry was fed yet.
    pub fn is_empty(&self) -> bool {
        self.records.len() == 0
    }

    /// Feeds JSONL text: a whole file or a newly appended tail. Blank lines are ignored; a line that does
    /// not parse is skipped and reported with its line number (counted across calls); nothing is fatal.
    pub fn append_jsonl(&mut self, text: &str) -> IngestReport {
        let mut report = IngestReport::default();
        // The text is read as a file's: its end trimmed by pi ≤0.75's rule, and its start too when nothing
        // came before it.
        let text = self.begin_input(text);
        self.feed_jsonl(text, &mut report);
        self.end_file(&mut report);
        report
    }

    /// `text` as the next part of the input: at the input's own start (nothing fed before it) without a
    /// byte-order mark, which pi's `content.trim()` drops, and marked as a file's start (see
    /// `file_start`). Anywhere else a mark is a line's content, which `JSON.parse` refuses — also after
    /// blank lines at the start, where only pi ≤0.75's trim of the whole file reaches it.
    fn begin_input<'t>(&mut self, text: &'t str) -> &'t str {
        if self.lines_seen > 0 {
            return text;
        }
        self.file_start = true;
        text.strip_prefix('\u{feff}').unwrap_or(text)
    }

    /// [`Self::append_jsonl`] for text that continues earlier input (a byte-order mark here is content),
    /// reporting into `report`: the one line loop of every JSONL ingest.
    fn feed_jsonl(&mut self, text: &str, report: &mut IngestReport) {
        let mut rest = Some(text);
        while let Some(chunk) = rest {
            // `find` (memchr, already in the module) rather than `split`'s pattern iterator.
            let (line, next) = match chunk.find('\n') {
                Some(at) => (chunk.get(..at).unwrap_or_default(), chunk.get(at + 1..)),
                None => (chunk, None),
            };
            rest = next;
            self.lines_seen += 1;
            self.feed_line(line, report);
        }
        // A trailing newline is not a line of its own.
        if text.as_bytes().last() == Some(&b'\n') {
            self.lines_seen -= 1;
        }
    }

    /// One line of JSONL. pi: a line is blank when `line.trim()` is empty, else it is `JSON.parse(line)`,
    /// which allows only JSON's own whitespace around the value (a line led by U+00A0 is no entry) — but
    /// pi ≤0.75 trims the whole file first, so there the file's first and last non-blank lines may carry
    /// any whitespace at the file's ends. The last is known only at the file's end ([`Self::end_file`]):
    /// until then a line that would parse without what trails it is held.
    fn feed_line(&mut self, line: &str, report: &mut IngestReport) {
        let Some(mut json) = js::json_line(line) else { return };
        let pi074 = !self.profile.opens_only_files_led_by_a_header();
        if std::mem::take(&mut self.file_start) && pi074 {
            json = line.trim_start_matches(js::is_trim_space).trim_end_matches(JSON_SPACE);
        }
        // A held line is not the last after all: read (and skipped) where it was.
        self.read_held(false, report);
        if pi074 && json.len() != json.trim_end_matches(js::is_trim_space).len() {
            self.held = Some((json.to_string(), self.lines_seen));
            return;
        }
        self.take_file_line(json, self.lines_seen, report);
    }

    /// The end of a file's text: a held line is its last non-blank one, read with the whitespace after
    /// it trimmed away as pi ≤0.75 trims the file.
    fn end_file(&mut self, report: &mut IngestReport) {
        self.read_held(true, report);
        self.file_start = false;
    }

    /// Reads the held line, if any (`at_end`: as the file's last line). It is a copy, so it is read in
    /// full, never skimmed.
    fn read_held(&mut self, at_end: bool, report: &mut IngestReport) {
        let Some((line, number)) = self.held.take() else { return };
        let line = if at_end { line.trim_end_matches(js::is_trim_space) } else { &line };
        let skimming = self.skim_base.take();
        self.take_file_line(line, number, report);
        self.skim_base = skimming;
    }

    /// Loads a whole session file into an empty index with pi's file rule: when the first line that parses
    /// as JSON is not a `session` header with a string id, pi loads the file as empty — so does this, with a
    /// warning saying why. Otherwise the same as [`Self::append_jsonl`].
    pub fn load_file(&mut self, text: &str) -> Result<IngestReport, SessionError> {
        if !self.is_empty() || self.header.is_some() {
            return Err(SessionError::InvalidArgument("load_file needs an empty index".into()));
        }
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        // The first line `JSON.parse` takes, and whether it is a header with a string id: pi ≤0.75 trims
        // the whole text first, pi ≥0.87 reads the file's lines as they are.
        let body = if self.profile.opens_only_files_led_by_a_header() { 0..text.len() } else { js_trimmed_range(text) };
        let lines_before = text.get(..body.start).map_or(0, |h| h.bytes().filter(|&b| b == b'\n').count());
        let lines = text.get(body).unwrap_or_default().split('\n').enumerate();
        let first = lines.filter_map(|(i, l)| Some((i, js::json_line(l)?))).find_map(|(i, json)| {
            match read_line(json, false, |line| matches!(line, Line::Header(Header { id: Some(_), .. }))) {
                Err(LineProblem::Malformed(_)) => None,
                read => Some((lines_before + i + 1, read.unwrap_or(false))),
            }
        });
        if let Some((line, is_header)) = first {
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
        self.load_file(&utf8_lossy(bytes))
    }

    /// [`Self::append_jsonl`] from UTF-8 bytes (invalid sequences replaced).
    pub fn append_jsonl_bytes(&mut self, bytes: &[u8]) -> IngestReport {
        self.append_jsonl(&utf8_lossy(bytes))
    }

    /// Feeds entries given one JSON text each (e.g. objects the host holds, stringified); an `Err` item
    /// is an entry the caller could not serialise, reported as skipped with its reason. Positions in the
    /// report are 1-based within this batch.
    pub fn append_entry_texts<S: AsRef<str>>(&mut self, texts: impl IntoIterator<Item = Result<S, String>>) -> IngestReport {
        let mut report = IngestReport::default();
        for (i, text) in texts.into_iter().enumerate() {
            let number = i + 1;
            let text = match text {
                Ok(t) => t,
                Err(reason) => {
                    report.skipped.push(Skipped { line: number, reason });
                    continue;
                }
            };
            self.take_line(text.as_ref(), number, &mut report);
        }
        report
    }

    /// Feeds one batch of new entries given as a single JSON array text — what one
    /// `JSON.stringify(newEntries)` in the shim gives, so a tool call's sync costs one stringify and one copy
    /// into wasm instead of one per entry. Each item is read like a JSONL line (an item that is not an entry
    /// object is reported as skipped); positions in the report are 1-based within the array. A text that is
    /// not a JSON array takes nothing and is reported as one skip at position 0.
    pub fn append_entry_array(&mut self, json: &str) -> IngestReport {
        let mut report = IngestReport::default();
        let mut reader = serde_json::Deserializer::from_str(json);
        // The items are only delimited here (`RawValue`: a syntax check without recursion); each is then
        // read as a line is, under the line reader's depth limit.
        reader.disable_recursion_limit();
        let items = <Vec<&serde_json::value::RawValue> as serde::Deserialize>::deserialize(&mut reader)
            .and_then(|items| reader.end().map(|()| items));
        match items {
            Ok(items) => {
                for (i, item) in items.into_iter().enumerate() {
                    self.take_line(item.get(), i + 1, &mut report);
                }
            }
            Err(e) => report.skipped.push(Skipped { line: 0, reason: format!("not a JSON array of entries ({e})") }),
        }
        report
    }

    /// Whether the header says version 1 or 2: pi's v2 → v3 step (`hookMessage` → `custom`) applies.
    fn is_legacy_v2(&self) -> bool {
        self.header.as_ref().is_some_and(|h| h.format < Format::Current)
    }

    /// [`Self::take_line`] for a line of JSONL input (`number`: its line in the file): in a version-1 file
    /// the line as pi's migration leaves it (see [`super::migrate`]), read in full — a migrated line is a
    /// copy, so it cannot be measured later from the skimmed text.
    fn take_file_line(&mut self, text: &str, number: usize, report: &mut IngestReport) {
        if let Some(migrated) = self.v1.as_mut().and_then(|chain| chain.migrate(text, number)) {
            let skimming = self.skim_base.take();
            self.take_line(&migrated, number, report);
            self.skim_base = skimming;
            return;
        }
        self.take_line(text, number, report);
    }

    /// Reads one line (or entry text) straight into the index, or reports it skipped. The one copy of
    /// this step for every ingest path (JSONL and entry texts).
    #[inline(never)]
    fn take_line(&mut self, text: &str, number: usize, report: &mut IngestReport) {
        let legacy_v2 = self.is_legacy_v2();
        if let Some(base) = self.skim_base {
            if let Some(repeated) = skim_line(text, legacy_v2, |facts| self.push(facts)) {
                let slot = self.records.len() as Slot - 1;
                self.records[slot as usize].flags |= flag::SKIMMED;
                let at = (text.as_ptr() as usize).wrapping_sub(base) as u32;
                self.skimmed.push(SkimmedLine { slot, at, len: text.len() as u32, profile: self.profile });
                self.taken(slot, repeated, number, report);
                return;
            }
        }
        let taken = read_line(text, legacy_v2, |line| match line {
            Line::Header(header) if self.header.is_none() => {
                self.header = Some(header);
                Taken::Header
            }
            Line::Header(_) => Taken::LaterHeader,
            Line::Entry(facts) => Taken::Entry { repeated: self.push(&facts) },
        });
        match taken {
            Err(problem) => report.skipped.push(Skipped { line: number, reason: problem.reason() }),
            Ok(Taken::Header) => {
                if self.header.as_ref().is_some_and(|h| h.format == Format::V1) {
                    self.v1 = Some(V1Chain::new());
                }
            }
            Ok(Taken::LaterHeader) => report.warn(number, &["a second session header was ignored"]),
            Ok(Taken::Entry { repeated }) => {
                if self.mode == Mode::Full {
                    self.raw.push(text.into());
                }
                self.taken(self.records.len() as Slot - 1, repeated, number, report);
            }
        }
    }

    /// Reports an entry taken into `slot`.
    fn taken(&mut self, slot: Slot, repeated: bool, number: usize, report: &mut IngestReport) {
        if repeated {
            // pi's id map keeps the later entry; so do we (see `push`).
            report.warn(number, &["duplicate entry id ", self.id_of(slot)]);
        }
        report.appended += 1;
    }

    /// [`Self::load_file`] taking the user, assistant and tool result messages of `text` skimmed (see
    /// [`super::skim`]); [`Self::measure`] reads one in full later, from the same `text`.
    pub(super) fn load_file_skimming(&mut self, text: &str) -> Result<IngestReport, SessionError> {
        self.skim_base = Some(text.as_ptr() as usize);
        let report = self.load_file(text);
        self.skim_base = None;
        report
    }

    /// Whether the entry at `slot` is only skimmed so far.
    pub(super) fn is_skimmed(&self, slot: Slot) -> bool {
        self.records.get(slot as usize).is_some_and(|r| r.has(flag::SKIMMED))
    }

    /// Reads a skimmed entry's line in full from `text` (the one [`Self::load_file_skimming`] read): its
    /// tokens, preview and tool calls join its record, as if it had been read in full at first.
    pub(super) fn measure(&mut self, slot: Slot, text: &str) {
        if !self.is_skimmed(slot) {
            return;
        }
        let Ok(at) = self.skimmed.binary_search_by_key(&slot, |l| l.slot) else { return };
        let lazy = self.skimmed[at];
        let source = text.get(lazy.at as usize..).and_then(|t| t.get(..lazy.len as usize)).unwrap_or_default();
        let legacy_v2 = self.is_legacy_v2();
        // The direct pass took this line, so the full reader (the same pass with more fields, or its
        // fallback) takes it too; were it ever not to, the entry counts 0 rather than NaN.
        let read = read_line(source, legacy_v2, |line| match line {
            Line::Entry(facts) => self.fill(slot, &facts, lazy.profile),
            Line::Header(_) => {}
        });
        let record = &mut self.records[slot as usize];
        if read.is_err() || record.tokens.is_nan() {
            record.tokens = 0.0;
        }
        record.flags &= !flag::SKIMMED;
    }

    /// What a full read adds to a skimmed entry's record: its tokens, preview and tool calls.
    fn fill(&mut self, slot: Slot, facts: &Facts<'_>, profile: Profile) {
        let tokens = profile.tokens(facts);
        let hint = facts.hint.as_ref().map_or(Span::NONE, |h| self.arena.push(h));
        let calls = (facts.kind == Kind::Message(RoleKind::Assistant)).then(|| self.push_calls(facts));
        let record = &mut self.records[slot as usize];
        record.tokens = tokens;
        record.hint = hint;
        if let Some(calls) = calls {
            record.extra = calls;
        }
    }

    /// An assistant's tool calls into `calls`: their run.
    fn push_calls(&mut self, facts: &Facts<'_>) -> Span {
        let calls_at = self.calls.len() as u32;
        for (id, name) in &facts.tool_calls {
            let call = Call { id: self.arena.push(id), name: self.arena.push(name) };
            self.calls.push(call);
        }
        Span::range(calls_at, self.calls.len() as u32 - calls_at)
    }

    /// The record of an entry's facts, its strings put into the arena (tool calls into `calls`, a label
    /// change into `labels`).
    fn record_of(&mut self, facts: &Facts<'_>) -> Record {
        let slot = self.records.len() as Slot;
        let mut record = Record::blank();
        record.kind = facts.kind;
        let profile = self.profile_for(facts);
        record.tokens = profile.tokens(facts);
        record.sort_ts = facts.timestamp_ms.unwrap_or(f64::INFINITY);
        if let Some(usage) = facts.usage {
            record.usage = usage;
            record.flags |= flag::HAS_USAGE;
        }
        record.id = self.arena.push(&facts.id);
        // The same as resolving once the id is in the table: only a self-parented entry finds itself (a
        // root, and a cycle for path walks) rather than an earlier holder of its id.
        record.parent = match facts.parent_id.as_deref() {
            None => NO_PARENT,
            Some(pid) if pid == facts.id => slot,
            Some(pid) => self.slot_of(pid).unwrap_or_else(|| {
                let span = self.arena.push(pid);
                // Slots only grow, so the list stays sorted for the lookups in `parent_of`.
                self.pending.push((slot, span));
                PENDING
            }),
        };
        if let Some(hint) = &facts.hint {
            record.hint = self.arena.push(hint);
        }
        match facts.kind {
            Kind::Message(RoleKind::Assistant) => {
                record.extra = self.push_calls(facts);
                if facts.zero_io {
                    record.flags |= flag::ZERO_IO;
                }
                record.flags |= stop_bits(StopReason::of(facts.stop_reason.as_deref()));
            }
            Kind::Message(RoleKind::Other) | Kind::Unknown => record.extra = self.arena.push(&facts.name),
            Kind::Message(RoleKind::System) => {
                if let Some(patch) = &facts.system_patch {
                    record.extra = self.arena.push(patch);
                }
            }
            Kind::BranchSummary if facts.emits => record.flags |= flag::EMITS,
            Kind::Compaction => {
                if let Some(first) = &facts.first_kept {
                    record.extra = self.intern_id(first);
                }
                if facts.emits && profile.reemits_system_at_compaction() {
                    record.usage = super::read::ceil_quarter(facts.system_chars);
                    record.flags |= flag::EMITS;
                    // A compaction has no preview: its hint span holds its system message's patch.
                    if let Some(patch) = &facts.system_patch {
                        record.hint = self.arena.push(patch);
                    }
                }
            }
            Kind::ContextEdit => {
                if let Some(target) = &facts.edit_target {
                    record.extra = self.intern_id(target);
                }
                if let Some([as_content, as_assistant]) = facts.replacement_tokens {
                    record.tokens = as_content;
                    record.usage = as_assistant;
                    record.flags |= flag::EMITS;
                }
            }
            Kind::Label => {
                let (target, label) = facts.label.as_ref().map_or(("", None), |(t, l)| (&**t, l.as_deref()));
                let target_span = self.intern_id(target);
                // A label entry has no preview: its hint span holds the label (which the label map shares).
                let label_span = label.map_or(Span::NONE, |l| self.arena.push(l));
                self.labels.set(target_span, label_span, &self.arena);
                if label.is_some() {
                    if let Some(labeled) = self.slot_of(target).and_then(|t| self.records.get_mut(t as usize)) {
                        labeled.flags |= flag::MAYBE_LABELED;
                    }
                }
                record.extra = target_span;
                record.hint = label_span;
            }
            _ => {}
        }
        record
    }

    /// Stores a read entry in the next slot; true when its id repeats an earlier entry's.
    fn push(&mut self, facts: &Facts<'_>) -> bool {
        let mut record = self.record_of(facts);
        let slot = self.records.len() as Slot;
        let (records, arena) = (&mut self.records, &self.arena);
        let id = arena.get(record.id).unwrap_or_default();
        // A label written before its target arrived (pi keeps those) applies once it does.
        if !self.labels.is_empty() && self.labels.get(id, arena).is_some() {
            record.flags |= flag::MAYBE_LABELED;
        }
        records.push(record);
        let records = &*records;
        let repeated = self.ids.insert(id, slot, &RecordIds(records, arena));
        if let Some(old) = repeated {
            self.records[old as usize].flags |= flag::SHADOWED;
            self.duplicate_ids = true;
        }
        if let Some(mut children) = self.children.take() {
            // A self-parented entry is a root in the tree, nobody's child.
            if let Some(pid) = self.parent_id_at(slot).filter(|pid| *pid != self.id_of(slot)) {
                add_child(&mut children, pid, slot, self.records[slot as usize].sort_ts);
            }
            self.children = Some(children);
        }
        self.leaf = Some(slot);
        repeated.is_some()
    }

    /// Where `id` is in the arena: the held entry's bytes when some entry has this id, else a new copy.
    fn intern_id(&mut self, id: &str) -> Span {
        match self.slot_of(id) {
            Some(s) => self.records[s as usize].id,
            None => self.arena.push(id),
        }
    }

    /// The string at `span` in the arena.
    pub(super) fn text(&self, span: Span) -> Option<&str> {
        self.arena.get(span)
    }

    /// Tool call `i` (of [`Self::calls`]).
    pub(super) fn call(&self, i: u32) -> Call {
        self.calls[i as usize]
    }

    /// The record at `slot`.
    pub(super) fn record(&self, slot: Slot) -> &Record {
        &self.records[slot as usize]
    }

    /// The parent id the entry at `slot` names.
    pub(super) fn parent_id_at(&self, slot: Slot) -> Option<&str> {
        match self.records[slot as usize].parent {
            NO_PARENT => None,
            PENDING => self.pending_parent(slot).and_then(|at| self.text(self.pending[at].1)),
            // A resolved parent holds exactly the id that was named.
            p => Some(self.id_of(p)),
        }
    }

    /// Where `slot`'s not yet resolved parent id is in `pending`.
    fn pending_parent(&self, slot: Slot) -> Option<usize> {
        self.pending.binary_search_by_key(&slot, |&(s, _)| s).ok()
    }

    /// The entry's JSON text (full mode), as fed.
    pub fn raw(&self, slot: Slot) -> Option<&str> {
        self.raw.get(slot as usize).map(AsRef::as_ref)
    }

    /// The slot holding entry `id` (the later one when an id repeats).
    pub fn slot_of(&self, id: &str) -> Option<Slot> {
        let (records, arena) = (&self.records, &self.arena);
        self.ids.find(id, &RecordIds(records, arena))
    }

    /// The id of the entry at `slot`.
    pub fn id_of(&self, slot: Slot) -> &str {
        id_in(&self.records, &self.arena, slot)
    }

    /// The parent slot, when the parent is known: the entry that holds the parent id now (a parent may
    /// arrive after its children, and a repeated id moves to the later entry, as in pi's id map).
    pub fn parent_of(&mut self, slot: Slot) -> Option<Slot> {
        // Checked access throughout (slots are in range): walks run here, and panic paths cost size.
        let parent = self.records.get(slot as usize)?.parent;
        let shadowed = |index: &Self, s: Slot| index.records.get(s as usize).is_some_and(|r| r.has(flag::SHADOWED));
        // The common case, on every step of every walk: a resolved parent whose id nobody took over.
        if parent < PENDING && !(self.duplicate_ids && shadowed(self, parent)) {
            return (parent != slot).then_some(parent);
        }
        let holder = match parent {
            NO_PARENT => return None,
            PENDING => {
                let at = self.pending_parent(slot)?;
                let p = self.slot_of(self.text(self.pending.get(at)?.1)?)?;
                // `retain` rather than `remove(at)`, whose index assertion formats a message; the list is
                // short (parents that had not arrived yet).
                self.pending.retain(|&(s, _)| s != slot);
                p
            }
            p if !shadowed(self, p) => p,
            // The id moved to a later entry: follow it there (same id, so the same parent id).
            p => self.slot_of(self.id_of(p))?,
        };
        if let Some(record) = self.records.get_mut(slot as usize) {
            record.parent = holder;
        }
        (holder != slot).then_some(holder)
    }

    /// Children of `slot`, oldest first (none for an entry whose id a later entry took over).
    pub fn children_of(&mut self, slot: Slot) -> &[Slot] {
        if self.records[slot as usize].has(flag::SHADOWED) {
            return &[];
        }
        if self.children.is_none() {
            self.children = Some(self.build_children());
        }
        let (records, arena) = (&self.records, &self.arena);
        let id = arena.get(records[slot as usize].id).unwrap_or_default();
        match self.children.as_mut().and_then(|c| c.get_mut(id)) {
            None => &[],
            Some(kids) => {
                if !kids.sorted {
                    let key = |s: &Slot| records[*s as usize].sort_ts;
                    kids.list.sort_by(|a, b| key(a).total_cmp(&key(b)));
                    kids.sorted = true;
                    // Later appends compare with the newest child, wherever it arrived.
                    kids.last_ts = kids.list.last().map_or(f64::NEG_INFINITY, key);
                }
                &kids.list
            }
        }
    }

    /// The children lists as appending every entry would have built them.
    fn build_children(&self) -> Children {
        let mut children = Children::new();
        for slot in 0..self.len() as Slot {
            if let Some(pid) = self.parent_id_at(slot).filter(|pid| *pid != self.id_of(slot)) {
                add_child(&mut children, pid, slot, self.records[slot as usize].sort_ts);
            }
        }
        children
    }

    /// Root entries in append order: no parent, an unknown parent, or themselves as parent.
    pub fn roots(&mut self) -> Vec<Slot> {
        (0..self.len() as Slot).filter(|&s| self.parent_of(s).is_none()).collect()
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
        self.duplicate_ids
    }

    /// The label currently on the entry at `slot` (the same as [`Self::label_of`] its id, without hashing
    /// entries that were never labelled).
    pub fn label_at(&self, slot: Slot) -> Option<&str> {
        if !self.records[slot as usize].has(flag::MAYBE_LABELED) {
            return None;
        }
        self.label_of(self.id_of(slot))
    }

    /// The label currently on entry `id`.
    pub fn label_of(&self, id: &str) -> Option<&str> {
        self.labels.get(id, &self.arena).and_then(|label| self.text(label))
    }

    /// Slots from the root to `leaf` (inclusive). Iterative, so any depth is fine; a parent cycle is an
    /// error rather than a hang.
    pub fn path(&mut self, leaf: Option<Slot>) -> Result<Vec<Slot>, SessionError> {
        let Some(mut cur) = leaf else { return Ok(Vec::new()) };
        let mut path = Vec::new();
        loop {
            path.push(cur);
            // A path never holds more entries than there are: a longer walk went round a loop.
            if path.len() > self.len() {
                return Err(self.cycle_in(&path));
            }
            let Some(p) = self.parent_of(cur) else {
                // A self-parented entry would make pi's walk loop forever.
                if self.records.get(cur as usize).is_some_and(|r| r.parent == cur) {
                    return Err(SessionError::Cycle(self.id_of(cur).into()));
                }
                break;
            };
            cur = p;
        }
        path.reverse();
        Ok(path)
    }

    /// The cycle error for a walk that went round a loop: names the first entry it reached twice.
    fn cycle_in(&self, walk: &[Slot]) -> SessionError {
        let mut seen = vec![false; self.len()];
        let repeat = walk.iter().find(|&&s| seen.get_mut(s as usize).is_some_and(|seen| std::mem::replace(seen, true)));
        SessionError::Cycle(repeat.map_or("", |&s| self.id_of(s)).into())
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
        Ok(path_b.into_iter().rev().find(|&s| on_a.get(s as usize) == Some(&true)))
    }

    fn path_mask(&mut self, leaf: Slot) -> Result<Vec<bool>, SessionError> {
        let mut mask = vec![false; self.len()];
        for s in self.path(Some(leaf))? {
            if let Some(on) = mask.get_mut(s as usize) {
                *on = true;
            }
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

    /// Whether the entry at `slot` holds a usage pi's estimate may anchor on.
    pub(super) fn has_usage(&self, slot: Slot) -> bool {
        self.records.get(slot as usize).is_some_and(|r| r.usage().is_some())
    }

    /// Reports why a line would be skipped, without feeding it (used by tests and tools).
    pub fn check_line(line: &str) -> Result<(), LineProblem> {
        read_line(line, false, |_| ())
    }
}

/// What a line turned out to be, once taken.
enum Taken {
    /// The session header (the first one).
    Header,
    /// A later header, ignored.
    LaterHeader,
    /// An entry, stored; `repeated` when its id repeats an earlier entry's.
    Entry { repeated: bool },
}

#[cfg(test)]
mod tests {
    use super::utf8_lossy;

    #[test]
    fn lossy_decoding_matches_the_standard_library() {
        let cases: [&[u8]; 10] = [
            b"plain",
            b"a\xffb",
            b"\xf0\x9f\x98",
            b"x\xf0\x9f\x98y\xe2\x82",
            b"\xed\xa0\x80\xed\xb0\x80",
            b"\xc0\x80\xc1\xbf",
            b"\xf4\x90\x80\x80z",
            b"\xe2\x28\xa1",
            b"\x80\x80\x80",
            "é😀\u{1}".as_bytes(),
        ];
        for bytes in cases {
            assert_eq!(utf8_lossy(bytes), String::from_utf8_lossy(bytes), "{bytes:?}");
        }
    }
}
