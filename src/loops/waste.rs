//! Every loop a session file holds, afterwards (`stats`' `waste`, the viewer): the rule of [`super`] run over
//! every branch of the tree, each path from its root with the state its parent left, so work two branches
//! share is looked at once. Each loop with its call, how many times it came, the requests that made those
//! calls and — when the file records prices — the money they took: each request's as the cost model reads it
//! ([`crate::cost::entry_cost`]: money is read and judged in one place).
//!
//! The index keeps no tool arguments or results, so what the rule needs of each entry ([`Steps`]) is read in
//! the same one read of its line that feeds the index ([`Steps::collect`]: the index hands over each entry's
//! facts with its calls' arguments and its result's text, `SessionIndex::observe_entries`), or from a full
//! index's texts ([`Steps::from_full`]).

use serde::Serialize;
use tsify_next::Tsify;

use super::{CallDigest, LoopDetector, LoopKind, LoopStep, ResultDigest};
use crate::cost;
use crate::error::SessionError;
use crate::session::{read_calls, Facts, Kind, RoleKind, SessionIndex, Slot};
use std::cell::RefCell;
use std::rc::Rc;

/// What one entry is to the rule.
#[derive(Debug, Clone)]
enum Step {
    /// A user message: a new run.
    User,
    /// An assistant message (a request) with tool calls.
    Calls(Vec<CallDigest<'static>>),
    /// A tool result, by the call it answers.
    Result { call_id: String, digest: ResultDigest },
}

/// What the rule needs of a session's entries, by slot. Kept in a vector in slot order (searched by halving)
/// rather than a map: the module carries no map or sort code of its own for it.
#[derive(Debug, Default)]
pub struct Steps {
    /// Ascending by slot (entries come in slot order).
    by_slot: Vec<(Slot, Step)>,
}

impl Steps {
    /// Starts collecting `index`'s entries as they are taken (before it is fed); the steps fill the
    /// returned cell as the index is fed.
    pub fn collect(index: &mut SessionIndex) -> Rc<RefCell<Steps>> {
        let steps = Rc::new(RefCell::new(Steps::default()));
        let sink = Rc::clone(&steps);
        index.observe_entries(Box::new(move |slot, facts| sink.borrow_mut().take(slot, facts)));
        steps
    }

    /// The steps of a full index's entries (it keeps each entry's text, read here once more).
    pub fn from_full(index: &SessionIndex) -> Steps {
        let mut steps = Steps::default();
        for slot in 0..index.len() as Slot {
            if let Some(text) = index.raw(slot) {
                read_calls(text, |facts| steps.take(slot, facts));
            }
        }
        steps
    }

    /// The entry at `slot`, from its facts read with its calls and result kept (anything but a user message,
    /// an assistant's tool calls or a tool result with a call id is no step).
    pub fn take(&mut self, slot: Slot, facts: &Facts<'_>) {
        let step = match facts.kind {
            Kind::Message(RoleKind::User) => Step::User,
            Kind::Message(RoleKind::Assistant) if !facts.tool_calls.is_empty() => Step::Calls(
                facts
                    .tool_calls
                    .iter()
                    .enumerate()
                    .map(|(i, (id, name))| CallDigest::of_value(id, name, facts.call_arguments.get(i).copied().flatten()))
                    .collect(),
            ),
            Kind::Message(RoleKind::ToolResult) => {
                let Some(result) = &facts.tool_result else { return };
                Step::Result { call_id: result.call_id.to_string(), digest: ResultDigest::of(&result.text, result.is_error) }
            }
            _ => return,
        };
        self.by_slot.push((slot, step));
    }

