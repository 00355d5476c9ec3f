//! What a session cost and what its rewinds and compactions saved, in money, from the session itself: pi
//! prices every request it makes (`usage.cost`, USD from the model's prices). One result, [`CostReport`],
//! which `stats`, `/anchors` and the viewer all read; the texts about it are `src/cli_text.rs`'s and
//! `src/tool/texts.rs`'s.
//!
//! The sums are pi 1.6.0's own (`AgentSession.getSessionStats`, `getUsageCostBreakdown`,
//! `computeCacheWaste`): every entry of the file, every branch, in file order — so the floating-point sums
//! come out the same. `messages` is what @ccusage/pi counts (assistant messages only). What pi cannot say
//! comes from the tree: the money on the active path and on abandoned branches, and what each summary on
//! the active path saved the requests after it (a lower bound: only the prompt tokens it took out, at the
//! cache-read price those requests paid at the least).
//!
//! A usage field that is no finite number ≥ 0 (missing, negative, not a number) leaves its item's money
//! out and is counted (`unpriced`), never summed: pi's own sums turn NaN or crash there.

use serde::Serialize;
use tsify_next::Tsify;

use crate::error::SessionError;
use crate::session::{Kind, Leaf, SessionIndex, Slot, SpendRecord, SpendSource};

/// pi's floor for a cache miss: this many missed prompt tokens or fewer are not one (`computeCacheWaste`).
pub const MISS_FLOOR: f64 = 1024.0;

/// Everything the money of one session file says (see the module docs). Every `usd` is `null` when no
/// usage recorded a price (`priced: false`: subscriptions, local models, the faux model): no money is
/// shown then, never `$0.00`.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct CostReport {
    /// Whether some usage recorded a price (a `cost.total` above 0).
    pub priced: bool,
    /// Usages whose tokens or cost could not be read: their money (and, for unreadable tokens, their
    /// tokens) is left out.
    pub unpriced: usize,
    /// pi's session totals: assistant messages, tool results with usage, `usage` entries, summary entries'
    /// `usage`.
    pub total: Total,
    /// Assistant messages only, every branch (what @ccusage/pi counts).
    pub messages: Messages,
    /// The summary requests' recorded usage, and how many summary entries record none.
    pub summaries: Summaries,
    /// pi's breakdown (`provider/model`, `Tools/summaries`), costliest first.
    pub by_model: Vec<ModelCost>,
    /// Prompt tokens the provider's cache should have served but billed again (pi's rule).
    pub cache_misses: CacheMisses,
    /// The money of the entries on the active path (root → leaf).
    pub active_path: Usd,
    /// The money of the entries off it: abandoned branches.
    pub abandoned: Usd,
    /// Of all prompt tokens (input + cache read + cache write), the share read from the cache (0–1);
    /// `null` without prompt tokens.
    pub cache_read_share: Option<f64>,
    /// What each rewind and compaction on the active path saved.
    pub savings: Savings,
}

/// Tokens and USD summed.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct Total {
    /// Σ `cost.total` (`null` when unpriced).
    pub usd: Option<f64>,
    /// Σ `input`.
    pub input: f64,
    /// Σ `output`.
    pub output: f64,
    /// Σ `cacheRead`.
    pub cache_read: f64,
    /// Σ `cacheWrite`.
    pub cache_write: f64,
}

/// The assistant messages' usage: their sums, and how many they are.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct Messages {
    /// Σ `cost.total` and the tokens.
    #[serde(flatten)]
    pub sums: Total,
    /// Assistant messages whose usage could be read.
    pub requests: usize,
}

/// The summary requests (`branch_summary` and `compaction` entries): their `usage`, and the usage this plugin
/// kept in `details.summaryUsage` on a pi whose entries have no `usage` field (which pi's totals do not count).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct Summaries {
    /// Σ the recorded `usage.cost.total` (`null` when unpriced).
    pub usd: Option<f64>,
    /// Summary entries that record their request's usage.
    pub recorded: usize,
    /// Summary entries that record none (older pi, older plugin): their cost is not known.
    pub unrecorded: usize,
}

/// One row of pi's breakdown.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct ModelCost {
    /// `provider/model` (the model that answered), or `Tools/summaries`.
    pub key: String,
    /// Σ `cost.total` (`null` when unpriced).
    pub usd: Option<f64>,
    /// Σ input + output + cache read + cache write.
    pub tokens: f64,
}

