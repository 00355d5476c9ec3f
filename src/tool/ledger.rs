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
use tsify_next::Tsify;

use crate::js::utf16_len;
use crate::session::{ceil_quarter, Profile};

use super::collapsed::{entry_id, held_entries, Edits};
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
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
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
}

/// The ledger of `entries` (the span, oldest first, each as pi holds it as JSON text; a missing or
/// unreadable one is passed over).
pub fn ledger(entries: &[Option<String>], options: LedgerOptions<'_>) -> Ledger {
    let held = held_entries(entries);
    let (read_files, modified_files) = file_lists(&held, options.profile);
    let paths = |files: &[Item]| files.iter().map(|f| f.text.clone()).collect();
    let (read_paths, modified_paths) = (paths(&read_files), paths(&modified_files));
    let mut items = facts(&held, options.profile);
    items.extend(read_files);
    items.extend(modified_files);
    let (text, listed, left_out, listed_files) = render(items, options);
    Ledger { tokens: ceil_quarter(utf16_len(&text)), text, items: listed, left_out, read_files: read_paths, modified_files: modified_paths, listed_files }
}

/// Orders items: every sort here goes through this one function type, so the module carries one sort.
type ItemOrder = fn(&Item, &Item) -> std::cmp::Ordering;

/// By path as JavaScript's default sort orders strings (UTF-16 code units): pi's file lists.
fn by_path(a: &Item, b: &Item) -> std::cmp::Ordering {
    a.text.encode_utf16().cmp(b.text.encode_utf16())
}

/// Most important kind first, newest first within a kind: the order items are kept and listed in.
fn by_rank(a: &Item, b: &Item) -> std::cmp::Ordering {
    (a.section as u8).cmp(&(b.section as u8)).then(b.order.cmp(&a.order))
}

