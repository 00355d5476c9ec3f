//! `json::parse`, `json::stringify_len` and `Value::to_json` against the serde_json-based oracle:
//! `session::entry::parse_json` (`serde_json` plus the recovery that makes it accept what `JSON.parse`
//! accepts) and `js::stringify_len_masked`. Generated JSON (escapes, astral characters, unpaired
//! surrogates, duplicate keys, odd numbers, deep nesting, mutations that break it), every fixture line
//! and every fuzz seed line go through the same checks.

use std::fmt::Write as _;

use pi_tree_navigator::js::{stringify_len_masked, utf16_len};
use pi_tree_navigator::json::{self, ErrorKind, Value};
use pi_tree_navigator::session::entry::{parse_json, MAX_NESTING};
use proptest::prelude::*;

/// The oracle's value in a comparable form: every number as a float (serde keeps integers apart).
fn normalize(v: serde_json::Value) -> serde_json::Value {
    use serde_json::Value as S;
    match v {
        S::Number(n) => n.as_f64().and_then(serde_json::Number::from_f64).map_or(S::Null, S::Number),
        S::Array(items) => S::Array(items.into_iter().map(normalize).collect()),
        S::Object(map) => S::Object(map.into_iter().map(|(k, v)| (k, normalize(v))).collect()),
        other => other,
    }
}

/// Our value as the oracle holds it: strings decoded with its mask character, infinite numbers as null
/// (what `JSON.stringify` makes of them), the last duplicate key winning.
fn to_serde(v: &Value<'_>, mask: char) -> serde_json::Value {
    use serde_json::Value as S;
    match v {
        Value::Null => S::Null,
        Value::Bool(b) => S::Bool(*b),
        Value::Num(n) => serde_json::Number::from_f64(n.as_f64()).map_or(S::Null, S::Number),
        Value::Str(s) => S::String(s.decode_with(mask).into_owned()),
        Value::Arr(items) => S::Array(items.iter().map(|x| to_serde(x, mask)).collect()),
        Value::Obj(members) => {
            let mut map = serde_json::Map::new();
            for (k, v) in members {
                map.insert(k.decode_with(mask).into_owned(), to_serde(v, mask));
            }
            S::Object(map)
        }
    }
}

/// Whether some object holds two keys that differ in JavaScript but decode alike with `mask`.
fn masked_keys_collide(v: &Value<'_>, mask: char) -> bool {
    match v {
        Value::Arr(items) => items.iter().any(|x| masked_keys_collide(x, mask)),
        Value::Obj(members) => members.iter().enumerate().any(|(i, (k, x))| {
            masked_keys_collide(x, mask) || members[..i].iter().any(|(k2, _)| k2.decode_with(mask) == k.decode_with(mask) && k2 != k)
        }),
        _ => false,
    }
}

/// Every check on one text; returns whether it was JSON.
fn check(text: &str) -> bool {
    let ours = json::parse(text, MAX_NESTING);
    let theirs = parse_json(text);
    assert_eq!(ours.is_ok(), theirs.is_ok(), "acceptance differs on {text:?}: ours {ours:?}");
    let (Ok(value), Ok((expected, masked))) = (ours, theirs) else { return false };
    let mask = masked.unwrap_or('\u{fffd}');
    assert_eq!(to_serde(&value, mask), normalize(expected.clone()), "values differ on {text:?}");
    let len = json::stringify_len(&value);
    // The oracle masks every unpaired surrogate with one character, so distinct keys such as "\ud800" and
    // "\udbff" collapse into one there while JavaScript keeps both; its length is wrong for such objects.
    if !masked_keys_collide(&value, mask) {
        assert_eq!(len, stringify_len_masked(&expected, masked), "stringify_len differs on {text:?}");
    }
    // The written text is what JSON.stringify writes: its length is the measured one, and reading it back
    // gives the same value and the same text.
    let written = value.to_json();
    assert_eq!(utf16_len(&written), len, "{text:?} wrote {written:?}");
    let again = json::parse(&written, MAX_NESTING).unwrap_or_else(|e| panic!("{written:?} does not read back: {e}"));
    assert_eq!(again.to_json(), written);
    assert_eq!(to_serde(&again, mask), to_serde(&value, mask));
    true
}

