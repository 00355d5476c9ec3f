//! Numbers as JavaScript reads and prints them, exactly, in little code.
//!
//! Numbers in pi's sessions are almost always integers or literals already in JavaScript's own form, so
//! the common cases take fast paths here, in Rust, in every build: integers below 2^53 (read and
//! printed; an integer literal of up to 15 digits is written back as it is), Clinger's algorithm for
//! literals of at most 19 digits near 1, and `toFixed` with up to 3 digits (exact integer arithmetic).
//! Ingest only ever meets these (usage counts are integers), apart from the rare fraction in a tool
//! call's arguments, whose `JSON.stringify` length needs `String(x)`.
//!
//! # The seam: who answers the general cases
//!
//! The rest (a literal of 17 digits, `String(0.1)`, `1e-7`, `toFixed(20)`, whether `0.5` is already
//! canonical, …) goes to `backend`, chosen at compile time, with the same four functions (`parse`,
//! `print`, `to_fixed`, `is_canonical`) in both builds:
//!
//! | build | `backend` | why |
//! |---|---|---|
//! | native, and wasm with `full` | `exact` (`num/exact.rs`): pure Rust, exact, from a small big-integer type | what `cargo test`, the property tests and the Node fixture (`tests/fixtures/numbers`) prove |
//! | wasm without `full` (the pi plugin) | `crate::wasm::numbers`: the JavaScript engine's own `Number(s)`, `String(x)`, `x.toFixed(d)` | JavaScript's semantics by definition, and ~5 KB less module; the cases are rare enough that crossing into JS costs nothing measurable |
//!
//! The plugin's `is_canonical` answers `false` (the literal is then read and printed again, which gives
//! the same text), so it needs no code. The core outside `src/wasm/` never names the binding: this
//! module's `backend` is the only place that does (and `crate::js`'s for dates).

// Digit counts and exponents here stay far below 2^31 (literals keep at most 801 digits, doubles expand
// to at most 1100), so the usize/i32/i64 conversions between them cannot wrap.
#![allow(clippy::cast_possible_wrap)]

use crate::prelude::*;
mod exact;

/// The general cases: the exact Rust code.
use exact as backend;


/// Exact powers of ten as doubles: every one up to 10^22 is representable.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
    1e20, 1e21, 1e22,
];

/// Largest integer a double holds exactly together with all smaller ones.
const EXACT_INT: u64 = 1 << 53;

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

/// Appends `n` in decimal with a point before its last `frac` digits (at least one digit before it).
fn push_fixed(out: &mut String, n: u64, frac: usize) {
    // The higher digits first, by recursion (at most 20 levels, one per digit): no buffer, and division
    // only by the constant 10, so no divide-by-zero panic path.
    if frac > 0 {
        push_fixed(out, n / 10, frac - 1);
        if frac == 1 {
            out.push('.');
        }
    } else if n >= 10 {
        push_fixed(out, n / 10, 0);
    }
    out.push(char::from(b'0' + (n % 10) as u8));
}

/// Whether `x` is an integer below 2^53 in magnitude: those (all below 1e21) print as their own digits.
fn is_small_int(x: f64) -> bool {
    x.abs() < EXACT_INT as f64 && crate::js::trunc(x) == x
}

/// `String(x)` in JavaScript (`Number.prototype.toString()`): shortest round-trip digits, fixed notation
/// for 1e-7 ≤ |x| < 1e21, otherwise `1e+21` / `1.5e-7`; `-0` prints as `0`.
pub fn js_string(x: f64) -> String {
    let mut out = String::new();
    write_js(x, &mut out);
    out
}

/// Appends [`js_string`]`(x)` to `out`.
pub fn write_js(x: f64, out: &mut String) {
    if is_small_int(x) {
        if x < 0.0 {
            out.push('-'); // not for -0, which prints as `0`
        }
        push_fixed(out, x.abs() as u64, 0);
    } else {
        out.push_str(&backend::print(x));
    }
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
    backend::print(x).len()
}

/// `x.toFixed(digits)` in JavaScript, exact for every `digits` up to 100 (JavaScript's own limit; larger
/// values are treated as 100) and |x| < 1e21 (larger values print as `String(x)`, as JavaScript does).
///
/// JavaScript rounds the exact binary value, ties away from zero: `(0.25).toFixed(1)` is `"0.3"` (0.25 is
/// exact), while `(1.005).toFixed(2)` is `"1.00"` (1.005 is stored as 1.00499999999999989…).
pub fn to_fixed(x: f64, digits: u32) -> String {
    to_fixed_small(x, digits).unwrap_or_else(|| backend::to_fixed(x, digits.min(100)))
}

