//! The reader (`session::wire` + `session::read`: `serde_json`, typed borrowed structs, the `JSON.parse`
//! shim) must give exactly what an independent oracle (`tests/oracle`) gives on every line: on the
//! fixtures and on many random lines in the shapes pi writes plus odd ones.

use std::path::Path;

mod common;
mod oracle;
use common::Rng;
use oracle::{oracle, same};

use pi_tree_navigator::session::parse_line;

#[test]
fn ingest_agrees_with_the_oracle_on_random_lines() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for i in 0..20_000 {
        let line = rng.line();
        for legacy in [false, true] {
            assert_eq!(same(parse_line(&line, legacy)), same(oracle(&line, legacy)), "line {i}: {line}");
        }
    }
}

#[test]
fn ingest_agrees_with_the_oracle_on_every_fixture_line() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut lines = 0;
    for file in std::fs::read_dir(&dir).unwrap() {
        let path = file.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
            continue;
        }
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let line = line.trim();
            assert_eq!(same(parse_line(line, false)), same(oracle(line, false)), "{}: {line}", path.display());
            lines += 1;
        }
    }
    assert!(lines > 200, "{lines}");
}
