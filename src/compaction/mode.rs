//! Whether the live request can be reused for the summary, and why not: the fallbacks and the mode decision.

use serde::Serialize;
use serde_json::Value;
use tsify_next::Tsify;

use super::fields::{flag, number};

/// Why a compaction was left to pi's own (cold) summary request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "kebab-case")]
pub enum CompactionFallback {
    /// Turned off (config or env).
    Disabled,
    /// No request captured (pi <0.87, or none sent since the session opened).
    NoCapture,
    /// The host's model registry has no `streamSimple`.
    NoStream,
    /// The last request went to another model (the cache is per model).
    ModelChanged,
    /// The last request is not the start of the context pi compacts.
    StaleCapture,
    /// pi's range to summarize is not where pi puts it in the last request.
    Unaligned,
    /// It would not fit the window with the instruction and a summary, or it overflowed.
    Overflow,
    /// The reply is unusable (an error, no text, a tool call, cut at its limit).
    Failed,
}

impl CompactionFallback {
    /// The reason's name as the notices print it (`no-capture`).
    pub fn name(self) -> &'static str {
        match self {
            CompactionFallback::Disabled => "disabled",
            CompactionFallback::NoCapture => "no-capture",
            CompactionFallback::NoStream => "no-stream",
            CompactionFallback::ModelChanged => "model-changed",
            CompactionFallback::StaleCapture => "stale-capture",
            CompactionFallback::Unaligned => "unaligned",
            CompactionFallback::Overflow => "overflow",
            CompactionFallback::Failed => "failed",
        }
    }
}

/// What the shim knows when pi asks for a compaction.
#[allow(clippy::struct_excessive_bools, reason = "independent facts the shim observes, read from one object")]
#[derive(Debug, Clone, PartialEq, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct CompactionFacts {
    /// Config `cacheCompaction`, and no env kill switch.
    pub enabled: bool,
    /// A request was captured for this session.
    pub has_capture: bool,
    /// `ctx.modelRegistry.streamSimple` is a function.
    pub has_stream: bool,
    /// The captured request went to the session's model (absent: yes).
    #[tsify(optional)]
    pub same_model: bool,
    /// The captured messages start the context pi compacts, unchanged.
    #[serde(default)]
    #[tsify(optional)]
    pub capture_is_prefix: bool,
    /// pi's messages to summarize are where pi's compaction puts them.
    #[serde(default)]
    #[tsify(optional)]
    pub range_found: bool,
    /// The live request overflowed (pi will retry the turn).
    #[serde(default)]
    #[tsify(optional)]
    pub live_request_overflowed: bool,
    /// The captured request's prompt tokens by its reply's usage.
    #[serde(default)]
    #[tsify(optional)]
    pub capture_tokens: Option<f64>,
    /// pi's `tokensBefore` (the estimate without a count).
    #[serde(default)]
    #[tsify(optional)]
    pub tokens_before: f64,
    /// Characters added to the captured request (messages, instruction).
    #[serde(default)]
    #[tsify(optional)]
    pub added_chars: f64,
    /// The model's context window (0: unknown).
    pub context_window: f64,
    /// The model's output limit (0: unknown).
    #[serde(default)]
    #[tsify(optional)]
    pub max_tokens: f64,
    /// The live-prefix reply was unusable.
    #[serde(default)]
    #[tsify(optional)]
    pub stream_failed: bool,
}

impl CompactionFacts {
    /// The facts from the shim's object (camelCase fields; `sameModel` absent: yes; the rest: no or 0).
    pub fn from_json(v: &Value) -> Self {
        let yes = |k| flag(v, k).unwrap_or(false);
        CompactionFacts {
            enabled: yes("enabled"),
            has_capture: yes("hasCapture"),
            has_stream: yes("hasStream"),
            same_model: flag(v, "sameModel").unwrap_or(true),
            capture_is_prefix: yes("captureIsPrefix"),
            range_found: yes("rangeFound"),
            live_request_overflowed: yes("liveRequestOverflowed"),
            capture_tokens: number(v, "captureTokens"),
            tokens_before: number(v, "tokensBefore").unwrap_or(0.0),
            added_chars: number(v, "addedChars").unwrap_or(0.0),
            context_window: number(v, "contextWindow").unwrap_or(0.0),
            max_tokens: number(v, "maxTokens").unwrap_or(0.0),
            stream_failed: yes("streamFailed"),
        }
    }
}

/// The decision: the live prefix with its output limit, or pi's own compaction with a reason.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct CompactionMode {
    /// `"live-prefix"` or `"fallback"`.
    pub mode: &'static str,
    /// Why pi's own compaction (`None` for the live prefix).
    pub reason: Option<CompactionFallback>,
    /// The output limit to ask for (`None` on a fallback).
    pub max_tokens: Option<f64>,
}

/// The room a compaction summary needs below the window. pi's threshold leaves `reserveTokens` (16,384 by
/// default) above the context, and pi's format fills 1–3k tokens; half the reserve leaves a summary of any
/// realistic length room while a context that crossed the threshold by less than half the reserve still fits.
pub const COMPACTION_OUTPUT_RESERVE: f64 = 8_192.0;

/// The prompt the live-prefix request sends, in tokens: the captured request as its provider counted it
/// plus what is added (`ceil(chars / 4)`, pi's estimate); without that count pi's `tokensBefore` (which
/// already holds what followed the capture) plus the added characters.
pub fn compaction_prompt_tokens(f: &CompactionFacts) -> f64 {
    let added = (f.added_chars.max(0.0) / 4.0).ceil();
    match f.capture_tokens {
        Some(tokens) if tokens.is_finite() && tokens > 0.0 => tokens + added,
        _ => f.tokens_before.max(0.0) + added,
    }
}

