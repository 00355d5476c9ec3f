//! What the CLI prints for people: `archive`'s and `restore`'s reports (and, for an archive after pi quit,
//! its log entry), `stats`, and the note on a file's skipped lines and warnings. The shim does the I/O and hands over what happened as data; every sentence
//! is here. Ids, names and reasons read from a session file are shown by `one_line`: a report row stays one row.
//!
//! Every list of names in these texts (anchors, branches, line numbers, entry types) shows at most
//! [`MAX_NAMES_SHOWN`] and counts the rest (`and 1904 more`): a long run's session has thousands of anchors,
//! and a report that names them all is one wall of text nobody reads.

use crate::archive::Plan;
use crate::loops::waste::{Waste, WasteLoop};
use crate::js::to_fixed;
use crate::session::{Profile, ProfileSource, Stats};
#[cfg(doc)]
use crate::session::IngestReport;
use crate::text::{format_bytes, format_tokens, name_list, one_line, shown_of, MAX_NAMES_SHOWN};
use crate::tool::PathRewind;
use serde::Serialize;
use tsify_next::Tsify;

/// What `archive` did to a file (or would do, in a dry run), besides its plan: the names and sizes written.
#[derive(Debug, Clone, PartialEq)]
pub struct ArchiveOutcome {
    /// The session file's name.
    pub name: String,
    /// The archive's file name.
    pub archive_name: String,
    /// The session file's size before.
    pub original_bytes: f64,
    /// The session file's size after (what it would be, in a dry run).
    pub main_bytes: f64,
    /// The archive's size.
    pub archive_bytes: f64,
    /// Whether nothing was written.
    pub dry_run: bool,
    /// Path entries to stub whose line has no faithful stub, so they stay whole.
    pub stubs_kept_whole: u32,
    /// Whether there was nothing to archive (nothing was written).
    pub nothing: bool,
    /// The words that run the CLI here (`pi-tree-navigator`, or `node` and the path of its `cli.js`).
    pub cli: Vec<String>,
    /// The session file's path, for the `restore` command.
    pub file: String,
}

/// The text `archive` prints for the plan `p` its first pass made and what the second did.
pub fn archive_text(p: &Plan, r: &ArchiveOutcome) -> String {
    let name = &r.name;
    if r.nothing {
        return format!(
            "{name}: nothing to archive ({} of {} entries on the active path, no compaction before them)",
            p.path_entries, p.entries
        );
    }
    let saved = if r.original_bytes > 0.0 { (1.0 - r.main_bytes / r.original_bytes) * 100.0 } else { 0.0 };
    let verb = if r.dry_run { "would move" } else { "moved" };
    let mut rows = vec![
        format!(
            "{name}: {} → {} (−{} %){}",
            format_bytes(r.original_bytes),
            format_bytes(r.main_bytes),
            to_fixed(saved, 1),
            if r.dry_run { " [dry run: nothing written]" } else { "" }
        ),
        format!(
            "  {verb} whole: {} entries off the active path ({}) in {}",
            p.moved.entries,
            format_bytes(p.moved.bytes),
            count(p.branches.len(), "branch", "branches")
        ),
        format!(
            "  {verb} the content of: {} entries before the latest compaction's kept range (their lines: {}; a stub with the same id stays)",
            p.stubbed.entries.saturating_sub(r.stubs_kept_whole),
            format_bytes(p.stubbed.bytes)
        ),
    ];
    if r.stubs_kept_whole > 0 {
        rows.push(format!("  kept whole: {} of those entries (no faithful stub: repeated keys or invalid UTF-8)", r.stubs_kept_whole));
    }
    if p.kept_off_path > 0 {
        rows.push(format!(
            "  kept in place: {} label/session_info entries off the path (pi reads them wherever they are)",
            p.kept_off_path
        ));
    }
    if !p.anchors_with_stubs.is_empty() {
        rows.push(format!(
            "  note: {} before the latest compaction ({}) would bring stubs into the context if rewound to; restore first",
            count(p.anchors_with_stubs.len(), "anchor", "anchors"),
            name_list(&p.anchors_with_stubs)
        ));
    }
    let restore = if r.dry_run { String::new() } else { format!("; `{}` puts it back", command_line(&r.cli, &["restore", &r.file])) };
    rows.push(format!("  archive: {} ({}){restore}", r.archive_name, format_bytes(r.archive_bytes)));
    rows.push(format!(
        "  leaf: {} (unchanged; {} entries on its path)",
        one_line(p.leaf_id.as_deref().unwrap_or("none")),
        p.path_entries
    ));
    if r.dry_run && !p.branches.is_empty() {
        rows.push("  branches off the path (largest first):".into());
        let sizes: Vec<f64> = p.branches.iter().map(|b| b.moved.bytes).collect();
        let shown = largest_first(&sizes, MAX_NAMES_SHOWN);
        for b in shown.iter().map(|&i| &p.branches[i]) {
            let kept = if b.kept > 0 { format!(", {} kept", b.kept) } else { String::new() };
            let anchors = if b.anchors.is_empty() { String::new() } else { format!(", anchors {}", name_list(&b.anchors)) };
            rows.push(format!(
                "    from {} at {}: {} entries, {}{kept}{anchors}",
                one_line(b.fork_id.as_deref().unwrap_or("(no parent)")),
                one_line(&b.root_id),
                b.moved.entries,
                format_bytes(b.moved.bytes)
            ));
        }
        let rest = p.branches.len() - shown.len();
        if rest > 0 {
            let entries = p.moved.entries - shown.iter().map(|&i| p.branches[i].moved.entries).sum::<u32>();
            let bytes = p.moved.bytes - shown.iter().map(|&i| p.branches[i].moved.bytes).sum::<f64>();
            let noun = if rest == 1 { "branch" } else { "branches" };
            rows.push(format!("    and {rest} more {noun} ({entries} entries, {})", format_bytes(bytes)));
        }
    }
    rows.join("\n")
}

