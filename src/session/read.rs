//! Reading one JSONL line into an [`Entry`]: the ingest path of every index.
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
use crate::js::{parse_iso_date, time_clip};
use crate::json::{self, Str, Value};
use crate::text::strip_branch_summary_boilerplate;

/// Parses one JSONL line into a header or an entry. `legacy_v2` applies pi's v2→v3 migration
/// (`hookMessage` → `custom`).
pub(super) fn parse_line(line: &str, legacy_v2: bool) -> Result<Line, LineProblem> {
    let value = json::parse(line, MAX_LINE_NESTING).map_err(|e| match e.kind {
        json::ErrorKind::TooDeep => LineProblem::TooDeep(nesting_depth(line)),
        _ => LineProblem::Malformed(e.message()),
    })?;
    let line = if value.is_object() { from_object(&value, legacy_v2) } else { Err(LineProblem::NotAnObject) };
    json::dispose(value);
    line
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

/// A field that is a string, decoded into its own box. One out-of-line copy of the `Cow` → box step for
/// the many fields an entry keeps (inlined, each field carried its own).
#[inline(never)]
fn boxed_field(v: &Value<'_>, key: &str) -> Option<Box<str>> {
    str_field(v, key).map(Box::from)
}

/// A field that is a string, undecoded (for measuring).
fn json_str<'v, 'a>(v: &'v Value<'a>, key: &str) -> Option<&'v Str<'a>> {
    v.get(key).and_then(Value::as_json_str)
}

/// `JSON.stringify`-free UTF-16 length of a string field (0 when absent or not a string).
fn units(v: &Value<'_>, key: &str) -> usize {
    json_str(v, key).map_or(0, Str::units)
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

/// Builds a header or an entry from a parsed JSON object.
fn from_object(obj: &Value<'_>, legacy_v2: bool) -> Result<Line, LineProblem> {
    let ty = str_field(obj, "type").unwrap_or_default();
    if ty == "session" {
        return Ok(Line::Header(Header {
            id: boxed_field(obj, "id").map(String::from),
            version: obj.get("version").and_then(Value::as_f64),
            cwd: boxed_field(obj, "cwd").map(String::from),
            timestamp: boxed_field(obj, "timestamp").map(String::from),
        }));
    }
    let id = boxed_field(obj, "id").ok_or(LineProblem::NoId)?;
    let mut entry = Entry {
        id,
        parent_id: boxed_field(obj, "parentId"),
        timestamp_ms: date_ms(obj.get("timestamp")),
        // Set below; `Unknown` only for a type no arm names (no box made for the known ones).
        kind: EntryKind::Custom,
        tokens: 0.0,
        usage: None,
        hint: None,
    };
    match &*ty {
        "message" => {
            let empty = Value::Obj(Vec::new());
            let msg = obj.get("message").filter(|m| m.is_object()).unwrap_or(&empty);
            fill_message(&mut entry, msg, legacy_v2);
        }
        "custom_message" => {
            entry.kind = EntryKind::CustomMessage;
            entry.tokens = content_tokens(obj.get("content"), true);
            entry.hint = content_hint(obj.get("content"));
        }
        "branch_summary" => {
            let summary = obj.get("summary");
            entry.kind = EntryKind::BranchSummary { emits: summary.is_some_and(Value::is_truthy) };
            entry.tokens = ceil_quarter(units(obj, "summary"));
            if let Some(s) = json_str(obj, "summary") {
                entry.hint = hint_of_str(s, |text| strip_branch_summary_boilerplate(text));
            }
        }
        "compaction" => {
            entry.kind = EntryKind::Compaction { first_kept: boxed_field(obj, "firstKeptEntryId") };
            entry.tokens = ceil_quarter(units(obj, "summary"));
        }
        "label" => {
            entry.kind = EntryKind::Label {
                target: boxed_field(obj, "targetId").unwrap_or_default(),
                // pi sets the label when it is truthy and clears it otherwise.
                label: boxed_field(obj, "label").filter(|l| !l.is_empty()),
            };
        }
        "thinking_level_change" => entry.kind = EntryKind::ThinkingLevelChange,
        "model_change" => entry.kind = EntryKind::ModelChange,
        "custom" => entry.kind = EntryKind::Custom,
        "session_info" => entry.kind = EntryKind::SessionInfo,
        "usage" => entry.kind = EntryKind::Usage,
        "context_edit" => entry.kind = EntryKind::ContextEdit,
        _ => entry.kind = EntryKind::Unknown(ty.as_ref().into()),
    }
    Ok(Line::Entry(entry))
}

fn fill_message(entry: &mut Entry, msg: &Value<'_>, legacy_v2: bool) {
    let content = msg.get("content");
    let role = match &*str_field(msg, "role").unwrap_or_default() {
        "user" => {
            entry.tokens = content_tokens(content, false);
            entry.hint = content_hint(content);
            Role::User
        }
        "assistant" => {
            let (tokens, info) = assistant_facts(msg);
            entry.tokens = tokens;
            entry.usage = assistant_usage(msg);
            entry.hint = content_hint(content);
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
        "hookMessage" if legacy_v2 => {
            entry.tokens = content_tokens(content, true);
            Role::Custom
        }
        "bashExecution" => {
            entry.tokens = ceil_quarter(units(msg, "command") + units(msg, "output"));
            Role::BashExecution
        }
        "branchSummary" => {
            entry.tokens = ceil_quarter(units(msg, "summary"));
            Role::BranchSummary
        }
        "compactionSummary" => {
            entry.tokens = ceil_quarter(units(msg, "summary"));
            Role::CompactionSummary
        }
        "system" => Role::System,
        other => Role::Other(other.into()),
    };
    entry.kind = EntryKind::Message(role);
}

/// Whether a content block has `type: <ty>`.
fn is_type(block: &Value<'_>, ty: &str) -> bool {
    json_str(block, "type").is_some_and(|t| t.eq_str(ty))
}

/// `estimateTokens` for user (`images_count == false`: images are free in 0.75) and for
/// custom/toolResult content (each image block counts 4800 chars).
fn content_tokens(content: Option<&Value<'_>>, images_count: bool) -> f64 {
    let chars = match content {
        Some(Value::Str(s)) => s.units(),
        Some(Value::Arr(blocks)) => blocks
            .iter()
            .map(|block| {
                if is_type(block, "text") {
                    units(block, "text")
                } else if images_count && is_type(block, "image") {
                    4800
                } else {
                    0
                }
            })
            .sum(),
        _ => 0,
    };
    ceil_quarter(chars)
}

fn assistant_facts(msg: &Value<'_>) -> (f64, AssistantInfo) {
    let mut chars = 0;
    let mut info = AssistantInfo { stop_reason: boxed_field(msg, "stopReason"), ..AssistantInfo::default() };
    // pi iterates an assistant's content as an array; anything else counts nothing.
    if let Some(Value::Arr(blocks)) = msg.get("content") {
        for block in blocks {
            if is_type(block, "text") {
                chars += units(block, "text");
            } else if is_type(block, "thinking") {
                chars += units(block, "thinking");
            } else if is_type(block, "toolCall") {
                let name = boxed_field(block, "name").unwrap_or_default();
                // `JSON.stringify(undefined)` is undefined; pi's safe variant prints "undefined".
                let args = block.get("arguments").map_or(9, json::stringify_len);
                chars += units(block, "name") + args;
                info.tool_calls.push((boxed_field(block, "id").unwrap_or_default(), name));
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
fn assistant_usage(msg: &Value<'_>) -> Option<f64> {
    let usage = msg.get("usage");
    let num = |k: &str| usage.and_then(|u| u.get(k)).and_then(Value::as_f64).unwrap_or(0.0);
    assistant_usage_from(
        str_field(msg, "stopReason").as_deref(),
        usage.is_some_and(Value::is_truthy),
        [num("totalTokens"), num("input"), num("output"), num("cacheRead"), num("cacheWrite")],
    )
}

/// The preview of a content: the string, or its `text` blocks joined by spaces.
fn content_hint(content: Option<&Value<'_>>) -> Option<Box<str>> {
    let mut hint = Hint::default();
    match content? {
        Value::Str(s) => hint.push_str_value(s),
        Value::Arr(blocks) => {
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
    hint.finish()
}

/// The preview of one string after `cut` (which may drop a lead-in; it needs the whole text then).
fn hint_of_str(s: &Str<'_>, cut: impl Fn(&str) -> &str) -> Option<Box<str>> {
    hint_of(cut(&s.decoded()))
}

/// The preview of a plain text (see [`Hint`]).
pub(super) fn hint_of(text: &str) -> Option<Box<str>> {
    let mut hint = Hint::default();
    hint.push(text);
    hint.finish()
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

    fn finish(self) -> Option<Box<str>> {
        (!self.out.is_empty()).then(|| self.out.into_boxed_str())
    }
}
