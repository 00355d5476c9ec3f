//! An entry's text as a recall page shows it: a collapsed message's text, or one entry whole (every block,
//! tool calls with their arguments).

use serde_json::Value;

use crate::text::extract_text_content;
use crate::tool::definition::TOOL_NAME;
use crate::tool::texts;

/// One collapsed entry's text, as the page shows it.
pub(super) struct Item {
    pub(super) id: String,
    /// `user`, `assistant`, `tool result of <tool>`.
    pub(super) what: String,
    pub(super) text: String,
}

/// The item of an entry as pi holds it, or `None` for one without text (a bare tool call) and for this
/// tool's own results (they are about the tree, not the work).
pub(super) fn item_of(entry: &Value) -> Option<Item> {
    let message = entry.get("message")?;
    // A string as is, or the `text` blocks (an assistant's thinking and tool calls are not its text).
    let content = extract_text_content(Some(message.get("content")?));
    let what = match message.get("role")?.as_str()? {
        "user" => "user".to_string(),
        "assistant" => "assistant".to_string(),
        "toolResult" => {
            let tool = message.get("toolName").and_then(Value::as_str).unwrap_or("?");
            if tool == TOOL_NAME {
                return None;
            }
            format!("tool result of {tool}")
        }
        _ => return None,
    };
    let id = entry.get("id")?.as_str()?.to_string();
    (!content.is_empty()).then_some(Item { id, what, text: content })
}

/// The whole of one entry as pi holds it (`text`: its JSON text): a message's every block — text, thinking,
/// tool calls with their arguments, images by type — a summary's text, a custom message's content; any
/// other entry as its JSON text.
pub(super) fn whole_item(text: &str) -> Option<Item> {
    let entry = serde_json::from_str::<Value>(text).ok()?;
    let id = entry.get("id")?.as_str()?.to_string();
    let kind = entry.get("type").and_then(Value::as_str).unwrap_or("");
    let role = entry.get("message").and_then(|m| m.get("role")).and_then(Value::as_str);
    let (what, body) = match (kind, entry.get("message")) {
        // A message with content (the user's own `!command` has none: it is shown as its JSON text below).
        ("message", Some(message)) if message.get("content").is_some() => {
            let what = match role {
                Some("toolResult") => {
                    let tool = message.get("toolName").and_then(Value::as_str).unwrap_or("?");
                    let failed = message.get("isError").and_then(Value::as_bool) == Some(true);
                    texts::recall_whole_result(tool, failed)
                }
                other => other.unwrap_or("?").to_string(),
            };
            (what, blocks_text(message.get("content")))
        }
        ("branch_summary" | "compaction", _) => (kind.replace('_', " "), entry.get("summary").and_then(Value::as_str).unwrap_or("").to_string()),
        ("custom_message", _) => (format!("custom message {}", entry.get("customType").and_then(Value::as_str).unwrap_or("?")), blocks_text(entry.get("content"))),
        _ => (role.unwrap_or(kind).to_string(), text.to_string()),
    };
    Some(Item { id, what, text: if body.is_empty() { texts::recall_whole_empty() } else { body } })
}

/// Every block of a message's content as text: a string as is; text blocks as is; thinking, tool calls (with
/// their arguments as JSON), images and anything else on lines of their own.
fn blocks_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .map(|b| {
                let field = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or("");
                match field("type") {
                    "text" => field("text").to_string(),
                    "thinking" => texts::recall_whole_thinking(field("thinking")),
                    "toolCall" => call_text(field("name"), field("id"), b.get("arguments")),
                    "image" => texts::recall_whole_image(field("mimeType")),
                    _ => b.to_string(),
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Some(other) if !other.is_null() => other.to_string(),
        _ => String::new(),
    }
}

/// A tool call read whole: its name and id, then each argument on a line of its own, `key: value` — a string
/// value as it is (a file's content with its own line breaks, not escaped), any other as JSON.
fn call_text(name: &str, id: &str, arguments: Option<&Value>) -> String {
    let mut text = texts::recall_whole_call(name, id);
    match arguments {
        Some(Value::Object(map)) => {
            for (key, value) in map {
                text.push('\n');
                text.push_str(&texts::recall_whole_argument(key, &value.as_str().map_or_else(|| value.to_string(), String::from)));
            }
        }
        Some(other) => {
            text.push('\n');
            text.push_str(&other.to_string());
        }
        None => {}
    }
    text
}
