//! JavaScript semantics the core must reproduce bit for bit.
//!
//! pi computes its numbers in JavaScript: string lengths are UTF-16 code units, tool-call arguments are
//! measured as `JSON.stringify(arguments).length`, and timestamps go through `new Date(x).getTime()`.
//! Matching pi exactly means matching those three operations, so they live here, isolated and tested.
//! Numbers print as `Number.prototype.toString` / `toFixed` do, with ryu-js.

use serde_json::Value;

/// Whether JavaScript's `String.prototype.trim` removes `c` (ECMAScript's `WhiteSpace` and `LineTerminator`):
/// Unicode's `White_Space`, which Rust's `char::is_whitespace` follows, without U+0085 and with U+FEFF.
pub fn is_trim_space(c: char) -> bool {
    c == '\u{feff}' || (c.is_whitespace() && c != '\u{85}')
}

/// `s.trim()` as JavaScript trims (pi skips a line for which it is empty).
pub fn trim(s: &str) -> &str {
    s.trim_matches(is_trim_space)
}

/// The whitespace `JSON.parse` allows around a value: space, tab, line feed, carriage return.
pub const JSON_SPACE: [char; 4] = [' ', '\t', '\n', '\r'];

/// A JSONL line as pi reads it: `None` when `line.trim()` is empty (pi skips the line), else the text
/// `JSON.parse(line)` reads — the line without JSON's own whitespace around it, and nothing else taken off.
pub fn json_line(line: &str) -> Option<&str> {
    (!trim(line).is_empty()).then(|| line.trim_matches(JSON_SPACE))
}

/// Length of `s` as JavaScript's `String.prototype.length` counts it (UTF-16 code units).
pub fn utf16_len(s: &str) -> usize {
    utf16_units(s.as_bytes())
}

/// [`utf16_len`] of UTF-8 or WTF-8 bytes (an unpaired surrogate, 3 bytes in WTF-8, is one unit).
pub fn utf16_units(bytes: &[u8]) -> usize {
    // From the UTF-8 bytes: every byte that is not a continuation byte (10xxxxxx) starts a character (one
    // unit), and every 4-byte lead (11110xxx) starts an astral character (one more unit). Eight bytes at a
    // time as one u64 (wasm has no SIMD by default, and a byte loop is what ingest spent most time in):
    // bit 7 of each byte in `cont` / `four` marks a continuation byte / a 4-byte lead.
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = bytes.chunks_exact(8);
    let mut units = 0;
    for word in &mut words {
        let w = u64::from_le_bytes([word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7]]);
        if w & HIGH == 0 {
            units += 8; // all ASCII
            continue;
        }
        // Shifting left by k moves bit 7-k of a byte to bit 7 of the same byte, so no byte reads another.
        let cont = w & !(w << 1) & HIGH;
        let four = w & (w << 1) & (w << 2) & (w << 3) & HIGH;
        units += 8 - cont.count_ones() as usize + four.count_ones() as usize;
    }
    for &b in words.remainder() {
        units += usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0);
    }
    units
}
/// Length of `JSON.stringify(s)` for a string given as UTF-8 or WTF-8 bytes: quotes, two-character
/// escapes for `"`, `\\` and `\b\f\n\r\t`, `\u00XX` for other control characters and `\udXXX` for an unpaired
/// surrogate; everything else as its UTF-16 length.
pub fn quoted_len(bytes: &[u8]) -> usize {
    // Words of 8 bytes with none of the escaped bytes (the norm in tool arguments) cost one test.
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has = |w: u64, b: u8| {
        let x = w ^ (ONES * u64::from(b));
        x.wrapping_sub(ONES) & !x & HIGH != 0
    };
    let escape = |b: u8| match b {
        b'"' | b'\\' | 0x08 | 0x0c | b'\n' | b'\r' | b'\t' => 1,
        0..=0x1f => 5,
        _ => 0,
    };
    let mut len = 2 + utf16_units(bytes);
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let w = u64::from_le_bytes([word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7]]);
        let control = w.wrapping_sub(ONES * 0x20) & !w & HIGH != 0;
        if control || has(w, b'"') || has(w, b'\\') {
            len += word.iter().map(|&b| escape(b)).sum::<usize>();
        }
    }
    len += words.remainder().iter().map(|&b| escape(b)).sum::<usize>();
    // An unpaired surrogate (`ED A0..BF ..`, never in UTF-8) is one unit, written as six characters.
    if bytes.contains(&0xED) {
        len += 5 * bytes.windows(2).filter(|w| w[0] == 0xED && w[1] >= 0xA0).count();
    }
    len
}

