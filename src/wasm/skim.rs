//! `listFileBytes`: what the CLI's `list` and `tokens` show of a whole session file, in one call
//! (`crate::file::list_file`) — and `FileBytes`, a file gathered in the module's memory as it is read.

use wasm_bindgen::prelude::*;

use super::error::{invalid, js_error};
use super::to_js;
use crate::session::{Leaf, Profile};

/// `listAnchors` and the load's report of a whole session file's bytes (a `Uint8Array`, or a [`FileBytes`],
/// left empty), as after `loadFileBytes`, reading only the contents the estimates count. `leafId`: omitted =
/// the last entry, `null` = before the first, an id = that entry (`list` is `null` when none has it).
/// `hostVersion`: that pi's rules.
///
/// # Errors
/// `InvalidArgument` for a `hostVersion` that names no pi version or `bytes` that are neither; `Cycle` for
/// a path that runs in a circle.
#[wasm_bindgen(js_name = listFileBytes, unchecked_return_type = "FileList")]
pub fn list_file_bytes(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array | FileBytes")] bytes: JsValue,
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
    let bytes = match FileBytes::take(&bytes) {
        Some(file) => file.bytes,
        None => bytes.dyn_into::<js_sys::Uint8Array>().map_err(|_| invalid("bytes: not a Uint8Array or FileBytes"))?.to_vec(),
    };
    to_js(&crate::file::list_file(bytes, profile, leaf).map_err(js_error)?)
}

/// A file's bytes gathered in the module's memory piece by piece as the caller reads the file (`new
/// FileBytes(size)`, then `push(piece)` per `readSync` into one small buffer), for [`list_file_bytes`]:
/// a large session is then never whole in a JavaScript buffer as well, whose fresh pages and whole-file
/// copy into the module cost more than reading it (the CLI's `list` on a 36.6 MB session: ~15 ms).
#[wasm_bindgen]
#[derive(Debug)]
pub struct FileBytes {
    bytes: Vec<u8>,
}

#[wasm_bindgen]
impl FileBytes {
    /// Empty, with room for `capacity` bytes (the file's size: then no piece moves what came before). Only
    /// a hint: room the module's memory cannot give is not reserved (the pieces then grow it as they come).
    #[wasm_bindgen(constructor)]
    pub fn new(capacity: usize) -> FileBytes {
        let mut bytes = Vec::new();
        // A failed reservation leaves the Vec empty and usable; it is no error of the caller's.
        let _ = bytes.try_reserve_exact(capacity);
        FileBytes { bytes }
    }

    /// Appends the next piece of the file.
    pub fn push(&mut self, piece: &[u8]) {
        self.bytes.extend_from_slice(piece);
    }

    /// The bytes of a `FileBytes` passed where a `Uint8Array` may be given too, taken out of it (the
    /// JavaScript object is spent).
    fn take(value: &JsValue) -> Option<FileBytes> {
        use wasm_bindgen::convert::TryFromJsValue;
        FileBytes::try_from_js_value(value.clone()).ok()
    }
}
