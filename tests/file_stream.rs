//! A session file fed in parts as it arrives (`file::FileStream`, the viewer's streamed fetch) ends as the
//! whole file loaded at once (`SessionIndex::load_file_bytes` + `file::not_a_session`): the same report and
//! problem, and an index that answers the same — entries, raw texts, labels, the tree's rows, the context
//! and the estimates at the leaf — however the bytes were cut: inside a line, a UTF-8 sequence, a
//! byte-order mark, a CRLF, one byte at a time. On every fixture, on random sessions (broken UTF-8
//! included) and on files made to hit pi's file rules (no header, malformed lines before it, whitespace
//! only the whole-file trim takes away), under every profile.

mod common;
#[path = "common/sessions.rs"]
mod sessions;

use std::fmt::Write as _;

use common::Rng;
use pi_tree_navigator::file::{not_a_session, partial_line, FileReport, FileStream};
use pi_tree_navigator::session::{Leaf, Mode, Profile, SessionIndex};
use sessions::{fixture_files, mangled_session};

const PROFILES: [Option<Profile>; 3] = [None, Some(Profile::Pi074), Some(Profile::Pi087)];

fn index(profile: Option<Profile>) -> SessionIndex {
    let mut index = SessionIndex::new(Mode::Full);
    if let Some(p) = profile {
        index.set_profile(p);
    }
    index
}

/// Everything the viewer and the CLI read of a loaded index, as one comparable text.
fn digest(index: &mut SessionIndex) -> String {
    let mut out = format!("{} entries, header {:?}, profile {:?}, leaf {:?}\n", index.len(), index.header(), index.profile(), index.leaf());
    for slot in 0..index.len() as u32 {
        let id = index.id_of(slot).to_string();
        writeln!(out, "{id} {:?} {:?}", index.label_of(&id), index.raw(slot)).unwrap();
    }
    writeln!(out, "rows {:?}", index.tree_rows()).unwrap();
    writeln!(out, "context {:?}", index.context_json(Leaf::Current)).unwrap();
    writeln!(out, "estimates {:?}", index.path_estimates(Leaf::Current)).unwrap();
    out
}

/// The whole file at once: what `loadFileBytes` does.
fn whole(bytes: &[u8], profile: Option<Profile>) -> (FileReport, String) {
    let mut index = index(profile);
    let report = index.load_file_bytes(bytes).expect("an empty index");
    let problem = not_a_session(bytes, &index, &report);
    (FileReport { report, problem, partial: partial_line(bytes) }, digest(&mut index))
}

/// The file fed in parts ending at `cuts` (ascending byte offsets).
fn streamed(bytes: &[u8], cuts: &[usize], profile: Option<Profile>) -> (FileReport, String) {
    let mut index = index(profile);
    let mut stream = FileStream::begin(&mut index).expect("an empty index");
    let mut at = 0;
    for &cut in cuts.iter().chain([&bytes.len()]) {
        stream.push(&mut index, &bytes[at..cut]);
        at = cut;
    }
    let report = stream.finish(&mut index);
    (report, digest(&mut index))
}

/// Compares the whole-file load with streamed loads cut every way worth trying.
fn check(name: &str, bytes: &[u8], rng: &mut Rng) {
    for profile in PROFILES {
        let want = whole(bytes, profile);
        let mut cuttings: Vec<Vec<usize>> = vec![vec![], (1..bytes.len()).collect()];
        if bytes.len() < 400 {
            // Two parts, cut at every byte.
            cuttings.extend((0..=bytes.len()).map(|at| vec![at]));
        }
        for _ in 0..6 {
            let mut cuts: Vec<usize> = (0..=rng.below(12)).map(|_| rng.below(bytes.len() as u64 + 1) as usize).collect();
            cuts.sort_unstable();
            cuttings.push(cuts);
        }
        for cuts in cuttings {
            let got = streamed(bytes, &cuts, profile);
            assert_eq!(got.0, want.0, "{name} ({profile:?}) cut at {cuts:?}: report");
            assert_eq!(got.1, want.1, "{name} ({profile:?}) cut at {cuts:?}: index");
        }
    }
}

#[test]
fn fixtures_stream_in_as_they_load_whole() {
    let files = fixture_files();
    let mut rng = Rng(0xF11E_5EED);
    for path in files {
        check(&path.display().to_string(), &std::fs::read(&path).unwrap(), &mut rng);
    }
}

#[test]
fn random_sessions_stream_in_as_they_load_whole() {
    let mut rng = Rng(0x057E_A4ED);
    for round in 0..30 {
        let bytes = mangled_session(&mut rng, round);
        check(&format!("random session {round}:\n{}", String::from_utf8_lossy(&bytes)), &bytes, &mut rng);
    }
}

/// pi's file rules, each decided by lines that may arrive in different parts than the ones after them.
#[test]
fn file_rules_decide_the_same_in_parts() {
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#;
    let v1 = r#"{"type":"session","id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#;
    let user = r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}"#;
    let v1_user = r#"{"type":"message","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}"#;
    let cases = [
        String::new(),
        "\n".into(),
        " \r\n\t\n".into(),
        "\u{feff}".into(),
        "\u{feff}\n".into(),
        header.to_string(),
        format!("{header}\n{user}"),
        format!("{header}\n{user}\n"),
        format!("\u{feff}{header}\n{user}\n"),
        format!("\u{feff}\u{feff}{header}\n{user}\n"),
        format!("\u{feff}\n{header}\n{user}\n"),
        format!("{user}\n{header}\n"),
        format!("not json\n{{broken\n{header}\n{user}\n"),
        format!("not json\n{user}\n{header}\n"),
        format!("\n\n  \n{header}\n{user}\n"),
        format!("\u{a0}\u{3000}\n {header}\u{a0}\n"),
        format!("{header}\u{a0}\n{user}\n"),
        format!("{header}\n{user}\u{a0}\n\u{a0}\n"),
        format!("{header}\u{a0}"),
        format!("[1,2]\n{header}\n{user}\n"),
        format!("{}\n{header}\n{user}\n", r#"{"type":"session","id":7}"#),
        format!("{header}\n{header}\n{user}\n"),
        format!("{v1}\n{v1_user}\n{v1_user}\n"),
        format!("\u{feff}{v1}\r\n{v1_user}\r\n"),
        "not json\nalso not\n".into(),
    ];
    let mut rng = Rng(0x000F_11E5);
    for text in cases {
        check(&format!("{text:?}"), text.as_bytes(), &mut rng);
    }
}

#[test]
fn a_stream_needs_an_empty_index_and_one_load_at_a_time() {
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#;
    let mut loaded = index(None);
    loaded.load_file(header).unwrap();
    assert!(FileStream::begin(&mut loaded).is_err(), "a loaded index");
    let mut open = index(None);
    let stream = FileStream::begin(&mut open).unwrap();
    assert!(FileStream::begin(&mut open).is_err(), "a load already open");
    assert!(open.load_file(header).is_err(), "load_file while a stream is open");
    assert_eq!(stream.finish(&mut open).problem.as_deref(), Some("1: empty file, not a pi session"));
    assert!(FileStream::begin(&mut open).is_ok(), "the first load ended");
}
