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

use std::borrow::Cow;
use std::hash::{Hash, Hasher};

use serde::Serialize;
use serde_json::Value;
use tsify_next::Tsify;

use crate::error::SessionError;
use crate::guidance;
use crate::session::SessionIndex;
use crate::text::{anchor_name, to_one_line};
use crate::tool::{exit_code_of_line, first_error_line, first_line, TOOL_NAME};

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
///
/// Two calls are the same when their tool is and their arguments are as canonical JSON (keys sorted, no
/// whitespace). Parsing every call's arguments to print them so was most of what the live rule cost for each
/// result, and the arguments of different calls almost always differ in what they hold, not only in order; so
/// a call keeps its text as given and two texts are put in canonical form only when they could be the same
/// call written in another order: the same tool, and different texts made of the same bytes other than
/// whitespace (keys in another order, or spaces, change neither: [`keys`]). The canonical form is then made
/// once per call and kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallDigest<'a> {
    /// The call's id (`toolCall.id`).
    pub id: Cow<'a, str>,
    /// The tool's name.
    pub tool: Cow<'a, str>,
    /// The arguments' JSON text: as given ([`Self::of`]) or canonical ([`Self::of_value`]).
    args: Cow<'a, str>,
    /// A quick digest of the tool's name and `args` as written ([`keys`]): calls with another are not the same
    /// text (one with the same is compared byte by byte).
    text_key: u64,
    /// Which bytes `args` is made of ([`keys`]): texts of the same arguments in another order have the same.
    mix: u64,
    /// The digest of the tool's name and the canonical arguments, once made (at once for canonical `args`).
    canonical: Option<u64>,
    /// A `navigate_tree` rewind: the context starts afresh after it.
    rewind: bool,
}

impl<'a> CallDigest<'a> {
    /// The call `id` of `tool` with `arguments`: their JSON text (as `JSON.stringify` or the session file
    /// wrote it; text that does not parse is compared as it is).
    pub fn of(id: &'a str, tool: &'a str, arguments: &'a str) -> CallDigest<'a> {
        // Only a rewind needs its arguments read now (and only `navigate_tree` makes one).
        let rewind = tool == TOOL_NAME && serde_json::from_str::<Value>(arguments).is_ok_and(|v| is_rewind(&v));
        CallDigest::with(Cow::Borrowed(id), Cow::Borrowed(tool), Cow::Borrowed(arguments), None, rewind)
    }

    /// The call `id` of `tool` with `arguments` as read from a session line (`None`: none given, read as `{}`).
    pub fn of_value(id: &str, tool: &str, arguments: Option<&Value>) -> CallDigest<'static> {
        // serde_json's map is ordered by key: printing a parsed value is its canonical form.
        let canonical = arguments.map_or_else(|| "{}".to_string(), Value::to_string);
        let rewind = tool == TOOL_NAME && arguments.is_some_and(is_rewind);
        let key = digest(&[tool, &canonical]);
        CallDigest::with(Cow::Owned(id.to_string()), Cow::Owned(tool.to_string()), Cow::Owned(canonical), Some(key), rewind)
    }

