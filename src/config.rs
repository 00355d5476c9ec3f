//! The config file `tree-navigator.json`: two layers read by the shim (global = pi's agent dir, project =
//! `<cwd>/.pi/`, the latter only when pi trusts the project), merged here field by field.
//!
//! Nothing here reads a file. The shim hands over what it found for each layer ([`LayerInput`]: missing,
//! unreadable with the error, or the text) and gets back the effective [`Config`] plus the warnings to show
//! (one per broken layer, one per bad field). A broken file or value never stops the extension: the field
//! falls back to the other layer, then to the default.
//!
//! ```json
//! { "contextHint": 70, "startAnchorTurn": 2, "cacheSummary": true, "cacheCompaction": true, "archiveNotice": true, "ledgerTokens": 600,
//!   "loopHint": 3, "archiveOnExit": false, "archiveOnExitMinMB": 10 }
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tsify_next::Tsify;

/// The file name in both layers.
pub const CONFIG_FILE: &str = "tree-navigator.json";
/// Default context-pressure threshold, in percent of the context window (see [`pressure_threshold`]).
pub const DEFAULT_HINT_PERCENT: u8 = 70;
/// Accepted thresholds: below 20 the hint would fire in every run; above 95 it could never precede
/// pi's own compaction.
pub const HINT_PERCENT_RANGE: (u8, u8) = (20, 95);
/// Default turn after which `anchor:start` is written.
pub const DEFAULT_START_ANCHOR_TURN: u8 = 2;
/// Accepted start-anchor turns.
pub const START_ANCHOR_TURN_RANGE: (u8, u8) = (1, 50);
/// Default bound of the ledger of facts under a summary (`crate::tool::ledger`), in tokens by pi's estimate
/// (`ceil(chars / 4)`): a few percent of what a rewind saves (docs/benchmarks.md, "Ledger").
pub const DEFAULT_LEDGER_TOKENS: u32 = 600;
/// Accepted bounds of the ledger, in tokens: below 50 it holds a fact or two, above 4000 it would cost more
/// than most rewinds save.
pub const LEDGER_TOKENS_RANGE: (u32, u32) = (50, 4000);
/// Default number of repeats that make a loop for the loop hint ([`crate::loops`]).
pub const DEFAULT_LOOP_HINT: u8 = 3;
/// Accepted repeat counts: one call is no repeat; past 20 the hint would come after most of the money is spent.
pub const LOOP_HINT_RANGE: (u8, u8) = (2, 20);
/// Default smallest session file `archiveOnExit` archives, in MB (10⁶ bytes): below it pi opens a file in a
/// fraction of a second anyway.
pub const DEFAULT_ARCHIVE_ON_EXIT_MIN_MB: u32 = 10;
/// Accepted sizes, in MB: 0 (any size) to 100,000.
pub const ARCHIVE_ON_EXIT_MIN_MB_RANGE: (u32, u32) = (0, 100_000);

/// Which file a value or warning comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub enum Layer {
    /// `<agentDir>/tree-navigator.json`.
    Global,
    /// `<cwd>/.pi/tree-navigator.json` (trusted projects only).
    Project,
}

impl Layer {
    fn name(self) -> &'static str {
        match self {
            Layer::Global => "global",
            Layer::Project => "project",
        }
    }
}

/// What the shim found for one layer.
#[derive(Debug, Clone, PartialEq, Deserialize, Tsify)]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum LayerInput {
    /// No file (or an untrusted project, which is neither read nor warned about).
    Missing,
    /// The file exists but could not be read.
    Unreadable {
        /// The file's path, for the warning.
        path: String,
        /// The read error's message.
        error: String,
    },
    /// The file's text.
    Text {
        /// The file's path, for the warnings.
        path: String,
        /// Its contents.
        text: String,
    },
}

