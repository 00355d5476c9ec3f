//! Numbers as the reader and the printers handle them (`serde_json` with `float_roundtrip`, ryu-js,
//! `js::to_fixed`) against the standard library, which reads and prints doubles exactly
//! (`str::parse::<f64>` is correctly rounded; `{:e}` prints the shortest round-trip digits; `{:.N}` prints
//! exact digits).
//!
//! Cases per property: 256 by default (`PROPTEST_CASES` for more); the printing sweep always covers
//! 100 000 random bit patterns.

use pi_tree_navigator::js;
use pi_tree_navigator::session::wire::{Js, Loose};
use serde_json::value::RawValue;

/// A literal as the session reader takes it: `serde_json`'s direct pass when it takes it, and the
/// `JSON.parse` pass (which takes every literal); the two must agree.
fn parse(literal: &str) -> f64 {
    let raw: &RawValue = serde_json::from_str(literal).unwrap();
    let Ok(Loose::Num(loose)) = Loose::read(raw) else { panic!("{literal}") };
    if let Ok(Js::Num(direct)) = serde_json::from_str::<Js<'_>>(literal) {
        assert_eq!(direct.to_bits(), loose.to_bits(), "{literal}");
    }
    loose
}
use proptest::prelude::*;

fn config() -> ProptestConfig {
    ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() }
}

/// A JSON number literal: `-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?` with up to 40 digits in each part and
/// exponents that reach past both ends of the double range.
fn literal() -> impl Strategy<Value = String> {
    let digits = |n| proptest::collection::vec(0u8..10, 1..n);
    (
        any::<bool>(),
        digits(41),
        proptest::option::of(digits(41)),
        proptest::option::of((any::<bool>(), -420i32..420)),
    )
        .prop_map(|(neg, int, frac, exp)| {
            let mut s = String::from(if neg { "-" } else { "" });
            // No leading zeros in the integer part: a leading 0 stands alone.
            let int: String = int.iter().map(|d| char::from(b'0' + d)).collect();
            s.push_str(if int.starts_with('0') { "0" } else { &int });
            if let Some(frac) = frac {
                s.push('.');
                s.extend(frac.iter().map(|d| char::from(b'0' + d)));
            }
            if let Some((upper, e)) = exp {
                s.push(if upper { 'E' } else { 'e' });
                s.push_str(&e.to_string());
            }
            s
        })
}

/// The exact decimal value of a finite double in fixed notation (no double needs more than 1074
/// fractional digits).
fn exact(x: f64) -> String {
    format!("{x:.1100}")
}

/// `(a + b) / 2` for two nonnegative fixed-notation decimals with the same number of fractional digits.
fn midpoint(lower: &str, upper: &str) -> String {
    let (ai, af) = lower.split_once('.').unwrap();
    let (bi, bf) = upper.split_once('.').unwrap();
    assert_eq!(af.len(), bf.len());
    let width = ai.len().max(bi.len()) + 1;
    let digits = |i: &str, f: &str| -> Vec<u32> {
        let mut v = vec![0; width - i.len()];
        v.extend(i.bytes().chain(f.bytes()).map(|c| u32::from(c - b'0')));
        v
    };
    let (left, right) = (digits(ai, af), digits(bi, bf));
    let mut sum = vec![0; left.len()];
    let mut carry = 0;
    for k in (0..left.len()).rev() {
        let t = left[k] + right[k] + carry;
        sum[k] = t % 10;
        carry = t / 10;
    }
    // Halve, one more fractional digit for the remainder.
    sum.push(0);
    let mut rem = 0;
    for d in &mut sum {
        let t = rem * 10 + *d;
        *d = t / 2;
        rem = t % 2;
    }
    let text: String = sum.iter().map(|&d| char::from(b'0' + d as u8)).collect();
    let (int, frac) = text.split_at(width);
    let int = int.trim_start_matches('0');
    let frac = frac.trim_end_matches('0');
    format!("{}{}{frac}", if int.is_empty() { "0" } else { int }, if frac.is_empty() { "" } else { "." })
}

/// Shortest digits of `x` per std (`{:e}`), and the decimal exponent.
fn std_digits(x: f64) -> String {
    let sci = format!("{:e}", x.abs());
    sci.split('e').next().unwrap().replace('.', "")
}

