//! `stats <folder>` as people read it: the totals, then one row per session — children under their parents —
//! and the files left out with their reasons.

use crate::text::{format_bytes, format_usd, to_one_line};

use super::family::FolderReport;
use super::session::{FolderSession, ParentProblem};

/// The text of `report` for the folder `root` (files are shown relative to it).
pub fn folder_text(report: &FolderReport, root: &str) -> String {
    let t = &report.totals;
    let rel = |file: &str| -> String {
        let root = root.trim_end_matches(['/', '\\']);
        file.strip_prefix(root).map_or(file, |r| r.trim_start_matches(['/', '\\'])).to_string()
    };
    let sessions = if t.sessions == 1 { "1 session".to_string() } else { format!("{} sessions", t.sessions) };
    let skipped = if t.skipped > 0 { format!(", {} files skipped", t.skipped) } else { String::new() };
    let mut out = vec![format!("{}: {sessions}{skipped}, {}, {} entries", root, format_bytes(t.bytes), t.entries)];
    out.push(match t.usd {
        Some(usd) => {
            let saved = t.saved.map_or(String::new(), |s| format!("; rewinds and compactions saved at least {}", format_usd(s)));
            format!("cost: {} ({} requests){saved}", format_usd(usd), t.requests)
        }
        None => format!("cost: no prices recorded ({} requests)", t.requests),
    });
    if !report.sessions.is_empty() {
        out.push(String::new());
        out.push(format!("{:<20} {:>8} {:>9} {:>9} {:>9} {:>15}  {:<10} {}", "start", "entries", "size", "cost", "saved", "with children", "parent", "file · first message"));
        let by_file: std::collections::HashMap<&str, usize> = report.sessions.iter().enumerate().map(|(i, s)| (s.file.as_str(), i)).collect();
        // Roots (and sessions whose parent is not followed) in the folder's order, each followed by its children.
        let mut stack: Vec<(usize, usize)> = report.sessions.iter().enumerate().filter(|(_, s)| s.parent.is_none()).map(|(i, _)| (i, 0)).rev().collect();
        while let Some((i, depth)) = stack.pop() {
            let Some(s) = report.sessions.get(i) else { continue };
            out.push(row(s, depth, &rel(&s.file)));
            stack.extend(s.children.iter().rev().filter_map(|c| by_file.get(c.as_str())).map(|&c| (c, depth + 1)));
        }
    }
    if !report.skipped.is_empty() {
        out.push(String::new());
        out.push(format!("skipped ({}; not in the totals):", report.skipped.len()));
        for k in &report.skipped {
            out.push(format!("  {}: {}", rel(&k.file), k.reason));
        }
    }
    out.join("\n")
}

/// One session's row, indented `depth` levels under its parent.
fn row(s: &FolderSession, depth: usize, file: &str) -> String {
    let money = |usd: Option<f64>| usd.map_or_else(|| "—".to_string(), format_usd);
    let indent = if depth == 0 { String::new() } else { format!("{}└ ", "  ".repeat(depth - 1)) };
    let start = format!("{indent}{}", s.start.as_deref().map_or("—", |t| t.get(..16).unwrap_or(t)).replace('T', " "));
    let family = if s.with_children.sessions > 1 { format!("{} ({})", money(s.with_children.usd), s.with_children.sessions) } else { String::new() };
    let parent = match (s.parent_problem, &s.parent_session) {
        (Some(ParentProblem::Missing), _) => "not found".to_string(),
        (Some(ParentProblem::Skipped), _) => "skipped".to_string(),
        (Some(ParentProblem::Cycle), _) => "cycle".to_string(),
        (None, Some(_)) if depth == 0 => "?".to_string(),
        (None, Some(_)) => "↑".to_string(),
        (None, None) => "—".to_string(),
    };
    let message = s.first_message.as_deref().and_then(|m| to_one_line(m, 60)).unwrap_or_default();
    format!(
        "{start:<20} {:>8} {:>9} {:>9} {:>9} {family:>15}  {parent:<10} {file} · {message}",
        s.entries,
        format_bytes(s.bytes),
        money(s.usd),
        money(s.saved.usd),
    )
}
