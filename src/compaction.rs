//! pi's own compaction, written from the prompt cache.
//!
//! When pi compacts (at its threshold, on `/compact [instructions]`, or to recover from an overflow) it asks an
//! extension first (`session_before_compact`). pi's own summary request is cold by design: a summarization
//! system prompt and the conversation serialized into one user message, so no byte of it comes from the
//! provider's prompt cache. The plugin answers instead with a summary written by the live request — the
//! request pi sent last, unchanged (system prompt, tools, messages), plus one instruction carrying pi's
//! compaction format — so the provider reads almost all of it from its cache. pi's own cut
//! (`firstKeptEntryId`), `tokensBefore` and file lists are returned unchanged; pi appends its compaction entry
//! as always.
//!
//! Everything here is a decision or a text, as data: whether the live request can be reused and why not
//! ([`compaction_mode`], [`CompactionFallback`]), the instruction ([`compaction_instruction`]), what a reply
//! means ([`reply_verdict`]), the summary pi stores ([`compaction_summary`]), the file lists
//! ([`compaction_files`], [`carried_files`]) and what the user sees ([`compaction_notices`], in the rewinds'
//! words). The shim
//! (`js/compaction.js`) captures, measures, sends and returns.

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;
use tsify_next::Tsify;

use crate::session::Profile;
use crate::text::format_tokens;
use crate::tool::{LedgerOptions, SummaryCache};

// ── Mode ─────────────────────────────────────────────────────────────────────────────────────────────

/// Why a compaction was left to pi's own (cold) summary request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "kebab-case")]
pub enum CompactionFallback {
    /// Turned off (config or env).
    Disabled,
    /// No request captured (pi <0.87, or none sent since the session opened).
    NoCapture,
    /// The host's model registry has no `streamSimple`.
    NoStream,
    /// The last request went to another model (the cache is per model).
    ModelChanged,
    /// The last request is not the start of the context pi compacts.
    StaleCapture,
    /// pi's range to summarize is not where pi puts it in the last request.
    Unaligned,
    /// It would not fit the window with the instruction and a summary, or it overflowed.
    Overflow,
    /// The reply is unusable (an error, no text, a tool call, cut at its limit).
    Failed,
}

impl CompactionFallback {
    /// The reason's name as the notices print it (`no-capture`).
    pub fn name(self) -> &'static str {
        match self {
            CompactionFallback::Disabled => "disabled",
            CompactionFallback::NoCapture => "no-capture",
            CompactionFallback::NoStream => "no-stream",
            CompactionFallback::ModelChanged => "model-changed",
            CompactionFallback::StaleCapture => "stale-capture",
            CompactionFallback::Unaligned => "unaligned",
            CompactionFallback::Overflow => "overflow",
            CompactionFallback::Failed => "failed",
        }
    }
}

/// What the shim knows when pi asks for a compaction.
#[allow(clippy::struct_excessive_bools, reason = "independent facts the shim observes, read from one object")]
#[derive(Debug, Clone, PartialEq, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct CompactionFacts {
    /// Config `cacheCompaction`, and no env kill switch.
    pub enabled: bool,
    /// A request was captured for this session.
    pub has_capture: bool,
    /// `ctx.modelRegistry.streamSimple` is a function.
    pub has_stream: bool,
    /// The captured request went to the session's model (absent: yes).
    #[tsify(optional)]
    pub same_model: bool,
    /// The captured messages start the context pi compacts, unchanged.
    #[serde(default)]
    #[tsify(optional)]
    pub capture_is_prefix: bool,
    /// pi's messages to summarize are where pi's compaction puts them.
    #[serde(default)]
    #[tsify(optional)]
    pub range_found: bool,
    /// The live request overflowed (pi will retry the turn).
    #[serde(default)]
    #[tsify(optional)]
    pub live_request_overflowed: bool,
    /// The captured request's prompt tokens by its reply's usage.
    #[serde(default)]
    #[tsify(optional)]
    pub capture_tokens: Option<f64>,
    /// pi's `tokensBefore` (the estimate without a count).
    #[serde(default)]
    #[tsify(optional)]
    pub tokens_before: f64,
    /// Characters added to the captured request (messages, instruction).
    #[serde(default)]
    #[tsify(optional)]
    pub added_chars: f64,
    /// The model's context window (0: unknown).
    pub context_window: f64,
    /// The model's output limit (0: unknown).
    #[serde(default)]
    #[tsify(optional)]
    pub max_tokens: f64,
    /// The live-prefix reply was unusable.
    #[serde(default)]
    #[tsify(optional)]
    pub stream_failed: bool,
}

// The shim's objects arrive as JSON values read field by field, as the config file is (`crate::config`): a
// derived deserializer per type would cost the module more than these decisions. A missing or mistyped field
// reads as absent.

fn field<'v>(v: &'v Value, key: &str) -> Option<&'v Value> {
    v.get(key).filter(|x| !x.is_null())
}

fn flag(v: &Value, key: &str) -> Option<bool> {
    field(v, key).and_then(Value::as_bool)
}

fn number(v: &Value, key: &str) -> Option<f64> {
    field(v, key).and_then(Value::as_f64)
}

fn count(v: &Value, key: &str) -> Option<u32> {
    number(v, key).filter(|n| *n >= 0.0 && n.fract() == 0.0).map(|n| n.min(f64::from(u32::MAX)) as u32)
}

fn text(v: &Value, key: &str) -> Option<String> {
    field(v, key).and_then(Value::as_str).map(Into::into)
}

fn texts(v: &Value, key: &str) -> Option<Vec<String>> {
    field(v, key).and_then(Value::as_array).map(|a| a.iter().filter_map(|x| x.as_str().map(Into::into)).collect())
}

