//! What a session cost and what its rewinds and compactions saved, in money, from the session itself: pi
//! prices every request it makes (`usage.cost`, USD from the model's prices). One result, [`CostReport`],
//! which `stats`, `/anchors` and the viewer all read.
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
//!
//! What a rewind took out of the context is the tool's rule (`tool::saving`, issue 37), and the tool already
//! names this module (`/anchors`): `tool::session_cost` computes it and hands it over as data
//! ([`cost_report`]'s `removed`), so neither room imports the other both ways.
//!
//! One room each: the result ([`report`]), what one usage is worth ([`usage`]: readable or not, its prices),
//! pi's cache-miss rule ([`misses`]), what the summaries saved ([`savings`]), the report put together with the
//! tree's split ([`totals`]: [`cost_report`], [`path_costs`], [`entry_cost`], [`priced`]), and the texts
//! people read about it ([`texts`]: `stats`' lines, `/anchors`' title and rows).

mod misses;
mod report;
mod savings;
mod texts;
mod totals;
mod usage;

pub use misses::MISS_FLOOR;
pub use report::{
    CacheMiss, CacheMisses, SavedByCompaction, CostReport, EntryCost, Messages, ModelCost, SavedByRewind, Savings, SavingsOf, Summaries,
    Total, Usd,
};
pub use texts::{anchors_rewind_saved, anchors_spent, cost_text};
pub use totals::{cost_report, entry_cost, path_costs, priced};
