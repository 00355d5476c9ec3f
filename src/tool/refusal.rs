//! A refusal: why a call (or a host step of it) was not carried out, and the sentence the model reads.
//! Its own module because every action refuses: `plan`, `recall` and `/anchors` all build one.

use serde::Serialize;
use tsify_next::Tsify;

use super::number::js_number;
use super::texts::RefusalCode;

/// A refused call or host step: `text` goes to the model as a failed tool result.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
pub struct Refusal {
    /// Stable reason.
    pub code: RefusalCode,
    /// What the model reads.
    pub text: String,
    /// For `TooLittleSaved`: the estimated tokens the rewind would have freed (the tool result's details).
    #[serde(rename = "savedTokens", skip_serializing_if = "Option::is_none", serialize_with = "opt_js_number")]
    #[tsify(optional)]
    pub saved_tokens: Option<f64>,
}

impl Refusal {
    /// A refusal with no saving to report.
    pub(super) fn new(code: RefusalCode, text: String) -> Self {
        Refusal { code, text, saved_tokens: None }
    }
}

#[allow(clippy::ref_option, reason = "serde's serialize_with signature")]
fn opt_js_number<S: serde::Serializer>(x: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
    match x {
        Some(v) => js_number(v, serializer),
        None => serializer.serialize_none(),
    }
}
