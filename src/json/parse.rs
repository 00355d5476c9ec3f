//! The reader: exactly the texts `JSON.parse` accepts, into a [`Value`] that borrows from the text.

use crate::prelude::*;
use core::fmt;

use super::num;
use super::str::{hex_value, Str};
use super::{Num, Value};

/// Why a text is not JSON, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Error {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Byte offset in the text where it went wrong.
    pub offset: usize,
}

/// The kinds of [`Error`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// A character the grammar does not allow here.
    Unexpected(char),
    /// The text ended inside a value (or held no value).
    End,
    /// Arrays and objects nested deeper than the limit given to [`parse`].
    TooDeep,
}

impl Error {
    /// The message `Display` prints, built with `push_str` (no formatting machinery in the plugin's
    /// ingest path).
    pub fn message(&self) -> String {
        let mut out = String::new();
        match self.kind {
            ErrorKind::End => return "unexpected end of input".into(),
            ErrorKind::TooDeep => out.push_str("nested too deeply"),
            ErrorKind::Unexpected(c) if c.is_control() || c.is_whitespace() => {
                out.push_str("unexpected character ");
                super::push_code_point(&mut out, c);
            }
            ErrorKind::Unexpected(c) => {
                out.push_str("unexpected character '");
                out.push(c);
                out.push('\'');
            }
        }
        // Columns count bytes from 1, which is what an editor shows for ASCII lines.
        out.push_str(" at column ");
        super::push_uint(&mut out, self.offset + 1);
        out
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl core::error::Error for Error {}

/// A container being filled: its items so far and, in an object, the key waiting for its value.
enum Frame<'a> {
    Arr(Vec<Value<'a>>),
    Obj(Vec<(Str<'a>, Value<'a>)>, Str<'a>),
}

/// Parses `text` exactly as `JSON.parse` would accept it, with arrays and objects nested at most
/// `max_depth` levels (deeper is [`ErrorKind::TooDeep`]).
///
/// Strings are not decoded: they borrow their raw text from `text`. Numbers keep their literal and are
/// correctly rounded (±Infinity beyond ±1.8e308, like JavaScript). The reader keeps its own stack of open
/// containers, so the depth limit bounds memory, not the call stack.
pub fn parse(text: &str, max_depth: usize) -> Result<Value<'_>, Error> {
    Reader { text, b: text.as_bytes(), i: 0 }.run(max_depth)
}

struct Reader<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
}

impl<'a> Reader<'a> {
    fn run(&mut self, max_depth: usize) -> Result<Value<'a>, Error> {
        let mut stack: Vec<Frame<'a>> = Vec::new();
        'value: loop {
            // Every value read inside an object (after `{` or `,`) follows a key.
            if let Some(Frame::Obj(_, key)) = stack.last_mut() {
                *key = self.key()?;
            }
            let mut value = match self.peek_ws() {
                Some(open @ (b'{' | b'[')) => {
                    if stack.len() >= max_depth {
                        return Err(Error { kind: ErrorKind::TooDeep, offset: self.i });
                    }
                    self.i += 1;
                    let obj = open == b'{';
                    // `{` + 2 is `}` and `[` + 2 is `]`.
                    if self.peek_ws() == Some(open + 2) {
                        self.i += 1;
                        if obj { Value::Obj(Vec::new()) } else { Value::Arr(Vec::new()) }
                    } else {
                        stack.push(if obj { Frame::Obj(Vec::new(), Str::plain("")) } else { Frame::Arr(Vec::new()) });
                        continue 'value;
                    }
                }
                Some(b'"') => Value::Str(self.string()?),
                Some(b't') => self.word("true").map(|()| Value::Bool(true))?,
                Some(b'f') => self.word("false").map(|()| Value::Bool(false))?,
                Some(b'n') => self.word("null").map(|()| Value::Null)?,
                Some(b'-' | b'0'..=b'9') => self.number()?,
                _ => return Err(self.unexpected()),
            };
            // Hand the finished value to its container; close containers as long as they end here.
            loop {
                let Some(frame) = stack.last_mut() else {
                    return if self.peek_ws().is_none() { Ok(value) } else { Err(self.unexpected()) };
                };
                let close = match frame {
                    Frame::Arr(items) => {
                        items.push(value);
                        b']'
                    }
                    Frame::Obj(members, key) => {
                        members.push((core::mem::replace(key, Str::plain("")), value));
                        b'}'
                    }
                };
                match self.peek_ws() {
                    Some(b',') => {
                        self.i += 1;
                        continue 'value;
                    }
                    Some(c) if c == close => self.i += 1,
                    _ => return Err(self.unexpected()),
                }
                value = match stack.pop() {
                    Some(Frame::Arr(items)) => Value::Arr(items),
                    Some(Frame::Obj(members, _)) => Value::Obj(members),
                    None => Value::Null, // not reached: the stack had a last frame
                };
            }
        }
    }

    /// The next byte after any whitespace (which is skipped).
    fn peek_ws(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
        self.b.get(self.i).copied()
    }

    /// Error at the current position: the character there, or the end of the text.
    fn unexpected(&self) -> Error {
        self.error_at(self.i)
    }

    fn error_at(&self, offset: usize) -> Error {
        match self.text.get(offset..).and_then(|rest| rest.chars().next()) {
            Some(c) => Error { kind: ErrorKind::Unexpected(c), offset },
            None => Error { kind: ErrorKind::End, offset },
        }
    }

    /// An object key and its colon, after any whitespace.
    fn key(&mut self) -> Result<Str<'a>, Error> {
        if !matches!(self.peek_ws(), Some(b'"')) {
            return Err(self.unexpected());
        }
        let key = self.string()?;
        if !matches!(self.peek_ws(), Some(b':')) {
            return Err(self.unexpected());
        }
        self.i += 1;
        Ok(key)
    }

    /// Reads the literal `word` (the caller makes its value: a `Value` passed through here would be moved
    /// in and out, a big copy in code).
    fn word(&mut self, word: &str) -> Result<(), Error> {
        for (k, &w) in word.as_bytes().iter().enumerate() {
            if self.b.get(self.i + k).copied() != Some(w) {
                return Err(self.error_at(self.i + k));
            }
        }
        self.i += word.len();
        Ok(())
    }

    fn number(&mut self) -> Result<Value<'a>, Error> {
        let start = self.i;
        let (end, _) = num::scan(self.b, start).map_err(|at| self.error_at(at))?;
        self.i = end;
        Ok(Value::Num(Num::parsed(self.text.get(start..end).unwrap_or(""))))
    }

    /// A string starting at the opening quote; validates escapes and rejects raw control characters.
    fn string(&mut self) -> Result<Str<'a>, Error> {
        let b = self.b;
        let start = self.i + 1;
        let mut i = start;
        // Bytes the escapes take beyond the one UTF-16 unit each stands for (see `Str::units`).
        let mut excess = 0u32;
        loop {
            // Eight bytes at a time up to the next quote, backslash or control byte.
            while let Some(chunk) = b.get(i..i + 8) {
                let mut word = [0u8; 8];
                word.copy_from_slice(chunk);
                let hits = special_bytes(u64::from_le_bytes(word));
                if hits != 0 {
                    i += (hits.trailing_zeros() / 8) as usize;
                    break;
                }
                i += 8;
            }
            match b.get(i) {
                None => return Err(self.error_at(i)),
                Some(b'"') => {
                    self.i = i + 1;
                    return Ok(Str::raw_measured(self.text.get(start..i).unwrap_or(""), excess));
                }
                Some(b'\\') => {
                    let len = match b.get(i + 1) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => 2,
                        Some(b'u') => {
                            if let Some(bad) = (i + 2..i + 6).find(|&k| b.get(k).and_then(|&d| hex_value(d)).is_none()) {
                                return Err(self.error_at(bad));
                            }
                            6
                        }
                        _ => return Err(self.error_at(i + 1)),
                    };
                    excess = excess.saturating_add(len - 1);
                    i += len as usize;
                }
                Some(&c) if c < 0x20 => return Err(self.error_at(i)),
                Some(_) => i += 1,
            }
        }
    }
}

