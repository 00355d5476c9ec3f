//! The tree of entries: children by parent id (built on first use: only tree views need them, and the
//! plugin never asks) and the walks pi's own tree navigation does — path to the root, common ancestor,
//! entries between two points, roots.

use super::entries::Entries;
use super::record::{flag, Slot};
use crate::error::SessionError;

/// Children naming one parent id.
#[derive(Debug)]
struct Kids {
    list: Vec<Slot>,
    /// Timestamp of the last child appended (to notice out-of-order arrivals).
    last_ts: f64,
    sorted: bool,
}

impl Default for Kids {
    fn default() -> Self {
        Kids { list: Vec::new(), last_ts: f64::NEG_INFINITY, sorted: true }
    }
}

/// Children by the parent id they name — so they belong to whichever entry holds that id now, a parent
/// that arrives later, or a duplicate that takes the id over, with nothing to move.
type ByParent = std::collections::HashMap<Box<str>, Kids>;

/// The children lists, once some view asked for them.
#[derive(Debug, Default)]
pub(super) struct Children(Option<ByParent>);

impl Children {
    /// Adds `slot`, just pushed, to its parent's children (once the lists exist). Appending keeps
    /// timestamp order in the usual case; otherwise the list is sorted later, once (equal timestamps keep
    /// arrival order, like pi's stable sort).
    pub(super) fn added(&mut self, entries: &Entries, slot: Slot) {
        if let Some(children) = &mut self.0 {
            add(children, entries, slot);
        }
    }

    /// Children of `slot`, oldest first (none for an entry whose id a later entry took over).
    pub(super) fn of(&mut self, entries: &Entries, slot: Slot) -> &[Slot] {
        if entries.record(slot).has(flag::SHADOWED) {
            return &[];
        }
        let children = self.0.get_or_insert_with(|| {
            let mut children = ByParent::new();
            for slot in 0..entries.len() as Slot {
                add(&mut children, entries, slot);
            }
            children
        });
        match children.get_mut(entries.id_of(slot)) {
            None => &[],
            Some(kids) => {
                if !kids.sorted {
                    let key = |s: &Slot| entries.record(*s).sort_ts;
                    // Children arrive in slot order, so (timestamp, slot) is the stable order by timestamp;
                    // the module carries no stable sort (twice the unstable one's code) for it.
                    kids.list.sort_unstable_by(|a, b| key(a).total_cmp(&key(b)).then(a.cmp(b)));
                    kids.sorted = true;
                    // Later appends compare with the newest child, wherever it arrived.
                    kids.last_ts = kids.list.last().map_or(f64::NEG_INFINITY, key);
                }
                &kids.list
            }
        }
    }
}

/// Adds `slot` to the children of the parent id it names (a self-parented entry is a root in the tree,
/// nobody's child).
fn add(children: &mut ByParent, entries: &Entries, slot: Slot) {
    let Some(parent_id) = entries.parent_id_at(slot).filter(|pid| *pid != entries.id_of(slot)) else { return };
    let ts = entries.record(slot).sort_ts;
    let kids = match children.get_mut(parent_id) {
        Some(kids) => kids,
        None => children.entry(parent_id.into()).or_default(),
    };
    if kids.last_ts > ts {
        kids.sorted = false;
    }
    kids.last_ts = ts;
    kids.list.push(slot);
}

/// Root entries in append order: no parent, an unknown parent, or themselves as parent.
pub(super) fn roots(entries: &mut Entries) -> Vec<Slot> {
    (0..entries.len() as Slot).filter(|&s| entries.parent_of(s).is_none()).collect()
}

/// Slots from the root to `leaf` (inclusive). Iterative, so any depth is fine; a parent cycle is an
/// error rather than a hang.
pub(super) fn path(entries: &mut Entries, leaf: Option<Slot>) -> Result<Vec<Slot>, SessionError> {
    let Some(mut cur) = leaf else { return Ok(Vec::new()) };
    let mut path = Vec::new();
    loop {
        path.push(cur);
        // A path never holds more entries than there are: a longer walk went round a loop.
        if path.len() > entries.len() {
            return Err(cycle_in(entries, &path));
        }
        let Some(p) = entries.parent_of(cur) else {
            // A self-parented entry would make pi's walk loop forever.
            if entries.get(cur).is_some_and(|r| r.parent == cur) {
                return Err(SessionError::Cycle(entries.id_of(cur).into()));
            }
            break;
        };
        cur = p;
    }
    path.reverse();
    Ok(path)
}

