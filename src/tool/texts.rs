//! Every sentence `navigate_tree` returns to the model. Short, concrete, and each refusal says what to do
//! instead, so the model can correct itself without the user.

use crate::json::num::js_string;
use crate::session::Anchor;
use crate::text::{format_context_delta, format_pct1, format_position};

use super::plan::MIN_SAVED_TOKENS;

/// Why a call was refused. The shim reports every refusal as a failed tool call (`isError: true`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusalCode {
    /// The arguments are not a readable JSON object (e.g. nested deeper than the core reads).
    InvalidArguments,
    /// `action` is missing or unknown.
    InvalidAction,
    /// A name parameter is not kebab-case within the length limit.
    InvalidName,
    /// `summaryFocus` is missing or too short.
    FocusTooShort,
    /// `summaryFocus` is longer than [`MAX_FOCUS_CHARS`].
    FocusTooLong,
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

impl RefusalCode {
    /// The code as the shim sees it (the variant's name).
    pub fn as_str(self) -> &'static str {
        match self {
            RefusalCode::InvalidArguments => "InvalidArguments",
            RefusalCode::InvalidAction => "InvalidAction",
            RefusalCode::InvalidName => "InvalidName",
            RefusalCode::FocusTooShort => "FocusTooShort",
            RefusalCode::FocusTooLong => "FocusTooLong",
            RefusalCode::NothingToAnchor => "NothingToAnchor",
            RefusalCode::UnknownAnchor => "UnknownAnchor",
            RefusalCode::AlreadyAtTarget => "AlreadyAtTarget",
            RefusalCode::NothingToCollapse => "NothingToCollapse",
            RefusalCode::ChainedRewind => "ChainedRewind",
            RefusalCode::BatchedRewind => "BatchedRewind",
            RefusalCode::TooLittleSaved => "TooLittleSaved",
            RefusalCode::NoModel => "NoModel",
            RefusalCode::AuthFailed => "AuthFailed",
            RefusalCode::SummaryAborted => "SummaryAborted",
            RefusalCode::SummaryFailed => "SummaryFailed",
        }
    }
}

/// `parts` one after the other: every text here is fixed pieces and a few inserted values, and one
/// shared loop is much smaller in the wasm than `format!`'s argument machinery at each call.
#[inline(never)]
pub(crate) fn cat(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for part in parts {
        out.push_str(part);
    }
    out
}

/// `[lead, value, tail]` when there is a value, else nothing: the optional sentence after a refusal.
fn push_opt(out: &mut String, lead: &str, value: Option<&str>, tail: &str) {
    if let Some(v) = value {
        out.push_str(lead);
        out.push_str(v);
        out.push_str(tail);
    }
}

pub(crate) fn unreadable_arguments(problem: &str) -> String {
    cat(&["The arguments could not be read (", problem, "). Send a flat object, e.g. {\"action\": \"list\"}."])
}

pub(crate) fn invalid_action() -> String {
    "Unknown action: use action='anchor', 'rewind' or 'list'.".into()
}

/// `problem`: what is wrong with the value sent (see `params::name_problem`), if known. The 40 is
/// `MAX_NAME_LENGTH` (a test checks it).
pub(crate) fn invalid_name(param: &str, action: &str, problem: Option<&str>) -> String {
    let mut out = cat(&[
        action,
        " needs `",
        param,
        "`: kebab-case (a-z, 0-9, single hyphens), 1–40 chars, e.g. 'impl-start'.",
    ]);
    if let Some(p) = problem {
        out.push_str(&cat(&[" The `", param, "` sent: ", p, "."]));
    }
    out
}

const FOCUS_CONTENTS: &str = "1. the user's most recent instruction, word for word;\n\
     2. what the collapsed work finished;\n\
     3. what is still left to do.";

/// `problem`: e.g. "it is a number, not a string" when the focus was sent with the wrong type. The 20 is
/// `MIN_FOCUS_CHARS` (a test checks it).
pub(crate) fn focus_too_short(problem: Option<&str>) -> String {
    let mut out = cat(&[
        "rewind needs `summaryFocus` of at least 20 characters. The summary is all that will remain of the \
         collapsed work, so tell the summarizer:\n",
        FOCUS_CONTENTS,
    ]);
    push_opt(&mut out, "\nThe `summaryFocus` sent: ", problem, ".");
    out
}

/// The 16000 is `MAX_FOCUS_CHARS` (a test checks it).
pub(crate) fn focus_too_long(units: usize) -> String {
    cat(&[
        "`summaryFocus` is ",
        &js_string(units as f64),
        " characters; keep it under 16000. It is an instruction to the summarizer, not the work itself:\n",
        FOCUS_CONTENTS,
        "\nIf the user's instruction is very long, quote the part that still matters.",
    ])
}

pub(crate) fn nothing_to_anchor() -> String {
    "The session has no entries yet; nothing to anchor.".into()
}

/// `rows`: the anchors on the active branch, already formatted (may be empty).
pub(crate) fn unknown_anchor(name: &str, rows: &str) -> String {
    if rows.is_empty() {
        cat(&["No anchor '", name, "' on the active branch, and no anchors at all. Set one with action='anchor' first."])
    } else {
        cat(&["No anchor '", name, "' on the active branch. Anchors here (root → leaf):\n", rows])
    }
}

/// The anchor exists, but only on a branch off the active path (left behind by an earlier rewind).
pub(crate) fn anchor_off_path(name: &str, rows: &str) -> String {
    let lead = "' is not on the active branch: it sits on a branch an earlier rewind left behind, and a rewind \
                only goes back along the active branch.";
    if rows.is_empty() {
        cat(&["Anchor '", name, lead, " There are no anchors on the active branch; set one with action='anchor'."])
    } else {
        cat(&["Anchor '", name, lead, " Anchors here (root → leaf):\n", rows])
    }
}

