//! The money the entries record, held apart from the records: few entries record a usage (the model
//! requests, cache warming, summaries), so a table of those — and of each compaction's `tokensBefore` —
//! costs the other entries nothing. What the money means is `src/cost/`'s; this only keeps it. The table is
//! also where the index keeps whose model counted each request (its `provider/model`): a rewind's saving asks
//! whether pi's estimate anchored on usages of one model (`AssistantRef::same_source`).

use std::collections::HashMap;

use super::entry::{Spend, SpendKind};
use super::record::Slot;

/// pi's breakdown key for the usage of tool results and summaries (`getUsageCostBreakdown`).
pub const TOOLS_KEY: &str = "Tools/summaries";

/// One entry's recorded usage, as [`Spends`] holds it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpendRecord {
    /// The entry's slot (file order).
    pub slot: Slot,
    /// Which kind of entry recorded it.
    pub kind: SpendKind,
    /// `provider/(responseModel ?? model)` — pi's breakdown key; [`TOOLS_KEY`] for tool results and
    /// summaries — as an index of [`Spends::key`].
    pub breakdown_key: u32,
    /// `provider/model` (the model pi's cache-miss rule and its model registry go by), as an index of
    /// [`Spends::key`].
    pub model_key: u32,
    /// `input`, `output`, `cacheRead`, `cacheWrite` (NaN: not a finite number ≥ 0).
    pub tokens: [f64; 4],
    /// `cost.input`, `.output`, `.cacheRead`, `.cacheWrite`, `.total` (NaN likewise).
    pub cost: [f64; 5],
}

/// Every recorded usage in file order, the keys they name, and the compactions' `tokensBefore`.
#[derive(Debug, Default)]
pub(super) struct Spends {
    items: Vec<SpendRecord>,
    keys: Vec<Box<str>>,
    key_ids: HashMap<Box<str>, u32>,
    tokens_before: Vec<(Slot, f64)>,
}

impl Spends {
    /// Keeps the usage the entry at `slot` records, whose model is `source` (`(provider, model)`: assistants and
    /// `usage` entries). Slots arrive in ascending order.
    pub(super) fn add(&mut self, slot: Slot, source: Option<(&str, &str)>, spend: &Spend<'_>) {
        let (breakdown_key, model_key) = match (spend.kind, source) {
            (SpendKind::Assistant | SpendKind::Usage { .. }, Some((provider, model))) => {
                let model_key = self.intern(&format!("{provider}/{model}"));
                let breakdown_key = match &spend.response_model {
                    Some(answered) => self.intern(&format!("{provider}/{answered}")),
                    None => model_key,
                };
                (breakdown_key, model_key)
            }
            _ => {
                let tools = self.intern(TOOLS_KEY);
                (tools, tools)
            }
        };
        self.items.push(SpendRecord { slot, kind: spend.kind, breakdown_key, model_key, tokens: spend.tokens, cost: spend.cost });
    }

    /// Keeps a compaction's `tokensBefore`.
    pub(super) fn add_tokens_before(&mut self, slot: Slot, tokens: f64) {
        self.tokens_before.push((slot, tokens));
    }

    fn intern(&mut self, key: &str) -> u32 {
        if let Some(&id) = self.key_ids.get(key) {
            return id;
        }
        let id = self.keys.len() as u32;
        self.keys.push(key.into());
        self.key_ids.insert(key.into(), id);
        id
    }

    /// Every recorded usage, in file order.
    pub(super) fn items(&self) -> &[SpendRecord] {
        &self.items
    }

    /// The usage the entry at `slot` records.
    pub(super) fn at(&self, slot: Slot) -> Option<&SpendRecord> {
        let at = self.items.binary_search_by_key(&slot, |r| r.slot).ok()?;
        self.items.get(at)
    }

    /// The key with index `id` (empty for an unknown one).
    pub(super) fn key(&self, id: u32) -> &str {
        self.keys.get(id as usize).map_or("", AsRef::as_ref)
    }

    /// The `tokensBefore` of the compaction at `slot`, when it wrote a number.
    pub(super) fn tokens_before(&self, slot: Slot) -> Option<f64> {
        let at = self.tokens_before.binary_search_by_key(&slot, |&(s, _)| s).ok()?;
        self.tokens_before.get(at).map(|&(_, t)| t)
    }
}
