//! The pure model of a pi session: entries, the resident index, context building and token estimates.
//!
//! Modules depend one way: `wire` (serde types of a line) → `read` (pi's rules: a line's [`Facts`]) →
//! `index` (the resident index, holding facts as `record`s in a `store`) → `entry_ref`, `tokens`,
//! `context`, `llm_view`, `view` (what is asked of the index). [`entry`] is the model all of them share.
mod context;
pub mod entry;
mod entry_ref;
mod index;
mod llm_view;
mod migrate;
mod profile;
mod read;
mod record;
mod skim;
mod store;
mod tokens;
mod view;
pub mod wire;

pub use context::Source;
pub use entry::{Facts, Header, Kind, Line, LineProblem, RoleKind, StopReason};
pub use entry_ref::{AssistantRef, EntryRef};
pub use index::{ByteFeed, IngestReport, Leaf, Mode, SessionIndex, Skipped};
pub use read::parse_line;
pub use migrate::{v1_id, Format};
pub use llm_view::{
    source_slot, AssistantMeta, ContextView, ViewPart, ViewMessage, BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX,
    COMPACTION_SUMMARY_PREFIX, COMPACTION_SUMMARY_SUFFIX,
};
pub use profile::{Profile, ProfileSource};
pub use record::Slot;
pub use skim::SkimmedSession;
pub use tokens::{cumulative, TokenEstimate};
pub use view::{Anchor, AnchorList, EntriesBetween, Stats, TreeFilter, TreeRow, LIST_HINT_MAX};
