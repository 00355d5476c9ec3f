//! Whether an index read from the session's file holds the entries the host holds: the same number, and
//! entry by entry the same id, parent and type. The plugin reads a resumed session's file instead of
//! taking the host's entry objects one by one, and keeps what it read only when the two agree (a line the
//! host could not parse, a file changed since the host read it, a reader limit the host does not have:
//! each shows as a disagreement, and the plugin then takes the host's objects as before).

use super::index::SessionIndex;
use super::record::Slot;

/// One of the host's entries as far as agreement goes; `None` where the host's value is no string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostEntry {
    /// `id`.
    pub id: Option<String>,
    /// `parentId`.
    pub parent: HostParent,
    /// `type`.
    pub ty: Option<String>,
}

/// A host entry's `parentId`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostParent {
    /// `null` or missing: a root.
    Root,
    /// A parent id.
    Id(String),
    /// Something else, which no entry read from a file has.
    NotAString,
}

impl SessionIndex {
    /// Where this index and the host's entries (in the host's order) differ, in words, or `None` when they agree.
    pub fn disagreement(&self, host: &[HostEntry]) -> Option<String> {
        if host.len() != self.len() {
            return Some(format!("{} entries in the file, {} in the host", self.len(), host.len()));
        }
        for (slot, h) in host.iter().enumerate() {
            let entry = self.entry(slot as Slot);
            let parent = match &h.parent {
                HostParent::Root => Some(None),
                HostParent::Id(p) => Some(Some(p.as_str())),
                HostParent::NotAString => None,
            };
            if h.id.as_deref() != Some(entry.id()) || parent != Some(entry.parent_id()) || h.ty.as_deref() != Some(entry.type_name()) {
                return Some(format!("entry {}: \"{}\" in the file, {} in the host", slot + 1, entry.id(), h.id.as_deref().map_or("no string id".into(), |id| format!("\"{id}\""))));
            }
        }
        None
    }
}
