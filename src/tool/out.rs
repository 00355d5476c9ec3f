//! The tool's results written straight as JSON text, for the binding to hand to `JSON.parse`.
//!
//! Building a `json::Value` tree first costs, per member of every object literal, inline code for a key,
//! a value and a vector push, plus the tree's drop; writing the text member by member through a few
//! shared helpers is a fraction of that in the wasm. Output is exactly what `JSON.stringify` writes.

use crate::prelude::*;
use crate::json::{num, Str};

/// A JSON object being written at the end of a string: `{` ([`JsonObject::open`]), `"key":value` members,
/// `}` ([`JsonObject::close`]). Objects nested in it are opened on the text of their member
/// (`JsonObject::open(out.key("details"))`), so the whole result is written into one string.
pub(crate) struct JsonObject<'o> {
    text: &'o mut String,
}

impl<'o> JsonObject<'o> {
    /// Starts an object at the end of `text`.
    #[inline(never)]
    pub(crate) fn open(text: &'o mut String) -> Self {
        text.push('{');
        JsonObject { text }
    }

    /// Starts member `key` (a plain ASCII name, written as is) and returns the text to write its value to.
    #[inline(never)]
    pub(crate) fn key(&mut self, key: &str) -> &mut String {
        // Right after `{` is the first member; every value ends in something else.
        if !self.text.ends_with('{') {
            self.text.push(',');
        }
        self.text.push('"');
        self.text.push_str(key);
        self.text.push_str("\":");
        self.text
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

    /// Ends the object.
    pub(crate) fn close(self) {
        self.text.push('}');
    }
}

/// Starts the next item of the array `out` ends in (opened with `[`; close it with `]`) and returns `out`
/// to write the item to: items are written as they are made, without collecting them first.
#[inline(never)]
pub(crate) fn item(out: &mut String) -> &mut String {
    if !out.ends_with('[') {
        out.push(',');
    }
    out
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
