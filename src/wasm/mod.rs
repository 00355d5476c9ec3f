//! The wasm-bindgen binding: short methods that convert, call the core and map errors. No domain rules.
#![allow(clippy::needless_pass_by_value, reason = "wasm-bindgen hands arguments over as owned values")]

mod error;
pub mod full;
pub mod tool;
pub mod agent;
pub mod compaction;
pub mod skim;
pub mod archive;
pub mod cli_text;
pub mod resume;
pub mod cost;
pub mod loops;
pub mod folder;

use js_sys::{Array, JsString, Uint8Array, JSON};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::session::{self, IngestReport, Leaf};
use crate::tool::{RecallPlan, RewindPlan};
use error::{invalid, js_error};

// `buildContext` returns pi's own context object (`JSON.parse` of `contextJson`), which has no Rust type:
// written as JSON text by `session::context`, so its TypeScript shape is declared here.
#[wasm_bindgen(typescript_custom_section)]
const TS_CONTEXT: &str = r#"
/** A message as pi's buildSessionContext returns it (the stored message, or a custom/branch/compaction wrapper). */
export interface ContextMessage { role: string; [field: string]: unknown }
/** pi's buildSessionContext result. */
export interface SessionContext { messages: ContextMessage[]; thinkingLevel?: unknown; model: { provider?: unknown; modelId?: unknown } | null }
"#;

/// How many entries `appendEntries` stringifies and copies into wasm at a time (see there).
const ENTRIES_PER_SLICE: u32 = 64;

/// The one serializer every result crosses with: `null` for `None`, plain objects for maps and structs,
/// numbers as JavaScript numbers.
pub(crate) fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(|e| invalid(&e.to_string()))
}

/// Makes room in the module's memory for about `bytes` of allocations to come, in one step. Rust's
/// allocator on wasm32 (dlmalloc) grows the memory by what one request lacks — for the many small
/// allocations of a load, 64 KiB at a time — and every `memory.grow` costs the engine a new buffer and
/// garbage-collector work: ~1,600 grows took 1.2 of the 2.1 s of a first `loadFileBytes` of a 101 MB session
/// in Node 22 (docs/benchmarks.md, "Memory growth"). One block allocated and freed grows it once; the freed
/// block goes back to the allocator, which carves the load's allocations from it. When the memory cannot
/// grow that far, nothing is reserved (the load then grows it as it goes, or fails as it would have).
pub(crate) fn headroom(bytes: usize) {
    let mut block = Vec::<u8>::new();
    if block.try_reserve_exact(bytes).is_ok() {
        // Kept opaque so the allocation is not optimised away.
        std::hint::black_box(&block);
    }
}

/// About what an index of `mode` holds after loading a file of `len` bytes: a full index every entry's
/// text plus its facts; a plugin index the facts only (~9% of the file at 10k entries, docs/benchmarks.md row 5).
pub(crate) fn index_size(mode: session::Mode, len: usize) -> usize {
    match mode {
        session::Mode::Full => len.saturating_add(len / 4),
        session::Mode::Plugin => len / 8,
    }
}

/// An ingest report as the `IngestReport` object.
fn report_js(r: &IngestReport) -> Result<JsValue, JsValue> {
    to_js(r)
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
    /// The rewind [`Self::tool_plan`] planned last, until [`Self::rewind_finish`] completes it: the plan
    /// stays here rather than crossing back from JavaScript.
    pending: Option<RewindPlan>,
    /// The recall [`Self::tool_plan`] planned last, until [`Self::recall_page`] answers it.
    recall: Option<RecallPlan>,
    /// A file being loaded in parts (`beginFile` … `endFile`).
    stream: Option<crate::file::FileStream>,
    /// The entry of each row of the last `treeRowsJson` or `treeColumns`, for `rowText` and `pathRows`.
    row_slots: Vec<session::Slot>,
    /// What the loop rule needs of each entry, read as the index is fed (`collectLoops`).
    loop_steps: Option<std::rc::Rc<std::cell::RefCell<crate::loops::waste::Steps>>>,
}

