//! The archive notice: when a resumed session file is big and most of it is what pi never sends again, the
//! user (never the model) is told once per session that `archive` would shrink it, with the command to run
//! after quitting pi. pi reads and parses every line of a session at every resume (a 1 GB session takes it
//! 5–7 s, the archived one ~0.05 s), and a long run with this plugin leaves most of its bytes on the branches
//! its rewinds collapsed.
//!
//! The shim asks [`wanted`] with the file's size first (nothing is read for a small file, or with the notice
//! off), then measures what `archive` would take out of it and asks [`archive_notice`]. "Off the active
//! path" is counted as `archive` counts it, so the notice and `archive --dry-run` give the same numbers: the
//! entries off the path root → leaf (except the labels and session names pi reads wherever they are), and
//! the contents of path entries before the latest compaction's kept range (pi sends none of it; a stub
//! stays). The measure is `archive`'s own two passes without writing ([`due`] on the first pass's upper
//! bound decides whether the second is worth reading).
//!
//! The same rule decides `archiveOnExit` ([`exit_archive_due`]): when pi quits, a session file worth it is
//! archived by a detached CLI process once pi has exited; `/archive` does it for the current session on
//! request. Their texts for pi's UI are [`exit_archive_text`]'s; what the archiver logs is
//! `crate::cli_text`'s.

use crate::cli_text::command_line;
use crate::text::format_bytes;

/// Sessions smaller than this open fast enough in pi (~1 s at 100 MB) that archiving is not worth a word.
pub const MIN_FILE_BYTES: f64 = 50_000_000.0;
/// The share of the file's bytes that must be off the active path for the notice.
pub const MIN_OFF_PATH_SHARE: f64 = 0.5;
/// The environment variable that turns the notice off (as `"archiveNotice": false` does).
pub const ENV_NO_ARCHIVE_NOTICE: &str = "PI_TREE_NAVIGATOR_NO_ARCHIVE_NOTICE";
/// The environment variable that turns `archiveOnExit` on (`1`) or off (`0`) whatever the config says.
pub const ENV_ARCHIVE_ON_EXIT: &str = "PI_TREE_NAVIGATOR_ARCHIVE_ON_EXIT";

/// Whether a session file of `file_bytes` bytes is worth reading for the notice at all: the notice is on
/// (`enabled`: the config's `archiveNotice` and no env switch) and the file is big enough.
pub fn wanted(file_bytes: f64, enabled: bool) -> bool {
    enabled && file_bytes >= MIN_FILE_BYTES
}

/// Whether a file of `file_bytes` bytes of which `archive` would take `saved_bytes` out gets the notice.
pub fn due(file_bytes: f64, saved_bytes: f64) -> bool {
    file_bytes >= MIN_FILE_BYTES && saved_bytes >= file_bytes * MIN_OFF_PATH_SHARE
}

/// Whether `archiveOnExit` archives a file of `file_bytes` bytes of which `archive` would take `saved_bytes`
/// out: the notice's share, and a size of at least `min_mb` MB (the config's `archiveOnExitMinMB`). With
/// `saved_bytes` = `file_bytes` (its upper bound) it says whether the file is worth a look at all.
pub fn exit_archive_due(file_bytes: f64, saved_bytes: f64, min_mb: f64) -> bool {
    file_bytes > 0.0 && file_bytes >= min_mb * 1e6 && saved_bytes >= file_bytes * MIN_OFF_PATH_SHARE
}

/// What the shim knows about a resumed session file.
#[derive(Debug, Clone, PartialEq)]
pub struct NoticeFacts {
    /// The file's size in bytes, as read.
    pub file_bytes: f64,
    /// What `archive` would take out of it: its size less the archived file's.
    pub saved_bytes: f64,
    /// The file's absolute path.
    pub file: String,
    /// The words that run the CLI: `node` (or the absolute path of the Node that runs pi, when `node` on the
    /// PATH is another one) and the absolute path of the package's `cli.js`.
    pub cli: Vec<String>,
}

