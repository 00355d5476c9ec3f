//! Every loop a session file holds, afterwards (`stats`' `waste`, the viewer): the rule of [`super`] run over
//! every branch of the tree, each path from its root with the state its parent left, so work two branches
//! share is looked at once. Each loop with its call, how many times it came, the requests that made those
//! calls and — when the file records prices — the money they took.
//!
//! The index keeps no tool arguments or results, so what the rule needs of each entry ([`Steps`]) is read
//! from the entry's JSON text: as the entries are taken ([`Steps::collect`], an index fed from a file) or
//! from a full index's texts ([`Steps::from_full`]).

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use tsify_next::Tsify;

use super::{CallDigest, LoopDetector, LoopKind, LoopStep, ResultDigest};
use crate::error::SessionError;
use crate::session::{SessionIndex, Slot};

/// What one entry is to the rule.
#[derive(Debug, Clone)]
enum Step {
    /// A user message: a new run.
    User,
    /// An assistant message (a request) with tool calls.
    Calls(Vec<CallDigest>),
    /// A tool result, by the call it answers.
    Result { call_id: String, digest: ResultDigest },
}

/// What the rule needs of a session's entries, by slot, and what each request cost.
#[derive(Debug, Default)]
pub struct Steps {
    /// Ascending by slot (entries come in slot order).
    by_slot: Vec<(Slot, Step)>,
    /// Each assistant message's recorded `usage.cost.total`, by slot (those that record one).
    costs: HashMap<Slot, f64>,
    /// Whether any request records a price above zero.
    priced: bool,
}

impl Steps {
    /// Starts collecting `index`'s entries as they are taken (before it is fed); the steps fill the
    /// returned cell as the index is fed.
    pub fn collect(index: &mut SessionIndex) -> Rc<RefCell<Steps>> {
        let steps = Rc::new(RefCell::new(Steps::default()));
        let sink = Rc::clone(&steps);
        index.observe_entries(Box::new(move |slot, text| sink.borrow_mut().take(slot, text)));
        steps
    }

    /// The steps of a full index's entries (it keeps each entry's text).
    pub fn from_full(index: &SessionIndex) -> Steps {
        let mut steps = Steps::default();
        for slot in 0..index.len() as Slot {
            if let Some(text) = index.raw(slot) {
                steps.take(slot, text);
            }
        }
        steps
    }

    /// Reads the entry at `slot` from its JSON text (a line that is no message, or does not read, is no step).
    pub fn take(&mut self, slot: Slot, text: &str) {
        let Ok(Line { kind: Some(kind), message: Some(message) }) = serde_json::from_str::<Line<'_>>(text) else { return };
        if kind != "message" {
            return;
        }
        let step = match message.role.as_deref() {
            Some("user") => Step::User,
            Some("assistant") => {
                if let Some(cost) = message.usage.and_then(cost_of) {
                    self.priced |= cost > 0.0;
                    self.costs.insert(slot, cost);
                }
                let calls: Vec<CallDigest> = blocks(message.content)
                    .into_iter()
                    .filter(|b| b.kind.as_deref() == Some("toolCall"))
                    .map(|b| {
                        let arguments = b.arguments.map_or("{}", RawValue::get);
                        CallDigest::of(b.id.as_deref().unwrap_or(""), b.name.as_deref().unwrap_or(""), arguments)
                    })
                    .collect();
                if calls.is_empty() {
                    return;
                }
                Step::Calls(calls)
            }
            Some("toolResult") => {
                let Some(call_id) = message.tool_call_id else { return };
                let failed = message.is_error.is_some_and(|v| v.get() == "true");
                Step::Result { call_id: call_id.into_owned(), digest: ResultDigest::of(&text_of(message.content), failed) }
            }
            _ => return,
        };
        self.by_slot.push((slot, step));
    }

    fn at(&self, slot: Slot) -> Option<&Step> {
        self.by_slot.binary_search_by_key(&slot, |(s, _)| *s).ok().and_then(|i| self.by_slot.get(i)).map(|(_, step)| step)
    }
}

/// One JSONL line, as far as the rule reads it.
#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<Message<'a>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Message<'a> {
    #[serde(borrow, default)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tool_call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    is_error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
}

/// A content block, as far as the rule reads it.
#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
}

/// The blocks of a message's `content` (none when it is not an array of objects).
fn blocks(content: Option<&RawValue>) -> Vec<Block<'_>> {
    content.and_then(|c| serde_json::from_str::<Vec<Block<'_>>>(c.get()).ok()).unwrap_or_default()
}

/// A result's text: a string content, or its text blocks joined by newlines (as the shim joins them).
fn text_of(content: Option<&RawValue>) -> String {
    if let Some(Ok(text)) = content.filter(|c| c.get().starts_with('"')).map(|c| serde_json::from_str::<String>(c.get())) {
        return text;
    }
    let parts: Vec<Cow<'_, str>> = blocks(content).into_iter().filter(|b| b.kind.as_deref() == Some("text")).filter_map(|b| b.text).collect();
    parts.join("\n")
}

#[derive(Deserialize)]
struct Usage {
    #[serde(default)]
    cost: Option<Cost>,
}

#[derive(Deserialize)]
struct Cost {
    #[serde(default)]
    total: Option<f64>,
}

/// A request's recorded `usage.cost.total` (USD), when it is a number ≥ 0.
fn cost_of(usage: &RawValue) -> Option<f64> {
    let total = serde_json::from_str::<Usage>(usage.get()).ok()?.cost?.total?;
    (total.is_finite() && total >= 0.0).then_some(total)
}

