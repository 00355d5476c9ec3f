//! From a session line to its [`Facts`]: pi's rules for what each entry type and role contributes
//! (`estimateTokens`, the usage pi's estimate anchors on, label changes, previews), applied to the typed
//! line serde reads ([`super::wire`]).

use std::borrow::Cow;

use serde_json::value::RawValue;

use super::entry::{patch_item, patch_start, Facts, Header, Kind, Line, LineProblem, RoleKind, Spend, SpendKind, ToolResultFacts};
use super::wire::{self, Block, Content, Js, Loose, Message, Obj, ReadError, Usage};
use crate::js::{parse_iso_date, time_clip};
use crate::error::SessionError;
use crate::text::summary_preview;

/// An object's members as raw JSON texts, by key (the later one when a key repeats, as serde_json keeps).
pub(super) type Fields<'a> = std::collections::HashMap<String, &'a RawValue>;

/// The members of the JSON object `text`.
pub(super) fn parse_fields(text: &str) -> Result<Fields<'_>, SessionError> {
    serde_json::from_str(text).map_err(|e| SessionError::Json(e.to_string()))
}

/// How many UTF-16 units of preview text an entry keeps: enough for the longest hint (60) plus the
/// knowledge that the text went on.
pub(super) const HINT_KEEP: usize = 64;

/// Characters an image block counts where pi counts images (`estimateTokens`).
const IMAGE_CHARS: usize = 4800;

/// Reads one JSONL line and hands what it is to `take` (an entry's strings borrowed from the line).
/// `legacy_v2` applies pi's v2→v3 migration (`hookMessage` → `custom`).
pub(super) fn read_line<R>(line: &str, legacy_v2: bool, take: impl FnOnce(Line<'_>) -> R) -> Result<R, LineProblem> {
    let read = wire::read(line, |entry| line_of(entry, line, legacy_v2).map(take));
    match read {
        Ok(taken) => taken,
        Err(ReadError::Malformed(e)) => Err(LineProblem::Malformed(e)),
        Err(ReadError::NotAnObject) => Err(LineProblem::NotAnObject),
        Err(ReadError::TooDeep(depth)) => Err(LineProblem::TooDeep(depth)),
    }
}

/// Parses one JSONL line into a header or an entry. `legacy_v2` applies pi's v2→v3 migration
/// (`hookMessage` → `custom`). The ingest reads lines the same way (borrowing instead of owning).
pub fn parse_line(line: &str, legacy_v2: bool) -> Result<Line<'static>, LineProblem> {
    read_line(line, legacy_v2, |line| match line {
        Line::Header(h) => Line::Header(h),
        Line::Entry(facts) => Line::Entry(facts.into_owned()),
    })
}

