//! What one `navigate_tree` call does, decided from the session index and a few facts from the host.
//!
//! A call in flight is always the leaf's assistant message (pi appends it before running its tools; docs/hosts.md,
//! "When pi stores the in-flight call"), or the nearest assistant above what earlier calls of the same message
//! appended (their results, labels, `context_edit`s). Two consequences shape the decisions:
//! - an anchor labels the entry *before* that message, the last point where every tool call has its
//!   result, so a later rewind to it never leaves a call without a result on the new path;
//! - "before" numbers are taken at that same point, and a rewind's collapsed entries are exactly what
//!   pi's `collectEntriesForBranchSummary(sm, leaf, target)` returns.

use serde::{Deserialize, Serialize};
use tsify_next::Tsify;

use crate::error::SessionError;
use crate::js::utf16_len;
use crate::session::{cumulative, path_points, Anchor, Kind, Leaf, RoleKind, SessionIndex, Slot};
use crate::text::{format_list, is_valid_name, ListRow, ANCHOR_PREFIX};

use super::facts::{lenient, ToolFacts, ModelFacts};
use super::number::js_number;
use super::params::{name_problem, wrong_type, Action, Arguments, Params};
use super::collapsed::is_synthetic;
use super::recall::{self, RecallPlan};
use super::refusal::Refusal;
use super::saving::{self, RewindSaving};
use super::summary::{compose as compose_summary, SummaryAnswer, SummaryFacts, SummaryResult};
use super::synthetic::{synthetic_assistant, KeptArguments, SyntheticAssistant};
use super::texts::{self, RefusalCode};

/// Shortest `summaryFocus` accepted, in characters after trimming.
pub const MIN_FOCUS_CHARS: usize = 20;
/// Longest `summaryFocus` accepted, in UTF-16 units: the focus goes whole into the summary request, so a
/// runaway one (a pasted file, a megabyte of text) would crowd out the very work it should summarize.
pub const MAX_FOCUS_CHARS: usize = 100_000;
/// A rewind must free at least this many estimated tokens; smaller ones cost a summary for nothing.
pub const MIN_SAVED_TOKENS: f64 = 4000.0;
/// Preview length in the anchor response.
const ANCHOR_HINT_MAX: usize = 60;

/// What a `navigate_tree` call does (see [`plan`]). Crosses as `{kind: "refuse" | "list" | "anchor" |
/// "rewind" | "recall", …}`.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[allow(clippy::large_enum_variant, reason = "one plan per tool call, handed over at once")]
pub enum ToolPlan {
    /// Report `text` as a failed tool result; nothing is written.
    Refuse(Refusal),
    /// Just the text.
    List(ListPlan),
    /// Write `label` on `entryId`, then clear it from `moveFrom`.
    Anchor(AnchorPlan),
    /// Summarize, branch, then [`finish`].
    Rewind(RewindPlan),
    /// Hand over the entries `entryIds` as pi holds them, then [`super::recall_page`].
    Recall(RecallPlan),
}

/// `list`: the text and its numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
pub struct ListPlan {
    /// What the model reads.
    pub text: String,
    /// The same as data (the tool result's `details`).
    pub details: ListDetails,
}

/// `list`'s details.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ListDetails {
    /// Anchors on the active branch.
    pub count: u32,
    /// The estimate at the leaf.
    #[serde(serialize_with = "js_number")]
    pub context_tokens: f64,
    /// The model's context window (0: unknown).
    #[serde(serialize_with = "js_number")]
    pub context_window: f64,
    /// The anchors, root → leaf.
    pub anchors: Vec<AnchorRow>,
    /// Whether a rewind made now reaches the next request.
    pub refresh_reaches: bool,
}

/// One anchor of `list`.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct AnchorRow {
    /// The name without `anchor:`.
    pub name: String,
    /// The labelled entry.
    pub entry_id: String,
    /// The estimate with that entry as leaf.
    #[serde(serialize_with = "js_number")]
    pub tokens: f64,
    /// A preview of the text the anchor follows.
    pub hint: Option<String>,
}

