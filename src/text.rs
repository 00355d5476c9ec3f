//! Pure text helpers shared by the tool, the CLI and the viewer: the anchor-name rule, one-line
//! previews, context-size formatting and the branch-summary boilerplate strip.

use std::borrow::Cow;

use serde_json::Value;

use crate::js::{number_to_string as js_string, to_fixed, utf16_len};

/// Longest anchor name accepted. Long enough for descriptive names, short enough to keep `list`
/// aligned and to keep a runaway string out of the session file.
pub const MAX_NAME_LENGTH: usize = 40;

/// The label namespace shared by `anchor` names and `rewind`'s `labelEnd`.
pub const ANCHOR_PREFIX: &str = "anchor:";

/// The anchor's name when `label` is an anchor label (`anchor:<name>`).
pub fn anchor_name(label: &str) -> Option<&str> {
    label.strip_prefix(ANCHOR_PREFIX)
}

/// pi's branch-summary prelude starts with this; the strip only acts on text that does, so a user
/// document whose first heading is "## Goal" stays intact.
const BRANCH_SUMMARY_SENTINEL: &str = "The user explored a different conversation branch";
const GOAL_HEADER: &str = "## Goal";
/// The line a rewind's summary starts with (`tool::texts::summary_heading`, in place of pi's prelude);
/// [`summary_preview`] skips it.
pub const REWIND_SUMMARY_HEADING: &str = "Summary of the work this rewind collapsed:";
/// A `## Goal` further in than this is content, not the prelude's marker.
const MAX_BOILERPLATE_LEAD_IN: usize = 200;

/// Whether `name` is a valid anchor name: kebab-case (lowercase ASCII letters and digits in segments
/// joined by single hyphens), 1 to [`MAX_NAME_LENGTH`] characters.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_LENGTH
        && name
            .split('-')
            .all(|seg| !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
}

/// Whether `c` ends a word of a one-line text: whitespace (a newline, a tab) and control characters (a
/// terminal escape, NUL), which would break the row or restyle the terminal it is printed on.
fn splits_words(c: char) -> bool {
    c.is_whitespace() || c.is_control()
}

/// `text` as one row shows it: every run of whitespace and control characters is one space, the ends
/// trimmed ([`to_one_line`]'s rule, without its cut). For labels, anchor names and other user or model
/// text a row prints whole; text already on one line comes back as it is, without a copy.
pub fn one_line(text: &str) -> Cow<'_, str> {
    let clean = !text.starts_with(' ') && !text.ends_with(' ') && !text.contains("  ");
    if clean && !text.chars().any(|c| c != ' ' && splits_words(c)) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(collapse(text))
}

/// The words of `text` joined by single spaces (see [`splits_words`]).
fn collapse(text: &str) -> String {
    // A loop rather than `collect::<Vec<_>>().join(" ")`: the same text without a `join` instantiation.
    let mut collapsed = String::new();
    for word in text.split(splits_words).filter(|w| !w.is_empty()) {
        if !collapsed.is_empty() {
            collapsed.push(' ');
        }
        collapsed.push_str(word);
    }
    collapsed
}

/// A one-line preview: [`one_line`]'s rule (whitespace and control characters collapsed to one space,
/// trimmed), cut to `max_len` characters with a trailing `…`. Returns `None` for text with nothing visible.
pub fn to_one_line(text: &str, max_len: usize) -> Option<String> {
    let collapsed = collapse(text);
    if collapsed.is_empty() {
        return None;
    }
    if max_len <= 1 {
        return Some("…".into());
    }
    if utf16_len(&collapsed) <= max_len {
        return Some(collapsed);
    }
    // Cut on a character boundary (never inside a surrogate pair), leaving room for the ellipsis.
    let mut out = String::new();
    let mut units = 0;
    for c in collapsed.chars() {
        if units + c.len_utf16() > max_len - 1 {
            break;
        }
        units += c.len_utf16();
        out.push(c);
    }
    out.push('…');
    Some(out)
}

/// Tokens as a percentage of the window with one decimal (`12.3%`), or as a count people read
/// ([`format_tokens`]: `36`, `1.2k`) when the window is unknown.
pub fn format_pct1(tokens: f64, context_window: f64) -> String {
    // `toFixed` (not Rust's `{:.1}`, which rounds ties differently and prints "inf"): the numbers read
    // as the reference extension's do.
    if context_window <= 0.0 {
        return format_tokens(tokens);
    }
    format!("{}%", to_fixed(tokens / context_window * 100.0, 1))
}

