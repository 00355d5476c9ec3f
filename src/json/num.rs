//! Numbers as JavaScript reads and prints them, without `core::fmt` float formatting.
//!
//! Printing (`Number.prototype.toString`) takes the shortest round-trip digits from `ryu` (built with
//! its small tables) and lays them out the ECMAScript way; `toFixed` is integer arithmetic on the exact
//! binary value. Reading takes the exact fast paths (integers, Clinger's algorithm) and leaves the rare
//! remainder (more than 19 significant digits, or an exponent a single multiplication cannot absorb) to
//! `str::parse`, which is correctly rounded like `JSON.parse`.

/// Exact powers of ten as doubles: every one up to 10^22 is representable.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
    1e20, 1e21, 1e22,
];

/// Largest integer a double holds exactly together with all smaller ones.
const EXACT_INT: u64 = 1 << 53;

/// The longest JavaScript number text: `-0.00000` plus 17 digits (25 bytes); `-1.2345678901234567e-308`
/// is 24.
const MAX_LEN: usize = 32;

/// A number printed into a fixed buffer, so measuring or appending it allocates nothing.
struct Printed {
    buf: [u8; MAX_LEN],
    len: usize,
}

impl Printed {
    fn new() -> Self {
        Printed { buf: [0; MAX_LEN], len: 0 }
    }

    fn push(&mut self, b: u8) {
        // The layouts below never exceed MAX_LEN; a silent cap keeps this panic-free regardless.
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = b;
            self.len += 1;
        }
    }

    fn push_all(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.push(b);
        }
    }

    fn zeros(&mut self, n: i32) {
        for _ in 0..n {
            self.push(b'0');
        }
    }

    fn as_str(&self) -> &str {
        // Only ASCII is ever pushed.
        core::str::from_utf8(&self.buf[..self.len]).unwrap_or("NaN")
    }
}

/// Shortest round-trip decimal digits of a positive finite `x`: `(digits, n)` with
/// `x ≈ 0.d1d2…dk × 10^n`, as ECMAScript's `Number::toString` defines `s`, `k` and `n`.
fn shortest_digits(x: f64, digits: &mut [u8; 17]) -> (usize, i32) {
    let mut ryu_buf = ryu::Buffer::new();
    // ryu prints either `123.45`, `0.00012` or `1.2e-7` / `1e21`; read its digits and exponent back.
    let text = ryu_buf.format_finite(x).as_bytes();
    let (mut k, mut frac_digits, mut in_frac, mut exp, mut exp_neg, mut in_exp) = (0usize, 0i32, false, 0i32, false, false);
    for &b in text {
        match b {
            b'.' => in_frac = true,
            b'e' | b'E' => in_exp = true,
            b'-' if in_exp => exp_neg = true,
            b'0'..=b'9' if in_exp => exp = exp * 10 + i32::from(b - b'0'),
            b'0'..=b'9' => {
                if in_frac {
                    frac_digits += 1;
                }
                // Leading zeros carry no value; ryu gives at most 17 significant digits.
                if (k > 0 || b != b'0') && k < digits.len() {
                    digits[k] = b;
                    k += 1;
                } else if k >= digits.len() && !in_frac {
                    exp += 1; // unreachable for ryu output, kept so the value stays right
                }
            }
            _ => {}
        }
    }
    if exp_neg {
        exp = -exp;
    }
    // Value = digits × 10^(exp - frac_digits); strip trailing zeros (ryu writes `123.0`, `100.0`).
    let mut scale = exp - frac_digits;
    while k > 1 && digits[k - 1] == b'0' {
        k -= 1;
        scale += 1;
    }
    (k, i32::try_from(k).unwrap_or(0) + scale)
}

