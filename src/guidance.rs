//! What helps the model use `navigate_tree` well, and what keeps a rewind cheap: the texts it reads
//! outside the tool's own replies (system-prompt guidance, tool guidelines, the context-pressure hint),
//! and the decisions behind them as data — the pressure tracker, the automatic start anchor and the choice
//! between a cache-preserving and a cold summary request. The shim performs; nothing here calls the host.

use serde::{Deserialize, Serialize};
use tsify_next::Tsify;

use crate::tool::AnchorSaving;
use crate::text::{format_pct1, format_window, shown_of, MAX_NAMES_SHOWN};

/// The label name of the automatic start anchor (`anchor:start`).
pub const START_ANCHOR: &str = "start";
/// The `customType` of the pressure hint message.
pub const PRESSURE_HINT_TYPE: &str = "tree-navigator-pressure";
/// The `customType` of the loop hint message ([`crate::loops`]).
pub const LOOP_HINT_TYPE: &str = "tree-navigator-loop";

// ── Texts ────────────────────────────────────────────────────────────────────────────────────────────

/// Appended to the system prompt while the tool is active. Every request pays for it, so it is one
/// sentence: about 190 characters, ≈48 tokens by pi's chars/4 estimate (`guidance_tokens` in the tests).
pub fn system_guidance() -> String {
    "Context management: before bulky work (many files, long outputs) set a navigate_tree anchor; after each \
     finished stage or dead end, list anchors and rewind to keep the context small."
        .into()
}

/// The tool's `promptGuidelines` (pi lists them under the system prompt's guidelines).
pub fn tool_guidelines() -> Vec<String> {
    vec![
        "navigate_tree: rewind to the oldest anchor whose later work is all finished; one rewind then frees the most context.".into(),
        "navigate_tree: never rewind while a question to the user is unanswered; the reply must find the context it refers to.".into(),
        "navigate_tree: need exact text a rewind collapsed? recall it (summary's anchor name, query) instead of redoing work.".into(),
    ]
}

/// The message steered into the running loop when the context crosses the threshold (anchors exist): each
/// anchor with its context % and what a rewind to it would free (`tool::saving`: what it removes, in one
/// count whatever model counted the anchor's %; the summary comes off that).
///
/// A long run can hold hundreds of anchors and the hint is steered into a context that is already full, so it
/// names only the oldest [`MAX_NAMES_SHOWN`] (the ones a rewind should reach for first) and points to `list`
/// for the rest.
pub fn pressure_hint(tokens: f64, window: f64, anchors: &[AnchorSaving]) -> String {
    let names: Vec<String> = anchors
        .iter()
        .take(MAX_NAMES_SHOWN)
        .map(|a| {
            let frees = format_pct1(a.saving.saved_tokens.max(0.0), window);
            format!("'{}' ({}, a rewind frees ~{frees})", a.anchor.name, format_pct1(a.anchor.tokens, window))
        })
        .collect();
    let rest = if anchors.len() > MAX_NAMES_SHOWN { " (action='list' shows them all)" } else { "" };
    format!(
        "[context {} of {}] The context is filling up; pi will soon compact it, which loses detail. Finish the \
         step you are on, then call navigate_tree(action='rewind') to the oldest anchor whose work is done, with \
         a summaryFocus that keeps what still matters. Anchors (oldest first): {}{rest}.",
        format_pct1(tokens, window),
        format_window(window),
        shown_of(names.iter().map(String::as_str), anchors.len())
    )
}

/// The UI note when the context crossed the threshold but there is no anchor to rewind to (nothing is
/// sent to the model then: it could not act on it).
pub fn no_anchor_note(tokens: f64, window: f64) -> String {
    format!(
        "tree-navigator: context at {} of {} and no anchor to rewind to. Give the model one: in /tree, label an \
         earlier entry `anchor:<name>`.",
        format_pct1(tokens, window),
        format_window(window)
    )
}

/// What the loop texts say about a loop ([`crate::loops::Loop`]).
#[derive(Debug, Clone, Copy)]
pub struct LoopFacts<'a> {
    /// The tool.
    pub tool: &'a str,
    /// The call, as one line.
    pub call: &'a str,
    /// The repeated error line, when the results failed.
    pub error: Option<&'a str>,
    /// How many times.
    pub times: u32,
}