impl CompactionFacts {
    /// The facts from the shim's object (camelCase fields; `sameModel` absent: yes; the rest: no or 0).
    pub fn from_json(v: &Value) -> Self {
        let yes = |k| flag(v, k).unwrap_or(false);
        CompactionFacts {
            enabled: yes("enabled"),
            has_capture: yes("hasCapture"),
            has_stream: yes("hasStream"),
            same_model: flag(v, "sameModel").unwrap_or(true),
            capture_is_prefix: yes("captureIsPrefix"),
            range_found: yes("rangeFound"),
            live_request_overflowed: yes("liveRequestOverflowed"),
            capture_tokens: number(v, "captureTokens"),
            tokens_before: number(v, "tokensBefore").unwrap_or(0.0),
            added_chars: number(v, "addedChars").unwrap_or(0.0),
            context_window: number(v, "contextWindow").unwrap_or(0.0),
            max_tokens: number(v, "maxTokens").unwrap_or(0.0),
            stream_failed: yes("streamFailed"),
        }
    }
}

/// The decision: the live prefix with its output limit, or pi's own compaction with a reason.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct CompactionMode {
    /// `"live-prefix"` or `"fallback"`.
    pub mode: &'static str,
    /// Why pi's own compaction (`None` for the live prefix).
    pub reason: Option<CompactionFallback>,
    /// The output limit to ask for (`None` on a fallback).
    pub max_tokens: Option<f64>,
}

/// The room a compaction summary needs below the window. pi's threshold leaves `reserveTokens` (16,384 by
/// default) above the context, and pi's format fills 1–3k tokens; half the reserve leaves a summary of any
/// realistic length room while a context that crossed the threshold by less than half the reserve still fits.
pub const COMPACTION_OUTPUT_RESERVE: f64 = 8_192.0;

/// The prompt the live-prefix request sends, in tokens: the captured request as its provider counted it
/// plus what is added (`ceil(chars / 4)`, pi's estimate); without that count pi's `tokensBefore` (which
/// already holds what followed the capture) plus the added characters.
pub fn compaction_prompt_tokens(f: &CompactionFacts) -> f64 {
    let added = (f.added_chars.max(0.0) / 4.0).ceil();
    match f.capture_tokens {
        Some(tokens) if tokens.is_finite() && tokens > 0.0 => tokens + added,
        _ => f.tokens_before.max(0.0) + added,
    }
}

/// Chooses the summary request. The checks run in this order, so the reason names the first obstacle.
pub fn compaction_mode(f: &CompactionFacts) -> CompactionMode {
    let fallback = |r| CompactionMode { mode: "fallback", reason: Some(r), max_tokens: None };
    if !f.enabled {
        return fallback(CompactionFallback::Disabled);
    }
    if !f.has_capture {
        return fallback(CompactionFallback::NoCapture);
    }
    if !f.has_stream {
        return fallback(CompactionFallback::NoStream);
    }
    if !f.same_model {
        return fallback(CompactionFallback::ModelChanged);
    }
    if !f.capture_is_prefix {
        return fallback(CompactionFallback::StaleCapture);
    }
    if !f.range_found {
        return fallback(CompactionFallback::Unaligned);
    }
    let prompt = compaction_prompt_tokens(f);
    let room = if f.context_window > 0.0 { f.context_window - prompt } else { f64::INFINITY };
    if f.live_request_overflowed || room < COMPACTION_OUTPUT_RESERVE {
        return fallback(CompactionFallback::Overflow);
    }
    if f.stream_failed {
        return fallback(CompactionFallback::Failed);
    }
    let own = if f.max_tokens > 0.0 { f.max_tokens } else { f64::INFINITY };
    let max_tokens = own.min(room);
    CompactionMode { mode: "live-prefix", reason: None, max_tokens: max_tokens.is_finite().then(|| max_tokens.floor()) }
}

// ── The instruction ──────────────────────────────────────────────────────────────────────────────────

/// Where pi's compaction falls in the replayed messages, 1-based, system messages not counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Tsify)]
#[serde(rename_all = "camelCase", default)]
pub struct CompactionRange {
    /// The message holding the previous summary.
    #[tsify(optional)]
    pub previous_summary_at: Option<u32>,
    /// The first message pi summarizes.
    pub history_first: u32,
    /// How many messages pi summarizes.
    pub history_count: u32,
    /// How many messages of a split turn's prefix follow (0: no split).
    pub prefix_count: u32,
    /// Messages in the request before the instruction.
    pub message_count: u32,
    /// The user's `/compact` instructions.
    #[tsify(optional)]
    pub custom_instructions: Option<String>,
}

impl CompactionRange {
    /// The range from the shim's object (camelCase fields).
    pub fn from_json(v: &Value) -> Self {
        let n = |k| count(v, k).unwrap_or(0);
        CompactionRange {
            previous_summary_at: count(v, "previousSummaryAt"),
            history_first: n("historyFirst"),
            history_count: n("historyCount"),
            prefix_count: n("prefixCount"),
            message_count: n("messageCount"),
            custom_instructions: text(v, "customInstructions"),
        }
    }

    fn history(&self) -> Option<(u32, u32)> {
        (self.history_count > 0).then(|| (self.history_first, self.history_first + self.history_count - 1))
    }

    fn prefix(&self) -> Option<(u32, u32)> {
        let first = self.history_first + self.history_count;
        (self.prefix_count > 0).then(|| (first, first + self.prefix_count - 1))
    }

    /// The last message the compaction replaces.
    fn last(&self) -> u32 {
        (self.history_first + self.history_count + self.prefix_count).saturating_sub(1)
    }
}

/// pi's checkpoint format for a first summary (its `SUMMARIZATION_PROMPT`), sections and hints verbatim.
const FORMAT: &str = "## Goal
[What is the user trying to accomplish? Can be multiple items if the session covers different tasks.]

