//! The resident entries: each entry's facts as a fixed-size [`Record`], the strings they point at in one
//! arena, the id table, and the labels the entries set. What a read line becomes ([`Entries::record_of`],
//! [`Entries::push`]) and how an entry is found again (by slot, by id, by its parent).

use super::entry::{Facts, Kind, Line, RoleKind, StopReason};
use super::labels::Labels;
use super::profile::Profile;
use super::read::{ceil_quarter, read_line};
use super::record::{flag, stop_bits, Call, Record, Slot, NO_PARENT, PENDING};
use super::spend::{SpendRecord, Spends};
use super::store::{Arena, Chunks, IdTable, Keys, Span};

/// The id of the record at `slot` (empty past the end): how the id table sees the records.
fn id_in<'a>(records: &'a Chunks<Record>, arena: &'a Arena, slot: Slot) -> &'a str {
    records.get(slot as usize).and_then(|r| arena.get(r.id)).unwrap_or_default()
}

/// The records' ids, as the id table sees them.
struct RecordIds<'a>(&'a Chunks<Record>, &'a Arena);

impl Keys for RecordIds<'_> {
    fn key(&self, slot: Slot) -> &str {
        id_in(self.0, self.1, slot)
    }
}

/// Every entry held, by slot (append order), with its strings, its id and the labels set on ids.
#[derive(Debug, Default)]
pub(super) struct Entries {
    /// Each entry's facts, by slot. A record's `parent` is trusted unless the parent slot was shadowed
    /// by a later entry with the same id (pi's id map keeps the later one).
    records: Chunks<Record>,
    /// Every id, preview, label, name and tool call string the records point at.
    arena: Arena,
    /// Tool calls of all assistant messages, in order (a record holds its run).
    calls: Chunks<Call>,
    /// Entry JSON text per slot (full mode only). Only the `serde-json` parts (whole contexts, the LLM
    /// view, search) read it, so builds without them (the plugin's) carry no code for it.
    raw: Chunks<Box<str>>,
    /// Slot by id (the later one when an id repeats).
    ids: IdTable,
    /// Parent ids that no entry held when their child arrived, by child slot (rare: a parent may arrive
    /// later, or never). Dropped once resolved: the parent's id is then the same string.
    pending: Vec<(Slot, Span)>,
    /// Whether some id was seen twice (rare; makes a few lookups go by id instead of by slot).
    duplicate_ids: bool,
    /// Current label per target id (latest change wins).
    labels: Labels,
    /// The usage entries record (with whose model), and the compactions' `tokensBefore`.
    spends: Spends,
}

impl Entries {
    /// Number of entries.
    pub(super) fn len(&self) -> usize {
        self.records.len()
    }

    /// The record at `slot`.
    pub(super) fn record(&self, slot: Slot) -> &Record {
        &self.records[slot as usize]
    }

    /// The record at `slot` (`None` past the end).
    pub(super) fn get(&self, slot: Slot) -> Option<&Record> {
        self.records.get(slot as usize)
    }

    /// Marks the entry at `slot` as only skimmed so far (see [`super::skim`]).
    pub(super) fn mark_skimmed(&mut self, slot: Slot) {
        if let Some(record) = self.records.get_mut(slot as usize) {
            record.flags |= flag::SKIMMED;
        }
    }

    /// Every recorded usage, in file order.
    pub(super) fn spends(&self) -> &[SpendRecord] {
        self.spends.items()
    }

    /// The usage the entry at `slot` records.
    pub(super) fn spend_at(&self, slot: Slot) -> Option<&SpendRecord> {
        self.spends.at(slot)
    }

    /// A spend's key (see [`SpendRecord::breakdown_key`]).
    pub(super) fn spend_key(&self, id: u32) -> &str {
        self.spends.key(id)
    }

    /// The `tokensBefore` of the compaction at `slot`.
    pub(super) fn tokens_before(&self, slot: Slot) -> Option<f64> {
        self.spends.tokens_before(slot)
    }

    /// The string at `span` in the arena.
    pub(super) fn text(&self, span: Span) -> Option<&str> {
        self.arena.get(span)
    }

