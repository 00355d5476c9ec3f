//! Reading one JSONL line into a [`Sink`]: the ingest path of every index (and, through [`parse_line`],
//! the [`Entry`] the oracle tests compare).
//!
//! The line is read once with the core's own JSON reader ([`crate::json`]), which keeps strings undecoded:
//! token estimates only need UTF-16 lengths and `JSON.stringify` lengths, which it measures on the raw
//! text, and previews decode only the start of a string. Unpaired surrogate escapes, duplicate keys and
//! numbers beyond the double range behave as in `JSON.parse`, so there is no second, slower path.

use crate::prelude::*;
use alloc::borrow::Cow;

use super::entry::{
    assistant_usage_from, ceil_quarter, AssistantInfo, Entry, EntryKind, Header, Line, LineProblem, Role, HINT_KEEP,
    MAX_LINE_NESTING,
};
use super::record::{by_name, Kind, RoleKind, ROLES, TYPES};
use crate::js::{parse_iso_date, time_clip};
use crate::json::{self, Str, Value};
use crate::text::strip_branch_summary_boilerplate;

/// Where [`read_line`] puts what a line holds: the index's records (the ingest, see `index.rs`) or a
/// [`Line`] (the readable form [`parse_line`] gives the oracle tests). One reader for both, so what the
/// tests compare is what the index takes.
///
/// A sink hears of an entry only once the line is sure to be taken: [`Sink::entry`] comes first, then
/// [`Sink::kind`], then the facts of that kind in any order (an assistant's tool calls in order).
pub(super) trait Sink {
    /// The line is the session header.
    fn header(&mut self, header: Header);
    /// The line is an entry with this id, parent id and timestamp (`new Date(…).getTime()`, `None` = NaN).
    fn entry(&mut self, id: &str, parent_id: Option<&str>, timestamp_ms: Option<f64>);
    /// Its type (with the role, for a message); `name` is the type or role as written, kept for
    /// [`Kind::Unknown`] and [`RoleKind::Other`].
    fn kind(&mut self, kind: Kind, name: &str);
    /// `estimateTokens` of its message (0 unless called).
    fn tokens(&mut self, tokens: f64);
    /// The usage pi's estimate would anchor on (none unless called).
    fn usage(&mut self, usage: f64);
    /// Its preview text (none unless called).
    fn hint(&mut self, hint: &str);
    /// A branch summary whose summary is truthy (it enters the context).
    fn emits(&mut self);
    /// A compaction's `firstKeptEntryId`.
    fn first_kept(&mut self, id: &str);
    /// A label change: target id and the new label (`None` clears).
    fn label(&mut self, target: &str, label: Option<&str>);
    /// An assistant's `stopReason` and whether its input and output usage are both zero or missing.
    fn assistant(&mut self, stop_reason: Option<&str>, zero_io: bool);
    /// One of an assistant's tool calls, in order.
    fn tool_call(&mut self, id: &str, name: &str);
}

/// Reads one JSONL line into `sink`. `legacy_v2` applies pi's v2→v3 migration (`hookMessage` → `custom`).
pub(super) fn read_line(line: &str, legacy_v2: bool, sink: &mut impl Sink) -> Result<(), LineProblem> {
    let value = json::parse(line, MAX_LINE_NESTING).map_err(|e| match e.kind {
        json::ErrorKind::TooDeep => LineProblem::TooDeep(nesting_depth(line)),
        _ => LineProblem::Malformed(e.message()),
    })?;
    let read = if value.is_object() { read_object(&value, legacy_v2, sink) } else { Err(LineProblem::NotAnObject) };
    json::dispose(value);
    read
}

/// Parses one JSONL line into a header or an entry (the [`Sink`] that builds a [`Line`]).
pub(super) fn parse_line(line: &str, legacy_v2: bool) -> Result<Line, LineProblem> {
    let mut sink = LineSink { header: None, entry: Entry::blank() };
    read_line(line, legacy_v2, &mut sink)?;
    Ok(match sink.header {
        Some(header) => Line::Header(header),
        None => Line::Entry(sink.entry),
    })
}

/// The [`Sink`] of [`parse_line`].
struct LineSink {
    header: Option<Header>,
    entry: Entry,
}

impl LineSink {
    fn assistant_info(&mut self) -> Option<&mut AssistantInfo> {
        match &mut self.entry.kind {
            EntryKind::Message(Role::Assistant(info)) => Some(info),
            _ => None,
        }
    }
}