/// A token count as people read it: whole below a thousand (`36`, `840`), then thousands with one
/// decimal (`1.2k`, `12.6k`), then millions (`1.3M`). Never `0.0k`: a few dozen tokens print as they are.
pub fn format_tokens(tokens: f64) -> String {
    if !tokens.is_finite() {
        return js_string(tokens);
    }
    // The unit is chosen on the rounded text (`toFixed`), so 999.6 prints `1.0k`, never `1000`, and
    // 999,960 prints `1.0M`, never `1000.0k`; comparing texts needs no float parser in the wasm.
    let whole = to_fixed(tokens, 0);
    if tokens.abs() < 1000.0 && whole.trim_start_matches('-') != "1000" {
        return whole;
    }
    let thousands = to_fixed(tokens / 1000.0, 1);
    if tokens.abs() < 1_000_000.0 && thousands.trim_start_matches('-') != "1000.0" {
        return format!("{thousands}k");
    }
    format!("{}M", to_fixed(tokens / 1_000_000.0, 1))
}

/// The positions of `values` from the largest down, equal values in their order (a stable sort, written once
/// for positions: a sort's code is made again for every type and comparison it sorts, and the module's size is a
/// budget). Bottom-up merges: O(n log n) for any input.
pub fn largest_first(values: &[f64]) -> Vec<usize> {
    let n = values.len();
    let mut order: Vec<usize> = (0..n).collect();
    let mut merged = vec![0; n];
    let larger = |a: usize, b: usize| values.get(a).zip(values.get(b)).is_some_and(|(x, y)| x > y);
    let mut width = 1;
    while width < n {
        for start in (0..n).step_by(2 * width) {
            let (mid, end) = ((start + width).min(n), (start + 2 * width).min(n));
            let (mut i, mut j) = (start, mid);
            for slot in merged.iter_mut().take(end).skip(start) {
                // The right run's first goes first only when strictly larger: equal values keep their order.
                let right = (j < end && i >= mid) || (j < end && larger(order[j], order[i]));
                *slot = if right { order[j] } else { order[i] };
                if right { j += 1 } else { i += 1 }
            }
        }
        std::mem::swap(&mut order, &mut merged);
        width *= 2;
    }
    order
}

/// An amount of USD as people read it: `$4.96`, `$0.42`; `<$0.01` for less than a cent but more than
/// nothing (a summary served from the cache costs fractions of a cent); a negative amount with its sign.
pub fn format_usd(usd: f64) -> String {
    if usd > 0.0 && usd < 0.005 {
        return "<$0.01".into();
    }
    if usd < 0.0 {
        return format!("−{}", format_usd(-usd));
    }
    format!("${}", to_fixed(usd, 2))
}

/// A window size as `1.0M` or `200k`; empty when unknown.
pub fn format_window(context_window: f64) -> String {
    if context_window <= 0.0 {
        String::new()
    } else if context_window >= 1_000_000.0 {
        format!("{}M", to_fixed(context_window / 1_000_000.0, 1))
    } else {
        format!("{}k", to_fixed(context_window / 1000.0, 0))
    }
}

/// `context 30.4% → 4.1% of 200k`, or `tokens 60800 → 8200` when the window is unknown.
pub fn format_context_delta(before: f64, after: f64, context_window: f64) -> String {
    if context_window > 0.0 {
        let (before, after) = (format_pct1(before, context_window), format_pct1(after, context_window));
        format!("context {before} → {after} of {}", format_window(context_window))
    } else {
        format!("tokens {} → {}", js_string(before), js_string(after))
    }
}

/// `12.3% of 200k` (or `12.3k` with no window): the context position used in tool texts.
pub fn format_position(tokens: f64, context_window: f64) -> String {
    let pct = format_pct1(tokens, context_window);
    if context_window > 0.0 {
        format!("{pct} of {}", format_window(context_window))
    } else {
        pct
    }
}

