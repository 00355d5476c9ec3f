//! What the user sees after a compaction, in the rewinds' words.

use serde::Serialize;
use tsify_next::Tsify;

use crate::text::format_tokens;
use crate::tool::SummaryCache;

use super::mode::CompactionFallback;

/// One line for pi's UI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct Notice {
    /// The text.
    pub text: String,
    /// `"info"` (pi's dim status line) or `"warning"`.
    pub level: &'static str,
}

/// What the user sees after a compaction, as for rewinds: always one line saying whether the summary came
/// from the prompt cache (or why not); with pi's `showCacheMissNotices` on, the rewinds' cache-miss line when
/// it did not, with the prompt tokens billed outside the cache. Nothing when the feature is turned off.
/// `outcome`: how the summary was written, in the rewinds' `summaryCache` shape.
pub fn compaction_notices(outcome: &SummaryCache, show_misses: bool) -> Vec<Notice> {
    let reason = outcome.reason.as_deref();
    let live = outcome.mode == "live-prefix";
    if !live && reason == Some(CompactionFallback::Disabled.name()) {
        return Vec::new();
    }
    let headline = if outcome.hit() {
        match outcome.cache_read.filter(|n| n.is_finite()) {
            Some(read) => format!(
                "tree-navigator: compaction summary from the prompt cache ({} of {} prompt tokens read from the cache)",
                format_tokens(read),
                format_tokens(read + outcome.uncached().unwrap_or(0.0))
            ),
            None => "tree-navigator: compaction summary from the prompt cache".to_string(),
        }
    } else if live {
        "tree-navigator: compaction summary from the live request, but the provider read nothing from its cache".to_string()
    } else {
        format!("tree-navigator: compaction summary by pi's own request, cold ({})", reason.unwrap_or("unknown"))
    };
    let mut out = vec![Notice { text: headline, level: "info" }];
    if let Some(line) = outcome.miss_line("compaction").filter(|_| show_misses) {
        out.push(Notice { text: line, level: "warning" });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notices_follow_the_rewinds_convention() {
        let live = SummaryCache { mode: "live-prefix".into(), reason: None, cache_read: Some(182_400.0), input: Some(700.0), cache_write: Some(0.0) };
        let n = compaction_notices(&live, true);
        assert_eq!(n, vec![Notice { text: "tree-navigator: compaction summary from the prompt cache (182.4k of 183.1k prompt tokens read from the cache)".into(), level: "info" }]);
        let cold = SummaryCache { mode: "fallback".into(), reason: Some("no-capture".into()), cache_read: Some(0.0), input: Some(150_000.0), cache_write: None };
        assert_eq!(compaction_notices(&cold, false), vec![Notice { text: "tree-navigator: compaction summary by pi's own request, cold (no-capture)".into(), level: "info" }]);
        let with = compaction_notices(&cold, true);
        assert_eq!(with.len(), 2);
        assert_eq!(with[1], Notice { text: "cache miss: the compaction's summary was written cold (no-capture): 150.0k prompt tokens not read from the cache".into(), level: "warning" });
        // Sent live but nothing read: said, and a miss.
        let missed = SummaryCache { cache_read: Some(0.0), ..live };
        let n = compaction_notices(&missed, true);
        assert!(n[0].text.contains("read nothing from its cache") && n[1].text.ends_with("read nothing from the prompt cache: 700 prompt tokens not read from the cache"), "{n:?}");
        // Turned off: silent.
        assert!(compaction_notices(&SummaryCache { mode: "fallback".into(), reason: Some("disabled".into()), ..SummaryCache::default() }, true).is_empty());
    }
}
