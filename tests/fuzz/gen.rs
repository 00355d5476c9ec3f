//! Shared by the proptest suites (`tests/prop_*.rs`) and the cargo-fuzz targets (`fuzz/`): turns any byte
//! string into a hostile pi session (JSONL text) and runs every check the core must pass on it.
//!
//! The decoder reads bytes as choices, so a fuzzer's mutations become structural changes (another entry
//! type, a duplicate id, a parent cycle, a field of the wrong type) instead of random syntax errors. Once
//! the bytes run out every choice reads 0, so any input decodes to a finite session.
//!
//! What a session can hold: every entry type pi writes plus unknown ones; ids from a small pool (so
//! duplicates, self-parents, cycles and dangling parents are common) plus empty, long and non-ASCII ids;
//! wrong JSON types in every field; labels on unknown ids; unicode edge cases (lone surrogate escapes,
//! U+FFFD, U+2028, NUL, astral characters); headers of every version, second headers; raw garbage,
//! truncated lines, CRLF, BOM, blank lines.
#![allow(dead_code, unreachable_pub, reason = "each includer uses a subset; `pub` for the fuzz crate")]

use std::fmt::Write as _;

use pi_tree_navigator::session::{parse_line, Format, Leaf, Line, LineProblem, Mode, SessionIndex, Slot};
use pi_tree_navigator::tool;
use serde_json::{json, Value};

/// Reads choices from a byte string; 0 once exhausted.
pub struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
    serial: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data, pos: 0, serial: 0 }
    }
    pub fn done(&self) -> bool {
        self.pos >= self.data.len()
    }
    pub fn u8(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }
    pub fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let v = if n > 256 { usize::from(self.u8()) << 8 | usize::from(self.u8()) } else { usize::from(self.u8()) };
        v % n
    }
    pub fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
    /// The raw bytes left, up to `max`.
    pub fn take(&mut self, max: usize) -> &'a [u8] {
        let end = (self.pos + max).min(self.data.len());
        let out = &self.data[self.pos.min(end)..end];
        self.pos = end;
        out
    }
}

const IDS: [&str; 24] = [
    "e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8", "e9", "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9",
    "g0", "g1", "g2", "g3",
];
const ODD_IDS: [&str; 6] = ["", "root", "é\u{301}", "😀", "a\u{2028}b", "0000000000000000000000000000000000000000000000000000000000000000"];
/// Strings for text fields: empty, whitespace, escapes JSON must carry, unicode edge cases. The
/// `\\u` sequences are written raw into the JSON text (lone surrogates cannot live in a Rust string).
const TEXTS: [&str; 14] = [
    "",
    "   ",
    "hello world",
    "line\\nbreak\\ttab\\r",
    "quote \\\" backslash \\\\",
    "lone \\ud800 high",
    "lone \\udfff low",
    "pair \\ud83d\\ude00 ok",
    "replacement \u{fffd} and \\ud800",
    "nul \\u0000 and \\u001f",
    "separators \u{2028}\u{2029}",
    "astral 𝄞😀 combining e\u{301}",
    "bidi \u{202e}txet\u{202c} zero\u{200b}width",
    "The user explored a different conversation branch before returning here.\\nSummary of that exploration:\\n\\n## Goal\\nx",
];
const ROLES: [&str; 12] = [
    "user",
    "assistant",
    "toolResult",
    "custom",
    "hookMessage",
    "bashExecution",
    "branchSummary",
    "compactionSummary",
    "system",
    "",
    "weird",
    "ASSISTANT",
];
const TYPES: [&str; 14] = [
    "message",
    "message",
    "message",
    "label",
    "branch_summary",
    "compaction",
    "custom_message",
    "thinking_level_change",
    "model_change",
    "custom",
    "session_info",
    "usage",
    "context_edit",
    "mystery",
];
const TIMESTAMPS: [&str; 10] = [
    "\"2026-01-01T00:00:00.000Z\"",
    "\"2026-01-01T00:00:01.000Z\"",
    "\"2025-12-31T23:59:59.999Z\"",
    "\"2026-02-30\"",
    "\"not a date\"",
    "\"+275760-09-13T00:00:00.000Z\"",
    "1767225600000",
    "-1",
    "null",
    "1e400",
];
const STOPS: [&str; 6] = ["\"toolUse\"", "\"stop\"", "\"aborted\"", "\"error\"", "\"length\"", "7"];
const NUMBERS: [&str; 9] = ["0", "1", "100", "-5", "1.5", "1e308", "123456789012345678901234567890", "-0", "\"12\""];

