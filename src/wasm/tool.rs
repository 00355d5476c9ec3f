//! Binding for `navigate_tree` (`crate::tool`): convert, call the core, map errors. No decisions here.
//! Results cross through [`to_js`] (serde-wasm-bindgen); their TypeScript types are generated from the
//! Rust types (`tsify`).

use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::*;

use super::error::{invalid, js_error};
use super::{to_js, SessionIndex};
use crate::tool::{self, Arguments, AuthResult, RecallPlan, RewindPlan, ShownResult, SummaryResult, ToolFacts, ToolPlan};

/// A host object read as `T` (`InvalidArgument` naming `what` when it has the wrong shape).
fn from_js<T: DeserializeOwned>(value: JsValue, what: &str) -> Result<T, JsValue> {
    serde_wasm_bindgen::from_value(value).map_err(|e| invalid(&format!("{what}: {e}")))
}

#[wasm_bindgen]
impl SessionIndex {
    /// Decides what a `navigate_tree` call does, from the call's arguments (the object the model sent,
    /// read directly) and the host's facts.
    ///
    /// ```js
    /// const plan = index.toolPlan(params, { callId, contextWindow, model, refreshReaches, nowMs: Date.now() });
    /// if (plan.kind === "refuse") return failed(plan.text);
    /// ```
    ///
    /// Arguments that cannot be read (nested deeper than `MAX_ARGUMENT_DEPTH`, a cycle, a `BigInt`) are
    /// refused (`code: "InvalidArguments"`) with a text that says so, like any other bad argument. A rewind
    /// plan stays pending in the index until [`Self::rewind_finish`] (or the next plan).
    ///
    /// # Errors
    /// `InvalidArgument` for facts of the wrong shape; `Cycle` for a corrupt tree.
    #[wasm_bindgen(js_name = toolPlan, unchecked_return_type = "ToolPlan")]
    pub fn tool_plan(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "unknown")] params: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ToolFacts")] facts: JsValue,
    ) -> Result<JsValue, JsValue> {
        let facts: ToolFacts = from_js(facts, "facts")?;
        self.pending = None;
        self.recall = None;
        let plan = match serde_wasm_bindgen::from_value::<Arguments>(params) {
            Ok(arguments) => tool::plan(&mut self.inner, &arguments, &facts).map_err(js_error)?,
            // The error is a JavaScript `Error`; its message is the reason (`toString` would add "Error: ").
            Err(e) => tool::unreadable(&String::from(js_sys::Error::from(JsValue::from(e)).message())),
        };
        let js = to_js(&plan)?;
        match plan {
            ToolPlan::Rewind(rewind) => self.pending = Some(rewind),
            ToolPlan::Recall(recall) => self.recall = Some(recall),
            _ => {}
        }
        Ok(js)
    }

    /// The answer to the pending recall: `entries` are the plan's `entryIds` as pi holds them
    /// (`sm.getEntry(id)` each, in order); the core picks their text, filters and pages it.
    ///
    /// ```js
    /// const answer = index.recallPage(plan.entryIds.map((id) => sm.getEntry(id)));
    /// if (answer.kind === "refuse") return failed(answer.text);
    /// ```
    ///
    /// Each entry crosses as its own `JSON.stringify` text: one that cannot be written or read (a cycle,
    /// nesting past serde_json's limit) is left out instead of failing the page.
    ///
    /// # Errors
    /// `InvalidArgument` when no recall is pending.
    #[wasm_bindgen(js_name = recallPage, unchecked_return_type = "RecallAnswer")]
    pub fn recall_page(&mut self, #[wasm_bindgen(unchecked_param_type = "unknown[]")] entries: js_sys::Array) -> Result<JsValue, JsValue> {
        let plan: &RecallPlan = self.recall.as_ref().ok_or_else(|| invalid("no recall is pending"))?;
        to_js(&tool::recall_page(plan, &entry_texts(&entries)))
    }

    /// The summary of the pending rewind, from the summarizer's `result` and the collapsed entries as pi
    /// holds them (`plan.summarizeIds`, `sm.getEntry(id)` each): our heading in place of pi's preamble, the
    /// model's text, a note when the reply stopped at the output limit, and the ledger of the entries'
    /// facts (bounded by `result.ledgerTokens`: 0 for none, absent for the default). Answers `{kind: "summary", summary, details,
    /// ledgerTokens, cut}` — write it with `branchWithSummary(targetId, summary, details)` — or the refusal
    /// for a result that cannot be used (aborted, failed, empty) or a rewind that would free too little once its
    /// summary is counted (`TooLittleSaved`).
    ///
    /// ```js
    /// const answer = index.rewindSummary(plan.summarizeIds.map((id) => sm.getEntry(id)), { ...outcome, ledgerTokens: 600 });
    /// if (answer.kind === "refuse") return failed(answer.text);
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` when no rewind is pending or `result` is not an object.
    #[wasm_bindgen(js_name = rewindSummary, unchecked_return_type = "SummaryAnswer")]
    pub fn rewind_summary(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "unknown[]")] entries: js_sys::Array,
        #[wasm_bindgen(unchecked_param_type = "SummaryResult")] result: JsValue,
    ) -> Result<JsValue, JsValue> {
        let result: SummaryResult = from_js(result, "result")?;
        let plan: &mut RewindPlan = self.pending.as_mut().ok_or_else(|| invalid("no rewind is pending"))?;
        to_js(&tool::summarize(&mut self.inner, plan, &result, &entry_texts(&entries)).map_err(js_error)?)
    }

    /// The rows of the user's `/anchors` command: the anchors on the active branch with the context at
    /// each, then every rewind with what it saved. `contextWindow`: the model's (0: unknown).
    ///
    /// # Errors
    /// `Cycle` for a corrupt tree.
    #[wasm_bindgen(js_name = anchorsView, unchecked_return_type = "AnchorsView")]
    pub fn anchors_view(&mut self, context_window: f64) -> Result<JsValue, JsValue> {
        to_js(&tool::anchors_view(&mut self.inner, context_window).map_err(js_error)?)
    }

    /// `/anchors`' recall of `name` at `page`: recall's own plan (or refusal), kept nowhere, so a rewind in
    /// flight stays pending. Hand the plan back with its entries to [`anchors_page`].
    ///
    /// # Errors
    /// `Cycle` for a corrupt tree.
    #[wasm_bindgen(js_name = anchorsRecall, unchecked_return_type = "ToolPlan")]
    pub fn anchors_recall(&mut self, name: &str, page: u32, context_window: f64) -> Result<JsValue, JsValue> {
        to_js(&tool::command_recall(&mut self.inner, name, page, context_window).map_err(js_error)?)
    }

    /// The second half of the pending rewind, once `branchWithSummary` returned `summaryId` and the index
    /// was fed the new entry. `nowMs` stamps the synthetic assistant (the core reads no clock).
    ///
    /// # Errors
    /// `InvalidArgument` when no rewind is pending; `UnknownEntry` when the summary was not fed (the
    /// rewind stays pending, so the call can be repeated once it is).
    #[wasm_bindgen(js_name = rewindFinish, unchecked_return_type = "RewindFinish")]
    pub fn rewind_finish(&mut self, summary_id: &str, now_ms: f64) -> Result<JsValue, JsValue> {
        let plan: &RewindPlan = self.pending.as_ref().ok_or_else(|| invalid("no rewind is pending"))?;
        let finish = tool::finish(&mut self.inner, plan, plan.held, summary_id, now_ms).map_err(js_error)?;
        self.pending = None;
        to_js(&finish)
    }
}

/// `navigate_tree`'s definition for `pi.registerTool` (everything but `execute`).
#[wasm_bindgen(js_name = toolDefinition, unchecked_return_type = "ToolDefinition")]
pub fn tool_definition() -> Result<JsValue, JsValue> {
    to_js(tool::definition())
}

/// The refusal for a failed `getApiKeyAndHeaders` result, or `null` when it resolved.
#[wasm_bindgen(js_name = checkAuth, unchecked_return_type = "Refusal | null")]
pub fn check_auth(#[wasm_bindgen(unchecked_param_type = "AuthResult")] result: JsValue) -> Result<JsValue, JsValue> {
    to_js(&tool::check_auth(&from_js::<AuthResult>(result, "result")?))
}

/// The error text for a step that failed after the tree moved (the chain was repaired first).
#[wasm_bindgen(js_name = salvageText)]
pub fn salvage_text(step: &str, error: &str) -> String {
    tool::salvage_text(step, error)
}

/// The call line pi's TUI shows after the tool's name (`renderCall`); arguments that cannot be read
/// show as an empty line.
#[wasm_bindgen(js_name = toolCallLine)]
pub fn tool_call_line(#[wasm_bindgen(unchecked_param_type = "unknown")] args: JsValue) -> String {
    serde_wasm_bindgen::from_value::<Arguments>(args).map_or_else(|_| String::new(), |a| tool::call_line(&a))
}

/// The collapsed view of a result in pi's TUI (`renderResult`): its headline, whether it is an error, and
/// the cache-miss line.
///
/// # Errors
/// `InvalidArgument` when `result` has the wrong shape.
#[wasm_bindgen(js_name = toolResultView, unchecked_return_type = "ResultView")]
pub fn tool_result_view(#[wasm_bindgen(unchecked_param_type = "ShownResult")] result: JsValue) -> Result<JsValue, JsValue> {
    to_js(&tool::result_view(&from_js::<ShownResult>(result, "result")?))
}

/// The page of `/anchors`' recall `plan` (from `anchorsRecall`), given its `entryIds` as pi holds them, as the
/// person reads it: `recall`'s page without the model's first and last lines, with the pager's title.
///
/// # Errors
/// `InvalidArgument` when `plan` has the wrong shape.
#[wasm_bindgen(js_name = anchorsPage, unchecked_return_type = "PagerAnswer")]
pub fn anchors_page(
    #[wasm_bindgen(unchecked_param_type = "RecallPlan")] plan: JsValue,
    #[wasm_bindgen(unchecked_param_type = "unknown[]")] entries: js_sys::Array,
) -> Result<JsValue, JsValue> {
    let plan: RecallPlan = from_js(plan, "plan")?;
    to_js(&tool::pager_page(&plan, &entry_texts(&entries)))
}

/// The footer of `/anchors`' pager on page `page` of `pages`, lines `first`–`last` of `total` on screen.
#[wasm_bindgen(js_name = anchorsPagerFooter)]
pub fn anchors_pager_footer(page: u32, pages: u32, first: u32, last: u32, total: u32) -> String {
    tool::pager_footer(page, pages, first, last, total)
}

/// Each entry as its own `JSON.stringify` text (`None` for one that cannot be written: a cycle).
pub(crate) fn entry_texts(entries: &js_sys::Array) -> Vec<Option<String>> {
    entries.iter().map(|e| js_sys::JSON::stringify(&e).ok().and_then(|t| t.as_string())).collect()
}

