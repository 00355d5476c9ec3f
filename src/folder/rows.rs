//! A session's requests as rows a database reads as they are (`stats <folder> --rows`: one JSON object per line,
//! flat, the same names on every line): each usage pi's totals count, with its session, entry, time, model,
//! tokens and money, whether it is on the active path, and the rewind or compaction span it falls in. Summed,
//! the rows give the folder's `--json` totals.

use std::fmt::Write;

use crate::error::SessionError;
use crate::session::{Kind, SessionIndex, Slot, SpendKind};

/// No slot (a table's empty cell).
const NONE: Slot = Slot::MAX;

/// The rows of the session `index` holds (its file `file`, its header id `session_id`), in file order: one line
/// each, every line ended by `\n`. A row is a usage `cost.total` counts (its tokens readable); its `usd` is
/// `null` where its cost is unreadable or the session records no prices. `span` says which summary's span the
/// request falls in: on the active path, the latest rewind (`branch_summary`) or compaction before it — the
/// context it ran in; on an abandoned branch, the rewind that collapsed the branch (the summary its fork point
/// continues with on the active path), `null` when the branch was left without one.
///
/// # Errors
/// `Cycle` for a tree that runs in a circle.
pub fn request_rows(index: &mut SessionIndex, file: &str, session_id: Option<&str>) -> Result<String, SessionError> {
    let path = index.path(index.leaf())?;
    let n = index.len();
    // On the active path: the summary in force at each entry; off it: the fork point (an entry on the path).
    let mut span_at = vec![NONE; n];
    let mut on_path = vec![false; n];
    let mut last = NONE;
    let mut next_on_path = vec![NONE; n];
    for (i, &s) in path.iter().enumerate() {
        if matches!(index.entry(s).kind(), Kind::BranchSummary | Kind::Compaction) {
            last = s;
        }
        if let Some(x) = span_at.get_mut(s as usize) {
            *x = last;
        }
        if let Some(x) = on_path.get_mut(s as usize) {
            *x = true;
        }
        if let (Some(x), Some(&next)) = (next_on_path.get_mut(s as usize), path.get(i + 1)) {
            *x = next;
        }
    }
    let priced = crate::cost::priced(index);
    let spends: Vec<_> = index.spends().iter().filter(|r| r.kind != SpendKind::SummaryDetails && r.tokens.iter().all(|x| x.is_finite())).copied().collect();
    let mut fork_memo = vec![None; n];
    let file = quoted(file);
    let session = session_id.map_or_else(|| "null".to_string(), quoted);
    let mut out = String::new();
    for r in &spends {
        let active = on_path.get(r.slot as usize).copied().unwrap_or(false);
        let span = if active {
            span_at.get(r.slot as usize).copied().unwrap_or(NONE)
        } else {
            let fork = fork_of(index, r.slot, &on_path, &mut fork_memo);
            let next = next_on_path.get(fork as usize).copied().unwrap_or(NONE);
            if next != NONE && index.entry(next).kind() == Kind::BranchSummary {
                next
            } else {
                NONE
            }
        };
        let (span_kind, span_id) = match span {
            NONE => ("null".to_string(), "null".to_string()),
            s => {
                let kind = if index.entry(s).kind() == Kind::Compaction { "compaction" } else { "rewind" };
                (quoted(kind), quoted(index.id_of(s)))
            }
        };
        let entry = index.entry(r.slot);
        let time = entry.time_ms().and_then(crate::js::iso_date).map_or_else(|| "null".to_string(), |t| quoted(&t));
        let kind = match r.kind {
            SpendKind::Assistant => "assistant",
            SpendKind::ToolResult => "toolResult",
            SpendKind::Usage { .. } => "usage",
            SpendKind::Summary | SpendKind::SummaryDetails => "summary",
        };
        let num = |x: f64| crate::js::number_to_string(x);
        let usd = if priced && r.cost.iter().all(|x| x.is_finite()) { num(r.cost[4]) } else { "null".to_string() };
        let [input, output, cache_read, cache_write] = r.tokens;
        let _ = writeln!(
            out,
            "{{\"session\":{file},\"sessionId\":{session},\"entryId\":{},\"time\":{time},\"kind\":\"{kind}\",\"model\":{},\"input\":{},\"output\":{},\"cacheRead\":{},\"cacheWrite\":{},\"usd\":{usd},\"state\":\"{}\",\"spanKind\":{span_kind},\"spanId\":{span_id}}}",
            quoted(entry.id()),
            quoted(index.spend_key(r.breakdown_key)),
            num(input),
            num(output),
            num(cache_read),
            num(cache_write),
            if active { "active" } else { "abandoned" },
        );
    }
    Ok(out)
}

/// The entry on the active path an abandoned entry's branch leaves it from (`NONE`: none — a second root, or a
/// parent chain that never meets the path). Each entry's answer is kept, so a branch is walked once.
fn fork_of(index: &mut SessionIndex, slot: Slot, on_path: &[bool], memo: &mut [Option<Slot>]) -> Slot {
    let mut walked = Vec::new();
    let mut at = Some(slot);
    let found = loop {
        let Some(s) = at else { break NONE };
        if on_path.get(s as usize).copied().unwrap_or(false) {
            break s;
        }
        if let Some(&Some(m)) = memo.get(s as usize) {
            break m;
        }
        if walked.len() > on_path.len() {
            break NONE; // a circle off the path
        }
        walked.push(s);
        at = index.parent_of(s);
    };
    for s in walked {
        if let Some(m) = memo.get_mut(s as usize) {
            *m = Some(found);
        }
    }
    found
}

/// `s` as a JSON string.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}