/// Cache misses, pi's rule: a request after another (none after a compaction or a branch summary; a cache
/// warming counts as one) whose cache read fell short of the smaller of the two prompts by more than
/// [`MISS_FLOOR`] tokens; priced at what those tokens cost above the cache-read price.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct CacheMisses {
    /// How many requests missed.
    pub count: usize,
    /// Σ missed tokens.
    pub tokens: f64,
    /// Σ their extra cost (`null` when unpriced).
    pub usd: Option<f64>,
    /// Each miss, in file order.
    pub items: Vec<CacheMiss>,
}

/// One cache miss.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct CacheMiss {
    /// The assistant message of the request that missed.
    pub entry_id: String,
    /// Prompt tokens billed again.
    pub tokens: f64,
    /// What that cost above the cache-read price (`null` when unpriced).
    pub usd: Option<f64>,
}

/// An amount of money (`null` when unpriced).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct Usd {
    /// USD.
    pub usd: Option<f64>,
}

/// What the summaries on the active path saved.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct Savings {
    /// Every `branch_summary` on the active path.
    pub rewinds: SavingsOf<RewindSaving>,
    /// Every `compaction` on the active path.
    pub compactions: SavingsOf<CompactionSaving>,
}

/// The savings of one kind of summary: each item, and their sum.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct SavingsOf<T> {
    /// Σ the items' `usd` (`null` when unpriced or none is known).
    pub usd: Option<f64>,
    /// Oldest first.
    pub items: Vec<T>,
}

impl<T> Default for SavingsOf<T> {
    fn default() -> Self {
        SavingsOf { usd: None, items: Vec::new() }
    }
}

/// What one rewind saved: at least `tokensRemoved` × the cache-read price of every request after it (up to
/// the next compaction), less what its summary cost.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct RewindSaving {
    /// The `branch_summary` entry.
    pub entry_id: String,
    /// The anchor the rewind wrote on its summary, else the one it went back to (`null`: none).
    pub label: Option<String>,
    /// What it took out of the context; `null` while no rule says (see the module docs of `cost`).
    pub tokens_removed: Option<f64>,
    /// Real requests (prompt tokens > 0) after it on the active path, up to the next compaction.
    pub requests_after: usize,
    /// The saving (`null` when unpriced or `tokensRemoved` is unknown).
    pub usd: Option<f64>,
    /// What its summary request cost, as recorded (`null`: not recorded, so not subtracted).
    pub summary_usd: Option<f64>,
}


/// What one compaction saved, the same way as a rewind: `tokensRemoved` = its `tokensBefore` minus the
/// estimate of the context it leaves.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct CompactionSaving {
    /// The `compaction` entry.
    pub entry_id: String,
    /// `tokensBefore` − the estimate of the context it leaves (`null`: no `tokensBefore`).
    pub tokens_removed: Option<f64>,
    /// Real requests after it on the active path, up to the next compaction.
    pub requests_after: usize,
    /// The saving (`null` when unpriced or `tokensRemoved` is unknown).
    pub usd: Option<f64>,
    /// What its summary request cost, as recorded (`null`: not recorded, so not subtracted).
    pub summary_usd: Option<f64>,
    /// For a summary served from the cache (its usage reads from the cache): what pi's own cold request
    /// would have cost (`tokensBefore` at the input price) minus what it cost; else `null`.
    pub cache_saved_usd: Option<f64>,
}

/// A usage whose four token counts are readable.
fn tokens_ok(r: &SpendRecord) -> bool {
    r.tokens.iter().all(|x| x.is_finite())
}

/// A usage whose tokens and five cost fields are readable.
fn priced_ok(r: &SpendRecord) -> bool {
    tokens_ok(r) && r.cost.iter().all(|x| x.is_finite())
}

/// Input + cache read + cache write.
fn prompt(r: &SpendRecord) -> f64 {
    r.tokens[0] + r.tokens[2] + r.tokens[3]
}

/// Token sums in pi's order (`addUsageToTotals`), and the cost.
#[derive(Debug, Clone, Copy, Default)]
struct Sums {
    tokens: [f64; 4],
    usd: f64,
}

impl Sums {
    fn add(&mut self, r: &SpendRecord) {
        for (sum, x) in self.tokens.iter_mut().zip(r.tokens) {
            *sum += x;
        }
        if priced_ok(r) {
            self.usd += r.cost[4];
        }
    }

    fn total(&self, priced: bool) -> Total {
        let [input, output, cache_read, cache_write] = self.tokens;
        Total { usd: priced.then_some(self.usd), input, output, cache_read, cache_write }
    }
}

