//! A session line as serde reads it: typed structs that borrow from the line, and the thin shim that makes
//! `serde_json` read every line `JSON.parse` reads, the way JavaScript holds it.
//!
//! [`read`] takes almost every line in one borrowed pass ([`Entry`] and its parts; unknown fields are
//! skipped by serde, unknown types are kept by name). Four things `JSON.parse` accepts make that pass fail,
//! and each is met by `serde_json` itself, not by a parser of ours (one test each: `tests/wire.rs`):
//! - **unpaired surrogate escapes** (`"\ud83d"`): `serde_json` reads them when asked for bytes, as WTF-8
//!   ([`JsStr::Wtf8`]);
//! - **repeated keys** (serde's derive refuses them; `JSON.parse` keeps the last value at the first key's
//!   place): [`Loose`] objects keep one member per key that way;
//! - **numbers beyond the double range** (`1e400` is `Infinity` to JavaScript, an error to `serde_json`):
//!   [`Loose`] numbers `serde_json` refuses are ±∞;
//! - **nesting past `serde_json`'s 128 levels**: read again without the limit, up to [`MAX_LINE_NESTING`].
//!
//! For the first three the line is read into a [`Loose`] tree (one level per `serde_json` call, children
//! kept as [`RawValue`]s), written out as JSON text the direct pass reads as the same values (what it cannot
//! read, an unpaired surrogate or ±∞, as a tagged string: [`Loose::text`]), and read by it: one reader of
//! entries in the module (a second, from the tree, cost 24 kB of wasm).

use std::collections::HashMap;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess};
use serde::Deserialize;
use serde_json::value::RawValue;

pub use super::value::{keeping_calls, keeps_calls, number_value, Arguments, Js, JsStr, Obj, Rare, SectionsLen, StringifyLen};
use super::value::{any, in_mode, tag_infinity, tag_str, tagged, FromJs, Key, Via};

/// Deepest JSON nesting of a session line that is read; deeper lines are reported skips. `serde_json`
/// reads values recursively, so this bounds the stack a line may take: in the wasm module's 1 MB stack the
/// slowest path (a line with unpaired surrogates, read through [`Loose`]) overflows somewhere past 3,000
/// levels, the direct pass past 4,000. pi itself cannot write past about 1,700 levels (its own
/// `JSON.stringify` runs out of stack first; the e2e suite has it write 1,500), so every line pi writes is
/// read.
pub const MAX_LINE_NESTING: usize = 2_500;

/// Deepest nesting of a whole entry read by [`parse_value`] (viewer, CLI, search): a `serde_json::Value`
/// is built, printed and dropped recursively, with larger frames than the reader's, which in V8's stack
/// overflow somewhere past 2,000 levels. Deeper entries are an error there, never a trap (the index
/// still takes them: [`MAX_LINE_NESTING`]).
pub const MAX_VALUE_NESTING: usize = 1_800;

/// A `content` field: a string, an array of blocks, or anything else (which counts nothing).
#[derive(Debug, Clone, Default)]
pub enum Content<'a> {
    /// Missing, or neither a string nor an array.
    #[default]
    Other,
    /// A string.
    Str(JsStr<'a>),
    /// An array; items that are not objects are blocks without fields.
    Blocks(Vec<Block<'a>>),
}

impl<'de> FromJs<'de> for Content<'de> {
    fn from_js<E: de::Error>(js: Js<'de>) -> Result<Self, E> {
        Ok(match js {
            Js::Str(s) => Content::Str(s),
            _ => Content::Other,
        })
    }
    fn from_seq<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        let mut blocks = Vec::new();
        while let Some(block) = seq.next_element::<Obj<Block<'de>>>()? {
            blocks.push(block.value);
        }
        Ok(Content::Blocks(blocks))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if SKIMMING.get() {
            IgnoredAny::deserialize(d)?;
            return Ok(Content::Other);
        }
        any::<D, Content<'de>>(d)
    }
}

/// One block of a `content` array (fields of every block type this reader uses).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Block<'a> {
    /// `type`.
    #[serde(rename = "type", borrow)] pub ty: Js<'a>,
    /// `text` (text blocks).
    #[serde(borrow)] pub text: Js<'a>,
    /// `thinking` (thinking blocks).
    #[serde(borrow)] pub thinking: Js<'a>,
    /// `id` (tool calls).
    #[serde(borrow)] pub id: Js<'a>,
    /// `name` (tool calls).
    #[serde(borrow)] pub name: Js<'a>,
    /// `JSON.stringify(arguments).length` (tool calls), and the arguments while [`keeping_calls`].
    pub arguments: Arguments,
}