/// Reads one entry's text with its tool calls' arguments and its tool result's text kept
/// ([`wire::keeping_calls`]) and hands its facts to `take`; `None` for a header or a line that does not read.
pub fn read_calls<R>(text: &str, take: impl FnOnce(&Facts<'_>) -> R) -> Option<R> {
    wire::keeping_calls(true, || {
        read_line(text, false, |line| match line {
            Line::Entry(facts) => Some(take(&facts)),
            Line::Header(_) => None,
        })
    })
    .ok()
    .flatten()
}

/// `new Date(value).getTime()`; `None` stands for `NaN` (an invalid date).
pub(super) fn date_ms(value: &Js<'_>) -> Option<f64> {
    match value {
        Js::Absent | Js::Arr | Js::Obj => None,
        Js::Null => Some(0.0),
        Js::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Js::Num(x) => time_clip(*x),
        Js::Str(s) => parse_iso_date(&s.text()),
    }
}

fn owned_text(v: &Js<'_>) -> Option<String> {
    v.text().map(Cow::into_owned)
}

/// The header or the entry a typed line holds.
fn line_of<'a>(e: &'a wire::Entry<'a>, line: &str, legacy_v2: bool) -> Result<Line<'a>, LineProblem> {
    let ty = e.ty.text().unwrap_or_default();
    if ty == "session" {
        return Ok(Line::Header(Header {
            id: owned_text(&e.id),
            version: e.version.num(),
            format: super::Format::of(&e.version),
            cwd: owned_text(&e.cwd),
            timestamp: owned_text(&e.timestamp),
            parent_session: header_parent(line),
        }));
    }
    let id = e.id.text().ok_or(LineProblem::NoId)?;
    let mut facts = Facts::new(id, e.parent_id.text(), date_ms(&e.timestamp));
    if ty == "message" {
        read_message(&e.message.value, line, legacy_v2, &mut facts);
        return Ok(Line::Entry(facts));
    }
    facts.kind = Kind::of_type(&ty);
    if matches!(facts.kind, Kind::Usage | Kind::BranchSummary | Kind::Compaction) {
        rare_facts(line, &mut facts);
    }
    match facts.kind {
        Kind::Unknown => facts.name = ty,
        Kind::CustomMessage => {
            let (chars, images) = content_chars(&e.content);
            facts.images = images;
            facts.tokens = ceil_quarter(chars + images * IMAGE_CHARS);
            facts.hint = content_hint(&e.content);
        }
        Kind::BranchSummary => {
            facts.emits = e.summary.truthy();
            facts.tokens = ceil_quarter(e.summary.units());
            facts.hint = e.summary.text().and_then(|s| summary_preview(&s)).and_then(|p| hint_of(&[Cow::from(p)]));
        }
        Kind::Compaction => {
            facts.first_kept = e.first_kept_entry_id.text();
            facts.tokens = ceil_quarter(e.summary.units());
            // pi ≥0.87: `entry.systemMessage ? [systemMessage, summary] : [summary]`.
            let system = e.system_message.0.as_deref().filter(|m| m.truthy);
            facts.emits = system.is_some();
            if let Some(system) = system {
                let raw = parse_fields(line).ok().and_then(|f| f.get("systemMessage").map(|m| m.get()));
                let (chars, patch) = system_facts(&system.value, raw);
                facts.system_chars = chars;
                facts.system_patch = Some(patch);
            }
        }
        Kind::ContextEdit => {
            facts.edit_target = e.target_id.text();
            let replacement = e.replacement.0.as_deref().filter(|r| r.is_object);
            let content = replacement.map_or(&Content::Other, |r| &r.value.content);
            // The replacement's preview, shown in its target's place (`SessionIndex::hint_from`).
            facts.hint = replacement.and_then(|_| content_hint(content));
            facts.replacement_tokens = replacement.map(|_| {
                let (chars, images) = content_chars(content);
                // An assistant's (or toolResult's) string replacement becomes one text block: same length.
                let as_assistant = match content {
                    Content::Str(s) => s.units(),
                    _ => assistant_chars(content, |_| {}),
                };
                [ceil_quarter(chars + images * IMAGE_CHARS), ceil_quarter(as_assistant)]
            });
        }
        Kind::Label => {
            let target = e.target_id.text().unwrap_or_default();
            // pi sets the label when it is truthy and clears it otherwise.
            let label = e.label.text().filter(|l| !l.is_empty());
            facts.label = Some((target, label));
        }
        _ => {}
    }
    Ok(Line::Entry(facts))
}

/// The facts of a `message` entry's message.
fn read_message<'a>(msg: &'a Message<'a>, line: &str, legacy_v2: bool, facts: &mut Facts<'a>) {
    let name = msg.role.text().unwrap_or_default();
    let role = RoleKind::of(&name, legacy_v2);
    facts.kind = Kind::Message(role);
    if role == RoleKind::Other {
        facts.name = name;
    }
    let chars = match role {
        RoleKind::User => {
            facts.hint = content_hint(&msg.content);
            let (chars, images) = content_chars(&msg.content);
            // pi 0.75 counts no images in user messages.
            facts.images = images;
            chars
        }
        RoleKind::Assistant => {
            facts.hint = content_hint(&msg.content);
            assistant_facts(msg, facts)
        }
        RoleKind::ToolResult | RoleKind::Custom => {
            if role == RoleKind::ToolResult {
                facts.spend = tool_result_spend(msg);
                if wire::keeps_calls() {
                    facts.tool_result = tool_result_facts(msg);
                }
            }
            let (chars, images) = content_chars(&msg.content);
            facts.images = images;
            chars + images * IMAGE_CHARS
        }
        RoleKind::BashExecution => msg.command.units() + msg.output.units(),
        RoleKind::BranchSummary | RoleKind::CompactionSummary => msg.summary.units(),
        RoleKind::System => {
            // pi 0.75 estimates a system message as 0; pi ≥0.87 counts these (see `Facts::system_chars`).
            let raw = parse_fields(line).ok().and_then(|f| f.get("message").map(|m| m.get()));
            let (chars, patch) = system_facts(msg, raw);
            facts.system_chars = chars;
            facts.system_patch = Some(patch);
            0
        }
        RoleKind::Other => 0,
    };
    facts.tokens = ceil_quarter(chars);
}

