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
