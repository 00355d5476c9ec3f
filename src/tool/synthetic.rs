//! The synthetic assistant message appended after `branchWithSummary`.
//!
//! pi appends the tool result of the running call to whatever the leaf is when the tool returns. After a
//! rewind that leaf is the new branch summary, so without help the result would follow a summary instead of
//! the tool call that produced it, and strict providers reject such orphaned results. The shim therefore
//! appends this message first: one `toolCall` block carrying the **same call id**, so the result pairs with
//! it. It uses `stopReason: "toolUse"` (providers that drop error/aborted messages keep it), and usage all
//! zero except `totalTokens`, which carries the post-rewind estimate so the next estimate starts from the
//! right baseline.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::Value;
use tsify_next::Tsify;

use super::definition::TOOL_NAME;
use super::facts::ModelFacts;
use super::params::Arguments;
use super::number::js_number;
use crate::js::utf16_len;

/// Longest `summaryFocus` kept in the synthetic call's arguments (UTF-16 units). The summarizer always
/// gets the full focus; this copy is re-sent on every later request, so it is capped.
pub const MAX_SYNTHETIC_FOCUS: usize = 1024;
const TRUNCATED: &str = "… [truncated]";

/// The call's arguments as the synthetic call keeps them: only the tool's own parameters (anything else
/// the model sent stays on the abandoned branch, so a stray megabyte does not ride along on every later
/// request), in the order sent, with `summaryFocus` capped at [`MAX_SYNTHETIC_FOCUS`] units. Crosses as
/// a plain object.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KeptArguments(Vec<(&'static str, Value)>);

impl KeptArguments {
    /// The kept copy of `raw`: each known key once, where it first appears, with its last value (what
    /// `JSON.stringify(JSON.parse(text))` keeps of a repeated key).
    pub fn of(raw: &Arguments) -> KeptArguments {
        const KEPT: [&str; 5] = ["action", "name", "labelStart", "labelEnd", "summaryFocus"];
        let mut kept: Vec<(&'static str, Value)> = Vec::new();
        for (key, _) in raw.members() {
            let Some(&name) = KEPT.iter().find(|k| **k == key) else { continue };
            if kept.iter().any(|(k, _)| *k == name) {
                continue;
            }
            let Some(value) = raw.get(name) else { continue };
            let value = match value {
                Value::String(focus) if name == "summaryFocus" && utf16_len(focus) > MAX_SYNTHETIC_FOCUS => {
                    Value::String(format!("{}{TRUNCATED}", utf16_prefix(focus, MAX_SYNTHETIC_FOCUS)))
                }
                other => other.clone(),
            };
            kept.push((name, value));
        }
        KeptArguments(kept)
    }

    /// Member `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }
}

impl Serialize for KeptArguments {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// The longest prefix of `s` of at most `units` UTF-16 units that ends on a character boundary.
fn utf16_prefix(s: &str, units: usize) -> &str {
    let mut used = 0;
    for (at, c) in s.char_indices() {
        used += c.len_utf16();
        if used > units {
            return &s[..at];
        }
    }
    s
}

/// One `toolCall` content block.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
pub struct ToolCallBlock {
    /// Always `"toolCall"`.
    #[serde(rename = "type")]
    #[tsify(type = "\"toolCall\"")]
    pub kind: &'static str,
    /// The in-flight call's id.
    pub id: String,
    /// [`TOOL_NAME`].
    pub name: &'static str,
    /// The kept arguments.
    #[tsify(type = "Record<string, unknown>")]
    pub arguments: KeptArguments,
}

/// pi's `Usage` with every count zero but `totalTokens`.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// 0.
    pub input: u32,
    /// 0.
    pub output: u32,
    /// 0.
    pub cache_read: u32,
    /// 0.
    pub cache_write: u32,
    /// The post-rewind estimate.
    #[serde(serialize_with = "js_number")]
    pub total_tokens: f64,
    /// All zero.
    pub cost: Cost,
}

/// pi's usage cost, all zero.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct Cost {
    /// 0.
    pub input: u32,
    /// 0.
    pub output: u32,
    /// 0.
    pub cache_read: u32,
    /// 0.
    pub cache_write: u32,
    /// 0.
    pub total: u32,
}

