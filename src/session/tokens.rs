//! Token estimates identical to pi's: `estimateContextTokens(buildSessionContext(…).messages)` (pi
//! 0.74–0.86), `estimateProjectedContextTokens(buildSessionProjection(…), branch)` (pi ≥0.87: what its
//! `getContextUsage()` reports), and the estimate "as if the leaf were here" for every entry of a path in
//! one pass. The differences are the [`Profile`]'s rules; which messages the context holds is decided by
//! `super::context` ([`Messages`]), counted here.
//!
//! pi's estimate anchors on the last assistant message with usable `usage` and adds `ceil(chars/4)` for
//! every message after it; with no such assistant it sums every message. Each entry's own share
//! (`Entry::tokens`, `Entry::usage`) is computed once at ingest, so an estimate is a walk over numbers.

use serde::Serialize;
use tsify_next::Tsify;

use super::context::{source_slot, tokens_of, Messages, Source, Step};
use super::entry::{patch_parts, Kind, RoleKind};
use super::read::ceil_quarter;
use super::index::{Leaf, SessionIndex};
use super::profile::Profile;
use super::record::{Record, Slot};
use crate::error::SessionError;

/// pi's `estimateContextTokens` result.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct TokenEstimate {
    /// `usageTokens + trailingTokens`.
    pub tokens: f64,
    /// The anchoring assistant's usage, or 0.
    pub usage_tokens: f64,
    /// Estimated tokens of the messages after the anchor (all messages when there is none).
    pub trailing_tokens: f64,
    /// Index of the anchoring assistant in the context's messages.
    pub last_usage_index: Option<usize>,
}

/// Running estimate over a context being built message by message.
#[derive(Debug, Default, Clone, Copy)]
struct Running {
    all: f64,
    /// The part of `all` that system messages count.
    system: f64,
    trailing: f64,
    usage: Option<f64>,
    usage_index: usize,
    /// Path position of the entry the anchoring usage comes from.
    usage_pos: usize,
    messages: usize,
}

impl Running {
    fn push(&mut self, tokens: f64, usage: Option<f64>, pos: usize, system: bool) {
        if system {
            self.system += tokens;
        }
        if let Some(u) = usage {
            self.usage = Some(u);
            self.usage_index = self.messages;
            self.usage_pos = pos;
            self.trailing = 0.0;
        } else {
            self.trailing += tokens;
        }
        self.all += tokens;
        self.messages += 1;
    }

    /// The estimate; `distrust_until`: a usage from this path position or before is not trusted (the
    /// shared rule of `estimateProjectedContextTokens`, see [`super::profile`]). Without a trusted usage
    /// every message counts, the system messages as `system` (their replay, or their sum).
    fn estimate(&self, distrust_until: Option<usize>, system: Option<f64>) -> TokenEstimate {
        match self.usage {
            Some(u) if distrust_until.map_or(true, |p| self.usage_pos > p) => TokenEstimate {
                tokens: u + self.trailing,
                usage_tokens: u,
                trailing_tokens: self.trailing,
                last_usage_index: Some(self.usage_index),
            },
            _ => {
                let all = system.map_or(self.all, |system| self.all - self.system + system);
                TokenEstimate { tokens: all, usage_tokens: 0.0, trailing_tokens: all, last_usage_index: None }
            }
        }
    }
}

/// pi ≥0.87's `getCurrentSystemMessage` over the context's system messages so far, as far as its
/// estimate goes (see [`SystemPatch`]).
#[derive(Debug, Default)]
struct Replay<'i> {
    /// Characters of the non-empty content texts, and how many there are (joined by `"\n\n"`).
    content: usize,
    texts: usize,
    /// By name (a few per session: a list is enough; a tool's name may be missing).
    sections: Vec<(Option<&'i str>, usize)>,
    tools: Vec<(Option<&'i str>, usize)>,
    timestamp: bool,
}

/// `map.set(name, value)` (`Some`) or `map.delete(name)` (`None`) on a list of pairs.
fn set<'i>(list: &mut Vec<(Option<&'i str>, usize)>, name: Option<&'i str>, value: Option<usize>) {
    let at = list.iter().position(|(k, _)| *k == name);
    match (at, value) {
        (Some(i), Some(v)) => list[i].1 = v,
        (None, Some(v)) => list.push((name, v)),
        (Some(i), None) => {
            list.swap_remove(i);
        }
        (None, None) => {}
    }
}

