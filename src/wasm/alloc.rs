//! The plugin wasm's global allocator: a small one in place of std's dlmalloc, which alone is ≈7 KB of the
//! plugin module (the plugin build has no `full` feature; the viewer/CLI build keeps dlmalloc).
//!
//! Two kinds of free memory, both threaded through the free memory itself:
//! - small blocks (≤ 128 units, 1 KiB on wasm32) come in 14 size classes, each with a LIFO list of freed
//!   blocks. No headers: `dealloc` and `realloc` are given the layout, which names the class again.
//! - every other free byte is a *range* in one address-ordered list; a freed range merges with its
//!   neighbours, and one that reaches the untouched end of the heap (`top`) goes back to it. New blocks
//!   come first-fit from the ranges, then from `top`, which grows linear memory page by page.
//!
//! A block at `top` grows in place, and so does one followed by a free range; that keeps a growing `Vec`
//! or input buffer from leaving a trail of holes. The range list stays short because neighbours merge.
//!
//! The core [`Heap`] is generic over where memory comes from ([`Grow`]), so native tests run it on an
//! arena (`tests/alloc*.rs`); on wasm it sits on `memory.grow`.

use core::alloc::Layout;
use core::ptr;

/// Bytes in one wasm page: the step in which a [`Grow`] hands out memory.
pub(crate) const PAGE: usize = 65_536;
/// The alignment of every block (enough for every type of this crate on wasm32; more goes through
/// [`Heap::alloc`]'s over-aligned path).
const ALIGN: usize = 8;
/// Bytes in a machine word: the size of a list link.
const WORD: usize = size_of::<usize>();
/// The granule of block sizes: a free range's node (size, next) must fit in any free remainder.
/// 8 bytes on wasm32, 16 natively.
const UNIT: usize = if 2 * WORD > ALIGN { 2 * WORD } else { ALIGN };
/// Small-class block sizes in units: two classes per doubling keeps the rounding waste ≤ 33%.
const CLASS_UNITS: [u8; 14] = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128];
/// Blocks above four times this size are rounded up to a multiple of it (≤ 25% waste, less the larger they
/// are): a freed input buffer then fits the next, slightly longer one (input arrives in chunks of about the
/// same size, cut at line ends). Smaller blocks are left alone: rounding them costs more than it saves.
const BIG: usize = 65_536;
/// The number of small classes.
const CLASSES: usize = CLASS_UNITS.len();

/// Where a [`Heap`] gets memory from.
///
/// # Safety
///
/// `grow(pages)` must return `None` or the address of `pages * PAGE` bytes that are valid, `ALIGN`-aligned,
/// not null and used by nothing but this heap from then on.
pub(crate) unsafe trait Grow {
    /// Adds `pages` pages of memory; returns the address of the first new byte, or `None` when out of memory.
    fn grow(&mut self, pages: usize) -> Option<usize>;
}

/// A single-threaded heap (see the module docs). Addresses are plain `usize`s; 0 ends a list.
#[derive(Debug)]
pub(crate) struct Heap<G> {
    /// The memory source.
    grow: G,
    /// The first byte never handed out (everything from here to `end` is free).
    top: usize,
    /// The end of the memory this heap owns.
    end: usize,
    /// The first free range (lowest address); each range holds `[size, next]` in its first two words.
    ranges: usize,
    /// Per small class, the first freed block; each holds the next one's address in its first word.
    classes: [usize; CLASSES],
}

/// The small class of a block of `size` bytes, or `None` for a large block.
fn class_of(size: usize) -> Option<usize> {
    let units = size.div_ceil(UNIT);
    if units <= 2 {
        return Some(units.saturating_sub(1));
    }
    if units > CLASS_UNITS[CLASSES - 1] as usize {
        return None;
    }
    // 2^k ≥ units > 2^(k-1), k ≥ 2: the class is 3·2^(k-2) units when that is enough, else 2^k.
    let k = (usize::BITS - (units - 1).leading_zeros()) as usize;
    Some(if units <= 3 << (k - 2) { 2 * k - 2 } else { 2 * k - 1 })
}

