//! JSON strings that stay undecoded until asked: [`Str`].

use std::borrow::Cow;
use std::fmt;

/// A JSON string: either text read from JSON and kept as written (escapes undecoded), or plain text.
///
/// Measuring ([`Str::units`]), comparing ([`Str::eq_str`]) and previewing ([`Str::prefix`]) work on the
/// raw text without decoding it whole. Like JavaScript strings, a `Str` read from JSON can hold unpaired
/// surrogates (`"\ud800"`); they count as one UTF-16 unit, decode to U+FFFD, and are written back as
/// `\udXXX` escapes.
#[derive(Clone)]
pub struct Str<'a> {
    text: Cow<'a, str>,
    form: Form,
}

/// What `Str::text` holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// Plain text, any characters (built by code).
    Plain,
    /// The body of a JSON string without escapes: plain text that is known to hold no `"`, `\` or
    /// control character, so it needs no escaping on output.
    Clean,
    /// The body of a JSON string with at least one escape, as written.
    Escaped,
}

/// One piece of a decoded string: a character or an unpaired surrogate (a JavaScript-only code unit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Piece {
    Char(char),
    Lone(u16),
}

impl<'a> Str<'a> {
    /// A string from the body of a JSON string literal (between the quotes), already validated by the
    /// reader. `escaped` tells whether it holds a backslash.
    pub(crate) fn raw(body: &'a str, escaped: bool) -> Self {
        Str { text: Cow::Borrowed(body), form: if escaped { Form::Escaped } else { Form::Clean } }
    }

    /// Plain text (no escapes are interpreted).
    pub fn plain(text: impl Into<Cow<'a, str>>) -> Self {
        Str { text: text.into(), form: Form::Plain }
    }

    /// Whether the text holds JSON escapes that decoding resolves.
    pub fn has_escapes(&self) -> bool {
        self.form == Form::Escaped
    }

    /// Length as JavaScript's `.length` counts it (UTF-16 units), computed without decoding or allocating.
    pub fn units(&self) -> usize {
        if self.form != Form::Escaped {
            return crate::js::utf16_len(&self.text);
        }
        // Every escape stands for exactly one UTF-16 unit (a surrogate pair is written as two escapes), so
        // count the raw bytes as units and take off what each escape spends beyond one.
        let b = self.text.as_bytes();
        let (mut units, mut i) = (utf16_units(b), 0);
        while let Some(at) = find_backslash(b, i) {
            let raw = if b.get(at + 1) == Some(&b'u') { 6 } else { 2 };
            units -= raw - 1;
            i = at + raw;
        }
        units
    }