impl LoopFacts<'_> {
    /// The tool and its call quoted as code (`bash` then `cargo build` in backticks); a backtick inside the call
    /// would end the quote early, so it becomes `'`.
    pub fn call(&self) -> String {
        format!("{} `{}`", self.tool, self.call.replace('`', "'"))
    }

    /// How the calls went: `failed each time with: <line>` or `got the same result each time`.
    fn outcome(&self) -> String {
        match self.error {
            Some(line) if !line.is_empty() => format!("failed each time with: {line}"),
            Some(_) => "failed the same way each time".into(),
            None => "got the same result each time".into(),
        }
    }
}

/// The message steered into the run when the model repeats itself ([`crate::loops`]). `rewind`: the newest
/// anchor before the loop and the name for the rewind's new anchor; without one the way out is another
/// approach or the user.
pub fn loop_hint(facts: &LoopFacts<'_>, rewind: Option<(&str, &str)>) -> String {
    let head = format!(
        "[loop] You have called {} {} times and it {}. Calling it again will not change that.",
        facts.call(),
        facts.times,
        facts.outcome()
    );
    match rewind {
        Some((anchor, end)) => {
            // The focus is quoted with ' in the call shown: its own ' become ".
            let what = match facts.error {
                Some(line) if !line.is_empty() => format!("failed {} times with: {line}", facts.times),
                Some(_) => format!("failed {} times the same way", facts.times),
                None => format!("gave the same result {} times", facts.times),
            };
            let focus = format!("{} {what}; do not retry it unchanged", facts.call()).replace('\'', "\"");
            format!(
                "{head} Get out of the loop: rewind to '{anchor}', the newest anchor before it, with \
                 navigate_tree(action='rewind', labelStart='{anchor}', labelEnd='{end}', summaryFocus='{focus}') \
                 (add what you learned to the focus), then take a different approach — or ask the user."
            )
        }
        None => format!("{head} Take a different approach, or ask the user."),
    }
}

/// The call as the TUI's one line shows it: cut shorter than in the hint, so the line fits a terminal's width.
const HEADLINE_CALL_MAX: usize = 40;

/// The one line pi's TUI shows for the loop hint (expanded: the hint itself).
pub fn loop_headline(facts: &LoopFacts<'_>, anchor: Option<&str>) -> String {
    let how = if facts.error.is_some() { "same failure" } else { "same result" };
    let way_out = anchor.map_or_else(|| " (no anchor before it)".to_string(), |a| format!(" → rewind to '{a}'"));
    let call = crate::text::to_one_line(facts.call, HEADLINE_CALL_MAX).unwrap_or_default();
    let short = LoopFacts { call: &call, ..*facts };
    format!("loop: {} ×{}, {how}{way_out}", short.call(), facts.times)
}

/// The UI note when the model repeats itself and there is no anchor before the loop to rewind to (the hint
/// still goes to the model, without the rewind).
pub fn loop_note(facts: &LoopFacts<'_>) -> String {
    format!(
        "tree-navigator: the model called {} {} times and it {}; there is no anchor before the loop to rewind to. \
         Give it one: in /tree, label an earlier entry `anchor:<name>`.",
        facts.call(),
        facts.times,
        facts.outcome()
    )
}

/// Appended to a rewind's reply: without it models take the user messages still above the summary for
/// open requests and redo them.
pub fn post_rewind_note() -> String {
    "The newest branch summary is the current state of the work. User messages above it were written before \
     this rewind and are already handled there: do not act on them again."
        .into()
}

/// The instruction appended to the replayed live prompt when a rewind's summary reuses the prompt cache.
/// `first`: 1-based index (system message excluded) of the first message to summarize; `count`: the number
/// of messages before this instruction; `focus`: the model's `summaryFocus`.
pub fn cache_summary_instruction(first: usize, count: usize, focus: &str) -> String {
    format!(
        "Stop the task here: do not continue the work and do not call tools. Write a summary instead.\n\n\
         Summarize messages {first} to {count} of this conversation (counting from 1, system prompt excluded); \
         the messages before {first} are background only. This summary will replace those messages, so keep \
         exact file paths, names, commands and error messages. Use these sections:\n\
         ## Goal\n## Constraints & Preferences\n## Progress\n### Done\n### In Progress\n### Blocked\n\
         ## Key Decisions\n## Next Steps\n\n\
         Focus from the agent:\n{focus}"
    )
}

