//! The one model of a session entry: its [`Kind`] (type, and role for messages) and the [`Facts`] a line
//! gives about it — what the tree, the labels, the token estimates and the previews need, never a second
//! copy of the message. The index keeps the same facts compactly (`record.rs`) and lends them out as
//! [`super::EntryRef`]s.
//!
//! A pi session file is JSONL: a `session` header, then entries `{type, id, parentId, timestamp, …}`.

use std::borrow::Cow;

pub use super::wire::MAX_LINE_NESTING;

/// Deepest JSON nesting of tool arguments from the model.
pub const MAX_NESTING: usize = 1000;

/// The session header (first line of a session file).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Header {
    /// Session id (uuidv7 in current pi).
    pub id: Option<String>,
    /// Format version; pi 0.75 writes 3.
    pub version: Option<f64>,
    /// The format pi reads the file as, decided from `version` (see `super::migrate`).
    pub format: super::Format,
    /// Working directory the session was created in.
    pub cwd: Option<String>,
    /// Creation time as written.
    pub timestamp: Option<String>,
    /// `parentSession`: the session file this one was forked or spawned from, as written (a path on the
    /// machine that wrote it). Read by name from the header line alone (one line a file: no field of
    /// every line's reader).
    pub parent_session: Option<String>,
}

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
    /// `usage` (pi ≥1.x).
    Usage,
    /// `context_edit` (pi ≥1.x).
    ContextEdit,
    /// Any other type (its name is kept).
    Unknown,
}

/// The role of a `message` entry.
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
    /// `system` (system prompt / tool declarations, pi ≥0.87).
    System,
    /// Any other role (its name is kept).
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

impl StopReason {
    /// The reason as written (`None` when missing).
    pub fn of(reason: Option<&str>) -> StopReason {
        match reason {
            None | Some("") => StopReason::None,
            Some("stop") => StopReason::Stop,
            Some("toolUse") => StopReason::ToolUse,
            Some(_) => StopReason::Other,
        }
    }
}

/// Every entry type but `message` by its name in the file.
const TYPES: [(&str, Kind); 10] = [
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

/// Every named message role by its name in the file (`hookMessage` is read as `custom` in v2 files).
const ROLES: [(&str, RoleKind); 8] = [
    ("user", RoleKind::User),
    ("assistant", RoleKind::Assistant),
    ("toolResult", RoleKind::ToolResult),
    ("custom", RoleKind::Custom),
    ("bashExecution", RoleKind::BashExecution),
    ("branchSummary", RoleKind::BranchSummary),
    ("compactionSummary", RoleKind::CompactionSummary),
    ("system", RoleKind::System),
];

impl Kind {
    /// The kind of a non-`message` entry type ([`Kind::Unknown`] for a type pi does not write).
    pub fn of_type(name: &str) -> Kind {
        TYPES.iter().find(|(n, _)| *n == name).map_or(Kind::Unknown, |&(_, k)| k)
    }

    /// The `type` as written in the file (`None` for [`Kind::Unknown`], whose name is kept elsewhere).
    pub fn type_name(self) -> Option<&'static str> {
        match self {
            Kind::Message(_) => Some("message"),
            kind => TYPES.iter().find(|(_, k)| *k == kind).map(|&(n, _)| n),
        }
    }
}

impl RoleKind {
    /// The role of a message (`legacy_v2`: pi's v2→v3 migration reads `hookMessage` as `custom`).
    pub fn of(name: &str, legacy_v2: bool) -> RoleKind {
        match ROLES.iter().find(|(n, _)| *n == name) {
            Some(&(_, role)) => role,
            None if legacy_v2 && name == "hookMessage" => RoleKind::Custom,
            None => RoleKind::Other,
        }
    }

    /// The role as written (`None` for [`RoleKind::Other`], whose name is kept elsewhere).
    pub fn name(self) -> Option<&'static str> {
        ROLES.iter().find(|(_, r)| *r == self).map(|&(n, _)| n)
    }
}

