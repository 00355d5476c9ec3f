//! Numbers the JavaScript way, against Node itself: every row of `tests/fixtures/numbers/node-numbers.tsv`,
//! written by `tests/json/gen-numbers.mjs` (`String(x)`, `x.toFixed(0..3)`, `JSON.parse(literal)` as Node
//! answers them). Printing is ryu-js (`js::number_to_string`) with a thin `toFixed` wrapper
//! (`js::to_fixed`); reading is `serde_json`, or `str::parse` where `serde_json` refuses a literal
//! JavaScript reads (beyond the double range: ±Infinity).

use pi_tree_navigator::js;
use pi_tree_navigator::session::wire::{Js, Loose};
use serde_json::value::RawValue;

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
                if js::number_to_string(x) != *string {
                    failures.push(format!("line {}: String({hex}) = {string}, got {}", line_no + 1, js::number_to_string(x)));
                }
                let json_len = if x.is_finite() { string.len() } else { 4 };
                if js::number_json_len(x) != json_len {
                    failures.push(format!("line {}: JSON.stringify({string}).length = {json_len}", line_no + 1));
                }
                for (digits, want) in fixed.iter().enumerate() {
                    let got = js::to_fixed(x, digits as u8);
                    if got != *want {
                        failures.push(format!("line {}: ({string}).toFixed({digits}) = {want}, got {got}", line_no + 1));
                    }
                }
                printed += 1;
            }
            ["P", literal, hex] => {
                let want = bits(hex);
                // The reader's direct pass (`serde_json`), when it takes the literal …
                if let Ok(Js::Num(got)) = serde_json::from_str::<Js<'_>>(literal) {
                    if got.to_bits() != want.to_bits() {
                        failures.push(format!("line {}: serde_json read {literal} as {:016x}, not {hex}", line_no + 1, got.to_bits()));
                    }
                }
                // … and its JSON.parse pass, which takes every literal.
                let raw: &RawValue = serde_json::from_str(literal).expect("fixture literals are JSON");
                match Loose::read(raw) {
                    Ok(Loose::Num(got)) if got.to_bits() == want.to_bits() => {}
                    other => failures.push(format!("line {}: JSON.parse({literal}) = {hex}, got {other:?}", line_no + 1)),
                }
                parsed += 1;
            }
            _ => panic!("line {}: unknown row {line:?}", line_no + 1),
        }
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
    assert!(printed > 4000 && parsed > 900, "fixture too small: {printed} printed, {parsed} parsed");
}