/// What `restore` did.
#[derive(Debug, Clone, PartialEq)]
pub struct RestoreOutcome {
    /// The session file's name.
    pub name: String,
    /// The archive's file name (removed).
    pub archive_name: String,
    /// Archived lines put back.
    pub restored: u32,
    /// The restored file's size.
    pub bytes: f64,
    /// Of those, what pi appended after archiving.
    pub appended_since: f64,
}

/// The text `restore` prints.
pub fn restore_text(r: &RestoreOutcome) -> String {
    if r.restored == 0 {
        // The archive was written but the session never replaced (an `archive` killed between its two renames).
        return format!(
            "{}: already the original bytes (an archive was interrupted before it replaced the file); the leftover {} was removed",
            r.name, r.archive_name
        );
    }
    let since = if r.appended_since > 0.0 {
        format!(", then {} pi appended since archiving", format_bytes(r.appended_since))
    } else {
        String::new()
    };
    format!(
        "{}: restored {} archived lines ({}: the original bytes{since}); {} removed",
        r.name,
        r.restored,
        format_bytes(r.bytes),
        r.archive_name
    )
}

/// One entry of the log an archive after pi quit writes (`archive --after-exit`; never the model's): when, after
/// which pi, how it ended (`outcome`: `archived` — `text` is the report —, `skipped` by rule, `refused` by
/// `archive`, or `failed`) and the file, then `text` (the report, or why not) indented under it.
pub fn exit_log_entry(time: &str, pid: u32, outcome: &str, file: &str, text: &str) -> String {
    let mut out = format!("{time} archive after pi (pid {pid}) quit: {outcome}: {file}");
    for line in text.lines() {
        out.push_str("\n  ");
        out.push_str(line);
    }
    out
}

/// Why an archive after pi quit skipped the file: another process has it open (`holders`: a pid and its
/// command each), so nothing changed.
pub fn exit_skip_open<S: AsRef<str>>(holders: &[S]) -> String {
    format!("another process has the file open ({}), so nothing was changed", name_list(holders))
}

