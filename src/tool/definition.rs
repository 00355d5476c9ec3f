//! The tool definition the model sees on every request: name, description, parameter schema, and the
//! one-line snippet pi puts in the system prompt. It is paid for on every request, so it stays short
//! (a test keeps description + parameter descriptions under 400 tokens at chars/4).

use serde::Serialize;
use tsify_next::Tsify;

use crate::js::utf16_len;

/// The tool's name.
pub const TOOL_NAME: &str = "navigate_tree";

/// Everything `pi.registerTool` needs besides `execute`. Calls mutate the session tree, so pi must not run
/// them in parallel (`executionMode: "sequential"`).
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ToolDefinition {
    /// [`TOOL_NAME`].
    pub name: &'static str,
    /// The name people read.
    pub label: &'static str,
    /// What the model reads about the tool.
    pub description: &'static str,
    /// The line pi puts in the system prompt.
    pub prompt_snippet: &'static str,
    /// Always `"sequential"`.
    #[tsify(type = "\"sequential\"")]
    pub execution_mode: &'static str,
    /// The parameters as JSON Schema.
    pub parameters: Schema,
}

/// The parameters' JSON Schema: plain JSON Schema (pi validates it with `TypeBox`'s compiler, which accepts
/// it), flat with a `type: "object"` root because some provider adapters reject anything else. Only
/// `action` is required: the rest depends on the action and is checked by the core, with a message that
/// says what to send.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
pub struct Schema {
    /// Always `"object"`.
    #[serde(rename = "type")]
    #[tsify(type = "\"object\"")]
    pub kind: &'static str,
    /// The parameters, in the order the model should read them.
    pub properties: Properties,
    /// `["action"]`.
    pub required: [&'static str; 1],
}

/// The tool's parameters (all strings).
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct Properties {
    /// `anchor | rewind | list`.
    pub action: Property,
    /// The anchor's name.
    pub name: Property,
    /// The anchor a rewind goes back to.
    pub label_start: Property,
    /// The name of the summary's new anchor.
    pub label_end: Property,
    /// What the summarizer should keep.
    pub summary_focus: Property,
    /// recall: the text to look for.
    pub query: Property,
    /// recall: the page to read.
    pub page: Property,
}

/// One parameter: a string, or (`page`) an integer.
#[derive(Debug, Clone, PartialEq, Serialize, Tsify)]
pub struct Property {
    /// `"string"` or `"integer"`.
    #[serde(rename = "type")]
    #[tsify(type = "\"string\" | \"integer\"")]
    pub kind: &'static str,
    /// The allowed values, if restricted.
    #[serde(rename = "enum", skip_serializing_if = "Option::is_none")]
    #[tsify(optional, type = "string[]")]
    pub one_of: Option<&'static [&'static str]>,
    /// What the model reads about it.
    pub description: &'static str,
}

/// A string parameter described by `description`.
const fn text(description: &'static str) -> Property {
    Property { kind: "string", one_of: None, description }
}

/// The definition. The numbers in the descriptions are `MAX_NAME_LENGTH` and `MIN_FOCUS_CHARS`; tests
/// check they match.
const DEFINITION: ToolDefinition = ToolDefinition {
    name: TOOL_NAME,
    label: "Navigate Tree",
    description: "Manage your own context in long sessions through pi's session tree.\n\
        - anchor: mark the current point as milestone `name` (a name already on this branch moves here).\n\
        - rewind: replace everything after anchor `labelStart` with a model-written summary, which becomes \
        anchor `labelEnd`. Full history stays on disk on an abandoned branch; your context shrinks. Must be the \
        only tool call in its message.\n\
        - list: anchors on the active branch with the context % at each.\n\
        - recall: read back the exact text a rewind collapsed: `name` = its summary's anchor (or the anchor \
        rewound to; or an entry id from a summary's ledger: that entry whole), optional `query` to narrow, `page`.\n\
        Anchor when a stage starts; rewind when it is done and its details are no longer needed.",
    prompt_snippet: "Anchor milestones and rewind finished work into a summary to free context",
    execution_mode: "sequential",
    parameters: Schema {
        kind: "object",
        properties: Properties {
            action: Property {
                kind: "string",
                one_of: Some(&["anchor", "rewind", "list", "recall"]),
                description: "anchor | rewind | list | recall",
            },
            name: text("anchor: kebab-case, max 40 chars, e.g. 'impl-start'"),
            label_start: text("rewind: the anchor to go back to"),
            label_end: text("rewind: kebab-case name for the summary's new anchor"),
            summary_focus: text(
                "rewind: ≥20 chars telling the summarizer what to keep: the user's latest instruction verbatim, \
                 what is done, what is left",
            ),
            query: text("recall: plain text to look for (case-insensitive)"),
            page: Property { kind: "integer", one_of: None, description: "recall: page number, from 1" },
        },
        required: ["action"],
    },
};

