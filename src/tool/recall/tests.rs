//! recall's tests, and the session lines the tool's other tests build theirs from ([`Lines`], [`rewound`]).

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::{json, Value};

use super::pages::cut_at;
use super::*;
use crate::js::utf16_len;
use crate::session::{ceil_quarter, Mode, SessionIndex};
use crate::tool::definition::TOOL_NAME;
use crate::tool::facts::ToolFacts;
use crate::tool::texts::RefusalCode;
use crate::tool::synthetic::{synthetic_assistant, KeptArguments};
use crate::tool::{Arguments, ToolPlan};

/// Session lines; each entry's parent is the previous line unless given.
#[derive(Default)]
pub(in crate::tool) struct Lines(Vec<Value>);

impl Lines {
    pub(in crate::tool) fn push(&mut self, id: &str, mut entry: Value) -> &mut Self {
        entry["id"] = json!(id);
        if entry.get("parentId").is_none() {
            entry["parentId"] = self.0.last().map_or(Value::Null, |l| l["id"].clone());
        }
        entry["timestamp"] = json!(format!("2026-01-01T00:{:02}:00.000Z", self.0.len()));
        self.0.push(entry);
        self
    }
    pub(in crate::tool) fn message(&mut self, id: &str, message: &Value) -> &mut Self {
        self.push(id, json!({"type": "message", "message": message}))
    }
    pub(in crate::tool) fn user(&mut self, id: &str, text: &str) -> &mut Self {
        self.message(id, &json!({"role": "user", "content": text}))
    }
    pub(in crate::tool) fn call(&mut self, id: &str, text: &str, call: &str, tool: &str) -> &mut Self {
        let mut content = vec![json!({"type": "toolCall", "id": call, "name": tool, "arguments": {}})];
        if !text.is_empty() {
            content.insert(0, json!({"type": "text", "text": text}));
        }
        self.message(id, &json!({"role": "assistant", "content": content, "stopReason": "toolUse",
            "usage": {"input": 100, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 110}}))
    }
    pub(in crate::tool) fn result(&mut self, id: &str, call: &str, tool: &str, text: &str) -> &mut Self {
        self.message(id, &json!({"role": "toolResult", "toolCallId": call, "toolName": tool,
            "content": [{"type": "text", "text": text}], "isError": false}))
    }
    pub(in crate::tool) fn label(&mut self, id: &str, target: &str, label: &str) -> &mut Self {
        self.push(id, json!({"type": "label", "targetId": target, "label": label}))
    }
    /// What a rewind writes: the summary under `target`, its label, the synthetic call `call`, its result.
    pub(in crate::tool) fn rewind(&mut self, n: &str, target: &str, end: &str, call: &str) -> &mut Self {
        let synthetic = synthetic_assistant(call, KeptArguments::of(&Arguments::default()), None, 10.0, 0.0);
        self.push(&format!("bs{n}"), json!({"type": "branch_summary", "parentId": target, "fromId": target, "summary": "## Goal"}))
            .label(&format!("lb{n}"), &format!("bs{n}"), &format!("anchor:{end}"))
            .message(&format!("syn{n}"), &serde_json::to_value(synthetic).unwrap())
            .result(&format!("rr{n}"), call, TOOL_NAME, "[rewind] done")
    }
    pub(in crate::tool) fn index(&self) -> SessionIndex {
        let mut index = SessionIndex::new(Mode::Plugin);
        let text: Vec<String> = self.0.iter().map(Value::to_string).collect();
        assert!(index.append_jsonl(&text.join("\n")).skipped.is_empty());
        index
    }
    /// The entries as the shim hands them over.
    pub(in crate::tool) fn entries(&self, ids: &[String]) -> Vec<Option<String>> {
        ids.iter().map(|id| self.0.iter().find(|l| l["id"] == json!(id)).map(Value::to_string)).collect()
    }
}

fn facts() -> ToolFacts {
    serde_json::from_value(json!({"callId": "now", "contextWindow": 100_000})).unwrap()
}

fn plan_of(index: &mut SessionIndex, args: &Value) -> ToolPlan {
    crate::tool::plan(index, &Arguments::from_value(args.clone()), &facts()).unwrap()
}