    fn at(&self, slot: Slot) -> Option<&Step> {
        self.by_slot.binary_search_by_key(&slot, |(s, _)| *s).ok().and_then(|i| self.by_slot.get(i)).map(|(_, step)| step)
    }
}

/// The money `requests` took: the sum of what each recorded (the cost model's reading: a request whose usage
/// cannot be read counts 0); `None` when the file records no prices at all (subscriptions, local models), so
/// that no text says "$0.00" for work that was never priced. (The session's money is `cost`'s report; this is
/// only what the loops' own requests recorded.)
fn requests_usd(index: &SessionIndex, priced: bool, requests: &[Slot]) -> Option<f64> {
    priced.then(|| requests.iter().map(|&slot| cost::entry_cost(index, slot, true).and_then(|c| c.usd).unwrap_or(0.0)).sum())
}

/// Every loop in a file.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct Waste {
    /// The repeats that make a loop here.
    pub threshold: u32,
    /// Whether the file records prices ([`crate::cost::CostReport::priced`]).
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

/// A loop being gathered: as found, and its calls (each once) with the request that made each.
#[derive(Debug)]
struct Gathered {
    found: super::Loop,
    calls: Vec<(String, Slot)>,
}

impl Gathered {
    fn add(&mut self, call_id: &str, request: Option<Slot>) {
        if let (false, Some(slot)) = (self.calls.iter().any(|(c, _)| c == call_id), request) {
            self.calls.push((call_id.to_string(), slot));
        }
    }
}

/// The state of one path: the rule's, the calls waiting for their results (with the request that made each), and
/// the run's calls already answered, by id (a loop's earlier calls are named by id when it is found).
#[derive(Debug, Clone)]
struct Run {
    detector: LoopDetector,
    pending: Vec<(CallDigest<'static>, Slot)>,
    answered: Vec<(String, Slot)>,
}

impl Run {
    fn request_of(&self, call_id: &str) -> Option<Slot> {
        self.answered.iter().rev().find(|(c, _)| c == call_id).map(|(_, s)| *s)
    }
}

/// Every loop in `index`'s tree, read with `steps`; `repeats` make a loop.
pub fn waste(index: &mut SessionIndex, steps: &Steps, repeats: u8) -> Result<Waste, SessionError> {
    let mut gathered: Vec<Gathered> = Vec::new();
    let fresh = Run { detector: LoopDetector::new(repeats), pending: Vec::new(), answered: Vec::new() };
    let mut stack: Vec<(Slot, Run)> = index.roots().into_iter().rev().map(|r| (r, fresh.clone())).collect();
    while let Some((slot, mut run)) = stack.pop() {
        match steps.at(slot) {
            Some(Step::User) => {
                run.detector.reset();
                run.pending.clear();
                run.answered.clear();
            }
            Some(Step::Calls(calls)) => run.pending.extend(calls.iter().map(|c| (c.clone(), slot))),
            Some(Step::Result { call_id, digest }) => {
                if let Some(at) = run.pending.iter().position(|(c, _)| &c.id == call_id) {
                    let (call, request) = run.pending.remove(at);
                    let id = call.id.to_string();
                    run.answered.push((id.clone(), request));
                    match run.detector.observe(call, digest, &mut |a, b| a == b) {
                        LoopStep::Found(found) => {
                            let at = gathered.iter().position(|g| g.found.first_call_id() == found.first_call_id()).unwrap_or_else(|| {
                                gathered.push(Gathered { calls: Vec::new(), found: found.clone() });
                                gathered.len() - 1
                            });
                            // Found again on another branch from the same start: one loop, its calls from both.
                            for c in &found.call_ids {
                                gathered[at].add(c, run.request_of(c));
                            }
                        }
                        LoopStep::Repeat { first_call_id } => {
                            if let Some(g) = gathered.iter_mut().find(|g| g.found.first_call_id() == first_call_id) {
                                g.add(&id, Some(request));
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
    let n = index.len();
    let mut active = vec![false; n];
    for slot in index.path(index.leaf())? {
        active[slot as usize] = true;
    }
    let priced = cost::priced(index);
    let mut counted = vec![false; n];
    let mut all_requests: Vec<Slot> = Vec::new();
    let mut loops: Vec<(Slot, WasteLoop)> = Vec::new();
    for g in gathered {
        // The requests in slot order (file order), each once.
        let mut requests: Vec<Slot> = Vec::new();
        for &(_, slot) in &g.calls {
            if let Err(at) = requests.binary_search(&slot) {
                requests.insert(at, slot);
            }
        }
        let (Some(&first), Some(&last)) = (requests.first(), requests.last()) else { continue };
        for &r in &requests {
            if !counted[r as usize] {
                counted[r as usize] = true;
                all_requests.push(r);
            }
        }
        let item = WasteLoop {
            kind: g.found.kind,
            tool: g.found.tool,
            call: g.found.call,
            error: g.found.error,
            repeats: g.calls.len() as u32,
            usd: requests_usd(index, priced, &requests),
            request_ids: requests.iter().map(|&s| index.id_of(s).to_string()).collect(),
            active_path: active[last as usize],
        };
        // In the order the loops started.
        let at = loops.iter().position(|(s, _)| *s > first).unwrap_or(loops.len());
        loops.insert(at, (first, item));
    }
    Ok(Waste {
        threshold: u32::from(repeats),
        priced,
        calls: loops.iter().map(|(_, l)| l.repeats).sum(),
        requests: all_requests.len() as u32,
        usd: requests_usd(index, priced, &all_requests),
        loops: loops.into_iter().map(|(_, l)| l).collect(),
    })
}

#[cfg(test)]
mod tests;