/// The synthetic assistant message (a pi `AssistantMessage`), ready for `sessionManager.appendMessage`.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct SyntheticAssistant {
    /// Always `"assistant"`.
    #[tsify(type = "\"assistant\"")]
    pub role: &'static str,
    /// The one tool call.
    pub content: [ToolCallBlock; 1],
    /// `model.api` (`"unknown"` without a model).
    pub api: String,
    /// `model.provider`.
    pub provider: String,
    /// `model.id`.
    pub model: String,
    /// Zero usage but the estimate.
    pub usage: Usage,
    /// Always `"toolUse"`.
    #[tsify(type = "\"toolUse\"")]
    pub stop_reason: &'static str,
    /// When it was made (ms since the epoch, from the host: the core reads no clock).
    #[serde(serialize_with = "js_number")]
    pub timestamp: f64,
}

/// The synthetic assistant carrying call `call_id` with `arguments`.
pub fn synthetic_assistant(
    call_id: &str,
    arguments: KeptArguments,
    model: Option<&ModelFacts>,
    total_tokens: f64,
    now_ms: f64,
) -> SyntheticAssistant {
    let (api, provider, id) = model.map_or(("unknown", "unknown", "unknown"), |m| (&*m.api, &*m.provider, &*m.id));
    let zero = Cost { input: 0, output: 0, cache_read: 0, cache_write: 0, total: 0 };
    SyntheticAssistant {
        role: "assistant",
        content: [ToolCallBlock { kind: "toolCall", id: call_id.into(), name: TOOL_NAME, arguments }],
        api: api.into(),
        provider: provider.into(),
        model: id.into(),
        usage: Usage { input: 0, output: 0, cache_read: 0, cache_write: 0, total_tokens, cost: zero },
        stop_reason: "toolUse",
        timestamp: now_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kept(v: Value) -> Value {
        serde_json::to_value(KeptArguments::of(&Arguments::from_value(v))).unwrap()
    }

    #[test]
    fn focus_copy_is_capped_on_a_char_boundary() {
        let long = "é".repeat(MAX_SYNTHETIC_FOCUS - 1) + "😀😀";
        let args = kept(json!({"action": "rewind", "summaryFocus": long}));
        let focus = args["summaryFocus"].as_str().unwrap();
        assert!(focus.ends_with(TRUNCATED));
        assert_eq!(utf16_len(focus.strip_suffix(TRUNCATED).unwrap()), MAX_SYNTHETIC_FOCUS - 1);
        assert_eq!(kept(json!({"summaryFocus": "keep this"}))["summaryFocus"], "keep this");
        let extra = kept(json!({"action": "rewind", "junk": "x".repeat(1 << 20), "nested": {"a": [1]}}));
        assert_eq!(extra, json!({"action": "rewind"}));
        // Duplicate keys (never sent through the binding: JavaScript objects have none) as `JSON.parse`
        // keeps them: the first position, the last value (capped if a focus).
        let text = format!(r#"{{"name":1,"junk":0,"action":"a","name":"n","summaryFocus":3,"summaryFocus":"{long}"}}"#);
        let dup: Arguments = serde_json::from_str(&text).unwrap();
        let args = serde_json::to_string(&KeptArguments::of(&dup)).unwrap();
        assert!(args.starts_with(r#"{"name":"n","action":"a","summaryFocus":""#), "{args}");
        assert!(args.ends_with(&format!(r#"{TRUNCATED}"}}"#)), "{args}");
    }

    #[test]
    fn synthetic_json_is_exact() {
        let m = ModelFacts { api: "faux".into(), provider: "p".into(), id: "m".into() };
        let args = KeptArguments::of(&Arguments::from_value(json!({"action": "rewind"})));
        let s = serde_json::to_string(&synthetic_assistant("call_9", args, Some(&m), 1234.0, 5.0)).unwrap();
        assert_eq!(
            s,
            r#"{"role":"assistant","content":[{"type":"toolCall","id":"call_9","name":"navigate_tree","arguments":{"action":"rewind"}}],"api":"faux","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":1234,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":5}"#
        );
        let none = serde_json::to_value(synthetic_assistant("c", KeptArguments::default(), None, 0.5, 0.0)).unwrap();
        assert_eq!(none["provider"], "unknown");
        assert_eq!(none["usage"]["totalTokens"], 0.5);
    }
}
