//! The ledger's rules, one test each; the texts are pinned in tests/fixtures/expected/tool-outputs.txt
//! ([`golden`]).
#![allow(clippy::needless_pass_by_value, reason = "the span builders take their JSON by value, as `json!` makes it")]

use serde_json::{json, Value};

use super::*;
use crate::config::DEFAULT_LEDGER_TOKENS;

/// A span under construction: entries as pi holds them, each as its JSON text.
#[derive(Default)]
pub(in crate::tool) struct Span(Vec<Value>);

impl Span {
    fn push(&mut self, id: &str, mut entry: Value) -> &mut Self {
        entry["id"] = json!(id);
        entry["parentId"] = self.0.last().map_or(Value::Null, |e| e["id"].clone());
        entry["timestamp"] = json!("2026-01-01T00:00:00.000Z");
        self.0.push(entry);
        self
    }
    fn message(&mut self, id: &str, message: Value) -> &mut Self {
        self.push(id, json!({"type": "message", "message": message}))
    }
    pub(in crate::tool) fn user(&mut self, id: &str, text: &str) -> &mut Self {
        self.message(id, json!({"role": "user", "content": text}))
    }
    /// A user message as pi stores a steered one: text blocks.
    fn steered(&mut self, id: &str, text: &str) -> &mut Self {
        self.message(id, json!({"role": "user", "content": [{"type": "text", "text": text}]}))
    }
    pub(in crate::tool) fn call(&mut self, id: &str, call: &str, tool: &str, args: Value) -> &mut Self {
        self.message(id, json!({"role": "assistant", "content": [{"type": "toolCall", "id": call, "name": tool, "arguments": args}], "stopReason": "toolUse"}))
    }
    pub(in crate::tool) fn result(&mut self, id: &str, call: &str, tool: &str, text: &str, failed: bool) -> &mut Self {
        self.message(id, json!({"role": "toolResult", "toolCallId": call, "toolName": tool, "content": [{"type": "text", "text": text}], "isError": failed}))
    }
    fn edit(&mut self, id: &str, target: &str, replacement: Value) -> &mut Self {
        self.push(id, json!({"type": "context_edit", "targetId": target, "replacement": replacement}))
    }
    pub(in crate::tool) fn texts(&self) -> Vec<Option<String>> {
        self.0.iter().map(|e| Some(e.to_string())).collect()
    }
}

/// What pi's bash tool returns for a failing `cargo test`.
pub(in crate::tool) const CARGO_OUTPUT: &str = "   Compiling parser v0.1.0\nerror[E0308]: mismatched types\n  --> src/parser.rs:42:7\n   |\n42 |     let x: u32 = \"a\";\n   |            ^^^ expected `u32`\n\ntest result: FAILED. 12 passed; 2 failed; 0 ignored\n\nCommand exited with code 101";

/// The issue's span: a read, a failing build and test run, a write, and a user instruction steered in.
pub(in crate::tool) fn planted() -> Span {
    let mut s = Span::default();
    s.user("u1", "Make the parser accept nested expressions.")
        .call("a1", "c1", "read", json!({"path": "src/lexer/tokens.rs"}))
        .result("r1", "c1", "read", "pub enum Token {\n    // error: not an error, just text in a file\n}\n", false)
        .call("a2", "c2", "bash", json!({"command": "cargo test 2>&1"}))
        .result("r2", "c2", "bash", CARGO_OUTPUT, true)
        .steered("u2", "Keep the public API of Token unchanged.")
        .call("a3", "c3", "write", json!({"path": "src/parser/expr.rs", "content": "pub fn expr() {}\n"}))
        .result("r3", "c3", "write", "Successfully wrote 17 bytes to src/parser/expr.rs", false)
        .call("a4", "c4", TOOL_NAME, json!({"action": "rewind"}));
    s
}

fn options(budget: u32) -> LedgerOptions<'static> {
    LedgerOptions { budget_tokens: budget, profile: Profile::Pi150, recall_name: Some("done") }
}

fn of(span: &Span, budget: u32) -> Ledger {
    ledger(&span.texts(), options(budget))
}

/// Each of `lines` is a whole line of the ledger's text.
fn assert_lines(l: &Ledger, lines: &[&str]) {
    for line in lines {
        assert!(l.text.lines().any(|l| l == *line), "{line:?} in\n{}", l.text);
    }
}

