//! Structured hostile sessions: the bytes choose entry types, ids (duplicates, cycles, dangling parents),
//! wrong field types, unicode edge cases and tool arguments (`tests/fuzz/gen.rs`), and every check of
//! `gen::check` must hold.
#![no_main]

#[path = "../../tests/fuzz/gen.rs"]
mod gen;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    gen::check(data);
});