/// `anchor`: the label write (and the clear of its earlier position).
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct AnchorPlan {
    /// The entry to label.
    pub entry_id: String,
    /// `anchor:<name>`.
    pub label: String,
    /// The entry that held the label on the active branch before (clear it after writing), or `null`.
    pub move_from: Option<String>,
    /// What the model reads.
    pub text: String,
    /// The tool result's `details`.
    pub details: AnchorDetails,
}

/// `anchor`'s details.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct AnchorDetails {
    /// The name without `anchor:`.
    pub name: String,
    /// The labelled entry.
    pub entry_id: String,
    /// The estimate at that entry.
    #[serde(serialize_with = "js_number")]
    pub context_tokens: f64,
    /// The model's context window (0: unknown).
    #[serde(serialize_with = "js_number")]
    pub context_window: f64,
    /// A preview of the text the anchor follows.
    pub hint: Option<String>,
    /// Where the label was before, or `null`.
    pub moved_from: Option<String>,
}

/// `rewind`, first half: what to summarize and where to branch.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct RewindPlan {
    /// The anchored entry to branch from (`branchWithSummary(targetId, summary)`).
    pub target_id: String,
    /// The anchor gone back to.
    pub label_start: String,
    /// The name of the summary's new anchor.
    pub label_end: String,
    /// The entries to summarize, oldest first (pi's `collectEntriesForBranchSummary`).
    pub summarize_ids: Vec<String>,
    /// The whole focus, as `customInstructions` for the summarizer.
    pub focus: String,
    /// The estimate the model last saw.
    #[serde(serialize_with = "js_number")]
    pub before_tokens: f64,
    /// The model's context window (0: unknown).
    #[serde(serialize_with = "js_number")]
    pub context_window: f64,
    /// The in-flight call.
    pub call_id: String,
    /// The call's arguments as the synthetic call keeps them.
    #[tsify(type = "Record<string, unknown>")]
    pub arguments: KeptArguments,
    /// The model recorded on the synthetic call.
    pub model: Option<ModelFacts>,
    /// Whether the rewind reaches the next request.
    pub refresh_reaches: bool,
    /// The synthetic assistant that repairs the chain if a step after `branchWithSummary` fails before
    /// [`finish`] could run.
    pub fallback_synthetic: SyntheticAssistant,
    /// What the summary written for this plan held (`compose_summary`), for [`finish`]; stays in the index.
    #[serde(skip)]
    pub held: SummaryFacts,
    /// What the rewind removes (its summary not written yet), for [`summarize`] and [`finish`].
    #[serde(skip)]
    pub saving: RewindSaving,
}

/// A label change for `pi.setLabel` (`label: null` clears).
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct LabelWrite {
    /// The entry.
    pub entry_id: String,
    /// The new label, or `null` to clear.
    pub label: Option<String>,
}

/// `rewind`, second half: label writes in order, then the synthetic assistant, then the response.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct RewindFinish {
    /// Set the new anchor on the summary, then clear its older position (if any).
    pub labels: Vec<LabelWrite>,
    /// Append after the labels.
    pub synthetic: SyntheticAssistant,
    /// The context after the rewind: `beforeTokens` less the saving (what the next request carries).
    #[serde(serialize_with = "js_number")]
    pub after_tokens: f64,
    /// What the model reads.
    pub text: String,
    /// The tool result's `details`.
    pub details: RewindDetails,
}