#[test]
fn the_six_planted_facts_are_kept_verbatim_each_with_its_entry() {
    let l = of(&planted(), DEFAULT_LEDGER_TOKENS);
    assert_lines(&l, &[
        "- [u2] Keep the public API of Token unchanged.",
        "- [u1] Make the parser accept nested expressions.",
        "- [r2] error[E0308]: mismatched types --> src/parser.rs:42:7",
        "- [r2] test result: FAILED. 12 passed; 2 failed; 0 ignored",
        "- [a3] src/parser/expr.rs",
        "- [r2] `cargo test 2>&1` → exit 101",
        "- [r1] src/lexer/tokens.rs",
    ]);
    assert!(!l.text.contains("not an error"), "a file's own text is not an error line:\n{}", l.text);
    assert!(l.text.starts_with("<ledger>\n") && l.text.ends_with("\n</ledger>"), "{}", l.text);
    assert_eq!((l.items, l.left_out), (7, 0));
    assert_eq!(l.tokens, ceil_quarter(utf16_len(&l.text)));
    assert!(l.tokens <= f64::from(DEFAULT_LEDGER_TOKENS));
    assert_eq!((l.read_files, l.modified_files), (vec!["src/lexer/tokens.rs".to_string()], vec!["src/parser/expr.rs".to_string()]));
    // Sections by importance, newest first within each.
    let at = |s: &str| l.text.find(s).unwrap_or_else(|| panic!("{s}"));
    assert!(at("User messages:") < at("Errors and test results:") && at("Errors and test results:") < at("Files modified:"));
    assert!(at("Files modified:") < at("Commands run:") && at("Commands run:") < at("Files read:"));
    assert!(at("[u2]") < at("[u1]"), "newest first");
}

#[test]
fn pi_s_file_rules_read_then_modified_is_modified_and_lists_sort_as_javascript_does() {
    let mut s = Span::default();
    s.call("a1", "c1", "read", json!({"path": "b.rs"}))
        .result("r1", "c1", "read", "x", false)
        .call("a2", "c2", "edit", json!({"path": "b.rs", "oldText": "x", "newText": "y"}))
        .call("a3", "c3", "read", json!({"path": "\u{ff61}wide.rs"}))
        .call("a4", "c4", "read", json!({"path": "\u{1F600}emoji.rs"}))
        .call("a5", "c5", "read", json!({"path": 7}))
        .call("a6", "c6", "read", json!({"file": "no-path.rs"}))
        .call("a7", "c7", "read", json!({"path": ""}))
        .call("a8", "c8", "bash", json!({"path": "not-a-file-tool.rs", "command": "true"}))
        .call("a9", "c9", "read", json!({"path": "b.rs"}));
    let l = of(&s, DEFAULT_LEDGER_TOKENS);
    assert_eq!(l.modified_files, ["b.rs"]);
    // UTF-16 order: the emoji's surrogate (0xD83D) sorts before U+FF61; in UTF-8 bytes it would not.
    assert_eq!(l.read_files, ["\u{1F600}emoji.rs", "\u{ff61}wide.rs"]);
    assert!(l.text.contains("- [a2] b.rs"), "the newest write or edit names the file:\n{}", l.text);
}

#[test]
fn earlier_summaries_pi_wrote_add_their_files_and_hook_summaries_do_not() {
    let mut s = Span::default();
    s.push("bs1", json!({"type": "branch_summary", "fromId": "x", "summary": "s", "details": {"readFiles": ["old.rs", 3], "modifiedFiles": ["mod.rs"]}}))
        .push("bs2", json!({"type": "branch_summary", "fromId": "x", "summary": "s", "fromHook": true, "details": {"readFiles": ["hook.rs"]}}))
        .call("a1", "c1", "write", json!({"path": "old.rs"}));
    let l = of(&s, DEFAULT_LEDGER_TOKENS);
    assert_eq!(l.read_files, Vec::<String>::new());
    assert_eq!(l.modified_files, ["mod.rs", "old.rs"]);
    assert!(l.text.contains("- [bs1] mod.rs") && l.text.contains("- [a1] old.rs"), "{}", l.text);
}

#[test]
fn context_edits_count_for_the_files_only_where_pi_s_summary_honours_them() {
    let mut s = Span::default();
    s.call("a1", "c1", "write", json!({"path": "gone.rs"}))
        .call("a2", "c2", "write", json!({"path": "texted.rs"}))
        .call("a3", "c3", "write", json!({"path": "kept.rs"}))
        .edit("e1", "a1", Value::Null)
        .edit("e2", "a2", json!({"content": "replaced by text"}))
        .edit("e3", "a3", json!({"content": [{"type": "toolCall", "id": "c3", "name": "write", "arguments": {"path": "moved.rs"}}]}));
    let files = |profile| ledger(&s.texts(), LedgerOptions { profile, ..options(600) }).modified_files;
    assert_eq!(files(Profile::Pi150), ["moved.rs"]);
    for older in [Profile::Pi087, Profile::Pi074] {
        assert_eq!(files(older), ["gone.rs", "kept.rs", "texted.rs"], "{older:?}");
    }
}

