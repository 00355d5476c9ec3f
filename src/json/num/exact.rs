//! The general cases of [`super`], exact and in pure Rust: the native and `full` builds' backend.
//!
//! Everything here works on the exact decimal expansion of doubles, from a small big-integer type
//! ([`Big`]), chosen for size rather than speed: it replaces `ryu`, the `dec2flt` tables behind
//! `str::parse` and `core::fmt`'s float code. The plugin's wasm does not compile this module at all: there
//! the JavaScript engine answers these cases (see the seam described in [`super`]).
//!
//! - Reading ([`parse`]): a literal neither fast path covers is compared exactly against the halfway
//!   points next to a first guess and moved one double at a time (the "bigcomp" idea).
//! - Printing ([`print`]): the doubles that read back as `x` fill an interval; its ends and `x` are
//!   expanded exactly in decimal, and for 1, 2, … digits the truncation of `x` and the next number up
//!   are tested against the ends — the first length with a candidate inside wins.
//! - `toFixed` ([`to_fixed`]) rounds the exact expansion.
//! - [`is_canonical`] tells a literal already in `String(x)`'s form, with an exponent or without.

use crate::prelude::*;
use core::cmp::Ordering;

use super::{decompose, POW10};

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

/// `String(x)` for any double (NaN, ±Infinity, `-0` as `0`, shortest round-trip digits otherwise).
pub(super) fn print(x: f64) -> String {
    let mut out = Vec::new();
    if x.is_nan() {
        out.extend_from_slice(b"NaN");
    } else {
        if x < 0.0 {
            out.push(b'-'); // not for -0, which prints as `0`
        }
        let x = x.abs();
        if x.is_infinite() {
            out.extend_from_slice(b"Infinity");
        } else if x == 0.0 {
            out.push(b'0');
        } else {
            let (s, n) = shortest_digits(x);
            layout(&s, n, &mut out);
        }
    }
    ascii(&out)
}

/// `x.toFixed(digits)` for any double and `digits` ≤ 100 (see [`super::to_fixed`]).
#[allow(clippy::many_single_char_names, reason = "the names ECMAScript's Number.prototype.toFixed uses")]
pub(super) fn to_fixed(x: f64, digits: u32) -> String {
    if !x.is_finite() || x.abs() >= 1e21 {
        return print(x);
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

/// The correctly rounded magnitude of a valid JSON number literal, for any literal.
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

/// The correctly rounded value of a valid JSON number literal (±Infinity beyond the double range).
pub(super) fn parse(literal: &str) -> f64 {
    let magnitude = slow_magnitude(literal.as_bytes());
    if literal.starts_with('-') {
        -magnitude
    } else {
        magnitude
    }
}

/// Whether `literal` is already the text `String(JSON.parse(literal))` gives (see
/// [`super::is_canonical_literal`]), with an exponent or without.
pub(super) fn is_canonical(literal: &str) -> bool {
    let b = literal.as_bytes();
    let body = b.strip_prefix(b"-").unwrap_or(b);
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
