//! The independent oracle of the session reader, shared by `tests/read_vs_oracle.rs` and the
//! `reader_vs_oracle` fuzz target: a `serde_json::Value` tree with `JSON.parse`'s recoveries done by
//! rewriting the text (unpaired surrogate escapes masked, numbers beyond the double range nulled;
//! `Value`'s map keeps the last duplicate), pi's rules applied to that tree, and a generator of random
//! lines in the shapes pi writes plus odd ones.

use std::borrow::Cow;

use crate::common::Rng;
use pi_tree_navigator::js::{date_ms, utf16_len};
use pi_tree_navigator::session::entry::{Facts, Header, Kind, Line, LineProblem, RoleKind, Spend, SpendKind, SystemPatch};
use pi_tree_navigator::session::Format;
use serde_json::{json, Map, Value};

/// `rng.maybe(value)` with the value computed first (it borrows the generator too).
macro_rules! maybe {
    ($rng:expr, $v:expr) => {{
        let v = $v;
        $rng.maybe(v)
    }};
}

/// The outcome with the wording of a malformed-JSON message left out: the two readers word their
/// syntax errors differently, and what matters is that both refuse the same lines.
pub(crate) fn same(r: Result<Line<'static>, LineProblem>) -> Result<Line<'static>, LineProblem> {
    r.map(|mut line| {
        // The reader keeps a system message's sections in no particular order (the replay does not
        // depend on it).
        if let Line::Entry(Facts { system_patch: Some(text), .. }) = &mut line {
            let mut patch = SystemPatch::decode(text).expect("an encoded patch");
            patch.sections.sort();
            *text = patch.encode();
        }
        line
    })
    .map_err(|p| match p {
        LineProblem::Malformed(_) => LineProblem::Malformed(String::new()),
        other => other,
    })
}

/// pi's `header.version ?? 1` compared with 2 and 3 as JavaScript compares (`Number(v)`; NaN: no
/// migration). Strings as far as Rust's parser agrees with `Number` (plus hex), which is all the tests use.
fn format_of(version: Option<&Value>) -> Format {
    let v = match version {
        None | Some(Value::Null) => 1.0,
        Some(Value::Bool(b)) => f64::from(u8::from(*b)),
        Some(Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
        Some(Value::String(s)) => {
            let t = s.trim();
            if t.is_empty() {
                0.0
            } else if let Some(hex) = t.strip_prefix("0x") {
                i64::from_str_radix(hex, 16).map_or(f64::NAN, |n| n as f64)
            } else if t.chars().any(|c| c.is_ascii_alphabetic() && c != 'e' && c != 'E') {
                f64::NAN
            } else {
                t.parse().unwrap_or(f64::NAN)
            }
        }
        Some(_) => f64::NAN,
    };
    match v {
        v if v.is_nan() || v >= 3.0 => Format::Current,
        v if v < 2.0 => Format::V1,
        _ => Format::V2,
    }
}

/// The oracle: what `JSON.parse` + pi's rules make of a line.
#[allow(clippy::too_many_lines, reason = "pi's rules per entry type, one match, as the reader has them")]
pub(crate) fn oracle(line: &str, legacy_v2: bool) -> Result<Line<'static>, LineProblem> {
    let (value, masked) = parse_json(line)?;
    let Value::Object(obj) = value else { return Err(LineProblem::NotAnObject) };
    let s = |o: &Map<String, Value>, k: &str| o.get(k).and_then(Value::as_str).map(|t| unmask(t, masked));
    let ty = s(&obj, "type").unwrap_or_default();
    if ty == "session" {
        return Ok(Line::Header(Header {
            id: s(&obj, "id"),
            version: obj.get("version").and_then(Value::as_f64),
            format: format_of(obj.get("version")),
            cwd: s(&obj, "cwd"),
            timestamp: s(&obj, "timestamp"),
            parent_session: s(&obj, "parentSession"),
        }));
    }
    let id = s(&obj, "id").ok_or(LineProblem::NoId)?;
    let mut f = Facts::new(id.into(), s(&obj, "parentId").map(Cow::Owned), date_ms(obj.get("timestamp")));
    let quarter = |chars: usize| (chars as f64 / 4.0).ceil();
    let units = |v: Option<&Value>| v.and_then(Value::as_str).map_or(0, utf16_len);
    match ty.as_str() {
        "message" => {
            let empty = Map::new();
            let msg = obj.get("message").and_then(Value::as_object).unwrap_or(&empty);
            let role = s(msg, "role").unwrap_or_default();
            let content = msg.get("content");
            let (text, images) = content_chars(content);
            let kind = match role.as_str() {
                "user" => RoleKind::User,
                "assistant" => RoleKind::Assistant,
                "toolResult" => RoleKind::ToolResult,
                "custom" => RoleKind::Custom,
                "hookMessage" if legacy_v2 => RoleKind::Custom,
                "bashExecution" => RoleKind::BashExecution,
                "branchSummary" => RoleKind::BranchSummary,
                "compactionSummary" => RoleKind::CompactionSummary,
                "system" => RoleKind::System,
                _ => RoleKind::Other,
            };
            f.kind = Kind::Message(kind);
            match kind {
                RoleKind::User => {
                    f.tokens = quarter(text);
                    f.images = images;
                    f.hint = hint(&text_of(content), masked);
                }
                RoleKind::Assistant => assistant(&mut f, msg, masked),
                RoleKind::ToolResult | RoleKind::Custom => {
                    f.tokens = quarter(text + 4800 * images);
                    f.images = images;
                    if kind == RoleKind::ToolResult && truthy(msg.get("usage")) {
                        f.spend = Some(spend(msg.get("usage"), SpendKind::ToolResult));
                    }
                }
                RoleKind::BashExecution => f.tokens = quarter(units(msg.get("command")) + units(msg.get("output"))),
                RoleKind::BranchSummary | RoleKind::CompactionSummary => f.tokens = quarter(units(msg.get("summary"))),
                RoleKind::System => {
                    f.system_chars = system_chars(msg, masked);
                    f.system_patch = Some(system_patch(msg, masked).encode());
                }
                RoleKind::Other => f.name = role.into(),
            }
        }
        "custom_message" => {
            let (text, images) = content_chars(obj.get("content"));
            f.kind = Kind::CustomMessage;
            f.tokens = quarter(text + 4800 * images);
            f.images = images;
            f.hint = hint(&text_of(obj.get("content")), masked);
        }
        "branch_summary" => {
            f.kind = Kind::BranchSummary;
            f.spend = summary_spend(&obj);
            f.emits = truthy(obj.get("summary"));
            f.tokens = quarter(units(obj.get("summary")));
            if let Some(summary) = obj.get("summary").and_then(Value::as_str) {
                f.hint = hint(&pi_tree_navigator::text::summary_preview(summary).unwrap_or_default(), masked);
            }
        }
        "compaction" => {
            f.kind = Kind::Compaction;
            f.spend = summary_spend(&obj);
            f.tokens_before = obj.get("tokensBefore").and_then(Value::as_f64);
            f.first_kept = s(&obj, "firstKeptEntryId").map(Cow::Owned);
            f.tokens = quarter(units(obj.get("summary")));
            f.emits = truthy(obj.get("systemMessage"));
            let empty = Map::new();
            let system = obj.get("systemMessage").and_then(Value::as_object).unwrap_or(&empty);
            f.system_chars = system_chars(system, masked);
            f.system_patch = f.emits.then(|| system_patch(system, masked).encode());
        }
        "context_edit" => {
            f.kind = Kind::ContextEdit;
            f.edit_target = s(&obj, "targetId").map(Cow::Owned);
            f.replacement_tokens = obj.get("replacement").and_then(Value::as_object).map(|r| {
                let content = r.get("content");
                let (text, images) = content_chars(content);
                let as_assistant = if let Some(Value::String(t)) = content {
                    utf16_len(t)
                } else {
                    assistant_content(&mut Facts::new("".into(), None, None), content, masked)
                };
                [quarter(text + 4800 * images), quarter(as_assistant)]
            });
            // The replacement's preview (shown in its target's place).
            f.hint = obj.get("replacement").and_then(Value::as_object).and_then(|r| hint(&text_of(r.get("content")), masked));
        }
        "label" => {
            f.kind = Kind::Label;
            let label = s(&obj, "label").filter(|l| !l.is_empty());
            f.label = Some((s(&obj, "targetId").unwrap_or_default().into(), label.map(Cow::Owned)));
        }
        other => {
            f.kind = Kind::of_type(other);
            if f.kind == Kind::Unknown {
                f.name = other.to_owned().into();
            }
            if f.kind == Kind::Usage {
                let cache_warm = obj.get("kind").and_then(Value::as_str) == Some("cache_warm");
                f.spend = Some(spend(obj.get("usage"), SpendKind::Usage { cache_warm }));
                f.source = Some((template(obj.get("provider"), masked).into(), template(obj.get("model"), masked).into()));
            }
        }
    }
    Ok(Line::Entry(f))
}

/// What a usage records (pi sums its fields; one that is no finite number ≥ 0 is NaN).
fn spend(usage: Option<&Value>, kind: SpendKind) -> Spend<'static> {
    let amount = |v: Option<&Value>| v.and_then(Value::as_f64).filter(|x| x.is_finite() && *x >= 0.0).unwrap_or(f64::NAN);
    let usage = usage.and_then(Value::as_object);
    let tokens = usage.map_or([f64::NAN; 4], |u| ["input", "output", "cacheRead", "cacheWrite"].map(|k| amount(u.get(k))));
    let cost = usage.and_then(|u| u.get("cost")).and_then(Value::as_object);
    let cost = cost.map_or([f64::NAN; 5], |c| ["input", "output", "cacheRead", "cacheWrite", "total"].map(|k| amount(c.get(k))));
    Spend { kind, response_model: None, tokens, cost }
}

