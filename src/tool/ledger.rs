//! The ledger: the facts a collapsed span held, copied verbatim under the summary that replaces it.
//!
//! A summary is written by a model and keeps only what it mentions. The ledger is derived by the core from the
//! collapsed entries themselves — as pi holds them, handed over by the shim (the plugin index keeps no text) —
//! so what the user said, what failed and which files were touched survive whatever the summary says. Its
//! items, each naming the entry it comes from so `recall` can read that entry whole:
//! - the user's messages typed in the span (one steered in mid-run included), long ones cut with a mark;
//! - the files read and the files modified, by pi's own rules for its branch summary's `<read-files>` and
//!   `<modified-files>` ([`file_lists`]);
//! - the commands run (`bash` calls and the user's own `!` commands) with their exit status;
//! - the error lines of failed tool results, and the error and test-summary lines of any tool output, an error
//!   joined with the location a compiler prints under it (`--> src/parser.rs:42:7`).
//!
//! It is bounded ([`crate::config::DEFAULT_LEDGER_TOKENS`] by default, `ledgerTokens` in `tree-navigator.json`): when it must
//! cut, the most important kind goes first (user messages, then errors and test results, modified files,
//! commands, read files) and within a kind the newest, and the cut falls where the next item no longer fits
//! (only an item bigger than half the room is passed over, so one long message cannot empty a small ledger);
//! the left-out count is said. Items are listed in that order too, newest first.
//!
//! Nothing here assumes a rewind: the span is any run of collapsed entries, oldest first — what a rewind
//! collapsed (pi's `collectEntriesForBranchSummary`), or what a compaction summarizes before its
//! `firstKeptEntryId`, a split turn's prefix included.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

use crate::js::{sort_js_strings, utf16_len};
use crate::session::{ceil_quarter, Profile};

use super::collapsed::{entry_id, held_entries, Edits, Shown};
use super::definition::TOOL_NAME;
use super::number::js_number;
use super::texts::{self, LedgerSection};

/// A user message longer than this (UTF-16 units) is cut, with a mark saying how much was left out.
const USER_MAX_UNITS: usize = 600;
/// A command longer than this (or past its first line) is cut with `…`.
const COMMAND_MAX_UNITS: usize = 160;
/// An error or test-summary line longer than this is cut with `…`.
const LINE_MAX_UNITS: usize = 240;
/// Error lines kept from one tool output (the first ones: a compiler's first error is the cause).
const ERRORS_PER_OUTPUT: usize = 3;
/// Test-summary lines kept from one tool output (the last ones: the overall result comes last).
const TESTS_PER_OUTPUT: usize = 2;
/// How many lines below an error its location line may come (rustc: the next line).
const LOCATION_LOOKAHEAD: usize = 3;
/// pi's tools whose output is the files' own text (a line there saying `error:` is content, not an
/// error): only a failed result of theirs is read for errors.
const CONTENT_TOOLS: [&str; 4] = ["read", "grep", "find", "ls"];

/// The ledger of a span, and pi's file lists for it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ledger {
    /// The ledger as it goes under the summary (`<ledger>` … `</ledger>`); empty when it lists nothing or
    /// is off.
    pub text: String,
    /// Its size by pi's estimate (`ceil(chars / 4)`); 0 when empty.
    #[serde(serialize_with = "js_number")]
    pub tokens: f64,
    /// Items listed.
    pub items: u32,
    /// Items left out for room.
    pub left_out: u32,
    /// pi's `<read-files>` for the span: read and not modified, sorted as JavaScript sorts strings.
    pub read_files: Vec<String>,
    /// pi's `<modified-files>` for the span, sorted.
    pub modified_files: Vec<String>,
    /// The files the text lists (read or modified; some may have been left out for room).
    #[serde(skip)]
    listed_files: Vec<String>,
}

impl Ledger {
    /// Whether the text lists `path` as a file read or modified.
    pub fn lists_file(&self, path: &str) -> bool {
        self.listed_files.iter().any(|f| f == path)
    }
}

/// What a ledger is made with.
#[derive(Debug, Clone, Copy)]
pub struct LedgerOptions<'a> {
    /// The bound in tokens; 0: no ledger (the file lists are still computed).
    pub budget_tokens: u32,
    /// The running pi's generation (which of pi's file rules apply).
    pub profile: Profile,
    /// The name `recall` reads the whole span by (a rewind's `labelEnd`), for the left-out line.
    pub recall_name: Option<&'a str>,
}

