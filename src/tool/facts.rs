//! What the host knows about a call that the index does not: read from the JavaScript object the shim
//! hands over (through serde), never from the model.

use serde::{Deserialize, Serialize};
use tsify_next::Tsify;

/// The model in use, as the synthetic assistant records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
pub struct ModelFacts {
    /// `model.api`.
    pub api: String,
    /// `model.provider`.
    pub provider: String,
    /// `model.id`.
    pub id: String,
}

/// The host's facts for one call: `callId` is required; in parentheses the value when a field is absent.
#[derive(Debug, Clone, PartialEq, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ToolFacts {
    /// Id of the tool call being executed.
    pub call_id: String,
    /// The model's context window (0: unknown).
    #[serde(default)]
    #[tsify(optional)]
    pub context_window: f64,
    /// The configured model, if any (`null`/absent: none).
    #[serde(default)]
    #[tsify(optional)]
    pub model: Option<ModelFacts>,
    /// Whether a rewind made now reaches the very next request (`true`; false → the response warns).
    #[serde(default = "yes")]
    #[tsify(optional)]
    pub refresh_reaches: bool,
    /// Current time in ms since the epoch, for the synthetic message's timestamp (0): the core reads no clock.
    #[serde(default)]
    #[tsify(optional)]
    pub now_ms: f64,
}

/// `refreshReaches` when absent.
fn yes() -> bool {
    true
}

/// A field of a host result read leniently: a value of another type reads as absent (the host's objects
/// are not ours to reject).
pub(super) fn lenient<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Ok(Option::<serde_json::Value>::deserialize(deserializer)?.and_then(|v| T::deserialize(v).ok()))
}
