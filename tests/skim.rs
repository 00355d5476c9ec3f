//! A skimmed session (`SkimmedSession`: most message lines read for place and usage only, the rest on
//! demand) answers exactly as a full read does: the estimate and the anchors (with their previews) at
//! every entry as leaf, under every profile — on every fixture and on random sessions full of what makes
//! estimates hard (usage missing, zero or aborted; compactions; `context_edit`; system messages; branches;
//! labels; lines the direct `serde_json` pass refuses).

mod common;
#[path = "common/sessions.rs"]
mod sessions;

use common::Rng;
use sessions::{break_utf8, fixture_files, random_session};
use pi_tree_navigator::session::{Anchor, TokenEstimate, Leaf, Mode, Profile, SessionIndex, SkimmedSession};

/// Both answers at one leaf, with NaN never equal (a skimmed token must not leak into an answer).
fn same_estimate(a: &TokenEstimate, b: &TokenEstimate) -> bool {
    !a.tokens.is_nan() && a == b
}

fn same_anchors(a: &[Anchor], b: &[Anchor]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| x.name == y.name && x.slot == y.slot && x.hint == y.hint && !x.tokens.is_nan() && x.tokens == y.tokens)
}

/// Compares a skimmed read of `text` with a full one at every entry as leaf (a fresh skim per leaf, so
/// each answer starts from a file of which nothing was read in full yet), then the skim read out whole.
fn check(name: &str, text: &str, profile: Option<Profile>) {
    check_bytes(name, text.as_bytes(), profile);
}

/// [`check`] on a file's bytes, valid UTF-8 or not: the full read gets the file as Node decodes it
/// (`String::from_utf8_lossy` of the whole file), the skim the bytes themselves.
fn check_bytes(name: &str, bytes: &[u8], profile: Option<Profile>) {
    let decoded = String::from_utf8_lossy(bytes);
    let text: &str = &decoded;
    let mut full = SessionIndex::new(Mode::Plugin);
    if let Some(p) = profile {
        full.set_profile(p);
    }
    let full_report = full.load_file(text).unwrap();
    let skim = SkimmedSession::load(bytes.to_vec(), profile);
    assert_eq!(skim.report(), &full_report, "{name}: report");
    assert_eq!(skim.index().profile(), full.profile(), "{name}: profile");
    let ids: Vec<String> = (0..full.len() as u32).map(|s| full.id_of(s).to_string()).collect();
    let leaves = ids.iter().map(|id| Leaf::Id(id.as_str())).chain([Leaf::Current]);
    for leaf in leaves {
        let want = full.anchors_and_estimate(leaf).unwrap();
        let mut skim = SkimmedSession::load(bytes.to_vec(), profile);
        let got = skim.anchors_and_estimate(leaf).unwrap();
        assert!(same_estimate(&got.1, &want.1) && same_anchors(&got.0, &want.0), "{name} {profile:?} leaf {leaf:?}: skim {got:?}, full {want:?}");
        let mut skim = SkimmedSession::load(bytes.to_vec(), profile);
        let got = skim.estimate(leaf).unwrap();
        assert!(same_estimate(&got, &want.1), "{name} {profile:?} leaf {leaf:?}: estimate skim {got:?}, full {:?}", want.1);
    }
    // Read out whole, the skim is the full index: every estimate along the path and the tree's previews.
    let mut whole = SkimmedSession::load(bytes.to_vec(), profile).into_index();
    assert_eq!(whole.path_estimates(Leaf::Current).unwrap(), full.path_estimates(Leaf::Current).unwrap(), "{name}: path estimates");
    let rows = |index: &mut SessionIndex| -> Vec<(String, f64)> {
        (0..index.len() as u32).map(|s| (index.hint_from(s, 60, &pi_tree_navigator::session::ContextEdits::default()).unwrap_or_default(), index.entry(s).tokens())).collect()
    };
    assert_eq!(rows(&mut whole), rows(&mut full), "{name}: rows");
}

const PROFILES: [Option<Profile>; 3] = [None, Some(Profile::Pi074), Some(Profile::Pi087)];

