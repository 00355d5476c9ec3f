//! Binding for the cache-preserving compaction (`crate::compaction`): convert, call the core, map errors.
//! No decisions here. The shim's objects cross as JSON values (`crate::compaction` reads their fields).

use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::error::{invalid, js_error};
use super::{leaf_of, to_js, SessionIndex};
use crate::compaction::{self, CompactionFacts, CompactionRange, CompactionReply, FileOps, PreviousCompaction, SummaryParts};
use crate::tool::SummaryCache;

/// `value` as a JSON value (`JSON.stringify`, then serde_json): `null` for `undefined` or what JSON has no form for.
pub(super) fn json(value: &JsValue) -> Value {
    let text = js_sys::JSON::stringify(value).ok().and_then(|t| t.as_string());
    text.and_then(|t| serde_json::from_str(&t).ok()).unwrap_or(Value::Null)
}

/// `value` as the previous compaction, or `None` for `null`/`undefined`.
fn previous(value: &JsValue) -> Option<PreviousCompaction> {
    Some(json(value)).filter(|v| !v.is_null()).map(|v| PreviousCompaction::from_json(&v))
}

/// The compaction's summary request: `{mode: "live-prefix"|"fallback", reason, maxTokens}`.
#[wasm_bindgen(js_name = compactionMode, unchecked_return_type = "CompactionMode")]
pub fn compaction_mode(#[wasm_bindgen(unchecked_param_type = "CompactionFacts")] facts: JsValue) -> Result<JsValue, JsValue> {
    to_js(&compaction::compaction_mode(&CompactionFacts::from_json(&json(&facts))))
}

/// The instruction appended to the replayed live request.
#[wasm_bindgen(js_name = compactionInstruction)]
pub fn compaction_instruction(#[wasm_bindgen(unchecked_param_type = "CompactionRange")] range: JsValue) -> String {
    compaction::compaction_instruction(&CompactionRange::from_json(&json(&range)))
}

/// What the reply means: `"summary"`, `"cancel"` or `"fallback"`. `stopReason`: pi-ai's (`null`: the
/// request threw); `text`: its text blocks joined; `toolCall`: it holds one; `aborted`: pi's signal was aborted.
#[wasm_bindgen(js_name = compactionReplyVerdict)]
pub fn compaction_reply_verdict(stop_reason: Option<String>, text: &str, tool_call: bool, aborted: bool) -> String {
    let reply = CompactionReply { stop_reason: stop_reason.as_deref(), text, tool_call, aborted };
    compaction::reply_verdict(&reply).name().into()
}

/// The lists to add to pi's `preparation.fileOps` before pi compacts on its own: `{read, written, edited}`.
#[wasm_bindgen(js_name = compactionCarriedFiles, unchecked_return_type = "{ read: string[]; written: string[]; edited: string[] }")]
pub fn compaction_carried_files(
    #[wasm_bindgen(unchecked_param_type = "PreviousCompaction | null | undefined")] prev: JsValue,
) -> Result<JsValue, JsValue> {
    #[derive(Serialize)]
    struct Out {
        read: Vec<String>,
        written: Vec<String>,
        edited: Vec<String>,
    }
    let FileOps { read, written, edited } = compaction::carried_files(previous(&prev).as_ref());
    to_js(&Out { read, written, edited })
}

/// The lines the user sees after a compaction: `[{text, level}]`.
#[wasm_bindgen(js_name = compactionNotices, unchecked_return_type = "Notice[]")]
pub fn compaction_notices(
    #[wasm_bindgen(unchecked_param_type = "SummaryCache")] outcome: JsValue,
    show_misses: bool,
) -> Result<JsValue, JsValue> {
    let outcome: SummaryCache = serde_wasm_bindgen::from_value(outcome).map_err(|e| invalid(&format!("outcome: {e}")))?;
    to_js(&compaction::compaction_notices(&outcome, show_misses))
}

#[wasm_bindgen]
impl SessionIndex {
    /// The ids of the entries a compaction at the current leaf that keeps from `firstKeptEntryId` removes from
    /// the context, oldest first (its ledger's span: hand them back as pi holds them to `compactionResult`).
    ///
    /// # Errors
    /// `Cycle` for a corrupt tree.
    #[wasm_bindgen(js_name = compactionSpan, unchecked_return_type = "string[]")]
    pub fn compaction_span(&mut self, first_kept_entry_id: &str) -> Result<JsValue, JsValue> {
        to_js(&self.inner.compaction_span(leaf_of(None), first_kept_entry_id).map_err(js_error)?)
    }

    /// The compaction pi stores, `{summary, details, ledgerTokens}`: the checkpoint from `parts`, the ledger of
    /// `entries` (the `compactionSpan` as pi holds them, `sm.getEntry(id)` each) under this index's host
    /// profile, pi's file lists from `ops` and the previous compaction.
    #[wasm_bindgen(js_name = compactionResult, unchecked_return_type = "CompactionResult")]
    pub fn compaction_result(
        &self,
        #[wasm_bindgen(unchecked_param_type = "unknown[]")] entries: js_sys::Array,
        #[wasm_bindgen(unchecked_param_type = "SummaryParts")] parts: JsValue,
        #[wasm_bindgen(unchecked_param_type = "FileOps")] ops: JsValue,
        #[wasm_bindgen(unchecked_param_type = "PreviousCompaction | null | undefined")] prev: JsValue,
    ) -> Result<JsValue, JsValue> {
        let parts = SummaryParts::from_json(&json(&parts));
        let ops = FileOps::from_json(&json(&ops));
        let span = super::tool::entry_texts(&entries);
        to_js(&compaction::compaction_result(&parts, &ops, previous(&prev).as_ref(), &span, self.inner.profile().0))
    }
}
