//! Binding for the loop rule (`crate::loops`): the live detector, the hint, and every loop in a file.

use std::borrow::Cow;

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

/// A live result as the detector tells it from another: whether it failed, and the host's own text. Two
/// results are the same when their texts are, compared by the host (`===`) only when the same call came again:
/// the text is not copied into the module to be digested at every result.
#[derive(Debug, Clone)]
struct HostResult {
    failed: bool,
    text: JsValue,
}

impl PartialEq for HostResult {
    fn eq(&self, other: &Self) -> bool {
        self.failed == other.failed && self.text == other.text
    }
}

/// One session's loop detector (see `crate::loops`).
#[wasm_bindgen(js_name = LoopDetector)]
#[derive(Debug)]
pub struct LoopDetectorJs {
    inner: loops::LoopDetector<HostResult>,
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

    /// How many UTF-16 units of a result's end `observe` wants as its `tail`.
    #[wasm_bindgen(js_name = tailUnits)]
    pub fn tail_units() -> u32 {
        loops::RESULT_TAIL_UNITS
    }

    /// A new run (a user message).
    pub fn reset(&mut self) {
        self.inner.reset();
    }

    /// One tool call and its result: `arguments` as `JSON.stringify` writes them; `text` the result's text
    /// parts joined by newlines, `tail` its last `tailUnits()` units and `units` its length. Whether this
    /// result completes a loop (once per loop): then `SessionIndex.loopMessage(this)`. Only the tail is copied
    /// in for every result; the whole text only when the result failed (its error line), or when its last
    /// line begins before the tail.
    #[allow(clippy::too_many_arguments, reason = "one crossing for each result: the host's values as they are")]
    pub fn observe(&mut self, call_id: &str, tool: &str, arguments: &str, text: JsValue, tail: &str, units: u32, is_error: bool) -> bool {
        let whole = units <= loops::RESULT_TAIL_UNITS;
        let known = loops::failed_by_tail(is_error, tail, whole);
        let copied = match known {
            Some(false) => None,
            _ if whole => Some(Cow::Borrowed(tail)),
            _ => Some(Cow::Owned(text.as_string().unwrap_or_default())),
        };
        let failed = known.unwrap_or_else(|| loops::failed_by_tail(is_error, copied.as_deref().unwrap_or(""), true).unwrap_or(is_error));
        let result = ResultDigest::keyed(HostResult { failed, text }, copied.as_deref().filter(|_| failed));
        match self.inner.observe(CallDigest::of(call_id, tool, arguments), &result) {
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