/// Why an archive after pi quit skipped a file of `file_bytes` of which `saved_bytes` would move (an upper
/// bound when the first pass already says no): the file is under `min_mb` MB, or less than half would move.
pub fn exit_skip_not_worth(file_bytes: f64, saved_bytes: f64, min_mb: f64) -> String {
    if file_bytes < min_mb * 1e6 {
        return format!("{} is under archiveOnExitMinMB ({} MB)", format_bytes(file_bytes), crate::js::number_to_string(min_mb));
    }
    let percent = if file_bytes > 0.0 { (saved_bytes / file_bytes * 100.0).floor() } else { 0.0 };
    format!(
        "at most {} of its {} ({percent} %) would move; archiveOnExit archives a file when at least half of it would",
        format_bytes(saved_bytes),
        format_bytes(file_bytes)
    )
}

/// Why an archive after pi quit gave up waiting: pi `pid` was still running after `minutes`.
pub fn exit_skip_running(pid: u32, minutes: u32) -> String {
    format!("pi (pid {pid}) was still running after {minutes} minutes, so nothing was changed")
}

/// Warnings a file's note shows one per line before it counts the rest.
const MAX_WARNINGS_SHOWN: usize = 5;

/// The lines the CLI writes to stderr about a file it read (`file`: as the user named it), from its
/// [`IngestReport`]'s parts: the skipped lines by number with the first one's reason, then the warnings.
/// None for a clean file.
pub fn ingest_notes<W: AsRef<str>>(file: &str, skipped: &[usize], first_reason: &str, warnings: &[W]) -> Vec<String> {
    let mut out = Vec::new();
    if !skipped.is_empty() {
        let n = skipped.len();
        let numbers: Vec<String> = skipped.iter().take(MAX_NAMES_SHOWN).map(ToString::to_string).collect();
        let list = shown_of(numbers.iter().map(String::as_str), n);
        out.push(format!(
            "{file}: skipped {} ({} {list}); first: {}",
            count(n, "malformed line", "malformed lines"),
            if n == 1 { "line" } else { "lines" },
            one_line(first_reason)
        ));
    }
    for w in warnings.iter().take(MAX_WARNINGS_SHOWN) {
        out.push(format!("{file}: warning: {}", one_line(w.as_ref())));
    }
    if warnings.len() > MAX_WARNINGS_SHOWN {
        out.push(format!("{file}: and {} more warnings", warnings.len() - MAX_WARNINGS_SHOWN));
    }
    out
}

/// The text `stats` prints: the file's name, then one `key: value` line per count (`profile`: the
/// estimate profile and where it came from, as `pi-0.87 (inferred)`). Entry types are listed most
/// frequent first.
pub fn stats_text(name: &str, s: &Stats, rewinds: &[PathRewind], profile: &str) -> String {
    let types: Vec<(&String, &usize)> = s.by_type.iter().collect();
    let counts: Vec<f64> = types.iter().map(|(_, &n)| n as f64).collect();
    let shown: Vec<String> = largest_first(&counts, MAX_NAMES_SHOWN).iter().map(|&i| format!("{} {}", types[i].0, types[i].1)).collect();
    let e = &s.estimate;
    let last_usage = e.last_usage_index.map_or_else(|| "null".to_string(), |i| i.to_string());
    [
        name.to_string(),
        format!("  entries: {}", s.entries),
        format!("  by type: {}", shown_of(shown.iter().map(String::as_str), types.len())),
        format!("  tips: {}", s.tips),
        format!("  branch points: {}", s.branch_points),
        format!("  active path: {}", s.active_path),
        format!("  abandoned share: {}%", to_fixed(s.abandoned_share * 100.0, 1)),
        format!("  labels: {}", s.labels),
        format!("  anchors: {}", s.anchors),
        rewinds_line(rewinds),
        format!("  file bytes: {}", crate::js::number_to_string(s.file_bytes)),
        format!(
            "  estimate: tokens {}, usageTokens {}, trailingTokens {}, lastUsageIndex {last_usage}",
            crate::js::number_to_string(e.tokens),
            crate::js::number_to_string(e.usage_tokens),
            crate::js::number_to_string(e.trailing_tokens)
        ),
        format!("  profile: {profile}"),
    ]
    .join("\n")
}