/// The tool's definition (see [`ToolDefinition`]).
pub fn definition() -> &'static ToolDefinition {
    &DEFINITION
}

/// Characters (UTF-16 units) of the description plus every parameter description: the part of the
/// definition written in prose, which the 400-token budget is about.
pub fn definition_text_len() -> usize {
    let p = &DEFINITION.parameters.properties;
    let params = [&p.action, &p.name, &p.label_start, &p.label_end, &p.summary_focus, &p.query, &p.page];
    utf16_len(DEFINITION.description) + params.iter().map(|p| utf16_len(p.description)).sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::MAX_NAME_LENGTH;
    use crate::tool::plan::MIN_FOCUS_CHARS;
    use serde_json::json;

    /// The definition as `serde_json` reads it.
    fn def() -> serde_json::Value {
        serde_json::to_value(definition()).expect("the definition serializes")
    }

    #[test]
    fn definition_stays_under_400_tokens() {
        let tokens = definition_text_len().div_ceil(4);
        assert!(tokens < 400, "description + parameter descriptions = {tokens} tokens");
        // The whole serialized definition the provider receives stays small too.
        let def = def();
        let whole = serde_json::to_string(
            &json!({"name": def["name"], "description": def["description"], "parameters": def["parameters"]}),
        )
        .unwrap();
        assert!(utf16_len(&whole).div_ceil(4) < 500, "{}", whole.len());
    }

    #[test]
    fn definition_is_word_for_word() {
        let def = def();
        assert_eq!(def["name"], TOOL_NAME);
        assert_eq!(def["label"], "Navigate Tree");
        assert_eq!(def["promptSnippet"], "Anchor milestones and rewind finished work into a summary to free context");
        assert_eq!(def["executionMode"], "sequential");
        assert_eq!(
            def["description"],
            "Manage your own context in long sessions through pi's session tree.
- anchor: mark the current point as milestone `name` (a name already on this branch moves here).
- rewind: replace everything after anchor `labelStart` with a model-written summary, which becomes anchor \
`labelEnd`. Full history stays on disk on an abandoned branch; your context shrinks. Must be the only tool \
call in its message.
- list: anchors on the active branch with the context % at each.
- recall: read back the exact text a rewind collapsed: `name` = its summary's anchor (or the anchor rewound \
to; or an entry id from a summary's ledger: that entry whole), optional `query` to narrow, `page`.
Anchor when a stage starts; rewind when it is done and its details are no longer needed."
        );
        let keys: Vec<&String> = def.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 6, "{keys:?}");
    }

    #[test]
    fn schema_is_word_for_word() {
        let p = def()["parameters"].clone();
        let text = |d: &str| json!({"type": "string", "description": d});
        let expected = json!({
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": ["anchor", "rewind", "list", "recall"], "description": "anchor | rewind | list | recall"},
                "name": text(&format!("anchor: kebab-case, max {MAX_NAME_LENGTH} chars, e.g. 'impl-start'")),
                "labelStart": text("rewind: the anchor to go back to"),
                "labelEnd": text("rewind: kebab-case name for the summary's new anchor"),
                "summaryFocus": text(&format!(
                    "rewind: ≥{MIN_FOCUS_CHARS} chars telling the summarizer what to keep: the user's latest \
                     instruction verbatim, what is done, what is left"
                )),
                "query": text("recall: plain text to look for (case-insensitive)"),
                "page": {"type": "integer", "description": "recall: page number, from 1"},
            },
            "required": ["action"],
        });
        assert_eq!(p, expected);
        let text = serde_json::to_string(definition()).unwrap();
        let at = |key: &str| text.find(&format!("\"{key}\":{{")).unwrap();
        let order = ["action", "name", "labelStart", "labelEnd", "summaryFocus", "query", "page"].map(at);
        assert!(order.windows(2).all(|w| w[0] < w[1]), "the order the model reads: {order:?}");
        let prose = utf16_len(def()["description"].as_str().unwrap()) + expected["properties"].as_object().unwrap().values()
            .map(|v| utf16_len(v["description"].as_str().unwrap())).sum::<usize>();
        assert_eq!(definition_text_len(), prose);
    }

    #[test]
    fn schema_is_a_flat_object_with_only_action_required() {
        let p = def()["parameters"].clone();
        assert_eq!(p["type"], "object");
        assert_eq!(p["required"], json!(["action"]));
        for key in ["action", "name", "labelStart", "labelEnd", "summaryFocus", "query"] {
            assert_eq!(p["properties"][key]["type"], "string", "{key}");
        }
        assert_eq!(p["properties"]["page"]["type"], "integer");
    }
}
