//! A session file read in parts, each on its own — on other threads, in other instances of the module —
//! and taken back in file order: what reading the whole file at once gives, without the one thread that
//! holds the index doing the reading.
//!
//! A [`ChunkReader`] reads the whole lines of one part with the feed's own rules and writes the [`Facts`]
//! of each entry it takes into a compact facts stream (this file's encoding: fixed fields, varint lengths,
//! strings as UTF-8, no text of the messages). [`FactsStream`] reads such a stream back, entry by entry, for
//! the index to push exactly as it pushes an entry it read itself (`SessionIndex::append_facts`).
//!
//! Parts are cut at line starts. The first part is read as a file's start (byte-order mark, pi's file
//! rule: the first line `JSON.parse` takes must be a session header) and the last as its end (pi ≤0.75
//! trims the file's end); every other part continues a file whose header was seen. What a part cannot
//! decide on its own — a line held at its end (whether it is the file's last non-blank one), a first part
//! that ends before the file's header, a version-1/2 file (pi migrates those line by line) — makes it
//! [`Chunk::problem`]: the caller then reads the session another way.

use std::borrow::Cow;

use super::entry::{Facts, Kind, RoleKind, Spend, SpendKind};
use super::feed::{utf8_lossy, Feed, IngestReport, Sink};
use super::profile::Profile;
use super::record::Slot;

/// Every kind, by its code in a facts stream (the position).
const KINDS: [Kind; 20] = [
    Kind::Message(RoleKind::User),
    Kind::Message(RoleKind::Assistant),
    Kind::Message(RoleKind::ToolResult),
    Kind::Message(RoleKind::Custom),
    Kind::Message(RoleKind::BashExecution),
    Kind::Message(RoleKind::BranchSummary),
    Kind::Message(RoleKind::CompactionSummary),
    Kind::Message(RoleKind::System),
    Kind::Message(RoleKind::Other),
    Kind::CustomMessage,
    Kind::BranchSummary,
    Kind::Compaction,
    Kind::Label,
    Kind::ThinkingLevelChange,
    Kind::ModelChange,
    Kind::Custom,
    Kind::SessionInfo,
    Kind::Usage,
    Kind::ContextEdit,
    Kind::Unknown,
];

/// A kind's code in a facts stream. Exhaustive, so a new kind cannot be left out of [`KINDS`].
fn kind_code(kind: Kind) -> u8 {
    match kind {
        Kind::Message(role) => match role {
            RoleKind::User => 0,
            RoleKind::Assistant => 1,
            RoleKind::ToolResult => 2,
            RoleKind::Custom => 3,
            RoleKind::BashExecution => 4,
            RoleKind::BranchSummary => 5,
            RoleKind::CompactionSummary => 6,
            RoleKind::System => 7,
            RoleKind::Other => 8,
        },
        Kind::CustomMessage => 9,
        Kind::BranchSummary => 10,
        Kind::Compaction => 11,
        Kind::Label => 12,
        Kind::ThinkingLevelChange => 13,
        Kind::ModelChange => 14,
        Kind::Custom => 15,
        Kind::SessionInfo => 16,
        Kind::Usage => 17,
        Kind::ContextEdit => 18,
        Kind::Unknown => 19,
    }
}

/// Which of an entry's optional facts a stream record holds (one bit each).
mod has {
    pub(super) const PARENT: u16 = 1;
    pub(super) const TIMESTAMP: u16 = 1 << 1;
    pub(super) const USAGE: u16 = 1 << 2;
    pub(super) const HINT: u16 = 1 << 3;
    pub(super) const FIRST_KEPT: u16 = 1 << 4;
    pub(super) const LABEL: u16 = 1 << 5;
    pub(super) const LABEL_SET: u16 = 1 << 6;
    pub(super) const STOP_REASON: u16 = 1 << 7;
    pub(super) const SOURCE: u16 = 1 << 8;
    pub(super) const SYSTEM_PATCH: u16 = 1 << 9;
    pub(super) const EDIT_TARGET: u16 = 1 << 10;
    pub(super) const REPLACEMENT: u16 = 1 << 11;
    pub(super) const EMITS: u16 = 1 << 12;
    pub(super) const ZERO_IO: u16 = 1 << 13;
    pub(super) const SPEND: u16 = 1 << 14;
    pub(super) const TOKENS_BEFORE: u16 = 1 << 15;
}

