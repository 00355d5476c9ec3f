//! `SessionIndex::leaf_tokens` (the estimate counted from the last usage it anchors on, what the plugin asks
//! after every turn) gives `estimate().tokens` (the walk along the whole path) with every entry as the leaf —
//! on every fixture and on random sessions (compactions, context edits, system messages, zero and missing
//! usage, branches), under every profile.

mod common;
#[path = "common/sessions.rs"]
mod sessions;

use common::Rng;
use pi_tree_navigator::session::{Leaf, Mode, Profile, SessionIndex};
use sessions::{fixture_files, random_session};

fn check(name: &str, text: &str) {
    for profile in [Profile::Pi074, Profile::Pi087] {
        let mut index = SessionIndex::new(Mode::Plugin);
        index.set_profile(profile);
        index.append_jsonl(text);
        let ids: Vec<String> = (0..index.len() as u32).map(|s| index.id_of(s).to_string()).collect();
        for id in ids.iter().map(Some).chain([None]) {
            if index.set_leaf(id.map(String::as_str)).is_err() {
                continue;
            }
            let want = index.estimate(Leaf::Current).map(|e| e.tokens);
            let got = index.leaf_tokens();
            match (want, got) {
                (Ok(w), Ok(g)) => assert!(w == g || (w.is_nan() && g.is_nan()), "{name} ({profile:?}) at {id:?}: {g} against {w}"),
                (Err(_), Err(_)) => {}
                (w, g) => panic!("{name} ({profile:?}) at {id:?}: {g:?} against {w:?}"),
            }
        }
    }
}

#[test]
fn fixtures_count_the_same_from_the_last_usage() {
    for path in fixture_files() {
        check(&path.display().to_string(), &String::from_utf8_lossy(&std::fs::read(&path).unwrap()));
    }
}

#[test]
fn random_sessions_count_the_same_from_the_last_usage() {
    let mut rng = Rng(0x1EAF_70CE);
    for round in 0..200 {
        let text = random_session(&mut rng);
        check(&format!("random session {round}:\n{text}"), &text);
    }
}
