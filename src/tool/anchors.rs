//! `/anchors`: the user's own look at the tree, a command in pi (never a tool call, so nothing reaches the
//! model and nothing is written). It lists the anchors on the active branch with the context at each, and
//! every rewind this tool made with the two names and what it saved; choosing a row reads back what was
//! collapsed there through the same path as `recall` ([`command_recall`], then [`super::recall_page`]).

use serde::Serialize;
use serde_json::json;
use tsify_next::Tsify;

use crate::error::SessionError;
use crate::session::{Kind, Leaf, SessionIndex, Slot};
use crate::text::ANCHOR_PREFIX;

use super::facts::ToolFacts;
use super::number::js_number;
use super::params::Arguments;
use super::saving::{rewind_with_before, RewindSaving};
use super::plan::ToolPlan;
use super::recall::{RecallAnswer, RecallDetails, RecallPlan};
use super::texts;
use super::Refusal;

/// What `/anchors` shows: a title and the rows to choose from (none: show `title` alone).
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct AnchorsView {
    /// The dialog's title (with no rows: the whole message).
    pub title: String,
    /// The anchors on the active branch (root → leaf), then the rewinds (oldest first).
    pub rows: Vec<AnchorsRow>,
    /// What choosing a row without a name to recall says.
    pub unnamed: String,
}

/// One row of `/anchors`.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct AnchorsRow {
    /// The row as shown (unique within the view: the shim maps the chosen text back to its row).
    pub text: String,
    /// The name [`command_recall`] reads back for this row; `null` when the rewind's names are gone
    /// (both labels moved or cleared since).
    pub recall: Option<String>,
    /// The estimate the row is about: the context at an anchor, the tokens a rewind saved.
    #[serde(serialize_with = "js_number")]
    pub tokens: f64,
}

/// A rewind found in the tree: its summary, its two names (when still labelled), its context before and what
/// it saved.
struct Rewind {
    summary: Slot,
    start: Option<String>,
    end: Option<String>,
    before: f64,
    saving: RewindSaving,
}

/// The name an entry's anchor label carries, if any.
fn anchor_name(index: &SessionIndex, slot: Slot) -> Option<String> {
    index.label_at(slot).and_then(|l| l.strip_prefix(ANCHOR_PREFIX)).map(str::to_string)
}

/// Every rewind this tool made, in the order they were written: a branch summary with this tool's
/// synthetic call below it and the call it repeats on the branch it left (see `recall`). "Before" is the
/// context at the parent of the message that called the rewind, the saving `tool::saving`'s: what the
/// rewind's own result reported.
fn rewinds(index: &mut SessionIndex) -> Result<Vec<Rewind>, SessionError> {
    let mut found = Vec::new();
    for summary in 0..index.len() as Slot {
        if index.entry(summary).kind() != Kind::BranchSummary {
            continue;
        }
        let Some((saving, before)) = rewind_with_before(index, summary)? else { continue };
        let start = index.parent_of(summary).and_then(|t| anchor_name(index, t));
        found.push(Rewind { summary, start, end: anchor_name(index, summary), before, saving });
    }
    Ok(found)
}

/// The rows of `/anchors` for a model with `context_window` (0: unknown, numbers shown as tokens).
///
/// # Errors
/// Only for an inconsistent index (a parent cycle).
pub fn anchors_view(index: &mut SessionIndex, context_window: f64) -> Result<AnchorsView, SessionError> {
    let (anchors, now) = index.anchors_and_estimate(Leaf::Current)?;
    let mut rows: Vec<AnchorsRow> = anchors
        .iter()
        .map(|a| AnchorsRow { text: texts::anchors_anchor_row(&a.name, a.tokens, context_window), recall: Some(a.name.clone()), tokens: a.tokens })
        .collect();
    let found = rewinds(index)?;
    // The money: the session's in the title, each rewind's saving on its row (src/cost/'s one result, given
    // what each rewind removed as its row says).
    let removed: Vec<(Slot, f64)> = found.iter().map(|r| (r.summary, r.saving.saved())).collect();
    let cost = crate::cost::cost_report(index, &removed)?;
    let saved_usd = |index: &SessionIndex, slot: Slot| cost.savings.rewinds.items.iter().find(|i| i.entry_id == index.id_of(slot)).and_then(|i| i.usd);
    for (n, r) in found.into_iter().enumerate() {
        let saved = r.saving.saved();
        let mut text = texts::anchors_rewind_row(n + 1, r.start.as_deref(), r.end.as_deref(), saved, r.before, r.saving.after(r.before), context_window);
        if let Some(usd) = saved_usd(index, r.summary) {
            text.push_str(&crate::cost::anchors_rewind_saved(usd));
        }
        rows.push(AnchorsRow { text, recall: r.end.or(r.start), tokens: saved });
    }
    let spent = crate::cost::anchors_spent(&cost);
    let title = if rows.is_empty() { texts::anchors_none(now.tokens, context_window, &spent) } else { texts::anchors_title(now.tokens, context_window, &spent) };
    Ok(AnchorsView { title, rows, unnamed: texts::anchors_unnamed().into() })
}