/// What one entry line says: the facts every index keeps, borrowed from the line where they can be.
#[derive(Debug, Clone, PartialEq)]
pub struct Facts<'a> {
    /// Entry id (8 hex chars in pi).
    pub id: Cow<'a, str>,
    /// Parent id; `None` for a root.
    pub parent_id: Option<Cow<'a, str>>,
    /// `new Date(timestamp).getTime()`; `None` when invalid (NaN).
    pub timestamp_ms: Option<f64>,
    /// Type and role.
    pub kind: Kind,
    /// The type (for [`Kind::Unknown`]) or role (for [`RoleKind::Other`]) as written; empty otherwise.
    pub name: Cow<'a, str>,
    /// `estimateTokens` of the message this entry puts in the context (compaction: of its summary).
    pub tokens: f64,
    /// `calculateContextTokens(usage)` when this is an assistant whose usage pi's estimate would use.
    pub usage: Option<f64>,
    /// Whitespace-collapsed start of the entry's text, for previews.
    pub hint: Option<String>,
    /// A `branch_summary` whose summary is truthy (it enters the context); a `compaction` with a truthy
    /// `systemMessage` (pi ≥0.87 re-emits it before the summary; its characters are `system_chars`).
    pub emits: bool,
    /// A compaction's `firstKeptEntryId`.
    pub first_kept: Option<Cow<'a, str>>,
    /// A label entry's target id and new label (`None` clears).
    pub label: Option<(Cow<'a, str>, Option<Cow<'a, str>>)>,
    /// An assistant's `stopReason` as written.
    pub stop_reason: Option<Cow<'a, str>>,
    /// An assistant whose `usage.input` and `usage.output` are both zero or missing (the synthetic shape).
    pub zero_io: bool,
    /// The `provider` and `model` of an assistant or a `usage` entry, each as a JavaScript template literal
    /// writes it (pi's own `${provider}/${model}`: `undefined` when missing): the model whose count and
    /// prices its usage holds.
    pub source: Option<(Cow<'a, str>, Cow<'a, str>)>,
    /// `(id, name)` of each of an assistant's tool calls, in order.
    pub tool_calls: Vec<(Cow<'a, str>, Cow<'a, str>)>,
    /// The `arguments` of each of those calls (`None`: none given), read only while
    /// [`super::wire::keeping_calls`] (empty otherwise, and in [`Facts::into_owned`]'s): what the loop rule
    /// digests (`crate::loops::waste`).
    pub call_arguments: Vec<Option<&'a serde_json::Value>>,
    /// A tool result's call and text, read only while [`super::wire::keeping_calls`] (and not in
    /// [`Facts::into_owned`]'s).
    pub tool_result: Option<ToolResultFacts<'a>>,
    /// Raw facts per-host rules can use. `images`: image blocks in the content (user, custom,
    /// toolResult; counted in `tokens` except for user messages).
    pub images: usize,
    /// A `system` message's characters as pi ≥0.87 estimates them: content text (+4800 per image) +
    /// `sections` text + `JSON.stringify(toolsAdded).length` (not in `tokens`: pi 0.75 counts system
    /// messages as 0). For a compaction: those of its `systemMessage`.
    pub system_chars: usize,
    /// What a system message (or a compaction's `systemMessage`) changes in pi ≥0.87's replay of the
    /// context's system messages, as [`SystemPatch::encode`] writes it.
    pub system_patch: Option<String>,
    /// A `context_edit`'s `targetId`.
    pub edit_target: Option<Cow<'a, str>>,
    /// A `context_edit`'s replacement as `estimateTokens` counts it: `[as the content of a user, custom or
    /// toolResult message, as the content of an assistant]`; `None` when it is not an object (`null`:
    /// the target leaves the context).
    pub replacement_tokens: Option<[f64; 2]>,
    /// The usage this entry records, where pi's session totals count one (see [`Spend`]).
    pub spend: Option<Spend<'a>>,
    /// A compaction's `tokensBefore` (a number).
    pub tokens_before: Option<f64>,
}

/// What a tool result says to the loop rule (`crate::loops::waste`).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResultFacts<'a> {
    /// `toolCallId` (a string: a result without one is none of a call's).
    pub call_id: Cow<'a, str>,
    /// `isError === true`.
    pub is_error: bool,
    /// Its text: a string content, or its text blocks' texts joined by newlines (as the shim joins them).
    pub text: Cow<'a, str>,
}

/// Which kind of entry recorded a usage, as pi 1.6.0's session totals (`getSessionStats`) tell them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpendKind {
    /// An assistant message's `usage`: a model request.
    Assistant,
    /// A tool result's `usage` (a tool that ran a model itself).
    ToolResult,
    /// A `usage` entry (pi ≥1.5 writes one per cache-warming request, `kind: "cache_warm"`).
    Usage {
        /// `kind` is `"cache_warm"`.
        cache_warm: bool,
    },
    /// A `branch_summary`'s or `compaction`'s `usage`: the summary request's.
    Summary,
    /// The same kept in `details.summaryUsage`, where the host wrote no `usage` field (pi before 0.87):
    /// pi's own totals do not see it.
    SummaryDetails,
}