#[derive(Debug, Clone)]
enum Node {
    Null,
    Bool(bool),
    Num(String),
    Str(Vec<Unit>),
    Arr(Vec<Node>),
    Obj(Vec<(Vec<Unit>, Node)>),
}

/// One character of a generated string and how it is written.
#[derive(Debug, Clone)]
enum Unit {
    Plain(char),
    /// `\uXXXX` (two escapes for an astral character).
    Hex(char),
    /// `\n`, `\"`, `\/`, …
    Short(u8),
    /// An unpaired surrogate escape.
    Lone(u16),
}

fn unit() -> impl Strategy<Value = Unit> {
    prop_oneof![
        4 => prop::sample::select(vec!['a', 'Z', ' ', 'é', '€', '😀', '\u{fffd}', '\u{1}', '\u{7f}', '\u{2028}', 'i', 'd']).prop_map(Unit::Plain),
        1 => prop::sample::select(vec!['i', '\0', '\u{1f}', '"', '\\', '\u{fffd}', '😀', '\u{ffff}', '\n']).prop_map(Unit::Hex),
        1 => prop::sample::select(b"\"\\/bfnrt".to_vec()).prop_map(Unit::Short),
        1 => prop_oneof![Just(0xD800u16), Just(0xDBFF), Just(0xDC00), Just(0xDFFF), 0xD800u16..0xE000].prop_map(Unit::Lone),
    ]
}

fn string() -> impl Strategy<Value = Vec<Unit>> {
    prop_oneof![
        3 => prop::collection::vec(unit(), 0..12),
        // Keys that collide once decoded (`id`, `\u0069d`, `i\u0064`) to exercise duplicates.
        2 => prop::sample::select(vec![
            vec![Unit::Plain('i'), Unit::Plain('d')],
            vec![Unit::Hex('i'), Unit::Plain('d')],
            vec![Unit::Plain('i'), Unit::Hex('d')],
            vec![Unit::Lone(0xD800)],
            vec![Unit::Plain('\u{fffd}')],
            vec![],
        ]),
    ]
}

fn number() -> impl Strategy<Value = String> {
    let digits = |n: std::ops::Range<usize>| prop::collection::vec(0u8..10, n).prop_map(|d| d.iter().map(|x| char::from(b'0' + x)).collect::<String>());
    (any::<bool>(), prop_oneof![Just("0".to_string()), (1u8..10, digits(0..25)).prop_map(|(d, rest)| format!("{d}{rest}"))], prop::option::of(digits(1..25)), prop::option::of((prop::sample::select(vec!["e", "E", "e+", "e-", "E-"]), 0u32..420)))
        .prop_map(|(neg, int, frac, exp)| {
            let mut s = String::from(if neg { "-" } else { "" });
            s += &int;
            if let Some(f) = frac {
                s = s + "." + &f;
            }
            if let Some((e, n)) = exp {
                let _ = write!(s, "{e}{n}");
            }
            s
        })
}

fn node() -> impl Strategy<Value = Node> {
    let leaf = prop_oneof![
        Just(Node::Null),
        any::<bool>().prop_map(Node::Bool),
        number().prop_map(Node::Num),
        string().prop_map(Node::Str),
    ];
    leaf.prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Node::Arr),
            prop::collection::vec((string(), inner), 0..6).prop_map(Node::Obj),
        ]
    })
}

/// Writes `node` as JSON, with whitespace between tokens chosen by `ws`.
fn render(node: &Node, ws: &mut impl Iterator<Item = u8>, out: &mut String) {
    fn space(ws: &mut impl Iterator<Item = u8>, out: &mut String) {
        for _ in 0..(ws.next().unwrap_or(0) % 4).saturating_sub(1) {
            out.push(char::from(b" \t\n\r"[usize::from(ws.next().unwrap_or(0) % 4)]));
        }
    }
    space(ws, out);
    match node {
        Node::Null => out.push_str("null"),
        Node::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Node::Num(lit) => out.push_str(lit),
        Node::Str(units) => render_str(units, out),
        Node::Arr(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                render(item, ws, out);
            }
            space(ws, out);
            out.push(']');
        }
        Node::Obj(members) => {
            out.push('{');
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                space(ws, out);
                render_str(k, out);
                space(ws, out);
                out.push(':');
                render(v, ws, out);
            }
            space(ws, out);
            out.push('}');
        }
    }
    space(ws, out);
}

