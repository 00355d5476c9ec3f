//! Input shapes that once were (or could easily become) quadratic, each with the work the plugin or the
//! CLI does on it. Shared by `tests/prop_scaling.rs` (which counts the allocations each shape makes at n
//! and 4n: deterministic, so it cannot flake) and the native bench's `scaling` table
//! (`tests/bench/native`, which times them: a speed rule belongs in a benchmark, not in `cargo test`).

use pi_tree_navigator::session::{Leaf, Mode, SessionIndex};
use pi_tree_navigator::tool::{self, Arguments, ToolFacts, ToolPlan};
use serde_json::json;

/// One shape: `make(n)` builds the input (the pieces fed one by one; most shapes feed one piece), `run`
/// does the work on it. `n` is where the scaling check starts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    pub(crate) name: &'static str,
    pub(crate) n: usize,
    pub(crate) make: fn(usize) -> Vec<String>,
    pub(crate) run: fn(&[String]),
}

/// Every shape, in the order the bench prints them.
pub(crate) const SHAPES: [Shape; 8] = [
    Shape { name: "chain through the tool pipeline", n: 5_000, make: |n| vec![chain(n)], run: |t| pipeline(&t[0]) },
    Shape { name: "one huge string", n: 200_000, make: huge_string, run: huge_string_run },
    Shape { name: "lone surrogates", n: 20_000, make: lone_surrogates, run: plugin_takes_one },
    Shape { name: "anchors on every entry", n: 2_000, make: anchors_everywhere, run: list_plan },
    Shape { name: "malformed lines", n: 5_000, make: malformed, run: malformed_run },
    Shape { name: "siblings in time order", n: 5_000, make: |n| siblings(n, false), run: tree_rows },
    Shape { name: "siblings in reverse time order", n: 10_000, make: |n| siblings(n, true), run: tree_rows },
    Shape { name: "repeated ids fed one by one", n: 1_000, make: repeated_ids, run: feed_and_estimate },
];

/// A user message line.
pub(crate) fn line(id: &str, parent: Option<&str>, ts: u64, text: &str) -> String {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts,
        "message": {"role": "user", "content": text}})
    .to_string()
}

/// A chain of `n` entries with an anchor label near the root and a tool call in flight at the leaf.
pub(crate) fn chain(n: usize) -> String {
    let mut out = String::with_capacity(n * 120);
    for i in 0..n {
        let parent = (i > 0).then(|| format!("e{}", i - 1));
        out.push_str(&line(&format!("e{i}"), parent.as_deref(), i as u64, "step of the work"));
        out.push('\n');
    }
    out.push_str(&json!({"type": "label", "id": "lab", "parentId": format!("e{}", n - 1), "timestamp": n,
        "targetId": "e2", "label": "anchor:start"}).to_string());
    out.push('\n');
    out.push_str(&json!({"type": "message", "id": "call", "parentId": "lab", "timestamp": n + 1,
        "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "c9", "name": "navigate_tree",
            "arguments": {}}], "stopReason": "toolUse"}}).to_string());
    out
}

fn facts() -> ToolFacts {
    let facts = json!({"callId": "c9", "contextWindow": 128_000.0,
        "model": {"api": "faux", "provider": "faux", "id": "faux-1"}});
    serde_json::from_value(facts).expect("facts")
}

/// Tool-call arguments written with `json!`, as the core reads them.
fn args(v: &serde_json::Value) -> Arguments {
    Arguments::from_value(v.clone())
}

/// Feed, then every walk the plugin does on a call: path, estimate, anchors, list and rewind plans.
pub(crate) fn pipeline(text: &str) {
    let mut index = SessionIndex::new(Mode::Plugin);
    let report = index.append_jsonl(text);
    assert!(report.skipped.is_empty());
    let _ = index.path(index.leaf()).expect("path");
    let _ = index.estimate(Leaf::Current).expect("estimate");
    let _ = index.anchors(Leaf::Current).expect("anchors");
    let _ = tool::plan(&mut index, &args(&json!({"action": "list"})), &facts()).expect("list");
    let focus = "User asked: build the parser. Done: reading. Left: tests.";
    let args = json!({"action": "rewind", "labelStart": "start", "labelEnd": "done", "summaryFocus": focus});
    let plan = tool::plan(&mut index, &self::args(&args), &facts()).expect("plan");
    assert!(matches!(plan, ToolPlan::Rewind(_) | ToolPlan::Refuse(_)), "{plan:?}");
}