    /// Tool call `i` (of an assistant record's run).
    pub(super) fn call(&self, i: u32) -> Call {
        self.calls[i as usize]
    }

    /// The entry's JSON text (full mode), as fed.
    pub(super) fn raw(&self, slot: Slot) -> Option<&str> {
        self.raw.get(slot as usize).map(AsRef::as_ref)
    }

    /// Keeps the JSON text of the entry just pushed (full mode).
    pub(super) fn keep_raw(&mut self, text: &str) {
        self.raw.push(text.into());
    }

    /// The slot holding entry `id` (the later one when an id repeats).
    pub(super) fn slot_of(&self, id: &str) -> Option<Slot> {
        let (records, arena) = (&self.records, &self.arena);
        self.ids.find(id, &RecordIds(records, arena))
    }

    /// The id of the entry at `slot`.
    pub(super) fn id_of(&self, slot: Slot) -> &str {
        id_in(&self.records, &self.arena, slot)
    }

    /// Whether some entry id occurs twice.
    pub(super) fn has_duplicate_ids(&self) -> bool {
        self.duplicate_ids
    }

    /// The label currently on entry `id`.
    pub(super) fn label_of(&self, id: &str) -> Option<&str> {
        self.labels.get(id, &self.arena).and_then(|label| self.text(label))
    }

    /// The parent id the entry at `slot` names.
    pub(super) fn parent_id_at(&self, slot: Slot) -> Option<&str> {
        match self.records[slot as usize].parent {
            NO_PARENT => None,
            PENDING => self.pending_parent(slot).and_then(|at| self.text(self.pending[at].1)),
            // A resolved parent holds exactly the id that was named.
            p => Some(self.id_of(p)),
        }
    }

    /// Where `slot`'s not yet resolved parent id is in `pending`.
    fn pending_parent(&self, slot: Slot) -> Option<usize> {
        self.pending.binary_search_by_key(&slot, |&(s, _)| s).ok()
    }

    /// The parent slot, when the parent is known: the entry that holds the parent id now (a parent may
    /// arrive after its children, and a repeated id moves to the later entry, as in pi's id map).
    pub(super) fn parent_of(&mut self, slot: Slot) -> Option<Slot> {
        // Checked access throughout (slots are in range): walks run here, and panic paths cost size.
        let parent = self.records.get(slot as usize)?.parent;
        let shadowed = |entries: &Self, s: Slot| entries.records.get(s as usize).is_some_and(|r| r.has(flag::SHADOWED));
        // The common case, on every step of every walk: a resolved parent whose id nobody took over.
        if parent < PENDING && !(self.duplicate_ids && shadowed(self, parent)) {
            return (parent != slot).then_some(parent);
        }
        let holder = match parent {
            NO_PARENT => return None,
            PENDING => {
                let at = self.pending_parent(slot)?;
                let p = self.slot_of(self.text(self.pending.get(at)?.1)?)?;
                // `retain` rather than `remove(at)`, whose index assertion formats a message; the list is
                // short (parents that had not arrived yet).
                self.pending.retain(|&(s, _)| s != slot);
                p
            }
            p if !shadowed(self, p) => p,
            // The id moved to a later entry: follow it there (same id, so the same parent id).
            p => self.slot_of(self.id_of(p))?,
        };
        if let Some(record) = self.records.get_mut(slot as usize) {
            record.parent = holder;
        }
        (holder != slot).then_some(holder)
    }

    /// Where `id` is in the arena: the held entry's bytes when some entry has this id, else a new copy.
    fn intern_id(&mut self, id: &str) -> Span {
        match self.slot_of(id) {
            Some(s) => self.records[s as usize].id,
            None => self.arena.push(id),
        }
    }

    /// An assistant's tool calls into `calls`: their run.
    fn push_calls(&mut self, facts: &Facts<'_>) -> Span {
        let calls_at = self.calls.len() as u32;
        for (id, name) in &facts.tool_calls {
            let call = Call { id: self.arena.push(id), name: self.arena.push(name) };
            self.calls.push(call);
        }
        Span::range(calls_at, self.calls.len() as u32 - calls_at)
    }