/// Every kind of spend, by its code in a facts stream (the position).
const SPEND_KINDS: [SpendKind; 6] = [
    SpendKind::Assistant,
    SpendKind::ToolResult,
    SpendKind::Usage { cache_warm: false },
    SpendKind::Usage { cache_warm: true },
    SpendKind::Summary,
    SpendKind::SummaryDetails,
];

/// A spend's record in a stream: kind, response model (a flag byte, then the text), tokens, cost.
fn encode_spend(out: &mut Vec<u8>, s: &Spend<'_>) {
    out.push(SPEND_KINDS.iter().position(|&x| x == s.kind).unwrap_or_default() as u8);
    out.push(u8::from(s.response_model.is_some()));
    if let Some(r) = &s.response_model {
        put_str(out, r);
    }
    for x in s.tokens.iter().chain(&s.cost) {
        put_f64(out, *x);
    }
}

/// Appends one entry's facts to a stream.
fn encode(out: &mut Vec<u8>, f: &Facts<'_>) {
    let mut mask = 0;
    let bits = [
        (f.parent_id.is_some(), has::PARENT),
        (f.timestamp_ms.is_some(), has::TIMESTAMP),
        (f.usage.is_some(), has::USAGE),
        (f.hint.is_some(), has::HINT),
        (f.first_kept.is_some(), has::FIRST_KEPT),
        (f.label.is_some(), has::LABEL),
        (f.label.as_ref().is_some_and(|(_, l)| l.is_some()), has::LABEL_SET),
        (f.stop_reason.is_some(), has::STOP_REASON),
        (f.system_patch.is_some(), has::SYSTEM_PATCH),
        (f.edit_target.is_some(), has::EDIT_TARGET),
        (f.replacement_tokens.is_some(), has::REPLACEMENT),
        (f.emits, has::EMITS),
        (f.zero_io, has::ZERO_IO),
        (f.source.is_some(), has::SOURCE),
        (f.spend.is_some(), has::SPEND),
        (f.tokens_before.is_some(), has::TOKENS_BEFORE),
    ];
    for (set, bit) in bits {
        if set {
            mask |= bit;
        }
    }
    out.extend_from_slice(&mask.to_le_bytes());
    out.push(kind_code(f.kind));
    put_str(out, &f.id);
    put_str(out, &f.name);
    put_f64(out, f.tokens);
    put_len(out, f.images);
    put_len(out, f.system_chars);
    put_len(out, f.tool_calls.len());
    for (id, name) in &f.tool_calls {
        put_str(out, id);
        put_str(out, name);
    }
    if let Some(p) = &f.parent_id {
        put_str(out, p);
    }
    if let Some(t) = f.timestamp_ms {
        put_f64(out, t);
    }
    if let Some(u) = f.usage {
        put_f64(out, u);
    }
    if let Some(h) = &f.hint {
        put_str(out, h);
    }
    if let Some(k) = &f.first_kept {
        put_str(out, k);
    }
    if let Some((target, label)) = &f.label {
        put_str(out, target);
        if let Some(l) = label {
            put_str(out, l);
        }
    }
    if let Some(s) = &f.stop_reason {
        put_str(out, s);
    }
    if let Some(p) = &f.system_patch {
        put_str(out, p);
    }
    if let Some(t) = &f.edit_target {
        put_str(out, t);
    }
    for x in f.replacement_tokens.iter().flatten() {
        put_f64(out, *x);
    }
    if let Some((provider, model)) = &f.source {
        put_str(out, provider);
        put_str(out, model);
    }
    if let Some(spend) = &f.spend {
        encode_spend(out, spend);
    }
    if let Some(t) = f.tokens_before {
        put_f64(out, t);
    }
}