## Constraints & Preferences
- [Any constraints, preferences, or requirements mentioned by user]
- [Or \"(none)\" if none were mentioned]

## Progress
### Done
- [x] [Completed tasks/changes]

### In Progress
- [ ] [Current work]

### Blocked
- [Issues preventing progress, if any]

## Key Decisions
- **[Decision]**: [Brief rationale]

## Next Steps
1. [Ordered list of what should happen next]

## Critical Context
- [Any data, examples, or references needed to continue]
- [Or \"(none)\" if not applicable]

Keep each section concise. Preserve exact file paths, function names, and error messages.";

/// pi's format when a previous summary is updated (its `UPDATE_SUMMARIZATION_INSTRUCTIONS`).
const UPDATE_FORMAT: &str = "## Goal
[Preserve existing goals, add new ones if the task expanded]

## Constraints & Preferences
- [Preserve existing, add new ones discovered]

## Progress
### Done
- [x] [Include previously done items AND newly completed items]

### In Progress
- [ ] [Current work - update based on progress]

### Blocked
- [Current blockers - remove if resolved]

## Key Decisions
- **[Decision]**: [Brief rationale] (preserve all previous, add new)

## Next Steps
1. [Update based on current state]

## Critical Context
- [Preserve important context, add new if needed]

Keep each section concise. Preserve exact file paths, function names, and error messages.";

/// pi's rules for updating a previous summary.
const UPDATE_RULES: &str = "RULES:
- PRESERVE all existing information from the previous summary
- ADD new progress, decisions, and context from the new messages
- UPDATE the Progress section: move items from \"In Progress\" to \"Done\" when completed
- UPDATE \"Next Steps\" based on what was accomplished
- PRESERVE exact file paths, function names, and error messages
- If something is no longer relevant, you may remove it";

/// pi's checkpoint of a split turn's prefix (its `TURN_PREFIX_SUMMARIZATION_PROMPT`).
const TURN_FORMAT: &str = "## Original Request
[What did the user ask for?]

## Progress So Far
- [Key decisions and work completed in these messages]

## Context Needed to Continue
- [Information from these messages needed to understand the later work]";

/// The line pi puts between the history summary and a split turn's checkpoint.
const TURN_HEADING: &str = "**Turn Context (split turn):**";

/// The instruction appended to the replayed live request: pi's compaction prompt (its sections, the update
/// rules when a previous summary exists, the split turn's checkpoint, the user's `/compact` instructions),
/// pointed at the messages it replaces by number instead of a serialized copy of them.
pub fn compaction_instruction(r: &CompactionRange) -> String {
    let mut out = String::from(
        "Stop the task here: do not continue the work and do not call tools. Write a context checkpoint instead.\n\n",
    );
    let last = r.last();
    let kept = if last < r.message_count {
        format!("; messages {} to {} stay as they are after it", last + 1, r.message_count)
    } else {
        String::new()
    };
    match (r.history(), r.prefix()) {
        (Some((a, b)), prefix) => {
            let to = prefix.map_or(b, |(_, d)| d);
            let _ = write!(
                out,
                "This conversation is being compacted: messages {a} to {to} (counting from 1, system prompt excluded) \
                 will be replaced by what you write now{kept}. "
            );
            match r.previous_summary_at {
                Some(p) => {
                    let _ = write!(
                        out,
                        "Message {p} is the summary of an earlier compaction; messages {a} to {b} are NEW messages to \
                         incorporate into it. Update the existing structured summary with new information. {UPDATE_RULES}\n\n\
                         Use this EXACT format:\n\n{UPDATE_FORMAT}"
                    );
                }
                None => {
                    let _ = write!(
                        out,
                        "Create a structured context checkpoint summary of messages {a} to {b} that another LLM will use to \
                         continue the work.\n\nUse this EXACT format:\n\n{FORMAT}"
                    );
                }
            }
            if let Some((c, d)) = prefix {
                let _ = write!(
                out,
                    "\n\nMessages {c} to {d} are the start of the turn still in progress (its later messages are kept). \
                     After the summary write a line `---`, then the line `{TURN_HEADING}`, then a concise checkpoint of \
                     the user's request and the progress in messages {c} to {d}:\n\n{TURN_FORMAT}\n\n\
                     Only summarize information explicitly present in messages {c} to {d}. Do not infer or recreate later messages."
                );
            }
        }
        (None, Some((c, d))) => {
            let _ = write!(
                out,
                "This conversation is being compacted: messages {c} to {d} (counting from 1, system prompt excluded) \
                 will be replaced by what you write now{kept}. They are the start of the turn still in progress (its \
                 later messages are kept). Create a concise checkpoint of the user's request and the progress in \
                 messages {c} to {d}, placed before the later messages so the conversation can continue with the \
                 necessary context:\n\n{TURN_FORMAT}\n\n\
                 Only summarize information explicitly present in messages {c} to {d}. Do not infer or recreate later messages."
            );
        }
        (None, None) => {
            out += "This conversation is being compacted. Create a structured context checkpoint summary of it that \
                    another LLM will use to continue the work.\n\nUse this EXACT format:\n\n";
            out += FORMAT;
        }
    }
    if let Some(focus) = r.custom_instructions.as_deref().filter(|s| !s.trim().is_empty()) {
        let _ = write!(out, "\n\nAdditional focus: {focus}");
    }
    out
}

// ── The reply ────────────────────────────────────────────────────────────────────────────────────────

/// The live-prefix request's reply as the shim read it (crossing as four plain arguments: a typed object's
/// deserializer would cost the module more than this whole decision).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CompactionReply<'a> {
    /// pi-ai's `stopReason` (`"stop"`, `"length"`, `"toolUse"`, `"error"`, `"aborted"`), or `None` when the
    /// request threw.
    pub stop_reason: Option<&'a str>,
    /// The reply's text blocks, joined.
    pub text: &'a str,
    /// The reply holds a tool call.
    pub tool_call: bool,
    /// pi's compaction signal was aborted (the user pressed Esc, or pi stopped the session).
    pub aborted: bool,
}

/// What a reply means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyVerdict {
    /// Use the text: return the compaction.
    Summary,
    /// The user stopped the compaction: cancel it (pi then reports it cancelled); never a cold request.
    Cancel,
    /// Unusable: leave the compaction to pi's own request (reason `failed`).
    Fallback,
}

