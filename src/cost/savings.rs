//! What each summary on the active path saved the requests after it: a lower bound (see [`super::SavedByRewind`]).

use crate::session::{Kind, Leaf, SessionIndex, Slot, SpendKind};

use super::report::{SavedByCompaction, SavedByRewind, Savings};
use super::usage::{per_token, priced_ok, prompt, tokens_ok, Prices};

/// The savings of every summary entry on `path` (root → leaf); `removed`: what each rewind took out of the
/// context, by its `branch_summary`'s slot (see [`super::cost_report`]).
pub(super) fn savings(index: &mut SessionIndex, path: &[Slot], prices: &Prices, known: bool, removed: &[(Slot, f64)]) -> Savings {
    // Along the path: how many real requests, and the Σ of their floor prices, before each position; and
    // where the next compaction is.
    let mut counts = vec![0usize; path.len() + 1];
    let mut floors = vec![0.0f64; path.len() + 1];
    let mut last_request: Vec<Option<usize>> = vec![None; path.len()];
    let mut last = None;
    for (i, &s) in path.iter().enumerate() {
        let request = index.spend_at(s).filter(|r| r.kind == SpendKind::Assistant && tokens_ok(r) && prompt(r) > 0.0);
        counts[i + 1] = counts[i] + usize::from(request.is_some());
        floors[i + 1] = floors[i] + request.map_or(0.0, |r| prices.request_floor(r));
        last_request[i] = last;
        if request.is_some() {
            last = Some(i);
        }
    }
    let mut next_compaction = vec![path.len(); path.len()];
    let mut upcoming = path.len();
    for (i, &s) in path.iter().enumerate().rev() {
        next_compaction[i] = upcoming;
        if index.entry(s).kind() == Kind::Compaction {
            upcoming = i;
        }
    }

    let mut out = Savings::default();
    for (i, &s) in path.iter().enumerate() {
        let kind = index.entry(s).kind();
        if !matches!(kind, Kind::BranchSummary | Kind::Compaction) {
            continue;
        }
        let end = next_compaction[i];
        let requests_after = counts[end] - counts[i + 1];
        let floor = floors[end] - floors[i + 1];
        let summary = index.spend_at(s).copied();
        let summary_usd = summary.filter(|r| known && priced_ok(r)).map(|r| r.cost[4]);
        let worth = |removed: Option<f64>| removed.filter(|_| known).map(|t| t * floor - summary_usd.unwrap_or(0.0));
        let id = index.id_of(s).to_string();
        if kind == Kind::BranchSummary {
            let tokens_removed = removed.iter().find(|&&(at, _)| at == s).map(|&(_, tokens)| tokens);
            let label = anchor_label(index, s).or_else(|| index.parent_of(s).and_then(|p| anchor_label(index, p)));
            out.rewinds.items.push(SavedByRewind { entry_id: id, label, tokens_removed, requests_after, usd: worth(tokens_removed), summary_usd });
            continue;
        }
        let tokens_removed = index.tokens_before(s).map(|before| (before - left_by(index, &id)).max(0.0));
        // Served from the cache: pi's own request would have sent `tokensBefore` cold, at the input price.
        let cache_saved_usd = summary.filter(|r| known && priced_ok(r) && r.tokens[2] > 0.0).and_then(|r| {
            let before = index.tokens_before(s)?;
            let input_price = per_token(r.cost[0], r.tokens[0]).or_else(|| {
                let at = last_request[i]?;
                index.spend_at(path[at]).and_then(|q| prices.input_price(q))
            })?;
            Some(before * input_price - r.cost[4])
        });
        out.compactions.items.push(SavedByCompaction { entry_id: id, tokens_removed, requests_after, usd: worth(tokens_removed), summary_usd, cache_saved_usd });
    }
    out.rewinds.usd = sum_known(out.rewinds.items.iter().map(|r| r.usd));
    out.compactions.usd = sum_known(out.compactions.items.iter().map(|c| c.usd));
    out
}

/// The sum of the known amounts (`None` when none is known).
fn sum_known(amounts: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    amounts.flatten().fold(None, |sum, x| Some(sum.unwrap_or(0.0) + x))
}

/// The estimate of the context a compaction leaves: its summary and the entries it keeps, each as pi
/// estimates a message (no usage: every one was recorded before it).
fn left_by(index: &mut SessionIndex, id: &str) -> f64 {
    match index.context_sources(Leaf::Id(id)) {
        Ok((_, sources)) => sources.iter().map(|&source| index.source_tokens(source)).sum(),
        Err(_) => 0.0,
    }
}

/// The anchor name on an entry.
fn anchor_label(index: &SessionIndex, slot: Slot) -> Option<String> {
    index.label_at(slot).and_then(crate::text::anchor_name).map(str::to_string)
}