/// The effective settings.
// Each bool is a switch of its own feature (the README's switch table), not a state to fold into an enum.
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct Config {
    /// Context-pressure hint threshold in percent of the window; `None`: the hint is off.
    pub hint_percent: Option<u8>,
    /// Turns after which `anchor:start` is written; `None`: no start anchor.
    pub start_anchor_turn: Option<u8>,
    /// Whether a rewind may reuse the live request's prompt cache for its summary.
    pub cache_summary: bool,
    /// Whether pi's compactions may be written by the live request, from its prompt cache
    /// (`crate::compaction`).
    pub cache_compaction: bool,
    /// Whether the user is told when `archive` would shrink a big resumed session ([`crate::notice`]).
    pub archive_notice: bool,
    /// The bound of the ledger of facts under a summary, in tokens; `None`: no ledger.
    pub ledger_tokens: Option<u32>,
    /// The repeats after which a model going round in a loop gets the loop hint ([`crate::loops`]);
    /// `None`: no loop hint.
    pub loop_hint: Option<u8>,
    /// Whether a session file worth it ([`crate::notice::exit_archive_due`]) is archived after pi quits.
    pub archive_on_exit: bool,
    /// The smallest session file `archive_on_exit` archives, in MB.
    #[serde(rename = "archiveOnExitMinMB")]
    pub archive_on_exit_min_mb: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            hint_percent: Some(DEFAULT_HINT_PERCENT),
            start_anchor_turn: Some(DEFAULT_START_ANCHOR_TURN),
            cache_summary: true,
            cache_compaction: true,
            archive_notice: true,
            ledger_tokens: Some(DEFAULT_LEDGER_TOKENS),
            loop_hint: Some(DEFAULT_LOOP_HINT),
            archive_on_exit: false,
            archive_on_exit_min_mb: DEFAULT_ARCHIVE_ON_EXIT_MIN_MB,
        }
    }
}

/// The effective settings and what to tell the user about the files.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
pub struct LoadedConfig {
    /// The merged settings.
    pub config: Config,
    /// One line per broken layer or bad field (shown as UI warnings; never sent to the model).
    pub warnings: Vec<String>,
}

/// One field as a layer gives it: absent, a value, or present but invalid (with the reason).
#[derive(Debug, Clone, PartialEq)]
enum Field<T> {
    Absent,
    Set(T),
    Invalid(String),
}

/// Reads both layers and merges them: the project layer wins per field. For the threshold a project value
/// wins even when it is invalid (the hint is then off: the project asked for something, and guessing
/// another threshold would surprise it); for the other fields an invalid value falls back to the other
/// layer, then to the default.
pub fn load(global: &LayerInput, project: &LayerInput) -> LoadedConfig {
    let mut warnings = Vec::new();
    let g = read_layer(Layer::Global, global, &mut warnings);
    let p = read_layer(Layer::Project, project, &mut warnings);
    let hint_percent = match (&p.hint, &g.hint) {
        (Field::Set(v), _) | (Field::Absent, Field::Set(v)) => *v,
        (Field::Invalid(_), _) => None,
        (Field::Absent, Field::Invalid(_) | Field::Absent) => Some(DEFAULT_HINT_PERCENT),
    };
    let start_anchor_turn = match (&p.start, &g.start) {
        (Field::Set(v), _) | (_, Field::Set(v)) => *v,
        _ => Some(DEFAULT_START_ANCHOR_TURN),
    };
    let cache_summary = match (&p.cache, &g.cache) {
        (Field::Set(v), _) | (_, Field::Set(v)) => *v,
        _ => true,
    };
    let cache_compaction = match (&p.compaction, &g.compaction) {
        (Field::Set(v), _) | (_, Field::Set(v)) => *v,
        _ => true,
    };
    let archive_notice = match (&p.notice, &g.notice) {
        (Field::Set(v), _) | (_, Field::Set(v)) => *v,
        _ => true,
    };
    let ledger_tokens = match (&p.ledger, &g.ledger) {
        (Field::Set(v), _) | (_, Field::Set(v)) => *v,
        _ => Some(DEFAULT_LEDGER_TOKENS),
    };
    let loop_hint = match (&p.loops, &g.loops) {
        (Field::Set(v), _) | (_, Field::Set(v)) => *v,
        _ => Some(DEFAULT_LOOP_HINT),
    };
    let archive_on_exit = match (&p.exit, &g.exit) {
        (Field::Set(v), _) | (_, Field::Set(v)) => *v,
        _ => false,
    };
    let archive_on_exit_min_mb = match (&p.exit_min, &g.exit_min) {
        (Field::Set(v), _) | (_, Field::Set(v)) => *v,
        _ => DEFAULT_ARCHIVE_ON_EXIT_MIN_MB,
    };
    let config = Config { hint_percent, start_anchor_turn, cache_summary, cache_compaction, archive_notice, ledger_tokens, loop_hint, archive_on_exit, archive_on_exit_min_mb };
    for (layer, fields) in [(Layer::Global, &g), (Layer::Project, &p)] {
        for (key, reason) in fields.invalid() {
            let effect = match (key, layer) {
                ("contextHint", Layer::Project) => "the hint is off".to_string(),
                ("contextHint", Layer::Global) => describe_hint(config.hint_percent),
                ("startAnchorTurn", _) => describe_start(config.start_anchor_turn),
                ("cacheCompaction", _) => format!("cacheCompaction is {}", config.cache_compaction),
                ("archiveNotice", _) => format!("archiveNotice is {}", config.archive_notice),
                ("ledgerTokens", _) => describe_ledger(config.ledger_tokens),
                ("loopHint", _) => describe_loops(config.loop_hint),
                ("archiveOnExit", _) => format!("archiveOnExit is {}", config.archive_on_exit),
                ("archiveOnExitMinMB", _) => format!("using {} MB", config.archive_on_exit_min_mb),
                _ => format!("cacheSummary is {}", config.cache_summary),
            };
            warnings.push(format!("tree-navigator: {} config: `{key}` {reason}; {effect}.", layer.name()));
        }
    }
    LoadedConfig { config, warnings }
}

