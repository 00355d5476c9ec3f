//! The session formats pi still opens, read as pi reads them: pi migrates a file to the current format
//! (version 3) when it loads it (`migrateToCurrentVersion` in `SessionManager`, the same code in every pi
//! from 0.74 to 1.6), and so does the index as it reads the lines.
//!
//! - **Which format**: `header.version ?? 1`, compared as JavaScript compares (`>= 3`: current; `< 2`:
//!   version 1, which also gets the v2 step; else version 2) — see [`Format::of`]. A file without a
//!   header is read as it is (pi opens no such file).
//! - **v1 → v2** (`migrateV1ToV2`): version-1 entries have no `id`/`parentId`; pi gives every value after
//!   the header that is not a `session` line a fresh random id (an id already there is overwritten) and the
//!   previous one as parent: one linear chain. A compaction's `firstKeptEntryIndex` (an index into pi's
//!   array of the file's parsed lines: the header is 0; blank and malformed lines are not in it) becomes
//!   `firstKeptEntryId` when it names an entry, and is deleted when it is a number.
//! - **v2 → v3** (`migrateV2ToV3`): a message with role `hookMessage` becomes `custom` (the reader's
//!   `legacy_v2` rule, [`super::RoleKind::of`]; its printed form keeps the message's key order).
//!
//! pi's v1 ids are random; here they are stable: **the entry on line N of the file has the id `line-N`**
//! ([`v1_id`]), so a leaf can be named across runs. pi's own ids are 8 hex digits (or a UUID), which
//! `line-N` can never be. A migrated line is the line as pi holds it after migrating: `id` and `parentId`
//! set in place (or appended), `firstKeptEntryIndex` gone — every other byte as written; so the context,
//! the estimates and `entryJson` read it like any version-3 line.
//!
//! Where pi cannot match: a JSON value after the header that is not an object (pi throws on a number or a
//! string; an array becomes an entry of no type) is skipped and reported as elsewhere, and the chain goes
//! on from the entry before it; a compaction kept from such a value keeps from the next entry instead
//! (the same context, as the value adds nothing to it). The migration applies to JSONL input (files and
//! their appended tails); entries handed over as objects (`appendEntries`) come from pi, which migrated
//! them when it loaded the file.

use std::fmt::Write as _;

use serde_json::value::RawValue;

use super::wire::{self, Js, JsStr, MAX_LINE_NESTING};
use crate::js;

/// A session file's format as pi decides it from the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Format {
    /// Version 1 (or no `version`): no ids; pi migrates v1 → v2 → v3.
    #[default]
    V1,
    /// Version 2: pi migrates v2 → v3 (`hookMessage` → `custom`).
    V2,
    /// Version 3 (pi's current format), or a version pi compares as no number (left as it is).
    Current,
}

impl Format {
    /// pi's `header.version ?? 1` with `>= 3` / `< 2` / `< 3` as JavaScript evaluates them: a string is
    /// converted as `Number(s)` converts a JSON number (`string_to_number`), `true`/`false` are 1/0, and a value that is no number (`NaN`: an
    /// object, an array — `Number([2])` would be 2, not followed here —, a string like `"3a"`) passes no
    /// comparison, so pi migrates nothing.
    pub fn of(version: &Js<'_>) -> Format {
        let v = match version {
            Js::Absent | Js::Null => 1.0,
            Js::Bool(b) => f64::from(u8::from(*b)),
            Js::Num(x) => *x,
            Js::Str(s) => string_to_number(s),
            Js::Arr | Js::Obj => f64::NAN,
        };
        if v.is_nan() || v >= 3.0 {
            Format::Current
        } else if v < 2.0 {
            Format::V1
        } else {
            Format::V2
        }
    }
}

/// `Number(s)` of a string, as far as pi's files can need it: JavaScript whitespace around it ignored, empty
/// → 0, a JSON number (`"2"`, `"2.5"`, `"-1"`, `"3e0"`); anything else `NaN`. (`Number` also takes `+2`,
/// `.5`, `02`, `0x3` and `Infinity`; pi writes a number, never a string, so these are not followed — each
/// costs module size.)
fn string_to_number(s: &JsStr<'_>) -> f64 {
    let text = s.text();
    let t = js::trim(&text);
    if t.is_empty() {
        return 0.0;
    }
    serde_json::from_str::<Js<'_>>(t).ok().and_then(|n| n.num()).unwrap_or(f64::NAN)
}

/// The id the index gives the version-1 entry on line `line` (1-based, as skipped lines are reported).
pub fn v1_id(line: usize) -> String {
    format!("line-{line}")
}

