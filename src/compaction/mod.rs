//! pi's own compaction, written from the prompt cache.
//!
//! When pi compacts (at its threshold, on `/compact [instructions]`, or to recover from an overflow) it asks an
//! extension first (`session_before_compact`). pi's own summary request is cold by design: a summarization
//! system prompt and the conversation serialized into one user message, so no byte of it comes from the
//! provider's prompt cache. The plugin answers instead with a summary written by the live request — the
//! request pi sent last, unchanged (system prompt, tools, messages), plus one instruction carrying pi's
//! compaction format — so the provider reads almost all of it from its cache. pi's own cut
//! (`firstKeptEntryId`), `tokensBefore` and file lists are returned unchanged; pi appends its compaction entry
//! as always.
//!
//! Everything here is a decision or a text, as data, one room each: whether the live request can be reused
//! and why not ([`mode`]: [`compaction_mode`], [`CompactionFallback`]), the instruction it carries
//! ([`instruction`]), what its reply means ([`reply`]: [`reply_verdict`]), the entry pi stores ([`entry`]:
//! [`compaction_result`], [`compaction_summary`]) with pi's file lists ([`files`]: [`compaction_files`],
//! [`carried_files`]), and what the user sees ([`notices`]: [`compaction_notices`], in the rewinds' words).
//! The shim's objects are read field by field ([`fields`]). The shim (`js/compaction.js`) captures, measures,
//! sends and returns.

mod entry;
mod fields;
mod files;
mod instruction;
mod mode;
mod notices;
mod reply;

pub use entry::{compaction_result, compaction_summary, CompactionResult, SummaryParts};
pub use files::{carried_files, compaction_files, FileLists, FileOps, PreviousCompaction};
pub use instruction::{compaction_instruction, CompactionRange};
pub use mode::{compaction_mode, compaction_prompt_tokens, CompactionFacts, CompactionFallback, CompactionMode, COMPACTION_OUTPUT_RESERVE};
pub use notices::{compaction_notices, Notice};
pub use reply::{reply_verdict, CompactionReply, ReplyVerdict};
