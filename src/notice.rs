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

use crate::cli_text::command_line;
use crate::text::format_bytes;

/// Sessions smaller than this open fast enough in pi (~1 s at 100 MB) that archiving is not worth a word.
pub const MIN_FILE_BYTES: f64 = 50_000_000.0;
/// The share of the file's bytes that must be off the active path for the notice.
pub const MIN_OFF_PATH_SHARE: f64 = 0.5;
/// The environment variable that turns the notice off (as `"archiveNotice": false` does).
pub const ENV_NO_ARCHIVE_NOTICE: &str = "PI_TREE_NAVIGATOR_NO_ARCHIVE_NOTICE";

/// Whether a session file of `file_bytes` bytes is worth reading for the notice at all: the notice is on
/// (`enabled`: the config's `archiveNotice` and no env switch) and the file is big enough.
pub fn wanted(file_bytes: f64, enabled: bool) -> bool {
    enabled && file_bytes >= MIN_FILE_BYTES
}

/// Whether a file of `file_bytes` bytes of which `archive` would take `saved_bytes` out gets the notice.
pub fn due(file_bytes: f64, saved_bytes: f64) -> bool {
    file_bytes >= MIN_FILE_BYTES && saved_bytes >= file_bytes * MIN_OFF_PATH_SHARE
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
         resume. After you quit pi, this moves that part into {}.archive next to it (nothing is lost; `restore` \
         puts it back):\n  {command}\nTurn this notice off with \"archiveNotice\": false in tree-navigator.json or \
         {ENV_NO_ARCHIVE_NOTICE}=1.",
        format_bytes(facts.file_bytes),
        format_bytes(facts.saved_bytes),
        file_name(&facts.file),
    ))
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
    fn the_notice_says_size_share_and_the_command() {
        let text = archive_notice(&facts(1_020_000_000.0, 895_000_000.0)).expect("a notice");
        assert_eq!(
            text,
            "tree-navigator: this session file is 1.02 GB, and 895 MB of it (87 %) is what pi never sends again \
             (branches off the active path, contents before the latest compaction), yet pi reads all of it at every \
             resume. After you quit pi, this moves that part into 2026-01-01T00-00-00-000Z_abc.jsonl.archive next \
             to it (nothing is lost; `restore` puts it back):\n  \
             node /home/u/pkg/cli.js archive /home/u/.pi/agent/sessions/--home-u-w--/2026-01-01T00-00-00-000Z_abc.jsonl\n\
             Turn this notice off with \"archiveNotice\": false in tree-navigator.json or PI_TREE_NAVIGATOR_NO_ARCHIVE_NOTICE=1."
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
