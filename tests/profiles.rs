//! Host profiles: each rule of `src/session/profile.rs` on a concrete session
//! (`tests/fixtures/profiles/*.jsonl`), with the numbers each pi generation gives.
//!
//! The `pi-0.87` numbers are derived by hand from the hosts' code (comments) and were checked by running
//! pi 0.87.1's own `estimateProjectedContextTokens(buildSessionProjection(entries, leaf), branch)`
//! (`dist/core/compaction/compaction.js`) on each file with every entry as leaf; the code of these
//! functions is the same in 0.87.1, 0.99.1, 1.0.3, 1.3.0 and 1.5.2. The `pi-0.74` numbers are pi 0.75's
//! `estimateContextTokens(buildSessionContext(…).messages)` (which knows neither system messages,
//! `context_edit` nor a compaction's `systemMessage`).

use pi_tree_navigator::session::{Leaf, Mode, Profile, ProfileSource, SessionIndex};

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/profiles/{name}.jsonl", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The index of a fixture under `profile` (`None`: inferred from the file).
fn load(name: &str, mode: Mode, profile: Option<Profile>) -> SessionIndex {
    let mut index = SessionIndex::new(mode);
    if let Some(p) = profile {
        index.set_profile(p);
    }
    let report = index.load_file(&fixture(name)).unwrap();
    assert!(report.skipped.is_empty() && report.warnings.is_empty(), "{report:?}");
    index
}

/// `(leaf id, estimate tokens)` for every entry of the file as leaf, from one path walk and from a
/// separate estimate per leaf (the two must agree).
fn estimates(index: &mut SessionIndex) -> Vec<(String, f64)> {
    let (path, along) = index.path_estimates(Leaf::Current).unwrap();
    let ids: Vec<String> = path.iter().map(|&s| index.id_of(s).to_string()).collect();
    ids.iter()
        .zip(&along)
        .map(|(id, e)| {
            assert_eq!(index.estimate(Leaf::Id(id)).unwrap(), *e, "leaf {id}");
            (id.clone(), e.tokens)
        })
        .collect()
}

fn expect(got: &[(String, f64)], want: &[(&str, f64)]) {
    let got: Vec<(&str, f64)> = got.iter().map(|(i, t)| (i.as_str(), *t)).collect();
    assert_eq!(got, want);
}

// context-edit.jsonl: s1 system "SYS!" + toolsAdded [{"name":"t"}] (4 + 14 chars: 5 tokens), u1 user
// "hello world!" (3), a1 assistant "abcd" + toolCall read {"p":"x"} (4 + 4 + 9: 5; usage 100), t1 toolResult
// of 400 chars (100), a2 assistant "done" (1; usage 250), e1 context_edit t1 → "short" (2), u2 user "next"
// (1), a3 assistant "ok" (1; usage 50), e2 context_edit a3 → null, g1 a `usage` entry.
#[test]
fn context_edits_replace_or_omit_their_target_and_distrust_earlier_usage() {
    let mut index = load("context-edit", Mode::Plugin, None);
    assert_eq!(index.profile(), (Profile::Pi087, ProfileSource::Inferred));
    expect(
        &estimates(&mut index),
        &[
            ("s1", 5.0),
            ("u1", 8.0),
            ("a1", 100.0),
            ("t1", 200.0),
            ("a2", 250.0),
            // e1 replaces t1 (100 → 2) and comes after a2's usage: every message counted,
            // 5 + 3 + 5 + 2 + 1.
            ("e1", 16.0),
            ("u2", 17.0),
            // a3's usage comes after the latest edit: trusted.
            ("a3", 50.0),
            // e2 omits a3 (and its usage): 16 + 1.
            ("e2", 17.0),
            // A `usage` entry adds nothing to the context nor to the estimate.
            ("g1", 17.0),
        ],
    );
}