/// A JSON string literal from the pool (already escaped for JSON).
fn text(b: &mut Bytes<'_>) -> String {
    let mut s = String::from("\"");
    for _ in 0..=b.below(3) {
        s.push_str(b.pick(&TEXTS));
    }
    if b.below(16) == 0 {
        // a long run, to push previews and hint cuts around
        s.push_str(&"ab ".repeat(b.below(400)));
    }
    s.push('"');
    s
}

fn id(b: &mut Bytes<'_>) -> String {
    if b.below(6) != 0 {
        b.serial += 1;
        return format!("\"n{}\"", b.serial);
    }
    if b.below(12) == 0 {
        return serde_json::to_string(b.pick(&ODD_IDS)).unwrap_or_default();
    }
    format!("\"{}\"", b.pick(&IDS))
}

/// Any JSON value, shallow, for fields that get the wrong type.
fn wrong(b: &mut Bytes<'_>) -> String {
    match b.below(8) {
        0 => "null".into(),
        1 => "true".into(),
        2 => b.pick(&NUMBERS).into(),
        3 => text(b),
        4 => format!("[{}]", text(b)),
        5 => format!("{{\"x\":{}}}", text(b)),
        6 => "[]".into(),
        _ => "{}".into(),
    }
}

/// A field that is usually right, sometimes of the wrong type, sometimes missing (`None`).
fn field(b: &mut Bytes<'_>, right: impl FnOnce(&mut Bytes<'_>) -> String) -> Option<String> {
    match b.below(10) {
        0 => None,
        1 => Some(wrong(b)),
        _ => Some(right(b)),
    }
}

fn nested(b: &mut Bytes<'_>, depth: usize) -> String {
    if depth == 0 {
        return text(b);
    }
    match b.below(6) {
        0 => format!("[{}]", nested(b, depth - 1)),
        1 => format!("{{\"k\":{},\"n\":{}}}", nested(b, depth - 1), b.pick(&NUMBERS)),
        2 => b.pick(&NUMBERS).into(),
        3 => "null".into(),
        _ => text(b),
    }
}

fn content_block(b: &mut Bytes<'_>) -> String {
    match b.below(7) {
        0 | 1 => format!("{{\"type\":\"text\",\"text\":{}}}", text(b)),
        2 => format!("{{\"type\":\"thinking\",\"thinking\":{}}}", text(b)),
        3 => r#"{"type":"image","data":"AAAA","mimeType":"image/png"}"#.to_string(),
        4 => {
            let call = format!("\"c{}\"", b.below(6));
            let name = b.pick(&["\"navigate_tree\"", "\"read\"", "\"\"", "3"]);
            let args = match b.below(4) {
                0 => wrong(b),
                1 => format!("{{\"action\":\"rewind\",\"summaryFocus\":{}}}", text(b)),
                _ => {
                    let depth = b.below(8);
                    nested(b, depth)
                }
            };
            let args = if b.below(10) == 0 { String::new() } else { format!(",\"arguments\":{args}") };
            format!("{{\"type\":\"toolCall\",\"id\":{call},\"name\":{name}{args}}}")
        }
        5 => format!("{{\"type\":{}}}", wrong(b)),
        _ => wrong(b),
    }
}

fn content(b: &mut Bytes<'_>) -> String {
    match b.below(5) {
        0 => text(b),
        1 => wrong(b),
        _ => {
            let blocks: Vec<String> = (0..b.below(4)).map(|_| content_block(b)).collect();
            format!("[{}]", blocks.join(","))
        }
    }
}

fn usage(b: &mut Bytes<'_>) -> String {
    let mut parts = Vec::new();
    for key in ["input", "output", "cacheRead", "cacheWrite", "totalTokens"] {
        if let Some(v) = field(b, |b| b.pick(&NUMBERS).to_string()) {
            parts.push(format!("\"{key}\":{v}"));
        }
    }
    format!("{{{}}}", parts.join(","))
}

