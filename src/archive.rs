//! `archive`: what of a session file pi will never send again, decided from the facts-only index, so the
//! file pi opens shrinks while pi builds the same context, estimates, labels and leaf from it.
//!
//! The file is read twice by the caller (no I/O here). The first pass feeds its bytes to an [`Planner`]
//! (lines are the file's `'\n'`-separated pieces, numbered from 0; the piece after the last `'\n'` is a line
//! too, possibly empty), which keeps a plugin-mode index and, per entry, its line and length; [`Planner::finish`]
//! returns the [`Plan`]: one [`Action`] per line. The second pass copies each line as its action says, and
//! asks [`stub_line`] for the stub of each [`Action::Stub`] line (or keeps the line whole when there is none).
//!
//! What moves (see [`Planner::finish`]):
//! - every entry off the active path (root → the file's last entry, the leaf pi opens), whole — except what
//!   pi reads from every entry of the file wherever it sits: `label` entries whose target stays in the file
//!   (pi replays every label entry; an anchor's label is usually written on a branch a rewind abandoned) and
//!   `session_info` entries (the session's name); these stay whole, in their place;
//! - on the path, before the latest compaction's kept range (`firstKeptEntryId`; pi sends none of it), the
//!   content of message, custom message, branch summary and older compaction entries: the entry stays
//!   with every other field (id, parentId, role, provider, model, usage, …, which pi still reads for the
//!   model and thinking level on the path) and a stub content naming the archive. The first user message
//!   with text stays whole (pi's session list shows it).
//!
//! Refused (a [`Plan::problem`]): files pi would read differently line by line than as a whole (a
//! byte-order mark, whitespace other than JSON's around a line), files whose first line is no version-3
//! header (pi migrates older formats by rewriting the file when it opens it), repeated entry ids and
//! cyclic paths.

use serde::Serialize;
use serde_json::value::RawValue;
use tsify_next::Tsify;

use crate::js;
use crate::session::{Format, Kind, Mode, RoleKind, SessionIndex, Slot};

/// What the second pass does with one line of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[repr(u8)]
pub enum Action {
    /// The line stays in the session file as it is.
    Keep = 0,
    /// The line moves to the archive, whole.
    Move = 1,
    /// The line moves to the archive and a stub of it (see [`stub_line`]) takes its place.
    Stub = 2,
}

/// Counts and original bytes (line terminators included) of one kind of line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Tsify)]
pub struct Tally {
    /// Lines.
    pub entries: u32,
    /// Their bytes in the file, each line's `'\n'` included.
    pub bytes: f64,
}

impl Tally {
    fn add(&mut self, bytes: u32) {
        self.entries += 1;
        self.bytes += f64::from(bytes) + 1.0;
    }
}

/// A branch off the active path: the subtree under `forkId` (on the path; null when its root has no
/// parent in the file) that starts at `rootId`.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct Branch {
    /// The branch's first entry.
    pub root_id: String,
    /// The entry on the path it grows from (null: none in the file).
    pub fork_id: Option<String>,
    /// What of it moves.
    pub moved: Tally,
    /// Label and `session_info` entries on it that stay (pi reads them wherever they are).
    pub kept: u32,
    /// The anchors (`anchor:<name>` labels written on it), by name.
    pub anchors: Vec<String>,
}

/// The decision for a whole file: an action per line and what it amounts to.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct Plan {
    /// Why the file cannot be archived (`"<line>: <reason>"`, 1-based), or null.
    pub problem: Option<String>,
    /// Lines of the file (the piece after the last `'\n'` counted, even when empty).
    pub lines: u32,
    /// Entries in the file.
    pub entries: u32,
    /// The leaf pi opens (the last entry), null for a file without entries.
    pub leaf_id: Option<String>,
    /// Entries on the active path.
    pub path_entries: u32,
    /// Off-path entries that move whole.
    pub moved: Tally,
    /// Path entries whose content moves (their stubs stay).
    pub stubbed: Tally,
    /// Off-path label and `session_info` entries that stay whole.
    pub kept_off_path: u32,
    /// The branches off the path, in file order of their first entry.
    pub branches: Vec<Branch>,
    /// Anchors on the path before the latest compaction whose own context holds stubbed entries: a rewind
    /// to one of them would send the stubs (`restore` first).
    pub anchors_with_stubs: Vec<String>,
    /// The session's id (the header's).
    pub session_id: Option<String>,
    /// The action of each line (`Action as u8`), handed over apart from the rest.
    #[serde(skip)]
    pub actions: Vec<u8>,
    /// The id of each line that moves or is stubbed, in line order (for the archive's index).
    #[serde(skip)]
    pub archived_ids: Vec<String>,
}

