//! Labels: the current label on each entry id, as the `label` entries set them (pi's `labelsById`).

use super::store::{Arena, IdTable, Keys, Span};

/// The current label per target id (the latest label entry for a target wins; a `null` label removes
/// it), both strings held in the entries' [`Arena`], where the label entries put them anyway: an
/// [`IdTable`] of indexes into a list of members. A
/// removed member keeps its key with no value, so indexes never move; labels are few next to entries, and
/// a key that comes back reuses its member.
#[derive(Debug, Default)]
pub(super) struct Labels {
    /// Key and value ([`Span::NONE`] once removed).
    members: Vec<(Span, Span)>,
    table: IdTable,
    live: usize,
}

/// The members with the arena their keys are in, keyed by member index.
struct MemberKeys<'a>(&'a [(Span, Span)], &'a Arena);

impl Keys for MemberKeys<'_> {
    fn key(&self, m: u32) -> &str {
        self.0.get(m as usize).and_then(|&(k, _)| self.1.get(k)).unwrap_or_default()
    }
}

impl Labels {
    /// Whether no key has a value.
    pub(super) fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Where the value under `key` is in `arena`.
    pub(super) fn get(&self, key: &str, arena: &Arena) -> Option<Span> {
        let m = self.table.find(key, &MemberKeys(&self.members, arena))?;
        self.members.get(m as usize).map(|&(_, v)| v).filter(|&v| v != Span::NONE)
    }

    /// Sets the value under the key at `key` to the string at `value` (both in `arena`), or removes it
    /// when `value` is [`Span::NONE`].
    pub(super) fn set(&mut self, key: Span, value: Span, arena: &Arena) {
        let live = usize::from(value != Span::NONE);
        let key_text = arena.get(key).unwrap_or_default();
        let found = self.table.find(key_text, &MemberKeys(&self.members, arena));
        if let Some(member) = found.and_then(|m| self.members.get_mut(m as usize)) {
            self.live = self.live + live - usize::from(member.1 != Span::NONE);
            member.1 = value;
        } else if live == 1 {
            let index = self.members.len() as u32;
            self.members.push((key, value));
            self.live += 1;
            self.table.insert(key_text, index, &MemberKeys(&self.members, arena));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_set_replaced_and_removed() {
        let mut arena = Arena::default();
        let mut map = Labels::default();
        let set = |map: &mut Labels, arena: &mut Arena, k: &str, v: Option<&str>| {
            let (k, v) = (arena.push(k), v.map_or(Span::NONE, |v| arena.push(v)));
            map.set(k, v, arena);
        };
        let get = |map: &Labels, arena: &Arena, k: &str| map.get(k, arena).and_then(|v| arena.get(v)).map(String::from);
        assert!(map.is_empty() && get(&map, &arena, "a").is_none());
        for i in 0..1000 {
            set(&mut map, &mut arena, &format!("k{i}"), Some(&format!("v{i}")));
        }
        set(&mut map, &mut arena, "k7", Some("again"));
        set(&mut map, &mut arena, "k8", None);
        set(&mut map, &mut arena, "never", None);
        assert_eq!(get(&map, &arena, "k7").as_deref(), Some("again"));
        assert_eq!(get(&map, &arena, "k8"), None);
        assert_eq!(get(&map, &arena, "k999").as_deref(), Some("v999"));
        assert_eq!(get(&map, &arena, "never"), None);
        for i in 0..1000 {
            set(&mut map, &mut arena, &format!("k{i}"), None);
        }
        assert!(map.is_empty());
        set(&mut map, &mut arena, "k8", Some("back"));
        assert_eq!((get(&map, &arena, "k8").as_deref(), map.is_empty()), (Some("back"), false));
    }
}
