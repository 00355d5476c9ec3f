//! Compact storage for the resident index: fixed-size chunks instead of doubling vectors, one string
//! arena for every id, preview and name, and an id table of slots that compares through the arena.
//!
//! Wasm linear memory never shrinks, so what counts is the high-water mark: a `Vec` that doubles leaves
//! its old block behind on every growth and up to half of the new one empty. Chunks never move what they
//! hold, so the slack is at most one partly filled chunk.

/// Where a string lives in an [`Arena`]: cheap to copy, 8 bytes on every target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Span {
    at: u32,
    len: u32,
}

impl Span {
    /// No string (an absent optional field).
    pub(super) const NONE: Span = Span { at: 0, len: u32::MAX };
    /// `len` of a span whose string sits in [`Arena::big`], at index `at`.
    const BIG: u32 = u32::MAX - 1;

    /// For ranges that are not strings (e.g. a run of tool calls): `len` items from `at`.
    pub(super) fn range(at: u32, len: u32) -> Span {
        Span { at, len }
    }

    /// The items of a span made by [`Span::range`].
    pub(super) fn items(self) -> std::ops::Range<u32> {
        self.at..self.at.saturating_add(self.len)
    }
}

/// Bytes per arena chunk.
const ARENA_CHUNK: usize = 16 << 10;
/// Longer strings get a box of their own, so a chunk never ends in a large unused tail.
const ARENA_BIG: usize = ARENA_CHUNK / 8;
/// Chunks a u32 offset can address.
const MAX_CHUNKS: usize = (u32::MAX as usize / ARENA_CHUNK) + 1;

/// Append-only storage for many short strings: one allocation per 16 KB instead of one per string.
#[derive(Debug, Default)]
pub(super) struct Arena {
    chunks: Vec<String>,
    big: Vec<Box<str>>,
}

impl Arena {
    /// Stores `s` and returns where it is.
    pub(super) fn push(&mut self, s: &str) -> Span {
        if s.len() > ARENA_BIG {
            return self.push_big(s);
        }
        if !self.chunks.last().is_some_and(|c| c.len() + s.len() <= ARENA_CHUNK) {
            // Offsets are u32: past 4 GB of chunks (native only), strings go to the big list instead.
            if self.chunks.len() >= MAX_CHUNKS {
                return self.push_big(s);
            }
            self.chunks.push(String::with_capacity(ARENA_CHUNK));
        }
        let index = self.chunks.len() - 1;
        let chunk = &mut self.chunks[index];
        let at = index * ARENA_CHUNK + chunk.len();
        chunk.push_str(s);
        Span { at: at as u32, len: s.len() as u32 }
    }

    fn push_big(&mut self, s: &str) -> Span {
        self.big.push(s.into());
        Span { at: (self.big.len() - 1) as u32, len: Span::BIG }
    }

    /// The string at `span` (`None` for [`Span::NONE`]).
    pub(super) fn get(&self, span: Span) -> Option<&str> {
        match span.len {
            u32::MAX => None,
            Span::BIG => self.big.get(span.at as usize).map(AsRef::as_ref),
            len => {
                let at = span.at as usize;
                let start = at % ARENA_CHUNK;
                // Spans come from `push`, so the range is a char boundary inside the chunk.
                self.chunks.get(at / ARENA_CHUNK).and_then(|c| c.get(start..start + len as usize))
            }
        }
    }
}

/// Items per chunk of [`Chunks`] (a power of two, so indexing is a shift and a mask).
const CHUNK_ITEMS: usize = 256;

/// An append-only array stored in chunks of [`CHUNK_ITEMS`]: growing never copies or frees a block.
#[derive(Debug)]
pub(super) struct Chunks<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Chunks<T> {
    fn default() -> Self {
        Chunks { chunks: Vec::new(), len: 0 }
    }
}

impl<T> Chunks<T> {
    /// Number of items.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Appends `item`.
    pub(super) fn push(&mut self, item: T) {
        if self.len % CHUNK_ITEMS == 0 {
            self.chunks.push(Vec::with_capacity(CHUNK_ITEMS));
        }
        // The capacity test lets the compiler drop `push`'s growth path: a chunk is allocated full size.
        if let Some(last) = self.chunks.last_mut().filter(|c| c.len() < c.capacity()) {
            last.push(item);
            self.len += 1;
        }
    }

