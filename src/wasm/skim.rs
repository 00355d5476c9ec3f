//! `SessionSkim`: a whole session file read for `list` and `tokens` only (the CLI's fast path; see
//! `session::SkimmedSession`).

use wasm_bindgen::prelude::*;

use super::error::{invalid, js_error};
use super::{leaf_of, to_js};
use crate::session;

/// A session file read for its estimates: `listAnchors` and `estimate` give what a full `SessionIndex`
/// gives, reading in full only the lines they need (a few per anchor on a session with usage).
#[wasm_bindgen]
#[derive(Debug)]
pub struct SessionSkim {
    inner: session::SkimmedSession,
    problem: Option<String>,
}

#[wasm_bindgen]
impl SessionSkim {
    /// Reads a whole session file's bytes (`readFileSync(path)`), under the rules of pi `hostVersion`
    /// when given (else as the contents say). Throws on a version that names no pi.
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: Vec<u8>, host_version: Option<String>) -> Result<SessionSkim, JsValue> {
        let profile = match host_version {
            Some(v) => Some(session::Profile::for_version(&v).ok_or_else(|| invalid(&format!("not a pi version: {v}")))?),
            None => None,
        };
        let inner = session::SkimmedSession::load(bytes, profile);
        let problem = crate::file::not_a_session(inner.text().as_bytes(), inner.index(), inner.report());
        Ok(SessionSkim { inner, problem })
    }

    /// What the load did, and why the file is no pi session (`problem`, or `null`), as `loadFileBytes`.
    #[wasm_bindgen(unchecked_return_type = "FileReport")]
    pub fn report(&self) -> Result<JsValue, JsValue> {
        to_js(&crate::file::FileReport { report: self.inner.report().clone(), problem: self.problem.clone() })
    }

    /// Whether an entry has this id.
    #[wasm_bindgen(js_name = hasEntry)]
    pub fn has_entry(&self, id: &str) -> bool {
        self.inner.index().slot_of(id).is_some()
    }

    /// Moves the leaf (`null`: before the first entry), as `SessionIndex.setLeaf`.
    #[wasm_bindgen(js_name = setLeaf)]
    pub fn set_leaf(&mut self, id: Option<String>) -> Result<(), JsValue> {
        self.inner.set_leaf(id.as_deref()).map_err(js_error)
    }

    /// pi's context estimate with `leafId` (default: the current leaf) as leaf.
    #[wasm_bindgen(unchecked_return_type = "TokenEstimate")]
    pub fn estimate(&mut self, leaf_id: Option<String>) -> Result<JsValue, JsValue> {
        let est = self.inner.estimate(leaf_of(leaf_id.as_deref())).map_err(js_error)?;
        to_js(&est)
    }

    /// The anchors on the path and the estimate at the leaf, as `SessionIndex.listAnchors`.
    #[wasm_bindgen(js_name = listAnchors, unchecked_return_type = "AnchorList")]
    pub fn list_anchors(&mut self, leaf_id: Option<String>) -> Result<JsValue, JsValue> {
        let (anchors, estimate) = self.inner.anchors_and_estimate(leaf_of(leaf_id.as_deref())).map_err(js_error)?;
        to_js(&session::AnchorList { anchors, estimate })
    }
}