/// What the pressure crossing turns into.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Tsify)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum PressureMessage {
    /// Send `text` to the model (steered into the running loop).
    Hint {
        /// The message.
        text: String,
    },
    /// No anchor: show `text` to the user (UI only); nothing goes to the model.
    Note {
        /// The note.
        text: String,
    },
}

/// The hint when anchors exist, else the user note.
pub fn pressure_message(tokens: f64, window: f64, anchors: &[AnchorSaving]) -> PressureMessage {
    if anchors.is_empty() {
        PressureMessage::Note { text: no_anchor_note(tokens, window) }
    } else {
        PressureMessage::Hint { text: pressure_hint(tokens, window, anchors) }
    }
}

// ── Pressure tracker ─────────────────────────────────────────────────────────────────────────────────

/// `ctx.getContextUsage()` as the host reports it (any field may be missing).
#[derive(Debug, Clone, Copy, PartialEq, Default, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ContextUsage {
    /// Estimated context tokens (`null` right after a compaction).
    #[serde(default)]
    #[tsify(optional)]
    pub tokens: Option<f64>,
    /// The model's context window.
    #[serde(default)]
    #[tsify(optional)]
    pub context_window: Option<f64>,
    /// Percent of the window (`null` right after a compaction).
    #[serde(default)]
    #[tsify(optional)]
    pub percent: Option<f64>,
}

/// What to do after an observation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum PressureStep {
    /// Nothing (below the threshold, already spent, hint off, or no usable reading).
    Idle,
    /// A fresh crossing: collect the anchors, send the hint (or the UI note), then [`PressureTracker::spend`].
    Crossed,
}

/// Fires once per crossing of the threshold; an observation below it re-arms. A fresh tracker per session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PressureTracker {
    armed: bool,
}

impl Default for PressureTracker {
    fn default() -> Self {
        PressureTracker { armed: true }
    }
}

impl PressureTracker {
    /// Whether the next crossing fires.
    pub fn armed(&self) -> bool {
        self.armed
    }

    /// One reading at `turn_end`. `percent`: the configured threshold (`None`: off); `reserve`: pi's
    /// compaction reserve. A missing reading (no usage, `null` tokens or percent, no window) changes
    /// nothing — pi reports that right after a compaction, and the crossing stays unspent.
    pub fn observe(&mut self, usage: Option<&ContextUsage>, percent: Option<u8>, reserve: f64) -> PressureStep {
        let (Some(percent), Some(u)) = (percent, usage) else { return PressureStep::Idle };
        let (Some(tokens), Some(window), Some(_)) = (u.tokens, u.context_window, u.percent) else { return PressureStep::Idle };
        let Some(threshold) = crate::config::pressure_threshold(percent, window, reserve) else { return PressureStep::Idle };
        if !tokens.is_finite() {
            return PressureStep::Idle;
        }
        if tokens < threshold {
            self.armed = true;
            PressureStep::Idle
        } else if self.armed {
            PressureStep::Crossed
        } else {
            PressureStep::Idle
        }
    }

    /// Whether a reading of `tokens` (the index's estimate, which equals the host's whenever the host gives
    /// a number) could change anything: a crossing while armed, a re-arming while not. Only then is the
    /// host's own reading needed for [`Self::observe`] (it may also say "unknown", right after a
    /// compaction); otherwise it would leave the tracker as it is. Changes nothing itself.
    pub fn worth_reading(&self, tokens: f64, context_window: f64, percent: Option<u8>, reserve: f64) -> bool {
        let Some(threshold) = percent.and_then(|p| crate::config::pressure_threshold(p, context_window, reserve)) else { return false };
        if !tokens.is_finite() {
            return true;
        }
        (tokens >= threshold) == self.armed
    }

    /// The hint (or note) was delivered: stay quiet until a reading below the threshold.
    pub fn spend(&mut self) {
        self.armed = false;
    }
}

// ── Start anchor ─────────────────────────────────────────────────────────────────────────────────────

/// What the shim knows at a `turn_end` or `agent_end`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct StartAnchorFacts {
    /// Turns completed in this session so far (counting this one).
    pub turns: u32,
    /// Whether this is the end of a run (`agent_end`).
    #[serde(default)]
    #[tsify(optional)]
    pub run_ended: bool,
    /// Whether the env kill switch is set.
    #[serde(default)]
    #[tsify(optional)]
    pub disabled_by_env: bool,
}

/// The start-anchor decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum StartAnchorStep {
    /// Not yet.
    Wait,
    /// Label the current leaf `anchor:start` (then the session is done).
    Write,
    /// `anchor:start` already exists on the active branch: the session is done.
    Exists,
    /// Switched off (config or env): the session is done.
    Off,
}