/// The first pass: reads the file's bytes in pieces of any size into a facts-only index, remembering each
/// entry's line and length — the only per-entry state beyond the index (8 bytes an entry).
#[derive(Debug)]
pub struct Planner {
    index: SessionIndex,
    carry: Vec<u8>,
    /// Lines seen so far.
    lines: u32,
    /// Line of each entry, by slot.
    line_of: Vec<u32>,
    /// Length in bytes (without `'\n'`) of each entry's line, by slot.
    len_of: Vec<u32>,
    /// Whether a non-blank line was seen (the first must be the header).
    started: bool,
    problem: Option<String>,
}

impl Default for Planner {
    fn default() -> Self {
        Self::new()
    }
}

impl Planner {
    /// A planner with nothing read.
    pub fn new() -> Self {
        Planner {
            index: SessionIndex::new(Mode::Plugin),
            carry: Vec::new(),
            lines: 0,
            line_of: Vec::new(),
            len_of: Vec::new(),
            started: false,
            problem: None,
        }
    }

    /// Reads the next piece of the file.
    pub fn push(&mut self, piece: &[u8]) {
        let mut rest = piece;
        while let Some(at) = rest.iter().position(|&b| b == b'\n') {
            let (line, after) = (rest.get(..at).unwrap_or_default(), rest.get(at + 1..).unwrap_or_default());
            if self.carry.is_empty() {
                self.line(line);
            } else {
                let mut carried = std::mem::take(&mut self.carry);
                carried.extend_from_slice(line);
                self.line(&carried);
                carried.clear();
                self.carry = carried;
            }
            rest = after;
        }
        self.carry.extend_from_slice(rest);
    }

    /// One line of the file (without its `'\n'`).
    fn line(&mut self, bytes: &[u8]) {
        let number = self.lines;
        self.lines += 1;
        if self.problem.is_some() {
            return;
        }
        let text = String::from_utf8_lossy(bytes);
        if number == 0 && text.starts_with('\u{feff}') {
            self.refuse(number, "the file starts with a byte-order mark, which pi versions read differently");
            return;
        }
        // Blank as pi's `line.trim()` sees it: skipped by every pi, wherever it sits.
        if text.trim_matches(js::is_trim_space).is_empty() {
            return;
        }
        // pi ≤0.75 trims the whole file, pi ≥0.87 reads lines as they are: the same only when a line has no
        // whitespace but JSON's around it. Lines are fed one at a time below, as pi ≥0.87 reads them.
        if text.trim_matches(js::is_trim_space) != text.trim_matches(js::JSON_SPACE) {
            self.refuse(number, "whitespace other than JSON's around the line, which pi versions read differently");
            return;
        }
        let before = self.index.len();
        self.index.append_jsonl(&text);
        if !std::mem::replace(&mut self.started, true) {
            match self.index.header() {
                Some(h) if h.id.is_some() && h.format == Format::Current => {}
                Some(_) => return self.refuse(number, "not a version-3 session (open it in pi once: pi migrates it)"),
                None => return self.refuse(number, "the first line is no session header"),
            }
        }
        if self.index.len() > before {
            self.line_of.push(number);
            self.len_of.push(bytes.len() as u32);
        }
    }

    fn refuse(&mut self, line: u32, why: &str) {
        self.problem = Some(format!("{}: {why}", line + 1));
    }

