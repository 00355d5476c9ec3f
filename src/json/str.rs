//! JSON strings that stay undecoded until asked: [`Str`].

use crate::prelude::*;
use alloc::borrow::Cow;
use core::fmt;

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
    /// For escaped text: how many more bytes its escapes take than the UTF-16 units they stand for (so
    /// `units` needs no second scan), or [`UNMEASURED`]. Zero otherwise.
    excess: u32,
}

/// `Str::excess` not known (the string was not made by the reader): `units` scans for it.
const UNMEASURED: u32 = u32::MAX;

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
    #[cfg(test)]
    pub(crate) fn raw(body: &'a str, escaped: bool) -> Self {
        let (form, excess) = if escaped { (Form::Escaped, UNMEASURED) } else { (Form::Clean, 0) };
        Str { text: Cow::Borrowed(body), form, excess }
    }

    /// [`Str::raw`] with the escapes already measured by the reader: `excess` is how many more bytes they
    /// take than the units they stand for (0: no escapes).
    pub(crate) fn raw_measured(body: &'a str, excess: u32) -> Self {
        let form = if excess == 0 { Form::Clean } else { Form::Escaped };
        Str { text: Cow::Borrowed(body), form, excess }
    }

    /// Plain text (no escapes are interpreted).
    pub fn plain(text: impl Into<Cow<'a, str>>) -> Self {
        Str { text: text.into(), form: Form::Plain, excess: 0 }
    }

    /// Whether the text holds JSON escapes that decoding resolves.
    pub fn has_escapes(&self) -> bool {
        self.form == Form::Escaped
    }

    /// Length as JavaScript's `.length` counts it (UTF-16 units), computed without decoding or allocating.
    pub fn units(&self) -> usize {
        let mut units = crate::js::utf16_len(&self.text);
        // Every escape stands for exactly one UTF-16 unit (a surrogate pair is written as two escapes), so
        // count the raw bytes as units and take off what each escape spends beyond one — as the reader
        // measured it, or by scanning for the escapes.
        if self.excess != UNMEASURED {
            return units - self.excess as usize;
        }
        if self.escaped() {
            let b = self.text.as_bytes();
            let mut i = 0;
            while let Some(at) = find_backslash(b, i) {
                let raw = if matches!(b.get(at + 1), Some(b'u')) { 6 } else { 2 };
                units -= raw - 1;
                i = at + raw;
            }
        }
        units
    }

    /// The decoded text; unpaired surrogates become U+FFFD. Borrows when there is nothing to decode.
    pub fn decoded(&self) -> Cow<'_, str> {
        self.decode_with('\u{fffd}')
    }

    /// The decoded text with every unpaired surrogate replaced by `lone`.
    pub fn decode_with(&self, lone: char) -> Cow<'_, str> {
        decode(&self.text, self.escaped(), lone)
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
        // Find where the prefix ends in the raw text (always between pieces), then decode only that.
        let mut pieces = self.pieces();
        let mut units = 0;
        let mut cut = self.text.len();
        loop {
            let before = pieces.rest.len();
            let Some(piece) = pieces.next() else { break };
            units += piece.units();
            if units > max_units {
                cut -= before;
                break;
            }
        }
        decode(self.text.get(..cut).unwrap_or(""), self.escaped(), '\u{fffd}')
    }

    /// Whether the decoded string equals `s`, without allocating. An unpaired surrogate equals nothing a
    /// Rust string can hold (as in JavaScript, `"\ud800" !== "\ufffd"`).
    pub fn eq_str(&self, s: &str) -> bool {
        // Decoding never makes a string longer in UTF-8 bytes, so a shorter raw text cannot match.
        if self.escaped() { self.text.len() >= s.len() && self.same_as(&Str::plain(s)) } else { self.text == s }
    }

    /// Whether two strings decode to the same JavaScript string.
    pub fn same_as(&self, other: &Str<'_>) -> bool {
        // Equal raw text read the same way is the same string; two texts without escapes are equal only so.
        if self.escaped() == other.escaped() && self.text == other.text {
            return true;
        }
        (self.escaped() || other.escaped()) && self.pieces().eq(other.pieces())
    }

    /// Length of `JSON.stringify(s)` for this string: quotes, escapes, and six for each unpaired surrogate.
    pub fn quoted_len(&self) -> usize {
        match self.form {
            // A clean body holds nothing that needs escaping.
            Form::Clean => 2 + crate::js::utf16_len(&self.text),
            Form::Plain => crate::js::quoted_len(self.text.as_bytes()),
            Form::Escaped => {
                // Raw bytes counted as units, corrected by what each escape prints instead: `\n`, `\"`
                // and the like print as written (no correction), `\/` and `\uXXXX` do not.
                let b = self.text.as_bytes();
                let (mut len, mut i) = (2 + crate::js::utf16_len(&self.text), 0);
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
        if self.form == Form::Clean {
            out.push_str(&self.text); // nothing in it needs escaping
        } else {
            for piece in self.pieces() {
                let unit = match piece {
                    Piece::Char(c) if c >= ' ' && c != '"' && c != '\\' => {
                        out.push(c);
                        continue;
                    }
                    Piece::Char(c) => c as u32,
                    Piece::Lone(unit) => u32::from(unit),
                };
                push_escape(out, unit);
            }
        }
        out.push('"');
    }

    fn escaped(&self) -> bool {
        self.form == Form::Escaped
    }

    /// The decoded pieces, one after the other.
    fn pieces(&self) -> Pieces<'_> {
        Pieces { rest: &self.text, escaped: self.escaped() }
    }
}

