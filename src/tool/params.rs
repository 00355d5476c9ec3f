//! The call's parameters as the model sent them. Nothing is trusted: a field of the wrong type reads as
//! missing, and the guards in [`super::plan`] explain what was expected.

use serde_json::Value;

/// The operation requested.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Label the current point.
    Anchor,
    /// Collapse the work after an anchor into a summary.
    Rewind,
    /// Show the anchors on the active branch.
    List,
}

/// The parameters of one call.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// `action`, when it names a known operation.
    pub action: Option<Action>,
    /// `name` (anchor).
    pub name: Option<String>,
    /// `labelStart` (rewind).
    pub label_start: Option<String>,
    /// `labelEnd` (rewind).
    pub label_end: Option<String>,
    /// `summaryFocus` (rewind).
    pub summary_focus: Option<String>,
    /// The arguments object exactly as received (copied into the synthetic assistant).
    pub raw: Value,
}

impl Params {
    /// Reads the arguments object of a tool call.
    pub fn from_value(raw: &Value) -> Params {
        let text = |key: &str| raw.get(key).and_then(Value::as_str).map(String::from);
        let action = match raw.get("action").and_then(Value::as_str) {
            Some("anchor") => Some(Action::Anchor),
            Some("rewind") => Some(Action::Rewind),
            Some("list") => Some(Action::List),
            _ => None,
        };
        Params {
            action,
            name: text("name"),
            label_start: text("labelStart"),
            label_end: text("labelEnd"),
            summary_focus: text("summaryFocus"),
            raw: if raw.is_object() { raw.clone() } else { Value::Object(serde_json::Map::new()) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wrong_types_read_as_missing() {
        let p =
            Params::from_value(&json!({"action": "rewind", "labelStart": 3, "labelEnd": "b", "summaryFocus": null}));
        assert_eq!(p.action, Some(Action::Rewind));
        assert_eq!(p.label_start, None);
        assert_eq!(p.label_end.as_deref(), Some("b"));
        assert_eq!(p.summary_focus, None);
        assert_eq!(Params::from_value(&json!({"action": "jump"})).action, None);
        assert_eq!(Params::from_value(&json!("x")).raw, json!({}));
    }
}
