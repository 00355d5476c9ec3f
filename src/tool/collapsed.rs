//! The span a rewind collapsed, as the core finds it again in the tree: this tool's own artifacts (the
//! synthetic call a rewind appends under its summary) and, for a summary a rewind wrote, the message the
//! rewind was called from and the entries it collapsed (pi's `collectEntriesForBranchSummary`).
//!
//! Shared by everything that reads collapsed work back: `plan` (a rewind that would collapse only earlier
//! rewinds' artifacts), `recall` (what to read back), `/anchors` (what each rewind saved) and `ledger`
//! (the facts kept under a summary).

use std::collections::HashMap;

use serde_json::Value;

use crate::error::SessionError;
use crate::session::{Kind, SessionIndex, Slot, StopReason};

use super::definition::TOOL_NAME;

/// How far below a summary its rewind's synthetic assistant may sit (past the label entries written first).
const MAX_SYNTHETIC_DEPTH: usize = 8;

/// Our own synthetic shape: one `navigate_tree` call, no text, `toolUse`, zero input/output usage. Read
/// as stored: it recognises what this tool wrote, which another extension's `context_edit` does not change.
pub(super) fn is_synthetic(index: &SessionIndex, slot: Slot) -> bool {
    let entry = index.entry(slot);
    entry.assistant().is_some_and(|a| {
        let mut calls = a.tool_calls();
        a.zero_io()
            && a.stop_reason() == StopReason::ToolUse
            && calls.len() == 1
            && calls.next().is_some_and(|(_, name)| name == TOOL_NAME)
            && entry.hint().is_none()
    })
}

/// The rewind that wrote `summary`: the message it was called from (the old leaf) and what it collapsed,
/// oldest first; `None` as for [`rewind_collapsed`].
pub(super) fn rewound_from(index: &mut SessionIndex, summary: Slot) -> Result<Option<(Slot, Vec<Slot>)>, SessionError> {
    if index.entry(summary).kind() != Kind::BranchSummary {
        return Ok(None);
    }
    let Some(target) = index.parent_of(summary) else { return Ok(None) };
    let Some(synthetic) = synthetic_below(index, summary) else { return Ok(None) };
    let call_id = index.entry(synthetic).assistant().and_then(|a| a.tool_calls().next().map(|(id, _)| id.to_string()));
    let Some(call_id) = call_id else { return Ok(None) };
    // The message the rewind was called from: it carries the same call, on the abandoned branch.
    let calls = |s: Slot| index.entry(s).assistant().is_some_and(|a| a.tool_calls().any(|(id, _)| id == call_id));
    let Some(old_leaf) = (0..index.len() as Slot).find(|&s| s != synthetic && calls(s)) else { return Ok(None) };
    let (collapsed, common) = index.entries_between(Some(old_leaf), target)?;
    // A call pi stored only after the tool ran (docs/hosts.md, "When pi stores the in-flight call") may sit
    // below the summary: then the branch the rewind left is not known, and nothing is recalled rather
    // than the new branch's own entries.
    Ok((common == Some(target) && !collapsed.contains(&summary)).then_some((old_leaf, collapsed)))
}

/// The rewind's synthetic assistant below `summary`: a child, or below the label entries the rewind wrote
/// before it.
fn synthetic_below(index: &mut SessionIndex, summary: Slot) -> Option<Slot> {
    let mut at = summary;
    for _ in 0..MAX_SYNTHETIC_DEPTH {
        let children = index.children_of(at).to_vec();
        if let Some(&found) = children.iter().find(|&&c| is_synthetic(index, c)) {
            return Some(found);
        }
        at = *children.iter().find(|&&c| matches!(index.entry(c).kind(), Kind::Label | Kind::ContextEdit))?;
    }
    None
}

/// The entries of a span as pi holds them, each handed over as its JSON text: read once, in order; one
/// that is missing or unreadable is passed over.
pub(super) fn held_entries(entries: &[Option<String>]) -> Vec<Value> {
    entries.iter().flatten().filter_map(|t| serde_json::from_str::<Value>(t).ok()).filter(Value::is_object).collect()
}