/// One item: its section, where in the span it comes from (for "newest"), the entry it names and its text.
#[derive(Debug, Clone)]
struct Item {
    section: LedgerSection,
    order: usize,
    id: String,
    text: String,
    /// Kept before the rest of its kind: a failed command, an error line, a test summary that reports failures.
    urgent: bool,
}

/// The ledger of `entries` (the span, oldest first, each as pi holds it as JSON text; a missing or
/// unreadable one is passed over).
pub fn ledger(entries: &[Option<String>], options: LedgerOptions<'_>) -> Ledger {
    let held = held_entries(entries);
    let (read, modified) = file_lists(&held, options.profile);
    let mut items = facts(&held, options.profile);
    let read_files = read.into_items(LedgerSection::Read, &mut items);
    let modified_files = modified.into_items(LedgerSection::Modified, &mut items);
    let (text, listed, left_out, listed_files) = render(&items, options);
    Ledger { tokens: ceil_quarter(utf16_len(&text)), text, items: listed, left_out, read_files, modified_files, listed_files }
}

/// pi's file lists for a branch summary (`prepareBranchEntries` + `computeFileLists`, the same code in every
/// tested pi but for one rule): `read`, `write` and `edit` tool calls of the span's assistant messages whose
/// arguments carry a string `path`, plus the `details.readFiles`/`modifiedFiles` of the span's branch
/// summaries pi wrote (not `fromHook`); a file also modified is listed as modified only; both lists sorted.
/// Under [`Profile::summary_files_honour_context_edits`] (pi ≥1.5) the calls are read as the span's latest
/// `context_edit` per entry leaves them. Each file names its newest operation: a read's result (its text),
/// a write's or edit's call (what was written), or the summary that listed it.
///
/// pi's cold summarizer stops reading the span at its token budget (`contextWindow − 16384`), so for a span
/// longer than that its lists miss the oldest files; these lists cover the whole span.
fn file_lists(held: &[Value], profile: Profile) -> (Files, Files) {
    let edits = Edits::of(held, profile.summary_files_honour_context_edits());
    let results = results_by_call(held);
    let (mut read, mut modified) = (Files::default(), Files::default());
    for (order, entry) in held.iter().enumerate() {
        let Some(id) = entry_id(entry) else { continue };
        match entry.get("type").and_then(Value::as_str) {
            Some("branch_summary") if !truthy(entry.get("fromHook")) => {
                let details = entry.get("details");
                for (key, files) in [("readFiles", &mut read), ("modifiedFiles", &mut modified)] {
                    for path in details.and_then(|d| d.get(key)).and_then(Value::as_array).into_iter().flatten() {
                        // pi adds each element as it is; only strings can be paths.
                        if let Some(path) = path.as_str() {
                            files.note(path, id, order);
                        }
                    }
                }
            }
            Some("message") => {
                let Some(message) = edits.shown(entry).filter(|m| m.str("role") == Some("assistant")) else { continue };
                for call in tool_calls(&message) {
                    let Some(path) = call.arguments.and_then(|a| a.get("path")).and_then(Value::as_str).filter(|p| !p.is_empty()) else {
                        continue;
                    };
                    match call.name {
                        "read" => match results.get(call.id) {
                            Some(&at) => read.note(path, entry_id(&held[at]).unwrap_or(id), at),
                            None => read.note(path, id, order),
                        },
                        "write" | "edit" => modified.note(path, id, order),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    read.ops.retain(|op| !modified.has(&op.path));
    (read, modified)
}

/// A file list being gathered: each path once, with its newest operation. (Found by a walk of the list: a
/// span touches tens of files, and a map of its own would add its code to the module.)
#[derive(Debug, Default)]
struct Files {
    ops: Vec<FileOp>,
}

/// A file and its newest operation.
#[derive(Debug)]
struct FileOp {
    path: String,
    id: String,
    order: usize,
}

impl Files {
    fn note(&mut self, path: &str, id: &str, order: usize) {
        let op = FileOp { path: path.to_string(), id: id.to_string(), order };
        match self.ops.iter_mut().find(|o| o.path == path) {
            Some(known) if known.order > order => {}
            Some(known) => *known = op,
            None => self.ops.push(op),
        }
    }

    fn has(&self, path: &str) -> bool {
        self.ops.iter().any(|o| o.path == path)
    }

    /// The files as ledger items of `section` (added to `items`), and pi's list of their paths, sorted.
    fn into_items(self, section: LedgerSection, items: &mut Vec<Item>) -> Vec<String> {
        let mut paths: Vec<String> = self.ops.iter().map(|op| op.path.clone()).collect();
        sort_js_strings(&mut paths);
        items.extend(self.ops.into_iter().map(|op| Item { section, order: op.order, id: op.id, text: op.path, urgent: false }));
        paths
    }
}

/// JavaScript truthiness of an optional field (pi tests `!entry.fromHook`).
fn truthy(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|x| x != 0.0 && !x.is_nan()),
        Some(Value::String(s)) => !s.is_empty(),
        Some(_) => true,
    }
}

/// A tool call block of an assistant message.
struct Call<'a> {
    id: &'a str,
    name: &'a str,
    arguments: Option<&'a Value>,
}

/// The tool calls of `message` (pi: blocks of `type: "toolCall"` that have a `name` and `arguments`).
fn tool_calls<'a>(message: &Shown<'a>) -> impl Iterator<Item = Call<'a>> {
    message.blocks().iter().filter_map(|block| {
        if block.get("type").and_then(Value::as_str) != Some("toolCall") {
            return None;
        }
        let arguments = block.get("arguments")?;
        let name = block.get("name")?.as_str().unwrap_or("");
        let id = block.get("id").and_then(Value::as_str).unwrap_or("");
        Some(Call { id, name, arguments: (!arguments.is_null()).then_some(arguments) })
    })
}

