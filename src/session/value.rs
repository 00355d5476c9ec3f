//! A JSON value as JavaScript sees it, read by serde without building it: strings as UTF-8 or WTF-8
//! ([`JsStr`]), any field whatever its type ([`Js`]), an object's fields or JavaScript's defaults
//! ([`Obj`]), and the lengths pi's estimates take of values
//! (`JSON.stringify(value).length`: [`StringifyLen`]; a system message's `sections`: [`SectionsLen`]).
//! The types of a line ([`super::wire`]) are built from these.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use crate::js;

/// A JSON string as JavaScript holds it: UTF-8, or WTF-8 when it has unpaired surrogates (which Rust
/// strings cannot hold and `JSON.parse` keeps).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum JsStr<'a> {
    /// Well-formed text (the norm).
    Utf8(Cow<'a, str>),
    /// Text with at least one unpaired surrogate, encoded as WTF-8 (3 bytes `ED A0..BF xx` each).
    Wtf8(Cow<'a, [u8]>),
}

impl<'a> JsStr<'a> {
    /// WTF-8 bytes from `serde_json`: kept as text when they are well-formed.
    fn from_bytes(bytes: Cow<'a, [u8]>) -> Self {
        match bytes {
            Cow::Borrowed(b) => std::str::from_utf8(b).map_or(JsStr::Wtf8(Cow::Borrowed(b)), |s| JsStr::Utf8(Cow::Borrowed(s))),
            Cow::Owned(b) => String::from_utf8(b).map_or_else(|e| JsStr::Wtf8(Cow::Owned(e.into_bytes())), |s| JsStr::Utf8(Cow::Owned(s))),
        }
    }

    /// The WTF-8 bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            JsStr::Utf8(s) => s.as_bytes(),
            JsStr::Wtf8(b) => b,
        }
    }

    /// `.length` in JavaScript (UTF-16 units; an unpaired surrogate is one).
    pub fn units(&self) -> usize {
        js::utf16_units(self.bytes())
    }

    /// `JSON.stringify(s).length` (quotes, escapes; an unpaired surrogate is written `\udxxx`).
    pub fn quoted_len(&self) -> usize {
        js::quoted_len(self.bytes())
    }

    /// The text, each unpaired surrogate shown as U+FFFD (borrowed when there is none).
    pub fn text(&self) -> Cow<'_, str> {
        match self {
            JsStr::Utf8(s) => Cow::Borrowed(s),
            JsStr::Wtf8(b) => Cow::Owned(js::wtf8_lossy(b)),
        }
    }

    /// Whether this is exactly `s`.
    pub fn is(&self, s: &str) -> bool {
        self.bytes() == s.as_bytes()
    }
}

/// A field as JavaScript sees it, whatever its type: scalars kept, arrays and objects only noted (their
/// content skipped). Missing fields are [`Js::Absent`] (`undefined`).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Js<'a> {
    /// Not there.
    #[default]
    Absent,
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number (±∞ for literals beyond the double range).
    Num(f64),
    /// A string.
    Str(JsStr<'a>),
    /// An array (content skipped).
    Arr,
    /// An object (content skipped).
    Obj,
}

impl<'a> Js<'a> {
    /// The string, if this is one.
    pub fn str(&self) -> Option<&JsStr<'a>> {
        match self {
            Js::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The string as text (unpaired surrogates as U+FFFD), if this is one.
    pub fn text(&self) -> Option<Cow<'_, str>> {
        self.str().map(JsStr::text)
    }

    /// `.length` of a string, 0 for anything else (what `estimateTokens` adds for a missing field).
    pub fn units(&self) -> usize {
        self.str().map_or(0, JsStr::units)
    }

    /// The number, if this is one.
    pub fn num(&self) -> Option<f64> {
        match self {
            Js::Num(x) => Some(*x),
            _ => None,
        }
    }

    /// JavaScript truthiness.
    pub fn truthy(&self) -> bool {
        match self {
            Js::Absent | Js::Null => false,
            Js::Bool(b) => *b,
            Js::Num(x) => *x != 0.0 && !x.is_nan(),
            Js::Str(s) => !s.bytes().is_empty(),
            Js::Arr | Js::Obj => true,
        }
    }
}