fn put_len(out: &mut Vec<u8>, mut n: usize) {
    // LEB128: seven bits at a time, the high bit set while more follow.
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_len(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

fn put_f64(out: &mut Vec<u8>, x: f64) {
    out.extend_from_slice(&x.to_le_bytes());
}

/// A facts stream read back entry by entry; every string borrowed from the stream. A stream that was not
/// written by [`ChunkReader`] (cut short, or not one at all) ends with an error, never a panic.
#[derive(Debug)]
pub struct FactsStream<'a> {
    rest: &'a [u8],
}

/// Why a facts stream could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadStream;

impl<'a> FactsStream<'a> {
    /// The stream in `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        FactsStream { rest: bytes }
    }

    /// The next entry's facts, `None` at the stream's end.
    pub fn next_facts(&mut self) -> Option<Result<Facts<'a>, BadStream>> {
        if self.rest.is_empty() {
            return None;
        }
        Some(self.facts())
    }

    fn facts(&mut self) -> Result<Facts<'a>, BadStream> {
        let mask = u16::from_le_bytes([self.byte()?, self.byte()?]);
        let kind = *KINDS.get(usize::from(self.byte()?)).ok_or(BadStream)?;
        let id = self.text()?;
        let name = self.text()?;
        let mut f = Facts::new(id, None, None);
        f.kind = kind;
        f.name = name;
        f.tokens = self.f64()?;
        f.images = self.len()?;
        f.system_chars = self.len()?;
        let calls = self.len()?;
        // Each call takes at least two bytes: a count beyond the stream is a broken stream, not an allocation.
        if calls > self.rest.len() / 2 {
            return Err(BadStream);
        }
        f.tool_calls.reserve(calls);
        for _ in 0..calls {
            f.tool_calls.push((self.text()?, self.text()?));
        }
        let on = |bit: u16| mask & bit != 0;
        if on(has::PARENT) {
            f.parent_id = Some(self.text()?);
        }
        if on(has::TIMESTAMP) {
            f.timestamp_ms = Some(self.f64()?);
        }
        if on(has::USAGE) {
            f.usage = Some(self.f64()?);
        }
        if on(has::HINT) {
            f.hint = Some(self.text()?.into_owned());
        }
        if on(has::FIRST_KEPT) {
            f.first_kept = Some(self.text()?);
        }
        if on(has::LABEL) {
            let target = self.text()?;
            let label = if on(has::LABEL_SET) { Some(self.text()?) } else { None };
            f.label = Some((target, label));
        }
        if on(has::STOP_REASON) {
            f.stop_reason = Some(self.text()?);
        }
        if on(has::SYSTEM_PATCH) {
            f.system_patch = Some(self.text()?.into_owned());
        }
        if on(has::EDIT_TARGET) {
            f.edit_target = Some(self.text()?);
        }
        if on(has::REPLACEMENT) {
            f.replacement_tokens = Some([self.f64()?, self.f64()?]);
        }
        if on(has::SOURCE) {
            f.source = Some((self.text()?, self.text()?));
        }
        f.emits = on(has::EMITS);
        f.zero_io = on(has::ZERO_IO);
        if on(has::SPEND) {
            f.spend = Some(self.spend()?);
        }
        if on(has::TOKENS_BEFORE) {
            f.tokens_before = Some(self.f64()?);
        }
        Ok(f)
    }

    fn spend(&mut self) -> Result<Spend<'a>, BadStream> {
        let kind = *SPEND_KINDS.get(usize::from(self.byte()?)).ok_or(BadStream)?;
        let response_model = if self.byte()? != 0 { Some(self.text()?) } else { None };
        let mut tokens = [0.0; 4];
        for x in &mut tokens {
            *x = self.f64()?;
        }
        let mut cost = [0.0; 5];
        for x in &mut cost {
            *x = self.f64()?;
        }
        Ok(Spend { kind, response_model, tokens, cost })
    }

    fn byte(&mut self) -> Result<u8, BadStream> {
        let (&b, rest) = self.rest.split_first().ok_or(BadStream)?;
        self.rest = rest;
        Ok(b)
    }

    fn len(&mut self) -> Result<usize, BadStream> {
        let mut n: usize = 0;
        for shift in (0..usize::BITS).step_by(7) {
            let b = self.byte()?;
            n |= usize::from(b & 0x7f).checked_shl(shift).ok_or(BadStream)?;
            if b & 0x80 == 0 {
                return Ok(n);
            }
        }
        Err(BadStream)
    }

    fn f64(&mut self) -> Result<f64, BadStream> {
        let (bytes, rest) = self.rest.split_first_chunk::<8>().ok_or(BadStream)?;
        self.rest = rest;
        Ok(f64::from_le_bytes(*bytes))
    }

    fn text(&mut self) -> Result<Cow<'a, str>, BadStream> {
        let len = self.len()?;
        let bytes = self.rest.get(..len).ok_or(BadStream)?;
        self.rest = self.rest.get(len..).unwrap_or_default();
        std::str::from_utf8(bytes).map(Cow::Borrowed).map_err(|_| BadStream)
    }
}