fn describe_hint(v: Option<u8>) -> String {
    v.map_or_else(|| "the hint is off".to_string(), |p| format!("using {p}%"))
}

fn describe_start(v: Option<u8>) -> String {
    v.map_or_else(|| "no start anchor".to_string(), |t| format!("using turn {t}"))
}

fn describe_ledger(v: Option<u32>) -> String {
    v.map_or_else(|| "no ledger".to_string(), |t| format!("using {t} tokens"))
}

fn describe_loops(v: Option<u8>) -> String {
    v.map_or_else(|| "no loop hint".to_string(), |n| format!("using {n} repeats"))
}

/// The fields of one layer.
#[derive(Debug)]
struct Fields {
    hint: Field<Option<u8>>,
    start: Field<Option<u8>>,
    cache: Field<bool>,
    compaction: Field<bool>,
    notice: Field<bool>,
    ledger: Field<Option<u32>>,
    loops: Field<Option<u8>>,
    exit: Field<bool>,
    exit_min: Field<u32>,
}

impl Fields {
    fn none() -> Self {
        Fields { hint: Field::Absent, start: Field::Absent, cache: Field::Absent, compaction: Field::Absent, notice: Field::Absent, ledger: Field::Absent, loops: Field::Absent, exit: Field::Absent, exit_min: Field::Absent }
    }

    fn invalid(&self) -> Vec<(&'static str, &str)> {
        let mut out = Vec::new();
        if let Field::Invalid(r) = &self.hint {
            out.push(("contextHint", r.as_str()));
        }
        if let Field::Invalid(r) = &self.start {
            out.push(("startAnchorTurn", r.as_str()));
        }
        if let Field::Invalid(r) = &self.cache {
            out.push(("cacheSummary", r.as_str()));
        }
        if let Field::Invalid(r) = &self.compaction {
            out.push(("cacheCompaction", r.as_str()));
        }
        if let Field::Invalid(r) = &self.notice {
            out.push(("archiveNotice", r.as_str()));
        }
        if let Field::Invalid(r) = &self.ledger {
            out.push(("ledgerTokens", r.as_str()));
        }
        if let Field::Invalid(r) = &self.loops {
            out.push(("loopHint", r.as_str()));
        }
        if let Field::Invalid(r) = &self.exit {
            out.push(("archiveOnExit", r.as_str()));
        }
        if let Field::Invalid(r) = &self.exit_min {
            out.push(("archiveOnExitMinMB", r.as_str()));
        }
        out
    }
}