/// Decodes `text` (JSON escapes when `escaped`) with every unpaired surrogate replaced by `lone`.
fn decode(text: &str, escaped: bool, lone: char) -> Cow<'_, str> {
    if !escaped {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    // Runs between escapes are copied whole, which keeps decoding long texts fast.
    while let Some(at) = find_backslash(rest.as_bytes(), 0) {
        out.push_str(rest.get(..at).unwrap_or(""));
        let (piece, raw) = decode_escape(rest.as_bytes(), at);
        out.push(match piece {
            Piece::Char(c) => c,
            Piece::Lone(_) => lone,
        });
        rest = rest.get(at + raw..).unwrap_or("");
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The pieces a string decodes to, one at a time: what every comparison and escaping walk shares.
/// Escaped text was validated by the reader (a malformed escape would pass through as its characters).
struct Pieces<'t> {
    rest: &'t str,
    escaped: bool,
}

impl Iterator for Pieces<'_> {
    type Item = Piece;

    // Kept out of line: it is the one decoding loop body for all the walks that use it.
    #[inline(never)]
    fn next(&mut self) -> Option<Piece> {
        let c = self.rest.chars().next()?;
        let (piece, raw) =
            if c == '\\' && self.escaped { decode_escape(self.rest.as_bytes(), 0) } else { (Piece::Char(c), c.len_utf8()) };
        self.rest = self.rest.get(raw..).unwrap_or("");
        Some(piece)
    }
}

impl Piece {
    /// UTF-16 units.
    fn units(self) -> usize {
        match self {
            Piece::Char(c) => c.len_utf16(),
            Piece::Lone(_) => 1,
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
            if (0xD800..0xDC00).contains(&unit) && matches!(b.get(at + 6), Some(b'\\')) && matches!(b.get(at + 7), Some(b'u')) {
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

impl Str<'_> {
    /// The same string, owning its text (escapes stay as written, so nothing about it changes).
    pub fn into_owned(self) -> Str<'static> {
        Str { text: Cow::Owned(self.text.into_owned()), form: self.form, excess: self.excess }
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
        // The same raw text read two ways is two different strings.
        assert_ne!(Str::plain(r"\u0041"), Str::raw(r"\u0041", true));
        assert!(!Str::raw(r"\u0041", true).eq_str(r"\u0041"));
        assert_eq!(Str::raw("a😀b", false).prefix(2), "a", "a clean prefix stops before a character that crosses");
        assert_eq!(Str::raw(r"\ud83d\ude00x", true).prefix(2), "😀", "a pair is one piece");
    }
}