/// The bytes a block of `size` requested bytes really spans: its class's size, or `size` in whole units.
fn span(size: usize) -> usize {
    match class_of(size) {
        Some(c) => CLASS_UNITS[c] as usize * UNIT,
        // Layout sizes are ≤ isize::MAX, so neither rounding overflows.
        None if size > 4 * BIG => (size + BIG - 1) & !(BIG - 1),
        None => (size + UNIT - 1) & !(UNIT - 1),
    }
}

/// The word at `at`.
///
/// # Safety
/// `at` is a word-aligned address of heap memory that holds a list node or link.
unsafe fn get(at: usize) -> usize {
    // SAFETY: the caller's contract.
    unsafe { (at as *const usize).read() }
}

/// Stores `value` in the word at `at`.
///
/// # Safety
/// `at` is a word-aligned address of heap memory that no live block uses.
unsafe fn set(at: usize, value: usize) {
    // SAFETY: the caller's contract.
    unsafe { (at as *mut usize).write(value) }
}

impl<G: Grow> Heap<G> {
    /// An empty heap; it asks `grow` for memory on first use.
    pub(crate) const fn new(grow: G) -> Self {
        Heap { grow, top: 0, end: 0, ranges: 0, classes: [0; CLASSES] }
    }

    /// The memory source (tests read how far it grew).
    #[cfg(test)]
    pub(crate) fn source(&self) -> &G {
        &self.grow
    }

    /// A block for `layout`, or null when memory is exhausted.
    ///
    /// # Safety
    /// Every block handed back so far went through [`Self::dealloc`]/[`Self::realloc`] with its own layout
    /// (the lists live inside freed blocks).
    pub(crate) unsafe fn alloc(&mut self, layout: Layout) -> *mut u8 {
        if layout.align() > ALIGN {
            // SAFETY: the caller's contract.
            return unsafe { self.alloc_over_aligned(layout) };
        }
        match class_of(layout.size()) {
            Some(c) if self.classes[c] != 0 => {
                let block = self.classes[c];
                // SAFETY: a freed block of this class; its first word links the next one.
                self.classes[c] = unsafe { get(block) };
                block as *mut u8
            }
            // SAFETY: the caller's contract.
            _ => unsafe { self.take(span(layout.size())) },
        }
    }

    /// `alloc` for an alignment above `ALIGN`: a block `align` bytes longer, the aligned address inside it,
    /// and the block's own address in the word before that (at least `ALIGN` bytes are skipped).
    ///
    /// # Safety
    /// As for [`Self::alloc`].
    unsafe fn alloc_over_aligned(&mut self, layout: Layout) -> *mut u8 {
        let Some(bytes) = layout.size().checked_add(layout.align()) else { return ptr::null_mut() };
        // SAFETY: the caller's contract.
        let block = unsafe { self.take(span(bytes)) } as usize;
        if block == 0 {
            return ptr::null_mut();
        }
        let at = (block + layout.align()) & !(layout.align() - 1);
        // SAFETY: block + ALIGN ≤ at - WORD and at + size ≤ block + bytes: inside the block, word-aligned.
        unsafe { set(at - WORD, block) };
        at as *mut u8
    }

    /// Frees a block.
    ///
    /// # Safety
    /// `block` came from this heap's `alloc`/`realloc` with this `layout` and is not used any more.
    pub(crate) unsafe fn dealloc(&mut self, block: *mut u8, layout: Layout) {
        let at = block as usize;
        if layout.align() > ALIGN {
            // The same size `alloc_over_aligned` took (it could not overflow then).
            let bytes = span(layout.size() + layout.align());
            // SAFETY: alloc_over_aligned stored the block's start in the word before `at`.
            let start = unsafe { get(at - WORD) };
            // SAFETY: the whole block is free now.
            unsafe { self.release(start, bytes) };
            return;
        }
        match class_of(layout.size()) {
            Some(c) => {
                // SAFETY: the block is free and at least one unit long.
                unsafe { set(at, self.classes[c]) };
                self.classes[c] = at;
            }
            // SAFETY: the block is free.
            None => unsafe { self.release(at, span(layout.size())) },
        }
    }

