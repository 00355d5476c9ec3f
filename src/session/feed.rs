//! The feed: input text (a file, an appended tail, entry texts, an array of entries) → lines → entries
//! in the index, with pi's rules of where a line starts and ends, which lines count, what a file's first
//! line must be, and how line numbers continue across calls. It keeps only the state of reading (the
//! header, line count, a held line, a version-1 file's migration, where skimmed lines are); what a line
//! becomes goes to a [`Sink`] (the index).

use serde::Serialize;
use tsify_next::Tsify;

use super::entry::{Facts, Header, Line, LineProblem};
use super::migrate::{Format, V1Chain};
use super::profile::Profile;
use super::read::{read_line, skim_line};
use super::record::Slot;
use crate::error::SessionError;
use crate::js::{self, JSON_SPACE};

/// A line that was not taken, with its 1-based line number in the fed text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Tsify)]
pub struct Skipped {
    /// 1-based line number within the text given to `SessionIndex::append_jsonl` (for entries given
    /// one by one: the 1-based position in that batch).
    pub line: usize,
    /// Why it was skipped.
    pub reason: String,
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

/// Where the feed puts the entries it reads: the index.
pub(super) trait Sink {
    /// Entries held.
    fn len(&self) -> usize;
    /// The profile entries are read under now.
    fn profile(&self) -> Profile;
    /// Stores an entry in the next slot; true when its id repeats an earlier entry's.
    fn push(&mut self, facts: &Facts<'_>) -> bool;
    /// The text of the entry just stored, read in full (kept in full mode).
    fn keep_text(&mut self, text: &str);
    /// Whether someone reads each entry's tool calls and results as it is taken ([`Sink::observe`]): lines are
    /// then read with them kept ([`super::wire::keeping_calls`]).
    fn observes(&self) -> bool {
        false
    }
    /// The facts of the entry just stored, read in full, for whoever [`Sink::observes`].
    fn observe(&mut self, _facts: &Facts<'_>) {}
    /// Marks the entry at `slot` as only skimmed so far.
    fn mark_skimmed(&mut self, slot: Slot);
    /// The id of the entry at `slot`.
    fn id_of(&self, slot: Slot) -> &str;
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

/// Where a skimmed entry's line is (a byte range of the skimmed text) and the profile it was taken under.
#[derive(Debug, Clone, Copy)]
struct SkimmedLine {
    slot: Slot,
    at: u32,
    len: u32,
    profile: Profile,
}

/// The state of reading one session's input.
#[derive(Debug, Default)]
pub(super) struct Feed {
    header: Option<Header>,
    /// Lines seen by `append_jsonl`, so line numbers continue across appended chunks.
    lines_seen: usize,
    /// pi ≤0.75 reads a file as `content.trim().split("\n")`: its first and last line lose the whitespace
    /// at the file's ends, also where `JSON.parse` would refuse it (U+00A0, …). Set while the fed text is
    /// at a file's start (nothing fed before it, no non-blank line yet).
    file_start: bool,
    /// A line that parses only without the whitespace after it (with its number): skipped, unless it
    /// turns out to be the file's last non-blank line (see `file_start`).
    held: Option<(String, usize)>,
    /// While a text is fed skimming (see [`super::skim`]): where that text starts in memory, so a line's
    /// place in it is known.
    skim_base: Option<usize>,
    /// The skimmed entries' lines, by slot (ascending): where each is in the skimmed text and the profile
    /// its tokens are counted under once it is read in full.
    skimmed: Vec<SkimmedLine>,
    /// pi's v1 → v2 migration while the lines of a version-1 file are read (see [`super::migrate`]).
    v1: Option<V1Chain>,
    /// A whole file being loaded ([`Self::begin_file`] … [`Self::end_file_load`]), if any.
    load: Option<FileLoad>,
}

/// The state of loading one whole file, which may arrive in parts.
#[derive(Debug, Default)]
struct FileLoad {
    /// What the parts did so far.
    report: IngestReport,
    /// Whether a part was fed yet (the first one starts the file).
    started: bool,
    /// pi's file rule is still open: no line `JSON.parse` takes was read yet.
    awaiting_header: bool,
    /// The first line `JSON.parse` took is no session header (its number): pi loads the file as empty,
    /// and the lines after it are not read.
    refused: Option<usize>,
}

impl Feed {
    /// The session header, once a header line was fed.
    pub(super) fn header(&self) -> Option<&Header> {
        self.header.as_ref()
    }

    /// The feed of a file's part that starts at a line start after the first part: not at the file's start
    /// (a byte-order mark is content, nothing is trimmed), and past a version-3 header (a header line here
    /// is a later one, ignored). See [`super::chunk`].
    pub(super) fn continuing() -> Feed {
        Feed { lines_seen: 1, header: Some(Header { format: Format::Current, ..Header::default() }), ..Feed::default() }
    }

    /// What the input read so far leaves open that only the lines after it can settle: a line held at its
    /// end (taken only if it is the file's last non-blank line), or a file load still waiting for the
    /// first line `JSON.parse` takes (or refused by it). `None` when nothing is open.
    pub(super) fn open_question(&self) -> Option<&'static str> {
        if self.held.is_some() {
            return Some("a line held at the part's end (trailing whitespace pi trims only at the file's end)");
        }
        match &self.load {
            Some(load) if load.refused.is_some() => Some("the file's first entry is no session header"),
            Some(load) if load.awaiting_header => Some("the part ends before the file's session header"),
            _ => None,
        }
    }

    /// Whether the header read says version 1 or 2 (pi migrates such a file as it loads it).
    pub(super) fn older_format(&self) -> bool {
        self.header.as_ref().is_some_and(|h| h.format != Format::Current)
    }

    /// Feeds JSONL text: a whole file or a newly appended tail. Blank lines are ignored; a line that does
    /// not parse is skipped and reported with its line number (counted across calls); nothing is fatal.
    pub(super) fn append_jsonl(&mut self, sink: &mut dyn Sink, text: &str) -> IngestReport {
        let mut report = IngestReport::default();
        // The text is read as a file's: its end trimmed by pi ≤0.75's rule, and its start too when nothing
        // came before it.
        let text = self.begin_input(text);
        self.feed_jsonl(sink, text, &mut report);
        self.end_file(sink, &mut report);
        report
    }

    /// `text` as the next part of the input: at the input's own start (nothing fed before it) without a
    /// byte-order mark, which pi's `content.trim()` drops, and marked as a file's start (see
    /// `file_start`). Anywhere else a mark is a line's content, which `JSON.parse` refuses — also after
    /// blank lines at the start, where only pi ≤0.75's trim of the whole file reaches it.
    pub(super) fn begin_input<'t>(&mut self, text: &'t str) -> &'t str {
        if self.lines_seen > 0 {
            return text;
        }
        self.file_start = true;
        text.strip_prefix('\u{feff}').unwrap_or(text)
    }