/// `${value}`: what a JavaScript template literal writes for a field (an array as "").
fn template(v: Option<&Value>, masked: Option<char>) -> String {
    match v {
        None => "undefined".into(),
        Some(Value::Null) => "null".into(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => pi_tree_navigator::js::number_to_string(n.as_f64().unwrap_or(f64::NAN)),
        Some(Value::String(t)) => unmask(t, masked),
        Some(Value::Array(_)) => String::new(),
        Some(Value::Object(_)) => "[object Object]".into(),
    }
}

/// A summary entry's usage: its `usage` when truthy, else the one kept in `details.summaryUsage`.
fn summary_spend(obj: &Map<String, Value>) -> Option<Spend<'static>> {
    if truthy(obj.get("usage")) {
        return Some(spend(obj.get("usage"), SpendKind::Summary));
    }
    let kept = obj.get("details").and_then(|d| d.get("summaryUsage")).filter(|u| truthy(Some(u)))?;
    Some(spend(Some(kept), SpendKind::SummaryDetails))
}

fn assistant(f: &mut Facts<'static>, msg: &Map<String, Value>, masked: Option<char>) {
    let usage = msg.get("usage");
    let n = |k: &str| usage.and_then(|u| u.get(k)).and_then(Value::as_f64).unwrap_or(0.0);
    let counts = [n("totalTokens"), n("input"), n("output"), n("cacheRead"), n("cacheWrite")];
    f.stop_reason = msg.get("stopReason").and_then(Value::as_str).map(|t| Cow::Owned(unmask(t, masked)));
    f.zero_io = counts[1] == 0.0 && counts[2] == 0.0;
    // Whose count and prices the usage is: the two names as pi's `${provider}/${model}` writes them.
    f.source = Some((template(msg.get("provider"), masked).into(), template(msg.get("model"), masked).into()));
    let usable = truthy(usage) && !matches!(f.stop_reason.as_deref(), Some("aborted" | "error"));
    // calculateContextTokens must be > 0 (pi ≥0.87's rule, the tool's on every host: src/session/profile.rs).
    f.usage = usable.then(|| if counts[0] == 0.0 { counts[1] + counts[2] + counts[3] + counts[4] } else { counts[0] }).filter(|&u| u > 0.0);
    let mut spend = spend(usage, SpendKind::Assistant);
    spend.response_model = msg.get("responseModel").filter(|r| !r.is_null()).map(|r| template(Some(r), masked).into());
    f.spend = Some(spend);
    let chars = assistant_content(f, msg.get("content"), masked);
    f.tokens = (chars as f64 / 4.0).ceil();
    f.hint = hint(&text_of(msg.get("content")), masked);
}

