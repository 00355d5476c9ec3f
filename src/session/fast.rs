//! The fast path for reading an entry line: typed, borrowing deserialisation that never builds a JSON
//! tree, never copies a string without escapes, and skips what no decision needs (image data, tool-call
//! argument trees, details). Ingest of a large session is dominated by this.
//!
//! It answers only for the shapes pi writes. Anything else — a field of an unexpected type, a duplicate
//! key, an unpaired surrogate escape — makes it give up (`None`), and the exact general path in
//! [`super::entry`] reads the line instead; both paths produce the same [`Entry`].

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::entry::{assistant_usage_from, ceil_quarter, hint_of, AssistantInfo, Entry, EntryKind, Line, Role};
use crate::js::{number_to_js_string, parse_iso_date, quoted_len, utf16_len};
use crate::text::strip_branch_summary_boilerplate;

/// Longest text kept from a string that had escapes (so could not be borrowed); enough for previews.
const PREFIX_BYTES: usize = 1024;

/// A string measured in UTF-16 units, with its text borrowed from the line or — when it had escapes —
/// only its first [`PREFIX_BYTES`] kept.
#[derive(Debug, Default)]
struct Measured<'a> {
    units: usize,
    text: Cow<'a, str>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Measured<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Measured<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(Measured { units: utf16_len(s), text: Cow::Borrowed(s) })
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
                let mut end = s.len().min(PREFIX_BYTES);
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                Ok(Measured { units: utf16_len(s), text: Cow::Owned(s[..end].to_string()) })
            }
        }
        d.deserialize_str(V(std::marker::PhantomData))
    }
}

/// `JSON.stringify(value).length` of a JSON value, measured while it is read; duplicate object keys give
/// up (JavaScript keeps only the last one, which a stream cannot know in advance).
#[derive(Debug, Default)]
struct StringifiedLen(usize);

impl<'de> Deserialize<'de> for StringifiedLen {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LenVisitor).map(StringifiedLen)
    }
}

struct LenVisitor;

impl<'de> Visitor<'de> for LenVisitor {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<usize, E> {
        Ok(if b { 4 } else { 5 })
    }
    fn visit_unit<E>(self) -> Result<usize, E> {
        Ok(4)
    }
    fn visit_u64<E>(self, n: u64) -> Result<usize, E> {
        Ok(number_to_js_string(n as f64).len())
    }
    fn visit_i64<E>(self, n: i64) -> Result<usize, E> {
        Ok(number_to_js_string(n as f64).len())
    }
    fn visit_f64<E>(self, n: f64) -> Result<usize, E> {
        Ok(number_to_js_string(n).len())
    }
    fn visit_str<E>(self, s: &str) -> Result<usize, E> {
        Ok(quoted_len(s, None))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
        let (mut len, mut n) = (2, 0);
        while let Some(StringifiedLen(item)) = seq.next_element()? {
            len += item;
            n += 1;
        }
        Ok(len + n.max(1) - 1)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<usize, A::Error> {
        let (mut len, mut keys) = (2, Vec::<Cow<'de, str>>::new());
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if keys.contains(&key) {
                return Err(de::Error::custom("duplicate key"));
            }
            let StringifiedLen(value) = map.next_value()?;
            len += quoted_len(&key, None) + 1 + value;
            keys.push(key);
        }
        Ok(len + keys.len().max(1) - 1)
    }
}

/// `T` read from a JSON object only. (Derived structs also accept arrays, positionally; JSON.parse-based
/// reading never does, so an array where an object belongs must not look like one.)
#[derive(Debug, Default)]
struct Obj<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Obj)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// A `timestamp` as `new Date(x).getTime()` sees it.
#[derive(Debug, Default)]
enum Stamp {
    #[default]
    Missing,
    Ms(Option<f64>),
}

impl<'de> Deserialize<'de> for Stamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Stamp;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or a number")
            }
            fn visit_str<E>(self, s: &str) -> Result<Stamp, E> {
                Ok(Stamp::Ms(parse_iso_date(s)))
            }
            fn visit_u64<E>(self, n: u64) -> Result<Stamp, E> {
                Ok(Stamp::Ms(crate::js::date_ms(Some(&serde_json::Value::from(n)))))
            }
            fn visit_i64<E>(self, n: i64) -> Result<Stamp, E> {
                Ok(Stamp::Ms(crate::js::date_ms(Some(&serde_json::Value::from(n)))))
            }
            fn visit_f64<E>(self, n: f64) -> Result<Stamp, E> {
                Ok(Stamp::Ms(serde_json::Number::from_f64(n).and_then(|n| crate::js::date_ms(Some(&n.into())))))
            }
            fn visit_unit<E>(self) -> Result<Stamp, E> {
                Ok(Stamp::Ms(Some(0.0)))
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize, Debug, Default)]
struct Block<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<Measured<'a>>,
    #[serde(borrow, default)]
    thinking: Option<Measured<'a>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    /// Absent arguments print as `undefined` (9 chars) in pi's safe stringify; `null` as `null` (4).
    #[serde(default = "undefined_len")]
    arguments: StringifiedLen,
}

