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
use super::read::{parse_fields, Fields};
use super::record::{edit_replaces, Slot};
use crate::error::SessionError;
use crate::js::date_ms;
use crate::js::number_to_string as number_to_js_string;

/// Where one message of a built context comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The `systemMessage` of this compaction entry (pi ≥0.87; first, before the summary).
    CompactionSystem(Slot),
    /// The summary of this compaction entry (first, or second after its system message).
    CompactionSummary(Slot),
    /// This entry's message (a `message`, `custom_message` or non-empty `branch_summary`).
    Entry(Slot),
    /// The entry's message (first slot) with its content replaced by the `context_edit` at the second.
    Edited(Slot, Slot),
}

/// Slot of a source (re-exported for the binding).
pub fn source_slot(source: Source) -> Slot {
    match source {
        Source::CompactionSystem(s) | Source::CompactionSummary(s) | Source::Entry(s) | Source::Edited(s, _) => s,
    }
}

/// The `context_edit`s in force in one context, by the entry they change (what
/// [`SessionIndex::context_edits`] finds with [`SessionIndex::context_sources`]'s rule): `Some(edit)` replaces the
/// entry's content, `None` leaves its messages out. An entry not in it is sent as stored.
#[derive(Debug, Default)]
pub struct ContextEdits(HashMap<Slot, Option<Slot>>);

impl ContextEdits {
    /// What the context makes of the entry at `slot`: `None` as stored, `Some(None)` left out,
    /// `Some(Some(edit))` its content replaced by the `context_edit` at `edit`.
    pub fn get(&self, slot: Slot) -> Option<Option<Slot>> {
        self.0.get(&slot).copied()
    }
}

impl SessionIndex {
    /// The messages pi would build for `leaf`, as their sources, in order: with a compaction on the path,
    /// its summary (pi ≥0.87: after its `systemMessage`), then the kept entries from `firstKeptEntryId`
    /// (pi ≥0.87: without system messages), then everything after it; pi ≥0.87 applies the context's
    /// `context_edit`s (see [`super::Profile`]). Works in both modes.
    pub fn context_sources(&mut self, leaf: Leaf<'_>) -> Result<(Vec<Slot>, Vec<Source>), SessionError> {
        let slot = self.resolve_leaf(leaf);
        let path = self.path(slot)?;
        let (sources, edits) = self.unedited_sources(&path);
        let sources = if edits.is_empty() { sources } else { sources.into_iter().filter_map(|s| self.edited(s, &edits)).collect() };
        Ok((path, sources))
    }

    /// The `context_edit`s in force in the context pi builds along `path` (root first): what the model is
    /// sent of each entry they touch. Empty, without a walk, when the profile applies none or none is on
    /// the path.
    pub fn context_edits(&self, path: &[Slot]) -> ContextEdits {
        if !self.profile().0.applies_context_edits() || !path.iter().any(|&s| self.record(s).kind == Kind::ContextEdit) {
            return ContextEdits::default();
        }
        let (sources, edits) = self.unedited_sources(path);
        let mut out = HashMap::new();
        for source in sources {
            let Source::Entry(s) = source else { continue };
            match self.edited(source, &edits) {
                None => out.insert(s, None),
                Some(Source::Edited(_, edit)) => out.insert(s, Some(edit)),
                Some(_) => None,
            };
        }
        ContextEdits(out)
    }

    /// Preview text for an entry as the model is sent it: walks from `slot` towards the root (at most 50
    /// entries) to the first entry with visible text, reading each as `edits` (the `context_edit`s in force in
    /// the context the preview is shown in, [`Self::context_edits`]) leave it: a replaced content previews its
    /// replacement, an omitted entry is passed over. Branch summaries are shown as `summary: …`.
    pub fn hint_from(&mut self, slot: Slot, max_len: usize, edits: &ContextEdits) -> Option<String> {
        const MAX_WALK: usize = 50;
        let mut cur = Some(slot);
        for _ in 0..MAX_WALK {
            let s = cur?;
            if let Some(hint) = self.own_hint(s, max_len, edits) {
                return Some(hint);
            }
            cur = self.parent_of(s);
        }
        None
    }

