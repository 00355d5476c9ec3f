//! The compaction entry pi stores: the summary (the checkpoint, the ledger, pi's file lists) and its `details`.

use serde::Serialize;
use serde_json::Value;
use tsify_next::Tsify;

use crate::session::Profile;
use crate::tool::LedgerOptions;

use super::fields::{count, field, text};
use super::files::{compaction_files, FileLists, FileOps, PreviousCompaction};
use super::instruction::{CompactionRange, TURN_HEADING};

/// What the summary is made of.
#[derive(Debug, Clone, Default, PartialEq, Tsify)]
#[serde(rename_all = "camelCase", default)]
pub struct SummaryParts {
    /// The model's reply.
    pub reply: String,
    /// The range the instruction named.
    pub range: CompactionRange,
    /// pi's previous summary (`preparation.previousSummary`).
    #[tsify(optional)]
    pub previous_summary: Option<String>,
    /// The ledger's bound in tokens (0: none; absent: the default).
    #[tsify(optional)]
    pub ledger_tokens: Option<u32>,
}

impl SummaryParts {
    /// The parts from the shim's `{reply, range, previousSummary, ledgerTokens}`.
    pub fn from_json(v: &Value) -> Self {
        SummaryParts {
            reply: text(v, "reply").unwrap_or_default(),
            range: field(v, "range").map(CompactionRange::from_json).unwrap_or_default(),
            previous_summary: text(v, "previousSummary"),
            ledger_tokens: count(v, "ledgerTokens"),
        }
    }
}

/// What pi stores for a compaction, and what its ledger cost.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct CompactionResult {
    /// The summary (see [`compaction_summary`]).
    pub summary: String,
    /// `details` as pi's own compaction stores them.
    pub details: FileLists,
    /// The ledger's size by pi's estimate (0: none).
    pub ledger_tokens: f64,
}

/// The compaction pi stores: the checkpoint from `parts`, the ledger of `span` (the entries the compaction
/// removes, oldest first, as pi holds them: [`crate::session::SessionIndex::compaction_span`]) made by the
/// rewinds' rules (`crate::tool::ledger`) under the running pi's `profile`, and pi's file lists from `ops`
/// and the previous compaction. The ledger names no recall of the whole span: its items' entries stay in
/// the session, and `recall` reads any of them by id.
pub fn compaction_result(parts: &SummaryParts, ops: &FileOps, previous: Option<&PreviousCompaction>, span: &[Option<String>], profile: Profile) -> CompactionResult {
    let budget = parts.ledger_tokens.unwrap_or(crate::config::DEFAULT_LEDGER_TOKENS);
    let ledger = crate::tool::ledger(span, LedgerOptions { budget_tokens: budget, profile, recall_name: None });
    let details = compaction_files(ops, previous);
    CompactionResult { summary: compaction_summary(parts, &ledger.text, &details), details, ledger_tokens: ledger.tokens }
}

/// The summary pi stores, in pi's own layout: the checkpoint (for a split turn with no history before it,
/// the previous summary or "No prior history." then pi's `---` / turn-context heading and the turn's
/// checkpoint), then the `ledger`, then pi's `<read-files>` / `<modified-files>` lists.
pub fn compaction_summary(parts: &SummaryParts, ledger: &str, files: &FileLists) -> String {
    let reply = parts.reply.trim();
    let mut out = if parts.range.history_count == 0 && parts.range.prefix_count > 0 {
        let history = parts.previous_summary.as_deref().unwrap_or("No prior history.");
        format!("{history}\n\n---\n\n{TURN_HEADING}\n\n{reply}")
    } else {
        reply.to_string()
    };
    if !ledger.trim().is_empty() {
        out += "\n\n";
        out += ledger.trim_end();
    }
    out += &format_file_operations(files);
    out
}

