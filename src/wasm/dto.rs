//! Shapes the viewer/CLI exports hand over (camelCase, `null` for absent values) and their TypeScript
//! types, through serde-wasm-bindgen. The plugin build has none of them: its few results cross as JSON text.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

use crate::session::{self, Anchor, Estimate, SessionIndex, Stats, TreeRow};
use crate::text::ListRow;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = r#"
/** pi's estimateContextTokens result. */
export interface TokenEstimate { tokens: number; usageTokens: number; trailingTokens: number; lastUsageIndex: number | null }
/** An `anchor:<name>` label on the active path with the estimate as if its entry were the leaf. */
export interface Anchor { name: string; entryId: string; tokens: number; hint: string | null }
/** pi's collectEntriesForBranchSummary, as ids. */
export interface EntriesBetween { entryIds: string[]; commonAncestorId: string | null }
/** A message as pi's buildSessionContext returns it (the stored message, or a custom/branch/compaction wrapper). */
export interface ContextMessage { role: string; [field: string]: unknown }
/** pi's buildSessionContext result. */
export interface SessionContext { messages: ContextMessage[]; thinkingLevel?: unknown; model: { provider?: unknown; modelId?: unknown } | null }
/** A whole file's IngestReport; `problem` (`"<line>: <reason>"`) says why the file is no pi session, or is null. */
export interface FileReport extends IngestReport { problem: string | null }
/** One row of the tree in display order. `depth` grows only at branch points. */
export interface TreeRow {
  id: string; parentId: string | null; type: string; role: string | null; depth: number; children: number;
  active: boolean; leaf: boolean; label: string | null; tokens: number; text: string;
  /** The anchor's name when `label` is an anchor label (`anchor:<name>`), else null. */
  anchor: string | null;
  /** One past the last row of this row's subtree (rows i+1..end are its descendants). */
  end: number;
}
/** A readable piece of a context message. */
export type ViewPart =
  | { kind: "text" | "thinking" | "wrapper"; text: string }
  | { kind: "toolCall"; id: string; name: string; arguments: string }
  | { kind: "image"; mimeType: string; bytes: number };
/** A context message as the model receives it (role after pi's convertToLlm; "none" = dropped there). */
export interface ViewMessage {
  entryId: string; fromCompaction: boolean; role: "user" | "assistant" | "toolResult" | "none"; storedRole: string;
  tokens: number; toolName: string | null; isError: boolean; parts: ViewPart[];
  /** Assistant messages only: "provider/model", stop reason, error message, reported usage.totalTokens. */
  assistant: { model: string | null; stopReason: string | null; errorMessage: string | null; usageTotal: number | null } | null;
}
/** A page of the context at a leaf, with the model and thinking level in force there (as buildContext). */
export interface ContextView {
  total: number; messages: ViewMessage[]; model: { provider?: unknown; modelId?: unknown } | null; thinkingLevel?: unknown;
}
/** Session statistics. `abandonedShare` is the share of entries off the active path (0–1). */
export interface Stats {
  entries: number; byType: Record<string, number>; tips: number; branchPoints: number; activePath: number;
  abandonedShare: number; labels: number; anchors: number; fileBytes: number; estimate: TokenEstimate;
}
"#;

/// What one append call did. `line` is 1-based (for appendEntries: the position in the batch).
#[derive(Serialize)]
pub(super) struct IngestReportDto<'a> {
    appended: usize,
    skipped: Vec<SkippedDto<'a>>,
    warnings: &'a [String],
}

#[derive(Serialize)]
struct SkippedDto<'a> {
    line: usize,
    reason: &'a str,
}

/// A whole file's ingest report, with why the file is no pi session (`null` when it is one).
#[derive(Serialize)]
pub(super) struct FileReportDto<'a> {
    #[serde(flatten)]
    pub(super) report: IngestReportDto<'a>,
    pub(super) problem: Option<String>,
}