/// A system message's characters as pi ≥0.87's `estimateTokens` counts them (content: text, 4800 per
/// image; `sections` values; `JSON.stringify(toolsAdded).length` when `toolsAdded` is truthy) and what it
/// changes in pi ≥0.87's replay of the system messages. `raw`: the message's JSON text, read again here
/// for the sections and tools by name (system messages are few; the wire types stay lean for the many
/// other lines). Without it (text `serde_json` refuses) the replay sees no sections or tools.
fn system_facts(msg: &Message<'_>, raw: Option<&str>) -> (usize, String) {
    let (chars, images) = content_chars(&msg.content);
    let content = match &msg.content {
        Content::Str(s) => s.units(),
        // `contentText`: the text blocks' texts joined by "\n".
        Content::Blocks(blocks) => {
            let texts: Vec<usize> = blocks.iter().filter(|b| is_type(b, "text")).map(|b| b.text.units()).collect();
            texts.iter().sum::<usize>() + texts.len().max(1) - 1
        }
        Content::Other => 0,
    };
    // The members as `JSON.parse` reads them (unpaired surrogates included): the tree of this message.
    let tree = raw.and_then(|r| serde_json::from_str::<&RawValue>(r).ok()).and_then(|r| Loose::read(r).ok());
    let members: &[(wire::JsStr<'_>, Loose<'_>)] = match &tree {
        Some(Loose::Obj(members)) => members,
        _ => &[],
    };
    let field = |key: &str| members.iter().find(|(k, _)| k.bytes() == key.as_bytes()).map(|(_, v)| v);
    // Unknown (no text) counts as having one: what pi writes.
    let timestamp = tree.is_none() || field("timestamp").is_some_and(|t| !matches!(t, Loose::Null));
    let mut patch = patch_start(timestamp, content);
    if let Some(Loose::Obj(sections)) = field("sections") {
        for (k, v) in sections {
            let len = match v {
                Loose::Null => None,
                Loose::Str(s) => Some(s.units()),
                Loose::Arr(a) => Some(a.len()),
                _ => Some(0),
            };
            patch_item(&mut patch, 's', Some(&k.text()), len);
        }
    }
    for (tag, key) in [('r', "toolsRemoved"), ('a', "toolsAdded")] {
        let Some(Loose::Arr(items)) = field(key) else { continue };
        for item in items {
            let name = match item {
                Loose::Obj(m) => m.iter().find(|(k, _)| k.bytes() == b"name").and_then(|(_, n)| match n {
                    Loose::Str(s) => Some(s.text()),
                    _ => None,
                }),
                _ => None,
            };
            let len = (tag == 'a').then(|| item.stringify_len());
            patch_item(&mut patch, tag, name.as_deref(), len);
        }
    }
    // `system.toolsAdded && …`: a falsy value counts nothing.
    let falsy = field("toolsAdded").is_some_and(|t| match t {
        Loose::Null => true,
        Loose::Bool(b) => !b,
        Loose::Num(x) => *x == 0.0 || x.is_nan(),
        Loose::Str(s) => s.units() == 0,
        _ => false,
    });
    let tools = if falsy { 0 } else { msg.tools_added.0.unwrap_or(0) };
    (chars + images * IMAGE_CHARS + msg.sections.0 + tools, patch)
}