    /// Reads the end of the file and decides (see the module's doc).
    pub fn finish(mut self) -> Plan {
        let carried = std::mem::take(&mut self.carry);
        self.line(&carried);
        let mut plan = Plan {
            problem: self.problem.take(),
            lines: self.lines,
            entries: self.index.len() as u32,
            leaf_id: None,
            path_entries: 0,
            moved: Tally::default(),
            stubbed: Tally::default(),
            kept_off_path: 0,
            branches: Vec::new(),
            anchors_with_stubs: Vec::new(),
            session_id: self.index.header().and_then(|h| h.id.clone()),
            actions: vec![Action::Keep as u8; self.lines as usize],
            archived_ids: Vec::new(),
        };
        if plan.problem.is_none() && self.index.header().is_none() {
            plan.problem = Some("1: empty file, not a pi session".into());
        }
        if plan.problem.is_none() && self.index.has_duplicate_ids() {
            plan.problem = Some("entry ids repeat (pi keeps only the later one); archive refused".into());
        }
        if plan.problem.is_some() {
            return plan;
        }
        if let Err(e) = self.decide(&mut plan) {
            plan.problem = Some(e);
            plan.actions.fill(Action::Keep as u8);
        }
        let mut archived: Vec<(u32, String)> = (0..self.index.len() as Slot)
            .filter(|&s| plan.actions[self.line_of[s as usize] as usize] != Action::Keep as u8)
            .map(|s| (self.line_of[s as usize], self.index.id_of(s).to_string()))
            .collect();
        archived.sort_unstable_by_key(|(line, _)| *line);
        plan.archived_ids = archived.into_iter().map(|(_, id)| id).collect();
        plan
    }

    fn decide(&mut self, plan: &mut Plan) -> Result<(), String> {
        let index = &mut self.index;
        let Some(leaf) = index.leaf() else { return Ok(()) };
        plan.leaf_id = Some(index.id_of(leaf).to_string());
        let path = index.path(Some(leaf)).map_err(|e| e.to_string())?;
        plan.path_entries = path.len() as u32;
        let n = index.len();
        let mut on_path = vec![false; n];
        for &s in &path {
            on_path[s as usize] = true;
        }

        // What pi reads from every entry of the file: session names, and labels of entries that stay.
        let mut kept = on_path.clone();
        for s in 0..n as Slot {
            if index.entry(s).kind() == Kind::SessionInfo {
                kept[s as usize] = true;
            }
        }
        for s in 0..n as Slot {
            if kept[s as usize] {
                continue;
            }
            let target = index.entry(s).label_change().map(|(t, _)| t.to_string());
            if target.and_then(|t| index.slot_of(&t)).is_some_and(|t| kept[t as usize]) {
                kept[s as usize] = true;
            }
        }

        // Off the path: whole entries, grouped by the branch they grow on.
        let mut branch_of: Vec<u32> = vec![u32::MAX; n];
        for s in 0..n as Slot {
            if on_path[s as usize] {
                continue;
            }
            let b = self.branch_index(s, &on_path, &mut branch_of, plan);
            let len = self.len_of[s as usize];
            let branch = &mut plan.branches[b as usize];
            if kept[s as usize] {
                branch.kept += 1;
                plan.kept_off_path += 1;
            } else {
                branch.moved.add(len);
                plan.moved.add(len);
                plan.actions[self.line_of[s as usize] as usize] = Action::Move as u8;
            }
            if let Some((_, Some(label))) = self.index.entry(s).label_change() {
                if let Some(name) = label.strip_prefix("anchor:") {
                    plan.branches[b as usize].anchors.push(name.to_string());
                }
            }
        }

        // On the path: contents before the latest compaction's kept range.
        let index = &self.index;
        let compaction = path.iter().rposition(|&s| index.entry(s).kind() == Kind::Compaction);
        let start = compaction.map_or(0, |c| {
            let first_kept = index.entry(path[c]).first_kept();
            path[..c].iter().position(|&s| Some(index.id_of(s)) == first_kept).unwrap_or(c)
        });
        // pi's session list shows the file's first user message with text.
        let first_user = (0..n as Slot).find(|&s| {
            let e = index.entry(s);
            e.kind() == Kind::Message(RoleKind::User) && e.hint().is_some_and(|h| !h.is_empty())
        });
        let mut stubbed = vec![false; path.len()];
        for (i, &s) in path[..start].iter().enumerate() {
            let bulky = match index.entry(s).kind() {
                Kind::Message(RoleKind::System) => false,
                Kind::Message(_) | Kind::CustomMessage | Kind::BranchSummary | Kind::Compaction => true,
                _ => false,
            };
            if bulky && Some(s) != first_user {
                stubbed[i] = true;
                plan.stubbed.add(self.len_of[s as usize]);
                plan.actions[self.line_of[s as usize] as usize] = Action::Stub as u8;
            }
        }
        // Anchors on the path whose own context (pi's rule: from their path's latest compaction's kept
        // range, or the whole path) holds a stub.
        let mut stubs_before = vec![0u32; path.len() + 1];
        for (i, &on) in stubbed.iter().enumerate() {
            stubs_before[i + 1] = stubs_before[i] + u32::from(on);
        }
        let any = |from: usize, to: usize| from < to && stubs_before[to] > stubs_before[from];
        let mut latest: Option<(usize, usize)> = None; // (compaction, start of its kept range)
        for (i, &s) in path.iter().enumerate() {
            if index.entry(s).kind() == Kind::Compaction {
                let first_kept = index.entry(s).first_kept();
                let kept = path[..i].iter().position(|&p| Some(index.id_of(p)) == first_kept).unwrap_or(i);
                latest = Some((i, kept));
            }
            let Some(name) = index.label_at(s).and_then(|l| l.strip_prefix("anchor:")) else { continue };
            let sees = match latest {
                None => any(0, i + 1),
                Some((c, kept)) => stubbed[c] || any(kept, c) || any(c + 1, i + 1),
            };
            if sees {
                plan.anchors_with_stubs.push(name.to_string());
            }
        }
        Ok(())
    }