/// What a position of pi's entries array holds (see [`V1Chain`]).
const SESSION: u32 = 0;
const NOT_TAKEN: u32 = u32::MAX;

/// pi's v1 → v2 migration, line by line: the state it needs from the lines before.
#[derive(Debug)]
pub(super) struct V1Chain {
    /// Per position of pi's entries array (every line `JSON.parse` takes, from the header at 0): the line
    /// number of the entry there, [`SESSION`] for a `session` line, [`NOT_TAKEN`] for a value that is no
    /// object.
    at: Vec<u32>,
    /// The line of the last entry given an id (the next one's parent).
    last: Option<u32>,
}

/// What becomes of a compaction's `firstKeptEntryId`.
enum FirstKept {
    /// Left as written (no numeric `firstKeptEntryIndex`, or one that names no entry).
    Keep,
    /// Set to this id.
    Set(String),
    /// Set to `undefined` (the index names a later line, which has no id yet).
    Remove,
}

impl V1Chain {
    /// The chain of a file whose header (position 0) said version 1.
    pub(super) fn new() -> Self {
        V1Chain { at: vec![SESSION], last: None }
    }

    /// The JSON text `text` (on line `line`) as pi's migration leaves it; `None` when it is to be read as
    /// it is: not JSON (not in pi's array at all), a `session` line, or a value that is no object (both
    /// still take their position).
    pub(super) fn migrate(&mut self, text: &str, line: usize) -> Option<String> {
        let position = self.at.len();
        // Not JSON: not in pi's array at all (the same check `wire::read` makes of a line).
        let mut reader = serde_json::Deserializer::from_str(text);
        reader.disable_recursion_limit();
        if <&RawValue as serde::Deserialize>::deserialize(&mut reader).and_then(|_| reader.end()).is_err() {
            return None;
        }
        // A value that is no object (or one nested too deep to read): a position, but no entry here.
        let members = match wire::members(text) {
            Ok(members) if wire::nesting_depth(text) <= MAX_LINE_NESTING => members,
            _ => {
                self.at.push(NOT_TAKEN);
                return None;
            }
        };
        // A field as JavaScript reads it (a repeated key: its last value).
        let field = |name: &str| {
            let raw = members.iter().rev().find(|(k, _)| k.is(name)).map(|(_, v)| v.get());
            raw.and_then(|v| serde_json::from_str::<Js<'_>>(v).ok()).unwrap_or_default()
        };
        let ty = field("type");
        let is = |name: &str| ty.str().is_some_and(|t| t.is(name));
        let line = u32::try_from(line).unwrap_or(NOT_TAKEN - 1);
        if is("session") {
            self.at.push(SESSION);
            return None;
        }
        let compaction = is("compaction").then(|| field("firstKeptEntryIndex").num());
        let id = v1_id(line as usize);
        let parent = self.last.map_or_else(|| "null".to_string(), |p| quoted(&v1_id(p as usize)));
        let (first_kept, drop_index) = match compaction {
            Some(Some(index)) => (self.first_kept(index, position, &id), true),
            _ => (FirstKept::Keep, false),
        };
        self.at.push(line);
        self.last = Some(line);
        Some(rewrite(text, &members, &quoted(&id), &parent, &first_kept, drop_index))
    }

    /// pi's `entries[firstKeptEntryIndex]` for the compaction at `position` (its own id `own`).
    fn first_kept(&self, index: f64, position: usize, own: &str) -> FirstKept {
        // An array index: a whole number from 0 (-0 is 0); anything else is `undefined`.
        if index.fract() != 0.0 || !(0.0..4_294_967_295.0).contains(&index) {
            return FirstKept::Keep;
        }
        let index = index as usize;
        if index == position {
            return FirstKept::Set(own.to_string());
        }
        if index > position {
            // A later value has no id yet: `firstKeptEntryId = undefined` (when it is in the file at all,
            // which only a later line can tell; either way no entry is kept from it).
            return FirstKept::Remove;
        }
        match self.at.get(index) {
            Some(&SESSION) | None => FirstKept::Keep,
            // A value that is no entry here: keep from the next entry (it adds nothing to the context).
            Some(&NOT_TAKEN) => {
                let next = self.at.get(index..).unwrap_or_default().iter().find(|&&l| l != SESSION && l != NOT_TAKEN);
                FirstKept::Set(next.map_or_else(|| own.to_string(), |&l| v1_id(l as usize)))
            }
            Some(&line) => FirstKept::Set(v1_id(line as usize)),
        }
    }
}

/// The object `text` (its `members`) with `id` and `parent` (JSON texts) set, `firstKeptEntryId` as
/// `first_kept` says and `firstKeptEntryIndex` dropped when `drop_index`: values replaced in place, removed
/// members cut out with their comma, new keys appended in pi's order of assignment.
fn rewrite(text: &str, members: &[(JsStr<'_>, &RawValue)], id: &str, parent: &str, first_kept: &FirstKept, drop_index: bool) -> String {
    // One pass in text order (no list of edits to sort: the module carries no sort for this).
    let mut out = String::with_capacity(text.len() + 48);
    // `text` up to `at` is in `out` (or cut).
    let mut at = 0;
    let copy = |out: &mut String, at: &mut usize, to: usize| {
        out.push_str(text.get(*at..to).unwrap_or_default());
        *at = to.max(*at);
    };
    let (mut has_id, mut has_parent, mut has_first_kept) = (false, false, false);
    let base = text.as_ptr() as usize;
    let open = text.find('{').map_or(0, |at| at + 1);
    let mut kept = 0;
    // Where the member kept last ends (`None`: none yet), and the end of removed members leading the object.
    let mut prev_end: Option<usize> = None;
    let mut leading_removed: Option<usize> = None;
    for (key, value) in members {
        let start = (value.get().as_ptr() as usize).wrapping_sub(base);
        let end = start + value.get().len();
        let (removed, with) = match key.bytes() {
            b"id" => {
                has_id = true;
                (false, Some(id.to_string()))
            }
            b"parentId" => {
                has_parent = true;
                (false, Some(parent.to_string()))
            }
            b"firstKeptEntryId" => {
                has_first_kept = true;
                match first_kept {
                    FirstKept::Keep => (false, None),
                    FirstKept::Set(to) => (false, Some(quoted(to))),
                    FirstKept::Remove => (true, None),
                }
            }
            b"firstKeptEntryIndex" => (drop_index, None),
            _ => (false, None),
        };
        if removed {
            match prev_end {
                // `,"key":value` after the member before it.
                Some(kept_end) => {
                    copy(&mut out, &mut at, kept_end);
                    at = end;
                }
                // Leading the object: cut with the comma after it, once the next member shows where that is.
                None => leading_removed = Some(end),
            }
            continue;
        }
        if let Some(cut_end) = leading_removed.take() {
            copy(&mut out, &mut at, open);
            at = text.get(cut_end..start).and_then(|gap| gap.find(',')).map_or(cut_end, |c| cut_end + c + 1);
        }
        if let Some(with) = with {
            copy(&mut out, &mut at, start);
            out.push_str(&with);
            at = end;
        }
        kept += 1;
        prev_end = Some(end);
    }
    if let Some(cut_end) = leading_removed {
        copy(&mut out, &mut at, open);
        at = cut_end;
    }
    // New keys go last, in pi's order of assignment.
    copy(&mut out, &mut at, text.rfind('}').unwrap_or(text.len()));
    let mut add = |key: &str, value: &str| {
        if kept > 0 {
            out.push(',');
        }
        kept += 1;
        let _ = write!(out, "\"{key}\":{value}");
    };
    if !has_id {
        add("id", id);
    }
    if !has_parent {
        add("parentId", parent);
    }
    if let (false, FirstKept::Set(to)) = (has_first_kept, first_kept) {
        add("firstKeptEntryId", &quoted(to));
    }
    out.push_str(text.get(at..).unwrap_or_default());
    out
}

/// `s` as a JSON string (the ids here need no escapes).
fn quoted(s: &str) -> String {
    format!("\"{s}\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(s: &str) -> f64 {
        string_to_number(&JsStr::Utf8(s.into()))
    }

    #[test]
    fn strings_convert_as_number_does() {
        for (s, n) in [("", 0.0), ("  ", 0.0), (" 2 ", 2.0), ("2.5", 2.5), ("-1", -1.0), ("1e0", 1.0), ("3E0", 3.0)] {
            assert_eq!(num(s), n, "{s:?}");
        }
        for s in ["3a", "e5", ".", "--1", "1e", "\"2\"", "[2]", "true"] {
            assert!(num(s).is_nan(), "{s:?}");
        }
    }

    #[test]
    fn versions_decide_as_pi_compares() {
        let s = |t: &'static str| Js::Str(JsStr::Utf8(t.into()));
        for (v, f) in [
            (Js::Absent, Format::V1),
            (Js::Null, Format::V1),
            (Js::Num(1.0), Format::V1),
            (Js::Num(1.99), Format::V1),
            (Js::Num(0.0), Format::V1),
            (Js::Bool(true), Format::V1),
            (Js::Num(2.0), Format::V2),
            (Js::Num(2.5), Format::V2),
            (Js::Num(3.0), Format::Current),
            (Js::Num(f64::INFINITY), Format::Current),
            (s("2"), Format::V2),
            (s(""), Format::V1),
            (s("three"), Format::Current),
            (Js::Obj, Format::Current),
        ] {
            assert_eq!(Format::of(&v), f, "{v:?}");
        }
    }

    fn chain(lines: &[&str]) -> Vec<Option<String>> {
        let mut chain = V1Chain::new();
        lines.iter().enumerate().map(|(i, l)| chain.migrate(l, i + 2)).collect()
    }

    #[test]
    fn ids_and_parents_follow_the_lines() {
        let out = chain(&[r#"{"type":"message","message":{"role":"user"}}"#, "{}", r#"{"id":"x","type":"custom","parentId":"y"}"#]);
        assert_eq!(out[0].as_deref(), Some(r#"{"type":"message","message":{"role":"user"},"id":"line-2","parentId":null}"#));
        assert_eq!(out[1].as_deref(), Some(r#"{"id":"line-3","parentId":"line-2"}"#));
        assert_eq!(out[2].as_deref(), Some(r#"{"id":"line-4","type":"custom","parentId":"line-3"}"#));
    }

    #[test]
    fn malformed_lines_take_no_position_and_other_values_do() {
        // Positions: 0 header, 1 = line 2, (line 3 malformed), 2 = line 4 (an array), 3 = line 5, 4 = line 6.
        let out = chain(&[
            r#"{"type":"message"}"#,
            "{nope",
            "[1]",
            r#"{"type":"session","version":1}"#,
            r#"{"type":"compaction","firstKeptEntryIndex":1,"summary":"s"}"#,
            r#"{"type":"compaction","firstKeptEntryIndex":2}"#,
        ]);
        assert_eq!(out[1], None);
        assert_eq!(out[2], None);
        assert_eq!(out[3], None);
        assert_eq!(out[4].as_deref(), Some(r#"{"type":"compaction","summary":"s","id":"line-6","parentId":"line-2","firstKeptEntryId":"line-2"}"#));
        // Index 2 is the array: kept from the next entry (line 6).
        assert_eq!(out[5].as_deref(), Some(r#"{"type":"compaction","id":"line-7","parentId":"line-6","firstKeptEntryId":"line-6"}"#));
    }

    #[test]
    fn compaction_indexes_follow_pi() {
        let c = |index: &str, extra: &str| {
            let text = format!(r#"{{"firstKeptEntryIndex":{index},"type":"compaction"{extra}}}"#);
            chain(&[r#"{"type":"message"}"#, &text]).pop().flatten().unwrap()
        };
        // The header (0, and -0) is no entry: `firstKeptEntryId` stays as it was.
        assert_eq!(c("0", r#","firstKeptEntryId":"old""#), r#"{"type":"compaction","firstKeptEntryId":"old","id":"line-3","parentId":"line-2"}"#);
        assert_eq!(c("-0", ""), r#"{"type":"compaction","id":"line-3","parentId":"line-2"}"#);
        // Itself, a later line (undefined), a fraction, a string (not a number: left as written).
        assert_eq!(c("2", ""), r#"{"type":"compaction","id":"line-3","parentId":"line-2","firstKeptEntryId":"line-3"}"#);
        assert_eq!(c("9", r#","firstKeptEntryId":"old""#), r#"{"type":"compaction","id":"line-3","parentId":"line-2"}"#);
        assert_eq!(c("1.5", ""), r#"{"type":"compaction","id":"line-3","parentId":"line-2"}"#);
        assert_eq!(c(r#""1""#, ""), r#"{"firstKeptEntryIndex":"1","type":"compaction","id":"line-3","parentId":"line-2"}"#);
        // A repeated key: JavaScript reads the last value.
        assert_eq!(c(r#""x","firstKeptEntryIndex":1"#, ""), r#"{"type":"compaction","id":"line-3","parentId":"line-2","firstKeptEntryId":"line-2"}"#);
    }

    #[test]
    fn only_member_removed_leaves_an_empty_object_to_fill() {
        let out = chain(&[r#"{ "firstKeptEntryIndex" : 5 , "type":"compaction" }"#, r#"{"firstKeptEntryIndex":0}"#]);
        assert_eq!(out[0].as_deref(), Some(r#"{ "type":"compaction" ,"id":"line-2","parentId":null}"#));
        // Not a compaction: the index is an ordinary field.
        assert_eq!(out[1].as_deref(), Some(r#"{"firstKeptEntryIndex":0,"id":"line-3","parentId":"line-2"}"#));
    }
}