/// A mask with the high bit set in the lowest byte of `w` (little-endian) that is `"`, `\` or below
/// 0x20; bytes above the first such one may be flagged falsely, which `trailing_zeros` never looks at.
fn special_bytes(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let quote = zero(w ^ (ONES * u64::from(b'"')));
    let backslash = zero(w ^ (ONES * u64::from(b'\\')));
    let control = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
    quote | backslash | control
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_match_format() {
        for c in ['\u{0}', '\u{1f}', '\t', '\u{85}', '\u{3000}', '\u{feff}', 'x', 'é', '😀'] {
            for offset in [0, 9, 12_345] {
                let e = Error { kind: ErrorKind::Unexpected(c), offset };
                let want = if c.is_control() || c.is_whitespace() {
                    format!("unexpected character U+{:04X} at column {}", c as u32, offset + 1)
                } else {
                    format!("unexpected character '{c}' at column {}", offset + 1)
                };
                assert_eq!(e.message(), want);
            }
        }
        assert_eq!(Error { kind: ErrorKind::TooDeep, offset: 4 }.to_string(), "nested too deeply at column 5");
        assert_eq!(Error { kind: ErrorKind::End, offset: 4 }.to_string(), "unexpected end of input");
    }

    fn err(text: &str) -> String {
        parse(text, 1000).err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn errors_name_the_character_and_column() {
        assert_eq!(err("{\"a\":x}"), "unexpected character 'x' at column 6");
        assert_eq!(err("[1,]"), "unexpected character ']' at column 4");
        assert_eq!(err("01"), "unexpected character '1' at column 2");
        assert_eq!(err("\"a\nb\""), "unexpected character U+000A at column 3");
        assert_eq!(err("\"\\x\""), "unexpected character 'x' at column 3");
        assert_eq!(err("\"\\u12g4\""), "unexpected character 'g' at column 6");
        assert_eq!(err("[1"), "unexpected end of input");
        assert_eq!(err(""), "unexpected end of input");
        assert_eq!(err("tru"), "unexpected end of input");
        assert_eq!(err("nul1"), "unexpected character '1' at column 4");
        assert_eq!(err("1 2"), "unexpected character '2' at column 3");
        assert_eq!(err("\u{a0}1"), "unexpected character U+00A0 at column 1");
        assert_eq!(err("[[1]]").len(), 0);
    }

    #[test]
    fn depth_is_bounded_without_recursion() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(parse(&deep(5), 5).is_ok());
        assert_eq!(parse(&deep(6), 5).map(|_| ()), Err(Error { kind: ErrorKind::TooDeep, offset: 5 }));
        assert_eq!(err(&deep(2000)), "nested too deeply at column 1001");
        assert!(parse(&"[".repeat(1_000_000), 2_000_000).is_err());
    }

    #[test]
    fn special_bytes_finds_the_first_one() {
        for (text, at) in [(*b"abcdefgh", 8), (*b"ab\"def\\h", 2), (*b"a\x01\"\\\\\\\\\\", 1), (*b"\xff\xfe\x7f\x20!#[]", 8)] {
            let hits = special_bytes(u64::from_le_bytes(text));
            assert_eq!(if hits == 0 { 8 } else { hits.trailing_zeros() / 8 }, at);
        }
    }
}