fn read_layer(layer: Layer, input: &LayerInput, warnings: &mut Vec<String>) -> Fields {
    let name = layer.name();
    let (path, text) = match input {
        LayerInput::Missing => return Fields::none(),
        LayerInput::Unreadable { path, error } => {
            warnings.push(format!("tree-navigator: cannot read the {name} config {path} ({error}); it is ignored."));
            return Fields::none();
        }
        LayerInput::Text { path, text } => (path, text),
    };
    if text.trim().is_empty() {
        warnings.push(format!("tree-navigator: the {name} config {path} is empty; it is ignored."));
        return Fields::none();
    }
    let root = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => map,
        Ok(_) => {
            warnings.push(format!("tree-navigator: the {name} config {path} is not a JSON object; it is ignored."));
            return Fields::none();
        }
        Err(e) => {
            warnings.push(format!("tree-navigator: the {name} config {path} is not valid JSON ({e}); it is ignored."));
            return Fields::none();
        }
    };
    let small = |v: &Value, (lo, hi): (u8, u8), what: &str| match switchable_int(v, (u32::from(lo), u32::from(hi)), what, false) {
        Field::Set(n) => Field::Set(n.map(|n| n as u8)),
        Field::Invalid(r) => Field::Invalid(r),
        Field::Absent => Field::Absent,
    };
    Fields {
        hint: root.get("contextHint").map_or(Field::Absent, |v| small(v, HINT_PERCENT_RANGE, "a percent")),
        start: root.get("startAnchorTurn").map_or(Field::Absent, |v| small(v, START_ANCHOR_TURN_RANGE, "a turn")),
        cache: root.get("cacheSummary").map_or(Field::Absent, boolean),
        compaction: root.get("cacheCompaction").map_or(Field::Absent, boolean),
        notice: root.get("archiveNotice").map_or(Field::Absent, boolean),
        ledger: root.get("ledgerTokens").map_or(Field::Absent, |v| switchable_int(v, LEDGER_TOKENS_RANGE, "a token count", true)),
        loops: root.get("loopHint").map_or(Field::Absent, |v| small(v, LOOP_HINT_RANGE, "a repeat count")),
        exit: root.get("archiveOnExit").map_or(Field::Absent, boolean),
        // "off" (no minimum) is 0: any size.
        exit_min: root.get("archiveOnExitMinMB").map_or(Field::Absent, |v| match switchable_int(v, ARCHIVE_ON_EXIT_MIN_MB_RANGE, "a size in MB", true) {
            Field::Set(mb) => Field::Set(mb.unwrap_or(0)),
            Field::Invalid(r) => Field::Invalid(r),
            Field::Absent => Field::Absent,
        }),
    }
}

/// An integer in `range` (a JSON number, or a string of digits), or one of the "off" values (`null`,
/// `false`, `"off"`, `"disabled"`, and `0` where `zero_is_off`) → `Set(None)`.
fn switchable_int(value: &Value, (lo, hi): (u32, u32), what: &str, zero_is_off: bool) -> Field<Option<u32>> {
    let number = match value {
        Value::Null | Value::Bool(false) => return Field::Set(None),
        Value::Number(n) if zero_is_off && n.as_f64() == Some(0.0) => return Field::Set(None),
        Value::String(s) if matches!(s.trim(), "off" | "disabled") => return Field::Set(None),
        Value::String(s) if !s.trim().is_empty() && s.trim().bytes().all(|b| b.is_ascii_digit()) => Some(s.trim().parse::<u64>().map_or(f64::INFINITY, |n| n as f64)),
        Value::Number(n) => n.as_f64(),
        _ => None,
    };
    let shown = value.to_string();
    match number {
        Some(n) if n.fract() == 0.0 && n >= f64::from(lo) && n <= f64::from(hi) => Field::Set(Some(n as u32)),
        Some(_) => Field::Invalid(format!("is {shown}, not an integer {lo}–{hi}")),
        None => Field::Invalid(format!("is {shown}, not {what} ({lo}–{hi}) or \"off\"")),
    }
}

