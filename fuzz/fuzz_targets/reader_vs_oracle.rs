//! The session reader against the independent oracle of `tests/oracle` (as `tests/read_vs_oracle.rs`
//! does): lines from the oracle's generator seeded by the input, and the input itself as a line.
#![no_main]

#[path = "../../tests/common/mod.rs"]
mod common;
#[path = "../../tests/oracle/mod.rs"]
mod oracle;

use pi_tree_navigator::session::parse_line;
use pi_tree_navigator::session::wire::nesting_depth;

fn check(line: &str) {
    for legacy in [false, true] {
        assert_eq!(oracle::same(parse_line(line, legacy)), oracle::same(oracle::oracle(line, legacy)), "{line}");
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut seed = [0u8; 8];
    let n = data.len().min(8);
    seed[..n].copy_from_slice(&data[..n]);
    let mut rng = common::Rng(u64::from_le_bytes(seed) | 1);
    for _ in 0..4 {
        check(&rng.line());
    }
    // Raw input as a line, where the oracle's text rewrites are exact: no escapes (its surrogate masking
    // would meet U+0001/U+FFFD look-alikes) and shallow (it recurses without a limit).
    if let Ok(text) = std::str::from_utf8(data) {
        if !text.contains(['\\', '\n', '\u{1}', '\u{fffd}']) && nesting_depth(text) < 100 {
            check(text.trim());
        }
    }
});