    /// The branch (index into `plan.branches`) the off-path entry `slot` belongs to, creating it when
    /// `slot` is its root (its parent is on the path or not in the file).
    fn branch_index(&mut self, slot: Slot, on_path: &[bool], branch_of: &mut [u32], plan: &mut Plan) -> u32 {
        // Walk up to the first entry whose branch is known or whose parent is on the path / missing.
        let mut chain = Vec::new();
        let mut cur = slot;
        let found = loop {
            if branch_of[cur as usize] != u32::MAX {
                break branch_of[cur as usize];
            }
            chain.push(cur);
            match self.index.parent_of(cur) {
                Some(p) if !on_path[p as usize] && !chain.contains(&p) => cur = p,
                parent => {
                    plan.branches.push(Branch {
                        root_id: self.index.id_of(cur).to_string(),
                        fork_id: parent.filter(|&p| on_path[p as usize]).map(|p| self.index.id_of(p).to_string()),
                        moved: Tally::default(),
                        kept: 0,
                        anchors: Vec::new(),
                    });
                    break plan.branches.len() as u32 - 1;
                }
            }
        };
        for s in chain {
            branch_of[s as usize] = found;
        }
        found
    }
}

/// The text a stub's content holds: names the archive and the command that puts it back.
pub fn stub_text(archive_name: &str) -> String {
    format!("[archived in {archive_name} by pi-tree-navigator; `pi-tree-navigator restore` puts it back]")
}

/// The stub of an entry line: the same entry with its bulky content replaced by `text` (see the module's
/// doc) and every other field as it was, in its place. `None` when the line is no entry of a kind that
/// has a stub, or when it is not plain JSON this can rewrite faithfully (invalid UTF-8, a repeated key):
/// the line then stays whole.
pub fn stub_line(line: &[u8], text: &str) -> Option<String> {
    let line = std::str::from_utf8(line).ok()?;
    let entry = ordered(line.trim_matches(js::JSON_SPACE))?;
    let ty = string_field(&entry, "type")?;
    let stub = serde_json::to_string(text).ok()?;
    let fields: Vec<(String, String)> = match ty.as_str() {
        "message" => {
            let message_raw = entry.iter().find(|(k, _)| k == "message")?.1;
            let message = ordered(message_raw.get())?;
            let bash = string_field(&message, "role").as_deref() == Some("bashExecution");
            let mut out = Vec::new();
            for (k, v) in &message {
                match k.as_str() {
                    "content" => out.push((k.clone(), stub_content(v, &stub))),
                    "output" if bash => out.push((k.clone(), stub.clone())),
                    "details" => {}
                    _ => out.push((k.clone(), v.get().to_string())),
                }
            }
            let message = write_object(&out);
            entry.iter().map(|(k, v)| (k.clone(), if k == "message" { message.clone() } else { v.get().to_string() })).collect()
        }
        "custom_message" => replace(&entry, |k, v| match k {
            "content" => Some(Some(stub_content(v, &stub))),
            "details" => Some(None),
            _ => None,
        }),
        "branch_summary" | "compaction" => replace(&entry, |k, _| match k {
            "summary" => Some(Some(stub.clone())),
            "details" => Some(None),
            _ => None,
        }),
        _ => return None,
    };
    Some(write_object(&fields))
}

