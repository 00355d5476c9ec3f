//! The `navigate_tree` tool: every decision it makes and every sentence the model reads.
//!
//! The JavaScript shim feeds the session index, then asks [`plan`] what a call should do. The answer is
//! data, a [`ToolPlan`]: refuse with a text, write an anchor label, list anchors, or rewind (summarize these
//! entries, then branch). After the host's `branchWithSummary` the binding asks [`finish`] for the label
//! writes, the synthetic assistant message that keeps tool calls paired, and the response text. Nothing
//! here calls the host, reads a clock or talks to a model. Results derive `Serialize` (and their
//! TypeScript declarations, through `tsify`); the binding hands them over with one serializer.

mod definition;
mod facts;
mod params;
mod plan;
mod synthetic;
mod texts;

pub use definition::{definition, definition_text_len, ToolDefinition, TOOL_NAME};
pub use facts::{ToolFacts, ModelFacts};
pub use params::{Action, Arguments, Params, MAX_ARGUMENT_DEPTH};
pub use plan::{
    check_auth, check_summary, finish, plan, salvage_text, unreadable, AnchorDetails, AnchorPlan, AnchorRow,
    AuthResult, LabelWrite, ListDetails, ListPlan, ToolPlan, Refusal, RewindDetails, RewindFinish, RewindPlan,
    SummaryResult, MAX_FOCUS_CHARS, MIN_FOCUS_CHARS, MIN_SAVED_TOKENS,
};
pub use synthetic::{synthetic_assistant, KeptArguments, SyntheticAssistant, MAX_SYNTHETIC_FOCUS};
pub use texts::RefusalCode;

#[cfg(test)]
mod tests;

/// Serializes a number held in `f64` as JavaScript holds it: a whole number within 2^53 as an integer
/// (so JSON text reads `10201`, as `JSON.stringify` writes it, not `10201.0`), other finite numbers as
/// they are, and what is not finite as `null` (as `JSON.stringify` writes it). Across the wasm boundary
/// all three are the same JavaScript number.
#[allow(clippy::trivially_copy_pass_by_ref, reason = "serde's serialize_with signature")]
pub(crate) fn js_number<S: serde::Serializer>(x: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    const SAFE: f64 = 9_007_199_254_740_992.0;
    if x.fract() == 0.0 && x.abs() < SAFE {
        serializer.serialize_i64(*x as i64)
    } else if x.is_finite() {
        serializer.serialize_f64(*x)
    } else {
        serializer.serialize_none()
    }
}
