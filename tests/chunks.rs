//! A session file read in parts on their own (`session::ChunkReader`, what the plugin's resume does on
//! other threads) and taken back in file order (`SessionIndex::append_facts`) gives the index the whole
//! file gives (`load_file_bytes`, facts-only): every entry's facts, the labels, the leaf, the tree's rows,
//! the estimates along the path and the anchors — on every fixture, on random sessions (broken UTF-8 and
//! CRLF included), cut at line starts every way worth trying, under every profile. A part that cannot
//! decide its lines alone says so (`Chunk::problem`): then, and only then, the caller reads another way.

mod common;
#[path = "common/sessions.rs"]
mod sessions;

use std::fmt::Write as _;

use common::Rng;
use pi_tree_navigator::session::{Chunk, ChunkReader, HostEntry, HostParent, Leaf, Mode, Profile, SessionIndex};
use sessions::{fixture_files, mangled_session};

const PROFILES: [Profile; 2] = [Profile::Pi074, Profile::Pi087];

/// Everything the plugin reads of an index, as one comparable text.
fn digest(index: &mut SessionIndex) -> String {
    let mut out = format!("{} entries, profile {:?}, leaf {:?}\n", index.len(), index.profile(), index.leaf());
    for slot in 0..index.len() as u32 {
        let e = index.entry(slot);
        let calls: Vec<_> = e.assistant().map(|a| a.tool_calls().collect()).unwrap_or_default();
        let stop = e.assistant().map(|a| (a.stop_reason(), a.zero_io()));
        writeln!(
            out,
            "{} <- {:?} {} {:?} tokens {:?} usage {:?} hint {:?} emits {} label {:?} kept {:?} edit {:?} calls {calls:?} stop {stop:?} labelled {:?}",
            e.id(),
            e.parent_id(),
            e.type_name(),
            e.role_name(),
            e.tokens().to_bits(),
            e.usage(),
            e.hint(),
            e.emits_message(),
            e.label_change(),
            e.first_kept(),
            e.edit_target(),
            index.label_at(slot),
        )
        .unwrap();
    }
    writeln!(out, "rows {:?}", index.tree_rows()).unwrap();
    writeln!(out, "estimates {:?}", index.path_estimates(Leaf::Current)).unwrap();
    writeln!(out, "anchors {:?}", index.anchors_and_estimate(Leaf::Current)).unwrap();
    out
}

fn plugin(profile: Profile) -> SessionIndex {
    let mut index = SessionIndex::new(Mode::Plugin);
    index.set_profile(profile);
    index
}

/// The byte offsets where lines start (after each newline but the last byte).
fn line_starts(bytes: &[u8]) -> Vec<usize> {
    bytes.iter().enumerate().filter(|&(at, &b)| b == b'\n' && at + 1 < bytes.len()).map(|(at, _)| at + 1).collect()
}

/// The parts of `bytes` cut at `cuts` (line starts), each read on its own, piece by piece (`piece` bytes at
/// most, always whole lines but for the file's last).
fn chunks(bytes: &[u8], cuts: &[usize], profile: Profile) -> Vec<Chunk> {
    let bounds: Vec<usize> = [0].into_iter().chain(cuts.iter().copied()).chain([bytes.len()]).collect();
    let parts = bounds.len() - 1;
    (0..parts)
        .map(|i| {
            let part = &bytes[bounds[i]..bounds[i + 1]];
            let mut reader = ChunkReader::new(i == 0, profile);
            // Two pieces where the part has two lines or more: the first ends with a newline.
            let mid = part.iter().position(|&b| b == b'\n').map_or(part.len(), |at| at + 1);
            reader.push(&part[..mid]);
            if mid < part.len() {
                reader.push(&part[mid..]);
            }
            reader.finish(i + 1 == parts)
        })
        .collect()
}

/// Compares the whole file read at once with the file read in parts; returns how many cuttings of a plain
/// session (a header first, version 3) were refused by a part (`problem`).
fn check(name: &str, bytes: &[u8], rng: &mut Rng) -> usize {
    let starts = line_starts(bytes);
    let mut refused = 0;
    for profile in PROFILES {
        let mut whole = plugin(profile);
        whole.load_file_bytes(bytes).expect("an empty index");
        let whole_ok = whole.header().is_some_and(|h| h.format == pi_tree_navigator::session::Format::Current);
        let want = digest(&mut whole);
        let mut cuttings: Vec<Vec<usize>> = vec![vec![], starts.clone()];
        for _ in 0..8 {
            let mut cuts: Vec<usize> = (0..=rng.below(6)).filter_map(|_| starts.get(rng.below(starts.len().max(1) as u64) as usize).copied()).collect();
            cuts.sort_unstable();
            cuts.dedup();
            cuttings.push(cuts);
        }
        for cuts in cuttings {
            let parts = chunks(bytes, &cuts, profile);
            let problems: Vec<_> = parts.iter().filter_map(|c| c.problem.clone()).collect();
            if cuts.is_empty() {
                // One part is the whole file: it decides everything, and refuses only what pi does not load as
                // written (no header, an older format).
                assert_eq!(problems.is_empty(), whole_ok, "{name} ({profile:?}) in one part: {problems:?}");
            }
            if !problems.is_empty() {
                // Counted where the whole file is a plain session (a header first, version 3).
                refused += usize::from(whole_ok);
                continue;
            }
            let mut index = plugin(profile);
            let mut taken = 0;
            for part in &parts {
                taken += index.append_facts(&part.facts).expect("a facts stream");
            }
            assert_eq!(taken, parts.iter().map(|c| c.entries).sum::<usize>(), "{name}: entries taken");
            assert_eq!(digest(&mut index), want, "{name} ({profile:?}) cut at {cuts:?}");
        }
    }
    refused
}