impl<'a> From<&'a session::IngestReport> for IngestReportDto<'a> {
    fn from(r: &'a session::IngestReport) -> Self {
        let skipped = r.skipped.iter().map(|s| SkippedDto { line: s.line, reason: &s.reason }).collect();
        IngestReportDto { appended: r.appended, skipped, warnings: &r.warnings }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct EstimateDto {
    tokens: f64,
    usage_tokens: f64,
    trailing_tokens: f64,
    last_usage_index: Option<usize>,
}

impl From<Estimate> for EstimateDto {
    fn from(e: Estimate) -> Self {
        EstimateDto {
            tokens: e.tokens,
            usage_tokens: e.usage_tokens,
            trailing_tokens: e.trailing_tokens,
            last_usage_index: e.last_usage_index,
        }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct AnchorDto {
    name: String,
    entry_id: String,
    tokens: f64,
    hint: Option<String>,
}

impl AnchorDto {
    pub(super) fn new(a: Anchor, index: &SessionIndex) -> Self {
        AnchorDto { entry_id: index.id_of(a.slot).to_string(), name: a.name, tokens: a.tokens, hint: a.hint }
    }

    pub(super) fn row(&self) -> ListRow<'_> {
        ListRow { name: &self.name, tokens: self.tokens, hint: self.hint.as_deref() }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct EntriesBetweenDto {
    pub(super) entry_ids: Vec<String>,
    pub(super) common_ancestor_id: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct TreeRowDto {
    id: String,
    parent_id: Option<String>,
    #[serde(rename = "type")]
    ty: String,
    role: Option<String>,
    depth: u32,
    children: u32,
    active: bool,
    leaf: bool,
    label: Option<String>,
    /// The anchor's name when `label` is an anchor label.
    anchor: Option<String>,
    tokens: f64,
    text: String,
    end: u32,
}

impl TreeRowDto {
    pub(super) fn new(r: TreeRow, index: &mut session::SessionIndex) -> Self {
        let text = index.describe(r.slot);
        let e = index.entry(r.slot);
        TreeRowDto {
            id: e.id().to_string(),
            parent_id: e.parent_id().map(String::from),
            ty: e.type_name().to_string(),
            role: e.role_name().map(String::from),
            depth: r.depth,
            children: r.children,
            active: r.active,
            leaf: r.leaf,
            anchor: r.label.as_deref().and_then(crate::text::anchor_name).map(String::from),
            label: r.label,
            tokens: e.tokens(),
            text,
            end: r.end,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct StatsDto {
    entries: usize,
    by_type: BTreeMap<String, usize>,
    tips: usize,
    branch_points: usize,
    active_path: usize,
    abandoned_share: f64,
    labels: usize,
    anchors: usize,
    file_bytes: f64,
    estimate: EstimateDto,
}

impl From<Stats> for StatsDto {
    fn from(s: Stats) -> Self {
        StatsDto {
            entries: s.entries,
            by_type: s.by_type,
            tips: s.tips,
            branch_points: s.branch_points,
            active_path: s.active_path,
            abandoned_share: s.abandoned_share,
            labels: s.labels,
            anchors: s.anchors,
            file_bytes: s.file_bytes,
            estimate: s.estimate.into(),
        }
    }
}

#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub(super) enum PartDto {
    Text { text: String },
    Thinking { text: String },
    Wrapper { text: String },
    #[serde(rename_all = "camelCase")]
    ToolCall { id: String, name: String, arguments: String },
    #[serde(rename_all = "camelCase")]
    Image { mime_type: String, bytes: usize },
}

impl From<session::Part> for PartDto {
    fn from(p: session::Part) -> Self {
        match p {
            session::Part::Text(text) => PartDto::Text { text },
            session::Part::Thinking(text) => PartDto::Thinking { text },
            session::Part::Wrapper(text) => PartDto::Wrapper { text },
            session::Part::ToolCall { id, name, arguments } => PartDto::ToolCall { id, name, arguments },
            session::Part::Image { mime_type, bytes } => PartDto::Image { mime_type, bytes },
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct AssistantMetaDto {
    model: Option<String>,
    stop_reason: Option<String>,
    error_message: Option<String>,
    usage_total: Option<f64>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ViewMessageDto {
    entry_id: String,
    from_compaction: bool,
    role: &'static str,
    stored_role: String,
    tokens: f64,
    tool_name: Option<String>,
    is_error: bool,
    parts: Vec<PartDto>,
    assistant: Option<AssistantMetaDto>,
}

impl ViewMessageDto {
    pub(super) fn new(m: session::ViewMessage, index: &SessionIndex) -> Self {
        ViewMessageDto {
            entry_id: index.id_of(session::source_slot(m.source)).to_string(),
            from_compaction: matches!(m.source, session::Source::CompactionSummary(_)),
            role: m.role,
            stored_role: m.stored_role,
            tokens: m.tokens,
            tool_name: m.tool_name,
            is_error: m.is_error,
            parts: m.parts.into_iter().map(PartDto::from).collect(),
            assistant: m.assistant.map(|a| AssistantMetaDto {
                model: a.model,
                stop_reason: a.stop_reason,
                error_message: a.error_message,
                usage_total: a.usage_total,
            }),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ContextViewDto {
    total: usize,
    messages: Vec<ViewMessageDto>,
    model: serde_json::Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking_level: Option<serde_json::Value>,
}

impl ContextViewDto {
    pub(super) fn new(page: session::ContextPage, index: &SessionIndex) -> Self {
        let json = |t: &str| serde_json::from_str(t).unwrap_or(serde_json::Value::Null);
        ContextViewDto {
            total: page.total,
            messages: page.messages.into_iter().map(|m| ViewMessageDto::new(m, index)).collect(),
            model: json(&page.model_json),
            thinking_level: page.thinking_json.as_deref().map(json),
        }
    }
}

#[derive(Serialize)]
pub(super) struct ListDto {
    pub(super) anchors: Vec<AnchorDto>,
    pub(super) estimate: EstimateDto,
}