    /// The entry's own one-line preview as `edits` leave it (what [`Self::hint_from`] takes when it has one).
    pub(super) fn own_hint(&self, slot: Slot, max_len: usize, edits: &ContextEdits) -> Option<String> {
        let record = self.record(slot);
        let span = match edits.get(slot) {
            None => record.preview(),
            Some(None) => return None,
            Some(Some(edit)) => record.edited_preview(self.record(edit)),
        };
        let hint = self.text(span)?;
        let prefix = if record.kind == Kind::BranchSummary { "summary: " } else { "" };
        let line = crate::text::to_one_line(hint, max_len.saturating_sub(prefix.len()))?;
        let mut hint = String::from(prefix);
        hint.push_str(&line);
        Some(hint)
    }

    /// The context's messages along `path` before edits, and the latest `context_edit` per target id among
    /// the context's entries (pi ≥0.87).
    fn unedited_sources(&self, path: &[Slot]) -> (Vec<Source>, HashMap<&str, Slot>) {
        let profile = self.profile().0;
        let compaction = path.iter().rposition(|&s| self.entry(s).kind() == Kind::Compaction);
        let mut sources = Vec::new();
        // The context's entries after the compaction's own messages, each with whether it is kept from
        // before the compaction.
        let mut entries: Vec<(Slot, bool)> = Vec::new();
        let range = match compaction {
            Some(ci) => {
                let c = path[ci];
                if self.record(c).compaction_system().is_some() {
                    sources.push(Source::CompactionSystem(c));
                }
                sources.push(Source::CompactionSummary(c));
                if let Some(first) = self.entry(c).first_kept() {
                    if let Some(start) = path[..ci].iter().position(|&s| self.id_of(s) == first) {
                        entries.extend(path[start..ci].iter().map(|&s| (s, true)));
                    }
                }
                ci + 1..path.len()
            }
            None => 0..path.len(),
        };
        entries.extend(path[range].iter().map(|&s| (s, false)));
        let mut edits: HashMap<&str, Slot> = HashMap::new();
        for (s, kept) in entries {
            let entry = self.entry(s);
            match entry.kind() {
                Kind::ContextEdit if profile.applies_context_edits() => {
                    if let Some(target) = entry.edit_target() {
                        edits.insert(target, s);
                    }
                }
                Kind::Message(RoleKind::System) if kept && profile.reemits_system_at_compaction() => {}
                _ if entry.emits_message() => sources.push(Source::Entry(s)),
                _ => {}
            }
        }
        (sources, edits)
    }

    /// A source as the context's `edits` leave it: `None` when a `null` replacement omits it, an
    /// [`Source::Edited`] where the edit replaces the content, else unchanged (other roles keep theirs).
    fn edited(&self, source: Source, edits: &HashMap<&str, Slot>) -> Option<Source> {
        let s = source_slot(source);
        let Some(&edit) = edits.get(self.id_of(s)) else { return Some(source) };
        self.record(edit).edited(self.record(s).kind, 0.0)?;
        Some(if matches!(source, Source::Entry(_)) && edit_replaces(self.record(s).kind) { Source::Edited(s, edit) } else { source })
    }

