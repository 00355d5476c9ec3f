//! Decisions of `navigate_tree` on small hand-built sessions.
#![allow(clippy::float_cmp, reason = "token estimates are whole numbers held in f64")]

use serde_json::{json, Value};

use super::*;
use crate::session::{Mode, SessionIndex};

/// [`super::plan`] with arguments written as `serde_json::json!`.
fn plan(index: &mut SessionIndex, params: &Value, facts: &Facts) -> Result<Plan, crate::SessionError> {
    super::plan(index, &super::test_json(params.clone()), facts)
}

/// [`super::check_auth`] with a `serde_json` result.
fn check_auth(result: &Value) -> Option<Refusal> {
    super::check_auth(&super::test_json(result.clone()))
}

/// [`super::check_summary`] with a `serde_json` result.
fn check_summary(result: &Value) -> Option<Refusal> {
    super::check_summary(&super::test_json(result.clone()))
}

/// A core JSON value as `serde_json` reads it back, for indexing in assertions.
fn sj(v: &crate::json::Value<'_>) -> Value {
    serde_json::from_str(&v.to_json()).expect("the core writes valid JSON")
}

/// Builds a session line by line; each entry's parent is the previous entry unless given.
struct Session {
    lines: Vec<Value>,
    clock: u64,
}

impl Session {
    fn new() -> Self {
        Session { lines: Vec::new(), clock: 0 }
    }
    fn last(&self) -> Option<String> {
        self.lines.last().map(|l| l["id"].as_str().unwrap().to_string())
    }
    fn push(&mut self, id: &str, mut entry: Value) -> &mut Self {
        self.clock += 1;
        entry["id"] = json!(id);
        if entry.get("parentId").is_none() {
            entry["parentId"] = json!(self.last());
        }
        entry["timestamp"] = json!(format!("2026-01-01T00:00:{:02}.000Z", self.clock % 60));
        self.lines.push(entry);
        self
    }
    fn user(&mut self, id: &str, text: &str) -> &mut Self {
        self.push(id, json!({"type": "message", "message": {"role": "user", "content": text}}))
    }
    fn assistant(&mut self, id: &str, text: &str, calls: &[(&str, &str)], total: f64) -> &mut Self {
        let mut content = vec![];
        if !text.is_empty() {
            content.push(json!({"type": "text", "text": text}));
        }
        for (cid, name) in calls {
            content.push(json!({"type": "toolCall", "id": cid, "name": name, "arguments": {}}));
        }
        let stop = if calls.is_empty() { "stop" } else { "toolUse" };
        self.push(
            id,
            json!({"type": "message", "message": {"role": "assistant", "content": content, "stopReason": stop,
                "usage": {"input": total, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": total + 1.0}}}),
        )
    }
    fn result(&mut self, id: &str, call: &str, chars: usize) -> &mut Self {
        self.push(
            id,
            json!({"type": "message", "message": {"role": "toolResult", "toolCallId": call, "toolName": "t",
                "content": [{"type": "text", "text": "x".repeat(chars)}], "isError": false}}),
        )
    }
    fn label(&mut self, id: &str, target: &str, label: Option<&str>) -> &mut Self {
        self.push(id, json!({"type": "label", "targetId": target, "label": label}))
    }
    fn summary(&mut self, id: &str, parent: &str, text: &str) -> &mut Self {
        self.push(id, json!({"type": "branch_summary", "parentId": parent, "fromId": parent, "summary": text}))
    }
    fn message(&mut self, id: &str, message: &Value) -> &mut Self {
        self.push(id, json!({"type": "message", "message": message}))
    }
    fn index(&self) -> SessionIndex {
        let mut index = SessionIndex::new(Mode::Plugin);
        let text: Vec<String> = self.lines.iter().map(Value::to_string).collect();
        let report = index.append_jsonl(&text.join("\n"));
        assert!(report.skipped.is_empty(), "{report:?}");
        index
    }
}

fn facts(call: &str) -> Facts {
    Facts {
        call_id: call.into(),
        context_window: 100_000.0,
        model: Some(ModelFacts { api: "faux".into(), provider: "faux".into(), id: "faux-1".into() }),
        refresh_reaches: true,
        now_ms: 42.0,
    }
}

fn rewind_args(start: &str, end: &str) -> Value {
    json!({"action": "rewind", "labelStart": start, "labelEnd": end, "summaryFocus": "keep the user's last instruction and the open items"})
}

fn refusal(plan: Plan) -> Refusal {
    match plan {
        Plan::Refuse(r) => r,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// user → a1(anchor call c1) → r1 → a2(bulk c2) → r2 (big) → a3(rewind call c3): the anchor `start`
/// sits on `u` (the entry before a1).
fn worked_session(bulk: usize) -> Session {
    let mut s = Session::new();
    s.user("u", "please build the parser")
        .assistant("a1", "starting", &[("c1", TOOL_NAME)], 100.0)
        .label("l1", "u", Some("anchor:start"))
        .result("r1", "c1", 40)
        .assistant("a2", "", &[("c2", "read")], 200.0)
        .result("r2", "c2", bulk)
        .assistant("a3", "", &[("c3", TOOL_NAME)], 200.0 + bulk as f64 / 4.0);
    s
}

#[test]
fn anchor_labels_the_entry_before_the_in_flight_message() {
    let mut s = Session::new();
    s.user("u", "hello there").assistant("a1", "anchoring", &[("c1", TOOL_NAME)], 10.0);
    let mut index = s.index();
    let Plan::Anchor(a) = plan(&mut index, &json!({"action": "anchor", "name": "impl-start"}), &facts("c1")).unwrap()
    else {
        panic!()
    };
    assert_eq!(a.entry_id, "u");
    assert_eq!(a.label, "anchor:impl-start");
    assert_eq!(a.move_from, None);
    assert!(a.text.starts_with("[anchor 'impl-start'] set at "), "{}", a.text);
    assert!(a.text.contains("(after: “hello there”)"), "{}", a.text);
    // Without a matching in-flight message the leaf itself is anchored.
    let Plan::Anchor(b) = plan(&mut index, &json!({"action": "anchor", "name": "x"}), &facts("other")).unwrap() else {
        panic!()
    };
    assert_eq!(b.entry_id, "a1");
}

#[test]
fn re_anchoring_moves_the_label() {
    let mut s = worked_session(100);
    s.lines.pop();
    s.assistant("a3", "", &[("c3", TOOL_NAME)], 300.0);
    let mut index = s.index();
    let Plan::Anchor(a) = plan(&mut index, &json!({"action": "anchor", "name": "start"}), &facts("c3")).unwrap() else {
        panic!()
    };
    assert_eq!(a.entry_id, "r2");
    assert_eq!(a.move_from.as_deref(), Some("u"));
    assert!(a.text.contains("moved"));
}

#[test]
fn invalid_parameters_are_refused_with_what_to_send() {
    let mut index = worked_session(100).index();
    let f = facts("c3");
    let r = refusal(plan(&mut index, &json!({"action": "jump"}), &f).unwrap());
    assert_eq!(r.code, RefusalCode::InvalidAction);
    let r = refusal(plan(&mut index, &json!({"action": "anchor", "name": "Bad Name"}), &f).unwrap());
    assert_eq!(r.code, RefusalCode::InvalidName);
    assert!(r.text.contains("`name`") && r.text.contains("kebab-case"));
    let r = refusal(plan(&mut index, &json!({"action": "rewind", "labelStart": "start"}), &f).unwrap());
    assert!(r.text.contains("`labelEnd`"), "{}", r.text);
    let r = refusal(
        plan(&mut index, &json!({"action": "rewind", "labelStart": "start", "labelEnd": "e", "summaryFocus": "   short focus      "}), &f)
            .unwrap(),
    );
    assert_eq!(r.code, RefusalCode::FocusTooShort);
    assert!(r.text.contains("most recent instruction"));
}

#[test]
fn unknown_anchor_lists_the_ones_there_are() {
    let mut index = worked_session(100).index();
    let r = refusal(plan(&mut index, &rewind_args("nope", "end"), &facts("c3")).unwrap());
    assert_eq!(r.code, RefusalCode::UnknownAnchor);
    assert!(r.text.contains("start"), "{}", r.text);
}

#[test]
fn small_rewinds_are_refused_with_the_anchor_percentages() {
    let mut index = worked_session(4000).index();
    let r = refusal(plan(&mut index, &rewind_args("start", "end"), &facts("c3")).unwrap());
    assert_eq!(r.code, RefusalCode::TooLittleSaved);
    assert!(r.text.contains("%  start"), "{}", r.text);
}

#[test]
fn rewind_plans_pi_s_branch_summary_entries_and_the_before_number() {
    let mut index = worked_session(40_000).index();
    let Plan::Rewind(p) = plan(&mut index, &rewind_args("start", "done"), &facts("c3")).unwrap() else { panic!() };
    assert_eq!(p.target_id, "u");
    assert_eq!(p.summarize_ids, ["a1", "l1", "r1", "a2", "r2", "a3"]);
    // Before = estimate at r2 (parent of a3): a2's usage (201) + ceil(40000/4).
    assert_eq!(p.before_tokens, 201.0 + 10_000.0);
    assert_eq!(sj(&p.fallback_synthetic)["content"][0]["id"], "c3");

    // Second half: the branch summary was appended under the target.
    let mut s = worked_session(40_000);
    s.summary("bs", "u", "The user explored a different conversation branch before returning here.\n## Goal\nparser");
    let mut index = s.index();
    let f = finish(&mut index, &p, "bs", 7.0).unwrap();
    assert_eq!(f.labels.len(), 1);
    assert_eq!(f.labels[0].label.as_deref(), Some("anchor:done"));
    let expected_after = 6.0 + 22.0; // ceil(24/4) for the user text + ceil(88/4) for the summary
    assert_eq!(f.after_tokens, expected_after);
    assert_eq!(sj(&f.synthetic)["usage"]["totalTokens"], expected_after);
    assert_eq!(sj(&f.synthetic)["timestamp"], 7.0);
    assert!(f.text.starts_with("[rewind 'start' → 'done'] · context 10.2% → 0.0% of 100k"), "{}", f.text);
}

#[test]
fn label_end_collision_moves_the_older_label() {
    let mut s = worked_session(40_000);
    // `done` already labels u's parent chain entry: put it on u itself via a second label.
    s.lines.pop();
    s.label("l2", "u", Some("anchor:done")).assistant("a3", "", &[("c3", TOOL_NAME)], 10_200.0);
    let mut index = s.index();
    let Plan::Rewind(p) = plan(&mut index, &rewind_args("done", "done"), &facts("c3")).unwrap() else { panic!() };
    s.summary("bs", &p.target_id, "summary text");
    let mut index = s.index();
    let f = finish(&mut index, &p, "bs", 0.0).unwrap();
    assert_eq!(f.labels[1].entry_id, "u");
    assert_eq!(f.labels[1].label, None);
}

#[test]
fn batched_rewind_names_the_other_calls() {
    let mut s = worked_session(40_000);
    s.lines.pop();
    s.assistant("a3", "", &[("c3", TOOL_NAME), ("c4", "bash")], 10_200.0);
    let mut index = s.index();
    let r = refusal(plan(&mut index, &rewind_args("start", "done"), &facts("c3")).unwrap());
    assert_eq!(r.code, RefusalCode::BatchedRewind);
    assert!(r.text.contains("bash (c4)"), "{}", r.text);
}

#[test]
fn a_call_after_earlier_calls_of_its_message_still_finds_its_message() {
    let mut s = worked_session(40_000);
    s.lines.pop();
    s.assistant("a3", "", &[("c4", "bash"), ("c3", TOOL_NAME)], 10_200.0).result("r4", "c4", 10);
    let mut index = s.index();
    let r = refusal(plan(&mut index, &rewind_args("start", "done"), &facts("c3")).unwrap());
    assert_eq!(r.code, RefusalCode::BatchedRewind);
    let Plan::Anchor(a) = plan(&mut index, &json!({"action": "anchor", "name": "here"}), &facts("c3")).unwrap() else {
        panic!()
    };
    assert_eq!(a.entry_id, "r2");
}

#[test]
fn chained_rewind_without_work_is_refused() {
    // After a rewind: target u ← summary(labelled done) ← synthetic(c3) ← result(c3) ← a4(rewind again).
    let mut s = worked_session(40_000);
    s.summary("bs", "u", "summary of the parser work")
        .label("l3", "bs", Some("anchor:done"))
        .message("syn", &sj(&synthetic_assistant("c3", &super::test_json(json!({"action": "rewind"})), None, 5000.0, 0.0)))
        .result("r3", "c3", 300)
        .assistant("a4", "", &[("c4", TOOL_NAME)], 5100.0);
    let mut index = s.index();
    let r = refusal(plan(&mut index, &rewind_args("done", "again"), &facts("c4")).unwrap());
    assert_eq!(r.code, RefusalCode::ChainedRewind, "{}", r.text);
    // Rewinding further back still collapses only the previous rewind's artifacts.
    let r = refusal(plan(&mut index, &rewind_args("start", "again"), &facts("c4")).unwrap());
    assert_eq!(r.code, RefusalCode::ChainedRewind, "{}", r.text);
    // Nothing at all after the anchor: already there.
    let mut s2 = Session::new();
    s2.user("u", "hi").label("l", "u", Some("anchor:a")).assistant("a1", "", &[("c1", TOOL_NAME)], 10.0);
    let mut index = s2.index();
    let r = refusal(plan(&mut index, &rewind_args("a", "b"), &facts("c1")).unwrap());
    assert_eq!(r.code, RefusalCode::NothingToCollapse, "{}", r.text);
    let mut s3 = Session::new();
    s3.user("u", "hi").assistant("a1", "", &[("c1", TOOL_NAME)], 10.0).label("l", "a1", Some("anchor:a"));
    let mut index = s3.index();
    index.set_leaf(Some("a1")).unwrap();
    let r = refusal(plan(&mut index, &rewind_args("a", "b"), &facts("c1")).unwrap());
    assert_eq!(r.code, RefusalCode::AlreadyAtTarget, "{}", r.text);
}

#[test]
fn work_after_a_rewind_makes_the_next_rewind_legal() {
    let mut s = worked_session(40_000);
    s.summary("bs", "u", "summary of the parser work")
        .label("l3", "bs", Some("anchor:done"))
        .message("syn", &sj(&synthetic_assistant("c3", &super::test_json(json!({"action": "rewind"})), None, 5000.0, 0.0)))
        .result("r3", "c3", 300)
        .assistant("a4", "", &[("c4", "read")], 5100.0)
        .result("r4", "c4", 30_000)
        .assistant("a5", "", &[("c5", TOOL_NAME)], 12_700.0);
    let mut index = s.index();
    let plan = plan(&mut index, &rewind_args("done", "second"), &facts("c5")).unwrap();
    assert!(matches!(plan, Plan::Rewind(_)), "{plan:?}");
}

#[test]
fn no_model_refuses_before_anything_is_written() {
    let mut index = worked_session(40_000).index();
    let mut f = facts("c3");
    f.model = None;
    assert_eq!(refusal(plan(&mut index, &rewind_args("start", "done"), &f).unwrap()).code, RefusalCode::NoModel);
}

#[test]
fn list_shows_each_anchor_with_its_percentage() {
    let mut index = worked_session(40_000).index();
    let Plan::List(l) = plan(&mut index, &json!({"action": "list"}), &facts("c3")).unwrap() else { panic!() };
    assert!(l.text.starts_with("[list] · 1 anchor · ctx "), "{}", l.text);
    assert!(l.text.contains("start"), "{}", l.text);
    assert!(!l.text.contains('⚠'));
    let mut f = facts("c3");
    f.refresh_reaches = false;
    let Plan::List(l) = plan(&mut index, &json!({"action": "list"}), &f).unwrap() else { panic!() };
    assert!(l.text.contains('⚠'));
}

#[test]
fn summarizer_and_auth_outcomes() {
    assert!(check_auth(&json!({"ok": true})).is_none());
    assert_eq!(check_auth(&json!({"ok": false, "error": "no key"})).unwrap().code, RefusalCode::AuthFailed);
    assert!(check_summary(&json!({"summary": "## Goal"})).is_none());
    assert_eq!(check_summary(&json!({"aborted": true})).unwrap().text, "Summarization aborted.");
    assert_eq!(check_summary(&json!({"error": "boom"})).unwrap().code, RefusalCode::SummaryFailed);
    assert_eq!(check_summary(&json!({"summary": "  "})).unwrap().code, RefusalCode::SummaryFailed);
    // pi wraps even an empty model answer in its preamble (and file lists): still empty.
    let pre =
        "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n";
    assert_eq!(check_summary(&json!({ "summary": pre })).unwrap().code, RefusalCode::SummaryFailed);
    let files = format!("{pre}\n\n<read-files>\na.ts\n</read-files>\n\n<modified-files>\nb.ts\n</modified-files>");
    assert!(check_summary(&json!({ "summary": files })).unwrap().text.contains("the summary is empty"));
    assert!(check_summary(&json!({ "summary": format!("{pre}## Goal\nx") })).is_none());
}

/// Adversarial arguments: every one is a refusal (so nothing is written), and no refusal repeats a huge or
/// look-alike value back to the model.
#[test]
fn adversarial_arguments_are_refused_clearly() {
    let mut index = worked_session(40_000).index();
    let f = facts("c3");
    let mb = "x".repeat(1 << 20);
    let focus = "keep the user's last instruction and the open items";
    let cases: Vec<(Value, RefusalCode, &str)> = vec![
        (json!(null), RefusalCode::InvalidAction, "action="),
        (json!("rewind"), RefusalCode::InvalidAction, "action="),
        (json!([1, 2]), RefusalCode::InvalidAction, "action="),
        (json!({}), RefusalCode::InvalidAction, "action="),
        (json!({"action": 3}), RefusalCode::InvalidAction, "action="),
        (json!({"action": "ANCHOR", "name": "a"}), RefusalCode::InvalidAction, "action="),
        (json!({"action": mb.clone()}), RefusalCode::InvalidAction, "action="),
        (json!({"action": "anchor"}), RefusalCode::InvalidName, "it is missing"),
        (json!({"action": "anchor", "name": 12}), RefusalCode::InvalidName, "a number, not a string"),
        (json!({"action": "anchor", "name": {"x": 1}}), RefusalCode::InvalidName, "an object, not a string"),
        (json!({"action": "anchor", "name": mb.clone()}), RefusalCode::InvalidName, "1048576 characters"),
        (json!({"action": "anchor", "name": "anchor:start"}), RefusalCode::InvalidName, "drop the 'anchor:' prefix"),
        (json!({"action": "anchor", "name": "st\u{430}rt"}), RefusalCode::InvalidName, "U+0430"),
        (json!({"action": "anchor", "name": "impl\u{2011}start"}), RefusalCode::InvalidName, "U+2011"),
        (json!({"action": "anchor", "name": "\u{ff53}\u{ff54}"}), RefusalCode::InvalidName, "U+FF53"),
        (json!({"action": "anchor", "name": "a\u{202e}b"}), RefusalCode::InvalidName, "U+202E"),
        (
            json!({"action": "rewind", "labelStart": mb.clone(), "labelEnd": "e", "summaryFocus": focus}),
            RefusalCode::InvalidName,
            "`labelStart`",
        ),
        (
            json!({"action": "rewind", "labelStart": "start", "labelEnd": "anchor:e", "summaryFocus": focus}),
            RefusalCode::InvalidName,
            "`labelEnd`",
        ),
        (
            json!({"action": "rewind", "labelStart": "start", "labelEnd": "e", "summaryFocus": 42}),
            RefusalCode::FocusTooShort,
            "a number, not a string",
        ),
        (
            json!({"action": "rewind", "labelStart": "start", "labelEnd": "e", "summaryFocus": [focus]}),
            RefusalCode::FocusTooShort,
            "an array",
        ),
        (
            json!({"action": "rewind", "labelStart": "start", "labelEnd": "e", "summaryFocus": mb.clone()}),
            RefusalCode::FocusTooLong,
            "1048576 characters",
        ),
        (
            json!({"action": "rewind", "labelStart": "st\u{430}rt", "labelEnd": "e", "summaryFocus": focus}),
            RefusalCode::InvalidName,
            "U+0430",
        ),
    ];
    for (args, code, needle) in cases {
        let r = refusal(plan(&mut index, &args, &f).unwrap());
        let shown = args.to_string().chars().take(80).collect::<String>();
        assert_eq!(r.code, code, "{shown}: {}", r.text);
        assert!(r.text.contains(needle), "{shown}: {}", r.text);
        assert!(r.text.len() < 2000, "{shown}: refusal of {} bytes", r.text.len());
        assert!(!r.text.contains("xxxxxxxxxx"), "{shown}: the refusal repeats the value");
    }
    // The longest accepted focus still plans.
    let long = "f".repeat(MAX_FOCUS_CHARS);
    let args = json!({"action": "rewind", "labelStart": "start", "labelEnd": "e", "summaryFocus": long});
    assert!(matches!(plan(&mut index, &args, &f).unwrap(), Plan::Rewind(_)));
    // Extra fields are ignored by the decision and dropped from the synthetic copy.
    let args = json!({"action": "rewind", "labelStart": "start", "labelEnd": "e", "summaryFocus": focus, "junk": mb});
    let Plan::Rewind(p) = plan(&mut index, &args, &f).unwrap() else { panic!() };
    assert_eq!(p.arguments.get("junk"), None);
    assert_eq!(sj(&p.fallback_synthetic)["content"][0]["arguments"].get("junk"), None);
}

/// labelStart naming an anchor that only exists on a branch an earlier rewind left behind.
#[test]
fn an_anchor_on_an_abandoned_branch_is_refused_as_off_path() {
    let mut s = worked_session(40_000);
    // An earlier rewind: the summary hangs off `u`; `start` sat on r1, which is now abandoned.
    s.label("l2", "r1", Some("anchor:deep")).summary("bs", "u", "## Goal\nsummary").assistant(
        "a4",
        "",
        &[("c4", TOOL_NAME)],
        10.0,
    );
    let mut index = s.index();
    let r = refusal(plan(&mut index, &rewind_args("deep", "end"), &facts("c4")).unwrap());
    assert_eq!(r.code, RefusalCode::UnknownAnchor);
    assert!(r.text.contains("left behind"), "{}", r.text);
    assert!(r.text.contains("start"), "the anchors on the active branch are listed: {}", r.text);
    let r = refusal(plan(&mut index, &rewind_args("never-set", "end"), &facts("c4")).unwrap());
    assert!(r.text.starts_with("No anchor 'never-set'"), "{}", r.text);
}

#[test]
fn salvage_texts_name_the_failed_step() {
    assert!(salvage_text("labels", "ENOSPC").contains("writing the anchor labels failed: ENOSPC"));
    assert!(salvage_text("undone", "EROFS").contains("was undone"));
    assert!(salvage_text("unchanged", "unknown id").ends_with("The session was not changed."));
    assert!(salvage_text("branch-undone", "EROFS").contains("no earlier work was lost"));
    assert!(salvage_text("anchor", "EACCES").starts_with("The anchor may not have been saved"));
    assert!(salvage_text("anchor-move", "EACCES").contains("clearing it from its earlier position failed"));
}

/// Found by fuzzing: labels whose parent links loop back to the leaf (duplicate and empty ids) made the
/// search for the in-flight call walk forever. Every action must answer.
#[test]
fn a_parent_cycle_through_labels_at_the_leaf_does_not_hang() {
    let lines = [
        r#"{"type":"label","id":"x","parentId":"","timestamp":0,"targetId":"t","label":"anchor:"}"#,
        r#"{"type":"label","id":"y","parentId":"x","timestamp":0,"targetId":"t","label":"anchor:"}"#,
        r#"{"type":"label","id":"","parentId":"y","timestamp":0,"targetId":"","label":"anchor:start"}"#,
    ];
    let mut index = SessionIndex::new(Mode::Plugin);
    index.append_jsonl(&lines.join("\n"));
    for args in [json!({"action": "anchor", "name": "start"}), json!({"action": "list"}), rewind_args("start", "e")] {
        let _ = plan(&mut index, &args, &facts("c1"));
    }
}
