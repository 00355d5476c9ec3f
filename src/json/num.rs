//! Numbers as JavaScript reads and prints them, exactly, in little code.
//!
//! Numbers in pi's sessions are almost always integers or literals already in JavaScript's own form,
//! so the common cases take fast paths (integers, Clinger's algorithm, a literal that is already
//! canonical) and everything else takes one general path chosen for size, not speed: the exact
//! decimal expansion of a double from a small big-integer type (`Big`). That replaces `ryu`, the
//! `dec2flt` tables behind `str::parse` and `core::fmt`'s float code, which together cost the wasm
//! build more than 25 KB gzip.
//!
//! - Reading ([`parse`]): a literal neither fast path covers is compared exactly against the halfway
//!   points next to a first guess and moved one double at a time (the "bigcomp" idea).
//! - Printing ([`js_string`]): the doubles that read back as `x` fill an interval; its ends and `x`
//!   are expanded exactly in decimal, and for 1, 2, … digits the truncation of `x` and the next
//!   number up are tested against the ends — the first length with a candidate inside wins.
//! - `toFixed` ([`to_fixed`]) rounds the exact expansion.

// Digit counts and exponents here stay far below 2^31 (literals keep at most 801 digits, doubles expand
// to at most 1100), so the usize/i32/i64 conversions between them cannot wrap.
#![allow(clippy::cast_possible_wrap)]

use crate::prelude::*;

use core::cmp::Ordering;

/// Exact powers of ten as doubles: every one up to 10^22 is representable.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
    1e20, 1e21, 1e22,
];

/// Largest integer a double holds exactly together with all smaller ones.
const EXACT_INT: u64 = 1 << 53;

/// Significant digits the slow reader keeps. A halfway point between two doubles has at most 767
/// significant digits, so a literal cut after 800 (with a nonzero digit appended when anything nonzero
/// was cut) lies on the same side of every halfway point as the full literal.
const MAX_DIGITS: usize = 800;

/// Bits of `f64::INFINITY`; every finite positive double's bits are below.
const INF_BITS: u64 = 0x7FF0_0000_0000_0000;

/// A nonnegative integer of any size, little-endian base-2^32 limbs. Only what the exact slow paths
/// need: multiplying by a small factor, dividing by a small divisor, comparing. No 128-bit arithmetic,
/// whose compiler-rt helpers would cost the wasm build kilobytes.
#[derive(Clone)]
struct Big(Vec<u32>);

impl Big {
    fn from_u64(v: u64) -> Big {
        let mut b = Big(vec![v as u32, (v >> 32) as u32]);
        b.trim();
        b
    }