/// The notice for `facts`, or `None` when it is not [`due`].
pub fn archive_notice(facts: &NoticeFacts) -> Option<String> {
    if !due(facts.file_bytes, facts.saved_bytes) {
        return None;
    }
    let command = command_line(&facts.cli, &["archive", &facts.file]);
    // Whole percents, rounded down: a share just under a threshold never reads as the threshold.
    let percent = (facts.saved_bytes / facts.file_bytes * 100.0).floor();
    Some(format!(
        "tree-navigator: this session file is {}, and {} of it ({percent} %) is what pi never sends again \
         (branches off the active path, contents before the latest compaction), yet pi reads all of it at every \
         resume. `/archive` moves that part into {}.archive next to it once you quit pi (nothing is lost; \
         `restore` puts it back), as does this command after you quit:\n  {command}\n\"archiveOnExit\": true in \
         tree-navigator.json (or {ENV_ARCHIVE_ON_EXIT}=1) does it at every quit. Turn this notice off with \
         \"archiveNotice\": false in tree-navigator.json or {ENV_NO_ARCHIVE_NOTICE}=1.",
        format_bytes(facts.file_bytes),
        format_bytes(facts.saved_bytes),
        file_name(&facts.file),
    ))
}

/// A text of `/archive` and of `archiveOnExit` for pi's UI (never the model).
#[derive(Debug, Clone, PartialEq)]
pub enum ExitText {
    /// The file will be archived once pi has exited: the one line on quit, and `/archive`'s answer to Yes.
    Quit,
    /// `/archive`'s question (the dialog's title).
    Title,
    /// `/archive`'s dialog: `archive --dry-run`'s report, then what confirming does.
    Confirm(String),
    /// While `/archive` measures a big file.
    Measuring,
    /// `/archive` where pi has no dialogs (print mode): the command to run instead.
    NoUi,
    /// `/archive` on a session with no file yet.
    NoFile,
}

/// What the texts of [`ExitText`] name.
#[derive(Debug, Clone, PartialEq)]
pub struct ExitFacts {
    /// The session file's absolute path.
    pub file: String,
    /// Its size in bytes.
    pub file_bytes: f64,
    /// The log file the archiver writes its result to.
    pub log: String,
    /// The words that run the CLI (as [`NoticeFacts::cli`]).
    pub cli: Vec<String>,
}

/// The text `what` for `facts`.
pub fn exit_archive_text(what: &ExitText, facts: &ExitFacts) -> String {
    let name = file_name(&facts.file);
    let log = &facts.log;
    match what {
        ExitText::Quit => format!("tree-navigator: {name} will be archived once pi has exited (the result goes to {log})."),
        ExitText::Title => "Archive this session when pi quits?".to_string(),
        ExitText::Confirm(report) => format!(
            "{report}\n\nWhen you quit pi, a background process waits until pi has exited, then archives the file \
             (nothing is lost; `restore` puts it back). The result goes to {log}."
        ),
        ExitText::Measuring => format!("tree-navigator: measuring what archive would move out of {name} ({})…", format_bytes(facts.file_bytes)),
        ExitText::NoUi => format!(
            "tree-navigator: /archive asks you to confirm, which needs pi's interactive UI. After you quit pi, run:\n  {}",
            command_line(&facts.cli, &["archive", &facts.file])
        ),
        ExitText::NoFile => "tree-navigator: this session has no file yet: nothing to archive.".to_string(),
    }
}

