//! The pure model of a pi session: entries, the resident index, context building and token estimates.

mod context;
pub mod entry;
mod fast;
mod index;
mod tokens;
mod view;

pub use entry::{AssistantInfo, Entry, EntryKind, Header, Role};
pub use index::{IngestReport, Leaf, Mode, SessionIndex, Skipped, Slot};
pub use tokens::{cumulative, Estimate};
pub use view::{Anchor, Stats, TreeRow, LIST_HINT_MAX};