/// Chooses the summary request. The checks run in this order, so the reason names the first obstacle.
pub fn compaction_mode(f: &CompactionFacts) -> CompactionMode {
    let fallback = |r| CompactionMode { mode: "fallback", reason: Some(r), max_tokens: None };
    if !f.enabled {
        return fallback(CompactionFallback::Disabled);
    }
    if !f.has_capture {
        return fallback(CompactionFallback::NoCapture);
    }
    if !f.has_stream {
        return fallback(CompactionFallback::NoStream);
    }
    if !f.same_model {
        return fallback(CompactionFallback::ModelChanged);
    }
    if !f.capture_is_prefix {
        return fallback(CompactionFallback::StaleCapture);
    }
    if !f.range_found {
        return fallback(CompactionFallback::Unaligned);
    }
    let prompt = compaction_prompt_tokens(f);
    let room = if f.context_window > 0.0 { f.context_window - prompt } else { f64::INFINITY };
    if f.live_request_overflowed || room < COMPACTION_OUTPUT_RESERVE {
        return fallback(CompactionFallback::Overflow);
    }
    if f.stream_failed {
        return fallback(CompactionFallback::Failed);
    }
    let own = if f.max_tokens > 0.0 { f.max_tokens } else { f64::INFINITY };
    let max_tokens = own.min(room);
    CompactionMode { mode: "live-prefix", reason: None, max_tokens: max_tokens.is_finite().then(|| max_tokens.floor()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> CompactionFacts {
        CompactionFacts {
            enabled: true,
            has_capture: true,
            has_stream: true,
            same_model: true,
            capture_is_prefix: true,
            range_found: true,
            live_request_overflowed: false,
            capture_tokens: Some(180_000.0),
            tokens_before: 185_000.0,
            added_chars: 4_000.0,
            context_window: 200_000.0,
            max_tokens: 64_000.0,
            stream_failed: false,
        }
    }

    #[test]
    fn the_live_prefix_gets_the_room_below_the_window() {
        // 180k counted + 1k added: 19k of room, below the model's 64k.
        assert_eq!(compaction_mode(&facts()), CompactionMode { mode: "live-prefix", reason: None, max_tokens: Some(19_000.0) });
        // A model with a smaller output limit keeps it.
        let m = compaction_mode(&CompactionFacts { max_tokens: 8_192.0, ..facts() });
        assert_eq!(m.max_tokens, Some(8_192.0));
        // Unknown window and output limit: no limit to ask for.
        let m = compaction_mode(&CompactionFacts { context_window: 0.0, max_tokens: 0.0, ..facts() });
        assert_eq!((m.mode, m.max_tokens), ("live-prefix", None));
    }

    #[test]
    fn every_fallback_has_its_reason_and_the_first_obstacle_is_named() {
        let cases: Vec<(CompactionFacts, CompactionFallback)> = vec![
            (CompactionFacts { enabled: false, ..facts() }, CompactionFallback::Disabled),
            (CompactionFacts { has_capture: false, ..facts() }, CompactionFallback::NoCapture),
            (CompactionFacts { has_stream: false, ..facts() }, CompactionFallback::NoStream),
            (CompactionFacts { same_model: false, ..facts() }, CompactionFallback::ModelChanged),
            (CompactionFacts { capture_is_prefix: false, ..facts() }, CompactionFallback::StaleCapture),
            (CompactionFacts { range_found: false, ..facts() }, CompactionFallback::Unaligned),
            (CompactionFacts { live_request_overflowed: true, ..facts() }, CompactionFallback::Overflow),
            (CompactionFacts { capture_tokens: Some(192_000.0), ..facts() }, CompactionFallback::Overflow),
            (CompactionFacts { stream_failed: true, ..facts() }, CompactionFallback::Failed),
            (CompactionFacts { enabled: false, has_capture: false, ..facts() }, CompactionFallback::Disabled),
            (CompactionFacts { has_capture: false, has_stream: false, ..facts() }, CompactionFallback::NoCapture),
        ];
        for (f, reason) in cases {
            let m = compaction_mode(&f);
            assert_eq!((m.mode, m.reason, m.max_tokens), ("fallback", Some(reason), None), "{f:?}");
        }
        assert_eq!(serde_json::to_string(&CompactionFallback::StaleCapture).unwrap(), "\"stale-capture\"");
        assert_eq!(CompactionFallback::NoCapture.name(), "no-capture");
    }

    #[test]
    fn the_prompt_is_the_providers_count_plus_what_is_added_else_pis_estimate() {
        // Exactly the reserve left: fits.
        let edge = CompactionFacts { capture_tokens: Some(200_000.0 - COMPACTION_OUTPUT_RESERVE - 1_000.0), ..facts() };
        assert_eq!(compaction_prompt_tokens(&edge), 200_000.0 - COMPACTION_OUTPUT_RESERVE);
        assert_eq!(compaction_mode(&edge).mode, "live-prefix");
        let over = CompactionFacts { added_chars: 4_001.0, ..edge };
        assert_eq!(compaction_mode(&over).reason, Some(CompactionFallback::Overflow));
        // No count (a reply without usage): pi's tokensBefore, which already holds what followed.
        let est = CompactionFacts { capture_tokens: None, ..facts() };
        assert_eq!(compaction_prompt_tokens(&est), 186_000.0);
        assert_eq!(compaction_mode(&est).max_tokens, Some(14_000.0));
        assert_eq!(compaction_prompt_tokens(&CompactionFacts { capture_tokens: Some(0.0), ..facts() }), 186_000.0);
    }
}
