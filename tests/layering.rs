//! The core's `session/` reads as the data flows, and its imports point one way down that flow: a module
//! may name only modules above it in [`PIPELINE`] (unit tests aside, which may use the whole crate). Read
//! from the sources themselves — every `super::<module>` path, every `crate::session::<module>` path, and
//! the names `session/mod.rs` re-exports — so a new import against the order, or a module not placed in it,
//! fails here. Every file of `src/` (`tool/plan.rs` as much as `session/`) is checked for import circles too,
//! the rooms of a split module for their order ([`ROOMS`]), and every file for its length ([`MAX_FILE_LINES`]).

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// `src/session/` top to bottom: a line (`value`, `wire`, older formats in `migrate`) → entry facts (`entry`,
/// `read`) → the host generation's rules (`profile`) → resident store (`store`, `record`) → the index
/// (`index`) → what is asked of it (`entry_ref`) → what pi builds (`context`) → estimates (`tokens`) →
/// views (`view`, `skim`, `llm_view`).
const PIPELINE: &[&str] = &[
    "value", "wire", "migrate", "entry", "read", "profile", "store", "record", "spend", "labels", "entries", "tree", "feed", "chunk", "index",
    "entry_ref", "agree", "context", "tokens", "view", "skim", "llm_view",
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

/// Every `.rs` file under `src/` as a module path (`tool::plan`; a `mod.rs` is its directory's module,
/// `lib.rs` the crate root `""`), with its non-test code.
fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, prefix: &str, out: &mut BTreeMap<String, String>) {
        for entry in fs::read_dir(dir).expect("a source directory").flatten() {
            let path = entry.path();
            let name = entry.file_name().into_string().expect("a UTF-8 file name");
            let join = |m: &str| if prefix.is_empty() { m.to_string() } else { format!("{prefix}::{m}") };
            if path.is_dir() {
                walk(&path, &join(&name), out);
            } else if let Some(stem) = name.strip_suffix(".rs") {
                let module = match stem {
                    "mod" => prefix.to_string(),
                    "lib" if prefix.is_empty() => String::new(),
                    _ => join(stem),
                };
                out.insert(module, code(&path));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), "", &mut out);
    out
}

