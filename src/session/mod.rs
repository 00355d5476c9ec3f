//! The pure model of a pi session: entries, the resident index, context building and token estimates.
mod context;
pub mod entry;
mod index;
mod llm_view;
mod read;
mod record;
mod store;
mod tokens;
mod view;

pub use entry::{AssistantInfo, Entry, EntryKind, Header, Role};
pub use record::{AssistantRef, EntryRef, Kind, RoleKind, StopReason};
pub use index::{ByteFeed, IngestReport, Leaf, Mode, SessionIndex, Skipped, Slot};
pub use tokens::{cumulative, Estimate};
pub use view::{Anchor, Stats, TreeFilter, TreeRow, LIST_HINT_MAX};
pub use context::Source;
pub use llm_view::{source_slot, AssistantMeta, ContextPage, Part, ViewMessage, BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX, COMPACTION_SUMMARY_PREFIX, COMPACTION_SUMMARY_SUFFIX};
