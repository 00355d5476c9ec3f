//! The call's parameters as the model sent them. Nothing is trusted: a field of the wrong type reads as
//! missing, and the guards in [`super::plan`] explain what was expected.

use crate::prelude::*;
use alloc::borrow::Cow;

use crate::json::num::js_string;
use crate::json::Value;

use super::texts::fill;

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
pub struct Params<'r> {
    /// `action`, when it names a known operation.
    pub action: Option<Action>,
    /// `name` (anchor).
    pub name: Option<Cow<'r, str>>,
    /// `labelStart` (rewind).
    pub label_start: Option<Cow<'r, str>>,
    /// `labelEnd` (rewind).
    pub label_end: Option<Cow<'r, str>>,
    /// `summaryFocus` (rewind).
    pub summary_focus: Option<Cow<'r, str>>,
    /// The arguments as received (the synthetic assistant keeps its known fields; refusals say what
    /// was wrong with them). Borrowed: a call's arguments may be megabytes.
    pub raw: &'r Value<'r>,
}

impl<'r> Params<'r> {
    /// Reads the arguments object of a tool call.
    pub fn from_value(raw: &'r Value<'r>) -> Params<'r> {
        // Borrowed from the arguments (decoded only when the text holds escapes).
        let text = |key: &str| raw.get(key).and_then(Value::as_str);
        let action = match raw.get("action").and_then(Value::as_str).as_deref() {
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
            raw,
        }
    }
}

/// What JSON calls the type of `value`, for refusals ("a number, not a string").
fn json_type(value: &Value<'_>) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Num(_) => "a number",
        Value::Str(_) => "a string",
        Value::Arr(_) => "an array",
        Value::Obj(_) => "an object",
    }
}

/// Why `raw[key]` is not a valid anchor name, in a few words that never repeat the value itself (it may
/// be megabytes long or full of look-alike characters). `None` when it is valid.
pub(crate) fn name_problem(raw: &Value<'_>, key: &str) -> Option<String> {
    use crate::text::{is_valid_name, ANCHOR_PREFIX, MAX_NAME_LENGTH};
    const _: () = assert!(matches!(ANCHOR_PREFIX.as_bytes(), b"anchor:"), "the texts below spell the prefix out");
    let name = match raw.get(key) {
        None => return Some("it is missing".into()),
        Some(Value::Str(s)) => s.decoded(),
        Some(other) => return Some(not_a_string(other)),
    };
    let name: &str = &name;
    if is_valid_name(name) {
        return None;
    }
    if name.is_empty() {
        return Some("it is empty".into());
    }
    if let Some(rest) = name.strip_prefix(ANCHOR_PREFIX) {
        // The prefix is `anchor:`, written out in the templates.
        let text = if is_valid_name(rest) {
            "drop the 'anchor:' prefix, it is added for you (send '\u{1}')"
        } else {
            "drop the 'anchor:' prefix, it is added for you"
        };
        return Some(fill(text, &[rest]));
    }
    let units = crate::js::utf16_len(name);
    if units > MAX_NAME_LENGTH {
        return Some(fill("it is \u{1} characters long", &[&js_string(units as f64)]));
    }
    if let Some(c) = name.chars().find(|c| !c.is_ascii()) {
        let text = "it contains \u{1}, which is not ASCII (use only a-z, 0-9 and the plain hyphen U+002D)";
        return Some(fill(text, &[&code_point(c)]));
    }
    if name.bytes().any(|b| b.is_ascii_uppercase()) {
        return Some("it has uppercase letters".into());
    }
    if let Some(c) = name.chars().find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')) {
        let text = if c.is_ascii_graphic() { "'\u{1}' is not allowed" } else { "\u{1} is not allowed" };
        let shown = if c.is_ascii_graphic() { String::from(c) } else { code_point(c) };
        return Some(fill(text, &[&shown]));
    }
    Some("hyphens must sit between letters or digits, one at a time".into())
}

