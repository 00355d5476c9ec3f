//! Every sentence `navigate_tree` returns to the model. Short, concrete, and each refusal says what to do
//! instead, so the model can correct itself without the user.

use serde::Serialize;

use crate::session::Anchor;
use crate::text::{format_context_delta, format_pct1, format_position, format_tokens, one_line};

/// Why a call was refused. The shim reports every refusal as a failed tool call (`isError: true`). It
/// crosses to JavaScript as the variant's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, tsify_next::Tsify)]
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
    /// recall: `query` or `page` cannot be used.
    InvalidRecall,
    /// recall: no entry carries this anchor name.
    UnknownName,
    /// recall: no rewind collapsed anything with text at this name.
    NothingCollapsed,
    /// recall: no collapsed entry contains the query.
    NoMatch,
    /// recall: the page asked for is past the last one.
    NoSuchPage,
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
            RefusalCode::InvalidRecall => "InvalidRecall",
            RefusalCode::UnknownName => "UnknownName",
            RefusalCode::NothingCollapsed => "NothingCollapsed",
            RefusalCode::NoMatch => "NoMatch",
            RefusalCode::NoSuchPage => "NoSuchPage",
        }
    }
}

pub(crate) fn unreadable_arguments(problem: &str) -> String {
    format!("The arguments could not be read ({problem}). Send a flat object, e.g. {{\"action\": \"list\"}}.")
}

pub(crate) fn invalid_action() -> String {
    "Unknown action: use action='anchor', 'rewind', 'list' or 'recall'.".into()
}

/// `problem`: what is wrong with the value sent (see `params::name_problem`), if known. The 40 is
/// `MAX_NAME_LENGTH` (a test checks it).
pub(crate) fn invalid_name(param: &str, action: &str, problem: Option<&str>) -> String {
    let lead = format!("{action} needs `{param}`: kebab-case (a-z, 0-9, single hyphens), 1–40 chars, e.g. 'impl-start'.");
    match problem {
        None => lead,
        Some(p) => format!("{lead} The `{param}` sent: {p}."),
    }
}

/// What a summary focus should say, in the focus refusals.
const FOCUS_CONTENTS: &str = "1. the user's most recent instruction, word for word;\n\
                              2. what the collapsed work finished;\n\
                              3. what is still left to do.";

/// `problem`: e.g. "it is a number, not a string" when the focus was sent with the wrong type. The 20 is
/// `MIN_FOCUS_CHARS` (a test checks it).
pub(crate) fn focus_too_short(problem: Option<&str>) -> String {
    let text = format!(
        "rewind needs `summaryFocus` of at least 20 characters. The summary is all that will remain of the \
         collapsed work, so tell the summarizer:\n{FOCUS_CONTENTS}"
    );
    match problem {
        None => text,
        Some(p) => format!("{text}\nThe `summaryFocus` sent: {p}."),
    }
}

