//! The shim's objects, read field by field.
//!
//! They arrive as JSON values read field by field, as the config file is (`crate::config`): a derived
//! deserializer per type would cost the module more than these decisions. A missing or mistyped field reads
//! as absent.

use serde_json::Value;

pub(super) fn field<'v>(v: &'v Value, key: &str) -> Option<&'v Value> {
    v.get(key).filter(|x| !x.is_null())
}

pub(super) fn flag(v: &Value, key: &str) -> Option<bool> {
    field(v, key).and_then(Value::as_bool)
}

pub(super) fn number(v: &Value, key: &str) -> Option<f64> {
    field(v, key).and_then(Value::as_f64)
}

pub(super) fn count(v: &Value, key: &str) -> Option<u32> {
    number(v, key).filter(|n| *n >= 0.0 && n.fract() == 0.0).map(|n| n.min(f64::from(u32::MAX)) as u32)
}

pub(super) fn text(v: &Value, key: &str) -> Option<String> {
    field(v, key).and_then(Value::as_str).map(Into::into)
}

pub(super) fn texts(v: &Value, key: &str) -> Option<Vec<String>> {
    field(v, key).and_then(Value::as_array).map(|a| a.iter().filter_map(|x| x.as_str().map(Into::into)).collect())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::compaction::{compaction_mode, CompactionFacts, CompactionFallback, CompactionRange, FileOps, PreviousCompaction, SummaryParts};

    #[test]
    fn the_shims_objects_are_read_field_by_field() {
        let f = CompactionFacts::from_json(&json!({"enabled": true, "hasCapture": true, "hasStream": true, "captureIsPrefix": true,
            "rangeFound": true, "captureTokens": 1000, "tokensBefore": 1200, "addedChars": 40, "contextWindow": 200_000, "maxTokens": null}));
        assert!(f.enabled && f.has_capture && f.has_stream && f.same_model && f.capture_is_prefix && f.range_found);
        assert!(!f.live_request_overflowed && !f.stream_failed);
        assert_eq!((f.capture_tokens, f.tokens_before, f.added_chars, f.context_window, f.max_tokens), (Some(1000.0), 1200.0, 40.0, 200_000.0, 0.0));
        // Nothing said: every fallback's fact is "no" (disabled first), but the model is the same.
        let none = CompactionFacts::from_json(&json!({}));
        assert!(!none.enabled && none.same_model);
        assert_eq!(compaction_mode(&none).reason, Some(CompactionFallback::Disabled));
        // Mistyped fields read as absent.
        assert!(!CompactionFacts::from_json(&json!({"enabled": "yes"})).enabled);
        let parts = SummaryParts::from_json(&json!({"reply": "## Goal", "previousSummary": null, "ledgerTokens": 600,
            "range": {"previousSummaryAt": 1, "historyFirst": 2, "historyCount": 3, "prefixCount": 0, "messageCount": 9, "customInstructions": "focus"}}));
        assert_eq!(parts.range, CompactionRange { previous_summary_at: Some(1), history_first: 2, history_count: 3, prefix_count: 0, message_count: 9, custom_instructions: Some("focus".into()) });
        assert_eq!((parts.reply.as_str(), parts.previous_summary, parts.ledger_tokens), ("## Goal", None, Some(600)));
        assert_eq!(SummaryParts::from_json(&json!({"ledgerTokens": 0})).ledger_tokens, Some(0));
        assert_eq!(SummaryParts::from_json(&json!({"ledgerTokens": -1})).ledger_tokens, None);
        assert_eq!(FileOps::from_json(&json!({"read": ["a", 1, "b"], "edited": ["c"]})), FileOps { read: vec!["a".into(), "b".into()], written: vec![], edited: vec!["c".into()] });
        let p = PreviousCompaction::from_json(&json!({"fromHook": true, "readFiles": ["x"]}));
        assert_eq!(p, PreviousCompaction { from_hook: true, read_files: Some(vec!["x".into()]), modified_files: None });
    }
}
