//! Decisions of `navigate_tree` on small hand-built sessions.
#![allow(clippy::float_cmp, reason = "token estimates are whole numbers held in f64")]

use serde_json::{json, Value};

use super::*;
use crate::session::{Mode, SessionIndex};

/// [`super::plan`] with arguments written as `serde_json::json!`.
fn typed(index: &mut SessionIndex, params: &Value, facts: &ToolFacts) -> Result<ToolPlan, crate::SessionError> {
    super::plan(index, &Arguments::from_value(params.clone()), facts)
}

/// [`typed`], as JSON (what JavaScript receives), for indexing in assertions.
fn plan(index: &mut SessionIndex, params: &Value, facts: &ToolFacts) -> Result<Value, crate::SessionError> {
    typed(index, params, facts).map(|p| sj(&p))
}

/// The rewind plan for `params` (which must plan a rewind).
fn rewind_plan(index: &mut SessionIndex, params: &Value, facts: &ToolFacts) -> RewindPlan {
    match typed(index, params, facts).unwrap() {
        ToolPlan::Rewind(p) => p,
        other => panic!("expected a rewind, got {}", sj(&other)),
    }
}

/// [`super::finish`]; the result as JSON.
fn finish(index: &mut SessionIndex, plan: &RewindPlan, summary_id: &str, now_ms: f64) -> Result<Value, crate::SessionError> {
    super::finish(index, plan, super::SummaryFacts::default(), summary_id, now_ms).map(|f| sj(&f))
}

/// [`super::check_auth`] with a `serde_json` result, read as the binding reads the host's object.
fn check_auth(result: &Value) -> Option<Refusal> {
    super::check_auth(&serde_json::from_value(result.clone()).unwrap())
}

/// [`super::check_summary`] with a `serde_json` result.
fn check_summary(result: &Value) -> Option<Refusal> {
    super::check_summary(&serde_json::from_value(result.clone()).unwrap())
}

/// A result as JSON, for indexing in assertions.
fn sj(result: &impl serde::Serialize) -> Value {
    serde_json::to_value(result).expect("results serialize")
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
    /// A `context_edit` (pi ≥0.87's `appendContextEdit`) of `target`; `replacement`: `{content}` or `null`.
    fn edit(&mut self, id: &str, target: &str, replacement: &Value) -> &mut Self {
        self.push(id, json!({"type": "context_edit", "targetId": target, "replacement": replacement}))
    }
    fn index(&self) -> SessionIndex {
        self.index_with(None)
    }
    /// The index of a host generation (pi ≥0.87 applies `context_edit`s).
    fn index_as(&self, profile: crate::session::Profile) -> SessionIndex {
        self.index_with(Some(profile))
    }
    fn index_with(&self, profile: Option<crate::session::Profile>) -> SessionIndex {
        let mut index = SessionIndex::new(Mode::Plugin);
        if let Some(profile) = profile {
            index.set_profile(profile);
        }
        let text: Vec<String> = self.lines.iter().map(Value::to_string).collect();
        let report = index.append_jsonl(&text.join("\n"));
        assert!(report.skipped.is_empty(), "{report:?}");
        index
    }
}

