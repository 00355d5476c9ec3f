//! Binding for `navigate_tree` (`crate::tool`): convert, call the core, map errors. No decisions here.

use crate::prelude::*;
use js_sys::JSON;
use wasm_bindgen::prelude::*;

use super::error::{invalid, js_error};
use super::json_to_js as to_js;
use super::SessionIndex;
use crate::json::{self, Value};
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

/// How deep the JSON the shim hands over may nest: the same bound as session lines.
const MAX_DEPTH: usize = crate::session::entry::MAX_NESTING;

/// `JSON.stringify(value)` (`None` for what has no JSON text: `undefined`, functions, or a throw such
/// as a `BigInt` or a cycle).
fn json_text(value: &JsValue) -> Option<String> {
    JSON::stringify(value).ok().and_then(|s| s.as_string())
}

/// A JS value's JSON text (`InvalidArgument` when it has none). Text and parse are two plain functions,
/// not one generic over the reader, so the binding carries one copy of them and of their error paths.
fn js_text(value: &JsValue, what: &str) -> Result<String, JsValue> {
    json_text(value).ok_or_else(|| {
        let mut message = String::from(what);
        message.push_str(" cannot be serialised as JSON");
        invalid(&message)
    })
}

/// That text as the core's JSON value.
fn parse_js<'t>(text: &'t str, what: &str) -> Result<Value<'t>, JsValue> {
    json::parse(text, MAX_DEPTH).map_err(|e| {
        let mut message = String::from(what);
        message.push_str(": ");
        message.push_str(&e.message());
        invalid(&message)
    })
}

/// A host result checked by `check`: the refusal, or `null` when there is none.
fn refusal_js(result: &JsValue, check: fn(&Value<'_>) -> Option<tool::Refusal>) -> Result<JsValue, JsValue> {
    let text = js_text(result, "result")?;
    check(&parse_js(&text, "result")?).map_or(Ok(JsValue::NULL), |r| to_js(&r.to_json()))
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
    /// Arguments that cannot be read (nested deeper than session lines may be) are refused with a text
    /// that says so, like any other bad argument.
    ///
    /// # Errors
    /// `InvalidArgument` for facts of the wrong shape; `Cycle` for a corrupt tree.
    #[wasm_bindgen(js_name = toolPlan, unchecked_return_type = "ToolPlan")]
    pub fn tool_plan(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Record<string, unknown>")] params: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ToolFacts")] facts: JsValue,
    ) -> Result<JsValue, JsValue> {
        let facts_text = js_text(&facts, "facts")?;
        let facts = tool::Facts::from_value(&parse_js(&facts_text, "facts")?).map_err(js_error)?;
        let plan = match JSON::stringify(&params) {
            // `JSON.stringify` throws on what it cannot write (a cycle, a BigInt, nesting past its stack).
            Err(e) => tool::unreadable(&js_sys::Error::from(e).message().as_string().unwrap_or_else(|| "not JSON".into())),
            // `undefined` (no text) reads as no arguments.
            Ok(text) => match json::parse(&text.as_string().unwrap_or_else(|| "null".into()), MAX_DEPTH) {
                Ok(params) => tool::plan(&mut self.inner, &params, &facts).map_err(js_error)?,
                Err(e) => tool::unreadable(&e.message()),
            },
        };
        to_js(&plan)
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
        let text = js_text(&plan, "plan")?;
        to_js(&tool::finish(&mut self.inner, &parse_js(&text, "plan")?, summary_id, now_ms).map_err(js_error)?)
    }
}

/// `navigate_tree`'s definition: name, texts, JSON Schema parameters, execution mode.
#[wasm_bindgen(js_name = toolDefinition, unchecked_return_type = "ToolDefinition")]
pub fn tool_definition() -> Result<JsValue, JsValue> {
    to_js(tool::definition())
}

/// The refusal for a failed `getApiKeyAndHeaders` result, or `null` when it resolved.
#[wasm_bindgen(js_name = checkAuth, unchecked_return_type = "Refusal | null")]
pub fn check_auth(
    #[wasm_bindgen(unchecked_param_type = "{ ok?: boolean; error?: string }")] result: JsValue,
) -> Result<JsValue, JsValue> {
    refusal_js(&result, tool::check_auth)
}

/// The refusal for an unusable summarizer result (`aborted`, `error`, empty), or `null`. A summarizer that
/// threw is `{ error: message }`.
#[wasm_bindgen(js_name = checkSummary, unchecked_return_type = "Refusal | null")]
pub fn check_summary(
    #[wasm_bindgen(unchecked_param_type = "{ summary?: string; aborted?: boolean; error?: string }")] result: JsValue,
) -> Result<JsValue, JsValue> {
    refusal_js(&result, tool::check_summary)
}

/// The error text for a step that failed after the tree moved (the chain was repaired first).
#[wasm_bindgen(js_name = salvageText)]
pub fn salvage_text(step: &str, error: &str) -> String {
    tool::salvage_text(step, error)
}
