//! The text a rewind's `branch_summary` holds, and whether the summarizer's result can be used at all.
//!
//! Both summary paths end here: the cache-preserving one (the live request replayed, `js/cache-summary.js`)
//! hands over the model's reply, pi's cold `generateBranchSummary` its summary (pi's preamble, the model's
//! text, pi's `<read-files>`/`<modified-files>`). The text is then the same on both: our own heading in
//! place of pi's preamble ("The user explored a different conversation branch before returning here" is
//! wrong when the model rewound itself), the model's text, a note when the reply stopped at the output
//! limit, and the ledger of the collapsed entries (`ledger.rs`). pi's file lists are dropped from the text
//! when the ledger lists every file they name; `details.readFiles`/`modifiedFiles` keep them as pi stores
//! them (pi's own lists on the cold path, the same lists computed by pi's rules on the cache path), so a
//! later summary by pi still finds them.
//!
//! A reply that stopped for length still rewinds (the ledger holds the facts): pi ≥0.87 refuses such a reply
//! in `generateBranchSummary`, so the shim hands over the reply it saw (through the stream function it gave
//! the summarizer) and the result says the summary was cut.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsify_next::Tsify;

use super::facts::lenient;
use super::ledger::{ledger, Ledger, LedgerOptions};
use super::number::js_number;
use super::refusal::Refusal;
use super::texts::{self, RefusalCode};
use crate::session::Profile;

/// The preamble pi's `generateBranchSummary` puts before the model's text (every tested pi).
const PI_SUMMARY_PREAMBLE: &str =
    "The user explored a different conversation branch before returning here.\nSummary of that exploration:";

/// What the summarizer returned (a summarizer that threw is `{error: message}`), with what the shim saw of
/// the model's reply and the session's ledger setting.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct SummaryResult {
    /// The summary text (pi's, or the cache-preserving request's reply).
    #[serde(default, deserialize_with = "lenient")]
    #[tsify(optional)]
    pub summary: Option<String>,
    /// Whether it was aborted (only `true` counts).
    #[serde(default, deserialize_with = "lenient")]
    #[tsify(optional)]
    pub aborted: Option<bool>,
    /// Why it failed.
    #[serde(default, deserialize_with = "lenient")]
    #[tsify(optional)]
    pub error: Option<String>,
    /// The reply's `stopReason`, when the shim saw the reply (`"length"`: cut at the output limit).
    #[serde(default, deserialize_with = "lenient")]
    #[tsify(optional)]
    pub stop_reason: Option<String>,
    /// The reply's text, when the shim saw the reply (used when pi refused a reply cut at the limit).
    #[serde(default, deserialize_with = "lenient")]
    #[tsify(optional)]
    pub reply_text: Option<String>,
    /// pi's `readFiles` (the cold path), kept in the entry's `details` (read as any JSON value: what is not
    /// a list counts as absent, what is not a string in it is left out).
    #[serde(default)]
    #[tsify(optional, type = "string[] | null")]
    pub read_files: Option<Value>,
    /// pi's `modifiedFiles` (the cold path), read as `read_files`.
    #[serde(default)]
    #[tsify(optional, type = "string[] | null")]
    pub modified_files: Option<Value>,
    /// The ledger's bound in tokens (0: off; absent or not a whole number: the default,
    /// `DEFAULT_LEDGER_TOKENS`).
    #[serde(default)]
    #[tsify(optional, type = "number | null")]
    pub ledger_tokens: Option<Value>,
}

/// A list of strings sent as any JSON value: `None` when it is no list.
fn strings(value: Option<&Value>) -> Option<Vec<String>> {
    Some(value?.as_array()?.iter().filter_map(Value::as_str).map(String::from).collect())
}

impl SummaryResult {
    /// Whether the reply stopped at the output limit.
    fn cut(&self) -> bool {
        self.stop_reason.as_deref() == Some("length")
    }

    /// The text to summarize with: pi's summary, or — when pi refused a reply cut at the limit — the reply.
    fn text(&self) -> &str {
        match (&self.summary, &self.reply_text) {
            (Some(s), _) => s,
            (None, Some(reply)) if self.cut() => reply,
            _ => "",
        }
    }
}

