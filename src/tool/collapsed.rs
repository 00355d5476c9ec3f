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
    /// The edits of `held` (oldest first: a later edit of the same target wins).
    pub(super) fn of(held: &'a [Value]) -> Self {
        let mut latest = HashMap::new();
        for (at, entry) in held.iter().enumerate().filter(|(_, e)| e.get("type").and_then(Value::as_str) == Some("context_edit")) {
            if let Some(target) = entry.get("targetId").and_then(Value::as_str) {
                latest.insert(target, at);
            }
        }
        Edits { held, latest }
    }

    /// The edit in force for `entry`, if any.
    pub(super) fn of_entry(&self, entry: &Value) -> Option<Replacement<'a>> {
        let edit = &self.held[*self.latest.get(entry_id(entry)?)?];
        // pi reads `edit.replacement`: `null` omits the entry; a missing one would throw in pi, read as no edit.
        match edit.get("replacement") {
            None => None,
            Some(Value::Null) => Some(Replacement(None)),
            Some(r) => Some(Replacement(Some(r))),
        }
    }
}

/// A `context_edit`'s replacement: `None` takes the message out of the context.
#[derive(Debug, Clone, Copy)]
pub(super) struct Replacement<'a>(Option<&'a Value>);

impl Replacement<'_> {
    /// `message` as the edit leaves it (pi's `projectContextEntry`): `None` when omitted; the content of a
    /// user, assistant, toolResult or custom message replaced (an assistant's or toolResult's string
    /// replacement becomes one text block); other roles unchanged.
    pub(super) fn apply(self, message: &Value) -> Option<Value> {
        let replacement = self.0?;
        let mut out = message.clone();
        let role = message.get("role").and_then(Value::as_str);
        if !matches!(role, Some("user" | "assistant" | "toolResult" | "custom")) {
            return Some(out);
        }
        let content = replacement.get("content").cloned();
        let content = match (role, content) {
            (Some("assistant" | "toolResult"), Some(Value::String(text))) => Some(serde_json::json!([{"type": "text", "text": text}])),
            (_, c) => c,
        };
        if let Some(map) = out.as_object_mut() {
            // pi sets `content` to `replacement.content`, `undefined` when it has none: read as no content.
            map.insert("content".into(), content.unwrap_or(Value::Null));
        }
        Some(out)
    }
}
