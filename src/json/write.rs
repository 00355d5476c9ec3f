//! `JSON.stringify`: its exact length ([`stringify_len`]) and its text ([`write_json`]), from one walk.

use crate::prelude::*;
use super::str::Str;
use super::{Num, Value};

/// Length of `JSON.stringify(v)` in UTF-16 units, for `v` as JavaScript would hold this value:
/// duplicate keys count once (at the first one's place, with the last value), strings are escaped as `JSON.stringify` escapes
/// them, numbers print as `String(n)` and non-finite ones as `null`.
///
/// It walks with its own stack, so any depth the reader accepted is measured without recursion.
pub fn stringify_len(v: &Value<'_>) -> usize {
    let mut len = Sink::Len(0);
    walk(v, &mut len);
    match len {
        Sink::Len(n) => n,
        Sink::Out(_) => 0,
    }
}

/// Appends `JSON.stringify(v)` to `out` (see [`Value::to_json`]).
pub(crate) fn write_json(v: &Value<'_>, out: &mut String) {
    walk(v, &mut Sink::Out(out));
}

/// What the walk produces: the same events measured or written. An enum rather than a trait, so the
/// walk exists once in the wasm build instead of once per kind of output.
enum Sink<'o> {
    Len(usize),
    Out(&'o mut String),
}

impl Sink<'_> {
    /// Punctuation and the words `null`, `true`, `false` (ASCII, so bytes are UTF-16 units).
    fn text(&mut self, t: &str) {
        match self {
            Sink::Len(n) => *n += t.len(),
            Sink::Out(out) => out.push_str(t),
        }
    }

    fn string(&mut self, s: &Str<'_>) {
        match self {
            Sink::Len(n) => *n += s.quoted_len(),
            Sink::Out(out) => s.write_quoted(out),
        }
    }

    fn number(&mut self, x: &Num<'_>) {
        match self {
            Sink::Len(n) => *n += x.json_len(),
            Sink::Out(out) => x.write_json(out),
        }
    }
}

