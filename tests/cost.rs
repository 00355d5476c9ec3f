//! The cost model (src/cost/) on small sessions written here: hostile cost fields are counted, not summed;
//! a session without prices shows no money; a compaction's saving is the test's own arithmetic; a summary's usage
//! kept in `details.summaryUsage` counts as the summary's, not in pi's totals. (Equality with pi's own sums on real
//! and generated sessions: tests/diff/cost.test.mjs.)

use pi_tree_navigator::cost::{cost_text, CostReport};
use pi_tree_navigator::tool::session_cost;
use pi_tree_navigator::session::{Mode, SessionIndex};
use serde_json::{json, Value};

const HEADER: &str = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}"#;

fn report(lines: &[Value]) -> CostReport {
    let text = std::iter::once(HEADER.to_string()).chain(lines.iter().map(|l| l.to_string().replace("\"@1e400\"", "1e400"))).collect::<Vec<_>>().join("\n");
    let mut index = SessionIndex::new(Mode::Plugin);
    index.load_file(&text).unwrap();
    session_cost(&mut index).unwrap()
}

/// A usage priced at $1 per million input tokens, $2 output, $0.10 cache read, $1.25 cache write.
fn usage(input: f64, output: f64, cache_read: f64, cache_write: f64) -> Value {
    let c = [input * 1e-6, output * 2e-6, cache_read * 1e-7, cache_write * 1.25e-6];
    json!({"input": input, "output": output, "cacheRead": cache_read, "cacheWrite": cache_write, "totalTokens": input + output + cache_read + cache_write,
        "cost": {"input": c[0], "output": c[1], "cacheRead": c[2], "cacheWrite": c[3], "total": c[0] + c[1] + c[2] + c[3]}})
}

fn user(id: &str, parent: Option<&str>, text: &str) -> Value {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:01.000Z", "message": {"role": "user", "content": text}})
}

fn assistant(id: &str, parent: &str, usage: Value) -> Value {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:02.000Z",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}], "provider": "p", "model": "m", "usage": usage, "stopReason": "stop"}})
}

#[test]
fn hostile_cost_fields_are_counted_not_summed() {
    let mut bad_cost = usage(100.0, 10.0, 0.0, 0.0);
    bad_cost["cost"]["total"] = json!("0.5");
    let mut negative = usage(100.0, 10.0, 0.0, 0.0);
    negative["input"] = json!(-5);
    let mut huge = usage(100.0, 10.0, 0.0, 0.0);
    huge["cost"]["output"] = json!("@1e400"); // written as the number 1e400 (Infinity to JavaScript)
    let good = usage(1000.0, 100.0, 0.0, 0.0);
    let r = report(&[
        user("u1", None, "hi"),
        assistant("a1", "u1", good.clone()),
        assistant("a2", "a1", bad_cost),
        assistant("a3", "a2", negative),
        assistant("a4", "a3", huge),
        assistant("a5", "a4", json!("not an object")),
        json!({"type": "message", "id": "a6", "parentId": "a5", "timestamp": "x", "message": {"role": "assistant", "content": []}}),
        json!({"type": "usage", "id": "w1", "parentId": "a6", "timestamp": "x", "kind": "cache_warm", "provider": "p", "model": "m"}),
    ]);
    // a2 and a4: tokens counted, money left out; a3, a5, a6 and w1 (no usage at all): left out whole.
    assert_eq!(r.unpriced, 6);
    assert_eq!(r.total.usd, Some(good["cost"]["total"].as_f64().unwrap()));
    assert_eq!(r.total.input, 1000.0 + 100.0 + 100.0);
    assert_eq!(r.messages.requests, 3);
    assert!(cost_text(&r).contains("unreadable usages: 6 (left out of the sums)"));
}

#[test]
fn without_prices_no_money_is_shown() {
    let zero = json!({"input": 500, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 520,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}});
    let r = report(&[user("u1", None, "hi"), assistant("a1", "u1", zero.clone()), user("u2", Some("a1"), "again"), assistant("a2", "u2", zero)]);
    assert!(!r.priced);
    assert_eq!((r.total.usd, r.messages.usd, r.active_path.usd, r.abandoned.usd), (None, None, None, None));
    assert_eq!(r.by_model[0].usd, None);
    assert_eq!(r.total.input, 1000.0);
    let text = cost_text(&r);
    assert!(text.contains("cost: no prices recorded (2 requests)"), "{text}");
    assert!(!text.contains('$'), "{text}");
}

#[test]
fn money_is_split_by_the_tree() {
    let (a, b, c) = (usage(1000.0, 0.0, 0.0, 0.0), usage(2000.0, 0.0, 0.0, 0.0), usage(4000.0, 0.0, 0.0, 0.0));
    let r = report(&[
        user("u1", None, "hi"),
        assistant("a1", "u1", a),
        user("u2", Some("a1"), "left"),
        assistant("a2", "u2", b),
        // a branch off a1: a2's branch is abandoned
        user("u3", Some("a1"), "right"),
        assistant("a3", "u3", c),
    ]);
    assert_eq!(r.active_path.usd, Some(0.001 + 0.004));
    assert_eq!(r.abandoned.usd, Some(0.002));
}

