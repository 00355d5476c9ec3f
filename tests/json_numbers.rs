//! `json::num` against Node itself: every row of `tests/fixtures/numbers/node-numbers.tsv`, written by
//! `tests/json/gen-numbers.mjs` (String(x), x.toFixed(0..3), JSON.parse(literal) as Node answers them).

use pi_tree_navigator::json::{self, num};

const FIXTURE: &str = include_str!("fixtures/numbers/node-numbers.tsv");

fn bits(hex: &str) -> f64 {
    f64::from_bits(u64::from_str_radix(hex, 16).expect("fixture bits are hex"))
}

#[test]
fn every_fixture_row_matches_node() {
    let (mut printed, mut parsed, mut failures) = (0, 0, Vec::new());
    for (line_no, line) in FIXTURE.lines().enumerate() {
        let cols: Vec<&str> = line.split('\t').collect();
        match cols.as_slice() {
            ["N", hex, string, fixed @ ..] => {
                let x = bits(hex);
                if num::js_string(x) != *string || num::js_len(x) != string.len() {
                    failures.push(format!("line {}: String({hex}) = {string}, got {}", line_no + 1, num::js_string(x)));
                }
                for (digits, want) in fixed.iter().enumerate() {
                    let got = num::to_fixed(x, digits as u32);
                    if got != *want {
                        failures.push(format!("line {}: ({string}).toFixed({digits}) = {want}, got {got}", line_no + 1));
                    }
                }
                // A number read back from its JS text is the same double, and a value holding it writes that text.
                if x.is_finite() {
                    if num::parse(string).to_bits() != (x + 0.0).to_bits() {
                        failures.push(format!("line {}: parse({string}) is not {hex}", line_no + 1));
                    }
                    assert_eq!(json::Value::from(x).to_json(), *string);
                }
                printed += 1;
            }
            ["P", literal, hex] => {
                let want = bits(hex);
                let got = num::parse(literal);
                if got.to_bits() != want.to_bits() {
                    failures.push(format!("line {}: JSON.parse({literal}) = {hex}, got {:016x}", line_no + 1, got.to_bits()));
                }
                let v = json::parse(literal, 1).expect("fixture literals are JSON");
                assert_eq!(v.as_f64().map(f64::to_bits), Some(want.to_bits()), "{literal}");
                parsed += 1;
            }
            _ => panic!("line {}: unknown row {line:?}", line_no + 1),
        }
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
    assert!(printed > 4000 && parsed > 900, "fixture too small: {printed} printed, {parsed} parsed");
}

#[test]
fn printing_agrees_with_the_existing_helper_on_random_bits() {
    // `js::number_to_js_string` (core::fmt based) is the older oracle. Both must give shortest digits that
    // read back as the same double; they may differ only on exact ties, where ECMAScript takes the even
    // digit and core::fmt does not (e.g. -1149636667324797.25, in the Node fixture: Node prints …797.2).
    let (mut state, mut ties) = (0x2545_f491_4f6c_dd1du64, 0);
    for _ in 0..200_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let x = f64::from_bits(state);
        let (ours, theirs) = (num::js_string(x), pi_tree_navigator::js::number_to_js_string(x));
        assert_eq!(ours.len(), theirs.len(), "{state:016x}");
        assert_eq!(num::js_len(x), ours.len());
        if x.is_finite() {
            assert_eq!(num::parse(&ours).to_bits(), (x + 0.0).to_bits(), "{state:016x}");
        }
        if ours != theirs {
            let last = |s: &str| s.bytes().rev().find(u8::is_ascii_digit).unwrap_or(b'0');
            assert!(last(&ours) % 2 == 0 && last(&ours).abs_diff(last(&theirs)) == 1, "{state:016x}: {ours} vs {theirs}");
            ties += 1;
        }
    }
    assert!(ties < 100, "{ties} ties");
}