#[allow(clippy::many_single_char_names, reason = "the names ECMAScript's Number::toString uses")]
fn print_js(x: f64) -> Printed {
    let mut out = Printed::new();
    if x.is_nan() {
        out.push_all(b"NaN");
        return out;
    }
    if x < 0.0 {
        out.push(b'-');
    }
    let x = x.abs();
    if x.is_infinite() {
        out.push_all(b"Infinity");
        return out;
    }
    if x == 0.0 {
        // Also -0: the sign was pushed only for x < 0, which -0 is not.
        out.push(b'0');
        return out;
    }
    let mut digits = [0u8; 17];
    let (k, n) = shortest_digits(x, &mut digits);
    let d = &digits[..k];
    let k = i32::try_from(k).unwrap_or(0);
    if k <= n && n <= 21 {
        out.push_all(d);
        out.zeros(n - k);
    } else if 0 < n && n <= 21 {
        out.push_all(&d[..n as usize]);
        out.push(b'.');
        out.push_all(&d[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.push_all(b"0.");
        out.zeros(-n);
        out.push_all(d);
    } else {
        out.push(d[0]);
        if k > 1 {
            out.push(b'.');
            out.push_all(&d[1..]);
        }
        let e = n - 1;
        out.push(b'e');
        out.push(if e < 0 { b'-' } else { b'+' });
        push_uint(&mut out, u64::from(e.unsigned_abs()));
    }
    out
}

fn push_uint(out: &mut Printed, mut v: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.push_all(&tmp[i..]);
}

/// `String(x)` in JavaScript (`Number.prototype.toString()`): shortest round-trip digits, fixed notation
/// for 1e-7 ≤ |x| < 1e21, otherwise `1e+21` / `1.5e-7`; `-0` prints as `0`.
pub fn js_string(x: f64) -> String {
    print_js(x).as_str().to_owned()
}

/// Appends [`js_string`]`(x)` to `out` without an intermediate allocation.
pub fn write_js(x: f64, out: &mut String) {
    out.push_str(print_js(x).as_str());
}

/// `String(x).length`, without allocating; integers below 2^53 are counted directly.
pub fn js_len(x: f64) -> usize {
    if x.fract() == 0.0 && x.abs() < EXACT_INT as f64 {
        // Integers up to 2^53 < 1e21 print as plain digits; -0 prints as `0`.
        let mut v = x.abs() as u64;
        let mut len = usize::from(x < 0.0) + 1;
        while v >= 10 {
            v /= 10;
            len += 1;
        }
        return len;
    }
    print_js(x).len
}

/// `x.toFixed(digits)` in JavaScript, exact for `digits` up to 17 and |x| < 1e21 (larger values print as
/// `String(x)`, as JavaScript does). Larger `digits` are treated as 17.
///
/// JavaScript rounds the exact binary value, ties away from zero: `(0.25).toFixed(1)` is `"0.3"` (0.25 is
/// exact), while `(1.005).toFixed(2)` is `"1.00"` (1.005 is stored as 1.00499999999999989…).
#[allow(clippy::many_single_char_names, reason = "the names ECMAScript's Number.prototype.toFixed uses")]
pub fn to_fixed(x: f64, digits: u32) -> String {
    if !x.is_finite() || x.abs() >= 1e21 {
        return js_string(x);
    }
    let f = digits.min(17);
    let mut out = String::new();
    if x < 0.0 {
        // `-0` is not below zero, so it prints without a sign; a small negative value rounding to zero keeps it.
        out.push('-');
    }
    // |x| = m × 2^e exactly, with m < 2^53.
    let bits = x.abs().to_bits();
    let exp_bits = ((bits >> 52) & 0x7FF) as i32;
    let frac = bits & ((1 << 52) - 1);
    let (m, e) = if exp_bits == 0 { (frac, -1074) } else { (frac | (1 << 52), exp_bits - 1075) };
    let scale = 10u128.pow(f);
    // n = round-half-up(m × 2^e × 10^f). |x| < 1e21 < 2^70 and 10^17 < 2^57 keep every product in a u128.
    let n: u128 = if e >= 0 {
        (u128::from(m) << e) * scale
    } else {
        let shift = e.unsigned_abs();
        let scaled = u128::from(m) * scale; // < 2^110
        if shift >= 120 {
            0 // scaled / 2^shift < 2^-10: rounds to zero
        } else {
            (scaled + (1u128 << (shift - 1))) >> shift
        }
    };
    let text = n.to_string();
    let f = f as usize;
    if f == 0 {
        out.push_str(&text);
    } else if text.len() <= f {
        out.push_str("0.");
        for _ in text.len()..f {
            out.push('0');
        }
        out.push_str(&text);
    } else {
        let (int, dec) = text.split_at(text.len() - f);
        out.push_str(int);
        out.push('.');
        out.push_str(dec);
    }
    out
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
    let mut i = start;
    let negative = b.get(i) == Some(&b'-');
    if negative {
        i += 1;
    }
    let (mut mantissa, mut exp10, mut inexact) = (0u64, 0i64, false);
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            while let Some(&c @ b'0'..=b'9') = b.get(i) {
                if mantissa < MANT_LIMIT {
                    mantissa = mantissa * 10 + u64::from(c - b'0');
                } else {
                    exp10 += 1;
                    inexact |= c != b'0';
                }
                i += 1;
            }
        }
        _ => return Err(i),
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        let first = i;
        while let Some(&c @ b'0'..=b'9') = b.get(i) {
            if mantissa < MANT_LIMIT {
                mantissa = mantissa * 10 + u64::from(c - b'0');
                exp10 -= 1;
            } else {
                inexact |= c != b'0';
            }
            i += 1;
        }
        if i == first {
            return Err(i);
        }
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
        // Correctly rounded, ±Infinity beyond the range; the grammar was already checked.
        return literal.parse::<f64>().unwrap_or(f64::NAN);
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
        23..=37 => {
            // `123e30` = 123000000 × 1e22 exactly, as long as the shifted mantissa stays exact.
            let shifted = p.mantissa.checked_mul(10u64.pow((p.exp10 - 22) as u32))?;
            (shifted <= EXACT_INT).then(|| shifted as f64 * POW10[22])
        }
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

/// Whether `literal` (a valid JSON number) already is the text `String(JSON.parse(literal))` gives, judged
/// cheaply: an integer without leading zeros or exponent, at most 15 digits, and not `-0`.
pub(crate) fn is_canonical_int(literal: &str) -> bool {
    let digits = literal.strip_prefix('-').unwrap_or(literal);
    digits.len() <= 15 && digits.bytes().all(|b| b.is_ascii_digit()) && (digits != "0" || literal == "0")
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
    fn canonical_integers_are_recognised() {
        assert!(is_canonical_int("0"));
        assert!(is_canonical_int("-12"));
        assert!(is_canonical_int("123456789012345"));
        assert!(!is_canonical_int("1234567890123456"));
        assert!(!is_canonical_int("-0"));
        assert!(!is_canonical_int("1e3"));
        assert!(!is_canonical_int("1.0"));
    }
}