/// The usage an entry records, as written: its tokens and what pi priced them at (whose model: the entry's
/// [`Facts::source`]). A field that is not a finite number ≥ 0 is NaN here, so whoever sums them can leave
/// the item out and count it instead (two spends are equal when their numbers are the same bits: a NaN
/// equals a NaN).
#[derive(Debug, Clone)]
pub struct Spend<'a> {
    /// Which kind of entry recorded it.
    pub kind: SpendKind,
    /// An assistant's `responseModel` (the model the provider says answered), when it is neither `null` nor
    /// missing, as a template literal writes it.
    pub response_model: Option<Cow<'a, str>>,
    /// `input`, `output`, `cacheRead`, `cacheWrite`.
    pub tokens: [f64; 4],
    /// `cost.input`, `.output`, `.cacheRead`, `.cacheWrite`, `.total` (USD; all NaN when `cost` is no object).
    pub cost: [f64; 5],
}

impl PartialEq for Spend<'_> {
    fn eq(&self, other: &Self) -> bool {
        let bits = |xs: &[f64]| xs.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        (self.kind, &self.response_model) == (other.kind, &other.response_model)
            && bits(&self.tokens) == bits(&other.tokens)
            && bits(&self.cost) == bits(&other.cost)
    }
}

impl Spend<'_> {
    /// The same spend owning its strings.
    pub fn into_owned(self) -> Spend<'static> {
        Spend { kind: self.kind, response_model: self.response_model.map(|s| Cow::Owned(s.into_owned())), tokens: self.tokens, cost: self.cost }
    }
}

impl<'a> Facts<'a> {
    /// The facts of an entry known only by its id, parent and timestamp: an unknown type with nothing
    /// counted yet (what a line's reader starts from before it reads the type's own fields).
    pub fn new(id: Cow<'a, str>, parent_id: Option<Cow<'a, str>>, timestamp_ms: Option<f64>) -> Self {
        Facts {
            id,
            parent_id,
            timestamp_ms,
            kind: Kind::Unknown,
            name: Cow::Borrowed(""),
            tokens: 0.0,
            usage: None,
            hint: None,
            emits: false,
            first_kept: None,
            label: None,
            stop_reason: None,
            zero_io: false,
            source: None,
            tool_calls: Vec::new(),
            call_arguments: Vec::new(),
            tool_result: None,
            images: 0,
            system_chars: 0,
            system_patch: None,
            edit_target: None,
            replacement_tokens: None,
            spend: None,
            tokens_before: None,
        }
    }

    /// The same facts owning their strings.
    pub fn into_owned(self) -> Facts<'static> {
        let own = |s: Cow<'_, str>| Cow::Owned(s.into_owned());
        Facts {
            id: own(self.id),
            parent_id: self.parent_id.map(own),
            name: own(self.name),
            first_kept: self.first_kept.map(own),
            label: self.label.map(|(t, l)| (own(t), l.map(own))),
            stop_reason: self.stop_reason.map(own),
            source: self.source.map(|(p, m)| (own(p), own(m))),
            tool_calls: self.tool_calls.into_iter().map(|(i, n)| (own(i), own(n))).collect(),
            // (What the loop rule reads of a line is its read's own: taken as the line is read, never kept.)
            call_arguments: Vec::new(),
            tool_result: None,
            timestamp_ms: self.timestamp_ms,
            kind: self.kind,
            tokens: self.tokens,
            usage: self.usage,
            hint: self.hint,
            emits: self.emits,
            zero_io: self.zero_io,
            images: self.images,
            system_chars: self.system_chars,
            system_patch: self.system_patch,
            edit_target: self.edit_target.map(own),
            replacement_tokens: self.replacement_tokens,
            spend: self.spend.map(Spend::into_owned),
            tokens_before: self.tokens_before,
        }
    }

    /// Whether this entry contributes a message when it lies on the context path (compactions are
    /// handled separately: their summary goes first).
    pub fn emits_message(&self) -> bool {
        match self.kind {
            Kind::Message(_) | Kind::CustomMessage => true,
            Kind::BranchSummary => self.emits,
            _ => false,
        }
    }

    /// The `type` string as written in the file.
    pub fn type_name(&self) -> &str {
        self.kind.type_name().unwrap_or(&self.name)
    }

    /// The message role, for `message` entries.
    pub fn role_name(&self) -> Option<&str> {
        match self.kind {
            Kind::Message(role) => Some(role.name().unwrap_or(&self.name)),
            _ => None,
        }
    }
}

