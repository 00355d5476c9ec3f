//! Raw bytes as a session file: loading, feeding and every query must answer, and every nonblank line
//! that does not parse is reported with its number.
#![no_main]

#[path = "../../tests/fuzz/gen.rs"]
mod gen;

use pi_tree_navigator::session::{Leaf, Mode, SessionIndex};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut index = SessionIndex::new(Mode::Full);
    let report = index.append_jsonl(&text);
    let bad: Vec<usize> =
        gen::numbered_lines(&text).iter().filter(|(_, l)| SessionIndex::check_line(l).is_err()).map(|(n, _)| *n).collect();
    assert_eq!(report.skipped.iter().map(|s| s.line).collect::<Vec<_>>(), bad);
    let _ = index.estimate(Leaf::Current);
    let _ = index.anchors(Leaf::Current);
    let _ = index.context_json(Leaf::Current);
    let _ = index.tree_rows();
    let _ = index.render_tree();
    let _ = index.stats(0.0);
    let mut loaded = SessionIndex::new(Mode::Plugin);
    let _ = loaded.load_file(&text);
    let _ = loaded.estimate(Leaf::Current);
});
