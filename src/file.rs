//! Whether a loaded file is a pi session at all: the rule the CLI applies before it shows anything; and
//! [`list_file`], what the CLI's `list` and `tokens` show of a whole file.

use serde::Serialize;
use tsify_next::Tsify;

use crate::error::SessionError;
use crate::js;
use crate::session::{parse_line, AnchorList, Header, IngestReport, Leaf, Line, LineProblem, Profile, SessionIndex, SkimmedSession};

/// A whole file's `IngestReport`; `problem` says why the file is no pi session (see `not_a_session`), or is null.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[tsify(missing_as_null)]
pub struct FileReport {
    /// What loading the file did.
    #[serde(flatten)]
    pub report: IngestReport,
    /// `"<line>: <reason>"` when the file is no pi session.
    pub problem: Option<String>,
    /// The file's last line has no newline after it and is no whole entry: a line still being written (pi
    /// appends a session line by line), or a file cut short ([`partial_line`]).
    pub partial: bool,
}

/// What `list` (and `tokens`) show of a whole file: see [`list_file`].
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[tsify(missing_as_null)]
pub struct FileList {
    /// What loading the file did, and why it is no pi session (`problem`).
    pub report: FileReport,
    /// The anchors on the path and the estimate at the leaf; null when no entry has the leaf id asked for.
    pub list: Option<AnchorList>,
}

/// The anchors and the estimate at `leaf` of the session file `bytes`, read under `profile` (else as its
/// contents say) with only the message contents the answer needs decoded ([`SkimmedSession`]).
///
/// # Errors
/// `Cycle` when the path to the leaf runs in a circle (as [`SessionIndex::anchors_and_estimate`]).
pub fn list_file(bytes: Vec<u8>, profile: Option<Profile>, leaf: Leaf<'_>) -> Result<FileList, SessionError> {
    let mut session = SkimmedSession::load(bytes, profile);
    let problem = not_a_session(session.text().as_bytes(), session.index(), session.report());
    let known = match leaf {
        Leaf::Id(id) => session.index().slot_of(id).is_some(),
        _ => true,
    };
    let list = if known {
        let (anchors, estimate) = session.anchors_and_estimate(leaf)?;
        Some(AnchorList { anchors, estimate })
    } else {
        None
    };
    Ok(FileList { report: FileReport { report: session.report().clone(), problem, partial: partial_line(session.text().as_bytes()) }, list })
}

/// Why the file `bytes`, loaded into `index` with `report`, is no pi session, as `<line>: <reason>` — or
/// `None` when it is one (a header-only session is one; so is a file pi loads as empty for want of a
/// header: the report's warning says so). A file is none when it holds nothing but whitespace, or when
/// not one of its lines was taken.
///
/// Under a profile with [`crate::session::Profile::opens_only_files_led_by_a_header`] (pi ≥0.87) a file is also none when the
/// first line `JSON.parse` takes is no session header: pi refuses to open it, where older pi loads it as
/// empty. A leading byte-order mark stays part of that first line there, so that line does not parse.
pub fn not_a_session(bytes: &[u8], index: &SessionIndex, report: &IngestReport) -> Option<String> {
    let mut shape = Shape::new();
    shape.part(bytes, true);
    shape.problem(index, report)
}

/// A session file loaded into an index as its bytes arrive (the viewer indexes a fetched file while it
/// streams in): at [`FileStream::finish`] the index holds, and the report says, what
/// [`SessionIndex::load_file_bytes`] and [`not_a_session`] give for the whole file at once, however the bytes
/// were cut. The index is fed whole lines; only the line still arriving is held here.
#[derive(Debug)]
pub struct FileStream {
    /// The bytes after the last newline so far: the start of a line still arriving.
    tail: Vec<u8>,
    shape: Shape,
}