/// The significant digits of a number printed by `js::number_to_string`.
fn js_digits(s: &str) -> String {
    let mantissa = s.split('e').next().unwrap();
    let d: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let d = d.trim_start_matches('0');
    // Integers print their trailing zeros; std's digits have none.
    if mantissa.contains('.') { d.to_string() } else { d.trim_end_matches('0').to_string() }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn parse_matches_std(lit in literal()) {
        let want: f64 = lit.parse().unwrap();
        prop_assert_eq!(parse(&lit).to_bits(), want.to_bits(), "{}", lit);
    }

    /// Literals exactly halfway between two neighbouring doubles (ties to the even one), and a hair above
    /// and below: hundreds of digits, far past the 800 the reader keeps for the hair cases.
    #[test]
    fn halfway_literals_round_to_even(bits in 0u64..0x7FEF_FFFF_FFFF_FFFF, scale in 0u32..4) {
        // Spread over magnitudes: raw bits favour huge and tiny exponents equally; also force subnormals.
        let bits = if scale == 0 { bits & 0x000F_FFFF_FFFF_FFFF } else { bits };
        let (x, up) = (f64::from_bits(bits), f64::from_bits(bits + 1));
        let mid = midpoint(&exact(x), &exact(up));
        let even = if bits % 2 == 0 { x } else { up };
        prop_assert_eq!(mid.parse::<f64>().unwrap().to_bits(), even.to_bits(), "std on {}", mid);
        prop_assert_eq!(parse(&mid).to_bits(), even.to_bits(), "{}", mid);
        let above = format!("{mid}{}1", if mid.contains('.') { "000" } else { ".000" });
        prop_assert_eq!(parse(&above).to_bits(), up.to_bits(), "{}", above);
        // Just below: the last digit one less (borrowing), then many nines. A fractional midpoint ends in
        // 5 (an odd number of half units), so only integer midpoints can borrow.
        let mut below: Vec<u8> = mid.clone().into_bytes();
        for d in below.iter_mut().rev() {
            if *d == b'0' {
                *d = b'9';
            } else {
                *d -= 1;
                break;
            }
        }
        let mut below = String::from_utf8(below).unwrap();
        if below.len() > 1 && below.starts_with('0') && !below.starts_with("0.") {
            below.remove(0);
        }
        below.push_str(if mid.contains('.') { "" } else { "." });
        below.push_str(&"9".repeat(900));
        prop_assert_eq!(parse(&below).to_bits(), x.to_bits(), "{}", below);
        let neg = format!("-{mid}e0");
        prop_assert_eq!(parse(&neg).to_bits(), (-even).to_bits());
    }

    #[test]
    fn to_fixed_matches_the_exact_value(
        x in prop_oneof![
            // Any double below 1e21 in magnitude (its bits are below 0x4440…), either sign.
            (0u64..0x4440_0000_0000_0000, any::<bool>()).prop_map(|(b, neg)| f64::from_bits(b | u64::from(neg) << 63)),
            // Short decimals and binary fractions, where ties and carries (0.125, 9.9995) happen.
            (any::<u32>(), 0i32..8).prop_map(|(n, k)| f64::from(n) / 10f64.powi(k)),
            (any::<u32>(), 0i32..12).prop_map(|(n, k)| -f64::from(n) / 2f64.powi(k)),
        ],
        f in 0u32..=3,
    ) {
        prop_assert!(x.abs() < 1e21);
        let ours = js::to_fixed(x, f as u8);
        // std rounds exact ties to even, JavaScript away from zero; anything else must agree.
        let theirs = format!("{x:.0$}", f as usize);
        if ours != theirs {
            let e = exact(x.abs());
            let tail = &e[e.find('.').unwrap() + 1 + f as usize..];
            prop_assert!(tail.starts_with('5') && tail[1..].bytes().all(|c| c == b'0'), "{x}: {ours} vs {theirs}");
        }
    }
}

#[test]
fn printing_is_shortest_and_round_trips_on_random_bits() {
    let (mut state, mut ties) = (0x9E37_79B9_7F4A_7C15u64, 0);
    let mut check = |x: f64| {
        let s = js::number_to_string(x);
        assert_eq!(js::number_json_len(x), if x.is_finite() { s.len() } else { 4 });
        if !x.is_finite() {
            return;
        }
        let back: f64 = s.parse().unwrap();
        assert_eq!(back.to_bits(), (x + 0.0).to_bits(), "{x:e} printed {s}");
        if x == 0.0 {
            return;
        }
        let (ours, shortest) = (js_digits(&s), std_digits(x));
        assert_eq!(ours.len(), shortest.len(), "{x:e} printed {s}: not the shortest");
        if ours != shortest {
            // Equally short and both read back: JavaScript takes the one closer to x, the even one on an
            // exact tie. Either way x's exact expansion decides: it must be a tie here (digit k+1 is the
            // last nonzero one and a 5), with ours even.
            let e = format!("{:.1100e}", x.abs());
            let exact_digits = e.split('e').next().unwrap().replace('.', "");
            let exact_digits = exact_digits.trim_end_matches('0');
            assert!(exact_digits.len() == ours.len() + 1 && exact_digits.ends_with('5'), "{x:e}: {s} vs {shortest}");
            assert!(ours.bytes().last().unwrap() % 2 == 0, "{x:e}: {s}");
            ties += 1;
        }
    };
    for _ in 0..100_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        check(f64::from_bits(state));
        // Random bits are mostly 16–17 digit numbers far from 1; also take short decimals near 1.
        check((state % 1_000_000) as f64 / 10f64.powi((state >> 60) as i32));
    }
    assert!(ties < 100, "{ties} ties");
}