fn huge_string(n: usize) -> Vec<String> {
    vec![line("big", None, 0, &"word ".repeat(n))]
}

fn huge_string_run(t: &[String]) {
    let mut index = SessionIndex::new(Mode::Full);
    index.append_jsonl(&t[0]);
    let _ = index.estimate(Leaf::Current);
    let _ = index.context_json(Leaf::Current);
}

fn lone_surrogates(n: usize) -> Vec<String> {
    vec![format!(
        r#"{{"type":"message","id":"s","parentId":null,"timestamp":0,"message":{{"role":"user","content":"{}"}}}}"#,
        "a\\ud800".repeat(n)
    )]
}

fn plugin_takes_one(t: &[String]) {
    let mut index = SessionIndex::new(Mode::Plugin);
    assert_eq!(index.append_jsonl(&t[0]).appended, 1);
}

fn anchors_everywhere(n: usize) -> Vec<String> {
    let mut out = String::new();
    for i in 0..n {
        let parent = (i > 0).then(|| format!("l{}", i - 1));
        out.push_str(&line(&format!("u{i}"), parent.as_deref(), i as u64, "text"));
        out.push('\n');
        out.push_str(&json!({"type": "label", "id": format!("l{i}"), "parentId": format!("u{i}"),
            "timestamp": i, "targetId": format!("u{i}"), "label": format!("anchor:a{i}")}).to_string());
        out.push('\n');
    }
    vec![out]
}

fn list_plan(t: &[String]) {
    let mut index = SessionIndex::new(Mode::Plugin);
    index.append_jsonl(&t[0]);
    let _ = tool::plan(&mut index, &args(&json!({"action": "list"})), &facts());
}

fn malformed(n: usize) -> Vec<String> {
    vec![(0..n).map(|i| if i % 2 == 0 { "{\"broken\": " } else { "[1,2]" }).collect::<Vec<_>>().join("\n")]
}

fn malformed_run(t: &[String]) {
    let mut index = SessionIndex::new(Mode::Plugin);
    let report = index.append_jsonl(&t[0]);
    assert_eq!(report.skipped.len(), t[0].lines().count());
    assert_eq!(report.skipped.last().map(|s| s.line), Some(t[0].lines().count()));
}

/// A root with `n` children, written oldest first or (`reverse`) newest first: a file concatenated from
/// out-of-order sources, or retries under one entry by a clock that went backwards.
fn siblings(n: usize, reverse: bool) -> Vec<String> {
    let mut lines = vec![line("root", None, 0, "r")];
    let ts = |i: usize| if reverse { (2 * n - i) as u64 } else { 1 + i as u64 };
    lines.extend((0..n).map(|i| line(&format!("c{i}"), Some("root"), ts(i), "x")));
    vec![lines.join("\n")]
}

fn tree_rows(t: &[String]) {
    let mut index = SessionIndex::new(Mode::Plugin);
    index.append_jsonl(&t[0]);
    let _ = index.tree_rows();
}

/// Two ids that keep repeating under one root, fed one line at a time with an estimate after each, the
/// way the plugin feeds: a relink of every entry per call (once the case) made this quadratic.
fn repeated_ids(m: usize) -> Vec<String> {
    let mut lines = vec![line("root", None, 0, "r")];
    lines.extend((0..m).map(|i| line(&format!("d{}", i % 2), Some("root"), 1, "hello")));
    lines
}

fn feed_and_estimate(pieces: &[String]) {
    let mut index = SessionIndex::new(Mode::Plugin);
    for piece in pieces {
        index.append_jsonl(piece);
        let _ = index.estimate(Leaf::Current);
    }
}
