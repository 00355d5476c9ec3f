//! Core errors → real JavaScript `Error`s with a stable `code` (and `entryId` where there is one).

use js_sys::{Error, Reflect};
use wasm_bindgen::JsValue;

use crate::SessionError;

fn with_code(message: &str, code: &str, entry_id: Option<&str>) -> JsValue {
    let err = Error::new(message);
    // Setting plain data properties on a fresh Error cannot fail.
    let _ = Reflect::set(&err, &"code".into(), &code.into());
    if let Some(id) = entry_id {
        let _ = Reflect::set(&err, &"entryId".into(), &id.into());
    }
    err.into()
}

/// A core error as a JS `Error` with `code` and, when the error is about an entry, `entryId`.
pub(super) fn js_error(e: SessionError) -> JsValue {
    with_code(&e.to_string(), e.code(), e.entry_id())
}

/// A JS `Error` with code `InvalidArgument`.
pub(super) fn invalid(message: &str) -> JsValue {
    js_error(SessionError::InvalidArgument(message.into()))
}