impl FileStream {
    /// Starts loading a file into `index`, which must be empty.
    ///
    /// # Errors
    /// `InvalidArgument` when `index` is not empty or is loading a file already.
    pub fn begin(index: &mut SessionIndex) -> Result<Self, SessionError> {
        index.begin_file_load()?;
        Ok(FileStream { tail: Vec::new(), shape: Shape::new() })
    }

    /// The next bytes of the file, cut anywhere (inside a line or a UTF-8 sequence).
    pub fn push(&mut self, index: &mut SessionIndex, bytes: &[u8]) {
        let Some(last) = bytes.iter().rposition(|&b| b == b'\n') else {
            self.tail.extend_from_slice(bytes);
            return;
        };
        let (mut lines, rest) = bytes.split_at(last + 1);
        if !self.tail.is_empty() {
            // The line the bytes before broke off, made whole by these bytes' first line (the one copy).
            let end = lines.iter().position(|&b| b == b'\n').map_or(lines.len(), |at| at + 1);
            self.tail.extend_from_slice(lines.get(..end).unwrap_or_default());
            let line = std::mem::take(&mut self.tail);
            self.feed(index, &line, false);
            lines = lines.get(end..).unwrap_or_default();
        }
        if !lines.is_empty() {
            self.feed(index, lines, false);
        }
        self.tail.extend_from_slice(rest);
    }

    /// Ends the load: the file's last line (when it has no newline after it) is read, and the whole file's
    /// report given.
    pub fn finish(mut self, index: &mut SessionIndex) -> FileReport {
        let tail = std::mem::take(&mut self.tail);
        let partial = partial_line(&tail);
        if !tail.is_empty() {
            index.load_file_part(&tail);
        }
        // After a final newline `split` gives one more (empty) line; the shape counts it as the whole-file
        // reading does.
        self.shape.part(&tail, true);
        let report = index.end_file_load();
        let problem = self.shape.problem(index, &report);
        FileReport { report, problem, partial }
    }

    fn feed(&mut self, index: &mut SessionIndex, lines: &[u8], last: bool) {
        self.shape.part(lines, last);
        index.load_file_part(lines);
    }
}

/// Whether a file whose bytes end with `tail` (what follows its last newline, or the whole file) ends in a line still
/// being written: something there, and no whole entry ([`FileReport::partial`]).
pub fn partial_line(tail: &[u8]) -> bool {
    let tail = tail.rsplit(|&b| b == b'\n').next().unwrap_or_default();
    !tail.trim_ascii().is_empty() && SessionIndex::check_line(&String::from_utf8_lossy(tail)).is_err()
}

/// What [`not_a_session`] needs of a file's bytes, gathered part by part (whole lines), so a file that
/// arrives in parts needs no second pass: a leading byte-order mark, whether anything but whitespace
/// follows it, and pi ≥0.87's verdict on the first lines ([`Shape::line`]).
#[derive(Debug)]
struct Shape {
    /// Whether the file starts with a byte-order mark; `None` until its first part came.
    marked: Option<bool>,
    /// Whether every byte so far (after the mark) is ASCII whitespace.
    blank: bool,
    /// Lines seen so far.
    lines: usize,
    /// The first non-blank line's number.
    first: Option<usize>,
    /// Whether a line `JSON.parse` takes was seen, which decides the verdict.
    decided: bool,
    /// pi ≥0.87's verdict: the first non-blank line's number when the file is not led by a session header.
    not_led: Option<usize>,
}

impl Shape {
    fn new() -> Self {
        Shape { marked: None, blank: true, lines: 0, first: None, decided: false, not_led: None }
    }

