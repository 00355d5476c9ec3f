//! What the CLI prints for people (`crate::cli_text`): the shim hands over what happened, the core writes it.

use wasm_bindgen::prelude::*;

use super::error::js_error;
use super::SessionIndex;
use crate::cli_text::{self, RestoreOutcome};

/// The text `restore` prints: `restored` archived lines put back into the session file `name`, now `bytes`
/// long, `appendedSince` of them what pi appended after archiving; the archive `archiveName` removed.
#[wasm_bindgen(js_name = restoreText)]
pub fn restore_text(name: String, archive_name: String, restored: u32, bytes: f64, appended_since: f64) -> String {
    cli_text::restore_text(&RestoreOutcome { name, archive_name, restored, bytes, appended_since })
}

/// The lines the CLI writes to stderr about the file `file` it read: the skipped lines' numbers
/// (`report.skipped`'s), the first one's reason, and the report's warnings.
#[wasm_bindgen(js_name = ingestNotes)]
pub fn ingest_notes(file: &str, skipped: &[u32], first_reason: &str, warnings: Vec<String>) -> Vec<String> {
    let lines: Vec<usize> = skipped.iter().map(|&l| l as usize).collect();
    cli_text::ingest_notes(file, &lines, first_reason, &warnings)
}

#[wasm_bindgen]
impl SessionIndex {
    /// The estimate profile and where it came from, as `stats` names it: `pi-0.87 (inferred)`, `pi-0.74 (--host)`.
    #[wasm_bindgen(js_name = profileLabel)]
    pub fn profile_label(&self) -> String {
        let (profile, source) = self.inner.profile();
        cli_text::profile_label(profile, source)
    }

    /// The text `stats` prints for the file `name` of `fileBytes` bytes.
    #[wasm_bindgen(js_name = statsText)]
    pub fn stats_text(&mut self, name: &str, file_bytes: f64) -> Result<String, JsValue> {
        let stats = self.inner.stats(file_bytes).map_err(js_error)?;
        let rewinds = crate::tool::rewinds_on_path(&mut self.inner).map_err(js_error)?;
        let cost = crate::tool::cost_with(&mut self.inner, &rewinds).map_err(js_error)?;
        Ok(format!("{}\n{}", cli_text::stats_text(name, &stats, &rewinds, &self.profile_label()), crate::cost::cost_text(&cost)))
    }
}

/// One entry of the log of an archive after pi quit: `outcome` is `archived`, `skipped`, `refused` or
/// `failed`; `text` (the report, or why not) is indented under the first line.
#[wasm_bindgen(js_name = exitLogEntry)]
pub fn exit_log_entry(time: &str, pid: u32, outcome: &str, file: &str, text: &str) -> String {
    cli_text::exit_log_entry(time, pid, outcome, file, text)
}

/// Why an archive after pi quit skipped its file: another process has it open (`holders`: "pid command" each).
#[wasm_bindgen(js_name = exitSkipOpen)]
pub fn exit_skip_open(holders: Vec<String>) -> String {
    cli_text::exit_skip_open(&holders)
}

/// Why an archive after pi quit skipped a file of `fileBytes` of which `savedBytes` would move (at most).
#[wasm_bindgen(js_name = exitSkipNotWorth)]
pub fn exit_skip_not_worth(file_bytes: f64, saved_bytes: f64, min_mb: f64) -> String {
    cli_text::exit_skip_not_worth(file_bytes, saved_bytes, min_mb)
}

/// Why an archive after pi quit gave up waiting for pi `pid` to exit.
#[wasm_bindgen(js_name = exitSkipRunning)]
pub fn exit_skip_running(pid: u32, minutes: u32) -> String {
    cli_text::exit_skip_running(pid, minutes)
}