/// The span's tool results (their places in `held`) by the call they answer (the last one, should a call be
/// answered twice).
fn results_by_call(held: &[Value]) -> HashMap<&str, usize> {
    let mut out = HashMap::new();
    for (order, entry) in held.iter().enumerate() {
        let Some(message) = Shown::stored(entry).filter(|m| m.str("role") == Some("toolResult")) else { continue };
        if let Some(call) = message.str("toolCallId") {
            out.insert(call, order);
        }
    }
    out
}

/// The items other than files: user messages, commands, errors and test results. Each kind comes out in
/// the span's order, oldest first.
fn facts(held: &[Value], profile: Profile) -> Vec<Item> {
    let edits = Edits::of(held, profile.applies_context_edits());
    let results = results_by_call(held);
    let mut items = Vec::new();
    for (order, entry) in held.iter().enumerate() {
        let Some(id) = entry_id(entry) else { continue };
        if entry.get("type").and_then(Value::as_str) != Some("message") {
            continue;
        }
        let Some(message) = edits.shown(entry) else { continue };
        let mut push = |section, text, urgent| items.push(Item { section, order, id: id.to_string(), text, urgent });
        match message.str("role") {
            Some("user") => {
                let text = message.text();
                if !text.trim().is_empty() {
                    push(LedgerSection::User, cut_marked(&text, USER_MAX_UNITS), false);
                }
            }
            Some("assistant") => {
                for call in tool_calls(&message).filter(|c| c.name == "bash") {
                    let Some(command) = call.arguments.and_then(|a| a.get("command")).and_then(Value::as_str) else { continue };
                    // The command's result holds what it printed; the item names it when there is one.
                    let result = results.get(call.id).map(|&at| (at, &held[at]));
                    let status = result.map_or_else(|| "no result".into(), |(_, r)| bash_status(edits.shown(r)));
                    let (rid, rorder) = result.map_or((id, order), |(at, r)| (entry_id(r).unwrap_or(id), at));
                    let urgent = status != exit(0);
                    let text = texts::ledger_command(&cut_line(command, COMMAND_MAX_UNITS), &status);
                    items.push(Item { section: LedgerSection::Commands, order: rorder, id: rid.to_string(), text, urgent });
                }
            }
            Some("toolResult") => {
                let tool = message.str("toolName").unwrap_or("");
                let failed = message.get("isError").and_then(Value::as_bool) == Some(true);
                // This tool's own results are about the tree, not the work; a file's own text is no output.
                if tool == TOOL_NAME || (!failed && CONTENT_TOOLS.contains(&tool)) {
                    continue;
                }
                let text = message.text();
                let found = problem_lines(&text);
                let fallback = (failed && found.is_empty() && tool != "bash").then(|| first_line(&text)).flatten();
                for (line, urgent) in found.into_iter().chain(fallback.map(|l| (texts::ledger_failed(tool, &l), true))) {
                    push(LedgerSection::Problems, line, urgent);
                }
            }
            Some("bashExecution") => {
                // The user's own `!command`; `!!command` (excluded from the context) was never the model's.
                let Some(command) = message.str("command").filter(|_| message.get("excludeFromContext") != Some(&Value::Bool(true))) else {
                    continue;
                };
                let status = if message.get("cancelled") == Some(&Value::Bool(true)) {
                    "cancelled".into()
                } else {
                    message.get("exitCode").and_then(Value::as_i64).map_or_else(|| "exit ?".into(), exit)
                };
                let urgent = status != exit(0);
                push(LedgerSection::Commands, texts::ledger_command(&cut_line(command, COMMAND_MAX_UNITS), &status), urgent);
                for (line, urgent) in problem_lines(message.str("output").unwrap_or("")) {
                    push(LedgerSection::Problems, line, urgent);
                }
            }
            _ => {}
        }
    }
    // A line seen again (a test run twice) is kept once, where it was seen last.
    let mut newest: HashMap<&str, usize> = HashMap::new();
    for (n, item) in items.iter().enumerate().filter(|(_, i)| i.section == LedgerSection::Problems) {
        newest.insert(&item.text, n);
    }
    let mut last = vec![false; items.len()];
    for n in newest.into_values() {
        last[n] = true;
    }
    let mut n = 0;
    items.retain(|item| {
        let keep = item.section != LedgerSection::Problems || last[n];
        n += 1;
        keep
    });
    items
}