/// A `usage` object (an assistant's or tool result's, a `usage` entry's, a summary entry's): its counters
/// and their cost. The same struct reads the usage's `cost` (USD per counter, the same four names, and `total`)
/// and a summary entry's `details` (where this plugin keeps a summary's usage on a pi whose entries have no
/// `usage` field): each struct read is code per JSON reader in the module, and the three shapes share names.
/// (The fields only `usage` and summary entries have are read again from those few lines by name, not held
/// by [`Entry`]: each field of it is code in every reader of every line.)
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Usage<'a> {
    /// `input`.
    #[serde(borrow)] pub input: Js<'a>,
    /// `output`.
    #[serde(borrow)] pub output: Js<'a>,
    /// `cacheRead`.
    #[serde(borrow)] pub cache_read: Js<'a>,
    /// `cacheWrite`.
    #[serde(borrow)] pub cache_write: Js<'a>,
    /// `totalTokens`.
    #[serde(borrow)] pub total_tokens: Js<'a>,
    /// `cost` (a usage): what pi priced the counters at, in USD.
    #[serde(borrow)] pub cost: Rare<Obj<Usage<'a>>>,
    /// `total` (a usage's `cost`): the request's price.
    #[serde(borrow)] pub total: Js<'a>,
    /// `summaryUsage` (a summary entry's `details`): the summary request's usage.
    #[serde(borrow)] pub summary_usage: Rare<Obj<Usage<'a>>>,
}

/// The `message` of a `message` entry.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Message<'a> {
    /// `role`.
    #[serde(borrow)] pub role: Js<'a>,
    /// `content`.
    #[serde(borrow)] pub content: Content<'a>,
    /// `usage` (assistant; a tool result's, when a tool records one).
    #[serde(borrow)] pub usage: Obj<Usage<'a>>,
    /// `provider` (assistant): with `model`, whose counts and prices its usage holds.
    #[serde(borrow)] pub provider: Js<'a>,
    /// `model` (assistant).
    #[serde(borrow)] pub model: Js<'a>,
    /// `responseModel` (assistant: the model the provider says answered, when it differs).
    #[serde(borrow)] pub response_model: Js<'a>,
    /// `stopReason` (assistant).
    #[serde(borrow)] pub stop_reason: Js<'a>,
    /// `toolCallId` (toolResult): the call it answers.
    #[serde(borrow)] pub tool_call_id: Js<'a>,
    /// `isError` (toolResult).
    #[serde(borrow)] pub is_error: Js<'a>,
    /// `command` (bashExecution).
    #[serde(borrow)] pub command: Js<'a>,
    /// `output` (bashExecution).
    #[serde(borrow)] pub output: Js<'a>,
    /// `summary` (branchSummary, compactionSummary).
    #[serde(borrow)] pub summary: Js<'a>,
    /// `sections` (system, pi ≥0.87): what `estimateTokens` adds for them.
    pub sections: SectionsLen,
    /// `JSON.stringify(toolsAdded).length` (system, pi ≥0.87).
    pub tools_added: StringifyLen,
}

/// One line of a session file: the header or an entry, with the fields any entry type uses.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Entry<'a> {
    /// `type`.
    #[serde(rename = "type", borrow)] pub ty: Js<'a>,
    /// `id`.
    #[serde(borrow)] pub id: Js<'a>,
    /// `parentId`.
    #[serde(borrow)] pub parent_id: Js<'a>,
    /// `timestamp`.
    #[serde(borrow)] pub timestamp: Js<'a>,
    /// `message` (message entries).
    #[serde(borrow)] pub message: Obj<Message<'a>>,
    /// `content` (`custom_message`).
    #[serde(borrow)] pub content: Content<'a>,
    /// `summary` (`branch_summary`, `compaction`).
    #[serde(borrow)] pub summary: Js<'a>,
    /// `firstKeptEntryId` (`compaction`).
    #[serde(borrow)] pub first_kept_entry_id: Js<'a>,
    /// `targetId` (label, `context_edit`).
    #[serde(borrow)] pub target_id: Js<'a>,
    /// `systemMessage` (`compaction`, pi ≥0.87): the system message the compaction re-emits.
    #[serde(borrow)] pub system_message: Rare<Obj<Message<'a>>>,
    /// `replacement` (`context_edit`, pi ≥0.87): `{content}`, or `null` to omit the target; read as a
    /// message, of which only `content` is used.
    #[serde(borrow)] pub replacement: Rare<Obj<Message<'a>>>,
    /// `label` (label).
    #[serde(borrow)] pub label: Js<'a>,
    /// `version` (header).
    #[serde(borrow)] pub version: Js<'a>,
    /// `cwd` (header).
    #[serde(borrow)] pub cwd: Js<'a>,
}

