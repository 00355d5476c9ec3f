//! pi's cache-miss rule (`computeCacheWaste`): in file order, every branch, a request whose cache read fell short
//! of the smaller of its prompt and the one before it, priced above the cache-read price.

use crate::session::{Kind, SessionIndex, Slot, SpendRecord, SpendKind};

use super::report::{CacheMiss, CacheMisses};
use super::usage::{priced_ok, prompt, tokens_ok, Prices};

/// pi's floor for a cache miss: this many missed prompt tokens or fewer are not one (`computeCacheWaste`).
pub const MISS_FLOOR: f64 = 1024.0;

/// The request before the next one, as pi's cache-miss scan keeps it.
#[derive(Debug, Clone, Copy)]
struct Previous {
    prompt: f64,
    reported_cache: bool,
}

/// pi's `detectMiss`: the missed tokens and their extra cost (`None` for the cost when unreadable).
fn detect_miss(prev: Option<Previous>, r: &SpendRecord, prices: &Prices) -> Option<(f64, Option<f64>)> {
    let prev = prev?;
    let [input, _, cache_read, cache_write] = r.tokens;
    let prompt_tokens = prompt(r);
    if prompt_tokens <= 0.0 || (cache_read + cache_write == 0.0 && !prev.reported_cache) {
        return None;
    }
    let missed = prev.prompt.min(prompt_tokens) - cache_read;
    if missed <= MISS_FLOOR {
        return None;
    }
    let usd = priced_ok(r).then(|| {
        let paid = input + cache_write;
        let paid_per = if paid > 0.0 { (r.cost[0] + r.cost[3]) / paid } else { 0.0 };
        let read_per = if cache_read > 0.0 { r.cost[2] / cache_read } else { prices.registry_cache_read(r) };
        missed * (paid_per - read_per).max(0.0)
    });
    Some((missed, usd))
}

/// pi's `asPreviousRequest`.
fn as_previous(r: &SpendRecord, reported_cache: bool) -> Option<Previous> {
    let p = prompt(r);
    (p > 0.0).then_some(Previous { prompt: p, reported_cache: reported_cache || r.tokens[2] + r.tokens[3] > 0.0 })
}

/// pi's cache-miss scan over the file in order, and the summary entries with and without a recorded usage.
pub(super) fn scan_misses(index: &SessionIndex, prices: &Prices, money: impl Fn(f64) -> Option<f64>) -> (CacheMisses, usize, usize) {
    let spends = index.spends();
    let mut misses = CacheMisses::default();
    let (mut usd, mut recorded, mut unrecorded) = (0.0, 0, 0);
    let mut prev: Option<Previous> = None;
    let mut next = 0;
    for slot in 0..index.len() as Slot {
        let spend = match spends.get(next) {
            Some(r) if r.slot == slot => {
                next += 1;
                Some(r)
            }
            _ => None,
        };
        let kind = index.entry(slot).kind();
        if matches!(kind, Kind::Compaction | Kind::BranchSummary) {
            if spend.is_some() {
                recorded += 1;
            } else {
                unrecorded += 1;
            }
            prev = None;
            continue;
        }
        let Some(r) = spend.filter(|r| tokens_ok(r)) else { continue };
        match r.kind {
            SpendKind::Usage { cache_warm: true } if prompt(r) > 0.0 => prev = Some(Previous { prompt: prompt(r), reported_cache: true }),
            SpendKind::Assistant => {
                if let Some((tokens, cost)) = detect_miss(prev, r, prices) {
                    misses.count += 1;
                    misses.tokens += tokens;
                    usd += cost.unwrap_or(0.0);
                    misses.items.push(CacheMiss { entry_id: index.id_of(slot).to_string(), tokens, usd: cost.and_then(&money) });
                }
                prev = as_previous(r, prev.is_some_and(|p| p.reported_cache)).or(prev);
            }
            _ => {}
        }
    }
    misses.usd = money(usd);
    (misses, recorded, unrecorded)
}
