//! pi-tree-navigator's core: a pure model of pi's session tree.
//!
//! It reads pi session JSONL into a resident [`session::SessionIndex`], builds the context pi would send
//! for any leaf, estimates its tokens exactly as pi does, lists anchors with cumulative estimates in one
//! pass, and decides what the `navigate_tree` tool does. It performs no I/O and never calls the host:
//! decisions come back as data for the JavaScript shim to carry out. The wasm binding lives in `wasm`
//! (compiled only for `wasm32`).

#![deny(missing_docs)]

pub mod archive;
pub mod cli_text;
pub mod compaction;
pub mod config;
pub mod cost;
pub mod error;
pub mod file;
pub mod folder;
pub mod guidance;
pub mod js;
pub mod loops;
pub mod notice;
pub mod session;
pub mod text;
pub mod tool;

/// The wasm-bindgen binding (only on `wasm32`).
#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use error::SessionError;