/// The rewind's details.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct RewindDetails {
    /// The anchor gone back to.
    pub label_start: String,
    /// The summary's new anchor.
    pub label_end: String,
    /// The anchored entry branched from.
    pub target_id: String,
    /// The new branch summary.
    pub summary_id: String,
    /// How many entries were summarized.
    pub collapsed_entries: u32,
    /// The estimate before.
    #[serde(serialize_with = "js_number")]
    pub context_before: f64,
    /// The context after: `contextBefore` less the saving (what the next request carries).
    #[serde(serialize_with = "js_number")]
    pub context_after: f64,
    /// The model's context window (0: unknown).
    #[serde(serialize_with = "js_number")]
    pub context_window: f64,
    /// Whether the rewind reaches the next request.
    pub refresh_reaches: bool,
    /// The ledger under the summary: its size in tokens (0: none).
    #[serde(serialize_with = "js_number")]
    pub ledger_tokens: f64,
    /// The facts it lists.
    pub ledger_items: u32,
    /// Whether the summarizer's reply stopped at the output limit.
    pub summary_cut: bool,
    /// What the rewind saved (`tool::saving`), its fields beside these: `removedTokens`, `summaryTokens`,
    /// `savedTokens` (`contextBefore − contextAfter`, but where that would go below 0) and `baselineChanged`.
    #[serde(flatten)]
    pub saving: RewindSaving,
}

/// The refuse plan. Takes the text by value: each refusal builds its own.
fn refuse(code: RefusalCode, text: String) -> ToolPlan {
    ToolPlan::Refuse(Refusal { code, text, saved_tokens: None })
}

/// The anchors on the active branch as refusals list them (see `texts::anchor_rows`).
#[inline(never)]
fn rows_here(index: &mut SessionIndex, window: f64) -> Result<String, SessionError> {
    Ok(texts::anchor_rows(&index.anchors(Leaf::Current)?, window))
}

fn full_label(name: &str) -> String {
    format!("{ANCHOR_PREFIX}{name}")
}

/// The assistant message carrying call `call_id`: the leaf, or — when calls of the same message ran
/// before this one — the nearest assistant above the leaf past their results, labels and `context_edit`s.
///
/// Its tool calls are read as stored, also when a `context_edit` replaced its content: pi runs the calls of
/// the message it streamed (pi-agent-core's `executeToolCalls` takes them from that object, which an edit
/// never changes), and an edit after the message is in force only on paths through the edit, never at
/// the anchor or rewind target before the message.
fn in_flight(index: &mut SessionIndex, call_id: &str) -> Option<Slot> {
    let mut cur = index.leaf();
    // A walk longer than the index means the parent links loop (a hostile file): no call is in flight.
    let mut steps = index.len();
    while let Some(slot) = cur {
        if steps == 0 {
            return None;
        }
        steps -= 1;
        let entry = index.entry(slot);
        if let Some(info) = entry.assistant() {
            return info.tool_calls().any(|(id, _)| id == call_id).then_some(slot);
        }
        if !matches!(entry.kind(), Kind::Message(RoleKind::ToolResult) | Kind::Label | Kind::ContextEdit) {
            return None;
        }
        cur = index.parent_of(slot);
    }
    None
}

/// Decides what a call does, from the call's arguments and the host's facts:
/// - [`ToolPlan::Refuse`]: report the text as a failed tool result; nothing is written;
/// - [`ToolPlan::List`]: just the text;
/// - [`ToolPlan::Anchor`]: write `label` on `entryId`, then clear it from `moveFrom` (the entry that held it on
///   the active branch before, or `null`);
/// - [`ToolPlan::Rewind`]: summarize `summarizeIds` (oldest first, pi's `collectEntriesForBranchSummary`) with
///   `focus` as `customInstructions`, then `branchWithSummary(targetId, summary)` and [`finish`] with this
///   same plan (the binding keeps it: the shim does not send it back).
///
/// # Errors
/// Only when the index itself is inconsistent (a parent cycle); every bad input becomes a refusal.
pub fn plan(index: &mut SessionIndex, arguments: &Arguments, facts: &ToolFacts) -> Result<ToolPlan, SessionError> {
    let params = Params::from_arguments(arguments);
    match params.action {
        None => Ok(refuse(RefusalCode::InvalidAction, texts::invalid_action())),
        Some(Action::List) => list(index, facts),
        Some(Action::Anchor) => anchor(index, &params, facts),
        Some(Action::Rewind) => rewind(index, &params, facts),
        Some(Action::Recall) => Ok(match recall::plan(index, &params, facts)? {
            Ok(plan) => ToolPlan::Recall(plan),
            Err(refusal) => ToolPlan::Refuse(refusal),
        }),
    }
}