    /// [`Self::append_jsonl`] for text that continues earlier input (a byte-order mark here is content),
    /// reporting into `report`: the one line loop of every JSONL ingest.
    pub(super) fn feed_jsonl(&mut self, sink: &mut dyn Sink, text: &str, report: &mut IngestReport) {
        let mut rest = Some(text);
        while let Some(chunk) = rest {
            // `find` (memchr, already in the module) rather than `split`'s pattern iterator.
            let (line, next) = match chunk.find('\n') {
                Some(at) => (chunk.get(..at).unwrap_or_default(), chunk.get(at + 1..)),
                None => (chunk, None),
            };
            rest = next;
            self.lines_seen += 1;
            self.feed_line(sink, line, report);
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
    fn feed_line(&mut self, sink: &mut dyn Sink, line: &str, report: &mut IngestReport) {
        let Some(mut json) = js::json_line(line) else { return };
        let pi074 = !sink.profile().opens_only_files_led_by_a_header();
        if std::mem::take(&mut self.file_start) && pi074 {
            json = line.trim_start_matches(js::is_trim_space).trim_end_matches(JSON_SPACE);
        }
        // A held line is not the last after all: read (and skipped) where it was.
        self.read_held(sink, false, report);
        if pi074 && json.len() != json.trim_end_matches(js::is_trim_space).len() {
            self.held = Some((json.to_string(), self.lines_seen));
            return;
        }
        self.take_file_line(sink, json, self.lines_seen, report);
    }

    /// The end of a file's text: a held line is its last non-blank one, read with the whitespace after
    /// it trimmed away as pi ≤0.75 trims the file.
    pub(super) fn end_file(&mut self, sink: &mut dyn Sink, report: &mut IngestReport) {
        self.read_held(sink, true, report);
        self.file_start = false;
    }

    /// Reads the held line, if any (`at_end`: as the file's last line). It is a copy, so it is read in
    /// full, never skimmed.
    fn read_held(&mut self, sink: &mut dyn Sink, at_end: bool, report: &mut IngestReport) {
        let Some((line, number)) = self.held.take() else { return };
        let line = if at_end { line.trim_end_matches(js::is_trim_space) } else { &line };
        let skimming = self.skim_base.take();
        self.take_file_line(sink, line, number, report);
        self.skim_base = skimming;
    }

    /// Loads a whole session file into an empty index with pi's file rule: when the first line that parses
    /// as JSON is not a `session` header with a string id, pi loads the file as empty — so does this, with a
    /// warning saying why. Otherwise the same as [`Self::append_jsonl`].
    pub(super) fn load_file(&mut self, sink: &mut dyn Sink, text: &str) -> Result<IngestReport, SessionError> {
        self.begin_file(sink)?;
        self.file_part(sink, text);
        Ok(self.end_file_load(sink))
    }

    /// Starts loading a whole file into an empty index, to be fed in parts ([`Self::file_part`]) as it
    /// arrives and ended by [`Self::end_file_load`]: the same as [`Self::load_file`] of all the parts at once.
    pub(super) fn begin_file(&mut self, sink: &dyn Sink) -> Result<(), SessionError> {
        if self.load.is_some() {
            return Err(SessionError::InvalidArgument("a file is being loaded already".into()));
        }
        if sink.len() > 0 || self.header.is_some() {
            return Err(SessionError::InvalidArgument("load_file needs an empty index".into()));
        }
        self.load = Some(FileLoad { awaiting_header: true, ..FileLoad::default() });
        Ok(())
    }

    /// The next part of a file [`Self::begin_file`] started: whole lines (it ends with a newline), except
    /// for the file's last part. Ignored when no file load is open.
    pub(super) fn file_part(&mut self, sink: &mut dyn Sink, text: &str) {
        let Some(load) = self.load.as_mut() else { return };
        let first = !std::mem::replace(&mut load.started, true);
        let mut report = std::mem::take(&mut load.report);
        // At the file's start pi's `content.trim()` drops a byte-order mark (and `begin_input` one more, as
        // pi ≤0.75's trim of the whole text does).
        let text = if first { self.begin_input(text.strip_prefix('\u{feff}').unwrap_or(text)) } else { text };
        self.feed_jsonl(sink, text, &mut report);
        if let Some(load) = self.load.as_mut() {
            load.report = report;
        }
    }

    /// Ends the file load [`Self::begin_file`] started: what it did. A file whose first line `JSON.parse`
    /// takes is no `session` header with a string id loads as empty (pi's rule), with a warning saying why,
    /// and leaves the feed as it was before the load.
    pub(super) fn end_file_load(&mut self, sink: &mut dyn Sink) -> IngestReport {
        if self.load.as_ref().is_some_and(|l| !l.started) {
            self.file_part(sink, "");
        }
        let Some(load) = self.load.as_mut() else { return IngestReport::default() };
        let mut report = std::mem::take(&mut load.report);
        // The held line is the file's last non-blank one; it may decide pi's rule too.
        self.end_file(sink, &mut report);
        let Some(line) = self.load.take().and_then(|l| l.refused) else { return report };
        *self = Feed::default();
        let mut report = IngestReport::default();
        report.warnings.push(format!(
            "line {line}: not a pi session header (type \"session\" with a string id); pi loads this file as empty"
        ));
        report
    }

    /// [`Self::load_file`] taking the user, assistant and tool result messages of `text` skimmed (see
    /// [`super::skim`]); [`Self::skimmed_line`] finds one's line in the same `text` later.
    pub(super) fn load_file_skimming(&mut self, sink: &mut dyn Sink, text: &str) -> Result<IngestReport, SessionError> {
        self.skim_base = Some(text.as_ptr() as usize);
        let report = self.load_file(sink, text);
        self.skim_base = None;
        report
    }

    /// The line of the skimmed entry at `slot` in `text` (the one [`Self::load_file_skimming`] read), and
    /// the profile it was taken under.
    pub(super) fn skimmed_line<'t>(&self, slot: Slot, text: &'t str) -> Option<(&'t str, Profile)> {
        let at = self.skimmed.binary_search_by_key(&slot, |l| l.slot).ok()?;
        let lazy = self.skimmed[at];
        let source = text.get(lazy.at as usize..).and_then(|t| t.get(..lazy.len as usize)).unwrap_or_default();
        Some((source, lazy.profile))
    }

    /// Feeds entries given one JSON text each (e.g. objects the host holds, stringified); an `Err` item
    /// is an entry the caller could not serialise, reported as skipped with its reason. Positions in the
    /// report are 1-based within this batch.
    pub(super) fn append_entry_texts<S: AsRef<str>>(
        &mut self,
        sink: &mut dyn Sink,
        texts: impl IntoIterator<Item = Result<S, String>>,
    ) -> IngestReport {
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
            self.take_line(sink, text.as_ref(), number, &mut report);
        }
        report
    }