fn exit(code: i64) -> String {
    texts::ledger_exit(&code.to_string())
}

/// A `bash` result's status, from the line pi's bash tool ends a failed result with (`Command exited with
/// code N`, `Command timed out after …`, `Command aborted`); a result that did not fail exited with 0.
fn bash_status(result: Option<Shown<'_>>) -> String {
    let Some(result) = result else { return "exit ?".into() };
    if result.get("isError") != Some(&Value::Bool(true)) {
        return exit(0);
    }
    let text = result.text();
    let last = last_line(&text);
    if let Some(code) = exit_code(&text) {
        exit(code)
    } else if last.starts_with("Command timed out") {
        "timed out".into()
    } else if last.starts_with("Command aborted") {
        "aborted".into()
    } else {
        "failed".into()
    }
}

/// The last non-blank line of `text`, trimmed.
fn last_line(text: &str) -> &str {
    text.lines().rev().map(str::trim).find(|l| !l.is_empty()).unwrap_or("")
}

/// The exit code a `bash` result ends with (`Command exited with code N`, the line pi's bash tool ends a failed
/// result with), if it ends so.
pub(crate) fn exit_code(text: &str) -> Option<i64> {
    exit_code_of_line(last_line(text))
}

/// The exit code `line` (trimmed) reports, if it is a command's exit line.
pub(crate) fn exit_code_of_line(line: &str) -> Option<i64> {
    // An integer (str::parse::<f64> would bring core's float parser and its tables into the module).
    line.strip_prefix("Command exited with code ").and_then(|c| c.trim().parse::<i64>().ok())
}

/// The first error line of a tool's output by the ledger's rule ([`is_error_line`]), with the location a
/// compiler prints under it, cut as the ledger lists it; `None` when no line reports an error.
pub(crate) fn first_error_line(text: &str) -> Option<String> {
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let line = line.trim();
        if is_error_line(line) {
            return Some(error_item(line, lines));
        }
    }
    None
}

/// An error line as the ledger lists it: cut, with the location line a compiler prints under it (looked for in
/// the few lines of `after`).
fn error_item<'a>(line: &str, after: impl Iterator<Item = &'a str>) -> String {
    let location = after.take(LOCATION_LOOKAHEAD).map(str::trim).find(|l| is_location_line(l));
    let shown = cut_line(line, LINE_MAX_UNITS);
    match location {
        Some(loc) => format!("{shown} {loc}"),
        None => shown,
    }
}

/// The error lines (each with the location line a compiler prints under it) and the test-summary lines of a
/// tool's output: at most [`ERRORS_PER_OUTPUT`] errors (the first) and [`TESTS_PER_OUTPUT`] summaries (the
/// last), errors first; each with whether it is urgent (an error, or a summary that reports failures).
fn problem_lines(text: &str) -> Vec<(String, bool)> {
    let mut errors: Vec<(String, bool)> = Vec::new();
    let mut tests: Vec<(String, bool)> = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let line = line.trim();
        if is_error_line(line) {
            if errors.len() < ERRORS_PER_OUTPUT {
                let shown = error_item(line, lines.clone());
                if !errors.iter().any(|(e, _)| *e == shown) {
                    errors.push((shown, true));
                }
            }
        } else if let Some(failing) = test_summary(line) {
            let shown = cut_line(line, LINE_MAX_UNITS);
            tests.retain(|(t, _)| *t != shown);
            tests.push((shown, failing));
        }
    }
    let skip = tests.len().saturating_sub(TESTS_PER_OUTPUT);
    errors.extend(tests.into_iter().skip(skip));
    errors
}

