//! The span a rewind collapsed, as the core finds it again in the tree: this tool's own artifacts (the
//! synthetic call a rewind appends under its summary) and, for a summary a rewind wrote, the message the
//! rewind was called from and the entries it collapsed (pi's `collectEntriesForBranchSummary`).
//!
//! Shared by everything that reads collapsed work back: `plan` (a rewind that would collapse only earlier
//! rewinds' artifacts), `recall` (what to read back), `/anchors` (what each rewind saved) and `ledger`
//! (the facts kept under a summary).

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
