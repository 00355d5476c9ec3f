//! The loop rule on hand-made runs: what is a loop, what is not, once per loop, and the hint's anchor.

use serde_json::{json, Value};

use super::*;
use crate::session::Mode;

const BUILD: &str = r#"{"command":"cargo build"}"#;
const E0308: &str = "   Compiling app v0.1.0\nerror[E0308]: mismatched types\n --> src/main.rs:4:5\n  |\n4 |     x\n\nerror: could not compile `app`\n\nCommand exited with code 101";

/// A run fed call by call: `(tool, arguments, result text, isError)`; the step of each.
fn run(detector: &mut LoopDetector, calls: &[(&str, &str, &str, bool)]) -> Vec<LoopStep> {
    calls
        .iter()
        .enumerate()
        .map(|(i, (tool, args, text, failed))| detector.observe(CallDigest::of(&format!("c{i}"), tool, args), &ResultDigest::of(text, *failed), &mut |a, b| a == b))
        .collect()
}

/// Which steps found a loop (their positions).
fn found_at(steps: &[LoopStep]) -> Vec<usize> {
    steps.iter().enumerate().filter(|(_, s)| matches!(s, LoopStep::Found(_))).map(|(i, _)| i).collect()
}

fn found(steps: &[LoopStep]) -> Vec<&Loop> {
    steps.iter().filter_map(|s| if let LoopStep::Found(l) = s { Some(l) } else { None }).collect()
}

#[test]
fn the_same_failing_build_three_times_is_one_loop_named_by_its_error_line() {
    let mut d = LoopDetector::new(3);
    let steps = run(&mut d, &[("bash", BUILD, E0308, true); 5]);
    assert_eq!(found_at(&steps), [2], "found at the third, once");
    let l = found(&steps)[0];
    assert_eq!(l.kind, LoopKind::SameResult);
    assert_eq!((l.tool.as_str(), l.call.as_str(), l.times), ("bash", "cargo build", 3));
    assert_eq!(l.error.as_deref(), Some("error[E0308]: mismatched types --> src/main.rs:4:5"), "the ledger's error line, with its location");
    assert_eq!(l.call_ids, ["c0", "c1", "c2"]);
    assert_eq!(steps[3], LoopStep::Repeat { first_call_id: "c0".into() });
    assert_eq!(steps[4], LoopStep::Repeat { first_call_id: "c0".into() });
}