pub(crate) fn already_at_target(name: &str) -> String {
    cat(&["Nothing after anchor '", name, "' to collapse yet."])
}

pub(crate) fn nothing_to_collapse(name: &str) -> String {
    cat(&["Only bookkeeping entries follow anchor '", name, "'; there is no work to collapse."])
}

pub(crate) fn chained_rewind(name: &str) -> String {
    cat(&[
        "Nothing new since the last rewind: after anchor '",
        name,
        "' there is only that rewind's own call. Do some work before rewinding again.",
    ])
}

/// `others`: the other tool calls of the same message, `name (id)` each, joined by `, `.
pub(crate) fn batched_rewind(others: &str) -> String {
    cat(&[
        "rewind must be the only tool call in its message; this message also calls ",
        others,
        ". Their results would be cut off from the conversation. Let them finish, then call rewind on its own.",
    ])
}

pub(crate) fn too_little_saved(name: &str, freed: f64, rows: &str) -> String {
    cat(&[
        "Rewinding to '",
        name,
        "' would free only about ",
        &js_string(freed.max(0.0).round()),
        " tokens (minimum ",
        &js_string(MIN_SAVED_TOKENS),
        "). Keep working, or pick an earlier anchor:\n",
        rows,
    ])
}

pub(crate) fn no_model() -> String {
    "No model is configured, so no summary can be written. The session was not changed.".into()
}

pub(crate) fn auth_failed(error: &str) -> String {
    cat(&["Cannot summarize: the model's credentials did not resolve (", error, "). The session was not changed."])
}

pub(crate) fn summary_aborted() -> String {
    "Summarization aborted.".into()
}

pub(crate) fn summary_failed(error: &str) -> String {
    cat(&["Summarization failed: ", error, ". The session was not changed."])
}

/// Warning when the host would not show the rewound context before the next user prompt.
pub(crate) fn refresh_missing() -> String {
    "⚠ this pi did not give the extension a way to refresh the running request's context: the rewind is \
     saved, but the model may see the old context until the next user prompt. Run /reload or restart pi."
        .into()
}

pub(crate) fn anchor_set(name: &str, tokens: f64, window: f64, hint: Option<&str>, moved: bool) -> String {
    let mut out = cat(&["[anchor '", name, "'] set at ", &format_position(tokens, window)]);
    push_opt(&mut out, " (after: “", hint, "”)");
    if moved {
        out.push_str(" · moved from its earlier position");
    }
    out.push_str(&cat(&[
        "\n\nWhen this stage is done: navigate_tree(action='rewind', labelStart='",
        name,
        "', labelEnd='<new-name>', summaryFocus='<latest user instruction; done; left>').",
    ]));
    out
}

pub(crate) fn rewound(start: &str, end: &str, before: f64, after: f64, window: f64, warning: Option<&str>) -> String {
    let mut out = cat(&[
        "[rewind '",
        start,
        "' → '",
        end,
        "'] · ",
        &format_context_delta(before, after, window),
        "\n\nThe work after '",
        start,
        "' is now the branch summary above. Items under '### Done' are finished; '### In Progress', \
         '### Blocked' and '## Next Steps' are still to do: continue with them without asking the user again. \
         Earlier branch summaries, if any, cover earlier collapsed stages.",
    ]);
    push_opt(&mut out, "\n\n", warning, "");
    out
}

/// The tree moved but a later step failed; the chain was repaired before this was raised.
pub(crate) fn salvaged(step: &str, error: &str) -> String {
    cat(&[
        "The rewind's summary was written, but ",
        step,
        " failed: ",
        error,
        ". The conversation was kept valid; check the anchors with action='list'.",
    ])
}

pub(crate) fn rewind_not_written(error: &str) -> String {
    cat(&["The rewind failed: moving the tree failed (", error, "). The session was not changed."])
}

/// A rewind whose writes failed part-way was taken back: the conversation continues from the call.
pub(crate) fn rewind_undone(error: &str) -> String {
    cat(&[
        "The rewind failed while writing the session (",
        error,
        ") and was undone: the conversation continues from before it, and no earlier work was lost. Try again \
         later; if writes keep failing, check the disk.",
    ])
}

pub(crate) fn anchor_failed(error: &str) -> String {
    cat(&[
        "The anchor may not have been saved: writing its label failed (",
        error,
        "). Nothing else was changed; check with action='list' and set it again if it is missing.",
    ])
}

pub(crate) fn anchor_move_failed(error: &str) -> String {
    cat(&[
        "The anchor was set here, but clearing it from its earlier position failed (",
        error,
        "). Check the anchors with action='list'.",
    ])
}

/// Anchor rows as in `list`: `  12.3%  name` (the percentage right-aligned in 5 characters).
pub(crate) fn anchor_rows(anchors: &[Anchor], window: f64) -> String {
    let mut out = String::new();
    for a in anchors {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str("  ");
        crate::text::pad_left(&mut out, &format_pct1(a.tokens, window), 5);
        out.push_str("  ");
        out.push_str(&a.name);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::MAX_NAME_LENGTH;
    use crate::tool::{MAX_FOCUS_CHARS, MIN_FOCUS_CHARS};

    /// The limits are written into the texts as digits (no number formatting at run time).
    #[test]
    fn texts_state_the_limits_in_force() {
        assert!(invalid_name("name", "anchor", None).contains(&format!(" 1–{MAX_NAME_LENGTH} chars")));
        assert!(focus_too_short(None).contains(&format!(" at least {MIN_FOCUS_CHARS} characters")));
        assert!(focus_too_long(1).contains(&format!(" keep it under {MAX_FOCUS_CHARS}.")));
    }
}
