//! What a rewind saves: the one rule behind every number that reports it — the min-savings guard, the rewind's
//! result and TUI headline, `/anchors`, the pressure hint, `stats`, the viewer and the cost model.
//!
//! A rewind takes the messages after its anchor out of the context and puts its branch summary (the model's
//! text and the ledger) in their place. Its saving is what those messages weigh by pi's own per-message
//! estimate (`estimateTokens`, `ceil(chars / 4)`), less what the summary weighs by the same estimate. It is
//! never the difference of two of pi's context estimates: each of those anchors on the last usage before its
//! point, and the two usages may have been counted by different models (a model switched mid-session, a
//! session resumed with another model, another system prompt or other tools): their difference would then
//! be off by the whole prefix's difference in counting, either way.
//!
//! The removed weight is taken as the difference of the context's own weight (every message by its own
//! estimate, no usage: `PathPoint::content`) at the point the rewind leaves and at its target, on one path:
//! the collapsed messages' own estimates where nothing but messages lies between, and still what the context
//! loses where a compaction or a `context_edit` does (rewinding behind a compaction brings its summarized
//! prefix back: a negative saving, refused).

use serde::Serialize;
use tsify_next::Tsify;

use crate::cost::CostReport;
use crate::error::SessionError;
use crate::js::utf16_len;
use crate::session::{ceil_quarter, path_points, Anchor, Leaf, PathPoint, SessionIndex, Slot};

use super::collapsed::rewound_from;
use super::number::js_number;

/// What a rewind saves (see the module's documentation).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct RewindSaving {
    /// What the messages the rewind takes out weigh, by their own estimates.
    #[serde(serialize_with = "js_number")]
    pub removed_tokens: f64,
    /// What the branch summary that replaces them weighs (its text with the ledger, as pi estimates a branch
    /// summary); 0 for a rewind not summarized yet.
    #[serde(serialize_with = "js_number")]
    pub summary_tokens: f64,
    /// `removedTokens − summaryTokens`: the saving.
    #[serde(serialize_with = "js_number")]
    pub saved_tokens: f64,
    /// Whether pi's estimate at the anchor and at the point the rewind left anchor on usages of different
    /// sources (see [`baseline_changed`]): the anchor's own context % and the context before the rewind are
    /// then counts of two models, and their difference is not what the rewind saves.
    pub baseline_changed: bool,
}

impl RewindSaving {
    /// The same rewind once its summary (`summary_tokens`, pi's estimate of the `branch_summary`) is known.
    #[must_use]
    pub fn with_summary(self, summary_tokens: f64) -> Self {
        RewindSaving { summary_tokens, saved_tokens: self.removed_tokens - summary_tokens, ..self }
    }

    /// The saving as every report shows it (`/anchors`, `stats`, the cost model's `tokensRemoved`): never below 0
    /// (a rewind that brought more back than it took out saved nothing; the guard refuses those).
    pub fn saved(&self) -> f64 {
        self.saved_tokens.max(0.0)
    }

    /// The context after the rewind, from the context before it (`before`, pi's estimate: what the model last
    /// saw): `before` less the saving — what the next request carries, in the same count as `before`. Never
    /// below 0 (a provider counting far below `chars / 4` could otherwise take more off than it counted).
    pub fn after(&self, before: f64) -> f64 {
        (before - self.saved_tokens).max(0.0)
    }
}

/// pi's estimate of a `branch_summary` entry holding `summary` (its text only: pi counts neither the wrapper
/// it sends the summary in, nor the entry's other fields).
pub fn summary_tokens(summary: &str) -> f64 {
    ceil_quarter(utf16_len(summary))
}

/// Whether a usage source changed between two points of a path: pi's estimate at each anchors on a usage
/// (`PathPoint::usage_slot`), and the two assistant messages name different `(provider, model)` pairs. A
/// point whose estimate trusts no usage (none yet, or all before a compaction or `context_edit`) counts every
/// message by its own estimate, which is no provider's count: no change is reported there. A change of system
/// prompt or tools under the same model is not visible in the session and is not reported.
pub fn baseline_changed(index: &SessionIndex, at: &PathPoint, now: &PathPoint) -> bool {
    let (Some(a), Some(b)) = (at.usage_slot, now.usage_slot) else { return false };
    match (index.entry(a).assistant(), index.entry(b).assistant()) {
        (Some(a), Some(b)) => !a.same_source(&b),
        _ => false,
    }
}

/// The saving of a rewind from path position `from` (the point it leaves: the context the model last saw) back
/// to position `target` of the same path, whose points are `points` ([`path_points`]); nothing summarized yet.
pub(super) fn between(index: &SessionIndex, points: &[PathPoint], from: usize, target: usize) -> RewindSaving {
    let (Some(now), Some(at)) = (points.get(from), points.get(target)) else { return RewindSaving::default() };
    let removed = now.content - at.content;
    RewindSaving { removed_tokens: removed, summary_tokens: 0.0, saved_tokens: removed, baseline_changed: baseline_changed(index, at, now) }
}