/// The fields of `entry` with those `change` names replaced (`Some(Some(v))`) or dropped (`Some(None)`).
fn replace(entry: &[(String, &RawValue)], change: impl Fn(&str, &RawValue) -> Option<Option<String>>) -> Vec<(String, String)> {
    entry
        .iter()
        .filter_map(|(k, v)| match change(k, v) {
            Some(new) => new.map(|n| (k.clone(), n)),
            None => Some((k.clone(), v.get().to_string())),
        })
        .collect()
}

/// A content's stub in the content's own shape: a string stays a string, an array becomes one text block;
/// anything else (null, …) stays as it is.
fn stub_content(value: &RawValue, stub: &str) -> String {
    match value.get().as_bytes().first() {
        Some(b'"') => stub.to_string(),
        Some(b'[') => format!("[{{\"type\":\"text\",\"text\":{stub}}}]"),
        _ => value.get().to_string(),
    }
}

fn string_field(object: &[(String, &RawValue)], key: &str) -> Option<String> {
    let raw = object.iter().find(|(k, _)| k == key)?.1;
    serde_json::from_str::<String>(raw.get()).ok()
}

fn write_object(fields: &[(String, String)]) -> String {
    let mut out = String::from("{");
    for (i, (k, v)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(k).unwrap_or_default());
        out.push(':');
        out.push_str(v);
    }
    out.push('}');
    out
}

