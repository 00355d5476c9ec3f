//! A folder of sessions (pi's `sessions/<cwd>/…jsonl`): one row per session — read by the same index and the
//! same cost model as `stats <file>`, so its numbers are that file's — and the families pi's header field
//! `parentSession` makes (a session forked or spawned from another): each session's children, and the money
//! of a session with all of its descendants. Files that are no session, unreadable, half-written or malformed
//! are listed with their reason and left out of every total; a `parentSession` naming a file the folder does
//! not hold, or one of a circle of sessions, is reported and not followed.
//!
//! The shim only walks the folder and streams each file into an index; everything it prints comes from here.
//! One room each: one file's row ([`session`]), its requests as rows a database reads ([`rows`]), the families
//! and totals ([`family`]), and the text people read ([`texts`]).

mod family;
mod rows;
mod session;
mod texts;

pub use family::{Folder, FolderReport, SkippedFile, Totals};
pub use rows::request_rows;
pub use session::{read_session, unreadable, Family, FileResult, FolderSession, Member, ParentProblem};
pub use texts::folder_text;
