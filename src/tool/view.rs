//! What pi's interactive TUI shows of a `navigate_tree` call: the call as one line and the result's
//! collapsed headline (the expanded view is the text the model read, unchanged). The shim lays these out
//! with the host's components and colours; every word comes from here. Nothing here reaches the model.

use serde::{Deserialize, Serialize};
use tsify_next::Tsify;

use super::params::Arguments;
use super::texts::{self, Served};
use crate::text::to_one_line;

/// A tool result as pi hands it to `renderResult`: the model's text, whether it failed, and the
/// `details` the shim attached (only the fields a view reads; unknown ones are ignored).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", default)]
pub struct ShownResult {
    /// The text the model read (the result's text parts, joined).
    #[tsify(optional)]
    pub text: String,
    /// pi's `isError` for the result.
    #[tsify(optional)]
    pub is_error: bool,
    /// The result's `details` (absent for a result pi made itself, e.g. a thrown error).
    #[tsify(optional)]
    pub details: Option<ShownDetails>,
}

/// The `details` fields of anchor, rewind, list and refusal results that a view reads.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", default)]
#[allow(missing_docs, reason = "the same fields as AnchorDetails, RewindDetails, ListDetails and refusals")]
pub struct ShownDetails {
    #[tsify(optional)]
    pub refused: Option<String>,
    #[tsify(optional)]
    pub name: Option<String>,
    #[tsify(optional)]
    pub moved_from: Option<String>,
    #[tsify(optional)]
    pub context_tokens: Option<f64>,
    #[tsify(optional)]
    pub context_window: Option<f64>,
    #[tsify(optional)]
    pub label_start: Option<String>,
    #[tsify(optional)]
    pub label_end: Option<String>,
    #[tsify(optional)]
    pub context_before: Option<f64>,
    #[tsify(optional)]
    pub context_after: Option<f64>,
    #[tsify(optional)]
    pub anchors: Option<Vec<ShownAnchor>>,
    #[tsify(optional)]
    pub summary_cache: Option<SummaryCache>,
    #[tsify(optional)]
    pub ledger_tokens: Option<f64>,
    #[tsify(optional)]
    pub summary_cut: Option<bool>,
}

/// One anchor of a `list` result.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Tsify)]
#[serde(default)]
pub struct ShownAnchor {
    /// The name without `anchor:`.
    pub name: String,
    /// The estimate with that entry as leaf.
    pub tokens: f64,
}

/// `details.summaryCache` of a rewind: how its summary request went (see `js/cache-summary.js`).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Tsify)]
#[serde(rename_all = "camelCase", default)]
pub struct SummaryCache {
    /// `"live-prefix"` (the live prompt replayed, read from the prompt cache) or `"fallback"` (cold).
    pub mode: String,
    /// Why the cold request was sent (a `FallbackReason` in kebab-case).
    #[tsify(optional)]
    pub reason: Option<String>,
    /// Prompt tokens the provider read from its cache, when it said.
    #[tsify(optional)]
    pub cache_read: Option<f64>,
    /// Prompt tokens billed uncached, when the provider said.
    #[tsify(optional)]
    pub input: Option<f64>,
    /// Prompt tokens written to the cache (not read from it), when the provider said.
    #[tsify(optional)]
    pub cache_write: Option<f64>,
}

impl SummaryCache {
    /// Whether the summary was served from the prompt cache (the live prefix, and not reported as unread).
    pub fn hit(&self) -> bool {
        self.mode == "live-prefix" && !matches!(self.cache_read, Some(read) if read <= 0.0)
    }

    /// Prompt tokens not read from the cache: uncached input plus cache writes (`None` when neither is known).
    pub fn uncached(&self) -> Option<f64> {
        match (self.input, self.cache_write) {
            (None, None) => None,
            (input, write) => Some(input.unwrap_or(0.0) + write.unwrap_or(0.0)),
        }
    }

    /// The line pi's `showCacheMissNotices` setting shows when this summary missed the cache (`None` on a hit);
    /// `whose`: what wrote the summary (`"rewind"`, `"compaction"`).
    pub fn miss_line(&self, whose: &str) -> Option<String> {
        (!self.hit()).then(|| texts::view_cache_miss(whose, self.reason.as_deref(), self.uncached()))
    }
}

/// The collapsed view of a result.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct ResultView {
    /// One line (two for `list`): what happened, with the numbers.
    pub headline: String,
    /// Show the headline in the error colour (a refusal or a failed call).
    pub error: bool,
    /// The line pi's `showCacheMissNotices` setting shows: the rewind's summary missed the prompt cache.
    pub cache_miss: Option<String>,
}