/// `stats`' line on the rewinds of the active path: how many, and what they saved together (each by
/// `tool::rewind_saving`, the number its own result reported).
fn rewinds_line(rewinds: &[PathRewind]) -> String {
    let saved: f64 = rewinds.iter().map(|r| r.saving.saved()).sum();
    match rewinds.len() {
        0 => "  rewinds on the active path: 0".into(),
        n => format!("  rewinds on the active path: {n}, saved {} tokens", format_tokens(saved)),
    }
}

/// The estimate profile and where it came from: `pi-0.87 (inferred)`, `pi-0.74 (--host)`.
pub fn profile_label(profile: Profile, source: ProfileSource) -> String {
    let source = match source {
        ProfileSource::Default => "default",
        ProfileSource::Inferred => "inferred",
        ProfileSource::Set => "--host",
    };
    format!("{} ({source})", profile.name())
}

/// A command line for a POSIX shell: the words `cli` that run the CLI, then `args`, each a [`shell_word`].
pub fn command_line<S: AsRef<str>>(cli: &[S], args: &[&str]) -> String {
    let words: Vec<String> = cli.iter().map(|w| shell_word(w.as_ref())).chain(args.iter().map(|a| shell_word(a))).collect();
    words.join(" ")
}

/// `word` as one word of a POSIX shell command: as it is when it holds only characters no shell treats
/// specially, else in single quotes (a `'` inside written `'\''`).
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphanumeric() || b"_@%+=:,./-".contains(&b));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The positions of the `k` largest of `values`, largest first; equal values in their order.
fn largest_first(values: &[f64], k: usize) -> Vec<usize> {
    let mut order = crate::text::largest_first(values);
    order.truncate(k);
    order
}

/// The `stats` lines for the loops in a file ([`crate::loops::waste`]): [`waste_summary`], then the loops that came
/// most often (ten, the rest counted), each as [`waste_loop_line`].
pub fn waste_text(w: &Waste) -> String {
    let mut lines = vec![format!("  {}", waste_summary(w))];
    let repeats: Vec<f64> = w.loops.iter().map(|l| f64::from(l.repeats)).collect();
    for i in largest_first(&repeats, MAX_NAMES_SHOWN) {
        lines.push(format!("    {}", waste_loop_line(&w.loops[i])));
    }
    if w.loops.len() > MAX_NAMES_SHOWN {
        lines.push(format!("    and {} more", w.loops.len() - MAX_NAMES_SHOWN));
    }
    lines.join("\n")
}

/// `loops: 2 (43 calls in 43 requests, $1.23)`, or `loops: none (…)` with the rule's repeats.
pub fn waste_summary(w: &Waste) -> String {
    if w.loops.is_empty() {
        return format!("loops: none (a call or failure repeated {} times)", w.threshold);
    }
    format!(
        "loops: {} ({} in {}, {})",
        w.loops.len(),
        count(w.calls as usize, "call", "calls"),
        count(w.requests as usize, "request", "requests"),
        money(w.usd)
    )
}

/// One loop: its call, how often, what repeated, its requests and money, and whether it is off the active path.
pub fn waste_loop_line(l: &WasteLoop) -> String {
    let what = match &l.error {
        Some(line) if !line.is_empty() => format!("the same failure: {}", one_line(line)),
        Some(_) => "the same failure".to_string(),
        None => "the same result".to_string(),
    };
    let call = crate::guidance::LoopFacts { tool: &l.tool, call: &l.call, error: l.error.as_deref(), times: l.repeats }.call();
    let off = if l.active_path { "" } else { ", off the active path" };
    format!("{call} ×{} ({what}): {}, {}{off}", l.repeats, count(l.request_ids.len(), "request", "requests"), money(l.usd))
}

/// What the viewer and `stats` show of the loops: the data, [`waste_summary`], each loop's [`waste_loop_line`] (in
/// `waste.loops`' order) and [`waste_text`].
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
pub struct WasteView {
    /// The loops.
    pub waste: Waste,
    /// The summary line.
    pub summary: String,
    /// One line per loop.
    pub lines: Vec<String>,
    /// The lines `stats` prints.
    pub text: String,
}

/// [`WasteView`] of `waste`.
pub fn waste_view(waste: Waste) -> WasteView {
    WasteView { summary: waste_summary(&waste), lines: waste.loops.iter().map(waste_loop_line).collect(), text: waste_text(&waste), waste }
}