impl<'i> Replay<'i> {
    /// Applies one system message's encoded [`super::entry::SystemPatch`].
    fn apply(&mut self, patch: &'i str) {
        let Some((timestamp, content, items)) = patch_parts(patch) else { return };
        self.timestamp |= timestamp;
        if content > 0 {
            self.content += content;
            self.texts += 1;
        }
        for (tag, name, len) in items.flatten() {
            match tag {
                's' => set(&mut self.sections, name, len),
                'r' => set(&mut self.tools, name, None),
                _ => set(&mut self.tools, name, len),
            }
        }
    }

    /// `estimateTokens` of the replayed system message (0 when pi has none).
    fn tokens(&self) -> f64 {
        if !self.timestamp && self.tools.is_empty() {
            return 0.0;
        }
        let separators = 2 * self.texts.saturating_sub(1);
        let sections: usize = self.sections.iter().map(|s| s.1).sum();
        let tools = match self.tools.len() {
            0 => 0,
            n => 2 + self.tools.iter().map(|t| t.1).sum::<usize>() + n - 1,
        };
        ceil_quarter(self.content + separators + sections + tools)
    }
}

/// Counts one message of the context (as the context's edits leave it) into the running estimate and,
/// where the profile counts system messages, into the replayed system message.
/// `record`: the message's entry's (the one at [`source_slot`]).
#[inline(always)]
fn tally<'i>(index: &'i SessionIndex, profile: Profile, run: &mut Running, replay: &mut Replay<'i>, source: Source, record: &Record, pos: usize) {
    let compaction_system = matches!(source, Source::CompactionSystem(_));
    let usage = if compaction_system { None } else { record.usage() };
    let system = compaction_system || record.kind == Kind::Message(RoleKind::System);
    run.push(tokens_of(index, source, record), usage, pos, system);
    if system && profile.counts_system_messages() {
        if let Some(patch) = index.text(record.system_patch()) {
            replay.apply(patch);
        }
    }
}

/// The estimate of the context pi builds (its messages decided by [`Messages`]), grown one path entry at
/// a time.
struct Context<'i> {
    index: &'i SessionIndex,
    profile: Profile,
    /// The context's messages (listed only while edits can change them).
    messages: Messages<'i>,
    /// Path position of the branch's latest `context_edit` or compaction, where usage before it is
    /// not trusted.
    distrust_until: Option<usize>,
    run: Running,
    /// The context's system messages replayed (where the profile counts system messages).
    replay: Replay<'i>,
}

impl<'i> Context<'i> {
    fn new(index: &'i SessionIndex) -> Self {
        let profile = index.profile().0;
        Context {
            index,
            profile,
            messages: Messages::new(index, profile.applies_context_edits()),
            distrust_until: None,
            run: Running::default(),
            replay: Replay::default(),
        }
    }

    /// Counts a message of the context, as its edits leave it (not at all when they omit it); `record`:
    /// its entry's.
    #[inline(always)]
    fn count(&mut self, source: Source, record: &Record, pos: usize) {
        if let Some(source) = self.messages.edited(source) {
            tally(self.index, self.profile, &mut self.run, &mut self.replay, source, record, pos);
        }
    }

    /// The running estimate again from the messages (after an edit changed what some of them send).
    fn rebuild(&mut self) {
        self.run = Running::default();
        self.replay = Replay::default();
        for i in 0..self.messages.list().len() {
            let (source, pos) = self.messages.list()[i];
            self.count(source, self.index.record(source_slot(source)), pos);
        }
    }