    /// The record of an entry's facts (counted under `profile`), its strings put into the arena (tool
    /// calls into `calls`, a label change into the labels).
    pub(super) fn record_of(&mut self, facts: &Facts<'_>, profile: Profile) -> Record {
        let slot = self.records.len() as Slot;
        let mut record = Record::blank();
        record.kind = facts.kind;
        record.tokens = profile.tokens(facts);
        record.sort_ts = facts.timestamp_ms.unwrap_or(f64::INFINITY);
        if let Some(usage) = facts.usage {
            record.usage = usage;
            record.flags |= flag::HAS_USAGE;
        }
        record.id = self.arena.push(&facts.id);
        // The same as resolving once the id is in the table: only a self-parented entry finds itself (a
        // root, and a cycle for path walks) rather than an earlier holder of its id.
        record.parent = match facts.parent_id.as_deref() {
            None => NO_PARENT,
            Some(pid) if pid == facts.id => slot,
            Some(pid) => self.slot_of(pid).unwrap_or_else(|| {
                let span = self.arena.push(pid);
                // Slots only grow, so the list stays sorted for the lookups in `parent_of`.
                self.pending.push((slot, span));
                PENDING
            }),
        };
        if let Some(hint) = &facts.hint {
            record.hint = self.arena.push(hint);
        }
        if let Some(spend) = &facts.spend {
            self.spends.add(slot, facts.source.as_ref().map(|(p, m)| (&**p, &**m)), spend);
        }
        if let Some(tokens) = facts.tokens_before {
            self.spends.add_tokens_before(slot, tokens);
        }
        match facts.kind {
            Kind::Message(RoleKind::Assistant) => {
                record.extra = self.push_calls(facts);
                if facts.zero_io {
                    record.flags |= flag::ZERO_IO;
                }
                record.flags |= stop_bits(StopReason::of(facts.stop_reason.as_deref()));
            }
            Kind::Message(RoleKind::Other) | Kind::Unknown => record.extra = self.arena.push(&facts.name),
            Kind::Message(RoleKind::System) => {
                if let Some(patch) = &facts.system_patch {
                    record.extra = self.arena.push(patch);
                }
            }
            Kind::BranchSummary if facts.emits => record.flags |= flag::EMITS,
            Kind::Compaction => {
                if let Some(first) = &facts.first_kept {
                    record.extra = self.intern_id(first);
                }
                if facts.emits && profile.reemits_system_at_compaction() {
                    record.usage = ceil_quarter(facts.system_chars);
                    record.flags |= flag::EMITS;
                    // A compaction has no preview: its hint span holds its system message's patch.
                    if let Some(patch) = &facts.system_patch {
                        record.hint = self.arena.push(patch);
                    }
                }
            }
            Kind::ContextEdit => {
                if let Some(target) = &facts.edit_target {
                    record.extra = self.intern_id(target);
                }
                if let Some([as_content, as_assistant]) = facts.replacement_tokens {
                    record.tokens = as_content;
                    record.usage = as_assistant;
                    record.flags |= flag::EMITS;
                }
            }
            Kind::Label => {
                let (target, label) = facts.label.as_ref().map_or(("", None), |(t, l)| (&**t, l.as_deref()));
                let target_span = self.intern_id(target);
                // A label entry has no preview: its hint span holds the label (which the label map shares).
                let label_span = label.map_or(Span::NONE, |l| self.arena.push(l));
                self.labels.set(target_span, label_span, &self.arena);
                if label.is_some() {
                    if let Some(labeled) = self.slot_of(target).and_then(|t| self.records.get_mut(t as usize)) {
                        labeled.flags |= flag::MAYBE_LABELED;
                    }
                }
                record.extra = target_span;
                record.hint = label_span;
            }
            _ => {}
        }
        record
    }

    /// Stores `record` in the next slot; returns the slot and the slot whose id it took over, if any.
    pub(super) fn push(&mut self, mut record: Record) -> (Slot, Option<Slot>) {
        let slot = self.records.len() as Slot;
        let (records, arena) = (&mut self.records, &self.arena);
        let id = arena.get(record.id).unwrap_or_default();
        // A label written before its target arrived (pi keeps those) applies once it does.
        if !self.labels.is_empty() && self.labels.get(id, arena).is_some() {
            record.flags |= flag::MAYBE_LABELED;
        }
        records.push(record);
        let records = &*records;
        let repeated = self.ids.insert(id, slot, &RecordIds(records, arena));
        if let Some(old) = repeated {
            self.records[old as usize].flags |= flag::SHADOWED;
            self.duplicate_ids = true;
        }
        (slot, repeated)
    }

