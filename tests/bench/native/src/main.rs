//! Drives the core natively for profilers:
//!   ptn-bench-native ingest|full|list|skim|floor|hold|mem <session.jsonl> [iterations]
//! `ingest`/`full`: append the whole file to a fresh plugin/full index, `iterations` times.
//! `list`: one plugin index, then `anchors()` + `estimate()` `iterations` times.
//! `skim`: the CLI's `list` (`file::list_file` on the file's bytes), `iterations` times.
//! `floor`: what `serde_json` alone pays for the same bytes (tests/bench/serde-floor's check), `iterations` times.
//! `hold`: one plugin index kept alive (for heap profilers: the resident facts at their peak).
//! `mem`: heap bytes per entry of a plugin index (live after ingest, and the peak above the input text),
//! fed in 256 KB chunks cut at line ends like the shim feeds a file; counted by the allocator below.
//! `scaling`: the shapes of `tests/common/shapes.rs` timed at n and 4n (fastest of 5), as a table; no file.
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

#[path = "../../../common/shapes.rs"]
mod shapes;

/// The system allocator, counting live and peak bytes (for `mem`).
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
        PEAK.fetch_max(live, Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

use pi_tree_navigator::session::{Leaf, Mode, SessionIndex};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let what = args.get(1).map(String::as_str).unwrap_or("list");
    if what == "scaling" {
        return scaling();
    }
    let text = std::fs::read_to_string(args.get(2).expect("session file")).expect("read");
    let n: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10);
    let t = Instant::now();
    match what {
        "ingest" | "full" => {
            for _ in 0..n {
                let mut index = SessionIndex::new(if what == "full" { Mode::Full } else { Mode::Plugin });
                let report = index.append_jsonl(&text);
                assert!(report.appended > 0);
            }
        }
        "list" => {
            let mut index = SessionIndex::new(Mode::Plugin);
            index.append_jsonl(&text);
            let t0 = Instant::now();
            let mut sum = 0.0;
            for _ in 0..n {
                let anchors = index.anchors(Leaf::Current).expect("anchors");
                sum += anchors.len() as f64 + index.estimate(Leaf::Current).expect("estimate").tokens;
            }
            eprintln!("list: {:.3} ms per call ({sum})", t0.elapsed().as_secs_f64() * 1e3 / n as f64);
        }
        "hold" => {
            let mut index = SessionIndex::new(Mode::Plugin);
            index.append_jsonl(&text);
            drop(text);
            eprintln!("{} entries held", index.len());
            std::hint::black_box(&index);
        }
        "mem" => {
            let base = LIVE.load(Relaxed);
            PEAK.store(base, Relaxed);
            let mut index = SessionIndex::new(Mode::Plugin);
            let bytes = text.as_bytes();
            let mut at = 0;
            while at < bytes.len() {
                let mut end = (at + (256 << 10)).min(bytes.len());
                end = bytes[end..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |i| end + i + 1);
                index.append_jsonl_bytes(&bytes[at..end]);
                at = end;
            }
            let n = index.len().max(1) as f64;
            let (live, peak) = (LIVE.load(Relaxed) - base, PEAK.load(Relaxed) - base);
            eprintln!("mem: {} entries, live {live} B ({:.1} B/entry), peak {peak} B ({:.1} B/entry)", index.len(), live as f64 / n, peak as f64 / n);
            std::hint::black_box(&index);
        }
        "skim" => {
            // The CLI's `list`: `file::list_file` on the file's bytes (skim, then the lines the answer reads).
            for _ in 0..n {
                let listed = pi_tree_navigator::file::list_file(text.clone().into_bytes(), None, Leaf::Current).expect("list_file");
                std::hint::black_box(&listed);
            }
        }
        "floor" => {
            // What `serde_json` alone pays (tests/bench/serde-floor): the UTF-8 check of the whole file, the
            // lines found, every line checked with every value skipped (`IgnoredAny`).
            let mut taken = 0;
            for _ in 0..n {
                let bytes = text.clone().into_bytes();
                let text = std::str::from_utf8(&bytes).expect("UTF-8");
                for line in text.split_terminator('\n') {
                    taken += usize::from(serde_json::from_str::<serde::de::IgnoredAny>(line).is_ok());
                }
            }
            std::hint::black_box(taken);
        }
        other => panic!("unknown mode {other}"),
    }
    eprintln!("{what}: {:.1} ms total", t.elapsed().as_secs_f64() * 1e3);
}

/// The fastest of five runs: on a shared machine one run can be slowed several times over by other work.
fn best_of_5(f: impl Fn()) -> Duration {
    (0..5)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// Each shape at n and 4n, n doubled until one run takes 25 ms (so timer noise does not decide the ratio).
/// Linear is ~4×, quadratic 16×.
fn scaling() {
    println!("| shape | n | time at n | time at 4n | ratio |\n|---|---:|---:|---:|---:|");
    for shape in shapes::SHAPES {
        let mut n = shape.n;
        let mut small = (shape.make)(n);
        let mut t1 = best_of_5(|| (shape.run)(&small));
        while t1 < Duration::from_millis(25) && n < 1 << 24 {
            n *= 2;
            small = (shape.make)(n);
            t1 = best_of_5(|| (shape.run)(&small));
        }
        let large = (shape.make)(4 * n);
        let t4 = best_of_5(|| (shape.run)(&large));
        let ratio = t4.as_secs_f64() / t1.as_secs_f64().max(1e-9);
        println!("| {} | {n} | {t1:.1?} | {t4:.1?} | {ratio:.1}× |", shape.name);
    }
}
