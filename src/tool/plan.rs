//! What one `navigate_tree` call does, decided from the session index and a few facts from the host.
//!
//! A call in flight is always the leaf's assistant message (pi appends it before running its tools).
//! Two consequences shape the decisions:
//! - an anchor labels the entry *before* that message, the last point where every tool call has its
//!   result, so a later rewind to it never leaves a call without a result on the new path;
//! - "before" numbers are taken at that same point, and a rewind's collapsed entries are exactly what
//!   pi's `collectEntriesForBranchSummary(sm, leaf, target)` returns.

use crate::prelude::*;
use alloc::borrow::Cow;

use crate::json::Value;

use crate::error::SessionError;
use crate::js::utf16_len;
use crate::session::{cumulative, Kind, Leaf, RoleKind, SessionIndex, Slot, StopReason};
use crate::text::{format_list, is_valid_name, ListRow, ANCHOR_PREFIX};

use super::definition::TOOL_NAME;
use super::out::{item, quote, JsonObject};
use super::params::{name_problem, wrong_type, Action, Params};
use super::synthetic::{capped_arguments, write_synthetic};
use super::texts::{self, cat, fill, RefusalCode};

/// Shortest `summaryFocus` accepted, in characters after trimming.
pub const MIN_FOCUS_CHARS: usize = 20;
/// Longest `summaryFocus` accepted, in UTF-16 units: the focus goes whole into the summary request, so a
/// runaway one (a pasted file, a megabyte of text) would crowd out the very work it should summarize.
pub const MAX_FOCUS_CHARS: usize = 16_000;
/// A rewind must free at least this many estimated tokens; smaller ones cost a summary for nothing.
pub const MIN_SAVED_TOKENS: f64 = 4000.0;
/// Preview length in the anchor response.
const ANCHOR_HINT_MAX: usize = 60;

/// The model in use, as the synthetic assistant records it.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelFacts {
    /// `model.api`.
    pub api: String,
    /// `model.provider`.
    pub provider: String,
    /// `model.id`.
    pub id: String,
}

/// What the host knows that the index does not.
#[derive(Debug, Clone, PartialEq)]
pub struct Facts {
    /// Id of the tool call being executed.
    pub call_id: String,
    /// The model's context window; 0 when unknown.
    pub context_window: f64,
    /// The configured model, if any.
    pub model: Option<ModelFacts>,
    /// Whether a rewind made now reaches the very next request (false → the response warns).
    pub refresh_reaches: bool,
    /// Current time in ms since the epoch (for the synthetic message's timestamp).
    pub now_ms: f64,
}

/// The JSON type a field read back from JavaScript must have.
#[derive(Clone, Copy, PartialEq)]
enum Want {
    Str,
    Num,
    Bool,
    Obj,
    Arr,
}

/// `v[key]` when it has the type `want`; anything else (missing included) is an error naming the field.
/// One non-generic reader for every field, so each struct's reader is a list of calls rather than an
/// inlined copy of the checks and the message formatting per field.
#[inline(never)]
fn field<'v, 'a>(v: &'v Value<'a>, key: &str, want: Want) -> Result<&'v Value<'a>, SessionError> {
    let found = v.get(key).filter(|x| {
        want == match x {
            Value::Str(_) => Want::Str,
            Value::Num(_) => Want::Num,
            Value::Bool(_) => Want::Bool,
            Value::Obj(_) => Want::Obj,
            Value::Arr(_) => Want::Arr,
            Value::Null => return false,
        }
    });
    found.ok_or_else(|| {
        let what = ["a string", "a number", "a boolean", "an object", "an array"][want as usize];
        SessionError::InvalidArgument(fill("`\u{1}` must be \u{2}", &[key, what]))
    })
}

