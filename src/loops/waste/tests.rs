//! Every loop of a file: branches, runs, requests and money.

use serde_json::json;

use super::*;
use crate::loops::tests::Session;
use crate::session::Mode;

const FAIL: &str = "error: could not find `Cargo.toml`\nCommand exited with code 101";

fn build(s: &mut Session, i: usize, text: &str, usd: f64) {
    s.calls(&format!("a{i}"), &[(&format!("c{i}"), "bash", json!({"command": "cargo build"}))], usd);
    s.result(&format!("r{i}"), &format!("c{i}"), "bash", text, true);
}

/// The waste of `s` read both ways (the index collecting as it is fed, and a full index's texts): the same.
fn waste_of(s: &Session) -> Waste {
    let mut plugin = SessionIndex::new(Mode::Plugin);
    let steps = Steps::collect(&mut plugin);
    plugin.load_file(&s.jsonl()).unwrap();
    let collected = waste(&mut plugin, &steps.borrow(), 3).unwrap();
    let mut full = s.index(Mode::Full);
    let steps = Steps::from_full(&full);
    assert_eq!(waste(&mut full, &steps, 3).unwrap(), collected, "collected and read from the texts alike");
    collected
}

#[test]
fn a_loop_with_its_requests_and_money() {
    let mut s = Session::new();
    s.user("u1", "build it");
    for i in 0..5 {
        build(&mut s, i, FAIL, 0.25);
    }
    s.calls("a9", &[("c9", "read", json!({"path": "Cargo.toml"}))], 0.5).result("r9", "c9", "read", "ENOENT", true);
    let w = waste_of(&s);
    assert!(w.priced);
    assert_eq!(w.loops.len(), 1, "{w:?}");
    let l = &w.loops[0];
    assert_eq!((l.tool.as_str(), l.call.as_str(), l.repeats), ("bash", "cargo build", 5));
    assert_eq!(l.error.as_deref(), Some("error: could not find `Cargo.toml`"));
    assert_eq!(l.request_ids, ["a0", "a1", "a2", "a3", "a4"]);
    assert_eq!(l.usd, Some(1.25), "the five requests' recorded cost, not the one after");
    assert!(l.active_path);
    assert_eq!((w.calls, w.requests, w.usd), (5, 5, Some(1.25)));
}

#[test]
fn no_prices_no_money() {
    let mut s = Session::new();
    s.user("u1", "build it");
    for i in 0..3 {
        build(&mut s, i, FAIL, 0.0);
    }
    let w = waste_of(&s);
    assert!(!w.priced);
    assert_eq!(w.loops[0].usd, None);
    assert_eq!(w.usd, None);
}

#[test]
fn a_user_message_splits_runs() {
    let mut s = Session::new();
    s.user("u1", "build it");
    build(&mut s, 0, FAIL, 0.1);
    build(&mut s, 1, FAIL, 0.1);
    s.user("u2", "try again");
    build(&mut s, 2, FAIL, 0.1);
    build(&mut s, 3, FAIL, 0.1);
    assert!(waste_of(&s).loops.is_empty(), "two runs of two are no loop of three");
}