/// `Some("it is a number, not a string")` when `raw[key]` is present but not a string.
pub(crate) fn wrong_type(raw: &Value<'_>, key: &str) -> Option<String> {
    match raw.get(key) {
        None | Some(Value::Str(_)) => None,
        Some(other) => Some(not_a_string(other)),
    }
}

/// "it is a number, not a string" for a value that should have been a string.
fn not_a_string(value: &Value<'_>) -> String {
    fill("it is \u{1}, not a string", &[json_type(value)])
}

/// `U+00E9`: a character's code point as Unicode writes it.
fn code_point(c: char) -> String {
    let mut out = String::new();
    crate::json::push_code_point(&mut out, c);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::test_json as js;
    use serde_json::json;

    #[test]
    fn wrong_types_read_as_missing() {
        let args = js(json!({"action": "rewind", "labelStart": 3, "labelEnd": "b", "summaryFocus": null}));
        let p = Params::from_value(&args);
        assert_eq!(p.action, Some(Action::Rewind));
        assert_eq!(p.label_start, None);
        assert_eq!(p.label_end.as_deref(), Some("b"));
        assert_eq!(p.summary_focus, None);
        assert_eq!(Params::from_value(&js(json!({"action": "jump"}))).action, None);
        let not_an_object = js(json!("x"));
        let p = Params::from_value(&not_an_object);
        assert_eq!((p.action, p.name, p.label_start), (None, None, None));
        assert_eq!(crate::tool::synthetic::capped_arguments(p.raw), "{}", "the synthetic copy is an empty object");
    }

    #[test]
    fn name_problems_say_what_is_wrong_without_echoing_the_value() {
        let problem = |v: serde_json::Value| name_problem(&js(json!({ "name": v })), "name");
        assert_eq!(problem(json!("impl-start")), None);
        assert_eq!(name_problem(&js(json!({})), "name").as_deref(), Some("it is missing"));
        assert_eq!(problem(json!(7)).as_deref(), Some("it is a number, not a string"));
        assert_eq!(problem(json!(["a"])).as_deref(), Some("it is an array, not a string"));
        assert_eq!(problem(json!("")).as_deref(), Some("it is empty"));
        assert_eq!(
            problem(json!("anchor:start")).as_deref(),
            Some("drop the 'anchor:' prefix, it is added for you (send 'start')")
        );
        let long = "a".repeat(1 << 20);
        let p = problem(json!(long)).unwrap();
        assert_eq!(p, "it is 1048576 characters long");
        // Cyrillic 'а' (U+0430) looks like 'a'; U+2010 looks like '-'; fullwidth letters look like ASCII.
        assert!(problem(json!("\u{430}nchor")).unwrap().contains("U+0430"));
        assert!(problem(json!("impl\u{2010}start")).unwrap().contains("U+2010"));
        assert!(problem(json!("\u{ff53}tart")).unwrap().contains("U+FF53"));
        assert!(problem(json!("zero\u{200b}width")).unwrap().contains("U+200B"));
        assert_eq!(problem(json!("Start")).as_deref(), Some("it has uppercase letters"));
        assert_eq!(problem(json!("a_b")).as_deref(), Some("'_' is not allowed"));
        assert_eq!(problem(json!("a\tb")).as_deref(), Some("U+0009 is not allowed"));
        assert!(problem(json!("a--b")).unwrap().starts_with("hyphens"));
        assert!(problem(json!("\u{1f600}")).unwrap().starts_with("it contains U+1F600, which"));
        assert!(problem(json!("\u{10ffff}")).unwrap().starts_with("it contains U+10FFFF, which"));
        assert!(problem(json!("\u{e9}")).unwrap().starts_with("it contains U+00E9, which"));
        assert_eq!(problem(json!("a\u{7f}")).as_deref(), Some("U+007F is not allowed"));
        assert!(problem(json!("-a")).unwrap().starts_with("hyphens"));
    }
}
