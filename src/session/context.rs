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
use super::profile::Profile;
use super::read::{parse_fields, Fields};
use super::record::{edit_replaces, Record, Slot};
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

/// `estimateTokens` of a source's message; `record`: its entry's (the one at [`source_slot`]).
#[inline(always)]
pub(super) fn tokens_of(index: &SessionIndex, source: Source, record: &Record) -> f64 {
    match source {
        Source::CompactionSystem(_) => record.compaction_system().unwrap_or(0.0),
        Source::CompactionSummary(_) | Source::Entry(_) => record.tokens,
        Source::Edited(_, edit) => index.record(edit).edited(record.kind, record.tokens).unwrap_or(0.0),
    }
}

/// What an entry did to the context being built.
#[derive(Debug, Clone, Copy)]
pub(super) enum Step<'i> {
    /// Nothing: the entry sends no message.
    None,
    /// A message joined the context (as stored; [`Messages::edited`] says what is sent of it), with its
    /// entry's record.
    Message(Source, &'i Record),
    /// A `context_edit`; `applied`: the profile applies it, so messages already in the context may read
    /// differently.
    Edit { applied: bool },
}

/// The context pi builds along a path (root first), grown one entry at a time: the one implementation of
/// the profile's context rules — a compaction's `systemMessage`, summary and kept entries, system messages
/// in the kept range, `context_edit`s — read by the context view ([`SessionIndex::context_sources`]) and by
/// the estimates (`super::tokens`, which counts what this decides).
#[derive(Debug)]
pub(super) struct Messages<'i> {
    index: &'i SessionIndex,
    profile: Profile,
    /// Whether the messages are listed (an estimate needs the list only to recount after an edit).
    keep: bool,
    /// The context's messages before edits, with the path positions of their entries.
    list: Vec<(Source, usize)>,
    /// Latest `context_edit` per target id among the context's entries.
    edits: HashMap<&'i str, Slot>,
}

impl<'i> Messages<'i> {
    /// An empty context under the index's profile; `keep`: list its messages (see [`Self::list`]).
    pub(super) fn new(index: &'i SessionIndex, keep: bool) -> Self {
        Messages { index, profile: index.profile().0, keep, list: Vec::new(), edits: HashMap::new() }
    }