fn sort_items(items: &mut [Item], order: ItemOrder) {
    items.sort_by(order);
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
fn file_lists(held: &[Value], profile: Profile) -> (Vec<Item>, Vec<Item>) {
    let edits = profile.summary_files_honour_context_edits().then(|| Edits::of(held));
    let results = results_by_call(held);
    let mut read = Files::new(LedgerSection::Read);
    let mut modified = Files::new(LedgerSection::Modified);
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
                let Some(message) = shown_message(entry, edits.as_ref()) else { continue };
                if message.get("role").and_then(Value::as_str) != Some("assistant") {
                    continue;
                }
                for call in tool_calls(&message) {
                    let Some(path) = call.arguments.and_then(|a| a.get("path")).and_then(Value::as_str).filter(|p| !p.is_empty()) else {
                        continue;
                    };
                    match call.name {
                        "read" => match results.get(call.id).map(|&at| (at, &held[at])) {
                            Some((at, result)) => read.note(path, entry_id(result).unwrap_or(id), at),
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
    let read_only = read.sorted(|p| !modified.has(p));
    let modified = modified.sorted(|_| true);
    (read_only, modified)
}

/// A file list being gathered: each path once (an item's `text`), with its newest operation.
#[derive(Debug)]
struct Files {
    section: LedgerSection,
    ops: Vec<Item>,
    at: HashMap<String, usize>,
}

impl Files {
    fn new(section: LedgerSection) -> Self {
        Files { section, ops: Vec::new(), at: HashMap::new() }
    }

    fn note(&mut self, path: &str, id: &str, order: usize) {
        let op = Item { section: self.section, order, id: id.to_string(), text: path.to_string() };
        match self.at.get(path) {
            Some(&n) if self.ops[n].order > order => {}
            Some(&n) => self.ops[n] = op,
            None => {
                self.at.insert(path.to_string(), self.ops.len());
                self.ops.push(op);
            }
        }
    }

    fn has(&self, path: &str) -> bool {
        self.at.contains_key(path)
    }

    /// The files `keep` keeps, sorted as pi sorts them.
    fn sorted(self, keep: impl Fn(&str) -> bool) -> Vec<Item> {
        let mut files: Vec<Item> = self.ops.into_iter().filter(|f| keep(&f.text)).collect();
        sort_items(&mut files, by_path);
        files
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

/// An entry's message as the model saw it: under `edits` (when given) the latest edit of the entry
/// replaces its content (`None`: a `null` replacement took it out).
fn shown_message<'a>(entry: &'a Value, edits: Option<&Edits<'_>>) -> Option<std::borrow::Cow<'a, Value>> {
    let message = entry.get("message")?;
    match edits.and_then(|e| e.of_entry(entry)) {
        None => Some(std::borrow::Cow::Borrowed(message)),
        Some(replacement) => replacement.apply(message).map(std::borrow::Cow::Owned),
    }
}

/// A tool call block of an assistant message.
struct Call<'a> {
    id: &'a str,
    name: &'a str,
    arguments: Option<&'a Value>,
}

/// The tool calls of `message` (pi: blocks of `type: "toolCall"` that have a `name` and `arguments`).
fn tool_calls(message: &Value) -> impl Iterator<Item = Call<'_>> {
    message.get("content").and_then(Value::as_array).into_iter().flatten().filter_map(|block| {
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
        let message = entry.get("message");
        if message.and_then(|m| m.get("role")).and_then(Value::as_str) != Some("toolResult") {
            continue;
        }
        if let Some(call) = message.and_then(|m| m.get("toolCallId")).and_then(Value::as_str) {
            out.insert(call, order);
        }
    }
    out
}

/// The items other than files: user messages, commands, errors and test results.
fn facts(held: &[Value], profile: Profile) -> Vec<Item> {
    let edits = profile.applies_context_edits().then(|| Edits::of(held));
    let results = results_by_call(held);
    let mut items = Vec::new();
    for (order, entry) in held.iter().enumerate() {
        let Some(id) = entry_id(entry) else { continue };
        if entry.get("type").and_then(Value::as_str) != Some("message") {
            continue;
        }
        let Some(message) = shown_message(entry, edits.as_ref()) else { continue };
        let item = |section, text| Item { section, order, id: id.to_string(), text };
        match message.get("role").and_then(Value::as_str) {
            Some("user") => {
                let text = message_text(&message);
                if !text.trim().is_empty() {
                    items.push(item(LedgerSection::User, cut_marked(&text, USER_MAX_UNITS)));
                }
            }
            Some("assistant") => {
                for call in tool_calls(&message).filter(|c| c.name == "bash") {
                    let Some(command) = call.arguments.and_then(|a| a.get("command")).and_then(Value::as_str) else { continue };
                    // The command's result holds what it printed; the item names it when there is one.
                    let result = results.get(call.id).map(|&at| (at, &held[at]));
                    let status = result.map_or(CommandStatus::NoResult, |(_, r)| bash_status(r, edits.as_ref()));
                    let (rid, rorder) = result.map_or((id, order), |(at, r)| (entry_id(r).unwrap_or(id), at));
                    let text = texts::ledger_command(&cut_line(command, COMMAND_MAX_UNITS), &status.text());
                    items.push(Item { section: LedgerSection::Commands, order: rorder, id: rid.to_string(), text });
                }
            }
            Some("toolResult") => {
                let tool = message.get("toolName").and_then(Value::as_str).unwrap_or("");
                if tool == TOOL_NAME {
                    continue; // about the tree, not the work
                }
                let failed = message.get("isError").and_then(Value::as_bool) == Some(true);
                if !failed && CONTENT_TOOLS.contains(&tool) {
                    continue;
                }
                let text = message_text(&message);
                let found = problem_lines(&text);
                let fallback = (failed && found.is_empty() && tool != "bash").then(|| first_line(&text)).flatten();
                for line in found.into_iter().chain(fallback.map(|l| texts::ledger_failed(tool, &l))) {
                    items.push(item(LedgerSection::Problems, line));
                }
            }
            Some("bashExecution") => {
                // The user's own `!command`; `!!command` (excluded from the context) was never the model's.
                if message.get("excludeFromContext").and_then(Value::as_bool) == Some(true) {
                    continue;
                }
                let Some(command) = message.get("command").and_then(Value::as_str) else { continue };
                let status = if message.get("cancelled").and_then(Value::as_bool) == Some(true) {
                    CommandStatus::Cancelled
                } else {
                    message.get("exitCode").and_then(Value::as_f64).map_or(CommandStatus::Unknown, CommandStatus::Exit)
                };
                items.push(item(LedgerSection::Commands, texts::ledger_command(&cut_line(command, COMMAND_MAX_UNITS), &status.text())));
                let output = message.get("output").and_then(Value::as_str).unwrap_or("");
                for line in problem_lines(output) {
                    items.push(item(LedgerSection::Problems, line));
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

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq)]
enum CommandStatus {
    Exit(f64),
    TimedOut,
    Aborted,
    Cancelled,
    Failed,
    Unknown,
    NoResult,
}

impl CommandStatus {
    fn text(self) -> String {
        match self {
            CommandStatus::Exit(code) => texts::ledger_exit(&crate::js::number_to_string(code)),
            CommandStatus::TimedOut => "timed out".into(),
            CommandStatus::Aborted => "aborted".into(),
            CommandStatus::Cancelled => "cancelled".into(),
            CommandStatus::Failed => "failed".into(),
            CommandStatus::Unknown => "exit ?".into(),
            CommandStatus::NoResult => "no result".into(),
        }
    }
}

/// A `bash` result's status, from the line pi's bash tool ends a failed result with (`Command exited with
/// code N`, `Command timed out after …`, `Command aborted`); a result that did not fail exited with 0.
fn bash_status(result: &Value, edits: Option<&Edits<'_>>) -> CommandStatus {
    let Some(message) = shown_message(result, edits) else { return CommandStatus::Unknown };
    if message.get("isError").and_then(Value::as_bool) != Some(true) {
        return CommandStatus::Exit(0.0);
    }
    let text = message_text(&message);
    let last = text.lines().rev().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    // An integer (str::parse::<f64> would bring core's float parser and its tables into the module).
    if let Some(code) = last.strip_prefix("Command exited with code ").and_then(|c| c.trim().parse::<i64>().ok()) {
        CommandStatus::Exit(code as f64)
    } else if last.starts_with("Command timed out") {
        CommandStatus::TimedOut
    } else if last.starts_with("Command aborted") {
        CommandStatus::Aborted
    } else {
        CommandStatus::Failed
    }
}

/// A message's text: a string content as is, else its text blocks (a tool call or an image is no text).
fn message_text(message: &Value) -> String {
    match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The error lines (each with the location line a compiler prints under it) and the test-summary lines of a
/// tool's output: at most [`ERRORS_PER_OUTPUT`] errors (the first) and [`TESTS_PER_OUTPUT`] summaries (the
/// last), errors first.
fn problem_lines(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut errors = Vec::new();
    let mut tests = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let line = line.trim();
        if is_error_line(line) {
            if errors.len() < ERRORS_PER_OUTPUT {
                let location = lines.iter().skip(at + 1).take(LOCATION_LOOKAHEAD).map(|l| l.trim()).find(|l| is_location_line(l));
                let shown = match location {
                    Some(loc) => format!("{} {loc}", cut_line(line, LINE_MAX_UNITS)),
                    None => cut_line(line, LINE_MAX_UNITS),
                };
                if !errors.contains(&shown) {
                    errors.push(shown);
                }
            }
        } else if is_test_summary(line) {
            let shown = cut_line(line, LINE_MAX_UNITS);
            tests.retain(|t| t != &shown);
            tests.push(shown);
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
    let lower = line.get(..line.len().min(16)).unwrap_or(line).to_ascii_lowercase();
    if lower.starts_with("error:") || lower.starts_with("error[") || lower.starts_with("fatal:") || lower.starts_with("fatal error") {
        return true;
    }
    if line.starts_with("npm ERR!") || line.starts_with("FAIL ") || line.starts_with("--- FAIL") || line.starts_with("not ok ") || line.starts_with("✖ ") {
        return true;
    }
    if line.contains("panicked at ") || line.contains(": error:") || line.contains(": error ") || line.contains("): error TS") || line.contains(": fatal error:") {
        return true;
    }
    // `TypeError: …`, `AssertionError [ERR_ASSERTION]: …`, `java.lang.IllegalStateException: …`.
    let word: &str = line.split([':', ' ']).next().unwrap_or("");
    let last = word.rsplit('.').next().unwrap_or(word);
    (last.ends_with("Error") || last.ends_with("Exception"))
        && last.len() > 5
        && last.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && line[word.len()..].trim_start().starts_with([':', '['])
}

/// Whether a (trimmed) line is the location a compiler prints under an error (rustc: `--> src/x.rs:42:7`).
fn is_location_line(line: &str) -> bool {
    line.strip_prefix("--> ").is_some_and(|rest| rest.contains(':'))
}

/// Whether a (trimmed) line sums up a test run: `test result: …` (cargo), a count followed by `passed`,
/// `failed`, `passing` or `failing` (pytest, jest, vitest, mocha, cargo), `ℹ pass 12` / `# fail 2` (node:test).
fn is_test_summary(line: &str) -> bool {
    if line.starts_with("test result:") {
        return true;
    }
    for lead in ["ℹ ", "# "] {
        if let Some(rest) = line.strip_prefix(lead) {
            let mut words = rest.split_whitespace();
            if matches!(words.next(), Some("pass" | "fail" | "tests")) && words.next().is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit())) && words.next().is_none() {
                return true;
            }
        }
    }
    let words: Vec<&str> = line.split(|c: char| c.is_whitespace() || c == ',' || c == ';' || c == '|').filter(|w| !w.is_empty()).collect();
    words.windows(2).any(|w| {
        !w[0].is_empty() && w[0].bytes().all(|b| b.is_ascii_digit()) && matches!(w[1].trim_end_matches(['.', ')']), "passed" | "failed" | "passing" | "failing")
    })
}

/// The first non-blank line of `text`, cut to [`LINE_MAX_UNITS`].
fn first_line(text: &str) -> Option<String> {
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

/// The ledger's text, how many items it lists, how many it left out, and the files it lists.
fn render(items: Vec<Item>, options: LedgerOptions<'_>) -> (String, u32, u32, Vec<String>) {
    if options.budget_tokens == 0 || items.is_empty() {
        return (String::new(), 0, 0, Vec::new());
    }
    let mut items = items;
    sort_items(&mut items, by_rank);
    let room = options.budget_tokens as usize * 4;
    let frame = utf16_len(&texts::ledger_open()) + utf16_len(&texts::ledger_close()) + 2;
    let line = |item: &Item| utf16_len(&texts::ledger_item(&item.id, &item.text)) + 1;
    let head = |section: LedgerSection| utf16_len(&texts::ledger_heading(section)) + 1;
    let mut opened = [false; LedgerSection::ALL.len()];
    let mut whole = frame;
    for item in &items {
        whole += line(item) + if std::mem::replace(&mut opened[item.section as usize], true) { 0 } else { head(item.section) };
    }
    let reserve = if whole <= room { 0 } else { utf16_len(&texts::ledger_left_out(items.len() as u32, options.recall_name)) + 1 };
    let mut used = frame + reserve;
    let mut kept = vec![false; items.len()];
    let mut opened = [false; LedgerSection::ALL.len()];
    for (n, item) in items.iter().enumerate() {
        let cost = line(item) + if opened[item.section as usize] { 0 } else { head(item.section) };
        if used + cost > room {
            // Everything after is less important or older: the cut falls here. Only an item bigger than
            // half the room is passed over instead, so one long message cannot empty a small ledger.
            if cost * 2 > room {
                continue;
            }
            break;
        }
        used += cost;
        kept[n] = true;
        opened[item.section as usize] = true;
    }
    let listed = kept.iter().filter(|&&k| k).count() as u32;
    let left_out = items.len() as u32 - listed;
    if listed == 0 {
        return (String::new(), 0, left_out, Vec::new());
    }
    let mut text = texts::ledger_open();
    text.push('\n');
    let mut section = None;
    let mut files = Vec::new();
    for (item, _) in items.into_iter().zip(kept).filter(|(_, k)| *k) {
        if section != Some(item.section) {
            section = Some(item.section);
            text.push_str(&texts::ledger_heading(item.section));
            text.push('\n');
        }
        text.push_str(&texts::ledger_item(&item.id, &item.text));
        text.push('\n');
        if matches!(item.section, LedgerSection::Read | LedgerSection::Modified) {
            files.push(item.text);
        }
    }
    if left_out > 0 {
        text.push_str(&texts::ledger_left_out(left_out, options.recall_name));
        text.push('\n');
    }
    text.push_str(&texts::ledger_close());
    (text, listed, left_out, files)
}

#[cfg(test)]
pub(super) mod tests;