/// Checks the fields `(key, type, required)` of `v` in order; the first one of the wrong type (or missing
/// when required) is the error. Readers check first and then build without `?` between fields, so no error
/// path has to drop a half-built struct.
#[inline(never)]
fn check(v: &Value<'_>, fields: &[(&str, Want, bool)]) -> Result<(), SessionError> {
    for &(key, want, required) in fields {
        if required || v.get(key).is_some() {
            field(v, key, want)?;
        }
    }
    Ok(())
}

/// A field [`check`]ed to be a string (empty if it is not), borrowed unless it holds escapes.
#[inline(never)]
fn text_of<'v>(v: &'v Value<'_>, key: &str) -> Cow<'v, str> {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// [`text_of`], owned.
fn text(v: &Value<'_>, key: &str) -> String {
    text_of(v, key).into_owned()
}

/// A field [`check`]ed to be a number (`default` if absent).
fn number(v: &Value<'_>, key: &str, default: f64) -> f64 {
    v.get(key).and_then(Value::as_f64).unwrap_or(default)
}

/// A field [`check`]ed to be a boolean (`default` if absent).
fn boolean(v: &Value<'_>, key: &str, default: bool) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(default)
}

impl ModelFacts {
    /// Reads `{api, provider, id}` (all strings).
    ///
    /// # Errors
    /// `InvalidArgument` naming the first field of the wrong shape.
    pub fn from_value(v: &Value<'_>) -> Result<ModelFacts, SessionError> {
        check(v, &[("api", Want::Str, true), ("provider", Want::Str, true), ("id", Want::Str, true)])?;
        Ok(ModelFacts { api: text(v, "api"), provider: text(v, "provider"), id: text(v, "id") })
    }

    /// Writes `{api, provider, id}` to `out`.
    fn write(&self, out: &mut String) {
        let mut model = JsonObject::open(out);
        model.str("api", &self.api).str("provider", &self.provider).str("id", &self.id);
        model.close();
    }
}

/// `model` as sent: an object, or `null` / absent for none.
fn model_field(v: &Value<'_>) -> Result<Option<ModelFacts>, SessionError> {
    match v.get("model") {
        None | Some(Value::Null) => Ok(None),
        Some(_) => ModelFacts::from_value(field(v, "model", Want::Obj)?).map(Some),
    }
}

impl Facts {
    /// Reads the host's facts: `callId` (required), `contextWindow` (0), `model` (none), `refreshReaches`
    /// (true), `nowMs` (0) — in parentheses the value when absent.
    ///
    /// # Errors
    /// `InvalidArgument` naming the first field of the wrong type.
    pub fn from_value(v: &Value<'_>) -> Result<Facts, SessionError> {
        if !v.is_object() {
            return Err(SessionError::InvalidArgument("the facts must be an object".into()));
        }
        check(
            v,
            &[
                ("callId", Want::Str, true),
                ("contextWindow", Want::Num, false),
                ("refreshReaches", Want::Bool, false),
                ("nowMs", Want::Num, false),
            ],
        )?;
        let model = model_field(v)?;
        Ok(Facts {
            call_id: text(v, "callId"),
            context_window: number(v, "contextWindow", 0.0),
            model,
            refresh_reaches: boolean(v, "refreshReaches", true),
            now_ms: number(v, "nowMs", 0.0),
        })
    }
}

/// A refused host step (credentials, summarizer): the text goes to the model as a failed tool result.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// Stable reason.
    pub code: RefusalCode,
    /// What the model reads.
    pub text: String,
}

impl Refusal {
    /// `{code, text}`, as the shim reports a refusal (JSON text).
    pub fn to_json(&self) -> String {
        let mut text = String::new();
        let mut out = JsonObject::open(&mut text);
        out.str("code", self.code.as_str()).str("text", &self.text);
        out.close();
        text
    }
}

/// The refuse plan `{kind: "refuse", code, text}`, as JSON text. Takes the text by value so that the
/// one drop is here, not at each of the many refusals.
#[inline(never)]
#[allow(clippy::needless_pass_by_value, reason = "dropped here rather than at every call")]
fn refuse(code: RefusalCode, text: String) -> String {
    let mut plan = String::new();
    let mut out = JsonObject::open(&mut plan);
    out.str("kind", "refuse").str("code", code.as_str()).str("text", &text);
    out.close();
    plan
}