/// The money `requests` took: the sum of their recorded `usage.cost.total` (a request that records none
/// counts 0); `None` when the file records no prices at all (subscriptions, local models), so that no text
/// says "$0.00" for work that was never priced. (Issue 39's cost model is the session's money; this is
/// only what the loops' own requests recorded.)
fn requests_usd(steps: &Steps, requests: &[Slot]) -> Option<f64> {
    steps.priced.then(|| requests.iter().filter_map(|slot| steps.costs.get(slot)).sum())
}

/// Every loop in a file.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct Waste {
    /// The repeats that make a loop here.
    pub threshold: u32,
    /// Whether the file records prices (some request's `usage.cost.total` above 0).
    pub priced: bool,
    /// The loops, in the order they started.
    pub loops: Vec<WasteLoop>,
    /// Calls made in loops.
    pub calls: u32,
    /// Requests that made them.
    pub requests: u32,
    /// What those requests cost (USD); `None` without prices.
    pub usd: Option<f64>,
}

/// One loop found afterwards.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct WasteLoop {
    /// Which rule found it.
    pub kind: LoopKind,
    /// The tool.
    pub tool: String,
    /// The call, as one line (the one that completed the loop).
    pub call: String,
    /// The repeated error line, when the results failed.
    pub error: Option<String>,
    /// How many times the call (or the failure) came, all branches.
    pub repeats: u32,
    /// The requests (assistant messages) that made those calls: their entry ids, oldest first.
    pub request_ids: Vec<String>,
    /// Whether its last request is on the active path.
    pub active_path: bool,
    /// What those requests cost (USD); `None` without prices.
    pub usd: Option<f64>,
}

/// A loop being gathered.
#[derive(Debug)]
struct Gathered {
    found: super::Loop,
    calls: Vec<String>,
}

/// The state of one path: the rule's, and the calls waiting for their results.
#[derive(Debug, Clone)]
struct Run {
    detector: LoopDetector,
    pending: Vec<CallDigest>,
}

/// Every loop in `index`'s tree, read with `steps`; `repeats` make a loop.
pub fn waste(index: &mut SessionIndex, steps: &Steps, repeats: u8) -> Result<Waste, SessionError> {
    // Which request made each call (the later one should an id repeat: a rewind's synthetic call reuses its id).
    let mut request_of: HashMap<&str, Slot> = HashMap::new();
    for (slot, step) in &steps.by_slot {
        if let Step::Calls(calls) = step {
            for c in calls {
                request_of.insert(&c.id, *slot);
            }
        }
    }
    let mut gathered: Vec<Gathered> = Vec::new();
    let mut by_first: HashMap<String, usize> = HashMap::new();
    let fresh = Run { detector: LoopDetector::new(repeats), pending: Vec::new() };
    let mut stack: Vec<(Slot, Run)> = index.roots().into_iter().rev().map(|r| (r, fresh.clone())).collect();
    while let Some((slot, mut run)) = stack.pop() {
        match steps.at(slot) {
            Some(Step::User) => {
                run.detector.reset();
                run.pending.clear();
            }
            Some(Step::Calls(calls)) => run.pending.extend(calls.iter().cloned()),
            Some(Step::Result { call_id, digest }) => {
                if let Some(at) = run.pending.iter().position(|c| &c.id == call_id) {
                    let call = run.pending.remove(at);
                    match run.detector.observe(&call, digest) {
                        LoopStep::Found(found) => {
                            if let Some(&g) = by_first.get(found.first_call_id()) {
                                // Found again on another branch from the same start: one loop.
                                gathered[g].calls.extend(found.call_ids.iter().cloned());
                            } else {
                                by_first.insert(found.first_call_id().to_string(), gathered.len());
                                gathered.push(Gathered { calls: found.call_ids.clone(), found });
                            }
                        }
                        LoopStep::Repeat { first_call_id } => {
                            if let Some(&g) = by_first.get(&first_call_id) {
                                gathered[g].calls.push(call.id);
                            }
                        }
                        LoopStep::None => {}
                    }
                }
            }
            None => {}
        }
        let children = index.children_of(slot).to_vec();
        if let [only] = children[..] {
            stack.push((only, run));
        } else {
            stack.extend(children.into_iter().rev().map(|c| (c, run.clone())));
        }
    }
    let active: HashSet<Slot> = index.path(index.leaf())?.into_iter().collect();
    let mut loops: Vec<(Slot, WasteLoop)> = Vec::new();
    let mut all_requests: Vec<Slot> = Vec::new();
    for g in gathered {
        let mut calls = g.calls;
        calls.sort_unstable();
        calls.dedup();
        let mut requests: Vec<Slot> = calls.iter().filter_map(|c| request_of.get(c.as_str()).copied()).collect();
        requests.sort_unstable();
        requests.dedup();
        let (Some(&first), Some(&last)) = (requests.first(), requests.last()) else { continue };
        all_requests.extend(&requests);
        loops.push((
            first,
            WasteLoop {
                kind: g.found.kind,
                tool: g.found.tool,
                call: g.found.call,
                error: g.found.error,
                repeats: calls.len() as u32,
                usd: requests_usd(steps, &requests),
                request_ids: requests.iter().map(|&s| index.id_of(s).to_string()).collect(),
                active_path: active.contains(&last),
            },
        ));
    }
    loops.sort_by_key(|(first, _)| *first);
    all_requests.sort_unstable();
    all_requests.dedup();
    Ok(Waste {
        threshold: u32::from(repeats),
        priced: steps.priced,
        calls: loops.iter().map(|(_, l)| l.repeats).sum(),
        requests: all_requests.len() as u32,
        usd: requests_usd(steps, &all_requests),
        loops: loops.into_iter().map(|(_, l)| l).collect(),
    })
}

#[cfg(test)]
mod tests;
