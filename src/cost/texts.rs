//! What people read about the money (the model reads none of it): `stats`' lines and `/anchors`' title and rows.
//! Without prices: "no prices recorded", never a dollar.

use crate::js::to_fixed;
use crate::text::{format_tokens, format_usd, name_list, one_line};

use super::report::CostReport;

/// The lines `stats` adds about money: what the session cost, on abandoned branches, in cache misses and
/// summaries, what rewinds and compactions saved, by model. Without prices: "no prices recorded", never a
/// dollar.
pub fn cost_text(c: &CostReport) -> String {
    let pct = |share: f64| format!("{}%", to_fixed(share * 100.0, 1));
    let requests = count(c.messages.requests, "request", "requests");
    let mut rows = vec![match c.total.usd {
        Some(usd) => {
            let cached = c.cache_read_share.map_or(String::new(), |s| format!("; {} of prompt tokens read from the cache", pct(s)));
            format!("  cost: {} ({requests}{cached})", format_usd(usd))
        }
        None => format!("  cost: no prices recorded ({requests})"),
    }];
    if let Some(usd) = c.abandoned.usd {
        rows.push(format!("  cost on abandoned branches: {}", format_usd(usd)));
    }
    let m = &c.cache_misses;
    rows.push(match (m.count, m.usd) {
        (0, _) => "  cache misses: none".into(),
        (n, Some(usd)) => format!("  cache misses: {n} ({} tokens billed again, {} more)", format_tokens(m.tokens), format_usd(usd)),
        (n, None) => format!("  cache misses: {n} ({} tokens billed again)", format_tokens(m.tokens)),
    });
    let sums = &c.summaries;
    if sums.recorded + sums.unrecorded > 0 {
        let cost = sums.usd.map_or(String::new(), |usd| format!(" ({})", format_usd(usd)));
        rows.push(format!("  summaries: {} recorded{cost}, {} not recorded", sums.recorded, sums.unrecorded));
    }
    let saved = |usd: Option<f64>, n: usize, one: &str, many: &str| match usd {
        Some(usd) => format!("at least {} ({})", format_usd(usd), count(n, one, many)),
        None => format!("{} (saving not known)", count(n, one, many)),
    };
    let (rewinds, compactions) = (&c.savings.rewinds, &c.savings.compactions);
    if !rewinds.items.is_empty() {
        rows.push(format!("  saved by rewinds: {}", saved(rewinds.usd, rewinds.items.len(), "rewind", "rewinds")));
    }
    if !compactions.items.is_empty() {
        rows.push(format!("  saved by compactions: {}", saved(compactions.usd, compactions.items.len(), "compaction", "compactions")));
    }
    if !c.by_model.is_empty() {
        let shown: Vec<String> = c.by_model.iter().map(|m| match m.usd {
            Some(usd) => format!("{} {}", one_line(&m.key), format_usd(usd)),
            None => format!("{} {} tokens", one_line(&m.key), format_tokens(m.tokens)),
        }).collect();
        rows.push(format!("  by model: {}", name_list(&shown)));
    }
    if c.unpriced > 0 {
        rows.push(format!("  unreadable usages: {} (left out of the sums)", c.unpriced));
    }
    rows.join("\n")
}

/// What the session cost, for `/anchors`' title: `spent $4.96, 95.2% of prompt tokens from the cache`, or
/// that no prices were recorded (never `$0.00`).
pub fn anchors_spent(cost: &CostReport) -> String {
    let Some(usd) = cost.total.usd else { return "no prices recorded".into() };
    match cost.cache_read_share {
        Some(share) => format!("spent {}, {}% of prompt tokens from the cache", format_usd(usd), to_fixed(share * 100.0, 1)),
        None => format!("spent {}", format_usd(usd)),
    }
}

/// What a rewind saved so far in money, after its row (a lower bound: src/cost/).
pub fn anchors_rewind_saved(usd: f64) -> String {
    format!(" · ≈ {} saved so far", format_usd(usd))
}


/// `1 request`, `3 requests`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