/// The refusal for arguments that cannot be read at all (`problem` says why: nested too deeply, a
/// value JSON has no form for), so a call with absurd arguments gets an answer instead of an error.
pub fn unreadable(problem: &str) -> ToolPlan {
    refuse(RefusalCode::InvalidArguments, texts::unreadable_arguments(problem))
}

fn warning(facts_reach: bool) -> Option<&'static str> {
    (!facts_reach).then_some(texts::REFRESH_MISSING)
}

/// `list`'s warning: no rewind happened, so it speaks of one made later.
fn list_warning(facts_reach: bool) -> Option<&'static str> {
    (!facts_reach).then_some(texts::REFRESH_MISSING_LIST)
}

fn list(index: &mut SessionIndex, facts: &ToolFacts) -> Result<ToolPlan, SessionError> {
    let (anchors, estimate) = index.anchors_and_estimate(Leaf::Current)?;
    let current = estimate.tokens;
    let rows: Vec<ListRow<'_>> = anchors.iter().map(Anchor::row).collect();
    let text = format_list(&rows, current, facts.context_window, list_warning(facts.refresh_reaches));
    let anchors = anchors
        .into_iter()
        .map(|a| AnchorRow { name: a.name, entry_id: a.entry_id, tokens: a.tokens, hint: a.hint })
        .collect::<Vec<_>>();
    Ok(ToolPlan::List(ListPlan {
        text,
        details: ListDetails {
            count: anchors.len() as u32,
            context_tokens: current,
            context_window: facts.context_window,
            anchors,
            refresh_reaches: facts.refresh_reaches,
        },
    }))
}

/// The refusal for a name parameter that is not a valid anchor name.
fn invalid_name(params: &Params<'_>, key: &str, action: &str) -> ToolPlan {
    let problem = name_problem(params.raw, key);
    refuse(RefusalCode::InvalidName, texts::invalid_name(key, action, problem.as_deref()))
}

fn anchor(index: &mut SessionIndex, params: &Params<'_>, facts: &ToolFacts) -> Result<ToolPlan, SessionError> {
    let Some(name) = params.name.filter(|n| is_valid_name(n)) else {
        return Ok(invalid_name(params, "name", "anchor"));
    };
    let leaf = index.leaf();
    let point = match in_flight(index, &facts.call_id) {
        Some(call) => index.parent_of(call),
        None => leaf,
    };
    let (Some(leaf), Some(point)) = (leaf, point) else {
        return Ok(refuse(RefusalCode::NothingToAnchor, texts::nothing_to_anchor()));
    };
    let label = full_label(name);
    let prior = index.find_label_on_path(&label, Some(leaf))?;
    let path = index.path(Some(point))?;
    let tokens = cumulative(index, &path).last().map_or(0.0, |e| e.tokens);
    // The preview as the next request sends it: after the context edits in force at the leaf.
    let leaf_path = index.path(Some(leaf))?;
    let edits = index.context_edits(&leaf_path);
    let hint = index.hint_from(point, ANCHOR_HINT_MAX, &edits);
    // Ids are borrowed from the index once it is no longer changed.
    let move_from = prior.filter(|&p| p != point).map(|p| index.id_of(p));
    let text = texts::anchor_set(name, tokens, facts.context_window, hint.as_deref(), move_from.is_some());
    let entry_id = index.id_of(point);
    let move_from = move_from.map(String::from);
    Ok(ToolPlan::Anchor(AnchorPlan {
        entry_id: entry_id.into(),
        label,
        move_from: move_from.clone(),
        text,
        details: AnchorDetails {
            name: name.into(),
            entry_id: entry_id.into(),
            context_tokens: tokens,
            context_window: facts.context_window,
            hint,
            moved_from: move_from,
        },
    }))
}