fn recall_plan(index: &mut SessionIndex, args: &Value) -> RecallPlan {
    match plan_of(index, args) {
        ToolPlan::Recall(p) => p,
        other => panic!("expected a recall plan, got {other:?}"),
    }
}

fn refused(plan: &ToolPlan) -> RefusalCode {
    match plan {
        ToolPlan::Refuse(r) => r.code,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn page_of(lines: &Lines, args: &Value) -> RecallAnswer {
    let plan = recall_plan(&mut lines.index(), args);
    page(&plan, &lines.entries(&plan.entry_ids))
}

fn text(answer: &RecallAnswer) -> &str {
    match answer {
        RecallAnswer::Page(p) => &p.text,
        RecallAnswer::Refuse(r) => panic!("expected a page, got {r:?}"),
    }
}

/// u (anchor `start`) → a1 → r1 (read: `file`) → a2 → r2 (bash) → a3 (the rewind call c3), then the
/// rewind to `start` as `done`, and more work on the new branch.
pub(in crate::tool) fn rewound(file: &str) -> Lines {
    let mut s = Lines::default();
    s.user("u", "please build the parser")
        .call("a1", "Reading the grammar.", "c1", "read")
        .label("l1", "u", "anchor:start")
        .result("r1", "c1", "read", file)
        .call("a2", "", "c2", "bash")
        .result("r2", "c2", "bash", "error[E0308]: Mismatched types")
        .call("a3", "", "c3", TOOL_NAME)
        .rewind("1", "u", "done", "c3")
        .call("a4", "next", "c4", "bash")
        .result("r4", "c4", "bash", "later work, not collapsed");
    s
}

#[test]
fn the_summary_name_and_the_anchor_name_recall_what_the_rewind_collapsed() {
    let s = rewound("fn main() {}\n");
    let mut index = s.index();
    let by_summary = recall_plan(&mut index, &json!({"action": "recall", "name": "done"}));
    assert_eq!(by_summary.entry_ids, ["a1", "r1", "a2", "r2", "a3"]);
    assert_eq!((by_summary.page, by_summary.query.as_deref()), (1, None));
    let by_anchor = recall_plan(&mut index, &json!({"action": "recall", "name": "start"}));
    assert_eq!(by_anchor.entry_ids, by_summary.entry_ids);
    // The rewind's own parameter names are understood as the name.
    assert_eq!(recall_plan(&mut index, &json!({"action": "recall", "labelEnd": "done"})).entry_ids, by_summary.entry_ids);
    let page = text(&page_of(&s, &json!({"action": "recall", "name": "done"}))).to_string();
    assert!(page.starts_with("[recall 'done'] page 1 of 1 · 3 collapsed entries · exact text, oldest first\n"), "{page}");
    assert!(page.contains("──── entry r1 · tool result of read ────\nfn main() {}\n\n"), "{page}");
    assert!(page.contains("──── entry a1 · assistant ────\nReading the grammar.\n"), "{page}");
    assert!(!page.contains("later work"), "only the collapsed work: {page}");
    assert!(!page.contains("a3"), "a bare tool call has no text: {page}");
    assert!(page.ends_with("End of what was collapsed at 'done'."), "{page}");
}

#[test]
fn a_second_rewind_to_the_same_anchor_adds_its_work_and_a_chain_is_followed() {
    let mut s = rewound("one");
    s.call("a5", "", "c5", TOOL_NAME).rewind("2", "u", "again", "c5");
    let mut index = s.index();
    // `again` collapsed the first rewind's branch: its summary, synthetic call and the later work.
    let again = recall_plan(&mut index, &json!({"action": "recall", "name": "again"}));
    assert_eq!(again.entry_ids, ["syn1", "rr1", "a4", "r4", "a5"]);
    let start = recall_plan(&mut index, &json!({"action": "recall", "name": "start"}));
    assert_eq!(start.entry_ids, ["a1", "r1", "a2", "r2", "a3", "syn1", "rr1", "a4", "r4", "a5"]);
    // `done` now sits on the abandoned branch and still names what its rewind collapsed.
    assert_eq!(recall_plan(&mut index, &json!({"action": "recall", "name": "done"})).entry_ids, ["a1", "r1", "a2", "r2", "a3"]);
    // This tool's own results are left out of the text.
    let page = text(&page_of(&s, &json!({"action": "recall", "name": "again"}))).to_string();
    assert!(!page.contains("[rewind] done") && page.contains("later work, not collapsed"), "{page}");
}

#[test]
fn refusals_say_why() {
    let s = rewound("x");
    let mut index = s.index();
    let code = |index: &mut SessionIndex, args: Value| refused(&plan_of(index, &args));
    assert_eq!(code(&mut index, json!({"action": "recall", "name": "nope"})), RefusalCode::UnknownName);
    assert_eq!(code(&mut index, json!({"action": "recall"})), RefusalCode::InvalidName);
    assert_eq!(code(&mut index, json!({"action": "recall", "name": "Done"})), RefusalCode::InvalidName);
    assert_eq!(code(&mut index, json!({"action": "recall", "name": "done", "query": 3})), RefusalCode::InvalidRecall);
    let long = "q".repeat(MAX_QUERY_CHARS + 1);
    assert_eq!(code(&mut index, json!({"action": "recall", "name": "done", "query": long})), RefusalCode::InvalidRecall);
    for bad in [json!(0), json!(1.5), json!("two"), json!(-1), json!([1])] {
        assert_eq!(code(&mut index, json!({"action": "recall", "name": "done", "page": bad})), RefusalCode::InvalidRecall, "{bad}");
    }
    assert_eq!(recall_plan(&mut index, &json!({"action": "recall", "name": "done", "page": "2", "query": "  "})).page, 2);
    // A rewind whose call pi stored only afterwards, below the summary: no abandoned branch is known.
    let mut late = Lines::default();
    late.user("u", "go").label("l1", "u", "anchor:start").call("a1", "", "c1", "bash").result("r1", "c1", "bash", "work");
    late.rewind("1", "u", "done", "c3").call("a3", "", "c3", TOOL_NAME);
    assert_eq!(code(&mut late.index(), json!({"action": "recall", "name": "done"})), RefusalCode::NothingCollapsed);
    // An anchor nothing was rewound to.
    let mut plain = rewound("x");
    plain.label("l9", "a4", "anchor:later");
    assert_eq!(code(&mut plain.index(), json!({"action": "recall", "name": "later"})), RefusalCode::NothingCollapsed);
    let no_match = page_of(&s, &json!({"action": "recall", "name": "done", "query": "absent"}));
    assert!(matches!(&no_match, RecallAnswer::Refuse(r) if r.code == RefusalCode::NoMatch), "{no_match:?}");
    let past = page_of(&s, &json!({"action": "recall", "name": "done", "page": 2}));
    assert!(matches!(&past, RecallAnswer::Refuse(r) if r.code == RefusalCode::NoSuchPage), "{past:?}");
    // Entries the host could not hand over (or unreadable ones) are left out; none at all: nothing.
    let done = recall_plan(&mut index, &json!({"action": "recall", "name": "done"}));
    let nothing = page(&done, &[None, Some("{not json".into())]);
    assert!(matches!(&nothing, RecallAnswer::Refuse(r) if r.code == RefusalCode::NothingCollapsed), "{nothing:?}");
}

#[test]
fn a_query_narrows_case_insensitively() {
    let s = rewound("fn main() {}");
    let answer = page_of(&s, &json!({"action": "recall", "name": "done", "query": "MISMATCHED"}));
    let RecallAnswer::Page(p) = &answer else { panic!("{answer:?}") };
    assert_eq!(p.details.entry_ids, ["r2"]);
    assert_eq!((p.details.matches, p.details.collapsed), (1, 3));
    assert!(p.text.starts_with("[recall 'done'] page 1 of 1 · 1 of 3 collapsed entries contain \"MISMATCHED\""), "{}", p.text);
    assert!(p.text.contains("error[E0308]: Mismatched types\n"), "{}", p.text);
}

/// Every page fits the budget, the pieces put back together are the exact text, and the footers lead
/// from each page to the next.
#[test]
fn pages_stay_under_the_budget_and_give_back_the_exact_text() {
    let mut file = String::new();
    for n in 0..3000 {
        writeln!(file, "line {n}: é😀 \"quoted\" \\ tab\t{}", "x".repeat(n % 37)).unwrap();
    }
    let no_newlines = "ab😀".repeat(9000);
    let mut s = rewound(&file);
    s.call("a5", "", "c5", "read").result("r5", "c5", "read", &no_newlines).call("a6", "", "c6", TOOL_NAME).rewind("2", "bs1", "big", "c6");
    for (name, expected) in [("done", file.as_str()), ("big", no_newlines.as_str())] {
        let first = page_of(&s, &json!({"action": "recall", "name": name, "query": "😀"}));
        let RecallAnswer::Page(first) = first else { panic!("{first:?}") };
        let pages = first.details.pages;
        assert!(pages > 3, "{pages}");
        let mut pieces = String::new();
        for k in 1..=pages {
            let answer = page_of(&s, &json!({"action": "recall", "name": name, "query": "😀", "page": k}));
            let RecallAnswer::Page(p) = answer else { panic!("{answer:?}") };
            assert!(p.details.tokens <= PAGE_TOKENS as f64, "page {k}: {}", p.details.tokens);
            assert_eq!(p.details.tokens, ceil_quarter(utf16_len(&p.text)));
            assert!(k == pages || p.details.tokens > PAGE_TOKENS as f64 * 0.8, "pages are filled: page {k} of {pages}: {}", p.details.tokens);
            let head = format!("part {k} of {pages} ────\n");
            let at = p.text.find(&head).unwrap_or_else(|| panic!("page {k}: {}", p.text)) + head.len();
            let footer = if k < pages {
                format!("\nPage {} of {pages}: navigate_tree(action='recall', name='{name}', query=\"😀\", page={})", k + 1, k + 1)
            } else {
                format!("\nEnd of what was collapsed at '{name}'.")
            };
            assert!(p.text.ends_with(&footer), "page {k}: {}", p.text);
            pieces.push_str(&p.text[at..p.text.len() - footer.len()]);
        }
        assert!(pieces == expected, "{name}: the pieces rebuild the text exactly");
    }
}

#[test]
fn a_cut_falls_after_a_newline_in_the_second_half_or_at_a_character() {
    assert_eq!(cut_at("aaaa\nbbbbbbbb", 8), 5);
    assert_eq!(cut_at("a\nbbbbbbbbbbb", 8), 8);
    assert_eq!(cut_at("😀😀😀", 3), 4, "a surrogate pair is never split");
    assert_eq!(cut_at("😀😀", 1), 4, "at least one character");
    assert_eq!(cut_at("", 5), 0);
}

#[test]
fn an_entry_id_reads_that_entry_whole() {
    let s = rewound("fn main() {}");
    let mut index = s.index();
    let plan = recall_plan(&mut index, &json!({"action": "recall", "name": "a1", "query": "ignored"}));
    assert_eq!((plan.entry_ids.as_slice(), plan.whole, plan.query.as_deref()), (&["a1".to_string()][..], true, None));
    // The tool call a collapsed assistant made, with its arguments: more than its text.
    let page = text(&page_of(&s, &json!({"action": "recall", "name": "a1"}))).to_string();
    assert_eq!(
        page,
        "[recall 'a1'] page 1 of 1 · entry a1, whole · exact text\n──── entry a1 · assistant ────\nReading the grammar.\n\
         [tool call read (c1)]\nEnd of entry a1."
    );
    // Any entry, this tool's own result and entries outside the collapsed work included.
    let result = text(&page_of(&s, &json!({"action": "recall", "name": "rr1"}))).to_string();
    assert!(result.contains("──── entry rr1 · tool result of navigate_tree ────\n[rewind] done\n"), "{result}");
    let summary = text(&page_of(&s, &json!({"action": "recall", "name": "bs1"}))).to_string();
    assert!(summary.contains("──── entry bs1 · branch summary ────\n## Goal\n"), "{summary}");
    let label = text(&page_of(&s, &json!({"action": "recall", "name": "lb1"}))).to_string();
    assert!(label.contains("\"label\":\"anchor:done\""), "another entry as its JSON text: {label}");
    // An anchor of the same name with collapsed work wins (one with none does not); an id that is no
    // valid anchor name still reads as an id.
    let mut both = rewound("x");
    both.label("l8", "u", "anchor:a2").label("l9", "a4", "anchor:a1").user("Not_Kebab", "typed");
    let mut index = both.index();
    assert!(!recall_plan(&mut index, &json!({"action": "recall", "name": "a2"})).whole);
    assert!(recall_plan(&mut index, &json!({"action": "recall", "name": "a1"})).whole);
    assert!(recall_plan(&mut index, &json!({"action": "recall", "name": "Not_Kebab"})).whole);
    assert_eq!(refused(&plan_of(&mut index, &json!({"action": "recall", "name": "Nope_1"}))), RefusalCode::InvalidName);
    assert_eq!(refused(&plan_of(&mut index, &json!({"action": "recall", "name": "nope"}))), RefusalCode::UnknownName);
}

#[test]
fn a_whole_entry_shows_every_block() {
    let mut s = Lines::default();
    s.message("m", &json!({"role": "assistant", "content": [
        {"type": "thinking", "thinking": "hmm"},
        {"type": "text", "text": "doing it"},
        {"type": "toolCall", "id": "c1", "name": "write", "arguments": {"path": "a.rs", "content": "line one\nline two"}},
        {"type": "image", "data": "AAAA", "mimeType": "image/png"},
        {"type": "other", "n": 1}]}))
        .message("b", &json!({"role": "bashExecution", "command": "make", "output": "ok", "exitCode": 2}))
        .message("e", &json!({"role": "toolResult", "toolCallId": "c1", "toolName": "edit", "content": [], "isError": true}));
    let page = text(&page_of(&s, &json!({"action": "recall", "name": "m"}))).to_string();
    assert!(page.contains("[thinking]\nhmm\n[/thinking]\ndoing it\n[tool call write (c1)]\ncontent: line one\nline two\npath: a.rs\n[image image/png]\n{\"n\":1,\"type\":\"other\"}\n"), "{page}");
    let bash = text(&page_of(&s, &json!({"action": "recall", "name": "b"}))).to_string();
    assert!(bash.contains("──── entry b · bashExecution ────\n{\"id\":\"b\","), "the user's own command as its JSON text: {bash}");
    assert!(bash.contains("\"command\":\"make\"") && bash.contains("\"exitCode\":2"), "{bash}");
    let empty = text(&page_of(&s, &json!({"action": "recall", "name": "e"}))).to_string();
    assert!(empty.contains("──── entry e · tool result of edit, failed ────\n(no text)\n"), "{empty}");
}

/// The texts pinned in tests/fixtures/expected/tool-outputs.txt (see `tool::tests`).
pub(in crate::tool) fn golden(put: &mut dyn FnMut(&str, &str)) {
    let s = rewound("fn main() {\n    println!(\"hi\");\n}\n");
    let mut index = s.index();
    for (what, args) in [
        ("recall plan", json!({"action": "recall", "name": "done", "query": "Main"})),
        ("recall unknown", json!({"action": "recall", "name": "nope"})),
        ("recall bad query", json!({"action": "recall", "name": "done", "query": ["x"]})),
        ("recall bad page", json!({"action": "recall", "name": "done", "page": 0})),
        ("recall bad name", json!({"action": "recall", "name": "anchor:done"})),
    ] {
        put(what, &json(&plan_of(&mut index, &args)));
    }
    let mut plain = rewound("x");
    plain.label("l9", "a4", "anchor:later");
    put("recall nothing", &json(&plan_of(&mut plain.index(), &json!({"action": "recall", "name": "later"}))));
    for (what, args) in [
        ("recall page", json!({"action": "recall", "name": "done"})),
        ("recall query", json!({"action": "recall", "name": "start", "query": "PRINTLN"})),
        ("recall no match", json!({"action": "recall", "name": "done", "query": "nothing \"here\""})),
        ("recall no page", json!({"action": "recall", "name": "done", "query": "main", "page": 3})),
    ] {
        put(what, &json(&page_of(&s, &args)));
    }
    put("recall entry", &json(&page_of(&s, &json!({"action": "recall", "name": "r2"}))));
    let big = rewound(&"0123456789abcdef\n".repeat(600));
    for k in 1..=2 {
        put(&format!("recall split {k}"), &json(&page_of(&big, &json!({"action": "recall", "name": "done", "page": k}))));
    }
}

/// A result as JavaScript receives it.
fn json(result: &impl Serialize) -> String {
    serde_json::to_string(result).expect("results serialize")
}
