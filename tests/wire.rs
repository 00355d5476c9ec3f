//! One test per way `JSON.parse` and plain `serde_json` disagree on a session line, and what the reader
//! (`session::wire`) makes of each.

use std::borrow::Cow;

use pi_tree_navigator::session::wire::{keeping_calls, read, Content, Entry, Js, JsStr, Obj, ReadError, MAX_LINE_NESTING};

fn assistant(args: &str, extra: &str) -> String {
    format!(
        r#"{{"type":"message","id":"a","parentId":null,"timestamp":0,{extra}"message":{{"role":"assistant","content":[{{"type":"toolCall","id":"c","name":"t","arguments":{args}}}]}}}}"#
    )
}

/// What the reader takes from a line: id, `JSON.stringify(arguments).length`, first text.
fn facts(line: &str) -> Result<(String, Option<usize>, Js<'static>), ReadError> {
    read(line, |e| {
        let Content::Blocks(blocks) = &e.message.value.content else { panic!("no blocks") };
        let id = e.id.text().unwrap_or_default().into_owned();
        let ts = match &e.timestamp {
            Js::Str(s) => Js::Str(JsStr::Utf8(Cow::Owned(s.text().into_owned()))),
            Js::Num(x) => Js::Num(*x),
            _ => Js::Absent,
        };
        (id, blocks[0].arguments.len.0, ts)
    })
}