fn render_str(units: &[Unit], out: &mut String) {
    out.push('"');
    for u in units {
        match u {
            Unit::Plain(c) if *c < ' ' => {
                let _ = write!(out, "\\u{:04X}", *c as u32);
            }
            Unit::Plain(c) => out.push(*c),
            Unit::Hex(c) => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            Unit::Short(b) => {
                out.push('\\');
                out.push(char::from(*b));
            }
            Unit::Lone(u) => {
                let _ = write!(out, "\\u{u:04X}");
            }
        }
    }
    out.push('"');
}

fn config() -> ProptestConfig {
    ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config())]

    /// Generated JSON is read, measured and written exactly like the oracle.
    #[test]
    fn generated_json_matches_the_oracle(node in node(), ws in prop::collection::vec(any::<u8>(), 0..64)) {
        let mut text = String::new();
        render(&node, &mut ws.into_iter().cycle(), &mut text);
        prop_assert!(check(&text), "generated JSON was rejected: {:?}", text);
    }

    /// Broken JSON (a character deleted, replaced or inserted) is accepted or refused like the oracle.
    #[test]
    fn mutated_json_is_accepted_like_the_oracle(node in node(), at in any::<usize>(), edit in 0u8..3,
                                                c in prop::sample::select(vec![',', ']', '}', '"', '\\', '0', '-', '.', 'e', 'x', ' ', '\u{b}', '\u{a0}', '\n', '{', '[', ':', 'u'])) {
        let mut text = String::new();
        render(&node, &mut std::iter::empty(), &mut text);
        let bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
        let i = bounds[at % bounds.len()];
        let next = bounds.iter().copied().find(|&b| b > i).unwrap_or(i);
        match edit {
            0 => text.replace_range(i..next, ""),
            1 => text.replace_range(i..next, c.encode_utf8(&mut [0; 4])),
            _ => text.insert(i, c),
        }
        check(&text);
    }

    /// Nesting up to the limit is read; beyond it is refused (TooDeep, or a syntax error met first).
    #[test]
    fn nesting_is_bounded_like_the_oracle(depth in 0usize..1100, objects in any::<u64>()) {
        let (mut open, mut close) = (String::new(), String::new());
        for level in 0..depth {
            if objects >> (level % 64) & 1 == 1 {
                open.push_str("{\"k\":");
                close.insert(0, '}');
            } else {
                open.push('[');
                close.insert(0, ']');
            }
        }
        let text = format!("{open}1{close}");
        let accepted = check(&text);
        prop_assert_eq!(accepted, depth <= MAX_NESTING);
        if !accepted {
            prop_assert_eq!(json::parse(&text, MAX_NESTING).err().map(|e| e.kind), Some(ErrorKind::TooDeep));
        }
    }
}

#[test]
fn every_fixture_and_seed_line_matches_the_oracle() {
    let mut files: Vec<_> = std::fs::read_dir("tests/fixtures")
        .into_iter()
        .chain(std::fs::read_dir("fuzz/seeds"))
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && (p.extension().is_some_and(|x| x == "jsonl") || p.starts_with("fuzz/seeds")))
        .collect();
    files.sort();
    let (mut lines, mut json_lines) = (0, 0);
    for path in &files {
        let bytes = std::fs::read(path).unwrap_or_default();
        for line in String::from_utf8_lossy(&bytes).split('\n') {
            // The session reader strips a BOM and a CR before parsing; JSON.parse alone refuses both.
            lines += 1;
            json_lines += usize::from(check(line));
            json_lines += usize::from(check(line.trim_end_matches('\r').trim_start_matches('\u{feff}')));
        }
    }
    assert!(files.len() > 20 && json_lines > 300, "{} files, {lines} lines, {json_lines} JSON", files.len());
}