#[test]
fn an_edit_hides_or_replaces_what_the_model_saw_on_hosts_with_context_edits() {
    let mut s = Span::default();
    s.user("u1", "the secret is hunter2").edit("e1", "u1", Value::Null).user("u2", "original").edit("e2", "u2", json!({"content": "redacted"}));
    let l = of(&s, 600);
    assert!(!l.text.contains("hunter2") && !l.text.contains("original") && l.text.contains("- [u2] redacted"), "{}", l.text);
    let old = ledger(&s.texts(), LedgerOptions { profile: Profile::Pi074, ..options(600) });
    assert!(old.text.contains("hunter2"), "pi 0.74 has no context edits: {}", old.text);
}

#[test]
fn commands_say_how_they_ended() {
    let mut s = Span::default();
    s.call("a1", "c1", "bash", json!({"command": "ls"}))
        .result("r1", "c1", "bash", "a\nb", false)
        .call("a2", "c2", "bash", json!({"command": "sleep 99"}))
        .result("r2", "c2", "bash", "\n\nCommand timed out after 5 seconds", true)
        .call("a3", "c3", "bash", json!({"command": "yes"}))
        .result("r3", "c3", "bash", "y\n\nCommand aborted", true)
        .call("a4", "c4", "bash", json!({"command": "echo one\necho two"}))
        .call("a5", "c5", "bash", json!({"command": "x".repeat(400)}))
        .result("r5", "c5", "bash", "boom", true)
        .message("b6", json!({"role": "bashExecution", "command": "make", "output": "make: *** [all] Error 2\nerror: build failed", "exitCode": 2}))
        .message("b7", json!({"role": "bashExecution", "command": "secret-cmd", "output": "", "exitCode": 0, "excludeFromContext": true}))
        .message("b8", json!({"role": "bashExecution", "command": "long", "output": "", "cancelled": true}));
    let l = of(&s, 2000);
    assert_lines(&l, &[
        "- [r1] `ls` → exit 0",
        "- [r2] `sleep 99` → timed out",
        "- [r3] `yes` → aborted",
        "- [a4] `echo one…` → no result",
        "- [b6] `make` → exit 2",
        "- [b8] `long` → cancelled",
        "- [b6] error: build failed",
    ]);
    assert!(l.text.contains(&format!("- [r5] `{}…` → failed", "x".repeat(COMMAND_MAX_UNITS))), "{}", l.text);
    assert!(!l.text.contains("secret-cmd"), "a `!!` command never reached the model: {}", l.text);
    assert!(!l.text.contains("bash failed"), "a failed bash says its status on the command, not again: {}", l.text);
}

#[test]
fn a_failed_tool_with_no_error_line_gives_its_first_line_and_this_tool_s_results_are_left_out() {
    let mut s = Span::default();
    s.call("a1", "c1", "edit", json!({"path": "x.rs"}))
        .result("r1", "c1", "edit", "\nCould not find the exact text in x.rs.\nThe old text must match exactly.", true)
        .call("a2", "c2", "read", json!({"path": "missing.rs"}))
        .result("r2", "c2", "read", "ENOENT: no such file or directory, open 'missing.rs'", true)
        .result("r3", "c9", TOOL_NAME, "error: refused", true);
    let l = of(&s, 600);
    assert!(l.text.contains("- [r1] edit failed: Could not find the exact text in x.rs.\n"), "{}", l.text);
    assert!(l.text.contains("- [r2] read failed: ENOENT: no such file or directory, open 'missing.rs'"), "{}", l.text);
    assert!(!l.text.contains("refused"), "{}", l.text);
}

