//! The least a reader of pi's session files can do in wasm with `serde_json`: cut the file into lines (the
//! core's way: `str::from_utf8` of the whole, `find('\n')` per line) and have `serde_json` check each line,
//! skipping every value (`IgnoredAny`): no entry, no index, no estimate. pi drops a line `JSON.parse`
//! refuses, so every byte of every line must be checked; this is that check and nothing else.

use serde::de::IgnoredAny;

/// The file's bytes, placed by the caller through the pointer [`room`] returns.
static FILE: std::sync::Mutex<Vec<u8>> = std::sync::Mutex::new(Vec::new());

/// Room for `len` bytes; the address to copy the file to.
#[no_mangle]
pub extern "C" fn room(len: usize) -> usize {
    let mut file = FILE.lock().unwrap_or_else(|e| e.into_inner());
    *file = vec![0; len];
    file.as_ptr() as usize
}

/// How many lines `serde_json` takes (a valid UTF-8 file), or `u32::MAX` when the file is no UTF-8.
#[no_mangle]
pub extern "C" fn check_lines() -> u32 {
    let file = FILE.lock().unwrap_or_else(|e| e.into_inner());
    let Ok(text) = std::str::from_utf8(&file) else { return u32::MAX };
    let mut taken = 0;
    let mut rest = Some(text);
    while let Some(chunk) = rest {
        let (line, next) = match chunk.find('\n') {
            Some(at) => (chunk.get(..at).unwrap_or_default(), chunk.get(at + 1..)),
            None => (chunk, None),
        };
        rest = next;
        taken += u32::from(serde_json::from_str::<IgnoredAny>(line).is_ok());
    }
    taken
}

/// Every string's length in UTF-16 units, summed over all lines — what a reader that must count each
/// message's characters as pi's estimate does (the plugin's ingest) pays `serde_json` at least: every string
/// read (escapes decoded), nothing kept. `u32::MAX` when the file is no UTF-8.
#[no_mangle]
pub extern "C" fn count_units() -> u32 {
    let file = FILE.lock().unwrap_or_else(|e| e.into_inner());
    let Ok(text) = std::str::from_utf8(&file) else { return u32::MAX };
    let mut units = 0usize;
    for line in text.split_terminator('\n') {
        units += serde_json::from_str::<Units>(line).map_or(0, |u| u.0);
    }
    units as u32
}

/// The UTF-16 units of every string in a value (keys included).
struct Units(usize);

impl<'de> serde::Deserialize<'de> for Units {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(UnitsVisitor)
    }
}

struct UnitsVisitor;

impl<'de> serde::de::Visitor<'de> for UnitsVisitor {
    type Value = Units;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Units, E> {
        Ok(Units(0))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Units, E> {
        Ok(Units(0))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Units, E> {
        Ok(Units(0))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Units, E> {
        Ok(Units(0))
    }
    fn visit_unit<E>(self) -> Result<Units, E> {
        Ok(Units(0))
    }
    fn visit_str<E>(self, s: &str) -> Result<Units, E> {
        // A UTF-16 unit per character, two for one beyond the BMP (4 UTF-8 bytes, led by 0xF0..).
        Ok(Units(s.bytes().map(|b| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0)).sum()))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Units, A::Error> {
        let mut n = 0;
        while let Some(Units(u)) = seq.next_element()? {
            n += u;
        }
        Ok(Units(n))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Units, A::Error> {
        let mut n = 0;
        while let Some((Units(k), Units(v))) = map.next_entry()? {
            n += k + v;
        }
        Ok(Units(n))
    }
}
