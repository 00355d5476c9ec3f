//! Binding for a resumed session read from its file in parts (`crate::session::ChunkReader`, on worker
//! threads and on the main one) and taken into the plugin's index (`appendFacts`), kept only when it agrees
//! with the host's entries (`disagreement`).

use wasm_bindgen::prelude::*;

use super::error::{invalid, js_error};
use super::SessionIndex;
use crate::session::{self, Profile};

/// One part of a session file, cut at line starts, read into a facts stream (`push` whole lines, then `finish`).
#[wasm_bindgen(js_name = ChunkReader)]
#[derive(Debug)]
pub struct ChunkReaderJs {
    reader: Option<session::ChunkReader>,
    entries: u32,
    problem: Option<String>,
}

#[wasm_bindgen(js_class = ChunkReader)]
impl ChunkReaderJs {
    /// A reader for the file's first part (`first`) or a later one, under the rules of pi `hostVersion`.
    #[wasm_bindgen(constructor)]
    pub fn new(first: bool, host_version: &str) -> Result<ChunkReaderJs, JsValue> {
        let profile = Profile::for_version(host_version).ok_or_else(|| invalid("not a pi version"))?;
        Ok(ChunkReaderJs { reader: Some(session::ChunkReader::new(first, profile)), entries: 0, problem: None })
    }

    /// The next whole lines of the part.
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), JsValue> {
        self.reader.as_mut().ok_or_else(|| invalid("push after finish"))?.push(bytes);
        Ok(())
    }

    /// The part's facts stream (`last`: the part ends the file).
    pub fn finish(&mut self, last: bool) -> Result<Vec<u8>, JsValue> {
        let chunk = self.reader.take().ok_or_else(|| invalid("finish twice"))?.finish(last);
        self.entries = chunk.entries as u32;
        self.problem = chunk.problem;
        Ok(chunk.facts)
    }

    /// Entries in the stream `finish` gave.
    #[wasm_bindgen(getter)]
    pub fn entries(&self) -> u32 {
        self.entries
    }

    /// Why the part cannot stand for its lines (after `finish`), or `null`.
    #[wasm_bindgen(getter)]
    pub fn problem(&self) -> Option<String> {
        self.problem.clone()
    }
}

#[wasm_bindgen]
impl SessionIndex {
    /// Takes the entries of a `ChunkReader`'s stream (the parts in file order); returns how many.
    ///
    /// # Errors
    /// `InvalidArgument` for a full index or a stream that is none.
    #[wasm_bindgen(js_name = appendFacts)]
    pub fn append_facts(&mut self, facts: &[u8]) -> Result<u32, JsValue> {
        self.inner.append_facts(facts).map(|n| n as u32).map_err(js_error)
    }

    /// Where this index and the host's entries (`id, parentId, type` of each in turn) differ, or `null`.
    #[wasm_bindgen(unchecked_return_type = "string | null")]
    pub fn disagreement(&self, #[wasm_bindgen(unchecked_param_type = "Array<string | null | undefined>")] host: &js_sys::Array) -> JsValue {
        let value = |i: u32| host.get(i);
        let entries: Vec<session::HostEntry> = (0..host.length() / 3)
            .map(|e| {
                let parent = value(3 * e + 1);
                session::HostEntry {
                    id: value(3 * e).as_string(),
                    parent: match parent.as_string() {
                        Some(p) => session::HostParent::Id(p),
                        None if parent.is_null() || parent.is_undefined() => session::HostParent::Root,
                        None => session::HostParent::NotAString,
                    },
                    ty: value(3 * e + 2).as_string(),
                }
            })
            .collect();
        self.inner.disagreement(&entries).map_or(JsValue::NULL, JsValue::from)
    }
}