/// The saving of a rewind planned from `from` (the entry the rewind leaves: the parent of the message that
/// calls it) back to `target` (an entry on `from`'s path), before any summary is written: what its guard
/// judges. `None` when `target` is not on `from`'s path.
///
/// # Errors
/// `Cycle` for a corrupt tree.
pub fn planned_rewind_saving(index: &mut SessionIndex, from: Slot, target: Slot) -> Result<Option<RewindSaving>, SessionError> {
    let path = index.path(Some(from))?;
    let Some(target_at) = path.iter().position(|&s| s == target) else { return Ok(None) };
    let points = path_points(index, &path);
    Ok(Some(between(index, &points, path.len() - 1, target_at)))
}

/// The saving of the rewind that wrote `summary` (a `branch_summary` slot): what it took out of the context
/// at the point it left — the parent of the message that called it — less the summary. `None` when `summary`
/// is no rewind of this tool, or the branch it left is not known (see `collapsed::rewound_from`).
///
/// # Errors
/// `Cycle` for a corrupt tree.
pub fn rewind_saving(index: &mut SessionIndex, summary: Slot) -> Result<Option<RewindSaving>, SessionError> {
    Ok(rewind_with_before(index, summary)?.map(|(saving, _)| saving))
}

/// [`rewind_saving`] and pi's estimate at the point the rewind left (the context before it, as its result
/// reported it).
pub(super) fn rewind_with_before(index: &mut SessionIndex, summary: Slot) -> Result<Option<(RewindSaving, f64)>, SessionError> {
    let Some((old_leaf, _)) = rewound_from(index, summary)? else { return Ok(None) };
    let (Some(from), Some(target)) = (index.parent_of(old_leaf), index.parent_of(summary)) else { return Ok(None) };
    let path = index.path(Some(from))?;
    let Some(target_at) = path.iter().position(|&s| s == target) else { return Ok(None) };
    let points = path_points(index, &path);
    let from_at = path.len() - 1;
    let before = points.get(from_at).map_or(0.0, |p| p.estimate.tokens);
    let entry = index.entry(summary);
    let summary_tokens = if entry.emits_message() { entry.tokens() } else { 0.0 };
    Ok(Some((between(index, &points, from_at, target_at).with_summary(summary_tokens), before)))
}

/// An anchor on the active branch and what a rewind to it, made now, would save (nothing summarized yet).
#[derive(Debug, Clone, PartialEq)]
pub struct AnchorSaving {
    /// The anchor (its context % as `list` shows it).
    pub anchor: Anchor,
    /// A rewind from the current leaf back to it.
    pub saving: RewindSaving,
}

/// Every anchor on the active branch, root → leaf, with what a rewind from the current leaf back to it would
/// save: what the pressure hint offers the model to choose from.
///
/// # Errors
/// `Cycle` for a corrupt tree.
pub fn anchor_savings(index: &mut SessionIndex) -> Result<Vec<AnchorSaving>, SessionError> {
    let anchors = index.anchors(Leaf::Current)?;
    let path = index.path(index.leaf())?;
    let points = path_points(index, &path);
    let now = path.len().saturating_sub(1);
    // Anchors are root → leaf: each one's place is after the previous one's.
    let mut from = 0;
    let mut out = Vec::with_capacity(anchors.len());
    for anchor in anchors {
        let at = path.iter().skip(from).position(|&s| s == anchor.slot).map_or(now, |p| from + p);
        from = at;
        out.push(AnchorSaving { saving: between(index, &points, now, at), anchor });
    }
    Ok(out)
}

/// A rewind of this tool on the active path: its branch summary and what it saved.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct PathRewind {
    /// The `branch_summary` entry the rewind wrote.
    pub summary_id: String,
    /// Its slot.
    #[serde(skip)]
    pub slot: Slot,
    /// What it saved.
    pub saving: RewindSaving,
}

/// Every rewind of this tool on the active path, root → leaf, with what it saved ([`rewind_saving`]): what
/// `stats` and the viewer report.
///
/// # Errors
/// `Cycle` for a corrupt tree.
pub fn rewinds_on_path(index: &mut SessionIndex) -> Result<Vec<PathRewind>, SessionError> {
    let path = index.path(index.leaf())?;
    let mut out = Vec::new();
    for slot in path {
        if index.entry(slot).kind() != crate::session::Kind::BranchSummary {
            continue;
        }
        if let Some(saving) = rewind_saving(index, slot)? {
            out.push(PathRewind { summary_id: index.id_of(slot).into(), slot, saving });
        }
    }
    Ok(out)
}

/// What the session at `index` cost and saved ([`crate::cost::cost_report`]), each rewind on the active path
/// weighed by what it took out of the context ([`rewind_saving`]).
///
/// # Errors
/// `Cycle` for a corrupt tree.
pub fn session_cost(index: &mut SessionIndex) -> Result<CostReport, SessionError> {
    let rewinds = rewinds_on_path(index)?;
    cost_with(index, &rewinds)
}

/// [`session_cost`] with the active path's rewinds already weighed (`stats` reports both).
///
/// # Errors
/// `Cycle` for a corrupt tree.
pub fn cost_with(index: &mut SessionIndex, rewinds: &[PathRewind]) -> Result<CostReport, SessionError> {
    let removed: Vec<(Slot, f64)> = rewinds.iter().map(|r| (r.slot, r.saving.saved())).collect();
    crate::cost::cost_report(index, &removed)
}
