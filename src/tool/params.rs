//! The call's parameters as the model sent them. Nothing is trusted: a field of the wrong type reads as
//! missing, and the guards in [`super::plan`] explain what was expected.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Number, Value};

use crate::text::{is_valid_name, ANCHOR_PREFIX, MAX_NAME_LENGTH};

/// How deep the arguments may nest. The tool's own parameters are flat strings; the limit only keeps a
/// hostile value (10,000 levels, a cycle) from exhausting the wasm stack while it is read.
pub const MAX_ARGUMENT_DEPTH: usize = 64;

/// The operation requested.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Label the current point.
    Anchor,
    /// Collapse the work after an anchor into a summary.
    Rewind,
    /// Show the anchors on the active branch.
    List,
    /// Read back what a rewind collapsed.
    Recall,
}

/// A tool call's arguments as received: the members of the top-level object in the order sent (anything
/// that is not an object has none). Read from a JavaScript value with [`Deserialize`], which refuses
/// nesting deeper than [`MAX_ARGUMENT_DEPTH`] with an error instead of recursing on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Arguments {
    members: Vec<(String, Value)>,
}

impl Arguments {
    /// The arguments of a `serde_json` value (tests, callers that already hold JSON): an object's members,
    /// none for anything else.
    pub fn from_value(value: Value) -> Arguments {
        match value {
            Value::Object(map) => Arguments { members: map.into_iter().collect() },
            _ => Arguments::default(),
        }
    }

    /// Member `key` (the last one if a key repeats, as `JSON.parse` keeps it).
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.members.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The members, in the order sent.
    pub fn members(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.members.iter().map(|(k, v)| (k.as_str(), v))
    }
}

impl<'de> Deserialize<'de> for Arguments {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ArgumentsVisitor)
    }
}

/// Reads the top level: an object's members are kept, any other value is read (within the depth limit)
/// and dropped.
struct ArgumentsVisitor;

impl<'de> Visitor<'de> for ArgumentsVisitor {
    type Value = Arguments;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Arguments, A::Error> {
        let mut members = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            members.push((key, map.next_value_seed(Limited(1))?));
        }
        Ok(Arguments { members })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Arguments, A::Error> {
        Limited(0).visit_seq(seq).map(|_| Arguments::default())
    }

    fn visit_bool<E>(self, _: bool) -> Result<Arguments, E> {
        Ok(Arguments::default())
    }
    fn visit_i64<E>(self, _: i64) -> Result<Arguments, E> {
        Ok(Arguments::default())
    }
    fn visit_u64<E>(self, _: u64) -> Result<Arguments, E> {
        Ok(Arguments::default())
    }
    fn visit_f64<E>(self, _: f64) -> Result<Arguments, E> {
        Ok(Arguments::default())
    }
    fn visit_str<E>(self, _: &str) -> Result<Arguments, E> {
        Ok(Arguments::default())
    }
    fn visit_unit<E>(self) -> Result<Arguments, E> {
        Ok(Arguments::default())
    }
    fn visit_none<E>(self) -> Result<Arguments, E> {
        Ok(Arguments::default())
    }
}

/// A JSON value read at nesting depth `.0`; deeper than [`MAX_ARGUMENT_DEPTH`] is an error.
#[derive(Clone, Copy)]
struct Limited(usize);

impl Limited {
    /// The seed for a value one level further in, or the error when that is too deep.
    fn inner<E: de::Error>(self) -> Result<Limited, E> {
        if self.0 >= MAX_ARGUMENT_DEPTH {
            return Err(E::custom(format!("nested deeper than {MAX_ARGUMENT_DEPTH} levels")));
        }
        Ok(Limited(self.0 + 1))
    }
}

impl<'de> DeserializeSeed<'de> for Limited {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Limited {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // Not finite: what `JSON.stringify` writes for it.
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.into()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = self.inner()?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(inner)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let inner = self.inner()?;
        let mut members = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            members.insert(key, map.next_value_seed(inner)?);
        }
        Ok(Value::Object(members))
    }
}

/// The parameters of one call.
#[derive(Debug, Clone, PartialEq)]
pub struct Params<'r> {
    /// `action`, when it names a known operation.
    pub action: Option<Action>,
    /// `name` (anchor).
    pub name: Option<&'r str>,
    /// `labelStart` (rewind).
    pub label_start: Option<&'r str>,
    /// `labelEnd` (rewind).
    pub label_end: Option<&'r str>,
    /// `summaryFocus` (rewind).
    pub summary_focus: Option<&'r str>,
    /// The arguments as received (the synthetic assistant keeps its known fields; refusals say what
    /// was wrong with them). Borrowed: a call's arguments may be megabytes.
    pub raw: &'r Arguments,
}