#[test]
fn fixtures_answer_as_a_full_read() {
    let files = fixture_files();
    for path in files {
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        for profile in PROFILES {
            check(&path.display().to_string(), &text, profile);
        }
    }
}

#[test]
fn random_sessions_answer_as_a_full_read() {
    let mut rng = Rng(0x5EED_5C1A);
    for round in 0..50 {
        let text = random_session(&mut rng);
        for profile in PROFILES {
            check(&format!("random session {round}:\n{text}"), &text, profile);
        }
    }
}

/// The skim reads bytes that were never checked as UTF-8 as a whole: a broken sequence in a skipped
/// content, in a string the skim decodes (an id, a role), in a label or between tokens reads as the same
/// file decoded the way Node decodes it (each broken sequence one U+FFFD) reads in full.
#[test]
fn invalid_utf8_anywhere_answers_as_the_decoded_file() {
    let mut rng = Rng(0xBAD_0D8);
    for round in 0..40 {
        let mut bytes = random_session(&mut rng).into_bytes();
        break_utf8(&mut rng, &mut bytes);
        for profile in PROFILES {
            check_bytes(&format!("broken session {round}:\n{}", String::from_utf8_lossy(&bytes)), &bytes, profile);
        }
    }
    // And one made to hit each place in turn: a user's content, an assistant's id, a label's text.
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;
    let mut file = Vec::from(format!("{header}\n").as_bytes());
    file.extend_from_slice(b"{\"type\":\"message\",\"id\":\"u1\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"message\":{\"role\":\"user\",\"content\":\"h\xFFi\"}}\n");
    file.extend_from_slice(b"{\"type\":\"message\",\"id\":\"a\xE2\x9C1\",\"parentId\":\"u1\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"message\":{\"role\":\"assistant\",\"content\":[],\"usage\":{\"input\":5,\"output\":5,\"totalTokens\":10},\"stopReason\":\"stop\"}}\n");
    file.extend_from_slice(b"{\"type\":\"label\",\"id\":\"l1\",\"parentId\":\"a\xE2\x9C1\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"targetId\":\"u1\",\"label\":\"anchor:\xC3x\"}\n");
    for profile in PROFILES {
        check_bytes("broken by hand", &file, profile);
    }
    let mut skim = SkimmedSession::load(file, None);
    let (anchors, estimate) = skim.anchors_and_estimate(Leaf::Current).unwrap();
    assert_eq!(anchors.len(), 1, "the label's target and the path survive the broken id");
    assert_eq!(anchors[0].name, "\u{fffd}x");
    assert_eq!(estimate.tokens, 10.0);
}

#[test]
fn a_list_reads_few_lines_in_full() {
    // 200 turns with usage on every assistant and an anchor now and then: the answers need the few
    // messages after each anchor's usage, not the whole file.
    let mut lines = vec![r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#.to_string()];
    let mut parent = "null".to_string();
    for i in 0..200 {
        let role = ["user", "assistant", "toolResult"][i % 3];
        let usage = if role == "assistant" { format!(r#","usage":{{"input":{},"output":10,"totalTokens":0}},"stopReason":"toolUse""#, 100 + i) } else { String::new() };
        lines.push(format!(r#"{{"type":"message","id":"m{i}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"{role}","content":[{{"type":"text","text":"text {i}"}}]{usage}}}}}"#));
        parent = format!("\"m{i}\"");
        if i % 20 == 19 {
            lines.push(format!(r#"{{"type":"label","id":"l{i}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z","targetId":"m{i}","label":"anchor:a{i}"}}"#));
            parent = format!("\"l{i}\"");
        }
    }
    let text = lines.join("\n");
    let mut skim = SkimmedSession::load(text.clone().into_bytes(), None);
    let (anchors, _) = skim.anchors_and_estimate(Leaf::Current).unwrap();
    assert_eq!(anchors.len(), 10);
    let read = skim.index().len() - skim.skimmed();
    // The 10 labels are read in full anyway; each anchor needs its own entry (preview) and what follows
    // its usage; the leaf the same.
    assert!(read <= 40, "{read} of {} entries read in full", skim.index().len());
}