/// A system message's characters: content (4800 per image), `sections`, `JSON.stringify(toolsAdded)`.
fn system_chars(msg: &Map<String, Value>, masked: Option<char>) -> usize {
    let (text, images) = content_chars(msg.get("content"));
    // `system.toolsAdded && …`: a falsy value counts nothing.
    let tools = msg.get("toolsAdded").filter(|t| truthy(Some(t))).map_or(0, |t| stringify_len(t, masked));
    // pi: `for (const section of Object.values(sections)) if (section) chars += section.length`
    // (strings: their length; arrays: element count; anything else: counted 0 here).
    let sections = msg.get("sections").and_then(Value::as_object).map_or(0, |o| {
        o.values().map(|v| match v {
            Value::String(t) => utf16_len(t),
            Value::Array(a) => a.len(),
            _ => 0,
        }).sum()
    });
    text + 4800 * images + sections + tools
}

/// What a system message changes in pi ≥0.87's replay (sections sorted by name: their order does not
/// matter to the replay).
fn system_patch(msg: &Map<String, Value>, masked: Option<char>) -> SystemPatch<'static> {
    let content = match msg.get("content") {
        Some(Value::String(t)) => utf16_len(t),
        Some(Value::Array(blocks)) => {
            let texts: Vec<usize> = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .map(|b| b.get("text").and_then(Value::as_str).map_or(0, utf16_len))
                .collect();
            texts.iter().sum::<usize>() + texts.len().max(1) - 1
        }
        _ => 0,
    };
    let name = |item: &Value| item.get("name").and_then(Value::as_str).map(|n| Cow::Owned(unmask(n, masked)));
    let items = |key: &str| msg.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
    SystemPatch {
        content,
        sections: msg.get("sections").and_then(Value::as_object).map_or_else(Vec::new, |o| {
            let mut v: Vec<(Cow<'static, str>, Option<usize>)> = o
                .iter()
                .map(|(k, v)| {
                    let len = match v {
                        Value::Null => None,
                        Value::String(t) => Some(utf16_len(t)),
                        Value::Array(a) => Some(a.len()),
                        _ => Some(0),
                    };
                    (Cow::Owned(unmask(k, masked)), len)
                })
                .collect();
            v.sort();
            v
        }),
        removed: items("toolsRemoved").iter().map(name).collect(),
        added: items("toolsAdded").iter().map(|t| (name(t), stringify_len(t, masked))).collect(),
        timestamp: !matches!(msg.get("timestamp"), None | Some(Value::Null)),
    }
}