impl Sink for LineSink {
    fn header(&mut self, header: Header) {
        self.header = Some(header);
    }

    fn entry(&mut self, id: &str, parent_id: Option<&str>, timestamp_ms: Option<f64>) {
        self.entry.id = id.into();
        self.entry.parent_id = parent_id.map(Box::from);
        self.entry.timestamp_ms = timestamp_ms;
    }

    fn kind(&mut self, kind: Kind, name: &str) {
        self.entry.kind = match kind {
            Kind::Message(role) => EntryKind::Message(match role {
                RoleKind::User => Role::User,
                RoleKind::Assistant => Role::Assistant(Box::default()),
                RoleKind::ToolResult => Role::ToolResult,
                RoleKind::Custom => Role::Custom,
                RoleKind::BashExecution => Role::BashExecution,
                RoleKind::BranchSummary => Role::BranchSummary,
                RoleKind::CompactionSummary => Role::CompactionSummary,
                RoleKind::System => Role::System,
                RoleKind::Other => Role::Other(name.into()),
            }),
            Kind::CustomMessage => EntryKind::CustomMessage,
            Kind::BranchSummary => EntryKind::BranchSummary { emits: false },
            Kind::Compaction => EntryKind::Compaction { first_kept: None },
            Kind::Label => EntryKind::Label { target: "".into(), label: None },
            Kind::ThinkingLevelChange => EntryKind::ThinkingLevelChange,
            Kind::ModelChange => EntryKind::ModelChange,
            Kind::Custom => EntryKind::Custom,
            Kind::SessionInfo => EntryKind::SessionInfo,
            Kind::Usage => EntryKind::Usage,
            Kind::ContextEdit => EntryKind::ContextEdit,
            Kind::Unknown => EntryKind::Unknown(name.into()),
        };
    }

    fn tokens(&mut self, tokens: f64) {
        self.entry.tokens = tokens;
    }

    fn usage(&mut self, usage: f64) {
        self.entry.usage = Some(usage);
    }

    fn hint(&mut self, hint: &str) {
        self.entry.hint = Some(hint.into());
    }

    fn emits(&mut self) {
        self.entry.kind = EntryKind::BranchSummary { emits: true };
    }

    fn first_kept(&mut self, id: &str) {
        self.entry.kind = EntryKind::Compaction { first_kept: Some(id.into()) };
    }

    fn label(&mut self, target: &str, label: Option<&str>) {
        self.entry.kind = EntryKind::Label { target: target.into(), label: label.map(Box::from) };
    }

    fn assistant(&mut self, stop_reason: Option<&str>, zero_io: bool) {
        if let Some(info) = self.assistant_info() {
            info.stop_reason = stop_reason.map(Box::from);
            info.zero_io = zero_io;
        }
    }

    fn tool_call(&mut self, id: &str, name: &str) {
        if let Some(info) = self.assistant_info() {
            info.tool_calls.push((id.into(), name.into()));
        }
    }
}

/// Deepest `[`/`{` nesting outside strings (for the message about a line that nests too deep).
pub(super) fn nesting_depth(text: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0, false, false);
    for &b in text.as_bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// A field that is a string, decoded.
fn str_field<'v>(v: &'v Value<'_>, key: &str) -> Option<Cow<'v, str>> {
    v.get(key).and_then(Value::as_str)
}

/// A field that is a string, as an owned `String` (header fields).
fn string_field(v: &Value<'_>, key: &str) -> Option<String> {
    str_field(v, key).map(Cow::into_owned)
}

/// A field that is a string, undecoded (for measuring).
fn json_str<'v, 'a>(v: &'v Value<'a>, key: &str) -> Option<&'v Str<'a>> {
    v.get(key).and_then(Value::as_json_str)
}

/// `JSON.stringify`-free UTF-16 length of a string field (0 when absent or not a string).
fn units(v: &Value<'_>, key: &str) -> usize {
    json_str(v, key).map_or(0, Str::units)
}

/// A number field of `usage` (0 when `usage` or the field is missing or not a number).
fn count(usage: Option<&Value<'_>>, key: &str) -> f64 {
    usage.and_then(|u| u.get(key)).and_then(Value::as_f64).unwrap_or(0.0)
}

