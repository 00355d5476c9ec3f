//! How the index holds an entry: a fixed-size [`Record`] of numbers and arena spans (56 bytes on every
//! target), read through the borrowed view [`super::EntryRef`].
//!
//! A line's [`Facts`](super::entry::Facts) borrow from the line; the index keeps their bytes in its arena
//! instead, so an entry costs one record plus the bytes of its id, preview and tool calls — no allocation
//! of its own.

use super::entry::{Kind, RoleKind, StopReason};
use super::store::Span;

/// Position of an entry in append order. Cheap to copy and to send across the wasm boundary.
pub type Slot = u32;

/// `Record::parent`: no parent id.
pub(super) const NO_PARENT: Slot = Slot::MAX;
/// `Record::parent`: a parent id no entry held when this one arrived (kept in the index's `pending` map).
pub(super) const PENDING: Slot = Slot::MAX - 1;

/// Flag bits of a record.
pub(super) mod flag {
    /// A branch summary with a truthy summary (it enters the context); a compaction that re-emits its
    /// `systemMessage` (its tokens in `Record::usage`); a `context_edit` whose replacement is not `null`.
    pub(crate) const EMITS: u8 = 1;
    /// An assistant with zero (or missing) input and output usage.
    pub(crate) const ZERO_IO: u8 = 1 << 1;
    /// `usage` holds the anchor usage (`Entry::usage` is `Some`).
    pub(crate) const HAS_USAGE: u8 = 1 << 2;
    /// A later entry took over this entry's id.
    pub(crate) const SHADOWED: u8 = 1 << 3;
    /// A label was set on this entry's id at some point.
    pub(crate) const MAYBE_LABELED: u8 = 1 << 4;
    /// Two bits of [`super::StopReason`], from this bit up.
    pub(crate) const STOP_SHIFT: u32 = 5;
    /// A message only skimmed so far ([`super::super::read::skim_line`]): its tokens are NaN, its preview
    /// and tool calls not yet recorded (see [`super::super::skim`]).
    pub(crate) const SKIMMED: u8 = 1 << 7;
}

/// One entry's facts, fixed-size.
#[derive(Debug, Clone)]
pub(super) struct Record {
    /// `Entry::tokens`.
    pub tokens: f64,
    /// `Entry::usage` when [`flag::HAS_USAGE`] is set; a compaction's `systemMessage` tokens and a
    /// `context_edit`'s replacement tokens as assistant content when [`flag::EMITS`] is set.
    pub usage: f64,
    /// The timestamp children are ordered by (`+∞` when missing or invalid, as pi's sort puts them).
    pub sort_ts: f64,
    pub id: Span,
    /// The preview text; for a `label` entry, the label, for a compaction its `systemMessage`'s
    /// encoded [`super::entry::SystemPatch`], and for a `context_edit` its replacement's preview (none of
    /// them has a preview of its own: see [`Record::preview`]).
    pub hint: Span,
    /// Per kind: `label` and `context_edit` its target id; `compaction` its first kept id; an assistant
    /// its run of tool calls; a system message its encoded [`super::entry::SystemPatch`]; an unknown type
    /// or role its name.
    pub extra: Span,
    /// The entry holding the parent id (the one that held it when last looked at; re-resolved when that
    /// one is shadowed), this entry itself when it names itself, [`NO_PARENT`] or [`PENDING`].
    pub parent: Slot,
    pub kind: Kind,
    pub flags: u8,
}

impl Record {
    /// A record with no facts yet (an entry being read; `kind` is set by every read).
    pub(super) fn blank() -> Record {
        Record {
            tokens: 0.0,
            usage: 0.0,
            sort_ts: f64::INFINITY,
            id: Span::NONE,
            hint: Span::NONE,
            extra: Span::NONE,
            parent: NO_PARENT,
            kind: Kind::Custom,
            flags: 0,
        }
    }

    pub(super) fn has(&self, bit: u8) -> bool {
        self.flags & bit != 0
    }

    /// Whether this entry contributes a message when it lies on the context path.
    pub(super) fn emits_message(&self) -> bool {
        match self.kind {
            Kind::Message(_) | Kind::CustomMessage => true,
            Kind::BranchSummary => self.has(flag::EMITS),
            _ => false,
        }
    }

    /// The span of the preview text (none for labels, compactions and context edits, whose hint span holds
    /// other things).
    pub(super) fn preview(&self) -> Span {
        match self.kind {
            Kind::Label | Kind::Compaction | Kind::ContextEdit => Span::NONE,
            _ => self.hint,
        }
    }

    /// The preview of this entry as the `context_edit` record `edit` leaves it: the replacement's where the
    /// entry previews its content (user and assistant messages, `custom_message` entries: `read.rs`), its
    /// own elsewhere.
    pub(super) fn edited_preview(&self, edit: &Record) -> Span {
        match self.kind {
            Kind::Message(RoleKind::User | RoleKind::Assistant) | Kind::CustomMessage => edit.hint,
            _ => self.preview(),
        }
    }

    /// The span of a system message's (or a compaction's `systemMessage`'s) encoded patch.
    pub(super) fn system_patch(&self) -> Span {
        match self.kind {
            Kind::Message(RoleKind::System) => self.extra,
            Kind::Compaction => self.hint,
            _ => Span::NONE,
        }
    }

    pub(super) fn usage(&self) -> Option<f64> {
        self.has(flag::HAS_USAGE).then_some(self.usage)
    }

    /// A compaction's `systemMessage` tokens, when it re-emits one before its summary (pi ≥0.87).
    pub(super) fn compaction_system(&self) -> Option<f64> {
        (self.kind == Kind::Compaction && self.has(flag::EMITS)).then_some(self.usage)
    }

    /// What this `context_edit` makes of a target message of `kind` counting `tokens`: `None` omits it
    /// (a `null` replacement); otherwise the replacement's tokens where pi replaces the content (user,
    /// assistant, toolResult and custom messages) and `tokens` unchanged elsewhere.
    pub(super) fn edited(&self, kind: Kind, tokens: f64) -> Option<f64> {
        if !self.has(flag::EMITS) {
            return None;
        }
        Some(match kind {
            Kind::Message(RoleKind::Assistant) => self.usage,
            kind if edit_replaces(kind) => self.tokens,
            _ => tokens,
        })
    }
}

/// Whether a `context_edit` replaces the content of an entry of `kind` (pi's `projectContextEntry`:
/// user, assistant, toolResult and custom messages; other roles keep theirs).
pub(super) fn edit_replaces(kind: Kind) -> bool {
    matches!(kind, Kind::Message(RoleKind::User | RoleKind::Assistant | RoleKind::ToolResult | RoleKind::Custom) | Kind::CustomMessage)
}

/// A tool call as stored: its id and name in the arena.
#[derive(Debug, Clone, Copy)]
pub(super) struct Call {
    pub id: Span,
    pub name: Span,
}

/// The flag bits of a stop reason.
pub(super) fn stop_bits(reason: StopReason) -> u8 {
    let bits = match reason {
        StopReason::None => 0,
        StopReason::Stop => 1,
        StopReason::ToolUse => 2,
        StopReason::Other => 3,
    };
    bits << flag::STOP_SHIFT
}