/// WTF-8 bytes as text, each unpaired surrogate (and anything else not UTF-8) shown as one U+FFFD.
pub fn wtf8_lossy(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    let mut rest = bytes;
    loop {
        match std::str::from_utf8(rest) {
            Ok(text) => {
                out.push_str(text);
                return out;
            }
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                out.push('\u{fffd}');
                // A surrogate is one 3-byte sequence; other invalid bytes go one maximal part at a time.
                let surrogate = after.len() >= 3 && after[0] == 0xED && after[1] >= 0xA0;
                let skip = if surrogate { 3 } else { e.error_len().unwrap_or(after.len()) };
                rest = &after[skip.min(after.len())..];
            }
        }
    }
}

/// `Number.prototype.toString()` (`String(x)`), with ryu-js.
pub fn number_to_string(x: f64) -> String {
    ryu_js::Buffer::new().format(x).to_owned()
}

/// Length of `JSON.stringify(x)`: `String(x)`, or `null` when `x` is not finite.
pub fn number_json_len(x: f64) -> usize {
    if x.is_finite() {
        ryu_js::Buffer::new().format_finite(x).len()
    } else {
        4
    }
}

/// `Number.prototype.toFixed(digits)` for `digits` up to 100.
pub fn to_fixed(x: f64, digits: u8) -> String {
    // ryu-js writes toFixed's digits; JavaScript switches to `String(x)` from 1e21 on, and writes
    // -0 (and negatives that round to zero) with the sign only when x < 0 (not for -0).
    if x.abs() >= 1e21 {
        return number_to_string(x);
    }
    ryu_js::Buffer::new().format_to_fixed(x + 0.0, digits).to_owned()
}

/// `new Date(value).getTime()` for a JSON value; `None` stands for `NaN` (an invalid date).
///
/// Strings follow the ECMAScript date-time format (`YYYY-MM-DDTHH:mm:ss.sssZ` and its shorter forms);
/// a date-time without an offset is read as UTC, which is what pi's own timestamps and a UTC machine give.
pub fn date_ms(value: Option<&Value>) -> Option<f64> {
    match value? {
        Value::Null => Some(0.0),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Value::Number(n) => time_clip(n.as_f64()?),
        Value::String(s) => parse_iso_date(s),
        Value::Array(_) | Value::Object(_) => None,
    }
}

/// ECMAScript `TimeClip`: `None` (NaN) beyond ±8.64e15 ms, otherwise the time truncated to an integer.
pub fn time_clip(t: f64) -> Option<f64> {
    if !t.is_finite() || t.abs() > 8.64e15 {
        return None;
    }
    Some(t.trunc() + 0.0) // `+ 0.0` turns -0 into +0, as TimeClip does
}

/// `Date.parse(s)` for a date string; `None` stands for NaN.
///
/// pi's own timestamps (`new Date().toISOString()`: `YYYY-MM-DDTHH:mm:ss.sssZ`) take a short path (ingest
/// reads one per entry); any other text the reader of the ECMAScript date-time format below (its shorter
/// forms, `±YYYYYY` years, offsets; a date-time without an offset is read as UTC, which is what a UTC machine
/// gives; no other formats). Timestamps only order children in tree views, so the plugin's wasm, which has
/// none, reads none (`session::read`) and carries none of this.
pub fn parse_iso_date(s: &str) -> Option<f64> {
    iso_timestamp(s.as_bytes()).or_else(|| parse_date_format(s))
}

