//! `recall`: the model reads back, word for word, what a rewind collapsed.
//!
//! A rewind leaves its work on disk, on the branch it abandoned. `recall` finds that work by name:
//! - the name of a rewind's summary (its `labelEnd`) names what that rewind collapsed;
//! - any other anchor names what every rewind back to it collapsed, oldest rewind first.
//!
//! Which entries those are is decided from the index's facts ([`plan`]): a rewind collapsed exactly pi's
//! `collectEntriesForBranchSummary(old leaf, target)`, where the target is the summary's parent and the
//! old leaf is the assistant message whose call the rewind's synthetic assistant repeats (same call id).
//! The plugin index keeps no text, so the shim then hands over those entries as pi holds them and
//! [`page`] selects, pages and formats their text. Nothing is written: the session gains only the call
//! and its result.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsify_next::Tsify;

use crate::error::SessionError;
use crate::js::utf16_len;
use crate::session::{ceil_quarter, Kind, Leaf, RoleKind, SessionIndex, Slot};
use crate::text::{extract_text_content, is_valid_name, ANCHOR_PREFIX};

use super::definition::TOOL_NAME;
use super::facts::ToolFacts;
use super::number::js_number;
use super::params::{name_problem, Params};
use super::collapsed::rewound_from;
use super::refusal::Refusal;
use super::texts::{self, RefusalCode};

/// A page holds at most this many tokens by the core's estimate (`ceil(chars / 4)`, pi's own rule for a
/// tool result's text), header and footer included.
pub const PAGE_TOKENS: usize = 2000;
/// Longest `query` accepted, in UTF-16 units (it is repeated in every page's footer).
pub const MAX_QUERY_CHARS: usize = 200;
/// A page has room for this many UTF-16 units: `ceil(units / 4) ≤ PAGE_TOKENS`.
const PAGE_UNITS: usize = PAGE_TOKENS * 4;
/// An entry that does not fit in what is left of a page starts on the next one, unless at least this many
/// units are left and it would not fit on an empty page either (then it is split where the page ends).
const MIN_PIECE_UNITS: usize = 1000;
/// A page number as long as any the header and footer may show (their room is reserved before paging).
const WIDEST_PAGE: u32 = 99_999;

/// `recall`, first half: the entries whose text the shim hands over (`entryIds`, oldest first), and the
/// request they answer. `/anchors` hands it back to the core with the entries (hence `Deserialize`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct RecallPlan {
    /// The name recalled (without `anchor:`).
    pub name: String,
    /// The query, if one was sent (trimmed; `null` for none).
    pub query: Option<String>,
    /// The page asked for (1-based).
    pub page: u32,
    /// The collapsed conversation entries (user, assistant and tool result messages), oldest first; with
    /// `whole`, the one entry.
    pub entry_ids: Vec<String>,
    /// `name` is an entry's id (not an anchor): that entry is read whole — tool calls, thinking and every
    /// field, not only its text.
    #[serde(default)]
    pub whole: bool,
}

/// `recall`, second half: a page, or the refusal when nothing matches or the page does not exist.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum RecallAnswer {
    /// Report `text` as a failed tool result.
    Refuse(Refusal),
    /// The page.
    Page(RecallPage),
}

/// One page of recalled text.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
pub struct RecallPage {
    /// What the model reads.
    pub text: String,
    /// The tool result's `details`.
    pub details: RecallDetails,
}

/// A page's details.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct RecallDetails {
    /// The name recalled.
    pub name: String,
    /// The query, or `null`.
    pub query: Option<String>,
    /// This page (1-based).
    pub page: u32,
    /// How many pages there are.
    pub pages: u32,
    /// Collapsed entries with text.
    pub collapsed: u32,
    /// Of those, the ones the query matches (all without a query).
    pub matches: u32,
    /// The entries on this page (an entry split across pages is on each of them).
    pub entry_ids: Vec<String>,
    /// The page's size by the core's estimate.
    #[serde(serialize_with = "js_number")]
    pub tokens: f64,
}

fn refuse(code: RefusalCode, text: String) -> Refusal {
    Refusal { code, text, saved_tokens: None }
}