/// Prices per token the file recorded, by `provider/model` key: the latest of each.
struct Prices {
    /// `cost.cacheRead ÷ cacheRead` (both > 0).
    cache_read: Vec<Option<f64>>,
    /// `cost.input ÷ input` (both > 0).
    input: Vec<Option<f64>>,
}

impl Prices {
    fn of(spends: &[SpendRecord]) -> Prices {
        let keys = spends.iter().map(|r| r.model_key as usize + 1).max().unwrap_or(0);
        let mut prices = Prices { cache_read: vec![None; keys], input: vec![None; keys] };
        for r in spends.iter().filter(|r| priced_ok(r) && matches!(r.source, SpendSource::Assistant | SpendSource::Usage { .. })) {
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
    fn registry_cache_read(&self, r: &SpendRecord) -> f64 {
        self.cache_read.get(r.model_key as usize).copied().flatten().unwrap_or(0.0)
    }

    /// What a request paid per prompt token at the least: its cache-read price, else the latest of its
    /// model, else its input price (a provider without a cache bills every prompt token as input).
    fn request_floor(&self, r: &SpendRecord) -> f64 {
        per_token(r.cost[2], r.tokens[2])
            .or_else(|| self.cache_read.get(r.model_key as usize).copied().flatten())
            .or_else(|| self.input_price(r))
            .unwrap_or(0.0)
    }

    /// A request's input price per token: its own, else the latest of its model.
    fn input_price(&self, r: &SpendRecord) -> Option<f64> {
        per_token(r.cost[0], r.tokens[0]).or_else(|| self.input.get(r.model_key as usize).copied().flatten())
    }
}

/// `usd ÷ tokens` when both are > 0.
fn per_token(usd: f64, tokens: f64) -> Option<f64> {
    (usd > 0.0 && tokens > 0.0).then(|| usd / tokens)
}

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

/// The spend an entry records (`spends` is in slot order).
fn spend_at(spends: &[SpendRecord], slot: Slot) -> Option<&SpendRecord> {
    spends.binary_search_by_key(&slot, |r| r.slot).ok().and_then(|at| spends.get(at))
}

/// What the session at `index` cost and saved (see [`CostReport`]); the active path ends at the index's
/// leaf. `rewind_removed` gives a `branch_summary`'s removed tokens (`None`: not known).
///
/// # Errors
/// Only for an inconsistent index (a parent cycle).
pub fn cost_report(index: &mut SessionIndex, rewind_removed: impl Fn(&mut SessionIndex, Slot) -> Option<f64>) -> Result<CostReport, SessionError> {
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
        if r.source == SpendSource::SummaryDetails {
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
        any_price |= priced_ok(r) && r.cost[4] > 0.0;
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
        match r.source {
            SpendSource::Assistant => {
                messages.add(r);
                requests += 1;
            }
            SpendSource::Summary => summaries.add(r),
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

    let mut by_model: Vec<ModelCost> = key_order
        .iter()
        .filter_map(|&k| by_key.get(k as usize).copied().flatten().map(|s| (index.spend_key(k).to_string(), s)))
        .filter(|(_, s)| s.usd > 0.0 || s.tokens.iter().sum::<f64>() > 0.0)
        .map(|(key, s)| ModelCost { key, usd: money(s.usd), tokens: s.tokens[0] + s.tokens[1] + s.tokens[2] + s.tokens[3] })
        .collect();
    // pi sorts by cost, costliest first; a stable sort keeps first-seen order among equals, as pi's does.
    by_model.sort_by(|a, b| b.usd.unwrap_or(0.0).total_cmp(&a.usd.unwrap_or(0.0)));

    let (cache_misses, recorded, unrecorded) = scan_misses(index, &prices, money);
    let prompt_tokens = total.tokens[0] + total.tokens[2] + total.tokens[3];
    let savings = savings(index, &path, &prices, any_price, rewind_removed);
    Ok(CostReport {
        priced: any_price,
        unpriced,
        total: total.total(any_price),
        messages: Messages { sums: messages.total(any_price), requests },
        summaries: Summaries { usd: money(summaries.usd + kept.usd), recorded, unrecorded },
        by_model,
        cache_misses,
        active_path: Usd { usd: money(active) },
        abandoned: Usd { usd: money(abandoned) },
        cache_read_share: (prompt_tokens > 0.0).then(|| total.tokens[2] / prompt_tokens),
        savings,
    })
}

/// pi's cache-miss scan over the file in order, and the summary entries with and without a recorded usage.
fn scan_misses(index: &SessionIndex, prices: &Prices, money: impl Fn(f64) -> Option<f64>) -> (CacheMisses, usize, usize) {
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
        match r.source {
            SpendSource::Usage { cache_warm: true } if prompt(r) > 0.0 => prev = Some(Previous { prompt: prompt(r), reported_cache: true }),
            SpendSource::Assistant => {
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

/// The savings of every summary entry on `path` (root → leaf).
fn savings(
    index: &mut SessionIndex,
    path: &[Slot],
    prices: &Prices,
    known: bool,
    rewind_removed: impl Fn(&mut SessionIndex, Slot) -> Option<f64>,
) -> Savings {
    let spends = index.spends();
    // Along the path: how many real requests, and the Σ of their floor prices, before each position; and
    // where the next compaction is.
    let mut counts = vec![0usize; path.len() + 1];
    let mut floors = vec![0.0f64; path.len() + 1];
    let mut last_request: Vec<Option<usize>> = vec![None; path.len()];
    let mut last = None;
    for (i, &s) in path.iter().enumerate() {
        let request = spend_at(spends, s).filter(|r| r.source == SpendSource::Assistant && tokens_ok(r) && prompt(r) > 0.0);
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
        let summary = spend_at(index.spends(), s).copied();
        let summary_usd = summary.filter(|r| known && priced_ok(r)).map(|r| r.cost[4]);
        let worth = |removed: Option<f64>| removed.filter(|_| known).map(|t| t * floor - summary_usd.unwrap_or(0.0));
        let id = index.id_of(s).to_string();
        if kind == Kind::BranchSummary {
            let tokens_removed = rewind_removed(index, s);
            let label = anchor_label(index, s).or_else(|| index.parent_of(s).and_then(|p| anchor_label(index, p)));
            out.rewinds.items.push(RewindSaving { entry_id: id, label, tokens_removed, requests_after, usd: worth(tokens_removed), summary_usd });
            continue;
        }
        let tokens_removed = index.tokens_before(s).map(|before| (before - left_by(index, &id)).max(0.0));
        // Served from the cache: pi's own request would have sent `tokensBefore` cold, at the input price.
        let cache_saved_usd = summary.filter(|r| known && priced_ok(r) && r.tokens[2] > 0.0).and_then(|r| {
            let before = index.tokens_before(s)?;
            let input_price = per_token(r.cost[0], r.tokens[0]).or_else(|| {
                let at = last_request[i]?;
                spend_at(index.spends(), path[at]).and_then(|q| prices.input_price(q))
            })?;
            Some(before * input_price - r.cost[4])
        });
        out.compactions.items.push(CompactionSaving { entry_id: id, tokens_removed, requests_after, usd: worth(tokens_removed), summary_usd, cache_saved_usd });
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

/// [`cost_report`] of the session at `index`, with the tool's rule for what a rewind removed.
///
/// # Errors
/// Only for an inconsistent index (a parent cycle).
pub fn session_cost(index: &mut SessionIndex) -> Result<CostReport, SessionError> {
    // What a rewind removes is the rule of "A rewind is judged by what it removes" (issue 37), not yet in
    // the core: until it is, a rewind's saving is not known (`tokensRemoved: null`), never guessed.
    cost_report(index, |_, _| None)
}

/// What one entry's recorded usage cost, for a view of that entry (the viewer's context panel).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct EntryCost {
    /// `cost.total` (`null` when unpriced or unreadable).
    pub usd: Option<f64>,
    /// `input` (NaN-free: `null` when unreadable).
    pub input: Option<f64>,
    /// `output`.
    pub output: Option<f64>,
    /// `cacheRead`.
    pub cache_read: Option<f64>,
    /// `cacheWrite`.
    pub cache_write: Option<f64>,
}

/// The usage the entry at `slot` records, when it records one (`priced`: whether the session has prices at
/// all, [`CostReport::priced`]).
pub fn entry_cost(index: &SessionIndex, slot: Slot, priced: bool) -> Option<EntryCost> {
    let r = spend_at(index.spends(), slot)?;
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
    let spends = index.spends();
    let mut sum = 0.0;
    path.iter()
        .map(|&s| {
            if let Some(r) = spend_at(spends, s).filter(|r| r.source != SpendSource::SummaryDetails && priced_ok(r)) {
                sum += r.cost[4];
            }
            sum
        })
        .collect()
}