    /// Feeds one batch of new entries given as a single JSON array text — what one
    /// `JSON.stringify(newEntries)` in the shim gives, so a tool call's sync costs one stringify and one copy
    /// into wasm instead of one per entry. Each item is read like a JSONL line (an item that is not an entry
    /// object is reported as skipped); positions in the report are 1-based within the array. A text that is
    /// not a JSON array takes nothing and is reported as one skip at position 0.
    pub(super) fn append_entry_array(&mut self, sink: &mut dyn Sink, json: &str) -> IngestReport {
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
                    self.take_line(sink, item.get(), i + 1, &mut report);
                }
            }
            Err(e) => report.skipped.push(Skipped { line: 0, reason: format!("not a JSON array of entries ({e})") }),
        }
        report
    }

    /// Whether the header says version 1 or 2: pi's v2 → v3 step (`hookMessage` → `custom`) applies.
    pub(super) fn is_legacy_v2(&self) -> bool {
        self.header.as_ref().is_some_and(|h| h.format < Format::Current)
    }

    /// [`Self::take_line`] for a line of JSONL input (`number`: its line in the file): in a version-1 file
    /// the line as pi's migration leaves it (see [`super::migrate`]), read in full — a migrated line is a
    /// copy, so it cannot be measured later from the skimmed text.
    fn take_file_line(&mut self, sink: &mut dyn Sink, text: &str, number: usize, report: &mut IngestReport) {
        if let Some(migrated) = self.v1.as_mut().and_then(|chain| chain.migrate(text, number)) {
            let skimming = self.skim_base.take();
            self.take_line(sink, &migrated, number, report);
            self.skim_base = skimming;
            return;
        }
        self.take_line(sink, text, number, report);
    }

    /// Reads one line (or entry text) straight into the index, or reports it skipped. The one copy of
    /// this step for every ingest path (JSONL and entry texts).
    #[inline(never)]
    fn take_line(&mut self, sink: &mut dyn Sink, text: &str, number: usize, report: &mut IngestReport) {
        let legacy_v2 = self.is_legacy_v2();
        if let Some(load) = self.load.as_mut().filter(|l| l.awaiting_header || l.refused.is_some()) {
            if load.refused.is_some() {
                return;
            }
            // pi's file rule: the first line `JSON.parse` takes must be a session header with a string id.
            match read_line(text, legacy_v2, |line| matches!(line, Line::Header(Header { id: Some(_), .. }))) {
                Err(LineProblem::Malformed(_)) => {}
                Ok(true) => load.awaiting_header = false,
                Ok(false) | Err(_) => {
                    load.refused = Some(number);
                    return;
                }
            }
        }
        if let Some(base) = self.skim_base {
            if let Some(repeated) = skim_line(text, legacy_v2, |facts| sink.push(facts)) {
                let slot = sink.len() as Slot - 1;
                sink.mark_skimmed(slot);
                let at = (text.as_ptr() as usize).wrapping_sub(base) as u32;
                self.skimmed.push(SkimmedLine { slot, at, len: text.len() as u32, profile: sink.profile() });
                taken(sink, slot, repeated, number, report);
                return;
            }
        }
        let taken_as = super::wire::keeping_calls(sink.observes(), || {
            read_line(text, legacy_v2, |line| match line {
                Line::Header(header) if self.header.is_none() => {
                    self.header = Some(header);
                    Taken::Header
                }
                Line::Header(_) => Taken::LaterHeader,
                Line::Entry(facts) => {
                    let repeated = sink.push(&facts);
                    sink.observe(&facts);
                    Taken::Entry { repeated }
                }
            })
        });
        match taken_as {
            Err(problem) => report.skipped.push(Skipped { line: number, reason: problem.reason() }),
            Ok(Taken::Header) => {
                if self.header.as_ref().is_some_and(|h| h.format == Format::V1) {
                    self.v1 = Some(V1Chain::new());
                }
            }
            Ok(Taken::LaterHeader) => report.warn(number, &["a second session header was ignored"]),
            Ok(Taken::Entry { repeated }) => {
                sink.keep_text(text);
                taken(sink, sink.len() as Slot - 1, repeated, number, report);
            }
        }
    }
}

