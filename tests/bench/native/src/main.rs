//! Drives the core natively for profilers:
//!   ptn-bench-native ingest|full|list|hold <session.jsonl> [iterations]
//! `ingest`/`full`: append the whole file to a fresh plugin/full index, `iterations` times.
//! `list`: one plugin index, then `anchors()` + `estimate()` `iterations` times.
//! `hold`: one plugin index kept alive (for heap profilers: the resident facts at their peak).
use std::time::Instant;

use pi_tree_navigator::session::{Leaf, Mode, SessionIndex};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let what = args.get(1).map(String::as_str).unwrap_or("list");
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
        other => panic!("unknown mode {other}"),
    }
    eprintln!("{what}: {:.1} ms total", t.elapsed().as_secs_f64() * 1e3);
}