impl ReplyVerdict {
    /// `"summary"`, `"cancel"` or `"fallback"`.
    pub fn name(self) -> &'static str {
        match self {
            ReplyVerdict::Summary => "summary",
            ReplyVerdict::Cancel => "cancel",
            ReplyVerdict::Fallback => "fallback",
        }
    }
}

/// Judges the reply. An abort is the user's (or pi's) decision to stop and is honoured whatever the reply
/// says; a reply cut at its output limit is unusable, as pi's own compaction refuses one (a partial
/// checkpoint must not replace the conversation).
pub fn reply_verdict(r: &CompactionReply<'_>) -> ReplyVerdict {
    if r.aborted {
        return ReplyVerdict::Cancel;
    }
    let stop_ok = r.stop_reason == Some("stop");
    if !stop_ok || r.tool_call || r.text.trim().is_empty() {
        return ReplyVerdict::Fallback;
    }
    ReplyVerdict::Summary
}

// ── The summary and its file lists ───────────────────────────────────────────────────────────────────

/// pi's file operations of the compacted span (`preparation.fileOps`: its Sets as arrays).
#[derive(Debug, Clone, Default, PartialEq, Tsify)]
#[serde(rename_all = "camelCase", default)]
pub struct FileOps {
    /// Paths read.
    pub read: Vec<String>,
    /// Paths written.
    pub written: Vec<String>,
    /// Paths edited.
    pub edited: Vec<String>,
}

/// The previous compaction on the branch, as far as its file lists go.
#[derive(Debug, Clone, Default, PartialEq, Tsify)]
#[serde(rename_all = "camelCase", default)]
pub struct PreviousCompaction {
    /// An extension supplied it.
    pub from_hook: bool,
    /// Its `details.readFiles`, when that is a list of strings.
    #[tsify(optional)]
    pub read_files: Option<Vec<String>>,
    /// Its `details.modifiedFiles`, when that is a list of strings.
    #[tsify(optional)]
    pub modified_files: Option<Vec<String>>,
}

impl FileOps {
    /// pi's file operations from the shim's `{read, written, edited}` (arrays of paths).
    pub fn from_json(v: &Value) -> Self {
        let list = |k| texts(v, k).unwrap_or_default();
        FileOps { read: list("read"), written: list("written"), edited: list("edited") }
    }
}

impl PreviousCompaction {
    /// The previous compaction from the shim's `{fromHook, readFiles, modifiedFiles}`.
    pub fn from_json(v: &Value) -> Self {
        PreviousCompaction { from_hook: flag(v, "fromHook").unwrap_or(false), read_files: texts(v, "readFiles"), modified_files: texts(v, "modifiedFiles") }
    }
}

/// A compaction's `details`, as pi's own compaction stores them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct FileLists {
    /// Files read and not modified, sorted as JavaScript sorts strings.
    pub read_files: Vec<String>,
    /// Files written or edited, sorted.
    pub modified_files: Vec<String>,
}

/// What pi's own compaction would not carry over from `previous`: the lists of a compaction an extension
/// supplied (pi reads a previous compaction's `details` only when it wrote it itself). These go into pi's
/// `preparation.fileOps` before pi compacts on its own, and into ours, so the lists stay cumulative across
/// compactions whoever wrote them.
pub fn carried_files(previous: Option<&PreviousCompaction>) -> FileOps {
    match previous {
        Some(p) if p.from_hook => FileOps {
            read: p.read_files.clone().unwrap_or_default(),
            written: Vec::new(),
            edited: p.modified_files.clone().unwrap_or_default(),
        },
        _ => FileOps::default(),
    }
}

/// pi's `computeFileLists` over `ops` plus what [`carried_files`] adds: modified = edited ∪ written, read =
/// read − modified, both sorted by UTF-16 code units (JavaScript's default sort) without repeats.
pub fn compaction_files(ops: &FileOps, previous: Option<&PreviousCompaction>) -> FileLists {
    let carried = carried_files(previous);
    let mut modified: Vec<String> = ops.edited.iter().chain(&ops.written).chain(&carried.edited).cloned().collect();
    crate::js::sort_js_strings(&mut modified);
    let mut read: Vec<String> = ops.read.iter().chain(&carried.read).filter(|f| !modified.contains(f)).cloned().collect();
    crate::js::sort_js_strings(&mut read);
    FileLists { read_files: read, modified_files: modified }
}


/// What the summary is made of.
#[derive(Debug, Clone, Default, PartialEq, Tsify)]
#[serde(rename_all = "camelCase", default)]
pub struct SummaryParts {
    /// The model's reply.
    pub reply: String,
    /// The range the instruction named.
    pub range: CompactionRange,
    /// pi's previous summary (`preparation.previousSummary`).
    #[tsify(optional)]
    pub previous_summary: Option<String>,
    /// The ledger's bound in tokens (0: none; absent: the default).
    #[tsify(optional)]
    pub ledger_tokens: Option<u32>,
}

impl SummaryParts {
    /// The parts from the shim's `{reply, range, previousSummary, ledgerTokens}`.
    pub fn from_json(v: &Value) -> Self {
        SummaryParts {
            reply: text(v, "reply").unwrap_or_default(),
            range: field(v, "range").map(CompactionRange::from_json).unwrap_or_default(),
            previous_summary: text(v, "previousSummary"),
            ledger_tokens: count(v, "ledgerTokens"),
        }
    }
}

