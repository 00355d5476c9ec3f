//! The tool's results written straight as JSON text, for the binding to hand to `JSON.parse`.
//!
//! Building a `json::Value` tree first costs, per member of every object literal, inline code for a key,
//! a value and a vector push, plus the tree's drop; writing the text member by member through a few
//! shared helpers is a fraction of that in the wasm. Output is exactly what `JSON.stringify` writes.

use crate::json::{num, Str};

/// A JSON object being written: `{`, then `"key":value` members, then [`JsonObject::finish`].
pub(crate) struct JsonObject {
    text: String,
}

impl JsonObject {
    /// An object with no members yet.
    pub(crate) fn new() -> Self {
        JsonObject { text: String::from("{") }
    }

    /// Starts member `key` (a plain ASCII name, written as is) and returns the text to write its value to.
    #[inline(never)]
    pub(crate) fn key(&mut self, key: &str) -> &mut String {
        // Only `{` so far means this is the first member.
        if self.text.len() > 1 {
            self.text.push(',');
        }
        self.text.push('"');
        self.text.push_str(key);
        self.text.push_str("\":");
        &mut self.text
    }

    /// Member `key`: a string.
    #[inline(never)]
    pub(crate) fn str(&mut self, key: &str, value: &str) -> &mut Self {
        quote(self.key(key), value);
        self
    }

    /// Member `key`: a string, or `null` for none.
    #[inline(never)]
    pub(crate) fn opt_str(&mut self, key: &str, value: Option<&str>) -> &mut Self {
        match value {
            Some(v) => self.str(key, v),
            None => self.raw(key, "null"),
        }
    }

    /// Member `key`: a number as `JSON.stringify` writes it.
    #[inline(never)]
    pub(crate) fn num(&mut self, key: &str, x: f64) -> &mut Self {
        number(self.key(key), x);
        self
    }

    /// Member `key`: `true` or `false`.
    pub(crate) fn bool(&mut self, key: &str, value: bool) -> &mut Self {
        self.raw(key, if value { "true" } else { "false" })
    }

    /// Member `key`: a value that already is JSON text.
    #[inline(never)]
    pub(crate) fn raw(&mut self, key: &str, json: &str) -> &mut Self {
        self.key(key).push_str(json);
        self
    }

    /// Member `key`: an array of strings.
    pub(crate) fn strs<'s>(&mut self, key: &str, items: impl Iterator<Item = &'s str>) -> &mut Self {
        let out = self.key(key);
        out.push('[');
        for (i, item) in items.enumerate() {
            if i > 0 {
                out.push(',');
            }
            quote(out, item);
        }
        out.push(']');
        self
    }

    /// The object's text.
    pub(crate) fn finish(mut self) -> String {
        self.text.push('}');
        self.text
    }
}

/// Appends `JSON.stringify(s)`.
#[inline(never)]
pub(crate) fn quote(out: &mut String, s: &str) {
    Str::plain(s).write_quoted(out);
}

/// Appends `JSON.stringify(x)`: `String(x)`, or `null` when it is not finite.
#[inline(never)]
pub(crate) fn number(out: &mut String, x: f64) {
    if x.is_finite() {
        num::write_js(x, out);
    } else {
        out.push_str("null");
    }
}

/// Appends `item` (JSON text) to the array `out` ends in, opened with `[` (close it with `]`): items are
/// written as they are made, without collecting them first.
#[inline(never)]
pub(crate) fn push_item(out: &mut String, item: &str) {
    if !out.ends_with('[') {
        out.push(',');
    }
    out.push_str(item);
}
