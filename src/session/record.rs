//! How the index holds an entry: a fixed-size [`Record`] of numbers and arena spans (56 bytes on every
//! target), read through the borrowed view [`EntryRef`].
//!
//! A parsed [`Entry`](super::Entry) owns its strings; the index keeps their bytes in its arena instead, so
//! an entry costs one record plus the bytes of its id, preview and tool calls — no allocation of its own.

use super::index::{SessionIndex, Slot};
use super::store::Span;

/// An entry's type, and for `message` entries its role, in one byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A conversation message with this role.
    Message(RoleKind),
    /// `custom_message` (an extension message that enters the context).
    CustomMessage,
    /// `branch_summary`.
    BranchSummary,
    /// `compaction`.
    Compaction,
    /// `label`.
    Label,
    /// `thinking_level_change`.
    ThinkingLevelChange,
    /// `model_change`.
    ModelChange,
    /// `custom` (extension state; never in the context).
    Custom,
    /// `session_info`.
    SessionInfo,
    /// `usage`.
    Usage,
    /// `context_edit`.
    ContextEdit,
    /// Any other type (its name is kept, see [`EntryRef::type_name`]).
    Unknown,
}

/// The role of a `message` entry (see [`super::Role`], which also carries the role's facts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoleKind {
    /// `user`.
    User,
    /// `assistant`.
    Assistant,
    /// `toolResult`.
    ToolResult,
    /// `custom` (or the pre-v3 `hookMessage`).
    Custom,
    /// `bashExecution`.
    BashExecution,
    /// `branchSummary`.
    BranchSummary,
    /// `compactionSummary`.
    CompactionSummary,
    /// `system`.
    System,
    /// Any other role (its name is kept, see [`EntryRef::role_name`]).
    Other,
}

/// An assistant's `stopReason`, as far as decisions tell them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// Missing or empty.
    None,
    /// `stop`.
    Stop,
    /// `toolUse`.
    ToolUse,
    /// Anything else (`length`, `error`, `aborted`, …).
    Other,
}

/// Every entry type but `message` by its name in the file (one table for reading and writing them).
pub(super) const TYPES: [(&str, Kind); 10] = [
    ("custom_message", Kind::CustomMessage),
    ("branch_summary", Kind::BranchSummary),
    ("compaction", Kind::Compaction),
    ("label", Kind::Label),
    ("thinking_level_change", Kind::ThinkingLevelChange),
    ("model_change", Kind::ModelChange),
    ("custom", Kind::Custom),
    ("session_info", Kind::SessionInfo),
    ("usage", Kind::Usage),
    ("context_edit", Kind::ContextEdit),
];

/// Every named message role by its name in the file (`hookMessage` is read as `custom` in v2 files). As
/// message kinds, so one table type serves both lookups (one copy of `by_name` and `name_of`).
pub(super) const ROLES: [(&str, Kind); 8] = [
    ("user", Kind::Message(RoleKind::User)),
    ("assistant", Kind::Message(RoleKind::Assistant)),
    ("toolResult", Kind::Message(RoleKind::ToolResult)),
    ("custom", Kind::Message(RoleKind::Custom)),
    ("bashExecution", Kind::Message(RoleKind::BashExecution)),
    ("branchSummary", Kind::Message(RoleKind::BranchSummary)),
    ("compactionSummary", Kind::Message(RoleKind::CompactionSummary)),
    ("system", Kind::Message(RoleKind::System)),
];

/// The value named `name` in `table` (one loop instead of a comparison per name at each use).
#[inline(never)]
pub(super) fn by_name<T: Copy>(table: &[(&str, T)], name: &str) -> Option<T> {
    table.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
}

/// The name of `value` in `table`.
fn name_of<T: PartialEq>(table: &'static [(&'static str, T)], value: &T) -> &'static str {
    table.iter().find(|(_, v)| v == value).map_or("", |&(n, _)| n)
}

impl StopReason {
    pub(super) fn of(reason: Option<&str>) -> StopReason {
        match reason {
            None | Some("") => StopReason::None,
            Some("stop") => StopReason::Stop,
            Some("toolUse") => StopReason::ToolUse,
            Some(_) => StopReason::Other,
        }
    }
}

/// `Record::parent`: no parent id.
pub(super) const NO_PARENT: Slot = Slot::MAX;
/// `Record::parent`: a parent id no entry held when this one arrived (kept in the index's `pending` map).
pub(super) const PENDING: Slot = Slot::MAX - 1;

/// Flag bits of a record.
pub(super) mod flag {
    /// A branch summary with a truthy summary (it enters the context).
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
}

/// One entry's facts, fixed-size.
#[derive(Debug, Clone)]
pub(super) struct Record {
    /// `Entry::tokens`.
    pub tokens: f64,
    /// `Entry::usage` when [`flag::HAS_USAGE`] is set.
    pub usage: f64,
    /// The timestamp children are ordered by (`+∞` when missing or invalid, as pi's sort puts them).
    pub sort_ts: f64,
    pub id: Span,
    /// The preview text; for a `label` entry, the label (labels have no preview).
    pub hint: Span,
    /// Per kind: `label` its target id; `compaction` its first kept id; an assistant its run of tool
    /// calls; an unknown type or role its name.
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

    pub(super) fn usage(&self) -> Option<f64> {
        self.has(flag::HAS_USAGE).then_some(self.usage)
    }
}

/// A tool call as stored: its id and name in the arena.
#[derive(Debug, Clone, Copy)]
pub(super) struct Call {
    pub id: Span,
    pub name: Span,
}

/// One entry as the index holds it, borrowed: the facts decisions need.
#[derive(Debug, Clone, Copy)]
pub struct EntryRef<'a> {
    pub(super) index: &'a SessionIndex,
    pub(super) slot: Slot,
    pub(super) record: &'a Record,
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

    /// Whitespace-collapsed start of the entry's text, for previews.
    pub fn hint(&self) -> Option<&'a str> {
        match self.record.kind {
            Kind::Label => None,
            _ => self.index.text(self.record.hint),
        }
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

    /// The assistant facts, when this is an assistant message.
    pub fn assistant(&self) -> Option<AssistantRef<'a>> {
        (self.record.kind == Kind::Message(RoleKind::Assistant)).then_some(AssistantRef { entry: *self })
    }

    /// The `type` string as written in the file.
    pub fn type_name(&self) -> &'a str {
        match self.record.kind {
            Kind::Message(_) => "message",
            Kind::Unknown => self.index.text(self.record.extra).unwrap_or_default(),
            kind => name_of(&TYPES, &kind),
        }
    }

    /// The message role, for `message` entries.
    pub fn role_name(&self) -> Option<&'a str> {
        let Kind::Message(role) = self.record.kind else { return None };
        Some(match role {
            RoleKind::Other => self.index.text(self.record.extra).unwrap_or_default(),
            role => name_of(&ROLES, &Kind::Message(role)),
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