/// `new Date(value).getTime()`; `None` stands for `NaN` (an invalid date).
fn date_ms(value: Option<&Value<'_>>) -> Option<f64> {
    match value? {
        Value::Null => Some(0.0),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Value::Num(n) => time_clip(n.as_f64()),
        Value::Str(s) => parse_iso_date(&s.decoded()),
        Value::Arr(_) | Value::Obj(_) => None,
    }
}

/// Reads a header or an entry from a parsed JSON object.
fn read_object(obj: &Value<'_>, legacy_v2: bool, sink: &mut impl Sink) -> Result<(), LineProblem> {
    let ty = str_field(obj, "type").unwrap_or_default();
    if ty == "session" {
        let text = |key| string_field(obj, key);
        sink.header(Header {
            id: text("id"),
            version: obj.get("version").and_then(Value::as_f64),
            cwd: text("cwd"),
            timestamp: text("timestamp"),
        });
        return Ok(());
    }
    let id = str_field(obj, "id").ok_or(LineProblem::NoId)?;
    sink.entry(&id, str_field(obj, "parentId").as_deref(), date_ms(obj.get("timestamp")));
    if ty == "message" {
        let empty = Value::Obj(Vec::new());
        let msg = obj.get("message").filter(|m| m.is_object()).unwrap_or(&empty);
        read_message(msg, legacy_v2, sink);
        return Ok(());
    }
    let kind = by_name(&TYPES, &ty).unwrap_or(Kind::Unknown);
    sink.kind(kind, &ty);
    match kind {
        Kind::CustomMessage => {
            sink.tokens(content_tokens(obj.get("content"), true));
            content_hint(obj.get("content"), sink);
        }
        Kind::BranchSummary => {
            if obj.get("summary").is_some_and(Value::is_truthy) {
                sink.emits();
            }
            sink.tokens(ceil_quarter(units(obj, "summary")));
            if let Some(s) = json_str(obj, "summary") {
                let mut hint = Hint::default();
                hint.push(strip_branch_summary_boilerplate(&s.decoded()));
                hint.finish(sink);
            }
        }
        Kind::Compaction => {
            if let Some(first) = str_field(obj, "firstKeptEntryId") {
                sink.first_kept(&first);
            }
            sink.tokens(ceil_quarter(units(obj, "summary")));
        }
        Kind::Label => {
            let target = str_field(obj, "targetId").unwrap_or_default();
            // pi sets the label when it is truthy and clears it otherwise.
            let label = str_field(obj, "label").filter(|l| !l.is_empty());
            sink.label(&target, label.as_deref());
        }
        _ => {}
    }
    Ok(())
}

/// Reads the `message` of a `message` entry.
fn read_message(msg: &Value<'_>, legacy_v2: bool, sink: &mut impl Sink) {
    let content = msg.get("content");
    let name = str_field(msg, "role").unwrap_or_default();
    let role = match by_name(&ROLES, &name) {
        Some(Kind::Message(role)) => role,
        _ if legacy_v2 && name == "hookMessage" => RoleKind::Custom,
        _ => RoleKind::Other,
    };
    sink.kind(Kind::Message(role), &name);
    let tokens = match role {
        RoleKind::User => {
            content_hint(content, sink);
            content_tokens(content, false)
        }
        RoleKind::Assistant => {
            let tokens = assistant_facts(msg, sink);
            content_hint(content, sink);
            tokens
        }
        RoleKind::ToolResult | RoleKind::Custom => content_tokens(content, true),
        RoleKind::BashExecution => ceil_quarter(units(msg, "command") + units(msg, "output")),
        RoleKind::BranchSummary | RoleKind::CompactionSummary => ceil_quarter(units(msg, "summary")),
        RoleKind::System | RoleKind::Other => 0.0,
    };
    sink.tokens(tokens);
}

/// Whether a content block has `type: <ty>`.
fn is_type(block: &Value<'_>, ty: &str) -> bool {
    json_str(block, "type").is_some_and(|t| t.eq_str(ty))
}

/// `estimateTokens` for user (`images_count == false`: images are free in 0.75) and for
/// custom/toolResult content (each image block counts 4800 chars).
fn content_tokens(content: Option<&Value<'_>>, images_count: bool) -> f64 {
    let mut chars = 0;
    match content {
        Some(Value::Str(s)) => chars = s.units(),
        Some(Value::Arr(blocks)) => {
            for block in blocks {
                if is_type(block, "text") {
                    chars += units(block, "text");
                } else if images_count && is_type(block, "image") {
                    chars += 4800;
                }
            }
        }
        _ => {}
    }
    ceil_quarter(chars)
}