/// An entry's id, when it has a string one.
pub(super) fn entry_id(entry: &Value) -> Option<&str> {
    entry.get("id").and_then(Value::as_str)
}

/// The `context_edit`s among a span's entries: the latest per target, as pi's `buildSessionProjection`
/// and (pi ≥1.5) `prepareBranchEntries` apply them.
#[derive(Debug, Default)]
pub(super) struct Edits<'a> {
    held: &'a [Value],
    /// Target id → the place of its latest edit in `held`.
    latest: HashMap<&'a str, usize>,
}

impl<'a> Edits<'a> {
    /// The edits of `held` (oldest first: a later edit of the same target wins); none when `apply` is false
    /// (a host generation whose rule reads messages as stored).
    pub(super) fn of(held: &'a [Value], apply: bool) -> Self {
        let mut latest = HashMap::new();
        let edits = held.iter().enumerate().filter(|(_, e)| apply && e.get("type").and_then(Value::as_str) == Some("context_edit"));
        for (at, entry) in edits {
            if let Some(target) = entry.get("targetId").and_then(Value::as_str) {
                latest.insert(target, at);
            }
        }
        Edits { held, latest }
    }

    /// `entry`'s message as the model saw it: the latest edit of the entry (if any) replaces its content
    /// as pi's `projectContextEntry` does; `None` when a `null` replacement took it out, or it is no message.
    pub(super) fn shown(&self, entry: &'a Value) -> Option<Shown<'a>> {
        let message = entry.get("message")?;
        let stored = Shown { message, content: Content::Stored };
        let Some(&at) = entry_id(entry).and_then(|id| self.latest.get(id)) else { return Some(stored) };
        // pi reads `edit.replacement`: `null` omits the entry; a missing one would throw in pi, read as no edit.
        let replacement = match self.held[at].get("replacement") {
            None => return Some(stored),
            Some(Value::Null) => return None,
            Some(r) => r,
        };
        let role = message.get("role").and_then(Value::as_str);
        if !matches!(role, Some("user" | "assistant" | "toolResult" | "custom")) {
            return Some(stored);
        }
        // An assistant's or toolResult's string replacement becomes one text block: the same text either way.
        let content = match replacement.get("content") {
            Some(Value::String(text)) => Content::Text(text),
            other => Content::Replaced(other),
        };
        Some(Shown { message, content })
    }
}

/// A message as the model saw it: the stored message, its content as the span's edits leave it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Shown<'a> {
    message: &'a Value,
    content: Content<'a>,
}

#[derive(Debug, Clone, Copy)]
enum Content<'a> {
    Stored,
    Replaced(Option<&'a Value>),
    Text(&'a str),
}

impl<'a> Shown<'a> {
    /// The message as stored, unedited (an entry read without edits).
    pub(super) fn stored(entry: &'a Value) -> Option<Self> {
        Some(Shown { message: entry.get("message")?, content: Content::Stored })
    }

    /// A field of the message other than its content.
    pub(super) fn get(&self, key: &str) -> Option<&'a Value> {
        self.message.get(key)
    }

    /// A string field of the message.
    pub(super) fn str(&self, key: &str) -> Option<&'a str> {
        self.message.get(key).and_then(Value::as_str)
    }

    /// The content's blocks (none for a string content).
    pub(super) fn blocks(&self) -> &'a [Value] {
        let content = match self.content {
            Content::Stored => self.message.get("content"),
            Content::Replaced(c) => c,
            Content::Text(_) => None,
        };
        content.and_then(Value::as_array).map_or(&[], Vec::as_slice)
    }

    /// The content's text: a string as is, else its text blocks joined by newlines.
    pub(super) fn text(&self) -> String {
        let content = match self.content {
            Content::Text(text) => return text.to_string(),
            Content::Stored => self.message.get("content"),
            Content::Replaced(c) => c,
        };
        match content {
            Some(Value::String(s)) => s.clone(),
            _ => self
                .blocks()
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}