thread_local! {
    /// Set while [`skim`] reads a line: a `content` is then skipped unread (see [`Content`]).
    static SKIMMING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// [`read`]'s direct pass with every `content` skipped unread (its syntax still checked) — what a line's
/// place and usage need, at a fraction of the cost — handing the [`Entry`] to `take`; `None` when that
/// pass refuses the line (repeated keys, unpaired surrogates, numbers beyond the double range, deep
/// nesting, …): [`read`] has the last word on those. (A mode of the one [`Entry`] reader rather than a
/// second set of types: serde's code is generated per type, and the module's size is a budget.)
pub fn skim<R>(line: &str, take: impl FnOnce(&Entry<'_>) -> R) -> Option<R> {
    let entry = in_mode(&SKIMMING, || serde_json::from_str::<Obj<Entry<'_>>>(line).ok().filter(|e| e.is_object));
    entry.map(|e| take(&e.value))
}

/// Why a line could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// Not JSON (`serde_json`'s message).
    Malformed(String),
    /// JSON, but not an object.
    NotAnObject,
    /// Nested this many levels, more than [`MAX_LINE_NESTING`].
    TooDeep(usize),
}

/// Reads one line and hands its [`Entry`] to `take` (borrowed from the line, or from the [`Loose`] tree
/// of a line the direct pass refused).
pub fn read<R>(line: &str, take: impl FnOnce(&Entry<'_>) -> R) -> Result<R, ReadError> {
    let direct = match serde_json::from_str::<Obj<Entry<'_>>>(line) {
        Err(e) if e.to_string().starts_with("recursion limit exceeded") => deep(line),
        other => other,
    };
    match direct {
        Ok(entry) if entry.is_object => Ok(take(&entry.value)),
        Ok(_) => Err(ReadError::NotAnObject),
        Err(_) => {
            let (tree, depth) = loose(line).map_err(ReadError::Malformed)?;
            match tree {
                _ if depth > MAX_LINE_NESTING => Err(ReadError::TooDeep(depth)),
                Some(tree @ Loose::Obj(_)) => {
                    // The tree written out and read by the direct pass (one reader of entries in the module:
                    // serde's code is generated per reader, and the module's size is a budget).
                    let text = tree.text();
                    let entry = tagged(|| unbounded::<Obj<Entry<'_>>>(&text)).map_err(|e| ReadError::Malformed(e.to_string()))?;
                    Ok(take(&entry.value))
                }
                _ => Err(ReadError::NotAnObject),
            }
        }
    }
}

/// The direct pass without `serde_json`'s recursion limit, for a line nested past 128 levels but not past
/// [`MAX_LINE_NESTING`] (checked first, so the recursion is bounded).
fn deep(line: &str) -> Result<Obj<Entry<'_>>, serde_json::Error> {
    if nesting_depth(line) > MAX_LINE_NESTING {
        // Fails the same way again; the caller then judges the line.
        return serde_json::from_str(line);
    }
    unbounded(line)
}

/// The direct pass without `serde_json`'s recursion limit (the caller bounds the nesting).
fn unbounded<'a, T: Deserialize<'a>>(line: &'a str) -> Result<T, serde_json::Error> {
    let mut reader = serde_json::Deserializer::from_str(line);
    reader.disable_recursion_limit();
    let entry = T::deserialize(&mut reader)?;
    reader.end()?;
    Ok(entry)
}

/// Any JSON text as `JSON.parse` reads it, as a [`Loose`] tree, with its nesting depth; the tree is built
/// only for an object within [`MAX_LINE_NESTING`]. Whether `JSON.parse` takes the text at all is
/// `serde_json`'s to say: skipping a value ([`RawValue`]) checks its syntax only (any escape, any number,
/// any depth, without recursion), which is exactly JSON's grammar.
pub(super) fn loose(text: &str) -> Result<(Option<Loose<'_>>, usize), String> {
    let mut reader = serde_json::Deserializer::from_str(text);
    reader.disable_recursion_limit();
    let raw = <&RawValue>::deserialize(&mut reader).and_then(|raw| reader.end().map(|()| raw)).map_err(|e| e.to_string())?;
    let depth = nesting_depth(raw.get());
    if depth > MAX_LINE_NESTING || !raw.get().starts_with('{') {
        return Ok((None, depth));
    }
    Loose::read(raw).map(|tree| (Some(tree), depth)).map_err(|e| e.to_string())
}

/// Deepest `[`/`{` nesting outside strings, to bound recursion before it starts (a count, not a parse:
/// the text is checked by `serde_json` before or after).
pub fn nesting_depth(text: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0, false, false);
    for &b in text.as_bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// A JSON value as `JSON.parse` gives it to JavaScript, built with `serde_json` one level at a time:
/// strings as WTF-8, numbers as `JSON.parse` reads them (±∞ beyond the range), one member per key
/// (the last value, at the first key's place).
#[derive(Debug, Clone, PartialEq)]
pub enum Loose<'a> {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number.
    Num(f64),
    /// A string.
    Str(JsStr<'a>),
    /// An array.
    Arr(Vec<Loose<'a>>),
    /// An object, one member per key.
    Obj(Vec<(JsStr<'a>, Loose<'a>)>),
}

/// An object's members as `serde_json` reads them: keys as WTF-8, values left raw.
struct Members<'a>(Vec<(JsStr<'a>, &'a RawValue)>);

/// The members of the JSON object `text`, in order (a repeated key once per occurrence).
pub(crate) fn members(text: &str) -> Result<Vec<(JsStr<'_>, &RawValue)>, serde_json::Error> {
    let mut reader = serde_json::Deserializer::from_str(text);
    any(&mut reader).map(|Members(members)| members)
}

impl<'de> FromJs<'de> for Members<'de> {
    fn from_js<E: de::Error>(_: Js<'de>) -> Result<Self, E> {
        Err(E::custom("expected an object"))
    }
    fn from_map<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut members = Vec::new();
        while let Some((Key(k), v)) = map.next_entry::<Key<'de>, &'de RawValue>()? {
            members.push((k, v));
        }
        Ok(Members(members))
    }
}

impl<'a> Loose<'a> {
    /// Reads `raw` (valid JSON) and everything in it.
    pub fn read(raw: &'a RawValue) -> Result<Loose<'a>, serde_json::Error> {
        let text = raw.get();
        let mut reader = serde_json::Deserializer::from_str(text);
        Ok(match text.as_bytes().first() {
            Some(b'"') => Loose::Str(reader.deserialize_bytes(Via(PhantomData))?),
            Some(b'[') => {
                let items: Vec<&'a RawValue> = Deserialize::deserialize(&mut reader)?;
                Loose::Arr(items.into_iter().map(Loose::read).collect::<Result<_, _>>()?)
            }
            Some(b'{') => {
                let Members(members) = any(&mut reader)?;
                let mut out: Vec<(JsStr<'a>, Loose<'a>)> = Vec::with_capacity(members.len());
                let mut at: HashMap<JsStr<'a>, usize> = HashMap::new();
                for (key, value) in members {
                    let value = Loose::read(value)?;
                    if let Some(&i) = at.get(&key) {
                        out[i].1 = value;
                    } else {
                        at.insert(key.clone(), out.len());
                        out.push((key, value));
                    }
                }
                Loose::Obj(out)
            }
            Some(b't') => Loose::Bool(true),
            Some(b'f') => Loose::Bool(false),
            Some(b'n') => Loose::Null,
            // A number literal, checked by the skip above: `serde_json` refuses only one beyond the double
            // range, which JavaScript reads as ±∞.
            _ => Loose::Num(serde_json::from_str(text).unwrap_or(if text.starts_with('-') { f64::NEG_INFINITY } else { f64::INFINITY })),
        })
    }

    /// The tree as JSON text that [`read`]'s direct pass reads, under [`tagged`], as the same values: one member
    /// per key already; each string as itself, or tagged ([`tag_str`]) when it has an unpaired surrogate or
    /// starts with U+0000; each number as its shortest text (read back exactly: `float_roundtrip`), ±∞ tagged.
    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Loose::Null => out.extend_from_slice(b"null"),
            Loose::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
            Loose::Num(x) if !x.is_finite() => tag_infinity(*x, out),
            // `-0.0`: ryu-js writes −0 as JavaScript does, `0`.
            Loose::Num(x) if *x == 0.0 => out.extend_from_slice(if x.is_sign_negative() { b"-0.0" } else { b"0" }),
            Loose::Num(x) => out.extend_from_slice(ryu_js::Buffer::new().format_finite(*x).as_bytes()),
            Loose::Str(s) => write_str(s, out),
            Loose::Arr(items) => {
                out.push(b'[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    item.write(out);
                }
                out.push(b']');
            }
            Loose::Obj(members) => {
                out.push(b'{');
                for (i, (key, value)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    write_str(key, out);
                    out.push(b':');
                    value.write(out);
                }
                out.push(b'}');
            }
        }
    }

    /// `JSON.stringify(value).length` ([`StringifyLen`], read from the tree's text).
    pub fn stringify_len(&self) -> usize {
        read_text::<StringifyLen>(&self.text()).map_or(0, |l| l.0.unwrap_or(0))
    }

    /// The tree as text [`read_text`] reads ([`Loose::write`]).
    pub fn text(&self) -> String {
        let mut text = Vec::new();
        self.write(&mut text);
        // Text throughout (strings are written from text, or tagged in hex); checked once.
        String::from_utf8(text).unwrap_or_default()
    }

    /// The value as a field reads it ([`Js`]: scalars kept, arrays and objects only noted).
    pub fn js(&self) -> Js<'_> {
        match self {
            Loose::Null => Js::Null,
            Loose::Bool(b) => Js::Bool(*b),
            Loose::Num(x) => Js::Num(*x),
            Loose::Str(s) => Js::Str(s.clone()),
            Loose::Arr(_) => Js::Arr,
            Loose::Obj(_) => Js::Obj,
        }
    }

    /// The value as a `serde_json::Value`: unpaired surrogates shown as U+FFFD, non-finite numbers as
    /// `null` (what `JSON.stringify` writes for them).
    pub fn to_value(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            Loose::Null => Value::Null,
            Loose::Bool(b) => Value::Bool(*b),
            // Integers as `serde_json` reads them from text (it keeps them as integers).
            Loose::Num(x) => number_value(*x),
            Loose::Str(s) => Value::String(s.text().into_owned()),
            Loose::Arr(items) => Value::Array(items.iter().map(Loose::to_value).collect()),
            // Inserted one by one (the last value of a key stays, as collecting would keep it): collecting
            // a map sorts its members with the stable sort, which the module carries nowhere else.
            Loose::Obj(members) => {
                let mut map = serde_json::Map::new();
                for (k, v) in members {
                    map.insert(k.text().into_owned(), v.to_value());
                }
                Value::Object(map)
            }
        }
    }
}

