//! The core's one error type. Messages are short and lowercase; [`SessionError::code`] is the stable
//! name the JavaScript side branches on.

/// Everything that can go wrong in the core.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// No entry has this id.
    #[error("unknown entry id {0}")]
    UnknownEntry(String),
    /// Walking parent links came back to an entry already visited.
    #[error("parent links form a cycle at entry {0}")]
    Cycle(String),
    /// The operation needs whole entries, which only a full-mode index keeps.
    #[error("this needs a full-mode index (SessionIndex.full())")]
    NeedsFullMode,
    /// Stored entry text could not be read back as JSON.
    #[error("invalid JSON: {0}")]
    Json(String),
    /// An argument from the caller is out of range or of the wrong type.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

impl SessionError {
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