    /// The item at `i`, if there is one.
    pub(super) fn get(&self, i: usize) -> Option<&T> {
        self.chunks.get(i / CHUNK_ITEMS)?.get(i % CHUNK_ITEMS)
    }

    /// The item at `i` to change, if there is one.
    pub(super) fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        self.chunks.get_mut(i / CHUNK_ITEMS)?.get_mut(i % CHUNK_ITEMS)
    }
}

impl<T> std::ops::Index<usize> for Chunks<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        &self.chunks[i / CHUNK_ITEMS][i % CHUNK_ITEMS]
    }
}

impl<T> std::ops::IndexMut<usize> for Chunks<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.chunks[i / CHUNK_ITEMS][i % CHUNK_ITEMS]
    }
}

/// A set of slots keyed by their id string, which the caller supplies (from the arena): open addressing
/// over 8-byte buckets (the slot and 32 bits of its id's hash) instead of a map holding a boxed copy of
/// every id.
///
/// The hash is FxHash-style multiply–rotate: ids are written by pi or the user's own files, so there is
/// no adversary to defend against with `SipHash`, and ingest hashes every id. Its top 32 bits are kept in
/// the bucket as a tag, and the tag's top bits pick the bucket: a probe fetches a stored id (from records
/// spread over memory) only when the tags agree, so a new id — every ingested entry's — costs a few
/// integer compares instead of a string compare per occupied bucket on its way, and growing the table
/// moves every slot by its tag alone, without fetching or hashing its id again (which took ~4% of a
/// `list` of a whole file).
#[derive(Debug, Default)]
pub(super) struct IdTable {
    buckets: Vec<Bucket>,
    len: usize,
}

/// One bucket of an [`IdTable`]: a slot ([`EMPTY`] for none) and the low bits of its id's hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Bucket {
    slot: u32,
    tag: u32,
}

const EMPTY: u32 = u32::MAX;

/// The bucket tag of `id`: the top 32 bits of its hash (a multiply's best bits).
fn tag_of(id: &str) -> u32 {
    (hash(id) >> 32) as u32
}

fn hash(s: &str) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = s.len() as u64;
    for word in s.as_bytes().chunks(8) {
        let mut buf = [0u8; 8];
        buf[..word.len()].copy_from_slice(word);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(buf)).wrapping_mul(K);
    }
    h
}

/// What an [`IdTable`] keys its slots by: the string of each stored slot. A trait object rather than a
/// closure per call site, so the table's code and its one dispatch are shared by every user.
pub(super) trait Keys {
    /// The key of `slot` (any string for a slot that does not exist).
    fn key(&self, slot: u32) -> &str;
}

impl IdTable {
    /// The slot stored under `id`.
    pub(super) fn find(&self, id: &str, keys: &dyn Keys) -> Option<u32> {
        let slot = self.buckets.get(self.bucket(id, keys)?)?.slot;
        (slot != EMPTY).then_some(slot)
    }

    /// Stores `slot` under `id`, returning the slot that held `id` before (which it replaces).
    pub(super) fn insert(&mut self, id: &str, slot: u32, keys: &dyn Keys) -> Option<u32> {
        // At most 7/8 full: probe runs stay short without a bucket of slack per entry.
        if (self.len + 1) * 8 > self.buckets.len() * 7 {
            let size = (self.buckets.len() * 2).max(16);
            let old = std::mem::replace(&mut self.buckets, vec![Bucket { slot: EMPTY, tag: 0 }; size]);
            // Ids in the table are distinct, so each one's probe ends at an empty bucket: no id compared.
            for b in old.into_iter().filter(|b| b.slot != EMPTY) {
                let at = self.probe(b.tag, |_| false);
                if let Some(bucket) = at.and_then(|at| self.buckets.get_mut(at)) {
                    *bucket = b;
                }
            }
        }
        let tag = tag_of(id);
        let at = self.probe(tag, |s| keys.key(s) == id)?;
        let old = self.buckets.get_mut(at).map(|b| std::mem::replace(b, Bucket { slot, tag }).slot);
        let old = old.filter(|&old| old != EMPTY);
        self.len += usize::from(old.is_none());
        old
    }

