//! Property tests of the core on hostile sessions (generator: `tests/fuzz/gen.rs`, shared with the
//! cargo-fuzz targets in `fuzz/`). The default run is short (256 cases per property, a few seconds);
//! `PROPTEST_CASES=100000 cargo test --release --test prop_session` runs a long campaign.
//!
//! Every case: no panic; every nonblank line either taken or reported with its line number; plugin and
//! full mode agree; chunked feeding equals feeding at once; every query and every tool decision answers.

#[path = "fuzz/gen.rs"]
mod gen;

use proptest::prelude::*;

fn config() -> ProptestConfig {
    ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config())]

    /// Structured hostile sessions (entry types, wrong field types, duplicate ids, cycles, unicode).
    #[test]
    fn hostile_sessions(data in proptest::collection::vec(any::<u8>(), 0..3000)) {
        gen::check(&data);
    }

    /// Raw bytes as JSONL (mostly malformed lines), through the same checks.
    #[test]
    fn raw_bytes(data in proptest::collection::vec(any::<u8>(), 0..2000)) {
        let text = String::from_utf8_lossy(&data);
        let mut index = pi_tree_navigator::session::SessionIndex::new(pi_tree_navigator::session::Mode::Plugin);
        let report = index.append_jsonl(&text);
        let bad: Vec<usize> = gen::numbered_lines(&text)
            .iter()
            .filter(|(_, l)| pi_tree_navigator::session::SessionIndex::check_line(l).is_err())
            .map(|(n, _)| *n)
            .collect();
        prop_assert_eq!(report.skipped.iter().map(|s| s.line).collect::<Vec<_>>(), bad);
        let _ = index.estimate(pi_tree_navigator::session::Leaf::Current);
        let _ = index.tree_rows();
    }
}

/// The committed fuzz corpus seeds (fuzz/seeds/*) pass the checks too, so a seed that once found a bug
/// stays a regression test.
#[test]
fn corpus_seeds() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let data = std::fs::read(entry.path()).expect("seed");
        gen::check(&data);
        n += 1;
    }
    assert!(n == 0 || n >= 8, "fuzz/seeds holds {n} seeds");
}
