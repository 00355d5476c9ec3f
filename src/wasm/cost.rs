//! The binding of the cost model (`src/cost/`): what a session cost and what its summaries saved.

use wasm_bindgen::prelude::*;

use super::error::js_error;
use super::{leaf_of, to_js, SessionIndex};

#[wasm_bindgen]
impl SessionIndex {
    /// What the session cost (pi's totals, its breakdown and cache misses, the active path and the
    /// abandoned branches) and what each rewind and compaction on the active path saved. Both modes.
    #[wasm_bindgen(unchecked_return_type = "CostReport")]
    pub fn cost(&mut self) -> Result<JsValue, JsValue> {
        to_js(&crate::tool::session_cost(&mut self.inner).map_err(js_error)?)
    }

    /// The money spent along the path to `leafId` (default: the current leaf) up to each of its entries, root
    /// first (`pathEstimates`' positions): the viewer's cumulative-cost lens.
    #[wasm_bindgen(js_name = pathCosts)]
    pub fn path_costs(&mut self, leaf_id: Option<String>) -> Result<Vec<f64>, JsValue> {
        let slot = self.inner.resolve_leaf(leaf_of(leaf_id.as_deref()));
        let path = self.inner.path(slot).map_err(js_error)?;
        Ok(crate::cost::path_costs(&self.inner, &path))
    }

    /// What the usage entry `id` records cost (`null`: it records none; `usd` null without prices).
    #[wasm_bindgen(js_name = entryCost, unchecked_return_type = "EntryCost | null")]
    pub fn entry_cost(&self, id: &str, priced: bool) -> Result<JsValue, JsValue> {
        let slot = self.inner.slot_of(id);
        to_js(&slot.and_then(|s| crate::cost::entry_cost(&self.inner, s, priced)))
    }
}

/// An amount of USD as people read it (`$4.96`, `<$0.01`).
#[wasm_bindgen(js_name = formatUsd)]
pub fn format_usd(usd: f64) -> String {
    crate::text::format_usd(usd)
}