#[test]
fn pi074_ignores_context_edits() {
    let mut index = load("context-edit", Mode::Plugin, Some(Profile::Pi074));
    // System messages count 0 and no edit applies; usage before the latest edit is not trusted on any
    // host (the shared rule): at e1, 0 + 3 + 5 + 100 + 1.
    expect(
        &estimates(&mut index),
        &[
            ("s1", 0.0),
            ("u1", 3.0),
            ("a1", 100.0),
            ("t1", 200.0),
            ("a2", 250.0),
            ("e1", 109.0),
            ("u2", 110.0),
            ("a3", 50.0),
            // a3 stays (0.74 knows no edits), its usage is not trusted: 110 + 1.
            ("e2", 111.0),
            ("g1", 111.0),
        ],
    );
}

// compaction-system.jsonl: s1 system (5), u1 (3), a1 "abcd" (1; usage 100), u2 "kept user msg" (4), s2 system
// "more" (1), a2 "answer" (2; usage 200), c1 compaction "summary text" (3) keeping from u2 with a
// systemMessage equal to s1 (5), u3 "after" (2), a3 "fine" (1; usage 300), c2 compaction "s2sum" (2)
// keeping from a2 (so c1 lies in its kept range) with the same systemMessage.
#[test]
fn a_compaction_reemits_its_system_message_and_kept_system_messages_drop_out() {
    let mut index = load("compaction-system", Mode::Plugin, None);
    expect(
        &estimates(&mut index),
        &[
            ("s1", 5.0),
            ("u1", 8.0),
            ("a1", 100.0),
            ("u2", 104.0),
            ("s2", 105.0),
            ("a2", 200.0),
            // [systemMessage 5, summary 3, u2 4, a2 2] (s2 left out); a2's usage predates the compaction.
            ("c1", 14.0),
            ("u3", 16.0),
            ("a3", 300.0),
            // [systemMessage 5, summary 2, a2 2, u3 2, a3 1]: c1 in the kept range contributes nothing.
            ("c2", 12.0),
        ],
    );
}

#[test]
fn pi074_counts_the_compacted_context_without_system_messages() {
    let mut index = load("compaction-system", Mode::Plugin, Some(Profile::Pi074));
    // pi 0.75 would anchor on a2's pre-compaction usage (200 at c1, 300 at c2) where its footer shows
    // nothing; the shared rule counts the messages: [summary 3, u2 4, s2 0, a2 2] and
    // [summary 2, a2 2, u3 2, a3 1].
    expect(
        &estimates(&mut index),
        &[
            ("s1", 0.0),
            ("u1", 3.0),
            ("a1", 100.0),
            ("u2", 104.0),
            ("s2", 104.0),
            ("a2", 200.0),
            ("c1", 9.0),
            ("u3", 11.0),
            ("a3", 300.0),
            ("c2", 7.0),
        ],
    );
}