#[test]
fn json_parse_edge_cases() {
    for text in [
        "0", "-0", "[]", "{}", " \t\n\r1", "\"\"", "\"\\ud800\"", "\"\\udc00\\ud800\"", "1e400", "-1e400", "[1e999,-0.0e-999]",
        "{\"a\":1,\"a\":2}", "{\"__proto__\":1}", "\"\u{2028}\"", "\"\\u0000\"", "123456789012345678901234567890",
    ] {
        assert!(check(text), "{text:?} is JSON");
    }
    for text in [
        "", " ", "01", "-01", "1.", ".1", "+1", "1e", "0x1", "NaN", "Infinity", "[1,]", "{\"a\":1,}", "{a:1}", "'a'", "\"\\x\"",
        "-00100e327", "[-01e400]", "\"\\u12\"", "\"\t\"", "\u{feff}1", "1\u{a0}", "\u{b}1", "[1 2]", "{\"a\" 1}", "truee", "nulll", "\"a", "[", "{\"a\"",
    ] {
        assert!(!check(text), "{text:?} is not JSON");
    }
}

/// Throughput of `json::parse` (+ `stringify_len`) against `serde_json::from_str::<Value>` on the fixture
/// lines and on long tool-output lines (60 KB strings full of `\n` escapes). Run with
/// `cargo test --release --test json_reader -- --ignored json_speed --nocapture`.
#[test]
#[ignore = "a benchmark; run in release with --nocapture"]
fn json_speed() {
    use std::time::Instant;
    let mut fixture = Vec::new();
    for entry in std::fs::read_dir("tests/fixtures").into_iter().flatten().flatten() {
        if entry.path().extension().is_some_and(|x| x == "jsonl") {
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            fixture.extend(text.lines().filter(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()).map(String::from));
        }
    }
    let body = (0..2000).fold(String::new(), |mut s, i| {
        let _ = write!(s, "line {i}: fn main() {{ println!(\\\"{i}\\\"); }}\\n\\t");
        s
    });
    let long: Vec<String> = (0..8)
        .map(|i| format!(r#"{{"type":"message","id":"e{i}","parentId":"p{i}","timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"toolResult","toolCallId":"c{i}","content":[{{"type":"text","text":"{body}"}}],"isError":false,"timestamp":1767225600000}}}}"#))
        .collect();
    for (name, lines) in [("fixture lines", &fixture), ("long escaped lines", &long)] {
        let bytes: usize = lines.iter().map(String::len).sum();
        let rounds = (50_000_000 / bytes.max(1)).max(1);
        let time = |f: &dyn Fn(&str) -> usize| {
            let start = Instant::now();
            let mut sink = 0;
            for _ in 0..rounds {
                for l in lines {
                    sink += f(l);
                }
            }
            let mb_s = (bytes * rounds) as f64 / start.elapsed().as_secs_f64() / 1e6;
            (mb_s, sink)
        };
        let (serde, _) = time(&|l| usize::from(serde_json::from_str::<serde_json::Value>(l).is_ok()));
        let (serde_len, _) = time(&|l| serde_json::from_str::<serde_json::Value>(l).map_or(0, |v| pi_tree_navigator::js::stringify_len(&v)));
        let (ours, _) = time(&|l| usize::from(json::parse(l, MAX_NESTING).is_ok()));
        let (ours_len, _) = time(&|l| json::parse(l, MAX_NESTING).map_or(0, |v| json::stringify_len(&v)));
        println!("{name} ({} lines, {bytes} bytes × {rounds}):", lines.len());
        println!("  serde_json::from_str::<Value>          {serde:8.0} MB/s");
        println!("  serde_json + js::stringify_len         {serde_len:8.0} MB/s");
        println!("  json::parse                            {ours:8.0} MB/s");
        println!("  json::parse + json::stringify_len      {ours_len:8.0} MB/s");
    }
}