/// Reports an entry taken into `slot`.
fn taken(sink: &dyn Sink, slot: Slot, repeated: bool, number: usize, report: &mut IngestReport) {
    if repeated {
        // pi's id map keeps the later entry; so does the index.
        report.warn(number, &["duplicate entry id ", sink.id_of(slot)]);
    }
    report.appended += 1;
}

/// `String::from_utf8_lossy`: valid input (the norm) is checked by `str::from_utf8`, whose word-at-a-time
/// ASCII path is several times faster in wasm than the lossy decoder's byte-by-byte one, and invalid input
/// is repaired with the same check (each maximal invalid subpart becomes one U+FFFD, as in
/// `from_utf8_lossy` and Node's decoder), so the module carries one UTF-8 validator, not two.
pub(super) fn utf8_lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink that keeps the ids it is given.
    #[derive(Default)]
    struct Ids {
        ids: Vec<String>,
        kept: usize,
        skimmed: Vec<Slot>,
    }

    impl Sink for Ids {
        fn len(&self) -> usize {
            self.ids.len()
        }
        fn profile(&self) -> Profile {
            Profile::Pi074
        }
        fn push(&mut self, facts: &Facts<'_>) -> bool {
            let repeated = self.ids.iter().any(|id| *id == facts.id);
            self.ids.push(facts.id.to_string());
            repeated
        }
        fn keep_text(&mut self, _: &str) {
            self.kept += 1;
        }
        fn mark_skimmed(&mut self, slot: Slot) {
            self.skimmed.push(slot);
        }
        fn id_of(&self, slot: Slot) -> &str {
            &self.ids[slot as usize]
        }
    }

    fn user(id: &str) -> String {
        format!(r#"{{"type":"message","id":"{id}","parentId":null,"timestamp":0,"message":{{"role":"user","content":"hi"}}}}"#)
    }

    #[test]
    fn line_numbers_continue_across_calls() {
        let (mut feed, mut sink) = (Feed::default(), Ids::default());
        let first = feed.append_jsonl(&mut sink, &format!("{}\n\nnot json\n", user("a")));
        assert_eq!(first.appended, 1);
        assert_eq!(first.skipped.iter().map(|s| s.line).collect::<Vec<_>>(), [3]);
        let second = feed.append_jsonl(&mut sink, &format!("{}\n{}\n[1]", user("b"), user("a")));
        assert_eq!((second.appended, second.skipped[0].line), (2, 6));
        assert_eq!(second.warnings, ["line 5: duplicate entry id a"]);
        assert_eq!((sink.ids.len(), sink.kept), (3, 3));
    }

    #[test]
    fn the_first_header_is_the_session_header_and_a_later_one_is_ignored() {
        let (mut feed, mut sink) = (Feed::default(), Ids::default());
        let header = r#"{"type":"session","id":"s1","version":3,"timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#;
        let report = feed.append_jsonl(&mut sink, &format!("{header}\n{}\n{header}\n", user("a")));
        assert_eq!(feed.header().and_then(|h| h.id.as_deref()), Some("s1"));
        assert_eq!((report.appended, report.warnings.len()), (1, 1));
        assert!(!feed.is_legacy_v2());
    }

    #[test]
    fn a_file_not_led_by_a_header_loads_as_empty() {
        let (mut feed, mut sink) = (Feed::default(), Ids::default());
        let report = feed.load_file(&mut sink, &user("a")).expect("an empty index");
        assert_eq!(report.appended, 0);
        assert!(report.warnings[0].starts_with("line 1: not a pi session header"), "{report:?}");
    }

    #[test]
    fn a_line_with_trailing_non_json_space_is_taken_only_as_the_files_last() {
        // pi ≤0.75 trims the whole file: U+00A0 after the last line goes, after any other line it stays.
        let (mut feed, mut sink) = (Feed::default(), Ids::default());
        let report = feed.append_jsonl(&mut sink, &format!("{}\u{a0}\n{}\u{a0}\n", user("a"), user("b")));
        assert_eq!((report.appended, report.skipped.len()), (1, 1));
        assert_eq!((sink.ids[0].as_str(), report.skipped[0].line), ("b", 1));
    }

    #[test]
    fn an_entry_array_is_read_item_by_item() {
        let (mut feed, mut sink) = (Feed::default(), Ids::default());
        let report = feed.append_entry_array(&mut sink, &format!("[{}, 7, {}]", user("a"), user("b")));
        assert_eq!((report.appended, report.skipped[0].line), (2, 2));
        let report = feed.append_entry_array(&mut sink, "{}");
        assert_eq!((report.appended, report.skipped[0].line), (0, 0));
    }

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