    /// The next whole lines of the file (`last`: the file's last part, which may lack a newline).
    fn part(&mut self, bytes: &[u8], last: bool) {
        let unmarked = if self.marked.is_some() {
            bytes
        } else {
            let unmarked = bytes.strip_prefix(b"\xEF\xBB\xBF");
            self.marked = Some(unmarked.is_some());
            unmarked.unwrap_or(bytes)
        };
        self.blank = self.blank && unmarked.iter().all(u8::is_ascii_whitespace);
        if self.decided {
            return;
        }
        // A part that ends with a newline holds no line after it; the file's last part does.
        let lines = if last { bytes } else { bytes.strip_suffix(b"\n").unwrap_or(bytes) };
        for line in lines.split(|&b| b == b'\n') {
            self.line(line);
            if self.decided {
                return;
            }
        }
    }

    /// pi ≥0.87's `loadEntriesFromFile` + `SessionManager.open`, one line at a time: the file's own lines,
    /// a leading byte-order mark included (JavaScript's `trim()` blanks a line holding only one), decoded
    /// as Node decodes the file (a '\n' byte ends any broken sequence, so the lines are the same). The
    /// verdict comes from the first lines, so a large file is not decoded for it.
    fn line(&mut self, line: &[u8]) {
        self.lines += 1;
        let line = String::from_utf8_lossy(line);
        // `JSON.parse(line)`: JSON's own whitespace around the value, nothing else (no byte-order mark).
        let Some(json) = js::json_line(&line) else { return };
        self.first.get_or_insert(self.lines);
        match parse_line(json, false) {
            Err(LineProblem::Malformed(_)) => {}
            Ok(Line::Header(Header { id: Some(_), .. })) => self.decided = true,
            _ => (self.decided, self.not_led) = (true, self.first),
        }
    }

    /// [`not_a_session`]'s answer for the file these parts made.
    fn problem(&self, index: &SessionIndex, report: &IngestReport) -> Option<String> {
        if self.blank {
            return Some("1: empty file, not a pi session".into());
        }
        if index.profile().0.opens_only_files_led_by_a_header() {
            // The 1-based number of the first non-blank line when the first line `JSON.parse` takes is not
            // a `session` header with a string id (or none parses).
            let not_led = if self.decided { self.not_led } else { self.first };
            if let Some(line) = not_led {
                let why = if self.marked == Some(true) { "the first line starts with a byte-order mark" } else { "the first entry is no session header" };
                return Some(format!("{line}: {why}; pi 0.87 and later refuse to open such a file"));
            }
        }
        if !index.is_empty() || index.header().is_some() {
            return None;
        }
        let first = report.skipped.first()?;
        Some(format!("{}: {} (no line of the file is a pi session entry)", first.line, first.reason))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Mode, Profile};

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

    fn problem_on_pi087(text: &str) -> Option<String> {
        let mut index = SessionIndex::new(Mode::Plugin);
        index.set_profile(Profile::Pi087);
        let report = index.load_file(text).unwrap();
        not_a_session(text.as_bytes(), &index, &report)
    }

    #[test]
    fn pi087_opens_only_files_led_by_a_header() {
        let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#;
        let entry = r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}"#;
        assert_eq!(problem_on_pi087(&format!("{header}\n{entry}\n")), None);
        assert_eq!(problem_on_pi087(&format!("\n  \nnot json\n{header}\n{entry}\n")), None, "blank and malformed lines before the header");
        assert_eq!(problem_on_pi087(&format!("\u{feff}\n{header}\n{entry}\n")), None, "a line holding only a byte-order mark is blank");
        let bom = problem_on_pi087(&format!("\u{feff}{header}\n{entry}\n")).unwrap();
        assert_eq!(bom, "1: the first line starts with a byte-order mark; pi 0.87 and later refuse to open such a file");
        assert_eq!(problem_on_pi087(&format!("\u{feff}{header}\n{header}\n{entry}\n")), None, "the second line is a header");
        let headless = problem_on_pi087(&format!("{entry}\n{header}\n")).unwrap();
        assert_eq!(headless, "1: the first entry is no session header; pi 0.87 and later refuse to open such a file");
        assert_eq!(problem(&format!("\u{feff}{header}\n{entry}\n")), None, "older pi trims the mark away");
    }
}
