//! Integration tests of the core index: feeding, links, labels, walks, estimates, bad input.

use pi_tree_navigator::session::{Leaf, Mode, Profile, ViewPart, SessionIndex, TreeFilter, TreeRow, BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX};
use pi_tree_navigator::text::{format_list, ListRow};
use pi_tree_navigator::SessionError;

fn ts(n: u64) -> String {
    // Seconds after 2026-01-01T00:00:00Z, rendered like pi's toISOString().
    let (h, m, s) = (n / 3600, (n / 60) % 60, n % 60);
    format!("2026-01-01T{h:02}:{m:02}:{s:02}.000Z")
}

fn user(id: &str, parent: Option<&str>, t: u64, text: &str) -> String {
    serde_json::json!({"type":"message","id":id,"parentId":parent,"timestamp":ts(t),
        "message":{"role":"user","content":text,"timestamp":t}})
    .to_string()
}

fn assistant(id: &str, parent: &str, t: u64, text: &str, total: u64) -> String {
    serde_json::json!({"type":"message","id":id,"parentId":parent,"timestamp":ts(t),
        "message":{"role":"assistant","content":[{"type":"text","text":text}],"provider":"p","model":"m",
            "usage":{"input":total,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":total},"stopReason":"stop","timestamp":t}})
    .to_string()
}

fn label(id: &str, parent: &str, t: u64, target: &str, label: Option<&str>) -> String {
    serde_json::json!({"type":"label","id":id,"parentId":parent,"timestamp":ts(t),"targetId":target,"label":label})
        .to_string()
}

fn index(lines: &[String]) -> SessionIndex {
    let mut idx = SessionIndex::new(Mode::Full);
    let report = idx.append_jsonl(&lines.join("\n"));
    assert!(report.skipped.is_empty(), "{report:?}");
    idx
}

fn ids(idx: &SessionIndex, slots: &[u32]) -> Vec<String> {
    slots.iter().map(|&s| idx.id_of(s).to_string()).collect()
}

#[test]
fn leaf_is_the_last_entry_and_paths_follow_parents() {
    let mut idx = index(&[
        user("u1", None, 1, "hi"),
        assistant("a1", "u1", 2, "hello", 100),
        user("u2", Some("a1"), 3, "more"),
        user("u3", Some("a1"), 4, "other branch"),
    ]);
    assert_eq!(idx.id_of(idx.leaf().unwrap()), "u3");
    let path = idx.path(idx.leaf()).unwrap();
    assert_eq!(ids(&idx, &path), ["u1", "a1", "u3"]);
    let a1 = idx.slot_of("a1").unwrap();
    let kids = idx.children_of(a1).to_vec();
    assert_eq!(ids(&idx, &kids), ["u2", "u3"]);
}

#[test]
fn children_are_ordered_by_timestamp_not_arrival() {
    let mut idx = index(&[
        user("r", None, 1, "root"),
        user("late", Some("r"), 9, "late"),
        user("early", Some("r"), 5, "early"),
        user("tie", Some("r"), 5, "tie keeps arrival order"),
    ]);
    let r = idx.slot_of("r").unwrap();
    let kids = idx.children_of(r).to_vec();
    assert_eq!(ids(&idx, &kids), ["early", "tie", "late"]);
}

#[test]
fn children_arriving_before_their_parent_are_linked_when_it_comes() {
    let mut idx = index(&[user("kid", Some("mom"), 2, "k"), user("mom", None, 1, "m")]);
    let kid = idx.slot_of("kid").unwrap();
    assert_eq!(idx.parent_of(kid), idx.slot_of("mom"));
    assert_eq!(idx.roots(), vec![idx.slot_of("mom").unwrap()]);
}

#[test]
fn labels_latest_change_wins_and_empty_clears() {
    let idx = index(&[
        user("u1", None, 1, "hi"),
        label("l1", "u1", 2, "u1", Some("anchor:a")),
        label("l2", "l1", 3, "u1", Some("anchor:b")),
        label("l3", "l2", 4, "ghost", Some("x")),
    ]);
    assert_eq!(idx.label_of("u1"), Some("anchor:b"));
    assert_eq!(idx.label_of("ghost"), Some("x"), "labels on unknown ids are kept, as pi does");
    let cleared = index(&[user("u1", None, 1, "hi"), label("l1", "u1", 2, "u1", Some("a")), label("l2", "l1", 3, "u1", Some(""))]);
    assert_eq!(cleared.label_of("u1"), None);
    let cleared = index(&[user("u1", None, 1, "hi"), label("l1", "u1", 2, "u1", Some("a")), label("l2", "l1", 3, "u1", None)]);
    assert_eq!(cleared.label_of("u1"), None);
}

/// A label typed into pi's `/label` (or written by hand) can hold a newline or a terminal escape. Every row
/// of text shows it on that row, as previews are shown (a run of whitespace or control characters is one
/// space); the data (rows, anchors) keeps it whole.
#[test]
fn labels_with_newlines_stay_on_their_row() {
    // From the archive diff test's generated session s0000 (seed 2062241520), which printed 616 lines for 614 rows.
    let odd = "anchor:= naïve 👩\u{200d}💻…\nline 🚀 *";
    let escape = "plan\u{1b}[2J\r\n\tB";
    let mut idx = index(&[
        user("u1", None, 1, "hi"),
        assistant("a1", "u1", 2, "hello", 100),
        label("l1", "a1", 3, "a1", Some(odd)),
        user("u2", Some("l1"), 4, "go on"),
        label("l2", "u2", 5, "u1", Some(escape)),
        user("u3", Some("a1"), 6, "other\nbranch"),
    ]);
    let rows = idx.tree_rows().unwrap();
    let text = idx.render_tree().unwrap();
    assert_eq!(text.lines().count(), rows.len(), "{text}");
    let shown = "anchor:= naïve 👩\u{200d}💻… line 🚀 *";
    for part in [format!("a1 assistant: “hello” [{shown}]"), format!("label: a1 ← {shown}"), "label: u1 ← plan [2J B".into(), "u1 user: “hi” [plan [2J B]".into()] {
        assert!(text.contains(&part), "{part:?} in\n{text}");
    }
    for r in &rows {
        assert!(!r.text.contains(['\n', '\u{1b}']), "{:?}", r.text);
    }
    assert_eq!(rows.iter().find(|r| r.id == "a1").unwrap().label.as_deref(), Some(odd));
    let anchors = idx.anchors(Leaf::Current).unwrap();
    assert_eq!(anchors.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(), [&odd["anchor:".len()..]]);
    let a = &anchors[0];
    let list = format_list(&[ListRow { name: &a.name, tokens: a.tokens, hint: a.hint.as_deref() }], a.tokens, 0.0, None);
    let row = list.lines().nth(3).unwrap_or_default();
    assert_eq!(list.lines().count(), 4, "{list}");
    assert!(row.contains(" = naïve 👩\u{200d}💻… line 🚀 * ") && row.ends_with("(after: “hello”)"), "{row}");
}

#[test]
fn a_million_deep_chain_walks_without_recursion() {
    let mut idx = SessionIndex::new(Mode::Plugin);
    let mut text = String::with_capacity(100_000_000);
    let mut parent: Option<String> = None;
    for i in 0..1_000_000u64 {
        let id = format!("{i:08x}");
        let line = match &parent {
            None => format!(r#"{{"type":"custom","id":"{id}","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z"}}"#),
            Some(p) => format!(r#"{{"type":"custom","id":"{id}","parentId":"{p}","timestamp":"2026-01-01T00:00:00.000Z"}}"#),
        };
        text.push_str(&line);
        text.push('\n');
        parent = Some(id);
    }
    let report = idx.append_jsonl(&text);
    assert_eq!(report.appended, 1_000_000);
    let path = idx.path(idx.leaf()).unwrap();
    assert_eq!(path.len(), 1_000_000);
    assert_eq!(idx.estimate(Leaf::Current).unwrap().tokens, 0.0);
    assert!(idx.render_tree().unwrap().lines().count() == 1_000_000);
}

#[test]
fn parent_cycles_are_errors_not_hangs() {
    let mut idx = index(&[user("a", Some("b"), 1, "a"), user("b", Some("a"), 2, "b")]);
    let err = idx.path(idx.leaf()).unwrap_err();
    assert!(matches!(err, SessionError::Cycle(_)), "{err:?}");
    assert_eq!(err.code(), "Cycle");
    let mut selfie = index(&[user("s", Some("s"), 1, "me")]);
    assert!(matches!(selfie.path(selfie.leaf()), Err(SessionError::Cycle(_))));
    assert_eq!(selfie.roots().len(), 1, "a self-parented entry is a root of the tree");
}

#[test]
fn malformed_lines_are_reported_with_numbers_and_the_rest_loads() {
    let mut idx = SessionIndex::new(Mode::Plugin);
    let text = format!(
        "{}\n{{not json\n\n42\n{}\n{{\"type\":\"message\"}}\n",
        user("u1", None, 1, "hi"),
        user("u2", Some("u1"), 2, "there")
    );
    let report = idx.append_jsonl(&text);
    assert_eq!(report.appended, 2);
    let lines: Vec<usize> = report.skipped.iter().map(|s| s.line).collect();
    assert_eq!(lines, [2, 4, 6]);
    // Line numbers continue across appended chunks.
    let report = idx.append_jsonl("oops\n");
    assert_eq!(report.skipped[0].line, 7);
}

#[test]
fn unknown_types_are_kept() {
    let mut idx = index(&[
        user("u1", None, 1, "hi"),
        r#"{"type":"future_thing","id":"f1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","x":1}"#.to_string(),
        user("u2", Some("f1"), 3, "after"),
    ]);
    let path = idx.path(idx.leaf()).unwrap();
    assert_eq!(ids(&idx, &path), ["u1", "f1", "u2"]);
    assert_eq!(idx.entry(idx.slot_of("f1").unwrap()).type_name(), "future_thing");
}

#[test]
fn duplicate_ids_point_at_the_later_entry() {
    let mut idx = SessionIndex::new(Mode::Plugin);
    let report = idx.append_jsonl(&[user("x", None, 1, "first"), user("y", Some("x"), 2, "y"), user("x", None, 3, "second")].join("\n"));
    assert_eq!(report.warnings.len(), 1);
    assert_eq!(idx.slot_of("x"), Some(2));
    let y = idx.slot_of("y").unwrap();
    assert_eq!(idx.parent_of(y), Some(2), "links are re-resolved like pi's id map");
}

#[test]
fn entries_between_matches_collect_entries_for_branch_summary() {
    // u1 ← a1 ← u2 ← a2 ; a1 ← u3
    let mut idx = index(&[
        user("u1", None, 1, "hi"),
        assistant("a1", "u1", 2, "hello", 10),
        user("u2", Some("a1"), 3, "work"),
        assistant("a2", "u2", 4, "done", 20),
        user("u3", Some("a1"), 5, "other"),
    ]);
    let s = |idx: &SessionIndex, id| idx.slot_of(id).unwrap();
    let (a2, u3, a1) = (s(&idx, "a2"), s(&idx, "u3"), s(&idx, "a1"));
    let (between, ancestor) = idx.entries_between(Some(a2), u3).unwrap();
    assert_eq!(ids(&idx, &between), ["u2", "a2"]);
    assert_eq!(ancestor, Some(a1));
    let (between, ancestor) = idx.entries_between(Some(a2), a1).unwrap();
    assert_eq!(ids(&idx, &between), ["u2", "a2"], "rewinding to an ancestor: the ancestor is the target");
    assert_eq!(ancestor, Some(a1));
    assert_eq!(idx.entries_between(None, a1).unwrap(), (vec![], None));
}

#[test]
fn estimates_anchor_on_the_last_usable_usage() {
    let mut idx = index(&[
        user("u1", None, 1, &"x".repeat(400)),           // 100 tokens
        assistant("a1", "u1", 2, "ok", 500),             // usage 500
        user("u2", Some("a1"), 3, &"y".repeat(41)),      // 11 tokens
    ]);
    let e = idx.estimate(Leaf::Current).unwrap();
    assert_eq!((e.tokens, e.usage_tokens, e.trailing_tokens, e.last_usage_index), (511.0, 500.0, 11.0, Some(1)));
    let e = idx.estimate(Leaf::Id("u1")).unwrap();
    assert_eq!((e.tokens, e.last_usage_index), (100.0, None));
    let e = idx.estimate(Leaf::Null).unwrap();
    assert_eq!(e.tokens, 0.0);
    // An unknown leaf falls back to the last entry, as pi's buildSessionContext does.
    assert_eq!(idx.estimate(Leaf::Id("nope")).unwrap().tokens, 511.0);
}

#[test]
fn compaction_restarts_the_estimate_from_kept_entries() {
    let compaction = serde_json::json!({"type":"compaction","id":"c1","parentId":"u2","timestamp":ts(4),
        "summary":"s".repeat(80),"firstKeptEntryId":"u2","tokensBefore":999})
    .to_string();
    let mut idx = index(&[
        user("u1", None, 1, &"x".repeat(400)),
        assistant("a1", "u1", 2, "ok", 500),
        user("u2", Some("a1"), 3, &"y".repeat(40)), // 10 tokens, kept
        compaction,
        user("u3", Some("c1"), 5, &"z".repeat(8)), // 2 tokens
    ]);
    // Context: [summary(20), u2(10), u3(2)] — a1's usage is before the cut, so no usage anchor.
    let e = idx.estimate(Leaf::Current).unwrap();
    assert_eq!((e.tokens, e.last_usage_index), (32.0, None));
    let ctx: serde_json::Value = serde_json::from_str(&idx.context_json(Leaf::Current).unwrap()).unwrap();
    let roles: Vec<&str> = ctx["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["compactionSummary", "user", "user"]);
    assert_eq!(ctx["messages"][0]["tokensBefore"], 999);
    assert_eq!(ctx["model"], serde_json::json!({"provider":"p","modelId":"m"}));
    assert_eq!(ctx["thinkingLevel"], "off");
}

#[test]
fn anchors_carry_cumulative_estimates_and_hints() {
    let mut idx = index(&[
        user("u1", None, 1, "implement   the\nparser"),
        label("l1", "u1", 2, "u1", Some("anchor:start")),
        assistant("a1", "l1", 3, "working", 700),
        label("l2", "a1", 4, "a1", Some("anchor:mid")),
        label("l3", "l2", 5, "u1", Some("not-an-anchor")),
    ]);
    let anchors = idx.anchors(Leaf::Current).unwrap();
    let got: Vec<(&str, f64, Option<&str>)> = anchors.iter().map(|a| (a.name.as_str(), a.tokens, a.hint.as_deref())).collect();
    assert_eq!(got, [("mid", 700.0, Some("working"))], "u1's anchor was relabelled away");
}

#[test]
fn plugin_mode_refuses_whole_contexts() {
    let mut idx = SessionIndex::new(Mode::Plugin);
    idx.append_jsonl(&user("u1", None, 1, "hi"));
    assert_eq!(idx.context_json(Leaf::Current).unwrap_err(), SessionError::NeedsFullMode);
    assert_eq!(idx.estimate(Leaf::Current).unwrap().tokens, 1.0);
}

#[test]
fn set_leaf_rejects_unknown_ids() {
    let mut idx = index(&[user("u1", None, 1, "hi")]);
    assert_eq!(idx.set_leaf(Some("zz")).unwrap_err().code(), "UnknownEntry");
    idx.set_leaf(None).unwrap();
    assert_eq!(idx.leaf(), None);
    assert!(idx.path(None).unwrap().is_empty());
}

#[test]
fn load_file_follows_pi_when_the_header_is_missing() {
    let mut idx = SessionIndex::new(Mode::Full);
    let report = idx.load_file(&format!("\n{}\n", user("u1", None, 1, "hi"))).unwrap();
    assert_eq!((idx.len(), report.appended), (0, 0));
    assert!(report.warnings[0].starts_with("line 2: not a pi session header"), "{report:?}");
    let mut idx = SessionIndex::new(Mode::Full);
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#;
    let report = idx.load_file(&format!("not json\n{header}\n{}", user("u1", None, 1, "hi"))).unwrap();
    assert_eq!((idx.len(), report.skipped.len()), (1, 1), "a malformed first line does not count as the header line");
    assert!(idx.load_file("").is_err(), "only into an empty index");
}

#[test]
fn search_finds_text_not_ids_and_path_estimates_follow_the_path() {
    let mut idx = index(&[
        user("u1", None, 1, "Find the NEEDLE here"),
        assistant("a1", "u1", 2, "quote \"x\" done", 50),
        user("u2", Some("a1"), 3, "caf\u{e9} line"),
    ]);
    let hits = |idx: &SessionIndex, q: &str| ids(idx, &idx.search(q, 10).unwrap());
    assert_eq!(hits(&idx, "needle"), ["u1"]);
    assert_eq!(hits(&idx, "\"x\""), ["a1"]);
    assert_eq!(hits(&idx, "café"), ["u2"]);
    assert!(hits(&idx, "u1").is_empty(), "ids are not text");
    assert!(hits(&idx, "").is_empty());
    let (path, est) = idx.path_estimates(Leaf::Current).unwrap();
    assert_eq!(ids(&idx, &path), ["u1", "a1", "u2"]);
    let tokens: Vec<f64> = est.iter().map(|e| e.tokens).collect();
    assert_eq!(tokens, [5.0, 50.0, 53.0]);
}

#[test]
fn tree_rows_know_their_subtree_and_filters_follow_pi() {
    let tool_only = serde_json::json!({"type":"message","id":"a0","parentId":"u1","timestamp":ts(2),
        "message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"bash","arguments":{}}],"stopReason":"toolUse"}})
    .to_string();
    let mut idx = index(&[
        user("u1", None, 1, "hi"),
        tool_only,
        label("l1", "a0", 3, "u1", Some("anchor:x")),
        user("u2", Some("u1"), 4, "branch two"),
    ]);
    let rows = idx.tree_rows().unwrap();
    let order: Vec<&str> = rows.iter().map(|r| idx.id_of(r.slot)).collect();
    assert_eq!(order, ["u1", "a0", "l1", "u2"]);
    // Without texts: the same rows with every text empty, and each text what `describe` gives for the row.
    let lean = idx.tree_rows_with(false).unwrap();
    assert_eq!(lean.len(), rows.len());
    for (row, lean) in rows.iter().zip(&lean) {
        assert!(lean.text.is_empty() && !row.text.is_empty(), "{row:?}");
        assert_eq!(TreeRow { text: row.text.clone(), ..lean.clone() }, *row);
        assert_eq!(idx.describe(lean.slot), row.text);
    }
    let ends: Vec<u32> = rows.iter().map(|r| r.end).collect();
    assert_eq!(ends, [4, 3, 3, 4]);
    let shown = |idx: &mut SessionIndex, f| idx.tree_filter(f).unwrap();
    assert_eq!(shown(&mut idx, TreeFilter::Default), [0, 3], "tool-only assistant and label hidden");
    assert_eq!(shown(&mut idx, TreeFilter::All), [0, 2, 3], "the tool-only assistant is hidden in every mode");
    assert_eq!(shown(&mut idx, TreeFilter::LabeledOnly), [0]);
    assert_eq!(shown(&mut idx, TreeFilter::UserOnly), [0, 3]);
}

#[test]
fn context_view_lists_what_the_model_reads() {
    let summary = serde_json::json!({"type":"branch_summary","id":"b1","parentId":"a1","timestamp":ts(3),"summary":"did things","fromId":"a1"}).to_string();
    let mut idx = index(&[user("u1", None, 1, "hi"), assistant("a1", "u1", 2, "hello", 9), summary]);
    let page = idx.context_view(Leaf::Current, 0, usize::MAX).unwrap();
    let (total, view) = (page.total, page.messages);
    assert_eq!(total, 3);
    assert_eq!(page.model, serde_json::json!({"provider":"p","modelId":"m"}));
    assert_eq!(page.thinking_level, Some(serde_json::json!("off")));
    let meta = view[1].assistant.as_ref().unwrap();
    assert_eq!((meta.model.as_deref(), meta.stop_reason.as_deref(), meta.usage_total), (Some("p/m"), Some("stop"), Some(9.0)));
    let roles: Vec<(&str, &str)> = view.iter().map(|m| (m.role, m.stored_role.as_str())).collect();
    assert_eq!(roles, [("user", "user"), ("assistant", "assistant"), ("user", "branchSummary")]);
    assert_eq!(
        view[2].parts,
        [
            ViewPart::Wrapper { text: BRANCH_SUMMARY_PREFIX.into() },
            ViewPart::Text { text: "did things".into() },
            ViewPart::Wrapper { text: BRANCH_SUMMARY_SUFFIX.into() }
        ]
    );
    let page = idx.context_view(Leaf::Current, 1, 2).unwrap();
    assert_eq!((page.total, page.messages.len(), page.messages[0].role), (3, 1, "assistant"));
}

#[test]
fn children_stay_in_time_order_when_appends_interleave_with_queries() {
    let mut idx = index(&[user("r", None, 1, "root"), user("c5", Some("r"), 5, "5"), user("c3", Some("r"), 3, "3")]);
    let r = idx.slot_of("r").unwrap();
    let kids = idx.children_of(r).to_vec();
    assert_eq!(ids(&idx, &kids), ["c3", "c5"]);
    idx.append_jsonl(&user("c4", Some("r"), 4, "4"));
    let kids = idx.children_of(r).to_vec();
    assert_eq!(ids(&idx, &kids), ["c3", "c4", "c5"]);
}

#[test]
fn bytes_load_like_text_and_invalid_utf8_is_replaced() {
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#;
    let text = format!("{header}\n{}\n", user("u1", None, 1, "héllo"));
    let (mut a, mut b) = (SessionIndex::new(Mode::Full), SessionIndex::new(Mode::Full));
    a.load_file(&text).unwrap();
    b.load_file_bytes(text.as_bytes()).unwrap();
    assert_eq!(a.context_json(Leaf::Current).unwrap(), b.context_json(Leaf::Current).unwrap());
    let mut bad = text.into_bytes();
    let at = bad.iter().rposition(|&c| c == b'h').unwrap();
    bad[at] = 0xFF; // "hé" → "\u{FFFD}é"
    let mut c = SessionIndex::new(Mode::Full);
    assert_eq!(c.load_file_bytes(&bad).unwrap().appended, 1);
    assert!(c.context_json(Leaf::Current).unwrap().contains("\u{fffd}éllo"));
}

/// Feeding bytes in pieces of any size (as the wasm binding does, 64 KB at a time) gives exactly what
/// feeding the whole text gives: entries, leaf, estimate, and the line numbers of skipped lines — with a
/// byte-order mark at the start (dropped) and one at the start of a later line (content, so skipped).
#[test]
fn byte_feed_in_pieces_equals_the_whole_text() {
    use pi_tree_navigator::session::ByteFeed;
    let mut text = String::from("\u{feff}");
    for path in ["tests/fixtures/branches.jsonl", "tests/fixtures/crlf-bom.jsonl", "tests/fixtures/hostile.jsonl", "tests/fixtures/images.jsonl"] {
        let t = std::fs::read_to_string(path).expect("fixture");
        text.push_str(t.trim_start_matches('\u{feff}'));
        text.push('\n');
    }
    text.push_str("\u{feff}{\"type\":\"custom\",\"id\":\"bom-line\",\"parentId\":null,\"timestamp\":1}\n\nnot json\n");
    text.push_str(&user("tail", None, 9, "a last line without a newline, é and 😀"));
    let mut whole = SessionIndex::new(Mode::Plugin);
    let expected = whole.append_jsonl(&text);
    assert!(expected.skipped.len() >= 2, "{:?}", expected.skipped);
    let bytes = text.as_bytes();
    for size in [1, 2, 3, 7, 64, 1000, bytes.len()] {
        let mut pieced = SessionIndex::new(Mode::Plugin);
        let mut feed = ByteFeed::default();
        for piece in bytes.chunks(size) {
            feed.push(&mut pieced, piece);
        }
        let report = feed.finish(&mut pieced);
        assert_eq!(report, expected, "pieces of {size}");
        let leaf = |i: &SessionIndex| i.leaf().map(|s| i.id_of(s).to_string());
        assert_eq!((pieced.len(), leaf(&pieced)), (whole.len(), leaf(&whole)));
        assert_eq!(pieced.estimate(Leaf::Current).unwrap(), whole.estimate(Leaf::Current).unwrap(), "pieces of {size}");
    }
}

#[test]
fn a_batch_of_entries_as_one_json_array_reads_like_the_same_lines() {
    let lines = [
        user("a", None, 1, "hello"),
        assistant("b", "a", 2, "hi", 120),
        label("c", "b", 3, "b", Some("anchor:start")),
        user("d", Some("b"), 4, "more"),
    ];
    let batch = format!("[{}, 7, {}]", lines[..2].join(","), lines[2..].join(" ,\n"));
    for mode in [Mode::Plugin, Mode::Full] {
        let mut by_array = SessionIndex::new(mode);
        let report = by_array.append_entry_array(&batch);
        // The 3rd item (7) is no entry; positions count within the array.
        assert_eq!((report.appended, report.skipped.len(), report.skipped[0].line), (4, 1, 3), "{report:?}");
        let mut by_lines = SessionIndex::new(mode);
        by_lines.append_jsonl(&lines.join("\n"));
        assert_eq!(by_array.estimate(Leaf::Current).unwrap(), by_lines.estimate(Leaf::Current).unwrap());
        assert_eq!(by_array.label_of("b"), Some("anchor:start"));
        assert_eq!(by_array.leaf().map(|s| by_array.id_of(s).to_string()).as_deref(), Some("d"));
        if mode == Mode::Full {
            assert_eq!(by_array.context_json(Leaf::Current).unwrap(), by_lines.context_json(Leaf::Current).unwrap());
        }
    }
    // Not an array: nothing taken, one skip at position 0.
    for bad in ["{}", "[", r#"{"type":"message"}"#, ""] {
        let report = SessionIndex::new(Mode::Plugin).append_entry_array(bad);
        assert_eq!((report.appended, report.skipped.len(), report.skipped[0].line), (0, 1, 0), "{bad:?}");
    }
    assert_eq!(SessionIndex::new(Mode::Plugin).append_entry_array("[]").appended, 0);
}

/// pi reads a line as `JSON.parse(line)` once `line.trim()` is not empty: only JSON's own whitespace may
/// surround an entry (a line led by U+00A0 or a vertical tab is skipped; one of only such spaces is blank).
/// pi ≤0.75 trims the whole file first, so there the first and the last line may carry any of it. Line
/// numbers stay the file's, also for what is appended after the load.
#[test]
fn lines_are_read_as_json_parse_reads_them() {
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#;
    let text = format!(
        "\n\u{a0}\n\u{3000} {header}\n\u{a0}{}\n\u{b}{}\n \u{2028}\u{a0}\n\u{85}\n\t{} \r\n{}\u{a0}\n\n",
        user("u1", None, 1, "led by a no-break space"),
        user("u2", None, 2, "led by a vertical tab"),
        user("u3", None, 3, "JSON's own whitespace around"),
        user("u4", Some("u3"), 4, "the last line, a no-break space after it"),
    );
    let report_of = |index: &mut SessionIndex, text: &str| index.load_file(text).unwrap();
    let mut old = SessionIndex::new(Mode::Plugin);
    let report = report_of(&mut old, &text);
    assert_eq!(report.skipped.iter().map(|s| s.line).collect::<Vec<_>>(), vec![4, 5, 7], "{report:?}");
    assert_eq!((old.len(), old.header().is_some()), (2, true), "u3 and u4 taken");
    assert_eq!(old.append_jsonl("not json\n").skipped[0].line, 11, "numbering goes on after the file's 10 lines");
    // The same text whole through `append_jsonl`, and in pieces of any size (cut inside lines and UTF-8
    // sequences) through a byte feed: the same lines taken and skipped.
    let mut whole = SessionIndex::new(Mode::Plugin);
    let whole_report = whole.append_jsonl(&text);
    assert_eq!(whole_report, report_of(&mut SessionIndex::new(Mode::Plugin), &text));
    for size in [1, 2, 3, 5, 64, 4096] {
        let mut fed = SessionIndex::new(Mode::Plugin);
        let mut pieces = pi_tree_navigator::session::ByteFeed::default();
        for piece in text.as_bytes().chunks(size) {
            pieces.push(&mut fed, piece);
        }
        assert_eq!(pieces.finish(&mut fed), whole_report, "pieces of {size}");
        assert_eq!((fed.len(), fed.leaf().map(|s| fed.id_of(s).to_string())), (whole.len(), whole.leaf().map(|s| whole.id_of(s).to_string())), "pieces of {size}");
    }
    // pi ≥0.87 reads the lines as they are: the header's line does not parse, and the first that does (8)
    // is no header, so the file loads as empty.
    let mut new = SessionIndex::new(Mode::Plugin);
    new.set_profile(Profile::Pi087);
    let report = new.load_file(&text).unwrap();
    assert_eq!((new.len(), new.header().is_some()), (0, false));
    assert!(report.warnings[0].starts_with("line 8: not a pi session header"), "{report:?}");
}

/// A byte-order mark is dropped only at the start of the input (pi's `content.trim()`); one leading a
/// later `append_jsonl` text or byte feed sits mid-file, where `JSON.parse` refuses the line.
#[test]
fn a_byte_order_mark_after_earlier_input_is_content() {
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#;
    let mut index = SessionIndex::new(Mode::Plugin);
    assert_eq!(index.append_jsonl(&format!("\u{feff}{header}\n{}\n", user("u1", None, 1, "a"))).appended, 1);
    let later = index.append_jsonl(&format!("\u{feff}{}\n", user("u2", Some("u1"), 2, "b")));
    assert_eq!((later.appended, later.skipped.iter().map(|s| s.line).collect::<Vec<_>>()), (0, vec![3]));
    // The same through a byte feed started on the index later (a second `appendJsonlBytes` call).
    let mut feed = pi_tree_navigator::session::ByteFeed::default();
    feed.push(&mut index, format!("\u{feff}{}\n", user("u3", Some("u1"), 3, "c")).as_bytes());
    let report = feed.finish(&mut index);
    assert_eq!((report.appended, report.skipped.iter().map(|s| s.line).collect::<Vec<_>>()), (0, vec![4]));
    assert_eq!(index.len(), 1);
}

/// Blank lines before a marked line leave the input's start behind: pi ≥0.87 reads the line as it is (a
/// byte-order mark that `JSON.parse` refuses), pi ≤0.75 trims the whole file first — wherever a byte feed
/// cuts its pieces.
#[test]
fn a_byte_order_mark_after_blank_lines_reads_alike_in_pieces() {
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#;
    let text = format!("\n\n\u{feff}{header}\n{}\n", user("u1", None, 1, "a"));
    for profile in [Profile::Pi074, Profile::Pi087] {
        let mut whole = SessionIndex::new(Mode::Plugin);
        whole.set_profile(profile);
        let expected = whole.append_jsonl(&text);
        for cut in 1..=3 {
            let mut pieced = SessionIndex::new(Mode::Plugin);
            pieced.set_profile(profile);
            let mut feed = pi_tree_navigator::session::ByteFeed::default();
            feed.push(&mut pieced, &text.as_bytes()[..cut]);
            feed.push(&mut pieced, &text.as_bytes()[cut..]);
            assert_eq!(feed.finish(&mut pieced), expected, "{profile:?}, cut at {cut}");
            assert_eq!(pieced.header().is_some(), whole.header().is_some(), "{profile:?}, cut at {cut}");
        }
    }
}

fn compaction(id: &str, parent: &str, t: u64, first_kept: &str) -> String {
    serde_json::json!({"type":"compaction","id":id,"parentId":parent,"timestamp":ts(t),"summary":"## Goal\nx",
        "firstKeptEntryId":first_kept,"tokensBefore":1000})
    .to_string()
}

#[test]
fn a_compactions_span_is_what_pi_summarizes_before_its_first_kept_entry() {
    let mut lines = vec![
        user("u1", None, 1, "one"),
        assistant("a1", "u1", 2, "done one", 100),
        label("l1", "a1", 3, "u1", Some("anchor:start")),
        user("u2", Some("l1"), 4, "two"),
        assistant("a2", "u2", 5, "done two", 200),
    ];
    let mut idx = index(&lines);
    // No compaction yet: from the path's start up to the new first kept entry (labels are entries of the span).
    assert_eq!(idx.compaction_span(Leaf::Current, "u2").unwrap(), ["u1", "a1", "l1"]);
    assert_eq!(idx.compaction_span(Leaf::Current, "a2").unwrap(), ["u1", "a1", "l1", "u2"]);
    // A first kept entry that is not on the path: nothing.
    assert!(idx.compaction_span(Leaf::Current, "nope").unwrap().is_empty());
    // After a compaction that kept from u2: its kept entries, then what came after it — never the compaction.
    lines.extend([compaction("c1", "a2", 6, "u2"), user("u3", Some("c1"), 7, "three"), assistant("a3", "u3", 8, "done three", 300)]);
    let mut idx = index(&lines);
    assert_eq!(idx.compaction_span(Leaf::Current, "u3").unwrap(), ["u2", "a2"]);
    assert_eq!(idx.compaction_span(Leaf::Current, "a3").unwrap(), ["u2", "a2", "u3"]);
    // A cut inside the previous compaction's kept range.
    assert_eq!(idx.compaction_span(Leaf::Current, "a2").unwrap(), ["u2"]);
    // Before the kept range: nothing left to summarize there.
    assert!(idx.compaction_span(Leaf::Current, "a1").unwrap().is_empty());
    // A compaction whose first kept entry is gone keeps nothing: the span starts after it.
    lines.extend([compaction("c2", "a3", 9, "missing"), user("u4", Some("c2"), 10, "four"), assistant("a4", "u4", 11, "done four", 400)]);
    let mut idx = index(&lines);
    assert_eq!(idx.compaction_span(Leaf::Current, "a4").unwrap(), ["u4"]);
}