/// An assistant content's characters; its tool calls go to `f`.
fn assistant_content(f: &mut Facts<'static>, content: Option<&Value>, masked: Option<char>) -> usize {
    let mut chars = 0;
    for block in content.and_then(Value::as_array).into_iter().flatten() {
        let field = |k: &str| block.get(k).and_then(Value::as_str);
        match field("type") {
            Some("text") => chars += field("text").map_or(0, utf16_len),
            Some("thinking") => chars += field("thinking").map_or(0, utf16_len),
            Some("toolCall") => {
                let name = field("name").unwrap_or("");
                chars += utf16_len(name) + block.get("arguments").map_or(9, |a| stringify_len(a, masked));
                let id = unmask(field("id").unwrap_or(""), masked);
                f.tool_calls.push((id.into(), unmask(name, masked).into()));
            }
            _ => {}
        }
    }
    chars
}

fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null | Value::Bool(false)) => false,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|x| x != 0.0),
        Some(Value::String(s)) => !s.is_empty(),
        Some(_) => true,
    }
}

/// Text length of a content and its image blocks.
fn content_chars(content: Option<&Value>) -> (usize, usize) {
    match content {
        Some(Value::String(s)) => (utf16_len(s), 0),
        Some(Value::Array(blocks)) => blocks.iter().fold((0, 0), |(chars, images), b| match b.get("type").and_then(Value::as_str) {
            Some("text") => (chars + b.get("text").and_then(Value::as_str).map_or(0, utf16_len), images),
            Some("image") => (chars, images + 1),
            _ => (chars, images),
        }),
        _ => (0, 0),
    }
}

fn text_of(content: Option<&Value>) -> String {
    pi_tree_navigator::text::extract_text_content(content)
}

/// The preview: whitespace collapsed, 64 UTF-16 units plus one character.
fn hint(text: &str, masked: Option<char>) -> Option<String> {
    let text = unmask(text, masked);
    let mut out = String::new();
    let mut units = 0;
    for word in text.split_whitespace() {
        for (i, c) in word.chars().enumerate() {
            if units > 64 {
                return Some(out);
            }
            if i == 0 && !out.is_empty() {
                out.push(' ');
                units += 1;
            }
            out.push(c);
            units += c.len_utf16();
        }
    }
    (!out.is_empty()).then_some(out)
}

