//! The folder put together: each session's parent found among the folder's files, its children, the money of
//! each family (a session with all its descendants), the totals, and the files left out.

use std::collections::HashMap;

use serde::Serialize;
use tsify_next::Tsify;

use super::session::{Family, FolderSession, Member, ParentProblem};

/// A file left out of the folder's totals, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct SkippedFile {
    /// The file's absolute path.
    pub file: String,
    /// Why (`not a pi session …`, `unreadable: …`, `half-written: …`, `malformed: …`).
    pub reason: String,
}

/// The sums over the folder's sessions (skipped files excluded).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct Totals {
    /// Σ `cost.total.usd`, in the folder's order (`null`: no session records a price).
    pub usd: Option<f64>,
    /// Sessions counted.
    pub sessions: usize,
    /// Σ entries.
    pub entries: usize,
    /// Σ file sizes.
    pub bytes: f64,
    /// Σ `cost.messages.requests` (assistant messages).
    pub requests: usize,
    /// Σ `saved.usd` (`null`: none known).
    pub saved: Option<f64>,
    /// Files left out.
    pub skipped: usize,
}

/// `stats <folder> --json`: every session (the folder's order; the shim adds each one's `cost` block), the totals,
/// the files left out.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct FolderReport {
    /// One row per session.
    pub sessions: Vec<FolderSession>,
    /// Their sums.
    pub totals: Totals,
    /// The files left out, with their reasons.
    pub skipped: Vec<SkippedFile>,
}

/// A folder being read, one file at a time ([`Folder::add`], [`Folder::skip`]); [`Folder::report`] resolves the
/// families once every file is in.
#[derive(Debug, Default)]
pub struct Folder {
    sessions: Vec<Member>,
    skipped: Vec<SkippedFile>,
}

/// The last component of a path (`/` or `\` separated).
fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

impl Folder {
    /// An empty folder.
    pub fn new() -> Folder {
        Folder::default()
    }

    /// The next session read.
    pub fn add(&mut self, session: Member) {
        self.sessions.push(session);
    }

    /// The next file left out, and why.
    pub fn skip(&mut self, file: &str, reason: String) {
        self.skipped.push(SkippedFile { file: file.to_string(), reason });
    }

    /// The folder's report: parents resolved — the path `parentSession` names, else (the folder was copied or
    /// moved from the machine that wrote it) the one file of the folder with that name, pi's names being
    /// `<time>_<id>.jsonl` — children listed, each family's money, the totals.
    pub fn report(&self) -> FolderReport {
        let skipped = self.skipped.clone();
        let parents = resolve_parents(&self.sessions, &skipped);
        let parents = cut_cycles(parents);
        let n = self.sessions.len();
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, p) in parents.iter().enumerate() {
            if let Ok(p) = p {
                if let Some(list) = children.get_mut(*p) {
                    list.push(i);
                }
            }
        }
        let families = families(&self.sessions, &parents, &children);
        let names: Vec<&String> = self.sessions.iter().map(|s| &s.file).collect();
        let mut totals = Totals { skipped: skipped.len(), ..Totals::default() };
        let mut sessions: Vec<FolderSession> = self.sessions.iter().map(FolderSession::of).collect();
        for (i, (s, m)) in sessions.iter_mut().zip(&self.sessions).enumerate() {
            match parents.get(i) {
                Some(Ok(p)) => s.parent = names.get(*p).map(|n| (*n).clone()),
                Some(Err(problem)) => s.parent_problem = *problem,
                None => {}
            }
            s.children = children.get(i).into_iter().flatten().filter_map(|&c| names.get(c).map(|n| (*n).clone())).collect();
            if let Some(f) = families.get(i) {
                s.with_children = *f;
            }
            totals.sessions += 1;
            totals.entries += s.entries;
            totals.bytes += s.bytes;
            totals.requests += m.requests;
            if let Some(usd) = m.usd {
                totals.usd = Some(totals.usd.unwrap_or(0.0) + usd);
            }
            if let Some(usd) = s.saved.usd {
                totals.saved = Some(totals.saved.unwrap_or(0.0) + usd);
            }
        }
        FolderReport { sessions, totals, skipped }
    }
}

/// Each session's parent: `Ok(its position)`, or `Err(None)` (it names none) or `Err(Some(why not))`.
type Parent = Result<usize, Option<ParentProblem>>;

