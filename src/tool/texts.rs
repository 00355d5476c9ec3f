//! Every sentence `navigate_tree` returns to the model. Short, concrete, and each refusal says what to do
//! instead, so the model can correct itself without the user.

use crate::prelude::*;
use crate::json::num::js_string;
use crate::session::Anchor;
use crate::text::{format_context_delta, format_pct1, format_position};


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
    /// `summaryFocus` is longer than [`MAX_FOCUS_CHARS`](super::MAX_FOCUS_CHARS).
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
    /// The rewind would free fewer than [`MIN_SAVED_TOKENS`](super::MIN_SAVED_TOKENS) estimated tokens.
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

/// `parts` one after the other: one shared loop is much smaller in the wasm than `format!`'s argument
/// machinery at each call.
#[inline(never)]
pub(crate) fn cat(parts: &[&str]) -> String {
    let mut out = String::new();
    for part in parts {
        out.push_str(part);
    }
    out
}

/// `template` with each marker `\u{1}`, `\u{2}`, … replaced by `args[0]`, `args[1]`, …: the texts below are
/// one constant each with their values marked in place (no model-visible text holds these control
/// characters), which keeps every call down to a template and its values.
#[inline(never)]
pub(crate) fn fill(template: &str, args: &[&str]) -> String {
    let mut out = String::new();
    for c in template.chars() {
        match (c as usize).checked_sub(1).and_then(|i| args.get(i)) {
            Some(arg) if c < '\u{8}' => out.push_str(arg),
            _ => out.push(c),
        }
    }
    out
}

pub(crate) fn unreadable_arguments(problem: &str) -> String {
    fill("The arguments could not be read (\u{1}). Send a flat object, e.g. {\"action\": \"list\"}.", &[problem])
}

pub(crate) fn invalid_action() -> String {
    "Unknown action: use action='anchor', 'rewind' or 'list'.".into()
}

/// `problem`: what is wrong with the value sent (see `params::name_problem`), if known. The 40 is
/// `MAX_NAME_LENGTH` (a test checks it).
pub(crate) fn invalid_name(param: &str, action: &str, problem: Option<&str>) -> String {
    let lead = "\u{2} needs `\u{1}`: kebab-case (a-z, 0-9, single hyphens), 1–40 chars, e.g. 'impl-start'.";
    match problem {
        None => fill(lead, &[param, action]),
        Some(p) => fill(&cat(&[lead, " The `\u{1}` sent: \u{3}."]), &[param, action, p]),
    }
}

/// What a summary focus should say, in the focus refusals.
macro_rules! focus_contents {
    () => {
        "1. the user's most recent instruction, word for word;\n\
         2. what the collapsed work finished;\n\
         3. what is still left to do."
    };
}

/// `problem`: e.g. "it is a number, not a string" when the focus was sent with the wrong type. The 20 is
/// `MIN_FOCUS_CHARS` (a test checks it).
pub(crate) fn focus_too_short(problem: Option<&str>) -> String {
    let text = concat!(
        "rewind needs `summaryFocus` of at least 20 characters. The summary is all that will remain of the \
         collapsed work, so tell the summarizer:\n",
        focus_contents!(),
    );
    match problem {
        None => text.into(),
        Some(p) => fill(&cat(&[text, "\nThe `summaryFocus` sent: \u{1}."]), &[p]),
    }
}

/// The 16000 is `MAX_FOCUS_CHARS` (a test checks it).
pub(crate) fn focus_too_long(units: usize) -> String {
    let text = concat!(
        "`summaryFocus` is \u{1} characters; keep it under 16000. It is an instruction to the summarizer, not \
         the work itself:\n",
        focus_contents!(),
        "\nIf the user's instruction is very long, quote the part that still matters.",
    );
    fill(text, &[&js_string(units as f64)])
}

pub(crate) fn nothing_to_anchor() -> String {
    "The session has no entries yet; nothing to anchor.".into()
}

/// `rows`: the anchors on the active branch, already formatted (may be empty).
pub(crate) fn unknown_anchor(name: &str, rows: &str) -> String {
    let text = if rows.is_empty() {
        "No anchor '\u{1}' on the active branch, and no anchors at all. Set one with action='anchor' first."
    } else {
        "No anchor '\u{1}' on the active branch. Anchors here (root → leaf):\n\u{2}"
    };
    fill(text, &[name, rows])
}

/// The anchor exists, but only on a branch off the active path (left behind by an earlier rewind).
pub(crate) fn anchor_off_path(name: &str, rows: &str) -> String {
    let lead = "Anchor '\u{1}' is not on the active branch: it sits on a branch an earlier rewind left behind, \
                and a rewind only goes back along the active branch.";
    let tail = if rows.is_empty() {
        " There are no anchors on the active branch; set one with action='anchor'."
    } else {
        " Anchors here (root → leaf):\n\u{2}"
    };
    fill(&cat(&[lead, tail]), &[name, rows])
}

pub(crate) fn already_at_target(name: &str) -> String {
    fill("Nothing after anchor '\u{1}' to collapse yet.", &[name])
}

pub(crate) fn nothing_to_collapse(name: &str) -> String {
    fill("Only bookkeeping entries follow anchor '\u{1}'; there is no work to collapse.", &[name])
}

pub(crate) fn chained_rewind(name: &str) -> String {
    fill(
        "Nothing new since the last rewind: after anchor '\u{1}' there is only that rewind's own call. Do some \
         work before rewinding again.",
        &[name],
    )
}

