//! The report put together: pi's sums over every usage in file order, its breakdown, the tree's split, and the
//! views of one path and one entry.

use crate::error::SessionError;
use crate::session::{SessionIndex, Slot, SpendKind};

use super::misses::scan_misses;
use super::report::{CostReport, EntryCost, Messages, ModelCost, Summaries, Usd};
use super::savings::savings;
use super::usage::{priced_ok, records_price, tokens_ok, Prices, Sums};

/// What the session at `index` cost and saved (see [`CostReport`]); the active path ends at the index's
/// leaf. `removed`: what each rewind on it took out of the context, by its `branch_summary`'s slot — the
/// tool's rule (`tool::rewind_saving`, which `tool::session_cost` hands over as data: the tool names the cost
/// model, not the other way round); a summary not in it has `tokensRemoved: null` (not known, never guessed).
///
/// # Errors
/// Only for an inconsistent index (a parent cycle).
pub fn cost_report(index: &mut SessionIndex, removed: &[(Slot, f64)]) -> Result<CostReport, SessionError> {
    let path = index.path(index.leaf())?;
    let mut on_path = vec![false; index.len()];
    for &s in &path {
        if let Some(flag) = on_path.get_mut(s as usize) {
            *flag = true;
        }
    }
    let spends = index.spends();
    let prices = Prices::of(spends);
    let mut unpriced = 0;
    let mut any_price = false;
    let (mut total, mut messages, mut summaries, mut active, mut abandoned) = (Sums::default(), Sums::default(), Sums::default(), 0.0, 0.0);
    let mut requests = 0;
    // By key id (dense: the spend table interns them), and the order pi's map meets them in.
    let mut by_key: Vec<Option<Sums>> = Vec::new();
    let mut key_order: Vec<u32> = Vec::new();
    let mut kept = Sums::default();
    for r in spends {
        if r.kind == SpendKind::SummaryDetails {
            // Ours, where pi had no field for it: a summary's cost, not in pi's totals.
            if tokens_ok(r) {
                kept.add(r);
            }
            continue;
        }
        if !priced_ok(r) {
            unpriced += 1;
        }
        if !tokens_ok(r) {
            continue;
        }
        any_price |= records_price(r);
        total.add(r);
        let key = r.breakdown_key as usize;
        if by_key.len() <= key {
            by_key.resize(key + 1, None);
        }
        if let Some(sums) = by_key.get_mut(key) {
            sums.get_or_insert_with(|| {
                key_order.push(r.breakdown_key);
                Sums::default()
            })
            .add(r);
        }
        match r.kind {
            SpendKind::Assistant => {
                messages.add(r);
                requests += 1;
            }
            SpendKind::Summary => summaries.add(r),
            _ => {}
        }
        if priced_ok(r) {
            if on_path.get(r.slot as usize).copied().unwrap_or(false) {
                active += r.cost[4];
            } else {
                abandoned += r.cost[4];
            }
        }
    }
    let money = |x: f64| any_price.then_some(x);

    let rows: Vec<(u32, Sums)> = key_order
        .iter()
        .filter_map(|&k| by_key.get(k as usize).copied().flatten().map(|s| (k, s)))
        .filter(|(_, s)| s.usd > 0.0 || s.tokens.iter().sum::<f64>() > 0.0)
        .collect();
    // pi sorts by cost, costliest first; a stable sort keeps first-seen order among equals, as pi's does.
    let usd: Vec<f64> = rows.iter().map(|(_, s)| s.usd).collect();
    let by_model = crate::text::largest_first(&usd)
        .into_iter()
        .filter_map(|i| rows.get(i))
        .map(|&(k, s)| ModelCost { key: index.spend_key(k).to_string(), usd: money(s.usd), tokens: s.tokens[0] + s.tokens[1] + s.tokens[2] + s.tokens[3] })
        .collect();

    let (cache_misses, recorded, unrecorded) = scan_misses(index, &prices, money);
    let prompt_tokens = total.tokens[0] + total.tokens[2] + total.tokens[3];
    let savings = savings(index, &path, &prices, any_price, removed);
    Ok(CostReport {
        priced: any_price,
        unpriced,
        total: total.total(any_price),
        messages: Messages::of(messages.total(any_price), requests),
        summaries: Summaries { usd: money(summaries.usd + kept.usd), recorded, unrecorded },
        by_model,
        cache_misses,
        active_path: Usd { usd: money(active) },
        abandoned: Usd { usd: money(abandoned) },
        cache_read_share: (prompt_tokens > 0.0).then(|| total.tokens[2] / prompt_tokens),
        savings,
    })
}

/// Whether the session records prices at all ([`CostReport::priced`], without the rest of the report): some usage
/// pi counts recorded a `cost.total` above 0.
pub fn priced(index: &SessionIndex) -> bool {
    index.spends().iter().any(|r| r.kind != SpendKind::SummaryDetails && tokens_ok(r) && records_price(r))
}

/// The usage the entry at `slot` records, when it records one (`priced`: whether the session has prices at
/// all, [`CostReport::priced`]).
pub fn entry_cost(index: &SessionIndex, slot: Slot, priced: bool) -> Option<EntryCost> {
    let r = index.spend_at(slot)?;
    let n = |x: f64| x.is_finite().then_some(x);
    Some(EntryCost {
        usd: (priced && priced_ok(r)).then_some(r.cost[4]),
        input: n(r.tokens[0]),
        output: n(r.tokens[1]),
        cache_read: n(r.tokens[2]),
        cache_write: n(r.tokens[3]),
    })
}

/// The money spent along `path` (root first) up to and including each entry: Σ `cost.total` of the usage the
/// entries on it record (pi's sources; unreadable ones left out).
pub fn path_costs(index: &SessionIndex, path: &[Slot]) -> Vec<f64> {
    let mut sum = 0.0;
    path.iter()
        .map(|&s| {
            if let Some(r) = index.spend_at(s).filter(|r| r.kind != SpendKind::SummaryDetails && priced_ok(r)) {
                sum += r.cost[4];
            }
            sum
        })
        .collect()
}