/// `YYYY-MM-DDTHH:mm:ss.sssZ` with every field in its everyday range (no hour 24, no leap second); `None`
/// for anything else, including that shape with other values (the general reader judges those).
fn iso_timestamp(b: &[u8]) -> Option<f64> {
    const SHAPE: &[u8; 24] = b"0000-00-00T00:00:00.000Z";
    if b.len() != SHAPE.len() || !b.iter().zip(SHAPE).all(|(&c, &p)| if p == b'0' { c.is_ascii_digit() } else { c == p }) {
        return None;
    }
    let field = |at: usize, len: usize| b.iter().skip(at).take(len).fold(0i64, |v, &d| v * 10 + i64::from(d - b'0'));
    let (month, day, hour, minute, second) = (field(5, 2), field(8, 2), field(11, 2), field(14, 2), field(17, 2));
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    // Any day up to 31 overflows into the next month, as in V8 (2026-02-30 is 2 March), like the backends.
    let days = days_from_civil(field(0, 4), month, day);
    let ms_of_day = ((hour * 60 + minute) * 60 + second) * 1000 + field(20, 3);
    Some(days as f64 * 86_400_000.0 + ms_of_day as f64) // years 0–9999 are all within TimeClip's range
}

/// `new Date(ms).toISOString()` for a time within `TimeClip`'s range whose year is 0–9999 (`None` otherwise:
/// rows a database reads carry no time rather than one JavaScript would write differently).
pub fn iso_date(ms: f64) -> Option<String> {
    let ms = time_clip(ms)? as i64;
    let (days, ms_of_day) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    // Howard Hinnant's civil_from_days (the inverse of `days_from_civil`).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    if !(0..=9999).contains(&year) {
        return None;
    }
    let (h, m, s, milli) = (ms_of_day / 3_600_000, ms_of_day / 60_000 % 60, ms_of_day / 1000 % 60, ms_of_day % 1000);
    Some(format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z"))
}

/// Parses the ECMAScript date-time string format. Returns `None` (NaN) for anything else.
fn parse_date_format(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let mut i = 0;
    let year: i64 = if matches!(b.first(), Some(b'+' | b'-')) {
        let neg = b[0] == b'-';
        let y = digits(b, 1, 6)?;
        if neg && y == 0 {
            return None; // -000000 is explicitly invalid
        }
        i = 7;
        if neg {
            -y
        } else {
            y
        }
    } else {
        let y = digits(b, 0, 4)?;
        i += 4;
        y
    };
    let (mut month, mut day) = (1, 1);
    if b.get(i) == Some(&b'-') {
        month = digits(b, i + 1, 2)?;
        i += 3;
        if b.get(i) == Some(&b'-') {
            day = digits(b, i + 1, 2)?;
            i += 3;
        }
    }
    // V8 accepts any day up to 31 and lets it overflow into the next month (2026-02-30 is 2 March).
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let mut ms_of_day = 0i64;
    if i < b.len() {
        if !matches!(b[i], b'T' | b't' | b' ') {
            return None;
        }
        let hour = digits(b, i + 1, 2)?;
        if b.get(i + 3) != Some(&b':') {
            return None;
        }
        let minute = digits(b, i + 4, 2)?;
        i += 6;
        let (mut second, mut millis) = (0, 0);
        if b.get(i) == Some(&b':') {
            second = digits(b, i + 1, 2)?;
            i += 3;
            if b.get(i) == Some(&b'.') {
                let start = i + 1;
                let mut end = start;
                while end < b.len() && b[end].is_ascii_digit() {
                    end += 1;
                }
                if end == start {
                    return None;
                }
                // Only the first three fraction digits count (padded with zeros); the rest are ignored.
                millis = (0..3).fold(0i64, |ms, k| {
                    let digit = if start + k < end { i64::from(b[start + k] - b'0') } else { 0 };
                    ms * 10 + digit
                });
                i = end;
            }
        }
        if hour > 24 || minute > 59 || second > 59 || (hour == 24 && (minute, second, millis) != (0, 0, 0)) {
            return None;
        }
        ms_of_day = ((hour * 60 + minute) * 60 + second) * 1000 + millis;
        let mut offset_min = 0i64;
        match b.get(i) {
            Some(b'Z' | b'z') => i += 1,
            Some(&c @ (b'+' | b'-')) => {
                let oh = digits(b, i + 1, 2)?;
                // V8 also takes `+0100` without the colon.
                let (om, width) = if b.get(i + 3) == Some(&b':') { (digits(b, i + 4, 2)?, 6) } else { (digits(b, i + 3, 2)?, 5) };
                if oh > 23 || om > 59 {
                    return None;
                }
                offset_min = oh * 60 + om;
                if c == b'+' {
                    offset_min = -offset_min;
                }
                i += width;
            }
            _ => {}
        }
        if i != b.len() {
            return None;
        }
        ms_of_day += offset_min * 60_000;
    }
    let days = days_from_civil(year, month, day);
    time_clip(days as f64 * 86_400_000.0 + ms_of_day as f64)
}

