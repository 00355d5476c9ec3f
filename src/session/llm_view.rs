//! The context as the model receives it, message by message: pi's `convertToLlm` applied to
//! `buildSessionContext`, with each message's source entry, role, token share and readable parts. For
//! viewers; the wrapper texts are pi 0.75's, because they are what the model reads.

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;
use tsify_next::Tsify;

use super::context::{source_slot, Source};
use super::entry::Kind;
use super::index::{Leaf, Mode, SessionIndex};
use super::wire::parse_value;
use crate::error::SessionError;

/// pi's text around a branch summary.
pub const BRANCH_SUMMARY_PREFIX: &str = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
/// Closes [`BRANCH_SUMMARY_PREFIX`] (no newline before the tag, as in pi).
pub const BRANCH_SUMMARY_SUFFIX: &str = "</summary>";
/// pi's text around a compaction summary.
pub const COMPACTION_SUMMARY_PREFIX: &str =
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
/// Closes [`COMPACTION_SUMMARY_PREFIX`].
pub const COMPACTION_SUMMARY_SUFFIX: &str = "\n</summary>";

/// One readable piece of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ViewPart {
    /// Text the message holds.
    Text {
        /// The text.
        text: String,
    },
    /// Model reasoning.
    Thinking {
        /// The reasoning text.
        text: String,
    },
    /// Text pi adds around stored content (summary framing).
    Wrapper {
        /// The framing text.
        text: String,
    },
    /// A tool call with its arguments as JSON text.
    ToolCall {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// `arguments` as JSON text.
        arguments: String,
    },
    /// An image (its data is not repeated).
    #[serde(rename_all = "camelCase")]
    Image {
        /// `mimeType`.
        mime_type: String,
        /// Decoded size estimated from the base64 length.
        bytes: usize,
    },
}

/// A context message as the model receives it (role after pi's `convertToLlm`; `"none"` = dropped there).
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct ViewMessage {
    /// The entry it comes from (inside the core only).
    #[serde(skip)]
    pub source: Source,
    /// The id of the entry it comes from.
    pub entry_id: String,
    /// Whether it is a compaction's summary.
    pub from_compaction: bool,
    /// Role after `convertToLlm` (`user`, `assistant`, `toolResult`; `system` on pi ≥0.87), or `none` when
    /// pi drops it there.
    #[tsify(type = "\"user\" | \"assistant\" | \"toolResult\" | \"system\" | \"none\"")]
    pub role: &'static str,
    /// The role as stored (`user`, `assistant`, `toolResult`, `custom`, `bashExecution`, `branchSummary`,
    /// `compactionSummary`, …).
    pub stored_role: String,
    /// This message's share of the estimate (`estimateTokens`).
    pub tokens: f64,
    /// Tool name, for tool results.
    pub tool_name: Option<String>,
    /// Whether a tool result reported an error.
    pub is_error: bool,
    /// The readable parts.
    pub parts: Vec<ViewPart>,
    /// Assistant messages only: `provider/model`, stop reason, error message, reported `usage.totalTokens`.
    pub assistant: Option<AssistantMeta>,
}

/// What a viewer shows in an assistant message's header.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
#[tsify(missing_as_null)]
pub struct AssistantMeta {
    /// `provider/model` as recorded on the message.
    pub model: Option<String>,
    /// `stopReason`.
    pub stop_reason: Option<String>,
    /// `errorMessage`, for error stops.
    pub error_message: Option<String>,
    /// `usage.totalTokens` as the provider reported it.
    pub usage_total: Option<f64>,
}

/// A page of the context at a leaf, with the model and thinking level in force there (as `buildContext`).
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ContextView {
    /// How many messages the whole context has.
    pub total: usize,
    /// The requested messages.
    pub messages: Vec<ViewMessage>,
    /// The model in force (`null` when none).
    #[tsify(type = "{ provider?: unknown; modelId?: unknown } | null")]
    pub model: Value,
    /// The thinking level (absent when pi would leave it undefined).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tsify(type = "unknown")]
    pub thinking_level: Option<Value>,
}

impl SessionIndex {
    /// Messages `start..end` of the context at `leaf` as the model receives them, and how many there are in
    /// all (so a viewer can page through a long context). Needs a full index.
    pub fn context_view(&mut self, leaf: Leaf<'_>, start: usize, end: usize) -> Result<ContextView, SessionError> {
        if self.mode() != Mode::Full {
            return Err(SessionError::NeedsFullMode);
        }
        let (path, sources) = self.context_sources(leaf)?;
        let (thinking_json, model_json) = self.context_settings(&path)?;
        let total = sources.len();
        let end = end.min(total);
        let start = start.min(end);
        let mut out = Vec::with_capacity(end - start);
        for &source in &sources[start..end] {
            out.push(self.view_message(source)?);
        }
        let json = |t: &str| parse_value(t).unwrap_or(Value::Null);
        Ok(ContextView { total, messages: out, model: json(&model_json), thinking_level: thinking_json.as_deref().map(json) })
    }

