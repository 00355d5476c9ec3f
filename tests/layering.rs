//! The core's `session/` reads as the data flows, and its imports point one way down that flow: a module
//! may name only modules above it in [`PIPELINE`] (unit tests aside, which may use the whole crate). Read
//! from the sources themselves — every `super::<module>` path, every `crate::session::<module>` path, and
//! the names `session/mod.rs` re-exports — so a new import against the order, or a module not placed in it,
//! fails here. The crate's top-level modules (`session`, `tool`, `text`, …) are checked for import circles too.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// `src/session/` top to bottom: a line (`value`, `wire`, older formats in `migrate`) → entry facts (`entry`,
/// `read`) → the host generation's rules (`profile`) → resident store (`store`, `record`) → the index
/// (`index`) → what is asked of it (`entry_ref`) → what pi builds (`context`) → estimates (`tokens`) →
/// views (`view`, `skim`, `llm_view`).
const PIPELINE: &[&str] = &[
    "value", "wire", "migrate", "entry", "read", "profile", "store", "record", "labels", "entries", "tree", "feed", "index",
    "entry_ref", "context", "tokens", "view", "skim", "llm_view",
];

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/session");

/// A module's code: without comments (doc links name modules without importing them) and without its
/// unit tests (`#[cfg(test)]` and everything after it).
fn source(module: &str) -> String {
    code(&Path::new(DIR).join(format!("{module}.rs")))
}

/// The code of the file at `path` (see [`source`]).
fn code(path: &Path) -> String {
    let text = fs::read_to_string(path).expect("module source");
    let code = text.find("#[cfg(test)]").map_or(text.as_str(), |at| &text[..at]);
    code.lines().map(|line| line.find("//").map_or(line, |at| &line[..at])).collect::<Vec<_>>().join("\n")
}

/// The identifiers after each `prefix` in `text`: `super::a`, or each name of `super::{a, b::c}`.
fn names_after(text: &str, prefix: &str) -> Vec<String> {
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    let mut out = Vec::new();
    for (at, _) in text.match_indices(prefix) {
        let rest = &text[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            out.extend(group.split(',').map(|n| ident(n.trim())).filter(|n| !n.is_empty()));
        } else {
            out.push(ident(rest));
        }
    }
    out
}

/// Which module each name `session/mod.rs` re-exports comes from (`pub use read::parse_line` → `parse_line`
/// is `read`'s).
fn reexports() -> BTreeMap<String, String> {
    let text = fs::read_to_string(Path::new(DIR).join("mod.rs")).expect("mod.rs");
    let mut out = BTreeMap::new();
    for item in text.split("pub use ").skip(1) {
        let item = &item[..item.find(';').unwrap_or(item.len())];
        let Some((module, names)) = item.split_once("::") else { continue };
        let names = names.trim().trim_start_matches('{').trim_end_matches('}');
        for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            out.insert(name.to_string(), module.trim().to_string());
        }
    }
    out
}

/// The session modules `module`'s non-test code names, each with how it was named.
fn imports(module: &str, reexported: &BTreeMap<String, String>) -> Vec<(String, String)> {
    let text = source(module);
    let mut out = Vec::new();
    for name in names_after(&text, "super::").into_iter().chain(names_after(&text, "crate::session::")) {
        let target = if PIPELINE.contains(&name.as_str()) {
            name.clone()
        } else if let Some(m) = reexported.get(&name) {
            m.clone()
        } else {
            // `super::*` in a non-test module, or a name mod.rs does not re-export: say so.
            format!("<unknown: {name}>")
        };
        if target != module {
            out.push((target, name));
        }
    }
    out
}