/// Money the way the texts show it: dollars, or "no prices recorded" (never `$0.00` for work that was never priced).
fn money(usd: Option<f64>) -> String {
    usd.map_or_else(|| "no prices recorded".to_string(), usd_text)
}

/// Dollars as people read them: cents for a dollar and more, four places below (a request can cost $0.0042).
fn usd_text(usd: f64) -> String {
    format!("${}", to_fixed(usd, if usd >= 1.0 { 2 } else { 4 }))
}

/// `1 branch`, `3 branches`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::{Branch, Tally};
    use crate::session::TokenEstimate;

    fn branch(root: &str, entries: u32, bytes: f64, anchors: &[&str]) -> Branch {
        Branch {
            root_id: root.into(),
            fork_id: Some("f0".into()),
            moved: Tally { entries, bytes },
            kept: 0,
            anchors: anchors.iter().map(|a| a.to_string()).collect(),
        }
    }

    fn outcome(dry_run: bool) -> ArchiveOutcome {
        ArchiveOutcome {
            name: "s.jsonl".into(),
            archive_name: "s.jsonl.archive".into(),
            original_bytes: 1_020_000_000.0,
            main_bytes: 13_400_000.0,
            archive_bytes: 1_010_000_000.0,
            dry_run,
            stubs_kept_whole: 0,
            nothing: false,
            cli: vec!["pi-tree-navigator".into()],
            file: "/home/u/s.jsonl".into(),
        }
    }

    fn plan(branches: Vec<Branch>, anchors_with_stubs: Vec<String>) -> Plan {
        let moved = Tally { entries: branches.iter().map(|b| b.moved.entries).sum(), bytes: branches.iter().map(|b| b.moved.bytes).sum() };
        Plan {
            problem: None,
            lines: 100_001,
            entries: 100_000,
            leaf_id: Some("leaf".into()),
            path_entries: 2_000,
            moved,
            stubbed: Tally { entries: 1_500, bytes: 9_000_000.0 },
            kept_off_path: 3_828,
            branches,
            anchors_with_stubs,
            session_id: Some("s".into()),
            actions: Vec::new(),
            archived_ids: Vec::new(),
        }
    }

    /// A long run's archive: 1,914 anchors before the compaction and 1,914 branches. The note names ten
    /// anchors and counts the rest; the dry run shows the ten largest branches and sums up the rest.
    #[test]
    fn a_long_runs_archive_report_names_ten_and_counts_the_rest() {
        let names: Vec<String> = (1..=1914).map(|i| format!("step-{i}")).collect();
        let branches: Vec<Branch> = (1..=1914u32)
            .map(|i| branch(&format!("b{i}"), 40, f64::from(i) * 1000.0, &[names[i as usize - 1].as_str()]))
            .collect();
        let text = archive_text(&plan(branches, names.clone()), &outcome(false));
        assert_eq!(
            text,
            "s.jsonl: 1.02 GB → 13.4 MB (−98.7 %)\n  \
             moved whole: 76560 entries off the active path (1.83 GB) in 1914 branches\n  \
             moved the content of: 1500 entries before the latest compaction's kept range (their lines: 9.00 MB; a stub with the same id stays)\n  \
             kept in place: 3828 label/session_info entries off the path (pi reads them wherever they are)\n  \
             note: 1914 anchors before the latest compaction (step-1, step-2, step-3, step-4, step-5, step-6, step-7, step-8, step-9, step-10 and 1904 more) would bring stubs into the context if rewound to; restore first\n  \
             archive: s.jsonl.archive (1.01 GB); `pi-tree-navigator restore /home/u/s.jsonl` puts it back\n  \
             leaf: leaf (unchanged; 2000 entries on its path)"
        );
        let many: Vec<String> = (1..=25).map(|i| format!("a{i}")).collect();
        let mut branches: Vec<Branch> = (1..=12u32).map(|i| branch(&format!("b{i}"), i, f64::from(i) * 1000.0, &[])).collect();
        branches[0].anchors = many;
        branches[0].moved.bytes = 50_000.0;
        branches[1].kept = 2;
        let dry = archive_text(&plan(branches, vec!["x".into()]), &outcome(true));
        let lines: Vec<&str> = dry.lines().collect();
        assert_eq!(lines[0], "s.jsonl: 1.02 GB → 13.4 MB (−98.7 %) [dry run: nothing written]");
        assert_eq!(lines[1], "  would move whole: 78 entries off the active path (127 KB) in 12 branches");
        assert_eq!(lines[4], "  note: 1 anchor before the latest compaction (x) would bring stubs into the context if rewound to; restore first");
        assert_eq!(lines[5], "  archive: s.jsonl.archive (1.01 GB)");
        let from = lines.iter().position(|l| *l == "  branches off the path (largest first):").expect("the branch list");
        assert_eq!(
            &lines[from + 1..],
            [
                "    from f0 at b1: 1 entries, 50.0 KB, anchors a1, a2, a3, a4, a5, a6, a7, a8, a9, a10 and 15 more",
                "    from f0 at b12: 12 entries, 12.0 KB",
                "    from f0 at b11: 11 entries, 11.0 KB",
                "    from f0 at b10: 10 entries, 10.0 KB",
                "    from f0 at b9: 9 entries, 9.00 KB",
                "    from f0 at b8: 8 entries, 8.00 KB",
                "    from f0 at b7: 7 entries, 7.00 KB",
                "    from f0 at b6: 6 entries, 6.00 KB",
                "    from f0 at b5: 5 entries, 5.00 KB",
                "    from f0 at b4: 4 entries, 4.00 KB",
                "    and 2 more branches (5 entries, 5.00 KB)",
            ]
        );
    }

    #[test]
    fn small_archive_reports_list_everything() {
        let p = plan(vec![branch("b1", 2, 664.0, &["after-second"])], Vec::new());
        let mut r = outcome(true);
        r.stubs_kept_whole = 1;
        let text = archive_text(&p, &r);
        assert!(text.contains("in 1 branch\n"), "{text}");
        assert!(text.contains("the content of: 1499 entries"), "{text}");
        assert!(text.contains("\n  kept whole: 1 of those entries"), "{text}");
        assert!(!text.contains("note:"), "{text}");
        assert!(text.ends_with("\n    from f0 at b1: 2 entries, 664 B, anchors after-second"), "{text}");
        r.nothing = true;
        assert_eq!(archive_text(&p, &r), "s.jsonl: nothing to archive (2000 of 100000 entries on the active path, no compaction before them)");
    }

    #[test]
    fn the_restore_command_is_the_way_the_cli_ran() {
        let mut r = outcome(false);
        r.cli = vec!["/opt/node 22/bin/node".into(), "/home/u/pkg/cli.js".into()];
        r.file = "/home/u/my sessions/s.jsonl".into();
        let text = archive_text(&plan(Vec::new(), Vec::new()), &r);
        assert!(text.contains("; `'/opt/node 22/bin/node' /home/u/pkg/cli.js restore '/home/u/my sessions/s.jsonl'` puts it back"), "{text}");
    }

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(shell_word("/home/u/.pi/agent/sessions/--home-u-w--/2026-01-01T00-00-00-000Z_abc.jsonl"), "/home/u/.pi/agent/sessions/--home-u-w--/2026-01-01T00-00-00-000Z_abc.jsonl");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("$HOME"), "'$HOME'");
        assert_eq!(shell_word("~/x"), "'~/x'");
        assert_eq!(shell_word("café"), "'café'");
    }

    #[test]
    fn restore_reports_what_pi_appended_since() {
        let mut r = RestoreOutcome { name: "s.jsonl".into(), archive_name: "s.jsonl.archive".into(), restored: 12, bytes: 13_342.0, appended_since: 0.0 };
        assert_eq!(restore_text(&r), "s.jsonl: restored 12 archived lines (13.3 KB: the original bytes); s.jsonl.archive removed");
        r.appended_since = 812.0;
        assert_eq!(
            restore_text(&r),
            "s.jsonl: restored 12 archived lines (13.3 KB: the original bytes, then 812 B pi appended since archiving); s.jsonl.archive removed"
        );
        r.restored = 0;
        assert_eq!(
            restore_text(&r),
            "s.jsonl: already the original bytes (an archive was interrupted before it replaced the file); the leftover s.jsonl.archive was removed"
        );
    }

    #[test]
    fn an_archive_after_pi_quit_logs_how_it_ended() {
        let entry = exit_log_entry("2026-11-29T10:00:00.000Z", 4242, "skipped", "/s/a.jsonl", "why\n  detail");
        assert_eq!(entry, "2026-11-29T10:00:00.000Z archive after pi (pid 4242) quit: skipped: /s/a.jsonl\n  why\n    detail");
        assert_eq!(exit_skip_open(&["1234 node", "99 less"]), "another process has the file open (1234 node, 99 less), so nothing was changed");
        assert_eq!(exit_skip_not_worth(9_500_000.0, 9e6, 10.0), "9.50 MB is under archiveOnExitMinMB (10 MB)");
        assert_eq!(
            exit_skip_not_worth(40e6, 19_999_999.0, 10.0),
            "at most 20.0 MB of its 40.0 MB (49 %) would move; archiveOnExit archives a file when at least half of it would"
        );
        assert_eq!(exit_skip_running(7, 10), "pi (pid 7) was still running after 10 minutes, so nothing was changed");
    }

    #[test]
    fn skipped_lines_and_warnings_are_counted_past_the_first_few() {
        let none: [&str; 0] = [];
        assert!(ingest_notes("f", &[], "", &none).is_empty());
        assert_eq!(ingest_notes("f", &[3], "bad", &none), ["f: skipped 1 malformed line (line 3); first: bad"]);
        let lines: Vec<usize> = (1..=25).collect();
        let warnings: Vec<String> = (1..=8).map(|i| format!("w{i}")).collect();
        let notes = ingest_notes("f", &lines, "r1", &warnings);
        assert_eq!(notes[0], "f: skipped 25 malformed lines (lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 15 more); first: r1");
        assert_eq!(&notes[1..], ["f: warning: w1", "f: warning: w2", "f: warning: w3", "f: warning: w4", "f: warning: w5", "f: and 3 more warnings"]);
    }

    #[test]
    fn stats_list_entry_types_most_frequent_first() {
        let mut by_type = std::collections::BTreeMap::new();
        for (t, n) in [("compaction", 4), ("label", 2), ("message", 20)] {
            by_type.insert(t.to_string(), n);
        }
        let s = Stats {
            entries: 26,
            by_type,
            tips: 3,
            branch_points: 2,
            active_path: 21,
            abandoned_share: 5.0 / 26.0,
            labels: 2,
            anchors: 2,
            file_bytes: 13_342.0,
            estimate: TokenEstimate { tokens: 34.0, usage_tokens: 0.0, trailing_tokens: 34.0, last_usage_index: None },
        };
        let saved = |tokens: f64| crate::tool::RewindSaving { removed_tokens: tokens + 500.0, summary_tokens: 500.0, saved_tokens: tokens, baseline_changed: false };
        let rewinds = [12_000.0, 19_200.0].map(|t| PathRewind { summary_id: "bs".into(), slot: 0, saving: saved(t) });
        assert_eq!(
            stats_text("c.jsonl", &s, &rewinds, "pi-0.74 (default)"),
            "c.jsonl\n  entries: 26\n  by type: message 20, compaction 4, label 2\n  tips: 3\n  branch points: 2\n  active path: 21\n  \
             abandoned share: 19.2%\n  labels: 2\n  anchors: 2\n  rewinds on the active path: 2, saved 31.2k tokens\n  file bytes: 13342\n  \
             estimate: tokens 34, usageTokens 0, trailingTokens 34, lastUsageIndex null\n  profile: pi-0.74 (default)"
        );
        let mut odd = s.clone();
        odd.by_type = (1..=30).map(|i| (format!("t{i:02}"), 1)).collect();
        assert!(stats_text("c", &odd, &[], "p").contains("rewinds on the active path: 0\n"));
        assert!(stats_text("c", &odd, &[], "p").contains("by type: t01 1, t02 1, t03 1, t04 1, t05 1, t06 1, t07 1, t08 1, t09 1, t10 1 and 20 more\n"));
    }
}