fn rewind(index: &mut SessionIndex, params: &Params<'_>, facts: &ToolFacts) -> Result<ToolPlan, SessionError> {
    let Some(start) = params.label_start.filter(|n| is_valid_name(n)) else {
        return Ok(invalid_name(params, "labelStart", "rewind"));
    };
    let Some(end) = params.label_end.filter(|n| is_valid_name(n)) else {
        return Ok(invalid_name(params, "labelEnd", "rewind"));
    };
    let focus = params.summary_focus.unwrap_or_default();
    let focus_units = utf16_len(focus.trim());
    if focus_units < MIN_FOCUS_CHARS {
        let problem = wrong_type(params.raw, "summaryFocus");
        return Ok(refuse(RefusalCode::FocusTooShort, texts::focus_too_short(problem.as_deref())));
    }
    if focus_units > MAX_FOCUS_CHARS {
        return Ok(refuse(RefusalCode::FocusTooLong, texts::focus_too_long(focus_units)));
    }
    let leaf = index.leaf();
    let label = full_label(start);
    let Some(target) = index.find_label_on_path(&label, leaf)? else {
        let rows = rows_here(index, facts.context_window)?;
        let elsewhere = (0..index.len() as Slot).any(|s| index.label_of(index.id_of(s)) == Some(label.as_str()));
        let text = if elsewhere { texts::anchor_off_path(start, &rows) } else { texts::unknown_anchor(start, &rows) };
        return Ok(refuse(RefusalCode::UnknownAnchor, text));
    };
    let call = in_flight(index, &facts.call_id);
    let (collapsed, _) = index.entries_between(leaf, target)?;
    // The work to collapse is `collapsed` without the call itself (walked in place, not copied).
    if collapsed.iter().all(|&s| Some(s) == call) {
        return Ok(refuse(RefusalCode::AlreadyAtTarget, texts::already_at_target(start)));
    }
    if let Some(code) = only_artifacts(index, &collapsed, call) {
        let text = match code {
            RefusalCode::NothingToCollapse => texts::nothing_to_collapse(start),
            _ => texts::chained_rewind(start),
        };
        return Ok(refuse(code, text));
    }
    // The other calls of the message as stored: the ones pi runs (see `in_flight`), whatever an edit shows.
    if let Some(call) = call {
        let others: Vec<String> = index.entry(call).assistant().map_or_else(Vec::new, |a| {
            a.tool_calls().filter(|(id, _)| *id != facts.call_id).map(|(id, name)| format!("{name} ({id})")).collect()
        });
        if !others.is_empty() {
            return Ok(refuse(RefusalCode::BatchedRewind, texts::batched_rewind(&others.join(", "))));
        }
    }
    let path = index.path(leaf)?;
    let points = path_points(index, &path);
    // "Before" is the context the model last saw: at the parent of the in-flight message.
    let before_at = match call.and_then(|c| path.iter().position(|&s| s == c)) {
        Some(at) => at.saturating_sub(1),
        None => path.len().saturating_sub(1),
    };
    let before = points.get(before_at).map_or(0.0, |p| p.estimate.tokens);
    let target_at = path.iter().position(|&s| s == target).unwrap_or(0);
    // Judged by what it removes (the summary is not written yet; `summarize` judges again with it).
    let saving = saving::between(index, &points, before_at, target_at);
    if saving.saved_tokens < MIN_SAVED_TOKENS {
        return Ok(ToolPlan::Refuse(too_little(index, start, saving.saved_tokens, target, facts.context_window)?));
    }
    let Some(model) = &facts.model else {
        return Ok(refuse(RefusalCode::NoModel, texts::no_model()));
    };
    let arguments = KeptArguments::of(params.raw);
    let fallback_synthetic = synthetic_assistant(&facts.call_id, arguments.clone(), Some(model), 0.0, facts.now_ms);
    Ok(ToolPlan::Rewind(RewindPlan {
        target_id: index.id_of(target).into(),
        label_start: start.into(),
        label_end: end.into(),
        summarize_ids: collapsed.iter().map(|&s| index.id_of(s).into()).collect(),
        focus: focus.into(),
        before_tokens: before,
        context_window: facts.context_window,
        call_id: facts.call_id.clone(),
        arguments,
        model: Some(model.clone()),
        refresh_reaches: facts.refresh_reaches,
        fallback_synthetic,
        held: SummaryFacts::default(),
        saving,
    }))
}