#[test]
fn every_session_module_has_its_place_in_the_pipeline() {
    let mut on_disk: Vec<String> = fs::read_dir(DIR)
        .expect("src/session")
        .filter_map(|e| e.ok()?.file_name().into_string().ok()?.strip_suffix(".rs").map(String::from))
        .filter(|m| m != "mod")
        .collect();
    on_disk.sort();
    let mut placed: Vec<String> = PIPELINE.iter().map(|m| m.to_string()).collect();
    placed.sort();
    assert_eq!(on_disk, placed, "src/session/*.rs and PIPELINE (tests/layering.rs) differ");
}

#[test]
fn imports_point_down_the_pipeline() {
    let reexported = reexports();
    let mut wrong = Vec::new();
    for (rank, module) in PIPELINE.iter().enumerate() {
        for (target, name) in imports(module, &reexported) {
            match PIPELINE.iter().position(|m| *m == target) {
                Some(r) if r < rank => {}
                _ => wrong.push(format!("{module}.rs names {name} ({target}), which is not above it")),
            }
        }
    }
    assert!(wrong.is_empty(), "imports against the pipeline order:\n{}", wrong.join("\n"));
}

/// The checker sees what it must: an import back up the order is found.
#[test]
fn an_import_back_up_is_found() {
    let found = names_after("use super::context::Source;\nlet x = super::{index::Leaf, wire};", "super::");
    assert_eq!(found, ["context", "index", "wire"]);
    let reexported = reexports();
    assert_eq!(reexported.get("SessionIndex").map(String::as_str), Some("index"));
}

/// HACKING.md's map of `src/session/` names every file, in this order.
#[test]
fn the_map_in_hacking_md_matches_the_files() {
    let text = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/HACKING.md")).expect("HACKING.md");
    let start = text.find("`src/session/` reads as the data flows").expect("the map in HACKING.md");
    let table = text[start..].split("\n\n").nth(1).unwrap_or_default();
    let files: Vec<&str> = table
        .lines()
        .filter_map(|row| row.split('|').nth(2))
        .filter_map(|cell| cell.trim().strip_prefix('`')?.strip_suffix(".rs`"))
        .collect();
    assert_eq!(files, PIPELINE, "the table after \"`src/session/` reads as the data flows\" in HACKING.md");
}

/// The crate's top-level modules (`src/*.rs`, `src/*/`) name each other without a circle.
#[test]
fn the_crates_modules_import_each_other_without_a_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut files = Vec::new();
    for entry in fs::read_dir(&src).expect("src").flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(fs::read_dir(&path).expect("a module directory").flatten().map(|e| e.path()));
        } else {
            files.push(path);
        }
    }
    for path in files.iter().filter(|p| p.extension().is_some_and(|e| e == "rs")) {
        let rel = path.strip_prefix(&src).expect("under src");
        let module = rel.iter().next().and_then(|m| m.to_str()).unwrap_or_default().trim_end_matches(".rs").to_string();
        if module == "lib" {
            continue;
        }
        let names = graph.entry(module.clone()).or_default();
        for name in names_after(&code(path), "crate::") {
            if name != module && !names.contains(&name) {
                names.push(name);
            }
        }
    }
    // Depth-first: a module met again while still on the walk closes a circle.
    fn visit(m: &str, graph: &BTreeMap<String, Vec<String>>, walk: &mut Vec<String>, done: &mut Vec<String>) -> Option<String> {
        if let Some(at) = walk.iter().position(|w| w == m) {
            return Some(format!("{} → {m}", walk[at..].join(" → ")));
        }
        if done.iter().any(|d| d == m) {
            return None;
        }
        walk.push(m.to_string());
        for next in graph.get(m).into_iter().flatten() {
            if let Some(circle) = visit(next, graph, walk, done) {
                return Some(circle);
            }
        }
        walk.pop();
        done.push(m.to_string());
        None
    }
    let (mut walk, mut done) = (Vec::new(), Vec::new());
    for m in graph.keys() {
        assert_eq!(visit(m, &graph, &mut walk, &mut done), None, "an import circle between the crate's modules");
    }
    assert!(graph.get("tool").is_some_and(|t| t.iter().any(|n| n == "session")), "the checker reads the imports");
}