/// The roles of the messages of `context_json` at `leaf`.
fn roles(index: &mut SessionIndex, leaf: &str) -> Vec<String> {
    let context: serde_json::Value = serde_json::from_str(&index.context_json(Leaf::Id(leaf)).unwrap()).unwrap();
    context["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap_or("?").to_string()).collect()
}

#[test]
fn full_mode_builds_the_projection_of_pi087() {
    let mut index = load("compaction-system", Mode::Full, None);
    assert_eq!(roles(&mut index, "c1"), ["system", "compactionSummary", "user", "assistant"]);
    assert_eq!(roles(&mut index, "c2"), ["system", "compactionSummary", "assistant", "user", "assistant"]);
    let context: serde_json::Value = serde_json::from_str(&index.context_json(Leaf::Id("c2")).unwrap()).unwrap();
    assert_eq!(context["messages"][0]["content"], "SYS!");
    assert_eq!(context["messages"][1]["summary"], "s2sum");

    let mut index = load("context-edit", Mode::Full, None);
    let context: serde_json::Value = serde_json::from_str(&index.context_json(Leaf::Id("e2")).unwrap()).unwrap();
    let messages = context["messages"].as_array().unwrap();
    // a3 is omitted; t1's content is the replacement (the rest of the message kept).
    assert_eq!(messages.len(), 6);
    assert_eq!(messages[3]["content"], serde_json::json!([{"type":"text","text":"short"}]));
    assert_eq!(messages[3]["toolCallId"], "c1");
    // Before the edit (leaf a2) the original content.
    let context: serde_json::Value = serde_json::from_str(&index.context_json(Leaf::Id("a2")).unwrap()).unwrap();
    assert_eq!(context["messages"][3]["content"][0]["text"].as_str().unwrap().len(), 400);
}

#[test]
fn pi074_full_mode_keeps_pi075s_context() {
    let mut index = load("compaction-system", Mode::Full, Some(Profile::Pi074));
    assert_eq!(roles(&mut index, "c1"), ["compactionSummary", "user", "system", "assistant"]);
    let mut index = load("context-edit", Mode::Full, Some(Profile::Pi074));
    assert_eq!(roles(&mut index, "e2").len(), 7);
}

// null-content.jsonl: a system message with `content: null` and one tool (4 tokens), a user, an assistant
// (no content at all), a toolResult, all with null content, a bashExecution "ls" (1) and a custom_message
// with null content.
#[test]
fn null_content_is_normalised_as_pi087_does() {
    let mut index = load("null-content", Mode::Full, None);
    let context: serde_json::Value = serde_json::from_str(&index.context_json(Leaf::Current).unwrap()).unwrap();
    let contents: Vec<&serde_json::Value> = context["messages"].as_array().unwrap().iter().map(|m| &m["content"]).collect();
    let (empty, none) = (serde_json::json!([]), serde_json::Value::Null);
    // system → "", user / assistant / toolResult → [], bashExecution as stored, custom_message → [].
    assert_eq!(contents, [&serde_json::json!(""), &empty, &empty, &empty, &none, &empty]);
    expect(&estimates(&mut index), &[("s1", 4.0), ("u1", 4.0), ("a1", 4.0), ("t1", 4.0), ("b1", 5.0), ("m1", 5.0)]);
}

// system-replay.jsonl: four system messages that patch each other (s1: content, sections a and b, tools read
// and bash; s2: empty content, deletes b, adds c, redeclares read; s3: two text blocks and an image, removes
// bash; s4 after a1's usage: "late"), u1 "hello" (2), u2 "more" (1), a1 "fine" (usage 900), then e1 edits u1
// to "hi" (1). Without a trusted usage pi ≥0.87 counts the replayed system message
// (`getCurrentSystemMessage`) once instead of each system message: at s3, content "You are pi.\n\none\ntwo"
// (11 + 2 + 7), sections a + c (4 + 2), tools [read as redeclared] (52 chars): ceil(78 / 4) = 20, + u1 2.
#[test]
fn without_a_trusted_usage_the_system_messages_count_once_replayed() {
    let mut index = load("system-replay", Mode::Plugin, None);
    expect(
        &estimates(&mut index),
        &[("s1", 35.0), ("u1", 37.0), ("s2", 33.0), ("s3", 22.0), ("u2", 23.0), ("a1", 900.0), ("s4", 901.0), ("e1", 24.0)],
    );
}

/// The roles the model receives (`contextView`): pi ≥0.87's `convertToLlm` passes system messages through,
/// pi 0.75's drops them; a compaction's system message and an edited message are shown as pi builds them.
#[test]
fn the_llm_view_shows_what_each_host_sends() {
    let view = |index: &mut SessionIndex, leaf: &str| {
        let page = index.context_view(Leaf::Id(leaf), 0, 100).unwrap();
        page.messages.iter().map(|m| (m.stored_role.clone(), m.role, m.tokens)).collect::<Vec<_>>()
    };
    let mut index = load("compaction-system", Mode::Full, None);
    let got = view(&mut index, "c1");
    let want = [("system", "system", 5.0), ("compactionSummary", "user", 3.0), ("user", "user", 4.0), ("assistant", "assistant", 2.0)];
    assert_eq!(got, want.map(|(s, r, t)| (s.to_string(), r, t)));
    let mut index = load("compaction-system", Mode::Full, Some(Profile::Pi074));
    assert_eq!(view(&mut index, "s2")[4], ("system".to_string(), "none", 0.0));

    let mut index = load("context-edit", Mode::Full, None);
    let page = index.context_view(Leaf::Id("e2"), 3, 4).unwrap();
    // t1 as edited: "short" (2 tokens), still its tool result.
    assert_eq!((page.messages[0].role, page.messages[0].tokens), ("toolResult", 2.0));
    assert_eq!(page.total, 6);
}