#[test]
fn a_pi_line_takes_the_direct_pass() {
    let line = assistant(r#"{"path":"a.rs","n":[1,2.5,true,null]}"#, "");
    assert!(serde_json::from_str::<Obj<Entry<'_>>>(&line).is_ok());
    assert_eq!(facts(&line).unwrap().1, Some(r#"{"path":"a.rs","n":[1,2.5,true,null]}"#.len()));
}

#[test]
fn unpaired_surrogate_escapes_are_read_as_wtf8() {
    let line = assistant(r#"{"s":"\ud83d","\ude00k":"x\ud83d\ude00"}"#, r#""label":"half \ud83d","#);
    assert!(serde_json::from_str::<Obj<Entry<'_>>>(&line).is_err(), "serde_json alone refuses it");
    // JSON.stringify writes each unpaired surrogate as a 6-character escape, a pair as one character (2 units).
    assert_eq!(facts(&line).unwrap().1, Some(r#"{"s":"\ud83d","\ude00k":"x😀"}"#.len() - 4 + 2));
    let text = r#"{"type":"label","id":"l","targetId":"a","label":"half \ud83d"}"#;
    let label = read(text, |e| (e.label.units(), e.label.text().map(Cow::into_owned))).unwrap();
    assert_eq!(label, (6, Some("half \u{fffd}".into())));
}

#[test]
fn a_repeated_key_keeps_its_last_value() {
    // serde's derive refuses a repeated field; JSON.parse keeps the last value (at the first place).
    let line = assistant(r#"{"a":1,"b":2,"a":[1,2]}"#, r#""id":"first","#);
    assert!(serde_json::from_str::<Obj<Entry<'_>>>(&line).is_err(), "serde's derive refuses it");
    assert_eq!(facts(&line).unwrap().0, "first", "the later id wins");
    assert_eq!(facts(&line).unwrap().1, Some(r#"{"a":[1,2],"b":2}"#.len()));
}

#[test]
fn numbers_beyond_the_double_range_are_infinite() {
    let line = assistant(r#"{"x":1e400,"y":-1e999}"#, "");
    assert!(serde_json::from_str::<Obj<Entry<'_>>>(&line).is_err(), "serde_json alone refuses it");
    // JSON.stringify writes ±Infinity as null.
    assert_eq!(facts(&line).unwrap().1, Some(r#"{"x":null,"y":null}"#.len()));
    let line = assistant("{}", "").replace(r#""timestamp":0"#, r#""timestamp":1e400"#);
    assert_eq!(facts(&line).unwrap().2, Js::Num(f64::INFINITY));
}

#[test]
fn a_line_read_again_from_its_tree_reads_as_the_direct_pass_does() {
    // The tree of a refused line is written out (strings with an unpaired surrogate or a leading U+0000 and
    // ±∞ tagged) and read by the direct pass: what could read as a tag, −0 and numbers at the double's
    // edges read as the direct pass reads them.
    let args = r#"{"\u0000k":"\u0000v","n":[1e21,5e-324,0.1,-0,-0.0,123456789012345678901234,1.7976931348623157e308]}"#;
    let extra = r#""label":"\u0000x","timestamp":-0,"#;
    let direct = assistant(args, extra);
    let refused = direct.replacen(r#""id":"a""#, r#""id":"z","id":"a""#, 1);
    assert!(serde_json::from_str::<Obj<Entry<'_>>>(&refused).is_err(), "a repeated key takes the tree's pass");
    let label = |line: &str| read(line, |e| (e.label.units(), e.label.text().map(Cow::into_owned))).unwrap();
    assert_eq!(label(&refused), (2, Some("\u{0}x".into())));
    assert_eq!(label(&refused), label(&direct));
    let (id, len, ts) = facts(&refused).unwrap();
    assert_eq!((id.as_str(), len), ("a", facts(&direct).unwrap().1));
    assert!(matches!(ts, Js::Num(x) if x == 0.0 && x.is_sign_negative()), "{ts:?}");
    assert_eq!(kept(&refused), kept(&direct));
}

#[test]
fn nesting_past_serde_json_s_limit_is_read_up_to_ours() {
    for depth in [127, 128, 129, 1000] {
        let args = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert_eq!(facts(&assistant(&args, "")).unwrap().1, Some(2 * depth), "depth {depth}");
    }
    let depth = MAX_LINE_NESTING - 3;
    let args = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    // The line itself, its message, the content array and the block: 4 levels above the arguments.
    assert_eq!(facts(&assistant(&args, "")), Err(ReadError::TooDeep(depth + 4)));
    // Depth and a surrogate together take the JSON.parse pass, bounded the same way.
    let args = format!(r#"["\ud800",{}{}]"#, "[".repeat(300), "]".repeat(300));
    assert_eq!(facts(&assistant(&args, "")).unwrap().1, Some(2 + 8 + 1 + 600));
}

#[test]
fn what_json_parse_refuses_stays_refused() {
    for bad in ["{", r#"{"a":01}"#, r#"{"a":"\x"}"#, "{\"a\":\"\u{1}\"}", r#"{"a":1,}"#, "{} x", r#"{"a":"\ud800"#] {
        assert!(matches!(read(bad, |_| ()), Err(ReadError::Malformed(_))), "{bad:?}");
    }
    // A raw control character is refused in tool-call argument keys and values too.
    for args in ["{\"a\u{1}\":1}", "{\"a\":\"\u{1f}\"}", "[\"\t\"]"] {
        assert!(matches!(read(&assistant(args, ""), |_| ()), Err(ReadError::Malformed(_))), "{args:?}");
    }
    assert_eq!(read("[1]", |_| ()), Err(ReadError::NotAnObject));
    assert_eq!(read(r#"["\ud800"]"#, |_| ()), Err(ReadError::NotAnObject));
}

#[test]
fn whole_entries_for_views_are_read_up_to_their_own_depth() {
    // The debug build's frames are several times the release module's: a large stack for this one.
    std::thread::Builder::new().stack_size(256 << 20).spawn(views_up_to_their_depth).unwrap().join().unwrap();
}

fn views_up_to_their_depth() {
    use pi_tree_navigator::session::wire::{parse_value, MAX_VALUE_NESTING};
    let nested = |depth: usize| format!(r#"{{"a":"\ud800","b":{}{}}}"#, "[".repeat(depth - 1), "]".repeat(depth - 1));
    let value = parse_value(&nested(MAX_VALUE_NESTING)).expect("read");
    assert_eq!(value["a"], "\u{fffd}");
    let err = parse_value(&nested(MAX_VALUE_NESTING + 1)).unwrap_err();
    assert!(err.contains("levels deep"), "{err}");
}

/// The arguments' length and value as a line read with calls kept (`keeping_calls`: `stats`' loops) has them.
fn kept(line: &str) -> (Option<usize>, Option<serde_json::Value>) {
    keeping_calls(true, || {
        read(line, |e| {
            let Content::Blocks(blocks) = &e.message.value.content else { panic!("no blocks") };
            (blocks[0].arguments.len.0, blocks[0].arguments.value.as_deref().cloned())
        })
    })
    .unwrap()
}

#[test]
fn kept_arguments_are_the_value_json_parse_reads_measured_the_same() {
    for args in [r#"{"path":"a.rs","n":[1,2.5,true,null]}"#, r#"{"s":"\ud83d","\ude00k":"x\ud83d\ude00"}"#, r#"{"a":1,"b":2,"a":[1,2]}"#, r#"{"x":1e400,"n":1.0}"#] {
        let line = assistant(args, "");
        assert_eq!(kept(&line).0, facts(&line).unwrap().1, "{args}: the same length kept or not");
    }
    // Keys in order, a repeated key's last value, whole numbers as integers, ±∞ and unpaired surrogates as
    // JSON.stringify writes them (null, U+FFFD): the canonical text the loop rule digests.
    let value = |args: &str| kept(&assistant(args, "")).1.unwrap().to_string();
    assert_eq!(value(r#"{"b":2,"a":1,"b":[1,2.5]}"#), r#"{"a":1,"b":[1,2.5]}"#);
    assert_eq!(value(r#"{"x":1e400,"n":1.0,"s":"\ud83d!"}"#), "{\"n\":1,\"s\":\"\u{fffd}!\",\"x\":null}");
    // Not kept: nothing built.
    assert_eq!(read(&assistant("{}", ""), |e| match &e.message.value.content {
        Content::Blocks(b) => b[0].arguments.value.is_none(),
        _ => false,
    }), Ok(true));
}

#[test]
fn kept_arguments_nested_deep_are_measured_past_the_kept_levels() {
    // Kept as a value 128 levels deep (deeper parts as null), measured to the end: the reader's bound holds.
    for depth in [127, 128, 129, 1000] {
        let args = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        let (len, value) = kept(&assistant(&args, ""));
        assert_eq!(len, Some(2 * depth), "depth {depth}");
        let shown = value.unwrap().to_string();
        assert_eq!(shown.len(), if depth <= 128 { 2 * depth } else { 2 * 128 + 4 }, "depth {depth}: {shown:.40}");
    }
    // An object 128 levels deep keeps its keys, its values past the levels as null.
    let args = format!(r#"{}{{"k":[1],"j":2}}{}"#, "[".repeat(127), "]".repeat(127));
    let shown = kept(&assistant(&args, "")).1.unwrap().to_string();
    assert!(shown.ends_with(&format!(r#"{{"j":null,"k":null}}{}"#, "]".repeat(127))), "{shown:.60}");
}
