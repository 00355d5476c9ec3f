//! The tree as columns (`SessionIndex::tree_columns`, what the viewer builds its page from) is the tree as
//! rows (`tree_rows`) read column by column: the same ids, kinds, depths, child counts, subtree ends, active
//! path, leaf, labels and tokens, row for row. Its parent column names the row whose subtree holds the row,
//! so every subtree is the contiguous run `parent < row < end[parent]`, and its filter bits give what
//! `tree_filter` gives for each of pi's `/tree` modes. On every fixture, on random
//! sessions, and on files whose parent ids repeat, loop or point nowhere.

mod common;
#[path = "common/sessions.rs"]
mod sessions;

use common::Rng;
use pi_tree_navigator::session::{Mode, SessionIndex, TreeColumns, TreeFilter, TreeRow};
use sessions::{fixture_files, random_session};

fn load(text: &str) -> SessionIndex {
    let mut index = SessionIndex::new(Mode::Full);
    index.load_file_bytes(text.as_bytes()).expect("a fresh index loads");
    index
}

/// Row `i`'s id from the one string of ids, cut where JavaScript's `slice` would cut it (UTF-16 units).
fn id_at(cols: &TreeColumns, i: usize) -> String {
    let units: Vec<u16> = cols.ids.encode_utf16().collect();
    let start = if i == 0 { 0 } else { cols.id_ends[i - 1] as usize };
    String::from_utf16(&units[start..cols.id_ends[i] as usize]).expect("an id is whole UTF-16")
}