/// The call as one line (after the tool's name): the action and its names, the focus shortened. A
/// call still streaming its arguments shows what has arrived.
pub fn call_line(args: &Arguments) -> String {
    let get = |key, max| args.get(key).and_then(|v| v.as_str()).and_then(|s| to_one_line(s, max));
    let name = |key| get(key, NAME_PREVIEW_CHARS).unwrap_or_default();
    match get("action", NAME_PREVIEW_CHARS).as_deref() {
        Some("anchor") => texts::view_call_anchor(&name("name")),
        Some("rewind") => {
            texts::view_call_rewind(&name("labelStart"), &name("labelEnd"), get("summaryFocus", FOCUS_PREVIEW_CHARS).as_deref())
        }
        Some("recall") => {
            let page = args.get("page").and_then(serde_json::Value::as_f64);
            texts::view_call_recall(&name("name"), get("query", FOCUS_PREVIEW_CHARS).as_deref(), page)
        }
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// Characters of `summaryFocus` the call line keeps.
const FOCUS_PREVIEW_CHARS: usize = 48;
/// Characters of a name (or an unknown action) the call line keeps: a valid name is at most 40.
const NAME_PREVIEW_CHARS: usize = 44;

/// The collapsed view of a result: the headline for its kind (told apart by its `details`), else the
/// first sentence of the text.
pub fn result_view(result: &ShownResult) -> ResultView {
    let d = result.details.clone().unwrap_or_default();
    let window = d.context_window.unwrap_or(0.0);
    let mut cache_miss = None;
    let headline = if d.refused.is_some() {
        texts::view_refused(&first_line(&result.text))
    } else if result.is_error {
        texts::view_failed(&first_line(&result.text))
    } else if let (Some(start), Some(end)) = (&d.label_start, &d.label_end) {
        let cache = d.summary_cache.as_ref();
        cache_miss = cache.and_then(|c| c.miss_line("rewind"));
        let served = cache.map(|c| if c.hit() { Served::Cache } else { Served::Cold(c.reason.as_deref().unwrap_or("cache not read")) });
        let ledger = d.ledger_tokens.filter(|&t| t > 0.0);
        let cut = d.summary_cut == Some(true);
        texts::view_rewound(start, end, d.context_before.unwrap_or(0.0), d.context_after.unwrap_or(0.0), window, ledger, cut, served)
    } else if let Some(anchors) = &d.anchors {
        let rows: Vec<(&str, f64)> = anchors.iter().map(|a| (a.name.as_str(), a.tokens)).collect();
        texts::view_list(&rows, d.context_tokens.unwrap_or(0.0), window)
    } else if let (Some(name), Some(tokens)) = (&d.name, d.context_tokens) {
        texts::view_anchor_set(name, tokens, window, d.moved_from.is_some())
    } else {
        first_line(&result.text)
    };
    ResultView { headline, error: result.is_error || d.refused.is_some(), cache_miss }
}

/// The text's first non-blank line, at most [`REASON_CHARS`] (the texts put their reason first). A line
/// that ends by introducing what follows (`…. Anchors here (root → leaf):`) keeps its sentences before that.
fn first_line(text: &str) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let line = match line.trim_end().strip_suffix(':') {
        Some(head) => head.rfind(". ").map_or(line, |at| &line[..=at]),
        None => line,
    };
    to_one_line(line, REASON_CHARS).unwrap_or_default()
}

/// Characters of a refusal's reason the headline keeps.
const REASON_CHARS: usize = 140;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn view(v: serde_json::Value) -> ResultView {
        result_view(&serde_json::from_value(v).unwrap())
    }

    #[test]
    fn a_cold_summary_names_its_reason_and_misses_the_cache() {
        let d = json!({"labelStart": "a", "labelEnd": "b", "contextBefore": 61_800, "contextAfter": 900, "contextWindow": 100_000,
            "summaryCache": {"mode": "fallback", "reason": "no-capture", "input": 12_345, "cacheWrite": 1000}});
        let v = view(json!({"text": "[rewind 'a' → 'b'] …", "details": d}));
        assert_eq!(v.headline, "rewind 'a' → 'b' · context 61.8% → 0.9% of 100k · summary cold (no-capture)");
        assert!(v.cache_miss.unwrap().ends_with("(no-capture): 13.3k prompt tokens not read from the cache"));
        assert!(!v.error);
    }

    #[test]
    fn a_cached_summary_has_no_miss_line_unless_nothing_was_read() {
        let hit = json!({"labelStart": "a", "labelEnd": "b", "contextBefore": 5, "contextAfter": 1, "contextWindow": 0,
            "summaryCache": {"mode": "live-prefix", "cacheRead": 900, "input": 10}});
        let v = view(json!({"details": hit}));
        assert!(v.headline.ends_with("summary from the prompt cache"), "{}", v.headline);
        assert_eq!(v.cache_miss, None);
        let mut cold = hit.clone();
        cold["summaryCache"]["cacheRead"] = json!(0);
        assert!(view(json!({"details": cold})).cache_miss.is_some());
    }

    #[test]
    fn refusals_and_failures_show_their_first_line_as_errors() {
        let v = view(json!({"text": "No anchor 'x' on the active branch. Anchors here:\n  1%  a", "isError": true, "details": {"refused": "UnknownAnchor"}}));
        assert_eq!((v.headline.as_str(), v.error), ("refused: No anchor 'x' on the active branch.", true));
        let v = view(json!({"text": "navigate_tree failed: its core crashed.\nmore", "isError": true}));
        assert!(v.error && v.headline.starts_with("failed: navigate_tree failed"), "{}", v.headline);
    }

    #[test]
    fn the_call_line_shortens_the_focus() {
        let args = Arguments::from_value(json!({"action": "rewind", "labelStart": "a", "labelEnd": "b", "summaryFocus": "x ".repeat(100)}));
        let line = call_line(&args);
        assert!(line.starts_with("rewind a → b · “x x") && line.chars().count() < 70, "{line}");
        assert_eq!(call_line(&Arguments::from_value(json!({"action": "list"}))), "list");
        let recall = Arguments::from_value(json!({"action": "recall", "name": "done", "query": "E0308", "page": 2}));
        assert_eq!(call_line(&recall), "recall done · “E0308” · page 2");
    }
}