/// Decides which entries a `recall` call reads (see the module docs). Refuses an invalid or unknown name,
/// a bad `query` or `page`, and a name at which nothing was collapsed.
///
/// # Errors
/// Only for an inconsistent index (a parent cycle).
pub(super) fn plan(index: &mut SessionIndex, params: &Params<'_>, facts: &ToolFacts) -> Result<Result<RecallPlan, Refusal>, SessionError> {
    // `name`; a model that names the summary by the rewind's own parameter is understood too.
    let key = ["name", "labelEnd", "labelStart"].into_iter().find(|k| params.raw.get(k).is_some()).unwrap_or("name");
    let sent = params.raw.get(key).and_then(Value::as_str);
    let name = sent.filter(|n| is_valid_name(n));
    let label = name.map(|n| format!("{ANCHOR_PREFIX}{n}"));
    let named = match &label {
        Some(label) => labelled(index, label)?,
        None => None,
    };
    // The id of an entry (a ledger's item names one), read whole unless an anchor of that name has
    // collapsed work to read.
    let entry = sent.and_then(|id| index.slot_of(id));
    let Some(name) = name.or(entry.and(sent)) else {
        let problem = name_problem(params.raw, key);
        return Ok(Err(refuse(RefusalCode::InvalidName, texts::invalid_name(key, "recall", problem.as_deref()))));
    };
    let query = match read_query(params.raw.get("query")) {
        Ok(q) => q,
        Err(problem) => return Ok(Err(refuse(RefusalCode::InvalidRecall, texts::recall_bad_query(&problem)))),
    };
    let page = match read_page(params.raw.get("page")) {
        Ok(p) => p,
        Err(problem) => return Ok(Err(refuse(RefusalCode::InvalidRecall, texts::recall_bad_page(&problem)))),
    };
    // The whole entry; a query has nothing to narrow in one entry.
    let whole = |index: &SessionIndex, slot: Slot| RecallPlan { name: name.into(), query: None, page, entry_ids: vec![index.id_of(slot).into()], whole: true };
    let named = match (named, entry) {
        (Some(named), _) => named,
        (None, Some(slot)) => return Ok(Ok(whole(index, slot))),
        (None, None) => {
            let rows = texts::anchor_rows(&index.anchors(Leaf::Current)?, facts.context_window);
            return Ok(Err(refuse(RefusalCode::UnknownName, texts::recall_unknown(name, &rows))));
        }
    };
    let collapsed = if let Some(slots) = rewind_collapsed(index, named)? {
        slots
    } else {
        let mut all = Vec::new();
        for child in index.children_of(named).to_vec() {
            all.extend(rewind_collapsed(index, child)?.unwrap_or_default());
        }
        all
    };
    let mut seen = HashSet::new();
    let entry_ids: Vec<String> = collapsed
        .into_iter()
        .filter(|&s| matches!(index.entry(s).kind(), Kind::Message(RoleKind::User | RoleKind::Assistant | RoleKind::ToolResult)))
        .filter(|&s| seen.insert(s))
        .map(|s| index.id_of(s).to_string())
        .collect();
    if entry_ids.is_empty() {
        if let Some(slot) = entry {
            return Ok(Ok(whole(index, slot)));
        }
        return Ok(Err(refuse(RefusalCode::NothingCollapsed, texts::recall_nothing(name))));
    }
    Ok(Ok(RecallPlan { name: name.into(), query, page, entry_ids, whole: false }))
}

/// The entry labelled `label`: the one on the active branch, else the newest labelled one anywhere (a
/// rewind leaves anchors behind on the branch it abandons).
fn labelled(index: &mut SessionIndex, label: &str) -> Result<Option<Slot>, SessionError> {
    if let Some(slot) = index.find_label_on_path(label, index.leaf())? {
        return Ok(Some(slot));
    }
    Ok((0..index.len() as Slot).rev().find(|&s| index.label_at(s) == Some(label)))
}

/// What the rewind that wrote `summary` collapsed, oldest first; `None` when `summary` is no summary a
/// rewind of this tool wrote (no synthetic call below it, or no original call to match).
fn rewind_collapsed(index: &mut SessionIndex, summary: Slot) -> Result<Option<Vec<Slot>>, SessionError> {
    Ok(rewound_from(index, summary)?.map(|(_, collapsed)| collapsed))
}

/// `query`: absent, `null` or blank is none; anything but a string, or a string over
/// [`MAX_QUERY_CHARS`], is the problem in words.
fn read_query(value: Option<&Value>) -> Result<Option<String>, String> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => {
            let units = utf16_len(s.trim());
            if units > MAX_QUERY_CHARS {
                return Err(format!("it is {units} characters long"));
            }
            Ok(Some(s.trim().to_string()))
        }
        Some(Value::Number(_)) => Err("it is a number, not a string".into()),
        Some(Value::Bool(_)) => Err("it is a boolean, not a string".into()),
        Some(Value::Array(_)) => Err("it is an array, not a string".into()),
        Some(Value::Object(_)) => Err("it is an object, not a string".into()),
    }
}

/// `page`: absent or `null` is 1; a whole number ≥ 1 (or its digits as a string) is that page.
fn read_page(value: Option<&Value>) -> Result<u32, String> {
    let page = match value {
        None | Some(Value::Null) => return Ok(1),
        Some(Value::Number(n)) => n.as_f64().filter(|x| x.fract() == 0.0 && *x >= 1.0 && *x <= f64::from(u32::MAX)).map(|x| x as u32),
        Some(Value::String(s)) => s.trim().parse::<u32>().ok().filter(|&p| p >= 1),
        Some(_) => None,
    };
    page.ok_or_else(|| "send a whole number from 1 up, e.g. 2".into())
}

/// One collapsed entry's text, as the page shows it.
struct Item {
    id: String,
    /// `user`, `assistant`, `tool result of <tool>`.
    what: String,
    text: String,
}