impl<'r> Params<'r> {
    /// Reads the parameters from a call's arguments.
    pub fn from_arguments(raw: &'r Arguments) -> Params<'r> {
        let text = |key: &str| raw.get(key).and_then(Value::as_str);
        let action = match text("action") {
            Some("anchor") => Some(Action::Anchor),
            Some("rewind") => Some(Action::Rewind),
            Some("list") => Some(Action::List),
            Some("recall") => Some(Action::Recall),
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
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Why `raw[key]` is not a valid anchor name, in a few words that never repeat the value itself (it may
/// be megabytes long or full of look-alike characters). `None` when it is valid.
pub(crate) fn name_problem(raw: &Arguments, key: &str) -> Option<String> {
    const _: () = assert!(matches!(ANCHOR_PREFIX.as_bytes(), b"anchor:"), "the texts below spell the prefix out");
    let name = match raw.get(key) {
        None => return Some("it is missing".into()),
        Some(Value::String(s)) => s.as_str(),
        Some(other) => return Some(not_a_string(other)),
    };
    if is_valid_name(name) {
        return None;
    }
    if name.is_empty() {
        return Some("it is empty".into());
    }
    if let Some(rest) = name.strip_prefix(ANCHOR_PREFIX) {
        return Some(if is_valid_name(rest) {
            format!("drop the 'anchor:' prefix, it is added for you (send '{rest}')")
        } else {
            "drop the 'anchor:' prefix, it is added for you".into()
        });
    }
    let units = crate::js::utf16_len(name);
    if units > MAX_NAME_LENGTH {
        return Some(format!("it is {units} characters long"));
    }
    if let Some(c) = name.chars().find(|c| !c.is_ascii()) {
        return Some(format!(
            "it contains {}, which is not ASCII (use only a-z, 0-9 and the plain hyphen U+002D)",
            code_point(c)
        ));
    }
    if name.bytes().any(|b| b.is_ascii_uppercase()) {
        return Some("it has uppercase letters".into());
    }
    if let Some(c) = name.chars().find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-')) {
        return Some(if c.is_ascii_graphic() { format!("'{c}' is not allowed") } else { format!("{} is not allowed", code_point(c)) });
    }
    Some("hyphens must sit between letters or digits, one at a time".into())
}

/// `Some("it is a number, not a string")` when `raw[key]` is present but not a string.
pub(crate) fn wrong_type(raw: &Arguments, key: &str) -> Option<String> {
    match raw.get(key) {
        None | Some(Value::String(_)) => None,
        Some(other) => Some(not_a_string(other)),
    }
}

/// "it is a number, not a string" for a value that should have been a string.
fn not_a_string(value: &Value) -> String {
    format!("it is {}, not a string", json_type(value))
}

/// `U+00E9`: a character's code point as Unicode writes it.
fn code_point(c: char) -> String {
    format!("U+{:04X}", u32::from(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(v: Value) -> Arguments {
        Arguments::from_value(v)
    }

    #[test]
    fn wrong_types_read_as_missing() {
        let a = args(json!({"action": "rewind", "labelStart": 3, "labelEnd": "b", "summaryFocus": null}));
        let p = Params::from_arguments(&a);
        assert_eq!(p.action, Some(Action::Rewind));
        assert_eq!(p.label_start, None);
        assert_eq!(p.label_end, Some("b"));
        assert_eq!(p.summary_focus, None);
        assert_eq!(Params::from_arguments(&args(json!({"action": "jump"}))).action, None);
        let not_an_object = args(json!("x"));
        let p = Params::from_arguments(&not_an_object);
        assert_eq!((p.action, p.name, p.label_start), (None, None, None));
        assert_eq!(p.raw.members().count(), 0, "a value that is not an object has no members");
    }

    #[test]
    fn reading_keeps_the_order_sent_and_stops_at_the_depth_limit() {
        let text = r#"{"summaryFocus": "f", "action": "rewind", "junk": [[{"a": 1.5}]], "name": null}"#;
        let a: Arguments = serde_json::from_str(text).unwrap();
        let keys: Vec<&str> = a.members().map(|(k, _)| k).collect();
        assert_eq!(keys, ["summaryFocus", "action", "junk", "name"]);
        assert_eq!(a.get("junk"), Some(&json!([[{"a": 1.5}]])));
        // The object itself is the first level.
        let deep = |levels: usize| format!(r#"{{"x": {}{}}}"#, "[".repeat(levels - 1), "]".repeat(levels - 1));
        assert!(serde_json::from_str::<Arguments>(&deep(MAX_ARGUMENT_DEPTH)).is_ok());
        let err = serde_json::from_str::<Arguments>(&deep(MAX_ARGUMENT_DEPTH + 1)).unwrap_err();
        assert!(err.to_string().starts_with(&format!("nested deeper than {MAX_ARGUMENT_DEPTH} levels")), "{err}");
        // Not an object at the top: read (within the limit) and empty.
        assert_eq!(serde_json::from_str::<Arguments>("[1, [2]]").unwrap(), Arguments::default());
        assert!(serde_json::from_str::<Arguments>(&"[".repeat(500)).is_err());
    }

    #[test]
    fn name_problems_say_what_is_wrong_without_echoing_the_value() {
        let problem = |v: Value| name_problem(&args(json!({ "name": v })), "name");
        assert_eq!(problem(json!("impl-start")), None);
        assert_eq!(name_problem(&args(json!({})), "name").as_deref(), Some("it is missing"));
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