/// A type read from any JSON value: scalars arrive as a [`Js`]; arrays and objects are skipped unless the
/// type reads them. The one visitor ([`Via`]) serves every such type.
pub(super) trait FromJs<'de>: Sized {
    fn from_js<E: de::Error>(js: Js<'de>) -> Result<Self, E>;
    fn from_seq<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Self::from_js(Js::Arr)
    }
    fn from_map<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Self::from_js(Js::Obj)
    }
}

thread_local! {
    /// Set while a line is read again from its [`super::wire::Loose`] tree, written out as [`tagged`] text.
    static TAGGED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `read` on text written with [`tag_str`] and [`tag_infinity`]: its tagged strings are read back as
/// the string or number they stand for.
pub(super) fn tagged<R>(read: impl FnOnce() -> R) -> R {
    in_mode(&TAGGED, read)
}

/// Runs `read` with the reader's mode `flag` set, and clears it however the read ends (a mode of the one reader
/// rather than a second set of types: serde's code is generated per type, and the module's size is a budget).
pub(super) fn in_mode<R>(flag: &'static std::thread::LocalKey<std::cell::Cell<bool>>, read: impl FnOnce() -> R) -> R {
    /// Clears the flag however the read ends.
    struct Restore(&'static std::thread::LocalKey<std::cell::Cell<bool>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            self.0.set(false);
        }
    }
    flag.set(true);
    let _restore = Restore(flag);
    read()
}

/// The tag a string of [`tagged`] text starts with: U+0000 (a string that has it first is tagged too).
const TAG: u8 = 0;

/// Writes `s` as a tagged JSON string: its WTF-8 bytes in hex (what `serde_json` cannot read as text: an
/// unpaired surrogate, or a leading U+0000, which would read as a tag).
pub(super) fn tag_str(s: &JsStr<'_>, out: &mut Vec<u8>) {
    out.extend_from_slice(b"\"\\u0000S");
    for b in s.bytes() {
        out.push(b"0123456789abcdef"[usize::from(b >> 4)]);
        out.push(b"0123456789abcdef"[usize::from(b & 15)]);
    }
    out.push(b'"');
}

/// Writes ±∞ (a number `serde_json` cannot read) as a tagged JSON string.
pub(super) fn tag_infinity(x: f64, out: &mut Vec<u8>) {
    out.extend_from_slice(if x < 0.0 { b"\"\\u0000-\"" } else { b"\"\\u0000+\"" });
}

/// A string as read: itself, or while [`tagged`], what a tagged string stands for (the first byte is
/// checked first, so the direct pass pays one comparison).
fn string(s: JsStr<'_>) -> Js<'_> {
    if s.bytes().first() != Some(&TAG) || !TAGGED.get() {
        return Js::Str(s);
    }
    let hex = |c: u8| if c >= b'a' { c - b'a' + 10 } else { c - b'0' };
    match s.bytes().get(1) {
        Some(b'+') => Js::Num(f64::INFINITY),
        Some(b'-') => Js::Num(f64::NEG_INFINITY),
        _ => Js::Str(JsStr::from_bytes(Cow::Owned(s.bytes()[2..].chunks_exact(2).map(|p| hex(p[0]) << 4 | hex(p[1])).collect()))),
    }
}

/// The one visitor of every [`FromJs`] type.
pub(super) struct Via<T>(pub(super) PhantomData<T>);

/// Reads a [`FromJs`] type from whatever value comes.
pub(super) fn any<'de, D: Deserializer<'de>, T: FromJs<'de>>(d: D) -> Result<T, D::Error> {
    d.deserialize_any(Via(PhantomData))
}