/// The item of an entry as pi holds it, or `None` for one without text (a bare tool call) and for this
/// tool's own results (they are about the tree, not the work).
fn item_of(entry: &Value) -> Option<Item> {
    let message = entry.get("message")?;
    // A string as is, or the `text` blocks (an assistant's thinking and tool calls are not its text).
    let content = extract_text_content(Some(message.get("content")?));
    let what = match message.get("role")?.as_str()? {
        "user" => "user".to_string(),
        "assistant" => "assistant".to_string(),
        "toolResult" => {
            let tool = message.get("toolName").and_then(Value::as_str).unwrap_or("?");
            if tool == TOOL_NAME {
                return None;
            }
            format!("tool result of {tool}")
        }
        _ => return None,
    };
    let id = entry.get("id")?.as_str()?.to_string();
    (!content.is_empty()).then_some(Item { id, what, text: content })
}

/// The whole of one entry as pi holds it (`text`: its JSON text): a message's every block — text, thinking,
/// tool calls with their arguments, images by type — a summary's text, a custom message's content; any
/// other entry as its JSON text.
fn whole_item(text: &str) -> Option<Item> {
    let entry = serde_json::from_str::<Value>(text).ok()?;
    let id = entry.get("id")?.as_str()?.to_string();
    let kind = entry.get("type").and_then(Value::as_str).unwrap_or("");
    let role = entry.get("message").and_then(|m| m.get("role")).and_then(Value::as_str);
    let (what, body) = match (kind, entry.get("message")) {
        // A message with content (the user's own `!command` has none: it is shown as its JSON text below).
        ("message", Some(message)) if message.get("content").is_some() => {
            let what = match role {
                Some("toolResult") => {
                    let tool = message.get("toolName").and_then(Value::as_str).unwrap_or("?");
                    let failed = message.get("isError").and_then(Value::as_bool) == Some(true);
                    texts::recall_whole_result(tool, failed)
                }
                other => other.unwrap_or("?").to_string(),
            };
            (what, blocks_text(message.get("content")))
        }
        ("branch_summary" | "compaction", _) => (kind.replace('_', " "), entry.get("summary").and_then(Value::as_str).unwrap_or("").to_string()),
        ("custom_message", _) => (format!("custom message {}", entry.get("customType").and_then(Value::as_str).unwrap_or("?")), blocks_text(entry.get("content"))),
        _ => (role.unwrap_or(kind).to_string(), text.to_string()),
    };
    Some(Item { id, what, text: if body.is_empty() { texts::recall_whole_empty() } else { body } })
}