/// `Math.ceil(chars / 4)`.
pub fn ceil_quarter(chars: usize) -> f64 {
    chars.div_ceil(4) as f64
}

fn is_type(block: &Block<'_>, ty: &str) -> bool {
    block.ty.str().is_some_and(|t| t.is(ty))
}

/// The text length of a content (a string, or its `text` blocks) and its image blocks.
fn content_chars(content: &Content<'_>) -> (usize, usize) {
    match content {
        Content::Str(s) => (s.units(), 0),
        Content::Blocks(blocks) => blocks.iter().fold((0, 0), |(chars, images), b| {
            if is_type(b, "text") {
                (chars + b.text.units(), images)
            } else {
                (chars, images + usize::from(is_type(b, "image")))
            }
        }),
        Content::Other => (0, 0),
    }
}

/// An assistant's tool calls (their arguments too while calls are kept), stop reason, usage and `zero_io` into
/// `facts`; returns its characters.
fn assistant_facts<'a>(msg: &'a Message<'a>, facts: &mut Facts<'a>) -> usize {
    usage_facts(msg, facts);
    let keep = wire::keeps_calls();
    assistant_chars(&msg.content, |b| {
        facts.tool_calls.push((b.id.text().unwrap_or_default(), b.name.text().unwrap_or_default()));
        if keep {
            facts.call_arguments.push(b.arguments.value.as_deref());
        }
    })
}

/// What a tool result says to the loop rule: its call (a string `toolCallId`, else none), whether it failed, its text.
fn tool_result_facts<'a>(msg: &'a Message<'a>) -> Option<ToolResultFacts<'a>> {
    let call_id = msg.tool_call_id.text()?;
    let text = match &msg.content {
        Content::Str(s) => s.text(),
        Content::Blocks(blocks) => {
            let mut text = Cow::Borrowed("");
            for (i, part) in blocks.iter().filter(|b| is_type(b, "text")).filter_map(|b| b.text.text()).enumerate() {
                if i == 0 {
                    text = part;
                } else {
                    let text = text.to_mut();
                    text.push('\n');
                    text.push_str(&part);
                }
            }
            text
        }
        Content::Other => Cow::Borrowed(""),
    };
    Some(ToolResultFacts { call_id, is_error: matches!(msg.is_error, Js::Bool(true)), text })
}

/// What a usage records, as [`Spend`] holds it.
fn spend_of<'a>(usage: Option<&Obj<Usage<'_>>>, kind: SpendKind) -> Spend<'a> {
    // pi sums these as they are; a field that is no finite number ≥ 0 would make its sums NaN or wrong, so
    // it is kept as NaN and the item counted apart (src/cost/).
    let amount = |v: &Js<'_>| match v.num() {
        Some(x) if x.is_finite() && x >= 0.0 => x,
        _ => f64::NAN,
    };
    let usage = usage.filter(|u| u.is_object).map(|u| &u.value);
    let tokens = usage.map_or([f64::NAN; 4], |u| [amount(&u.input), amount(&u.output), amount(&u.cache_read), amount(&u.cache_write)]);
    let cost = usage.and_then(|u| u.cost.0.as_deref()).filter(|c| c.is_object).map(|c| &c.value);
    let cost = cost.map_or([f64::NAN; 5], |c| [amount(&c.input), amount(&c.output), amount(&c.cache_read), amount(&c.cache_write), amount(&c.total)]);
    Spend { kind, response_model: None, tokens, cost }
}