/// Whether a (trimmed) line reports an error, as compilers, test runners and shells print them:
/// `error: …`, `error[E0308]: …` (rustc), `file:12:5: error: …` (gcc, clang, go), `file(3,7): error TS2322: …`
/// (tsc), `TypeError: …` / `ValueError: …` (a word ending in `Error` or `Exception`), `fatal: …` (git),
/// `npm ERR! …`, `thread 'main' panicked at …`, `FAIL …` (jest, go), `not ok …` (TAP), `✖ …` (node:test).
fn is_error_line(line: &str) -> bool {
    const LEADS: [&str; 9] = ["error:", "error[", "Error:", "fatal:", "npm ERR!", "FAIL ", "--- FAIL", "not ok ", "✖ "];
    const INSIDE: [&str; 4] = ["panicked at ", ": error:", ": error ", "): error TS"];
    if LEADS.iter().any(|p| line.starts_with(p)) || INSIDE.iter().any(|p| line.contains(p)) {
        return true;
    }
    // `TypeError: …`, `AssertionError [ERR_ASSERTION]: …`, `java.lang.IllegalStateException: …`: a dotted
    // name ending in `Error` or `Exception`, then `:` or ` [`.
    let word = line.split(is_separator).next().unwrap_or("");
    let name = word.rsplit('.').next().unwrap_or(word);
    let rest = line[word.len()..].trim_start();
    (name.ends_with("Error") || name.ends_with("Exception"))
        && name.len() > 5
        && name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
        && (rest.starts_with(':') || rest.starts_with('['))
}

/// Where a line splits into words for the checks here (one function for every split: one copy of the
/// splitting code in the module).
fn is_separator(c: char) -> bool {
    matches!(c, ' ' | '\t' | ':' | ',' | ';' | '|')
}

/// Whether a (trimmed) line is the location a compiler prints under an error (rustc: `--> src/x.rs:42:7`).
fn is_location_line(line: &str) -> bool {
    line.strip_prefix("--> ").is_some_and(|rest| rest.contains(':'))
}

/// Whether a (trimmed) line sums up a test run — `test result: …` (cargo), a count followed by `passed`, `failed`,
/// `passing` or `failing` (pytest, jest, vitest, mocha, cargo), `ℹ pass 12` / `# fail 2` (node:test) — and if so,
/// whether it reports failures (`FAILED`, or a count above 0 of failed or failing tests).
fn test_summary(line: &str) -> Option<bool> {
    let number = |w: &str| (!w.is_empty() && w.bytes().all(|b| b.is_ascii_digit())).then(|| w.bytes().any(|b| b != b'0'));
    let mut words = line.split(is_separator).filter(|w| !w.is_empty());
    let (first, second) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    // node:test: `ℹ pass 12`, `# fail 2`.
    if matches!((first, second), ("ℹ" | "#", "pass" | "fail" | "tests")) {
        let count = number(words.next().unwrap_or(""))?;
        return words.next().is_none().then_some(second == "fail" && count);
    }
    let mut found = line.starts_with("test result:").then_some(line.contains("FAILED"));
    let mut before = first;
    for word in std::iter::once(second).chain(words) {
        let outcome = word.strip_suffix('.').or_else(|| word.strip_suffix(')')).unwrap_or(word);
        if let (Some(nonzero), "passed" | "failed" | "passing" | "failing") = (number(before), outcome) {
            let failing = nonzero && matches!(outcome, "failed" | "failing");
            found = Some(found.unwrap_or(false) || failing);
        }
        before = word;
    }
    found
}

/// The first non-blank line of `text`, cut to [`LINE_MAX_UNITS`].
pub(crate) fn first_line(text: &str) -> Option<String> {
    text.lines().map(str::trim).find(|l| !l.is_empty()).map(|l| cut_line(l, LINE_MAX_UNITS))
}

/// `text`'s first line, at most `max` UTF-16 units; `…` when anything was cut.
fn cut_line(text: &str, max: usize) -> String {
    let first = text.lines().next().unwrap_or("");
    let (kept, rest) = cut_units(first, max);
    if rest == 0 && first.len() == text.trim_end().len() {
        kept.to_string()
    } else {
        format!("{kept}…")
    }
}