/// Every block of a message's content as text: a string as is; text blocks as is; thinking, tool calls (with
/// their arguments as JSON), images and anything else on lines of their own.
fn blocks_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .map(|b| {
                let field = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or("");
                match field("type") {
                    "text" => field("text").to_string(),
                    "thinking" => texts::recall_whole_thinking(field("thinking")),
                    "toolCall" => call_text(field("name"), field("id"), b.get("arguments")),
                    "image" => texts::recall_whole_image(field("mimeType")),
                    _ => b.to_string(),
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Some(other) if !other.is_null() => other.to_string(),
        _ => String::new(),
    }
}

/// A tool call read whole: its name and id, then each argument on a line of its own, `key: value` — a string
/// value as it is (a file's content with its own line breaks, not escaped), any other as JSON.
fn call_text(name: &str, id: &str, arguments: Option<&Value>) -> String {
    let mut text = texts::recall_whole_call(name, id);
    match arguments {
        Some(Value::Object(map)) => {
            for (key, value) in map {
                text.push('\n');
                text.push_str(&texts::recall_whole_argument(key, &value.as_str().map_or_else(|| value.to_string(), String::from)));
            }
        }
        Some(other) => {
            text.push('\n');
            text.push_str(&other.to_string());
        }
        None => {}
    }
    text
}

/// A slice of one item on a page: bytes `start..end` of its text.
#[derive(Debug, Clone, Copy)]
struct Piece {
    item: usize,
    start: usize,
    end: usize,
}

/// Where to cut `text` so the first part has at most `max_units` UTF-16 units (at least one character):
/// after the last newline in the second half of that room, else at the last character that fits.
fn cut_at(text: &str, max_units: usize) -> usize {
    let mut units = 0;
    let mut end = 0;
    for (at, c) in text.char_indices() {
        units += c.len_utf16();
        if units > max_units {
            break;
        }
        end = at + c.len_utf8();
    }
    if end == 0 {
        return text.chars().next().map_or(0, char::len_utf8);
    }
    match text.get(..end).and_then(|t| t.rfind('\n')) {
        Some(nl) if nl + 1 > end / 2 => nl + 1,
        _ => end,
    }
}

/// Lays the items out on pages of `room` units of body each (item headers count against it, at `head`
/// units per piece): an item starts on a fresh page when it fits there but not here, and one bigger than
/// a page is split where the pages end.
fn lay_out(items: &[Item], room: usize, head: impl Fn(&Item) -> usize) -> Vec<Vec<Piece>> {
    let mut pages = Vec::new();
    let mut page: Vec<Piece> = Vec::new();
    let mut used = 0;
    for (i, item) in items.iter().enumerate() {
        let head = head(item);
        let mut start = 0;
        while start < item.text.len() {
            let rest = item.text.get(start..).unwrap_or("");
            let units = utf16_len(rest);
            let avail = room.saturating_sub(used + head);
            if units <= avail {
                page.push(Piece { item: i, start, end: item.text.len() });
                used += head + units;
                break;
            }
            let fits_empty = units <= room.saturating_sub(head);
            if !page.is_empty() && (fits_empty || avail < MIN_PIECE_UNITS) {
                pages.push(std::mem::take(&mut page));
                used = 0;
                continue;
            }
            let end = start + cut_at(rest, avail);
            page.push(Piece { item: i, start, end });
            pages.push(std::mem::take(&mut page));
            used = 0;
            start = end;
        }
    }
    if !page.is_empty() {
        pages.push(page);
    }
    pages
}

/// `recall`, second half: `entries` are the plan's entries as pi holds them (each as JSON text; one that
/// is missing or unreadable is left out), and the answer is the plan's page of their text.
pub fn page(plan: &RecallPlan, entries: &[Option<String>]) -> RecallAnswer {
    let items: Vec<Item> = if plan.whole {
        entries.iter().flatten().filter_map(|t| whole_item(t)).collect()
    } else {
        entries.iter().flatten().filter_map(|t| serde_json::from_str::<Value>(t).ok()).filter_map(|v| item_of(&v)).collect()
    };
    let name = plan.name.as_str();
    let query = plan.query.as_deref();
    let collapsed = items.len() as u32;
    if items.is_empty() {
        return RecallAnswer::Refuse(refuse(RefusalCode::NothingCollapsed, texts::recall_nothing(name)));
    }
    let items: Vec<Item> = match query {
        Some(q) => {
            let q = q.to_ascii_lowercase();
            items.into_iter().filter(|i| i.text.to_ascii_lowercase().contains(&q)).collect()
        }
        None => items,
    };
    let matches = items.len() as u32;
    if let (Some(q), true) = (query, items.is_empty()) {
        return RecallAnswer::Refuse(refuse(RefusalCode::NoMatch, texts::recall_no_match(name, q, collapsed)));
    }
    // Room for the header and footer at their longest (the page count is known only after paging).
    let reserve = utf16_len(&texts::recall_header(name, query, WIDEST_PAGE, WIDEST_PAGE, matches, collapsed))
            .max(utf16_len(&texts::recall_whole_header(name, WIDEST_PAGE, WIDEST_PAGE)))
        + utf16_len(&texts::recall_next(name, query, WIDEST_PAGE, WIDEST_PAGE))
        + 2;
    let head = |item: &Item| utf16_len(&texts::recall_item(&item.id, &item.what, Some((WIDEST_PAGE, WIDEST_PAGE)))) + 2;
    let pages = lay_out(&items, PAGE_UNITS.saturating_sub(reserve), head);
    let count = pages.len() as u32;
    let Some(pieces) = pages.get(plan.page as usize - 1) else {
        return RecallAnswer::Refuse(refuse(RefusalCode::NoSuchPage, texts::recall_no_page(name, query, plan.page, count)));
    };
    // How many pieces each item has, and which piece each of this page's is.
    let mut parts = vec![0u32; items.len()];
    let mut before = vec![0u32; items.len()];
    for (n, page) in pages.iter().enumerate() {
        for p in page {
            parts[p.item] += 1;
            if n + 1 < plan.page as usize {
                before[p.item] += 1;
            }
        }
    }
    let mut text = if plan.whole { texts::recall_whole_header(name, plan.page, count) } else { texts::recall_header(name, query, plan.page, count, matches, collapsed) };
    text.push('\n');
    let mut entry_ids = Vec::new();
    // An item has at most one piece per page: a split piece always ends its page.
    for p in pieces {
        let item = &items[p.item];
        let part = (parts[p.item] > 1).then(|| (before[p.item] + 1, parts[p.item]));
        text.push_str(&texts::recall_item(&item.id, &item.what, part));
        text.push('\n');
        text.push_str(item.text.get(p.start..p.end).unwrap_or(""));
        text.push('\n');
        entry_ids.push(item.id.clone());
    }
    let end = if plan.whole { texts::recall_whole_end(name) } else { texts::recall_end(name) };
    text.push_str(&if plan.page < count { texts::recall_next(name, query, plan.page + 1, count) } else { end });
    let tokens = ceil_quarter(utf16_len(&text));
    RecallAnswer::Page(RecallPage {
        text,
        details: RecallDetails {
            name: name.into(),
            query: plan.query.clone(),
            page: plan.page,
            pages: count,
            collapsed,
            matches,
            entry_ids,
            tokens,
        },
    })
}

#[cfg(test)]
pub(super) mod tests {
    use std::fmt::Write as _;

    use serde_json::{json, Value};

    use super::*;
    use crate::session::Mode;
    use crate::tool::synthetic::{synthetic_assistant, KeptArguments};
    use crate::tool::{Arguments, ToolPlan};

    /// Session lines; each entry's parent is the previous line unless given.
    #[derive(Default)]
    pub(in crate::tool) struct Lines(Vec<Value>);

    impl Lines {
        pub(in crate::tool) fn push(&mut self, id: &str, mut entry: Value) -> &mut Self {
            entry["id"] = json!(id);
            if entry.get("parentId").is_none() {
                entry["parentId"] = self.0.last().map_or(Value::Null, |l| l["id"].clone());
            }
            entry["timestamp"] = json!(format!("2026-01-01T00:{:02}:00.000Z", self.0.len()));
            self.0.push(entry);
            self
        }
        pub(in crate::tool) fn message(&mut self, id: &str, message: &Value) -> &mut Self {
            self.push(id, json!({"type": "message", "message": message}))
        }
        pub(in crate::tool) fn user(&mut self, id: &str, text: &str) -> &mut Self {
            self.message(id, &json!({"role": "user", "content": text}))
        }
        pub(in crate::tool) fn call(&mut self, id: &str, text: &str, call: &str, tool: &str) -> &mut Self {
            let mut content = vec![json!({"type": "toolCall", "id": call, "name": tool, "arguments": {}})];
            if !text.is_empty() {
                content.insert(0, json!({"type": "text", "text": text}));
            }
            self.message(id, &json!({"role": "assistant", "content": content, "stopReason": "toolUse",
                "usage": {"input": 100, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 110}}))
        }
        pub(in crate::tool) fn result(&mut self, id: &str, call: &str, tool: &str, text: &str) -> &mut Self {
            self.message(id, &json!({"role": "toolResult", "toolCallId": call, "toolName": tool,
                "content": [{"type": "text", "text": text}], "isError": false}))
        }
        pub(in crate::tool) fn label(&mut self, id: &str, target: &str, label: &str) -> &mut Self {
            self.push(id, json!({"type": "label", "targetId": target, "label": label}))
        }
        /// What a rewind writes: the summary under `target`, its label, the synthetic call `call`, its result.
        pub(in crate::tool) fn rewind(&mut self, n: &str, target: &str, end: &str, call: &str) -> &mut Self {
            let synthetic = synthetic_assistant(call, KeptArguments::of(&Arguments::default()), None, 10.0, 0.0);
            self.push(&format!("bs{n}"), json!({"type": "branch_summary", "parentId": target, "fromId": target, "summary": "## Goal"}))
                .label(&format!("lb{n}"), &format!("bs{n}"), &format!("anchor:{end}"))
                .message(&format!("syn{n}"), &serde_json::to_value(synthetic).unwrap())
                .result(&format!("rr{n}"), call, TOOL_NAME, "[rewind] done")
        }
        pub(in crate::tool) fn index(&self) -> SessionIndex {
            let mut index = SessionIndex::new(Mode::Plugin);
            let text: Vec<String> = self.0.iter().map(Value::to_string).collect();
            assert!(index.append_jsonl(&text.join("\n")).skipped.is_empty());
            index
        }
        /// The entries as the shim hands them over.
        pub(in crate::tool) fn entries(&self, ids: &[String]) -> Vec<Option<String>> {
            ids.iter().map(|id| self.0.iter().find(|l| l["id"] == json!(id)).map(Value::to_string)).collect()
        }
    }

    fn facts() -> ToolFacts {
        serde_json::from_value(json!({"callId": "now", "contextWindow": 100_000})).unwrap()
    }

    fn plan_of(index: &mut SessionIndex, args: &Value) -> ToolPlan {
        crate::tool::plan(index, &Arguments::from_value(args.clone()), &facts()).unwrap()
    }

    fn recall_plan(index: &mut SessionIndex, args: &Value) -> RecallPlan {
        match plan_of(index, args) {
            ToolPlan::Recall(p) => p,
            other => panic!("expected a recall plan, got {other:?}"),
        }
    }

    fn refused(plan: &ToolPlan) -> RefusalCode {
        match plan {
            ToolPlan::Refuse(r) => r.code,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    fn page_of(lines: &Lines, args: &Value) -> RecallAnswer {
        let plan = recall_plan(&mut lines.index(), args);
        page(&plan, &lines.entries(&plan.entry_ids))
    }

    fn text(answer: &RecallAnswer) -> &str {
        match answer {
            RecallAnswer::Page(p) => &p.text,
            RecallAnswer::Refuse(r) => panic!("expected a page, got {r:?}"),
        }
    }

    /// u (anchor `start`) → a1 → r1 (read: `file`) → a2 → r2 (bash) → a3 (the rewind call c3), then the
    /// rewind to `start` as `done`, and more work on the new branch.
    pub(in crate::tool) fn rewound(file: &str) -> Lines {
        let mut s = Lines::default();
        s.user("u", "please build the parser")
            .call("a1", "Reading the grammar.", "c1", "read")
            .label("l1", "u", "anchor:start")
            .result("r1", "c1", "read", file)
            .call("a2", "", "c2", "bash")
            .result("r2", "c2", "bash", "error[E0308]: Mismatched types")
            .call("a3", "", "c3", TOOL_NAME)
            .rewind("1", "u", "done", "c3")
            .call("a4", "next", "c4", "bash")
            .result("r4", "c4", "bash", "later work, not collapsed");
        s
    }

    #[test]
    fn the_summary_name_and_the_anchor_name_recall_what_the_rewind_collapsed() {
        let s = rewound("fn main() {}\n");
        let mut index = s.index();
        let by_summary = recall_plan(&mut index, &json!({"action": "recall", "name": "done"}));
        assert_eq!(by_summary.entry_ids, ["a1", "r1", "a2", "r2", "a3"]);
        assert_eq!((by_summary.page, by_summary.query.as_deref()), (1, None));
        let by_anchor = recall_plan(&mut index, &json!({"action": "recall", "name": "start"}));
        assert_eq!(by_anchor.entry_ids, by_summary.entry_ids);
        // The rewind's own parameter names are understood as the name.
        assert_eq!(recall_plan(&mut index, &json!({"action": "recall", "labelEnd": "done"})).entry_ids, by_summary.entry_ids);
        let page = text(&page_of(&s, &json!({"action": "recall", "name": "done"}))).to_string();
        assert!(page.starts_with("[recall 'done'] page 1 of 1 · 3 collapsed entries · exact text, oldest first\n"), "{page}");
        assert!(page.contains("──── entry r1 · tool result of read ────\nfn main() {}\n\n"), "{page}");
        assert!(page.contains("──── entry a1 · assistant ────\nReading the grammar.\n"), "{page}");
        assert!(!page.contains("later work"), "only the collapsed work: {page}");
        assert!(!page.contains("a3"), "a bare tool call has no text: {page}");
        assert!(page.ends_with("End of what was collapsed at 'done'."), "{page}");
    }

    #[test]
    fn a_second_rewind_to_the_same_anchor_adds_its_work_and_a_chain_is_followed() {
        let mut s = rewound("one");
        s.call("a5", "", "c5", TOOL_NAME).rewind("2", "u", "again", "c5");
        let mut index = s.index();
        // `again` collapsed the first rewind's branch: its summary, synthetic call and the later work.
        let again = recall_plan(&mut index, &json!({"action": "recall", "name": "again"}));
        assert_eq!(again.entry_ids, ["syn1", "rr1", "a4", "r4", "a5"]);
        let start = recall_plan(&mut index, &json!({"action": "recall", "name": "start"}));
        assert_eq!(start.entry_ids, ["a1", "r1", "a2", "r2", "a3", "syn1", "rr1", "a4", "r4", "a5"]);
        // `done` now sits on the abandoned branch and still names what its rewind collapsed.
        assert_eq!(recall_plan(&mut index, &json!({"action": "recall", "name": "done"})).entry_ids, ["a1", "r1", "a2", "r2", "a3"]);
        // This tool's own results are left out of the text.
        let page = text(&page_of(&s, &json!({"action": "recall", "name": "again"}))).to_string();
        assert!(!page.contains("[rewind] done") && page.contains("later work, not collapsed"), "{page}");
    }

    #[test]
    fn refusals_say_why() {
        let s = rewound("x");
        let mut index = s.index();
        let code = |index: &mut SessionIndex, args: Value| refused(&plan_of(index, &args));
        assert_eq!(code(&mut index, json!({"action": "recall", "name": "nope"})), RefusalCode::UnknownName);
        assert_eq!(code(&mut index, json!({"action": "recall"})), RefusalCode::InvalidName);
        assert_eq!(code(&mut index, json!({"action": "recall", "name": "Done"})), RefusalCode::InvalidName);
        assert_eq!(code(&mut index, json!({"action": "recall", "name": "done", "query": 3})), RefusalCode::InvalidRecall);
        let long = "q".repeat(MAX_QUERY_CHARS + 1);
        assert_eq!(code(&mut index, json!({"action": "recall", "name": "done", "query": long})), RefusalCode::InvalidRecall);
        for bad in [json!(0), json!(1.5), json!("two"), json!(-1), json!([1])] {
            assert_eq!(code(&mut index, json!({"action": "recall", "name": "done", "page": bad})), RefusalCode::InvalidRecall, "{bad}");
        }
        assert_eq!(recall_plan(&mut index, &json!({"action": "recall", "name": "done", "page": "2", "query": "  "})).page, 2);
        // A rewind whose call pi stored only afterwards, below the summary: no abandoned branch is known.
        let mut late = Lines::default();
        late.user("u", "go").label("l1", "u", "anchor:start").call("a1", "", "c1", "bash").result("r1", "c1", "bash", "work");
        late.rewind("1", "u", "done", "c3").call("a3", "", "c3", TOOL_NAME);
        assert_eq!(code(&mut late.index(), json!({"action": "recall", "name": "done"})), RefusalCode::NothingCollapsed);
        // An anchor nothing was rewound to.
        let mut plain = rewound("x");
        plain.label("l9", "a4", "anchor:later");
        assert_eq!(code(&mut plain.index(), json!({"action": "recall", "name": "later"})), RefusalCode::NothingCollapsed);
        let no_match = page_of(&s, &json!({"action": "recall", "name": "done", "query": "absent"}));
        assert!(matches!(&no_match, RecallAnswer::Refuse(r) if r.code == RefusalCode::NoMatch), "{no_match:?}");
        let past = page_of(&s, &json!({"action": "recall", "name": "done", "page": 2}));
        assert!(matches!(&past, RecallAnswer::Refuse(r) if r.code == RefusalCode::NoSuchPage), "{past:?}");
        // Entries the host could not hand over (or unreadable ones) are left out; none at all: nothing.
        let done = recall_plan(&mut index, &json!({"action": "recall", "name": "done"}));
        let nothing = page(&done, &[None, Some("{not json".into())]);
        assert!(matches!(&nothing, RecallAnswer::Refuse(r) if r.code == RefusalCode::NothingCollapsed), "{nothing:?}");
    }

    #[test]
    fn a_query_narrows_case_insensitively() {
        let s = rewound("fn main() {}");
        let answer = page_of(&s, &json!({"action": "recall", "name": "done", "query": "MISMATCHED"}));
        let RecallAnswer::Page(p) = &answer else { panic!("{answer:?}") };
        assert_eq!(p.details.entry_ids, ["r2"]);
        assert_eq!((p.details.matches, p.details.collapsed), (1, 3));
        assert!(p.text.starts_with("[recall 'done'] page 1 of 1 · 1 of 3 collapsed entries contain \"MISMATCHED\""), "{}", p.text);
        assert!(p.text.contains("error[E0308]: Mismatched types\n"), "{}", p.text);
    }

    /// Every page fits the budget, the pieces put back together are the exact text, and the footers lead
    /// from each page to the next.
    #[test]
    fn pages_stay_under_the_budget_and_give_back_the_exact_text() {
        let mut file = String::new();
        for n in 0..3000 {
            writeln!(file, "line {n}: é😀 \"quoted\" \\ tab\t{}", "x".repeat(n % 37)).unwrap();
        }
        let no_newlines = "ab😀".repeat(9000);
        let mut s = rewound(&file);
        s.call("a5", "", "c5", "read").result("r5", "c5", "read", &no_newlines).call("a6", "", "c6", TOOL_NAME).rewind("2", "bs1", "big", "c6");
        for (name, expected) in [("done", file.as_str()), ("big", no_newlines.as_str())] {
            let first = page_of(&s, &json!({"action": "recall", "name": name, "query": "😀"}));
            let RecallAnswer::Page(first) = first else { panic!("{first:?}") };
            let pages = first.details.pages;
            assert!(pages > 3, "{pages}");
            let mut pieces = String::new();
            for k in 1..=pages {
                let answer = page_of(&s, &json!({"action": "recall", "name": name, "query": "😀", "page": k}));
                let RecallAnswer::Page(p) = answer else { panic!("{answer:?}") };
                assert!(p.details.tokens <= PAGE_TOKENS as f64, "page {k}: {}", p.details.tokens);
                assert_eq!(p.details.tokens, ceil_quarter(utf16_len(&p.text)));
                assert!(k == pages || p.details.tokens > PAGE_TOKENS as f64 * 0.8, "pages are filled: page {k} of {pages}: {}", p.details.tokens);
                let head = format!("part {k} of {pages} ────\n");
                let at = p.text.find(&head).unwrap_or_else(|| panic!("page {k}: {}", p.text)) + head.len();
                let footer = if k < pages {
                    format!("\nPage {} of {pages}: navigate_tree(action='recall', name='{name}', query=\"😀\", page={})", k + 1, k + 1)
                } else {
                    format!("\nEnd of what was collapsed at '{name}'.")
                };
                assert!(p.text.ends_with(&footer), "page {k}: {}", p.text);
                pieces.push_str(&p.text[at..p.text.len() - footer.len()]);
            }
            assert!(pieces == expected, "{name}: the pieces rebuild the text exactly");
        }
    }

    #[test]
    fn a_cut_falls_after_a_newline_in_the_second_half_or_at_a_character() {
        assert_eq!(cut_at("aaaa\nbbbbbbbb", 8), 5);
        assert_eq!(cut_at("a\nbbbbbbbbbbb", 8), 8);
        assert_eq!(cut_at("😀😀😀", 3), 4, "a surrogate pair is never split");
        assert_eq!(cut_at("😀😀", 1), 4, "at least one character");
        assert_eq!(cut_at("", 5), 0);
    }

    #[test]
    fn an_entry_id_reads_that_entry_whole() {
        let s = rewound("fn main() {}");
        let mut index = s.index();
        let plan = recall_plan(&mut index, &json!({"action": "recall", "name": "a1", "query": "ignored"}));
        assert_eq!((plan.entry_ids.as_slice(), plan.whole, plan.query.as_deref()), (&["a1".to_string()][..], true, None));
        // The tool call a collapsed assistant made, with its arguments: more than its text.
        let page = text(&page_of(&s, &json!({"action": "recall", "name": "a1"}))).to_string();
        assert_eq!(
            page,
            "[recall 'a1'] page 1 of 1 · entry a1, whole · exact text\n──── entry a1 · assistant ────\nReading the grammar.\n\
             [tool call read (c1)]\nEnd of entry a1."
        );
        // Any entry, this tool's own result and entries outside the collapsed work included.
        let result = text(&page_of(&s, &json!({"action": "recall", "name": "rr1"}))).to_string();
        assert!(result.contains("──── entry rr1 · tool result of navigate_tree ────\n[rewind] done\n"), "{result}");
        let summary = text(&page_of(&s, &json!({"action": "recall", "name": "bs1"}))).to_string();
        assert!(summary.contains("──── entry bs1 · branch summary ────\n## Goal\n"), "{summary}");
        let label = text(&page_of(&s, &json!({"action": "recall", "name": "lb1"}))).to_string();
        assert!(label.contains("\"label\":\"anchor:done\""), "another entry as its JSON text: {label}");
        // An anchor of the same name with collapsed work wins (one with none does not); an id that is no
        // valid anchor name still reads as an id.
        let mut both = rewound("x");
        both.label("l8", "u", "anchor:a2").label("l9", "a4", "anchor:a1").user("Not_Kebab", "typed");
        let mut index = both.index();
        assert!(!recall_plan(&mut index, &json!({"action": "recall", "name": "a2"})).whole);
        assert!(recall_plan(&mut index, &json!({"action": "recall", "name": "a1"})).whole);
        assert!(recall_plan(&mut index, &json!({"action": "recall", "name": "Not_Kebab"})).whole);
        assert_eq!(refused(&plan_of(&mut index, &json!({"action": "recall", "name": "Nope_1"}))), RefusalCode::InvalidName);
        assert_eq!(refused(&plan_of(&mut index, &json!({"action": "recall", "name": "nope"}))), RefusalCode::UnknownName);
    }

    #[test]
    fn a_whole_entry_shows_every_block() {
        let mut s = Lines::default();
        s.message("m", &json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm"},
            {"type": "text", "text": "doing it"},
            {"type": "toolCall", "id": "c1", "name": "write", "arguments": {"path": "a.rs", "content": "line one\nline two"}},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "other", "n": 1}]}))
            .message("b", &json!({"role": "bashExecution", "command": "make", "output": "ok", "exitCode": 2}))
            .message("e", &json!({"role": "toolResult", "toolCallId": "c1", "toolName": "edit", "content": [], "isError": true}));
        let page = text(&page_of(&s, &json!({"action": "recall", "name": "m"}))).to_string();
        assert!(page.contains("[thinking]\nhmm\n[/thinking]\ndoing it\n[tool call write (c1)]\ncontent: line one\nline two\npath: a.rs\n[image image/png]\n{\"n\":1,\"type\":\"other\"}\n"), "{page}");
        let bash = text(&page_of(&s, &json!({"action": "recall", "name": "b"}))).to_string();
        assert!(bash.contains("──── entry b · bashExecution ────\n{\"id\":\"b\","), "the user's own command as its JSON text: {bash}");
        assert!(bash.contains("\"command\":\"make\"") && bash.contains("\"exitCode\":2"), "{bash}");
        let empty = text(&page_of(&s, &json!({"action": "recall", "name": "e"}))).to_string();
        assert!(empty.contains("──── entry e · tool result of edit, failed ────\n(no text)\n"), "{empty}");
    }

    /// The texts pinned in tests/fixtures/expected/tool-outputs.txt (see `tool::tests`).
    pub(in crate::tool) fn golden(put: &mut dyn FnMut(&str, &str)) {
        let s = rewound("fn main() {\n    println!(\"hi\");\n}\n");
        let mut index = s.index();
        for (what, args) in [
            ("recall plan", json!({"action": "recall", "name": "done", "query": "Main"})),
            ("recall unknown", json!({"action": "recall", "name": "nope"})),
            ("recall bad query", json!({"action": "recall", "name": "done", "query": ["x"]})),
            ("recall bad page", json!({"action": "recall", "name": "done", "page": 0})),
            ("recall bad name", json!({"action": "recall", "name": "anchor:done"})),
        ] {
            put(what, &json(&plan_of(&mut index, &args)));
        }
        let mut plain = rewound("x");
        plain.label("l9", "a4", "anchor:later");
        put("recall nothing", &json(&plan_of(&mut plain.index(), &json!({"action": "recall", "name": "later"}))));
        for (what, args) in [
            ("recall page", json!({"action": "recall", "name": "done"})),
            ("recall query", json!({"action": "recall", "name": "start", "query": "PRINTLN"})),
            ("recall no match", json!({"action": "recall", "name": "done", "query": "nothing \"here\""})),
            ("recall no page", json!({"action": "recall", "name": "done", "query": "main", "page": 3})),
        ] {
            put(what, &json(&page_of(&s, &args)));
        }
        put("recall entry", &json(&page_of(&s, &json!({"action": "recall", "name": "r2"}))));
        let big = rewound(&"0123456789abcdef\n".repeat(600));
        for k in 1..=2 {
            put(&format!("recall split {k}"), &json(&page_of(&big, &json!({"action": "recall", "name": "done", "page": k}))));
        }
    }

    /// A result as JavaScript receives it.
    fn json(result: &impl Serialize) -> String {
        serde_json::to_string(result).expect("results serialize")
    }
}