    /// Resizes a block, in place when it can: shrinking a large block, or growing into `top` or a free range
    /// right after it. Returns null (and leaves the block as it was) when memory is exhausted.
    ///
    /// # Safety
    /// As for [`Self::dealloc`]; `new_size` rounded up to `layout.align()` does not overflow `isize`.
    pub(crate) unsafe fn realloc(&mut self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= ALIGN {
            let (at, old, new) = (block as usize, span(layout.size()), span(new_size));
            if new == old {
                return block;
            }
            // A large block shrinks in place (the cut-off tail is a whole number of units, freed as a range);
            // a small one moves to its class, so that no small remainder litters the range list.
            if new < old && class_of(new_size).is_none() {
                // SAFETY: the tail is part of this block and no longer used.
                unsafe { self.release(at + new, old - new) };
                return block;
            }
            // SAFETY: `at + old` is the end of this block: heap memory, and the range list's nodes are valid.
            if new > old && unsafe { self.extend(at + old, new - old) } {
                return block;
            }
        }
        // SAFETY: the caller guarantees a valid layout for the new size.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: the caller's contract.
        let moved = unsafe { self.alloc(new_layout) };
        if !moved.is_null() {
            // SAFETY: both blocks are at least this long and distinct (the old one is still in use).
            unsafe { ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size)) };
            // SAFETY: the caller's contract; the contents have moved.
            unsafe { self.dealloc(block, layout) };
        }
        moved
    }

    /// Makes the `bytes` after a block that ends at `end` part of it, if they are free: at `top`, or the head
    /// of a free range that starts there.
    ///
    /// # Safety
    /// The range list is intact.
    unsafe fn extend(&mut self, end: usize, bytes: usize) -> bool {
        if end == self.top {
            // `reserve` may have to restart `top` elsewhere (memory grown by someone else): check again.
            return self.reserve(bytes) && end == self.top && {
                self.top += bytes;
                true
            };
        }
        let mut link = ptr::addr_of_mut!(self.ranges);
        // SAFETY (loop): `link` is the list head or the next-word of a listed range.
        while unsafe { *link } != 0 && unsafe { *link } < end {
            link = (unsafe { *link } + WORD) as *mut usize;
        }
        // SAFETY: as in the loop.
        let range = unsafe { *link };
        if range != end {
            return false;
        }
        // SAFETY: `range` is a listed free range: its node is valid.
        let (size, next) = unsafe { (get(range), get(range + WORD)) };
        if size < bytes {
            return false;
        }
        // SAFETY: `link` is valid (above); the rest of the range (if any) is free memory, a whole number of
        // units, so its node fits.
        unsafe {
            if size == bytes {
                *link = next;
            } else {
                set(range + bytes, size - bytes);
                set(range + bytes + WORD, next);
                *link = range + bytes;
            }
        }
        true
    }

    /// `bytes` (a whole number of units) of free memory: the first range that fits and is not much larger,
    /// else from `top`.
    ///
    /// # Safety
    /// The range list is intact.
    unsafe fn take(&mut self, bytes: usize) -> *mut u8 {
        let mut link = ptr::addr_of_mut!(self.ranges);
        // SAFETY (loop): `link` is the list head or the next-word of a listed range, whose node is valid.
        unsafe {
            while *link != 0 {
                let range = *link;
                let size = get(range);
                if size == bytes {
                    *link = get(range + WORD);
                    return range as *mut u8;
                }
                // A range much larger than the request is left whole for a large block (an input buffer
                // freed after one call fits the next one only if small blocks have not nibbled at it).
                if size > bytes && size <= BIG.max(bytes.saturating_mul(8)) {
                    // Hand out the tail: the node stays where it is, only shorter.
                    set(range, size - bytes);
                    return (range + size - bytes) as *mut u8;
                }
                link = (range + WORD) as *mut usize;
            }
        }
        if !self.reserve(bytes) {
            return ptr::null_mut();
        }
        let at = self.top;
        self.top += bytes;
        at as *mut u8
    }

    /// Makes sure `bytes` are owned past `top`, growing memory when needed. `false`: out of memory.
    fn reserve(&mut self, bytes: usize) -> bool {
        loop {
            let room = self.end - self.top;
            if room >= bytes {
                return true;
            }
            let pages = (bytes - room).div_ceil(PAGE);
            let Some(start) = self.grow.grow(pages) else { return false };
            let Some(end) = pages.checked_mul(PAGE).and_then(|n| n.checked_add(start)) else { return false };
            if start != self.end {
                // Not contiguous (the first call, or memory grown by someone else): the old room cannot be
                // extended, so it becomes a free range and `top` starts over in the new memory.
                let (old_top, old_end) = (self.top, self.end);
                self.top = start;
                if old_end > old_top {
                    // SAFETY: owned, unused memory, a whole number of units (top moves by units from a
                    // page boundary); not adjacent to the new `top`, so `release` lists it.
                    unsafe { self.release(old_top, old_end - old_top) };
                }
            }
            self.end = end;
        }
    }

    /// Returns `bytes` (a whole number of units) at `at` to the free ranges, merged with free neighbours,
    /// or to `top` when it ends there.
    ///
    /// # Safety
    /// The memory is owned by this heap and unused; the range list is intact.
    unsafe fn release(&mut self, mut at: usize, mut bytes: usize) {
        let mut link = ptr::addr_of_mut!(self.ranges);
        let mut before = link;
        let mut prev = 0;
        // SAFETY (whole body): `link`/`before` are the list head or next-words of listed ranges; listed
        // ranges' nodes are valid; [at, at + bytes) is ours to write.
        unsafe {
            while *link != 0 && *link < at {
                before = link;
                prev = *link;
                link = (prev + WORD) as *mut usize;
            }
            let mut next = *link;
            if at + bytes == next {
                bytes += get(next);
                next = get(next + WORD);
            }
            if prev != 0 && prev + get(prev) == at {
                at = prev;
                bytes += get(prev);
                link = before;
            }
            // `link` is the word that must point at the merged range; `next` is what follows it.
            if at + bytes == self.top {
                // Nothing is listed past `top`, so `next` is 0 here.
                self.top = at;
                *link = next;
                return;
            }
            set(at, bytes);
            set(at + WORD, next);
            *link = at;
        }
    }
}