/// Whether a summary says nothing: blank, or only pi's preamble and its file lists (the model answered with
/// nothing, which pi still wraps).
fn summary_is_empty(summary: &str) -> bool {
    let (body, _) = split_pi_files(strip_preamble(summary));
    body.trim().is_empty()
}

fn refusal(code: RefusalCode, text: String) -> Refusal {
    Refusal { code, text, saved_tokens: None }
}

/// The refusal for a summarizer result that cannot be used (aborted, failed, empty), or `None`. A reply cut
/// at the output limit is used even when pi called it a failure.
pub fn check_summary(result: &SummaryResult) -> Option<Refusal> {
    if result.aborted == Some(true) {
        return Some(refusal(RefusalCode::SummaryAborted, texts::summary_aborted()));
    }
    let empty = summary_is_empty(result.text());
    match (result.error.as_deref(), empty) {
        (None, false) => None,
        (Some(_), false) if result.cut() => None,
        (Some(e), _) if !result.cut() => Some(refusal(RefusalCode::SummaryFailed, texts::summary_failed(e))),
        _ => Some(refusal(RefusalCode::SummaryFailed, texts::summary_failed("the summary is empty"))),
    }
}

/// What the summary cost and how it went, kept with the pending rewind for its result.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SummaryFacts {
    /// The ledger's size in tokens (0: none).
    pub ledger_tokens: f64,
    /// Items it lists.
    pub ledger_items: u32,
    /// Items it left out for room.
    pub ledger_left_out: u32,
    /// Whether the model's reply stopped at the output limit.
    pub cut: bool,
}

/// The summary for `branchWithSummary`, or why there is none.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum SummaryAnswer {
    /// Report `text` as a failed tool result; nothing is written.
    Refuse(Refusal),
    /// Write this summary.
    Summary(RewindSummary),
}

/// A rewind's summary: the text and the `details` for `branchWithSummary(targetId, summary, details)`.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct RewindSummary {
    /// The text the `branch_summary` entry holds.
    pub summary: String,
    /// The entry's `details`.
    pub details: SummaryDetails,
    /// The ledger's size in tokens (0: none).
    #[serde(serialize_with = "js_number")]
    pub ledger_tokens: f64,
    /// Whether the model's reply stopped at the output limit.
    pub cut: bool,
}

/// A summary entry's `details`, as pi's own branch summaries store them.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct SummaryDetails {
    /// Files read and not modified.
    pub read_files: Vec<String>,
    /// Files modified.
    pub modified_files: Vec<String>,
}

/// The summary of a rewind (or the refusal): `entries` are the collapsed entries as pi holds them,
/// `recall_name` the name that reads them back (the rewind's `labelEnd`).
pub fn compose(result: &SummaryResult, entries: &[Option<String>], profile: Profile, recall_name: &str) -> (SummaryAnswer, SummaryFacts) {
    let budget = result.ledger_tokens.as_ref().and_then(Value::as_u64).map_or(crate::config::DEFAULT_LEDGER_TOKENS, |n| n.min(u64::from(u32::MAX)) as u32);
    let ledger = ledger(entries, LedgerOptions { budget_tokens: budget, profile, recall_name: Some(recall_name) });
    let cut = result.cut();
    let mut check = check_summary(result);
    // A cut reply with no text still rewinds when the ledger carries the facts.
    if cut && result.aborted != Some(true) && !ledger.text.is_empty() && summary_is_empty(result.text()) {
        check = None;
    }
    let facts = SummaryFacts { ledger_tokens: ledger.tokens, ledger_items: ledger.items, ledger_left_out: ledger.left_out, cut };
    if let Some(refused) = check {
        return (SummaryAnswer::Refuse(refused), SummaryFacts::default());
    }
    let summary = summary_text(result.text(), &ledger, cut, recall_name);
    let details = SummaryDetails {
        read_files: strings(result.read_files.as_ref()).unwrap_or_else(|| ledger.read_files.clone()),
        modified_files: strings(result.modified_files.as_ref()).unwrap_or_else(|| ledger.modified_files.clone()),
    };
    (SummaryAnswer::Summary(RewindSummary { summary, details, ledger_tokens: ledger.tokens, cut }), facts)
}