    fn view_message(&self, source: Source) -> Result<ViewMessage, SessionError> {
        let slot = source_slot(source);
        let raw = self.raw(slot).ok_or(SessionError::NeedsFullMode)?;
        let entry = parse_value(raw).map_err(SessionError::Json)?;
        let tokens = self.source_tokens(source);
        let mut view = ViewMessage {
            source,
            entry_id: self.id_of(slot).into(),
            from_compaction: matches!(source, Source::CompactionSummary(_)),
            role: "user",
            stored_role: String::new(),
            tokens,
            tool_name: None,
            is_error: false,
            parts: Vec::new(),
            assistant: None,
        };
        let summary = |v: &Value| v.get("summary").and_then(Value::as_str).unwrap_or_default().to_string();
        match (source, self.entry(slot).kind()) {
            // The message as pi builds it (the compaction's system message, or the edited content).
            (Source::CompactionSystem(_) | Source::Edited(..), _) => {
                let message = parse_value(&self.source_json(source)?).map_err(SessionError::Json)?;
                fill_from_message(&mut view, &message, self.profile().0);
            }
            (Source::CompactionSummary(_), _) => {
                view.stored_role = "compactionSummary".into();
                view.parts = framed(COMPACTION_SUMMARY_PREFIX, summary(&entry), COMPACTION_SUMMARY_SUFFIX);
            }
            (_, Kind::BranchSummary) => {
                view.stored_role = "branchSummary".into();
                view.parts = framed(BRANCH_SUMMARY_PREFIX, summary(&entry), BRANCH_SUMMARY_SUFFIX);
            }
            (_, Kind::CustomMessage) => {
                view.stored_role = "custom".into();
                view.parts = content_parts(entry.get("content"));
            }
            _ => fill_from_message(&mut view, entry.get("message").unwrap_or(&Value::Null), self.profile().0),
        }
        Ok(view)
    }
}

fn framed(prefix: &str, body: String, suffix: &str) -> Vec<ViewPart> {
    vec![ViewPart::Wrapper { text: prefix.into() }, ViewPart::Text { text: body }, ViewPart::Wrapper { text: suffix.into() }]
}

fn fill_from_message(view: &mut ViewMessage, msg: &Value, profile: super::Profile) {
    let str_of = |k: &str| msg.get(k).and_then(Value::as_str);
    view.stored_role = str_of("role").unwrap_or_default().to_string();
    match view.stored_role.as_str() {
        "user" | "custom" | "hookMessage" => view.parts = content_parts(msg.get("content")),
        "assistant" => {
            view.role = "assistant";
            view.parts = content_parts(msg.get("content"));
            let model = match (str_of("provider"), str_of("model")) {
                (Some(p), Some(m)) => Some(format!("{p}/{m}")),
                (p, m) => p.or(m).map(String::from),
            };
            view.assistant = Some(AssistantMeta {
                model,
                stop_reason: str_of("stopReason").map(String::from),
                error_message: str_of("errorMessage").map(String::from),
                usage_total: msg.get("usage").and_then(|u| u.get("totalTokens")).and_then(Value::as_f64),
            });
        }
        "toolResult" => {
            view.role = "toolResult";
            view.tool_name = str_of("toolName").map(String::from);
            view.is_error = msg.get("isError").and_then(Value::as_bool).unwrap_or(false);
            view.parts = content_parts(msg.get("content"));
        }
        "bashExecution" => {
            if msg.get("excludeFromContext").and_then(Value::as_bool).unwrap_or(false) {
                view.role = "none";
            }
            view.parts = vec![ViewPart::Text { text: bash_execution_text(msg) }];
        }
        "branchSummary" => view.parts = framed(BRANCH_SUMMARY_PREFIX, str_of("summary").unwrap_or_default().into(), BRANCH_SUMMARY_SUFFIX),
        "system" if profile.sends_system_messages() => {
            view.role = "system";
            view.parts = content_parts(msg.get("content"));
        }
        "compactionSummary" => {
            view.parts = framed(COMPACTION_SUMMARY_PREFIX, str_of("summary").unwrap_or_default().into(), COMPACTION_SUMMARY_SUFFIX);
        }
        _ => {
            // convertToLlm passes only the roles above; anything else never reaches the model.
            view.role = "none";
            view.parts = content_parts(msg.get("content"));
        }
    }
}

/// pi's `bashExecutionToText`: the command, its output in a fence, and how it ended.
fn bash_execution_text(msg: &Value) -> String {
    let s = |k: &str| msg.get(k).and_then(Value::as_str).unwrap_or_default();
    let mut text = format!("Ran `{}`\n", s("command"));
    match msg.get("output").and_then(Value::as_str) {
        Some(out) if !out.is_empty() => {
            let _ = write!(text, "```\n{out}\n```");
        }
        _ => text.push_str("(no output)"),
    }
    if msg.get("cancelled").and_then(Value::as_bool).unwrap_or(false) {
        text.push_str("\n\n(command cancelled)");
    } else if let Some(code) = msg.get("exitCode").and_then(Value::as_f64).filter(|c| *c != 0.0) {
        let _ = write!(text, "\n\nCommand exited with code {}", crate::js::number_to_string(code));
    }
    if msg.get("truncated").and_then(Value::as_bool).unwrap_or(false) {
        if let Some(path) = msg.get("fullOutputPath").and_then(Value::as_str).filter(|p| !p.is_empty()) {
            let _ = write!(text, "\n\n[Output truncated. Full output: {path}]");
        }
    }
    text
}

fn content_parts(content: Option<&Value>) -> Vec<ViewPart> {
    match content {
        Some(Value::String(s)) => vec![ViewPart::Text { text: s.clone() }],
        Some(Value::Array(blocks)) => blocks.iter().filter_map(block_part).collect(),
        _ => Vec::new(),
    }
}

fn block_part(block: &Value) -> Option<ViewPart> {
    let s = |k: &str| block.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
    Some(match block.get("type").and_then(Value::as_str)? {
        "text" => ViewPart::Text { text: s("text") },
        "thinking" => ViewPart::Thinking { text: s("thinking") },
        "toolCall" => ViewPart::ToolCall {
            id: s("id"),
            name: s("name"),
            arguments: block.get("arguments").map_or_else(|| "undefined".into(), Value::to_string),
        },
        "image" => ViewPart::Image { mime_type: s("mimeType"), bytes: s("data").len() / 4 * 3 },
        _ => return None,
    })
}