    /// `estimateTokens` of a source's message.
    pub fn source_tokens(&self, source: Source) -> f64 {
        match source {
            Source::CompactionSystem(s) => self.record(s).compaction_system().unwrap_or(0.0),
            Source::CompactionSummary(s) | Source::Entry(s) => self.record(s).tokens,
            Source::Edited(s, edit) => {
                let record = self.record(s);
                self.record(edit).edited(record.kind, record.tokens).unwrap_or(0.0)
            }
        }
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
                Source::CompactionSystem(_) | Source::Edited(..) => messages.push(self.source_json(source)?),
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

    /// The JSON text of a compaction's system message or of an edited message (full mode).
    pub fn source_json(&self, source: Source) -> Result<String, SessionError> {
        match source {
            Source::CompactionSystem(c) => {
                Ok(self.fields(c)?.get("systemMessage").map_or_else(|| "null".into(), |m| m.get().to_string()))
            }
            Source::Edited(s, edit) => {
                let mut out = Vec::with_capacity(1);
                self.push_message(s, &mut out)?;
                let message = out.pop().unwrap_or_default();
                let f = self.fields(edit)?;
                let replacement: Fields<'_> = f.get("replacement").map_or(Ok(HashMap::new()), |r| parse_fields(r.get()))?;
                let content = replacement.get("content").map(|c| c.get());
                // pi: an assistant's or toolResult's string replacement becomes one text block.
                let wrapped;
                let content = match (self.entry(s).kind(), content) {
                    (Kind::Message(RoleKind::Assistant | RoleKind::ToolResult), Some(c)) if c.starts_with('"') => {
                        wrapped = format!(r#"[{{"type":"text","text":{c}}}]"#);
                        Some(wrapped.as_str())
                    }
                    (_, c) => c,
                };
                with_field(&message, "content", content)
            }
            Source::CompactionSummary(s) | Source::Entry(s) => {
                let mut out = Vec::with_capacity(1);
                self.push_message(s, &mut out)?;
                Ok(out.pop().unwrap_or_default())
            }
        }
    }

    fn push_message(&self, slot: Slot, out: &mut Vec<String>) -> Result<(), SessionError> {
        let entry = self.entry(slot);
        let normalise = self.profile().0.normalises_null_content();
        match entry.kind() {
            Kind::Message(role) => {
                let f = self.fields(slot)?;
                let Some(msg) = f.get("message") else {
                    // `undefined` in pi's array; it serialises as null.
                    out.push("null".into());
                    return Ok(());
                };
                let empty = match role {
                    RoleKind::System => Some(r#""""#),
                    RoleKind::User | RoleKind::Assistant | RoleKind::ToolResult => Some("[]"),
                    _ => None,
                };
                if role == RoleKind::Custom && msg_role(msg).as_deref() == Some("hookMessage") {
                    // pi migrates v2 sessions on load: `hookMessage` became `custom`, in its place.
                    out.push(with_field(msg.get(), "role", Some(r#""custom""#))?);
                } else if let Some(empty) = empty.filter(|_| normalise && content_is_nullish(msg)) {
                    // pi ≥0.87: `{...message, content: ""}` / `{...message, content: []}`.
                    out.push(with_field(msg.get(), "content", Some(empty))?);
                } else {
                    out.push(msg.get().to_string());
                }
            }
            Kind::CustomMessage => {
                let f = self.fields(slot)?;
                // pi ≥0.87: `entry.content ?? []`.
                let content = match f.get("content").copied() {
                    Some(c) if c.get() != "null" => Some(c),
                    c if normalise => Some(raw("[]")).or(c),
                    c => c,
                };
                out.push(object(&[
                    ("role", Some(raw(r#""custom""#))),
                    ("customType", f.get("customType").copied()),
                    ("content", content),
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

/// Whether a message's `content` is `null` or missing (`message.content == null`).
fn content_is_nullish(msg: &RawValue) -> bool {
    parse_fields(msg.get()).is_ok_and(|f| !matches!(f.get("content"), Some(c) if c.get() != "null"))
}

/// `{...object, [key]: value}` on JSON text: the key keeps its place (or comes last when new); `None`
/// (undefined) leaves it out, as `JSON.stringify` does.
fn with_field(object_text: &str, key: &str, value: Option<&str>) -> Result<String, SessionError> {
    let fields = super::wire::members(object_text).map_err(|e| SessionError::Json(e.to_string()))?;
    let mut out = String::from("{");
    let mut seen = false;
    let put = |out: &mut String, k: &str, v: &str| {
        if out.len() > 1 {
            out.push(',');
        }
        let _ = write!(out, "{}:{v}", serde_json::Value::from(k));
    };
    for (k, v) in &fields {
        let k = &*k.text();
        if k == key {
            seen = true;
            if let Some(value) = value {
                put(&mut out, k, value);
            }
        } else {
            put(&mut out, k, v.get());
        }
    }
    if let (false, Some(value)) = (seen, value) {
        put(&mut out, key, value);
    }
    out.push('}');
    Ok(out)
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