/// What pi stores for a compaction, and what its ledger cost.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct CompactionResult {
    /// The summary (see [`compaction_summary`]).
    pub summary: String,
    /// `details` as pi's own compaction stores them.
    pub details: FileLists,
    /// The ledger's size by pi's estimate (0: none).
    pub ledger_tokens: f64,
}

/// The compaction pi stores: the checkpoint from `parts`, the ledger of `span` (the entries the compaction
/// removes, oldest first, as pi holds them: [`crate::session::SessionIndex::compaction_span`]) made by the
/// rewinds' rules (`crate::tool::ledger`) under the running pi's `profile`, and pi's file lists from `ops`
/// and the previous compaction. The ledger names no recall of the whole span: its items' entries stay in
/// the session, and `recall` reads any of them by id.
pub fn compaction_result(parts: &SummaryParts, ops: &FileOps, previous: Option<&PreviousCompaction>, span: &[Option<String>], profile: Profile) -> CompactionResult {
    let budget = parts.ledger_tokens.unwrap_or(crate::config::DEFAULT_LEDGER_TOKENS);
    let ledger = crate::tool::ledger(span, LedgerOptions { budget_tokens: budget, profile, recall_name: None });
    let details = compaction_files(ops, previous);
    CompactionResult { summary: compaction_summary(parts, &ledger.text, &details), details, ledger_tokens: ledger.tokens }
}

/// The summary pi stores, in pi's own layout: the checkpoint (for a split turn with no history before it,
/// the previous summary or "No prior history." then pi's `---` / turn-context heading and the turn's
/// checkpoint), then the `ledger`, then pi's `<read-files>` / `<modified-files>` lists.
pub fn compaction_summary(parts: &SummaryParts, ledger: &str, files: &FileLists) -> String {
    let reply = parts.reply.trim();
    let mut out = if parts.range.history_count == 0 && parts.range.prefix_count > 0 {
        let history = parts.previous_summary.as_deref().unwrap_or("No prior history.");
        format!("{history}\n\n---\n\n{TURN_HEADING}\n\n{reply}")
    } else {
        reply.to_string()
    };
    if !ledger.trim().is_empty() {
        out += "\n\n";
        out += ledger.trim_end();
    }
    out += &format_file_operations(files);
    out
}

/// pi's `formatFileOperations`.
fn format_file_operations(files: &FileLists) -> String {
    let mut sections = Vec::new();
    if !files.read_files.is_empty() {
        sections.push(format!("<read-files>\n{}\n</read-files>", files.read_files.join("\n")));
    }
    if !files.modified_files.is_empty() {
        sections.push(format!("<modified-files>\n{}\n</modified-files>", files.modified_files.join("\n")));
    }
    if sections.is_empty() {
        String::new()
    } else {
        format!("\n\n{}", sections.join("\n\n"))
    }
}

// ── What the user sees ───────────────────────────────────────────────────────────────────────────────

/// One line for pi's UI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct Notice {
    /// The text.
    pub text: String,
    /// `"info"` (pi's dim status line) or `"warning"`.
    pub level: &'static str,
}

