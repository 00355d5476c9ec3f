//! `recall`, first half: which entries a call reads (see [`super`]) — the name (an anchor, a rewind's
//! summary, or an entry's id), the `query` and the `page`, checked; the entries a rewind collapsed, from the
//! index's facts.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsify_next::Tsify;

use crate::error::SessionError;
use crate::js::utf16_len;
use crate::session::{Kind, Leaf, RoleKind, SessionIndex, Slot};
use crate::text::{is_valid_name, ANCHOR_PREFIX};
use crate::tool::collapsed::rewound_from;
use crate::tool::facts::ToolFacts;
use crate::tool::params::{name_problem, Params};
use crate::tool::refusal::Refusal;
use crate::tool::texts::{self, RefusalCode};

/// Longest `query` accepted, in UTF-16 units (it is repeated in every page's footer).
pub const MAX_QUERY_CHARS: usize = 200;

/// `recall`, first half: the entries whose text the shim hands over (`entryIds`, oldest first), and the
/// request they answer. `/anchors` hands it back to the core with the entries (hence `Deserialize`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct RecallPlan {
    /// The name recalled (without `anchor:`).
    pub name: String,
    /// The query, if one was sent (trimmed; `null` for none).
    pub query: Option<String>,
    /// The page asked for (1-based).
    pub page: u32,
    /// The collapsed conversation entries (user, assistant and tool result messages), oldest first; with
    /// `whole`, the one entry.
    pub entry_ids: Vec<String>,
    /// `name` is an entry's id (not an anchor): that entry is read whole — tool calls, thinking and every
    /// field, not only its text.
    #[serde(default)]
    pub whole: bool,
}

/// Decides which entries a `recall` call reads (see [`super`]). Refuses an invalid or unknown name,
/// a bad `query` or `page`, and a name at which nothing was collapsed.
///
/// # Errors
/// Only for an inconsistent index (a parent cycle).
pub(in crate::tool) fn plan(index: &mut SessionIndex, params: &Params<'_>, facts: &ToolFacts) -> Result<Result<RecallPlan, Refusal>, SessionError> {
    // `name`; a model that names the summary by the rewind's own parameter is understood too.
    let key = ["name", "labelEnd", "labelStart"].into_iter().find(|k| params.raw.get(k).is_some()).unwrap_or("name");
    let sent = params.raw.get(key).and_then(Value::as_str);
    let name = sent.filter(|n| is_valid_name(n));
    let label = name.map(|n| format!("{ANCHOR_PREFIX}{n}"));
    let named = match &label {
        Some(label) => labelled(index, label)?,
        None => None,
    };
    // The id of an entry (a ledger's item names one), read whole unless an anchor of that name has
    // collapsed work to read.
    let entry = sent.and_then(|id| index.slot_of(id));
    let Some(name) = name.or(entry.and(sent)) else {
        let problem = name_problem(params.raw, key);
        return Ok(Err(Refusal::new(RefusalCode::InvalidName, texts::invalid_name(key, "recall", problem.as_deref()))));
    };
    let query = match read_query(params.raw.get("query")) {
        Ok(q) => q,
        Err(problem) => return Ok(Err(Refusal::new(RefusalCode::InvalidRecall, texts::recall_bad_query(&problem)))),
    };
    let page = match read_page(params.raw.get("page")) {
        Ok(p) => p,
        Err(problem) => return Ok(Err(Refusal::new(RefusalCode::InvalidRecall, texts::recall_bad_page(&problem)))),
    };
    // The whole entry; a query has nothing to narrow in one entry.
    let whole = |index: &SessionIndex, slot: Slot| RecallPlan { name: name.into(), query: None, page, entry_ids: vec![index.id_of(slot).into()], whole: true };
    let named = match (named, entry) {
        (Some(named), _) => named,
        (None, Some(slot)) => return Ok(Ok(whole(index, slot))),
        (None, None) => {
            let rows = texts::anchor_rows(&index.anchors(Leaf::Current)?, facts.context_window);
            return Ok(Err(Refusal::new(RefusalCode::UnknownName, texts::recall_unknown(name, &rows))));
        }
    };
    let collapsed = if let Some(slots) = rewind_collapsed(index, named)? {
        slots
    } else {
        let mut all = Vec::new();
        for child in index.children_of(named).to_vec() {
            all.extend(rewind_collapsed(index, child)?.unwrap_or_default());
        }
        all
    };
    let mut seen = HashSet::new();
    let entry_ids: Vec<String> = collapsed
        .into_iter()
        .filter(|&s| matches!(index.entry(s).kind(), Kind::Message(RoleKind::User | RoleKind::Assistant | RoleKind::ToolResult)))
        .filter(|&s| seen.insert(s))
        .map(|s| index.id_of(s).to_string())
        .collect();
    if entry_ids.is_empty() {
        if let Some(slot) = entry {
            return Ok(Ok(whole(index, slot)));
        }
        return Ok(Err(Refusal::new(RefusalCode::NothingCollapsed, texts::recall_nothing(name))));
    }
    Ok(Ok(RecallPlan { name: name.into(), query, page, entry_ids, whole: false }))
}

/// The entry labelled `label`: the one on the active branch, else the newest labelled one anywhere (a
/// rewind leaves anchors behind on the branch it abandons).
fn labelled(index: &mut SessionIndex, label: &str) -> Result<Option<Slot>, SessionError> {
    if let Some(slot) = index.find_label_on_path(label, index.leaf())? {
        return Ok(Some(slot));
    }
    Ok((0..index.len() as Slot).rev().find(|&s| index.label_at(s) == Some(label)))
}

/// What the rewind that wrote `summary` collapsed, oldest first; `None` when `summary` is no summary a
/// rewind of this tool wrote (no synthetic call below it, or no original call to match).
fn rewind_collapsed(index: &mut SessionIndex, summary: Slot) -> Result<Option<Vec<Slot>>, SessionError> {
    Ok(rewound_from(index, summary)?.map(|(_, collapsed)| collapsed))
}

/// `query`: absent, `null` or blank is none; anything but a string, or a string over
/// [`MAX_QUERY_CHARS`], is the problem in words.
fn read_query(value: Option<&Value>) -> Result<Option<String>, String> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => {
            let units = utf16_len(s.trim());
            if units > MAX_QUERY_CHARS {
                return Err(format!("it is {units} characters long"));
            }
            Ok(Some(s.trim().to_string()))
        }
        Some(Value::Number(_)) => Err("it is a number, not a string".into()),
        Some(Value::Bool(_)) => Err("it is a boolean, not a string".into()),
        Some(Value::Array(_)) => Err("it is an array, not a string".into()),
        Some(Value::Object(_)) => Err("it is an object, not a string".into()),
    }
}

/// `page`: absent or `null` is 1; a whole number ≥ 1 (or its digits as a string) is that page.
fn read_page(value: Option<&Value>) -> Result<u32, String> {
    let page = match value {
        None | Some(Value::Null) => return Ok(1),
        Some(Value::Number(n)) => n.as_f64().filter(|x| x.fract() == 0.0 && *x >= 1.0 && *x <= f64::from(u32::MAX)).map(|x| x as u32),
        Some(Value::String(s)) => s.trim().parse::<u32>().ok().filter(|&p| p >= 1),
        Some(_) => None,
    };
    page.ok_or_else(|| "send a whole number from 1 up, e.g. 2".into())
}
