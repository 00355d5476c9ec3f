//! `recall`, second half: the collapsed entries' text laid out on pages of at most [`PAGE_TOKENS`], the
//! query's filter, each page's header and footer, and the answer.

use serde::Serialize;
use serde_json::Value;
use tsify_next::Tsify;

use crate::js::utf16_len;
use crate::session::ceil_quarter;
use crate::tool::number::js_number;
use crate::tool::refusal::Refusal;
use crate::tool::texts::{self, RefusalCode};

use super::entries::RecallPlan;
use super::items::{item_of, whole_item, Item};

/// A page holds at most this many tokens by the core's estimate (`ceil(chars / 4)`, pi's own rule for a
/// tool result's text), header and footer included.
pub const PAGE_TOKENS: usize = 2000;
/// A page has room for this many UTF-16 units: `ceil(units / 4) ≤ PAGE_TOKENS`.
const PAGE_UNITS: usize = PAGE_TOKENS * 4;
/// An entry that does not fit in what is left of a page starts on the next one, unless at least this many
/// units are left and it would not fit on an empty page either (then it is split where the page ends).
const MIN_PIECE_UNITS: usize = 1000;
/// A page number as long as any the header and footer may show (their room is reserved before paging).
const WIDEST_PAGE: u32 = 99_999;

/// `recall`, second half: a page, or the refusal when nothing matches or the page does not exist.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum RecallAnswer {
    /// Report `text` as a failed tool result.
    Refuse(Refusal),
    /// The page.
    Page(RecallPage),
}

/// One page of recalled text.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
pub struct RecallPage {
    /// What the model reads.
    pub text: String,
    /// The tool result's `details`.
    pub details: RecallDetails,
}

/// A page's details.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct RecallDetails {
    /// The name recalled.
    pub name: String,
    /// The query, or `null`.
    pub query: Option<String>,
    /// This page (1-based).
    pub page: u32,
    /// How many pages there are.
    pub pages: u32,
    /// Collapsed entries with text.
    pub collapsed: u32,
    /// Of those, the ones the query matches (all without a query).
    pub matches: u32,
    /// The entries on this page (an entry split across pages is on each of them).
    pub entry_ids: Vec<String>,
    /// The page's size by the core's estimate.
    #[serde(serialize_with = "js_number")]
    pub tokens: f64,
}

/// A slice of one item on a page: bytes `start..end` of its text.
#[derive(Debug, Clone, Copy)]
struct Piece {
    item: usize,
    start: usize,
    end: usize,
}

/// Where to cut `text` so the first part has at most `max_units` UTF-16 units (at least one character):
/// after the last newline in the second half of that room, else at the last character that fits.
pub(super) fn cut_at(text: &str, max_units: usize) -> usize {
    let mut units = 0;
    let mut end = 0;
    for (at, c) in text.char_indices() {
        units += c.len_utf16();
        if units > max_units {
            break;
        }
        end = at + c.len_utf8();
    }
    if end == 0 {
        return text.chars().next().map_or(0, char::len_utf8);
    }
    match text.get(..end).and_then(|t| t.rfind('\n')) {
        Some(nl) if nl + 1 > end / 2 => nl + 1,
        _ => end,
    }
}

/// Lays the items out on pages of `room` units of body each (item headers count against it, at `head`
/// units per piece): an item starts on a fresh page when it fits there but not here, and one bigger than
/// a page is split where the pages end.
fn lay_out(items: &[Item], room: usize, head: impl Fn(&Item) -> usize) -> Vec<Vec<Piece>> {
    let mut pages = Vec::new();
    let mut page: Vec<Piece> = Vec::new();
    let mut used = 0;
    for (i, item) in items.iter().enumerate() {
        let head = head(item);
        let mut start = 0;
        while start < item.text.len() {
            let rest = item.text.get(start..).unwrap_or("");
            let units = utf16_len(rest);
            let avail = room.saturating_sub(used + head);
            if units <= avail {
                page.push(Piece { item: i, start, end: item.text.len() });
                used += head + units;
                break;
            }
            let fits_empty = units <= room.saturating_sub(head);
            if !page.is_empty() && (fits_empty || avail < MIN_PIECE_UNITS) {
                pages.push(std::mem::take(&mut page));
                used = 0;
                continue;
            }
            let end = start + cut_at(rest, avail);
            page.push(Piece { item: i, start, end });
            pages.push(std::mem::take(&mut page));
            used = 0;
            start = end;
        }
    }
    if !page.is_empty() {
        pages.push(page);
    }
    pages
}

