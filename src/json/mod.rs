//! JSON with JavaScript's semantics, small and without serde.
//!
//! pi writes its sessions with `JSON.stringify` and reads them with `JSON.parse`, and the core measures
//! what JavaScript would measure (`.length` in UTF-16 units, `JSON.stringify(x).length`). This module
//! reads exactly what `JSON.parse` accepts ([`parse`]), keeps strings undecoded so measuring them is a
//! scan ([`Str`]), measures ([`stringify_len`]) and writes ([`Value::to_json`]) exactly what
//! `JSON.stringify` would produce, and prints numbers the JavaScript way ([`num`]) without pulling in
//! `core::fmt`'s float formatting, which is what keeps it small in the wasm build.
//!
//! ```
//! use pi_tree_navigator::{json, obj};
//! let v = json::parse(r#"{"id":"a","id":"\u0062","n":1e21}"#, 100).unwrap();
//! assert_eq!(v.get("id").and_then(|id| id.as_str()).as_deref(), Some("b")); // the last duplicate wins
//! assert_eq!(json::stringify_len(&v), r#"{"id":"b","n":1e+21}"#.len());
//! let out = obj! { "ok" => true, "tokens" => 12.5, "label" => None::<String> };
//! assert_eq!(out.to_json(), r#"{"ok":true,"tokens":12.5,"label":null}"#);
//! ```

use crate::prelude::*;
pub mod num;
mod parse;
mod str;
mod write;

use alloc::borrow::Cow;

pub use parse::{parse, Error, ErrorKind};
pub use str::Str;
pub use write::stringify_len;
/// `vec!` for [`obj!`]'s expansion, reachable as `$crate::json::__vec` with or without std.
#[doc(hidden)]
pub use alloc::vec as __vec;

/// A JSON value as `JSON.parse` would give it to JavaScript; read values borrow from their text.
///
/// Objects keep their members in order, duplicates included; lookups and output follow JavaScript,
/// where the last duplicate wins.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Num(Num<'a>),
    /// A string.
    Str(Str<'a>),
    /// An array.
    Arr(Vec<Value<'a>>),
    /// An object: members in order, duplicate keys kept.
    Obj(Vec<(Str<'a>, Value<'a>)>),
}

/// A JSON number: its literal when it was read (its value is worked out when asked: most numbers in a
/// session line are never asked for), or its value when it was built.
#[derive(Debug, Clone, Copy)]
pub struct Num<'a> {
    literal: Option<&'a str>,
    value: f64,
}

impl<'a> Num<'a> {
    /// A number read from JSON: `literal` was checked against JSON's number grammar by the reader.
    pub(crate) fn parsed(literal: &'a str) -> Self {
        Num { literal: Some(literal), value: 0.0 }
    }

    /// The number as JavaScript holds it (±Infinity for literals beyond the double range).
    pub fn as_f64(&self) -> f64 {
        match self.literal {
            Some(lit) => num::parse(lit),
            None => self.value,
        }
    }

    /// The literal as written in the JSON text, for a number that was read.
    pub fn literal(&self) -> Option<&'a str> {
        self.literal
    }

    /// Length of `JSON.stringify(n)`: `String(n)`, or `null` for a non-finite number.
    pub fn json_len(&self) -> usize {
        // A canonical literal is finite and is its own `String(n)`: no conversion at all.
        if let Some(lit) = self.literal.filter(|lit| num::is_canonical_literal(lit)) {
            return lit.len();
        }
        let x = self.as_f64();
        if x.is_finite() { num::js_len(x) } else { 4 }
    }

    /// Appends `JSON.stringify(n)` to `out`.
    pub fn write_json(&self, out: &mut String) {
        if let Some(lit) = self.literal.filter(|lit| num::is_canonical_literal(lit)) {
            return out.push_str(lit);
        }
        let x = self.as_f64();
        if x.is_finite() { num::write_js(x, out) } else { out.push_str("null") }
    }
}

/// Equal when the numbers are (`-0 == 0`, `NaN != NaN`, as in JavaScript); literals are not compared.
impl PartialEq for Num<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.as_f64() == other.as_f64()
    }
}

