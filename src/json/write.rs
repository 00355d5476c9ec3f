//! `JSON.stringify`: its exact length ([`stringify_len`]) and its text ([`write_json`]), from one walk.

use super::str::Str;
use super::{Num, Value};

/// Length of `JSON.stringify(v)` in UTF-16 units, for `v` as JavaScript would hold this value:
/// duplicate keys count once (with the last value), strings are escaped as `JSON.stringify` escapes
/// them, numbers print as `String(n)` and non-finite ones as `null`.
///
/// It walks with its own stack, so any depth the reader accepted is measured without recursion.
pub fn stringify_len(v: &Value<'_>) -> usize {
    let mut len = Len(0);
    walk(v, &mut len);
    len.0
}

/// Appends `JSON.stringify(v)` to `out` (see [`Value::to_json`]).
pub(crate) fn write_json(v: &Value<'_>, out: &mut String) {
    walk(v, &mut Out(out));
}

/// What the walk produces: the same events measured or written.
trait Sink {
    fn punct(&mut self, b: char);
    fn word(&mut self, w: &'static str);
    fn string(&mut self, s: &Str<'_>);
    fn number(&mut self, n: &Num<'_>);
}

struct Len(usize);

impl Sink for Len {
    fn punct(&mut self, _: char) {
        self.0 += 1;
    }
    fn word(&mut self, w: &'static str) {
        self.0 += w.len();
    }
    fn string(&mut self, s: &Str<'_>) {
        self.0 += s.quoted_len();
    }
    fn number(&mut self, n: &Num<'_>) {
        self.0 += n.json_len();
    }
}

struct Out<'o>(&'o mut String);

impl Sink for Out<'_> {
    fn punct(&mut self, b: char) {
        self.0.push(b);
    }
    fn word(&mut self, w: &'static str) {
        self.0.push_str(w);
    }
    fn string(&mut self, s: &Str<'_>) {
        s.write_quoted(self.0);
    }
    fn number(&mut self, n: &Num<'_>) {
        n.write_json(self.0);
    }
}

/// An open container in the walk: what is left of it and whether anything was written yet.
enum Frame<'v, 'a> {
    Arr(std::slice::Iter<'v, Value<'a>>, bool),
    Obj(std::iter::Enumerate<std::slice::Iter<'v, (Str<'a>, Value<'a>)>>, Option<Vec<bool>>, bool),
}

fn walk<S: Sink>(root: &Value<'_>, sink: &mut S) {
    let mut stack: Vec<Frame<'_, '_>> = Vec::new();
    let mut next = Some(root);
    loop {
        if let Some(v) = next.take() {
            match v {
                Value::Null => sink.word("null"),
                Value::Bool(true) => sink.word("true"),
                Value::Bool(false) => sink.word("false"),
                Value::Num(n) => sink.number(n),
                Value::Str(s) => sink.string(s),
                Value::Arr(items) => {
                    sink.punct('[');
                    stack.push(Frame::Arr(items.iter(), false));
                }
                Value::Obj(members) => {
                    sink.punct('{');
                    stack.push(Frame::Obj(members.iter().enumerate(), shadowed(members), false));
                }
            }
        }
        let Some(top) = stack.last_mut() else { return };
        match top {
            Frame::Arr(items, started) => {
                if let Some(item) = items.next() {
                    if *started {
                        sink.punct(',');
                    }
                    *started = true;
                    next = Some(item);
                } else {
                    sink.punct(']');
                    stack.pop();
                }
            }
            Frame::Obj(members, shadowed, started) => {
                // Skip members a later duplicate overrides.
                let member = members.find(|(i, _)| !shadowed.as_ref().is_some_and(|s| s.get(*i) == Some(&true)));
                if let Some((_, (key, value))) = member {
                    if *started {
                        sink.punct(',');
                    }
                    *started = true;
                    sink.string(key);
                    sink.punct(':');
                    next = Some(value);
                } else {
                    sink.punct('}');
                    stack.pop();
                }
            }
        }
    }
}

/// For each member, whether a later member has the same key (`None` when no key repeats).
///
/// Small objects (all of pi's) are checked pairwise. Larger ones go through a small open-addressing
/// table of member indices, filled from the last member back, so each earlier duplicate finds the member
/// that overrides it: linear for distinct keys. Keys whose hashes (FNV-1a of the decoded text) are equal
/// are compared exactly, so the worst case — many keys that hash alike, e.g. deliberate collisions or
/// `"\ud800"`-style keys that decode alike yet differ — is quadratic, like the pairwise check.
fn shadowed(members: &[(Str<'_>, Value<'_>)]) -> Option<Vec<bool>> {
    /// Up to this many members a pairwise check is cheaper than hashing.
    const PAIRWISE_MAX: usize = 16;
    let n = members.len();
    if n < 2 {
        return None;
    }
    let mut marks = vec![false; n];
    if n <= PAIRWISE_MAX {
        for (i, (key, _)) in members.iter().enumerate() {
            marks[i] = members[i + 1..].iter().any(|(k, _)| k.same_as(key));
        }
    } else {
        let hash = |k: &Str<'_>| {
            k.decoded().bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
        };
        let hashes: Vec<u64> = members.iter().map(|(k, _)| hash(k)).collect();
        // At most half full, so probing always reaches an empty slot.
        let mask = (2 * n).next_power_of_two() - 1;
        let mut slots = vec![usize::MAX; mask + 1];
        for i in (0..n).rev() {
            let mut at = hashes[i] as usize & mask;
            loop {
                match slots[at] {
                    usize::MAX => {
                        slots[at] = i;
                        break;
                    }
                    j if hashes[j] == hashes[i] && members[j].0.same_as(&members[i].0) => {
                        marks[i] = true;
                        break;
                    }
                    _ => at = (at + 1) & mask,
                }
            }
        }
    }
    marks.contains(&true).then_some(marks)
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use super::*;
    use crate::json::parse;

    #[test]
    fn duplicates_are_written_once_with_the_last_value() {
        let many = (0..40).fold(String::new(), |mut s, i| {
            let _ = write!(s, "\"k{}\":{i},", i % 35);
            s
        });
        let text = format!("{{{many}\"\\ud800\":1,\"\u{fffd}\":2,\"\\uD800\":3}}");
        let v = parse(&text, 10).unwrap();
        let out = v.to_json();
        // Members print where their last duplicate stands.
        let k0_4_last: String = (5..35).map(|i| format!("\"k{i}\":{i},")).chain((0..5).map(|i| format!("\"k{i}\":{},", i + 35))).collect();
        assert_eq!(out, format!("{{{k0_4_last}\"\u{fffd}\":2,\"\\ud800\":3}}"));
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