/// The paths a use tree names after `prefix` (`crate::`, `super::`), each as its segments:
/// `super::{a::{b, c}, d}` → `[a, b]`, `[a, c]`, `[d]` (a leading `super::` of the rest is kept as a segment).
fn paths_after(text: &str, prefix: &str) -> Vec<Vec<String>> {
    fn tree(rest: &str, base: &[String], out: &mut Vec<Vec<String>>) -> usize {
        // Reads `ident(::ident)*` then, optionally, `::{tree, tree}`; returns the bytes consumed.
        let mut at = 0;
        let mut path = base.to_vec();
        loop {
            let tail = &rest[at..];
            let trimmed = tail.trim_start();
            at += tail.len() - trimmed.len();
            if let Some(group) = trimmed.strip_prefix('{') {
                at += 1;
                let mut inner = group;
                loop {
                    let used = tree(inner, &path, out);
                    at += used;
                    inner = &inner[used..];
                    let t = inner.trim_start();
                    at += inner.len() - t.len();
                    match t.chars().next() {
                        Some(',') => {
                            at += 1;
                            inner = &t[1..];
                        }
                        Some('}') => return at + 1,
                        _ => return at,
                    }
                }
            }
            let ident: String = trimmed.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if ident.is_empty() {
                break;
            }
            at += ident.len();
            path.push(ident);
            if rest[at..].starts_with("::") {
                at += 2;
            } else {
                break;
            }
        }
        if path.len() > base.len() {
            out.push(path);
        }
        at
    }
    let mut out = Vec::new();
    for (at, _) in text.match_indices(prefix) {
        // `a::super::b` is not a path that starts here; `crate::` inside an identifier neither.
        if text[..at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        tree(&text[at + prefix.len()..], &[], &mut out);
    }
    out
}

/// The module a path names: the longest prefix that is a module, then, where that module re-exports the
/// next segment (`pub use plan::{ToolPlan, …}` in `tool/mod.rs`), the module it re-exports it from.
fn resolve(path: &[String], modules: &BTreeMap<String, String>) -> String {
    let mut module = String::new();
    for seg in path {
        let join = |m: &str| if module.is_empty() { m.to_string() } else { format!("{module}::{m}") };
        if modules.contains_key(&join(seg)) {
            module = join(seg);
            continue;
        }
        let reexported = modules.get(&module).and_then(|code| reexport_source(code, seg));
        if let Some(from) = reexported.filter(|m| modules.contains_key(&join(m))) {
            module = join(&from);
        }
        break;
    }
    module
}

/// The submodule `code` (a `mod.rs` or `lib.rs`) re-exports `name` from (`pub use sub::{…, name, …}`).
fn reexport_source(code: &str, name: &str) -> Option<String> {
    for item in code.split("pub use ").skip(1) {
        let item = &item[..item.find(';').unwrap_or(item.len())];
        let Some((module, names)) = item.split_once("::") else { continue };
        let names = names.trim().trim_start_matches('{').trim_end_matches('}');
        if names.split(',').map(|n| n.split(" as ").last().unwrap_or("").trim()).any(|n| n == name) {
            return Some(module.trim().to_string());
        }
    }
    None
}

/// Which modules each module's non-test code names (`crate::…` and `super::…` paths, resolved).
fn import_graph(modules: &BTreeMap<String, String>) -> BTreeMap<String, Vec<String>> {
    let mut graph: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (module, code) in modules {
        let names = graph.entry(module.clone()).or_default();
        let parent = module.rsplit_once("::").map_or("", |(p, _)| p);
        let mut paths = paths_after(code, "crate::");
        for mut path in paths_after(code, "super::") {
            // `super::` is the parent module; `super::super::` its parent, and so on.
            let mut base: Vec<String> = parent.split("::").filter(|s| !s.is_empty()).map(String::from).collect();
            while path.first().is_some_and(|s| s == "super") {
                path.remove(0);
                base.pop();
            }
            base.extend(path);
            paths.push(base);
        }
        for path in paths {
            let target = resolve(&path, modules);
            if target != *module && !names.contains(&target) {
                names.push(target);
            }
        }
    }
    graph
}

/// A circle in `graph`, written `a → b → a`, if there is one.
fn find_circle(graph: &BTreeMap<String, Vec<String>>) -> Option<String> {
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
    graph.keys().find_map(|m| visit(m, graph, &mut walk, &mut done))
}

/// No two files of `src/` import each other, directly or through others: every module (each file,
/// `tool::plan` as much as `session`) has a place in one order. A `mod.rs` that re-exports a name is
/// not its source: a path through the re-export counts as naming the module the name comes from.
#[test]
fn no_import_circle_in_src() {
    let modules = modules();
    let graph = import_graph(&modules);
    assert_eq!(find_circle(&graph), None, "an import circle in src/");
    let named = |from: &str, to: &str| graph.get(from).is_some_and(|t| t.iter().any(|n| n == to));
    assert!(named("tool", "session") || named("tool::plan", "session::index"), "the checker reads `crate::` paths");
    assert!(named("tool::recall::pages", "tool::recall::entries"), "the checker reads `super::` paths");
    assert!(named("tool::anchors", "tool::plan"), "the checker follows a re-export to its module");
}

/// The rooms of a split module, in the order their imports run: each may name only rooms before it (its
/// `mod.rs` only declares and re-exports them; its `tests.rs` may use them all).
const ROOMS: &[(&str, &[&str])] = &[
    ("compaction", &["fields", "mode", "instruction", "reply", "files", "entry", "notices"]),
    ("tool::recall", &["entries", "items", "pages"]),
    ("folder", &["session", "rows", "family", "texts"]),
];

/// Every file of a split module has its place in [`ROOMS`], and its imports point back up that order only.
#[test]
fn split_modules_keep_their_rooms_in_order() {
    let modules = modules();
    let graph = import_graph(&modules);
    let mut wrong = Vec::new();
    for (parent, rooms) in ROOMS {
        let prefix = format!("{parent}::");
        let mut on_disk: Vec<&str> = modules.keys().filter_map(|m| m.strip_prefix(&prefix)).filter(|m| *m != "tests").collect();
        on_disk.sort_unstable();
        let mut placed = rooms.to_vec();
        placed.sort_unstable();
        assert_eq!(on_disk, placed, "the rooms of {parent} and ROOMS (tests/layering.rs) differ");
        assert!(graph.get(*parent).is_some_and(Vec::is_empty), "{parent}'s mod.rs names another module with a path: it only declares and re-exports");
        for (rank, room) in rooms.iter().enumerate() {
            for target in graph.get(&format!("{prefix}{room}")).into_iter().flatten() {
                let Some(other) = target.strip_prefix(&prefix) else { continue };
                if !rooms[..rank].contains(&other) {
                    wrong.push(format!("{parent}::{room} names {other}, which is not before it"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "imports against the rooms' order:\n{}", wrong.join("\n"));
    let named = |from: &str, to: &str| graph.get(from).is_some_and(|t| t.iter().any(|n| n == to));
    assert!(named("compaction::entry", "compaction::instruction"), "the checker sees a room name another");
    assert!(named("tool::recall::pages", "tool::recall::entries"), "the checker sees a room name another");
}

/// The most lines a file of `src/` may have (unit-test files, `tests.rs`, aside): past it a file holds more than
/// one room, and becomes a directory of rooms named for what they hold (as `compaction/` and `tool/recall/` did).
const MAX_FILE_LINES: usize = 700;

#[test]
fn no_core_file_is_over_700_lines() {
    fn walk(dir: &Path, out: &mut Vec<String>) {
        for entry in fs::read_dir(dir).expect("a source directory").flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") && path.file_name().is_some_and(|n| n != "tests.rs") {
                let lines = fs::read_to_string(&path).expect("a source file").lines().count();
                if lines > MAX_FILE_LINES {
                    out.push(format!("{} has {lines} lines", path.display()));
                }
            }
        }
    }
    let mut over = Vec::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut over);
    assert!(over.is_empty(), "files over {MAX_FILE_LINES} lines (split them into rooms):\n{}", over.join("\n"));
}

/// The checker finds what it must: the circle `tool/plan.rs` and `tool/recall.rs` had (each named the
/// other), through a group, a nested group and a re-export.
#[test]
fn a_circle_is_found() {
    let modules: BTreeMap<String, String> = [
        ("", "pub mod tool;"),
        ("tool", "mod plan; mod recall; pub use plan::{plan, ToolPlan};"),
        ("tool::plan", "use super::{recall::{self, RecallPlan}, texts};"),
        ("tool::recall", "use crate::tool::ToolPlan;"),
    ]
    .into_iter()
    .map(|(m, c)| (m.to_string(), c.to_string()))
    .collect();
    let graph = import_graph(&modules);
    assert_eq!(find_circle(&graph).as_deref(), Some("tool::plan → tool::recall → tool::plan"));
    let paths = paths_after("x(super::{a::{b, c}, d}); crate::e::f", "super::");
    assert_eq!(paths, [vec!["a", "b"], vec!["a", "c"], vec!["d"]]);
}