    /// The entry at path position `pos` joins the context (a compaction is [`Context::restart`]).
    fn add(&mut self, slot: Slot, pos: usize) {
        match self.messages.add(slot, pos) {
            Step::Message(source, record) => self.count(source, record, pos),
            Step::Edit { applied } => {
                self.distrust_until = Some(pos);
                if applied {
                    self.rebuild();
                }
            }
            Step::None => {}
        }
    }

    /// A compaction at path position `pos`: its messages, then the kept entries (`kept`, with their
    /// path positions), as the context from here on.
    fn restart(&mut self, slot: Slot, pos: usize, kept: impl Iterator<Item = (usize, Slot)>) {
        self.run = Running::default();
        self.replay = Replay::default();
        self.distrust_until = Some(pos);
        let (index, profile, run, replay) = (self.index, self.profile, &mut self.run, &mut self.replay);
        // Counted as they join; a kept edit makes the whole context count again.
        if self.messages.restart(slot, pos, kept, |source, p| {
            tally(index, profile, run, replay, source, index.record(source_slot(source)), p);
        }) {
            self.rebuild();
        }
    }

    fn estimate(&self) -> TokenEstimate {
        let system = self.profile.counts_system_messages().then(|| self.replay.tokens());
        self.run.estimate(self.distrust_until, system)
    }

    /// The context counted by its messages' own estimates alone, no usage trusted (pi's estimate where it
    /// has no usage to anchor on): what [`PathPoint::content`] holds.
    fn content(&self) -> f64 {
        let system = self.profile.counts_system_messages().then(|| self.replay.tokens());
        self.run.estimate(Some(usize::MAX), system).tokens
    }

    /// The path position of the usage [`Context::estimate`] anchors on, if it trusts one.
    fn usage_pos(&self) -> Option<usize> {
        let trusted = self.run.usage.is_some() && self.distrust_until.map_or(true, |p| self.run.usage_pos > p);
        trusted.then_some(self.run.usage_pos)
    }
}

/// One position of a path as a rewind weighs it (see `tool::saving`): pi's estimate there, the same context
/// counted by its messages' own estimates, and the entry whose usage pi's estimate anchors on.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PathPoint {
    /// pi's estimate with this entry as leaf ([`cumulative`]'s).
    pub estimate: TokenEstimate,
    /// The same context with no usage trusted: every message by its own `estimateTokens` (the system
    /// messages as the profile counts them). The difference of two of these on one path is what the
    /// messages between them weigh, in one unit whatever model answered; two usage-anchored estimates
    /// differ by the providers' counts as well.
    pub content: f64,
    /// The entry whose usage `estimate` anchors on (`None`: it trusts none and counts every message).
    pub usage_slot: Option<Slot>,
}

/// [`cumulative`] with the rest of each [`PathPoint`]: the same one pass.
pub fn path_points(index: &SessionIndex, path: &[Slot]) -> Vec<PathPoint> {
    let mut out = Vec::with_capacity(path.len());
    walk(index, path, &mut |context| {
        let usage_slot = context.usage_pos().and_then(|p| path.get(p).copied());
        out.push(PathPoint { estimate: context.estimate(), content: context.content(), usage_slot });
    });
    out
}

/// For each position `i` of `path` (root first), the estimate of the context pi would build with
/// `path[i]` as leaf, under the index's profile. One pass; a compaction restarts the context from its
/// kept entries, and an edit recounts the context built so far.
pub fn cumulative(index: &SessionIndex, path: &[Slot]) -> Vec<TokenEstimate> {
    let mut out = Vec::with_capacity(path.len());
    walk(index, path, &mut |context| out.push(context.estimate()));
    out
}