impl<'a> Value<'a> {
    /// An array from anything that turns into values.
    pub fn array<T: Into<Value<'a>>>(items: impl IntoIterator<Item = T>) -> Self {
        Value::Arr(items.into_iter().map(Into::into).collect())
    }

    /// An object from `(key, value)` pairs, in order.
    pub fn object<K: Into<Str<'a>>, T: Into<Value<'a>>>(members: impl IntoIterator<Item = (K, T)>) -> Self {
        Value::Obj(members.into_iter().map(|(k, v)| (k.into(), v.into())).collect())
    }

    /// The member `key` of an object (compared decoded; the last duplicate wins, as in `JSON.parse`).
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        let Value::Obj(members) = self else { return None };
        members.iter().rev().find(|(k, _)| k.eq_str(key)).map(|(_, v)| v)
    }

    /// The decoded string (unpaired surrogates become U+FFFD), if this is a string.
    pub fn as_str(&self) -> Option<Cow<'_, str>> {
        match self {
            Value::Str(s) => Some(s.decoded()),
            _ => None,
        }
    }

    /// The string itself, undecoded, if this is a string.
    pub fn as_json_str(&self) -> Option<&Str<'a>> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The number, if this is a number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Num(n) => Some(n.as_f64()),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The items, if this is an array.
    pub fn as_array(&self) -> Option<&[Value<'a>]> {
        match self {
            Value::Arr(items) => Some(items),
            _ => None,
        }
    }

    /// The members in order (duplicates included), if this is an object.
    pub fn as_object(&self) -> Option<&[(Str<'a>, Value<'a>)]> {
        match self {
            Value::Obj(members) => Some(members),
            _ => None,
        }
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// Whether this is `true` or `false`.
    pub fn is_bool(&self) -> bool {
        matches!(self, Value::Bool(_))
    }

    /// Whether this is a number.
    pub fn is_number(&self) -> bool {
        matches!(self, Value::Num(_))
    }

    /// Whether this is a string.
    pub fn is_string(&self) -> bool {
        matches!(self, Value::Str(_))
    }

    /// Whether this is an array.
    pub fn is_array(&self) -> bool {
        matches!(self, Value::Arr(_))
    }

    /// Whether this is an object.
    pub fn is_object(&self) -> bool {
        matches!(self, Value::Obj(_))
    }

    /// JavaScript truthiness: `false`, `0`, `-0`, `NaN`, `""` and `null` are falsy; everything else,
    /// every array and object included, is truthy.
    pub fn is_truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Num(n) => {
                let x = n.as_f64();
                x != 0.0 && !x.is_nan()
            }
            Value::Str(s) => s.units() != 0,
            Value::Arr(_) | Value::Obj(_) => true,
        }
    }

    /// `JSON.stringify` of the value as JavaScript would hold it: duplicate keys once with the last
    /// value, numbers printed the JavaScript way (non-finite as `null`), unpaired surrogates as escapes.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }

    /// Appends [`Value::to_json`] to `out`.
    pub fn write_json(&self, out: &mut String) {
        write::write_json(self, out);
    }
}

impl From<bool> for Value<'_> {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<f64> for Value<'_> {
    fn from(x: f64) -> Self {
        Value::Num(Num { literal: None, value: x })
    }
}

macro_rules! from_int {
    ($($t:ty),*) => {$(
        /// The integer as a JavaScript number.
        impl From<$t> for Value<'_> {
            fn from(x: $t) -> Self {
                Value::from(f64::from(x))
            }
        }
    )*};
}
from_int!(u8, u16, u32, i8, i16, i32);

macro_rules! from_wide_int {
    ($($t:ty),*) => {$(
        /// The integer as a JavaScript number (rounded to a double above 2^53, as JavaScript would).
        impl From<$t> for Value<'_> {
            fn from(x: $t) -> Self {
                Value::from(x as f64)
            }
        }
    )*};
}
from_wide_int!(u64, usize, i64, isize);

impl<'a> From<&'a str> for Value<'a> {
    fn from(s: &'a str) -> Self {
        Value::Str(Str::plain(s))
    }
}

impl From<String> for Value<'_> {
    fn from(s: String) -> Self {
        Value::Str(Str::plain(s))
    }
}

impl<'a> From<Cow<'a, str>> for Value<'a> {
    fn from(s: Cow<'a, str>) -> Self {
        Value::Str(Str::plain(s))
    }
}

impl<'a> From<Str<'a>> for Value<'a> {
    fn from(s: Str<'a>) -> Self {
        Value::Str(s)
    }
}

impl<'a, T: Into<Value<'a>>> From<Option<T>> for Value<'a> {
    fn from(v: Option<T>) -> Self {
        v.map_or(Value::Null, Into::into)
    }
}

impl<'a, T: Into<Value<'a>>> From<Vec<T>> for Value<'a> {
    fn from(items: Vec<T>) -> Self {
        Value::array(items)
    }
}

/// Builds a JSON object value: `obj! { "key" => value, … }`, each value anything `Into<json::Value>`
/// (`None` is `null`).
#[macro_export]
macro_rules! obj {
    ($($key:expr => $value:expr),* $(,)?) => {
        $crate::json::Value::Obj($crate::json::__vec![
            $(($crate::json::Str::from($key), $crate::json::Value::from($value))),*
        ])
    };
}

