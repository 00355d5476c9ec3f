//! Binding for the guidance, pressure hint, start anchor, config and summary-cache decisions
//! (`crate::config`, `crate::guidance`): convert, call the core, map errors. No decisions here.

use wasm_bindgen::prelude::*;

use super::error::{invalid, js_error};
use super::{to_js, SessionIndex};
use crate::config::{self, LayerInput};
use crate::guidance::{self, CacheFacts, ContextUsage, PressureStep, StartAnchorFacts};
use crate::text::ANCHOR_PREFIX;

fn from_js<T: serde::de::DeserializeOwned>(value: JsValue, what: &str) -> Result<T, JsValue> {
    serde_wasm_bindgen::from_value(value).map_err(|e| invalid(&format!("{what}: {e}")))
}

/// Merges the two config layers: `{config, warnings}`.
#[wasm_bindgen(js_name = loadConfig, unchecked_return_type = "LoadedConfig")]
pub fn load_config(
    #[wasm_bindgen(unchecked_param_type = "LayerInput")] global: JsValue,
    #[wasm_bindgen(unchecked_param_type = "LayerInput")] project: JsValue,
) -> Result<JsValue, JsValue> {
    to_js(&config::load(&layer_from_js(global, "global")?, &layer_from_js(project, "project")?))
}

/// A config layer as the shim sends it, read as flat fields: deriving `Deserialize` for the internally
/// tagged [`LayerInput`] would bring serde's buffering deserializer (~21 KB) into the module for two
/// small objects.
#[derive(serde::Deserialize)]
struct LayerFields {
    state: String,
    path: Option<String>,
    text: Option<String>,
    error: Option<String>,
}

fn layer_from_js(value: JsValue, what: &str) -> Result<LayerInput, JsValue> {
    let LayerFields { state, path, text, error } = from_js(value, what)?;
    let field = |value: Option<String>, name: &str| value.ok_or_else(|| invalid(&format!("{what}: missing field `{name}`")));
    match state.as_str() {
        "missing" => Ok(LayerInput::Missing),
        "unreadable" => Ok(LayerInput::Unreadable { path: field(path, "path")?, error: field(error, "error")? }),
        "text" => Ok(LayerInput::Text { path: field(path, "path")?, text: field(text, "text")? }),
        other => Err(invalid(&format!("{what}: unknown state `{other}`, expected `missing`, `unreadable` or `text`"))),
    }
}

/// The sentence appended to the system prompt while the tool is active.
#[wasm_bindgen(js_name = systemGuidance)]
pub fn system_guidance() -> String {
    guidance::system_guidance()
}

/// The tool's `promptGuidelines`.
#[wasm_bindgen(js_name = toolGuidelines, unchecked_return_type = "string[]")]
pub fn tool_guidelines() -> Result<JsValue, JsValue> {
    to_js(&guidance::tool_guidelines())
}

/// The `customType` of the pressure hint message.
#[wasm_bindgen(js_name = pressureHintType)]
pub fn pressure_hint_type() -> String {
    guidance::PRESSURE_HINT_TYPE.into()
}

/// The summary request's mode: `{mode: "live-prefix"|"fallback", reason}`.
#[wasm_bindgen(js_name = cacheMode, unchecked_return_type = "CacheMode")]
pub fn cache_mode(#[wasm_bindgen(unchecked_param_type = "CacheFacts")] facts: JsValue) -> Result<JsValue, JsValue> {
    to_js(&guidance::cache_mode(&from_js::<CacheFacts>(facts, "facts")?))
}

/// The instruction appended to the replayed live prompt.
#[wasm_bindgen(js_name = cacheSummaryInstruction)]
pub fn cache_summary_instruction(first: u32, count: u32, focus: &str) -> String {
    guidance::cache_summary_instruction(first as usize, count as usize, focus)
}

/// Headers for a summary request (`null` values dropped; opencode session headers added, never
/// overwriting the credentials').
#[wasm_bindgen(js_name = summaryHeaders, unchecked_return_type = "Record<string, string>")]
pub fn summary_headers(
    provider: &str,
    #[wasm_bindgen(unchecked_param_type = "Record<string, string | null> | null | undefined")] headers: JsValue,
    session_id: &str,
) -> Result<JsValue, JsValue> {
    // Read as a JSON value (as the compaction's objects are), not through serde-wasm-bindgen: its reader of
    // `serde_json::Value` would be in the module for this one object (~9 kB).
    let headers = match (headers.is_null() || headers.is_undefined(), super::compaction::json(&headers)) {
        (true, _) => serde_json::Map::new(),
        (false, serde_json::Value::Object(headers)) => headers,
        (false, _) => return Err(invalid("headers: expected an object of header values")),
    };
    to_js(&guidance::summary_headers(provider, &headers, session_id))
}