/// `text` whole, or cut at `max` UTF-16 units with a mark saying how many were left out.
fn cut_marked(text: &str, max: usize) -> String {
    let (kept, rest) = cut_units(text, max);
    if rest == 0 { kept.to_string() } else { texts::ledger_cut(kept, rest) }
}

/// `text` cut at `max` UTF-16 units (never inside a character), and how many units were left out.
fn cut_units(text: &str, max: usize) -> (&str, usize) {
    let mut units = 0;
    for (at, c) in text.char_indices() {
        if units + c.len_utf16() > max {
            return (&text[..at], utf16_len(&text[at..]));
        }
        units += c.len_utf16();
    }
    (text, 0)
}

/// Items passed over for being bigger than half the room before their kind is closed anyway (so a ledger with
/// many such items, under a tiny bound, is not searched item by item to the end).
const MAX_PASSED_OVER: usize = 16;

/// The ledger's text, how many items it lists, how many it left out, and the files it lists.
///
/// Items are taken in rounds: each round takes, kind by kind in order of importance, the next item of that kind —
/// its urgent ones first (a failed command, an error, a test summary that reports failures), newest first among
/// equals — so every kind is represented before any kind gets its second item. A kind whose next item does not fit
/// is closed (its older items are left out with it); only an item bigger than half the room is passed over instead,
/// so one long message cannot empty a small ledger. Each kind is listed in the order its items were taken.
fn render(items: &[Item], options: LedgerOptions<'_>) -> (String, u32, u32, Vec<String>) {
    if options.budget_tokens == 0 || items.is_empty() {
        return (String::new(), 0, 0, Vec::new());
    }
    let room = options.budget_tokens as usize * 4;
    let frame = utf16_len(&texts::ledger_open()) + utf16_len(&texts::ledger_close()) + 2;
    let line = |item: &Item| utf16_len(&texts::ledger_item(&item.id, &item.text)) + 1;
    let head = |section: LedgerSection| utf16_len(&texts::ledger_heading(section)) + 1;
    let total = items.len() as u32;
    // Room is kept for the line that counts what was left out (as long as it can be with every item left out).
    let mut used = frame + utf16_len(&texts::ledger_left_out(total, options.recall_name)) + 1;
    let mut taken = vec![false; items.len()];
    // Per kind (in `LedgerSection::ALL`'s order): the items taken, and whether it is still open.
    let mut kept: [Vec<usize>; LedgerSection::ALL.len()] = Default::default();
    let mut open = [true; LedgerSection::ALL.len()];
    let mut passed_over = 0;
    while open.contains(&true) {
        for (k, section) in LedgerSection::ALL.into_iter().enumerate() {
            if !open[k] {
                continue;
            }
            let next = (0..items.len()).rev().filter(|&n| !taken[n] && items[n].section == section).max_by_key(|&n| (items[n].urgent, items[n].order));
            let Some(n) = next else {
                open[k] = false;
                continue;
            };
            taken[n] = true;
            let cost = line(&items[n]) + if kept[k].is_empty() { head(section) } else { 0 };
            if used + cost > room {
                if cost * 2 > room && passed_over < MAX_PASSED_OVER {
                    passed_over += 1;
                } else {
                    open[k] = false;
                }
                continue;
            }
            used += cost;
            kept[k].push(n);
        }
    }
    let kept: Vec<usize> = kept.into_iter().flatten().collect();
    let listed = kept.len() as u32;
    if listed == 0 {
        return (String::new(), 0, total, Vec::new());
    }
    let mut text = texts::ledger_open();
    text.push('\n');
    let mut section = None;
    let mut files = Vec::new();
    for &n in &kept {
        let item = &items[n];
        if section != Some(item.section) {
            section = Some(item.section);
            text.push_str(&texts::ledger_heading(item.section));
            text.push('\n');
        }
        text.push_str(&texts::ledger_item(&item.id, &item.text));
        text.push('\n');
        if matches!(item.section, LedgerSection::Read | LedgerSection::Modified) {
            files.push(item.text.clone());
        }
    }
    if listed < total {
        text.push_str(&texts::ledger_left_out(total - listed, options.recall_name));
        text.push('\n');
    }
    text.push_str(&texts::ledger_close());
    (text, listed, total - listed, files)
}

#[cfg(test)]
pub(super) mod tests;
