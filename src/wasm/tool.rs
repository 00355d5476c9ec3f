//! Binding for `navigate_tree` (`crate::tool`): convert, call the core, map errors. No decisions here.

use serde::de::DeserializeOwned;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::dto::to_js;
use super::error::{invalid, js_error};
use super::SessionIndex;
use crate::tool;

#[wasm_bindgen(typescript_custom_section)]
const TS_TOOL_TYPES: &str = r#"
/** navigate_tree's definition for pi.registerTool (everything but `execute`). */
export interface ToolDefinition {
  name: string; label: string; description: string; promptSnippet: string;
  executionMode: "sequential"; parameters: Record<string, unknown>;
}
/** The model in use (recorded on the synthetic assistant). */
export interface ModelFacts { api: string; provider: string; id: string }
/** What the host knows about the call. */
export interface ToolFacts {
  callId: string; contextWindow?: number; model?: ModelFacts | null; refreshReaches?: boolean; nowMs?: number;
}
/** A refused call; report `text` as a failed tool result. */
export interface Refusal { code: string; text: string }
export interface RewindPlan {
  targetId: string; labelStart: string; labelEnd: string; summarizeIds: string[]; focus: string;
  beforeTokens: number; contextWindow: number; callId: string; arguments: Record<string, unknown>;
  model: ModelFacts | null; refreshReaches: boolean; fallbackSynthetic: Record<string, unknown>;
}
/** What a navigate_tree call does. */
export type ToolPlan =
  | ({ kind: "refuse" } & Refusal)
  | { kind: "list"; text: string; details: Record<string, unknown> }
  | { kind: "anchor"; entryId: string; label: string; moveFrom: string | null; text: string; details: Record<string, unknown> }
  | ({ kind: "rewind" } & RewindPlan);
/** A label change for pi.setLabel (`label: null` clears). */
export interface LabelWrite { entryId: string; label: string | null }
/** The second half of a rewind: label writes, then the synthetic assistant, then the response. */
export interface RewindFinish {
  labels: LabelWrite[]; synthetic: Record<string, unknown>; afterTokens: number; text: string;
  details: Record<string, unknown>;
}
"#;

fn from_js<T: DeserializeOwned>(value: JsValue) -> Result<T, JsValue> {
    serde_wasm_bindgen::from_value(value).map_err(|e| invalid(&e.to_string()))
}

#[wasm_bindgen]
impl SessionIndex {
    /// Decides what a `navigate_tree` call does, from the call's arguments and the host's facts.
    ///
    /// ```js
    /// const plan = index.toolPlan(params, { callId, contextWindow, model, refreshReaches, nowMs: Date.now() });
    /// if (plan.kind === "refuse") return failed(plan.text);
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` for facts of the wrong shape; `Cycle` for a corrupt tree.
    #[wasm_bindgen(js_name = toolPlan, unchecked_return_type = "ToolPlan")]
    pub fn tool_plan(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Record<string, unknown>")] params: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ToolFacts")] facts: JsValue,
    ) -> Result<JsValue, JsValue> {
        let params: Value = from_js(params)?;
        let facts: tool::Facts = from_js(facts)?;
        to_js(&tool::plan(&mut self.inner, &params, &facts).map_err(js_error)?)
    }

    /// The second half of a rewind, once `branchWithSummary` returned `summaryId` and the index holds it.
    ///
    /// # Errors
    /// `InvalidArgument` for a plan of the wrong shape; `UnknownEntry` when the summary was not fed.
    #[wasm_bindgen(js_name = rewindFinish, unchecked_return_type = "RewindFinish")]
    pub fn rewind_finish(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "RewindPlan")] plan: JsValue,
        summary_id: &str,
        now_ms: f64,
    ) -> Result<JsValue, JsValue> {
        let plan: tool::RewindPlan = from_js(plan)?;
        to_js(&tool::finish(&mut self.inner, &plan, summary_id, now_ms).map_err(js_error)?)
    }
}

/// `navigate_tree`'s definition: name, texts, JSON Schema parameters, execution mode.
#[wasm_bindgen(js_name = toolDefinition, unchecked_return_type = "ToolDefinition")]
pub fn tool_definition() -> Result<JsValue, JsValue> {
    to_js(&tool::definition())
}

/// The refusal for a failed `getApiKeyAndHeaders` result, or `null` when it resolved.
#[wasm_bindgen(js_name = checkAuth, unchecked_return_type = "Refusal | null")]
pub fn check_auth(
    #[wasm_bindgen(unchecked_param_type = "{ ok?: boolean; error?: string }")] result: JsValue,
) -> Result<JsValue, JsValue> {
    to_js(&tool::check_auth(&from_js(result)?))
}

/// The refusal for an unusable summarizer result (`aborted`, `error`, empty), or `null`.
#[wasm_bindgen(js_name = checkSummary, unchecked_return_type = "Refusal | null")]
pub fn check_summary(
    #[wasm_bindgen(unchecked_param_type = "{ summary?: string; aborted?: boolean; error?: string }")] result: JsValue,
) -> Result<JsValue, JsValue> {
    to_js(&tool::check_summary(&from_js(result)?))
}

/// The refusal for a summarizer that threw `message`.
#[wasm_bindgen(js_name = summaryError, unchecked_return_type = "Refusal")]
pub fn summary_error(message: &str) -> Result<JsValue, JsValue> {
    to_js(&tool::summary_error(message))
}

/// The error text for a step that failed after the tree moved (the chain was repaired first).
#[wasm_bindgen(js_name = salvageText)]
pub fn salvage_text(step: &str, error: &str) -> String {
    tool::salvage_text(step, error)
}