impl<'de, T: FromJs<'de>> Visitor<'de> for Via<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<T, E> {
        T::from_js(Js::Null)
    }
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<T, E> {
        T::from_js(Js::Bool(b))
    }
    fn visit_i64<E: de::Error>(self, x: i64) -> Result<T, E> {
        T::from_js(Js::Num(x as f64))
    }
    fn visit_u64<E: de::Error>(self, x: u64) -> Result<T, E> {
        T::from_js(Js::Num(x as f64))
    }
    fn visit_f64<E: de::Error>(self, x: f64) -> Result<T, E> {
        T::from_js(Js::Num(x))
    }
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<T, E> {
        T::from_js(string(JsStr::Utf8(Cow::Borrowed(s))))
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<T, E> {
        T::from_js(string(JsStr::Utf8(Cow::Owned(s.to_owned()))))
    }
    fn visit_borrowed_bytes<E: de::Error>(self, b: &'de [u8]) -> Result<T, E> {
        T::from_js(string(JsStr::from_bytes(Cow::Borrowed(b))))
    }
    fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<T, E> {
        T::from_js(string(JsStr::from_bytes(Cow::Owned(b.to_vec()))))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<T, A::Error> {
        T::from_seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::from_map(map)
    }
}

impl<'de> FromJs<'de> for Js<'de> {
    fn from_js<E: de::Error>(js: Js<'de>) -> Result<Self, E> {
        Ok(js)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Js<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        any::<D, Js<'de>>(d)
    }
}

impl<'de> FromJs<'de> for JsStr<'de> {
    fn from_js<E: de::Error>(js: Js<'de>) -> Result<Self, E> {
        match js {
            Js::Str(s) => Ok(s),
            _ => Err(E::custom("expected a string")),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for JsStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(Via::<JsStr<'de>>(PhantomData))
    }
}

/// A field read as the struct `T` when it is an object; anything else is `T::default()` (what reading
/// fields of a non-object gives in JavaScript), with the value's truthiness kept.
#[derive(Debug, Clone, Default)]
pub struct Obj<T> {
    /// The object's fields (defaults when it is not an object).
    pub value: T,
    /// Whether the field was an object.
    pub is_object: bool,
    /// JavaScript truthiness of the field (every object is truthy).
    pub truthy: bool,
}

impl<'de, T: Deserialize<'de> + Default> FromJs<'de> for Obj<T> {
    fn from_js<E: de::Error>(js: Js<'de>) -> Result<Self, E> {
        Ok(Obj { value: T::default(), is_object: false, truthy: js.truthy() })
    }
    fn from_map<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        Ok(Obj { value: T::deserialize(MapAccessDeserializer::new(map))?, is_object: true, truthy: true })
    }
}

impl<'de, T: Deserialize<'de> + Default> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        any(d)
    }
}

/// A field few lines have, held out of line: the typed line a reader builds, moves and drops for every line
/// stays small, and only the lines that have the field pay for its room. `None` when the field is missing.
#[derive(Debug, Clone, Default)]
pub struct Rare<T>(pub Option<Box<T>>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Rare<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(d).map(|value| Rare(Some(Box::new(value))))
    }
}

/// `JSON.stringify(value).length` of a field, measured while serde reads it (nothing is kept); `None`
/// when the field is missing. Object keys count once, with their last value, as in JavaScript.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StringifyLen(pub Option<usize>);

impl<'de> Deserialize<'de> for StringifyLen {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        any(d).map(|Len(n)| StringifyLen(Some(n)))
    }
}

thread_local! {
    /// Set while a line is read for whoever reads tool calls and results as well ([`keeping_calls`]).
    static KEEP_CALLS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `read` with the tool calls' arguments kept as values ([`Arguments`]) and tool results' texts kept in a
/// line's facts when `keep` (for `crate::loops::waste`, which reads them of every entry as the index takes it:
/// one read of each line); otherwise as the index alone reads lines (nothing of them built).
pub fn keeping_calls<R>(keep: bool, read: impl FnOnce() -> R) -> R {
    /// Restores the mode however the read ends.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            KEEP_CALLS.set(self.0);
        }
    }
    let _restore = Restore(KEEP_CALLS.replace(keep));
    read()
}

/// Whether tool calls and results are being kept ([`keeping_calls`]).
pub fn keeps_calls() -> bool {
    KEEP_CALLS.get()
}

/// A tool call's `arguments`: `JSON.stringify(arguments).length`, measured as for [`StringifyLen`], and the
/// value itself while [`keeping_calls`], as `JSON.parse` reads it (one member per key, the last value;
/// numbers as JavaScript holds them; unpaired surrogates as U+FFFD), up to [`KEPT_DEPTH`] levels ([`Kept`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Arguments {
    /// `JSON.stringify(arguments).length`; `None` when missing.
    pub len: StringifyLen,
    /// The value, while calls are kept.
    pub value: Option<Box<serde_json::Value>>,
}