fn digits(b: &[u8], at: usize, n: usize) -> Option<i64> {
    let slice = b.get(at..at + n)?;
    if !slice.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(slice.iter().fold(0i64, |acc, d| acc * 10 + i64::from(d - b'0')))
}

/// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Sorts and removes repeats as `[...new Set(xs)].sort()` does: by UTF-16 code units (JavaScript's default
/// sort), which orders characters above U+FFFF before U+E000–U+FFFF where UTF-8 bytes would not. Unstable:
/// equal strings are removed anyway, and the stable sort costs twice the code in the module.
pub fn sort_js_strings(xs: &mut Vec<String>) {
    xs.sort_unstable_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
    xs.dedup();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_date_writes_what_to_iso_string_writes() {
        for s in ["1970-01-01T00:00:00.000Z", "2026-11-26T00:00:01.000Z", "2000-02-29T23:59:59.999Z", "1969-12-31T23:59:59.999Z", "0000-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z", "2100-03-01T12:00:00.500Z"] {
            let ms = parse_iso_date(s).unwrap();
            assert_eq!(iso_date(ms).as_deref(), Some(s), "{ms}");
        }
        assert_eq!(iso_date(f64::NAN), None);
        assert_eq!(iso_date(253_402_300_800_000.0), None, "year 10000: JavaScript writes +010000");
        assert_eq!(iso_date(-62_167_219_200_001.0), None, "before year 0");
    }

    #[test]
    fn trim_removes_what_javascript_trim_removes() {
        // ECMAScript: TAB VT FF SP NBSP ZWNBSP, the Zs category (Unicode 15), LF CR LS PS.
        let js: Vec<char> = "\u{9}\u{b}\u{c}\u{20}\u{a0}\u{feff}\u{1680}\u{2000}\u{2001}\u{2002}\u{2003}\u{2004}\u{2005}\u{2006}\u{2007}\u{2008}\u{2009}\u{200a}\u{202f}\u{205f}\u{3000}\u{a}\u{d}\u{2028}\u{2029}".chars().collect();
        let got: Vec<char> = (0..=0x0010_ffff).filter_map(char::from_u32).filter(|&c| is_trim_space(c)).collect();
        let mut want = js.clone();
        want.sort_unstable();
        assert_eq!(got, want);
        assert_eq!(trim("\u{85}\u{a0} x \u{feff}\u{3000}"), "\u{85}\u{a0} x", "NEL stays, as in JavaScript");
        assert_eq!(trim("\u{a0}\u{2028}"), "");
    }

    #[test]
    fn utf16_len_counts_like_javascript_at_every_alignment() {
        let pieces = ["a", "é", "€", "😀", "\u{7f}", "\u{80}", "\u{7ff}", "\u{800}", "\u{ffff}", "\u{10000}", "\u{10ffff}"];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for len in 0..200 {
            let mut s = String::new();
            for _ in 0..len {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                s.push_str(pieces[(seed % pieces.len() as u64) as usize]);
            }
            // every start offset, so every byte position meets every lane of the 8-byte words
            for (at, _) in s.char_indices() {
                let t = &s[at..];
                assert_eq!(utf16_len(t), t.encode_utf16().count(), "{t:?}");
            }
        }
    }

    #[test]
    fn numbers_print_like_javascript() {
        let cases = [
            (0.1, "0.1"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (123.456, "123.456"),
            (1e-7, "1e-7"),
            (0.000_001, "0.000001"),
            (-1.5e-10, "-1.5e-10"),
            (-0.0, "0"),
            (5e-324, "5e-324"),
            (1.797_693_134_862_315_7e308, "1.7976931348623157e+308"),
            (9_007_199_254_740_993.0, "9007199254740992"),
            (42.0, "42"),
        ];
        for (x, want) in cases {
            assert_eq!(number_to_string(x), want, "{x}");
            assert_eq!(number_json_len(x), want.len(), "{x}");
        }
    }

    #[test]
    fn quoted_length_counts_escapes_utf16_and_lone_surrogates() {
        // Every escape JSON.stringify writes, in and across 8-byte words.
        let s = "x\"y\n\u{1}😀é\\\t\u{8}\u{c}\r\u{1f}\u{7f}\u{2028}abcdefgh\"";
        let written = serde_json::to_string(s).unwrap();
        assert_eq!(quoted_len(s.as_bytes()), utf16_len(&written), "{written}");
        // An unpaired surrogate (WTF-8 ED A0 BD) is written as \ud83d: 6 characters.
        assert_eq!(quoted_len(b"a\xed\xa0\xbdb"), 2 + 1 + 6 + 1);
        assert_eq!(utf16_units(b"a\xed\xa0\xbdb"), 3);
        assert_eq!(wtf8_lossy(b"a\xed\xa0\xbdb\xff"), "a\u{fffd}b\u{fffd}");
    }

    #[test]
    fn iso_dates_parse_like_date_parse() {
        assert_eq!(parse_iso_date("1970-01-01T00:00:00.000Z"), Some(0.0));
        assert_eq!(parse_iso_date("2026-11-22T00:51:31.123Z"), Some(1_795_308_691_123.0));
        assert_eq!(parse_iso_date("2026-11-22"), Some(1_795_305_600_000.0));
        assert_eq!(parse_iso_date("2026-11-22T01:00:00+01:00"), Some(1_795_305_600_000.0));
        assert_eq!(parse_iso_date("2026-02-30"), Some(1_772_409_600_000.0));
        assert_eq!(parse_iso_date("2026-02-32"), None);
        assert_eq!(parse_iso_date("2026-11-22T00:00:00.000+0100"), Some(1_795_302_000_000.0));
        assert_eq!(parse_iso_date("2026-11-22T24:00:01Z"), None);
        assert_eq!(parse_iso_date("yesterday"), None);
        assert_eq!(parse_iso_date("2026-11-22T00:00:00.1234567Z"), Some(1_795_305_600_123.0));
    }

    #[test]
    fn pi_timestamps_read_fast_as_the_general_reader_does() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            // Every field one past its range now and then (month 13, day 32, hour 24, minute/second 60).
            let f = |div: u64, m: u64| (seed / div) % m;
            let text = format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
                f(1, 10_000),
                f(10_000, 14),
                f(140_000, 33),
                f(4_620_000, 25),
                f(115_500_000, 61),
                f(7_045_500_000, 61),
                f(429_775_500_000, 1000)
            );
            let fast = iso_timestamp(text.as_bytes());
            assert!(fast.is_none() || fast == parse_date_format(&text), "{text}");
            assert_eq!(parse_iso_date(&text), parse_date_format(&text), "{text}");
        }
        assert_eq!(iso_timestamp(b"2026-11-22T00:51:31.123Z"), Some(1_795_308_691_123.0));
        for other in ["2026-11-22T00:51:31.123+00:00", "2026-11-22T00:51:31Z", "2026-11-22T24:00:00.000Z", "+002026-11-22T00:51:31.123Z"] {
            assert_eq!(iso_timestamp(other.as_bytes()), None, "{other}");
        }
    }

    #[test]
    fn utf16_counts_astral_as_two() {
        assert_eq!(utf16_len("a😀é"), 4);
    }
}