/// What the user sees after a compaction, as for rewinds: always one line saying whether the summary came
/// from the prompt cache (or why not); with pi's `showCacheMissNotices` on, the rewinds' cache-miss line when
/// it did not, with the prompt tokens billed outside the cache. Nothing when the feature is turned off.
/// `outcome`: how the summary was written, in the rewinds' `summaryCache` shape.
pub fn compaction_notices(outcome: &SummaryCache, show_misses: bool) -> Vec<Notice> {
    let reason = outcome.reason.as_deref();
    let live = outcome.mode == "live-prefix";
    if !live && reason == Some(CompactionFallback::Disabled.name()) {
        return Vec::new();
    }
    let headline = if outcome.hit() {
        match outcome.cache_read.filter(|n| n.is_finite()) {
            Some(read) => format!(
                "tree-navigator: compaction summary from the prompt cache ({} of {} prompt tokens read from the cache)",
                format_tokens(read),
                format_tokens(read + outcome.uncached().unwrap_or(0.0))
            ),
            None => "tree-navigator: compaction summary from the prompt cache".to_string(),
        }
    } else if live {
        "tree-navigator: compaction summary from the live request, but the provider read nothing from its cache".to_string()
    } else {
        format!("tree-navigator: compaction summary by pi's own request, cold ({})", reason.unwrap_or("unknown"))
    };
    let mut out = vec![Notice { text: headline, level: "info" }];
    if let Some(line) = outcome.miss_line("compaction").filter(|_| show_misses) {
        out.push(Notice { text: line, level: "warning" });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> CompactionFacts {
        CompactionFacts {
            enabled: true,
            has_capture: true,
            has_stream: true,
            same_model: true,
            capture_is_prefix: true,
            range_found: true,
            live_request_overflowed: false,
            capture_tokens: Some(180_000.0),
            tokens_before: 185_000.0,
            added_chars: 4_000.0,
            context_window: 200_000.0,
            max_tokens: 64_000.0,
            stream_failed: false,
        }
    }

    #[test]
    fn the_live_prefix_gets_the_room_below_the_window() {
        // 180k counted + 1k added: 19k of room, below the model's 64k.
        assert_eq!(compaction_mode(&facts()), CompactionMode { mode: "live-prefix", reason: None, max_tokens: Some(19_000.0) });
        // A model with a smaller output limit keeps it.
        let m = compaction_mode(&CompactionFacts { max_tokens: 8_192.0, ..facts() });
        assert_eq!(m.max_tokens, Some(8_192.0));
        // Unknown window and output limit: no limit to ask for.
        let m = compaction_mode(&CompactionFacts { context_window: 0.0, max_tokens: 0.0, ..facts() });
        assert_eq!((m.mode, m.max_tokens), ("live-prefix", None));
    }

    #[test]
    fn every_fallback_has_its_reason_and_the_first_obstacle_is_named() {
        let cases: Vec<(CompactionFacts, CompactionFallback)> = vec![
            (CompactionFacts { enabled: false, ..facts() }, CompactionFallback::Disabled),
            (CompactionFacts { has_capture: false, ..facts() }, CompactionFallback::NoCapture),
            (CompactionFacts { has_stream: false, ..facts() }, CompactionFallback::NoStream),
            (CompactionFacts { same_model: false, ..facts() }, CompactionFallback::ModelChanged),
            (CompactionFacts { capture_is_prefix: false, ..facts() }, CompactionFallback::StaleCapture),
            (CompactionFacts { range_found: false, ..facts() }, CompactionFallback::Unaligned),
            (CompactionFacts { live_request_overflowed: true, ..facts() }, CompactionFallback::Overflow),
            (CompactionFacts { capture_tokens: Some(192_000.0), ..facts() }, CompactionFallback::Overflow),
            (CompactionFacts { stream_failed: true, ..facts() }, CompactionFallback::Failed),
            (CompactionFacts { enabled: false, has_capture: false, ..facts() }, CompactionFallback::Disabled),
            (CompactionFacts { has_capture: false, has_stream: false, ..facts() }, CompactionFallback::NoCapture),
        ];
        for (f, reason) in cases {
            let m = compaction_mode(&f);
            assert_eq!((m.mode, m.reason, m.max_tokens), ("fallback", Some(reason), None), "{f:?}");
        }
        assert_eq!(serde_json::to_string(&CompactionFallback::StaleCapture).unwrap(), "\"stale-capture\"");
        assert_eq!(CompactionFallback::NoCapture.name(), "no-capture");
    }

    #[test]
    fn the_prompt_is_the_providers_count_plus_what_is_added_else_pis_estimate() {
        // Exactly the reserve left: fits.
        let edge = CompactionFacts { capture_tokens: Some(200_000.0 - COMPACTION_OUTPUT_RESERVE - 1_000.0), ..facts() };
        assert_eq!(compaction_prompt_tokens(&edge), 200_000.0 - COMPACTION_OUTPUT_RESERVE);
        assert_eq!(compaction_mode(&edge).mode, "live-prefix");
        let over = CompactionFacts { added_chars: 4_001.0, ..edge };
        assert_eq!(compaction_mode(&over).reason, Some(CompactionFallback::Overflow));
        // No count (a reply without usage): pi's tokensBefore, which already holds what followed.
        let est = CompactionFacts { capture_tokens: None, ..facts() };
        assert_eq!(compaction_prompt_tokens(&est), 186_000.0);
        assert_eq!(compaction_mode(&est).max_tokens, Some(14_000.0));
        assert_eq!(compaction_prompt_tokens(&CompactionFacts { capture_tokens: Some(0.0), ..facts() }), 186_000.0);
    }

    fn range(prev: Option<u32>, first: u32, history: u32, prefix: u32, count: u32) -> CompactionRange {
        CompactionRange { previous_summary_at: prev, history_first: first, history_count: history, prefix_count: prefix, message_count: count, custom_instructions: None }
    }

    #[test]
    fn the_instruction_names_the_range_and_carries_pis_format() {
        let i = compaction_instruction(&range(None, 1, 12, 0, 20));
        assert!(i.starts_with("Stop the task here: do not continue the work and do not call tools."), "{i}");
        assert!(i.contains("messages 1 to 12 (counting from 1, system prompt excluded) will be replaced by what you write now; messages 13 to 20 stay as they are after it."), "{i}");
        assert!(i.contains("Create a structured context checkpoint summary of messages 1 to 12"), "{i}");
        for section in ["## Goal", "## Constraints & Preferences", "### Done", "### In Progress", "### Blocked", "## Key Decisions", "## Next Steps", "## Critical Context"] {
            assert!(i.contains(section), "{section}");
        }
        assert!(!i.contains("Turn Context") && !i.contains("Additional focus"), "{i}");
        assert!(i.ends_with("Preserve exact file paths, function names, and error messages."), "{i}");
    }

    #[test]
    fn the_instruction_updates_a_previous_summary() {
        let i = compaction_instruction(&range(Some(1), 2, 6, 0, 7));
        assert!(i.contains("messages 2 to 7 (counting"), "{i}");
        assert!(i.contains("Message 1 is the summary of an earlier compaction; messages 2 to 7 are NEW messages"), "{i}");
        assert!(i.contains("PRESERVE all existing information from the previous summary"), "{i}");
        assert!(i.contains("[Preserve existing goals, add new ones if the task expanded]"), "{i}");
        assert!(!i.contains("stay as they are"), "nothing kept after the range: {i}");
    }

    #[test]
    fn the_instruction_asks_for_a_split_turns_checkpoint() {
        let both = compaction_instruction(&range(None, 1, 4, 3, 9));
        assert!(both.contains("messages 1 to 7 (counting"), "{both}");
        assert!(both.contains("summary of messages 1 to 4"), "{both}");
        assert!(both.contains("Messages 5 to 7 are the start of the turn still in progress"), "{both}");
        assert!(both.contains("write a line `---`, then the line `**Turn Context (split turn):**`"), "{both}");
        assert!(both.contains("## Original Request") && both.contains("## Context Needed to Continue"), "{both}");
        let only = compaction_instruction(&CompactionRange { custom_instructions: Some("keep the parser plan".into()), ..range(Some(1), 2, 0, 5, 8) });
        assert!(only.contains("messages 2 to 6 (counting"), "{only}");
        assert!(only.contains("Create a concise checkpoint of the user's request and the progress in messages 2 to 6"), "{only}");
        assert!(!only.contains("## Goal"), "{only}");
        assert!(only.ends_with("\n\nAdditional focus: keep the parser plan"), "{only}");
    }

    #[test]
    fn replies_are_judged_and_an_abort_is_never_a_fallback() {
        let r = |stop_reason: Option<&'static str>, text: &'static str, tool_call, aborted| CompactionReply { stop_reason, text, tool_call, aborted };
        assert_eq!(reply_verdict(&r(Some("stop"), "## Goal\nx", false, false)), ReplyVerdict::Summary);
        assert_eq!(reply_verdict(&r(Some("stop"), "  \n", false, false)), ReplyVerdict::Fallback);
        assert_eq!(reply_verdict(&r(Some("error"), "partial", false, false)), ReplyVerdict::Fallback);
        assert_eq!(reply_verdict(&r(Some("length"), "## Goal\ncut", false, false)), ReplyVerdict::Fallback);
        assert_eq!(reply_verdict(&r(Some("toolUse"), "text", true, false)), ReplyVerdict::Fallback);
        assert_eq!(reply_verdict(&r(Some("stop"), "text", true, false)), ReplyVerdict::Fallback);
        assert_eq!(reply_verdict(&r(None, "", false, false)), ReplyVerdict::Fallback, "the request threw");
        assert_eq!(reply_verdict(&r(Some("aborted"), "", false, true)), ReplyVerdict::Cancel);
        assert_eq!(reply_verdict(&r(Some("stop"), "## Goal\nx", false, true)), ReplyVerdict::Cancel, "Esc after the reply still cancels");
        assert_eq!(reply_verdict(&r(None, "", false, true)), ReplyVerdict::Cancel);
        // pi-ai says `aborted` without the signal: not the user's; pi's own compaction follows.
        assert_eq!(reply_verdict(&r(Some("aborted"), "", false, false)), ReplyVerdict::Fallback);
        assert_eq!([ReplyVerdict::Summary, ReplyVerdict::Cancel, ReplyVerdict::Fallback].map(ReplyVerdict::name), ["summary", "cancel", "fallback"]);
    }

    #[test]
    fn file_lists_are_pis_and_carry_an_extensions_previous_lists() {
        let ops = FileOps { read: vec!["src/b.rs".into(), "src/a.rs".into(), "z".into()], written: vec!["out.txt".into()], edited: vec!["src/a.rs".into()] };
        let own = compaction_files(&ops, None);
        assert_eq!(own, FileLists { read_files: vec!["src/b.rs".into(), "z".into()], modified_files: vec!["out.txt".into(), "src/a.rs".into()] });
        // pi carries its own compaction's lists itself (they are in `ops` already): nothing added.
        let pis = PreviousCompaction { from_hook: false, read_files: Some(vec!["old.rs".into()]), modified_files: None };
        assert_eq!(compaction_files(&ops, Some(&pis)), own);
        assert_eq!(carried_files(Some(&pis)), FileOps::default());
        // An extension's (ours included): pi would drop them, so they are carried.
        let hook = PreviousCompaction { from_hook: true, read_files: Some(vec!["old.rs".into(), "z".into()]), modified_files: Some(vec!["src/b.rs".into()]) };
        let carried = compaction_files(&ops, Some(&hook));
        assert_eq!(carried.read_files, vec!["old.rs".to_string(), "z".into()]);
        assert_eq!(carried.modified_files, vec!["out.txt".to_string(), "src/a.rs".into(), "src/b.rs".into()]);
        assert_eq!(carried_files(Some(&hook)).edited, vec!["src/b.rs".to_string()]);
        assert_eq!(carried_files(None), FileOps::default());
    }

    #[test]
    fn files_sort_as_javascript_sorts_strings() {
        // U+FF5E (one UTF-16 unit, 0xFF5E) sorts after U+1F600 (surrogates 0xD83D…) in JavaScript; by UTF-8
        // bytes it would come first.
        let ops = FileOps { read: vec!["\u{FF5E}".into(), "\u{1F600}".into(), "a".into(), "a".into()], ..FileOps::default() };
        assert_eq!(compaction_files(&ops, None).read_files, vec!["a".to_string(), "\u{1F600}".into(), "\u{FF5E}".into()]);
    }

    #[test]
    fn the_summary_is_in_pis_layout() {
        let files = FileLists { read_files: vec!["a.rs".into()], modified_files: vec!["b.rs".into()] };
        let parts = SummaryParts { reply: "\n## Goal\nparse\n".into(), range: range(None, 1, 3, 0, 5), previous_summary: None, ledger_tokens: None };
        assert_eq!(compaction_summary(&parts, "", &files), "## Goal\nparse\n\n<read-files>\na.rs\n</read-files>\n\n<modified-files>\nb.rs\n</modified-files>");
        assert_eq!(compaction_summary(&parts, "", &FileLists::default()), "## Goal\nparse");
        // A split turn with nothing before it: pi's "No prior history." (or the previous summary) first.
        let turn = SummaryParts { reply: "## Original Request\nx".into(), range: range(None, 1, 0, 4, 6), ..parts.clone() };
        assert_eq!(compaction_summary(&turn, "", &FileLists::default()), "No prior history.\n\n---\n\n**Turn Context (split turn):**\n\n## Original Request\nx");
        let prev = SummaryParts { previous_summary: Some("## Goal\nold".into()), ..turn };
        assert!(compaction_summary(&prev, "", &FileLists::default()).starts_with("## Goal\nold\n\n---\n\n**Turn Context"));
        // The ledger goes between the checkpoint and the file lists.
        assert_eq!(compaction_summary(&parts, "<ledger>\n- x\n</ledger>\n", &files), "## Goal\nparse\n\n<ledger>\n- x\n</ledger>\n\n<read-files>\na.rs\n</read-files>\n\n<modified-files>\nb.rs\n</modified-files>");
    }

    #[test]
    fn notices_follow_the_rewinds_convention() {
        let live = SummaryCache { mode: "live-prefix".into(), reason: None, cache_read: Some(182_400.0), input: Some(700.0), cache_write: Some(0.0) };
        let n = compaction_notices(&live, true);
        assert_eq!(n, vec![Notice { text: "tree-navigator: compaction summary from the prompt cache (182.4k of 183.1k prompt tokens read from the cache)".into(), level: "info" }]);
        let cold = SummaryCache { mode: "fallback".into(), reason: Some("no-capture".into()), cache_read: Some(0.0), input: Some(150_000.0), cache_write: None };
        assert_eq!(compaction_notices(&cold, false), vec![Notice { text: "tree-navigator: compaction summary by pi's own request, cold (no-capture)".into(), level: "info" }]);
        let with = compaction_notices(&cold, true);
        assert_eq!(with.len(), 2);
        assert_eq!(with[1], Notice { text: "cache miss: the compaction's summary was written cold (no-capture): 150.0k prompt tokens not read from the cache".into(), level: "warning" });
        // Sent live but nothing read: said, and a miss.
        let missed = SummaryCache { cache_read: Some(0.0), ..live };
        let n = compaction_notices(&missed, true);
        assert!(n[0].text.contains("read nothing from its cache") && n[1].text.ends_with("read nothing from the prompt cache: 700 prompt tokens not read from the cache"), "{n:?}");
        // Turned off: silent.
        assert!(compaction_notices(&SummaryCache { mode: "fallback".into(), reason: Some("disabled".into()), ..SummaryCache::default() }, true).is_empty());
    }
}

#[cfg(test)]
mod ledger_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_ledger_of_what_the_compaction_removes_goes_under_the_checkpoint() {
        let span: Vec<Option<String>> = [
            json!({"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"fix src/parser.rs, keep the API","timestamp":1}}),
            json!({"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"src/parser.rs"}}],"provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2},"stopReason":"toolUse","timestamp":2}}),
            json!({"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"fn parse() {}"}],"isError":false,"timestamp":3}}),
        ]
        .iter()
        .map(|v| Some(v.to_string()))
        .collect();
        let parts = SummaryParts { reply: "## Goal\nfix the parser".into(), range: CompactionRange { history_first: 1, history_count: 3, message_count: 3, ..CompactionRange::default() }, previous_summary: None, ledger_tokens: None };
        let ops = FileOps { read: vec!["src/parser.rs".into()], ..FileOps::default() };
        let r = compaction_result(&parts, &ops, None, &span, Profile::Pi087);
        let ledger_at = r.summary.find("<ledger>").expect("a ledger");
        assert!(r.summary.starts_with("## Goal\nfix the parser\n\n<ledger>"), "{}", r.summary);
        assert!(r.summary[ledger_at..].contains("[u1] fix src/parser.rs, keep the API"), "{}", r.summary);
        assert!(r.summary.ends_with("</ledger>\n\n<read-files>\nsrc/parser.rs\n</read-files>"), "{}", r.summary);
        assert!(r.ledger_tokens > 0.0);
        assert_eq!(r.details.read_files, vec!["src/parser.rs".to_string()]);
        // Off: the checkpoint and pi's lists only.
        let off = compaction_result(&SummaryParts { ledger_tokens: Some(0), ..parts }, &ops, None, &span, Profile::Pi087);
        assert_eq!(off.summary, "## Goal\nfix the parser\n\n<read-files>\nsrc/parser.rs\n</read-files>");
        assert_eq!(off.ledger_tokens, 0.0);
    }
}

#[cfg(test)]
mod reading_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_shims_objects_are_read_field_by_field() {
        let f = CompactionFacts::from_json(&json!({"enabled": true, "hasCapture": true, "hasStream": true, "captureIsPrefix": true,
            "rangeFound": true, "captureTokens": 1000, "tokensBefore": 1200, "addedChars": 40, "contextWindow": 200_000, "maxTokens": null}));
        assert!(f.enabled && f.has_capture && f.has_stream && f.same_model && f.capture_is_prefix && f.range_found);
        assert!(!f.live_request_overflowed && !f.stream_failed);
        assert_eq!((f.capture_tokens, f.tokens_before, f.added_chars, f.context_window, f.max_tokens), (Some(1000.0), 1200.0, 40.0, 200_000.0, 0.0));
        // Nothing said: every fallback's fact is "no" (disabled first), but the model is the same.
        let none = CompactionFacts::from_json(&json!({}));
        assert!(!none.enabled && none.same_model);
        assert_eq!(compaction_mode(&none).reason, Some(CompactionFallback::Disabled));
        // Mistyped fields read as absent.
        assert!(!CompactionFacts::from_json(&json!({"enabled": "yes"})).enabled);
        let parts = SummaryParts::from_json(&json!({"reply": "## Goal", "previousSummary": null, "ledgerTokens": 600,
            "range": {"previousSummaryAt": 1, "historyFirst": 2, "historyCount": 3, "prefixCount": 0, "messageCount": 9, "customInstructions": "focus"}}));
        assert_eq!(parts.range, CompactionRange { previous_summary_at: Some(1), history_first: 2, history_count: 3, prefix_count: 0, message_count: 9, custom_instructions: Some("focus".into()) });
        assert_eq!((parts.reply.as_str(), parts.previous_summary, parts.ledger_tokens), ("## Goal", None, Some(600)));
        assert_eq!(SummaryParts::from_json(&json!({"ledgerTokens": 0})).ledger_tokens, Some(0));
        assert_eq!(SummaryParts::from_json(&json!({"ledgerTokens": -1})).ledger_tokens, None);
        assert_eq!(FileOps::from_json(&json!({"read": ["a", 1, "b"], "edited": ["c"]})), FileOps { read: vec!["a".into(), "b".into()], written: vec![], edited: vec!["c".into()] });
        let p = PreviousCompaction::from_json(&json!({"fromHook": true, "readFiles": ["x"]}));
        assert_eq!(p, PreviousCompaction { from_hook: true, read_files: Some(vec!["x".into()]), modified_files: None });
    }
}
