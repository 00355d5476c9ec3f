//! The cost model's result, as `stats --json`, `/anchors` and the viewer read it (camelCase, `null` for money
//! not known).

use serde::Serialize;
use tsify_next::Tsify;

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

/// The assistant messages' usage: their sums, and how many they are (`Total`'s fields and `requests`, written
/// out rather than flattened: a flattened struct serializes through a map, more code for the same object).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct Messages {
    /// Σ `cost.total` (`null` when unpriced).
    pub usd: Option<f64>,
    /// Assistant messages whose usage could be read.
    pub requests: usize,
    /// Σ `input`.
    pub input: f64,
    /// Σ `output`.
    pub output: f64,
    /// Σ `cacheRead`.
    pub cache_read: f64,
    /// Σ `cacheWrite`.
    pub cache_write: f64,
}

impl Messages {
    /// The sums `t` of `requests` messages.
    pub(super) fn of(t: Total, requests: usize) -> Messages {
        Messages { usd: t.usd, requests, input: t.input, output: t.output, cache_read: t.cache_read, cache_write: t.cache_write }
    }
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
    pub rewinds: SavingsOf<SavedByRewind>,
    /// Every `compaction` on the active path.
    pub compactions: SavingsOf<SavedByCompaction>,
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
pub struct SavedByRewind {
    /// The `branch_summary` entry.
    pub entry_id: String,
    /// The anchor the rewind wrote on its summary, else the one it went back to (`null`: none).
    pub label: Option<String>,
    /// What it took out of the context: its saving by `tool::rewind_saving` (the removed entries' own estimates
    /// less the summary and ledger that replace them; never below 0); `null` for a branch summary that is no
    /// rewind of this tool (pi's own `/tree` summaries): not known, never guessed.
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
pub struct SavedByCompaction {
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
