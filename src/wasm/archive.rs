//! `archive`: the first pass over a session file (`ArchivePlanner`) and the stubs of the second
//! (`archiveStub`); the decisions are `crate::archive`'s.

use wasm_bindgen::prelude::*;

use super::error::invalid;
use super::to_js;
use crate::archive::{Plan, Planner};
use crate::cli_text::{self, ArchiveOutcome};

/// Reads a session file piece by piece (`push`) and decides what `archive` moves (`finish`).
#[wasm_bindgen]
#[derive(Debug, Default)]
pub struct ArchivePlanner {
    planner: Option<Planner>,
    plan: Option<Plan>,
}

#[wasm_bindgen]
impl ArchivePlanner {
    /// A planner with nothing read.
    #[wasm_bindgen(constructor)]
    pub fn new() -> ArchivePlanner {
        ArchivePlanner { planner: Some(Planner::new()), plan: None }
    }

    /// Reads the next piece of the file.
    pub fn push(&mut self, piece: &[u8]) -> Result<(), JsValue> {
        self.planner.as_mut().ok_or_else(|| invalid("push after finish"))?.push(piece);
        Ok(())
    }

    /// Reads the end of the file and returns the plan (its actions: `actions()`).
    #[wasm_bindgen(unchecked_return_type = "Plan")]
    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        let plan = self.planner.take().ok_or_else(|| invalid("finish called twice"))?.finish();
        let js = to_js(&plan);
        self.plan = Some(plan);
        js
    }

    /// The action of each line of the file after `finish`: 0 keep, 1 move, 2 stub.
    pub fn actions(&self) -> Vec<u8> {
        self.plan.as_ref().map(|p| p.actions.clone()).unwrap_or_default()
    }

    /// The text `archive` prints for the plan (after `finish`), given what the second pass did: the session
    /// file `name` of `originalBytes` now `mainBytes` long (in a dry run: would be), the archive `archiveName`
    /// of `archiveBytes`, `stubsKeptWhole` entries without a faithful stub; `nothing`: nothing to archive.
    /// `cli` (the words that run the CLI here) and `file` (the session's path) make its `restore` command.
    #[wasm_bindgen(js_name = reportText)]
    #[allow(clippy::too_many_arguments, reason = "plain numbers and strings cross without serde's per-struct code")]
    pub fn report_text(
        &self,
        name: String,
        archive_name: String,
        original_bytes: f64,
        main_bytes: f64,
        archive_bytes: f64,
        dry_run: bool,
        stubs_kept_whole: u32,
        nothing: bool,
        cli: Vec<String>,
        file: String,
    ) -> Result<String, JsValue> {
        let plan = self.plan.as_ref().ok_or_else(|| invalid("reportText before finish"))?;
        let outcome = ArchiveOutcome { name, archive_name, original_bytes, main_bytes, archive_bytes, dry_run, stubs_kept_whole, nothing, cli, file };
        Ok(cli_text::archive_text(plan, &outcome))
    }

    /// The ids of the lines that move or are stubbed, in line order, after `finish`.
    #[wasm_bindgen(js_name = archivedIds)]
    pub fn archived_ids(&self) -> Vec<String> {
        self.plan.as_ref().map(|p| p.archived_ids.clone()).unwrap_or_default()
    }
}

/// The stub of an archived entry line (`crate::archive::stub_line`) naming `archiveName`, or `null`
/// when the line stays whole.
#[wasm_bindgen(js_name = archiveStub)]
pub fn archive_stub(line: &[u8], archive_name: &str) -> Option<String> {
    crate::archive::stub_line(line, &crate::archive::stub_text(archive_name))
}
