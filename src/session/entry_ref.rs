//! The index's entries lent out: [`EntryRef`] reads a record and its strings in the arena.

use super::entry::{Kind, RoleKind, StopReason};
use super::index::SessionIndex;
use super::record::{flag, Record, Slot};

impl SessionIndex {
    /// The entry at `slot`.
    pub fn entry(&self, slot: Slot) -> EntryRef<'_> {
        EntryRef { index: self, slot, record: self.record(slot) }
    }
}

/// One entry as the index holds it, borrowed: the facts decisions need.
#[derive(Debug, Clone, Copy)]
pub struct EntryRef<'a> {
    index: &'a SessionIndex,
    slot: Slot,
    record: &'a Record,
}

impl<'a> EntryRef<'a> {
    /// Entry id (8 hex chars in pi).
    pub fn id(&self) -> &'a str {
        self.index.text(self.record.id).unwrap_or_default()
    }

    /// The parent id as written; `None` for a root.
    pub fn parent_id(&self) -> Option<&'a str> {
        self.index.parent_id_at(self.slot)
    }

    /// Type and role.
    pub fn kind(&self) -> Kind {
        self.record.kind
    }

    /// `estimateTokens` of the message this entry puts in the context (compaction: of its summary).
    pub fn tokens(&self) -> f64 {
        self.record.tokens
    }

    /// `calculateContextTokens(usage)` when this is an assistant whose usage pi's estimate would use.
    pub fn usage(&self) -> Option<f64> {
        self.record.usage()
    }

    /// The entry's `timestamp` as `Date.parse` reads it (`None`: missing or invalid).
    pub fn time_ms(&self) -> Option<f64> {
        Some(self.record.sort_ts).filter(|t| t.is_finite())
    }

    /// Whitespace-collapsed start of the entry's text, for previews.
    pub fn hint(&self) -> Option<&'a str> {
        self.index.text(self.record.preview())
    }

    /// Whether this entry contributes a message when it lies on the context path (compactions are
    /// handled separately: their summary goes first).
    pub fn emits_message(&self) -> bool {
        self.record.emits_message()
    }

    /// A `label` entry's target id and new label (`None` when it clears).
    pub fn label_change(&self) -> Option<(&'a str, Option<&'a str>)> {
        (self.record.kind == Kind::Label)
            .then(|| (self.index.text(self.record.extra).unwrap_or_default(), self.index.text(self.record.hint)))
    }

    /// A compaction's `firstKeptEntryId`.
    pub fn first_kept(&self) -> Option<&'a str> {
        (self.record.kind == Kind::Compaction).then(|| self.index.text(self.record.extra)).flatten()
    }

    /// A `context_edit`'s `targetId`.
    pub fn edit_target(&self) -> Option<&'a str> {
        (self.record.kind == Kind::ContextEdit).then(|| self.index.text(self.record.extra)).flatten()
    }

    /// The assistant facts, when this is an assistant message.
    pub fn assistant(&self) -> Option<AssistantRef<'a>> {
        (self.record.kind == Kind::Message(RoleKind::Assistant)).then_some(AssistantRef { entry: *self })
    }

    /// The `type` string as written in the file.
    pub fn type_name(&self) -> &'a str {
        match self.record.kind {
            Kind::Message(_) => "message",
            Kind::Unknown => self.index.text(self.record.extra).unwrap_or_default(),
            kind => kind.type_name().unwrap_or_default(),
        }
    }

    /// The message role, for `message` entries.
    pub fn role_name(&self) -> Option<&'a str> {
        let Kind::Message(role) = self.record.kind else { return None };
        Some(match role {
            RoleKind::Other => self.index.text(self.record.extra).unwrap_or_default(),
            role => role.name().unwrap_or_default(),
        })
    }
}

/// What the guards need to know about an assistant message, borrowed from the index.
#[derive(Debug, Clone, Copy)]
pub struct AssistantRef<'a> {
    entry: EntryRef<'a>,
}

impl<'a> AssistantRef<'a> {
    /// `(id, name)` of each tool call, in order.
    pub fn tool_calls(&self) -> impl ExactSizeIterator<Item = (&'a str, &'a str)> + 'a {
        let index = self.entry.index;
        self.entry.record.extra.items().map(move |i| {
            let call = index.call(i);
            (index.text(call.id).unwrap_or_default(), index.text(call.name).unwrap_or_default())
        })
    }

    /// `stopReason`, as far as decisions tell them apart.
    pub fn stop_reason(&self) -> StopReason {
        match self.entry.record.flags >> flag::STOP_SHIFT & 3 {
            0 => StopReason::None,
            1 => StopReason::Stop,
            2 => StopReason::ToolUse,
            _ => StopReason::Other,
        }
    }

    /// True when `usage.input` and `usage.output` are both zero or missing (the synthetic shape).
    pub fn zero_io(&self) -> bool {
        self.entry.record.has(flag::ZERO_IO)
    }

    /// `provider/model` as pi's breakdown writes it (`${provider}/${model}`: a missing name `undefined`): whose
    /// count and prices the usage is.
    pub fn source(&self) -> &'a str {
        let index = self.entry.index;
        index.spend_at(self.entry.slot).map_or("", |r| index.spend_key(r.model_key))
    }

    /// Whether this message's usage and `other`'s (of the same index) were counted by the same provider and
    /// model — told apart as pi's own breakdown tells them apart, by `provider/model`.
    pub fn same_source(&self, other: &AssistantRef<'_>) -> bool {
        let key = |a: &AssistantRef<'_>| a.entry.index.spend_at(a.entry.slot).map(|r| r.model_key);
        key(self) == key(other)
    }
}

