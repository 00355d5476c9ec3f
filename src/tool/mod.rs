//! The `navigate_tree` tool: every decision it makes and every sentence the model reads.
//!
//! The JavaScript shim feeds the session index, then asks [`plan`] what a call should do. The answer is
//! data, a [`ToolPlan`]: refuse with a text, write an anchor label, list anchors, or rewind (summarize these
//! entries, then branch). After the host's `branchWithSummary` the binding asks [`finish`] for the label
//! writes, the synthetic assistant message that keeps tool calls paired, and the response text. Nothing
//! here calls the host, reads a clock or talks to a model. Results derive `Serialize` (and their
//! TypeScript declarations, through `tsify`); the binding hands them over with one serializer.

mod anchors;
mod collapsed;
mod definition;
mod facts;
mod ledger;
mod number;
mod params;
mod plan;
mod recall;
mod refusal;
mod saving;
mod summary;
mod synthetic;
mod texts;
mod view;

pub use anchors::{anchors_view, command_recall, pager_footer, pager_page, AnchorsRow, AnchorsView, PagerAnswer, PagerPage};
pub use definition::{definition, definition_text_len, ToolDefinition, TOOL_NAME};
pub use facts::{ToolFacts, ModelFacts};
pub use ledger::{ledger, Ledger, LedgerOptions};
#[cfg(test)]
pub(crate) use ledger::exit_code;
pub(crate) use ledger::{exit_code_of_line, first_error_line, first_line};
pub use params::{Action, Arguments, Params, MAX_ARGUMENT_DEPTH};
pub use plan::{
    check_auth, finish, plan, salvage_text, summarize, unreadable, AnchorDetails, AnchorPlan, AnchorRow,
    AuthResult, LabelWrite, ListDetails, ListPlan, ToolPlan, RewindDetails, RewindFinish, RewindPlan,
    MAX_FOCUS_CHARS, MIN_FOCUS_CHARS, MIN_SAVED_TOKENS,
};
pub use recall::{page as recall_page, RecallAnswer, RecallDetails, RecallPage, RecallPlan, MAX_QUERY_CHARS, PAGE_TOKENS};
pub use refusal::Refusal;
pub use saving::{
    anchor_savings, baseline_changed, cost_with, planned_rewind_saving, rewind_saving, rewinds_on_path, session_cost, summary_tokens,
    AnchorSaving, PathRewind, RewindSaving,
};
pub use summary::{check_summary, compose as compose_summary, RewindSummary, SummaryAnswer, SummaryDetails, SummaryFacts, SummaryResult};
pub use synthetic::{synthetic_assistant, KeptArguments, SyntheticAssistant, MAX_SYNTHETIC_FOCUS};
pub use texts::RefusalCode;
pub use view::{call_line, result_view, ResultView, ShownAnchor, ShownDetails, ShownResult, SummaryCache};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod saving_tests;