/// `T` read from [`Loose::text`] (by the direct pass, as the tree's values); `None` if it does not read.
pub fn read_text<'a, T: Deserialize<'a>>(text: &'a str) -> Option<T> {
    tagged(|| unbounded(text)).ok()
}

/// A string of [`Loose::write`]'s text: JSON-escaped, or tagged.
fn write_str(s: &JsStr<'_>, out: &mut Vec<u8>) {
    match s {
        JsStr::Utf8(text) if !text.starts_with('\0') => serde_json::to_writer(out, &**text).unwrap_or_default(),
        _ => tag_str(s, out),
    }
}

/// Any JSON text `JSON.parse` takes, as a `serde_json::Value` ([`Loose::to_value`] for what plain
/// `serde_json` refuses). The error is `serde_json`'s message.
pub fn parse_value(text: &str) -> Result<serde_json::Value, String> {
    if let Ok(value) = serde_json::from_str(text) {
        return Ok(value);
    }
    match loose(text)? {
        (_, depth) if depth > MAX_VALUE_NESTING => Err(format!("nested {depth} levels deep (more than {MAX_VALUE_NESTING} are not shown)")),
        (Some(tree), _) => Ok(tree.to_value()),
        (None, _) => serde_json::from_str(text).map_err(|e| e.to_string()),
    }
}