fn message(b: &mut Bytes<'_>) -> String {
    let role = b.pick(&ROLES);
    let mut parts = vec![format!("\"role\":\"{role}\"")];
    let mut push = |b: &mut Bytes<'_>, key: &str, f: fn(&mut Bytes<'_>) -> String| {
        if let Some(v) = field(b, f) {
            parts.push(format!("\"{key}\":{v}"));
        }
    };
    push(b, "content", content);
    match role {
        "assistant" => {
            push(b, "usage", usage);
            push(b, "stopReason", |b| b.pick(&STOPS).to_string());
            push(b, "provider", text);
            push(b, "model", text);
        }
        "toolResult" => {
            push(b, "toolCallId", |b| format!("\"c{}\"", b.below(6)));
            push(b, "isError", |b| b.pick(&["true", "false"]).to_string());
        }
        "bashExecution" => {
            push(b, "command", text);
            push(b, "output", text);
        }
        "branchSummary" | "compactionSummary" => push(b, "summary", text),
        _ => {}
    }
    push(b, "timestamp", |b| b.pick(&TIMESTAMPS).to_string());
    format!("{{{}}}", parts.join(","))
}

/// One session entry as a JSON object text; `last` is the previous entry's id (JSON), which most
/// entries take as parent, so paths get long. Sets `last` to this entry's id.
fn entry(b: &mut Bytes<'_>, last: &mut String) -> String {
    let ty = b.pick(&TYPES);
    let mut parts = Vec::new();
    if b.below(20) != 0 {
        parts.push(format!("\"type\":\"{ty}\""));
    }
    let own = field(b, id);
    if let Some(v) = &own {
        parts.push(format!("\"id\":{v}"));
    }
    match b.below(10) {
        0 => parts.push("\"parentId\":null".into()),
        1 => {}
        2 => parts.push(format!("\"parentId\":{}", wrong(b))),
        3 | 4 => parts.push(format!("\"parentId\":{}", id(b))),
        _ => parts.push(format!("\"parentId\":{last}")),
    }
    if let Some(v) = own {
        *last = v;
    }
    if let Some(v) = field(b, |b| b.pick(&TIMESTAMPS).to_string()) {
        parts.push(format!("\"timestamp\":{v}"));
    }
    let mut extra = |b: &mut Bytes<'_>, key: &str, f: fn(&mut Bytes<'_>) -> String| {
        if let Some(v) = field(b, f) {
            parts.push(format!("\"{key}\":{v}"));
        }
    };
    match ty {
        "message" => extra(b, "message", message),
        "label" => {
            extra(b, "targetId", id);
            extra(b, "label", |b| {
                b.pick(&["\"anchor:start\"", "\"anchor:end\"", "\"anchor:a-1\"", "\"anchor:\"", "\"\"", "\"note\"", "\"anchor:st\u{430}rt\""])
                    .to_string()
            });
        }
        "branch_summary" => {
            extra(b, "summary", text);
            extra(b, "fromId", id);
        }
        "compaction" => {
            extra(b, "summary", text);
            extra(b, "firstKeptEntryId", id);
            extra(b, "tokensBefore", |b| b.pick(&NUMBERS).to_string());
        }
        "custom_message" => {
            extra(b, "customType", text);
            extra(b, "content", content);
            extra(b, "display", |b| b.pick(&["true", "false"]).to_string());
        }
        "thinking_level_change" => extra(b, "thinkingLevel", |b| b.pick(&["\"high\"", "\"off\"", "5"]).to_string()),
        "model_change" => {
            extra(b, "provider", text);
            extra(b, "modelId", text);
        }
        _ => extra(b, "data", |b| nested(b, 3)),
    }
    format!("{{{}}}", parts.join(","))
}

fn header(b: &mut Bytes<'_>) -> String {
    let version = b.pick(&["3", "2", "1", "\"3\"", "null"]);
    format!(
        "{{\"type\":\"session\",\"id\":{},\"version\":{version},\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":{}}}",
        b.pick(&["\"0199-session\"", "7", "null"]),
        text(b)
    )
}

/// A whole hostile session as JSONL text.
pub fn session(data: &[u8]) -> String {
    let mut b = Bytes::new(data);
    let mut out = String::new();
    if b.below(4) == 0 {
        out.push('\u{feff}');
    }
    if b.below(4) != 0 {
        out.push_str(&header(&mut b));
        out.push('\n');
    }
    let mut lines = 0;
    let mut last = String::from("null");
    while !b.done() && lines < 400 {
        lines += 1;
        let line = match b.below(24) {
            0 => header(&mut b),
            1 => String::new(),
            2 => "   \t ".into(),
            3 => String::from_utf8_lossy(b.take(40)).replace('\n', " "),
            4 => {
                let e = entry(&mut b, &mut last);
                let cut = b.below(e.len().max(1));
                e.chars().take(cut).collect()
            }
            5 => b.pick(&["[1,2]", "\"str\"", "42", "null", "{", "}", "{\"id\":\"e1\"", "{}{}", "{\"type\":\"message\"}"]).into(),
            6 => format!("{}\r", entry(&mut b, &mut last)),
            _ => entry(&mut b, &mut last),
        };
        let _ = writeln!(out, "{line}");
    }
    if b.bool() {
        out.pop(); // no trailing newline
    }
    out
}

