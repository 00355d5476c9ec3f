//! Core bugs found by the hardening work (issue 6: fuzzing, scaling probes), each fixed and held here.
//! The two quadratic shapes it found (siblings arriving newest first; duplicate ids fed one by one) are
//! shapes of `tests/common/shapes.rs`: counted by `tests/prop_scaling.rs`, timed by the native bench.

use pi_tree_navigator::session::entry::{MAX_LINE_NESTING, MAX_NESTING};
use pi_tree_navigator::session::{Leaf, Mode, SessionIndex};

fn user(id: &str, parent: Option<&str>, ts: &str) -> String {
    serde_json::json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts,
        "message": {"role": "user", "content": "hello"}})
    .to_string()
}

/// Bug 1 — lost lines: an entry whose JSON nests deeper than `serde_json`'s recursion limit (128) is skipped
/// as "malformed JSON (recursion limit exceeded)", though `JSON.parse` (pi) reads it fine. A model only has
/// to send a tool call whose arguments nest ~125 levels (to any tool): that assistant entry vanishes from
/// the index, its tool result becomes a root, and the path from the leaf loses everything before it —
/// `list` shows no anchors, `rewind` finds none, estimates drop to the tail. In the plugin the shim feeds
/// `JSON.stringify(entry)`, so the same happens live (and beyond ~5000 levels `JSON.stringify` itself
/// throws, which the binding reports as "entry cannot be serialised as JSON": lost as well).
/// Expected: the line is taken (depth is unbounded in pi), the path stays whole, and the tool-call
/// argument length is counted as `JSON.stringify` counts it. `serde_json` recurses per level: the wasm
/// module's 1 MB stack holds `MAX_LINE_NESTING` levels in its release build; this test runs the debug build,
/// whose frames are several times larger, on a thread with a large stack.
#[test]
fn deeply_nested_arguments_do_not_lose_the_entry() {
    std::thread::Builder::new().stack_size(256 << 20).spawn(deep_lines).unwrap().join().unwrap();
}

fn deep_lines() {
    // Beyond MAX_LINE_NESTING a line is skipped and reported (pi cannot write anything near: its own
    // JSON.stringify runs out of stack a few thousand levels down).
    let depth = MAX_LINE_NESTING + 1;
    let args = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let line = format!(
        r#"{{"type":"message","id":"a","parentId":null,"timestamp":0,"message":{{"role":"assistant","content":[{{"type":"toolCall","id":"c","name":"t","arguments":{args}}}]}}}}"#
    );
    let report = SessionIndex::new(Mode::Plugin).append_jsonl(&line);
    assert_eq!(report.skipped.len(), 1, "depth {depth}");
    assert!(report.skipped[0].reason.contains("levels deep"), "{:?}", report.skipped);
    // Up to it, any depth is read and measured — pi writes up to ~1,700 levels.
    for depth in [127usize, 128, 130, 500, MAX_NESTING + 10, MAX_LINE_NESTING - 5] {
        let args = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let text = [
            user("u", None, "2026-01-01T00:00:00.000Z"),
            format!(
                r#"{{"type":"message","id":"a","parentId":"u","timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"assistant","content":[{{"type":"toolCall","id":"c","name":"t","arguments":{{"x":{args}}}}}],"stopReason":"toolUse"}}}}"#
            ),
            r#"{"type":"message","id":"r","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"toolResult","toolCallId":"c","content":[{"type":"text","text":"ok"}]}}"#.to_string(),
        ]
        .join("\n");
        for mode in [Mode::Plugin, Mode::Full] {
            let mut index = SessionIndex::new(mode);
            let report = index.append_jsonl(&text);
            assert!(report.skipped.is_empty(), "depth {depth} {mode:?}: {:?}", report.skipped);
            assert_eq!(index.path(index.leaf()).unwrap().len(), 3, "depth {depth}: the path lost entries");
            // "t" + `{"x":[[…]]}`: 1 + 6 + 2·depth chars, plus the user's 5 and the result's 2.
            let expected = (5f64 / 4.0).ceil() + ((1 + 6 + 2 * depth) as f64 / 4.0).ceil() + (2f64 / 4.0).ceil();
            assert_eq!(index.estimate(Leaf::Current).unwrap().tokens, expected, "depth {depth}");
        }
    }
}

/// Bug 2 — lost lines (low severity: pi never writes such a file itself, `JSON.stringify(Infinity)` is
/// `null`; a hand-edited or foreign file can hold it): a number outside f64's range (`1e400`) makes
/// `serde_json` reject the whole line ("number out of range"), while `JSON.parse` reads it as `Infinity`.
/// Expected: the line is taken; the number reads as ±Infinity (a timestamp of Infinity is an invalid date).
#[test]
fn out_of_range_numbers_do_not_lose_the_entry() {
    for number in ["1e400", "-1e400", "0.1e999"] {
        let line = format!(
            r#"{{"type":"message","id":"u","parentId":null,"timestamp":{number},"message":{{"role":"user","content":"hi"}}}}"#
        );
        let mut index = SessionIndex::new(Mode::Plugin);
        let report = index.append_jsonl(&line);
        assert_eq!((report.appended, report.skipped.len()), (1, 0), "{number}: {:?}", report.skipped);
    }
}

