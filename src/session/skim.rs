//! A whole session file read for its estimates — the CLI's `list` and `tokens` — at a fraction of a full
//! read's cost.
//!
//! Most of a session's bytes are message content, and pi's estimate needs little of it: it anchors on the
//! last assistant usage and counts only the messages after it. So the user, assistant and tool result
//! messages are *skimmed* ([`super::read::skim_line`]: place, kind and usage, the content's syntax checked
//! but not decoded) and a line is read in full only when an answer needs its tokens or its preview: the
//! messages pi's estimate counts there ([`SkimmedSession::counted_before`]) and the anchors' previews. A
//! skimmed entry's tokens are NaN until it is read, so an estimate that still used one would come out NaN
//! and everything before it is read first: every answer is the one a full read gives (`tests/skim.rs` and
//! the differential tests hold the two side by side).

use super::feed::IngestReport;
use super::index::{Leaf, Mode, SessionIndex};
use super::record::Slot;
use super::tokens::{cumulative, TokenEstimate};
use super::view::{Anchor, LIST_HINT_MAX};
use super::{Kind, Profile};
use crate::error::SessionError;
use crate::text::ANCHOR_PREFIX;

/// A session file read for estimates, with the file's text kept for the lines read later.
#[derive(Debug)]
pub struct SkimmedSession {
    index: SessionIndex,
    text: String,
    report: IngestReport,
}

impl SkimmedSession {
    /// Reads a whole session file (`bytes`, invalid UTF-8 replaced as Node's decoding does) with pi's
    /// file rule (see [`SessionIndex::load_file`]), under `profile` when given (else as the contents
    /// say).
    pub fn load(bytes: Vec<u8>, profile: Option<Profile>) -> Self {
        let text = String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        let mut index = SessionIndex::new(Mode::Plugin);
        if let Some(profile) = profile {
            index.set_profile(profile);
        }
        // A fresh index is empty, which is all `load_file` asks.
        let report = index.load_file_skimming(&text).unwrap_or_default();
        SkimmedSession { index, text, report }
    }

    /// What the load did (skipped lines, warnings).
    pub fn report(&self) -> &IngestReport {
        &self.report
    }

    /// The file's text as read (UTF-8).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The index, for what it answers without tokens or previews (ids, labels, paths, the profile).
    pub fn index(&self) -> &SessionIndex {
        &self.index
    }

    /// How many entries are still only skimmed (not read in full).
    pub fn skimmed(&self) -> usize {
        (0..self.index.len() as Slot).filter(|&s| self.index.is_skimmed(s)).count()
    }

    /// pi's estimate with `leaf` as leaf ([`SessionIndex::estimate`]).
    pub fn estimate(&mut self, leaf: Leaf<'_>) -> Result<TokenEstimate, SessionError> {
        let path = self.path(leaf)?;
        self.settle(&path, |pos| pos + 1 == path.len());
        self.index.estimate(leaf)
    }

    /// The anchors on the path and the estimate at the leaf ([`SessionIndex::anchors_and_estimate`]).
    pub fn anchors_and_estimate(&mut self, leaf: Leaf<'_>) -> Result<(Vec<Anchor>, TokenEstimate), SessionError> {
        let path = self.path(leaf)?;
        let index = &self.index;
        let anchored = |pos: usize| index.label_at(path[pos]).is_some_and(|l| l.starts_with(ANCHOR_PREFIX));
        let anchors: Vec<usize> = (0..path.len()).filter(|&pos| anchored(pos)).collect();
        self.settle(&path, |pos| pos + 1 == path.len() || anchors.binary_search(&pos).is_ok());
        // An anchor's preview comes from its entry, or the nearest one above it that has one (the walk
        // of `hint_from`, which goes up the path), as the leaf's context edits leave them.
        let edits = self.index.context_edits(&path);
        for &pos in &anchors {
            for &slot in path[..=pos].iter().rev() {
                self.index.measure(slot, &self.text);
                if self.index.own_hint(slot, LIST_HINT_MAX, &edits).is_some() {
                    break;
                }
            }
        }
        self.index.anchors_and_estimate(leaf)
    }

    /// Every entry read in full: an index like [`SessionIndex::load_file`] builds.
    pub fn into_index(mut self) -> SessionIndex {
        for slot in 0..self.index.len() as Slot {
            self.index.measure(slot, &self.text);
        }
        self.index
    }

    fn path(&mut self, leaf: Leaf<'_>) -> Result<Vec<Slot>, SessionError> {
        let slot = self.index.resolve_leaf(leaf);
        self.index.path(slot)
    }

    /// Reads in full what the estimates at the path positions `wanted` use. First, for each estimate
    /// that came out NaN, the messages pi's estimate there counts ([`Self::counted_before`]); if one still
    /// is NaN (which that reckoning should never leave), everything up to it.
    fn settle(&mut self, path: &[Slot], wanted: impl Fn(usize) -> bool) {
        for round in 0..2 {
            let unknown: Vec<usize> =
                cumulative(&self.index, path).iter().enumerate().filter(|(pos, e)| e.tokens.is_nan() && wanted(*pos)).map(|(pos, _)| pos).collect();
            let Some(&last) = unknown.last() else { return };
            let reads: Vec<Slot> = match round {
                0 => unknown.iter().flat_map(|&pos| self.counted_before(&path[..=pos])).collect(),
                _ => path[..=last].to_vec(),
            };
            for slot in reads {
                self.index.measure(slot, &self.text);
            }
        }
    }

    /// The skimmed entries whose tokens pi's estimate with the last of `path` as leaf adds: walking back,
    /// those after the usage it anchors on — or, when no usage is trusted there (a compaction or an edit
    /// comes after it), every message of the context: back to the compaction's first kept entry, or the
    /// root.
    fn counted_before(&self, path: &[Slot]) -> Vec<Slot> {
        let (mut out, mut trusted, mut first_kept) = (Vec::new(), true, None);
        for &slot in path.iter().rev() {
            let entry = self.index.entry(slot);
            if let Some(first) = first_kept {
                if self.index.is_skimmed(slot) {
                    out.push(slot);
                }
                if self.index.id_of(slot) == first {
                    break;
                }
                continue;
            }
            match entry.kind() {
                Kind::Compaction => match entry.first_kept() {
                    Some(first) => first_kept = Some(first),
                    None => break,
                },
                Kind::ContextEdit => trusted = false,
                _ if trusted && self.index.has_usage(slot) => break,
                _ if self.index.is_skimmed(slot) => out.push(slot),
                _ => {}
            }
        }
        out
    }
}