/// An open container in the walk: what is left of it and whether anything was written yet.
enum Frame<'v, 'a> {
    Arr(core::slice::Iter<'v, Value<'a>>, bool),
    /// The members, the next index, which member's value each place writes (see [`sources`]), and
    /// whether anything was written yet.
    Obj(&'v [(Str<'a>, Value<'a>)], usize, Option<Vec<usize>>, bool),
}

fn walk(root: &Value<'_>, sink: &mut Sink<'_>) {
    let mut stack: Vec<Frame<'_, '_>> = Vec::new();
    let mut next = Some(root);
    loop {
        if let Some(v) = next.take() {
            match v {
                Value::Null => sink.text("null"),
                Value::Bool(true) => sink.text("true"),
                Value::Bool(false) => sink.text("false"),
                Value::Num(n) => sink.number(n),
                Value::Str(s) => sink.string(s),
                Value::Arr(items) => {
                    sink.text("[");
                    stack.push(Frame::Arr(items.iter(), false));
                }
                Value::Obj(members) => {
                    sink.text("{");
                    stack.push(Frame::Obj(members, 0, sources(members), false));
                }
            }
        }
        let Some(top) = stack.last_mut() else { return };
        match top {
            Frame::Arr(items, started) => {
                if let Some(item) = items.next() {
                    if *started {
                        sink.text(",");
                    }
                    *started = true;
                    next = Some(item);
                } else {
                    sink.text("]");
                    stack.pop();
                }
            }
            Frame::Obj(members, at, sources, started) => {
                // The member at this place, and the member whose value goes there (itself but for a repeated
                // key); places of later duplicates are skipped.
                let mut member = None;
                while let Some((key, _)) = members.get(*at) {
                    let source = sources.as_ref().map_or(Some(*at), |s| s.get(*at).copied().filter(|&j| j != SKIP));
                    *at += 1;
                    if let Some((_, value)) = source.and_then(|j| members.get(j)) {
                        member = Some((key, value));
                        break;
                    }
                }
                if let Some((key, value)) = member {
                    if *started {
                        sink.text(",");
                    }
                    *started = true;
                    sink.string(key);
                    sink.text(":");
                    next = Some(value);
                } else {
                    sink.text("}");
                    stack.pop();
                }
            }
        }
    }
}

/// A place [`sources`] leaves out: a later duplicate of a key.
const SKIP: usize = usize::MAX;

/// For each member's place, the member whose value JavaScript writes there: a repeated key keeps the place
/// of its first appearance and takes its last value (`JSON.parse` assigns the property again, which does
/// not move it); later duplicates' places are [`SKIP`]. `None` when no key repeats.
///
/// A small open-addressing table of first appearances, filled in member order: linear for distinct keys.
/// Keys that land in the same slots are compared exactly, so the worst case — many keys that hash alike,
/// e.g. deliberate collisions or `"\ud800"`-style keys that decode alike yet differ — is quadratic, like a
/// pairwise check.
fn sources(members: &[(Str<'_>, Value<'_>)]) -> Option<Vec<usize>> {
    let n = members.len();
    if n < 2 {
        return None;
    }
    let mut sources: Vec<usize> = (0..n).collect();
    let mut repeats = false;
    // At most half full, so probing always reaches an empty slot.
    let mask = (2 * n).next_power_of_two() - 1;
    // An empty slot holds `usize::MAX`, which is no member's index.
    let mut slots = vec![usize::MAX; mask + 1];
    for (i, (key, _)) in members.iter().enumerate() {
        // FNV-1a of the decoded text, which is what equal keys share.
        let mut at = key.decoded().bytes().fold(0x811c_9dc5u32, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193)) as usize;
        loop {
            at &= mask;
            let Some(slot) = slots.get_mut(at) else { break };
            let first = *slot;
            match members.get(first) {
                None => {
                    *slot = i;
                    break;
                }
                Some((k, _)) if k.same_as(key) => {
                    if let Some(s) = sources.get_mut(first) {
                        *s = i;
                    }
                    if let Some(s) = sources.get_mut(i) {
                        *s = SKIP;
                    }
                    repeats = true;
                    break;
                }
                Some(_) => at += 1,
            }
        }
    }
    repeats.then_some(sources)
}

#[cfg(test)]
mod tests {
    use core::fmt::Write as _;

    use super::*;
    use crate::json::parse;

    #[test]
    fn duplicates_are_written_once_in_the_first_place_with_the_last_value() {
        let many = (0..40).fold(String::new(), |mut s, i| {
            let _ = write!(s, "\"k{}\":{i},", i % 35);
            s
        });
        let text = format!("{{{many}\"\\ud800\":1,\"\u{fffd}\":2,\"\\uD800\":3}}");
        let v = parse(&text, 10).unwrap();
        let out = v.to_json();
        // A repeated key prints where it first stood, with its last value, as `JSON.stringify(JSON.parse(t))`
        // gives: k0…k4 first (values 35…39), then k5…k34; `\ud800` first at its place with the later
        // `\uD800`'s 3, then U+FFFD (a different key).
        let members = (0..35).fold(String::new(), |mut s, i| {
            let _ = write!(s, "\"k{i}\":{},", if i < 5 { i + 35 } else { i });
            s
        });
        assert_eq!(out, format!("{{{members}\"\\ud800\":3,\"\u{fffd}\":2}}"));
        assert_eq!(stringify_len(&v), out.len() - 2, "U+FFFD is 3 bytes but one unit");
    }

    #[test]
    fn deep_values_are_walked_without_recursion() {
        let depth = 100_000;
        let text = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        let v = parse(&text, depth).unwrap();
        assert_eq!(stringify_len(&v), text.len());
        assert_eq!(v.to_json(), text);
        // Dropping is recursive; unwind the nesting by hand so the test thread's stack is not the limit.
        let mut v = v;
        while let Value::Arr(mut items) = v {
            v = items.pop().unwrap_or(Value::Null);
        }
    }
}