/// The recall a chosen row asks for: `recall`'s own plan (or refusal) for `name` at `page`, so the user
/// reads exactly what the model would. Nothing is stored in the index: a rewind in flight is not disturbed.
///
/// # Errors
/// Only for an inconsistent index (a parent cycle).
pub fn command_recall(index: &mut SessionIndex, name: &str, page: u32, context_window: f64) -> Result<ToolPlan, SessionError> {
    let facts = ToolFacts { call_id: String::new(), context_window, model: None, refresh_reaches: true, now_ms: 0.0 };
    super::plan(index, &Arguments::from_value(json!({"action": "recall", "name": name, "page": page})), &facts)
}

/// A page of what was collapsed, as the person reads it in `/anchors`' pager: `recall`'s own page without
/// the lines written for the model (its `[recall …]` first line and its last line, the next recall call or
/// the end), with the pager's title and, for a host without the pager, the choices offered after the page.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[tsify(missing_as_null)]
pub struct PagerPage {
    /// The pager's title: the name recalled and "page k of n".
    pub title: String,
    /// The collapsed entries on this page, oldest first, each under its `──── entry … ────` line.
    pub body: String,
    /// This page (1-based).
    pub page: u32,
    /// How many pages there are.
    pub pages: u32,
    /// "Next page (k of n)", or `null` on the last page.
    pub next: Option<String>,
    /// Back to the anchors.
    pub back: String,
}

/// `/anchors`' page of a chosen row: the page, or `recall`'s refusal (nothing collapsed, no such page).
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum PagerAnswer {
    /// Show `text` as a warning.
    Refuse(Refusal),
    /// The page.
    Page(PagerPage),
}

/// The page of `/anchors`' recall `plan` (from [`command_recall`]), given its entries as pi holds them (as
/// for [`super::recall_page`]): the very page `recall` gives the model, less the model's two lines.
pub fn pager_page(plan: &RecallPlan, entries: &[Option<String>]) -> PagerAnswer {
    let page = match super::recall_page(plan, entries) {
        RecallAnswer::Refuse(refusal) => return PagerAnswer::Refuse(refusal),
        RecallAnswer::Page(page) => page,
    };
    let RecallDetails { page: at, pages, .. } = page.details;
    // A page is its header line, the entries, and one last line (recall::page); the entries end in a newline.
    let entries = page.text.split_once('\n').map_or("", |(_, rest)| rest);
    let body = entries.rsplit_once('\n').map_or("", |(body, _)| body);
    PagerAnswer::Page(PagerPage {
        title: texts::anchors_page_title(&plan.name, at, pages),
        body: body.to_string(),
        page: at,
        pages,
        next: (at < pages).then(|| texts::anchors_next_page(at + 1, pages)),
        back: texts::anchors_back().into(),
    })
}

/// The pager's footer, to the person: where they are (`page` of `pages`; lines `first`–`last` of `total` on
/// screen, 1-based, when the page does not fit) and the keys that do something here.
pub fn pager_footer(page: u32, pages: u32, first: u32, last: u32, total: u32) -> String {
    let scrolls = first > 1 || last < total;
    texts::anchors_pager_footer(page, pages, scrolls.then_some((first, last, total)))
}

#[cfg(test)]
pub(super) mod tests {
    #![allow(clippy::float_cmp, reason = "token estimates are whole numbers held in f64")]

    use super::*;
    use crate::tool::recall::tests::{rewound, Lines};
    use crate::tool::{RecallAnswer, TOOL_NAME};

