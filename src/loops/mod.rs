//! A model going round in a loop: the rule that says when a run repeats itself, the hint steered into the
//! run when it does, and (in [`waste`]) every loop a session file holds, afterwards.
//!
//! Within one agent run (since the last user message) a loop is either
//! - **the same result**: the same tool called with the same arguments (canonical JSON: keys sorted, no
//!   whitespace) whose result equals the previous identical call's, for the `repeats`-th time in a row of such
//!   calls among the last [`WINDOW`] tool calls (other calls may come between; more when `repeats` is larger); or
//! - **the same error**: `repeats` failed results in a row of one tool (`isError`, or a command's non-zero exit)
//!   whose first error line — the ledger's rule, `crate::tool::first_error_line` — is the same, whatever the
//!   calls were (editing and rebuilding into the same compiler error). A failure with no error line counts
//!   as the same only when its whole output is.
//!
//! Results that change (a counter, a growing log, a file edited between two reads) are no loop. A loop is
//! reported once ([`LoopStep::Found`]); its further repeats are [`LoopStep::Repeat`] until a different
//! result (or, for an error loop, a result that is not that failure) re-arms it. A rewind by `navigate_tree`
//! starts afresh, as a user message does. The shim hands over what it already sees (each tool call with its
//! result, digested by [`CallDigest::of`] and [`ResultDigest::of`]); nothing here calls the host.

pub mod waste;

use std::hash::{Hash, Hasher};

use serde::Serialize;
use serde_json::Value;
use tsify_next::Tsify;

use crate::error::SessionError;
use crate::guidance;
use crate::session::SessionIndex;
use crate::text::{anchor_name, to_one_line};
use crate::tool::{exit_code, first_error_line, first_line, TOOL_NAME};

/// How many of the latest tool calls a same-result loop is looked for in (or the repeats that make a loop,
/// when more are asked for: a window shorter than them could never hold a loop).
pub const WINDOW: usize = 10;
/// The call as texts name it: one line, at most this many UTF-16 units.
pub const CALL_LINE_MAX: usize = 120;
/// The anchor name the hint proposes for the rewind's `labelEnd`.
pub const LOOP_EXIT_NAME: &str = "loop-exit";

/// A 64-bit digest of `parts` (std's `SipHash` with fixed keys: the same in every process and build).
fn digest(parts: &[&str]) -> u64 {
    #[allow(deprecated, reason = "SipHasher would be the same hasher; DefaultHasher::new is its stable spelling")]
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for p in parts {
        p.hash(&mut h);
    }
    h.finish()
}

/// What a tool call is, for the rule: which call it was, and what makes two calls the same.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallDigest {
    /// The call's id (`toolCall.id`).
    pub id: String,
    /// The tool's name.
    pub tool: String,
    /// The digest of the tool's name and its arguments as canonical JSON.
    key: u64,
    /// What the call's line shows (a command's text, else the canonical arguments): cut to one line only
    /// when a loop is reported ([`Self::line`]), as the rule runs for every result.
    shown: String,
    /// A `navigate_tree` rewind: the context starts afresh after it.
    rewind: bool,
}

impl CallDigest {
    /// The call `id` of `tool` with `arguments` (their JSON text, as `JSON.stringify` or the session file
    /// wrote it; text that does not parse is taken as it is).
    pub fn of(id: &str, tool: &str, arguments: &str) -> CallDigest {
        match serde_json::from_str::<Value>(arguments) {
            Ok(parsed) => CallDigest::of_value(id, tool, Some(&parsed)),
            Err(_) => CallDigest::with(id, tool, None, arguments),
        }
    }

    /// The call `id` of `tool` with `arguments` as read from a session line (`None`: none given, read as `{}`).
    pub fn of_value(id: &str, tool: &str, arguments: Option<&Value>) -> CallDigest {
        // serde_json's map is ordered by key: printing a parsed value is its canonical form.
        let canonical = arguments.map_or_else(|| "{}".to_string(), Value::to_string);
        CallDigest::with(id, tool, arguments, &canonical)
    }

    fn with(id: &str, tool: &str, parsed: Option<&Value>, canonical: &str) -> CallDigest {
        let shown = parsed.and_then(|a| a.get("command")).and_then(Value::as_str).unwrap_or(canonical);
        let rewind = tool == TOOL_NAME && parsed.and_then(|a| a.get("action")).and_then(Value::as_str) == Some("rewind");
        CallDigest {
            id: id.to_string(),
            tool: tool.to_string(),
            key: digest(&[tool, canonical]),
            shown: shown.to_string(),
            rewind,
        }
    }

    /// The call as one line (a command's text, else the canonical arguments), cut at [`CALL_LINE_MAX`].
    pub fn line(&self) -> String {
        to_one_line(&self.shown, CALL_LINE_MAX).unwrap_or_default()
    }
}