/// `JSON.stringify(v).length`, a `masked` character counting as an escaped unpaired surrogate.
fn stringify_len(v: &Value, masked: Option<char>) -> usize {
    let quoted = |s: &str| {
        2 + s.chars().map(|c| match c {
            c if Some(c) == masked => 6,
            '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
            c if (c as u32) < 0x20 => 6,
            c => c.len_utf16(),
        }).sum::<usize>()
    };
    match v {
        Value::Null | Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        // `{:e}` digits laid out as ECMAScript does (ties aside, which the random numbers here avoid).
        Value::Number(n) => pi_tree_navigator::js::number_to_string(n.as_f64().unwrap_or(f64::NAN)).len(),
        Value::String(s) => quoted(s),
        Value::Array(items) => 2 + items.iter().map(|i| stringify_len(i, masked)).sum::<usize>() + items.len().saturating_sub(1),
        Value::Object(map) => 2 + map.iter().map(|(k, v)| quoted(k) + 1 + stringify_len(v, masked)).sum::<usize>() + map.len().saturating_sub(1),
    }
}

/// The mask character back as U+FFFD, as the reader shows unpaired surrogates.
fn unmask(s: &str, masked: Option<char>) -> String {
    match masked {
        Some(m) => s.replace(m, "\u{fffd}"),
        None => s.to_owned(),
    }
}

/// `JSON.parse` by rewriting: unpaired surrogate escapes become a mask character, numbers beyond the double
/// range become `null` (what `JSON.stringify` writes for ±Infinity), and `serde_json` reads the rest.
fn parse_json(text: &str) -> Result<(Value, Option<char>), LineProblem> {
    let mask = if text.contains('\u{fffd}') || text.to_ascii_lowercase().contains("\\ufffd") { '\u{1}' } else { '\u{fffd}' };
    let masked = mask_lone_surrogates(text, mask);
    let fixed = masked.clone().unwrap_or_else(|| text.to_owned());
    let fixed = nulls_for_infinite_numbers(&fixed).unwrap_or(fixed);
    let mut de = serde_json::Deserializer::from_str(&fixed);
    de.disable_recursion_limit();
    let value = serde::Deserialize::deserialize(&mut de).and_then(|v: Value| de.end().map(|()| v));
    value.map(|v| (v, masked.is_some().then_some(mask))).map_err(|e| LineProblem::Malformed(e.to_string()))
}

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
    changed.then(|| out + &text[last..])
}