/// The cycle error for a walk that went round a loop: names the first entry it reached twice.
fn cycle_in(entries: &Entries, walk: &[Slot]) -> SessionError {
    let mut seen = vec![false; entries.len()];
    let repeat = walk.iter().find(|&&s| seen.get_mut(s as usize).is_some_and(|seen| std::mem::replace(seen, true)));
    SessionError::Cycle(repeat.map_or("", |&s| entries.id_of(s)).into())
}

/// The deepest entry on both paths (pi's common ancestor for tree navigation).
pub(super) fn common_ancestor(entries: &mut Entries, a: Slot, b: Slot) -> Result<Option<Slot>, SessionError> {
    let mut on_a = vec![false; entries.len()];
    for s in path(entries, Some(a))? {
        if let Some(on) = on_a.get_mut(s as usize) {
            *on = true;
        }
    }
    let path_b = path(entries, Some(b))?;
    Ok(path_b.into_iter().rev().find(|&s| on_a.get(s as usize) == Some(&true)))
}

/// The entries a move from `old_leaf` to `target` leaves behind, oldest first, and the common ancestor —
/// the same result as pi's `collectEntriesForBranchSummary`.
pub(super) fn entries_between(
    entries: &mut Entries,
    old_leaf: Option<Slot>,
    target: Slot,
) -> Result<(Vec<Slot>, Option<Slot>), SessionError> {
    let Some(old) = old_leaf else { return Ok((Vec::new(), None)) };
    let ancestor = common_ancestor(entries, old, target)?;
    let mut out = Vec::new();
    let mut cur = Some(old);
    while let Some(s) = cur {
        if Some(s) == ancestor {
            break;
        }
        out.push(s);
        cur = entries.parent_of(s);
    }
    out.reverse();
    Ok((out, ancestor))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::read::read_line;
    use crate::session::{Line, Profile};

    /// Entries from `(id, parent, timestamp)` user messages, in that order.
    fn entries(list: &[(&str, Option<&str>, u64)]) -> Entries {
        let mut entries = Entries::default();
        for (id, parent, ts) in list {
            let line = serde_json::json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts,
                "message": {"role": "user", "content": format!("text of {id}")}})
            .to_string();
            read_line(&line, false, |line| {
                if let Line::Entry(facts) = line {
                    let record = entries.record_of(&facts, Profile::default());
                    entries.push(record);
                }
            })
            .expect("an entry");
        }
        entries
    }

    #[test]
    fn children_are_in_time_order_whenever_they_arrive() {
        let mut entries = entries(&[("r", None, 0), ("late", Some("r"), 9), ("early", Some("r"), 1)]);
        let mut children = Children::default();
        assert_eq!(children.of(&entries, 0), [2, 1]);
        let line = r#"{"type":"message","id":"mid","parentId":"r","timestamp":5,"message":{"role":"user","content":"m"}}"#;
        read_line(line, false, |line| {
            if let Line::Entry(facts) = line {
                let record = entries.record_of(&facts, Profile::default());
                let (slot, _) = entries.push(record);
                children.added(&entries, slot);
            }
        })
        .expect("an entry");
        assert_eq!(children.of(&entries, 0), [2, 3, 1]);
    }

    #[test]
    fn walks_follow_parents() {
        // r ─ a ─ b
        //   └ c
        let mut entries = entries(&[("r", None, 0), ("a", Some("r"), 1), ("b", Some("a"), 2), ("c", Some("r"), 3)]);
        assert_eq!(path(&mut entries, Some(2)).unwrap(), [0, 1, 2]);
        assert_eq!(path(&mut entries, None).unwrap(), Vec::<Slot>::new());
        assert_eq!(common_ancestor(&mut entries, 2, 3).unwrap(), Some(0));
        assert_eq!(entries_between(&mut entries, Some(2), 3).unwrap(), (vec![1, 2], Some(0)));
        assert_eq!(roots(&mut entries), [0]);
    }

    #[test]
    fn a_cycle_is_an_error_naming_where_it_closes() {
        let mut entries = entries(&[("a", Some("b"), 0), ("b", Some("a"), 1)]);
        assert!(matches!(path(&mut entries, Some(1)), Err(SessionError::Cycle(id)) if id == "b"));
        let mut selfish = self::entries(&[("s", Some("s"), 0)]);
        assert!(matches!(path(&mut selfish, Some(0)), Err(SessionError::Cycle(id)) if id == "s"));
        assert_eq!(roots(&mut selfish), [0]);
    }
}
