//! Whether an index read from the session's file holds the entries the host holds: the same number, and
//! entry by entry the same id, parent and type. The plugin reads a resumed session's file instead of
//! taking the host's entry objects one by one, and keeps what it read only when the two agree (a line the
//! host could not parse, a file changed since the host read it, a reader limit the host does not have:
//! each shows as a disagreement, and the plugin then takes the host's objects as before).

use std::borrow::Cow;

use serde::Deserialize;

use super::index::SessionIndex;
use super::record::Slot;

/// One of the host's entries as the shim describes it: `[id, parentId, type]`.
#[derive(Deserialize)]
struct HostEntry<'a>(#[serde(borrow)] Cow<'a, str>, #[serde(borrow)] Option<Cow<'a, str>>, #[serde(borrow)] Cow<'a, str>);

impl SessionIndex {
    /// Where this index and the host's entries differ, in words, or `None` when they agree. `host` is a
    /// JSON array of `[id, parentId, type]` per entry, in the host's order.
    pub fn disagreement(&self, host: &str) -> Option<String> {
        let entries: Vec<HostEntry<'_>> = match serde_json::from_str(host) {
            Ok(entries) => entries,
            Err(e) => return Some(format!("the host's entries are not [id, parentId, type] strings ({e})")),
        };
        if entries.len() != self.len() {
            return Some(format!("{} entries in the file, {} in the host", self.len(), entries.len()));
        }
        for (slot, HostEntry(id, parent, ty)) in entries.iter().enumerate() {
            let entry = self.entry(slot as Slot);
            if entry.id() != id || entry.parent_id() != parent.as_deref() || entry.type_name() != ty {
                return Some(format!(
                    "entry {}: {:?} under {:?} ({}) in the file, {id:?} under {parent:?} ({ty}) in the host",
                    slot + 1,
                    entry.id(),
                    entry.parent_id(),
                    entry.type_name()
                ));
            }
        }
        None
    }
}
