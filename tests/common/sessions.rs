//! Session files for the integration tests that compare two ways of reading the same file: every fixture,
//! and random sessions.

use crate::common::Rng;

/// Inserts one to four broken UTF-8 sequences at random places of `bytes`: inside strings of every kind, and
/// sometimes outside any.
#[allow(dead_code)] // not every test binary that includes this file uses it
pub(crate) fn break_utf8(rng: &mut Rng, bytes: &mut Vec<u8>) {
    let broken: [&[u8]; 4] = [b"\xFF", b"\xE2\x9C", b"\xC3", b"\xF0\x9F\x98"];
    for _ in 0..=rng.below(4) {
        let at = rng.below(bytes.len() as u64) as usize;
        let what = broken[rng.below(broken.len() as u64) as usize];
        bytes.splice(at..at, what.iter().copied());
    }
}

/// A random session's bytes as a file may hold them in round `round` of a test: broken UTF-8 in odd rounds
/// ([`break_utf8`]), CRLF line ends in every third.
#[allow(dead_code)] // not every test binary that includes this file uses it
pub(crate) fn mangled_session(rng: &mut Rng, round: usize) -> Vec<u8> {
    let mut bytes = random_session(rng).into_bytes();
    if round % 2 == 1 {
        break_utf8(rng, &mut bytes);
    }
    if round % 3 == 2 {
        bytes = String::from_utf8_lossy(&bytes).replace('\n', "\r\n").into_bytes();
    }
    bytes
}

/// A random session line by line: mostly the user → assistant → tool results rhythm of a coding run,
/// with every kind of entry and usage an estimate has to get right, and lines written the odd ways
/// `JSON.parse` accepts and `serde_json`'s direct pass refuses.
pub(crate) fn random_session(rng: &mut Rng) -> String {
    let mut lines = vec![r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#.to_string()];
    let mut ids: Vec<String> = Vec::new();
    let texts = ["", "hello", "  spaced \n out\ttext  ", "ünïcödé ✓ 𝄞", "a \\\"quoted\\\" \\n line", "x\\ud800y", "tail \\u00e9"];
    let n = 5 + rng.below(40) as usize;
    for i in 0..n {
        let id = format!("e{i:03}");
        // Mostly a chain; sometimes a branch from an earlier entry; rarely a root.
        let parent = match ids.last() {
            Some(last) if rng.below(30) != 0 => format!("\"{}\"", if rng.below(10) == 0 { rng.pick(&ids) } else { last }),
            _ => "null".to_string(),
        };
        let head = format!(r#""id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:{:02}.000Z""#, i % 60);
        let text = (*rng.pick(&texts)).to_string();
        let body = match rng.below(20) {
            0..=4 => format!(r#""type":"message",{head},"message":{{"role":"user","content":[{{"type":"text","text":"{text}"}}{}]}}"#, if rng.below(5) == 0 { r#",{"type":"image","data":"AA","mimeType":"image/png"}"# } else { "" }),
            5..=9 => {
                let usage = match rng.below(6) {
                    0 => String::new(),
                    1 => r#","usage":{"input":0,"output":0,"totalTokens":0}"#.to_string(),
                    2 => r#","usage":null"#.to_string(),
                    _ => format!(r#","usage":{{"input":{},"output":{},"cacheRead":{},"totalTokens":{}}}"#, rng.below(5000), rng.below(500), rng.below(3), rng.below(2) * rng.below(9000)),
                };
                let stop = *rng.pick(&["toolUse", "stop", "aborted", "error", "length"]);
                let args = *rng.pick(&[r#"{"path":"a.rs"}"#, r#"{"n":1e400}"#, r#"{"k":1,"k":2}"#, "{}"]);
                format!(r#""type":"message",{head},"message":{{"role":"assistant","content":[{{"type":"thinking","thinking":"{text}"}},{{"type":"text","text":"{text}"}},{{"type":"toolCall","id":"c{i}","name":"read","arguments":{args}}}],"stopReason":"{stop}"{usage}}}"#)
            }
            10..=13 => {
                let content = if rng.below(4) == 0 { format!(r#""{text}""#) } else { format!(r#"[{{"type":"text","text":"{text}"}},{{"type":"text","text":"{text}"}}]"#) };
                // Now and then a repeated key or deep nesting in the content, which the direct pass refuses.
                let odd = match rng.below(6) {
                    0 => r#","details":{"a":1,"a":2}"#.to_string(),
                    1 => format!(r#","details":{}1{}"#, "[".repeat(150), "]".repeat(150)),
                    _ => String::new(),
                };
                format!(r#""type":"message",{head},"message":{{"role":"toolResult","toolCallId":"c","toolName":"read","content":{content},"isError":false{odd}}}"#)
            }
            14 if !ids.is_empty() => format!(r#""type":"label",{head},"targetId":"{}","label":"anchor:a{i}""#, rng.pick(&ids)),
            15 if !ids.is_empty() => format!(r#""type":"compaction",{head},"summary":"sum {text}","firstKeptEntryId":"{}","tokensBefore":9{}"#, rng.pick(&ids), if rng.below(2) == 0 { r#","systemMessage":{"role":"system","content":"sys prompt"}"# } else { "" }),
            16 if !ids.is_empty() => format!(r#""type":"context_edit",{head},"targetId":"{}","replacement":{}"#, rng.pick(&ids), if rng.below(3) == 0 { "null".to_string() } else { format!(r#"{{"content":"edited {text}"}}"#) }),
            17 => format!(r#""type":"message",{head},"message":{{"role":"system","content":"be brief","toolsAdded":[{{"name":"t","description":"d"}}]}}"#),
            18 => format!(r#""type":"branch_summary",{head},"fromId":"x","summary":"{text}""#),
            _ => format!(r#""type":"custom_message",{head},"customType":"n","content":"{text}","display":true"#),
        };
        lines.push(format!("{{{body}}}"));
        ids.push(id);
    }
    lines.join("\n") + "\n"
}

/// Every `.jsonl` fixture (`tests/fixtures` and `tests/fixtures/profiles`), sorted.
pub(crate) fn fixture_files() -> Vec<std::path::PathBuf> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    let mut files: Vec<_> = ["", "/profiles"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(format!("{root}{dir}")).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "fixtures found: {}", files.len());
    files
}