/// Decides the automatic start anchor. `turn`: the configured turn (`None`: off); `exists`: whether
/// `anchor:start` is on the active branch (an existing one counts, whoever set it).
pub fn start_anchor_step(facts: &StartAnchorFacts, turn: Option<u8>, exists: bool) -> StartAnchorStep {
    let Some(turn) = turn else { return StartAnchorStep::Off };
    if facts.disabled_by_env {
        return StartAnchorStep::Off;
    }
    if exists {
        return StartAnchorStep::Exists;
    }
    if facts.turns >= u32::from(turn) || (facts.run_ended && facts.turns > 0) {
        StartAnchorStep::Write
    } else {
        StartAnchorStep::Wait
    }
}

/// [`start_anchor_step`] with the entry a `Write` labels: the leaf (`leaf_id`). With no leaf (before the
/// first entry) there is nothing to label yet, so a `Write` waits.
pub fn start_anchor_decision(facts: &StartAnchorFacts, turn: Option<u8>, exists: bool, leaf_id: Option<String>) -> (StartAnchorStep, Option<String>) {
    match (start_anchor_step(facts, turn, exists), leaf_id) {
        (StartAnchorStep::Write, Some(leaf)) => (StartAnchorStep::Write, Some(leaf)),
        (StartAnchorStep::Write, None) => (StartAnchorStep::Wait, None),
        (step, _) => (step, None),
    }
}

// ── Cache-preserving summary: mode ───────────────────────────────────────────────────────────────────

/// Why a rewind's summary went out as the cold request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "kebab-case")]
pub enum FallbackReason {
    /// Turned off (config `cacheSummary: false` or the env kill switch).
    Disabled,
    /// The host's model registry has no `streamSimple`.
    NoStream,
    /// A collapsed entry is a compaction: part of the branch is not in the live prompt.
    CrossesCompaction,
    /// No request was captured for this session (the host has no `context_with_system` event, or no
    /// request was sent yet).
    NoCapture,
    /// The capture was taken at another leaf than the in-flight assistant's parent.
    StaleCapture,
    /// The replay plus the instruction would not fit below the window's reserve.
    Overflow,
    /// The live-prefix request was sent but failed (error, abort, empty reply); the cold request followed.
    Failed,
}

/// What the shim knows when a rewind's summary is due.
#[allow(clippy::struct_excessive_bools, reason = "independent facts the shim observes, read from one object")]
#[derive(Debug, Clone, PartialEq, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct CacheFacts {
    /// Config `cacheSummary`, and no env kill switch.
    pub enabled: bool,
    /// `ctx.modelRegistry.streamSimple` is a function.
    pub has_stream: bool,
    /// Entry `type`s of the collapsed entries.
    pub collapsed_types: Vec<String>,
    /// A capture exists for this session.
    pub has_capture: bool,
    /// The leaf id at capture time.
    #[serde(default)]
    #[tsify(optional)]
    pub capture_leaf: Option<String>,
    /// The parent of the in-flight assistant message (the rewind's own call).
    #[serde(default)]
    #[tsify(optional)]
    pub call_parent: Option<String>,
    /// Characters of the replayed messages (JSON) plus the instruction.
    pub payload_chars: f64,
    /// The model's context window (0: unknown).
    pub context_window: f64,
    /// The live-prefix request was tried and failed.
    #[serde(default)]
    #[tsify(optional)]
    pub stream_failed: bool,
}

/// The decision: replay the live prefix, or the cold request with a reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct CacheMode {
    /// `"live-prefix"` or `"fallback"`.
    pub mode: &'static str,
    /// Why the fallback (`None` for the live prefix).
    pub reason: Option<FallbackReason>,
}

/// The room the summary reply needs below the window, as pi's own summarizer reserves.
pub const SUMMARY_RESERVE_TOKENS: f64 = 16_384.0;