fn boolean(value: &Value) -> Field<bool> {
    match value {
        Value::Bool(b) => Field::Set(*b),
        other => Field::Invalid(format!("is {other}, not true or false")),
    }
}

/// pi's default `compaction.reserveTokens`: auto-compaction fires at `contextWindow − reserveTokens`.
pub const PI_RESERVE_TOKENS: f64 = 16_384.0;

/// The token count at which the pressure hint fires: `percent` of the window, but never later than 90%
/// of the way to pi's auto-compaction point (`window − reserve`), so the model always has room for a
/// turn or two and its rewind before pi compacts (lossily) on its own. `None` when the window is unknown.
pub fn pressure_threshold(percent: u8, context_window: f64, reserve_tokens: f64) -> Option<f64> {
    if context_window.is_nan() || context_window <= 0.0 {
        return None;
    }
    let by_percent = context_window * f64::from(percent) / 100.0;
    let compaction = (context_window - reserve_tokens).max(0.0);
    Some(by_percent.min(compaction * 0.9).floor())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(t: &str) -> LayerInput {
        LayerInput::Text { path: "/p/tree-navigator.json".into(), text: t.into() }
    }

    fn one(t: &str) -> LoadedConfig {
        load(&text(t), &LayerInput::Missing)
    }

    #[test]
    fn missing_files_give_defaults_silently() {
        let r = load(&LayerInput::Missing, &LayerInput::Missing);
        assert_eq!(r.config, Config::default());
        assert_eq!(r.config.hint_percent, Some(70));
        assert_eq!(r.config.start_anchor_turn, Some(2));
        assert!(r.config.cache_summary);
        assert!(r.config.archive_notice);
        assert_eq!(r.config.ledger_tokens, Some(600));
        assert!(!r.config.archive_on_exit, "off by default: it changes what pi's /tree shows");
        assert_eq!(r.config.archive_on_exit_min_mb, 10);
        assert!(r.warnings.is_empty());
    }

    #[test]
    fn broken_files_warn_once_and_are_ignored() {
        let cases: &[(&str, &str)] = &[
            ("", "is empty"),
            ("   \n", "is empty"),
            ("{", "is not valid JSON"),
            ("{\"contextHint\": 50,}", "is not valid JSON"),
            ("[1,2]", "is not a JSON object"),
            ("42", "is not a JSON object"),
            ("\"x\"", "is not a JSON object"),
            ("null", "is not a JSON object"),
        ];
        for (input, expect) in cases {
            let r = one(input);
            assert_eq!(r.config, Config::default(), "{input:?}");
            assert_eq!(r.warnings.len(), 1, "{input:?}: {:?}", r.warnings);
            assert!(r.warnings[0].contains(expect), "{input:?}: {}", r.warnings[0]);
            assert!(r.warnings[0].contains("/p/tree-navigator.json"));
        }
        let r = load(&LayerInput::Unreadable { path: "/g/x".into(), error: "EACCES".into() }, &LayerInput::Missing);
        assert_eq!(r.config, Config::default());
        assert_eq!(r.warnings, vec!["tree-navigator: cannot read the global config /g/x (EACCES); it is ignored.".to_string()]);
    }

    #[test]
    fn hint_values() {
        // (value, effective, warns)
        let cases: &[(&str, Option<u8>, bool)] = &[
            ("20", Some(20), false),
            ("95", Some(95), false),
            ("60", Some(60), false),
            ("60.0", Some(60), false),
            ("\"75\"", Some(75), false),
            ("\" 75 \"", Some(75), false),
            ("null", None, false),
            ("false", None, false),
            ("\"off\"", None, false),
            ("\"disabled\"", None, false),
            ("19", Some(70), true),
            ("96", Some(70), true),
            ("0", Some(70), true),
            ("-50", Some(70), true),
            ("60.5", Some(70), true),
            ("1e9", Some(70), true),
            ("true", Some(70), true),
            ("\"sixty\"", Some(70), true),
            ("\"\"", Some(70), true),
            ("\"-5\"", Some(70), true),
            ("[60]", Some(70), true),
            ("{}", Some(70), true),
        ];
        for (value, effective, warns) in cases {
            let r = one(&format!("{{\"contextHint\": {value}}}"));
            assert_eq!(r.config.hint_percent, *effective, "contextHint {value}");
            assert_eq!(r.warnings.len(), usize::from(*warns), "contextHint {value}: {:?}", r.warnings);
            if *warns {
                assert!(r.warnings[0].contains("`contextHint`") && r.warnings[0].contains("using 70%"), "{}", r.warnings[0]);
            }
        }
    }

    #[test]
    fn start_anchor_turn_values() {
        let cases: &[(&str, Option<u8>, bool)] = &[
            ("1", Some(1), false),
            ("50", Some(50), false),
            ("\"7\"", Some(7), false),
            ("false", None, false),
            ("\"off\"", None, false),
            ("0", Some(2), true),
            ("51", Some(2), true),
            ("2.5", Some(2), true),
            ("\"two\"", Some(2), true),
            ("true", Some(2), true),
        ];
        for (value, effective, warns) in cases {
            let r = one(&format!("{{\"startAnchorTurn\": {value}}}"));
            assert_eq!(r.config.start_anchor_turn, *effective, "startAnchorTurn {value}");
            assert_eq!(r.warnings.len(), usize::from(*warns), "startAnchorTurn {value}: {:?}", r.warnings);
        }
    }

    #[test]
    fn cache_switch_values() {
        assert!(!one("{\"cacheSummary\": false}").config.cache_summary);
        assert!(one("{\"cacheSummary\": true}").config.cache_summary);
        for bad in ["\"no\"", "0", "null", "\"false\""] {
            let r = one(&format!("{{\"cacheSummary\": {bad}}}"));
            assert!(r.config.cache_summary, "{bad}");
            assert_eq!(r.warnings.len(), 1, "{bad}");
            assert!(r.warnings[0].contains("not true or false"));
        }
    }

    #[test]
    fn cache_compaction_switch_values() {
        assert!(load(&LayerInput::Missing, &LayerInput::Missing).config.cache_compaction);
        let off = one("{\"cacheCompaction\": false}");
        assert!(!off.config.cache_compaction && off.config.cache_summary, "one switch does not turn the other off");
        assert!(one("{\"cacheCompaction\": true}").config.cache_compaction);
        let r = one("{\"cacheCompaction\": \"off\"}");
        assert!(r.config.cache_compaction);
        assert_eq!(r.warnings, vec!["tree-navigator: global config: `cacheCompaction` is \"off\", not true or false; cacheCompaction is true.".to_string()]);
        // Project wins; an invalid project value falls back to the global one.
        assert!(load(&text("{\"cacheCompaction\": false}"), &text("{\"cacheCompaction\": true}")).config.cache_compaction);
        assert!(!load(&text("{\"cacheCompaction\": false}"), &text("{\"cacheCompaction\": 0}")).config.cache_compaction);
    }

    #[test]
    fn archive_notice_switch_values() {
        assert!(!one("{\"archiveNotice\": false}").config.archive_notice);
        assert!(one("{\"archiveNotice\": true}").config.archive_notice);
        for bad in ["\"off\"", "0", "null"] {
            let r = one(&format!("{{\"archiveNotice\": {bad}}}"));
            assert!(r.config.archive_notice, "{bad}");
            assert_eq!(r.warnings, [format!("tree-navigator: global config: `archiveNotice` is {bad}, not true or false; archiveNotice is true.")]);
        }
        // Per field: the project's false wins over the global true, a broken project value leaves the global one.
        let r = load(&text("{\"archiveNotice\": true}"), &text("{\"archiveNotice\": false}"));
        assert!(!r.config.archive_notice);
        let r = load(&text("{\"archiveNotice\": false}"), &text("{\"archiveNotice\": \"no\"}"));
        assert!(!r.config.archive_notice);
        assert_eq!(r.warnings.len(), 1);
    }

    /// Each `(value, effective, warns)` of `cases` as the global layer's `key`: the config `get` reads, and one
    /// warning naming the key and ending `effect` where it warns.
    fn check_values<T: PartialEq + std::fmt::Debug>(key: &str, cases: &[(&str, T, bool)], get: impl Fn(&Config) -> T, effect: &str) {
        for (value, effective, warns) in cases {
            let r = one(&format!("{{\"{key}\": {value}}}"));
            assert_eq!(get(&r.config), *effective, "{key} {value}");
            assert_eq!(r.warnings.len(), usize::from(*warns), "{key} {value}: {:?}", r.warnings);
            if *warns {
                assert!(r.warnings[0].contains(&format!("`{key}`")) && r.warnings[0].ends_with(effect), "{}", r.warnings[0]);
            }
        }
    }

    #[test]
    fn ledger_token_values() {
        let cases: &[(&str, Option<u32>, bool)] = &[
            ("50", Some(50), false),
            ("4000", Some(4000), false),
            ("\"900\"", Some(900), false),
            ("1200.0", Some(1200), false),
            ("0", None, false),
            ("false", None, false),
            ("null", None, false),
            ("\"off\"", None, false),
            ("49", Some(600), true),
            ("4001", Some(600), true),
            ("-1", Some(600), true),
            ("600.5", Some(600), true),
            ("true", Some(600), true),
            ("\"lots\"", Some(600), true),
            ("[600]", Some(600), true),
        ];
        check_values("ledgerTokens", cases, |c| c.ledger_tokens, "using 600 tokens.");
        // The project layer wins; an invalid project value falls back to the global one.
        let r = load(&text("{\"ledgerTokens\": 300}"), &text("{\"ledgerTokens\": \"off\"}"));
        assert_eq!(r.config.ledger_tokens, None);
        let r = load(&text("{\"ledgerTokens\": 300}"), &text("{\"ledgerTokens\": 7}"));
        assert_eq!(r.config.ledger_tokens, Some(300));
        assert!(r.warnings[0].ends_with("`ledgerTokens` is 7, not an integer 50–4000; using 300 tokens."), "{}", r.warnings[0]);
    }

    #[test]
    fn loop_hint_values() {
        let cases: &[(&str, Option<u8>, bool)] = &[
            ("2", Some(2), false),
            ("20", Some(20), false),
            ("\"5\"", Some(5), false),
            ("4.0", Some(4), false),
            ("\"off\"", None, false),
            ("false", None, false),
            ("null", None, false),
            ("1", Some(3), true),
            ("0", Some(3), true),
            ("21", Some(3), true),
            ("2.5", Some(3), true),
            ("true", Some(3), true),
            ("\"often\"", Some(3), true),
            ("[3]", Some(3), true),
        ];
        check_values("loopHint", cases, |c| c.loop_hint, "using 3 repeats.");
        assert_eq!(load(&LayerInput::Missing, &LayerInput::Missing).config.loop_hint, Some(3));
        // The project layer wins; an invalid project value falls back to the global one.
        assert_eq!(load(&text("{\"loopHint\": 4}"), &text("{\"loopHint\": \"off\"}")).config.loop_hint, None);
        let r = load(&text("{\"loopHint\": 4}"), &text("{\"loopHint\": 99}"));
        assert_eq!(r.config.loop_hint, Some(4));
        assert_eq!(r.warnings, ["tree-navigator: project config: `loopHint` is 99, not an integer 2–20; using 4 repeats.".to_string()]);
        let r = one("{\"loopHint\": \"sometimes\"}");
        assert_eq!(r.warnings, ["tree-navigator: global config: `loopHint` is \"sometimes\", not a repeat count (2–20) or \"off\"; using 3 repeats.".to_string()]);
    }

    #[test]
    fn archive_on_exit_values() {
        check_values("archiveOnExit", &[("true", true, false), ("false", false, false), ("1", false, true), ("\"yes\"", false, true)], |c| c.archive_on_exit, "archiveOnExit is false.");
        // Per field: the project's false wins over the global true.
        assert!(!load(&text("{\"archiveOnExit\": true}"), &text("{\"archiveOnExit\": false}")).config.archive_on_exit);
        let cases: &[(&str, u32, bool)] = &[
            ("0", 0, false),
            ("1", 1, false),
            ("\"25\"", 25, false),
            ("100000", 100_000, false),
            ("\"off\"", 0, false),
            ("null", 0, false),
            ("-1", 10, true),
            ("2.5", 10, true),
            ("100001", 10, true),
            ("true", 10, true),
            ("[10]", 10, true),
        ];
        check_values("archiveOnExitMinMB", cases, |c| c.archive_on_exit_min_mb, "using 10 MB.");
        let r = load(&text("{\"archiveOnExitMinMB\": 30}"), &text("{\"archiveOnExitMinMB\": -1}"));
        assert_eq!(r.config.archive_on_exit_min_mb, 30, "an invalid project value leaves the global one");
        assert_eq!(r.warnings, ["tree-navigator: project config: `archiveOnExitMinMB` is -1, not an integer 0–100000; using 30 MB."]);
    }

    #[test]
    fn unknown_fields_are_ignored() {
        let r = one("{\"somethingElse\": 1, \"contextHint\": 50}");
        assert_eq!(r.config.hint_percent, Some(50));
        assert!(r.warnings.is_empty());
    }

    #[test]
    fn project_wins_per_field() {
        let g = text("{\"contextHint\": 50, \"startAnchorTurn\": 4, \"cacheSummary\": false}");
        let p = text("{\"startAnchorTurn\": 3}");
        let r = load(&g, &p);
        assert_eq!(r.config, Config { hint_percent: Some(50), start_anchor_turn: Some(3), cache_summary: false, cache_compaction: true, archive_notice: true, ledger_tokens: Some(600), loop_hint: Some(3), ..Config::default() });
        assert!(r.warnings.is_empty());
        // Project turns the hint off; global value is overridden.
        let r = load(&g, &text("{\"contextHint\": \"off\"}"));
        assert_eq!(r.config.hint_percent, None);
    }

    #[test]
    fn invalid_project_threshold_turns_the_hint_off() {
        let r = load(&text("{\"contextHint\": 50}"), &text("{\"contextHint\": 5}"));
        assert_eq!(r.config.hint_percent, None);
        assert_eq!(r.warnings.len(), 1);
        assert!(r.warnings[0].starts_with("tree-navigator: project config: `contextHint` is 5, not an integer 20–95; the hint is off."), "{}", r.warnings[0]);
    }

    #[test]
    fn invalid_values_fall_back_to_the_other_layer() {
        let r = load(&text("{\"startAnchorTurn\": 5, \"cacheSummary\": false}"), &text("{\"startAnchorTurn\": 99, \"cacheSummary\": 1}"));
        assert_eq!(r.config.start_anchor_turn, Some(5));
        assert!(!r.config.cache_summary);
        assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
        assert!(r.warnings[0].contains("using turn 5"));
        // An invalid global threshold with no project value: the default.
        let r = load(&text("{\"contextHint\": 200}"), &LayerInput::Missing);
        assert_eq!(r.config.hint_percent, Some(70));
        // A broken project file leaves the global layer in force.
        let r = load(&text("{\"contextHint\": 40}"), &text("{oops"));
        assert_eq!(r.config.hint_percent, Some(40));
        assert_eq!(r.warnings.len(), 1);
    }

    #[test]
    fn threshold_stays_before_pi_compaction() {
        // 128k: 70% = 89_600 < 0.9 × (128_000 − 16_384) = 100_454.
        assert_eq!(pressure_threshold(70, 128_000.0, PI_RESERVE_TOKENS), Some(89_600.0));
        // 95% of 128k would be past the compaction point (111_616): clamped.
        assert_eq!(pressure_threshold(95, 128_000.0, PI_RESERVE_TOKENS), Some(100_454.0));
        // 32k: compaction at 48.8%; the hint must come first.
        let t = pressure_threshold(70, 32_000.0, PI_RESERVE_TOKENS).unwrap();
        assert!(t < 32_000.0 - PI_RESERVE_TOKENS, "{t}");
        // 1M: plain 70%.
        assert_eq!(pressure_threshold(70, 1_000_000.0, PI_RESERVE_TOKENS), Some(700_000.0));
        assert_eq!(pressure_threshold(70, 0.0, PI_RESERVE_TOKENS), None);
        assert_eq!(pressure_threshold(70, f64::NAN, PI_RESERVE_TOKENS), None);
    }
}