    fn with(id: Cow<'a, str>, tool: Cow<'a, str>, args: Cow<'a, str>, canonical: Option<u64>, rewind: bool) -> CallDigest<'a> {
        let (text_key, mix) = keys(&tool, &args);
        CallDigest { id, tool, args, text_key, mix, canonical, rewind }
    }

    /// The call as one line (a command's text, else the canonical arguments), cut at [`CALL_LINE_MAX`].
    #[cold]
    #[inline(never)]
    pub fn line(&self) -> String {
        let parsed = serde_json::from_str::<Value>(&self.args).ok();
        let command = parsed.as_ref().and_then(|a| a.get("command")).and_then(Value::as_str);
        let shown = match (command, &parsed) {
            (Some(command), _) => command.to_string(),
            (None, Some(value)) => value.to_string(),
            (None, None) => self.args.to_string(),
        };
        to_one_line(&shown, CALL_LINE_MAX).unwrap_or_default()
    }

    /// The digest of the tool's name and the canonical arguments (text that does not parse: as written).
    #[cold]
    #[inline(never)]
    fn canonical_key(&mut self) -> u64 {
        *self.canonical.get_or_insert_with(|| match serde_json::from_str::<Value>(&self.args) {
            Ok(value) => digest(&[&self.tool, &value.to_string()]),
            Err(_) => self.text_key,
        })
    }

    /// Whether `self` and `other` are the same call (see the type's doc).
    fn same_as(&mut self, other: &mut CallDigest<'_>) -> bool {
        if self.text_key == other.text_key && self.tool == other.tool && self.args == other.args {
            return true;
        }
        if self.mix != other.mix || self.tool != other.tool {
            return false;
        }
        self.canonical_key() == other.canonical_key()
    }

    /// This call, owning its texts (kept by the detector), written into `into` so that a kept call's texts
    /// are reused rather than made anew for every result.
    fn keep_into(&self, into: &mut CallDigest<'static>) {
        fn refill(to: &mut Cow<'static, str>, from: &str) {
            match to {
                Cow::Owned(s) => {
                    s.clear();
                    s.push_str(from);
                }
                Cow::Borrowed(_) => *to = Cow::Owned(from.to_string()),
            }
        }
        refill(&mut into.id, &self.id);
        refill(&mut into.tool, &self.tool);
        refill(&mut into.args, &self.args);
        into.text_key = self.text_key;
        into.mix = self.mix;
        into.canonical = self.canonical;
        into.rewind = self.rewind;
    }

    /// This call, owning its texts.
    #[cold]
    #[inline(never)]
    fn kept(&self) -> CallDigest<'static> {
        let mut kept = CallDigest::with(Cow::Borrowed(""), Cow::Borrowed(""), Cow::Borrowed(""), None, false);
        self.keep_into(&mut kept);
        kept
    }
}

/// For a call of `tool` with `args`, in one pass over their bytes (it runs for every result): a quick digest of
/// both as written (a multiply-and-rotate per byte: only a first sieve, equal digests are checked byte by byte),
/// and which bytes `args` is made of, whatever their order, ASCII whitespace left out — a sum of one number per
/// byte, spread over 64 bits so that different counts rarely add up alike. Arguments that are the same JSON in
/// another order or spacing have the same sum; most that are not, another.
fn keys(tool: &str, args: &str) -> (u64, u64) {
    const SPREAD: u64 = 0x9E37_79B9_7F4A_7C15;
    let step = |key: u64, b: u64| (key.rotate_left(5) ^ b).wrapping_mul(SPREAD);
    // 256 is no byte: the border between the tool's name and the arguments.
    let mut key = step(tool.bytes().fold(0, |key, b| step(key, u64::from(b))), 256);
    let mut mix = 0u64;
    for b in args.bytes() {
        key = step(key, u64::from(b));
        if !b.is_ascii_whitespace() {
            mix = mix.wrapping_add((u64::from(b) + 1).wrapping_mul(SPREAD).rotate_left(u32::from(b) & 63));
        }
    }
    (key, mix)
}

/// Whether parsed `navigate_tree` arguments ask for a rewind.
fn is_rewind(arguments: &Value) -> bool {
    arguments.get("action").and_then(Value::as_str) == Some("rewind")
}

/// The most of a result's end the live rule reads at every result ([`failed_by_tail`]), in UTF-16 units: the
/// shim hands over the text's last units, and the whole text only when the result failed.
pub const RESULT_TAIL_UNITS: u32 = 1024;

/// Whether a result failed, from `is_error` (as the host marked it) and the end of its text: `tail`, its last
/// units (`whole`: all of it). A result also failed when it ends with a command's non-zero exit (`Command exited
/// with code N`). `None` when `tail` cannot tell: its last line may begin before it (ask again with the text).
pub fn failed_by_tail(is_error: bool, tail: &str, whole: bool) -> Option<bool> {
    if is_error {
        return Some(true);
    }
    // The last line that is not blank must begin inside the tail (after a line break in it).
    let content = tail.trim_end();
    let start = match content.rfind('\n') {
        Some(at) => at + 1,
        None if whole => 0,
        None => return None,
    };
    Some(exit_code_of_line(content[start..].trim()).is_some_and(|code| code != 0))
}

/// What a tool result is, for the rule: what tells it from another result, and how it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultDigest {
    /// What tells it from another result that failed (or did not) alike: a digest of its text, or (live) the
    /// binding's handle of the host's text; the detector compares keys with the `same` it is given.
    key: u64,
    /// How it failed, when it did: what makes two failures the same, and its line as texts show it.
    failure: Option<(u64, String)>,
}

