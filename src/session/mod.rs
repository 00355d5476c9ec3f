//! The pure model of a pi session: entries, the resident index, context building and token estimates.
//!
//! Modules depend one way, down the way the data flows (`tests/layering.rs` holds the order; HACKING.md
//! maps which file owns which rule): a line (`value`: a JSON value as JavaScript sees it; `wire`: serde's
//! view of one JSONL line; `migrate`: pi's older formats) → entry facts ([`entry`], `read`: pi's rules, a
//! line's [`Facts`]) → the host generation's rules (`profile`) → the resident store (`store`: arena, id
//! table; `record`: an entry's fixed-size facts; `spend`: the usage entries record, with whose model;
//! `labels`; `entries`: all of them) → the tree (`tree`) →
//! the index (`feed`: input into entries; `index`: the [`SessionIndex`] façade; `entry_ref`) → what pi
//! builds (`context`: the one implementation of its context rules) → estimates (`tokens`, counting what
//! `context` decided) → views (`view`, `skim`, `llm_view`).
mod agree;
mod chunk;
mod context;
pub mod entry;
mod entries;
mod entry_ref;
mod feed;
mod index;
mod labels;
mod llm_view;
mod migrate;
mod profile;
mod read;
mod record;
mod skim;
mod spend;
mod store;
mod tokens;
mod tree;
mod value;
mod view;
pub mod wire;

pub use agree::{HostEntry, HostParent};
pub use chunk::{BadStream, Chunk, ChunkReader, FactsStream};
pub use context::{source_slot, ContextEdits, Source};
pub use entry::{Facts, Header, Kind, Line, LineProblem, RoleKind, Spend, SpendKind, StopReason, ToolResultFacts};
pub use entry_ref::{AssistantRef, EntryRef};
pub use feed::{IngestReport, Skipped};
pub use index::{ByteFeed, EntryObserver, Leaf, Mode, SessionIndex};
pub use read::{ceil_quarter, parse_line, read_calls};
pub use migrate::{v1_id, Format};
pub use llm_view::{
    AssistantMeta, ContextView, ViewPart, ViewMessage, BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX,
    COMPACTION_SUMMARY_PREFIX, COMPACTION_SUMMARY_SUFFIX,
};
pub use profile::{Profile, ProfileSource};
pub use record::Slot;
pub use skim::SkimmedSession;
pub use spend::{SpendRecord, TOOLS_KEY};
pub use tokens::{cumulative, path_points, PathPoint, TokenEstimate};
pub use view::{Anchor, AnchorList, EntriesBetween, RowKind, RowLabel, Stats, TreeColumns, TreeFilter, TreeRow, LIST_HINT_MAX};