/// One context-pressure tracker (one per session).
#[wasm_bindgen(js_name = PressureTracker)]
#[derive(Debug, Default)]
pub struct PressureTrackerJs {
    inner: guidance::PressureTracker,
}

#[wasm_bindgen(js_class = PressureTracker)]
impl PressureTrackerJs {
    /// A fresh, armed tracker.
    #[wasm_bindgen(constructor)]
    pub fn new() -> PressureTrackerJs {
        PressureTrackerJs::default()
    }

    /// One `ctx.getContextUsage()` reading (`null`/`undefined`: none) against the threshold `percent`
    /// (`null`: the hint is off). Returns `"idle"` or `"crossed"`.
    pub fn observe(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "ContextUsage | null | undefined")] usage: JsValue,
        percent: Option<u8>,
    ) -> Result<String, JsValue> {
        let usage: Option<ContextUsage> = if usage.is_null() || usage.is_undefined() { None } else { Some(from_js(usage, "usage")?) };
        let step = self.inner.observe(usage.as_ref(), percent, config::PI_RESERVE_TOKENS);
        Ok(match step {
            PressureStep::Idle => "idle",
            PressureStep::Crossed => "crossed",
        }
        .into())
    }

    /// Whether the host's own reading is needed this turn (see `observe`): only when `tokens` (the index's
    /// `currentTokens()`) could cross the threshold while armed, or re-arm it.
    #[wasm_bindgen(js_name = worthReading)]
    pub fn worth_reading(&self, tokens: f64, context_window: f64, percent: Option<u8>) -> bool {
        self.inner.worth_reading(tokens, context_window, percent, config::PI_RESERVE_TOKENS)
    }

    /// The hint or note was delivered.
    pub fn spend(&mut self) {
        self.inner.spend();
    }

    /// Whether the next crossing fires.
    #[wasm_bindgen(getter)]
    pub fn armed(&self) -> bool {
        self.inner.armed()
    }
}

#[wasm_bindgen]
impl SessionIndex {
    /// What a fresh crossing turns into at the current leaf: `{kind: "hint", text}` (anchors exist) or
    /// `{kind: "note", text}` (none: a UI note).
    #[wasm_bindgen(js_name = pressureMessage, unchecked_return_type = "PressureMessage")]
    pub fn pressure_message(&mut self, tokens: f64, context_window: f64) -> Result<JsValue, JsValue> {
        let anchors = crate::tool::anchor_savings(&mut self.inner).map_err(js_error)?;
        to_js(&guidance::pressure_message(tokens, context_window, &anchors))
    }

    /// The estimate's tokens at the current leaf (`estimate().tokens`), counted from the last usage it
    /// anchors on: per turn, a few entries whatever the session's size.
    #[wasm_bindgen(js_name = currentTokens)]
    pub fn current_tokens(&mut self) -> Result<f64, JsValue> {
        self.inner.leaf_tokens().map_err(js_error)
    }

    /// The start-anchor decision at the current leaf: `{step, entryId, label}` (`entryId`: the leaf, for
    /// `"write"`).
    #[wasm_bindgen(js_name = startAnchorStep, unchecked_return_type = "{ step: StartAnchorStep; entryId: string | null; label: string }")]
    pub fn start_anchor_step(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "StartAnchorFacts")] facts: JsValue,
        turn: Option<u8>,
    ) -> Result<JsValue, JsValue> {
        let facts: StartAnchorFacts = from_js(facts, "facts")?;
        let label = start_anchor_label();
        let leaf = self.inner.leaf();
        let exists = self.inner.find_label_on_path(&label, leaf).map_err(js_error)?.is_some();
        let leaf_id = leaf.map(|slot| self.inner.id_of(slot).to_string());
        let (step, entry_id) = guidance::start_anchor_decision(&facts, turn, exists, leaf_id);
        to_js(&StartAnchorOut { step, entry_id, label })
    }
}

