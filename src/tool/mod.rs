//! The `navigate_tree` tool: every decision it makes and every sentence the model reads.
//!
//! The JavaScript shim feeds the session index, then asks [`plan`] what a call should do. The answer is
//! data, as the JSON text the shim parses: refuse with a text, write an anchor label, list anchors, or
//! rewind (summarize these entries, then branch). After the host's `branchWithSummary` the shim asks
//! [`finish`] for the label writes, the synthetic assistant message that keeps tool calls paired, and the
//! response text. Nothing here calls the host, reads a clock or talks to a model.

mod definition;
pub(crate) mod out;
mod params;
mod plan;
mod synthetic;
mod texts;

pub use definition::{definition, definition_text_len, TOOL_NAME};
pub use params::{Action, Params};
pub use plan::{
    check_auth, check_summary, finish, plan, salvage_text, unreadable, Facts, ModelFacts, Refusal,
    MAX_FOCUS_CHARS, MIN_FOCUS_CHARS, MIN_SAVED_TOKENS,
};
pub use synthetic::{synthetic_assistant, MAX_SYNTHETIC_FOCUS};
pub use texts::RefusalCode;

#[cfg(test)]
mod tests;

/// Test input written with `serde_json::json!`, as the core's own JSON value.
#[cfg(test)]
#[allow(clippy::needless_pass_by_value, reason = "called with json! temporaries")]
pub(crate) fn test_json(v: serde_json::Value) -> crate::json::Value<'static> {
    crate::json::parse(&v.to_string(), 1000).expect("serde_json writes valid JSON").into_owned()
}