/// `String(value)`, as a template literal writes a field (an array, which no pi writes here, as `""`).
fn js_string<'a>(v: &'a Js<'a>) -> Cow<'a, str> {
    match v {
        Js::Absent => Cow::Borrowed("undefined"),
        Js::Null => Cow::Borrowed("null"),
        Js::Bool(b) => Cow::Borrowed(if *b { "true" } else { "false" }),
        Js::Num(x) => Cow::Owned(crate::js::number_to_string(*x)),
        Js::Str(s) => s.text(),
        Js::Arr => Cow::Borrowed(""),
        Js::Obj => Cow::Borrowed("[object Object]"),
    }
}

/// A tool result's spend, when it records a (truthy) usage.
fn tool_result_spend<'a>(msg: &'a Message<'a>) -> Option<Spend<'a>> {
    msg.usage.truthy.then(|| spend_of(Some(&msg.usage), SpendKind::ToolResult))
}

/// What only `usage` entries and summaries say, read again from their line by name as `JSON.parse` reads it
/// (they are few; the typed line stays lean for the many others, as for system messages): the usage pi counts —
/// a `usage` entry's always, a summary's when truthy, else the one this plugin kept in `details.summaryUsage` —
/// whose model it is, and a compaction's `tokensBefore`.
/// A header line's `parentSession` when it is a string (read by name through the line's loose tree).
fn header_parent(line: &str) -> Option<String> {
    let tree = wire::loose(line).ok().and_then(|(tree, _)| tree)?;
    let Loose::Obj(members) = &tree else { return None };
    let (_, value) = members.iter().find(|(k, _)| k.bytes() == b"parentSession")?;
    owned_text(&value.js())
}

fn rare_facts(line: &str, facts: &mut Facts<'_>) {
    // (Any depth the line's own read took: the tree as `wire::read`'s fallback builds it.)
    let tree = wire::loose(line).ok().and_then(|(tree, _)| tree);
    let members: &[(wire::JsStr<'_>, Loose<'_>)] = match &tree {
        Some(Loose::Obj(members)) => members,
        _ => &[],
    };
    let field = |key: &str| members.iter().find(|(k, _)| k.bytes() == key.as_bytes()).map(|(_, v)| v);
    let js = |key: &str| field(key).map_or(Js::Absent, Loose::js);
    // The two usages as text, read by the line's own reader (`wire::read_text`).
    let [usage_text, details_text] = ["usage", "details"].map(|key| field(key).map(Loose::text));
    let usage = |key: &str| {
        let text = if key == "usage" { &usage_text } else { &details_text };
        text.as_deref().and_then(wire::read_text::<Obj<Usage<'_>>>)
    };
    if facts.kind == Kind::Compaction {
        facts.tokens_before = js("tokensBefore").num().filter(|x| x.is_finite());
    }
    let entry_usage = usage("usage");
    facts.spend = match facts.kind {
        Kind::Usage => {
            let cache_warm = js("kind").str().is_some_and(|k| k.is("cache_warm"));
            let own = |key: &str| Cow::Owned(js_string(&js(key)).into_owned());
            facts.source = Some((own("provider"), own("model")));
            Some(spend_of(entry_usage.as_ref(), SpendKind::Usage { cache_warm }))
        }
        _ if entry_usage.as_ref().is_some_and(|u| u.truthy) => Some(spend_of(entry_usage.as_ref(), SpendKind::Summary)),
        _ => {
            let details = usage("details");
            let kept = details.as_ref().and_then(|d| d.value.summary_usage.0.as_deref()).filter(|u| u.truthy);
            kept.map(|kept| spend_of(Some(kept), SpendKind::SummaryDetails))
        }
    };
}

/// An assistant's stop reason, usage (as pi's estimate anchors on it, and as pi's totals sum it), `zero_io`
/// and source into `facts` (what [`skim_line`] reads too): each field read once.
fn usage_facts<'a>(msg: &'a Message<'a>, facts: &mut Facts<'a>) {
    let usage = &msg.usage;
    facts.stop_reason = msg.stop_reason.text();
    facts.source = Some((js_string(&msg.provider), js_string(&msg.model)));
    let mut spend = spend_of(Some(usage), SpendKind::Assistant);
    // pi's breakdown names `responseModel ?? model`.
    if !matches!(msg.response_model, Js::Absent | Js::Null) {
        spend.response_model = Some(js_string(&msg.response_model));
    }
    facts.spend = Some(spend);
    let n = |v: &Js<'_>| v.num().unwrap_or(0.0);
    let u = &usage.value;
    let counts = [n(&u.total_tokens), n(&u.input), n(&u.output), n(&u.cache_read), n(&u.cache_write)];
    facts.zero_io = counts[1] == 0.0 && counts[2] == 0.0;
    facts.usage = anchor_usage(facts.stop_reason.as_deref(), usage.truthy, counts);
}