impl<'de> Deserialize<'de> for Arguments {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Kept::start(keeps_calls());
        let len = StringifyLen::deserialize(d);
        let value = Kept::start(false);
        Ok(Arguments { len: len?, value: value.map(Box::new) })
    }
}

/// A JavaScript number as a `serde_json::Value` prints it the way `JSON.stringify` does: a whole number
/// (within 2^53, not −0) as an integer, a non-finite one as `null`.
pub fn number_value(x: f64) -> serde_json::Value {
    if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 && (x != 0.0 || x.is_sign_positive()) {
        return serde_json::Value::from(x as i64);
    }
    serde_json::Number::from_f64(x).map_or(serde_json::Value::Null, serde_json::Value::Number)
}

/// What a system message's `sections` add to pi's `estimateTokens`: `section.length` of each truthy value
/// of the object (`Object.values`; a repeated key counts once, with its last value). A string counts its
/// UTF-16 length, an array its element count; other values (pi: `undefined` length, a NaN estimate) and a
/// `sections` that is not an object count 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SectionsLen(pub usize);

impl<'de> Deserialize<'de> for SectionsLen {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        any(d)
    }
}

impl<'de> FromJs<'de> for SectionsLen {
    fn from_js<E: de::Error>(_: Js<'de>) -> Result<Self, E> {
        Ok(SectionsLen(0))
    }
    fn from_map<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut values: Vec<usize> = Vec::new();
        let mut seen: HashMap<JsStr<'de>, usize> = HashMap::new();
        while let Some(Key(key)) = map.next_key()? {
            let SectionLen(len) = map.next_value()?;
            if let Some(&at) = seen.get(&key) {
                values[at] = len;
            } else {
                seen.insert(key, values.len());
                values.push(len);
            }
        }
        Ok(SectionsLen(values.iter().sum()))
    }
}

/// `.length` of one section value (see [`SectionsLen`]).
struct SectionLen(usize);

impl<'de> Deserialize<'de> for SectionLen {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        any(d)
    }
}

impl<'de> FromJs<'de> for SectionLen {
    fn from_js<E: de::Error>(js: Js<'de>) -> Result<Self, E> {
        Ok(SectionLen(js.units()))
    }
    fn from_seq<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        let mut items = 0;
        while seq.next_element::<IgnoredAny>()?.is_some() {
            items += 1;
        }
        Ok(SectionLen(items))
    }
}

/// What one JSON value adds to `JSON.stringify`'s output (while a tool call's arguments are kept, the value is
/// built on the way: [`Kept`]).
struct Len(usize);

/// `JSON.stringify`'s length of an array whose items add `items` (their count: `n`).
fn array_len(items: usize, n: usize) -> usize {
    2 + items + n.max(1) - 1
}

impl<'de> FromJs<'de> for Len {
    fn from_js<E: de::Error>(js: Js<'de>) -> Result<Self, E> {
        Kept::step(Step::Scalar(&js));
        Ok(Len(match js {
            Js::Bool(false) => 5,
            Js::Num(x) => js::number_json_len(x),
            Js::Str(s) => s.quoted_len(),
            _ => 4, // null, true
        }))
    }
    fn from_seq<A: SeqAccess<'de>>(mut seq: A) -> Result<Self, A::Error> {
        let (mut len, mut items) = (0, 0);
        let mark = Kept::step(Step::Open);
        while let Some(Len(item)) = seq.next_element()? {
            len += item;
            items += 1;
        }
        Kept::step(Step::Close(mark, false));
        Ok(Len(array_len(len, items)))
    }
    fn from_map<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        // Each key's `"key":value` length; a repeated key replaces its earlier value's length.
        let mut members: Vec<usize> = Vec::new();
        let mut seen: HashMap<JsStr<'de>, usize> = HashMap::new();
        let mark = Kept::step(Step::Open);
        // Keys as strings, which checks them as JSON.parse does (a key with an unpaired surrogate fails
        // here and is read by the `Loose` pass; read as bytes, a raw control character would pass).
        while let Some(key) = map.next_key::<JsStr<'de>>()? {
            Kept::step(Step::Key(&key));
            let Len(value) = map.next_value()?;
            let member = key.quoted_len() + 1 + value;
            if let Some(&at) = seen.get(&key) {
                members[at] = member;
            } else {
                seen.insert(key, members.len());
                members.push(member);
            }
        }
        Kept::step(Step::Close(mark, true));
        Ok(Len(array_len(members.iter().sum::<usize>(), members.len())))
    }
}

