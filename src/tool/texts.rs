//! Every sentence `navigate_tree` returns to the model. Short, concrete, and each refusal says what to do
//! instead, so the model can correct itself without the user.

use std::fmt::Write as _;

use serde::Serialize;

use crate::text::{format_context_delta, format_pct1, format_position, MAX_NAME_LENGTH};

use super::plan::{MIN_FOCUS_CHARS, MIN_SAVED_TOKENS};

/// Why a call was refused. The shim reports every refusal as a failed tool call (`isError: true`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum RefusalCode {
    /// `action` is missing or unknown.
    InvalidAction,
    /// A name parameter is not kebab-case within the length limit.
    InvalidName,
    /// `summaryFocus` is missing or too short.
    FocusTooShort,
    /// The session has no entry to anchor yet.
    NothingToAnchor,
    /// `labelStart` is not an anchor on the active branch.
    UnknownAnchor,
    /// Nothing but this call lies after the anchor.
    AlreadyAtTarget,
    /// Only bookkeeping entries (labels, settings) lie after the anchor.
    NothingToCollapse,
    /// Only the previous rewind's own messages lie after the anchor.
    ChainedRewind,
    /// The rewind shares its assistant message with other tool calls.
    BatchedRewind,
    /// The rewind would free fewer than [`MIN_SAVED_TOKENS`] estimated tokens.
    TooLittleSaved,
    /// No model is configured to write the summary.
    NoModel,
    /// The model's credentials did not resolve.
    AuthFailed,
    /// The summarizer was aborted.
    SummaryAborted,
    /// The summarizer failed or returned nothing.
    SummaryFailed,
}

pub(crate) fn invalid_action() -> String {
    "Unknown action: use action='anchor', 'rewind' or 'list'.".into()
}

pub(crate) fn invalid_name(param: &str, action: &str) -> String {
    format!(
        "{action} needs `{param}`: kebab-case (a-z, 0-9, single hyphens), 1–{MAX_NAME_LENGTH} chars, e.g. 'impl-start'."
    )
}

pub(crate) fn focus_too_short() -> String {
    format!(
        "rewind needs `summaryFocus` of at least {MIN_FOCUS_CHARS} characters. The summary is all that will remain \
         of the collapsed work, so tell the summarizer:\n\
         1. the user's most recent instruction, word for word;\n\
         2. what the collapsed work finished;\n\
         3. what is still left to do."
    )
}

pub(crate) fn nothing_to_anchor() -> String {
    "The session has no entries yet; nothing to anchor.".into()
}

/// `rows`: the anchors on the active branch, already formatted (may be empty).
pub(crate) fn unknown_anchor(name: &str, rows: &str) -> String {
    if rows.is_empty() {
        format!("No anchor '{name}' on the active branch, and no anchors at all. Set one with action='anchor' first.")
    } else {
        format!("No anchor '{name}' on the active branch. Anchors here (root → leaf):\n{rows}")
    }
}

pub(crate) fn already_at_target(name: &str) -> String {
    format!("Nothing after anchor '{name}' to collapse yet.")
}

pub(crate) fn nothing_to_collapse(name: &str) -> String {
    format!("Only bookkeeping entries follow anchor '{name}'; there is no work to collapse.")
}

pub(crate) fn chained_rewind(name: &str) -> String {
    format!(
        "Nothing new since the last rewind: after anchor '{name}' there is only that rewind's own call. \
         Do some work before rewinding again."
    )
}

/// `others`: the other tool calls of the same message, `name (id)` each.
pub(crate) fn batched_rewind(others: &[String]) -> String {
    format!(
        "rewind must be the only tool call in its message; this message also calls {}. Their results would be \
         cut off from the conversation. Let them finish, then call rewind on its own.",
        others.join(", ")
    )
}

pub(crate) fn too_little_saved(name: &str, freed: f64, rows: &str) -> String {
    format!(
        "Rewinding to '{name}' would free only about {} tokens (minimum {}). Keep working, or pick an earlier \
         anchor:\n{rows}",
        freed.max(0.0).round(),
        MIN_SAVED_TOKENS
    )
}

pub(crate) fn no_model() -> String {
    "No model is configured, so no summary can be written. The session was not changed.".into()
}

pub(crate) fn auth_failed(error: &str) -> String {
    format!("Cannot summarize: the model's credentials did not resolve ({error}). The session was not changed.")
}

pub(crate) fn summary_aborted() -> String {
    "Summarization aborted.".into()
}

pub(crate) fn summary_failed(error: &str) -> String {
    format!("Summarization failed: {error}. The session was not changed.")
}

/// Warning when the host would not show the rewound context before the next user prompt.
pub(crate) fn refresh_missing() -> String {
    "⚠ this pi did not give the extension a way to refresh the running request's context: the rewind is \
     saved, but the model may see the old context until the next user prompt. Run /reload or restart pi."
        .into()
}

pub(crate) fn anchor_set(name: &str, tokens: f64, window: f64, hint: Option<&str>, moved: bool) -> String {
    let mut out = format!("[anchor '{name}'] set at {}", format_position(tokens, window));
    if let Some(h) = hint {
        let _ = write!(out, " (after: “{h}”)");
    }
    if moved {
        out.push_str(" · moved from its earlier position");
    }
    let _ = write!(
        out,
        "\n\nWhen this stage is done: navigate_tree(action='rewind', labelStart='{name}', labelEnd='<new-name>', \
         summaryFocus='<latest user instruction; done; left>')."
    );
    out
}

pub(crate) fn rewound(start: &str, end: &str, before: f64, after: f64, window: f64, warning: Option<&str>) -> String {
    let mut out = format!(
        "[rewind '{start}' → '{end}'] · {}\n\n\
         The work after '{start}' is now the branch summary above. Items under '### Done' are finished; \
         '### In Progress', '### Blocked' and '## Next Steps' are still to do: continue with them without asking \
         the user again. Earlier branch summaries, if any, cover earlier collapsed stages.",
        format_context_delta(before, after, window)
    );
    if let Some(w) = warning {
        out.push_str("\n\n");
        out.push_str(w);
    }
    out
}

/// The tree moved but a later step failed; the chain was repaired before this was raised.
pub(crate) fn salvaged(step: &str, error: &str) -> String {
    format!(
        "The rewind's summary was written, but {step} failed: {error}. The conversation was kept valid; check \
         the anchors with action='list'."
    )
}

/// Anchor rows as in `list`: `  12.3%  name`.
pub(crate) fn anchor_rows(rows: &[(String, f64)], window: f64) -> String {
    rows.iter()
        .map(|(name, tokens)| format!("  {:>5}  {name}", format_pct1(*tokens, window)))
        .collect::<Vec<_>>()
        .join("\n")
}
