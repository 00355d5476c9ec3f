//! Binding for a resumed session read from its file in parts (`crate::session::ChunkReader`, on worker
//! threads and on the main one) and taken into the plugin's index (`appendFacts`), kept only when it agrees
//! with the host's entries (`disagreement`); and the start anchor decided from what the host says of the
//! active path, before any index exists.

use wasm_bindgen::prelude::*;

use super::agent::from_js;
use super::error::{invalid, js_error};
use super::{to_js, SessionIndex};
use crate::guidance::{self, StartAnchorFacts};
use crate::session::{self, Profile};
use crate::text::ANCHOR_PREFIX;

/// One part of a session file, cut at line starts, read into a facts stream.
///
/// ```js
/// const reader = new ChunkReader(first, "1.6.0");
/// reader.push(bytes);            // whole lines (the file's last piece may lack its newline)
/// const { facts, entries, problem } = reader.finish(last);
/// ```
#[wasm_bindgen(js_name = ChunkReader)]
#[derive(Debug)]
pub struct ChunkReaderJs {
    inner: Option<session::ChunkReader>,
}

#[wasm_bindgen(js_class = ChunkReader)]
impl ChunkReaderJs {
    /// A reader for the file's first part (`first`) or a later one, under the rules of pi `hostVersion`.
    ///
    /// # Errors
    /// `InvalidArgument` for a version that names no pi version.
    #[wasm_bindgen(constructor)]
    pub fn new(first: bool, host_version: &str) -> Result<ChunkReaderJs, JsValue> {
        let profile = Profile::for_version(host_version).ok_or_else(|| invalid(&format!("not a pi version: {host_version}")))?;
        Ok(ChunkReaderJs { inner: Some(session::ChunkReader::new(first, profile)) })
    }

    /// The next whole lines of the part.
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        self.inner.as_mut().ok_or_else(|| invalid("push after finish"))?.push(bytes);
        Ok(())
    }

    /// The part's facts stream: `{facts: Uint8Array, entries, problem}` (`last`: the part ends the file;
    /// `problem`: why the part cannot stand for its lines, or `null`).
    #[wasm_bindgen(unchecked_return_type = "{ facts: Uint8Array; entries: number; problem: string | null }")]
    pub fn finish(&mut self, last: bool) -> Result<JsValue, JsValue> {
        let chunk = self.inner.take().ok_or_else(|| invalid("finish twice"))?.finish(last);
        let out = js_sys::Object::new();
        let facts = js_sys::Uint8Array::from(chunk.facts.as_slice());
        let problem = chunk.problem.map_or(JsValue::NULL, JsValue::from);
        for (key, value) in [("facts", facts.into()), ("entries", JsValue::from(chunk.entries as u32)), ("problem", problem)] {
            let _ = js_sys::Reflect::set(&out, &key.into(), &value);
        }
        Ok(out.into())
    }
}

#[wasm_bindgen]
impl SessionIndex {
    /// Takes the entries of a facts stream (`ChunkReader.finish().facts`; streams of a file's parts in file
    /// order give what the whole file gives). Returns how many were taken.
    ///
    /// # Errors
    /// `InvalidArgument` for a full index or a stream that is none.
    #[wasm_bindgen(js_name = appendFacts)]
    pub fn append_facts(&mut self, facts: &[u8]) -> Result<u32, JsValue> {
        self.inner.append_facts(facts).map(|n| n as u32).map_err(js_error)
    }

    /// Where this index and the host's entries differ, in words (`null` when they agree): `host` is the JSON
    /// text of `[id, parentId, type]` per host entry, in order.
    #[wasm_bindgen(unchecked_return_type = "string | null")]
    pub fn disagreement(&self, host: &str) -> JsValue {
        self.inner.disagreement(host).map_or(JsValue::NULL, JsValue::from)
    }
}

/// The start-anchor decision from what the host says of the active path, without an index:
/// `{step, entryId, label}` as `SessionIndex.startAnchorStep` gives it. `pathLabels`: the labels on the
/// entries of the active path (any order; what is no string is no label); `leafId`: the host's leaf (`null`,
/// or anything but a string: no entry to label).
///
/// # Errors
/// `InvalidArgument` for facts of the wrong shape.
#[wasm_bindgen(js_name = startAnchorStepOnPath, unchecked_return_type = "{ step: StartAnchorStep; entryId: string | null; label: string }")]
pub fn start_anchor_step_on_path(
    #[wasm_bindgen(unchecked_param_type = "StartAnchorFacts")] facts: JsValue,
    turn: Option<u8>,
    #[wasm_bindgen(unchecked_param_type = "string[]")] path_labels: &js_sys::Array,
    #[wasm_bindgen(unchecked_param_type = "string | null")] leaf_id: JsValue,
) -> Result<JsValue, JsValue> {
    let facts: StartAnchorFacts = from_js(facts, "facts")?;
    let label = format!("{ANCHOR_PREFIX}{}", guidance::START_ANCHOR);
    let exists = path_labels.iter().any(|l| l.as_string().as_deref() == Some(label.as_str()));
    let (step, entry_id) = guidance::start_anchor_decision(&facts, turn, exists, leaf_id.as_string());
    to_js(&StartAnchorOut { step, entry_id, label })
}

/// A start-anchor decision as it crosses: `{step, entryId, label}`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct StartAnchorOut {
    pub(super) step: guidance::StartAnchorStep,
    pub(super) entry_id: Option<String>,
    pub(super) label: String,
}