impl Value<'_> {
    /// The same value, owning all its text (for values that must outlive what they were read from).
    /// Numbers keep their value; the literal they were read from is dropped, which changes nothing
    /// JavaScript could observe.
    pub fn into_owned(self) -> Value<'static> {
        match self {
            Value::Null => Value::Null,
            Value::Bool(b) => Value::Bool(b),
            Value::Num(n) => Value::from(n.as_f64()),
            Value::Str(s) => Value::Str(s.into_owned()),
            // Plain loops: `map(..).collect()` here becomes an in-place collect, much larger in the wasm build.
            Value::Arr(items) => {
                let mut out = Vec::with_capacity(items.len());
                for v in items {
                    out.push(v.into_owned());
                }
                Value::Arr(out)
            }
            Value::Obj(members) => {
                let mut out = Vec::with_capacity(members.len());
                for (k, v) in members {
                    out.push((k.into_owned(), v.into_owned()));
                }
                Value::Obj(out)
            }
        }
    }
}

/// Drops a value with bounded recursion. A plain drop of a `Value` recurses once per nesting level; values
/// read from session lines may nest tens of thousands of levels deep, which would overflow the 1 MB wasm
/// stack, so the ingest disposes of them with this instead: the first [`DROP_DEPTH`] levels the plain way
/// (fast, and all a usual value has), anything deeper from a heap stack.
pub fn dispose(value: Value<'_>) {
    let mut deeper = Vec::new();
    drop_levels(value, 0, &mut deeper);
    while let Some(v) = deeper.pop() {
        drop_levels(v, 0, &mut deeper);
    }
}

/// How many levels [`dispose`] goes down by recursion (a few hundred bytes of stack each at most).
const DROP_DEPTH: usize = 32;

fn drop_levels<'a>(value: Value<'a>, depth: usize, deeper: &mut Vec<Value<'a>>) {
    let mut take = |v: Value<'a>| {
        if matches!(v, Value::Arr(_) | Value::Obj(_)) {
            if depth < DROP_DEPTH {
                drop_levels(v, depth + 1, deeper);
            } else {
                deeper.push(v);
            }
        }
    };
    match value {
        Value::Arr(items) => items.into_iter().for_each(&mut take),
        Value::Obj(members) => members.into_iter().for_each(|(_, v)| take(v)),
        _ => {}
    }
}

/// Appends `U+` and `c`'s code point in at least four uppercase hex digits (`U+00E9`, `U+1F600`), as
/// Unicode writes it and `format!("U+{:04X}")` would, without the formatting machinery.
pub fn push_code_point(out: &mut String, c: char) {
    let code = u32::from(c);
    let mut digits = 4;
    while digits < 8 && code >> (4 * digits) != 0 {
        digits += 1;
    }
    out.push_str("U+");
    for i in (0..digits).rev() {
        out.push(char::from(b"0123456789ABCDEF"[(code >> (4 * i)) as usize & 15]));
    }
}

/// Appends `n` in decimal (`String(n)` for an integer), without the formatting machinery.
pub fn push_uint(out: &mut String, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 || at == 0 {
            break;
        }
    }
    for &d in digits.get(at..).unwrap_or_default() {
        out.push(char::from(d));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_values_and_keeps_the_last_duplicate() {
        let v = parse(r#" {"\u0069d":"a","id":"b","n":[1,-0,2.5e3,true,null],"s":"x\ud800"} "#, 10).unwrap();
        assert_eq!(v.get("id").and_then(Value::as_str).as_deref(), Some("b"));
        assert_eq!(v.as_object().map(<[_]>::len), Some(4));
        let n = v.get("n").and_then(Value::as_array).unwrap();
        let nums: Vec<u64> = n[..3].iter().filter_map(Value::as_f64).map(f64::to_bits).collect();
        assert_eq!(nums, [1f64.to_bits(), (-0f64).to_bits(), 2500f64.to_bits()]);
        assert_eq!(n[3].as_bool(), Some(true));
        assert!(n[4].is_null());
        assert_eq!(v.get("s").and_then(Value::as_str).as_deref(), Some("x\u{fffd}"));
        assert_eq!(v.to_json(), r#"{"id":"b","n":[1,0,2500,true,null],"s":"x\ud800"}"#);
        assert_eq!(stringify_len(&v), v.to_json().len());
    }

    #[test]
    fn truthiness_follows_javascript() {
        let v = parse(r#"[false,0,-0,"",null,true,1,"0",[],{}]"#, 10).unwrap();
        let truthy: Vec<bool> = v.as_array().unwrap().iter().map(Value::is_truthy).collect();
        assert_eq!(truthy, [false, false, false, false, false, true, true, true, true, true]);
        assert!(!Value::from(f64::NAN).is_truthy());
    }

    #[test]
    fn values_build_concisely() {
        let name = String::from("n\"1");
        let v = obj! {
            "name" => name,
            "ids" => vec!["a", "b"],
            "tokens" => 0.1 + 0.2,
            "count" => 3_usize,
            "hint" => None::<&str>,
            "inf" => f64::INFINITY,
            "nested" => obj! { "x" => -0.0 },
        };
        assert_eq!(v.to_json(), r#"{"name":"n\"1","ids":["a","b"],"tokens":0.30000000000000004,"count":3,"hint":null,"inf":null,"nested":{"x":0}}"#);
        assert_eq!(stringify_len(&v), v.to_json().len());
    }
}

