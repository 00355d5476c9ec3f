//! The synthetic assistant message appended after a rewind.
//!
//! `branchWithSummary` leaves the in-flight assistant message (holding the rewind's tool call) on the
//! abandoned branch, while pi appends the tool's result on the new one. Without a matching call the result
//! is orphaned and strict providers reject the request. So a copy of the call is appended right after the
//! summary: one `toolCall` with the in-flight id, `stopReason: "toolUse"` (providers that drop
//! error/aborted messages keep it), and usage all zero except `totalTokens`, which carries the post-rewind
//! estimate so the next estimate starts from the right baseline.

use crate::prelude::*;
use crate::json::Value;

use super::definition::TOOL_NAME;
use super::out::{number, quote, JsonObject};
use super::plan::ModelFacts;

/// Longest `summaryFocus` kept in the synthetic call's arguments (UTF-16 units). The summarizer always
/// gets the full focus; this copy is re-sent on every later request, so it is capped.
pub const MAX_SYNTHETIC_FOCUS: usize = 1024;
const TRUNCATED: &str = "… [truncated]";

/// The call's arguments as the synthetic call keeps them, as JSON text: only the tool's own parameters
/// (anything else the model sent stays on the abandoned branch, so a stray megabyte does not ride along on
/// every later request), with `summaryFocus` capped at [`MAX_SYNTHETIC_FOCUS`] units.
pub(crate) fn capped_arguments(raw: &Value<'_>) -> String {
    const KEPT: [&str; 5] = ["action", "name", "labelStart", "labelEnd", "summaryFocus"];
    let members = raw.as_object().unwrap_or_default();
    // As `JSON.stringify(JSON.parse(text))` has it: each key once, where it first appears, with its last
    // value (what `get` returns). Written straight out, nothing of the arguments is copied.
    let mut text = String::new();
    let mut out = JsonObject::open(&mut text);
    let mut written = [false; KEPT.len()];
    for (key, _) in members {
        let Some(at) = KEPT.iter().position(|kept| key.eq_str(kept)) else { continue };
        let (Some(done), Some(name)) = (written.get_mut(at), KEPT.get(at)) else { continue };
        if core::mem::replace(done, true) {
            continue;
        }
        let Some(value) = raw.get(name) else { continue };
        match value {
            Value::Str(focus) if *name == "summaryFocus" && focus.units() > MAX_SYNTHETIC_FOCUS => {
                let mut kept = focus.prefix(MAX_SYNTHETIC_FOCUS).into_owned();
                kept.push_str(TRUNCATED);
                out.str(name, &kept);
            }
            _ => value.write_json(out.key(name)),
        }
    }
    out.close();
    text
}

/// The synthetic assistant message (a pi `AssistantMessage`) as JSON text, ready for
/// `sessionManager.appendMessage`. `arguments` is JSON text (the call's arguments as the synthetic call keeps them); `now_ms` comes
/// from the caller: the core reads no clock.
pub fn synthetic_assistant(
    call_id: &str,
    arguments: &str,
    model: Option<&ModelFacts>,
    total_tokens: f64,
    now_ms: f64,
) -> String {
    let mut out = String::new();
    write_synthetic(&mut out, call_id, arguments, model, total_tokens, now_ms);
    out
}

/// Appends [`synthetic_assistant`] to `out` (the plan and the finish write it in place).
pub(crate) fn write_synthetic(
    out: &mut String,
    call_id: &str,
    arguments: &str,
    model: Option<&ModelFacts>,
    total_tokens: f64,
    now_ms: f64,
) {
    out.push_str(r#"{"role":"assistant","content":[{"type":"toolCall","id":"#);
    quote(out, call_id);
    out.push_str(r#","name":""#);
    out.push_str(TOOL_NAME);
    out.push_str(r#"","arguments":"#);
    out.push_str(arguments);
    let (api, provider, id) = model.map_or(("unknown", "unknown", "unknown"), |m| (m.api.as_str(), m.provider.as_str(), m.id.as_str()));
    out.push_str(r#"}],"api":"#);
    quote(out, api);
    out.push_str(r#","provider":"#);
    quote(out, provider);
    out.push_str(r#","model":"#);
    quote(out, id);
    out.push_str(r#","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":"#);
    number(out, total_tokens);
    out.push_str(r#","cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":"#);
    number(out, now_ms);
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::utf16_len;
    use crate::tool::test_json as js;
    use serde_json::json;

    /// JSON text as `serde_json` reads it back (for indexing in assertions).
    fn sj(text: &str) -> serde_json::Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn focus_copy_is_capped_on_a_char_boundary() {
        let long = "é".repeat(MAX_SYNTHETIC_FOCUS - 1) + "😀😀";
        let args = sj(&capped_arguments(&js(json!({"action": "rewind", "summaryFocus": long}))));
        let focus = args["summaryFocus"].as_str().unwrap();
        assert!(focus.ends_with(TRUNCATED));
        assert_eq!(utf16_len(focus.strip_suffix(TRUNCATED).unwrap()), MAX_SYNTHETIC_FOCUS - 1);
        let short = sj(&capped_arguments(&js(json!({"summaryFocus": "keep this"}))));
        assert_eq!(short["summaryFocus"], "keep this");
        let extra = sj(&capped_arguments(&js(json!({"action": "rewind", "junk": "x".repeat(1 << 20), "nested": {"a": [1]}}))));
        assert_eq!(extra, json!({"action": "rewind"}));
        // Duplicate keys (never sent through the binding, whose arguments are `JSON.stringify` output) as
        // JavaScript's `JSON.parse` keeps them: the first position, the last value (capped if a focus).
        let text = format!(r#"{{"name":1,"junk":0,"\u0061ction":"a","name":"n","summaryFocus":3,"summaryFocus":"{long}"}}"#);
        let dup = crate::json::parse(&text, 10).unwrap();
        let args = capped_arguments(&dup);
        assert!(args.starts_with(r#"{"name":"n","action":"a","summaryFocus":""#), "{args}");
        assert!(args.ends_with(&format!(r#"{TRUNCATED}"}}"#)), "{args}");
    }

    #[test]
    fn synthetic_json_is_exact() {
        let m = ModelFacts { api: "faux".into(), provider: "p".into(), id: "m".into() };
        let s = synthetic_assistant("call_9", r#"{"action":"rewind"}"#, Some(&m), 1234.0, 5.0);
        assert_eq!(
            s,
            r#"{"role":"assistant","content":[{"type":"toolCall","id":"call_9","name":"navigate_tree","arguments":{"action":"rewind"}}],"api":"faux","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":1234,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":5}"#
        );
    }

    #[test]
    fn synthetic_shape() {
        let m = ModelFacts { api: "faux".into(), provider: "p".into(), id: "m".into() };
        let s = sj(&synthetic_assistant("call_9", r#"{"action":"rewind"}"#, Some(&m), 1234.0, 5.0));
        assert_eq!(s["content"][0]["id"], "call_9");
        assert_eq!(s["content"][0]["name"], TOOL_NAME);
        assert_eq!(s["stopReason"], "toolUse");
        assert_eq!(s["usage"]["totalTokens"], 1234.0);
        assert_eq!(s["usage"]["input"], 0);
        assert_eq!(s["model"], "m");
        assert_eq!(sj(&synthetic_assistant("c", "{}", None, 0.0, 0.0))["provider"], "unknown");
    }
}