/// The anchors on the active branch as refusals list them (see `texts::anchor_rows`).
#[inline(never)]
fn rows_here(index: &mut SessionIndex, window: f64) -> Result<String, SessionError> {
    Ok(texts::anchor_rows(&index.anchors(Leaf::Current)?, window))
}

fn full_label(name: &str) -> String {
    cat(&[ANCHOR_PREFIX, name])
}

/// The assistant message carrying call `call_id`: the leaf, or — when calls of the same message ran
/// before this one — the nearest assistant above the leaf past their results and labels.
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
        if !matches!(entry.kind(), Kind::Message(RoleKind::ToolResult) | Kind::Label) {
            return None;
        }
        cur = index.parent_of(slot);
    }
    None
}

/// Our own synthetic shape: one `navigate_tree` call, no text, `toolUse`, zero input/output usage.
fn is_synthetic(index: &SessionIndex, slot: Slot) -> bool {
    let entry = index.entry(slot);
    entry.assistant().is_some_and(|a| {
        let mut calls = a.tool_calls();
        a.zero_io()
            && a.stop_reason() == StopReason::ToolUse
            && calls.len() == 1
            && calls.next().is_some_and(|(_, name)| name == TOOL_NAME)
            && entry.hint().is_none()
    })
}

/// Decides what a call does. `raw_params` is the call's arguments object. The plan is JSON text, as the
/// shim reads it (see `ToolPlan` in the TypeScript types):
/// - `{kind: "refuse", code, text}`: report `text` as a failed tool result; nothing is written;
/// - `{kind: "list", text, details}`: just the text;
/// - `{kind: "anchor", entryId, label, moveFrom, text, details}`: write `label` on `entryId`, then clear it
///   from `moveFrom` (the entry that held it on the active branch before, or `null`);
/// - `{kind: "rewind", targetId, labelStart, labelEnd, summarizeIds, focus, beforeTokens, contextWindow,
///   callId, arguments, model, refreshReaches, fallbackSynthetic}`: summarize `summarizeIds` (oldest first,
///   pi's `collectEntriesForBranchSummary`) with `focus` as `customInstructions`, then
///   `branchWithSummary(targetId, summary)` and [`finish`] with this same plan. `arguments` is the call's
///   arguments with the focus copy capped; `fallbackSynthetic` repairs the chain if a step after
///   `branchWithSummary` fails before [`finish`] could run.
///
/// # Errors
/// Only when the index itself is inconsistent (a parent cycle); every bad input becomes a refusal.
pub fn plan(index: &mut SessionIndex, raw_params: &Value<'_>, facts: &Facts) -> Result<String, SessionError> {
    let params = Params::from_value(raw_params);
    match params.action {
        None => Ok(refuse(RefusalCode::InvalidAction, texts::invalid_action())),
        Some(Action::List) => list(index, facts),
        Some(Action::Anchor) => anchor(index, &params, facts),
        Some(Action::Rewind) => rewind(index, &params, facts),
    }
}

/// The refusal plan for arguments that are not readable JSON at all (`problem` says why), so a call with
/// absurd arguments gets an answer instead of an error.
pub fn unreadable(problem: &str) -> String {
    refuse(RefusalCode::InvalidArguments, texts::unreadable_arguments(problem))
}

fn warning(facts_reach: bool) -> Option<&'static str> {
    (!facts_reach).then_some(texts::REFRESH_MISSING)
}

