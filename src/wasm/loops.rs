//! Binding for the loop rule (`crate::loops`): the live detector, the hint, and every loop in a file.

use wasm_bindgen::prelude::*;

use super::error::{invalid, js_error};
use super::{to_js, SessionIndex};
use crate::config::DEFAULT_LOOP_HINT;
use crate::loops::{self, waste, CallDigest, LoopStep, ResultDigest};

/// The `customType` of the loop hint message.
#[wasm_bindgen(js_name = loopHintType)]
pub fn loop_hint_type() -> String {
    crate::guidance::LOOP_HINT_TYPE.into()
}

/// One session's loop detector (see `crate::loops`).
#[wasm_bindgen(js_name = LoopDetector)]
#[derive(Debug)]
pub struct LoopDetectorJs {
    inner: loops::LoopDetector,
    /// The loop `observe` found last, for `SessionIndex.loopMessage` (it stays here rather than crossing back).
    found: Option<loops::Loop>,
}

#[wasm_bindgen(js_class = LoopDetector)]
impl LoopDetectorJs {
    /// A detector for which `repeats` (2–20, the config's `loopHint`) make a loop.
    #[wasm_bindgen(constructor)]
    pub fn new(repeats: u8) -> LoopDetectorJs {
        LoopDetectorJs { inner: loops::LoopDetector::new(repeats), found: None }
    }

    /// A new run (a user message).
    pub fn reset(&mut self) {
        self.inner.reset();
    }

    /// One tool call and its result: `arguments` as JSON text, `text` the result's text parts joined by
    /// newlines, as UTF-8 bytes (a `TextEncoder`'s: wasm-bindgen copies a string in character by character,
    /// bytes in one step). Whether this result completes a loop (once per loop): then
    /// `SessionIndex.loopMessage(this)`.
    pub fn observe(&mut self, call_id: &str, tool: &str, arguments: &str, text: &[u8], is_error: bool) -> bool {
        let text = String::from_utf8_lossy(text);
        match self.inner.observe(&CallDigest::of(call_id, tool, arguments), &ResultDigest::of(&text, is_error)) {
            LoopStep::Found(found) => {
                self.found = Some(found);
                true
            }
            LoopStep::None | LoopStep::Repeat { .. } => false,
        }
    }
}

#[wasm_bindgen]
impl SessionIndex {
    /// The loop hint for the loop `detector` found last, at the current leaf: `{text, headline, anchor, note}`.
    #[wasm_bindgen(js_name = loopMessage, unchecked_return_type = "LoopMessage")]
    pub fn loop_message(&mut self, detector: &LoopDetectorJs) -> Result<JsValue, JsValue> {
        let found = detector.found.as_ref().ok_or_else(|| invalid("loopMessage: the detector found no loop"))?;
        to_js(&loops::loop_message(&mut self.inner, found).map_err(js_error)?)
    }

    /// Reads what the loop rule needs of each entry (its tool calls' arguments, its result's text) in the same
    /// one read of each line that feeds the index from now on (call it before `beginFile` or `loadFile…`), for
    /// `wasteView`.
    #[wasm_bindgen(js_name = collectLoops)]
    pub fn collect_loops(&mut self) {
        self.loop_steps = Some(waste::Steps::collect(&mut self.inner));
    }

    /// Every loop in the session (every branch; `repeats` make one, default 3) with the lines the viewer shows
    /// and the lines `stats` prints: `{waste, summary, lines, text}`. Needs `collectLoops` before the index was
    /// fed.
    #[wasm_bindgen(js_name = wasteView, unchecked_return_type = "WasteView")]
    pub fn waste_view(&mut self, repeats: Option<u8>) -> Result<JsValue, JsValue> {
        to_js(&crate::cli_text::waste_view(self.loops(repeats)?))
    }
}

impl SessionIndex {
    fn loops(&mut self, repeats: Option<u8>) -> Result<waste::Waste, JsValue> {
        // (A full index keeps the texts it could be read from again, `waste::Steps::from_full`; the module reads
        // each line once instead, as it is fed.)
        let steps = self.loop_steps.as_ref().ok_or_else(|| invalid("waste needs collectLoops() before the index is fed"))?;
        waste::waste(&mut self.inner, &steps.borrow(), repeats.unwrap_or(DEFAULT_LOOP_HINT)).map_err(js_error)
    }
}
