//! Whether a loaded file is a pi session at all: the rule the CLI applies before it shows anything.

use crate::session::{IngestReport, SessionIndex};

/// Why the file `bytes`, loaded into `index` with `report`, is no pi session, as `<line>: <reason>` — or
/// `None` when it is one (a header-only session is one; so is a file pi loads as empty for want of a
/// header: the report's warning says so). A file is none when it holds nothing but whitespace, or when
/// not one of its lines was taken.
pub fn not_a_session(bytes: &[u8], index: &SessionIndex, report: &IngestReport) -> Option<String> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Some("1: empty file, not a pi session".into());
    }
    if !index.is_empty() || index.header().is_some() {
        return None;
    }
    let first = report.skipped.first()?;
    Some(format!("{}: {} (no line of the file is a pi session entry)", first.line, first.reason))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Mode;

    fn problem(text: &str) -> Option<String> {
        let mut index = SessionIndex::new(Mode::Plugin);
        let report = index.load_file(text).unwrap();
        not_a_session(text.as_bytes(), &index, &report)
    }

    #[test]
    fn only_files_with_nothing_taken_are_refused() {
        assert_eq!(problem("").as_deref(), Some("1: empty file, not a pi session"));
        assert_eq!(problem(" \n\t\r\n").as_deref(), Some("1: empty file, not a pi session"));
        assert_eq!(problem("\u{feff}\n").as_deref(), Some("1: empty file, not a pi session"));
        let junk = problem("not json\n{also not\n").unwrap();
        assert!(junk.starts_with("1: ") && junk.ends_with("(no line of the file is a pi session entry)"), "{junk}");
        let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#;
        assert_eq!(problem(header), None, "a header-only session");
        assert_eq!(problem(&format!("{header}\nnot json\n")), None);
        let entry = r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}"#;
        assert_eq!(problem(entry), None, "no header: pi loads it as empty, with a warning");
    }
}