/// Chooses the summary request. The checks run in this order, so the reason names the first obstacle.
pub fn cache_mode(f: &CacheFacts) -> CacheMode {
    let fallback = |r| CacheMode { mode: "fallback", reason: Some(r) };
    if !f.enabled {
        return fallback(FallbackReason::Disabled);
    }
    if !f.has_capture {
        return fallback(FallbackReason::NoCapture);
    }
    if !f.has_stream {
        return fallback(FallbackReason::NoStream);
    }
    if f.collapsed_types.iter().any(|t| t == "compaction") {
        return fallback(FallbackReason::CrossesCompaction);
    }
    if f.capture_leaf.is_none() || f.capture_leaf != f.call_parent {
        return fallback(FallbackReason::StaleCapture);
    }
    let tokens = (f.payload_chars / 4.0).ceil();
    if f.context_window > 0.0 && tokens > f.context_window - SUMMARY_RESERVE_TOKENS {
        return fallback(FallbackReason::Overflow);
    }
    if f.stream_failed {
        return fallback(FallbackReason::Failed);
    }
    CacheMode { mode: "live-prefix", reason: None }
}

/// Headers for a summary request: the credentials' own (entries whose value is `null` dropped: pi ≥0.84
/// uses `null` to mean "remove", and a provider must never receive it), plus, for opencode providers, the
/// session headers they require — never overwriting a header the credentials already set.
pub fn summary_headers(provider: &str, headers: &serde_json::Map<String, serde_json::Value>, session_id: &str) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    for (k, v) in headers {
        match v {
            serde_json::Value::Null => {}
            serde_json::Value::String(s) => {
                out.insert(k.clone(), s.clone());
            }
            other => {
                out.insert(k.clone(), other.to_string());
            }
        }
    }
    if provider == "opencode" || provider.starts_with("opencode-") {
        let has = |out: &std::collections::BTreeMap<String, String>, name: &str| out.keys().any(|k| k.eq_ignore_ascii_case(name));
        if !has(&out, "x-opencode-session") && !session_id.is_empty() && !headers.keys().any(|k| k.eq_ignore_ascii_case("x-opencode-session")) {
            out.insert("x-opencode-session".into(), session_id.into());
        }
        if !has(&out, "x-opencode-client") && !headers.keys().any(|k| k.eq_ignore_ascii_case("x-opencode-client")) {
            out.insert("x-opencode-client".into(), "pi".into());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(tokens: f64) -> ContextUsage {
        ContextUsage { tokens: Some(tokens), context_window: Some(128_000.0), percent: Some(tokens / 1280.0) }
    }

    #[test]
    fn guidance_is_short() {
        // What every request pays: pi estimates chars/4.
        let chars = system_guidance().chars().count() + tool_guidelines().iter().map(|g| g.chars().count()).sum::<usize>();
        let tokens = chars.div_ceil(4);
        assert!(system_guidance().chars().count() <= 200, "{}", system_guidance().chars().count());
        // 110 before recall's line (~28 tokens).
        assert!(tokens <= 140, "guidance costs {tokens} tokens");
    }

    #[test]
    fn tracker_fires_once_per_crossing_and_rearms_below() {
        let mut t = PressureTracker::default();
        let r = crate::config::PI_RESERVE_TOKENS;
        // (tokens, expected step, whether the shim spends)
        let steps: &[(f64, PressureStep, bool)] = &[
            (10_000.0, PressureStep::Idle, false),
            (90_000.0, PressureStep::Crossed, true),
            (95_000.0, PressureStep::Idle, false),
            (20_000.0, PressureStep::Idle, false),
            (89_600.0, PressureStep::Crossed, false), // not spent (e.g. reading the branch threw) …
            (91_000.0, PressureStep::Crossed, true),  // … so it fires again next turn
            (91_000.0, PressureStep::Idle, false),
        ];
        for (tokens, expected, spend) in steps {
            assert_eq!(t.observe(Some(&usage(*tokens)), Some(70), r), *expected, "{tokens}");
            if *spend {
                t.spend();
            }
        }
    }

    #[test]
    fn the_hosts_reading_is_worth_it_only_where_it_changes_something() {
        let r = crate::config::PI_RESERVE_TOKENS;
        let w = 128_000.0;
        // Over the same readings, skipping every one `worth_reading` turns down leaves the tracker and its
        // steps as observing them all does.
        let readings = [10_000.0, 90_000.0, 95_000.0, 20_000.0, 89_600.0, 91_000.0, 91_000.0, 5_000.0, 99_000.0, 99_500.0];
        let (mut all, mut screened) = (PressureTracker::default(), PressureTracker::default());
        for tokens in readings {
            let want = all.observe(Some(&usage(tokens)), Some(70), r);
            let got = if screened.worth_reading(tokens, w, Some(70), r) { screened.observe(Some(&usage(tokens)), Some(70), r) } else { PressureStep::Idle };
            assert_eq!((got, screened.armed()), (want, all.armed()), "{tokens}");
            if want == PressureStep::Crossed {
                all.spend();
                screened.spend();
            }
        }
        let t = PressureTracker::default();
        assert!(!t.worth_reading(50_000.0, w, None, r), "hint off");
        assert!(!t.worth_reading(50_000.0, 0.0, Some(70), r), "no window");
        assert!(t.worth_reading(f64::NAN, w, Some(70), r), "no estimate: ask");
        assert!(!t.worth_reading(10_000.0, w, Some(70), r), "armed, far below");
        assert!(t.worth_reading(100_000.0, w, Some(70), r), "armed, above");
    }

    #[test]
    fn tracker_ignores_missing_readings() {
        let r = crate::config::PI_RESERVE_TOKENS;
        let mut t = PressureTracker::default();
        t.spend();
        let missing = [
            None,
            Some(ContextUsage { tokens: None, context_window: Some(128_000.0), percent: None }),
            Some(ContextUsage { tokens: Some(1.0), context_window: Some(128_000.0), percent: None }),
            Some(ContextUsage { tokens: Some(1.0), context_window: Some(0.0), percent: Some(0.0) }),
            Some(ContextUsage { tokens: Some(1.0), context_window: None, percent: Some(0.0) }),
        ];
        for u in &missing {
            assert_eq!(t.observe(u.as_ref(), Some(70), r), PressureStep::Idle);
            assert!(!t.armed(), "{u:?} must not re-arm");
        }
        // Hint off: never fires.
        let mut t = PressureTracker::default();
        assert_eq!(t.observe(Some(&usage(120_000.0)), None, r), PressureStep::Idle);
    }

    #[test]
    fn start_anchor_decisions() {
        let f = |turns, run_ended, env| StartAnchorFacts { turns, run_ended, disabled_by_env: env };
        let cases = [
            (f(1, false, false), Some(2), false, StartAnchorStep::Wait),
            (f(2, false, false), Some(2), false, StartAnchorStep::Write),
            (f(3, false, false), Some(2), false, StartAnchorStep::Write),
            (f(1, true, false), Some(2), false, StartAnchorStep::Write),
            (f(0, true, false), Some(2), false, StartAnchorStep::Wait),
            (f(2, false, false), Some(2), true, StartAnchorStep::Exists),
            (f(2, false, false), None, false, StartAnchorStep::Off),
            (f(2, false, true), Some(2), false, StartAnchorStep::Off),
            (f(9, false, false), Some(10), false, StartAnchorStep::Wait),
        ];
        for (facts, turn, exists, expected) in cases {
            assert_eq!(start_anchor_step(&facts, turn, exists), expected, "{facts:?} {turn:?} {exists}");
        }
        // The entry a write labels is the leaf; with no leaf a write waits.
        let leaf = || Some("e1".to_string());
        assert_eq!(start_anchor_decision(&f(2, false, false), Some(2), false, leaf()), (StartAnchorStep::Write, leaf()));
        assert_eq!(start_anchor_decision(&f(2, false, false), Some(2), false, None), (StartAnchorStep::Wait, None));
        assert_eq!(start_anchor_decision(&f(2, false, false), Some(2), true, leaf()), (StartAnchorStep::Exists, None));
        assert_eq!(start_anchor_decision(&f(1, false, false), Some(2), false, leaf()), (StartAnchorStep::Wait, None));
    }

    fn facts() -> CacheFacts {
        CacheFacts {
            enabled: true,
            has_stream: true,
            collapsed_types: vec!["message".into(), "label".into()],
            has_capture: true,
            capture_leaf: Some("a1".into()),
            call_parent: Some("a1".into()),
            payload_chars: 40_000.0,
            context_window: 128_000.0,
            stream_failed: false,
        }
    }

    #[test]
    fn cache_mode_reasons() {
        assert_eq!(cache_mode(&facts()), CacheMode { mode: "live-prefix", reason: None });
        let cases: Vec<(CacheFacts, FallbackReason)> = vec![
            (CacheFacts { enabled: false, ..facts() }, FallbackReason::Disabled),
            (CacheFacts { has_stream: false, ..facts() }, FallbackReason::NoStream),
            (CacheFacts { collapsed_types: vec!["message".into(), "compaction".into()], ..facts() }, FallbackReason::CrossesCompaction),
            (CacheFacts { has_capture: false, ..facts() }, FallbackReason::NoCapture),
            (CacheFacts { capture_leaf: Some("b2".into()), ..facts() }, FallbackReason::StaleCapture),
            (CacheFacts { capture_leaf: None, ..facts() }, FallbackReason::StaleCapture),
            (CacheFacts { payload_chars: 4.0 * (128_000.0 - 16_384.0) + 4.0, ..facts() }, FallbackReason::Overflow),
            (CacheFacts { stream_failed: true, ..facts() }, FallbackReason::Failed),
            // The first obstacle is named: no capture before no stream.
            (CacheFacts { has_capture: false, has_stream: false, ..facts() }, FallbackReason::NoCapture),
        ];
        for (f, reason) in cases {
            assert_eq!(cache_mode(&f), CacheMode { mode: "fallback", reason: Some(reason) }, "{f:?}");
        }
        // Exactly at the limit still fits.
        assert_eq!(cache_mode(&CacheFacts { payload_chars: 4.0 * (128_000.0 - 16_384.0), ..facts() }).mode, "live-prefix");
        let json = serde_json::to_string(&FallbackReason::CrossesCompaction).unwrap();
        assert_eq!(json, "\"crosses-compaction\"");
    }

    #[test]
    fn headers_for_summaries() {
        let map = |j: &str| serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(j).unwrap();
        let h = summary_headers("anthropic", &map(r#"{"a":"1","gone":null}"#), "s1");
        assert_eq!(h.into_iter().collect::<Vec<_>>(), vec![("a".to_string(), "1".to_string())]);
        let h = summary_headers("opencode", &map(r#"{"X-Opencode-Session":"auth-set"}"#), "s1");
        assert_eq!(h.get("X-Opencode-Session").map(String::as_str), Some("auth-set"));
        assert!(!h.contains_key("x-opencode-session"), "never overwrite what auth set");
        assert_eq!(h.get("x-opencode-client").map(String::as_str), Some("pi"));
        let h = summary_headers("opencode-go", &map("{}"), "s2");
        assert_eq!(h.get("x-opencode-session").map(String::as_str), Some("s2"));
        // A null from auth means "remove": not sent, and not replaced either.
        let h = summary_headers("opencode", &map(r#"{"x-opencode-client":null}"#), "s3");
        assert!(!h.contains_key("x-opencode-client"));
    }

    /// An anchor at `tokens` whose rewind would free `saved`.
    fn anchor(name: &str, slot: u32, tokens: f64, saved: f64) -> AnchorSaving {
        let anchor = crate::session::Anchor { name: name.into(), entry_id: format!("e{slot}"), slot, tokens, hint: None };
        let saving = crate::tool::RewindSaving { removed_tokens: saved, summary_tokens: 0.0, saved_tokens: saved, baseline_changed: false };
        AnchorSaving { anchor, saving }
    }

    #[test]
    fn texts_carry_their_facts() {
        let a = [anchor("start", 0, 12_800.0, 76_800.0)];
        let h = pressure_hint(96_000.0, 128_000.0, &a);
        assert!(h.starts_with("[context 75.0% of 128k]"), "{h}");
        assert!(h.contains("'start' (10.0%, a rewind frees ~60.0%)"), "{h}");
        // Nothing to free (behind a compaction: a rewind would bring its prefix back) reads as none.
        assert!(pressure_hint(96_000.0, 128_000.0, &[anchor("old", 0, 90_000.0, -5_000.0)]).contains("frees ~0.0%"));
        assert!(no_anchor_note(96_000.0, 128_000.0).contains("anchor:<name>"));
        // A long run's anchors: the oldest ten by name, the rest counted, `list` named for them.
        let many: Vec<AnchorSaving> = (0..25).map(|i| anchor(&format!("a{i}"), i, 1_000.0 * f64::from(i), 1_280.0)).collect();
        let h = pressure_hint(96_000.0, 128_000.0, &many);
        assert!(h.contains("'a9' (7.0%, a rewind frees ~1.0%) and 15 more (action='list' shows them all)."), "{h}");
        assert!(!h.contains("'a10'"), "{h}");
        assert!(!pressure_hint(96_000.0, 128_000.0, &many[..10]).contains("more"));
        let i = cache_summary_instruction(3, 9, "keep the parser plan");
        assert!(i.contains("messages 3 to 9") && i.ends_with("keep the parser plan"), "{i}");
    }
}
