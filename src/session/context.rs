//! Context building identical to pi 0.75's `buildSessionContext(entries, leafId)`: the messages the
//! model gets with a given leaf, plus the thinking level and model in force there.
//!
//! Messages are produced as JSON text straight from each entry's stored text, so what pi would pass
//! through untouched (message objects, custom content, details) is passed through byte for byte.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::value::RawValue;
use serde_json::Value;

use super::entry::{EntryKind, Role};
use super::index::{Leaf, Mode, SessionIndex, Slot};
use crate::error::SessionError;
use crate::js::{date_ms, number_to_js_string};

type Fields<'a> = HashMap<String, &'a RawValue>;

impl SessionIndex {
    /// The context pi would build with `leaf` as leaf, as one JSON object
    /// `{"messages":[…],"thinkingLevel":…,"model":…}`. Needs a full-mode index.
    pub fn context_json(&mut self, leaf: Leaf<'_>) -> Result<String, SessionError> {
        if self.mode() != Mode::Full {
            return Err(SessionError::NeedsFullMode);
        }
        let slot = self.resolve_leaf(leaf);
        let path = self.path(slot)?;
        if path.is_empty() {
            return Ok(r#"{"messages":[],"thinkingLevel":"off","model":null}"#.into());
        }
        let mut thinking = String::from(r#""off""#);
        let mut thinking_set = true;
        let mut model = String::from("null");
        let mut compaction: Option<usize> = None;
        for (i, &s) in path.iter().enumerate() {
            match &self.entry(s).kind {
                EntryKind::ThinkingLevelChange => {
                    let f = self.fields(s)?;
                    thinking_set = f.contains_key("thinkingLevel");
                    thinking = f.get("thinkingLevel").map(|v| v.get().to_string()).unwrap_or_default();
                }
                EntryKind::ModelChange => {
                    let f = self.fields(s)?;
                    model = object(&[("provider", f.get("provider").copied()), ("modelId", f.get("modelId").copied())]);
                }
                EntryKind::Message(Role::Assistant(_)) => {
                    let f = self.fields(s)?;
                    let msg: Fields<'_> = f.get("message").map_or(Ok(HashMap::new()), |m| parse_fields(m.get()))?;
                    model = object(&[("provider", msg.get("provider").copied()), ("modelId", msg.get("model").copied())]);
                }
                EntryKind::Compaction { .. } => compaction = Some(i),
                _ => {}
            }
        }
        let mut messages: Vec<String> = Vec::new();
        if let Some(ci) = compaction {
            let c = path[ci];
            let f = self.fields(c)?;
            messages.push(object(&[
                ("role", Some(raw(r#""compactionSummary""#))),
                ("summary", f.get("summary").copied()),
                ("tokensBefore", f.get("tokensBefore").copied()),
                ("timestamp", Some(&*timestamp_raw(f.get("timestamp").copied()))),
            ]));
            let first_kept = match &self.entry(c).kind {
                EntryKind::Compaction { first_kept } => first_kept.clone(),
                _ => None,
            };
            if let Some(first) = first_kept {
                if let Some(start) = path[..ci].iter().position(|&s| *self.id_of(s) == *first) {
                    for &s in &path[start..ci] {
                        self.push_message(s, &mut messages)?;
                    }
                }
            }
            for &s in &path[ci + 1..] {
                self.push_message(s, &mut messages)?;
            }
        } else {
            for &s in &path {
                self.push_message(s, &mut messages)?;
            }
        }
        let mut out = String::with_capacity(messages.iter().map(String::len).sum::<usize>() + 64);
        out.push_str(r#"{"messages":["#);
        out.push_str(&messages.join(","));
        out.push(']');
        if thinking_set {
            let _ = write!(out, r#","thinkingLevel":{thinking}"#);
        }
        let _ = write!(out, r#","model":{model}}}"#);
        Ok(out)
    }

    /// The entry's top-level fields as raw JSON values (later duplicates win, as with `JSON.parse`).
    fn fields(&self, slot: Slot) -> Result<Fields<'_>, SessionError> {
        parse_fields(self.raw(slot).ok_or(SessionError::NeedsFullMode)?)
    }

    fn push_message(&self, slot: Slot, out: &mut Vec<String>) -> Result<(), SessionError> {
        let entry = self.entry(slot);
        match &entry.kind {
            EntryKind::Message(role) => {
                let f = self.fields(slot)?;
                let Some(msg) = f.get("message") else {
                    // `undefined` in pi's array; it serialises as null.
                    out.push("null".into());
                    return Ok(());
                };
                if *role == Role::Custom && msg_role(msg).as_deref() == Some("hookMessage") {
                    // pi migrates v2 sessions on load: `hookMessage` became `custom`.
                    let mut v: Value = serde_json::from_str(msg.get()).map_err(|e| SessionError::Json(e.to_string()))?;
                    v["role"] = Value::String("custom".into());
                    out.push(v.to_string());
                } else {
                    out.push(msg.get().to_string());
                }
            }
            EntryKind::CustomMessage => {
                let f = self.fields(slot)?;
                out.push(object(&[
                    ("role", Some(raw(r#""custom""#))),
                    ("customType", f.get("customType").copied()),
                    ("content", f.get("content").copied()),
                    ("display", f.get("display").copied()),
                    ("details", f.get("details").copied()),
                    ("timestamp", Some(&*timestamp_raw(f.get("timestamp").copied()))),
                ]));
            }
            EntryKind::BranchSummary { emits: true } => {
                let f = self.fields(slot)?;
                out.push(object(&[
                    ("role", Some(raw(r#""branchSummary""#))),
                    ("summary", f.get("summary").copied()),
                    ("fromId", f.get("fromId").copied()),
                    ("timestamp", Some(&*timestamp_raw(f.get("timestamp").copied()))),
                ]));
            }
            _ => {}
        }
        Ok(())
    }
}

fn parse_fields(text: &str) -> Result<Fields<'_>, SessionError> {
    serde_json::from_str(text).map_err(|e| SessionError::Json(e.to_string()))
}

fn msg_role(msg: &RawValue) -> Option<String> {
    let f: Fields<'_> = serde_json::from_str(msg.get()).ok()?;
    serde_json::from_str(f.get("role")?.get()).ok()
}

fn raw(text: &'static str) -> &'static RawValue {
    // Only called with literal JSON strings.
    serde_json::from_str(text).unwrap_or_else(|_| unreachable!("literal JSON"))
}

/// `new Date(timestamp).getTime()` as JSON (`null` for an invalid date, like `JSON.stringify(NaN)`).
fn timestamp_raw(ts: Option<&RawValue>) -> Box<RawValue> {
    let value: Option<Value> = ts.and_then(|t| serde_json::from_str(t.get()).ok());
    let text = match date_ms(value.as_ref()) {
        Some(ms) => number_to_js_string(ms),
        None => "null".into(),
    };
    RawValue::from_string(text).unwrap_or_else(|_| unreachable!("a number or null is JSON"))
}

/// A JSON object of the given fields, leaving out absent ones (as `JSON.stringify` drops `undefined`).
fn object(fields: &[(&str, Option<&RawValue>)]) -> String {
    let mut out = String::from("{");
    for (key, value) in fields {
        if let Some(v) = value {
            if out.len() > 1 {
                out.push(',');
            }
            let _ = write!(out, "\"{key}\":{}", v.get());
        }
    }
    out.push('}');
    out
}