fn facts(call: &str) -> ToolFacts {
    ToolFacts {
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

/// A refusal plan's code and text.
struct Refused {
    code: String,
    text: String,
}

fn refusal(plan: Value) -> Refused {
    #![allow(clippy::needless_pass_by_value, reason = "called with the plan just made")]
    assert_eq!(plan["kind"], "refuse", "expected a refusal, got {plan}");
    Refused { code: plan["code"].as_str().unwrap().into(), text: plan["text"].as_str().unwrap().into() }
}

/// The plan, which must be of `kind`.
fn expect(kind: &str, plan: Value) -> Value {
    assert_eq!(plan["kind"], kind, "expected {kind}, got {plan}");
    plan
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
    let a = expect("anchor", plan(&mut index, &json!({"action": "anchor", "name": "impl-start"}), &facts("c1")).unwrap());
    assert_eq!(a["entryId"], "u");
    assert_eq!(a["label"], "anchor:impl-start");
    assert_eq!(a["moveFrom"], Value::Null);
    let text = a["text"].as_str().unwrap();
    assert!(text.starts_with("[anchor 'impl-start'] set at "), "{text}");
    assert!(text.contains("(after: “hello there”)"), "{text}");
    // Without a matching in-flight message the leaf itself is anchored.
    let b = expect("anchor", plan(&mut index, &json!({"action": "anchor", "name": "x"}), &facts("other")).unwrap());
    assert_eq!(b["entryId"], "a1");
}

#[test]
fn re_anchoring_moves_the_label() {
    let mut s = worked_session(100);
    s.lines.pop();
    s.assistant("a3", "", &[("c3", TOOL_NAME)], 300.0);
    let mut index = s.index();
    let a = expect("anchor", plan(&mut index, &json!({"action": "anchor", "name": "start"}), &facts("c3")).unwrap());
    assert_eq!(a["entryId"], "r2");
    assert_eq!(a["moveFrom"], "u");
    assert!(a["text"].as_str().unwrap().contains("moved"));
}

#[test]
fn invalid_parameters_are_refused_with_what_to_send() {
    let mut index = worked_session(100).index();
    let f = facts("c3");
    let r = refusal(plan(&mut index, &json!({"action": "jump"}), &f).unwrap());
    assert_eq!(r.code, RefusalCode::InvalidAction.as_str());
    let r = refusal(plan(&mut index, &json!({"action": "anchor", "name": "Bad Name"}), &f).unwrap());
    assert_eq!(r.code, RefusalCode::InvalidName.as_str());
    assert!(r.text.contains("`name`") && r.text.contains("kebab-case"));
    let r = refusal(plan(&mut index, &json!({"action": "rewind", "labelStart": "start"}), &f).unwrap());
    assert!(r.text.contains("`labelEnd`"), "{}", r.text);
    let r = refusal(
        plan(&mut index, &json!({"action": "rewind", "labelStart": "start", "labelEnd": "e", "summaryFocus": "   short focus      "}), &f)
            .unwrap(),
    );
    assert_eq!(r.code, RefusalCode::FocusTooShort.as_str());
    assert!(r.text.contains("most recent instruction"));
}

#[test]
fn unknown_anchor_lists_the_ones_there_are() {
    let mut index = worked_session(100).index();
    let r = refusal(plan(&mut index, &rewind_args("nope", "end"), &facts("c3")).unwrap());
    assert_eq!(r.code, RefusalCode::UnknownAnchor.as_str());
    assert!(r.text.contains("start"), "{}", r.text);
}

#[test]
fn small_rewinds_are_refused_with_the_anchor_percentages() {
    let mut index = worked_session(4000).index();
    let p = plan(&mut index, &rewind_args("start", "end"), &facts("c3")).unwrap();
    // The apparent savings travel as data too (the tool result's details).
    let saved = p["savedTokens"].as_f64().expect("savedTokens");
    assert!(saved > 0.0 && saved < 4000.0, "{saved}");
    let r = refusal(p);
    assert_eq!(r.code, RefusalCode::TooLittleSaved.as_str());
    assert!(r.text.contains("%  start"), "{}", r.text);
    // 'start' is the oldest anchor: no "pick an earlier anchor" when there is none.
    assert!(r.text.contains("no anchor is older") && !r.text.contains("earlier anchor"), "{}", r.text);
}

#[test]
fn rewind_plans_pi_s_branch_summary_entries_and_the_before_number() {
    let mut index = worked_session(40_000).index();
    let typed = rewind_plan(&mut index, &rewind_args("start", "done"), &facts("c3"));
    let p = expect("rewind", sj(&ToolPlan::Rewind(typed.clone())));
    assert_eq!(p["targetId"], "u");
    assert_eq!(p["summarizeIds"], json!(["a1", "l1", "r1", "a2", "r2", "a3"]));
    // Before = estimate at r2 (parent of a3): a2's usage (201) + ceil(40000/4).
    assert_eq!(p["beforeTokens"], 201.0 + 10_000.0);
    assert_eq!(p["fallbackSynthetic"]["content"][0]["id"], "c3");

    // Second half: the branch summary was appended under the target.
    let mut s = worked_session(40_000);
    s.summary("bs", "u", "The user explored a different conversation branch before returning here.\n## Goal\nparser");
    let mut index = s.index();
    let f = finish(&mut index, &typed, "bs", 7.0).unwrap();
    assert_eq!(f["labels"], json!([{"entryId": "bs", "label": "anchor:done"}]));
    // Saved: what the collapsed messages before the call weigh by their own estimates (a1, r1, a2 and r2: the
    // label is none), less the summary's ceil(88/4); after: before less that.
    let own = |id: &str| index.entry(index.slot_of(id).unwrap()).tokens();
    let removed: f64 = ["a1", "r1", "a2", "r2"].map(own).iter().sum();
    assert_eq!((own("r1"), own("r2")), (10.0, 10_000.0));
    assert_eq!((f["details"]["removedTokens"].as_f64(), f["details"]["summaryTokens"].as_f64()), (Some(removed), Some(22.0)));
    assert_eq!(f["details"]["savedTokens"], removed - 22.0);
    assert_eq!(f["details"]["baselineChanged"], false);
    let expected_after = 201.0 + 10_000.0 - (removed - 22.0);
    assert_eq!(f["afterTokens"], expected_after);
    assert_eq!(f["details"]["contextAfter"], expected_after);
    assert_eq!(f["synthetic"]["usage"]["totalTokens"], expected_after);
    assert_eq!(f["synthetic"]["timestamp"], 7.0);
    let text = f["text"].as_str().unwrap();
    assert!(text.starts_with("[rewind 'start' → 'done'] · context 10.2% → 0.2% of 100k"), "{text}");
}

#[test]
fn label_end_collision_moves_the_older_label() {
    let mut s = worked_session(40_000);
    // `done` already labels u's parent chain entry: put it on u itself via a second label.
    s.lines.pop();
    s.label("l2", "u", Some("anchor:done")).assistant("a3", "", &[("c3", TOOL_NAME)], 10_200.0);
    let mut index = s.index();
    let p = rewind_plan(&mut index, &rewind_args("done", "done"), &facts("c3"));
    s.summary("bs", &p.target_id, "summary text");
    let mut index = s.index();
    let f = finish(&mut index, &p, "bs", 0.0).unwrap();
    assert_eq!(f["labels"][1], json!({"entryId": "u", "label": null}));
}

#[test]
fn batched_rewind_names_the_other_calls() {
    // Also after an extension replaced a3's content with the rewind call alone (pi ≥0.87): pi runs the calls of
    // the message it streamed, so bash (c4) would still answer after the rewind.
    let only_the_rewind = json!({"content": [{"type": "toolCall", "id": "c3", "name": TOOL_NAME, "arguments": {}}]});
    for edited in [false, true] {
        let mut s = worked_session(40_000);
        s.lines.pop();
        s.assistant("a3", "", &[("c3", TOOL_NAME), ("c4", "bash")], 10_200.0);
        if edited {
            s.edit("e3", "a3", &only_the_rewind);
        }
        let mut index = s.index_as(PI087);
        let r = refusal(plan(&mut index, &rewind_args("start", "done"), &facts("c3")).unwrap());
        assert_eq!(r.code, RefusalCode::BatchedRewind.as_str(), "edited: {edited}");
        assert!(r.text.contains("bash (c4)"), "{}", r.text);
    }
}

#[test]
fn a_call_after_earlier_calls_of_its_message_still_finds_its_message() {
    let mut s = worked_session(40_000);
    s.lines.pop();
    s.assistant("a3", "", &[("c4", "bash"), ("c3", TOOL_NAME)], 10_200.0).result("r4", "c4", 10);
    let mut index = s.index();
    let r = refusal(plan(&mut index, &rewind_args("start", "done"), &facts("c3")).unwrap());
    assert_eq!(r.code, RefusalCode::BatchedRewind.as_str());
    let a = expect("anchor", plan(&mut index, &json!({"action": "anchor", "name": "here"}), &facts("c3")).unwrap());
    assert_eq!(a["entryId"], "r2");
}

const PI087: crate::session::Profile = crate::session::Profile::Pi087;

/// u → a1 (text "ORIGINAL NOTE", call c1) → r1 → a2 (call c2, another extension's edit tool) → e1 (its
/// `context_edit` of a1: the text replaced, the call kept) → r2 → a3 (call c3, in flight).
fn edited_session() -> Session {
    let mut s = Session::new();
    s.user("u", "please build the parser")
        .assistant("a1", "ORIGINAL NOTE", &[("c1", "read")], 100.0)
        .result("r1", "c1", 400)
        .assistant("a2", "", &[("c2", "edit_context")], 200.0)
        .edit("e1", "a1", &json!({"content": [{"type": "text", "text": "EDITED NOTE"}, {"type": "toolCall", "id": "c1", "name": "read", "arguments": {}}]}))
        .result("r2", "c2", 10)
        .assistant("a3", "", &[("c3", TOOL_NAME)], 300.0);
    s
}

#[test]
fn previews_read_the_message_as_the_context_edits_leave_it() {
    let anchor = json!({"action": "anchor", "name": "edited"});
    let mut index = edited_session().index_as(PI087);
    let a = expect("anchor", plan(&mut index, &anchor, &facts("c3")).unwrap());
    assert_eq!(a["entryId"], "r2");
    // What the model is sent of a1 is the replacement: the anchor's preview says so.
    assert_eq!(a["details"]["hint"], "EDITED NOTE");
    assert!(a["text"].as_str().unwrap().contains("(after: “EDITED NOTE”)"), "{}", a["text"]);
    // pi 0.74–0.86 knows no context_edit: the stored text is what it sends.
    let mut old = edited_session().index_as(crate::session::Profile::Pi074);
    assert_eq!(expect("anchor", plan(&mut old, &anchor, &facts("c3")).unwrap())["details"]["hint"], "ORIGINAL NOTE");

    // A `null` edit leaves its target out of the context: `list` previews the text before it. An edit before
    // a compaction is not in force: the stored text again.
    let mut s = Session::new();
    s.user("u0", "first prompt")
        .assistant("a0", "early reply", &[], 10.0)
        .user("u", "second prompt")
        .label("l", "u", Some("anchor:start"))
        .assistant("a1", "", &[("c1", "edit_context")], 20.0)
        .edit("e1", "u", &Value::Null)
        .result("r1", "c1", 10)
        .assistant("a2", "", &[("c2", TOOL_NAME)], 30.0);
    let mut index = s.index_as(PI087);
    let l = expect("list", plan(&mut index, &json!({"action": "list"}), &facts("c2")).unwrap());
    assert_eq!(l["details"]["anchors"][0]["hint"], "early reply");
    assert_eq!(index.anchors(crate::session::Leaf::Current).unwrap()[0].hint.as_deref(), Some("early reply"));
    s.push("cmp", json!({"type": "compaction", "summary": "the parser so far", "firstKeptEntryId": "a2", "tokensBefore": 100}));
    let mut index = s.index_as(PI087);
    assert_eq!(index.anchors(crate::session::Leaf::Current).unwrap()[0].hint.as_deref(), Some("second prompt"));
}

#[test]
fn the_call_in_flight_is_found_past_the_context_edits_of_its_batch() {
    // a3 runs an edit tool (c4) before navigate_tree (c3): its `context_edit` and result sit between a3 and the
    // leaf (sequential execution), or its edit is the leaf (parallel: results come after the batch).
    for sequential in [true, false] {
        let mut s = worked_session(40_000);
        s.lines.pop();
        s.assistant("a3", "", &[("c4", "edit_context"), ("c3", TOOL_NAME)], 10_200.0)
            .edit("e4", "r2", &json!({"content": "the bulk, in one line"}));
        if sequential {
            s.result("r4", "c4", 10);
        }
        let mut index = s.index_as(PI087);
        let a = expect("anchor", plan(&mut index, &json!({"action": "anchor", "name": "here"}), &facts("c3")).unwrap());
        assert_eq!(a["entryId"], "r2", "the parent of a3 (sequential: {sequential})");
        let r = refusal(plan(&mut index, &rewind_args("start", "done"), &facts("c3")).unwrap());
        assert_eq!(r.code, RefusalCode::BatchedRewind.as_str());
        assert!(r.text.contains("edit_context (c4)"), "{}", r.text);
    }
}

#[test]
fn chained_rewind_without_work_is_refused() {
    // After a rewind: target u ← summary(labelled done) ← synthetic(c3) ← result(c3) ← a4(rewind again).
    let mut s = worked_session(40_000);
    s.summary("bs", "u", "summary of the parser work")
        .label("l3", "bs", Some("anchor:done"))
        .message("syn", &sj(&golden::synthetic("c3", 5000.0)))
        .result("r3", "c3", 300)
        .assistant("a4", "", &[("c4", TOOL_NAME)], 5100.0);
    let mut index = s.index();
    let r = refusal(plan(&mut index, &rewind_args("done", "again"), &facts("c4")).unwrap());
    assert_eq!(r.code, RefusalCode::ChainedRewind.as_str(), "{}", r.text);
    // Rewinding further back still collapses only the previous rewind's artifacts.
    let r = refusal(plan(&mut index, &rewind_args("start", "again"), &facts("c4")).unwrap());
    assert_eq!(r.code, RefusalCode::ChainedRewind.as_str(), "{}", r.text);
    // Nothing at all after the anchor: already there.
    let mut s2 = Session::new();
    s2.user("u", "hi").label("l", "u", Some("anchor:a")).assistant("a1", "", &[("c1", TOOL_NAME)], 10.0);
    let mut index = s2.index();
    let r = refusal(plan(&mut index, &rewind_args("a", "b"), &facts("c1")).unwrap());
    assert_eq!(r.code, RefusalCode::NothingToCollapse.as_str(), "{}", r.text);
    let mut s3 = Session::new();
    s3.user("u", "hi").assistant("a1", "", &[("c1", TOOL_NAME)], 10.0).label("l", "a1", Some("anchor:a"));
    let mut index = s3.index();
    index.set_leaf(Some("a1")).unwrap();
    let r = refusal(plan(&mut index, &rewind_args("a", "b"), &facts("c1")).unwrap());
    assert_eq!(r.code, RefusalCode::AlreadyAtTarget.as_str(), "{}", r.text);
}

#[test]
fn work_after_a_rewind_makes_the_next_rewind_legal() {
    let mut s = worked_session(40_000);
    s.summary("bs", "u", "summary of the parser work")
        .label("l3", "bs", Some("anchor:done"))
        .message("syn", &sj(&golden::synthetic("c3", 5000.0)))
        .result("r3", "c3", 300)
        .assistant("a4", "", &[("c4", "read")], 5100.0)
        .result("r4", "c4", 30_000)
        .assistant("a5", "", &[("c5", TOOL_NAME)], 12_700.0);
    let mut index = s.index();
    let plan = plan(&mut index, &rewind_args("done", "second"), &facts("c5")).unwrap();
    assert_eq!(plan["kind"], "rewind", "{plan}");
}

#[test]
fn no_model_refuses_before_anything_is_written() {
    let mut index = worked_session(40_000).index();
    let mut f = facts("c3");
    f.model = None;
    assert_eq!(refusal(plan(&mut index, &rewind_args("start", "done"), &f).unwrap()).code, RefusalCode::NoModel.as_str());
}

#[test]
fn list_shows_each_anchor_with_its_percentage() {
    let mut index = worked_session(40_000).index();
    let l = expect("list", plan(&mut index, &json!({"action": "list"}), &facts("c3")).unwrap());
    let text = l["text"].as_str().unwrap();
    assert!(text.starts_with("[list] · 1 anchor · ctx "), "{text}");
    assert!(text.contains("start"), "{text}");
    assert!(!text.contains('⚠'));
    let mut f = facts("c3");
    f.refresh_reaches = false;
    let l = expect("list", plan(&mut index, &json!({"action": "list"}), &f).unwrap());
    assert!(l["text"].as_str().unwrap().contains('⚠'));
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
        assert_eq!(r.code, code.as_str(), "{shown}: {}", r.text);
        assert!(r.text.contains(needle), "{shown}: {}", r.text);
        assert!(r.text.len() < 2000, "{shown}: refusal of {} bytes", r.text.len());
        assert!(!r.text.contains("xxxxxxxxxx"), "{shown}: the refusal repeats the value");
    }
    // The longest accepted focus still plans.
    let long = "f".repeat(MAX_FOCUS_CHARS);
    let args = json!({"action": "rewind", "labelStart": "start", "labelEnd": "e", "summaryFocus": long});
    expect("rewind", plan(&mut index, &args, &f).unwrap());
    // Extra fields are ignored by the decision and dropped from the synthetic copy.
    let args = json!({"action": "rewind", "labelStart": "start", "labelEnd": "e", "summaryFocus": focus, "junk": mb});
    let p = expect("rewind", plan(&mut index, &args, &f).unwrap());
    assert_eq!(p["arguments"].get("junk"), None);
    assert_eq!(p["fallbackSynthetic"]["content"][0]["arguments"].get("junk"), None);
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
    assert_eq!(r.code, RefusalCode::UnknownAnchor.as_str());
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

/// Every text and JSON shape the shim reads, for a spread of calls, byte for byte against
/// `tests/fixtures/expected/tool-outputs.txt` (`PTN_BLESS=1` rewrites it). The JSON texts are what the
/// binding hands to `JSON.parse`.
#[test]
#[allow(clippy::too_many_lines, reason = "one list of cases, read top to bottom")]
fn outputs_are_byte_identical_to_the_recorded_ones() {
    let mut out = String::new();
    let mut put = |what: &str, text: &str| {
        out.push_str("== ");
        out.push_str(what);
        out.push('\n');
        out.push_str(text);
        out.push('\n');
    };
    put("definition", &golden::definition_json());
    let tricky = "keep \"this\" \\ and\nthat\u{1}\u{7f} 😀 \u{2028} the user's last instruction";
    let mut f = facts("c3");
    f.context_window = 128_000.0;
    f.now_ms = 1_767_225_600_123.0;
    let mut index = worked_session(40_000).index();
    let calls: Vec<(&str, Value, ToolFacts)> = vec![
        ("list", json!({"action": "list"}), f.clone()),
        ("list no refresh", json!({"action": "list"}), ToolFacts { refresh_reaches: false, context_window: 0.0, ..f.clone() }),
        ("anchor", json!({"action": "anchor", "name": "impl-start"}), f.clone()),
        ("anchor move", json!({"action": "anchor", "name": "start"}), f.clone()),
        ("anchor leaf", json!({"action": "anchor", "name": "x"}), facts("other")),
        ("rewind", json!({"action": "rewind", "labelStart": "start", "labelEnd": "done", "summaryFocus": tricky, "junk": 1}), f.clone()),
        ("rewind no refresh", rewind_args("start", "done"), ToolFacts { refresh_reaches: false, ..f.clone() }),
        ("rewind long focus", json!({"action": "rewind", "labelStart": "start", "labelEnd": "e", "summaryFocus": "é".repeat(1500)}), f.clone()),
        ("rewind no model", rewind_args("start", "done"), ToolFacts { model: None, ..f.clone() }),
        ("unknown anchor", rewind_args("nope", "end"), f.clone()),
        ("invalid action", json!({"action": "jump"}), f.clone()),
        ("bad name", json!({"action": "anchor", "name": "Bad Name"}), f.clone()),
        ("bad name tab", json!({"action": "anchor", "name": "a\tb"}), f.clone()),
        ("bad name unicode", json!({"action": "anchor", "name": "st\u{430}rt"}), f.clone()),
        ("bad name prefix", json!({"action": "anchor", "name": "anchor:start"}), f.clone()),
        ("bad name prefix bad", json!({"action": "anchor", "name": "anchor:Start"}), f.clone()),
        ("bad name long", json!({"action": "anchor", "name": "a".repeat(41)}), f.clone()),
        ("bad name hyphens", json!({"action": "anchor", "name": "a--b"}), f.clone()),
        ("bad name empty", json!({"action": "anchor", "name": ""}), f.clone()),
        ("bad name type", json!({"action": "anchor", "name": [1]}), f.clone()),
        ("bad name null", json!({"action": "anchor", "name": null}), f.clone()),
        ("bad name bool", json!({"action": "anchor", "name": true}), f.clone()),
        ("missing name", json!({"action": "anchor"}), f.clone()),
        ("bad start", json!({"action": "rewind", "labelStart": 3}), f.clone()),
        ("bad end", json!({"action": "rewind", "labelStart": "start", "labelEnd": "E"}), f.clone()),
        ("short focus", json!({"action": "rewind", "labelStart": "start", "labelEnd": "e", "summaryFocus": "short"}), f.clone()),
        ("focus type", json!({"action": "rewind", "labelStart": "start", "labelEnd": "e", "summaryFocus": {"a": 1}}), f.clone()),
        ("long focus", json!({"action": "rewind", "labelStart": "start", "labelEnd": "e", "summaryFocus": "x".repeat(super::MAX_FOCUS_CHARS + 1)}), f.clone()),
    ];
    for (what, args, facts) in &calls {
        let p = typed(&mut index, args, facts).unwrap();
        put(what, &golden::text(&p));
        put(&format!("{what} call line"), &call_line(&Arguments::from_value(args.clone())));
        if !matches!(p, ToolPlan::Rewind(_)) {
            put(&format!("{what} view"), &golden::view(&serde_json::to_value(&p).unwrap(), None));
        }
        if let ToolPlan::Rewind(p) = p {
            let mut s = worked_session(40_000);
            s.summary("bs", "u", "The user explored a different conversation branch before returning here.\n## Goal\nparser");
            let mut index = s.index();
            let done = super::finish(&mut index, &p, super::SummaryFacts::default(), "bs", 1_767_225_600_999.5).unwrap();
            put(&format!("{what} finish"), &golden::text(&done));
            if *what == "rewind" {
                let held = super::SummaryFacts { ledger_tokens: 312.0, ledger_items: 7, ledger_left_out: 0, cut: true };
                let mut index = s.index();
                let ledgered = super::finish(&mut index, &p, held, "bs", 1_767_225_600_999.5).unwrap();
                put("rewind finish with a ledger, cut", &golden::text(&ledgered));
                let ledgered = serde_json::to_value(&ledgered).unwrap();
                put("rewind finish with a ledger, cut view", &golden::view(&ledgered, Some(json!({"mode": "live-prefix", "reason": null, "cacheRead": 9000, "input": 12, "cacheWrite": 0}))));
            }
            let done = serde_json::to_value(&done).unwrap();
            for cache in [
                json!(null),
                json!({"mode": "live-prefix", "reason": null, "cacheRead": 9000, "input": 12, "cacheWrite": 0}),
                json!({"mode": "live-prefix", "reason": null, "cacheRead": 0, "input": 9012, "cacheWrite": 0}),
                json!({"mode": "fallback", "reason": "stale-capture", "cacheRead": null, "input": 1234, "cacheWrite": null}),
            ] {
                put(&format!("{what} view {cache}"), &golden::view(&done, Some(cache)));
            }
        }
    }
    put("unreadable", &golden::text(&unreadable("nested too deeply at column 3")));
    let mut small = worked_session(4000).index();
    put("too little", &golden::plan_text(&mut small, &rewind_args("start", "end"), &f));
    let mut batched = worked_session(40_000);
    batched.lines.pop();
    batched.assistant("a3", "", &[("c3", TOOL_NAME), ("c4", "bash"), ("c\"5", "read")], 10_200.0);
    put("batched", &golden::plan_text(&mut batched.index(), &rewind_args("start", "done"), &f));
    let mut off = worked_session(40_000);
    off.label("l2", "r1", Some("anchor:deep")).summary("bs", "u", "## Goal\nsummary").assistant("a4", "", &[("c4", TOOL_NAME)], 10.0);
    let mut off = off.index();
    put("off path", &golden::plan_text(&mut off, &rewind_args("deep", "end"), &facts("c4")));
    let mut bare = Session::new();
    bare.user("u", "hi \"there\"").label("l", "u", Some("anchor:a")).assistant("a1", "", &[("c1", TOOL_NAME)], 10.0);
    let mut bare = bare.index();
    put("nothing to collapse", &golden::plan_text(&mut bare, &rewind_args("a", "b"), &facts("c1")));
    put("no anchors", &golden::plan_text(&mut bare, &rewind_args("zz", "b"), &facts("c1")));
    put("anchor hint", &golden::plan_text(&mut bare, &json!({"action": "anchor", "name": "q"}), &facts("c1")));
    bare.set_leaf(Some("a1")).unwrap();
    put("already there", &golden::plan_text(&mut bare, &rewind_args("a", "b"), &facts("c1")));
    let mut there = Session::new();
    there.user("u", "hi").assistant("a1", "", &[("c1", TOOL_NAME)], 10.0).label("l", "a1", Some("anchor:a"));
    let mut there = there.index();
    there.set_leaf(Some("a1")).unwrap();
    put("already at target", &golden::plan_text(&mut there, &rewind_args("a", "b"), &facts("c1")));
    let mut plain = Session::new();
    plain.user("u", "hi").assistant("a1", "", &[("c1", TOOL_NAME)], 10.0);
    put("no anchors at all", &golden::plan_text(&mut plain.index(), &rewind_args("a", "b"), &facts("c1")));
    let mut lone = Session::new();
    lone.user("u", "hi").assistant("a1", "", &[], 10.0).label("l", "a1", Some("anchor:deep"));
    lone.summary("bs", "u", "## Goal\nx").assistant("a2", "", &[("c2", TOOL_NAME)], 10.0);
    put("off path, none here", &golden::plan_text(&mut lone.index(), &rewind_args("deep", "b"), &facts("c2")));
    let mut empty = SessionIndex::new(Mode::Plugin);
    put("nothing to anchor", &golden::plan_text(&mut empty, &json!({"action": "anchor", "name": "a"}), &f));
    put("empty list", &golden::plan_text(&mut empty, &json!({"action": "list"}), &f));
    let mut chained = worked_session(40_000);
    chained
        .summary("bs", "u", "summary of the parser work")
        .label("l3", "bs", Some("anchor:done"))
        .message("syn", &sj(&golden::synthetic("c3", 5000.0)))
        .result("r3", "c3", 300)
        .assistant("a4", "", &[("c4", TOOL_NAME)], 5100.0);
    put("chained", &golden::plan_text(&mut chained.index(), &rewind_args("done", "again"), &facts("c4")));
    // The anchor row after a rewind previews its summary's first line of content (`text::summary_preview`).
    let mut rewound = worked_session(40_000);
    let composed = format!("{}\n\n## Goal\nFix the parser.\n\n## Progress\n- lexer", super::texts::summary_heading());
    rewound.summary("bs", "u", &composed).label("l3", "bs", Some("anchor:done"));
    put("list after a rewind", &golden::plan_text(&mut rewound.index(), &json!({"action": "list"}), &f));
    for result in [json!({"ok": true}), json!({"ok": false, "error": "no \"key\""}), json!({}), json!({"ok": "yes"})] {
        put(&format!("auth {result}"), &golden::refusal_json(check_auth(&result).as_ref()));
    }
    for result in [
        json!({"summary": "## Goal"}),
        json!({"aborted": true}),
        json!({"error": "boom\n"}),
        json!({"summary": "  "}),
        json!({}),
        json!({"summary": 3}),
    ] {
        put(&format!("summary {result}"), &golden::refusal_json(check_summary(&result).as_ref()));
    }
    // A summarizer that threw: the shim sends `{ error: message }`.
    put("summary error", &golden::refusal_json(check_summary(&json!({"error": "thrown \u{0} here"})).as_ref()));
    for step in ["unchanged", "branch-undone", "undone", "anchor", "anchor-move", "branch", "index", "labels", "other"] {
        put(&format!("salvage {step}"), &salvage_text(step, "EIO: \"disk\""));
    }
    for bad in [
        json!({}),
        json!({"callId": 1}),
        json!({"callId": "c", "contextWindow": "1"}),
        json!({"callId": "c", "model": 1}),
        json!({"callId": "c", "model": {"api": "a", "provider": "p"}}),
        json!({"callId": "c", "refreshReaches": 1}),
        json!({"callId": "c", "nowMs": null}),
        json!([]),
    ] {
        put(&format!("facts {bad}"), &golden::facts_error(&bad));
    }
    super::recall::tests::golden(&mut put);
    super::anchors::tests::golden(&mut put);
    super::ledger::tests::golden(&mut put);
    super::summary::tests::golden(&mut put);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/expected/tool-outputs.txt");
    if std::env::var_os("PTN_BLESS").is_some() {
        std::fs::write(path, &out).unwrap();
    }
    let expected = std::fs::read_to_string(path).expect("tool-outputs.txt (PTN_BLESS=1 writes it)");
    for (n, (a, b)) in out.lines().zip(expected.lines()).enumerate() {
        assert_eq!(a, b, "line {}", n + 1);
    }
    assert_eq!(out.lines().count(), expected.lines().count());
}

/// The results as JSON text (what JavaScript receives, written the way `JSON.stringify` writes it).
mod golden {
    use super::super::*;
    use super::typed;
    use crate::session::SessionIndex;

    pub(super) fn text(result: &impl serde::Serialize) -> String {
        serde_json::to_string(result).expect("results serialize")
    }
    pub(super) fn definition_json() -> String {
        text(definition())
    }
    pub(super) fn plan_text(index: &mut SessionIndex, args: &serde_json::Value, facts: &ToolFacts) -> String {
        text(&typed(index, args, facts).unwrap())
    }
    pub(super) fn refusal_json(r: Option<&Refusal>) -> String {
        text(&r)
    }
    pub(super) fn synthetic(call: &str, tokens: f64) -> SyntheticAssistant {
        let args = KeptArguments::of(&Arguments::from_value(serde_json::json!({"action": "rewind"})));
        synthetic_assistant(call, args, None, tokens, 0.0)
    }
    /// The TUI's view of a plan or finish (a refusal as the shim reports it: failed, `details.refused`),
    /// with `summary_cache` as the shim adds it to a rewind's details.
    pub(super) fn view(result: &serde_json::Value, summary_cache: Option<serde_json::Value>) -> String {
        let refused = result["kind"] == "refuse";
        let mut details = if refused { serde_json::json!({"refused": result["code"]}) } else { result["details"].clone() };
        if let Some(cache) = summary_cache {
            details["summaryCache"] = cache;
        }
        let shown = serde_json::json!({"text": result["text"], "isError": refused, "details": details});
        text(&result_view(&serde_json::from_value(shown).expect("a shown result")))
    }
    pub(super) fn facts_error(v: &serde_json::Value) -> String {
        serde_json::from_value::<ToolFacts>(v.clone()).map_or_else(|e| e.to_string(), |f| format!("{f:?}"))
    }
}