/// A JSON object's fields in order, values as written; `None` for anything else or a repeated key
/// (`JSON.parse` keeps the last value at the first key's place: not rewritten here).
fn ordered(text: &str) -> Option<Vec<(String, &RawValue)>> {
    struct Fields;
    impl<'de> serde::de::Visitor<'de> for Fields {
        type Value = Vec<(String, &'de RawValue)>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out: Vec<(String, &'de RawValue)> = Vec::new();
            while let Some(key) = map.next_key::<String>()? {
                let value: &'de RawValue = map.next_value()?;
                if out.iter().any(|(k, _)| *k == key) {
                    return Err(serde::de::Error::custom("repeated key"));
                }
                out.push((key, value));
            }
            Ok(out)
        }
    }
    let mut reader = serde_json::Deserializer::from_str(text);
    reader.disable_recursion_limit();
    let fields = serde::Deserializer::deserialize_map(&mut reader, Fields).ok()?;
    reader.end().ok()?;
    Some(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stubs_keep_every_field_but_the_content_in_place() {
        let line = br#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"long"}],"provider":"p","model":"m","usage":{"input":1},"stopReason":"stop"}}"#;
        let stub = stub_line(line, "S").unwrap();
        assert_eq!(
            stub,
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"S"}],"provider":"p","model":"m","usage":{"input":1},"stopReason":"stop"}}"#
        );
        let user = br#"{"type":"message","id":"b","parentId":"a","timestamp":"t","message":{"role":"user","content":"hello"}}"#;
        assert_eq!(stub_line(user, "S").unwrap(), r#"{"type":"message","id":"b","parentId":"a","timestamp":"t","message":{"role":"user","content":"S"}}"#);
        let tool = br#"{"type":"message","id":"c","parentId":"b","timestamp":"t","message":{"role":"toolResult","toolCallId":"x","content":[],"details":{"big":1},"isError":false}}"#;
        assert_eq!(
            stub_line(tool, "S").unwrap(),
            r#"{"type":"message","id":"c","parentId":"b","timestamp":"t","message":{"role":"toolResult","toolCallId":"x","content":[{"type":"text","text":"S"}],"isError":false}}"#
        );
        let summary = br#"{"type":"branch_summary","id":"d","parentId":"c","timestamp":"t","fromId":"x","summary":"long","details":{}}"#;
        assert_eq!(stub_line(summary, "S").unwrap(), r#"{"type":"branch_summary","id":"d","parentId":"c","timestamp":"t","fromId":"x","summary":"S"}"#);
    }

    #[test]
    fn lines_it_cannot_rewrite_faithfully_have_no_stub() {
        assert_eq!(stub_line(br#"{"type":"message","id":"a","id":"b","message":{"role":"user","content":"x"}}"#, "S"), None);
        assert_eq!(stub_line(br#"{"type":"label","id":"a","targetId":"b","label":"x"}"#, "S"), None);
        assert_eq!(stub_line(b"{\"type\":\"message\",\"message\":{\"content\":\"\xff\"}}", "S"), None);
        assert_eq!(stub_line(b"not json", "S"), None);
    }

    fn plan(text: &str) -> Plan {
        let mut planner = Planner::new();
        // Pieces of 7 bytes: lines cut anywhere.
        for piece in text.as_bytes().chunks(7) {
            planner.push(piece);
        }
        planner.finish()
    }

    fn line(id: &str, parent: Option<&str>, body: &str) -> String {
        let parent = parent.map_or("null".to_string(), |p| format!("\"{p}\""));
        format!(r#"{{"id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z",{body}}}"#)
    }

    const HEADER: &str = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#;

    fn user(text: &str) -> String {
        format!(r#""type":"message","message":{{"role":"user","content":"{text}"}}"#)
    }

    #[test]
    fn off_path_entries_move_and_their_labels_of_kept_entries_stay() {
        let lines = [
            HEADER.to_string(),
            line("a", None, &user("first")),
            line("b", Some("a"), &user("abandoned")),
            line("l1", Some("b"), r#""type":"label","targetId":"a","label":"anchor:A""#),
            line("l2", Some("l1"), r#""type":"label","targetId":"b","label":"anchor:B""#),
            line("n", Some("l2"), r#""type":"session_info","name":"x""#),
            line("c", Some("a"), &user("kept")),
            String::new(),
        ];
        let p = plan(&lines.join("\n"));
        assert_eq!(p.problem, None);
        assert_eq!(p.leaf_id.as_deref(), Some("c"));
        assert_eq!(p.actions, vec![0, 0, 1, 0, 1, 0, 0, 0]);
        assert_eq!(p.moved.entries, 2);
        assert_eq!(p.kept_off_path, 2);
        assert_eq!(p.branches.len(), 1);
        assert_eq!(p.branches[0].fork_id.as_deref(), Some("a"));
        assert_eq!(p.branches[0].anchors, vec!["A".to_string(), "B".to_string()]);
    }

    #[test]
    fn path_contents_before_the_kept_range_are_stubbed() {
        let lines = [
            HEADER.to_string(),
            line("a", None, &user("first")),
            line("b", Some("a"), &user("second")),
            line("m", Some("b"), r#""type":"model_change","provider":"p","modelId":"m""#),
            line("c", Some("m"), &user("third")),
            line("k", Some("c"), r#""type":"compaction","summary":"s","firstKeptEntryId":"c","tokensBefore":5"#),
            line("d", Some("k"), &user("after")),
        ];
        let p = plan(&lines.join("\n"));
        assert_eq!(p.problem, None);
        // The first user message stays whole (pi's session list shows it), the model change is small.
        assert_eq!(p.actions, vec![0, 0, 2, 0, 0, 0, 0]);
        assert_eq!(p.stubbed.entries, 1);
    }

    #[test]
    fn files_read_differently_line_by_line_are_refused() {
        let entry = line("a", None, &user("x"));
        assert!(plan(&format!("\u{feff}{HEADER}\n{entry}\n")).problem.unwrap().starts_with("1: "));
        assert!(plan(&format!("{HEADER}\n{entry}\u{a0}\n")).problem.unwrap().starts_with("2: "));
        let v2 = HEADER.replace("\"version\":3", "\"version\":2");
        assert!(plan(&format!("{v2}\n{entry}\n")).problem.unwrap().contains("version-3"));
        assert!(plan(&format!("{entry}\n{HEADER}\n")).problem.unwrap().contains("header"));
        assert!(plan(&format!("{HEADER}\n{entry}\n{entry}\n")).problem.unwrap().contains("repeat"));
        assert_eq!(plan(&format!("{HEADER}\n\n  \r\n{entry}\r\n")).problem, None);
    }
}