    /// The bucket holding `id`, or the empty one where it would go (`None` while there are no buckets).
    fn bucket(&self, id: &str, keys: &dyn Keys) -> Option<usize> {
        self.probe(tag_of(id), |s| keys.key(s) == id)
    }

    /// The first bucket on `tag`'s probe path that is empty or holds a slot with this tag that `same`
    /// accepts (`None` while there are no buckets). The one probe loop of the table: triangular steps
    /// from the tag's top bits, which reach every bucket of a power-of-two table that always keeps an
    /// empty one.
    #[inline(never)]
    fn probe(&self, tag: u32, same: impl Fn(u32) -> bool) -> Option<usize> {
        let mask = self.buckets.len().checked_sub(1)?;
        // The tag's top bits (a table of more than 2^32 buckets, which a u32 slot cannot fill, would
        // spread over its first 2^32).
        let bits = self.buckets.len().trailing_zeros().min(32);
        let home = tag.checked_shr(32 - bits).unwrap_or(0);
        let (mut i, mut step) = (home as usize & mask, 1);
        loop {
            match self.buckets.get(i).copied() {
                Some(Bucket { slot: EMPTY, .. }) | None => return Some(i),
                Some(b) if b.tag == tag && same(b.slot) => return Some(i),
                Some(_) => (i, step) = ((i + step) & mask, step + 1),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arena_keeps_strings_of_every_size() {
        let mut arena = Arena::default();
        let long = "é".repeat(ARENA_BIG);
        let spans: Vec<(Span, String)> = (0..5000)
            .map(|i| {
                let s = if i % 1000 == 7 { long.clone() } else { format!("id-{i}-{}", "x".repeat(i % 50)) };
                (arena.push(&s), s)
            })
            .collect();
        let empty = arena.push("");
        for (span, s) in &spans {
            assert_eq!(arena.get(*span), Some(s.as_str()));
        }
        assert_eq!(arena.get(empty), Some(""));
        assert_eq!(arena.get(Span::NONE), None);
        assert!(arena.chunks.iter().all(|c| c.capacity() == ARENA_CHUNK), "chunks never reallocate");
    }

    #[test]
    fn chunks_index_across_chunk_borders() {
        let mut c = Chunks::default();
        for i in 0..3 * CHUNK_ITEMS + 5 {
            c.push(i);
        }
        assert_eq!(c.len(), 3 * CHUNK_ITEMS + 5);
        assert_eq!((c[0], c[CHUNK_ITEMS], c[3 * CHUNK_ITEMS + 4]), (0, CHUNK_ITEMS, 3 * CHUNK_ITEMS + 4));
        assert_eq!(c.get(3 * CHUNK_ITEMS + 5), None);
        c[7] = 70;
        assert_eq!(c.get(7), Some(&70));
    }

    #[test]
    fn id_table_finds_replaces_and_grows() {
        struct Modulo<'a>(&'a [String]);
        impl Keys for Modulo<'_> {
            fn key(&self, s: u32) -> &str {
                &self.0[s as usize % self.0.len()]
            }
        }
        let ids: Vec<String> = (0..10_000).map(|i| format!("{:08x}", i * 2_654_435_761u64 % (1 << 32))).collect();
        let id_of = &Modulo(&ids);
        let mut table = IdTable::default();
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(table.insert(id, i as u32, id_of), None);
        }
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(table.find(id, id_of), Some(i as u32));
        }
        assert_eq!(table.find("nope", id_of), None);
        // A repeated id (slot 10_003 reads as ids[3]) replaces the earlier slot.
        assert_eq!(table.insert(&ids[3], 10_003, id_of), Some(3));
        assert_eq!(table.find(&ids[3], id_of), Some(10_003));
        assert_eq!(table.len, ids.len());
        assert!(table.buckets.len() * 7 >= table.len * 8);
    }
}
