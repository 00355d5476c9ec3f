//! What one recorded usage is worth: whether its fields can be read, its prompt, the sums pi makes of many, and
//! the prices per token the file recorded for each model.

use crate::session::{SpendKind, SpendRecord};

use super::report::Total;

/// A usage whose four token counts are readable.
pub(super) fn tokens_ok(r: &SpendRecord) -> bool {
    r.tokens.iter().all(|x| x.is_finite())
}

/// A usage whose tokens and five cost fields are readable.
pub(super) fn priced_ok(r: &SpendRecord) -> bool {
    tokens_ok(r) && r.cost.iter().all(|x| x.is_finite())
}

/// A readable usage whose `cost.total` is above 0: one that makes the session priced.
pub(super) fn records_price(r: &SpendRecord) -> bool {
    priced_ok(r) && r.cost[4] > 0.0
}

/// Input + cache read + cache write.
pub(super) fn prompt(r: &SpendRecord) -> f64 {
    r.tokens[0] + r.tokens[2] + r.tokens[3]
}

/// Token sums in pi's order (`addUsageToTotals`), and the cost.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Sums {
    pub(super) tokens: [f64; 4],
    pub(super) usd: f64,
}

impl Sums {
    pub(super) fn add(&mut self, r: &SpendRecord) {
        for (sum, x) in self.tokens.iter_mut().zip(r.tokens) {
            *sum += x;
        }
        if priced_ok(r) {
            self.usd += r.cost[4];
        }
    }

    pub(super) fn total(&self, priced: bool) -> Total {
        let [input, output, cache_read, cache_write] = self.tokens;
        Total { usd: priced.then_some(self.usd), input, output, cache_read, cache_write }
    }
}

/// Prices per token the file recorded, by `provider/model` key: the latest of each.
pub(super) struct Prices {
    /// `cost.cacheRead ÷ cacheRead` (both > 0).
    cache_read: Vec<Option<f64>>,
    /// `cost.input ÷ input` (both > 0).
    input: Vec<Option<f64>>,
}

impl Prices {
    pub(super) fn of(spends: &[SpendRecord]) -> Prices {
        let keys = spends.iter().map(|r| r.model_key as usize + 1).max().unwrap_or(0);
        let mut prices = Prices { cache_read: vec![None; keys], input: vec![None; keys] };
        for r in spends.iter().filter(|r| priced_ok(r) && matches!(r.kind, SpendKind::Assistant | SpendKind::Usage { .. })) {
            let key = r.model_key as usize;
            if let Some(p) = per_token(r.cost[2], r.tokens[2]) {
                prices.cache_read[key] = Some(p);
            }
            if let Some(p) = per_token(r.cost[0], r.tokens[0]) {
                prices.input[key] = Some(p);
            }
        }
        prices
    }

    /// pi's registry price for a model's cache reads, per token: here the latest the file recorded (0: none).
    pub(super) fn registry_cache_read(&self, r: &SpendRecord) -> f64 {
        self.cache_read.get(r.model_key as usize).copied().flatten().unwrap_or(0.0)
    }

    /// What a request paid per prompt token at the least: its cache-read price, else the latest of its
    /// model, else its input price (a provider without a cache bills every prompt token as input).
    pub(super) fn request_floor(&self, r: &SpendRecord) -> f64 {
        per_token(r.cost[2], r.tokens[2])
            .or_else(|| self.cache_read.get(r.model_key as usize).copied().flatten())
            .or_else(|| self.input_price(r))
            .unwrap_or(0.0)
    }

    /// A request's input price per token: its own, else the latest of its model.
    pub(super) fn input_price(&self, r: &SpendRecord) -> Option<f64> {
        per_token(r.cost[0], r.tokens[0]).or_else(|| self.input.get(r.model_key as usize).copied().flatten())
    }
}

/// `usd ÷ tokens` when both are > 0.
pub(super) fn per_token(usd: f64, tokens: f64) -> Option<f64> {
    (usd > 0.0 && tokens > 0.0).then(|| usd / tokens)
}