/// The summary text: our heading, the model's text without pi's preamble (and without pi's file lists when the
/// ledger lists their files), the cut note, the ledger.
fn summary_text(raw: &str, ledger: &Ledger, cut: bool, recall_name: &str) -> String {
    let (body, files) = split_pi_files(strip_preamble(raw));
    let mut text = texts::summary_heading();
    let body = body.trim();
    if !body.is_empty() {
        text.push_str("\n\n");
        text.push_str(body);
    }
    for block in files.into_iter().filter(|b| !b.paths.iter().all(|p| ledger.lists_file(p))) {
        text.push_str("\n\n");
        text.push_str(block.text);
    }
    if cut {
        text.push_str("\n\n");
        text.push_str(&texts::summary_cut(recall_name));
    }
    if !ledger.text.is_empty() {
        text.push_str("\n\n");
        text.push_str(&ledger.text);
    }
    text
}

/// `summary` without pi's preamble (and the blank line after it), when it starts with it.
fn strip_preamble(summary: &str) -> &str {
    summary.trim_start().strip_prefix(PI_SUMMARY_PREAMBLE).unwrap_or(summary)
}

/// One of pi's file lists at the end of its summary.
#[derive(Debug)]
struct FileBlock<'a> {
    /// The block, tags included.
    text: &'a str,
    /// The files it lists.
    paths: Vec<&'a str>,
}

/// `summary` split into its text and pi's trailing `<read-files>` / `<modified-files>` blocks (pi's
/// `formatFileOperations`: each `<tag>\n` + one path per line + `\n</tag>`, after a blank line).
fn split_pi_files(summary: &str) -> (&str, Vec<FileBlock<'_>>) {
    let mut rest = summary.trim_end();
    let mut blocks = Vec::new();
    for tag in ["modified-files", "read-files"] {
        let (open, close) = (format!("<{tag}>\n"), format!("\n</{tag}>"));
        let Some(inner_end) = rest.strip_suffix(close.as_str()).map(str::len) else { continue };
        let Some(start) = rest[..inner_end].rfind(open.as_str()) else { continue };
        let inner = &rest[start + open.len()..inner_end];
        blocks.insert(0, FileBlock { text: &rest[start..], paths: inner.lines().collect() });
        rest = rest[..start].trim_end();
    }
    (rest, blocks)
}

#[cfg(test)]
pub(super) mod tests {
    use serde_json::json;

    use super::*;
    use crate::tool::ledger::tests::planted;

    fn result(v: serde_json::Value) -> SummaryResult {
        serde_json::from_value(v).unwrap()
    }

    const PI_COLD: &str = "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n\
                           ## Goal\nparse nested expressions\n\n<read-files>\nsrc/lexer/tokens.rs\n</read-files>\n\n<modified-files>\nsrc/parser/expr.rs\n</modified-files>";

    fn composed(v: serde_json::Value) -> (RewindSummary, SummaryFacts) {
        match compose(&result(v), &planted().texts(), Profile::Pi150, "done") {
            (SummaryAnswer::Summary(s), f) => (s, f),
            (SummaryAnswer::Refuse(r), _) => panic!("refused: {r:?}"),
        }
    }

    #[test]
    fn the_cold_summary_loses_pi_s_preamble_and_file_lists_the_ledger_repeats() {
        let (s, facts) = composed(json!({"summary": PI_COLD, "readFiles": ["src/lexer/tokens.rs"], "modifiedFiles": ["src/parser/expr.rs"], "ledgerTokens": 600}));
        assert!(s.summary.starts_with("Summary of the work this rewind collapsed:\n\n## Goal\nparse nested expressions\n\n<ledger>\n"), "{}", s.summary);
        assert!(!s.summary.contains("explored a different conversation branch") && !s.summary.contains("<read-files>"), "{}", s.summary);
        assert_eq!(s.details, SummaryDetails { read_files: vec!["src/lexer/tokens.rs".into()], modified_files: vec!["src/parser/expr.rs".into()] });
        assert_eq!((facts.ledger_items, facts.cut), (7, false));
        assert_eq!(s.ledger_tokens, facts.ledger_tokens);
        // Without the ledger, pi's lists stay where pi put them.
        let (off, facts) = composed(json!({"summary": PI_COLD, "ledgerTokens": 0}));
        assert!(off.summary.ends_with("parse nested expressions\n\n<read-files>\nsrc/lexer/tokens.rs\n</read-files>\n\n<modified-files>\nsrc/parser/expr.rs\n</modified-files>"), "{}", off.summary);
        assert_eq!(facts.ledger_tokens, 0.0);
        // A list naming a file the ledger does not list is kept.
        let other = PI_COLD.replace("src/lexer/tokens.rs\n</read-files>", "elsewhere.rs\n</read-files>");
        let (kept, _) = composed(json!({"summary": other, "ledgerTokens": 600}));
        assert!(kept.summary.contains("<read-files>\nelsewhere.rs\n</read-files>\n\n<ledger>") && !kept.summary.contains("<modified-files>"), "{}", kept.summary);
    }