/// The refusal of a rewind to anchor `start` (on `target`) that would free only `saved` tokens, with the
/// anchors to pick from instead.
fn too_little(index: &mut SessionIndex, start: &str, saved: f64, target: Slot, window: f64) -> Result<Refusal, SessionError> {
    let anchors = index.anchors(Leaf::Current)?;
    // Anchors are root → leaf and the target holds one of them: any other first one sits before it.
    let earlier = anchors.first().is_some_and(|a| a.slot != target);
    let rows = texts::anchor_rows(&anchors, window);
    let text = texts::too_little_saved(start, saved, &rows, earlier);
    Ok(Refusal { code: RefusalCode::TooLittleSaved, text, saved_tokens: Some(saved.max(0.0)) })
}

/// `rewind`, the summary: the text for `branchWithSummary` from the summarizer's `result` and the collapsed
/// entries as pi holds them (`compose_summary`), or a refusal — the summarizer's (aborted, failed, empty), or
/// the min-savings guard's once more: now that the summary's weight is known, the rewind must still free
/// [`MIN_SAVED_TOKENS`] after it (`plan.held` keeps what the summary held, for [`finish`]).
///
/// # Errors
/// Only for an inconsistent index (a parent cycle).
pub fn summarize(index: &mut SessionIndex, plan: &mut RewindPlan, result: &SummaryResult, entries: &[Option<String>]) -> Result<SummaryAnswer, SessionError> {
    let (answer, held) = compose_summary(result, entries, index.profile().0, &plan.label_end);
    let SummaryAnswer::Summary(written) = &answer else { return Ok(answer) };
    let saved = plan.saving.with_summary(saving::summary_tokens(&written.summary)).saved_tokens;
    if saved < MIN_SAVED_TOKENS {
        let target = index.slot_of(&plan.target_id).ok_or_else(|| SessionError::UnknownEntry(plan.target_id.clone()))?;
        return Ok(SummaryAnswer::Refuse(too_little(index, &plan.label_start, saved, target, plan.context_window)?));
    }
    plan.held = held;
    Ok(answer)
}

/// `Some(NothingToCollapse)` when the work (`collapsed` but the in-flight `call`) holds no conversation at
/// all, `Some(ChainedRewind)` when its only conversation is what earlier rewinds wrote (their summaries,
/// synthetic calls and those calls' results).
fn only_artifacts(index: &SessionIndex, collapsed: &[Slot], call: Option<Slot>) -> Option<RefusalCode> {
    let mut artifacts = false;
    let mut after_synthetic = false;
    for &s in collapsed.iter().filter(|&&s| Some(s) != call) {
        let entry = index.entry(s);
        match entry.kind() {
            Kind::Message(RoleKind::ToolResult) if after_synthetic => artifacts = true,
            Kind::Message(_) if is_synthetic(index, s) => {
                artifacts = true;
                after_synthetic = true;
            }
            Kind::BranchSummary if entry.emits_message() => artifacts = true,
            Kind::Message(_) | Kind::CustomMessage => return None,
            _ => {}
        }
        if entry.kind() != Kind::Label && !is_synthetic(index, s) {
            after_synthetic = false;
        }
    }
    Some(if artifacts { RefusalCode::ChainedRewind } else { RefusalCode::NothingToCollapse })
}

/// What `getApiKeyAndHeaders` resolved to, as the shim hands it over.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Tsify)]
pub struct AuthResult {
    /// Whether credentials resolved (only `true` counts).
    #[serde(default, deserialize_with = "lenient")]
    #[tsify(optional)]
    pub ok: Option<bool>,
    /// Why not.
    #[serde(default, deserialize_with = "lenient")]
    #[tsify(optional)]
    pub error: Option<String>,
}