impl<'de> Deserialize<'de> for Len {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        any(d)
    }
}

/// Levels of a tool call's kept arguments built as a value ([`Kept`]); a value deeper is `null` — as far as
/// `serde_json` itself builds a value (the live rule reads arguments nested deeper as their text), and the
/// value's own recursive printing and dropping stay within the stack.
const KEPT_DEPTH: usize = 128;

/// The value of the arguments being read while kept, built as [`Len`] measures them, bottom up on a stack
/// (a builder beside the one reader rather than a second reader: serde's code is generated per reader and
/// value type, the module's size is a budget, and a reader's frames bound how deep a line may nest).
struct Kept {
    /// Building (inside [`Arguments`]' read while [`keeping_calls`]).
    on: bool,
    /// Containers open.
    open: usize,
    /// The values read and not yet put in their container; an object's keys before their values.
    stack: Vec<serde_json::Value>,
}

thread_local! {
    static KEPT: std::cell::RefCell<Kept> = const { std::cell::RefCell::new(Kept { on: false, open: 0, stack: Vec::new() }) };
}

/// One step of [`Kept`]'s building, as [`Len`] reads.
#[derive(Clone, Copy)]
enum Step<'s, 'a> {
    /// A scalar value.
    Scalar(&'s Js<'a>),
    /// An object's key.
    Key(&'s JsStr<'a>),
    /// A container starts.
    Open,
    /// A container ends: an object or an array, whose items start at the mark.
    Close(usize, bool),
}

impl Kept {
    /// Takes one step (one function for every step and reader: the module's size is a budget); returns the
    /// stack's length (an opening container's mark).
    #[inline(never)]
    fn step(step: Step<'_, '_>) -> usize {
        use serde_json::Value;
        KEPT.with_borrow_mut(|k| {
            if !k.on {
                return 0;
            }
            let value = match step {
                Step::Open => {
                    k.open += 1;
                    return k.stack.len();
                }
                // Keys of an object that is itself kept (its values are pushed one each).
                Step::Key(key) => {
                    if k.open <= KEPT_DEPTH {
                        k.stack.push(Value::String(key.text().into_owned()));
                    }
                    return 0;
                }
                Step::Scalar(js) => match js {
                    Js::Bool(b) => Value::Bool(*b),
                    Js::Num(x) => number_value(*x),
                    Js::Str(s) => Value::String(s.text().into_owned()),
                    _ => Value::Null,
                },
                Step::Close(mark, object) => {
                    k.open -= 1;
                    let items = k.stack.split_off(mark.min(k.stack.len()));
                    if object {
                        // Key/value pairs: a repeated key's last value.
                        let mut map = serde_json::Map::new();
                        let mut items = items.into_iter();
                        while let (Some(Value::String(key)), Some(value)) = (items.next(), items.next()) {
                            map.insert(key, value);
                        }
                        Value::Object(map)
                    } else {
                        Value::Array(items)
                    }
                }
            };
            // The value at the level being read: itself up to `KEPT_DEPTH`, `null` just past it, nothing deeper.
            if k.open < KEPT_DEPTH {
                k.stack.push(value);
            } else if k.open == KEPT_DEPTH {
                k.stack.push(Value::Null);
            }
            0
        })
    }

    /// Starts building (`keep`) or not, and returns what was built since.
    #[inline(never)]
    fn start(keep: bool) -> Option<serde_json::Value> {
        KEPT.with_borrow_mut(|k| std::mem::replace(k, Kept { on: keep, open: 0, stack: Vec::new() }).stack.pop())
    }
}

/// An object key read as bytes, so unpaired surrogates in keys are kept too.
pub(super) struct Key<'a>(pub(super) JsStr<'a>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_bytes(Via::<JsStr<'de>>(PhantomData)).map(Key)
    }
}