    /// The decoded text; unpaired surrogates become U+FFFD. Borrows when there is nothing to decode.
    pub fn decoded(&self) -> Cow<'_, str> {
        self.decode_with('\u{fffd}')
    }

    /// The decoded text with every unpaired surrogate replaced by `lone`.
    pub fn decode_with(&self, lone: char) -> Cow<'_, str> {
        if self.form != Form::Escaped {
            return Cow::Borrowed(&self.text);
        }
        let mut out = String::with_capacity(self.text.len());
        self.for_each_piece(|piece| {
            out.push(match piece {
                Piece::Char(c) => c,
                Piece::Lone(_) => lone,
            });
            true
        });
        Cow::Owned(out)
    }

    /// Into an owned, decoded `String` (unpaired surrogates become U+FFFD).
    pub fn into_string(self) -> String {
        match self.form {
            Form::Escaped => self.decoded().into_owned(),
            Form::Plain | Form::Clean => self.text.into_owned(),
        }
    }

    /// The decoded start of the string: whole characters up to `max_units` UTF-16 units (a character
    /// that would cross the limit is left out). Only that start is decoded.
    pub fn prefix(&self, max_units: usize) -> Cow<'_, str> {
        if self.form != Form::Escaped {
            let mut units = 0;
            for (at, c) in self.text.char_indices() {
                units += c.len_utf16();
                if units > max_units {
                    return Cow::Borrowed(self.text.get(..at).unwrap_or(""));
                }
            }
            return Cow::Borrowed(&self.text);
        }
        let mut out = String::new();
        let mut units = 0;
        self.for_each_piece(|piece| {
            let (c, n) = match piece {
                Piece::Char(c) => (c, c.len_utf16()),
                Piece::Lone(_) => ('\u{fffd}', 1),
            };
            units += n;
            if units > max_units {
                return false;
            }
            out.push(c);
            true
        });
        Cow::Owned(out)
    }

    /// Whether the decoded string equals `s`, without allocating. An unpaired surrogate equals nothing a
    /// Rust string can hold (as in JavaScript, `"\ud800" !== "\ufffd"`).
    pub fn eq_str(&self, s: &str) -> bool {
        if self.form != Form::Escaped {
            return self.text == s;
        }
        // Decoding never makes a string longer in UTF-8 bytes, so a shorter raw text cannot match.
        if self.text.len() < s.len() {
            return false;
        }
        let mut rest = s.chars();
        let mut equal = true;
        self.for_each_piece(|piece| {
            equal = matches!(piece, Piece::Char(c) if rest.next() == Some(c));
            equal
        });
        equal && rest.next().is_none()
    }

    /// Whether two strings decode to the same JavaScript string.
    pub fn same_as(&self, other: &Str<'_>) -> bool {
        match (self.form == Form::Escaped, other.form == Form::Escaped) {
            (false, false) => self.text == other.text,
            (false, true) => other.eq_str(&self.text),
            (true, false) => self.eq_str(&other.text),
            (true, true) => {
                if self.text == other.text {
                    return true;
                }
                let mut theirs = Vec::new();
                other.for_each_piece(|p| {
                    theirs.push(p);
                    true
                });
                let mut it = theirs.into_iter();
                let mut equal = true;
                self.for_each_piece(|p| {
                    equal = it.next() == Some(p);
                    equal
                });
                equal && it.next().is_none()
            }
        }
    }

    /// Length of `JSON.stringify(s)` for this string: quotes, escapes, and six for each unpaired surrogate.
    pub fn quoted_len(&self) -> usize {
        match self.form {
            // A clean body holds nothing that needs escaping.
            Form::Clean => 2 + crate::js::utf16_len(&self.text),
            Form::Plain => crate::js::quoted_len(&self.text, None),
            Form::Escaped => {
                // Raw bytes counted as units, corrected by what each escape prints instead: `\n`, `\"`
                // and the like print as written (no correction), `\/` and `\uXXXX` do not.
                let b = self.text.as_bytes();
                let (mut len, mut i) = (2 + utf16_units(b), 0);
                while let Some(at) = find_backslash(b, i) {
                    let (out, raw) = escaped_out_len(b, at);
                    len = len + out - raw;
                    i = at + raw;
                }
                len
            }
        }
    }

    /// Appends `JSON.stringify(s)` to `out`.
    pub fn write_quoted(&self, out: &mut String) {
        out.push('"');
        match self.form {
            Form::Clean => out.push_str(&self.text),
            Form::Plain => {
                let mut last = 0;
                for (at, c) in self.text.char_indices() {
                    if c < ' ' || c == '"' || c == '\\' {
                        out.push_str(self.text.get(last..at).unwrap_or(""));
                        push_escape(out, c as u32);
                        last = at + 1;
                    }
                }
                out.push_str(self.text.get(last..).unwrap_or(""));
            }
            Form::Escaped => self.for_each_piece(|piece| {
                match piece {
                    Piece::Char(c) if c < ' ' || c == '"' || c == '\\' => push_escape(out, c as u32),
                    Piece::Char(c) => out.push(c),
                    Piece::Lone(unit) => push_escape(out, u32::from(unit)),
                }
                true
            }),
        }
        out.push('"');
    }

    /// Calls `f` on each decoded piece until it returns `false`. Only for `Form::Escaped` text, which the
    /// reader validated (any malformed escape is passed through as its characters).
    fn for_each_piece(&self, mut f: impl FnMut(Piece) -> bool) {
        let text: &str = &self.text;
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let Some(at) = find_backslash(b, i) else {
                for c in text.get(i..).unwrap_or("").chars() {
                    if !f(Piece::Char(c)) {
                        return;
                    }
                }
                return;
            };
            for c in text.get(i..at).unwrap_or("").chars() {
                if !f(Piece::Char(c)) {
                    return;
                }
            }
            let (piece, consumed) = decode_escape(b, at);
            if !f(piece) {
                return;
            }
            i = at + consumed;
        }
    }
}

/// Decodes the escape at `b[at] == b'\\'`: the piece and how many bytes it took (a surrogate pair is
/// one piece from two escapes).
fn decode_escape(b: &[u8], at: usize) -> (Piece, usize) {
    let simple = match b.get(at + 1) {
        Some(b'b') => '\u{8}',
        Some(b'f') => '\u{c}',
        Some(b'n') => '\n',
        Some(b'r') => '\r',
        Some(b't') => '\t',
        Some(b'u') => {
            let Some(unit) = hex4(b, at + 2) else { return (Piece::Char('\\'), 1) };
            if (0xD800..0xDC00).contains(&unit) && b.get(at + 6) == Some(&b'\\') && b.get(at + 7) == Some(&b'u') {
                if let Some(low @ 0xDC00..=0xDFFF) = hex4(b, at + 8) {
                    let c = 0x10000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                    return (Piece::Char(char::from_u32(c).unwrap_or('\u{fffd}')), 12);
                }
            }
            return match char::from_u32(u32::from(unit)) {
                Some(c) => (Piece::Char(c), 6),
                None => (Piece::Lone(unit), 6),
            };
        }
        // `\"`, `\\`, `\/` stand for themselves; anything else cannot pass the reader.
        Some(&c) if c.is_ascii() => char::from(c),
        _ => return (Piece::Char('\\'), 1),
    };
    (Piece::Char(simple), 2)
}

