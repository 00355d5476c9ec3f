//! The session formats pi migrates on load (src/session/migrate.rs), through the index's ingest paths:
//! which header versions migrate, what a v1 entry's id and parent become, what a compaction's
//! `firstKeptEntryIndex` counts (parsed lines, from the header at 0: malformed and blank lines are not
//! counted), mixed files, and every way a file is fed (whole, in text chunks, in byte pieces, skimmed)
//! giving the same entries. pi's own answers on the fixtures `v1-format.jsonl` / `v1-edge.jsonl` are
//! checked in `fixtures_vs_pi.rs`; every host's loader in the differential tests (`tests/diff`).

use pi_tree_navigator::session::{ByteFeed, Kind, Leaf, Mode, RoleKind, SessionIndex, SkimmedSession};

const USER: &str = r#"{"type":"message","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hello there"}}"#;
const HOOK: &str = r#"{"type":"message","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"hookMessage","customType":"h","content":"note","display":true,"timestamp":5}}"#;

fn header(version: &str) -> String {
    let version = if version.is_empty() { String::new() } else { format!(r#","version":{version}"#) };
    format!(r#"{{"type":"session","id":"s"{version},"timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}}"#)
}

fn load(mode: Mode, text: &str) -> SessionIndex {
    let mut index = SessionIndex::new(mode);
    index.load_file(text).unwrap();
    index
}

/// `(id, parent id)` of every entry, in file order.
fn chain(index: &mut SessionIndex) -> Vec<(String, Option<String>)> {
    (0..index.len() as u32)
        .map(|s| {
            let parent = index.parent_of(s).map(|p| index.id_of(p).to_string());
            (index.id_of(s).to_string(), parent)
        })
        .collect()
}

fn pairs(list: &[(&str, Option<&str>)]) -> Vec<(String, Option<String>)> {
    list.iter().map(|(a, b)| ((*a).to_string(), b.map(str::to_string))).collect()
}

#[test]
fn header_versions_decide_the_migration() {
    // version: whether id-less entries are taken (v1) and `hookMessage` reads as `custom` (v1, v2).
    for (version, v1, v2) in [("", true, true), ("null", true, true), ("1", true, true), ("0", true, true), ("2", false, true), (r#""2""#, false, true), ("3", false, false), ("4", false, false), (r#""x""#, false, false)] {
        let text = format!("{}\n{USER}\n{HOOK}\n", header(version));
        let index = load(Mode::Plugin, &text);
        assert_eq!(index.len(), if v1 { 2 } else { 0 }, "version {version:?}: id-less entries");
        let with_ids = text.replace(r#"{"type":"message","#, r#"{"type":"message","id":"x","#).replacen(r#""id":"x""#, r#""id":"y""#, 1);
        let mut index = load(Mode::Full, &with_ids);
        assert_eq!(index.len(), 2, "version {version:?}");
        let kind = index.entry(1).kind();
        assert_eq!(kind, Kind::Message(if v2 { RoleKind::Custom } else { RoleKind::Other }), "version {version:?}: hookMessage");
        let context = index.context_json(Leaf::Current).unwrap();
        // Migrated, it prints in pi's key order (role in its place); otherwise the message is pi's as is.
        let role = if v2 { "custom" } else { "hookMessage" };
        assert!(context.contains(&format!(r#"{{"role":"{role}","customType":"h","content":"note","display":true,"timestamp":5}}"#)), "version {version:?}: {context}");
    }
}

#[test]
fn v1_entries_form_one_chain_named_by_line() {
    // Blank and malformed lines take no id; an id of the entry's own is overwritten; a second session line
    // is no entry.
    let text = [
        header("1").as_str(),
        USER,
        "",
        "{broken",
        r#"{"type":"message","id":"deadbeef","parentId":"cafebabe","message":{"role":"user","content":"x"}}"#,
        &header("3"),
        r#"{"type":"custom","customType":"c","parentId":null}"#,
    ]
    .join("\n");
    let mut index = load(Mode::Full, &text);
    assert_eq!(chain(&mut index), pairs(&[("line-2", None), ("line-5", Some("line-2")), ("line-7", Some("line-5"))]));
    assert_eq!(index.leaf().map(|s| index.id_of(s).to_string()).as_deref(), Some("line-7"));
    // The entry as pi holds it after migrating: ids in place or appended, every other byte as written.
    let slot = index.slot_of("line-5").unwrap();
    assert_eq!(index.raw(slot), Some(r#"{"type":"message","id":"line-5","parentId":"line-2","message":{"role":"user","content":"x"}}"#));
    assert_eq!(index.raw(index.slot_of("line-7").unwrap()), Some(r#"{"type":"custom","customType":"c","parentId":"line-5","id":"line-7"}"#));
    // A leaf named by line works like any id.
    assert_eq!(index.estimate(Leaf::Id("line-2")).unwrap().tokens, 3.0);
}

#[test]
fn compaction_index_counts_parsed_lines() {
    let compaction = |index: &str| format!(r#"{{"type":"compaction","summary":"S","firstKeptEntryIndex":{index},"tokensBefore":1}}"#);
    let a = r#"{"type":"message","message":{"role":"user","content":"aaaa"}}"#;
    let b = r#"{"type":"message","message":{"role":"user","content":"bbbbbbbb"}}"#;
    // Positions: header 0, line 2 → 1, (line 3 malformed, line 4 blank), line 5 → 2, line 6 → 3 (an array:
    // pi gives it an id, here it is a skipped line), line 7 → 4, line 8 → 5.
    let lines = |index: &str| [header("").as_str(), a, "{nope", "  ", b, "[1]", a, &compaction(index)].join("\n");
    let kept = |index: &str| {
        let mut idx = load(Mode::Full, &lines(index));
        let context = idx.context_json(Leaf::Current).unwrap();
        (context.matches("aaaa").count(), context.matches("bbbbbbbb").count(), idx.len())
    };
    // Index 2 is line 5 (not line 2 or 3, as a count of lines would have it): b and the a after it.
    assert_eq!(kept("2"), (1, 1, 4));
    // Index 1: both a's and b.
    assert_eq!(kept("1"), (2, 1, 4));
    // Index 3 names the array, which adds nothing: kept from the entry after it.
    assert_eq!(kept("3"), (1, 0, 4));
    // The header, the compaction itself, a later position, a fraction, a string: nothing kept.
    for index in ["0", "5", "9", "2.5", r#""2""#, "-1"] {
        assert_eq!(kept(index), (0, 0, 4), "index {index}");
    }
    // The skipped lines are reported as on any file.
    let mut idx = SessionIndex::new(Mode::Plugin);
    let report = idx.load_file(&lines("2")).unwrap();
    assert_eq!(report.skipped.iter().map(|s| s.line).collect::<Vec<_>>(), [3, 6]);
}

#[test]
fn mixed_files_follow_the_header() {
    // A version-3 file with an id-less line: skipped as before (pi migrates nothing there).
    let text = format!("{}\n{USER}\n{}\n", header("3"), USER.replace(r#""type""#, r#""id":"a1","parentId":null,"type""#));
    let mut idx = SessionIndex::new(Mode::Plugin);
    let report = idx.load_file(&text).unwrap();
    assert_eq!((idx.len(), report.skipped.len()), (1, 1));
    // A version-1 file holding version-3 lines (ids, a branch): pi overwrites every id and parent, so the
    // branch becomes part of the one chain.
    let v3 = |id: &str, parent: &str| format!(r#"{{"type":"message","id":"{id}","parentId":{parent},"message":{{"role":"user","content":"{id}"}}}}"#);
    let text = [header(""), v3("a1", "null"), v3("a2", r#""a1""#), v3("a3", r#""a1""#)].join("\n");
    let mut idx = load(Mode::Plugin, &text);
    assert_eq!(chain(&mut idx), pairs(&[("line-2", None), ("line-3", Some("line-2")), ("line-4", Some("line-3"))]));
    assert!(idx.slot_of("a1").is_none());
    // No header: read as it is (pi opens no such file).
    let mut idx = SessionIndex::new(Mode::Plugin);
    assert_eq!(idx.append_jsonl(&format!("{USER}\n")).skipped.len(), 1);
}

#[test]
fn every_ingest_path_reads_the_same_chain() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/v1-edge.jsonl")).unwrap();
    let mut whole = load(Mode::Full, &text);
    let expected = chain(&mut whole);
    assert_eq!(expected.len(), 10);
    let estimate = whole.estimate(Leaf::Current).unwrap();
    for mode in [Mode::Plugin, Mode::Full] {
        // Text chunks cut at line ends (line numbers continue across calls).
        let mut chunked = SessionIndex::new(mode);
        for piece in text.split_inclusive('\n').collect::<Vec<_>>().chunks(3) {
            chunked.append_jsonl(&piece.concat());
        }
        assert_eq!(chain(&mut chunked), expected, "{mode:?} chunks");
        // Byte pieces cut anywhere.
        for size in [1, 7, 64] {
            let mut fed = SessionIndex::new(mode);
            let mut pieces = ByteFeed::default();
            for piece in text.as_bytes().chunks(size) {
                pieces.push(&mut fed, piece);
            }
            pieces.finish(&mut fed);
            assert_eq!(chain(&mut fed), expected, "{mode:?} pieces of {size}");
            assert_eq!(fed.estimate(Leaf::Current).unwrap(), estimate);
        }
        let mut bytes = SessionIndex::new(mode);
        bytes.load_file_bytes(text.as_bytes()).unwrap();
        assert_eq!(chain(&mut bytes), expected, "{mode:?} bytes");
    }
    // Skimmed (the CLI's list/tokens): the migrated lines are read in full.
    let mut skim = SkimmedSession::load(text.clone().into_bytes(), None);
    assert_eq!(skim.estimate(Leaf::Current).unwrap(), estimate);
    assert_eq!(skim.estimate(Leaf::Id("line-11")).unwrap(), whole.estimate(Leaf::Id("line-11")).unwrap());
    let mut index = skim.into_index();
    assert_eq!(chain(&mut index), expected, "skimmed");
}
