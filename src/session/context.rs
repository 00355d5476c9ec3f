//! Context building identical to pi 0.75's `buildSessionContext(entries, leafId)`: the messages the
//! model gets with a given leaf, plus the thinking level and model in force there.
//!
//! Messages are produced as JSON text straight from each entry's stored text, so what pi would pass
//! through untouched (message objects, custom content, details) is passed through byte for byte.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::value::RawValue;
use serde_json::Value;

use super::entry::{Kind, RoleKind};
use super::index::{Leaf, Mode, SessionIndex};
use super::record::Slot;
use crate::error::SessionError;
use crate::js::date_ms;
use crate::js::number_to_string as number_to_js_string;

pub(super) type Fields<'a> = HashMap<String, &'a RawValue>;

/// Where one message of a built context comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The summary of this compaction entry (always the first message when present).
    CompactionSummary(Slot),
    /// This entry's message (a `message`, `custom_message` or non-empty `branch_summary`).
    Entry(Slot),
}

impl SessionIndex {
    /// The messages pi's `buildSessionContext` would produce for `leaf`, as their sources, in order:
    /// with a compaction on the path, its summary, then the kept entries from `firstKeptEntryId`, then
    /// everything after it. Works in both modes.
    pub fn context_sources(&mut self, leaf: Leaf<'_>) -> Result<(Vec<Slot>, Vec<Source>), SessionError> {
        let slot = self.resolve_leaf(leaf);
        let path = self.path(slot)?;
        let compaction = path.iter().rposition(|&s| self.entry(s).kind() == Kind::Compaction);
        let mut sources = Vec::new();
        let emits = |idx: &Self, s: Slot| idx.entry(s).emits_message();
        let range = match compaction {
            Some(ci) => {
                let c = path[ci];
                sources.push(Source::CompactionSummary(c));
                if let Some(first) = self.entry(c).first_kept() {
                    if let Some(start) = path[..ci].iter().position(|&s| self.id_of(s) == first) {
                        sources.extend(path[start..ci].iter().filter(|&&s| emits(self, s)).map(|&s| Source::Entry(s)));
                    }
                }
                ci + 1..path.len()
            }
            None => 0..path.len(),
        };
        sources.extend(path[range].iter().filter(|&&s| emits(self, s)).map(|&s| Source::Entry(s)));
        Ok((path, sources))
    }

    /// The context pi would build with `leaf` as leaf, as one JSON object
    /// `{"messages":[…],"thinkingLevel":…,"model":…}`. Needs a full-mode index.
    pub fn context_json(&mut self, leaf: Leaf<'_>) -> Result<String, SessionError> {
        if self.mode() != Mode::Full {
            return Err(SessionError::NeedsFullMode);
        }
        let (path, sources) = self.context_sources(leaf)?;
        if path.is_empty() {
            return Ok(r#"{"messages":[],"thinkingLevel":"off","model":null}"#.into());
        }
        let (thinking, model) = self.context_settings(&path)?;
        let mut messages: Vec<String> = Vec::with_capacity(sources.len());
        for source in sources {
            match source {
                Source::CompactionSummary(c) => {
                    let f = self.fields(c)?;
                    messages.push(object(&[
                        ("role", Some(raw(r#""compactionSummary""#))),
                        ("summary", f.get("summary").copied()),
                        ("tokensBefore", f.get("tokensBefore").copied()),
                        ("timestamp", Some(&*timestamp_raw(f.get("timestamp").copied()))),
                    ]));
                }
                Source::Entry(s) => self.push_message(s, &mut messages)?,
            }
        }
        let mut out = String::with_capacity(messages.iter().map(String::len).sum::<usize>() + 64);
        out.push_str(r#"{"messages":["#);
        out.push_str(&messages.join(","));
        out.push(']');
        if let Some(thinking) = thinking {
            let _ = write!(out, r#","thinkingLevel":{thinking}"#);
        }
        let _ = write!(out, r#","model":{model}}}"#);
        Ok(out)
    }

    /// The thinking level (JSON text; `None` when the last change has no `thinkingLevel`, which pi leaves
    /// undefined) and the model (JSON text, `null` when none) in force at the end of `path`. Only the last
    /// thinking-level change and the last model source on the path matter. Full mode.
    pub fn context_settings(&self, path: &[Slot]) -> Result<(Option<String>, String), SessionError> {
        let mut thinking = Some(String::from(r#""off""#));
        if let Some(&s) = path.iter().rev().find(|&&s| self.entry(s).kind() == Kind::ThinkingLevelChange) {
            thinking = self.fields(s)?.get("thinkingLevel").map(|v| v.get().to_string());
        }
        let mut model = String::from("null");
        let model_source = path.iter().rev().find(|&&s| {
            matches!(self.entry(s).kind(), Kind::ModelChange | Kind::Message(RoleKind::Assistant))
        });
        if let Some(&s) = model_source {
            let f = self.fields(s)?;
            model = if self.entry(s).kind() == Kind::ModelChange {
                object(&[("provider", f.get("provider").copied()), ("modelId", f.get("modelId").copied())])
            } else {
                let msg: Fields<'_> = f.get("message").map_or(Ok(HashMap::new()), |m| parse_fields(m.get()))?;
                object(&[("provider", msg.get("provider").copied()), ("modelId", msg.get("model").copied())])
            };
        }
        Ok((thinking, model))
    }

    /// The entry's top-level fields as raw JSON values (later duplicates win, as with `JSON.parse`).
    pub(super) fn fields(&self, slot: Slot) -> Result<Fields<'_>, SessionError> {
        parse_fields(self.raw(slot).ok_or(SessionError::NeedsFullMode)?)
    }

    fn push_message(&self, slot: Slot, out: &mut Vec<String>) -> Result<(), SessionError> {
        let entry = self.entry(slot);
        match entry.kind() {
            Kind::Message(role) => {
                let f = self.fields(slot)?;
                let Some(msg) = f.get("message") else {
                    // `undefined` in pi's array; it serialises as null.
                    out.push("null".into());
                    return Ok(());
                };
                if role == RoleKind::Custom && msg_role(msg).as_deref() == Some("hookMessage") {
                    // pi migrates v2 sessions on load: `hookMessage` became `custom`.
                    let mut v: Value = serde_json::from_str(msg.get()).map_err(|e| SessionError::Json(e.to_string()))?;
                    v["role"] = Value::String("custom".into());
                    out.push(v.to_string());
                } else {
                    out.push(msg.get().to_string());
                }
            }
            Kind::CustomMessage => {
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
            Kind::BranchSummary if entry.emits_message() => {
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