/// The last part of a path (after the last `/` or `\`).
fn file_name(path: &str) -> &str {
    path.rfind(['/', '\\']).and_then(|at| path.get(at + 1..)).unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(file_bytes: f64, saved_bytes: f64) -> NoticeFacts {
        NoticeFacts {
            file_bytes,
            saved_bytes,
            file: "/home/u/.pi/agent/sessions/--home-u-w--/2026-01-01T00-00-00-000Z_abc.jsonl".into(),
            cli: vec!["node".into(), "/home/u/pkg/cli.js".into()],
        }
    }

    #[test]
    fn only_big_files_are_read() {
        assert!(!wanted(0.0, true));
        assert!(!wanted(49_999_999.0, true));
        assert!(wanted(50_000_000.0, true));
        assert!(wanted(1e9, true));
        assert!(!wanted(1e9, false));
    }

    #[test]
    fn the_notice_needs_fifty_megabytes_and_half_of_them_off_the_path() {
        assert!(!due(49_999_999.0, 49_000_000.0));
        assert!(!due(100_000_000.0, 49_999_999.0));
        assert!(due(100_000_000.0, 50_000_000.0));
        assert_eq!(archive_notice(&facts(49_999_999.0, 49_000_000.0)), None);
        assert_eq!(archive_notice(&facts(100_000_000.0, 49_999_999.0)), None);
        assert_eq!(archive_notice(&facts(0.0, 0.0)), None);
        assert!(archive_notice(&facts(50_000_000.0, 25_000_000.0)).is_some());
        assert!(archive_notice(&facts(100_000_000.0, 50_000_000.0)).is_some());
    }

    #[test]
    fn archive_on_exit_needs_the_share_and_the_minimum_size() {
        assert!(exit_archive_due(10e6, 5e6, 10.0));
        assert!(!exit_archive_due(9_999_999.0, 9e6, 10.0), "under the minimum");
        assert!(!exit_archive_due(20e6, 9_999_999.0, 10.0), "under half");
        assert!(exit_archive_due(1.0, 1.0, 0.0), "0 MB: any size");
        assert!(!exit_archive_due(0.0, 0.0, 0.0), "an empty file never");
        // The upper bound (saved = size) asks only for the size.
        assert!(exit_archive_due(10e6, 10e6, 10.0) && !exit_archive_due(9e6, 9e6, 10.0));
    }

    #[test]
    fn archive_on_exit_texts() {
        let f = ExitFacts { file: "/s/it's.jsonl".into(), file_bytes: 55_400_000.0, log: "/a/tree-navigator.log".into(), cli: vec!["pi-tree-navigator".into()] };
        assert_eq!(exit_archive_text(&ExitText::Quit, &f), "tree-navigator: it's.jsonl will be archived once pi has exited (the result goes to /a/tree-navigator.log).");
        assert_eq!(exit_archive_text(&ExitText::NoUi, &f).lines().last(), Some("  pi-tree-navigator archive '/s/it'\\''s.jsonl'"));
        assert!(exit_archive_text(&ExitText::Confirm("REPORT".into()), &f).starts_with("REPORT\n\nWhen you quit pi"));
        assert!(exit_archive_text(&ExitText::Measuring, &f).ends_with("(55.4 MB)…"));
    }

    #[test]
    fn the_notice_says_size_share_and_the_command() {
        let text = archive_notice(&facts(1_020_000_000.0, 895_000_000.0)).expect("a notice");
        assert_eq!(
            text,
            "tree-navigator: this session file is 1.02 GB, and 895 MB of it (87 %) is what pi never sends again \
             (branches off the active path, contents before the latest compaction), yet pi reads all of it at every \
             resume. `/archive` moves that part into 2026-01-01T00-00-00-000Z_abc.jsonl.archive next to it once you \
             quit pi (nothing is lost; `restore` puts it back), as does this command after you quit:\n  \
             node /home/u/pkg/cli.js archive /home/u/.pi/agent/sessions/--home-u-w--/2026-01-01T00-00-00-000Z_abc.jsonl\n\
             \"archiveOnExit\": true in tree-navigator.json (or PI_TREE_NAVIGATOR_ARCHIVE_ON_EXIT=1) does it at every \
             quit. Turn this notice off with \"archiveNotice\": false in tree-navigator.json or PI_TREE_NAVIGATOR_NO_ARCHIVE_NOTICE=1."
        );
        // 99.96 % reads as 99 %, never 100 %.
        assert!(archive_notice(&facts(100_000_000.0, 99_960_000.0)).unwrap().contains("(99 %)"));
    }

    #[test]
    fn paths_are_quoted_for_the_shell() {
        let mut f = facts(60e6, 40e6);
        f.file = "/tmp/it's here/s.jsonl".into();
        f.cli[0] = "/opt/node 22/bin/node".into();
        let text = archive_notice(&f).unwrap();
        assert!(text.contains("\n  '/opt/node 22/bin/node' /home/u/pkg/cli.js archive '/tmp/it'\\''s here/s.jsonl'\n"), "{text}");
        assert!(text.contains(" into s.jsonl.archive next to it"), "{text}");
    }
}