/// `JSON.stringify` output length of the escape at `b[at]` and the bytes it takes (see [`decode_escape`]).
fn escaped_out_len(b: &[u8], at: usize) -> (usize, usize) {
    match b.get(at + 1) {
        Some(b'u') => match decode_escape(b, at) {
            (Piece::Char(c), n) => (char_out_len(c), n),
            (Piece::Lone(_), n) => (6, n),
        },
        Some(b'/') => (1, 2),
        _ => (2, 2), // \" \\ \b \f \n \r \t all print as two characters
    }
}

fn char_out_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
        c if c < ' ' => 6,
        c => c.len_utf16(),
    }
}

/// Appends the escape `JSON.stringify` writes for code unit `u` (lowercase hex, as V8 does).
fn push_escape(out: &mut String, u: u32) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = match u {
        0x22 => "\\\"",
        0x5C => "\\\\",
        0x08 => "\\b",
        0x0C => "\\f",
        0x0A => "\\n",
        0x0D => "\\r",
        0x09 => "\\t",
        _ => "",
    };
    if !short.is_empty() {
        out.push_str(short);
        return;
    }
    out.push_str("\\u");
    for shift in [12, 8, 4, 0] {
        out.push(char::from(HEX[((u >> shift) & 0xF) as usize]));
    }
}

fn hex4(b: &[u8], at: usize) -> Option<u16> {
    let digits = b.get(at..at + 4)?;
    let mut v = 0u16;
    for &d in digits {
        v = (v << 4) | u16::from(hex_value(d)?);
    }
    Some(v)
}

pub(crate) fn hex_value(d: u8) -> Option<u8> {
    match d {
        b'0'..=b'9' => Some(d - b'0'),
        b'a'..=b'f' => Some(d - b'a' + 10),
        b'A'..=b'F' => Some(d - b'A' + 10),
        _ => None,
    }
}

fn find_backslash(b: &[u8], from: usize) -> Option<usize> {
    b.get(from..)?.iter().position(|&c| c == b'\\').map(|p| p + from)
}

/// UTF-16 units of a UTF-8 byte slice cut at character boundaries (the same count as `js::utf16_len`).
fn utf16_units(b: &[u8]) -> usize {
    let starts = b.iter().filter(|&&c| c & 0xC0 != 0x80).count();
    let astral = b.iter().filter(|&&c| c >= 0xF0).count();
    starts + astral
}

impl fmt::Debug for Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut quoted = String::new();
        self.write_quoted(&mut quoted);
        f.write_str(&quoted)
    }
}

/// Equal when they decode to the same JavaScript string.
impl PartialEq for Str<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.same_as(other)
    }
}

impl<'a> From<&'a str> for Str<'a> {
    fn from(s: &'a str) -> Self {
        Str::plain(s)
    }
}

impl From<String> for Str<'_> {
    fn from(s: String) -> Self {
        Str::plain(s)
    }
}

impl<'a> From<Cow<'a, str>> for Str<'a> {
    fn from(s: Cow<'a, str>) -> Self {
        Str::plain(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_strings_measure_decode_and_compare() {
        let s = Str::raw(r"a\u0069d\n\ud83d\ude00\ud800\/é", true);
        assert_eq!(s.units(), 1 + 1 + 1 + 1 + 2 + 1 + 1 + 1);
        assert_eq!(s.decoded(), "aid\n😀\u{fffd}/é");
        assert!(!s.eq_str("aid\n😀\u{fffd}/é"), "a lone surrogate is not U+FFFD");
        assert!(Str::raw(r"\u0069d", true).eq_str("id"));
        assert!(!Str::raw(r"\u0069d", true).eq_str("i"));
        assert!(!Str::raw(r"\u0069d", true).eq_str("idx"));
        assert_eq!(s.prefix(4), "aid\n");
        assert_eq!(s.prefix(5), "aid\n", "the astral character would cross the limit");
        assert_eq!(s.prefix(7), "aid\n😀\u{fffd}");
        let mut out = String::new();
        s.write_quoted(&mut out);
        assert_eq!(out, "\"aid\\n😀\\ud800/é\"");
        assert_eq!(s.quoted_len(), crate::js::utf16_len(&out));
    }

    #[test]
    fn plain_strings_escape_on_output() {
        let s = Str::plain("q\"\\\u{1}\t😀");
        let mut out = String::new();
        s.write_quoted(&mut out);
        assert_eq!(out, "\"q\\\"\\\\\\u0001\\t😀\"");
        assert_eq!(s.quoted_len(), crate::js::utf16_len(&out));
        assert_eq!(s.units(), 7);
        assert_eq!(s.prefix(6), "q\"\\\u{1}\t");
    }

    #[test]
    fn equality_is_on_decoded_text() {
        assert_eq!(Str::raw(r"\u0041", true), Str::plain("A"));
        assert_eq!(Str::raw(r"\ud800", true), Str::raw(r"\uD800", true));
        assert_ne!(Str::raw(r"\ud800", true), Str::raw(r"\udc00", true));
    }
}

impl Str<'_> {
    /// The same string, owning its text (escapes stay as written, so nothing about it changes).
    pub fn into_owned(self) -> Str<'static> {
        Str { text: Cow::Owned(self.text.into_owned()), form: self.form }
    }
}
