//! One session file of a folder: its row (what `stats <file>` says of it, read from the same index), or why it
//! is left out.

use serde::Serialize;
use tsify_next::Tsify;

use crate::cost::{CostReport, Usd};
use crate::file::FileReport;
use crate::session::{Kind, RoleKind, SessionIndex};

/// The longest first user message a row keeps (one line).
const FIRST_MESSAGE_MAX: usize = 80;

/// What the folder keeps of one session file: its row's own facts (the cost block itself goes with the file's
/// result, [`FileResult`]: a folder's instance need not hold it, nor read it back).
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct Member {
    /// The file's absolute path.
    pub file: String,
    /// The header's `id`.
    pub id: Option<String>,
    /// The header's `parentSession`, as written (a path on the machine that wrote it).
    pub parent_session: Option<String>,
    /// The header's `timestamp`, as written.
    pub start: Option<String>,
    /// The first user message, on one line (at most 80 characters).
    pub first_message: Option<String>,
    /// Entries (header excluded), as `stats` counts them.
    pub entries: usize,
    /// The file's size.
    pub bytes: f64,
    /// `cost.total.usd` (`null`: no prices recorded).
    pub usd: Option<f64>,
    /// What its rewinds and compactions saved (`cost.savings`' two sums; `null`: none known).
    pub saved: Option<f64>,
    /// `cost.messages.requests`.
    pub requests: usize,
}

/// One file of a folder read: its row and its `stats --json` cost block, or why it is left out.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct FileResult {
    /// The session's facts (`null`: skipped).
    pub member: Option<Member>,
    /// The file's cost block (`null`: skipped).
    pub cost: Option<CostReport>,
    /// Why the file is left out (`null`: it is a session).
    pub skipped: Option<String>,
}

/// One session of a folder (`stats <folder> --json`'s `sessions[]`, whose `cost` the shim puts in from the file's
/// [`FileResult`]).
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct FolderSession {
    /// The file's absolute path.
    pub file: String,
    /// The header's `id`.
    pub id: Option<String>,
    /// The header's `parentSession`, as written.
    pub parent_session: Option<String>,
    /// The folder's file `parentSession` names (`null`: none, or see `parentProblem`).
    pub parent: Option<String>,
    /// Why `parentSession` is not followed (`null`: it is, or there is none).
    pub parent_problem: Option<ParentProblem>,
    /// The sessions of the folder whose parent this one is (their files, in the folder's order).
    pub children: Vec<String>,
    /// The header's `timestamp`, as written.
    pub start: Option<String>,
    /// The first user message, on one line.
    pub first_message: Option<String>,
    /// Entries (header excluded).
    pub entries: usize,
    /// The file's size.
    pub bytes: f64,
    /// What its rewinds and compactions saved.
    pub saved: Usd,
    /// The session and every descendant in the folder.
    pub with_children: Family,
    /// Its own `cost.total.usd` (the text's column; the JSON has it in `cost`).
    #[serde(skip)]
    pub usd: Option<f64>,
}

impl FolderSession {
    /// The row of `m`, before its family is known.
    pub(super) fn of(m: &Member) -> FolderSession {
        FolderSession {
            file: m.file.clone(),
            id: m.id.clone(),
            parent_session: m.parent_session.clone(),
            parent: None,
            parent_problem: None,
            children: Vec::new(),
            start: m.start.clone(),
            first_message: m.first_message.clone(),
            entries: m.entries,
            bytes: m.bytes,
            saved: Usd { usd: m.saved },
            with_children: Family { usd: m.usd, sessions: 1 },
            usd: m.usd,
        }
    }
}

/// A session and its descendants in the folder: their money together.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct Family {
    /// Σ `cost.total.usd` over them (`null`: none records a price).
    pub usd: Option<f64>,
    /// How many sessions (the session itself included).
    pub sessions: usize,
}

/// Why a session's `parentSession` is not followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum ParentProblem {
    /// It names no file the folder holds (moved, deleted, or outside the folder).
    Missing,
    /// It names a file the folder left out (`skipped`).
    Skipped,
    /// Following parents from this session comes back to it (a session its own ancestor).
    Cycle,
}

/// The row and cost block of the session `index` holds, loaded from `file` (`bytes` long) with `report` — or why the file
/// is left out of the folder's totals: not a pi session, half-written (its last line still arriving: pi
/// appends line by line), or malformed (a line the index skipped, a tree that runs in a circle). A file with
/// a bad line is left out whole: its totals would be a part of the session's, and a half-written file is
/// read again on the next run.
pub fn read_session(index: &mut SessionIndex, file: &str, bytes: f64, report: &FileReport) -> FileResult {
    match read(index, file, bytes, report) {
        Ok((member, cost)) => FileResult { member: Some(member), cost: Some(cost), skipped: None },
        Err(reason) => FileResult { member: None, cost: None, skipped: Some(reason) },
    }
}

fn read(index: &mut SessionIndex, file: &str, bytes: f64, report: &FileReport) -> Result<(Member, CostReport), String> {
    if let Some(problem) = &report.problem {
        return Err(format!("not a pi session (line {problem})"));
    }
    if report.partial {
        return Err("half-written: its last line is incomplete (pi may be appending to it)".into());
    }
    if let Some(first) = report.report.skipped.first() {
        let n = report.report.skipped.len();
        let more = if n > 1 { format!(" (and {} more)", n - 1) } else { String::new() };
        return Err(format!("malformed: line {}: {}{more}", first.line, first.reason));
    }
    // pi lists a file as a session by its header (`SessionManager.list`); without one it is something else.
    let Some(header) = index.header() else { return Err("not a pi session (no session header)".into()) };
    let (id, parent_session, start) = (header.id.clone(), header.parent_session.clone(), header.timestamp.clone());
    let cost = crate::tool::session_cost(index).map_err(|e| format!("malformed: {e}"))?;
    let first_message = (0..index.len() as u32)
        .map(|s| index.entry(s))
        .find(|e| e.kind() == Kind::Message(RoleKind::User))
        .and_then(|e| e.hint())
        .and_then(|h| crate::text::to_one_line(h, FIRST_MESSAGE_MAX));
    let saved = match (cost.savings.rewinds.usd, cost.savings.compactions.usd) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    };
    let member = Member {
        file: file.to_string(),
        id,
        parent_session,
        start,
        first_message,
        entries: index.len(),
        bytes,
        usd: cost.total.usd,
        saved,
        requests: cost.messages.requests,
    };
    Ok((member, cost))
}

/// Why a file that could not be read is left out (`code`: the system's error code, e.g. `EACCES`).
pub fn unreadable(code: &str) -> String {
    match code {
        "EACCES" | "EPERM" => "unreadable: permission denied".into(),
        "ENOENT" => "unreadable: no such file (a link to nothing, or removed while the folder was read)".into(),
        "ELOOP" => "unreadable: a circle of links".into(),
        "ERR_FS_FILE_TOO_LARGE" => "unreadable: larger than 2 GiB".into(),
        _ => format!("unreadable: {code}"),
    }
}