/// `others`: the other tool calls of the same message, `name (id)` each, joined by `, `.
pub(crate) fn batched_rewind(others: &str) -> String {
    fill(
        "rewind must be the only tool call in its message; this message also calls \u{1}. Their results would \
         be cut off from the conversation. Let them finish, then call rewind on its own.",
        &[others],
    )
}

/// The 4000 is `MIN_SAVED_TOKENS` (a test checks it).
pub(crate) fn too_little_saved(name: &str, freed: f64, rows: &str) -> String {
    fill(
        "Rewinding to '\u{1}' would free only about \u{2} tokens (minimum 4000). Keep working, or pick an earlier \
         anchor:\n\u{3}",
        &[name, &js_string(crate::js::round(freed.max(0.0))), rows],
    )
}

pub(crate) fn no_model() -> String {
    "No model is configured, so no summary can be written. The session was not changed.".into()
}

pub(crate) fn auth_failed(error: &str) -> String {
    fill("Cannot summarize: the model's credentials did not resolve (\u{1}). The session was not changed.", &[error])
}

pub(crate) fn summary_aborted() -> String {
    "Summarization aborted.".into()
}

pub(crate) fn summary_failed(error: &str) -> String {
    fill("Summarization failed: \u{1}. The session was not changed.", &[error])
}

/// Warning when the host would not show the rewound context before the next user prompt.
pub(crate) const REFRESH_MISSING: &str = "⚠ this pi did not give the extension a way to refresh the running \
     request's context: the rewind is saved, but the model may see the old context until the next user \
     prompt. Run /reload or restart pi.";

pub(crate) fn anchor_set(name: &str, tokens: f64, window: f64, hint: Option<&str>, moved: bool) -> String {
    let (hint, hinted) = match hint {
        Some(h) => (h, " (after: “\u{3}”)"),
        None => ("", ""),
    };
    let moved = if moved { " · moved from its earlier position" } else { "" };
    let template = cat(&[
        "[anchor '\u{1}'] set at \u{2}",
        hinted,
        moved,
        "\n\nWhen this stage is done: navigate_tree(action='rewind', labelStart='\u{1}', labelEnd='<new-name>', \
         summaryFocus='<latest user instruction; done; left>').",
    ]);
    fill(&template, &[name, &format_position(tokens, window), hint])
}

pub(crate) fn rewound(start: &str, end: &str, before: f64, after: f64, window: f64, warning: Option<&str>) -> String {
    let text = "[rewind '\u{1}' → '\u{2}'] · \u{3}\n\nThe work after '\u{1}' is now the branch summary above. \
                Items under '### Done' are finished; '### In Progress', '### Blocked' and '## Next Steps' are \
                still to do: continue with them without asking the user again. Earlier branch summaries, if any, \
                cover earlier collapsed stages.";
    let delta = format_context_delta(before, after, window);
    match warning {
        None => fill(text, &[start, end, &delta]),
        Some(w) => fill(&cat(&[text, "\n\n\u{4}"]), &[start, end, &delta, w]),
    }
}

/// The texts for a host write that failed, by step (`\u{1}`: the error; `\u{2}`: what failed). See
/// `plan::salvage_text`; a step not listed reads as [`SALVAGED`] with "a later step".
pub(crate) const SALVAGE: [(&str, &str, &str); 8] = [
    ("unchanged", "The rewind failed: moving the tree failed (\u{1}). The session was not changed.", ""),
    ("branch-undone", REWIND_UNDONE, ""),
    ("undone", REWIND_UNDONE, ""),
    (
        "anchor",
        "The anchor may not have been saved: writing its label failed (\u{1}). Nothing else was changed; check \
         with action='list' and set it again if it is missing.",
        "",
    ),
    (
        "anchor-move",
        "The anchor was set here, but clearing it from its earlier position failed (\u{1}). Check the anchors \
         with action='list'.",
        "",
    ),
    ("branch", SALVAGED, "moving the tree"),
    ("index", SALVAGED, "reading the new summary back"),
    ("labels", SALVAGED, "writing the anchor labels"),
];

/// The tree moved but a later step failed; the chain was repaired before this was raised.
pub(crate) const SALVAGED: &str = "The rewind's summary was written, but \u{2} failed: \u{1}. The conversation \
                                   was kept valid; check the anchors with action='list'.";

/// A rewind whose writes failed part-way was taken back: the conversation continues from the call.
const REWIND_UNDONE: &str = "The rewind failed while writing the session (\u{1}) and was undone: the \
                             conversation continues from before it, and no earlier work was lost. Try again \
                             later; if writes keep failing, check the disk.";

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
    use crate::tool::{MAX_FOCUS_CHARS, MIN_FOCUS_CHARS, MIN_SAVED_TOKENS};

    /// The limits are written into the texts as digits (no number formatting at run time).
    #[test]
    fn texts_state_the_limits_in_force() {
        assert!(invalid_name("name", "anchor", None).contains(&format!(" 1–{MAX_NAME_LENGTH} chars")));
        assert!(focus_too_short(None).contains(&format!(" at least {MIN_FOCUS_CHARS} characters")));
        assert!(focus_too_long(1).contains(&format!(" keep it under {MAX_FOCUS_CHARS}.")));
        assert!(too_little_saved("a", 1.0, "").contains(&format!(" (minimum {MIN_SAVED_TOKENS})")));
    }
}