    /// Drops high zero limbs, so zero is the empty vector.
    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    /// `self = self × m + a`.
    fn mul_add(&mut self, m: u32, a: u32) {
        let mut carry = u64::from(a);
        for limb in &mut self.0 {
            let t = u64::from(*limb) * u64::from(m) + carry;
            *limb = t as u32;
            carry = t >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    /// `self ×= base^n`, in the largest powers of `base` that fit a limb.
    fn mul_pow(&mut self, base: u32, mut n: u64) {
        while n > 0 {
            let (mut factor, mut k) = (base, 1);
            while k < n {
                match factor.checked_mul(base) {
                    Some(f) => (factor, k) = (f, k + 1),
                    None => break,
                }
            }
            self.mul_add(factor, 0);
            n -= k;
        }
    }

    /// `self /= d`, returning the remainder (`d > 0`).
    fn div_rem(&mut self, d: u32) -> u32 {
        let mut rem = 0u64;
        for limb in self.0.iter_mut().rev() {
            let t = (rem << 32) | u64::from(*limb);
            *limb = (t / u64::from(d)) as u32;
            rem = t % u64::from(d);
        }
        self.trim();
        rem as u32
    }

    fn cmp(&self, other: &Big) -> Ordering {
        // Both are trimmed, so the longer one is larger; equal lengths compare from the top limb.
        self.0.len().cmp(&other.0.len()).then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    /// Decimal digits (ASCII, most significant first, none for zero).
    fn into_digits(mut self) -> Vec<u8> {
        let mut out = Vec::new();
        while !self.0.is_empty() {
            let mut chunk = self.div_rem(1_000_000_000);
            for _ in 0..9 {
                out.push(b'0' + (chunk % 10) as u8);
                chunk /= 10;
            }
        }
        while out.last() == Some(&b'0') {
            out.pop();
        }
        out.reverse();
        out
    }
}

/// A positive finite double's bits (or zero) as `m × 2^q`, `m < 2^53`.
fn decompose(bits: u64) -> (u64, i32) {
    let exp_bits = ((bits >> 52) & 0x7FF) as i32;
    let frac = bits & ((1 << 52) - 1);
    if exp_bits == 0 {
        (frac, -1074)
    } else {
        (frac | (1 << 52), exp_bits - 1075)
    }
}

/// The exact decimal value of `m × 2^q` as `(digits, t)` with `m × 2^q = digits × 10^t`: an integer
/// for `q ≥ 0`, otherwise `m × 5^-q` scaled by `10^q` (every binary fraction is a finite decimal).
fn exact_decimal(m: u64, q: i32) -> (Vec<u8>, i32) {
    let mut b = Big::from_u64(m);
    if q >= 0 {
        b.mul_pow(2, u64::from(q.unsigned_abs()));
        (b.into_digits(), 0)
    } else {
        b.mul_pow(5, u64::from(q.unsigned_abs()));
        (b.into_digits(), q)
    }
}

fn all_zero(d: &[u8]) -> bool {
    d.iter().all(|&c| c == b'0')
}

/// Adds one unit in the last place of an ASCII digit string; false when it carries out of the front.
fn increment(d: &mut [u8]) -> bool {
    for c in d.iter_mut().rev() {
        if *c == b'9' {
            *c = b'0';
        } else {
            *c += 1;
            return true;
        }
    }
    false
}

/// Appends the decimal digits of `v`.
fn push_uint(out: &mut Vec<u8>, v: u64) {
    let start = out.len();
    let mut v = v;
    loop {
        out.push(b'0' + (v % 10) as u8);
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out[start..].reverse();
}

/// An ASCII byte string as a `String` (no UTF-8 validation code needed).
fn ascii(bytes: &[u8]) -> String {
    bytes.iter().map(|&c| char::from(c)).collect()
}

/// Shortest round-trip digits of a positive finite `x`, as ECMAScript's `Number::toString` defines them:
/// `(s, n)` with `x ≈ 0.s × 10^n`, `s` as short as possible, and among equally short choices the one
/// closest to `x` (on an exact tie, the even one).
#[allow(clippy::many_single_char_names, reason = "m × 2^q as in IEEE 754; s, n as in Number::toString")]
fn shortest_digits(x: f64) -> (Vec<u8>, i32) {
    let bits = x.to_bits();
    let (m, q) = decompose(bits);
    // The decimals that read back as x are those in [low, high], the halfway points to its neighbours;
    // ties read as the even mantissa, so the ends count when m is even. In units of 2^(q-2) all three
    // are integers; the gap below is half as wide at a power of two (except next to the subnormals).
    let low = if m == 1 << 52 && bits >> 52 > 1 { 4 * m - 1 } else { 4 * m - 2 };
    let even = m % 2 == 0;
    let (hi, t) = exact_decimal(4 * m + 2, q - 2);
    let width = hi.len();
    // Same width for all three (high is the largest), so comparing digit strings compares values.
    let pad = |(d, _): (Vec<u8>, i32)| {
        let mut v = vec![b'0'; width.saturating_sub(d.len())];
        v.extend_from_slice(&d);
        v
    };
    let xd = pad(exact_decimal(4 * m, q - 2));
    let lo = pad(exact_decimal(low, q - 2));
    let first = xd.iter().position(|&c| c != b'0').unwrap_or(0);
    for cut in first + 1..=width {
        // Candidate below: x truncated after `cut` digits; above: that plus one unit in the last place.
        let (head, tail) = xd.split_at(cut);
        let (lo_head, lo_tail) = lo.split_at(cut);
        let (hi_head, hi_tail) = hi.split_at(cut);
        if all_zero(tail) {
            return finish(head, width, t); // x itself has this few digits
        }
        let down_ok = match head.cmp(lo_head) {
            Ordering::Greater => true,
            Ordering::Equal => even && all_zero(lo_tail),
            Ordering::Less => false,
        };
        let mut up = head.to_vec();
        // Carrying out of the full width would exceed `high`, whose digits fill that width.
        let up_ok = increment(&mut up)
            && match up.as_slice().cmp(hi_head) {
                Ordering::Less => true,
                Ordering::Equal => even || !all_zero(hi_tail),
                Ordering::Greater => false,
            };
        let take_up = match (down_ok, up_ok) {
            (false, false) => continue,
            (true, false) => false,
            (false, true) => true,
            // Both read back: the closer one, i.e. round the tail half up; on an exact tie the even one.
            (true, true) => match tail.first().cmp(&Some(&b'5')) {
                Ordering::Greater => true,
                Ordering::Less => false,
                Ordering::Equal => !all_zero(&tail[1..]) || head.last().is_some_and(|d| d % 2 == 1),
            },
        };
        return finish(if take_up { &up } else { head }, width, t);
    }
    finish(&xd, width, t) // not reached: 17 digits always suffice
}

/// `(s, n)` from the leading `digits` of a `width`-digit number scaled by `10^t`.
fn finish(digits: &[u8], width: usize, t: i32) -> (Vec<u8>, i32) {
    let start = digits.iter().position(|&c| c != b'0').unwrap_or(0);
    let mut s = digits[start..].to_vec();
    while s.len() > 1 && s.last() == Some(&b'0') {
        s.pop();
    }
    (s, (width - start) as i32 + t)
}

/// Appends `0.s × 10^n` laid out as `Number::toString` does: fixed notation for -6 < n ≤ 21 (every place
/// from the highest down to the last digit, at least the ones), otherwise `d.ddde±x`.
#[allow(clippy::many_single_char_names, reason = "the names ECMAScript's Number::toString uses")]
fn layout(s: &[u8], n: i32, out: &mut Vec<u8>) {
    if -6 < n && n <= 21 {
        let k = s.len() as i32;
        for place in ((n - k).min(0)..n.max(1)).rev() {
            if place == -1 {
                out.push(b'.');
            }
            // The digit at 10^place is s[n-1-place]; places outside s are zeros.
            out.push(usize::try_from(n - 1 - place).ok().and_then(|i| s.get(i)).copied().unwrap_or(b'0'));
        }
    } else {
        let (lead, rest) = s.split_at(s.len().min(1));
        out.extend_from_slice(lead);
        if !rest.is_empty() {
            out.push(b'.');
            out.extend_from_slice(rest);
        }
        out.extend_from_slice(if n > 0 { b"e+" } else { b"e-" });
        push_uint(out, u64::from((n - 1).unsigned_abs()));
    }
}

/// Whether `x` is an integer below 2^53 in magnitude: those (all below 1e21) print as their own digits.
fn is_small_int(x: f64) -> bool {
    x.abs() < EXACT_INT as f64 && crate::js::trunc(x) == x
}

fn print_js(x: f64, out: &mut Vec<u8>) {
    if x.is_nan() {
        out.extend_from_slice(b"NaN");
        return;
    }
    if x < 0.0 {
        out.push(b'-'); // not for -0, which prints as `0`
    }
    let x = x.abs();
    if x.is_infinite() {
        out.extend_from_slice(b"Infinity");
    } else if is_small_int(x) {
        push_uint(out, x as u64);
    } else {
        let (s, n) = shortest_digits(x);
        layout(&s, n, out);
    }
}

/// `String(x)` in JavaScript (`Number.prototype.toString()`): shortest round-trip digits, fixed notation
/// for 1e-7 ≤ |x| < 1e21, otherwise `1e+21` / `1.5e-7`; `-0` prints as `0`.
pub fn js_string(x: f64) -> String {
    let mut out = Vec::new();
    print_js(x, &mut out);
    ascii(&out)
}

/// Appends [`js_string`]`(x)` to `out`.
pub fn write_js(x: f64, out: &mut String) {
    out.push_str(&js_string(x));
}

/// `String(x).length`; integers below 2^53 are counted without allocating.
pub fn js_len(x: f64) -> usize {
    if is_small_int(x) {
        let (mut v, mut len) = (x.abs() as u64, usize::from(x < 0.0) + 1);
        while v >= 10 {
            v /= 10;
            len += 1;
        }
        return len;
    }
    let mut out = Vec::new();
    print_js(x, &mut out);
    out.len()
}

/// `x.toFixed(digits)` in JavaScript, exact for every `digits` up to 100 (JavaScript's own limit; larger
/// values are treated as 100) and |x| < 1e21 (larger values print as `String(x)`, as JavaScript does).
///
/// JavaScript rounds the exact binary value, ties away from zero: `(0.25).toFixed(1)` is `"0.3"` (0.25 is
/// exact), while `(1.005).toFixed(2)` is `"1.00"` (1.005 is stored as 1.00499999999999989…).
#[allow(clippy::many_single_char_names, reason = "the names ECMAScript's Number.prototype.toFixed uses")]
pub fn to_fixed(x: f64, digits: u32) -> String {
    if !x.is_finite() || x.abs() >= 1e21 {
        return js_string(x);
    }
    let f = digits.min(100) as usize;
    let (m, q) = decompose(x.abs().to_bits());
    // |x| = d × 10^t exactly. Keep the places down to 10^-f (zeros past the end of d) and round on the
    // next digit: the expansion is exact, so a next digit of 5 or more means at least half a unit.
    let (d, t) = exact_decimal(m, q);
    let at = usize::try_from(d.len() as i64 + i64::from(t) + f as i64).ok();
    let mut n: Vec<u8> = (0..at.unwrap_or(0)).map(|i| d.get(i).copied().unwrap_or(b'0')).collect();
    if at.and_then(|i| d.get(i)).is_some_and(|&c| c >= b'5') && !increment(&mut n) {
        n.insert(0, b'1');
    }
    while n.len() <= f {
        n.insert(0, b'0'); // at least one digit before the point
    }
    if f > 0 {
        n.insert(n.len() - f, b'.');
    }
    if x < 0.0 {
        // `-0` is not below zero, so it prints without a sign; a small negative value rounding to zero keeps it.
        n.insert(0, b'-');
    }
    ascii(&n)
}

/// A JSON number literal taken apart while it is scanned: `±mantissa × 10^exp10`, where `mantissa`
/// keeps the first 19 significant digits and `inexact` tells that a nonzero digit was dropped after them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Parts {
    pub(crate) negative: bool,
    pub(crate) mantissa: u64,
    pub(crate) exp10: i64,
    pub(crate) inexact: bool,
}

/// Scans the JSON number grammar `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` from `start`.
/// Returns the end offset and the parts, or the offset of the first byte that breaks the grammar.
pub(crate) fn scan(b: &[u8], start: usize) -> Result<(usize, Parts), usize> {
    /// Mantissas stay below 10^18 before a digit is added, so 19 digits fit in a u64.
    const MANT_LIMIT: u64 = 1_000_000_000_000_000_000;
    let negative = b.get(start) == Some(&b'-');
    let int_start = start + usize::from(negative);
    let (mut i, mut point) = (int_start, None);
    let (mut mantissa, mut exp10, mut inexact) = (0u64, 0i64, false);
    // The digits before and after the point in one loop: a digit past the point scales by 1/10 when it
    // is kept, a digit before it scales by 10 when it is dropped.
    loop {
        match b.get(i) {
            Some(&c @ b'0'..=b'9') => {
                if mantissa < MANT_LIMIT {
                    mantissa = mantissa * 10 + u64::from(c - b'0');
                    exp10 -= i64::from(point.is_some());
                } else {
                    exp10 += i64::from(point.is_none());
                    inexact |= c != b'0';
                }
            }
            Some(b'.') if point.is_none() => point = Some(i),
            _ => break,
        }
        i += 1;
    }
    let int_end = point.unwrap_or(i);
    if int_end == int_start {
        return Err(int_start);
    }
    if b.get(int_start) == Some(&b'0') && int_end > int_start + 1 {
        return Err(int_start + 1); // no leading zeros
    }
    if point.is_some_and(|p| p + 1 == i) {
        return Err(i); // a point needs digits after it
    }
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        let exp_negative = b.get(i) == Some(&b'-');
        if let Some(b'+' | b'-') = b.get(i) {
            i += 1;
        }
        let first = i;
        let mut e = 0i64;
        while let Some(&c @ b'0'..=b'9') = b.get(i) {
            // Saturate far beyond any double's range: the value is 0 or infinite by then anyway.
            e = (e * 10 + i64::from(c - b'0')).min(1 << 40);
            i += 1;
        }
        if i == first {
            return Err(i);
        }
        exp10 += if exp_negative { -e } else { e };
    }
    Ok((i, Parts { negative, mantissa, exp10, inexact }))
}

/// The double of a scanned literal; `literal` is its text, read by the exact slow path when no fast one applies.
pub(crate) fn value_of(parts: Parts, literal: &str) -> f64 {
    let magnitude = if parts.mantissa == 0 && !parts.inexact {
        0.0
    } else if let Some(v) = fast_magnitude(parts) {
        v
    } else {
        slow_magnitude(literal.as_bytes())
    };
    if parts.negative {
        -magnitude
    } else {
        magnitude
    }
}

/// Clinger's fast path: an exactly representable mantissa times or divided by an exactly representable
/// power of ten is one correctly rounded IEEE operation.
fn fast_magnitude(p: Parts) -> Option<f64> {
    if p.inexact || p.mantissa > EXACT_INT {
        return None;
    }
    let m = p.mantissa as f64;
    match p.exp10 {
        0..=22 => Some(m * POW10[p.exp10 as usize]),
        -22..=-1 => Some(m / POW10[(-p.exp10) as usize]),
        _ => None,
    }
}

/// The significant digits of a number literal (ASCII, without leading or trailing zeros) and their scale:
/// value = digits × 10^exp. At most [`MAX_DIGITS`] are kept, followed by a sticky 1 when a nonzero digit
/// was cut. Bytes outside the number grammar are skipped; callers pass valid literals or check the result.
fn significant(literal: &[u8]) -> (Vec<u8>, i64) {
    let (mut digits, mut exp, mut sticky, mut in_frac) = (Vec::new(), 0i64, false, false);
    let mut rest = literal.iter();
    for &c in rest.by_ref() {
        match c {
            b'.' => in_frac = true,
            b'0'..=b'9' => {
                if digits.is_empty() && c == b'0' {
                    exp -= i64::from(in_frac); // a leading zero only moves the point
                } else if digits.len() < MAX_DIGITS {
                    digits.push(c);
                    exp -= i64::from(in_frac);
                } else {
                    sticky |= c != b'0';
                    exp += i64::from(!in_frac);
                }
            }
            b'e' | b'E' => break,
            _ => {} // the sign
        }
    }
    let (mut e, mut negative) = (0i64, false);
    for &c in rest {
        match c {
            b'-' => negative = true,
            // Saturate far beyond any double's range: the value is 0 or infinite by then anyway.
            b'0'..=b'9' => e = (e * 10 + i64::from(c - b'0')).min(1 << 40),
            _ => {}
        }
    }
    exp += if negative { -e } else { e };
    if sticky {
        digits.push(b'1');
        exp -= 1;
    }
    while digits.last() == Some(&b'0') {
        digits.pop();
        exp += 1;
    }
    (digits, exp)
}

/// The correctly rounded magnitude of a valid JSON number literal, for any literal (the slow path).
fn slow_magnitude(literal: &[u8]) -> f64 {
    let (digits, exp) = significant(literal);
    decimal_to_f64(&digits, exp)
}

/// The double nearest to `digits × 10^exp` (ASCII digits without leading zeros; ties to even).
fn decimal_to_f64(digits: &[u8], exp: i64) -> f64 {
    // 10^(n-1) ≤ value < 10^n: beyond 10^309 it is infinite, below 10^-324 (under half the least
    // subnormal) it rounds to zero.
    let n = digits.len() as i64 + exp;
    if digits.is_empty() || n <= -324 {
        return 0.0;
    }
    if n > 310 {
        return f64::INFINITY;
    }
    // A first guess from the leading 19 digits and a chain of exact powers of ten: each step rounds once,
    // so it is off by a few doubles at most. Multiplying only grows and dividing only shrinks toward the
    // result, so no intermediate overflows or underflows before the result would.
    let lead = digits.len().min(19);
    let mut guess = digits[..lead].iter().fold(0u64, |m, &c| m * 10 + u64::from(c - b'0')) as f64;
    let mut e = exp + (digits.len() - lead) as i64;
    while e > 22 {
        guess *= POW10[22];
        e -= 22;
    }
    while e < -22 {
        guess /= POW10[22];
        e += 22;
    }
    guess = if e >= 0 { guess * POW10[e as usize] } else { guess / POW10[(-e) as usize] };
    let mut d = Big(Vec::new());
    for &c in digits {
        d.mul_add(10, u32::from(c - b'0'));
    }
    // Walk to the right double by exact comparisons with the halfway points next to the guess.
    let mut bits = guess.to_bits().min(f64::MAX.to_bits());
    loop {
        match cmp_halfway_up(&d, exp, bits) {
            Ordering::Greater => {
                bits += 1;
                if bits == INF_BITS {
                    return f64::INFINITY;
                }
                continue;
            }
            Ordering::Equal => return f64::from_bits(bits + (bits & 1)), // the even one (MAX's tie: infinity)
            Ordering::Less => {}
        }
        if bits == 0 {
            return 0.0;
        }
        match cmp_halfway_up(&d, exp, bits - 1) {
            Ordering::Less => bits -= 1,
            Ordering::Equal => return f64::from_bits(bits - (bits & 1)),
            Ordering::Greater => return f64::from_bits(bits),
        }
    }
}

/// Compares `d × 10^exp` with the point halfway between the double with `bits` and the next one up,
/// `(2m + 1) × 2^(q-1)`, exactly: both sides are turned into integers by multiplying out 5s and 2s.
fn cmp_halfway_up(d: &Big, exp: i64, bits: u64) -> Ordering {
    let (m, q) = decompose(bits);
    let (mut left, mut right) = (d.clone(), Big::from_u64(2 * m + 1));
    // d × 5^exp × 2^exp  vs  (2m + 1) × 2^(q-1)
    if exp >= 0 {
        left.mul_pow(5, exp.unsigned_abs());
    } else {
        right.mul_pow(5, exp.unsigned_abs());
    }
    let twos = exp - i64::from(q - 1);
    if twos >= 0 {
        left.mul_pow(2, twos.unsigned_abs());
    } else {
        right.mul_pow(2, twos.unsigned_abs());
    }
    left.cmp(&right)
}

/// `JSON.parse(literal)` for a JSON number literal: correctly rounded, ±Infinity beyond ±1.8e308.
/// Anything outside the JSON number grammar (including surrounding whitespace) gives NaN.
pub fn parse(literal: &str) -> f64 {
    match scan(literal.as_bytes(), 0) {
        Ok((end, parts)) if end == literal.len() => value_of(parts, literal),
        _ => f64::NAN,
    }
}

/// Whether `literal` is already the text `String(JSON.parse(literal))` gives, judged from the text alone:
/// JavaScript's layout (no leading or trailing zeros, fixed notation exactly for 1e-7 ≤ |x| < 1e21,
/// `e+`/`e-` otherwise, no `-0`) with at most 15 significant digits and a normal magnitude
/// (1e-307 ≤ |x| < 1e308).
///
/// Such a literal needs no conversion: two different decimals of at most 15 significant digits never
/// read as the same normal double (2^52 > 10^15), so no shorter or other equally short digits read back
/// as its value, and the layout is the one JavaScript would choose.
pub fn is_canonical_literal(literal: &str) -> bool {
    let b = literal.as_bytes();
    let body = b.strip_prefix(b"-").unwrap_or(b);
    // The common case first, without allocating: a plain integer of at most 15 digits.
    if body.len() <= 15 && body.iter().all(u8::is_ascii_digit) && body.first() != Some(&b'0') {
        return !body.is_empty();
    }
    let (s, exp) = significant(b);
    let n = s.len() as i64 + exp;
    if s.is_empty() {
        return literal == "0";
    }
    if s.len() > 15 || !(-306..=308).contains(&n) {
        return false;
    }
    // Canonical exactly when laying the digits out again gives the same text.
    let mut text = Vec::with_capacity(b.len());
    if body.len() < b.len() {
        text.push(b'-');
    }
    layout(&s, n as i32, &mut text);
    text == b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_like_javascript() {
        let cases = [
            (0.1, "0.1"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (123.456, "123.456"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (0.000_001, "0.000001"),
            (-1.5e-10, "-1.5e-10"),
            (-0.0, "0"),
            (5e-324, "5e-324"),
            (1.797_693_134_862_315_7e308, "1.7976931348623157e+308"),
            (9_007_199_254_740_993.0, "9007199254740992"),
            (42.0, "42"),
            (-42.0, "-42"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Infinity"),
            (-1.234_567_890_123_456_7e-7, "-1.2345678901234566e-7"),
        ];
        for (x, want) in cases {
            assert_eq!(js_string(x), want);
            assert_eq!(js_len(x), want.len());
            assert_eq!(js_string(x), crate::js::number_to_js_string(x));
        }
    }

    #[test]
    fn to_fixed_rounds_the_binary_value_half_up() {
        assert_eq!(to_fixed(0.25, 1), "0.3");
        assert_eq!(to_fixed(1.005, 2), "1.00");
        assert_eq!(to_fixed(-0.0, 2), "0.00");
        assert_eq!(to_fixed(-0.0001, 2), "-0.00");
        assert_eq!(to_fixed(2.5, 0), "3");
        assert_eq!(to_fixed(-2.5, 0), "-3");
        assert_eq!(to_fixed(123.456, 3), "123.456");
        assert_eq!(to_fixed(5e-324, 3), "0.000");
        assert_eq!(to_fixed(1e21, 2), "1e+21");
        assert_eq!(to_fixed(f64::NAN, 2), "NaN");
        assert_eq!(to_fixed(999.9996, 3), "1000.000");
    }

    #[test]
    fn parses_like_json_parse() {
        assert_eq!(parse("0").to_bits(), 0f64.to_bits());
        assert_eq!(parse("-0").to_bits(), (-0f64).to_bits());
        assert_eq!(parse("-0.0e5").to_bits(), (-0f64).to_bits());
        assert_eq!(parse("1e400"), f64::INFINITY);
        assert_eq!(parse("-1e400"), f64::NEG_INFINITY);
        assert_eq!(parse("1e-400"), 0.0);
        assert_eq!(parse("123e30"), 123e30);
        assert_eq!(parse("9007199254740993"), 9_007_199_254_740_992.0);
        assert_eq!(parse("0.1"), 0.1);
        assert_eq!(parse("1.7976931348623157e308"), f64::MAX);
        assert_eq!(parse("12345678901234567890123"), 1.234_567_890_123_456_8e22);
        assert_eq!(parse("1e99999999999999999999999"), f64::INFINITY);
        for bad in ["", "-", "01", "1.", ".5", "1e", "+1", " 1", "1 ", "0x10", "NaN", "1e+"] {
            assert!(parse(bad).is_nan(), "{bad}");
        }
    }

    #[test]
    fn canonical_literals_are_recognised() {
        let yes = [
            "0", "-12", "123456789012345", "100000000000000000000", "1.5", "-0.001", "0.000001", "0.1234567890123",
            "123456789.012345", "1e+21", "-1.5e+300", "1.23456789012345e-7", "2e-307", "9.99999999999999e+307",
        ];
        let no = [
            "-0", "1234567890123456", "1e3", "1.0", "1.50", "01", "00.5", "0.0000001", "1e21", "1e+020", "1e+20",
            "1e-6", "10e+21", "1E+21", "1.e+21", "1e-308", "1e+308", "1.234567890123456e+21", "0.1234567890123456",
            "1000000000000000000000", "", "-", "0.", ".5", "1e+", "1e-0", "abc", "1.5e+2x", "0.00000", "0e+21",
        ];
        for lit in yes {
            assert!(is_canonical_literal(lit), "{lit}");
            assert_eq!(js_string(parse(lit)), lit);
        }
        for lit in no {
            assert!(!is_canonical_literal(lit), "{lit}");
        }
    }
}