#[test]
fn error_and_test_lines_as_tools_print_them() {
    let errors = [
        "error: could not compile `parser`",
        "error[E0425]: cannot find value `x` in this scope",
        "src/main.c:12:5: error: expected ';' before '}' token",
        "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
        "TypeError: Cannot read properties of undefined (reading 'x')",
        "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:",
        "java.lang.IllegalStateException: boom",
        "ModuleNotFoundError: No module named 'foo'",
        "fatal: not a git repository (or any of the parent directories): .git",
        "npm ERR! code ELIFECYCLE",
        "thread 'main' panicked at src/main.rs:2:5:",
        "FAIL src/app.test.js",
        "--- FAIL: TestParse (0.00s)",
        "not ok 3 - parses nested",
        "✖ parses nested (2.1ms)",
        "Error: ENOENT: no such file",
    ];
    let not_errors = [
        "main.go:7:2: undefined: foo",
        "warning: unused variable `x`",
        "0 errors",
        "Errors: none",
        "the Error type is defined here",
        "MyError",
        "handle_error: done",
        "   Compiling parser v0.1.0",
    ];
    for line in errors {
        assert!(is_error_line(line), "{line}");
    }
    for line in not_errors {
        assert!(!is_error_line(line), "{line}");
    }
    let tests = [
        "test result: FAILED. 12 passed; 2 failed; 0 ignored",
        "Tests:       2 failed, 12 passed, 14 total",
        "Test Files  1 failed | 3 passed (4)",
        "==== 2 failed, 12 passed in 0.52s ====",
        "12 passing (30ms)",
        "2 failing",
        "ℹ pass 12",
        "# fail 2",
    ];
    for line in tests {
        assert!(test_summary(line).is_some(), "{line}");
    }
    for line in ["passed the parser to the lexer", "ℹ duration_ms 12", "test passed", "v2 failed"] {
        assert!(test_summary(line).is_none(), "{line}");
    }
    assert!(is_location_line("--> src/parser.rs:42:7") && !is_location_line("-->") && !is_location_line("-> a:1"));
}

#[test]
fn an_output_gives_its_first_errors_and_last_test_summaries_once_each() {
    let text = "error: one\n  --> a.rs:1:1\nerror: two\nerror: three\nerror: four\ntest result: ok. 1 passed\n\
                test result: ok. 2 passed\ntest result: FAILED. 3 passed; 1 failed\nerror: one";
    assert_eq!(
        problem_lines(text),
        [("error: one --> a.rs:1:1", true), ("error: two", true), ("error: three", true), ("test result: ok. 2 passed", false), ("test result: FAILED. 3 passed; 1 failed", true)]
            .map(|(l, u)| (l.to_string(), u))
    );
    // Which summaries report failures.
    for (line, failing) in [
        ("test result: ok. 14 passed; 0 failed; 0 ignored", false),
        ("test result: FAILED. 12 passed; 2 failed", true),
        ("Tests:       2 failed, 12 passed, 14 total", true),
        ("Tests:       0 failed, 12 passed", false),
        ("12 passing (30ms)", false),
        ("2 failing", true),
        ("ℹ fail 0", false),
        ("ℹ fail 3", true),
        ("# pass 12", false),
    ] {
        assert_eq!(test_summary(line), Some(failing), "{line}");
    }
    // The same line in a later run is kept once, at its newest place.
    let mut s = Span::default();
    s.call("a1", "c1", "bash", json!({"command": "t"})).result("r1", "c1", "bash", "error: same", true);
    s.call("a2", "c2", "bash", json!({"command": "t"})).result("r2", "c2", "bash", "error: same", true);
    let l = of(&s, 600);
    assert_eq!(l.text.matches("error: same").count(), 1, "{}", l.text);
    assert!(l.text.contains("- [r2] error: same"), "{}", l.text);
}

#[test]
fn a_long_user_message_is_cut_with_a_mark() {
    let mut s = Span::default();
    let long = format!("{}😀{}", "a".repeat(USER_MAX_UNITS - 1), "b".repeat(100));
    s.user("u1", &long);
    let l = of(&s, 600);
    // The emoji would straddle the limit: it is cut before it, and counted (2 units) in what was left out.
    assert!(l.text.contains(&format!("- [u1] {}… [cut: 102 more characters]\n", "a".repeat(USER_MAX_UNITS - 1))), "{}", l.text);
}

