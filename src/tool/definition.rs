//! The tool definition the model sees on every request: name, description, parameter schema, and the
//! one-line snippet pi puts in the system prompt. It is paid for on every request, so it stays short
//! (a test keeps description + parameter descriptions under 400 tokens at chars/4).

use crate::js::utf16_len;
use crate::json::Value;

use super::out::JsonObject;

/// The tool's name.
pub const TOOL_NAME: &str = "navigate_tree";
const LABEL: &str = "Navigate Tree";

const DESCRIPTION: &str = "Manage your own context in long sessions through pi's session tree.
- anchor: mark the current point as milestone `name` (a name already on this branch moves here).
- rewind: replace everything after anchor `labelStart` with a model-written summary, which becomes anchor `labelEnd`. Full history stays on disk on an abandoned branch; your context shrinks. Must be the only tool call in its message.
- list: anchors on the active branch with the context % at each.
Anchor when a stage starts; rewind when it is done and its details are no longer needed.";

const PROMPT_SNIPPET: &str = "Anchor milestones and rewind finished work into a summary to free context";

/// The parameter schema as JSON text, handed over as it is: a constant is much smaller in the wasm than
/// building the same object member by member. The numbers in the descriptions are `MAX_NAME_LENGTH` and
/// `MIN_FOCUS_CHARS`; a test checks they match.
const PARAMETERS: &str = concat!(
    r#"{"type":"object","properties":{"#,
    r#""action":{"type":"string","enum":["anchor","rewind","list"],"description":"anchor | rewind | list"},"#,
    r#""name":{"type":"string","description":"anchor: kebab-case, max 40 chars, e.g. 'impl-start'"},"#,
    r#""labelStart":{"type":"string","description":"rewind: the anchor to go back to"},"#,
    r#""labelEnd":{"type":"string","description":"rewind: kebab-case name for the summary's new anchor"},"#,
    r#""summaryFocus":{"type":"string","description":"rewind: ≥20 chars telling the summarizer what to keep: "#,
    r#"the user's latest instruction verbatim, what is done, what is left"}},"#,
    r#""required":["action"]}"#
);

/// [`PARAMETERS`] as a value (`null` only if the constant were not JSON, which a test rules out).
fn parameters() -> Value<'static> {
    crate::json::parse(PARAMETERS, 8).unwrap_or(Value::Null)
}

/// Everything `pi.registerTool` needs besides `execute`. `parameters` is plain JSON Schema (pi validates
/// it with `TypeBox`'s compiler, which accepts JSON Schema), flat with a `type: "object"` root because
/// some provider adapters reject anything else.
#[derive(Debug, Clone)]
pub struct ToolDefinition {
    /// `navigate_tree`.
    pub name: &'static str,
    /// Display label.
    pub label: &'static str,
    /// What the tool does, for the model.
    pub description: &'static str,
    /// One line for the system prompt's tool list.
    pub prompt_snippet: &'static str,
    /// Calls mutate the session tree, so pi must not run them in parallel.
    pub execution_mode: &'static str,
    /// JSON Schema of the parameters: a flat object, only `action` required (the rest depends on the
    /// action and is checked by the core, with a message that says what to send). Properties are in the
    /// order the model should read them. JSON text.
    pub parameters: &'static str,
}

impl ToolDefinition {
    /// The definition as the JavaScript object `pi.registerTool` takes (without `execute`), as JSON text.
    pub fn to_json(&self) -> String {
        let mut out = JsonObject::new();
        out.str("name", self.name)
            .str("label", self.label)
            .str("description", self.description)
            .str("promptSnippet", self.prompt_snippet)
            .str("executionMode", self.execution_mode)
            .raw("parameters", self.parameters);
        out.finish()
    }
}

/// The tool definition.
pub fn definition() -> ToolDefinition {
    ToolDefinition {
        name: TOOL_NAME,
        label: LABEL,
        description: DESCRIPTION,
        prompt_snippet: PROMPT_SNIPPET,
        execution_mode: "sequential",
        parameters: PARAMETERS,
    }
}

/// Characters (UTF-16 units) of the description plus every parameter description: the part of the
/// definition written in prose, which the 400-token budget is about.
pub fn definition_text_len() -> usize {
    let params = parameters();
    let properties = params.get("properties").and_then(Value::as_object).unwrap_or_default();
    let described = properties.iter().filter_map(|(_, p)| p.get("description").and_then(Value::as_str));
    utf16_len(DESCRIPTION) + described.map(|d| utf16_len(&d)).sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::MAX_NAME_LENGTH;
    use crate::tool::plan::MIN_FOCUS_CHARS;
    use serde_json::json;

    #[test]
    fn definition_stays_under_400_tokens() {
        let tokens = definition_text_len().div_ceil(4);
        assert!(tokens < 400, "description + parameter descriptions = {tokens} tokens");
        // The whole serialized definition the provider receives stays small too.
        let def = definition();
        let parameters: serde_json::Value = serde_json::from_str(def.parameters).unwrap();
        let whole = serde_json::to_string(
            &json!({"name": def.name, "description": def.description, "parameters": parameters}),
        )
        .unwrap();
        assert!(utf16_len(&whole).div_ceil(4) < 500, "{}", whole.len());
    }

    #[test]
    fn schema_is_word_for_word() {
        let p: serde_json::Value = serde_json::from_str(definition().parameters).unwrap();
        let text = |d: &str| json!({"type": "string", "description": d});
        let expected = json!({
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["anchor", "rewind", "list"], "description": "anchor | rewind | list"},
                "name": text(&format!("anchor: kebab-case, max {MAX_NAME_LENGTH} chars, e.g. 'impl-start'")),
                "labelStart": text("rewind: the anchor to go back to"),
                "labelEnd": text("rewind: kebab-case name for the summary's new anchor"),
                "summaryFocus": text(&format!(
                    "rewind: ≥{MIN_FOCUS_CHARS} chars telling the summarizer what to keep: the user's latest \
                     instruction verbatim, what is done, what is left"
                )),
            },
            "required": ["action"],
        });
        assert_eq!(p, expected);
        let params = parameters();
        let keys: Vec<String> =
            params.get("properties").unwrap().as_object().unwrap().iter().map(|(k, _)| k.decoded().into_owned()).collect();
        assert_eq!(keys, ["action", "name", "labelStart", "labelEnd", "summaryFocus"], "the order the model reads");
        let prose = utf16_len(DESCRIPTION) + expected["properties"].as_object().unwrap().values()
            .map(|v| utf16_len(v["description"].as_str().unwrap())).sum::<usize>();
        assert_eq!(definition_text_len(), prose);
    }

    #[test]
    fn schema_is_a_flat_object_with_only_action_required() {
        let p: serde_json::Value = serde_json::from_str(definition().parameters).unwrap();
        assert_eq!(p["type"], "object");
        assert_eq!(p["required"], json!(["action"]));
        for key in ["action", "name", "labelStart", "labelEnd", "summaryFocus"] {
            assert_eq!(p["properties"][key]["type"], "string", "{key}");
        }
    }
}