    /// `rewound` (anchor `start`, a rewind start → done), then an anchor `next` on the new branch and a
    /// second rewind next → again; the first rewind's file is `file`.
    fn twice(file: &str) -> Lines {
        let mut s = rewound(file);
        s.label("l5", "r4", "anchor:next")
            .call("a5", "", "c5", "read")
            .result("r5", "c5", "read", &"second stage ".repeat(500))
            .call("a6", "", "c6", TOOL_NAME)
            .rewind("2", "r4", "again", "c6");
        s
    }

    #[test]
    fn rows_are_the_anchors_with_their_context_then_each_rewind_with_what_it_saved() {
        let s = twice(&"x".repeat(40_000));
        let mut index = s.index();
        let view = anchors_view(&mut index, 100_000.0).unwrap();
        let names: Vec<Option<&str>> = view.rows.iter().map(|r| r.recall.as_deref()).collect();
        // Anchors on the active branch root → leaf (start, done, next, again), then the two rewinds.
        assert_eq!(names, [Some("start"), Some("done"), Some("next"), Some("again"), Some("done"), Some("again")]);
        for (row, id) in view.rows.iter().take(4).zip(["u", "bs1", "r4", "bs2"]) {
            assert_eq!(row.tokens, index.estimate(Leaf::Id(id)).unwrap().tokens, "{}", row.text);
        }
        // The first rewind saved what it took out of the context before its call (a1, r1, a2, r2: under the
        // call a3) less its summary, by their own estimates; its context after is the context before less that.
        let first = &view.rows[4];
        let own = |id: &str| index.entry(index.slot_of(id).unwrap()).tokens();
        let saved = ["a1", "r1", "a2", "r2"].map(own).iter().sum::<f64>() - own("bs1");
        let before = index.estimate(Leaf::Id("r2")).unwrap().tokens;
        assert!(saved > 10_000.0, "{saved}");
        assert_eq!(first.tokens, saved);
        // (This session's usages are made up and count none of the file: more comes off than they counted.)
        let delta = crate::text::format_context_delta(before, (before - saved).max(0.0), 100_000.0);
        assert!(first.text.contains("start → done") && first.text.contains(&crate::text::format_tokens(saved)) && first.text.contains(&delta), "{}", first.text);
        assert!(view.rows[5].text.contains("next → again"), "{}", view.rows[5].text);
        let texts: std::collections::HashSet<&str> = view.rows.iter().map(|r| r.text.as_str()).collect();
        assert_eq!(texts.len(), view.rows.len(), "row texts are unique");
    }

    #[test]
    fn a_chosen_row_recalls_what_recall_reads() {
        let s = twice("fn main() {}\n");
        let mut index = s.index();
        let ToolPlan::Recall(plan) = command_recall(&mut index, "done", 1, 0.0).unwrap() else { panic!("a recall plan") };
        let RecallAnswer::Page(page) = crate::tool::recall_page(&plan, &s.entries(&plan.entry_ids)) else { panic!("a page") };
        assert!(page.text.contains("fn main() {}"), "{}", page.text);
        assert!(!page.text.contains("second stage"), "only what the first rewind collapsed");
        let ToolPlan::Refuse(r) = command_recall(&mut index, "nope", 1, 0.0).unwrap() else { panic!("a refusal") };
        assert_eq!(r.code, crate::tool::RefusalCode::UnknownName);
    }

    #[test]
    fn no_anchors_is_one_message_and_a_rewind_without_names_has_nothing_to_recall() {
        let mut plain = Lines::default();
        plain.user("u", "hi");
        let view = anchors_view(&mut plain.index(), 0.0).unwrap();
        assert!(view.rows.is_empty());
        assert!(view.title.starts_with("No anchors"), "{}", view.title);
        let mut cleared = rewound("x");
        cleared.push("c1", json!({"type": "label", "targetId": "u"})).push("c2", json!({"type": "label", "targetId": "bs1"}));
        let view = anchors_view(&mut cleared.index(), 0.0).unwrap();
        assert_eq!(view.rows.len(), 1, "{view:?}");
        assert_eq!(view.rows[0].recall, None);
        assert!(view.rows[0].text.contains("? → ?"), "{}", view.rows[0].text);
    }