/// Whether a resumed session file of `fileBytes` bytes is worth reading for the archive notice (`enabled`:
/// the config's `archiveNotice` and no env switch).
#[wasm_bindgen(js_name = archiveNoticeWanted)]
pub fn archive_notice_wanted(file_bytes: f64, enabled: bool) -> bool {
    crate::notice::wanted(file_bytes, enabled)
}

/// Whether a session file of `fileBytes` bytes of which `archive` would take `savedBytes` out gets the
/// archive notice (with an upper bound for `savedBytes`: whether measuring it exactly is worth it).
#[wasm_bindgen(js_name = archiveNoticeDue)]
pub fn archive_notice_due(file_bytes: f64, saved_bytes: f64) -> bool {
    crate::notice::due(file_bytes, saved_bytes)
}

/// The archive notice for the resumed session file `file` of `fileBytes` bytes, of which `archive` would
/// take `savedBytes` out, the CLI run by the words `cli` (`["node", "/…/cli.js"]`) — or `null` when it is
/// not due.
#[wasm_bindgen(js_name = archiveNotice)]
pub fn archive_notice(file_bytes: f64, saved_bytes: f64, file: String, cli: Vec<String>) -> Option<String> {
    crate::notice::archive_notice(&crate::notice::NoticeFacts { file_bytes, saved_bytes, file, cli })
}

/// Whether `archiveOnExit` archives a file of `fileBytes` bytes of which `archive` would take `savedBytes` out
/// (at least `minMb` MB and half of it; `savedBytes` = `fileBytes`: whether it is worth a look at all).
#[wasm_bindgen(js_name = exitArchiveDue)]
pub fn exit_archive_due(file_bytes: f64, saved_bytes: f64, min_mb: f64) -> bool {
    crate::notice::exit_archive_due(file_bytes, saved_bytes, min_mb)
}

/// A text of `/archive` and `archiveOnExit` for pi's UI: `what` is `quit`, `title`, `confirm` (with `report`,
/// `archive --dry-run`'s text), `measuring`, `no-ui` or `no-file` (any other: `no-file`'s); `file` the session's
/// path of `fileBytes` bytes, `log` the archiver's log file, `cli` the words that run the CLI.
#[wasm_bindgen(js_name = exitArchiveText)]
pub fn exit_archive_text(what: &str, file: String, file_bytes: f64, log: String, cli: Vec<String>, report: Option<String>) -> String {
    use crate::notice::ExitText;
    let what = match what {
        "quit" => ExitText::Quit,
        "title" => ExitText::Title,
        "confirm" => ExitText::Confirm(report.unwrap_or_default()),
        "measuring" => ExitText::Measuring,
        "no-ui" => ExitText::NoUi,
        _ => ExitText::NoFile,
    };
    crate::notice::exit_archive_text(&what, &crate::notice::ExitFacts { file, file_bytes, log, cli })
}

/// The label the start anchor writes (`anchor:start`); the shim asks the host whether it is on the active path.
#[wasm_bindgen(js_name = startAnchorLabel)]
pub fn start_anchor_label() -> String {
    format!("{ANCHOR_PREFIX}{}", guidance::START_ANCHOR)
}

/// The start-anchor decision from what the host says, without an index: `{step, entryId, label}` as
/// `SessionIndex.startAnchorStep` gives it. `onPath`: whether `startAnchorLabel()` is on an entry of the active
/// path; `leafId`: the host's leaf (`null`, or anything but a string: no entry to label).
///
/// # Errors
/// `InvalidArgument` for facts of the wrong shape.
#[wasm_bindgen(js_name = startAnchorStepOnPath, unchecked_return_type = "{ step: StartAnchorStep; entryId: string | null; label: string }")]
pub fn start_anchor_step_on_path(
    #[wasm_bindgen(unchecked_param_type = "StartAnchorFacts")] facts: JsValue,
    turn: Option<u8>,
    on_path: bool,
    #[wasm_bindgen(unchecked_param_type = "string | null")] leaf_id: JsValue,
) -> Result<JsValue, JsValue> {
    let facts: StartAnchorFacts = from_js(facts, "facts")?;
    let (step, entry_id) = guidance::start_anchor_decision(&facts, turn, on_path, leaf_id.as_string());
    to_js(&StartAnchorOut { step, entry_id, label: start_anchor_label() })
}

/// A start-anchor decision as it crosses: `{step, entryId, label}`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct StartAnchorOut {
    step: guidance::StartAnchorStep,
    entry_id: Option<String>,
    label: String,
}