fn mask_lone_surrogates(line: &str, mask: char) -> Option<String> {
    let hex_at = |b: &[u8], at: usize| b.get(at..at + 4).and_then(|d| u16::from_str_radix(std::str::from_utf8(d).ok()?, 16).ok());
    let b = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let (mut i, mut last, mut in_string, mut changed) = (0, 0, false, false);
    while i < b.len() {
        match b[i] {
            b'"' => in_string = !in_string,
            b'\\' if in_string => {
                if b.get(i + 1) == Some(&b'u') {
                    if let Some(unit) = hex_at(b, i + 2) {
                        let paired = (0xD800..0xDC00).contains(&unit)
                            && b.get(i + 6..i + 8) == Some(b"\\u")
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

/// Random JSON pieces for the differential test.
impl Rng {
    fn text(&mut self) -> String {
        let parts = ["a", " ", "\n", "\t", "é", "😀", "\"", "\\", "\u{1}", "<b>", "## Goal", "The user explored a different conversation branch", "  ", "x".repeat(300).leak()];
        (0..self.below(12)).map(|_| *self.pick(&parts)).collect()
    }
    fn scalar(&mut self) -> Value {
        match self.below(9) {
            0 => Value::Null,
            1 => json!(true),
            2 => json!(self.below(1000)),
            3 => json!(-i64::try_from(self.below(1000)).unwrap_or(0)),
            4 => json!(self.next() as f64 / 7.0),
            5 => json!(1e21),
            6 => json!(u64::MAX),
            _ => json!(self.text()),
        }
    }
    fn value(&mut self, depth: u32) -> Value {
        if depth == 0 || self.below(3) == 0 {
            return self.scalar();
        }
        if self.below(2) == 0 {
            Value::Array((0..self.below(4)).map(|_| self.value(depth - 1)).collect())
        } else {
            let mut m = serde_json::Map::new();
            for _ in 0..self.below(4) {
                m.insert(self.text(), self.value(depth - 1));
            }
            Value::Object(m)
        }
    }
    fn maybe(&mut self, v: Value) -> Value {
        // Mostly the expected shape, sometimes something else entirely.
        if self.below(8) == 0 {
            self.value(2)
        } else {
            v
        }
    }
    fn block(&mut self) -> Value {
        let ty = *self.pick(&["text", "thinking", "toolCall", "image", "other"]);
        let mut b = json!({"type": ty});
        match ty {
            "text" => b["text"] = maybe!(self, json!(self.text())),
            "thinking" => b["thinking"] = maybe!(self, json!(self.text())),
            "toolCall" => {
                b["id"] = json!(format!("call_{}", self.below(99)));
                b["name"] = maybe!(self, json!(self.text()));
                if self.below(5) != 0 {
                    b["arguments"] = self.value(3);
                }
            }
            "image" => {
                b["data"] = json!("iVBORw0KGgo".repeat(50));
                b["mimeType"] = json!("image/png");
            }
            _ => b["text"] = json!(self.text()),
        }
        b
    }
    fn content(&mut self) -> Value {
        match self.below(4) {
            0 => json!(self.text()),
            1 => self.value(1),
            _ => Value::Array((0..self.below(4)).map(|_| self.block()).collect()),
        }
    }
    pub(crate) fn line(&mut self) -> String {
        let ty = *self.pick(&["message", "message", "message", "custom_message", "branch_summary", "compaction", "label", "model_change", "custom", "usage", "weird"]);
        let mut e = json!({"type": ty, "id": format!("{:08x}", self.next() as u32), "parentId": maybe!(self, json!("0000abcd")),
            "timestamp": maybe!(self, json!("2026-01-02T03:04:05.678Z"))});
        match ty {
            "message" => {
                let role = *self.pick(&["user", "assistant", "assistant", "toolResult", "custom", "bashExecution", "branchSummary", "system", "hookMessage"]);
                let mut m = json!({"role": role, "content": self.content()});
                if role == "assistant" {
                    m["stopReason"] = json!(*self.pick(&["stop", "toolUse", "aborted", "error", "length"]));
                    m["usage"] = maybe!(self, json!({"input": self.below(900), "output": self.below(50), "cacheRead": 0, "cacheWrite": self.below(3), "totalTokens": self.below(2) * self.below(1000)}));
                    m["provider"] = maybe!(self, self.scalar());
                    m["responseModel"] = maybe!(self, self.scalar());
                }
                if matches!(role, "assistant" | "toolResult") && m["usage"].is_object() {
                    m["usage"]["cost"] = maybe!(self, json!({"input": self.scalar(), "output": 0.5, "cacheRead": self.below(3), "cacheWrite": 0, "total": self.scalar()}));
                }
                if role == "bashExecution" {
                    m["command"] = json!(self.text());
                    m["output"] = json!(self.text());
                }
                if role == "branchSummary" {
                    m["summary"] = maybe!(self, json!(self.text()));
                }
                e["message"] = maybe!(self, m);
            }
            "custom_message" => e["content"] = self.content(),
            "branch_summary" | "compaction" => {
                e["summary"] = maybe!(self, json!(self.text()));
                e["firstKeptEntryId"] = maybe!(self, json!("0000abcd"));
                e["tokensBefore"] = maybe!(self, self.scalar());
                e["usage"] = maybe!(self, json!({"input": self.scalar(), "output": self.below(9), "cost": {"total": self.scalar()}}));
                e["details"] = maybe!(self, json!({"summaryUsage": maybe!(self, json!({"input": self.below(9), "cacheRead": self.scalar()}))}));
            }
            "label" => {
                e["targetId"] = json!("0000abcd");
                e["label"] = maybe!(self, json!(self.text()));
            }
            "usage" => {
                e["kind"] = maybe!(self, json!(*self.pick(&["cache_warm", "other"])));
                e["provider"] = maybe!(self, json!(self.text()));
                e["usage"] = maybe!(self, json!({"input": self.below(900), "cacheRead": self.scalar(), "cost": maybe!(self, json!({"total": self.scalar()}))}));
            }
            _ => e["details"] = self.value(2),
        }
        let mut text = e.to_string();
        // Now and then an unpaired surrogate escape (JSON.parse takes it; `serde_json` alone does not).
        if self.below(10) == 0 {
            text = text.replacen('😀', "\\ud83d", 1);
        }
        // Now and then a number beyond the double range (JSON.parse: ±Infinity; serde_json alone refuses it).
        if self.below(15) == 0 {
            text = text.replacen("1e21", "-1e400", 1);
        }
        // Now and then a duplicate key, which only the general path reads like JSON.parse.
        if self.below(20) == 0 {
            return text.replacen('{', r#"{"type":"custom","#, 1);
        }
        text
    }
}


/// Whether `literal` has JSON's number grammar: `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`.
fn is_json_number(literal: &str) -> bool {
    let b = literal.strip_prefix('-').unwrap_or(literal).as_bytes();
    let digits = |from: usize| b.get(from..).map_or(0, |r| r.iter().take_while(|c| c.is_ascii_digit()).count());
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