    #[test]
    fn the_cache_reply_gets_the_same_heading_and_pi_s_lists_by_pi_s_rules() {
        let (s, _) = composed(json!({"summary": "  ## Goal\nx  ", "stopReason": "stop", "ledgerTokens": 600}));
        assert!(s.summary.starts_with("Summary of the work this rewind collapsed:\n\n## Goal\nx\n\n<ledger>\n"), "{}", s.summary);
        assert_eq!(s.details.modified_files, ["src/parser/expr.rs"]);
        assert_eq!(s.details.read_files, ["src/lexer/tokens.rs"]);
    }

    #[test]
    fn a_reply_cut_at_the_limit_still_rewinds_and_says_so() {
        // pi ≥0.87 turned the cut reply into an error; the shim saw the reply.
        let pi_error = "Branch summarization failed: generation hit the token cap and the summary is incomplete";
        let (s, facts) = composed(json!({"error": pi_error, "stopReason": "length", "replyText": "## Goal\nparse nes", "ledgerTokens": 600}));
        assert!(facts.cut && s.cut);
        assert!(s.summary.contains("## Goal\nparse nes\n\n(This summary was cut off at the model's output limit."), "{}", s.summary);
        // The cache path's own cut reply.
        let (c, _) = composed(json!({"summary": "## Goal\npar", "stopReason": "length", "ledgerTokens": 600}));
        assert!(c.cut && c.summary.contains("cut off at the model's output limit"));
        // No text at all: the ledger alone carries it…
        let (empty, _) = composed(json!({"summary": "", "stopReason": "length", "ledgerTokens": 600}));
        assert!(empty.summary.starts_with("Summary of the work this rewind collapsed:\n\n(This summary was cut off"), "{}", empty.summary);
        // …but not without a ledger, and an error without a cut stays an error.
        let refused = |v| matches!(compose(&result(v), &planted().texts(), Profile::Pi150, "done").0, SummaryAnswer::Refuse(_));
        assert!(refused(json!({"summary": "", "stopReason": "length", "ledgerTokens": 0})));
        assert!(refused(json!({"error": pi_error, "stopReason": "error", "replyText": "x", "ledgerTokens": 600})));
        assert!(refused(json!({"aborted": true, "stopReason": "length", "replyText": "x", "ledgerTokens": 600})));
    }

    #[test]
    fn empty_summaries_are_refused_whatever_pi_wrapped_them_in() {
        for empty in ["", "  ", "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n", "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n\n\n<read-files>\na\n</read-files>"] {
            assert!(check_summary(&result(json!({"summary": empty}))).is_some(), "{empty:?}");
        }
        assert!(check_summary(&result(json!({"summary": "x", "readFiles": "not a list", "ledgerTokens": -3}))).is_none(), "odd fields read as absent");
    }

    /// The texts pinned in tests/fixtures/expected/tool-outputs.txt (see `tool::tests`).
    pub(in crate::tool) fn golden(put: &mut dyn FnMut(&str, &str)) {
        let answer = |v| serde_json::to_string(&compose(&result(v), &planted().texts(), Profile::Pi150, "done").0).expect("serializes");
        put("summary cold", &answer(json!({"summary": PI_COLD, "readFiles": ["src/lexer/tokens.rs"], "modifiedFiles": ["src/parser/expr.rs"], "ledgerTokens": 600})));
        put("summary cache cut", &answer(json!({"summary": "## Goal\nparse nes", "stopReason": "length", "ledgerTokens": 600})));
        put("summary empty", &answer(json!({"summary": "", "ledgerTokens": 600})));
    }
}