/// A leaf argument: omitted or `null` = the index's current leaf (use `setLeaf(null)` for "before the
/// first entry"); a string = that id, where an unknown id falls back to the last entry as in pi.
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
        SessionIndex { inner: session::SessionIndex::new(session::Mode::Plugin), pending: None, recall: None, stream: None, row_slots: Vec::new(), loop_steps: None }
    }

    /// Feeds JSONL text (a whole file or an appended tail). Bad lines are skipped and reported.
    #[wasm_bindgen(js_name = appendJsonl, unchecked_return_type = "IngestReport")]
    pub fn append_jsonl(&mut self, #[wasm_bindgen(unchecked_param_type = "string")] text: &JsString) -> Result<JsValue, JsValue> {
        self.feed(Source::Text(text))
    }

    /// `appendJsonl` from UTF-8 bytes (e.g. the new tail of a session file).
    #[wasm_bindgen(js_name = appendJsonlBytes, unchecked_return_type = "IngestReport")]
    pub fn append_jsonl_bytes(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array")] bytes: &Uint8Array,
    ) -> Result<JsValue, JsValue> {
        self.feed(Source::Bytes(bytes))
    }

    /// Feeds entries the host holds as objects (e.g. the new items of `sm.getEntries()`): one
    /// `JSON.stringify` of the whole batch, one copy into wasm.
    #[wasm_bindgen(js_name = appendEntries, unchecked_return_type = "IngestReport")]
    pub fn append_entries(&mut self, #[wasm_bindgen(unchecked_param_type = "object[]")] entries: Array) -> Result<JsValue, JsValue> {
        // A tool call's few new entries cross as one JSON text. The first sync of a resumed session hands
        // over every entry: that goes in slices, because linear memory never shrinks and one text of the
        // whole session (plus its UTF-8 copy) would stay in the plugin's high-water mark for good.
        let mut report = IngestReport::default();
        let len = entries.length();
        let mut start = 0;
        while start < len {
            let end = len.min(start + ENTRIES_PER_SLICE);
            // `JSON.stringify` throws on what it cannot write (a cycle, a BigInt): then that slice and the
            // rest are not taken.
            let text = JSON::stringify(&entries.slice(start, end))
                .map_err(|e| invalid(&String::from(js_sys::Error::from(e).message())))?;
            let mut part = self.inner.append_entry_array(&String::from(text));
            for skip in &mut part.skipped {
                skip.line += start as usize; // positions count across the whole batch
            }
            report.merge(part);
            start = end;
        }
        report_js(&report)
    }

    /// Uses the estimation rules of this pi version for the entries fed from now on (call it before
    /// feeding) and stops inferring them from the session. Returns the profile's name; an unreadable
    /// version changes nothing and returns `undefined`.
    #[wasm_bindgen(js_name = setHostVersion)]
    pub fn set_host_version(&mut self, version: &str) -> Option<String> {
        let profile = session::Profile::for_version(version)?;
        self.inner.set_profile(profile);
        Some(profile.name().into())
    }

    /// The profile estimates use: `{name, source}`, source `"default"`, `"inferred"` (from the session's
    /// contents) or `"set"` (`setHostVersion`).
    #[wasm_bindgen(unchecked_return_type = "{ name: string; source: \"default\" | \"inferred\" | \"set\" }")]
    pub fn profile(&self) -> JsValue {
        let (profile, source) = self.inner.profile();
        let source = match source {
            session::ProfileSource::Default => "default",
            session::ProfileSource::Inferred => "inferred",
            session::ProfileSource::Set => "set",
        };
        let out = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&out, &"name".into(), &profile.name().into());
        let _ = js_sys::Reflect::set(&out, &"source".into(), &source.into());
        out.into()
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
    pub fn set_leaf(&mut self, id: Option<JsString>) -> Result<(), JsValue> {
        // A `JsString` read with `as_string` (one import): an `Option<String>` parameter brings
        // wasm-bindgen's generic slice conversion along. A value that is not a string reads as "" (no
        // entry's id in practice, so it throws rather than moving the leaf).
        self.inner.set_leaf(id.map(|id| id.as_string().unwrap_or_default()).as_deref()).map_err(js_error)
    }

    /// `appendEntries(entries)` (when there are any), then `setLeaf(leafId)`, in one call: what the shim
    /// does before every tool call, so keeping the index in step with the host is one crossing.
    #[wasm_bindgen(unchecked_return_type = "IngestReport")]
    pub fn sync(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "object[]")] entries: Array,
        leaf_id: Option<JsString>,
    ) -> Result<JsValue, JsValue> {
        let report = if entries.length() > 0 { self.append_entries(entries)? } else { report_js(&IngestReport::default())? };
        self.set_leaf(leaf_id)?;
        Ok(report)
    }

}

/// The input of a JSONL export.
enum Source<'a> {
    Text(&'a JsString),
    Bytes(&'a Uint8Array),
}

impl SessionIndex {
    /// The one ingest loop of both JSONL exports. The input is copied in piece by piece, never whole: wasm
    /// memory only grows, so a file copied in at once (a string in a buffer of 3× its length) would stay
    /// in its footprint for good. Only a line cut by a piece's end is carried over.
    fn feed(&mut self, source: Source<'_>) -> Result<JsValue, JsValue> {
        // 64 KB of bytes, or 16K UTF-16 units (at most 48 KB of UTF-8).
        let (total, size) = match source {
            Source::Text(text) => (text.length(), 16 << 10),
            Source::Bytes(bytes) => (bytes.length(), 64 << 10),
        };
        let mut feed = session::ByteFeed::default();
        let mut at = 0;
        while at < total {
            let mut end = total.min(at + size);
            let piece = match source {
                Source::Text(text) => {
                    // Never between the two halves of a surrogate pair (a high surrogate, 0xD800–0xDBFF).
                    if end < total && (55296.0..56320.0).contains(&text.char_code_at(end - 1)) {
                        end -= 1;
                    }
                    String::from(text.slice(at, end)).into_bytes()
                }
                // `to_vec` rather than `copy_to` into a reused buffer: the same one copy, without the
                // length assertion (and its message formatting) that `copy_to` carries.
                Source::Bytes(bytes) => bytes.subarray(at, end).to_vec(),
            };
            feed.push(&mut self.inner, &piece);
            at = end;
        }
        report_js(&feed.finish(&mut self.inner))
    }
}