fn list(index: &mut SessionIndex, facts: &Facts) -> Result<String, SessionError> {
    let (anchors, estimate) = index.anchors_and_estimate(Leaf::Current)?;
    let current = estimate.tokens;
    let rows: Vec<ListRow<'_>> =
        anchors.iter().map(|a| ListRow { name: &a.name, tokens: a.tokens, hint: a.hint.as_deref() }).collect();
    let warn = warning(facts.refresh_reaches);
    let text = format_list(&rows, current, facts.context_window, warn);
    let mut plan = String::new();
    let mut out = JsonObject::open(&mut plan);
    out.str("kind", "list").str("text", &text);
    let mut details = JsonObject::open(out.key("details"));
    details.num("count", anchors.len() as f64).num("contextTokens", current).num("contextWindow", facts.context_window);
    let rows = details.key("anchors");
    rows.push('[');
    for a in &anchors {
        let mut row = JsonObject::open(item(rows));
        row.str("name", &a.name).str("entryId", index.id_of(a.slot)).num("tokens", a.tokens).opt_str("hint", a.hint.as_deref());
        row.close();
    }
    rows.push(']');
    details.bool("refreshReaches", facts.refresh_reaches);
    details.close();
    out.close();
    Ok(plan)
}

/// The refusal for a name parameter that is not a valid anchor name.
fn invalid_name(params: &Params<'_>, key: &str, action: &str) -> String {
    let problem = name_problem(params.raw, key);
    refuse(RefusalCode::InvalidName, texts::invalid_name(key, action, problem.as_deref()))
}