    /// The entry at path position `pos` (not a compaction: [`Self::restart`]) joins the context.
    // Inlined: the estimates call it for every entry of every path they walk.
    #[inline(always)]
    pub(super) fn add(&mut self, slot: Slot, pos: usize) -> Step<'i> {
        let record = self.index.record(slot);
        match record.kind {
            Kind::ContextEdit => {
                let applied = self.profile.applies_context_edits();
                if applied {
                    self.edit(slot);
                }
                Step::Edit { applied }
            }
            _ if record.emits_message() => {
                self.push(Source::Entry(slot), pos);
                Step::Message(Source::Entry(slot), record)
            }
            _ => Step::None,
        }
    }

    /// The compaction at path position `pos` starts the context again: its `systemMessage` (pi ≥0.87)
    /// and summary, then its kept entries (`kept`, with their path positions: from `firstKeptEntryId` up to
    /// the compaction; pi ≥0.87 leaves out their system messages, and their edits are in force). Each
    /// message is handed to `emit` as it joins; true when a kept edit is in force.
    pub(super) fn restart(
        &mut self,
        slot: Slot,
        pos: usize,
        kept: impl Iterator<Item = (usize, Slot)>,
        mut emit: impl FnMut(Source, usize),
    ) -> bool {
        self.list.clear();
        self.edits.clear();
        let mut join = |this: &mut Self, source: Source, pos: usize| {
            this.push(source, pos);
            emit(source, pos);
        };
        if self.index.record(slot).compaction_system().is_some() {
            join(self, Source::CompactionSystem(slot), pos);
        }
        join(self, Source::CompactionSummary(slot), pos);
        let mut edited = false;
        for (p, s) in kept {
            let record = self.index.record(s);
            match record.kind {
                // Edits in the kept range belong to the context (they may target the compaction too).
                Kind::ContextEdit if self.profile.applies_context_edits() => {
                    self.edit(s);
                    edited = true;
                }
                Kind::Message(RoleKind::System) if self.profile.reemits_system_at_compaction() => {}
                // An older compaction in the kept range contributes nothing.
                _ if record.emits_message() => join(self, Source::Entry(s), p),
                _ => {}
            }
        }
        edited
    }

    /// The context's messages before edits, with their entries' path positions (empty unless kept).
    pub(super) fn list(&self) -> &[(Source, usize)] {
        &self.list
    }

    /// A message as the context's edits leave it: `None` when a `null` replacement omits it, a
    /// [`Source::Edited`] where the edit replaces the content, else unchanged (other roles keep theirs;
    /// a compaction's messages keep theirs unless omitted).
    #[inline(always)]
    pub(super) fn edited(&self, source: Source) -> Option<Source> {
        if self.edits.is_empty() {
            return Some(source);
        }
        self.edited_by(source)
    }

    /// [`Self::edited`] when some edit is in force.
    fn edited_by(&self, source: Source) -> Option<Source> {
        let s = source_slot(source);
        let Some(&edit) = self.edits.get(self.index.id_of(s)) else { return Some(source) };
        let kind = self.index.record(s).kind;
        self.index.record(edit).edited(kind, 0.0)?;
        Some(if matches!(source, Source::Entry(_)) && edit_replaces(kind) { Source::Edited(s, edit) } else { source })
    }

    fn edit(&mut self, slot: Slot) {
        if let Some(target) = self.index.entry(slot).edit_target() {
            self.edits.insert(target, slot);
        }
    }

    #[inline(always)]
    fn push(&mut self, source: Source, pos: usize) {
        if self.keep {
            self.list.push((source, pos));
        }
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
        let messages = self.messages_along(&path);
        let sources = messages.list().iter().filter_map(|&(source, _)| messages.edited(source)).collect();
        Ok((path, sources))
    }

    /// The `context_edit`s in force in the context pi builds along `path` (root first): what the model is
    /// sent of each entry they touch. Empty, without a walk, when the profile applies none or none is on
    /// the path.
    pub fn context_edits(&self, path: &[Slot]) -> ContextEdits {
        if !self.profile().0.applies_context_edits() || !path.iter().any(|&s| self.record(s).kind == Kind::ContextEdit) {
            return ContextEdits::default();
        }
        let messages = self.messages_along(path);
        let mut out = HashMap::new();
        for &(source, _) in messages.list() {
            let Source::Entry(s) = source else { continue };
            match messages.edited(source) {
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

    /// The context pi builds along `path` (root first): from its latest compaction on, when it has one.
    fn messages_along(&self, path: &[Slot]) -> Messages<'_> {
        let mut messages = Messages::new(self, true);
        let compaction = path.iter().rposition(|&s| self.record(s).kind == Kind::Compaction);
        let after = match compaction {
            Some(ci) => {
                let c = path[ci];
                let start = self.kept_start(path, ci);
                let kept = start.map_or(&[][..], |start| &path[start..ci]);
                let kept = kept.iter().enumerate().map(|(j, &s)| (start.unwrap_or(0) + j, s));
                messages.restart(c, ci, kept, |_, _| {});
                ci + 1
            }
            None => 0,
        };
        for (pos, &s) in path.iter().enumerate().skip(after) {
            messages.add(s, pos);
        }
        messages
    }

    /// Where the kept entries of the compaction at `path[ci]` start: the first entry before it with id
    /// `firstKeptEntryId`, as pi searches; `None` when there is none (pi then keeps nothing).
    fn kept_start(&self, path: &[Slot], ci: usize) -> Option<usize> {
        let first = self.entry(path[ci]).first_kept()?;
        path[..ci].iter().position(|&s| self.id_of(s) == first)
    }

    /// The entries a compaction at `leaf` that keeps from `first_kept` removes from the context, oldest first:
    /// pi's `prepareCompaction` summarizes the context's entries after the latest compaction's own summary —
    /// that compaction's kept entries (from its `firstKeptEntryId`), then the entries after it — up to the new
    /// first kept entry, a split turn's prefix included. Compactions are not among them. Empty when
    /// `first_kept` is not on the path after that start.
    pub fn compaction_span(&mut self, leaf: Leaf<'_>, first_kept: &str) -> Result<Vec<String>, SessionError> {
        let slot = self.resolve_leaf(leaf);
        let path = self.path(slot)?;
        let start = match path.iter().rposition(|&s| self.record(s).kind == Kind::Compaction) {
            Some(ci) => self.kept_start(&path, ci).unwrap_or(ci + 1),
            None => 0,
        };
        let Some(end) = path.iter().position(|&s| self.id_of(s) == first_kept) else { return Ok(Vec::new()) };
        let span = path.get(start..end).unwrap_or(&[]);
        Ok(span.iter().filter(|&&s| self.record(s).kind != Kind::Compaction).map(|&s| self.id_of(s).to_string()).collect())
    }

    /// `estimateTokens` of a source's message.
    pub fn source_tokens(&self, source: Source) -> f64 {
        tokens_of(self, source, self.record(source_slot(source)))
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