/// Facts the host would send, from the byte stream.
pub fn facts(b: &mut Bytes<'_>) -> tool::ToolFacts {
    let window = b.pick(&[0.0, 1.0, 128_000.0, 200_000.0, f64::MAX]);
    let facts = json!({
        "callId": format!("c{}", b.below(6)),
        "contextWindow": window,
        "model": if b.bool() { json!({"api": "faux", "provider": "faux", "id": "faux-1"}) } else { Value::Null },
        "refreshReaches": b.bool(),
        "nowMs": 1_767_225_600_000.0,
    });
    serde_json::from_value(facts).expect("facts")
}

/// Tool arguments the model might send, from the byte stream (valid, wrong types, junk).
pub fn params(b: &mut Bytes<'_>) -> Value {
    let name = |b: &mut Bytes<'_>| -> Value {
        match b.below(10) {
            0 => json!(7),
            1 => json!("anchor:start"),
            2 => json!("st\u{430}rt"),
            3 => json!(""),
            4 => json!("x".repeat(41)),
            5 => json!("end"),
            _ => json!("start"),
        }
    };
    match b.below(12) {
        0 => Value::Null,
        1 => json!("rewind"),
        2 => json!({}),
        3 => json!({"action": b.pick(&["anchor", "list", "rewind", "jump", ""])}),
        4 | 5 => json!({"action": "anchor", "name": name(b)}),
        6 => json!({"action": "list"}),
        _ => json!({
            "action": "rewind",
            "labelStart": name(b),
            "labelEnd": name(b),
            "summaryFocus": match b.below(4) {
                0 => json!(3),
                1 => json!("short"),
                2 => json!("f".repeat(16_001)),
                _ => json!("keep the user's last instruction; done; left"),
            },
        }),
    }
}

/// Nonblank lines of `text` as `append_jsonl` numbers them, trimmed (a leading BOM removed).
pub fn numbered_lines(text: &str) -> Vec<(usize, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.split('\n').enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty()).collect()
}