/// Where a [`ChunkReader`]'s feed puts what it reads: the facts stream.
#[derive(Debug)]
struct FactsWriter {
    out: Vec<u8>,
    entries: usize,
    profile: Profile,
}

impl Sink for FactsWriter {
    fn len(&self) -> usize {
        self.entries
    }

    fn profile(&self) -> Profile {
        self.profile
    }

    /// Never a repeat here: the index that takes the stream finds repeated ids itself.
    fn push(&mut self, facts: &Facts<'_>) -> bool {
        encode(&mut self.out, facts);
        self.entries += 1;
        false
    }

    fn keep_text(&mut self, _: &str) {}

    fn mark_skimmed(&mut self, _: Slot) {}

    fn id_of(&self, _: Slot) -> &'static str {
        ""
    }
}

/// One part of a session file read into a facts stream: give it the part's whole lines
/// ([`ChunkReader::push`], in as many pieces as wanted, each ending with a newline but the file's last),
/// then [`ChunkReader::finish`].
#[derive(Debug)]
pub struct ChunkReader {
    feed: Feed,
    writer: FactsWriter,
    first: bool,
    report: IngestReport,
}

/// What one part of a file gave.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    /// The facts stream of the entries it holds, in file order.
    pub facts: Vec<u8>,
    /// How many entries the stream holds.
    pub entries: usize,
    /// Why the part cannot stand for its lines of the file (see the module's doc), or `None`.
    pub problem: Option<String>,
}

impl ChunkReader {
    /// A reader for the file's first part (`first`) or a later one, whose lines are read under `profile`
    /// (the host's: pi ≤0.75's trims of a file's ends depend on it).
    pub fn new(first: bool, profile: Profile) -> Self {
        let writer = FactsWriter { out: Vec::new(), entries: 0, profile };
        let mut feed = if first { Feed::default() } else { Feed::continuing() };
        if first {
            // An empty sink and a fresh feed: beginning a file load cannot fail.
            let _ = feed.begin_file(&writer);
        }
        ChunkReader { feed, writer, first, report: IngestReport::default() }
    }

    /// The next whole lines of the part (cut at a newline; the file's last piece may end without one).
    pub fn push(&mut self, bytes: &[u8]) {
        let text = utf8_lossy(bytes);
        if self.first {
            self.feed.file_part(&mut self.writer, &text);
        } else {
            self.feed.feed_jsonl(&mut self.writer, &text, &mut self.report);
        }
    }

