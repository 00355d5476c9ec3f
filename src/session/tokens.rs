//! Token estimates identical to pi's `estimateContextTokens(buildSessionContext(…).messages)`, and the
//! estimate "as if the leaf were here" for every entry of a path in one pass.
//!
//! pi's estimate anchors on the last assistant message with usable `usage` and adds `ceil(chars/4)` for
//! every message after it; with no such assistant it sums every message. Each entry's own share
//! (`Entry::tokens`, `Entry::usage`) is computed once at ingest, so an estimate is a walk over numbers.

use super::entry::Kind;
use super::index::{Leaf, SessionIndex};
use super::record::{Record, Slot};
use crate::error::SessionError;

/// pi's `estimateContextTokens` result.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Estimate {
    /// `usageTokens + trailingTokens`.
    pub tokens: f64,
    /// The anchoring assistant's usage, or 0.
    pub usage_tokens: f64,
    /// Estimated tokens of the messages after the anchor (all messages when there is none).
    pub trailing_tokens: f64,
    /// Index of the anchoring assistant in the context's messages.
    pub last_usage_index: Option<usize>,
}

/// Running estimate over a context being built message by message.
#[derive(Debug, Default, Clone, Copy)]
struct Running {
    all: f64,
    trailing: f64,
    usage: Option<f64>,
    usage_index: usize,
    messages: usize,
}

impl Running {
    fn push(&mut self, tokens: f64, usage: Option<f64>) {
        if let Some(u) = usage {
            self.usage = Some(u);
            self.usage_index = self.messages;
            self.trailing = 0.0;
        } else {
            self.trailing += tokens;
        }
        self.all += tokens;
        self.messages += 1;
    }

    fn push_entry(&mut self, record: &Record) {
        if record.emits_message() {
            self.push(record.tokens, record.usage());
        }
    }

    fn estimate(&self) -> Estimate {
        match self.usage {
            Some(u) => Estimate {
                tokens: u + self.trailing,
                usage_tokens: u,
                trailing_tokens: self.trailing,
                last_usage_index: Some(self.usage_index),
            },
            None => Estimate { tokens: self.all, usage_tokens: 0.0, trailing_tokens: self.all, last_usage_index: None },
        }
    }
}

/// For each position `i` of `path` (root first), the estimate of the context pi would build with
/// `path[i]` as leaf. One pass; a compaction restarts the running sum from its kept entries.
pub fn cumulative(index: &SessionIndex, path: &[Slot]) -> Vec<Estimate> {
    let mut run = Running::default();
    // Position of each path entry, to find a compaction's first kept entry without scanning the path.
    // Filled only up to the latest compaction met, so a path without one never touches the table.
    let mut position = index.take_position_scratch();
    let mut filled = 0;
    // A `map` over the path collects into a vector of exactly its length (no growth code).
    let out = path
        .iter()
        .enumerate()
        .map(|(i, &slot)| {
            let record = index.record(slot);
            if record.kind != Kind::Compaction {
                run.push_entry(record);
                return run.estimate();
            }
            if position.len() < index.len() {
                position.resize(index.len(), u32::MAX);
            }
            // Checked access throughout (slots and positions are in range): no panic paths to carry.
            for j in filled..i {
                // The first position wins, like pi's `findIndex`.
                let unset = path.get(j).and_then(|&s| position.get_mut(s as usize)).filter(|p| **p == u32::MAX);
                if let Some(p) = unset {
                    *p = j as u32;
                }
            }
            filled = filled.max(i);
            run = Running::default();
            run.push(record.tokens, None);
            // Kept entries: from `firstKeptEntryId` (the first entry with that id before the compaction,
            // as pi searches) up to the compaction; none if the id is not there.
            let kept = index.entry(slot).first_kept().and_then(|first| kept_start(index, path, &position, first, i));
            for &kept in kept.and_then(|start| path.get(start..i)).unwrap_or_default() {
                run.push_entry(index.record(kept));
            }
            run.estimate()
        })
        .collect();
    // Hand the table back all-unset, touching only what this path set (no O(entries) reset per call).
    for &s in path.get(..filled).unwrap_or_default() {
        if let Some(p) = position.get_mut(s as usize) {
            *p = u32::MAX;
        }
    }
    index.return_position_scratch(position);
    out
}

/// Where the kept range of a compaction at `at` starts: the first path position before it whose entry has
/// id `first`. By slot in the usual case; by id only when repeated ids could hide it behind another slot.
fn kept_start(index: &SessionIndex, path: &[Slot], position: &[u32], first: &str, at: usize) -> Option<usize> {
    if index.has_duplicate_ids() {
        return path.iter().take(at).position(|&s| index.id_of(s) == first);
    }
    let slot = index.slot_of(first)?;
    let pos = *position.get(slot as usize)? as usize;
    (pos < at).then_some(pos)
}

impl SessionIndex {
    /// pi's estimate for the context with `leaf` as leaf.
    pub fn estimate(&mut self, leaf: Leaf<'_>) -> Result<Estimate, SessionError> {
        let slot = self.resolve_leaf(leaf);
        let path = self.path(slot)?;
        Ok(cumulative(self, &path).last().copied().unwrap_or_default())
    }
}