impl ResultDigest {
    /// A result whose text parts, joined, are `text`; `is_error` as the host marked it. A result also
    /// failed when it ends with a command's non-zero exit (`Command exited with code N`).
    pub fn of(text: &str, is_error: bool) -> ResultDigest {
        let failed = failed_by_tail(is_error, text, true).unwrap_or(is_error);
        ResultDigest::keyed(digest(&[text]), failed.then_some(text))
    }

    /// A live result known by `key`, as the rule reads it: `tail`, the end of its text (`whole`: all of it), and the
    /// whole text — asked of `text` — only when it needs it: when the result failed (its error line), or when its
    /// last line begins before the tail ([`failed_by_tail`]).
    pub fn from_tail(key: u64, is_error: bool, tail: &str, whole: bool, text: impl FnOnce() -> String) -> ResultDigest {
        let known = failed_by_tail(is_error, tail, whole);
        if known == Some(false) {
            return ResultDigest::keyed(key, None);
        }
        let full = if whole { Cow::Borrowed(tail) } else { Cow::Owned(text()) };
        let failed = known.unwrap_or_else(|| failed_by_tail(is_error, &full, true).unwrap_or(is_error));
        ResultDigest::keyed(key, failed.then_some(&*full))
    }

    /// A result known by `key`; `failed_text`, its whole text when it failed ([`failed_by_tail`]), `None` when
    /// it did not.
    pub fn keyed(key: u64, failed_text: Option<&str>) -> ResultDigest {
        let failure = failed_text.map(|text| match first_error_line(text) {
            Some(line) => (digest(&["error line", &line]), line),
            // No error line: the same failure only when the whole output is the same.
            None => (digest(&["output", text]), first_line(text).unwrap_or_default()),
        });
        ResultDigest { key, failure }
    }

    /// Whether the result failed.
    pub fn failed(&self) -> bool {
        self.failure.is_some()
    }
}

/// How a detector compares two results' keys ([`ResultDigest`]): digests by equality; the live binding its
/// handles by the host's texts.
pub type SameResult<'s> = &'s mut dyn FnMut(u64, u64) -> bool;

/// A result as the detector keeps it: its key, and whether it failed (results are the same only if both or
/// neither failed).
#[derive(Debug, Clone, Copy)]
struct Answer {
    key: u64,
    failed: bool,
}

impl Answer {
    fn of(result: &ResultDigest) -> Answer {
        Answer { key: result.key, failed: result.failed() }
    }