/// What one system message changes in pi ≥0.87's `getCurrentSystemMessage`, which replays the context's
/// system messages into one: non-empty content texts joined by `"\n\n"`, sections set (or deleted by
/// `null`) by name, tools removed and then added by name; `undefined` when no message had a timestamp and
/// no tool is left. Its estimate is what pi ≥0.87 counts for the system messages when it does not trust
/// a usage (`estimateProjectedContextTokens`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SystemPatch<'a> {
    /// `contentText(content).length` (a string, or its text blocks joined by `"\n"`).
    pub content: usize,
    /// Each section's name and `.length`; `None` deletes it.
    pub sections: Vec<(Cow<'a, str>, Option<usize>)>,
    /// The `name` of each `toolsRemoved` item (`None` when not a string).
    pub removed: Vec<Option<Cow<'a, str>>>,
    /// The `name` and `JSON.stringify` length of each `toolsAdded` item.
    pub added: Vec<(Option<Cow<'a, str>>, usize)>,
    /// Whether the message has a `timestamp` (not `null` or missing).
    pub timestamp: bool,
}

impl<'a> SystemPatch<'a> {
    /// The patch as one string (how the index keeps it): `T`/`F` for the timestamp, then `c<len>;`
    /// and per item `s`/`r`/`a`, the name as `<bytes>:<name>` (`-:` for none), and a length (`-` for
    /// none) followed by `;`.
    pub fn encode(&self) -> String {
        let mut out = patch_start(self.timestamp, self.content);
        for (n, v) in &self.sections {
            patch_item(&mut out, 's', Some(n), *v);
        }
        for n in &self.removed {
            patch_item(&mut out, 'r', n.as_deref(), None);
        }
        for (n, l) in &self.added {
            patch_item(&mut out, 'a', n.as_deref(), Some(*l));
        }
        out
    }

    /// The patch [`SystemPatch::encode`] wrote (`None` for text it did not write).
    pub fn decode(text: &'a str) -> Option<SystemPatch<'a>> {
        let (timestamp, content, items) = patch_parts(text)?;
        let mut patch = SystemPatch { content, timestamp, ..SystemPatch::default() };
        for item in items {
            match item? {
                ('s', Some(name), len) => patch.sections.push((Cow::Borrowed(name), len)),
                ('r', name, None) => patch.removed.push(name.map(Cow::Borrowed)),
                ('a', name, Some(len)) => patch.added.push((name.map(Cow::Borrowed), len)),
                _ => return None,
            }
        }
        Some(patch)
    }
}

/// The start of an encoded [`SystemPatch`].
pub(super) fn patch_start(timestamp: bool, content: usize) -> String {
    format!("{}c{content};", if timestamp { 'T' } else { 'F' })
}

/// One item of an encoded [`SystemPatch`].
pub(super) fn patch_item(out: &mut String, tag: char, name: Option<&str>, len: Option<usize>) {
    use std::fmt::Write as _;
    out.push(tag);
    match name {
        Some(n) => {
            let _ = write!(out, "{}:{n}", n.len());
        }
        None => out.push_str("-:"),
    }
    match len {
        Some(l) => {
            let _ = write!(out, "{l};");
        }
        None => out.push_str("-;"),
    }
}

/// One item of an encoded [`SystemPatch`]: tag (`s`, `r`, `a`), name, length.
pub(super) type PatchItem<'a> = (char, Option<&'a str>, Option<usize>);

/// An encoded [`SystemPatch`]: its timestamp flag, content length and items (an item is `None` where the
/// text is not an encoding).
pub(super) fn patch_parts(text: &str) -> Option<(bool, usize, impl Iterator<Item = Option<PatchItem<'_>>>)> {
    let rest = text.get(1..)?.strip_prefix('c')?;
    let (content, mut rest) = rest.split_once(';')?;
    let items = std::iter::from_fn(move || {
        let tag = rest.chars().next()?;
        let item = (|| {
            let (bytes, after) = rest.get(1..)?.split_once(':')?;
            let (name, after) = match bytes {
                "-" => (None, after),
                n => {
                    let n: usize = n.parse().ok()?;
                    (Some(after.get(..n)?), after.get(n..)?)
                }
            };
            let (len, after) = after.split_once(';')?;
            let len = if len == "-" { None } else { Some(len.parse().ok()?) };
            Some((after, (tag, name, len)))
        })();
        if let Some((after, item)) = item {
            rest = after;
            Some(Some(item))
        } else {
            rest = "";
            Some(None)
        }
    });
    Some((text.starts_with('T'), content.parse().ok()?, items))
}

/// What one JSONL line turned out to be.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant, reason = "a line lives on the stack while it is read; boxing would cost an allocation per entry")]
pub enum Line<'a> {
    /// The session header.
    Header(Header),
    /// An entry.
    Entry(Facts<'a>),
}

/// Why a line was not taken (the reason a skipped line is reported with).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineProblem {
    /// Not valid JSON.
    #[error("malformed JSON ({0})")]
    Malformed(String),
    /// Valid JSON but not an object.
    #[error("not a JSON object")]
    NotAnObject,
    /// An object without a string `id`.
    #[error("entry has no string id")]
    NoId,
    /// Nested deeper than [`MAX_LINE_NESTING`] levels.
    #[error("nested {0} levels deep (more than {MAX_LINE_NESTING} are not read)")]
    TooDeep(usize),
}

impl LineProblem {
    /// The reason a skipped line is reported with.
    pub fn reason(&self) -> String {
        self.to_string()
    }
}