#[test]
fn three_different_edits_into_one_compiler_error_is_a_loop_of_the_same_error() {
    // The build's output differs each time (its timing), the error line does not.
    let out = |ms: u32| format!("   Compiling app v0.1.0 ({ms} ms)\nerror[E0308]: mismatched types\n --> src/main.rs:4:5\nCommand exited with code 101");
    let runs = [out(310), out(295), out(322)];
    let mut d = LoopDetector::new(3);
    let steps = run(
        &mut d,
        &[
            ("edit", r#"{"path":"src/main.rs","oldText":"x","newText":"y"}"#, "Edited src/main.rs", false),
            ("bash", BUILD, &runs[0], true),
            ("edit", r#"{"path":"src/main.rs","oldText":"y","newText":"z"}"#, "Edited src/main.rs", false),
            ("bash", BUILD, &runs[1], true),
            ("edit", r#"{"path":"src/main.rs","oldText":"z","newText":"w"}"#, "Edited src/main.rs", false),
            ("bash", BUILD, &runs[2], true),
        ],
    );
    assert_eq!(found_at(&steps), [5]);
    let l = found(&steps)[0];
    assert_eq!(l.kind, LoopKind::SameError);
    assert_eq!(l.call_ids, ["c1", "c3", "c5"]);
    assert_eq!(l.error.as_deref(), Some("error[E0308]: mismatched types --> src/main.rs:4:5"));
}

#[test]
fn a_non_zero_exit_counts_as_a_failure_without_is_error() {
    let text = "error: linker `cc` not found\nCommand exited with code 1";
    let mut d = LoopDetector::new(3);
    let steps = run(&mut d, &[("build_tool", r#"{"a":1}"#, text, false), ("build_tool", r#"{"a":2}"#, text, false), ("build_tool", r#"{"a":3}"#, text, false)]);
    assert_eq!(found_at(&steps), [2]);
    assert_eq!(found(&steps)[0].kind, LoopKind::SameError, "different arguments: only the error rule");
    // Exit 0 is no failure.
    let ok = "done\nCommand exited with code 0";
    let mut d = LoopDetector::new(3);
    assert!(found_at(&run(&mut d, &[("t", "{\"a\":1}", ok, false), ("t", "{\"a\":2}", ok, false), ("t", "{\"a\":3}", ok, false)])).is_empty());
}

#[test]
fn output_that_changes_is_no_loop() {
    // A counter, a growing log: eight runs of the same command that succeed with new output each time.
    let mut d = LoopDetector::new(3);
    let texts: Vec<String> = (0..8).map(|i| format!("count: {i}\n{}", "line\n".repeat(i))).collect();
    let calls: Vec<(&str, &str, &str, bool)> = texts.iter().map(|t| ("bash", r#"{"command":"./count.sh"}"#, t.as_str(), false)).collect();
    assert!(found_at(&run(&mut d, &calls)).is_empty());
    // A failure whose output changes and has no error line is no loop either.
    let mut d = LoopDetector::new(3);
    let texts: Vec<String> = (0..5).map(|i| format!("waiting for port ({i} s)\nCommand exited with code 1")).collect();
    let calls: Vec<(&str, &str, &str, bool)> = texts.iter().map(|t| ("bash", r#"{"command":"./wait.sh"}"#, t.as_str(), true)).collect();
    assert!(found_at(&run(&mut d, &calls)).is_empty());
}

#[test]
fn a_file_edited_between_reads_is_no_loop() {
    let read = r#"{"path":"src/lib.rs"}"#;
    let mut d = LoopDetector::new(3);
    let steps = run(
        &mut d,
        &[
            ("read", read, "fn a() {}", false),
            ("edit", r#"{"path":"src/lib.rs","oldText":"a","newText":"b"}"#, "Edited", false),
            ("read", read, "fn b() {}", false),
            ("edit", r#"{"path":"src/lib.rs","oldText":"b","newText":"c"}"#, "Edited", false),
            ("read", read, "fn c() {}", false),
        ],
    );
    assert!(found_at(&steps).is_empty());
    // The same read three times with nothing changed between is one.
    let mut d = LoopDetector::new(3);
    assert_eq!(found_at(&run(&mut d, &[("read", read, "fn a() {}", false); 3])), [2]);
}

#[test]
fn repeats_need_not_be_consecutive_but_must_be_within_the_window() {
    let ls = ("ls", r#"{"path":"."}"#, "a b c", false);
    let other = |i: usize| format!("{{\"path\":\"f{i}\"}}");
    let others: Vec<String> = (0..20).map(other).collect();
    // Two other calls between each: the third repeat is within the last ten calls.
    let mut calls = vec![ls];
    for k in 0..2 {
        calls.push(("read", &others[2 * k], "x", false));
        calls.push(("read", &others[2 * k + 1], "y", false));
        calls.push(ls);
    }
    let mut d = LoopDetector::new(3);
    assert_eq!(found_at(&run(&mut d, &calls)), [6]);
    // Five between each: the first has left the window when the third comes.
    let mut calls = vec![ls];
    for k in 0..2 {
        for j in 0..5 {
            calls.push(("read", &others[5 * k + j], "x", false));
        }
        calls.push(ls);
    }
    let mut d = LoopDetector::new(3);
    assert!(found_at(&run(&mut d, &calls)).is_empty());
}

#[test]
fn same_arguments_means_the_same_canonical_json() {
    let mut d = LoopDetector::new(3);
    let steps = run(
        &mut d,
        &[
            ("grep", r#"{"pattern":"foo","path":"src"}"#, "none", false),
            ("grep", r#"{ "path": "src", "pattern": "foo" }"#, "none", false),
            ("grep", r#"{"path":"src","pattern":"foo"}"#, "none", false),
        ],
    );
    assert_eq!(found_at(&steps), [2], "key order and spaces do not make another call");
    assert_eq!(found(&steps)[0].call, r#"{"path":"src","pattern":"foo"}"#, "shown as canonical JSON");
    let mut d = LoopDetector::new(3);
    let steps = run(&mut d, &[("grep", r#"{"pattern":"foo"}"#, "none", false), ("grep", r#"{"pattern":"fo"}"#, "none", false), ("grep", r#"{"pattern":"foo"}"#, "none", false)]);
    assert!(found_at(&steps).is_empty(), "other arguments are another call");
    // The same arguments to another tool are another call.
    let mut d = LoopDetector::new(3);
    assert!(found_at(&run(&mut d, &[("a", "{}", "r", false), ("b", "{}", "r", false), ("a", "{}", "r", false)])).is_empty());
}

#[test]
fn once_per_loop_and_a_different_result_rearms_it() {
    let mut d = LoopDetector::new(3);
    let (same, other) = (("bash", BUILD, E0308, true), ("bash", BUILD, "Finished dev", false));
    let steps = run(&mut d, &[same, same, same, same, other, same, same, same, same]);
    assert_eq!(found_at(&steps), [2, 7], "again after a success in between");
    // Both rules hold for the same failing call: still one hint.
    let mut d = LoopDetector::new(3);
    assert_eq!(found_at(&run(&mut d, &[same; 9])), [2]);
}

#[test]
fn an_error_loop_is_not_reported_again_by_its_call() {
    // Different calls fail with one error: the error rule finds it; then one of the calls repeats with the
    // same output three times — the same loop, no second hint.
    let text = "error: cannot find module\nCommand exited with code 1";
    let mut d = LoopDetector::new(3);
    let steps = run(
        &mut d,
        &[("bash", r#"{"command":"a"}"#, text, true), ("bash", r#"{"command":"b"}"#, text, true), ("bash", r#"{"command":"c"}"#, text, true), ("bash", r#"{"command":"c"}"#, text, true), ("bash", r#"{"command":"c"}"#, text, true)],
    );
    assert_eq!(found_at(&steps), [2]);
    assert_eq!(steps[4], LoopStep::Repeat { first_call_id: "c0".into() });
}

#[test]
fn failures_of_another_kind_between_break_the_row() {
    let e1 = "error: one\nCommand exited with code 1";
    let e2 = "error: two\nCommand exited with code 1";
    let mut d = LoopDetector::new(3);
    let calls = [("bash", r#"{"command":"x1"}"#, e1, true), ("bash", r#"{"command":"x2"}"#, e1, true), ("bash", r#"{"command":"x3"}"#, e2, true), ("bash", r#"{"command":"x4"}"#, e1, true)];
    assert!(found_at(&run(&mut d, &calls)).is_empty());
    // Another tool failing between does not break bash's row.
    let mut d = LoopDetector::new(3);
    let calls = [("bash", r#"{"command":"x1"}"#, e1, true), ("read", r#"{"path":"nope"}"#, "ENOENT", true), ("bash", r#"{"command":"x2"}"#, e1, true), ("bash", r#"{"command":"x3"}"#, e1, true)];
    assert_eq!(found_at(&run(&mut d, &calls)), [3]);
}

#[test]
fn a_user_message_or_a_rewind_starts_afresh() {
    let same = ("bash", BUILD, E0308, true);
    let mut d = LoopDetector::new(3);
    run(&mut d, &[same, same]);
    d.reset();
    assert!(found_at(&run(&mut d, &[same, same])).is_empty());
    let mut d = LoopDetector::new(3);
    let rewind = ("navigate_tree", r#"{"action":"rewind","labelStart":"start","labelEnd":"x","summaryFocus":"......................"}"#, "Rewound", false);
    assert!(found_at(&run(&mut d, &[same, same, rewind, same, same])).is_empty());
    // Other navigate_tree calls are calls like any: listing in a loop is a loop.
    let list = ("navigate_tree", r#"{"action":"list"}"#, "2 anchors", false);
    let mut d = LoopDetector::new(3);
    assert_eq!(found_at(&run(&mut d, &[list, list, list])), [2]);
}

#[test]
fn the_threshold_is_the_configured_repeats() {
    let same = ("bash", BUILD, E0308, true);
    for (repeats, at) in [(2, 1), (3, 2), (5, 4), (20, 19)] {
        let mut d = LoopDetector::new(repeats);
        assert_eq!(found_at(&run(&mut d, &vec![same; 25])), [at], "{repeats}");
    }
    // A result that does not fail: the window grows with the repeats asked for.
    let ok = ("read", r#"{"path":"a"}"#, "x", false);
    let mut d = LoopDetector::new(15);
    assert_eq!(found_at(&run(&mut d, &vec![ok; 25])), [14]);
    // Below 2 there is no repeat: 2 is the least.
    let mut d = LoopDetector::new(1);
    assert_eq!(found_at(&run(&mut d, &[same; 3])), [1]);
}

#[test]
fn a_failure_without_an_error_line_repeats_only_with_the_same_output() {
    let mut d = LoopDetector::new(3);
    let steps = run(&mut d, &[("bash", r#"{"command":"a"}"#, "nope\nCommand exited with code 2", true); 3]);
    assert_eq!(found_at(&steps), [2]);
    assert_eq!(found(&steps)[0].error.as_deref(), Some("nope"), "its first line is shown");
}

#[test]
fn unparsable_arguments_are_compared_as_written() {
    let mut d = LoopDetector::new(3);
    assert_eq!(found_at(&run(&mut d, &[("t", "{not json", "r", false); 3])), [2]);
    let long = format!("{{\"command\":\"{}\"}}", "x".repeat(500));
    let mut d = LoopDetector::new(3);
    let steps = run(&mut d, &[("bash", long.as_str(), "r", false); 3]);
    assert_eq!(found(&steps)[0].call.chars().count(), CALL_LINE_MAX, "the call is cut to one short line");
}

#[test]
fn arguments_are_parsed_only_for_calls_that_could_be_the_same_in_another_order() {
    let mut d = LoopDetector::new(3);
    let calls: Vec<String> = (0..12).map(|i| format!(r#"{{"path":"src/f{i}.rs","limit":{}}}"#, 100 + i)).collect();
    for (i, args) in calls.iter().enumerate() {
        d.observe(CallDigest::of(&format!("c{i}"), "read", args), &ResultDigest::of("text", false), &mut |a, b| a == b);
    }
    assert!(d.window.iter().all(|s| s.call.canonical.is_none()), "other bytes: no canonical form made");
    // The same members in another order (and nested): made for the two that could be one call, and they are.
    let mut d = LoopDetector::new(2);
    let a = CallDigest::of("c1", "grep", r#"{"p":"x","o":{"i":true,"n":2}}"#);
    let b = CallDigest::of("c2", "grep", r#"{"o":{"n":2,"i":true},"p":"x"}"#);
    assert!(matches!(d.observe(a, &ResultDigest::of("none", false), &mut |a, b| a == b), LoopStep::None));
    assert!(matches!(d.observe(b, &ResultDigest::of("none", false), &mut |a, b| a == b), LoopStep::Found(_)));
    assert!(d.window.iter().all(|s| s.call.canonical.is_some()));
    // The same bytes in another order that are other arguments: compared canonically, not the same.
    let mut d = LoopDetector::new(2);
    d.observe(CallDigest::of("c1", "t", r#"{"a":"xy"}"#), &ResultDigest::of("r", false), &mut |a, b| a == b);
    assert_eq!(d.observe(CallDigest::of("c2", "t", r#"{"a":"yx"}"#), &ResultDigest::of("r", false), &mut |a, b| a == b), LoopStep::None);
}

#[test]
fn results_are_compared_by_the_given_rule_and_whether_they_failed() {
    // Keys that differ, said to be the same by the host (as the binding's texts are): a loop.
    let mut d = LoopDetector::new(2);
    let same = &mut |_: u64, _: u64| true;
    d.observe(CallDigest::of("c1", "t", "{}"), &ResultDigest::keyed(1, None), same);
    assert!(matches!(d.observe(CallDigest::of("c2", "t", "{}"), &ResultDigest::keyed(2, None), same), LoopStep::Found(_)));
    // One failed, one did not: never the same result, whatever the rule says.
    let mut d = LoopDetector::new(2);
    d.observe(CallDigest::of("c1", "t", "{}"), &ResultDigest::keyed(1, None), same);
    let step = d.observe(CallDigest::of("c2", "t", "{}"), &ResultDigest::keyed(2, Some("error: x")), same);
    assert_eq!(step, LoopStep::None);
    assert_eq!(d.results_held().collect::<Vec<_>>(), [1, 2]);
}

#[test]
fn a_window_that_wraps_keeps_the_latest_calls() {
    // More calls than the window holds, the repeat's first call pushed out and back: found only with the
    // repeats inside the window, its calls named in order.
    let mut d = LoopDetector::new(3);
    let mut steps = Vec::new();
    for i in 0..40 {
        let args = if i % 7 == 0 { r#"{"path":"same"}"#.to_string() } else { format!(r#"{{"path":"p{i}"}}"#) };
        steps.push(d.observe(CallDigest::of(&format!("c{i}"), "read", &args), &ResultDigest::of("x", false), &mut |a, b| a == b));
    }
    // The same call every 7th: two fit in the window of 10, three never do.
    assert!(found_at(&steps).is_empty());
    let mut d = LoopDetector::new(3);
    let steps: Vec<LoopStep> = (0..25)
        .map(|i| {
            let args = if i % 4 == 0 { r#"{"path":"same"}"#.to_string() } else { format!(r#"{{"path":"p{i}"}}"#) };
            d.observe(CallDigest::of(&format!("c{i}"), "read", &args), &ResultDigest::of("x", false), &mut |a, b| a == b)
        })
        .collect();
    assert_eq!(found_at(&steps), [8]);
    assert_eq!(found(&steps)[0].call_ids, ["c0", "c4", "c8"]);
}

#[test]
fn a_live_result_asks_for_its_whole_text_only_when_the_rule_needs_it() {
    let asked = std::cell::Cell::new(0);
    let text = |t: &'static str| {
        || {
            asked.set(asked.get() + 1);
            t.to_string()
        }
    };
    // Succeeded, told by the tail: not asked.
    assert!(!ResultDigest::from_tail(1, false, "x\ndone", false, text("…\nx\ndone")).failed());
    assert_eq!(asked.get(), 0);
    // Failed by the host, the tail all of it: not asked either.
    let r = ResultDigest::from_tail(2, true, "error: e\nCommand exited with code 1", true, text("unused"));
    assert_eq!(r.failure.map(|(_, line)| line), Some("error: e".to_string()));
    assert_eq!(asked.get(), 0);
    // Failed, the tail a part: the whole text, for its first error line.
    let r = ResultDigest::from_tail(3, true, "tail", false, text("error: first\n…\ntail"));
    assert_eq!(r.failure.map(|(_, line)| line), Some("error: first".to_string()));
    assert_eq!(asked.get(), 1);
    // The tail cannot tell: the whole text decides (here: an exit line that only looks like one in the tail).
    assert!(!ResultDigest::from_tail(4, false, "   Command exited with code 2", false, text("log:   Command exited with code 2")).failed());
    assert_eq!(asked.get(), 2);
}

proptest::proptest! {
    /// The tail tells the same as the whole text, or says it cannot.
    #[test]
    fn the_tail_tells_a_failure_as_the_whole_text_does(
        head in proptest::collection::vec(proptest::sample::select(vec!["a", "b ", " ", "\n", "\r\n", "é", "Command exited with code 1"]), 0..8),
        code in proptest::option::of(proptest::sample::select(vec!["1", "0", "-3", "  2", "x"])),
        trail in proptest::collection::vec(proptest::sample::select(vec![" ", "\n", "\r\n", "a"]), 0..3),
        cut in 0usize..50,
        is_error: bool,
    ) {
        let exit = code.map(|c| format!("Command exited with code {c}")).unwrap_or_default();
        let text = format!("{}{exit}{}", head.concat(), trail.concat());
        let chars: Vec<char> = text.chars().collect();
        let tail: String = chars[chars.len().saturating_sub(cut)..].iter().collect();
        let whole = tail.len() == text.len();
        let truth = is_error || crate::tool::exit_code(&text).is_some_and(|c| c != 0);
        if let Some(told) = failed_by_tail(is_error, &tail, whole) {
            proptest::prop_assert_eq!(told, truth, "{:?} / {:?}", text, tail);
        } else {
            proptest::prop_assert!(!whole && !is_error);
        }
    }
}

// ── The hint's anchor ────────────────────────────────────────────────────────────────────────────────

/// A session as JSONL: header, then entries each under the previous one.
pub(crate) struct Session {
    pub(crate) lines: Vec<Value>,
}

impl Session {
    pub(crate) fn new() -> Self {
        Session { lines: vec![json!({"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"})] }
    }
    fn last(&self) -> Option<String> {
        self.lines.last().and_then(|l| l["id"].as_str()).map(String::from)
    }
    pub(crate) fn push(&mut self, id: &str, mut entry: Value) -> &mut Self {
        if entry.get("parentId").is_none() {
            entry["parentId"] = json!(self.last());
        }
        entry["id"] = json!(id);
        entry["timestamp"] = json!("2026-01-01T00:00:01.000Z");
        self.lines.push(entry);
        self
    }
    pub(crate) fn user(&mut self, id: &str, text: &str) -> &mut Self {
        self.push(id, json!({"type": "message", "message": {"role": "user", "content": text}}))
    }
    /// An assistant message with one call per `(call id, tool, arguments)`, costing `usd`.
    pub(crate) fn calls(&mut self, id: &str, calls: &[(&str, &str, Value)], usd: f64) -> &mut Self {
        let content: Vec<Value> = calls.iter().map(|(c, t, a)| json!({"type": "toolCall", "id": c, "name": t, "arguments": a})).collect();
        let usage = json!({"input": 100, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 110, "cost": {"input": usd, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": usd}});
        self.push(id, json!({"type": "message", "message": {"role": "assistant", "content": content, "usage": usage, "stopReason": "toolUse"}}))
    }
    pub(crate) fn result(&mut self, id: &str, call: &str, tool: &str, text: &str, failed: bool) -> &mut Self {
        self.push(id, json!({"type": "message", "message": {"role": "toolResult", "toolCallId": call, "toolName": tool, "content": [{"type": "text", "text": text}], "isError": failed}}))
    }
    pub(crate) fn label(&mut self, id: &str, target: &str, label: &str) -> &mut Self {
        self.push(id, json!({"type": "label", "targetId": target, "label": label}))
    }
    pub(crate) fn jsonl(&self) -> String {
        self.lines.iter().map(Value::to_string).collect::<Vec<_>>().join("\n") + "\n"
    }
    pub(crate) fn index(&self, mode: Mode) -> SessionIndex {
        let mut index = SessionIndex::new(mode);
        let report = index.load_file(&self.jsonl()).unwrap();
        assert!(report.skipped.is_empty(), "{report:?}");
        index
    }
}

fn build_loop(s: &mut Session, from: usize, n: usize) {
    for i in from..from + n {
        s.calls(&format!("a{i}"), &[(&format!("c{i}"), "bash", json!({"command": "cargo build"}))], 0.01);
        s.result(&format!("r{i}"), &format!("c{i}"), "bash", E0308, true);
    }
}

fn the_loop(first: usize) -> Loop {
    Loop {
        kind: LoopKind::SameResult,
        tool: "bash".into(),
        call: "cargo build".into(),
        error: Some("error[E0308]: mismatched types --> src/main.rs:4:5".into()),
        times: 3,
        call_ids: (first..first + 3).map(|i| format!("c{i}")).collect(),
    }
}

#[test]
fn the_hint_names_the_newest_anchor_before_the_loop() {
    let mut s = Session::new();
    s.user("u1", "fix the build");
    s.calls("a0", &[("c0", "read", json!({"path": "src/main.rs"}))], 0.01).result("r0", "c0", "read", "fn main() {}", false);
    s.label("l1", "r0", "anchor:start");
    s.calls("a1", &[("c1", "read", json!({"path": "Cargo.toml"}))], 0.01).result("r1", "c1", "read", "[package]", false);
    s.label("l2", "r1", "anchor:before-build");
    build_loop(&mut s, 2, 3);
    // An anchor set inside the loop is not before it.
    s.label("l3", "r3", "anchor:inside");
    let mut index = s.index(Mode::Plugin);
    let m = loop_message(&mut index, &the_loop(2)).unwrap();
    assert_eq!(m.anchor.as_deref(), Some("before-build"));
    assert!(m.note.is_none());
    assert!(
        m.text.contains("navigate_tree(action='rewind', labelStart='before-build', labelEnd='loop-exit', summaryFocus='bash `cargo build` failed 3 times with: error[E0308]: mismatched types --> src/main.rs:4:5; do not retry it unchanged')"),
        "{}",
        m.text
    );
    assert!(m.text.starts_with("[loop] You have called bash `cargo build` 3 times and it failed each time with: error[E0308]"), "{}", m.text);
    assert!(m.text.ends_with("then take a different approach — or ask the user."), "{}", m.text);
    assert_eq!(m.headline, "loop: bash `cargo build` ×3, same failure → rewind to 'before-build'");
    // The loop starting before every anchor: no rewind, a note for the user.
    let m = loop_message(&mut index, &the_loop(2).clone()).unwrap();
    assert!(m.anchor.is_some());
    let mut s = Session::new();
    s.user("u1", "fix the build");
    build_loop(&mut s, 2, 3);
    s.label("l3", "r4", "anchor:after");
    let mut index = s.index(Mode::Plugin);
    let m = loop_message(&mut index, &the_loop(2)).unwrap();
    assert_eq!(m.anchor, None);
    assert!(!m.text.contains("navigate_tree"), "{}", m.text);
    assert!(m.text.ends_with("Take a different approach, or ask the user."), "{}", m.text);
    assert!(m.note.as_deref().is_some_and(|n| n.contains("no anchor before the loop") && n.contains("anchor:<name>")), "{:?}", m.note);
    assert_eq!(m.headline, "loop: bash `cargo build` ×3, same failure (no anchor before it)");
}

#[test]
fn the_hint_for_the_same_result_and_quotes_in_the_focus() {
    let mut s = Session::new();
    s.user("u1", "go");
    s.calls("a0", &[("c0", "read", json!({"path": "a"}))], 0.0).result("r0", "c0", "read", "x", false);
    s.label("l1", "a0", "anchor:loop-exit");
    for i in 1..4 {
        s.calls(&format!("a{i}"), &[(&format!("c{i}"), "bash", json!({"command": "echo 'hi'"}))], 0.0);
        s.result(&format!("r{i}"), &format!("c{i}"), "bash", "hi", false);
    }
    let mut index = s.index(Mode::Plugin);
    let l = Loop { kind: LoopKind::SameResult, tool: "bash".into(), call: "echo 'hi'".into(), error: None, times: 3, call_ids: vec!["c1".into(), "c2".into(), "c3".into()] };
    let m = loop_message(&mut index, &l).unwrap();
    assert!(m.text.contains("and it got the same result each time."), "{}", m.text);
    assert_eq!(m.headline, "loop: bash `echo 'hi'` ×3, same result → rewind to 'loop-exit'");
    // The anchor is called like the proposed new one: another name; the call's ' do not end the focus.
    assert!(m.text.contains("labelStart='loop-exit', labelEnd='loop-exit-2', summaryFocus='bash `echo \"hi\"` gave the same result 3 times; do not retry it unchanged')"), "{}", m.text);
    // A long call is cut shorter on the TUI's one line than in the hint.
    let long = Loop { call: "x".repeat(100), ..l.clone() };
    let m = loop_message(&mut index, &long).unwrap();
    assert!(m.headline.starts_with(&format!("loop: bash `{}…` ×3", "x".repeat(39))), "{}", m.headline);
}
