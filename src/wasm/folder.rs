//! The binding of a folder of sessions (`src/folder/`): the shim walks the folder and streams each file into an
//! index — in worker threads, each with its own instance — whose result (`endFileForFolder`) the folder's instance
//! is handed (`add`, `skip`), which then says what the folder holds.

use wasm_bindgen::prelude::*;

use super::error::{invalid, js_error};
use super::{to_js, SessionIndex};
use crate::folder::Member;

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

    /// The next session (a `FileResult`'s `member`, its fields one by one: no reader of the object in the module).
    #[allow(clippy::too_many_arguments, reason = "the fields of one Member, as wasm-bindgen passes them")]
    pub fn add(
        &mut self,
        file: String,
        id: Option<String>,
        parent_session: Option<String>,
        start: Option<String>,
        first_message: Option<String>,
        entries: usize,
        bytes: f64,
        usd: Option<f64>,
        saved: Option<f64>,
        requests: usize,
    ) {
        self.inner.add(Member { file, id, parent_session, start, first_message, entries, bytes, usd, saved, requests });
    }

    /// A file left out, with the reason a `FileResult` gave.
    pub fn skip(&mut self, file: &str, reason: String) {
        self.inner.skip(file, reason);
    }

    /// A file that could not be read (`code`: its error's code, e.g. `EACCES`): listed with the reason, out of
    /// the totals.
    pub fn unreadable(&mut self, file: &str, code: &str) {
        self.inner.skip(file, crate::folder::unreadable(code));
    }

    /// Every session (without its `cost`, which the file's result holds), the totals and the skipped files.
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
    /// Ends the load `beginFile` started as a file of a folder (its absolute path `file`, `bytes` long): the
    /// session's row and cost block, or why it is left out.
    #[wasm_bindgen(js_name = endFileForFolder, unchecked_return_type = "FileResult")]
    pub fn end_file_for_folder(&mut self, file: &str, bytes: f64) -> Result<JsValue, JsValue> {
        let stream = self.stream.take().ok_or_else(|| invalid("endFileForFolder needs beginFile first"))?;
        let report = stream.finish(&mut self.inner);
        to_js(&crate::folder::read_session(&mut self.inner, file, bytes, &report))
    }

    /// The session's requests as JSON lines (`stats <folder> --rows`; `file`: the session's path).
    #[wasm_bindgen(js_name = requestRows)]
    pub fn request_rows(&mut self, file: &str) -> Result<String, JsValue> {
        let id = self.inner.header().and_then(|h| h.id.clone());
        crate::folder::request_rows(&mut self.inner, file, id.as_deref()).map_err(js_error)
    }
}