#[test]
fn over_budget_every_kind_keeps_its_newest_in_rounds_and_the_rest_is_counted() {
    let mut s = Span::default();
    for n in 0..40 {
        s.user(&format!("u{n}"), &format!("instruction number {n} with some words to take room"));
        s.call(&format!("a{n}"), &format!("c{n}"), "read", json!({"path": format!("src/file{n}.rs")}));
    }
    let l = of(&s, 200);
    assert!(l.tokens <= 200.0, "{}", l.tokens);
    // Every kind keeps its newest: user messages and files read both, in rounds (the more important kind first).
    assert!(l.text.contains("[u39]") && l.text.contains("[a39]") && !l.text.contains("[u0]") && !l.text.contains("[a0]"), "{}", l.text);
    let (users, reads) = (l.text.matches("] instruction number").count(), l.text.matches("] src/file").count());
    assert!(users >= reads && users <= reads + 1, "{users} user messages, {reads} files read:\n{}", l.text);
    assert_eq!(l.items + l.left_out, 80);
    assert!(l.text.contains(&format!("({} more items left out for room; navigate_tree(action='recall', name='done') reads all the collapsed work.)", l.left_out)), "{}", l.text);
    // Whatever the budget, the ledger stays within it.
    for budget in [1, 20, 40, 60, 100, 333, 600, 5000] {
        let l = of(&s, budget);
        assert!(l.tokens <= f64::from(budget), "{budget}: {}", l.tokens);
        assert_eq!(l.items + l.left_out, 80, "{budget}");
    }
}

#[test]
fn failures_come_first_within_their_kind() {
    let mut s = Span::default();
    s.call("a1", "c1", "bash", json!({"command": "make fail"})).result("r1", "c1", "bash", "boom\n\nCommand exited with code 2", true);
    for n in 2..30 {
        s.call(&format!("a{n}"), &format!("c{n}"), "bash", json!({"command": format!("echo {n}")}));
        s.result(&format!("r{n}"), &format!("c{n}"), "bash", &format!("{n}\ntest result: ok. {n} passed; 0 failed"), false);
    }
    s.call("a30", "c30", "bash", json!({"command": "cargo test"})).result("r30", "c30", "bash", "test result: FAILED. 1 passed; 1 failed", true);
    let l = of(&s, 120);
    // The old failed command and the failing summary are kept over the newer successful ones.
    assert!(l.text.contains("- [r1] `make fail` → exit 2"), "{}", l.text);
    let problems = l.text.split("Errors and test results:\n").nth(1).unwrap_or("");
    assert!(problems.starts_with("- [r30] test result: FAILED. 1 passed; 1 failed\n"), "{}", l.text);
}

#[test]
fn one_outsized_item_is_passed_over_instead_of_emptying_a_small_ledger() {
    let mut s = Span::default();
    s.user("u1", "short and older").user("u2", &"long ".repeat(200));
    let l = of(&s, 100);
    assert!(l.text.contains("- [u1] short and older") && !l.text.contains("[u2]"), "{}", l.text);
    assert_eq!((l.items, l.left_out), (1, 1));
    assert!(l.tokens <= 100.0);
}

#[test]
fn off_or_empty_lists_nothing_but_still_gives_pi_s_file_lists() {
    let off = of(&planted(), 0);
    assert_eq!((off.text.as_str(), off.tokens, off.items, off.left_out), ("", 0.0, 0, 0));
    assert_eq!(off.modified_files, ["src/parser/expr.rs"]);
    let mut quiet = Span::default();
    quiet.call("a1", "c1", TOOL_NAME, json!({"action": "list"})).result("r1", "c1", TOOL_NAME, "[list]", false);
    assert_eq!(of(&quiet, 600).text, "");
}

#[test]
fn unreadable_or_odd_entries_are_passed_over() {
    let mut entries = planted().texts();
    entries.insert(1, Some("{not json".into()));
    entries.insert(2, None);
    entries.insert(3, Some("[1,2]".into()));
    entries.insert(4, Some(r#"{"type":"message","id":"m","message":{"role":"assistant","content":"text only"}}"#.into()));
    entries.insert(5, Some(r#"{"type":"message","id":"n","message":{"role":"toolResult","content":null,"isError":true}}"#.into()));
    entries.insert(6, Some(r#"{"type":"message","message":{"role":"user","content":"no id"}}"#.into()));
    entries.insert(7, Some(r#"{"type":"message","id":"k","message":{"role":"assistant","content":[{"type":"toolCall","name":"read"}]}}"#.into()));
    let l = ledger(&entries, options(600));
    assert_eq!(l.items, 7, "{}", l.text);
    assert!(!l.text.contains("no id"));
}

/// The texts pinned in tests/fixtures/expected/tool-outputs.txt (see `tool::tests`).
pub(in crate::tool) fn golden(put: &mut dyn FnMut(&str, &str)) {
    put("ledger planted", &serde_json::to_string(&of(&planted(), DEFAULT_LEDGER_TOKENS)).expect("serializes"));
    let mut many = planted();
    for n in 0..12 {
        many.user(&format!("x{n}"), &format!("more words from the user, message {n}"));
    }
    put("ledger cut", &of(&many, 120).text);
}
