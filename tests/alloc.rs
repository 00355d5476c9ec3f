//! The plugin wasm's allocator (`src/wasm/alloc.rs`), run natively on an arena: random alloc/realloc/free
//! sequences with content, alignment and overlap checks, and reuse checks (freed memory is found again, so
//! repeated create/free cycles do not grow the heap).

#[allow(dead_code, unreachable_pub)]
#[path = "../src/wasm/alloc.rs"]
mod alloc;
mod common;

use alloc::{Grow, Heap, PAGE};
use common::Rng;
use std::alloc::Layout;

#[derive(Debug)]
/// Pages of one `Box<[u64]>` handed out in order, like `memory.grow` on a memory with a fixed maximum.
struct Arena {
    base: usize,
    pages: usize,
    used: usize,
    _memory: Box<[u64]>,
}

impl Arena {
    fn new(pages: usize) -> Self {
        let memory = vec![0u64; pages * PAGE / 8].into_boxed_slice();
        Arena { base: memory.as_ptr() as usize, pages, used: 0, _memory: memory }
    }
}

// SAFETY: each page of the box is handed out once; the box lives as long as the heap (it is inside it)
// and is never touched through `_memory`.
unsafe impl Grow for Arena {
    fn grow(&mut self, pages: usize) -> Option<usize> {
        if self.used + pages > self.pages {
            return None;
        }
        self.used += pages;
        Some(self.base + (self.used - pages) * PAGE)
    }
}


/// A live block: where, its layout, and the byte it is filled with.
struct Live {
    at: *mut u8,
    layout: Layout,
    fill: u8,
}

fn check(block: &Live) {
    // SAFETY: a live block of this heap, `layout.size()` bytes long.
    let bytes = unsafe { std::slice::from_raw_parts(block.at, block.layout.size()) };
    assert!(bytes.iter().all(|&b| b == block.fill), "block at {:p} lost its contents", block.at);
}

fn fill(block: &Live) {
    // SAFETY: a live block of this heap, `layout.size()` bytes long.
    unsafe { std::ptr::write_bytes(block.at, block.fill, block.layout.size()) };
}

/// A size drawn like the plugin's: mostly small, some up to a few KiB, a few large (input buffers, vectors).
fn size(rng: &mut Rng) -> usize {
    match rng.below(10) {
        0..=5 => 1 + rng.below(64) as usize,
        6..=8 => 1 + rng.below(4096) as usize,
        _ => 1 + rng.below(300_000) as usize,
    }
}

fn align(rng: &mut Rng) -> usize {
    [1, 2, 4, 8, 8, 8, 16, 64, 4096][rng.below(9) as usize]
}

/// Checks that no two live blocks overlap.
fn disjoint(live: &[Live]) {
    let mut spans: Vec<(usize, usize)> = live.iter().map(|b| (b.at as usize, b.at as usize + b.layout.size())).collect();
    spans.sort_unstable();
    for w in spans.windows(2) {
        assert!(w[0].1 <= w[1].0, "blocks overlap: {:x?} and {:x?}", w[0], w[1]);
    }
}

/// One random run: `steps` operations on a heap of `pages` pages; returns the pages it grew to.
fn run(seed: u64, steps: usize, pages: usize) -> usize {
    let mut heap = Heap::new(Arena::new(pages));
    let mut rng = Rng(seed);
    let mut live: Vec<Live> = Vec::new();
    for step in 0..steps {
        let op = rng.below(10);
        if op < 4 || live.is_empty() {
            let layout = Layout::from_size_align(size(&mut rng), align(&mut rng)).unwrap();
            // SAFETY: every block goes back with its own layout.
            let at = unsafe { heap.alloc(layout) };
            assert!(!at.is_null(), "out of memory at step {step}");
            assert_eq!(at as usize % layout.align(), 0, "misaligned block for {layout:?}");
            let block = Live { at, layout, fill: rng.next() as u8 };
            fill(&block);
            live.push(block);
        } else if op < 7 {
            let mut block = live.swap_remove(rng.below(live.len() as u64) as usize);
            check(&block);
            let new_size = if rng.below(2) == 0 { size(&mut rng) } else { block.layout.size() + rng.below(256) as usize };
            // SAFETY: a live block with its own layout; the size is small.
            let at = unsafe { heap.realloc(block.at, block.layout, new_size) };
            assert!(!at.is_null(), "out of memory at step {step}");
            assert_eq!(at as usize % block.layout.align(), 0, "realloc lost the alignment");
            let kept = block.layout.size().min(new_size);
            // SAFETY: the block is at least `kept` bytes long.
            let bytes = unsafe { std::slice::from_raw_parts(at, kept) };
            assert!(bytes.iter().all(|&b| b == block.fill), "realloc lost the contents");
            block.at = at;
            block.layout = Layout::from_size_align(new_size, block.layout.align()).unwrap();
            block.fill = rng.next() as u8;
            fill(&block);
            live.push(block);
        } else {
            let block = live.swap_remove(rng.below(live.len() as u64) as usize);
            check(&block);
            // SAFETY: a live block with its own layout, not used again.
            unsafe { heap.dealloc(block.at, block.layout) };
        }
        if step % 512 == 0 {
            disjoint(&live);
        }
    }
    disjoint(&live);
    for block in live.drain(..) {
        check(&block);
        // SAFETY: as above.
        unsafe { heap.dealloc(block.at, block.layout) };
    }
    heap_pages(&heap)
}