/// `units`: the focus length in UTF-16 units. The 100000 is `MAX_FOCUS_CHARS` (a test checks it).
pub(crate) fn focus_too_long(units: usize) -> String {
    format!(
        "`summaryFocus` is {units} characters; keep it under 100000. It is an instruction to the summarizer, not \
         the work itself:\n{FOCUS_CONTENTS}\nIf the user's instruction is very long, quote the part that still matters."
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

/// The anchor exists, but only on a branch off the active path (left behind by an earlier rewind).
pub(crate) fn anchor_off_path(name: &str, rows: &str) -> String {
    let tail = if rows.is_empty() {
        " There are no anchors on the active branch; set one with action='anchor'.".to_string()
    } else {
        format!(" Anchors here (root → leaf):\n{rows}")
    };
    format!(
        "Anchor '{name}' is not on the active branch: it sits on a branch an earlier rewind left behind, and a \
         rewind only goes back along the active branch.{tail}"
    )
}

pub(crate) fn already_at_target(name: &str) -> String {
    format!("Nothing after anchor '{name}' to collapse yet.")
}

pub(crate) fn nothing_to_collapse(name: &str) -> String {
    format!("Only bookkeeping entries follow anchor '{name}'; there is no work to collapse.")
}

pub(crate) fn chained_rewind(name: &str) -> String {
    format!(
        "Nothing new since the last rewind: after anchor '{name}' there is only that rewind's own call. Do some \
         work before rewinding again."
    )
}

/// `others`: the other tool calls of the same message, `name (id)` each, joined by `, `.
pub(crate) fn batched_rewind(others: &str) -> String {
    format!(
        "rewind must be the only tool call in its message; this message also calls {others}. Their results would \
         be cut off from the conversation. Let them finish, then call rewind on its own."
    )
}

/// `freed`: the estimated tokens the rewind would free (rounded here). The 4000 is `MIN_SAVED_TOKENS` (a
/// test checks it).
/// `earlier`: whether an anchor older than `name` exists on the active branch.
pub(crate) fn too_little_saved(name: &str, freed: f64, rows: &str, earlier: bool) -> String {
    let freed = freed.max(0.0).round() as u64;
    if earlier {
        format!(
            "Rewinding to '{name}' would free only about {freed} tokens (minimum 4000). Keep working, or pick an \
             earlier anchor:\n{rows}"
        )
    } else {
        format!(
            "Rewinding to '{name}' would free only about {freed} tokens (minimum 4000), and no anchor is older. Keep \
             working and rewind once more work has piled up after it. Anchors:\n{rows}"
        )
    }
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

/// `list`'s warning on such a host: no rewind happened yet.
pub(crate) const REFRESH_MISSING_LIST: &str = "⚠ this pi did not give the extension a way to refresh the running \
     request's context: a rewind made now would be saved, but the model might see the old context until the next \
     user prompt. Run /reload or restart pi.";

/// Warning when the host would not show the rewound context before the next user prompt.
pub(crate) const REFRESH_MISSING: &str = "⚠ this pi did not give the extension a way to refresh the running \
     request's context: the rewind is saved, but the model may see the old context until the next user \
     prompt. Run /reload or restart pi.";

pub(crate) fn anchor_set(name: &str, tokens: f64, window: f64, hint: Option<&str>, moved: bool) -> String {
    let at = format_position(tokens, window);
    let hint = hint.map_or_else(String::new, |h| format!(" (after: “{h}”)"));
    let moved = if moved { " · moved from its earlier position" } else { "" };
    format!(
        "[anchor '{name}'] set at {at}{hint}{moved}\n\nWhen this stage is done and real work has piled up after \
         it: navigate_tree(action='rewind', labelStart='{name}', labelEnd='<new-name>', summaryFocus='<latest user \
         instruction; done; left>'). summaryFocus needs at least 20 characters."
    )
}

/// `ledger`: the facts the ledger under the summary lists and its tokens (`None`: no ledger); `cut`: the
/// summary stopped at the output limit.
#[allow(clippy::too_many_arguments, reason = "one text, one argument per fact it states")]
pub(crate) fn rewound(start: &str, end: &str, before: f64, after: f64, window: f64, ledger: Option<(u32, f64)>, cut: bool, warning: Option<&str>) -> String {
    let delta = format_context_delta(before, after, window);
    let warning = warning.map_or_else(String::new, |w| format!("\n\n{w}"));
    let note = crate::guidance::post_rewind_note();
    let cost = ledger.map_or_else(String::new, |(_, tokens)| format!(" · ledger {} tokens", format_tokens(tokens)));
    let ledger = ledger.map_or_else(String::new, |(items, _)| {
        let facts = if items == 1 { "1 fact".to_string() } else { format!("{items} facts") };
        format!(
            " Its ledger lists {facts} of the collapsed work verbatim: trust it over the summary's wording, and \
             navigate_tree(action='recall', name='<id>') reads an item's entry whole."
        )
    });
    let cut = if cut {
        format!(" The summary was cut off at the output limit: what it lacks, recall '{end}' reads word for word.")
    } else {
        String::new()
    };
    format!(
        "[rewind '{start}' → '{end}'] · {delta}{cost}\n\nThe work after '{start}' is now the branch summary above.{ledger}{cut} \
         Items under '### Done' are finished; '### In Progress', '### Blocked' and '## Next Steps' are still to \
         do: continue with them without asking the user again. Earlier branch summaries, if any, cover earlier \
         collapsed stages. {note}{warning}"
    )
}

/// The error text for a host write that failed at `step` (see `plan::salvage_text`); a step not listed
/// reads as a later step of the rewind.
pub(crate) fn salvage(step: &str, error: &str) -> String {
    match step {
        "unchanged" => format!("The rewind failed: moving the tree failed ({error}). The session was not changed."),
        "branch-undone" | "undone" => format!(
            "The rewind failed while writing the session ({error}) and was undone: the conversation continues \
             from before it, and no earlier work was lost. Try again later; if writes keep failing, check the disk."
        ),
        "anchor" => format!(
            "The anchor may not have been saved: writing its label failed ({error}). Nothing else was changed; \
             check with action='list' and set it again if it is missing."
        ),
        "anchor-move" => format!(
            "The anchor was set here, but clearing it from its earlier position failed ({error}). Check the \
             anchors with action='list'."
        ),
        "branch" => salvaged("moving the tree", error),
        "index" => salvaged("reading the new summary back", error),
        "labels" => salvaged("writing the anchor labels", error),
        _ => salvaged("a later step", error),
    }
}

/// The tree moved but a later step (`what`) failed; the chain was repaired before this was raised.
fn salvaged(what: &str, error: &str) -> String {
    format!(
        "The rewind's summary was written, but {what} failed: {error}. The conversation was kept valid; check \
         the anchors with action='list'."
    )
}

/// A query as the recall texts quote it: as JSON writes the string, so any character reads unambiguously.
fn quoted(query: &str) -> String {
    serde_json::to_string(query).unwrap_or_default()
}

/// The call that asks for `page` of recall `name` (with `query`, if any).
fn recall_call(name: &str, query: Option<&str>, page: u32) -> String {
    let query = query.map_or_else(String::new, |q| format!(", query={}", quoted(q)));
    format!("navigate_tree(action='recall', name='{name}'{query}, page={page})")
}

/// `problem`: what is wrong with the `query` sent. The 200 is `MAX_QUERY_CHARS` (a test checks it).
pub(crate) fn recall_bad_query(problem: &str) -> String {
    format!("recall's `query` is plain text of at most 200 characters, matched case-insensitively; the `query` sent: {problem}.")
}

/// `problem`: what to send instead.
pub(crate) fn recall_bad_page(problem: &str) -> String {
    format!("recall's `page` is the page to read, counted from 1: {problem}.")
}

/// `rows`: the anchors on the active branch, already formatted (may be empty).
pub(crate) fn recall_unknown(name: &str, rows: &str) -> String {
    if rows.is_empty() {
        format!("No anchor '{name}' in this session, and no anchors on the active branch: nothing to recall.")
    } else {
        format!(
            "No anchor '{name}' in this session. Recall takes the name of a rewind's summary (its labelEnd), of \
             an anchor a rewind went back to, or the id of an entry (a summary's ledger names them). Anchors here \
             (root → leaf):\n{rows}"
        )
    }
}

pub(crate) fn recall_nothing(name: &str) -> String {
    format!(
        "Nothing was collapsed at '{name}': it is neither a rewind's summary nor an anchor a rewind went back to \
         (or the collapsed work holds no text). Use action='list' for the anchors here."
    )
}

/// `collapsed`: how many collapsed entries with text were searched.
pub(crate) fn recall_no_match(name: &str, query: &str, collapsed: u32) -> String {
    format!(
        "None of the {collapsed} entries collapsed at '{name}' contains {} (case-insensitive). Try a shorter \
         query, or none to read them all.",
        quoted(query)
    )
}

pub(crate) fn recall_no_page(name: &str, query: Option<&str>, page: u32, pages: u32) -> String {
    format!("There is no page {page}: recall '{name}' has {pages} page(s). Start over with {}.", recall_call(name, query, 1))
}

/// The first line of a page. `matches` of `collapsed` entries match the query (all of them without one).
pub(crate) fn recall_header(name: &str, query: Option<&str>, page: u32, pages: u32, matches: u32, collapsed: u32) -> String {
    let which = match query {
        Some(q) => format!("{matches} of {collapsed} collapsed entries contain {}", quoted(q)),
        None => format!("{collapsed} collapsed entries"),
    };
    format!("[recall '{name}'] page {page} of {pages} · {which} · exact text, oldest first")
}

/// The line before an entry's text; `part`: which piece of how many, for an entry split across pages.
pub(crate) fn recall_item(id: &str, what: &str, part: Option<(u32, u32)>) -> String {
    let part = part.map_or_else(String::new, |(k, n)| format!(" · part {k} of {n}"));
    format!("──── entry {id} · {what}{part} ────")
}

/// The last line of a page that has a next one.
pub(crate) fn recall_next(name: &str, query: Option<&str>, next: u32, pages: u32) -> String {
    format!("Page {next} of {pages}: {}", recall_call(name, query, next))
}

/// The last line of the last page.
pub(crate) fn recall_end(name: &str) -> String {
    format!("End of what was collapsed at '{name}'.")
}

/// The first line of a page of one entry read whole (`recall` by an entry's id).
pub(crate) fn recall_whole_header(id: &str, page: u32, pages: u32) -> String {
    format!("[recall '{id}'] page {page} of {pages} · entry {id}, whole · exact text")
}

/// The last line of the last page of an entry read whole.
pub(crate) fn recall_whole_end(id: &str) -> String {
    format!("End of entry {id}.")
}

/// What a tool result read whole is.
pub(crate) fn recall_whole_result(tool: &str, failed: bool) -> String {
    if failed { format!("tool result of {tool}, failed") } else { format!("tool result of {tool}") }
}

/// A thinking block of a message read whole.
pub(crate) fn recall_whole_thinking(thinking: &str) -> String {
    format!("[thinking]\n{thinking}\n[/thinking]")
}

/// The first line of a tool call of a message read whole: its name and id (its arguments follow).
pub(crate) fn recall_whole_call(name: &str, id: &str) -> String {
    format!("[tool call {name} ({id})]")
}

/// One argument of a tool call read whole (`value`: a string as it is, anything else as JSON).
pub(crate) fn recall_whole_argument(key: &str, value: &str) -> String {
    format!("{key}: {value}")
}

/// An image of a message read whole (its data is not text).
pub(crate) fn recall_whole_image(mime: &str) -> String {
    format!("[image {mime}]")
}

/// An entry read whole that holds no text at all.
pub(crate) fn recall_whole_empty() -> String {
    "(no text)".into()
}

// ── A rewind's summary (tool/summary.rs) ─────────────────────────────────────────────────────────────

/// The summary's first line, on both summary paths (in place of pi's "The user explored a different
/// conversation branch before returning here", which is wrong when the model rewound itself).
pub(crate) fn summary_heading() -> String {
    crate::text::REWIND_SUMMARY_HEADING.into()
}

/// After a summary whose reply stopped at the output limit; `name`: what `recall` reads the span by.
pub(crate) fn summary_cut(name: &str) -> String {
    format!(
        "(This summary was cut off at the model's output limit. The ledger below lists the collapsed work's \
         facts; navigate_tree(action='recall', name='{name}') reads all of it.)"
    )
}

// ── The ledger under a summary (tool/ledger.rs) ──────────────────────────────────────────────────

/// A section of the ledger, in the order items are kept when it must cut and listed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LedgerSection {
    /// What the user typed in the span.
    User,
    /// Error lines and test-summary lines of tool output.
    Problems,
    /// pi's modified files.
    Modified,
    /// Commands run, with their exit status.
    Commands,
    /// pi's read files (read and not modified).
    Read,
}

impl LedgerSection {
    /// Every section, in order (`section as usize` is its place).
    pub(crate) const ALL: [LedgerSection; 5] =
        [LedgerSection::User, LedgerSection::Problems, LedgerSection::Modified, LedgerSection::Commands, LedgerSection::Read];
}

/// The ledger's first line: what it is and how to read an item's entry whole.
pub(crate) fn ledger_open() -> String {
    "<ledger>\nFacts from the collapsed entries, copied verbatim; failures first, then newest. [id] is the entry: \
     navigate_tree(action='recall', name='<id>') reads it whole."
        .into()
}

pub(crate) fn ledger_close() -> String {
    "</ledger>".into()
}

pub(crate) fn ledger_heading(section: LedgerSection) -> String {
    match section {
        LedgerSection::User => "User messages:",
        LedgerSection::Problems => "Errors and test results:",
        LedgerSection::Modified => "Files modified:",
        LedgerSection::Commands => "Commands run:",
        LedgerSection::Read => "Files read:",
    }
    .into()
}

pub(crate) fn ledger_item(id: &str, text: &str) -> String {
    format!("- [{id}] {text}")
}

/// `exit`: the status (`exit 101`, `timed out`, …).
pub(crate) fn ledger_command(command: &str, exit: &str) -> String {
    format!("`{command}` → {exit}")
}

/// `code`: the exit code as JavaScript writes the number.
pub(crate) fn ledger_exit(code: &str) -> String {
    format!("exit {code}")
}

/// A failed tool result with no error line of its own: its tool and first line.
pub(crate) fn ledger_failed(tool: &str, line: &str) -> String {
    format!("{tool} failed: {line}")
}

/// A user message cut for room: what is kept, then how many characters were left out.
pub(crate) fn ledger_cut(kept: &str, more: usize) -> String {
    format!("{kept}… [cut: {more} more characters]")
}

/// The line after the items when some were left out for room; `recall`: the name that reads the whole span.
pub(crate) fn ledger_left_out(count: u32, recall: Option<&str>) -> String {
    let items = if count == 1 { "1 more item".to_string() } else { format!("{count} more items") };
    match recall {
        Some(name) => format!("({items} left out for room; navigate_tree(action='recall', name='{name}') reads all the collapsed work.)"),
        None => format!("({items} left out for room.)"),
    }
}

// ── What pi's TUI shows (tool/view.rs); never part of the model's text ──────────────────────────────
// An anchor name read from a label can hold a newline or a terminal escape: rows show it by `one_line`.

/// The call line of `anchor`.
pub(crate) fn view_call_anchor(name: &str) -> String {
    format!("anchor {name}")
}

/// The call line of `rewind`: the two names and the focus preview, if any.
pub(crate) fn view_call_rewind(start: &str, end: &str, focus: Option<&str>) -> String {
    let focus = focus.map_or_else(String::new, |f| format!(" · “{f}”"));
    format!("rewind {start} → {end}{focus}")
}

/// The call line of `recall`: the name, the query and the page, when sent.
pub(crate) fn view_call_recall(name: &str, query: Option<&str>, page: Option<f64>) -> String {
    let query = query.map_or_else(String::new, |q| format!(" · “{q}”"));
    let page = page.map_or_else(String::new, |p| format!(" · page {}", crate::js::number_to_string(p)));
    format!("recall {name}{query}{page}")
}

/// The headline of an anchor.
pub(crate) fn view_anchor_set(name: &str, tokens: f64, window: f64, moved: bool) -> String {
    let moved = if moved { " · moved here" } else { "" };
    format!("anchor '{name}' set at {}{moved}", format_position(tokens, window))
}

/// Where a rewind's summary came from, as its headline says.
#[derive(Clone, Copy)]
pub(crate) enum Served<'a> {
    /// Served from the prompt cache.
    Cache,
    /// Written cold, for this reason.
    Cold(&'a str),
}

/// The headline of a rewind; `ledger`: the ledger's tokens (absent: none); `cut`: the summary stopped at the
/// output limit; `served` is absent when the summarizer does not say.
#[allow(clippy::too_many_arguments, reason = "one headline, one argument per fact it states")]
pub(crate) fn view_rewound(start: &str, end: &str, before: f64, after: f64, window: f64, ledger: Option<f64>, cut: bool, served: Option<Served<'_>>) -> String {
    let delta = format_context_delta(before, after, window);
    let ledger = ledger.map_or_else(String::new, |t| format!(" · ledger {} tokens", format_tokens(t)));
    let cut = if cut { " · summary cut at the output limit" } else { "" };
    let served = match served {
        Some(Served::Cache) => " · summary from the prompt cache".to_string(),
        Some(Served::Cold(reason)) => format!(" · summary cold ({reason})"),
        None => String::new(),
    };
    format!("rewind '{start}' → '{end}' · {delta}{ledger}{cut}{served}")
}

/// The headline of `list`: the count and the context now, then the anchors (the newest
/// [`VIEW_LIST_ANCHORS`], root → leaf) on a second line.
pub(crate) fn view_list(anchors: &[(&str, f64)], tokens: f64, window: f64) -> String {
    let now = format_position(tokens, window);
    if anchors.is_empty() {
        return format!("no anchors · context {now}");
    }
    let count = if anchors.len() == 1 { "1 anchor".to_string() } else { format!("{} anchors", anchors.len()) };
    let hidden = anchors.len().saturating_sub(VIEW_LIST_ANCHORS);
    let mut rows: Vec<String> = anchors[hidden..].iter().map(|(name, t)| format!("{} {}", one_line(name), format_pct1(*t, window))).collect();
    if hidden > 0 {
        rows.insert(0, format!("… {hidden} earlier"));
    }
    format!("{count} · context {now}\n{}", rows.join(" · "))
}

/// Anchors the collapsed `list` names (the newest ones): enough for one or two screen lines.
pub(crate) const VIEW_LIST_ANCHORS: usize = 6;

/// The headline of a refusal: its reason (the first sentence the model read).
pub(crate) fn view_refused(reason: &str) -> String {
    format!("refused: {reason}")
}

/// The headline of a call that failed (a host write, a crashed core).
pub(crate) fn view_failed(reason: &str) -> String {
    format!("failed: {reason}")
}

/// The cache-miss line of a rewind's (or a compaction's: `whose`) summary that did not read the prompt
/// cache: why, and the prompt tokens the provider did not read from it (uncached input plus cache writes),
/// when it said.
pub(crate) fn view_cache_miss(whose: &str, reason: Option<&str>, uncached: Option<f64>) -> String {
    let why = reason.map_or_else(|| "read nothing from the prompt cache".to_string(), |r| format!("was written cold ({r})"));
    let billed = uncached.map_or_else(String::new, |n| format!(": {} prompt tokens not read from the cache", format_tokens(n)));
    format!("cache miss: the {whose}'s summary {why}{billed}")
}

// ── What the user's `/anchors` command shows (tool/anchors.rs); never part of the model's text ─────

/// The title of `/anchors` when there is something to choose.
pub(crate) fn anchors_title(tokens: f64, window: f64, spent: &str) -> String {
    format!("Anchors and rewinds · context now {} · {spent} · choose one to read what was collapsed there", format_position(tokens, window))
}

/// `/anchors` with no anchor and no rewind.
pub(crate) fn anchors_none(tokens: f64, window: f64, spent: &str) -> String {
    format!(
        "No anchors or rewinds in this session yet (context now {}; {spent}). The model sets them with navigate_tree.",
        format_position(tokens, window)
    )
}

/// An anchor's row: the context at it, and its name.
pub(crate) fn anchors_anchor_row(name: &str, tokens: f64, window: f64) -> String {
    format!("anchor  {:>6}  {}", format_pct1(tokens, window), one_line(name))
}

/// Rewind number `n`'s row (`?` for a name no longer labelled): the names, what it saved and the context
/// before and after.
pub(crate) fn anchors_rewind_row(n: usize, start: Option<&str>, end: Option<&str>, saved: f64, before: f64, after: f64, window: f64) -> String {
    let (start, end) = (one_line(start.unwrap_or("?")), one_line(end.unwrap_or("?")));
    format!("rewind {n}: {start} → {end} · saved {} tokens · {}", format_tokens(saved), format_context_delta(before, after, window))
}

/// The title of a page of `/anchors`.
pub(crate) fn anchors_page_title(name: &str, page: u32, pages: u32) -> String {
    format!("What was collapsed at '{}' · page {page} of {pages}", one_line(name))
}

/// The pager's footer: "page k of n", the lines on screen (`first`, `last`, `total`) when the page scrolls,
/// then the keys js/anchors-command.js handles — next page (not on the last), back, close, and last (the part
/// a narrow screen cuts first) how to scroll.
pub(crate) fn anchors_pager_footer(page: u32, pages: u32, lines: Option<(u32, u32, u32)>) -> String {
    let mut parts = vec![format!("page {page} of {pages}")];
    if let Some((first, last, total)) = lines {
        parts.push(format!("lines {first}–{last} of {total}"));
    }
    if page < pages {
        parts.push("→ next page".into());
    }
    parts.push("← back to the list".into());
    parts.push("esc close".into());
    if lines.is_some() {
        parts.push("↑↓ PgUp PgDn scroll".into());
    }
    parts.join(" · ")
}

/// The choice that shows the next page (a host without the pager).
pub(crate) fn anchors_next_page(next: u32, pages: u32) -> String {
    format!("Next page ({next} of {pages})")
}

/// Said when the chosen rewind's names are gone.
pub(crate) const fn anchors_unnamed() -> &'static str {
    "This rewind's anchor names were moved or cleared since, so what it collapsed has no name to recall it by."
}

/// The choice that goes back to the rows.
pub(crate) const fn anchors_back() -> &'static str {
    "Back to the anchors"
}