/// pi's `formatFileOperations`.
fn format_file_operations(files: &FileLists) -> String {
    let mut sections = Vec::new();
    if !files.read_files.is_empty() {
        sections.push(format!("<read-files>\n{}\n</read-files>", files.read_files.join("\n")));
    }
    if !files.modified_files.is_empty() {
        sections.push(format!("<modified-files>\n{}\n</modified-files>", files.modified_files.join("\n")));
    }
    if sections.is_empty() {
        String::new()
    } else {
        format!("\n\n{}", sections.join("\n\n"))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::compaction::instruction::tests::range;

    #[test]
    fn the_summary_is_in_pis_layout() {
        let files = FileLists { read_files: vec!["a.rs".into()], modified_files: vec!["b.rs".into()] };
        let parts = SummaryParts { reply: "\n## Goal\nparse\n".into(), range: range(None, 1, 3, 0, 5), previous_summary: None, ledger_tokens: None };
        assert_eq!(compaction_summary(&parts, "", &files), "## Goal\nparse\n\n<read-files>\na.rs\n</read-files>\n\n<modified-files>\nb.rs\n</modified-files>");
        assert_eq!(compaction_summary(&parts, "", &FileLists::default()), "## Goal\nparse");
        // A split turn with nothing before it: pi's "No prior history." (or the previous summary) first.
        let turn = SummaryParts { reply: "## Original Request\nx".into(), range: range(None, 1, 0, 4, 6), ..parts.clone() };
        assert_eq!(compaction_summary(&turn, "", &FileLists::default()), "No prior history.\n\n---\n\n**Turn Context (split turn):**\n\n## Original Request\nx");
        let prev = SummaryParts { previous_summary: Some("## Goal\nold".into()), ..turn };
        assert!(compaction_summary(&prev, "", &FileLists::default()).starts_with("## Goal\nold\n\n---\n\n**Turn Context"));
        // The ledger goes between the checkpoint and the file lists.
        assert_eq!(compaction_summary(&parts, "<ledger>\n- x\n</ledger>\n", &files), "## Goal\nparse\n\n<ledger>\n- x\n</ledger>\n\n<read-files>\na.rs\n</read-files>\n\n<modified-files>\nb.rs\n</modified-files>");
    }

    #[test]
    fn the_ledger_of_what_the_compaction_removes_goes_under_the_checkpoint() {
        let span: Vec<Option<String>> = [
            json!({"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"fix src/parser.rs, keep the API","timestamp":1}}),
            json!({"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"src/parser.rs"}}],"provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2},"stopReason":"toolUse","timestamp":2}}),
            json!({"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"fn parse() {}"}],"isError":false,"timestamp":3}}),
        ]
        .iter()
        .map(|v| Some(v.to_string()))
        .collect();
        let parts = SummaryParts { reply: "## Goal\nfix the parser".into(), range: CompactionRange { history_first: 1, history_count: 3, message_count: 3, ..CompactionRange::default() }, previous_summary: None, ledger_tokens: None };
        let ops = FileOps { read: vec!["src/parser.rs".into()], ..FileOps::default() };
        let r = compaction_result(&parts, &ops, None, &span, Profile::Pi087);
        let ledger_at = r.summary.find("<ledger>").expect("a ledger");
        assert!(r.summary.starts_with("## Goal\nfix the parser\n\n<ledger>"), "{}", r.summary);
        assert!(r.summary[ledger_at..].contains("[u1] fix src/parser.rs, keep the API"), "{}", r.summary);
        assert!(r.summary.ends_with("</ledger>\n\n<read-files>\nsrc/parser.rs\n</read-files>"), "{}", r.summary);
        assert!(r.ledger_tokens > 0.0);
        assert_eq!(r.details.read_files, vec!["src/parser.rs".to_string()]);
        // Off: the checkpoint and pi's lists only.
        let off = compaction_result(&SummaryParts { ledger_tokens: Some(0), ..parts }, &ops, None, &span, Profile::Pi087);
        assert_eq!(off.summary, "## Goal\nfix the parser\n\n<read-files>\nsrc/parser.rs\n</read-files>");
        assert_eq!(off.ledger_tokens, 0.0);
    }
}