    fn same(self, other: Answer, same: SameResult<'_>) -> bool {
        self.failed == other.failed && same(self.key, other.key)
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

/// A call seen in the window, with its result.
#[derive(Debug, Clone)]
struct Seen {
    call: CallDigest<'static>,
    result: Answer,
}

/// A same-result loop reported: its call and result, and its first call.
#[derive(Debug, Clone)]
struct Reported {
    call: CallDigest<'static>,
    result: Answer,
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
    /// The latest calls, a ring: when full, `next` is the oldest, which the next call takes the place (and
    /// the texts' room) of.
    window: Vec<Seen>,
    next: usize,
    reported: Vec<Reported>,
    streaks: Vec<Streak>,
}

impl LoopDetector {
    /// A detector for which `repeats` (at least 2) make a loop.
    pub fn new(repeats: u8) -> LoopDetector {
        LoopDetector { repeats: u32::from(repeats.max(2)), window: Vec::new(), next: 0, reported: Vec::new(), streaks: Vec::new() }
    }

    /// A new run: nothing seen.
    pub fn reset(&mut self) {
        self.window.clear();
        self.next = 0;
        self.reported.clear();
        self.streaks.clear();
    }

    /// The keys of the results the detector still holds (the binding keeps the host's texts of these).
    pub fn results_held(&self) -> impl Iterator<Item = u64> + '_ {
        self.window.iter().map(|s| s.result.key).chain(self.reported.iter().map(|r| r.result.key))
    }

    /// One tool call and its result, in the order the run made them; `same` compares two results' keys.
    pub fn observe(&mut self, mut call: CallDigest<'_>, result: &ResultDigest, same: SameResult<'_>) -> LoopStep {
        let answer = Answer::of(result);
        if call.rewind {
            // The context the loop was in is gone (a failed rewind changes nothing, but starting afresh
            // only delays a hint).
            self.reset();
            return LoopStep::None;
        }
        // The same call answered the same way: the identical calls before it, newest first, while their
        // results are this one (their positions in the window, newest first).
        let mut chain: Vec<usize> = Vec::new();
        let mut changed = false;
        let n = self.window.len();
        for back in 1..=n {
            let at = (self.next + n - back) % n;
            let seen = &mut self.window[at];
            if !call.same_as(&mut seen.call) {
                continue;
            }
            if !seen.result.same(answer, same) {
                changed = true;
                break;
            }
            chain.push(at);
        }
        if changed && chain.is_empty() {
            // A different result re-arms this call.
            self.reported.retain_mut(|r| !call.same_as(&mut r.call));
        }
        let mut ids: Vec<String> = Vec::new();
        let same_result = chain.len() as u32 + 1 >= self.repeats;
        if same_result {
            ids = chain.iter().rev().map(|&at| self.window[at].call.id.to_string()).collect();
            ids.push(call.id.to_string());
        }
        // Into the window: the oldest call leaves it and lends its texts' room (no texts made for every result).
        let size = WINDOW.max(self.repeats as usize);
        if let Some(oldest) = self.window.get_mut(self.next) {
            call.keep_into(&mut oldest.call);
            oldest.result = answer;
        } else {
            self.window.push(Seen { call: call.kept(), result: answer });
        }
        self.next = (self.next + 1) % size;

        // The tool's failures in a row.
        let at = self.streaks.iter().position(|s| s.tool == call.tool).unwrap_or_else(|| {
            self.streaks.push(Streak { tool: call.tool.to_string(), failure: 0, call_ids: Vec::new(), count: 0, reported: None });
            self.streaks.len() - 1
        });
        let streak = &mut self.streaks[at];
        match &result.failure {
            Some((failure, _)) if streak.count > 0 && streak.failure == *failure => {
                streak.count += 1;
                if streak.reported.is_none() {
                    streak.call_ids.push(call.id.to_string());
                }
            }
            // A new streak (or none) of the same tool: reset in place, no allocation for every result.
            Some((failure, _)) => {
                streak.failure = *failure;
                streak.call_ids.clear();
                streak.call_ids.push(call.id.to_string());
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

        let same_error = streak.count >= self.repeats;
        if !same_result && !same_error && streak.reported.is_none() {
            return LoopStep::None;
        }
        self.conclude(call, result, answer, at, ids, same)
    }

    /// The step of a call that repeats a call or a failure (`observe` from the tool's streak `at` on; away from
    /// the path every other result takes, which then stays short).
    #[cold]
    #[inline(never)]
    fn conclude(&mut self, mut call: CallDigest<'_>, result: &ResultDigest, answer: Answer, at: usize, ids: Vec<String>, same: SameResult<'_>) -> LoopStep {
        let same_result = !ids.is_empty();
        let streak = &mut self.streaks[at];
        let same_error = streak.count >= self.repeats;
        // The loop this call is part of, when reported: its call answered so before, or its failure (a
        // streak is only ever reported with a failure of this result's kind).
        let error_loop = streak.reported.clone();
        if same_result {
            let earlier = self.reported.iter_mut().position(|r| call.same_as(&mut r.call) && r.result.same(answer, same)).map(|i| self.reported[i].first_call_id.clone());
            if let Some(first_call_id) = earlier.clone().or(error_loop) {
                if earlier.is_none() {
                    // The same failure's loop, now also by its call: one loop, one hint.
                    self.reported.push(Reported { call: call.kept(), result: answer, first_call_id: first_call_id.clone() });
                }
                return LoopStep::Repeat { first_call_id };
            }
        } else if let Some(first_call_id) = error_loop {
            return LoopStep::Repeat { first_call_id };
        }
        let (kind, call_ids) = if same_result {
            (LoopKind::SameResult, ids)
        } else if same_error {
            (LoopKind::SameError, std::mem::take(&mut self.streaks[at].call_ids))
        } else {
            return LoopStep::None;
        };
        let first = call_ids.first().cloned().unwrap_or_default();
        // One loop, whichever rule found it: its call and (when it failed) its failure are reported with it.
        if result.failed() {
            let streak = &mut self.streaks[at];
            streak.reported = Some(first.clone());
            streak.call_ids = Vec::new();
        }
        self.reported.push(Reported { call: call.kept(), result: answer, first_call_id: first });
        LoopStep::Found(Loop {
            kind,
            tool: call.tool.to_string(),
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
