//! The binding of the cost model (`src/cost.rs`): what a session cost and what its summaries saved.

use wasm_bindgen::prelude::*;

use super::error::js_error;
use super::{to_js, SessionIndex};

#[wasm_bindgen]
impl SessionIndex {
    /// What the session cost (pi's totals, its breakdown and cache misses, the active path and the
    /// abandoned branches) and what each rewind and compaction on the active path saved. Both modes.
    #[wasm_bindgen(unchecked_return_type = "CostReport")]
    pub fn cost(&mut self) -> Result<JsValue, JsValue> {
        to_js(&crate::cost::session_cost(&mut self.inner).map_err(js_error)?)
    }
}
