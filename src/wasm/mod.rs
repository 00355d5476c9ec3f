//! The wasm-bindgen binding: short methods that convert, call the core and map errors. No domain rules.
#![allow(clippy::needless_pass_by_value, reason = "wasm-bindgen hands arguments over as owned values")]

#[cfg(feature = "full")]
mod dto;
#[cfg(not(feature = "full"))]
mod alloc;
mod error;
#[cfg(feature = "full")]
pub mod full;
pub mod tool;

use js_sys::{Array, JsString, Uint8Array, JSON};
use wasm_bindgen::prelude::*;

use crate::session::{self, IngestReport, Leaf};
use crate::tool::out::{item, quote, JsonObject};
use error::js_error;

#[wasm_bindgen(typescript_custom_section)]
const TS_INGEST: &str = r#"
/** What one append call did. `line` is 1-based (for appendEntries: the position in the batch). */
export interface IngestReport { appended: number; skipped: { line: number; reason: string }[]; warnings: string[] }
"#;

/// JSON text the core wrote as a plain JS object: one `JSON.parse`. The plugin's results cross this way
/// (one small writer in the core instead of code generated per result type).
fn json_to_js(json: &str) -> Result<JsValue, JsValue> {
    JSON::parse(json)
}

/// An ingest report as the `IngestReport` object.
fn report_js(r: IngestReport) -> Result<JsValue, JsValue> {
    let mut text = String::new();
    let mut out = JsonObject::open(&mut text);
    out.num("appended", r.appended as f64);
    let skipped = out.key("skipped");
    skipped.push('[');
    for s in &r.skipped {
        let mut skip = JsonObject::open(item(skipped));
        skip.num("line", s.line as f64).str("reason", &s.reason);
        skip.close();
    }
    skipped.push(']');
    let warnings = out.key("warnings");
    warnings.push('[');
    for w in &r.warnings {
        quote(item(warnings), w);
    }
    warnings.push(']');
    out.close();
    json_to_js(&text)
}

/// A resident index of one pi session, kept in wasm memory and fed incrementally.
///
/// ```js
/// const index = SessionIndex.plugin();
/// index.appendJsonl(fileText);
/// index.anchors(); // [{ name, entryId, tokens, hint }]
/// ```
#[wasm_bindgen]
#[derive(Debug)]
pub struct SessionIndex {
    inner: session::SessionIndex,
}

/// A leaf argument: omitted or `null` = the index's current leaf (use `setLeaf(null)` for "before the
/// first entry"); a string = that id, where an unknown id falls back to the last entry as in pi.
#[cfg_attr(not(feature = "full"), allow(dead_code))]
fn leaf_of(id: Option<&str>) -> Leaf<'_> {
    id.map_or(Leaf::Current, Leaf::Id)
}

/// `null` (not `undefined`) for an absent string, as the TypeScript types promise.
fn nullable(value: Option<&str>) -> JsValue {
    value.map_or(JsValue::NULL, JsValue::from)
}

#[wasm_bindgen]
impl SessionIndex {
    /// An index for the pi plugin: per-entry facts only (ids, links, kinds, token counts, usage, short
    /// previews) — never a copy of the messages.
    pub fn plugin() -> SessionIndex {
        SessionIndex { inner: session::SessionIndex::new(session::Mode::Plugin) }
    }

    /// Feeds JSONL text (a whole file or an appended tail). Bad lines are skipped and reported.
    #[wasm_bindgen(js_name = appendJsonl, unchecked_return_type = "IngestReport")]
    pub fn append_jsonl(&mut self, #[wasm_bindgen(unchecked_param_type = "string")] text: &JsString) -> Result<JsValue, JsValue> {
        // Taken in pieces of 16K UTF-16 units, like `appendJsonlBytes`: a whole string would be copied in
        // at once (in a buffer of 3× its length) and stay in wasm memory's high-water mark.
        const PIECE: u32 = 16 << 10;
        let (total, mut at) = (text.length(), 0);
        let mut feed = session::ByteFeed::default();
        while at < total {
            let mut end = total.min(at + PIECE);
            // Never between the two halves of a surrogate pair (a high surrogate, 0xD800–0xDBFF, ends it).
            if end < total && (55296.0..56320.0).contains(&text.char_code_at(end - 1)) {
                end -= 1;
            }
            let piece = String::from(text.slice(at, end));
            feed.push(&mut self.inner, piece.as_bytes());
            at = end;
        }
        report_js(feed.finish(&mut self.inner))
    }

    /// `appendJsonl` from UTF-8 bytes (e.g. the new tail of a session file).
    #[wasm_bindgen(js_name = appendJsonlBytes, unchecked_return_type = "IngestReport")]
    pub fn append_jsonl_bytes(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: &Uint8Array,
    ) -> Result<JsValue, JsValue> {
        // Copied in 64 KB pieces (plus a line cut by a piece's end), never whole: wasm memory only grows,
        // so a file copied in at once would stay in its footprint for good.
        const PIECE: u32 = 64 << 10;
        let (total, mut at) = (bytes.length(), 0);
        let mut feed = session::ByteFeed::default();
        let mut piece = Vec::new();
        while at < total {
            let end = total.min(at + PIECE);
            piece.resize((end - at) as usize, 0);
            bytes.subarray(at, end).copy_to(&mut piece);
            feed.push(&mut self.inner, &piece);
            at = end;
        }
        report_js(feed.finish(&mut self.inner))
    }

    /// Feeds entries the host holds as objects (e.g. the new items of `sm.getEntries()`).
    #[wasm_bindgen(js_name = appendEntries, unchecked_return_type = "IngestReport")]
    pub fn append_entries(&mut self, #[wasm_bindgen(unchecked_param_type = "object[]")] entries: Array) -> Result<JsValue, JsValue> {
        let texts = entries.iter().map(|e| {
            JSON::stringify(&e).ok().and_then(|s| s.as_string()).ok_or_else(|| "entry cannot be serialised as JSON".to_string())
        });
        report_js(self.inner.append_entry_texts(texts))
    }

    /// Number of entries held (the header is not an entry).
    #[wasm_bindgen(getter, js_name = entryCount)]
    pub fn entry_count(&self) -> u32 {
        self.inner.len() as u32
    }

    /// Whether an entry with this id is held.
    #[wasm_bindgen(js_name = hasEntry)]
    pub fn has_entry(&self, id: &str) -> bool {
        self.inner.slot_of(id).is_some()
    }

    /// The current leaf id (`null` before the first entry). Defaults to the last appended entry.
    #[wasm_bindgen(js_name = leafId, unchecked_return_type = "string | null")]
    pub fn leaf_id(&self) -> JsValue {
        nullable(self.inner.leaf().map(|s| self.inner.id_of(s)))
    }

    /// Moves the leaf (`null` = before the first entry). Throws `UnknownEntry` for an unknown id.
    #[wasm_bindgen(js_name = setLeaf)]
    pub fn set_leaf(&mut self, id: Option<String>) -> Result<(), JsValue> {
        self.inner.set_leaf(id.as_deref()).map_err(js_error)
    }

}
