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

use super::wire::{self, Js, JsStr, ReadError};
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
    /// converted as `Number(s)` does, `true`/`false` are 1/0, and a value that is no number (`NaN`: an
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

/// `Number(s)` of a string, as far as comparing it with 2 and 3 needs: JavaScript whitespace around it
/// ignored, empty → 0, a decimal literal (sign, digits, `.`, exponent) or `±Infinity`, `0x`/`0o`/`0b`
/// integers; anything else `NaN`.
fn string_to_number(s: &JsStr<'_>) -> f64 {
    let text = s.text();
    let t = js::trim(&text);
    if t.is_empty() {
        return 0.0;
    }
    let radix = match t.get(..2) {
        Some("0x" | "0X") => 16,
        Some("0o" | "0O") => 8,
        Some("0b" | "0B") => 2,
        _ => 10,
    };
    if radix != 10 {
        let digits = t.get(2..).unwrap_or_default();
        if digits.is_empty() {
            return f64::NAN;
        }
        // Only the comparison with 2 and 3 matters: a saturated value is as large.
        return digits.chars().try_fold(0f64, |n, c| c.to_digit(radix).map(|d| n * f64::from(radix) + f64::from(d))).unwrap_or(f64::NAN);
    }
    let (sign, body) = match t.as_bytes().first() {
        Some(b'-') => (-1.0, t.get(1..).unwrap_or_default()),
        Some(b'+') => (1.0, t.get(1..).unwrap_or_default()),
        _ => (1.0, t),
    };
    if body == "Infinity" {
        return sign * f64::INFINITY;
    }
    // A decimal literal: digits with at most one '.', at least one digit, then an optional exponent.
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (body.get(..at).unwrap_or_default(), Some(body.get(at + 1..).unwrap_or_default())),
        None => (body, None),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all_digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !all_digits(int) || !all_digits(frac) {
        return f64::NAN;
    }
    let exponent = match exponent {
        None => String::new(),
        Some(e) => {
            let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
            if digits.is_empty() || !all_digits(digits) {
                return f64::NAN;
            }
            format!("e{e}")
        }
    };
    // As a JSON number (serde_json reads numbers; the module carries no second float parser).
    let int = int.trim_start_matches('0');
    let json = format!("{}.{}0{exponent}", if int.is_empty() { "0" } else { int }, frac);
    sign * serde_json::from_str::<f64>(&json).unwrap_or(f64::INFINITY)
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
        let probe = wire::read(text, |e| {
            let ty = e.ty.str();
            let is = |name: &str| ty.is_some_and(|t| t.is(name));
            (is("session"), is("compaction").then(|| e.first_kept_entry_index.num()))
        });
        let (session, compaction) = match probe {
            Err(ReadError::Malformed(_)) => return None,
            Err(ReadError::NotAnObject | ReadError::TooDeep(_)) => {
                self.at.push(NOT_TAKEN);
                return None;
            }
            Ok(found) => found,
        };
        let line = u32::try_from(line).unwrap_or(NOT_TAKEN - 1);
        if session {
            self.at.push(SESSION);
            return None;
        }
        // The members of an object `wire::read` took (a syntax check only, so the same text passes).
        let Ok(members) = wire::members(text) else {
            self.at.push(NOT_TAKEN);
            return None;
        };
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
    let mut edits: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    let (mut has_id, mut has_parent, mut has_first_kept) = (false, false, false);
    let base = text.as_ptr() as usize;
    let span = |v: &RawValue| {
        let start = (v.get().as_ptr() as usize).wrapping_sub(base);
        start..start + v.get().len()
    };
    let mut kept = 0;
    // Where the previous member kept ends (`None`: right after the opening brace).
    let mut prev_end: Option<usize> = None;
    let mut pending_removal: Option<usize> = None;
    for (key, value) in members {
        let range = span(value);
        let removed = match key.bytes() {
            b"id" => {
                has_id = true;
                edits.push((range.clone(), id.to_string()));
                false
            }
            b"parentId" => {
                has_parent = true;
                edits.push((range.clone(), parent.to_string()));
                false
            }
            b"firstKeptEntryId" => {
                has_first_kept = true;
                match first_kept {
                    FirstKept::Keep => false,
                    FirstKept::Set(to) => {
                        edits.push((range.clone(), quoted(to)));
                        false
                    }
                    FirstKept::Remove => true,
                }
            }
            b"firstKeptEntryIndex" => drop_index,
            _ => false,
        };
        if removed {
            match prev_end {
                // `,"key":value` after the member before it.
                Some(end) => edits.push((end..range.end, String::new())),
                // The first member: up to the next one's start, decided when it comes.
                None => pending_removal = Some(range.end),
            }
            continue;
        }
        if let Some(end) = pending_removal.take() {
            // The removed members led the object: drop them with the comma after them.
            let comma = text.get(end..range.start).and_then(|gap| gap.find(',')).map_or(end, |c| end + c + 1);
            edits.push((brace_end(text)..comma, String::new()));
        }
        kept += 1;
        prev_end = Some(range.end);
    }
    if let Some(end) = pending_removal {
        edits.push((brace_end(text)..end, String::new()));
    }
    // New keys go last, in pi's order of assignment.
    let mut added = String::new();
    let mut add = |key: &str, value: &str| {
        if kept > 0 || !added.is_empty() {
            added.push(',');
        }
        let _ = write!(added, "\"{key}\":{value}");
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
    let close = text.rfind('}').unwrap_or(text.len());
    edits.push((close..close, added));
    edits.sort_by_key(|(r, _)| (r.start, r.end));
    let mut out = String::with_capacity(text.len() + 48);
    let mut at = 0;
    for (range, with) in edits {
        out.push_str(text.get(at..range.start).unwrap_or_default());
        out.push_str(&with);
        at = range.end.max(at);
    }
    out.push_str(text.get(at..).unwrap_or_default());
    out
}

/// Where an object's text opens: just after its `{`.
fn brace_end(text: &str) -> usize {
    text.find('{').map_or(0, |at| at + 1)
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
        for (s, n) in [("", 0.0), (" 2 ", 2.0), ("2.5", 2.5), ("+3", 3.0), ("-1", -1.0), (".5", 0.5), ("2.", 2.0), ("02", 2.0), ("1e0", 1.0), ("0x3", 3.0), ("0b10", 2.0), ("-Infinity", f64::NEG_INFINITY)] {
            assert_eq!(num(s), n, "{s:?}");
        }
        for s in ["3a", "0x", "e5", ".", "--1", "1e", "Infinityx", "-0x3"] {
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