#[test]
fn fixtures_read_in_parts_as_whole() {
    let mut rng = Rng(0x000C_40E5);
    for path in fixture_files() {
        check(&path.display().to_string(), &std::fs::read(&path).unwrap(), &mut rng);
    }
}

#[test]
fn random_sessions_read_in_parts_as_whole() {
    let mut rng = Rng(0x9A27_5EED);
    let mut refused = 0;
    for round in 0..60 {
        let bytes = mangled_session(&mut rng, round);
        refused += check(&format!("random session {round}:\n{}", String::from_utf8_lossy(&bytes)), &bytes, &mut rng);
    }
    // Random sessions hold none of the shapes a part cannot decide alone (broken bytes in a header make the
    // file no session, read whole or in parts).
    assert_eq!(refused, 0);
}

/// The shapes a part cannot decide alone, and the ones it can.
#[test]
fn what_a_part_cannot_decide_alone() {
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#;
    let v2 = r#"{"type":"session","version":2,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#;
    let user = |id: &str| format!(r#"{{"type":"message","id":"{id}","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"user","content":"hi"}}}}"#);
    let (a, b) = (user("a"), user("b"));
    let problem = |text: &str, cut: usize, profile: Profile| -> Vec<Option<String>> {
        chunks(text.as_bytes(), &[cut], profile).into_iter().map(|c| c.problem).collect()
    };
    // Fine: a plain file cut after its header, or after an entry.
    let plain = format!("{header}\n{a}\n{b}\n");
    assert_eq!(problem(&plain, header.len() + 1, Profile::Pi074), [None, None]);
    assert_eq!(problem(&plain, header.len() + a.len() + 2, Profile::Pi087), [None, None]);
    // The first part ends before the header: only later lines say whether pi loads the file.
    let late = format!("not json\n{header}\n{a}\n");
    assert!(problem(&late, 9, Profile::Pi074)[0].is_some());
    // A line with trailing whitespace pi ≤0.75 trims only at the file's end, at a part's end.
    let held = format!("{header}\n{a}\u{a0}\n{b}\n");
    let cut = held.find(&b).unwrap();
    assert!(problem(&held, cut, Profile::Pi074)[0].is_some());
    assert_eq!(problem(&held, cut, Profile::Pi087), [None, None], "pi ≥0.87 trims nothing");
    // A version-2 file: pi migrates it as it loads it.
    let old = format!("{v2}\n{a}\n{b}\n");
    assert!(problem(&old, v2.len() + 1, Profile::Pi087)[0].is_some());
    // A later part's own header line is a later header: ignored, whatever its version.
    let twice = format!("{header}\n{a}\n{v2}\n{b}\n");
    assert_eq!(problem(&twice, header.len() + a.len() + 2, Profile::Pi087), [None, None]);
}

#[test]
fn a_full_index_takes_no_facts_stream_and_a_broken_stream_is_an_error() {
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#;
    let user = r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}"#;
    let parts = chunks(format!("{header}\n{user}\n").as_bytes(), &[], Profile::Pi087);
    assert!(SessionIndex::new(Mode::Full).append_facts(&parts[0].facts).is_err());
    let mut index = plugin(Profile::Pi087);
    assert!(index.append_facts(&parts[0].facts[..parts[0].facts.len() - 1]).is_err());
    assert!(index.append_facts(b"\xff\xff\xff").is_err());
}

#[test]
fn disagreement_names_the_first_difference() {
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#;
    let a = r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}"#;
    let b = r#"{"type":"label","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:00.000Z","targetId":"a","label":"x"}"#;
    let mut index = plugin(Profile::Pi087);
    index.load_file(&format!("{header}\n{a}\n{b}\n")).unwrap();
    let s = |v: &str| Some(v.to_string());
    let host = |id: Option<String>, parent: HostParent, ty: Option<String>| HostEntry { id, parent, ty };
    let under = |p: &str| HostParent::Id(p.into());
    let agreeing = vec![host(s("a"), HostParent::Root, s("message")), host(s("b"), under("a"), s("label"))];
    assert_eq!(index.disagreement(&agreeing), None);
    assert!(index.disagreement(&agreeing[..1]).unwrap().contains("2 entries in the file, 1 in the host"));
    let differs = |i: usize, e: HostEntry| {
        let mut list = agreeing.clone();
        list[i] = e;
        index.disagreement(&list).unwrap()
    };
    assert!(differs(1, host(s("b"), under("x"), s("label"))).starts_with("entry 2:"), "another parent");
    assert!(differs(1, host(s("b"), HostParent::Root, s("label"))).starts_with("entry 2:"), "no parent");
    assert!(differs(1, host(s("b"), under("a"), s("custom"))).starts_with("entry 2:"), "another type");
    assert!(differs(0, host(s("z"), HostParent::Root, s("message"))).starts_with("entry 1:"), "another id");
    assert!(differs(0, host(None, HostParent::Root, s("message"))).contains("no string id in the host"), "an id that is no string");
    assert!(differs(1, host(s("b"), HostParent::NotAString, s("label"))).starts_with("entry 2:"), "a parent that is no string");
}
