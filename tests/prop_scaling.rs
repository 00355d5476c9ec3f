//! Work grows roughly linearly with input (issue 6), counted rather than timed: each shape
//! (`tests/common/shapes.rs`) runs at n and at 4n and the allocations it makes — how many, and how many
//! bytes — must grow well under 16× (what quadratic would cost; the bound is 8×). The counts are the same on
//! every run and every machine, so this cannot flake. Work that allocates nothing (a comparison loop) is
//! timed instead by the native bench's `scaling` table (`tests/bench/native`, see its README).
//!
//! The full-size runs (a 1,000,000-deep chain through the whole tool pipeline, a 100 MB string) are ignored
//! by default: `cargo test --release --test prop_scaling -- --include-ignored`.

#[path = "common/shapes.rs"]
mod shapes;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use pi_tree_navigator::session::{Leaf, Mode, SessionIndex};
use shapes::{chain, line, pipeline, Shape, SHAPES};

/// The system allocator, counting each thread's allocations (tests run on threads of their own).
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static BYTES: Cell<u64> = const { Cell::new(0) };
}

fn count(bytes: usize) {
    // `try_with`: a thread being torn down has no counters left, and its allocations are not ours.
    let _ = ALLOCATIONS.try_with(|a| a.set(a.get() + 1));
    let _ = BYTES.try_with(|b| b.set(b.get() + bytes as u64));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Allocations and bytes allocated by `f` on this thread.
fn allocations(f: impl FnOnce()) -> (u64, u64) {
    let before = (ALLOCATIONS.with(Cell::get), BYTES.with(Cell::get));
    f();
    (ALLOCATIONS.with(Cell::get) - before.0, BYTES.with(Cell::get) - before.1)
}

/// What is wrong with the shape's allocations at n and 4n, if anything: both counts must grow less than 8×
/// (linear is ~4×, quadratic 16×).
fn nonlinear(shape: &Shape) -> Option<String> {
    let (small, large) = ((shape.make)(shape.n), (shape.make)(4 * shape.n));
    let (a1, b1) = allocations(|| (shape.run)(&small));
    let (a4, b4) = allocations(|| (shape.run)(&large));
    let (name, n) = (shape.name, shape.n);
    if a1 == 0 || b1 == 0 {
        Some(format!("{name}: nothing counted"))
    } else if a4 >= 8 * a1 {
        Some(format!("{name}: 4× the input (n = {n}) made {:.1}× the allocations ({a1} → {a4})", a4 as f64 / a1 as f64))
    } else if b4 >= 8 * b1 {
        Some(format!("{name}: 4× the input (n = {n}) allocated {:.1}× the bytes ({b1} → {b4})", b4 as f64 / b1 as f64))
    } else {
        None
    }
}

/// Every shape: a chain through the whole tool pipeline, a huge string, lone surrogates, anchors on every
/// entry, malformed lines, siblings in and against time order, repeated ids fed one by one.
#[test]
fn work_grows_linearly_with_the_input() {
    let problems: Vec<String> = SHAPES.iter().filter_map(nonlinear).collect();
    assert!(problems.is_empty(), "{problems:#?}");
}

/// The full-size chain: 1,000,000 entries, fed, walked and planned (release: about 2 s).
#[test]
#[ignore = "long: run with --release --include-ignored"]
fn a_million_deep_chain() {
    let text = chain(1_000_000);
    pipeline(&text);
    let mut index = SessionIndex::new(Mode::Plugin);
    index.append_jsonl(&text);
    assert_eq!(index.tree_rows().expect("rows").len(), 1_000_002);
    let _ = index.render_tree().expect("tree");
    let _ = index.stats(text.len() as f64).expect("stats");
}

/// A 100 MB string in one entry, in both modes (release: well under a second to feed).
#[test]
#[ignore = "long: run with --release --include-ignored"]
fn a_hundred_megabyte_string() {
    let text = line("big", None, 0, &"y".repeat(100 << 20));
    for mode in [Mode::Plugin, Mode::Full] {
        let mut index = SessionIndex::new(mode);
        assert_eq!(index.append_jsonl(&text).appended, 1);
        assert_eq!(index.estimate(Leaf::Current).expect("estimate").tokens, (100u64 << 20).div_ceil(4) as f64);
    }
}