/// [`to_fixed`] for |x| < 2^53 and at most 3 digits, in integer arithmetic: `|x| = m / 2^shift` exactly,
/// so `|x| × 10^digits` is `m × 10^digits` (below 2^63) shifted right, and the bits shifted out tell
/// whether it reaches half a unit (a tie rounds up, away from zero, as JavaScript picks the larger n).
fn to_fixed_small(x: f64, digits: u32) -> Option<String> {
    let scale = *[1, 10, 100, 1000].get(digits as usize)?; // 10^digits, at most 3 digits
    if x.is_nan() || x.abs() >= EXACT_INT as f64 {
        return None;
    }
    let (m, q) = decompose(x.abs().to_bits());
    let scaled = m * scale;
    let shift = q.unsigned_abs(); // below 2^53, q ≤ 0
    let n = match shift {
        0 => scaled,
        1..=63 => (scaled >> shift) + u64::from(scaled & ((1 << shift) - 1) >= 1 << (shift - 1)),
        _ => 0, // below 2^63 / 2^64 = 0.5
    };
    let mut out = String::new();
    if x < 0.0 {
        // `-0` is not below zero, so it prints without a sign; a small negative value rounding to zero keeps it.
        out.push('-');
    }
    push_fixed(&mut out, n, digits as usize);
    Some(out)
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
    let negative = matches!(b.get(start), Some(b'-'));
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
    if matches!(b.get(int_start), Some(b'0')) && int_end > int_start + 1 {
        return Err(int_start + 1); // no leading zeros
    }
    if point.is_some_and(|p| p + 1 == i) {
        return Err(i); // a point needs digits after it
    }
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        let exp_negative = matches!(b.get(i), Some(b'-'));
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

/// The double of a scanned literal; `literal` is its text, read by the general path when no fast one applies.
pub(crate) fn value_of(parts: Parts, literal: &str) -> f64 {
    let magnitude = if parts.mantissa == 0 && !parts.inexact {
        0.0
    } else if let Some(v) = fast_magnitude(parts) {
        v
    } else {
        return backend::parse(literal);
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
/// (1e-307 ≤ |x| < 1e308). `false` is always safe: the caller then reads and prints the number.
///
/// Such a literal needs no conversion: two different decimals of at most 15 significant digits never
/// read as the same normal double (2^52 > 10^15), so no shorter or other equally short digits read back
/// as its value, and the layout is the one JavaScript would choose.
///
/// In the plugin's wasm only integers of at most 15 digits are recognised here (see the module
/// documentation); the others answer `false`.
pub fn is_canonical_literal(literal: &str) -> bool {
    is_plain_canonical(literal.as_bytes()) || backend::is_canonical(literal)
}

/// The common canonical literals, without allocating: integers of at most 15 digits without a leading
/// zero (and `0`, but not `-0`). Larger integers (`1e20` written out) and fractions are canonical too
/// but left to the backend.
fn is_plain_canonical(b: &[u8]) -> bool {
    // A plain loop: at opt-level "z", `strip_prefix` and slice comparisons stay calls with panic paths.
    let (mut digits, mut leading_zero) = (0, false);
    for &c in b.iter().skip(usize::from(matches!(b.first(), Some(b'-')))) {
        if !c.is_ascii_digit() {
            return false;
        }
        leading_zero |= digits == 0 && c == b'0';
        digits += 1;
    }
    (1..=15).contains(&digits) && (!leading_zero || b.len() == 1)
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
            assert_eq!(js_string(x), crate::js::number_to_string(x));
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

    /// Random doubles of every magnitude and some near the fast paths' edges (xorshift, fixed seed).
    fn sample_doubles() -> Vec<f64> {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut xs = vec![0.0, -0.0, 0.5, 0.25, -2.5, 1.005, 0.05, 0.0005, 999.9995, 4_503_599_627_370_495.5, 9e15, 5e-324];
        for _ in 0..5_000 {
            let bits = next();
            xs.push(f64::from_bits(bits)); // any magnitude
            xs.push((bits >> 11) as f64 / (1u64 << (bits % 60)) as f64); // below 2^53, many fraction bits
            xs.push((bits % 100_000) as f64 / [2.0, 8.0, 10.0, 1000.0, 1024.0][(bits % 5) as usize]); // ties
        }
        xs
    }

    #[test]
    fn the_fast_paths_agree_with_the_exact_backend() {
        for x in sample_doubles() {
            for digits in 0..=3 {
                if let Some(fast) = to_fixed_small(x, digits) {
                    assert_eq!(fast, exact::to_fixed(x, digits), "({x:e}).toFixed({digits})");
                }
            }
            if is_small_int(x) {
                assert_eq!(js_string(x), exact::print(x), "{x:e}");
            }
            let printed = exact::print(x);
            if is_plain_canonical(printed.as_bytes()) {
                assert!(exact::is_canonical(&printed), "{printed}");
            }
        }
    }

    #[test]
    fn plain_canonical_literals_are_canonical() {
        let yes = ["0", "7", "-12", "123456789012345", "-100000000000000"];
        let no = ["-0", "00", "01", "-01", "1234567890123456", "1.5", "0.", ".5", "-", "", "1e5", "0.0", "1-", "abc"];
        for lit in yes {
            assert!(is_plain_canonical(lit.as_bytes()), "{lit}");
            assert!(exact::is_canonical(lit), "{lit}");
        }
        for lit in no {
            assert!(!is_plain_canonical(lit.as_bytes()), "{lit}");
        }
    }
}
