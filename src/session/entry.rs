//! One session entry, reduced to the facts decisions need.
//!
//! A pi session file is JSONL: a `session` header, then entries `{type, id, parentId, timestamp, …}`.
//! [`Entry`] keeps what the tree, the labels, the token estimates and the previews need — never a second
//! copy of the message. Whole entries are kept only by a full-mode index (see [`super::Mode`]).

use crate::prelude::*;
use serde_json::{Map, Value};
use super::read::hint_of;
use crate::js::{date_ms, is_truthy, stringify_len_masked, utf16_len};
use crate::text::{extract_text_content, strip_branch_summary_boilerplate};

/// How many UTF-16 units of preview text an entry keeps: enough for the longest hint (60) plus the
/// knowledge that the text went on.
pub(super) const HINT_KEEP: usize = 64;

/// The session header (first line of a session file).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Header {
    /// Session id (uuidv7 in current pi).
    pub id: Option<String>,
    /// Format version; pi 0.75 writes 3.
    pub version: Option<f64>,
    /// Working directory the session was created in.
    pub cwd: Option<String>,
    /// Creation time as written.
    pub timestamp: Option<String>,
}

/// The role of a `message` entry's message.
#[derive(Debug, Clone, PartialEq)]
pub enum Role {
    /// A user prompt.
    User,
    /// A model reply; see [`AssistantInfo`].
    Assistant(Box<AssistantInfo>),
    /// A tool's result.
    ToolResult,
    /// An extension message (`custom`, or the pre-v3 `hookMessage`).
    Custom,
    /// A `!command` run by the user.
    BashExecution,
    /// A branch summary stored as a message.
    BranchSummary,
    /// A compaction summary stored as a message.
    CompactionSummary,
    /// System prompt / tool declarations (pi ≥0.87).
    System,
    /// Any other role, kept by name.
    Other(Box<str>),
}

/// What the guards need to know about an assistant message.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AssistantInfo {
    /// `(id, name)` of each tool call, in order.
    pub tool_calls: Vec<(Box<str>, Box<str>)>,
    /// `stopReason` as written.
    pub stop_reason: Option<Box<str>>,
    /// True when `usage.input` and `usage.output` are both zero or missing (the synthetic shape).
    pub zero_io: bool,
}

/// The entry type, with the fields that steer tree and context building.
#[derive(Debug, Clone, PartialEq)]
pub enum EntryKind {
    /// A conversation message.
    Message(Role),
    /// An extension message that enters the context (`role: "custom"`).
    CustomMessage,
    /// A summary of an abandoned branch; enters the context when `summary` is non-empty.
    BranchSummary {
        /// Whether the summary is truthy (pi skips empty ones).
        emits: bool,
    },
    /// A compaction: summary first, then kept entries from `first_kept`.
    Compaction {
        /// `firstKeptEntryId`.
        first_kept: Option<Box<str>>,
    },
    /// A label change on `target`; `None` clears.
    Label {
        /// `targetId`.
        target: Box<str>,
        /// The new label, `None` when cleared.
        label: Option<Box<str>>,
    },
    /// `thinking_level_change`.
    ThinkingLevelChange,
    /// `model_change`.
    ModelChange,
    /// `custom` (extension state; never in the context).
    Custom,
    /// `session_info`.
    SessionInfo,
    /// `usage` (pi ≥1.x).
    Usage,
    /// `context_edit` (pi ≥1.x; ignored by 0.75 context building).
    ContextEdit,
    /// Any other type, kept so nothing is lost.
    Unknown(Box<str>),
}

/// One entry of the session tree, reduced to facts.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Entry id (8 hex chars in pi).
    pub id: Box<str>,
    /// Parent id; `None` for a root.
    pub parent_id: Option<Box<str>>,
    /// `new Date(timestamp).getTime()`; `None` when invalid.
    pub timestamp_ms: Option<f64>,
    /// Type and type-specific facts.
    pub kind: EntryKind,
    /// `estimateTokens` of the message this entry puts in the context (compaction: of its summary).
    pub tokens: f64,
    /// `calculateContextTokens(usage)` when this is an assistant whose usage pi's estimate would use.
    pub usage: Option<f64>,
    /// Whitespace-collapsed start of the entry's text, for previews.
    pub hint: Option<Box<str>>,
}

impl Entry {
    /// An entry with an empty id and no facts (what a reader starts from).
    pub(super) fn blank() -> Entry {
        Entry {
            id: "".into(),
            parent_id: None,
            timestamp_ms: None,
            kind: EntryKind::Custom,
            tokens: 0.0,
            usage: None,
            hint: None,
        }
    }