/// An assistant's tool calls, stop reason, usage and `zero_io` into `sink`; returns its tokens.
fn assistant_facts(msg: &Value<'_>, sink: &mut impl Sink) -> f64 {
    let stop_reason = str_field(msg, "stopReason");
    let usage = msg.get("usage");
    let counts = ["totalTokens", "input", "output", "cacheRead", "cacheWrite"].map(|k| count(usage, k));
    let [_, input, output, ..] = counts;
    sink.assistant(stop_reason.as_deref(), input == 0.0 && output == 0.0);
    // The usage pi's `estimateContextTokens` would anchor on. Missing counters read as 0 (pi: NaN).
    let anchor = assistant_usage_from(stop_reason.as_deref(), usage.is_some_and(Value::is_truthy), counts);
    if let Some(anchor) = anchor {
        sink.usage(anchor);
    }
    let mut chars = 0;
    // pi iterates an assistant's content as an array; anything else counts nothing.
    if let Some(Value::Arr(blocks)) = msg.get("content") {
        for block in blocks {
            if is_type(block, "text") {
                chars += units(block, "text");
            } else if is_type(block, "thinking") {
                chars += units(block, "thinking");
            } else if is_type(block, "toolCall") {
                // `JSON.stringify(undefined)` is undefined; pi's safe variant prints "undefined".
                let args = block.get("arguments").map_or(9, json::stringify_len);
                chars += units(block, "name") + args;
                let name = str_field(block, "name").unwrap_or_default();
                sink.tool_call(&str_field(block, "id").unwrap_or_default(), &name);
            }
        }
    }
    ceil_quarter(chars)
}

/// The preview of a content: the string, or its `text` blocks joined by spaces.
fn content_hint(content: Option<&Value<'_>>, sink: &mut impl Sink) {
    let mut hint = Hint::default();
    match content {
        Some(Value::Str(s)) => hint.push_str_value(s),
        Some(Value::Arr(blocks)) => {
            let texts = blocks.iter().filter(|b| is_type(b, "text")).filter_map(|b| json_str(b, "text"));
            for (i, text) in texts.enumerate() {
                if hint.full() {
                    break;
                }
                if i > 0 {
                    hint.push(" ");
                }
                hint.push_str_value(text);
            }
        }
        _ => {}
    }
    hint.finish(sink);
}

/// The preview of a plain text (see [`Hint`]).
pub(super) fn hint_of(text: &str) -> Option<Box<str>> {
    let mut hint = Hint::default();
    hint.push(text);
    (!hint.out.is_empty()).then(|| hint.out.into_boxed_str())
}

/// A preview being built: whitespace runs collapse to one space (none at the start or end), and it stops
/// after [`HINT_KEEP`] UTF-16 units plus one character, which tells that the text went on.
#[derive(Default)]
struct Hint {
    out: String,
    units: usize,
    pending_space: bool,
}

/// How much of a string is decoded for its preview, step by step: a preview needs ~65 units, so the first
/// step almost always does; more only when whitespace runs ate it (then the whole string).
const HINT_DECODE: [usize; 2] = [128, 4096];

impl Hint {
    fn full(&self) -> bool {
        self.units > HINT_KEEP
    }

    fn push(&mut self, text: &str) {
        for c in text.chars() {
            if self.full() {
                return;
            }
            if c.is_whitespace() {
                self.pending_space = !self.out.is_empty();
                continue;
            }
            if self.pending_space {
                self.out.push(' ');
                self.units += 1;
                self.pending_space = false;
            }
            self.out.push(c);
            self.units += c.len_utf16();
        }
    }

    /// Adds a JSON string, decoding only its start unless the preview needs more.
    fn push_str_value(&mut self, s: &Str<'_>) {
        let mut done = 0; // bytes of the decoded string already pushed
        for limit in HINT_DECODE {
            let start = s.prefix(limit);
            self.push(start.get(done..).unwrap_or(""));
            done = start.len();
            if self.full() || s.units() <= limit {
                return;
            }
        }
        let whole = s.decoded();
        self.push(whole.get(done..).unwrap_or(""));
    }

    /// Hands the preview to `sink` (none when empty).
    fn finish(self, sink: &mut impl Sink) {
        if !self.out.is_empty() {
            sink.hint(&self.out);
        }
    }
}