/// The refusal for a failed credential lookup, or `None`.
pub fn check_auth(result: &AuthResult) -> Option<Refusal> {
    if result.ok == Some(true) {
        return None;
    }
    let error = result.error.as_deref().unwrap_or("unknown error");
    Some(Refusal { code: RefusalCode::AuthFailed, text: texts::auth_failed(error), saved_tokens: None })
}

/// The error text raised when a host write of a call failed. `step` names what failed:
/// - after the rewind's tree moved and the chain was repaired with the synthetic call: `"branch"`
///   (`branchWithSummary` itself), `"index"` (reading the new entries back), `"labels"` (the anchor labels);
/// - `"unchanged"`: `branchWithSummary` failed before it changed anything;
/// - the rewind was undone (the leaf is back on the call's own message): `"branch-undone"`
///   (`branchWithSummary` failed after moving), `"undone"` (the synthetic call could not be appended);
/// - `anchor`: `"anchor"` (writing the label failed), `"anchor-move"` (the label was written but the old
///   one could not be cleared).
///
/// Anything else reads as a later step of the rewind.
pub fn salvage_text(step: &str, error: &str) -> String {
    texts::salvage(step, error)
}

/// `rewind`, second half. Call after `branchWithSummary` returned `summary_id` and the index was fed the
/// new entry, with the plan [`plan`] made and what its summary held (`held`, from `compose_summary`). The
/// context after is the context before less the saving, the summary's weight read from its entry
/// (`tool::saving`). The label writes come in order (set the new one, then clear the old: `label: null`),
/// then the synthetic assistant to append after them.
///
/// # Errors
/// `UnknownEntry` when the index was not fed the summary entry; `Cycle` for a corrupt tree.
pub fn finish(index: &mut SessionIndex, plan: &RewindPlan, held: SummaryFacts, summary_id: &str, now_ms: f64) -> Result<RewindFinish, SessionError> {
    let summary = index.slot_of(summary_id).ok_or_else(|| SessionError::UnknownEntry(summary_id.into()))?;
    let label = full_label(&plan.label_end);
    let prior = match index.parent_of(summary) {
        Some(parent) => index.find_label_on_path(&label, Some(parent))?,
        None => None,
    };
    let entry = index.entry(summary);
    let saving = plan.saving.with_summary(if entry.emits_message() { entry.tokens() } else { 0.0 });
    let (before, window) = (plan.before_tokens, plan.context_window);
    // What the next request carries, in the count the model last saw (the synthetic call carries it as its
    // usage, so pi's footer shows it until the next reply).
    let after = saving.after(before);
    let ledger = (held.ledger_items > 0).then_some((held.ledger_items, held.ledger_tokens));
    let text = texts::rewound(&plan.label_start, &plan.label_end, before, after, window, ledger, held.cut, warning(plan.refresh_reaches));
    let mut labels = vec![LabelWrite { entry_id: summary_id.into(), label: Some(label) }];
    if let Some(prior) = prior {
        labels.push(LabelWrite { entry_id: index.id_of(prior).into(), label: None });
    }
    let synthetic = synthetic_assistant(&plan.call_id, plan.arguments.clone(), plan.model.as_ref(), after, now_ms);
    Ok(RewindFinish {
        labels,
        synthetic,
        after_tokens: after,
        text,
        details: RewindDetails {
            label_start: plan.label_start.clone(),
            label_end: plan.label_end.clone(),
            target_id: plan.target_id.clone(),
            summary_id: summary_id.into(),
            collapsed_entries: plan.summarize_ids.len() as u32,
            context_before: before,
            context_after: after,
            context_window: window,
            refresh_reaches: plan.refresh_reaches,
            ledger_tokens: held.ledger_tokens,
            ledger_items: held.ledger_items,
            summary_cut: held.cut,
            saving,
        },
    })
}
