//! The JavaScript engine's own number conversions, imported for the plugin's wasm.
//!
//! The core reads and prints numbers exactly as JavaScript does. In the plugin build (wasm
//! without `full`) it answers the common cases itself and hands the rare general ones here, to the
//! engine pi itself runs on, instead of carrying an exact Rust implementation of them: see the seam in
//! `crate::json::num`. Each function is one JavaScript call; none can
//! throw for the arguments the core passes (valid JSON number literals, `digits` ≤ 100).

use crate::prelude::*;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `Number(literal)`: for a JSON number literal, the value `JSON.parse` gives.
    #[wasm_bindgen(js_name = Number)]
    pub(crate) fn parse(literal: &str) -> f64;

    /// `String(x)`.
    #[wasm_bindgen(js_name = String)]
    pub(crate) fn print(x: f64) -> String;

    /// `x.toFixed(digits)` (`Number.prototype.toFixed.call(x, digits)`), for `digits` ≤ 100.
    #[wasm_bindgen(js_namespace = ["Number", "prototype", "toFixed"], js_name = call)]
    pub(crate) fn to_fixed(x: f64, digits: u32) -> String;
}
