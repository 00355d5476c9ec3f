//! `listFileBytes`: what the CLI's `list` and `tokens` show of a whole session file, in one call
//! (`crate::file::list_file`).

use wasm_bindgen::prelude::*;

use super::error::{invalid, js_error};
use super::to_js;
use crate::session::{Leaf, Profile};

/// The anchors and the estimate at the leaf of a whole session file's bytes (`readFileSync(path)`), as
/// `SessionIndex.listAnchors` gives them after `loadFileBytes`, with the load's report — reading in full
/// only the message contents the estimates count (a few per anchor on a session with usage). `leafId`:
/// omitted = the last entry, `null` = before the first entry, an id = that entry (`list` is `null` when no
/// entry has it). `hostVersion`: estimate with that pi's rules (else as the contents say).
///
/// # Errors
/// `InvalidArgument` for a `hostVersion` that names no pi version; `Cycle` for a path that runs in a circle.
#[wasm_bindgen(js_name = listFileBytes, unchecked_return_type = "FileList")]
pub fn list_file_bytes(
    bytes: Vec<u8>,
    #[wasm_bindgen(unchecked_param_type = "string | null | undefined")] leaf_id: JsValue,
    host_version: Option<String>,
) -> Result<JsValue, JsValue> {
    let profile = match host_version {
        Some(v) => Some(Profile::for_version(&v).ok_or_else(|| invalid(&format!("not a pi version: {v}")))?),
        None => None,
    };
    let id = leaf_id.as_string();
    let leaf = match &id {
        Some(id) => Leaf::Id(id),
        None if leaf_id.is_null() => Leaf::Null,
        None => Leaf::Current,
    };
    to_js(&crate::file::list_file(bytes, profile, leaf).map_err(js_error)?)
}