/// The context pi builds at each position of `path`, grown one entry at a time, handed to `at` there (in
/// order). One copy of the walk for every reader of it (a call per entry through `dyn` costs nothing next to
/// the walk; a copy per reader cost the module kilobytes).
fn walk<'i>(index: &'i SessionIndex, path: &[Slot], at: &mut dyn FnMut(&Context<'i>)) {
    let mut context = Context::new(index);
    // Position of each path entry, to find a compaction's first kept entry without scanning the path.
    // Filled only up to the latest compaction met, so a path without one never touches the table.
    let mut position = index.take_position_scratch();
    let mut filled = 0;
    for (i, &slot) in path.iter().enumerate() {
        let record = index.record(slot);
        if record.kind != Kind::Compaction {
            context.add(slot, i);
            at(&context);
            continue;
        }
        if position.len() < index.len() {
            position.resize(index.len(), u32::MAX);
        }
        // Checked access throughout (slots and positions are in range): no panic paths to carry.
        for j in filled..i {
            // The first position wins, like pi's `findIndex`.
            let unset = path.get(j).and_then(|&s| position.get_mut(s as usize)).filter(|p| **p == u32::MAX);
            if let Some(p) = unset {
                *p = j as u32;
            }
        }
        filled = filled.max(i);
        // Kept entries: from `firstKeptEntryId` (the first entry with that id before the compaction,
        // as pi searches) up to the compaction; none if the id is not there.
        let start = index.entry(slot).first_kept().and_then(|first| kept_start(index, path, &position, first, i));
        let kept = start.and_then(|start| path.get(start..i).map(|k| (start, k))).unwrap_or_default();
        context.restart(slot, i, kept.1.iter().enumerate().map(|(j, &s)| (kept.0 + j, s)));
        at(&context);
    }
    // Hand the table back all-unset, touching only what this path set (no O(entries) reset per call).
    for &s in path.get(..filled).unwrap_or_default() {
        if let Some(p) = position.get_mut(s as usize) {
            *p = u32::MAX;
        }
    }
    index.return_position_scratch(position);
}

/// Where the kept range of a compaction at `at` starts: the first path position before it whose entry has
/// id `first`. By slot in the usual case; by id only when repeated ids could hide it behind another slot.
fn kept_start(index: &SessionIndex, path: &[Slot], position: &[u32], first: &str, at: usize) -> Option<usize> {
    if index.has_duplicate_ids() {
        return path.iter().take(at).position(|&s| index.id_of(s) == first);
    }
    let slot = index.slot_of(first)?;
    let pos = *position.get(slot as usize)? as usize;
    (pos < at).then_some(pos)
}

impl SessionIndex {
    /// [`Self::estimate`]'s tokens at the current leaf, counted from the last usage pi's estimate anchors on
    /// (after a turn, the turn's few entries) instead of along the whole path: the same number, in time that
    /// does not grow with the session. A compaction or a `context_edit` after that usage changes what is
    /// trusted or counted, and so does a path without one: then the whole path is walked.
    pub fn leaf_tokens(&mut self) -> Result<f64, SessionError> {
        let mut tail = Vec::new();
        let mut slot = self.leaf();
        while let Some(s) = slot {
            let record = self.record(s);
            // (a path longer than the index holds runs in a circle: the whole walk reports it)
            if matches!(record.kind, Kind::Compaction | Kind::ContextEdit) || tail.len() > self.len() {
                break;
            }
            let anchors = record.emits_message() && record.usage().is_some();
            tail.push(s);
            if anchors {
                tail.reverse();
                let mut context = Context::new(self);
                for (pos, &s) in tail.iter().enumerate() {
                    context.add(s, pos);
                }
                return Ok(context.estimate().tokens);
            }
            slot = self.parent_of(s);
        }
        self.estimate(Leaf::Current).map(|e| e.tokens)
    }

    /// pi's estimate for the context with `leaf` as leaf.
    pub fn estimate(&mut self, leaf: Leaf<'_>) -> Result<TokenEstimate, SessionError> {
        let slot = self.resolve_leaf(leaf);
        let path = self.path(slot)?;
        Ok(cumulative(self, &path).last().copied().unwrap_or_default())
    }
}