/// What a tool result is, for the rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultDigest {
    /// The digest of the result's text and whether it failed.
    key: u64,
    /// How it failed, when it did: what makes two failures the same, and its line as texts show it.
    failure: Option<(u64, String)>,
}

impl ResultDigest {
    /// A result whose text parts, joined, are `text`; `is_error` as the host marked it. A result also
    /// failed when it ends with a command's non-zero exit (`Command exited with code N`).
    pub fn of(text: &str, is_error: bool) -> ResultDigest {
        let failed = is_error || exit_code(text).is_some_and(|code| code != 0);
        let failure = failed.then(|| match first_error_line(text) {
            Some(line) => (digest(&["error line", &line]), line),
            // No error line: the same failure only when the whole output is the same.
            None => (digest(&["output", text]), first_line(text).unwrap_or_default()),
        });
        ResultDigest { key: digest(&[if failed { "failed" } else { "ok" }, text]), failure }
    }

    /// Whether the result failed.
    pub fn failed(&self) -> bool {
        self.failure.is_some()
    }
}

/// Which rule found a loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "kebab-case")]
pub enum LoopKind {
    /// The same call, answered the same way.
    SameResult,
    /// One tool failing with the same error line, whatever the calls.
    SameError,
}

/// A loop, as found.
#[derive(Debug, Clone, PartialEq)]
pub struct Loop {
    /// Which rule found it.
    pub kind: LoopKind,
    /// The tool.
    pub tool: String,
    /// The call that completed it, as one line.
    pub call: String,
    /// The repeated error line when the results failed (for a failure with no error line: its first line).
    pub error: Option<String>,
    /// How many times the call (or the failure) came, the one that completed the loop included.
    pub times: u32,
    /// The ids of those calls, oldest first: the loop's first call names it.
    pub call_ids: Vec<String>,
}

impl Loop {
    /// The loop's first call: where it started, and what names it.
    pub fn first_call_id(&self) -> &str {
        self.call_ids.first().map_or("", String::as_str)
    }
}

/// What one call and its result make of the run.
#[derive(Debug, Clone, PartialEq)]
pub enum LoopStep {
    /// No loop (or a loop's rule not met).
    None,
    /// A loop, the first time: send the hint.
    Found(Loop),
    /// One more repeat of the loop first called `first_call_id`, already reported.
    Repeat {
        /// The first call of the loop this repeats.
        first_call_id: String,
    },
}

/// A call seen in the window.
#[derive(Debug, Clone)]
struct Seen {
    key: u64,
    result: u64,
    call_id: String,
}

/// A same-result loop reported: its call and result, and its first call.
#[derive(Debug, Clone)]
struct Reported {
    key: u64,
    result: u64,
    first_call_id: String,
}

/// One tool's failures in a row.
#[derive(Debug, Clone)]
struct Streak {
    tool: String,
    /// What makes the failures the same (0 while the streak is empty).
    failure: u64,
    /// The calls of the failures, oldest first (only until the loop is reported).
    call_ids: Vec<String>,
    count: u32,
    /// The loop this streak is part of, once reported (its first call).
    reported: Option<String>,
}

/// Finds loops in one run's calls and results. A fresh detector per session; [`Self::reset`] at every user
/// message.
#[derive(Debug, Clone)]
pub struct LoopDetector {
    repeats: u32,
    window: Vec<Seen>,
    reported: Vec<Reported>,
    streaks: Vec<Streak>,
}

impl LoopDetector {
    /// A detector for which `repeats` (at least 2) make a loop.
    pub fn new(repeats: u8) -> LoopDetector {
        LoopDetector { repeats: u32::from(repeats.max(2)), window: Vec::with_capacity(WINDOW + 1), reported: Vec::new(), streaks: Vec::new() }
    }

    /// A new run: nothing seen.
    pub fn reset(&mut self) {
        self.window.clear();
        self.reported.clear();
        self.streaks.clear();
    }