    /// What a full read adds to a skimmed entry's record: its tokens, preview and tool calls.
    fn fill(&mut self, slot: Slot, facts: &Facts<'_>, profile: Profile) {
        let tokens = profile.tokens(facts);
        let hint = facts.hint.as_ref().map_or(Span::NONE, |h| self.arena.push(h));
        let calls = (facts.kind == Kind::Message(RoleKind::Assistant)).then(|| self.push_calls(facts));
        let record = &mut self.records[slot as usize];
        record.tokens = tokens;
        record.hint = hint;
        if let Some(calls) = calls {
            record.extra = calls;
        }
    }

    /// Reads a skimmed entry's line (`source`) in full: its tokens (under `profile`, the one it was taken
    /// under), preview and tool calls join its record, as if it had been read in full at first.
    pub(super) fn measure(&mut self, slot: Slot, source: &str, legacy_v2: bool, profile: Profile) {
        // The direct pass took this line, so the full reader (the same pass with more fields, or its
        // fallback) takes it too; were it ever not to, the entry counts 0 rather than NaN.
        let read = read_line(source, legacy_v2, |line| match line {
            Line::Entry(facts) => self.fill(slot, &facts, profile),
            Line::Header(_) => {}
        });
        let record = &mut self.records[slot as usize];
        if read.is_err() || record.tokens.is_nan() {
            record.tokens = 0.0;
        }
        record.flags &= !flag::SKIMMED;
    }


}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads each line and pushes its entry.
    fn entries(lines: &[&str]) -> Entries {
        let mut entries = Entries::default();
        for line in lines {
            read_line(line, false, |line| {
                if let Line::Entry(facts) = line {
                    let record = entries.record_of(&facts, Profile::default());
                    entries.push(record);
                }
            })
            .expect("an entry");
        }
        entries
    }

    fn user(id: &str, parent: Option<&str>) -> String {
        serde_json::json!({"type": "message", "id": id, "parentId": parent, "timestamp": 0,
            "message": {"role": "user", "content": "hello"}})
        .to_string()
    }

    #[test]
    fn a_parent_that_arrives_later_is_found() {
        let (child, parent) = (user("b", Some("a")), user("a", None));
        let mut entries = entries(&[&child, &parent]);
        assert_eq!(entries.parent_id_at(0), Some("a"));
        assert_eq!(entries.parent_of(0), Some(1));
        assert_eq!(entries.parent_of(1), None);
    }

    #[test]
    fn a_repeated_id_moves_to_the_later_entry() {
        let (a, b, a2) = (user("a", None), user("b", Some("a")), user("a", None));
        let mut entries = entries(&[&a, &b, &a2]);
        assert!(entries.has_duplicate_ids());
        assert_eq!(entries.slot_of("a"), Some(2));
        assert!(entries.record(0).has(flag::SHADOWED));
        assert_eq!(entries.parent_of(1), Some(2));
        assert_eq!(entries.id_of(0), "a");
    }

    #[test]
    fn a_label_written_before_its_target_applies_when_it_arrives() {
        let label = r#"{"type":"label","id":"l","parentId":null,"timestamp":0,"targetId":"t","label":"anchor:x"}"#;
        let target = user("t", Some("l"));
        let entries = entries(&[label, &target]);
        assert_eq!(entries.label_of("t"), Some("anchor:x"));
        assert!(entries.record(1).has(flag::MAYBE_LABELED));
        assert!(!entries.record(0).has(flag::MAYBE_LABELED));
    }

    #[test]
    fn a_self_parented_entry_is_no_child_of_itself() {
        let selfish = user("s", Some("s"));
        let mut entries = entries(&[&selfish]);
        assert_eq!(entries.record(0).parent, 0);
        assert_eq!(entries.parent_of(0), None);
    }
}