#[test]
fn a_compaction_saving_is_what_it_removed_at_the_price_of_the_requests_after_it() {
    let before = 100_000.0;
    let mut compaction = json!({"type": "compaction", "id": "c1", "parentId": "a2", "timestamp": "x", "summary": "s".repeat(400),
        "firstKeptEntryId": "u2", "tokensBefore": before});
    compaction["usage"] = usage(1000.0, 500.0, 90_000.0, 0.0);
    let r = report(&[
        user("u1", None, &"x".repeat(4000)),
        assistant("a1", "u1", usage(101_000.0, 100.0, 0.0, 0.0)),
        user("u2", Some("a1"), &"y".repeat(40)),
        assistant("a2", "u2", usage(1000.0, 100.0, 100_000.0, 0.0)),
        compaction.clone(),
        user("u3", Some("c1"), "next"),
        // two real requests after it: one reads from the cache, one does not (its model's latest cache-read price)
        assistant("a3", "u3", usage(500.0, 50.0, 2000.0, 0.0)),
        assistant("a4", "a3", usage(2600.0, 50.0, 0.0, 0.0)),
    ]);
    let item = &r.savings.compactions.items[0];
    // The context it leaves: the summary (400 chars), the kept user message (40 chars) and assistant ("ok").
    let left = 100.0 + 10.0 + 1.0;
    assert_eq!(item.tokens_removed, Some(before - left));
    assert_eq!(item.requests_after, 2);
    let summary_usd = compaction["usage"]["cost"]["total"].as_f64().unwrap();
    assert_eq!(item.summary_usd, Some(summary_usd));
    let read_price = 2000.0 * 1e-7 / 2000.0;
    assert_eq!(item.usd, Some((before - left) * (read_price + read_price) - summary_usd));
    // Served from the cache: pi's cold request would have sent tokensBefore at the input price.
    assert_eq!(item.cache_saved_usd, Some(before * (1000.0 * 1e-6 / 1000.0) - summary_usd));
    assert_eq!(r.summaries.recorded, 1);
    assert!(cost_text(&r).contains("saved by compactions: at least $"));
}

#[test]
fn a_summary_usage_kept_in_details_is_the_summary_cost_not_pi_total() {
    let kept = usage(1000.0, 500.0, 0.0, 0.0);
    let r = report(&[
        user("u1", None, "hi"),
        assistant("a1", "u1", usage(1000.0, 0.0, 0.0, 0.0)),
        json!({"type": "branch_summary", "id": "b1", "parentId": "u1", "timestamp": "x", "fromId": "a1", "summary": "done",
            "details": {"readFiles": [], "summaryUsage": kept}}),
        json!({"type": "branch_summary", "id": "b2", "parentId": "b1", "timestamp": "x", "fromId": "b1", "summary": "again"}),
    ]);
    assert_eq!(r.total.usd, Some(0.001));
    assert_eq!(r.summaries.usd, Some(kept["cost"]["total"].as_f64().unwrap()));
    assert_eq!((r.summaries.recorded, r.summaries.unrecorded), (1, 1));
    // Both on the active path, neither a rewind of this tool (no synthetic call of it after them): what they
    // removed is not known (`tool::rewind_saving` has no rule for them), so no money, never a guess.
    assert_eq!(r.savings.rewinds.items.len(), 2);
    assert!(r.savings.rewinds.items.iter().all(|i| i.tokens_removed.is_none() && i.usd.is_none()));
    assert_eq!(r.savings.rewinds.items[0].summary_usd, Some(kept["cost"]["total"].as_f64().unwrap()));
}

#[test]
fn a_summary_s_and_a_usage_entry_s_usage_are_read_as_json_parse_reads_the_line() {
    // A compaction whose line nests past serde_json's 128 levels (its details), and a cache warming whose `usage`
    // key repeats (JSON.parse keeps the last): both counted as pi counts them.
    let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    let compaction = json!({"type": "compaction", "id": "c1", "parentId": "a1", "timestamp": "x", "summary": "s", "firstKeptEntryId": "a1",
        "tokensBefore": 5000, "usage": usage(100.0, 10.0, 0.0, 0.0), "details": {"deep": "@DEEP"}});
    let warm = json!({"type": "usage", "id": "w1", "parentId": "c1", "timestamp": "x", "kind": "cache_warm", "provider": "p", "model": "m", "usage": "@FIRST"});
    let text = [HEADER.to_string(), user("u1", None, "hi").to_string(), assistant("a1", "u1", usage(1000.0, 0.0, 0.0, 0.0)).to_string(),
        compaction.to_string().replace("\"@DEEP\"", &deep),
        warm.to_string().replace("\"@FIRST\"", &format!("{}, \"usage\": {}", json!({"input": -1}), usage(0.0, 1.0, 3000.0, 0.0)))]
    .join("\n");
    let mut index = SessionIndex::new(Mode::Plugin);
    index.load_file(&text).unwrap();
    let r = session_cost(&mut index).unwrap();
    assert_eq!(r.unpriced, 0, "{r:?}");
    assert_eq!((r.summaries.recorded, r.summaries.unrecorded), (1, 0));
    let total = [usage(1000.0, 0.0, 0.0, 0.0), usage(100.0, 10.0, 0.0, 0.0), usage(0.0, 1.0, 3000.0, 0.0)].iter().map(|u| u["cost"]["total"].as_f64().unwrap()).sum::<f64>();
    assert_eq!(r.total.usd, Some(total));
    assert_eq!(r.total.cache_read, 3000.0);
    assert_eq!(r.savings.compactions.items[0].tokens_removed.map(|t| t > 0.0), Some(true), "tokensBefore read");
}
