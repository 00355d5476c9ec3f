//! The core's one error type. Messages are short and lowercase; [`SessionError::code`] is the stable
//! name the JavaScript side branches on.

use crate::prelude::*;
use core::fmt;

/// Everything that can go wrong in the core.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionError {
    /// No entry has this id.
    UnknownEntry(String),
    /// Walking parent links came back to an entry already visited.
    Cycle(String),
    /// The operation needs whole entries, which only a full-mode index keeps.
    NeedsFullMode,
    /// Stored entry text could not be read back as JSON.
    Json(String),
    /// An argument from the caller is out of range or of the wrong type.
    InvalidArgument(String),
}

// Written by hand rather than derived (thiserror): two `write_str` calls instead of `core::fmt`
// argument machinery per variant, which the plugin wasm pays for in bytes.
impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (lead, detail) = self.parts();
        f.write_str(lead)?;
        f.write_str(detail)
    }
}

impl core::error::Error for SessionError {}

impl SessionError {
    /// The message as a fixed lead and the variant's detail (the binding joins them without `core::fmt`).
    pub(crate) fn parts(&self) -> (&'static str, &str) {
        match self {
            SessionError::UnknownEntry(id) => ("unknown entry id ", id.as_str()),
            SessionError::Cycle(id) => ("parent links form a cycle at entry ", id.as_str()),
            SessionError::NeedsFullMode => ("this needs a full-mode index (SessionIndex.full())", ""),
            SessionError::Json(e) => ("invalid JSON: ", e.as_str()),
            SessionError::InvalidArgument(e) => ("invalid argument: ", e.as_str()),
        }
    }

    /// Stable machine-readable name, e.g. `"UnknownEntry"`.
    pub fn code(&self) -> &'static str {
        match self {
            SessionError::UnknownEntry(_) => "UnknownEntry",
            SessionError::Cycle(_) => "Cycle",
            SessionError::NeedsFullMode => "NeedsFullMode",
            SessionError::Json(_) => "InvalidJson",
            SessionError::InvalidArgument(_) => "InvalidArgument",
        }
    }

    /// The entry id the error is about, if any.
    pub fn entry_id(&self) -> Option<&str> {
        match self {
            SessionError::UnknownEntry(id) | SessionError::Cycle(id) => Some(id),
            _ => None,
        }
    }
}