#[cfg(all(target_arch = "wasm32", not(feature = "full")))]
mod global {
    //! The registration: [`Heap`] on this instance's linear memory, as the global allocator.
    use core::alloc::{GlobalAlloc, Layout};
    use core::cell::UnsafeCell;

    use super::{Grow, Heap, PAGE};

    #[cfg(target_feature = "atomics")]
    compile_error!("the plugin's allocator assumes a single thread: build without the atomics feature");

    /// Linear memory 0, grown with `memory.grow`.
    #[derive(Debug)]
    struct Memory;

    // SAFETY: `memory.grow` adds fresh zeroed pages at the old end of memory (page-aligned, never at 0 as
    // memory already holds the stack and statics), and nothing else in this module hands them out.
    unsafe impl Grow for Memory {
        fn grow(&mut self, pages: usize) -> Option<usize> {
            let old = core::arch::wasm32::memory_grow(0, pages);
            // old < 65536 pages when it succeeds, so the product fits.
            (old != usize::MAX).then(|| old * PAGE)
        }
    }

    /// The heap behind the global allocator.
    struct Global(UnsafeCell<Heap<Memory>>);

    // SAFETY: wasm32 without atomics runs one thread, so the heap is never reached from two at once.
    unsafe impl Sync for Global {}

    // SAFETY (each method): one thread, and the heap calls nothing that allocates, so the `&mut` is the
    // only reference while it lives; GlobalAlloc's own contract gives the heap's.
    unsafe impl GlobalAlloc for Global {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            unsafe { (*self.0.get()).alloc(layout) }
        }
        unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
            unsafe { (*self.0.get()).dealloc(block, layout) }
        }
        unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            unsafe { (*self.0.get()).realloc(block, layout, new_size) }
        }
    }

    #[global_allocator]
    static GLOBAL: Global = Global(UnsafeCell::new(Heap::new(Memory)));
}
