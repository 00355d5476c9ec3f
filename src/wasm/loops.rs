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

/// How many results' texts a detector keeps before it lets go of those it no longer holds.
const TEXTS_KEPT: usize = 64;

/// One session's loop detector (see `crate::loops`).
#[wasm_bindgen(js_name = LoopDetector)]
#[derive(Debug)]
pub struct LoopDetectorJs {
    inner: loops::LoopDetector,
    /// The loop `observe` found last, for `SessionIndex.loopMessage` (it stays here rather than crossing back).
    found: Option<loops::Loop>,
    /// The host's texts of the results the detector holds, by their keys (each result is numbered): two
    /// results are the same when their texts are (`===`), compared only when the same call came again — the
    /// text is not copied into the module to be digested at every result.
    texts: Vec<(u64, JsValue)>,
    /// The next result's key.
    next: u64,
    /// Where the shim writes each result's strings, so that they cross with the one call that reads them
    /// (wasm-bindgen's strings cost a call into the module each, to allocate: the loop hint runs for every
    /// result, cold, and those calls were most of its time).
    scratch: Vec<u8>,
}

/// The module's memory, where `LoopDetector.scratch` lies.
#[wasm_bindgen(js_name = moduleMemory, unchecked_return_type = "WebAssembly.Memory")]
pub fn module_memory() -> JsValue {
    wasm_bindgen::memory()
}

#[wasm_bindgen(js_class = LoopDetector)]
impl LoopDetectorJs {
    /// A detector for which `repeats` (2–20, the config's `loopHint`) make a loop.
    #[wasm_bindgen(constructor)]
    pub fn new(repeats: u8) -> LoopDetectorJs {
        LoopDetectorJs { inner: loops::LoopDetector::new(repeats), found: None, texts: Vec::new(), next: 0, scratch: Vec::new() }
    }

    /// How many UTF-16 units of a result's end `observe` wants as its tail.
    #[wasm_bindgen(js_name = tailUnits)]
    pub fn tail_units() -> u32 {
        loops::RESULT_TAIL_UNITS
    }

    /// The address in `moduleMemory()` of the buffer `observe` reads, at least `bytes` long (it moves when
    /// it grows: ask again for more).
    pub fn scratch(&mut self, bytes: usize) -> usize {
        if self.scratch.len() < bytes {
            self.scratch = vec![0; bytes];
        }
        self.scratch.as_ptr() as usize
    }

    /// A new run (a user message).
    pub fn reset(&mut self) {
        self.inner.reset();
        self.texts.clear();
    }

    /// One tool call and its result. Written one after another into `scratch` as UTF-8, their lengths in bytes
    /// given here: the call's id, the tool's name, its arguments as `JSON.stringify` writes them, and the
    /// last `tailUnits()` units of the result's text. `text` is the result's text (its parts joined by
    /// newlines), `units` its length. Whether this result completes a loop (once per loop): then
    /// `SessionIndex.loopMessage(this)`. Only the tail is read of every result; the whole text only when the
    /// result failed (its error line), or when its last line begins before the tail.
    #[allow(clippy::too_many_arguments, reason = "one crossing for each result: the host's values as they are")]
    pub fn observe(&mut self, id: usize, tool: usize, args: usize, tail: usize, #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue, units: u32, is_error: bool) -> bool {
        let scratch = std::mem::take(&mut self.scratch);
        let found = match written(&scratch, [id, tool, args, tail]) {
            Some([id, tool, args, tail]) => self.observe_strs(id, tool, args, tail, text, units, is_error),
            // Not what the shim writes: no step rather than a wrong one.
            _ => false,
        };
        self.scratch = scratch;
        found
    }
}

impl LoopDetectorJs {
    #[allow(clippy::too_many_arguments, reason = "`observe`'s values, read")]
    fn observe_strs(&mut self, id: &str, tool: &str, args: &str, tail: &str, text: JsValue, units: u32, is_error: bool) -> bool {
        let key = self.next;
        self.next += 1;
        let whole = units <= loops::RESULT_TAIL_UNITS;
        let result = ResultDigest::from_tail(key, is_error, tail, whole, || text.as_string().unwrap_or_default());
        self.texts.push((key, text));
        let texts = &self.texts;
        let text_of = |key: u64| texts.iter().find(|(k, _)| *k == key).map(|(_, t)| t);
        let step = self.inner.observe(CallDigest::of(id, tool, args), &result, &mut |a, b| a == b || text_of(a).zip(text_of(b)).is_some_and(|(a, b)| a == b));
        // Only the texts of the results still held, looked for now and then rather than at every result.
        if self.texts.len() >= TEXTS_KEPT {
            let inner = &self.inner;
            self.texts.retain(|(k, _)| inner.results_held().any(|held| held == *k));
        }
        match step {
            LoopStep::Found(found) => {
                self.found = Some(found);
                true
            }
            LoopStep::None | LoopStep::Repeat { .. } => false,
        }
    }
}

/// The strings of `lengths` (bytes), one after another at the start of `bytes`; `None` when they do not fit
/// or are not UTF-8.
fn written<const N: usize>(bytes: &[u8], lengths: [usize; N]) -> Option<[&str; N]> {
    let mut at: usize = 0;
    let mut out = [""; N];
    for (slot, len) in out.iter_mut().zip(lengths) {
        let end = at.checked_add(len)?;
        *slot = std::str::from_utf8(bytes.get(at..end)?).ok()?;
        at = end;
    }
    Some(out)
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
