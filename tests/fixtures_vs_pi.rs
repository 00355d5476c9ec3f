//! The core on every fixture session in `tests/fixtures/`, checked against what real pi 0.75.5 computed for
//! the same files (`tests/fixtures/expected/pi-0.75.5.ndjson`, recorded by `record-expected.mjs`, whose
//! `--check` mode in the JS suite proves the recording is still what pi says).

use std::path::Path;

use pi_tree_navigator::session::wire::parse_value;
use pi_tree_navigator::session::{Leaf, Mode, Profile, SessionIndex};
use serde_json::Value;

/// Numbers compare by value (`-0`, `1.0` and `1e21` in a file are spelled differently from pi's output).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
        (Value::Object(x), Value::Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w))),
        _ => a == b,
    }
}

/// pi's output can hold unpaired surrogate escapes (JSON.parse accepts them); read it the way the core reads
/// session lines, where each becomes U+FFFD — as the core's own strings do.
fn parse(text: &str) -> Value {
    parse_value(text).expect("valid JSON")
}

#[test]
fn every_fixture_matches_pi() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let expected = std::fs::read_to_string(dir.join("expected/pi-0.75.5.ndjson")).expect("recorded pi output");
    let mut checked = 0;
    for line in expected.lines() {
        let rec = parse(line);
        let file = rec["file"].as_str().unwrap();
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        for mode in [Mode::Full, Mode::Plugin] {
            let mut idx = SessionIndex::new(mode);
            idx.set_profile(Profile::Pi074); // the recording is pi 0.75.5's
            idx.load_file(&text).unwrap();
            assert_eq!(idx.len() as u64, rec["entryCount"].as_u64().unwrap(), "{file}: entry count");
            for result in rec["results"].as_array().unwrap() {
                let leaf_value = &result["leaf"];
                let leaf = match leaf_value {
                    Value::Null => Leaf::Null,
                    Value::String(s) if s == "$default" => Leaf::Id(""), // pi: no leaf id → the last entry
                    Value::String(s) => Leaf::Id(s),
                    other => panic!("leaf {other}"),
                };
                let at = format!("{file} leaf {leaf_value} ({mode:?})");
                let est = idx.estimate(leaf).unwrap();
                let got = serde_json::json!({"tokens": est.tokens, "usageTokens": est.usage_tokens,
                    "trailingTokens": est.trailing_tokens, "lastUsageIndex": est.last_usage_index});
                assert!(same(&got, &result["estimate"]), "{at}: estimate {got} vs pi {}", result["estimate"]);
                let anchors: Vec<Value> = idx
                    .anchors(leaf)
                    .unwrap()
                    .into_iter()
                    .map(|a| serde_json::json!({"name": a.name, "entryId": idx.id_of(a.slot), "tokens": a.tokens}))
                    .collect();
                let want = result["anchors"].as_array().unwrap().clone();
                assert!(same(&Value::Array(anchors.clone()), &Value::Array(want.clone())), "{at}: anchors {anchors:?} vs pi {want:?}");
                if mode == Mode::Full {
                    let ctx = parse(&idx.context_json(leaf).unwrap());
                    assert!(same(&ctx, &result["context"]), "{at}: context differs\n core {ctx}\n pi   {}", result["context"]);
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "only {checked} leaves checked");
}