    /// One tool call and its result, in the order the run made them.
    pub fn observe(&mut self, call: &CallDigest, result: &ResultDigest) -> LoopStep {
        if call.rewind {
            // The context the loop was in is gone (a failed rewind changes nothing, but starting afresh
            // only delays a hint).
            self.reset();
            return LoopStep::None;
        }
        // The same call answered the same way: the identical calls before it, newest first, while their
        // results are this one.
        let mut chain = vec![call.id.clone()];
        let mut changed = false;
        for seen in self.window.iter().rev().filter(|s| s.key == call.key) {
            if seen.result != result.key {
                changed = true;
                break;
            }
            chain.push(seen.call_id.clone());
        }
        chain.reverse();
        if changed && chain.len() == 1 {
            // A different result re-arms this call.
            self.reported.retain(|r| r.key != call.key);
        }
        self.window.push(Seen { key: call.key, result: result.key, call_id: call.id.clone() });
        if self.window.len() > WINDOW.max(self.repeats as usize) {
            self.window.remove(0);
        }

        // The tool's failures in a row.
        let at = self.streaks.iter().position(|s| s.tool == call.tool).unwrap_or_else(|| {
            self.streaks.push(Streak { tool: call.tool.clone(), failure: 0, call_ids: Vec::new(), count: 0, reported: None });
            self.streaks.len() - 1
        });
        let streak = &mut self.streaks[at];
        match &result.failure {
            Some((failure, _)) if streak.count > 0 && streak.failure == *failure => {
                streak.count += 1;
                if streak.reported.is_none() {
                    streak.call_ids.push(call.id.clone());
                }
            }
            // A new streak (or none) of the same tool: reset in place, no allocation for every result.
            Some((failure, _)) => {
                streak.failure = *failure;
                streak.call_ids.clear();
                streak.call_ids.push(call.id.clone());
                streak.count = 1;
                streak.reported = None;
            }
            None => {
                streak.failure = 0;
                streak.call_ids.clear();
                streak.count = 0;
                streak.reported = None;
            }
        }

        let same_result = chain.len() as u32 >= self.repeats;
        let same_error = streak.count >= self.repeats;
        // The loop this call is part of, when reported: its call answered so before, or its failure (a
        // streak is only ever reported with a failure of this result's kind).
        let error_loop = streak.reported.clone();
        if same_result {
            let earlier = self.reported.iter().find(|r| r.key == call.key && r.result == result.key).map(|r| r.first_call_id.clone());
            if let Some(first_call_id) = earlier.clone().or(error_loop) {
                if earlier.is_none() {
                    // The same failure's loop, now also by its call: one loop, one hint.
                    self.reported.push(Reported { key: call.key, result: result.key, first_call_id: first_call_id.clone() });
                }
                return LoopStep::Repeat { first_call_id };
            }
        } else if let Some(first_call_id) = error_loop {
            return LoopStep::Repeat { first_call_id };
        }
        let (kind, call_ids) = if same_result {
            (LoopKind::SameResult, chain)
        } else if same_error {
            (LoopKind::SameError, std::mem::take(&mut streak.call_ids))
        } else {
            return LoopStep::None;
        };
        let first = call_ids.first().cloned().unwrap_or_default();
        // One loop, whichever rule found it: its call and (when it failed) its failure are reported with it.
        if result.failed() {
            streak.reported = Some(first.clone());
            streak.call_ids = Vec::new();
        }
        self.reported.push(Reported { key: call.key, result: result.key, first_call_id: first });
        LoopStep::Found(Loop {
            kind,
            tool: call.tool.clone(),
            call: call.line(),
            error: result.failure.as_ref().map(|(_, line)| line.clone()),
            times: call_ids.len() as u32,
            call_ids,
        })
    }
}

/// The loop hint as the shim sends it, and what the user sees of it.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct LoopMessage {
    /// The message for the model (steered into the run).
    pub text: String,
    /// The one line pi's TUI shows for it (collapsed).
    pub headline: String,
    /// The anchor the hint proposes to rewind to, if there is one before the loop.
    pub anchor: Option<String>,
    /// For the user when there is no anchor before the loop (a UI note); `None` otherwise.
    pub note: Option<String>,
}

/// The hint for `found` at the index's current leaf: the rewind it proposes goes to the newest anchor on the
/// active path before the assistant message that made the loop's first call.
pub fn loop_message(index: &mut SessionIndex, found: &Loop) -> Result<LoopMessage, SessionError> {
    let anchor = anchor_before(index, found.first_call_id())?;
    let facts = guidance::LoopFacts { tool: &found.tool, call: &found.call, error: found.error.as_deref(), times: found.times };
    let end = if anchor.as_deref() == Some(LOOP_EXIT_NAME) { format!("{LOOP_EXIT_NAME}-2") } else { LOOP_EXIT_NAME.to_string() };
    Ok(LoopMessage {
        text: guidance::loop_hint(&facts, anchor.as_deref().map(|a| (a, end.as_str()))),
        headline: guidance::loop_headline(&facts, anchor.as_deref()),
        note: anchor.is_none().then(|| guidance::loop_note(&facts)),
        anchor,
    })
}

/// The newest anchor on the active path before the entry holding the call `first_call_id` (`None`: no such
/// anchor, or the call is not on the path). Names only, read off the path's labels: no estimate is needed.
fn anchor_before(index: &mut SessionIndex, first_call_id: &str) -> Result<Option<String>, SessionError> {
    let path = index.path(index.leaf())?;
    let Some(start) = path.iter().rposition(|&slot| index.entry(slot).assistant().is_some_and(|a| a.tool_calls().any(|(id, _)| id == first_call_id))) else {
        return Ok(None);
    };
    Ok(path[..start].iter().rev().find_map(|&slot| index.label_at(slot).and_then(anchor_name).filter(|n| !n.is_empty())).map(String::from))
}

#[cfg(test)]
mod tests;