    #[test]
    fn a_pager_page_is_recalls_page_without_the_models_two_lines() {
        let s = twice(&"0123456789abcdef\n".repeat(3000));
        let mut index = s.index();
        let ToolPlan::Recall(first) = command_recall(&mut index, "done", 1, 0.0).unwrap() else { panic!("a recall plan") };
        let RecallAnswer::Page(model) = crate::tool::recall_page(&first, &s.entries(&first.entry_ids)) else { panic!("a page") };
        let PagerAnswer::Page(page) = pager_page(&first, &s.entries(&first.entry_ids)) else { panic!("a page") };
        let pages = model.details.pages;
        assert!(pages > 2, "{pages} pages");
        let lines: Vec<&str> = model.text.lines().collect();
        assert!(lines[0].starts_with("[recall 'done'] page 1 of") && lines.last().unwrap().contains("navigate_tree(action='recall'"), "{}", model.text);
        assert_eq!(page.body, lines[1..lines.len() - 1].join("\n"));
        assert!(page.body.starts_with("──── entry ") && !page.body.contains("navigate_tree("), "{}", page.body);
        assert_eq!((page.page, page.pages), (1, pages));
        assert_eq!(page.title, format!("What was collapsed at 'done' · page 1 of {pages}"));
        assert_eq!(page.next.as_deref(), Some(format!("Next page (2 of {pages})").as_str()));
        // The last page: no next, and no "End of what was collapsed" line (the model's too).
        let ToolPlan::Recall(last) = command_recall(&mut index, "done", pages, 0.0).unwrap() else { panic!("a recall plan") };
        let PagerAnswer::Page(end) = pager_page(&last, &s.entries(&last.entry_ids)) else { panic!("a page") };
        assert_eq!((end.page, end.next), (pages, None));
        let RecallAnswer::Page(model_end) = crate::tool::recall_page(&last, &s.entries(&last.entry_ids)) else { panic!("a page") };
        let model_lines: Vec<&str> = model_end.text.lines().collect();
        assert!(model_lines.last().unwrap().starts_with("End of what was collapsed at 'done'"), "{}", model_end.text);
        assert_eq!(end.body, model_lines[1..model_lines.len() - 1].join("\n"));
        // recall's refusals pass through: a page past the end.
        let ToolPlan::Recall(past) = command_recall(&mut index, "done", pages + 1, 0.0).unwrap() else { panic!("a recall plan") };
        let PagerAnswer::Refuse(r) = pager_page(&past, &s.entries(&past.entry_ids)) else { panic!("a refusal") };
        assert_eq!(r.code, crate::tool::RefusalCode::NoSuchPage);
    }

    #[test]
    fn the_pager_footer_names_the_lines_only_when_the_page_scrolls_and_next_only_before_the_last_page() {
        assert_eq!(pager_footer(2, 63, 1, 40, 212), "page 2 of 63 · lines 1–40 of 212 · → next page · ← back to the list · esc close · ↑↓ PgUp PgDn scroll");
        assert_eq!(pager_footer(2, 63, 1, 12, 12), "page 2 of 63 · → next page · ← back to the list · esc close");
        assert_eq!(pager_footer(63, 63, 173, 212, 212), "page 63 of 63 · lines 173–212 of 212 · ← back to the list · esc close · ↑↓ PgUp PgDn scroll");
    }

    /// The texts pinned in tests/fixtures/expected/tool-outputs.txt (see `tool::tests`).
    pub(in crate::tool) fn golden(put: &mut dyn FnMut(&str, &str)) {
        let s = twice(&"0123456789abcdef\n".repeat(600));
        for window in [200_000.0, 0.0] {
            let view = anchors_view(&mut s.index(), window).unwrap();
            put(&format!("anchors view {window}"), &serde_json::to_string(&view).unwrap());
        }
        let mut plain = Lines::default();
        plain.user("u", "hi");
        put("anchors none", &serde_json::to_string(&anchors_view(&mut plain.index(), 200_000.0).unwrap()).unwrap());
        for (page, pages, first, last, total) in [(1, 3, 1, 40, 212), (2, 3, 1, 12, 12), (3, 3, 173, 212, 212)] {
            put(&format!("anchors pager footer {page} of {pages}, lines {first}-{last} of {total}"), &pager_footer(page, pages, first, last, total));
        }
    }
}
