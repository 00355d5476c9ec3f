//! The binding of a folder of sessions (`src/folder/`): the shim walks the folder and streams each file into
//! an index; each file ends into the [`Folder`], which says what the folder holds.

use wasm_bindgen::prelude::*;

use super::error::{invalid, js_error};
use super::{to_js, SessionIndex};

/// A folder of sessions being read, one file at a time.
#[wasm_bindgen]
#[derive(Debug, Default)]
pub struct Folder {
    inner: crate::folder::Folder,
}

#[wasm_bindgen]
impl Folder {
    /// An empty folder.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Folder {
        Folder::default()
    }

    /// A file that could not be read (`code`: its error's code, e.g. `EACCES`): listed with the reason, out of
    /// the totals.
    pub fn unreadable(&mut self, file: &str, code: &str) {
        self.inner.skip(file, crate::folder::unreadable(code));
    }

    /// Every session, the totals and the skipped files (`stats <folder> --json`).
    #[wasm_bindgen(unchecked_return_type = "FolderReport")]
    pub fn report(&self) -> Result<JsValue, JsValue> {
        to_js(&self.inner.report())
    }

    /// What `stats <folder>` prints (files relative to `root`).
    pub fn text(&self, root: &str) -> String {
        crate::folder::folder_text(&self.inner.report(), root)
    }
}

#[wasm_bindgen]
impl SessionIndex {
    /// Ends the load `beginFile` started as a file of `folder` (its absolute path `file`, `bytes` long): its row
    /// goes into the folder, or the file is listed as skipped with the reason. True when it is a session row
    /// (then `requestRows` may be asked).
    #[wasm_bindgen(js_name = endFileInto)]
    pub fn end_file_into(&mut self, folder: &mut Folder, file: &str, bytes: f64) -> Result<bool, JsValue> {
        let stream = self.stream.take().ok_or_else(|| invalid("endFileInto needs beginFile first"))?;
        let report = stream.finish(&mut self.inner);
        match crate::folder::read_session(&mut self.inner, file, bytes, &report) {
            Ok(row) => {
                folder.inner.add(row);
                Ok(true)
            }
            Err(reason) => {
                folder.inner.skip(file, reason);
                Ok(false)
            }
        }
    }

    /// The session's requests as JSON lines (`stats <folder> --rows`; `file`: the session's path).
    #[wasm_bindgen(js_name = requestRows)]
    pub fn request_rows(&mut self, file: &str) -> Result<String, JsValue> {
        let id = self.inner.header().and_then(|h| h.id.clone());
        crate::folder::request_rows(&mut self.inner, file, id.as_deref()).map_err(js_error)
    }
}