/// Anchor rows as in `list`: `  12.3%  name` (the percentage right-aligned in 5 characters).
pub(crate) fn anchor_rows(anchors: &[Anchor], window: f64) -> String {
    let rows: Vec<String> = anchors.iter().map(|a| format!("  {:>5}  {}", format_pct1(a.tokens, window), one_line(&a.name))).collect();
    rows.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::MAX_NAME_LENGTH;
    use crate::tool::{MAX_FOCUS_CHARS, MIN_FOCUS_CHARS, MIN_SAVED_TOKENS};

    /// An anchor name read from a label typed in pi can hold a newline or an escape: each row keeps it on the row.
    #[test]
    fn names_from_labels_stay_on_their_row() {
        let odd = "a\nb\u{1b}[2J";
        let anchor = Anchor { name: odd.into(), entry_id: "e".into(), slot: 0, tokens: 10.0, hint: None };
        assert_eq!(anchor_rows(&[anchor.clone(), anchor], 100.0), "  10.0%  a b [2J\n  10.0%  a b [2J");
        assert_eq!(view_list(&[(odd, 1000.0)], 1000.0, 100_000.0), "1 anchor · context 1.0% of 100k\na b [2J 1.0%");
        assert_eq!(anchors_anchor_row(odd, 1.0, 100.0), "anchor    1.0%  a b [2J");
        assert!(anchors_rewind_row(1, Some(odd), None, 1.0, 2.0, 1.0, 100.0).starts_with("rewind 1: a b [2J → ? · "));
        assert_eq!(anchors_page_title(odd, 1, 2), "What was collapsed at 'a b [2J' · page 1 of 2");
    }

    /// The limits are written into the texts as digits (no number formatting at run time).
    #[test]
    fn texts_state_the_limits_in_force() {
        assert!(invalid_name("name", "anchor", None).contains(&format!(" 1–{MAX_NAME_LENGTH} chars")));
        assert!(focus_too_short(None).contains(&format!(" at least {MIN_FOCUS_CHARS} characters")));
        assert!(focus_too_long(1).contains(&format!(" keep it under {MAX_FOCUS_CHARS}.")));
        assert!(too_little_saved("a", 1.0, "", true).contains(&format!(" (minimum {MIN_SAVED_TOKENS})")));
        assert!(too_little_saved("a", 1.0, "", false).contains(&format!(" (minimum {MIN_SAVED_TOKENS})")));
        assert!(anchor_set("a", 1.0, 100.0, None, false).contains(&format!("at least {MIN_FOCUS_CHARS} characters")));
        assert!(recall_bad_query("x").contains(&format!(" at most {} characters", crate::tool::MAX_QUERY_CHARS)));
    }
}
