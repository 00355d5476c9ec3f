//! The ingest path (the core's own JSON reader, `session::read`) must give exactly what the oracle — a
//! `serde_json` tree with `JSON.parse`'s recoveries (`entry::parse_line_general`) — gives, on every line:
//! the fixtures, and many random lines in the shapes pi writes plus odd ones.

use std::path::Path;

mod common;
use common::Rng;

use pi_tree_navigator::session::entry::{parse_line, parse_line_general, Line, LineProblem};
use serde_json::{json, Value};

/// `rng.maybe(value)` with the value computed first (it borrows the generator too).
macro_rules! maybe {
    ($rng:expr, $v:expr) => {{
        let v = $v;
        $rng.maybe(v)
    }};
}

/// The outcome with the wording of a malformed-JSON message left out: the two readers word their
/// syntax errors differently, and what matters is that both refuse the same lines.
fn same(r: Result<Line, LineProblem>) -> Result<Line, LineProblem> {
    r.map_err(|p| match p {
        LineProblem::Malformed(_) => LineProblem::Malformed(String::new()),
        other => other,
    })
}

/// Random JSON pieces for the differential test.
impl Rng {
    fn text(&mut self) -> String {
        let parts = ["a", " ", "\n", "\t", "é", "😀", "\"", "\\", "\u{1}", "<b>", "## Goal", "The user explored a different conversation branch", "  ", "x".repeat(300).leak()];
        (0..self.below(12)).map(|_| *self.pick(&parts)).collect()
    }
    fn scalar(&mut self) -> Value {
        match self.below(9) {
            0 => Value::Null,
            1 => json!(true),
            2 => json!(self.below(1000)),
            3 => json!(-i64::try_from(self.below(1000)).unwrap_or(0)),
            4 => json!(self.next() as f64 / 7.0),
            5 => json!(1e21),
            6 => json!(u64::MAX),
            _ => json!(self.text()),
        }
    }
    fn value(&mut self, depth: u32) -> Value {
        if depth == 0 || self.below(3) == 0 {
            return self.scalar();
        }
        if self.below(2) == 0 {
            Value::Array((0..self.below(4)).map(|_| self.value(depth - 1)).collect())
        } else {
            let mut m = serde_json::Map::new();
            for _ in 0..self.below(4) {
                m.insert(self.text(), self.value(depth - 1));
            }
            Value::Object(m)
        }
    }
    fn maybe(&mut self, v: Value) -> Value {
        // Mostly the expected shape, sometimes something else entirely.
        if self.below(8) == 0 {
            self.value(2)
        } else {
            v
        }
    }
    fn block(&mut self) -> Value {
        let ty = *self.pick(&["text", "thinking", "toolCall", "image", "other"]);
        let mut b = json!({"type": ty});
        match ty {
            "text" => b["text"] = maybe!(self, json!(self.text())),
            "thinking" => b["thinking"] = maybe!(self, json!(self.text())),
            "toolCall" => {
                b["id"] = json!(format!("call_{}", self.below(99)));
                b["name"] = maybe!(self, json!(self.text()));
                if self.below(5) != 0 {
                    b["arguments"] = self.value(3);
                }
            }
            "image" => {
                b["data"] = json!("iVBORw0KGgo".repeat(50));
                b["mimeType"] = json!("image/png");
            }
            _ => b["text"] = json!(self.text()),
        }
        b
    }
    fn content(&mut self) -> Value {
        match self.below(4) {
            0 => json!(self.text()),
            1 => self.value(1),
            _ => Value::Array((0..self.below(4)).map(|_| self.block()).collect()),
        }
    }
    fn line(&mut self) -> String {
        let ty = *self.pick(&["message", "message", "message", "custom_message", "branch_summary", "compaction", "label", "model_change", "custom", "weird"]);
        let mut e = json!({"type": ty, "id": format!("{:08x}", self.next() as u32), "parentId": maybe!(self, json!("0000abcd")),
            "timestamp": maybe!(self, json!("2026-01-02T03:04:05.678Z"))});
        match ty {
            "message" => {
                let role = *self.pick(&["user", "assistant", "assistant", "toolResult", "custom", "bashExecution", "branchSummary", "system", "hookMessage"]);
                let mut m = json!({"role": role, "content": self.content()});
                if role == "assistant" {
                    m["stopReason"] = json!(*self.pick(&["stop", "toolUse", "aborted", "error", "length"]));
                    m["usage"] = maybe!(self, json!({"input": self.below(900), "output": self.below(50), "cacheRead": 0, "cacheWrite": self.below(3), "totalTokens": self.below(2) * self.below(1000)}));
                }
                if role == "bashExecution" {
                    m["command"] = json!(self.text());
                    m["output"] = json!(self.text());
                }
                if role == "branchSummary" {
                    m["summary"] = maybe!(self, json!(self.text()));
                }
                e["message"] = maybe!(self, m);
            }
            "custom_message" => e["content"] = self.content(),
            "branch_summary" | "compaction" => {
                e["summary"] = maybe!(self, json!(self.text()));
                e["firstKeptEntryId"] = maybe!(self, json!("0000abcd"));
            }
            "label" => {
                e["targetId"] = json!("0000abcd");
                e["label"] = maybe!(self, json!(self.text()));
            }
            _ => e["details"] = self.value(2),
        }
        let mut text = e.to_string();
        // Now and then an unpaired surrogate escape (JSON.parse takes it; serde_json alone does not).
        if self.below(10) == 0 {
            text = text.replacen('😀', "\\ud83d", 1);
        }
        // Now and then a duplicate key, which only the general path reads like JSON.parse.
        if self.below(20) == 0 {
            return text.replacen('{', r#"{"type":"custom","#, 1);
        }
        text
    }
}

#[test]
fn ingest_agrees_with_the_oracle_on_random_lines() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for i in 0..20_000 {
        let line = rng.line();
        for legacy in [false, true] {
            assert_eq!(same(parse_line(&line, legacy)), same(parse_line_general(&line, legacy)), "line {i}: {line}");
        }
    }
}

#[test]
fn ingest_agrees_with_the_oracle_on_every_fixture_line() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut lines = 0;
    for file in std::fs::read_dir(&dir).unwrap() {
        let path = file.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
            continue;
        }
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let line = line.trim();
            assert_eq!(same(parse_line(line, false)), same(parse_line_general(line, false)), "{}: {line}", path.display());
            lines += 1;
        }
    }
    assert!(lines > 200, "{lines}");
}