/// The facts of a user, assistant or tool result `message` line without reading its content: its place,
/// kind and usage as [`read_line`] gives them, its `tokens` unknown (NaN), no preview and no tool calls.
/// `None` for any other line, and for a line the direct pass refuses: [`read_line`] reads those.
/// (What a whole-file estimate needs of most lines: an assistant's usage makes the content before it
/// irrelevant to pi's estimate.)
pub(super) fn skim_line<R>(line: &str, legacy_v2: bool, take: impl FnOnce(&Facts<'_>) -> R) -> Option<R> {
    wire::skim(line, |e| {
        let msg = &e.message.value;
        let role = RoleKind::of(&msg.role.text()?, legacy_v2);
        if !e.ty.str()?.is("message") || !matches!(role, RoleKind::User | RoleKind::Assistant | RoleKind::ToolResult) {
            return None;
        }
        let mut facts = Facts::new(e.id.text()?, e.parent_id.text(), date_ms(&e.timestamp));
        facts.kind = Kind::Message(role);
        facts.tokens = f64::NAN;
        if role == RoleKind::Assistant {
            usage_facts(msg, &mut facts);
        } else if role == RoleKind::ToolResult {
            facts.spend = tool_result_spend(msg);
        }
        Some(take(&facts))
    })
    .flatten()
}

/// An assistant content's characters (text, thinking, tool calls' name + arguments); `call` sees each
/// tool call.
fn assistant_chars<'a>(content: &'a Content<'a>, mut call: impl FnMut(&'a Block<'a>)) -> usize {
    let mut chars = 0;
    // pi iterates an assistant's content as an array; anything else counts nothing.
    if let Content::Blocks(blocks) = content {
        for b in blocks {
            if is_type(b, "text") {
                chars += b.text.units();
            } else if is_type(b, "thinking") {
                chars += b.thinking.units();
            } else if is_type(b, "toolCall") {
                // `JSON.stringify(undefined)` is undefined; pi's safe variant prints "undefined".
                chars += b.name.units() + b.arguments.len.0.unwrap_or(9);
                call(b);
            }
        }
    }
    chars
}

/// The usage pi's `estimateContextTokens` would anchor on: an assistant with a truthy `usage` that did
/// not stop with `aborted` or `error`; `calculateContextTokens`: `totalTokens || input + output +
/// cacheRead + cacheWrite`, which must be > 0 (pi ≥0.87; every profile). `counts` are `[totalTokens, input, output, cacheRead, cacheWrite]`, missing
/// ones as 0 (pi would produce NaN).
pub(super) fn anchor_usage(stop_reason: Option<&str>, usage_truthy: bool, counts: [f64; 5]) -> Option<f64> {
    if matches!(stop_reason, Some("aborted" | "error")) || !usage_truthy {
        return None;
    }
    let [total, input, output, cache_read, cache_write] = counts;
    let tokens = if total != 0.0 && !total.is_nan() { total } else { input + output + cache_read + cache_write };
    // pi ≥0.87 skips a usage whose `calculateContextTokens` is not > 0; the tool does so on every host
    // (`super::profile`: a zero baseline would make any session estimate as ~0).
    (tokens > 0.0).then_some(tokens)
}