fn anchor(index: &mut SessionIndex, params: &Params<'_>, facts: &Facts) -> Result<String, SessionError> {
    let Some(name) = params.name.as_deref().filter(|n| is_valid_name(n)) else {
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
    let hint = index.hint_from(point, ANCHOR_HINT_MAX);
    // Ids are borrowed from the index once it is no longer changed.
    let move_from = prior.filter(|&p| p != point).map(|p| index.id_of(p));
    let text = texts::anchor_set(name, tokens, facts.context_window, hint.as_deref(), move_from.is_some());
    let entry_id = index.id_of(point);
    let mut plan = String::new();
    let mut out = JsonObject::open(&mut plan);
    out.str("kind", "anchor")
        .str("entryId", entry_id)
        .str("label", &label)
        .opt_str("moveFrom", move_from)
        .str("text", &text);
    let mut details = JsonObject::open(out.key("details"));
    details
        .str("name", name)
        .str("entryId", entry_id)
        .num("contextTokens", tokens)
        .num("contextWindow", facts.context_window)
        .opt_str("hint", hint.as_deref())
        .opt_str("movedFrom", move_from);
    details.close();
    out.close();
    Ok(plan)
}

fn rewind(index: &mut SessionIndex, params: &Params<'_>, facts: &Facts) -> Result<String, SessionError> {
    let Some(start) = params.label_start.as_deref().filter(|n| is_valid_name(n)) else {
        return Ok(invalid_name(params, "labelStart", "rewind"));
    };
    let Some(end) = params.label_end.as_deref().filter(|n| is_valid_name(n)) else {
        return Ok(invalid_name(params, "labelEnd", "rewind"));
    };
    let focus = params.summary_focus.as_deref().unwrap_or_default();
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
    if let Some(call) = call {
        // Written straight into one string (no `Vec` + `join`): `name (id)` each, `, ` between.
        let mut others = String::new();
        if let Some(a) = index.entry(call).assistant() {
            for (id, n) in a.tool_calls().filter(|(id, _)| *id != facts.call_id) {
                let sep = if others.is_empty() { "" } else { ", " };
                others.push_str(&cat(&[sep, n, " (", id, ")"]));
            }
        }
        if !others.is_empty() {
            return Ok(refuse(RefusalCode::BatchedRewind, texts::batched_rewind(&others)));
        }
    }
    let path = index.path(leaf)?;
    let estimates = cumulative(index, &path);
    // "Before" is the context the model last saw: at the parent of the in-flight message.
    let before_at = match call.and_then(|c| path.iter().position(|&s| s == c)) {
        Some(at) => at.saturating_sub(1),
        None => path.len().saturating_sub(1),
    };
    let before = estimates.get(before_at).map_or(0.0, |e| e.tokens);
    let target_at = path.iter().position(|&s| s == target).unwrap_or(0);
    let at_target = estimates.get(target_at).map_or(0.0, |e| e.tokens);
    if before - at_target < MIN_SAVED_TOKENS {
        let rows = rows_here(index, facts.context_window)?;
        return Ok(refuse(RefusalCode::TooLittleSaved, texts::too_little_saved(start, before - at_target, &rows)));
    }
    let Some(model) = &facts.model else {
        return Ok(refuse(RefusalCode::NoModel, texts::no_model()));
    };
    let arguments = capped_arguments(params.raw);
    let mut plan = String::new();
    let mut out = JsonObject::open(&mut plan);
    out.str("kind", "rewind").str("targetId", index.id_of(target)).str("labelStart", start).str("labelEnd", end);
    let ids = out.key("summarizeIds");
    ids.push('[');
    for &s in &collapsed {
        quote(item(ids), index.id_of(s));
    }
    ids.push(']');
    out.str("focus", focus)
        .num("beforeTokens", before)
        .num("contextWindow", facts.context_window)
        .str("callId", &facts.call_id)
        .raw("arguments", &arguments);
    model.write(out.key("model"));
    out.bool("refreshReaches", facts.refresh_reaches);
    write_synthetic(out.key("fallbackSynthetic"), &facts.call_id, &arguments, Some(model), 0.0, facts.now_ms);
    out.close();
    Ok(plan)
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

/// The refusal for a failed credential lookup (`getApiKeyAndHeaders` result `{ok, error}`), or `None`.
pub fn check_auth(result: &Value<'_>) -> Option<Refusal> {
    if result.get("ok").and_then(Value::as_bool) == Some(true) {
        return None;
    }
    let error = result.get("error").and_then(Value::as_str);
    Some(Refusal { code: RefusalCode::AuthFailed, text: texts::auth_failed(error.as_deref().unwrap_or("unknown error")) })
}

/// The preamble pi's `generateBranchSummary` puts before the model's text (0.74–0.87).
const PI_SUMMARY_PREAMBLE: &str =
    "The user explored a different conversation branch before returning here.\nSummary of that exploration:";

/// Whether a summary says nothing: blank, or only pi's preamble and its file lists (the model answered with
/// nothing, which pi still wraps).
fn summary_is_empty(summary: &str) -> bool {
    let mut rest = summary.trim_start().strip_prefix(PI_SUMMARY_PREAMBLE).unwrap_or(summary);
    for (open, close) in [("<read-files>", "</read-files>"), ("<modified-files>", "</modified-files>")] {
        if let (Some(a), Some(b)) = (crate::text::find(rest, open), crate::text::find(rest, close)) {
            if a < b && rest.get(..a).is_some_and(|lead| lead.trim().is_empty()) {
                rest = rest.get(b + close.len()..).unwrap_or("");
            }
        }
    }
    rest.trim().is_empty()
}

/// The refusal for a summarizer result `{summary?, aborted?, error?}` that cannot be used, or `None`.
pub fn check_summary(result: &Value<'_>) -> Option<Refusal> {
    if result.get("aborted").and_then(Value::as_bool) == Some(true) {
        return Some(Refusal { code: RefusalCode::SummaryAborted, text: texts::summary_aborted() });
    }
    let summary = result.get("summary").and_then(Value::as_str);
    let error = result.get("error").and_then(Value::as_str);
    match (error.as_deref(), summary_is_empty(summary.as_deref().unwrap_or(""))) {
        (None, false) => None,
        (Some(e), _) => Some(Refusal { code: RefusalCode::SummaryFailed, text: texts::summary_failed(e) }),
        (None, true) => {
            Some(Refusal { code: RefusalCode::SummaryFailed, text: texts::summary_failed("the summary is empty") })
        }
    }
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
    let (text, what) = texts::SALVAGE
        .iter()
        .find(|(known, ..)| *known == step)
        .map_or((texts::SALVAGED, "a later step"), |&(_, text, what)| (text, what));
    fill(text, &[error, what])
}

/// `rewind`, second half. Call after `branchWithSummary` returned `summary_id` and the index was fed the
/// new entry, with the plan [`plan`] made (as JavaScript carried it back). Numbers are taken at the summary,
/// before anything else is appended. The result is JSON text: `{labels: [{entryId, label}], synthetic,
/// afterTokens, text, details}` — the label writes in order (set the new one, then clear the old: `label:
/// null`), the synthetic assistant to append after them, and the estimate at the new summary.
///
/// # Errors
/// `InvalidArgument` naming the first field of the plan of the wrong shape; `UnknownEntry` when the index
/// was not fed the summary entry; `Cycle` for a corrupt tree.
pub fn finish(index: &mut SessionIndex, plan: &Value<'_>, summary_id: &str, now_ms: f64) -> Result<String, SessionError> {
    check(
        plan,
        &[
            ("summarizeIds", Want::Arr, true),
            ("targetId", Want::Str, true),
            ("labelStart", Want::Str, true),
            ("labelEnd", Want::Str, true),
            ("focus", Want::Str, true),
            ("beforeTokens", Want::Num, true),
            ("contextWindow", Want::Num, true),
            ("callId", Want::Str, true),
            ("arguments", Want::Obj, true),
            ("refreshReaches", Want::Bool, true),
            ("fallbackSynthetic", Want::Obj, true),
        ],
    )?;
    let ids = plan.get("summarizeIds").and_then(Value::as_array).unwrap_or_default();
    if !ids.iter().all(Value::is_string) {
        return Err(SessionError::InvalidArgument("`summarizeIds` must be strings".into()));
    }
    let model = model_field(plan)?;
    let (label_start, label_end) = (text_of(plan, "labelStart"), text_of(plan, "labelEnd"));
    let (before, window) = (number(plan, "beforeTokens", 0.0), number(plan, "contextWindow", 0.0));
    let refresh_reaches = boolean(plan, "refreshReaches", false);

    let summary = index.slot_of(summary_id).ok_or_else(|| SessionError::UnknownEntry(summary_id.into()))?;
    let label = full_label(&label_end);
    let prior = match index.parent_of(summary) {
        Some(parent) => index.find_label_on_path(&label, Some(parent))?,
        None => None,
    };
    let path = index.path(Some(summary))?;
    let after = cumulative(index, &path).last().map_or(0.0, |e| e.tokens);
    let arguments = plan.get("arguments").map_or_else(String::new, Value::to_json);
    let warn = warning(refresh_reaches);
    let response = texts::rewound(&label_start, &label_end, before, after, window, warn);
    let mut result = String::new();
    let mut out = JsonObject::open(&mut result);
    let labels = out.key("labels");
    labels.push('[');
    let mut write = JsonObject::open(item(labels));
    write.str("entryId", summary_id).str("label", &label);
    write.close();
    if let Some(prior) = prior {
        let mut clear = JsonObject::open(item(labels));
        clear.str("entryId", index.id_of(prior)).raw("label", "null");
        clear.close();
    }
    labels.push(']');
    write_synthetic(out.key("synthetic"), &text_of(plan, "callId"), &arguments, model.as_ref(), after, now_ms);
    out.num("afterTokens", after).str("text", &response);
    let mut details = JsonObject::open(out.key("details"));
    details
        .str("labelStart", &label_start)
        .str("labelEnd", &label_end)
        .str("targetId", &text_of(plan, "targetId"))
        .str("summaryId", summary_id)
        .num("collapsedEntries", ids.len() as f64)
        .num("contextBefore", before)
        .num("contextAfter", after)
        .num("contextWindow", window)
        .bool("refreshReaches", refresh_reaches);
    details.close();
    out.close();
    Ok(result)
}
