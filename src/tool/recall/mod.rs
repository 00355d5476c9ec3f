//! `recall`: the model reads back, word for word, what a rewind collapsed.
//!
//! A rewind leaves its work on disk, on the branch it abandoned. `recall` finds that work by name:
//! - the name of a rewind's summary (its `labelEnd`) names what that rewind collapsed;
//! - any other anchor names what every rewind back to it collapsed, oldest rewind first.
//!
//! Which entries those are is decided from the index's facts ([`plan`], in [`entries`]): a rewind collapsed exactly pi's
//! `collectEntriesForBranchSummary(old leaf, target)`, where the target is the summary's parent and the
//! old leaf is the assistant message whose call the rewind's synthetic assistant repeats (same call id).
//! The plugin index keeps no text, so the shim then hands over those entries as pi holds them and
//! [`page`] selects, pages and formats their text ([`pages`]; an entry's text as shown: [`items`]). Nothing is
//! written: the session gains only the call and its result.

mod entries;
mod items;
mod pages;

pub(super) use entries::plan;
pub use entries::{RecallPlan, MAX_QUERY_CHARS};
pub use pages::{page, RecallAnswer, RecallDetails, RecallPage, PAGE_TOKENS};

#[cfg(test)]
pub(super) mod tests;