/// The preview of a content: the string, or its `text` blocks joined by spaces.
fn content_hint(content: &Content<'_>) -> Option<String> {
    match content {
        Content::Str(s) => hint_of(&[s.text()]),
        Content::Blocks(blocks) => {
            let texts: Vec<Cow<'_, str>> = blocks.iter().filter(|b| is_type(b, "text")).filter_map(|b| b.text.text()).collect();
            hint_of(&texts)
        }
        Content::Other => None,
    }
}

/// The preview of texts joined by spaces: whitespace runs collapse to one space (none at the start or
/// end), and it stops after [`HINT_KEEP`] UTF-16 units plus one character, which tells that the text went
/// on. `None` when nothing is visible.
pub(super) fn hint_of<S: AsRef<str>>(texts: &[S]) -> Option<String> {
    let (mut out, mut units, mut pending_space) = (String::new(), 0, false);
    for (i, text) in texts.iter().enumerate() {
        pending_space |= i > 0 && !out.is_empty();
        for c in text.as_ref().chars() {
            if units > HINT_KEEP {
                return Some(out);
            }
            if c.is_whitespace() {
                pending_space = !out.is_empty();
                continue;
            }
            if pending_space {
                out.push(' ');
                units += 1;
                pending_space = false;
            }
            out.push(c);
            units += c.len_utf16();
        }
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(line: &str) -> Facts<'static> {
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
        assert_eq!(e.tool_calls, vec![("c1".into(), "add".into())]);
        assert!(!e.zero_io);
        // The usage read once: what pi's estimate anchors on (above) and what its totals sum (a missing cost: NaN).
        assert_eq!(e.spend.as_ref().map(|s| (s.kind, s.tokens)), Some((SpendKind::Assistant, [10.0, 5.0, 0.0, 0.0])));
        assert!(e.spend.as_ref().is_some_and(|s| s.cost.iter().all(|x| x.is_nan())));
        assert_eq!(e.source, Some(("undefined".into(), "undefined".into())));
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
        assert_eq!((user.tokens, user.images), (1.0, 1));
        let tool = entry(
            r#"{"type":"message","id":"t","parentId":null,"timestamp":"x","message":{"role":"toolResult","content":[{"type":"text","text":"abcd"},{"type":"image","data":"x","mimeType":"image/png"}]}}"#,
        );
        assert_eq!(tool.tokens, 1201.0);
    }

    #[test]
    fn hints_collapse_whitespace_and_stop_early() {
        assert_eq!(hint_of(&["  a \n\t b  "]).as_deref(), Some("a b"));
        assert_eq!(hint_of(&["a", " b"]).as_deref(), Some("a b"));
        assert_eq!(hint_of(&[" \n "]), None);
        let long = "x".repeat(500);
        assert_eq!(hint_of(&[&long]).unwrap().len(), HINT_KEEP + 1);
    }

    #[test]
    fn system_messages_keep_what_newer_pi_counts() {
        let e = entry(
            r#"{"type":"message","id":"s","parentId":null,"timestamp":"x","message":{"role":"system","content":"abc","sections":{"preamble":"de","cwd":"","x":"zz","x":"f"},"toolsAdded":[{"name":"t"}]}}"#,
        );
        assert_eq!((e.tokens, e.system_chars), (0.0, 3 + 2 + 1 + r#"[{"name":"t"}]"#.len()));
    }

    #[test]
    fn lines_without_ids_or_objects_are_problems() {
        assert_eq!(parse_line("[1]", false).unwrap_err(), LineProblem::NotAnObject);
        assert_eq!(parse_line(r#"["session"]"#, false).unwrap_err(), LineProblem::NotAnObject);
        assert_eq!(parse_line(r#"{"type":"message"}"#, false).unwrap_err(), LineProblem::NoId);
        assert!(matches!(parse_line("{", false).unwrap_err(), LineProblem::Malformed(_)));
    }
}