/// Every check, on one input. Panics (with a reason) on any violation.
///
/// - feeding never panics and accounts for every nonblank line: a line is taken (entry or header) exactly
///   when it parses on its own, and every other line is reported with its number;
/// - every query answers (a value or a `SessionError`), in both modes, with the same numbers;
/// - feeding the same text in chunks (split at line ends) gives the same index as feeding it at once;
/// - the tool decides (a plan or a refusal) on any arguments, and `finish` accepts any entry id.
pub fn check(data: &[u8]) {
    let text = session(data);
    let mut b = Bytes::new(data);
    // Decisions about this input beyond the session: reuse the bytes from the end backwards.
    let tail: Vec<u8> = data.iter().rev().copied().collect();
    let mut choose = Bytes::new(&tail);
    let _ = b.u8();

    let mut plugin = SessionIndex::new(Mode::Plugin);
    let mut full = SessionIndex::new(Mode::Full);
    let report = plugin.append_jsonl(&text);
    let full_report = full.append_jsonl(&text);
    assert_eq!(report, full_report, "plugin and full mode took different lines");

    // Line accounting.
    let lines = numbered_lines(&text);
    // After a header saying version 1 (the first header: the one the index keeps), an entry without an
    // id is taken: pi's migration gives it one (src/session/migrate.rs).
    let mut header = None;
    let bad: Vec<usize> = lines
        .iter()
        .filter(|(_, l)| match parse_line(l, false) {
            Ok(Line::Header(h)) => {
                header.get_or_insert(h.format);
                false
            }
            Err(LineProblem::NoId) => header != Some(Format::V1),
            read => read.is_err(),
        })
        .map(|(n, _)| *n)
        .collect();
    let reported: Vec<usize> = report.skipped.iter().map(|s| s.line).collect();
    assert_eq!(reported, bad, "skipped lines are exactly the lines that do not parse, by number");
    let taken = lines.len() - bad.len();
    assert!(report.appended <= taken, "more entries than good lines");
    assert_eq!(plugin.len(), report.appended);

    // Chunked feeding.
    let mut chunked = SessionIndex::new(Mode::Plugin);
    let mut skipped = Vec::new();
    let mut rest = text.as_str();
    while !rest.is_empty() {
        let want = choose.below(rest.len() + 1).max(1);
        let cut = rest[..].char_indices().map(|(i, _)| i).chain([rest.len()]).find(|&i| i >= want).unwrap_or(rest.len());
        let end = rest[cut..].find('\n').map_or(rest.len(), |p| cut + p + 1);
        let r = chunked.append_jsonl(&rest[..end]);
        skipped.extend(r.skipped.iter().map(|s| s.line));
        rest = &rest[end..];
    }
    assert_eq!(skipped, reported, "chunked feeding numbers lines the same");
    assert_eq!(chunked.len(), plugin.len());

    // Queries, both modes.
    let n = plugin.len();
    let leaf = plugin.leaf();
    let path_p = plugin.path(leaf);
    let path_f = full.path(full.leaf());
    assert_eq!(path_p, path_f);
    assert_eq!(plugin.estimate(Leaf::Current), full.estimate(Leaf::Current));
    assert_eq!(chunked.estimate(Leaf::Current), plugin.estimate(Leaf::Current));
    assert_eq!(plugin.anchors(Leaf::Current), full.anchors(Leaf::Current));
    let _ = full.context_json(Leaf::Current);
    let _ = plugin.tree_rows();
    let _ = plugin.render_tree();
    let _ = plugin.stats(text.len() as f64);
    let _ = plugin.roots();
    let _ = full.search("e", 10);
    for _ in 0..4 {
        if n == 0 {
            break;
        }
        let a = choose.below(n) as Slot;
        let c = choose.below(n) as Slot;
        let _ = plugin.entries_between(Some(a), c);
        let _ = plugin.common_ancestor(a, c);
        let _ = plugin.hint_from(a, 60, &pi_tree_navigator::session::ContextEdits::default());
        let id = plugin.id_of(a).to_string();
        let _ = full.context_json(Leaf::Id(&id));
        let _ = plugin.estimate(Leaf::Id(&id));
        let _ = plugin.anchors(Leaf::Id(&id));
    }
    let _ = plugin.estimate(Leaf::Null);
    let _ = plugin.estimate(Leaf::Id("no-such-id"));

    // The tool, on the leaf and on a few other points.
    for round in 0..3 {
        if round > 0 && n > 0 {
            let slot = choose.below(n) as Slot;
            let id = plugin.id_of(slot).to_string();
            plugin.set_leaf(Some(&id)).expect("a known id");
        }
        let args = tool::Arguments::from_value(params(&mut choose));
        let facts = facts(&mut choose);
        let Ok(plan) = tool::plan(&mut plugin, &args, &facts) else { continue };
        serde_json::to_string(&plan).expect("plans serialize");
        if let tool::ToolPlan::Rewind(plan) = plan {
            // The summary with the ledger of the collapsed entries as the host holds them (full mode's text).
            let raw = |id: &String| full.slot_of(id).and_then(|s| full.raw(s)).map(String::from);
            let entries: Vec<Option<String>> = plan.summarize_ids.iter().map(raw).collect();
            let summary = serde_json::from_str::<String>(&self::text(&mut choose)).ok();
            let budget = choose.below(800) as u32;
            let result = tool::SummaryResult { summary, ledger_tokens: Some(json!(budget)), ..Default::default() };
            let (answer, held) = tool::compose_summary(&result, &entries, plugin.profile().0, &plan.label_end);
            serde_json::to_string(&answer).expect("summaries serialize");
            assert!(held.ledger_tokens <= f64::from(budget), "the ledger stays within its bound");
            let target = if n > 0 { plugin.id_of(choose.below(n) as Slot).to_string() } else { "x".into() };
            let _ = tool::finish(&mut plugin, &plan, held, &target, 1.0);
            let _ = tool::finish(&mut plugin, &plan, held, "not-an-entry", 1.0);
        }
    }
    assert!(plugin.set_leaf(Some("no-such-id")).is_err());
    plugin.set_leaf(None).expect("the empty leaf");
    let list = tool::Arguments::from_value(json!({"action": "list"}));
    let _ = tool::plan(&mut plugin, &list, &facts(&mut choose));
}