    /// The part's facts stream. `last`: the part ends the file (its last line is the file's).
    pub fn finish(mut self, last: bool) -> Chunk {
        let problem = match (self.first, last) {
            (true, true) => {
                let report = self.feed.end_file_load(&mut self.writer);
                // A file pi loads as empty (no session header first) leaves the feed as it was.
                self.feed.header().is_none().then(|| report.warnings.first().cloned().unwrap_or_else(|| "no session header".into()))
            }
            (false, true) => {
                self.feed.end_file(&mut self.writer, &mut self.report);
                None
            }
            (_, false) => self.feed.open_question().map(str::to_string),
        };
        let problem = problem.or_else(|| self.feed.older_format().then(|| "a version-1 or version-2 file (pi migrates it line by line)".into()));
        Chunk { facts: self.writer.out, entries: self.writer.entries, problem }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{parse_line, Line};

    fn facts_of(line: &str) -> Facts<'static> {
        match parse_line(line, false) {
            Ok(Line::Entry(f)) => f,
            other => panic!("not an entry: {other:?}"),
        }
    }

    #[test]
    fn every_kind_has_its_code() {
        for (code, kind) in KINDS.iter().enumerate() {
            assert_eq!(usize::from(kind_code(*kind)), code, "{kind:?}");
        }
    }

    #[test]
    fn facts_come_back_as_written() {
        let lines = [
            r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hello there, a long enough text for a preview of it"}}"#,
            r#"{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"x"}}],"usage":{"input":10,"output":2,"cacheRead":3,"cacheWrite":0,"totalTokens":15},"stopReason":"toolUse"}}"#,
            r#"{"type":"label","id":"a3","parentId":"a2","timestamp":"x","targetId":"a1","label":"anchor:start"}"#,
            r#"{"type":"label","id":"a4","parentId":"a3","timestamp":0,"targetId":"a1"}"#,
            r#"{"type":"compaction","id":"a5","parentId":"a4","timestamp":1,"summary":"s","firstKeptEntryId":"a2","tokensBefore":5}"#,
            r#"{"type":"wobble","id":"a6","parentId":"a5","timestamp":1}"#,
            r#"{"type":"message","id":"a7","parentId":"a6","timestamp":1,"message":{"role":"system","content":"sys","sections":{"x":"yy"},"toolsAdded":[{"name":"t"}]}}"#,
            r#"{"type":"context_edit","id":"a8","parentId":"a7","timestamp":1,"targetId":"a2","replacement":{"content":"short"}}"#,
            r#"{"type":"message","id":"é\u00e9","parentId":"a8","timestamp":1,"message":{"role":"robot","content":[]}}"#,
            r#"{"type":"message","id":"b1","parentId":"a8","timestamp":1,"message":{"role":"assistant","content":[],"provider":"p","model":"m","responseModel":"m2","usage":{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"cost":{"input":0.1,"output":0.2,"cacheRead":0.3,"cacheWrite":0.4,"total":1}}}}"#,
            r#"{"type":"message","id":"b2","parentId":"b1","timestamp":1,"message":{"role":"toolResult","content":"x","usage":{"input":5,"output":6,"cacheRead":0,"cacheWrite":0,"cost":{"total":"x"}}}}"#,
            r#"{"type":"usage","id":"b3","parentId":"b2","timestamp":1,"kind":"cache_warm","provider":"p","model":"m","usage":{"input":7}}"#,
            r#"{"type":"branch_summary","id":"b4","parentId":"b3","timestamp":1,"summary":"s","details":{"summaryUsage":{"input":8,"output":1,"cacheRead":0,"cacheWrite":0}}}"#,
        ];
        let mut out = Vec::new();
        let all: Vec<Facts<'static>> = lines.iter().map(|l| facts_of(l)).collect();
        for f in &all {
            encode(&mut out, f);
        }
        let mut stream = FactsStream::new(&out);
        for f in &all {
            assert_eq!(stream.next_facts(), Some(Ok(f.clone())));
        }
        assert_eq!(stream.next_facts(), None);
        // Cut anywhere, the stream ends with an error (or, cut between records, early), never a panic.
        for cut in 0..out.len() {
            let mut s = FactsStream::new(&out[..cut]);
            while let Some(Ok(_)) = s.next_facts() {}
        }
    }
}