fn same_number(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

/// Checks `cols` against `rows` row by row; `what` names the session in a failure.
fn check(what: &str, rows: &[TreeRow], cols: &TreeColumns) {
    let n = rows.len();
    for (name, len) in [
        ("slots", cols.slots.len()),
        ("id_ends", cols.id_ends.len()),
        ("parent", cols.parent.len()),
        ("depth", cols.depth.len()),
        ("children", cols.children.len()),
        ("end", cols.end.len()),
        ("active", cols.active.len()),
        ("kind", cols.kind.len()),
        ("tokens", cols.tokens.len()),
    ] {
        assert_eq!(len, n, "{what}: column {name}");
    }
    let mut labels = cols.labels.iter().peekable();
    for (i, row) in rows.iter().enumerate() {
        let at = format!("{what}: row {i} ({row:?})");
        assert_eq!(cols.slots[i], row.slot, "{at}");
        assert_eq!(id_at(cols, i), row.id, "{at}");
        let kind = &cols.kinds[cols.kind[i] as usize];
        assert_eq!((kind.ty.as_str(), kind.role.as_deref()), (row.ty.as_str(), row.role.as_deref()), "{at}");
        assert_eq!((cols.depth[i], cols.children[i], cols.end[i]), (row.depth, row.children, row.end), "{at}");
        assert_eq!(cols.active[i] == 1, row.active, "{at}");
        assert_eq!(cols.leaf == Some(i as u32), row.leaf, "{at}");
        assert!(same_number(cols.tokens[i], row.tokens), "{at}: tokens {}", cols.tokens[i]);
        match labels.next_if(|l| l.row == i as u32) {
            Some(l) => assert_eq!((Some(&l.label), l.anchor.as_ref()), (row.label.as_ref(), row.anchor.as_ref()), "{at}"),
            None => assert_eq!(row.label, None, "{at}: a label the columns lack"),
        }
        // The subtree of every row is the run right after it, inside its parent's.
        let end = cols.end[i] as usize;
        assert!(i < end && end <= n, "{at}: end {end} of {n}");
        match usize::try_from(cols.parent[i]) {
            Ok(p) => {
                assert!(p < i && end <= cols.end[p] as usize, "{at}: parent row {p}");
                assert_eq!(row.parent_id.as_deref(), Some(rows[p].id.as_str()), "{at}: the parent row's id");
            }
            Err(_) => assert_eq!(cols.depth[i], rows[0].depth, "{at}: a root sits at the roots' depth"),
        }
    }
    assert!(labels.next().is_none(), "{what}: labels past the rows");
    // The roots' subtrees tile the rows.
    let mut at = 0;
    while at < n {
        assert_eq!(cols.parent[at], -1, "{what}: row {at} starts a root's run");
        at = cols.end[at] as usize;
    }
}

fn check_text(what: &str, text: &str) {
    let mut index = load(text);
    let rows = index.tree_rows().expect("rows");
    let cols = index.tree_columns().expect("columns");
    check(what, &rows, &cols);
    // pi's /tree filters from the columns' bits are the index's own, mode by mode.
    for filter in [TreeFilter::Default, TreeFilter::NoTools, TreeFilter::UserOnly, TreeFilter::LabeledOnly, TreeFilter::All] {
        assert_eq!(cols.filter(filter), index.tree_filter(filter).expect("filter"), "{what}: {filter:?}");
    }
}

#[test]
fn columns_are_the_rows_of_every_fixture() {
    for file in fixture_files() {
        let text = String::from_utf8_lossy(&std::fs::read(&file).unwrap()).into_owned();
        check_text(&file.display().to_string(), &text);
    }
}

#[test]
fn columns_are_the_rows_of_random_sessions() {
    let mut rng = Rng(0x7ee_c01);
    for n in 0..300 {
        check_text(&format!("random session {n}"), &random_session(&mut rng));
    }
}

#[test]
fn columns_hold_when_parent_ids_repeat_loop_or_point_nowhere() {
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;
    let entry = |id: &str, parent: Option<&str>| {
        let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
        format!(r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"user","content":"{id}"}}}}"#)
    };
    let cases: [&[(&str, Option<&str>)]; 4] = [
        // a loop of two and a child of the loop, then the leaf's own root (a leaf in a loop is an error)
        &[("a", Some("b")), ("b", Some("a")), ("c", Some("a")), ("r", None), ("s", Some("r"))],
        // an entry that is its own parent, next to a plain root with a branch
        &[("r", None), ("x", Some("x")), ("r1", Some("r")), ("r2", Some("r"))],
        // a repeated id (pi keeps the later one), a parent the file lacks, a non-BMP id
        &[("p", None), ("q", Some("p")), ("q", Some("p")), ("o", Some("gone")), ("𝄞é", Some("q")), ("z", Some("𝄞é"))],
        // a longer loop with a branch off it, then the leaf's root
        &[("l1", Some("l3")), ("l2", Some("l1")), ("l3", Some("l2")), ("b1", Some("l2")), ("b2", Some("l2")), ("t", None)],
    ];
    for (k, case) in cases.iter().enumerate() {
        let lines: Vec<String> = std::iter::once(header.to_string()).chain(case.iter().map(|(id, p)| entry(id, *p))).collect();
        let text = lines.join("\n");
        let mut index = load(&text);
        let rows = index.tree_rows().expect("rows");
        assert!(!rows.is_empty(), "case {k}");
        let cols = index.tree_columns().expect("columns");
        // Entries in a loop of parent ids are no rows (as in `tree_rows`); what is shown keeps its shape.
        for (i, row) in rows.iter().enumerate() {
            let end = cols.end[i] as usize;
            assert!(i < end && end <= rows.len(), "case {k}: row {i} ({row:?}) ends at {end} of {}", rows.len());
            assert_eq!(end, row.end as usize, "case {k}: row {i}");
            if let Ok(p) = usize::try_from(cols.parent[i]) {
                assert!(p < i && end <= cols.end[p] as usize, "case {k}: row {i} under {p}");
            }
        }
        let mut at = 0;
        while at < rows.len() {
            assert_eq!(cols.parent[at], -1, "case {k}: row {at} starts a root's run");
            at = cols.end[at] as usize;
        }
    }
}