fn undefined_len() -> StringifiedLen {
    StringifiedLen(9)
}

/// Message `content`: a string or an array of blocks.
#[derive(Debug)]
enum Content<'a> {
    Text(Measured<'a>),
    Blocks(Vec<Block<'a>>),
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an array of blocks")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(Content::Text(Measured { units: utf16_len(s), text: Cow::Borrowed(s) }))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
                let Measured { units, text } = Measured::deserialize(de::value::StrDeserializer::<E>::new(s))?;
                Ok(Content::Text(Measured { units, text: Cow::Owned(text.into_owned()) }))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::new();
                while let Some(Obj(b)) = seq.next_element()? {
                    blocks.push(b);
                }
                Ok(Content::Blocks(blocks))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

#[derive(Deserialize, Debug, Default)]
struct Usage {
    input: Option<f64>,
    output: Option<f64>,
    #[serde(rename = "cacheRead")]
    cache_read: Option<f64>,
    #[serde(rename = "cacheWrite")]
    cache_write: Option<f64>,
    #[serde(rename = "totalTokens")]
    total_tokens: Option<f64>,
}

#[derive(Deserialize, Debug, Default)]
struct Message<'a> {
    #[serde(borrow, default)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<Content<'a>>,
    #[serde(default)]
    usage: Option<Obj<Usage>>,
    #[serde(rename = "stopReason", borrow, default)]
    stop_reason: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    command: Option<Measured<'a>>,
    #[serde(borrow, default)]
    output: Option<Measured<'a>>,
    #[serde(borrow, default)]
    summary: Option<Measured<'a>>,
}

#[derive(Deserialize, Debug, Default)]
struct Wire<'a> {
    #[serde(rename = "type", borrow, default)]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(rename = "parentId", borrow, default)]
    parent_id: Option<Cow<'a, str>>,
    #[serde(default)]
    timestamp: Stamp,
    #[serde(borrow, default)]
    message: Option<Obj<Message<'a>>>,
    #[serde(borrow, default)]
    content: Option<Content<'a>>,
    #[serde(borrow, default)]
    summary: Option<Measured<'a>>,
    #[serde(rename = "firstKeptEntryId", borrow, default)]
    first_kept: Option<Cow<'a, str>>,
    #[serde(rename = "targetId", borrow, default)]
    target: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    label: Option<Cow<'a, str>>,
}

/// Reads a line the fast way, or `None` when only the general path can read it exactly (headers go
/// there too: they are one line per file).
pub(super) fn parse_line_fast(line: &str, legacy_v2: bool) -> Option<Line> {
    let Obj(wire): Obj<Wire<'_>> = serde_json::from_str(line).ok()?;
    let ty = wire.ty.as_deref().unwrap_or("");
    if ty == "session" {
        return None;
    }
    let id = wire.id.as_deref()?;
    let mut entry = Entry {
        id: id.into(),
        parent_id: wire.parent_id.as_deref().map(Box::from),
        timestamp_ms: match wire.timestamp {
            Stamp::Missing => None,
            Stamp::Ms(ms) => ms,
        },
        kind: EntryKind::Unknown(ty.into()),
        tokens: 0.0,
        usage: None,
        hint: None,
    };
    match ty {
        "message" => fill_message(&mut entry, wire.message?.0, legacy_v2)?,
        "custom_message" => {
            entry.kind = EntryKind::CustomMessage;
            entry.tokens = content_tokens(wire.content.as_ref(), true);
            entry.hint = content_hint(wire.content.as_ref());
        }
        "branch_summary" => {
            let summary = wire.summary.unwrap_or_default();
            entry.kind = EntryKind::BranchSummary { emits: summary.units > 0 };
            entry.tokens = ceil_quarter(summary.units);
            entry.hint = hint_of(strip_branch_summary_boilerplate(&summary.text));
        }
        "compaction" => {
            entry.kind = EntryKind::Compaction { first_kept: wire.first_kept.as_deref().map(Box::from) };
            entry.tokens = ceil_quarter(wire.summary.map_or(0, |s| s.units));
        }
        "label" => {
            entry.kind = EntryKind::Label {
                target: wire.target.as_deref().unwrap_or("").into(),
                label: wire.label.as_deref().filter(|l| !l.is_empty()).map(Box::from),
            };
        }
        "thinking_level_change" => entry.kind = EntryKind::ThinkingLevelChange,
        "model_change" => entry.kind = EntryKind::ModelChange,
        "custom" => entry.kind = EntryKind::Custom,
        "session_info" => entry.kind = EntryKind::SessionInfo,
        "usage" => entry.kind = EntryKind::Usage,
        "context_edit" => entry.kind = EntryKind::ContextEdit,
        _ => {}
    }
    Some(Line::Entry(entry))
}