/// `recall`, second half: `entries` are the plan's entries as pi holds them (each as JSON text; one that
/// is missing or unreadable is left out), and the answer is the plan's page of their text.
pub fn page(plan: &RecallPlan, entries: &[Option<String>]) -> RecallAnswer {
    let items: Vec<Item> = if plan.whole {
        entries.iter().flatten().filter_map(|t| whole_item(t)).collect()
    } else {
        entries.iter().flatten().filter_map(|t| serde_json::from_str::<Value>(t).ok()).filter_map(|v| item_of(&v)).collect()
    };
    let name = plan.name.as_str();
    let query = plan.query.as_deref();
    let collapsed = items.len() as u32;
    if items.is_empty() {
        return RecallAnswer::Refuse(Refusal::new(RefusalCode::NothingCollapsed, texts::recall_nothing(name)));
    }
    let items: Vec<Item> = match query {
        Some(q) => {
            let q = q.to_ascii_lowercase();
            items.into_iter().filter(|i| i.text.to_ascii_lowercase().contains(&q)).collect()
        }
        None => items,
    };
    let matches = items.len() as u32;
    if let (Some(q), true) = (query, items.is_empty()) {
        return RecallAnswer::Refuse(Refusal::new(RefusalCode::NoMatch, texts::recall_no_match(name, q, collapsed)));
    }
    // Room for the header and footer at their longest (the page count is known only after paging).
    let reserve = utf16_len(&texts::recall_header(name, query, WIDEST_PAGE, WIDEST_PAGE, matches, collapsed))
            .max(utf16_len(&texts::recall_whole_header(name, WIDEST_PAGE, WIDEST_PAGE)))
        + utf16_len(&texts::recall_next(name, query, WIDEST_PAGE, WIDEST_PAGE))
        + 2;
    let head = |item: &Item| utf16_len(&texts::recall_item(&item.id, &item.what, Some((WIDEST_PAGE, WIDEST_PAGE)))) + 2;
    let pages = lay_out(&items, PAGE_UNITS.saturating_sub(reserve), head);
    let count = pages.len() as u32;
    let Some(pieces) = pages.get(plan.page as usize - 1) else {
        return RecallAnswer::Refuse(Refusal::new(RefusalCode::NoSuchPage, texts::recall_no_page(name, query, plan.page, count)));
    };
    // How many pieces each item has, and which piece each of this page's is.
    let mut parts = vec![0u32; items.len()];
    let mut before = vec![0u32; items.len()];
    for (n, page) in pages.iter().enumerate() {
        for p in page {
            parts[p.item] += 1;
            if n + 1 < plan.page as usize {
                before[p.item] += 1;
            }
        }
    }
    let mut text = if plan.whole { texts::recall_whole_header(name, plan.page, count) } else { texts::recall_header(name, query, plan.page, count, matches, collapsed) };
    text.push('\n');
    let mut entry_ids = Vec::new();
    // An item has at most one piece per page: a split piece always ends its page.
    for p in pieces {
        let item = &items[p.item];
        let part = (parts[p.item] > 1).then(|| (before[p.item] + 1, parts[p.item]));
        text.push_str(&texts::recall_item(&item.id, &item.what, part));
        text.push('\n');
        text.push_str(item.text.get(p.start..p.end).unwrap_or(""));
        text.push('\n');
        entry_ids.push(item.id.clone());
    }
    let end = if plan.whole { texts::recall_whole_end(name) } else { texts::recall_end(name) };
    text.push_str(&if plan.page < count { texts::recall_next(name, query, plan.page + 1, count) } else { end });
    let tokens = ceil_quarter(utf16_len(&text));
    RecallAnswer::Page(RecallPage {
        text,
        details: RecallDetails {
            name: name.into(),
            query: plan.query.clone(),
            page: plan.page,
            pages: count,
            collapsed,
            matches,
            entry_ids,
            tokens,
        },
    })
}
