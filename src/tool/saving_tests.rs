//! What a rewind saves (`tool::saving`) on sessions whose usages are counted as models count them: the whole
//! request, each model with its own tokenizer.
#![allow(clippy::float_cmp, reason = "token estimates are whole numbers held in f64")]

use serde_json::{json, Value};

use super::*;
use crate::session::{Leaf, Mode, SessionIndex};

/// A session whose every assistant reports as usage the whole context so far, counted by its model: pi's own
/// estimate (`chars / 4`) times the model's `scale`.
#[derive(Default)]
struct Run {
    lines: Vec<Value>,
    /// pi's estimate of the context so far.
    tokens: f64,
}

impl Run {
    fn push(&mut self, id: &str, mut entry: Value, chars: usize) -> &mut Self {
        entry["id"] = json!(id);
        if entry.get("parentId").is_none() {
            entry["parentId"] = self.lines.last().map_or(Value::Null, |l| l["id"].clone());
        }
        entry["timestamp"] = json!(format!("2026-01-01T00:{:02}:00.000Z", self.lines.len() % 60));
        self.lines.push(entry);
        self.tokens += (chars as f64 / 4.0).ceil();
        self
    }
    fn user(&mut self, id: &str, text: &str) -> &mut Self {
        self.push(id, json!({"type": "message", "message": {"role": "user", "content": text}}), text.len())
    }
    /// One tool call `call` of `name` by `model` (`(name, scale)`), its usage the context so far counted its way.
    fn call(&mut self, id: &str, call: &str, name: &str, model: (&str, f64)) -> &mut Self {
        let total = (self.tokens * model.1).round();
        let message = json!({"role": "assistant", "content": [{"type": "toolCall", "id": call, "name": name, "arguments": {}}],
            "provider": "mock", "model": model.0, "stopReason": "toolUse",
            "usage": {"input": total, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": total + 10.0}});
        // `name` + `{}`: what pi counts of the call.
        self.push(id, json!({"type": "message", "message": message}), name.len() + 2)
    }
    fn result(&mut self, id: &str, call: &str, chars: usize) -> &mut Self {
        let message = json!({"role": "toolResult", "toolCallId": call, "toolName": "read", "content": [{"type": "text", "text": "y".repeat(chars)}], "isError": false});
        self.push(id, json!({"type": "message", "message": message}), chars)
    }
    fn label(&mut self, id: &str, target: &str, label: &str) -> &mut Self {
        self.push(id, json!({"type": "label", "targetId": target, "label": label}), 0)
    }
    fn index(&self) -> SessionIndex {
        let mut index = SessionIndex::new(Mode::Plugin);
        let text: Vec<String> = self.lines.iter().map(Value::to_string).collect();
        assert!(index.append_jsonl(&text.join("\n")).skipped.is_empty());
        index
    }
}

const SMALL: (&str, f64) = ("small", 1.0);
const BIG: (&str, f64) = ("big", 1.3);

/// 400 kB read under `first`, which then reads a little more and sets the anchor `start` (on that small read's
/// result, where pi's estimate anchors on `first`'s count of the 400 kB); then `second` reads `span` characters
/// and calls the rewind (`c9`).
fn switched(first: (&str, f64), second: (&str, f64), span: usize) -> Run {
    let mut run = Run::default();
    run.user("u", "build the parser")
        .call("a0", "c0", "read", first)
        .result("r0", "c0", 400_000)
        .call("a1", "c1", "read", first)
        .result("r1", "c1", 200)
        .call("a2", "c2", TOOL_NAME, first)
        .label("l2", "r1", "anchor:start")
        .result("r2", "c2", 120)
        .call("a3", "c3", "read", second)
        .result("r3", "c3", span)
        .call("a4", "c9", TOOL_NAME, second);
    run
}

fn facts() -> ToolFacts {
    ToolFacts { call_id: "c9".into(), context_window: 400_000.0, model: Some(ModelFacts { api: "m".into(), provider: "mock".into(), id: "big".into() }), refresh_reaches: true, now_ms: 0.0 }
}

fn rewind(index: &mut SessionIndex) -> ToolPlan {
    let args = json!({"action": "rewind", "labelStart": "start", "labelEnd": "done", "summaryFocus": "the parser: read, nothing left to do"});
    plan(index, &Arguments::from_value(args), &facts()).unwrap()
}

/// What the messages between the anchor (r1) and the call (a4) weigh by pi's own estimate.
fn removed(index: &SessionIndex) -> f64 {
    ["a2", "r2", "a3", "r3"].iter().map(|id| index.entry(index.slot_of(id).unwrap()).tokens()).sum()
}

#[test]
fn across_a_model_switch_the_guard_judges_what_the_rewind_removes_in_both_directions() {
    for (first, second) in [(SMALL, BIG), (BIG, SMALL)] {
        let what = format!("{} → {}", first.0, second.0);
        // 3 kB after the anchor: refused, whatever the two usages say.
        let mut index = switched(first, second, 3_000).index();
        // (The old rule, the estimate before less the estimate at the anchor, is off by 30 % of the 100k prefix
        // either way: ~30k tokens "saved" for ~800 removed, or ~22k lost for a 90 kB span.)
        let apparent = index.estimate(Leaf::Id("r3")).unwrap().tokens - index.estimate(Leaf::Id("r1")).unwrap().tokens;
        assert!((apparent - removed(&index)).abs() > 20_000.0, "{what}: the two usages disagree by the prefix: {apparent}");
        let ToolPlan::Refuse(r) = rewind(&mut index) else { panic!("{what}: 3 kB should be refused") };
        assert_eq!(r.code, RefusalCode::TooLittleSaved, "{what}");
        assert_eq!(r.saved_tokens, Some(removed(&index)), "{what}");
        // 90 kB: rewound, the saving the removed messages' weight, the model's count of the context before the
        // rewind less that.
        let mut index = switched(first, second, 90_000).index();
        let ToolPlan::Rewind(p) = rewind(&mut index) else { panic!("{what}: 90 kB should rewind") };
        assert_eq!(p.saving.removed_tokens, removed(&index), "{what}");
        assert!(p.saving.baseline_changed, "{what}");
        let mut run = switched(first, second, 90_000);
        run.push("bs", json!({"type": "branch_summary", "parentId": "r1", "fromId": "a4", "summary": "## Goal\nparser read".repeat(20)}), 0);
        let mut index = run.index();
        let done = finish(&mut index, &p, SummaryFacts::default(), "bs", 0.0).unwrap();
        let d = &done.details.saving;
        assert_eq!(d.summary_tokens, index.entry(index.slot_of("bs").unwrap()).tokens(), "{what}");
        assert_eq!(d.saved_tokens, removed(&index) - d.summary_tokens, "{what}");
        assert!((d.saved_tokens - removed(&index)).abs() < 0.1 * removed(&index), "{what}");
        let shown = &done.details;
        assert_eq!((shown.context_before - shown.context_after, d.baseline_changed), (d.saved_tokens, true), "{what}");
        assert_eq!(done.synthetic.usage.total_tokens, shown.context_after, "{what}: pi's footer shows the context after");
    }
}

#[test]
fn one_model_means_one_baseline() {
    let mut index = switched(BIG, BIG, 90_000).index();
    let ToolPlan::Rewind(p) = rewind(&mut index) else { panic!("90 kB should rewind") };
    assert!(!p.saving.baseline_changed);
    assert_eq!(p.saving.removed_tokens, removed(&index));
    // A message that names no model is one source with the others that name none.
    let mut run = switched(SMALL, SMALL, 90_000);
    for line in &mut run.lines {
        if let Some(m) = line["message"].as_object_mut() {
            m.remove("provider");
            m.remove("model");
        }
    }
    let ToolPlan::Rewind(p) = rewind(&mut run.index()) else { panic!("90 kB should rewind") };
    assert!(!p.saving.baseline_changed);
}

#[test]
fn the_saving_of_a_written_rewind_is_the_one_its_result_reported() {
    let mut run = switched(SMALL, BIG, 90_000);
    let mut index = run.index();
    let ToolPlan::Rewind(p) = rewind(&mut index) else { panic!("90 kB should rewind") };
    run.push("bs", json!({"type": "branch_summary", "parentId": "r1", "fromId": "a4", "summary": "## Goal\nparser"}), 0);
    let mut index = run.index();
    let done = finish(&mut index, &p, SummaryFacts::default(), "bs", 0.0).unwrap();
    run.push("lb", json!({"type": "label", "targetId": "bs", "label": "anchor:done"}), 0);
    run.push("syn", json!({"type": "message", "message": serde_json::to_value(&done.synthetic).unwrap()}), 0);
    let mut index = run.index();
    let bs = index.slot_of("bs").unwrap();
    let written = rewind_saving(&mut index, bs).unwrap().expect("the rewind is found");
    assert_eq!(written, done.details.saving);
    assert!(written.baseline_changed);
    // /anchors shows it: "saved …" and the context before → after as the result said.
    let view = anchors_view(&mut index, 400_000.0).unwrap();
    let row = view.rows.last().unwrap();
    assert_eq!(row.tokens, done.details.saving.saved_tokens);
    let delta = crate::text::format_context_delta(done.details.context_before, done.details.context_after, 400_000.0);
    assert!(row.text.contains(&delta), "{} vs {delta}", row.text);
    // No rewind of this tool: no saving.
    let r0 = index.slot_of("r1").unwrap();
    assert_eq!(rewind_saving(&mut index, r0).unwrap(), None);
    // The planned saving from the point the rewind left is the same before its summary.
    let (from, target) = (index.slot_of("r3").unwrap(), index.slot_of("r1").unwrap());
    assert_eq!(planned_rewind_saving(&mut index, from, target).unwrap(), Some(p.saving));
}

#[test]
fn a_summary_that_eats_the_saving_is_refused_before_anything_is_written() {
    // ~4.5k tokens after the anchor: enough before the summary, not after a 2k-token one.
    let mut index = switched(SMALL, SMALL, 18_000).index();
    let ToolPlan::Rewind(mut p) = rewind(&mut index) else { panic!("18 kB should plan a rewind") };
    let result = |summary: &str| -> SummaryResult { serde_json::from_value(json!({"summary": summary, "ledgerTokens": 0})).unwrap() };
    let SummaryAnswer::Refuse(r) = summarize(&mut index, &mut p, &result(&"z".repeat(8_000)), &[]).unwrap() else { panic!("refused") };
    assert_eq!(r.code, RefusalCode::TooLittleSaved);
    assert!(r.saved_tokens.unwrap() < MIN_SAVED_TOKENS && r.text.contains("would free only about"), "{}", r.text);
    assert_eq!(p.held, SummaryFacts::default(), "nothing kept for a finish");
    let SummaryAnswer::Summary(s) = summarize(&mut index, &mut p, &result("## Goal\nread the parser"), &[]).unwrap() else { panic!("a summary") };
    assert!(p.saving.with_summary(summary_tokens(&s.summary)).saved_tokens >= MIN_SAVED_TOKENS);
}

#[test]
fn behind_a_compaction_a_rewind_brings_the_prefix_back_and_is_refused() {
    let mut run = switched(SMALL, SMALL, 90_000);
    run.lines.pop();
    run.push("cmp", json!({"type": "compaction", "summary": "compacted", "firstKeptEntryId": "r3", "tokensBefore": 120_000}), 0);
    run.call("a4", "c9", TOOL_NAME, SMALL);
    let mut index = run.index();
    let ToolPlan::Refuse(r) = rewind(&mut index) else { panic!("refused") };
    assert_eq!((r.code, r.saved_tokens), (RefusalCode::TooLittleSaved, Some(0.0)));
}

#[test]
fn the_pressure_hint_offers_each_anchor_with_what_a_rewind_to_it_frees() {
    let mut run = switched(SMALL, BIG, 90_000);
    run.lines.pop();
    let mut index = run.index();
    let anchors = anchor_savings(&mut index).unwrap();
    assert_eq!(anchors.len(), 1);
    assert_eq!(anchors[0].anchor.name, "start");
    // From the leaf (r3: no call in flight) back to the anchor: the same messages a rewind would remove.
    assert_eq!(anchors[0].saving.removed_tokens, removed(&index));
    assert!(anchors[0].saving.baseline_changed);
    let hint = crate::guidance::pressure_hint(300_000.0, 400_000.0, &anchors);
    let frees = crate::text::format_pct1(removed(&index), 400_000.0);
    assert!(hint.contains(&format!("a rewind frees ~{frees})")), "{hint}");
}

#[test]
fn a_usage_source_is_the_messages_provider_and_model() {
    let mut run = switched(SMALL, BIG, 10);
    run.lines[1]["message"]["model"] = json!(7);
    let index = run.index();
    let source = |id: &str| index.entry(index.slot_of(id).unwrap()).assistant().unwrap().source();
    // As pi's own breakdown names it, `${provider}/${model}`: a name that is not a string as a template literal
    // writes it.
    assert_eq!((source("a0"), source("a2"), source("a3")), ("mock/7", "mock/small", "mock/big"));
    let a2 = index.entry(index.slot_of("a2").unwrap()).assistant().unwrap();
    let a3 = index.entry(index.slot_of("a3").unwrap()).assistant().unwrap();
    let a4 = index.entry(index.slot_of("a4").unwrap()).assistant().unwrap();
    assert!(!a2.same_source(&a3) && a3.same_source(&a4));
}

#[test]
fn every_model_is_its_own_source_however_many() {
    let mut run = Run::default();
    for i in 0..1030 {
        run.call(&format!("a{i}"), &format!("c{i}"), "read", (&format!("m{}", i.min(1028)), 1.0));
    }
    let index = run.index();
    let at = |i: usize| index.entry(index.slot_of(&format!("a{i}")).unwrap()).assistant().unwrap();
    assert_eq!(at(1023).source(), "mock/m1023");
    assert!(at(5).same_source(&at(5)));
    // No table to run out of (the sources are the cost model's keys): the 1,025th model is still itself, and
    // two requests of one model are one source however many came before.
    assert!(!at(1024).same_source(&at(1025)) && at(1028).same_source(&at(1029)));
}