    /// Whether this entry contributes a message when it lies on the context path (compactions are
    /// handled separately: their summary goes first).
    pub fn emits_message(&self) -> bool {
        match &self.kind {
            EntryKind::Message(_) | EntryKind::CustomMessage => true,
            EntryKind::BranchSummary { emits } => *emits,
            _ => false,
        }
    }

    /// The assistant facts, when this is an assistant message.
    pub fn assistant(&self) -> Option<&AssistantInfo> {
        match &self.kind {
            EntryKind::Message(Role::Assistant(info)) => Some(info),
            _ => None,
        }
    }

    /// The `type` string as written in the file.
    pub fn type_name(&self) -> &str {
        match &self.kind {
            EntryKind::Message(_) => "message",
            EntryKind::CustomMessage => "custom_message",
            EntryKind::BranchSummary { .. } => "branch_summary",
            EntryKind::Compaction { .. } => "compaction",
            EntryKind::Label { .. } => "label",
            EntryKind::ThinkingLevelChange => "thinking_level_change",
            EntryKind::ModelChange => "model_change",
            EntryKind::Custom => "custom",
            EntryKind::SessionInfo => "session_info",
            EntryKind::Usage => "usage",
            EntryKind::ContextEdit => "context_edit",
            EntryKind::Unknown(t) => t,
        }
    }

    /// The message role, for `message` entries.
    pub fn role_name(&self) -> Option<&str> {
        match &self.kind {
            EntryKind::Message(role) => Some(match role {
                Role::User => "user",
                Role::Assistant(_) => "assistant",
                Role::ToolResult => "toolResult",
                Role::Custom => "custom",
                Role::BashExecution => "bashExecution",
                Role::BranchSummary => "branchSummary",
                Role::CompactionSummary => "compactionSummary",
                Role::System => "system",
                Role::Other(r) => r,
            }),
            _ => None,
        }
    }
}

/// What one parsed JSONL line turned out to be.
#[derive(Debug, PartialEq)]
pub enum Line {
    /// The session header.
    Header(Header),
    /// An entry.
    Entry(Entry),
}

/// Why a line was not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineProblem {
    /// Not valid JSON.
    Malformed(String),
    /// Valid JSON but not an object.
    NotAnObject,
    /// An object without a string `id`.
    NoId,
    /// Nested deeper than [`MAX_LINE_NESTING`] levels (or [`MAX_NESTING`] for the oracle).
    TooDeep(usize),
}

/// Deepest JSON nesting of tool arguments and of the `serde_json` oracle ([`parse_line_general`]), which
/// recurses per level.
pub const MAX_NESTING: usize = 1000;

/// Deepest JSON nesting of a session line the ingest reads. Its reader, measurer and drop never recurse,
/// so this only bounds work on hostile input; pi itself cannot write much past 4,000 levels (its own
/// `JSON.stringify` runs out of stack), so every line pi writes is read.
pub const MAX_LINE_NESTING: usize = 1 << 16;

impl LineProblem {
    /// The reason a skipped line is reported with (built with `push_str`, no formatting machinery).
    pub fn reason(&self) -> String {
        let mut out = String::new();
        match self {
            LineProblem::Malformed(e) => {
                out.push_str("malformed JSON (");
                out.push_str(e);
                out.push(')');
            }
            LineProblem::NotAnObject => out.push_str("not a JSON object"),
            LineProblem::NoId => out.push_str("entry has no string id"),
            LineProblem::TooDeep(depth) => {
                out.push_str("nested ");
                crate::json::push_uint(&mut out, *depth);
                out.push_str(" levels deep (more than ");
                crate::json::push_uint(&mut out, MAX_LINE_NESTING);
                out.push_str(" are not read)");
            }
        }
        out
    }
}

impl core::fmt::Display for LineProblem {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.reason())
    }
}