fn heap_pages(heap: &Heap<Arena>) -> usize {
    heap.source().used
}

#[test]
fn random_sequences_keep_contents_alignment_and_disjointness() {
    for seed in 1..=24u64 {
        run(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15), 4000, 4096);
    }
}

#[test]
fn every_small_size_and_alignment() {
    let mut heap = Heap::new(Arena::new(64));
    for align in [1, 2, 4, 8, 16, 32, 128] {
        let mut blocks = Vec::new();
        for size in 1..=1100 {
            let layout = Layout::from_size_align(size, align).unwrap();
            // SAFETY: freed below with the same layout.
            let at = unsafe { heap.alloc(layout) };
            assert!(!at.is_null() && at as usize % align == 0, "size {size} align {align}");
            // SAFETY: `size` bytes.
            unsafe { std::ptr::write_bytes(at, size as u8, size) };
            blocks.push((at, layout));
        }
        for &(at, layout) in &blocks {
            // SAFETY: as written above.
            let bytes = unsafe { std::slice::from_raw_parts(at, layout.size()) };
            assert!(bytes.iter().all(|&b| b == layout.size() as u8));
        }
        for (at, layout) in blocks {
            // SAFETY: allocated above with this layout.
            unsafe { heap.dealloc(at, layout) };
        }
    }
}

#[test]
fn repeated_cycles_reuse_memory() {
    // The same random workload, all freed at its end, run again and again on one heap: after the first
    // rounds the heap must stop growing (the pi extension creates and drops indexes in one instance).
    let mut heap = Heap::new(Arena::new(4096));
    let mut marks = Vec::new();
    for round in 0..12 {
        let mut rng = Rng(42 + round % 3);
        let mut live = Vec::new();
        for _ in 0..3000 {
            if rng.below(3) < 2 || live.is_empty() {
                let layout = Layout::from_size_align(size(&mut rng), 8).unwrap();
                // SAFETY: freed below with this layout.
                live.push((unsafe { heap.alloc(layout) }, layout));
            } else {
                let (at, layout) = live.swap_remove(rng.below(live.len() as u64) as usize);
                // SAFETY: allocated above with this layout.
                unsafe { heap.dealloc(at, layout) };
            }
        }
        for (at, layout) in live {
            // SAFETY: as above.
            unsafe { heap.dealloc(at, layout) };
        }
        marks.push(heap_pages(&heap));
    }
    assert_eq!(marks[5], marks[11], "the heap kept growing over identical rounds: {marks:?}");
}

#[test]
fn growing_buffers_extend_in_place_and_freed_space_comes_back() {
    let mut heap = Heap::new(Arena::new(256));
    // A vector doubling at the end of the heap never moves.
    let mut layout = Layout::from_size_align(2048, 8).unwrap();
    // SAFETY: one block, resized and freed with its current layout.
    let first = unsafe { heap.alloc(layout) };
    let mut at = first;
    for size in [4096, 65_536, 1 << 20, 3 << 20] {
        // SAFETY: as above.
        at = unsafe { heap.realloc(at, layout, size) };
        layout = Layout::from_size_align(size, 8).unwrap();
        assert_eq!(at, first, "grown at top without moving");
    }
    // SAFETY: as above.
    unsafe { heap.dealloc(at, layout) };
    let high = heap_pages(&heap);
    // Everything went back to `top`: a buffer as large as the old one fits again without growing.
    // SAFETY: freed right after.
    let again = unsafe { heap.alloc(layout) };
    assert_eq!(again, first);
    // SAFETY: allocated just above.
    unsafe { heap.dealloc(again, layout) };
    assert_eq!(heap_pages(&heap), high);
}

#[test]
fn out_of_memory_is_null_not_a_panic() {
    let mut heap = Heap::new(Arena::new(4));
    let layout = Layout::from_size_align(5 * PAGE, 8).unwrap();
    // SAFETY: nothing is handed out.
    assert!(unsafe { heap.alloc(layout) }.is_null());
    let small = Layout::from_size_align(100, 8).unwrap();
    // SAFETY: freed below.
    let at = unsafe { heap.alloc(small) };
    assert!(!at.is_null());
    // SAFETY: a live block; the failed realloc leaves it as it was.
    assert!(unsafe { heap.realloc(at, small, 10 * PAGE) }.is_null());
    // SAFETY: still live with its layout.
    unsafe { heap.dealloc(at, small) };
}