/// Bytes as people read them: `812 B`, `4.21 KB`, `13.7 MB`, `1.02 GB` (decimal units, as file managers and
/// `ls -h --si` show them; three significant digits from 1 KB up).
pub fn format_bytes(bytes: f64) -> String {
    if bytes < 1000.0 {
        return format!("{} B", js_string(bytes));
    }
    let (unit, div) = if bytes < 1e6 {
        ("KB", 1e3)
    } else if bytes < 1e9 {
        ("MB", 1e6)
    } else {
        ("GB", 1e9)
    };
    let v = bytes / div;
    let digits = if v < 10.0 {
        2
    } else if v < 100.0 {
        1
    } else {
        0
    };
    format!("{} {unit}", to_fixed(v, digits))
}

/// How many names a human list shows before it counts the rest: a list of every anchor of a long run
/// (1,914 on a 1 GB session) is one wall of text nobody reads.
pub const MAX_NAMES_SHOWN: usize = 10;

/// `a, b, c` — or, for a longer list, its first [`MAX_NAMES_SHOWN`] names and `and N more`.
pub fn name_list<S: AsRef<str>>(names: &[S]) -> String {
    shown_of(names.iter().take(MAX_NAMES_SHOWN).map(AsRef::as_ref), names.len())
}

/// The names `shown` of a list of `total`, each on one line ([`one_line`]), joined, with `and N more` for
/// the rest.
pub fn shown_of<'a>(shown: impl Iterator<Item = &'a str>, total: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    for name in shown {
        if count > 0 {
            out.push_str(", ");
        }
        out.push_str(&one_line(name));
        count += 1;
    }
    if total > count {
        out.push_str(&format!(" and {} more", total - count));
    }
    out
}

/// Removes pi's branch-summary prelude up to and including `## Goal`, so a preview shows content.
/// Text that does not start with the prelude comes back unchanged.
pub fn strip_branch_summary_boilerplate(text: &str) -> &str {
    let goal = from_goal(text);
    if goal.len() == text.len() {
        return text;
    }
    goal.get(GOAL_HEADER.len()..).unwrap_or("")
}

/// `text` from pi's `## Goal` on when it starts with pi's branch-summary prelude; else `text`.
fn from_goal(text: &str) -> &str {
    if !text.starts_with(BRANCH_SUMMARY_SENTINEL) {
        return text;
    }
    match text.find(GOAL_HEADER) {
        // `get` rather than indexing: `find` gives char boundaries, and a slicing panic would pull core's
        // Unicode tables (for its message) into the wasm.
        Some(at) if at > 0 && utf16_len(text.get(..at).unwrap_or("")) < MAX_BOILERPLATE_LEAD_IN => text.get(at..).unwrap_or(""),
        _ => text,
    }
}

/// The preview of a summary (a rewind's, or pi's own branch summary): its first line of content, named by
/// the markdown heading right above it — `## Goal` then `Fix the parser.` previews as `Goal: Fix the parser.`.
/// What precedes the content is not previewed: the rewind's heading ([`REWIND_SUMMARY_HEADING`]), pi's
/// prelude, blank lines, and headings further up (only the nearest names the line). A list marker (`- `,
/// `* `, `+ `, `1. `) before the line is dropped; a summary of headings alone previews its last one.
/// `None` when nothing is visible. Every row that shows a summary (`list`, the pressure hint, `/anchors`,
/// the CLI's `list` and `tree`, the viewer) shows this, as the entry's preview.
pub fn summary_preview(summary: &str) -> Option<String> {
    let text = from_goal(summary.trim_start());
    let text = text.strip_prefix(REWIND_SUMMARY_HEADING).unwrap_or(text);
    let mut heading = "";
    for line in text.split('\n').map(str::trim) {
        let title = line.trim_start_matches('#');
        if (1..=6).contains(&(line.len() - title.len())) && (title.is_empty() || title.starts_with(' ')) {
            // A heading (`## Goal`): it names the content under it; an empty one names nothing.
            let title = title.trim().trim_end_matches(':');
            if !title.is_empty() {
                heading = title;
            }
        } else if !line.is_empty() {
            let mut out = String::from(heading);
            if !heading.is_empty() {
                out.push_str(": ");
            }
            out.push_str(without_list_marker(line));
            return Some(out);
        }
    }
    (!heading.is_empty()).then(|| heading.to_string())
}