/// How a line is read: pi's v2→v3 migration, and which character (if any) stands for an unpaired
/// surrogate escape in this line.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOptions {
    /// Apply pi's v2→v3 migration (`hookMessage` → `custom`).
    pub legacy_v2: bool,
    /// The character that replaced unpaired surrogate escapes in this line.
    pub masked: Option<char>,
}
/// Parses any JSON text the way `JSON.parse` accepts it, unpaired surrogate escapes included. Rust strings
/// cannot hold those, so each becomes U+FFFD (or U+0001 when the text already holds a U+FFFD): one UTF-16
/// unit like the surrogate, and the returned character lets `JSON.stringify` lengths count it as six.
pub fn parse_json(text: &str) -> Result<(Value, Option<char>), LineProblem> {
    match serde_json::from_str(text) {
        Ok(v) => Ok((v, None)),
        Err(e) => recover(text).unwrap_or_else(|| Err(LineProblem::Malformed(e.to_string()))),
    }
}
/// What `JSON.parse` accepts but plain `serde_json` does not: unpaired surrogate escapes, numbers beyond
/// ±1.8e308 (JavaScript reads them as ±Infinity, which `JSON.stringify` writes as `null`, so they are
/// read as `null` here), and nesting deeper than 128 levels. `None` when none of these applies.
fn recover(text: &str) -> Option<Result<(Value, Option<char>), LineProblem>> {
    let mask = if text.contains('\u{fffd}') || text.to_ascii_lowercase().contains("\\ufffd") { '\u{1}' } else { '\u{fffd}' };
    let masked = mask_lone_surrogates(text, mask);
    let mut fixed = masked.as_deref().unwrap_or(text);
    let finite = nulls_for_infinite_numbers(fixed);
    if let Some(f) = &finite {
        fixed = f;
    }
    let depth = super::read::nesting_depth(fixed);
    // serde_json refuses a 128th level already (its recursion limit counts down from 128).
    if masked.is_none() && finite.is_none() && depth < 128 {
        return None;
    }
    if depth > MAX_NESTING {
        return Some(Err(LineProblem::TooDeep(depth)));
    }
    let mut de = serde_json::Deserializer::from_str(fixed);
    de.disable_recursion_limit();
    let value = serde::Deserialize::deserialize(&mut de).and_then(|v: Value| de.end().map(|()| v));
    Some(value.map(|v| (v, masked.is_some().then_some(mask))).map_err(|e| LineProblem::Malformed(e.to_string())))
}
/// Rewrites number literals (outside strings) that overflow a double into `null`; `None` if there are none.
fn nulls_for_infinite_numbers(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let (mut out, mut last, mut i, mut in_string, mut changed) = (String::new(), 0, 0, false, false);
    while i < b.len() {
        let c = b[i];
        if in_string {
            match c {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if c == b'"' {
            in_string = true;
            i += 1;
            continue;
        }
        if c == b'-' || c.is_ascii_digit() {
            let start = i;
            while i < b.len() && matches!(b[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
                i += 1;
            }
            let literal = &text[start..i];
            // Only a literal JSON allows (no leading zeros, …): anything else stays and is refused.
            if is_json_number(literal) && literal.parse::<f64>().is_ok_and(f64::is_infinite) {
                out.push_str(&text[last..start]);
                out.push_str("null");
                last = i;
                changed = true;
            }
            continue;
        }
        i += 1;
    }
    changed.then(|| {
        out.push_str(&text[last..]);
        out
    })
}
/// Whether `literal` has JSON's number grammar: `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`.
fn is_json_number(literal: &str) -> bool {
    let b = literal.strip_prefix('-').unwrap_or(literal).as_bytes();
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let int = digits(0);
    if int == 0 || (int > 1 && b[0] == b'0') {
        return false;
    }
    let mut i = int;
    if b.get(i) == Some(&b'.') {
        let frac = digits(i + 1);
        if frac == 0 {
            return false;
        }
        i += 1 + frac;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp = digits(i);
        if exp == 0 {
            return false;
        }
        i += exp;
    }
    i == b.len()
}

/// Parses one JSONL line into a header or an entry. `legacy_v2` applies pi's v2→v3 migration
/// (`hookMessage` → `custom`). This is the ingest path ([`super::read`]).
pub fn parse_line(line: &str, legacy_v2: bool) -> Result<Line, LineProblem> {
    super::read::parse_line(line, legacy_v2)
}
/// [`parse_line`] the other way: a `serde_json` tree plus the recoveries in [`parse_json`]. Exact for any
/// line `JSON.parse` accepts, and written independently of the core's own JSON reader, so the
/// differential tests hold the two against each other.
pub fn parse_line_general(line: &str, legacy_v2: bool) -> Result<Line, LineProblem> {
    let (value, masked) = parse_json(line)?;
    let Value::Object(obj) = value else {
        return Err(LineProblem::NotAnObject);
    };
    from_object(&obj, ReadOptions { legacy_v2, masked })
}
/// Rewrites `\uD800`–`\uDFFF` escapes that are not part of a valid pair into the escape of `mask`,
/// inside JSON strings only. `None` when there is none (so the original error stands).
fn mask_lone_surrogates(line: &str, mask: char) -> Option<String> {
    fn hex_at(b: &[u8], at: usize) -> Option<u16> {
        let digits = b.get(at..at + 4)?;
        u16::from_str_radix(core::str::from_utf8(digits).ok()?, 16).ok()
    }
    let b = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let (mut i, mut last, mut in_string, mut changed) = (0, 0, false, false);
    while i < b.len() {
        match b[i] {
            b'"' => in_string = !in_string,
            b'\\' if in_string => {
                if b.get(i + 1) == Some(&b'u') {
                    if let Some(unit) = hex_at(b, i + 2) {
                        let high = (0xD800..0xDC00).contains(&unit);
                        let paired = high
                            && b.get(i + 6) == Some(&b'\\')
                            && b.get(i + 7) == Some(&b'u')
                            && hex_at(b, i + 8).is_some_and(|lo| (0xDC00..0xE000).contains(&lo));
                        if paired {
                            i += 12;
                            continue;
                        }
                        if (0xD800..0xE000).contains(&unit) {
                            out.push_str(&line[last..i]);
                            out.push_str(if mask == '\u{1}' { "\\u0001" } else { "\\ufffd" });
                            i += 6;
                            last = i;
                            changed = true;
                            continue;
                        }
                    }
                }
                i += 2;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out.push_str(&line[last..]);
    changed.then_some(out)
}
/// Builds a header or an entry from a parsed JSON object.
pub fn from_object(obj: &Map<String, Value>, read: ReadOptions) -> Result<Line, LineProblem> {
    let ty = obj.get("type").and_then(Value::as_str).unwrap_or("");
    if ty == "session" {
        return Ok(Line::Header(Header {
            id: str_field(obj, "id").map(String::from),
            version: obj.get("version").and_then(Value::as_f64),
            cwd: str_field(obj, "cwd").map(String::from),
            timestamp: str_field(obj, "timestamp").map(String::from),
        }));
    }
    let id = str_field(obj, "id").ok_or(LineProblem::NoId)?;
    let parent_id = str_field(obj, "parentId").map(Box::from);
    let timestamp_ms = date_ms(obj.get("timestamp"));
    let mut entry = Entry {
        id: id.into(),
        parent_id,
        timestamp_ms,
        kind: EntryKind::Unknown(ty.into()),
        tokens: 0.0,
        usage: None,
        hint: None,
    };
    match ty {
        "message" => {
            let empty = Map::new();
            let msg = obj.get("message").and_then(Value::as_object).unwrap_or(&empty);
            fill_message(&mut entry, msg, read);
        }
        "custom_message" => {
            entry.kind = EntryKind::CustomMessage;
            entry.tokens = content_tokens(obj.get("content"), true);
            entry.hint = hint_of(&extract_text_content(obj.get("content")));
        }
        "branch_summary" => {
            let summary = obj.get("summary");
            entry.kind = EntryKind::BranchSummary { emits: is_truthy(summary) };
            entry.tokens = summary_tokens(summary);
            if let Some(s) = summary.and_then(Value::as_str) {
                entry.hint = hint_of(strip_branch_summary_boilerplate(s));
            }
        }
        "compaction" => {
            entry.kind = EntryKind::Compaction { first_kept: str_field(obj, "firstKeptEntryId").map(Box::from) };
            entry.tokens = summary_tokens(obj.get("summary"));
        }
        "label" => {
            entry.kind = EntryKind::Label {
                target: str_field(obj, "targetId").unwrap_or("").into(),
                // pi sets the label when it is truthy and clears it otherwise.
                label: str_field(obj, "label").filter(|l| !l.is_empty()).map(Box::from),
            };
        }
        "thinking_level_change" => entry.kind = EntryKind::ThinkingLevelChange,
        "model_change" => entry.kind = EntryKind::ModelChange,
        "custom" => entry.kind = EntryKind::Custom,
        "session_info" => entry.kind = EntryKind::SessionInfo,
        "usage" => entry.kind = EntryKind::Usage,
        "context_edit" => entry.kind = EntryKind::ContextEdit,
        _ => {}
    }
    Ok(Line::Entry(entry))
}
fn str_field<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    obj.get(key).and_then(Value::as_str)
}
fn fill_message(entry: &mut Entry, msg: &Map<String, Value>, read: ReadOptions) {
    let role_name = str_field(msg, "role").unwrap_or("");
    let content = msg.get("content");
    let role = match role_name {
        "user" => {
            entry.tokens = content_tokens(content, false);
            entry.hint = hint_of(&extract_text_content(content));
            Role::User
        }
        "assistant" => {
            let (tokens, info) = assistant_facts(msg, read.masked);
            entry.tokens = tokens;
            entry.usage = assistant_usage(msg);
            entry.hint = hint_of(&extract_text_content(content));
            Role::Assistant(Box::new(info))
        }
        "toolResult" => {
            entry.tokens = content_tokens(content, true);
            Role::ToolResult
        }
        "custom" => {
            entry.tokens = content_tokens(content, true);
            Role::Custom
        }
        "hookMessage" if read.legacy_v2 => {
            entry.tokens = content_tokens(content, true);
            Role::Custom
        }
        "bashExecution" => {
            let len = |k| str_field(msg, k).map_or(0, utf16_len);
            entry.tokens = ceil_quarter(len("command") + len("output"));
            Role::BashExecution
        }
        "branchSummary" => {
            entry.tokens = summary_tokens(msg.get("summary"));
            Role::BranchSummary
        }
        "compactionSummary" => {
            entry.tokens = summary_tokens(msg.get("summary"));
            Role::CompactionSummary
        }
        "system" => Role::System,
        other => Role::Other(other.into()),
    };
    entry.kind = EntryKind::Message(role);
}

pub(super) fn ceil_quarter(chars: usize) -> f64 {
    chars.div_ceil(4) as f64
}
fn summary_tokens(summary: Option<&Value>) -> f64 {
    ceil_quarter(summary.and_then(Value::as_str).map_or(0, utf16_len))
}
/// `estimateTokens` for user (`images_count == false`: images are free in 0.75) and for
/// custom/toolResult content (each image block counts 4800 chars).
fn content_tokens(content: Option<&Value>, images_count: bool) -> f64 {
    let chars = match content {
        Some(Value::String(s)) => utf16_len(s),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .map(|block| {
                let ty = block.get("type").and_then(Value::as_str);
                let text = block.get("text").and_then(Value::as_str).map_or(0, utf16_len);
                match ty {
                    Some("text") => text,
                    Some("image") if images_count => 4800,
                    _ => 0,
                }
            })
            .sum(),
        _ => 0,
    };
    ceil_quarter(chars)
}
fn assistant_facts(msg: &Map<String, Value>, masked: Option<char>) -> (f64, AssistantInfo) {
    let mut chars = 0;
    let mut info = AssistantInfo {
        stop_reason: str_field(msg, "stopReason").map(Box::from),
        ..AssistantInfo::default()
    };
    if let Some(Value::Array(blocks)) = msg.get("content") {
        for block in blocks {
            let field = |k| block.get(k).and_then(Value::as_str);
            match field("type") {
                Some("text") => chars += field("text").map_or(0, utf16_len),
                Some("thinking") => chars += field("thinking").map_or(0, utf16_len),
                Some("toolCall") => {
                    let name = field("name").unwrap_or("");
                    // `JSON.stringify(undefined)` is undefined; pi's safe variant prints "undefined".
                    let args = block.get("arguments").map_or(9, |a| stringify_len_masked(a, masked));
                    chars += utf16_len(name) + args;
                    info.tool_calls.push((field("id").unwrap_or("").into(), name.into()));
                }
                _ => {}
            }
        }
    }
    let usage = msg.get("usage");
    let io = |k: &str| usage.and_then(|u| u.get(k)).and_then(Value::as_f64).unwrap_or(0.0);
    info.zero_io = io("input") == 0.0 && io("output") == 0.0;
    (ceil_quarter(chars), info)
}
/// The usage pi's `estimateContextTokens` would anchor on: an assistant that has a truthy `usage` and
/// did not stop with `aborted` or `error`. Missing counters read as 0 (pi would produce NaN).
fn assistant_usage(msg: &Map<String, Value>) -> Option<f64> {
    let usage = msg.get("usage");
    let num = |k: &str| usage.and_then(|u| u.get(k)).and_then(Value::as_f64).unwrap_or(0.0);
    assistant_usage_from(
        str_field(msg, "stopReason"),
        is_truthy(usage),
        [num("totalTokens"), num("input"), num("output"), num("cacheRead"), num("cacheWrite")],
    )
}

/// `calculateContextTokens` for a usable usage: `totalTokens || input + output + cacheRead + cacheWrite`.
/// `counts` are `[totalTokens, input, output, cacheRead, cacheWrite]`.
pub(super) fn assistant_usage_from(stop_reason: Option<&str>, usage_truthy: bool, counts: [f64; 5]) -> Option<f64> {
    if matches!(stop_reason, Some("aborted" | "error")) || !usage_truthy {
        return None;
    }
    let [total, input, output, cache_read, cache_write] = counts;
    Some(if total != 0.0 && !total.is_nan() { total } else { input + output + cache_read + cache_write })
}


#[cfg(test)]
mod tests {
    use super::*;

    fn entry(line: &str) -> Entry {
        match parse_line(line, false).unwrap() {
            Line::Entry(e) => e,
            Line::Header(_) => panic!("header"),
        }
    }

    #[test]
    fn assistant_tokens_count_text_thinking_and_tool_calls() {
        let e = entry(
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"},{"type":"thinking","thinking":"hmm"},{"type":"toolCall","id":"c1","name":"add","arguments":{"a":1}}],"usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":0},"stopReason":"toolUse"}}"#,
        );
        // 5 + 3 + 3 + len('{"a":1}') = 18 → 5 tokens
        assert_eq!(e.tokens, 5.0);
        assert_eq!(e.usage, Some(15.0));
        let info = e.assistant().unwrap();
        assert_eq!(info.tool_calls, vec![("c1".into(), "add".into())]);
        assert!(!info.zero_io);
    }

    #[test]
    fn aborted_assistant_has_no_usage_anchor() {
        let e = entry(
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"x","message":{"role":"assistant","content":[],"usage":{"totalTokens":50},"stopReason":"aborted"}}"#,
        );
        assert_eq!(e.usage, None);
        assert_eq!(e.timestamp_ms, None);
    }

    #[test]
    fn images_count_only_outside_user_messages() {
        let user = entry(
            r#"{"type":"message","id":"u","parentId":null,"timestamp":"x","message":{"role":"user","content":[{"type":"text","text":"abcd"},{"type":"image","data":"x","mimeType":"image/png"}]}}"#,
        );
        assert_eq!(user.tokens, 1.0);
        let tool = entry(
            r#"{"type":"message","id":"t","parentId":null,"timestamp":"x","message":{"role":"toolResult","content":[{"type":"text","text":"abcd"},{"type":"image","data":"x","mimeType":"image/png"}]}}"#,
        );
        assert_eq!(tool.tokens, 1201.0);
    }

    #[test]
    fn hints_collapse_whitespace_and_stop_early() {
        assert_eq!(hint_of("  a \n\t b  ").as_deref(), Some("a b"));
        assert_eq!(hint_of(" \n "), None);
        let long = "x".repeat(500);
        assert_eq!(hint_of(&long).unwrap().len(), HINT_KEEP + 1);
    }

    #[test]
    fn lone_surrogate_escapes_parse_with_javascript_lengths() {
        // One lone surrogate in text (1 unit) and one in tool arguments (`"\ud83d"` = 8 chars stringified).
        let e = entry(
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"x","message":{"role":"assistant","content":[{"type":"text","text":"ab\ud83d"},{"type":"toolCall","id":"c","name":"t","arguments":"\ude00"}]}}"#,
        );
        assert_eq!(e.tokens, (f64::from(3 + 1 + 8) / 4.0).ceil());
        assert!(mask_lone_surrogates(r#"{"a":"\ud83d\ude00","b":"\\ud800"}"#, '\u{fffd}').is_none(), "pairs and escaped backslashes stay");
        // Strings leave the core well-formed: the surrogate shows as U+FFFD.
        let l = entry(r#"{"type":"label","id":"l","parentId":null,"timestamp":"x","targetId":"a","label":"half \ud83d"}"#);
        assert_eq!(l.kind, EntryKind::Label { target: "a".into(), label: Some("half \u{fffd}".into()) });
        // A line that already holds U+FFFD masks with U+0001 instead, so its own U+FFFD counts as one char.
        let e = entry(
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"x","message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"t","arguments":"\ufffd\ud800"}]}}"#,
        );
        assert_eq!(e.tokens, (f64::from(1 + 2 + 1 + 6) / 4.0).ceil());
    }

    #[test]
    fn lines_without_ids_or_objects_are_problems() {
        assert_eq!(parse_line("[1]", false).unwrap_err(), LineProblem::NotAnObject);
        assert_eq!(parse_line(r#"{"type":"message"}"#, false).unwrap_err(), LineProblem::NoId);
        assert!(matches!(parse_line("{", false).unwrap_err(), LineProblem::Malformed(_)));
    }
}