fn fill_message(entry: &mut Entry, msg: Message<'_>, legacy_v2: bool) -> Option<()> {
    let content = msg.content.as_ref();
    let role = match msg.role.as_deref().unwrap_or("") {
        "user" => {
            entry.tokens = content_tokens(content, false);
            entry.hint = content_hint(content);
            Role::User
        }
        "assistant" => {
            let mut chars = 0;
            let mut info = AssistantInfo { stop_reason: msg.stop_reason.as_deref().map(Box::from), ..AssistantInfo::default() };
            // pi iterates an assistant's content as an array; anything else counts nothing.
            if let Some(Content::Blocks(blocks)) = content {
                for b in blocks {
                    match b.ty.as_deref() {
                        Some("text") => chars += b.text.as_ref().map_or(0, |t| t.units),
                        Some("thinking") => chars += b.thinking.as_ref().map_or(0, |t| t.units),
                        Some("toolCall") => {
                            let name = b.name.as_deref().unwrap_or("");
                            chars += utf16_len(name) + b.arguments.0;
                            info.tool_calls.push((b.id.as_deref().unwrap_or("").into(), name.into()));
                        }
                        _ => {}
                    }
                }
            } else if content.is_some() {
                return None; // a string content: leave the odd shape to the general path
            }
            let u = msg.usage.as_ref().map(|Obj(u)| u);
            let io = |f: fn(&Usage) -> Option<f64>| u.and_then(f).unwrap_or(0.0);
            info.zero_io = io(|u| u.input) == 0.0 && io(|u| u.output) == 0.0;
            entry.tokens = ceil_quarter(chars);
            entry.usage = assistant_usage_from(
                msg.stop_reason.as_deref(),
                u.is_some(),
                [io(|u| u.total_tokens), io(|u| u.input), io(|u| u.output), io(|u| u.cache_read), io(|u| u.cache_write)],
            );
            entry.hint = content_hint(content);
            Role::Assistant(Box::new(info))
        }
        "toolResult" => {
            entry.tokens = content_tokens(content, true);
            Role::ToolResult
        }
        "custom" => {
            entry.tokens = content_tokens(content, true);
            Role::Custom
        }
        "hookMessage" if legacy_v2 => {
            entry.tokens = content_tokens(content, true);
            Role::Custom
        }
        "bashExecution" => {
            entry.tokens = ceil_quarter(msg.command.map_or(0, |m| m.units) + msg.output.map_or(0, |m| m.units));
            Role::BashExecution
        }
        "branchSummary" => {
            entry.tokens = ceil_quarter(msg.summary.map_or(0, |m| m.units));
            Role::BranchSummary
        }
        "compactionSummary" => {
            entry.tokens = ceil_quarter(msg.summary.map_or(0, |m| m.units));
            Role::CompactionSummary
        }
        "system" => Role::System,
        other => Role::Other(other.into()),
    };
    entry.kind = EntryKind::Message(role);
    Some(())
}

fn content_tokens(content: Option<&Content<'_>>, images_count: bool) -> f64 {
    let chars = match content {
        Some(Content::Text(t)) => t.units,
        Some(Content::Blocks(blocks)) => blocks
            .iter()
            .map(|b| match b.ty.as_deref() {
                Some("text") => b.text.as_ref().map_or(0, |t| t.units),
                Some("image") if images_count => 4800,
                _ => 0,
            })
            .sum(),
        None => 0,
    };
    ceil_quarter(chars)
}

/// The preview of a content: the string, or its text blocks joined by spaces (whitespace runs collapse,
/// so joining the kept prefixes gives the same preview as joining the whole texts).
fn content_hint(content: Option<&Content<'_>>) -> Option<Box<str>> {
    match content? {
        Content::Text(t) => hint_of(&t.text),
        Content::Blocks(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|b| b.ty.as_deref() == Some("text"))
                .filter_map(|b| b.text.as_ref().map(|t| &*t.text))
                .collect();
            hint_of(&texts.join(" "))
        }
    }
}