#[test]
fn loops_on_every_branch_and_a_shared_start_counted_once() {
    let mut s = Session::new();
    s.user("u1", "build it");
    build(&mut s, 0, FAIL, 0.1);
    build(&mut s, 1, FAIL, 0.1);
    // Branch one: the third and fourth failures (then abandoned).
    build(&mut s, 2, FAIL, 0.1);
    build(&mut s, 3, FAIL, 0.1);
    // Branch two, from r1: the third failure again, then a success.
    s.push("a5", json!({"type": "message", "parentId": "r1", "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "c5", "name": "bash", "arguments": {"command": "cargo build"}}], "usage": {"input": 100, "output": 10, "cacheRead": 0, "cacheWrite": 0, "cost": {"input": 0.1, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0.1}}}}));
    s.result("r5", "c5", "bash", FAIL, true);
    s.calls("a6", &[("c6", "bash", json!({"command": "cargo build"}))], 0.1).result("r6", "c6", "bash", "Finished", false);
    // A separate loop on the active branch, of the same result.
    for i in 7..10 {
        s.calls(&format!("a{i}"), &[(&format!("c{i}"), "read", json!({"path": "x"}))], 0.1);
        s.result(&format!("r{i}"), &format!("c{i}"), "read", "same", false);
    }
    let w = waste_of(&s);
    assert_eq!(w.loops.len(), 2, "{w:#?}");
    let build_loop = &w.loops[0];
    assert_eq!(build_loop.request_ids, ["a0", "a1", "a2", "a3", "a5"], "the shared start once, both branches' repeats");
    assert_eq!(build_loop.repeats, 5);
    assert!(build_loop.active_path, "its last request (a5) is on the active path");
    let read_loop = &w.loops[1];
    assert_eq!((read_loop.kind, read_loop.repeats, read_loop.error.as_deref()), (LoopKind::SameResult, 3, None));
    assert_eq!(w.requests, 8);
    assert!((w.usd.unwrap() - 0.8).abs() < 1e-9, "{:?}", w.usd);
}

#[test]
fn an_abandoned_loop_is_off_the_active_path() {
    let mut s = Session::new();
    s.user("u1", "build it");
    s.calls("a0", &[("c0", "read", json!({"path": "x"}))], 0.0).result("r0", "c0", "read", "x", false);
    for i in 1..4 {
        build(&mut s, i, FAIL, 0.0);
    }
    // A rewind: the summary under r0, the work goes on there.
    s.push("bs", json!({"type": "branch_summary", "parentId": "r0", "fromId": "r3", "summary": "tried cargo build"}));
    s.calls("a9", &[("c9", "bash", json!({"command": "ls"}))], 0.0).result("r9", "c9", "bash", "Cargo.toml", false);
    let w = waste_of(&s);
    assert_eq!(w.loops.len(), 1);
    assert!(!w.loops[0].active_path);
}

#[test]
fn entries_that_do_not_read_are_passed_over() {
    let mut s = Session::new();
    s.user("u1", "go");
    for i in 0..3 {
        build(&mut s, i, FAIL, 0.1);
    }
    // A result with a content of the wrong shape, an assistant whose content is a string, a cost that is no number.
    s.push("x1", json!({"type": "message", "message": {"role": "toolResult", "toolCallId": "zz", "content": 5}}));
    s.push("x2", json!({"type": "message", "message": {"role": "assistant", "content": "text", "usage": {"cost": {"total": "a lot"}}}}));
    s.push("x3", json!({"type": "custom", "customType": "x", "data": {"message": 1}}));
    let w = waste_of(&s);
    assert_eq!(w.loops.len(), 1);
    assert_eq!(w.loops[0].repeats, 3);
}

#[test]
fn the_stats_text_lists_the_loops() {
    let mut s = Session::new();
    s.user("u1", "build it");
    for i in 0..4 {
        build(&mut s, i, FAIL, 0.0125);
    }
    let text = crate::cli_text::waste_text(&waste_of(&s));
    assert_eq!(
        text,
        "  loops: 1 (4 calls in 4 requests, $0.0500)\n    bash `cargo build` ×4 (the same failure: error: could not find `Cargo.toml`): 4 requests, $0.0500"
    );
    let empty = crate::cli_text::waste_text(&waste_of(&Session::new()));
    assert_eq!(empty, "  loops: none (a call or failure repeated 3 times)");
}

#[test]
fn a_request_whose_usage_cannot_be_read_adds_no_money_as_the_cost_model_says() {
    let mut s = Session::new();
    s.user("u1", "build it");
    for i in 0..3 {
        build(&mut s, i, FAIL, 0.25);
    }
    // A fourth failure whose usage has a cost but no token counts: the cost model leaves its money out (and
    // counts it unpriced); the loop's money is the cost model's, not a second reading of `cost.total`.
    s.push("a3", json!({"type": "message", "parentId": "r2", "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "c3", "name": "bash", "arguments": {"command": "cargo build"}}], "usage": {"cost": {"total": 0.1}}}}));
    s.result("r3", "c3", "bash", FAIL, true);
    let w = waste_of(&s);
    assert_eq!(w.loops[0].request_ids, ["a0", "a1", "a2", "a3"]);
    assert_eq!(w.usd, Some(0.75));
    let mut index = s.index(Mode::Plugin);
    let cost = crate::tool::session_cost(&mut index).unwrap();
    assert_eq!((cost.unpriced, cost.messages.usd), (1, Some(0.75)));
}