fn resolve_parents(sessions: &[Member], skipped: &[SkippedFile]) -> Vec<Parent> {
    // By file name: the one session of that name (`AMBIGUOUS` when two share it: neither is guessed).
    const AMBIGUOUS: usize = usize::MAX;
    let by_path: HashMap<&str, usize> = sessions.iter().enumerate().map(|(i, s)| (s.file.as_str(), i)).collect();
    let mut by_name: HashMap<&str, usize> = HashMap::new();
    for (i, s) in sessions.iter().enumerate() {
        by_name.entry(file_name(&s.file)).and_modify(|at| *at = AMBIGUOUS).or_insert(i);
    }
    let left_out = |named: &str| skipped.iter().any(|k| k.file == named || file_name(&k.file) == file_name(named));
    sessions
        .iter()
        .map(|s| {
            let Some(named) = s.parent_session.as_deref().filter(|p| !p.is_empty()) else { return Err(None) };
            let found = by_path.get(named).or_else(|| by_name.get(file_name(named)).filter(|&&at| at != AMBIGUOUS)).copied();
            match found {
                Some(p) => Ok(p),
                None if left_out(named) => Err(Some(ParentProblem::Skipped)),
                None => Err(Some(ParentProblem::Missing)),
            }
        })
        .collect()
}

/// The parents with every session on a circle (a session its own ancestor) cut loose and marked: none of them
/// has a parent then, so no walk up or down the families runs forever. Each chain is walked once.
fn cut_cycles(mut parents: Vec<Parent>) -> Vec<Parent> {
    // 0: not seen, 1: on the chain being walked, 2: done.
    let mut state = vec![0u8; parents.len()];
    let mut chain = Vec::new();
    for start in 0..parents.len() {
        let mut at = start;
        chain.clear();
        while state.get(at) == Some(&0) {
            state[at] = 1;
            chain.push(at);
            match parents.get(at) {
                Some(Ok(p)) => at = *p,
                _ => break,
            }
        }
        if state.get(at) == Some(&1) && parents.get(at).is_some_and(Result::is_ok) && chain.contains(&at) {
            // `at` was reached again on this chain: it and everything after it on the chain form the circle.
            let from = chain.iter().position(|&c| c == at).unwrap_or(0);
            for &c in chain.get(from..).unwrap_or_default() {
                if let Some(p) = parents.get_mut(c) {
                    *p = Err(Some(ParentProblem::Cycle));
                }
            }
        }
        for &c in &chain {
            state[c] = 2;
        }
    }
    parents
}

/// Each session's family: its own money and its children's families, summed bottom-up (the parents are a
/// forest once the circles are cut).
fn families(sessions: &[Member], parents: &[Parent], children: &[Vec<usize>]) -> Vec<Family> {
    let mut out: Vec<Family> = sessions.iter().map(|s| Family { usd: s.usd, sessions: 1 }).collect();
    // Post-order from each root, without recursion (a deep chain of forks is no stack overflow).
    let mut order = Vec::with_capacity(sessions.len());
    let mut stack: Vec<usize> = (0..sessions.len()).filter(|&i| parents.get(i).is_some_and(Result::is_err)).collect();
    while let Some(i) = stack.pop() {
        order.push(i);
        stack.extend(children.get(i).into_iter().flatten().copied());
    }
    for &i in order.iter().rev() {
        let Some(Ok(p)) = parents.get(i) else { continue };
        let (child, p) = (out[i], *p);
        if let Some(parent) = out.get_mut(p) {
            parent.sessions += child.sessions;
            if let Some(usd) = child.usd {
                parent.usd = Some(parent.usd.unwrap_or(0.0) + usd);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn circles_are_cut_and_marked_chains_into_them_kept() {
        // 0 → 1 → 2 → 1 (a circle of 1 and 2, 0 hangs off it); 3 names itself; 4 → 0; 5 has none.
        let parents: Vec<Parent> = vec![Ok(1), Ok(2), Ok(1), Ok(3), Ok(0), Err(None)];
        let cut = cut_cycles(parents);
        let cycle = Err(Some(ParentProblem::Cycle));
        assert_eq!(cut, vec![Ok(1), cycle, cycle, cycle, Ok(0), Err(None)]);
    }

    #[test]
    fn file_names_of_either_separator() {
        assert_eq!(file_name("/a/b/c.jsonl"), "c.jsonl");
        assert_eq!(file_name("C:\\u\\s\\d.jsonl"), "d.jsonl");
        assert_eq!(file_name("e.jsonl"), "e.jsonl");
    }
}