/// `line` without a leading list marker (`- `, `* `, `+ `, `1. `, `1) `).
fn without_list_marker(line: &str) -> &str {
    let body = line.trim_start_matches(|c: char| c.is_ascii_digit());
    let markers: &[&str] = if body.len() < line.len() { &[". ", ") "] } else { &["- ", "* ", "+ "] };
    markers.iter().find_map(|m| body.strip_prefix(m)).map_or(line, str::trim_start)
}

/// The text of a message `content`: a string as is, or the `text` blocks of an array joined by spaces.
pub fn extract_text_content(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}

/// One row of an anchor list.
#[derive(Debug, Clone, PartialEq)]
pub struct ListRow<'a> {
    /// Anchor name without the `anchor:` prefix.
    pub name: &'a str,
    /// Estimated context tokens with this anchor's entry as leaf.
    pub tokens: f64,
    /// Preview of the text the anchor sits after.
    pub hint: Option<&'a str>,
}

/// Width of the percentage column (`99.9%`).
const LIST_PCT_WIDTH: usize = 5;
/// Width of the name column; typical names are 8–20 characters.
const LIST_NAME_WIDTH: usize = 28;

/// The human `list` text shared by the tool and the CLI: a header with the count and the current
/// context, then one aligned row per anchor (root → leaf). `warning`, when given, follows the header.
pub fn format_list(rows: &[ListRow<'_>], current_tokens: f64, context_window: f64, warning: Option<&str>) -> String {
    let noun = if rows.len() == 1 { "anchor" } else { "anchors" };
    let mut out = format!("[list] · {} {noun} · ctx {}", rows.len(), format_position(current_tokens, context_window));
    if let Some(w) = warning {
        out.push_str(" · ");
        out.push_str(w);
    }
    if rows.is_empty() {
        out.push_str("\n\nNo anchors on the active branch.");
        return out;
    }
    out.push_str("\n\nAnchors (root → leaf):");
    for row in rows {
        let pct = format_pct1(row.tokens, context_window);
        let hint = row.hint.map(|h| format!(" (after: “{h}”)")).unwrap_or_default();
        let line = format!("\n  {pct:>LIST_PCT_WIDTH$}  {:<LIST_NAME_WIDTH$}{hint}", one_line(row.name));
        // Names shorter than the column leave trailing spaces when there is no hint.
        out.push_str(line.trim_end());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_first_is_a_stable_descending_sort() {
        // Every length up to 40, values with many ties, against the standard library's stable sort.
        let mut seed = 7u64;
        for n in 0..40 {
            let values: Vec<f64> = (0..n)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    f64::from(((seed >> 33) % 5) as u32)
                })
                .collect();
            let mut expected: Vec<usize> = (0..n).collect();
            expected.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
            assert_eq!(largest_first(&values), expected, "{values:?}");
        }
    }

    #[test]
    fn names_are_kebab_case_up_to_forty() {
        for ok in ["a", "impl-start", "v2-fix-3", &"a".repeat(40)] {
            assert!(is_valid_name(ok), "{ok}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "a b", "é", &"a".repeat(41), "anchor:x"] {
            assert!(!is_valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn one_line_texts_show_newlines_and_control_characters_as_one_space() {
        // What a label typed into pi's /label (or a hand-edited file) can hold.
        let label = "anchor:= naïve 👩‍💻\nline 🚀 *\r\n\tx\u{1b}[2Jy\u{0}z\u{7f}\u{85}w\u{2028}v  u ";
        assert_eq!(one_line(label), "anchor:= naïve 👩‍💻 line 🚀 * x [2Jy z w v u");
        assert_eq!(one_line("\n \u{1b}"), "");
        assert!(matches!(one_line("anchor:plain name é"), Cow::Borrowed(_)), "a clean text is not copied");
        for t in [" a", "a ", "a  b", "a\tb", "a\u{a0}b"] {
            assert!(matches!(one_line(t), Cow::Owned(_)), "{t:?}");
        }
        // The previews' rule is the same, then cut.
        assert_eq!(to_one_line(label, 200).as_deref(), Some(&*one_line(label)));
        assert_eq!(to_one_line("\u{1b}[31mred\u{1b}[0m", 50).as_deref(), Some("[31mred [0m"));
        assert_eq!(to_one_line("\u{0}\u{7}", 50), None);
        assert_eq!(name_list(&["a\nb", "c"]), "a b, c");
    }

    #[test]
    fn one_line_previews() {
        assert_eq!(to_one_line("  hello \n world ", 50).as_deref(), Some("hello world"));
        assert_eq!(to_one_line("   ", 50), None);
        assert_eq!(to_one_line("abcdef", 4).as_deref(), Some("abc…"));
        assert_eq!(to_one_line("abc", 1).as_deref(), Some("…"));
        assert_eq!(to_one_line("😀😀😀", 4).as_deref(), Some("😀…"));
    }

    #[test]
    fn formats() {
        assert_eq!(format_pct1(30_400.0, 100_000.0), "30.4%");
        assert_eq!(format_pct1(1234.0, 0.0), "1.2k");
        assert_eq!(format_pct1(36.0, 0.0), "36");
        assert_eq!(format_window(1_000_000.0), "1.0M");
        assert_eq!(format_window(200_000.0), "200k");
        assert_eq!(format_window(0.0), "");
        assert_eq!(format_context_delta(30_400.0, 4_100.0, 100_000.0), "context 30.4% → 4.1% of 100k");
        assert_eq!(format_context_delta(10.0, 5.0, 0.0), "tokens 10 → 5");
    }

    #[test]
    fn token_counts_read_as_people_read_them() {
        let cases = [
            (0.0, "0"),
            (6.0, "6"),
            (36.0, "36"),
            (840.0, "840"),
            (999.0, "999"),
            (999.6, "1.0k"),
            (1000.0, "1.0k"),
            (1234.0, "1.2k"),
            (12_600.0, "12.6k"),
            (128_000.0, "128.0k"),
            (999_949.0, "999.9k"),
            (999_960.0, "1.0M"),
            (1_250_000.0, "1.3M"),
            (-36.0, "-36"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
        ];
        for (tokens, text) in cases {
            assert_eq!(format_tokens(tokens), text, "{tokens}");
        }
    }

    #[test]
    fn bytes_read_as_people_read_them() {
        let cases = [
            (0.0, "0 B"),
            (812.0, "812 B"),
            (999.0, "999 B"),
            (1000.0, "1.00 KB"),
            (4210.0, "4.21 KB"),
            (13_342.0, "13.3 KB"),
            (999_499.0, "999 KB"),
            (13_700_000.0, "13.7 MB"),
            (50_000_000.0, "50.0 MB"),
            (1_020_000_000.0, "1.02 GB"),
        ];
        for (bytes, text) in cases {
            assert_eq!(format_bytes(bytes), text, "{bytes}");
        }
    }

    #[test]
    fn name_lists_stop_at_ten_and_count_the_rest() {
        let names: Vec<String> = (1..=1914).map(|i| format!("n{i}")).collect();
        assert_eq!(name_list(&names[..0]), "");
        assert_eq!(name_list(&names[..1]), "n1");
        assert_eq!(name_list(&names[..3]), "n1, n2, n3");
        assert_eq!(name_list(&names[..10]), "n1, n2, n3, n4, n5, n6, n7, n8, n9, n10");
        assert_eq!(name_list(&names[..11]), "n1, n2, n3, n4, n5, n6, n7, n8, n9, n10 and 1 more");
        assert_eq!(name_list(&names), "n1, n2, n3, n4, n5, n6, n7, n8, n9, n10 and 1904 more");
    }

    #[test]
    fn boilerplate_strip_needs_the_sentinel() {
        let pi = "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n## Goal\nShip it";
        assert_eq!(strip_branch_summary_boilerplate(pi), "\nShip it");
        let doc = "## Goal\nmine";
        assert_eq!(strip_branch_summary_boilerplate(doc), doc);
        let late = format!("{BRANCH_SUMMARY_SENTINEL}{}## Goal", "x".repeat(300));
        assert_eq!(strip_branch_summary_boilerplate(&late), late);
    }

    #[test]
    fn a_summary_previews_its_first_line_of_content_under_its_heading() {
        let ours = format!("{REWIND_SUMMARY_HEADING}\n\n## Goal\nFix the parser.\n\n## Constraints & Preferences\n- none\n\n<ledger>\n- x\n</ledger>");
        assert_eq!(summary_preview(&ours).as_deref(), Some("Goal: Fix the parser."));
        let pi = "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n## Goal\nShip it";
        assert_eq!(summary_preview(pi).as_deref(), Some("Goal: Ship it"));
        // The nearest heading names the line; list markers go; a heading's own colon is not doubled.
        assert_eq!(summary_preview("# Checkpoint\n\n## Goal:\n\n- Fix the parser\n- Add tests").as_deref(), Some("Goal: Fix the parser"));
        assert_eq!(summary_preview("### Done\n12. [x] lexer").as_deref(), Some("Done: [x] lexer"));
        assert_eq!(summary_preview("Fixed the lexer.\nThen the parser.").as_deref(), Some("Fixed the lexer."));
        assert_eq!(summary_preview("  #hashtag first\n-dash").as_deref(), Some("#hashtag first"), "no heading without a space");
        assert_eq!(summary_preview("- 3 items").as_deref(), Some("3 items"));
        assert_eq!(summary_preview("2024 was the year").as_deref(), Some("2024 was the year"));
        // Headings alone, nothing, or only the rewind's heading.
        assert_eq!(summary_preview("## Goal\n\n##\n").as_deref(), Some("Goal"), "an empty heading names nothing");
        assert_eq!(summary_preview(" \n\n"), None);
        assert_eq!(summary_preview(REWIND_SUMMARY_HEADING), None);
        // A cut summary with no text: its note is its first line of content.
        let cut = format!("{REWIND_SUMMARY_HEADING}\n\n(This summary was cut off.)\n\n<ledger>");
        assert_eq!(summary_preview(&cut).as_deref(), Some("(This summary was cut off.)"));
    }

    #[test]
    fn text_content_joins_text_blocks() {
        let v: Value = serde_json::from_str(r#"[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]"#).unwrap();
        assert_eq!(extract_text_content(Some(&v)), "a b");
        assert_eq!(extract_text_content(Some(&Value::String("s".into()))), "s");
        assert_eq!(extract_text_content(None), "");
    }

    #[test]
    fn list_rows_align() {
        let rows = [
            ListRow { name: "impl-start", tokens: 1900.0, hint: Some("implement the parser") },
            ListRow { name: "done", tokens: 30_400.0, hint: None },
        ];
        let text = format_list(&rows, 31_000.0, 100_000.0, None);
        assert_eq!(
            text,
            "[list] · 2 anchors · ctx 31.0% of 100k\n\nAnchors (root → leaf):\n   1.9%  impl-start                   (after: “implement the parser”)\n  30.4%  done"
        );
        assert!(format_list(&[], 0.0, 0.0, None).ends_with("No anchors on the active branch."));
        // A name from a label typed in pi (`anchor:…` with a newline) keeps its row.
        let odd = [ListRow { name: "a\nb\u{1b}[2J", tokens: 10.0, hint: None }, rows[1].clone()];
        let text = format_list(&odd, 31_000.0, 100_000.0, None);
        assert!(text.ends_with("\n   0.0%  a b [2J\n  30.4%  done"), "{text}");
    }

    /// The hand-made padding equals `format!`'s width rules (which count characters), for names
    /// shorter, as long as and longer than the column, ASCII or not, and percentages of any width.
    #[test]
    fn list_padding_matches_format_width() {
        let long = "n".repeat(40);
        let names = ["a", "née-ñ", "日本語", long.as_str(), &"x".repeat(28), "😀-emoji"];
        for (i, name) in names.iter().enumerate() {
            for (tokens, window) in [(5.0, 100_000.0), (99_999.0, 100_000.0), (2_000_000.0, 1000.0), (123.0, 0.0)] {
                let hint = (i % 2 == 0).then_some("h “q”");
                let text = format_list(&[ListRow { name, tokens, hint }], 1.0, window, Some("warn"));
                let pct = format_pct1(tokens, window);
                let mut row = format!("\n  {pct:>LIST_PCT_WIDTH$}  {name:<LIST_NAME_WIDTH$}");
                if let Some(h) = hint {
                    row = format!("{row} (after: “{h}”)");
                }
                let want = format!(
                    "[list] · 1 anchor · ctx {} · warn\n\nAnchors (root → leaf):{}",
                    format_position(1.0, window),
                    row.trim_end()
                );
                assert_eq!(text, want);
            }
        }
    }
}
