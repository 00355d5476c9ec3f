//! The synthetic assistant message appended after a rewind.
//!
//! `branchWithSummary` leaves the in-flight assistant message (holding the rewind's tool call) on the
//! abandoned branch, while pi appends the tool's result on the new one. Without a matching call the result
//! is orphaned and strict providers reject the request. So a copy of the call is appended right after the
//! summary: one `toolCall` with the in-flight id, `stopReason: "toolUse"` (providers that drop
//! error/aborted messages keep it), and usage all zero except `totalTokens`, which carries the post-rewind
//! estimate so the next estimate starts from the right baseline.

use serde_json::{json, Map, Value};

use crate::js::utf16_len;

use super::definition::TOOL_NAME;
use super::plan::ModelFacts;

/// Longest `summaryFocus` kept in the synthetic call's arguments (UTF-16 units). The summarizer always
/// gets the full focus; this copy is re-sent on every later request, so it is capped.
pub const MAX_SYNTHETIC_FOCUS: usize = 1024;
const TRUNCATED: &str = "… [truncated]";

/// The call's arguments as the synthetic call keeps them: only the tool's own parameters (anything else the
/// model sent stays on the abandoned branch, so a stray megabyte does not ride along on every later request),
/// with `summaryFocus` capped at [`MAX_SYNTHETIC_FOCUS`] units.
pub(crate) fn capped_arguments(raw: &Value) -> Value {
    const KEPT: [&str; 5] = ["action", "name", "labelStart", "labelEnd", "summaryFocus"];
    let mut args: Map<String, Value> = raw
        .as_object()
        .map(|o| o.iter().filter(|(k, _)| KEPT.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default();
    if let Some(Value::String(focus)) = args.get("summaryFocus") {
        if utf16_len(focus) > MAX_SYNTHETIC_FOCUS {
            let mut kept = String::new();
            let mut units = 0;
            for c in focus.chars() {
                if units + c.len_utf16() > MAX_SYNTHETIC_FOCUS {
                    break;
                }
                units += c.len_utf16();
                kept.push(c);
            }
            kept.push_str(TRUNCATED);
            args.insert("summaryFocus".into(), Value::String(kept));
        }
    }
    Value::Object(args)
}

/// The synthetic assistant message (a pi `AssistantMessage`), ready for `sessionManager.appendMessage`.
/// `now_ms` comes from the caller: the core reads no clock.
pub fn synthetic_assistant(
    call_id: &str,
    arguments: &Value,
    model: Option<&ModelFacts>,
    total_tokens: f64,
    now_ms: f64,
) -> Value {
    let field = |f: fn(&ModelFacts) -> &str| model.map_or("unknown", f).to_string();
    let zero_cost: Map<String, Value> =
        ["input", "output", "cacheRead", "cacheWrite", "total"].iter().map(|k| ((*k).to_string(), json!(0))).collect();
    json!({
        "role": "assistant",
        "content": [{ "type": "toolCall", "id": call_id, "name": TOOL_NAME, "arguments": arguments }],
        "api": field(|m| &m.api),
        "provider": field(|m| &m.provider),
        "model": field(|m| &m.id),
        "usage": {
            "input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0,
            "totalTokens": total_tokens,
            "cost": zero_cost,
        },
        "stopReason": "toolUse",
        "timestamp": now_ms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn focus_copy_is_capped_on_a_char_boundary() {
        let long = "é".repeat(MAX_SYNTHETIC_FOCUS - 1) + "😀😀";
        let args = capped_arguments(&json!({"action": "rewind", "summaryFocus": long}));
        let focus = args["summaryFocus"].as_str().unwrap();
        assert!(focus.ends_with(TRUNCATED));
        assert_eq!(utf16_len(focus.strip_suffix(TRUNCATED).unwrap()), MAX_SYNTHETIC_FOCUS - 1);
        let short = capped_arguments(&json!({"summaryFocus": "keep this"}));
        assert_eq!(short["summaryFocus"], "keep this");
        let extra = capped_arguments(&json!({"action": "rewind", "junk": "x".repeat(1 << 20), "nested": {"a": [1]}}));
        assert_eq!(extra, json!({"action": "rewind"}));
    }

    #[test]
    fn synthetic_shape() {
        let m = ModelFacts { api: "faux".into(), provider: "p".into(), id: "m".into() };
        let s = synthetic_assistant("call_9", &json!({"action": "rewind"}), Some(&m), 1234.0, 5.0);
        assert_eq!(s["content"][0]["id"], "call_9");
        assert_eq!(s["content"][0]["name"], TOOL_NAME);
        assert_eq!(s["stopReason"], "toolUse");
        assert_eq!(s["usage"]["totalTokens"], 1234.0);
        assert_eq!(s["usage"]["input"], 0);
        assert_eq!(s["model"], "m");
        assert_eq!(synthetic_assistant("c", &json!({}), None, 0.0, 0.0)["provider"], "unknown");
    }
}
