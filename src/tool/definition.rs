//! The tool definition the model sees on every request: name, description, parameter schema, and the
//! one-line snippet pi puts in the system prompt. It is paid for on every request, so it stays short
//! (a test keeps description + parameter descriptions under 400 tokens at chars/4).

use crate::js::utf16_len;
use crate::json::Value;

/// The tool's name.
pub const TOOL_NAME: &str = "navigate_tree";

/// The definition as JSON text, handed to `JSON.parse` as it is: a constant is much smaller in the wasm
/// than writing the same object member by member. `parameters` is plain JSON Schema (pi validates it with
/// `TypeBox`'s compiler, which accepts JSON Schema), flat with a `type: "object"` root because some
/// provider adapters reject anything else; only `action` is required (the rest depends on the action and is
/// checked by the core, with a message that says what to send), and the properties are in the order the
/// model should read them. The numbers in the descriptions are `MAX_NAME_LENGTH` and `MIN_FOCUS_CHARS`,
/// the name is [`TOOL_NAME`]; tests check they match.
const DEFINITION: &str = concat!(
    r#"{"name":"navigate_tree","label":"Navigate Tree","description":""#,
    r#"Manage your own context in long sessions through pi's session tree.\n"#,
    r#"- anchor: mark the current point as milestone `name` (a name already on this branch moves here).\n"#,
    r#"- rewind: replace everything after anchor `labelStart` with a model-written summary, which becomes "#,
    r#"anchor `labelEnd`. Full history stays on disk on an abandoned branch; your context shrinks. Must be the "#,
    r#"only tool call in its message.\n"#,
    r#"- list: anchors on the active branch with the context % at each.\n"#,
    r#"Anchor when a stage starts; rewind when it is done and its details are no longer needed.","#,
    r#""promptSnippet":"Anchor milestones and rewind finished work into a summary to free context","#,
    r#""executionMode":"sequential","#,
    r#""parameters":{"type":"object","properties":{"#,
    r#""action":{"type":"string","enum":["anchor","rewind","list"],"description":"anchor | rewind | list"},"#,
    r#""name":{"type":"string","description":"anchor: kebab-case, max 40 chars, e.g. 'impl-start'"},"#,
    r#""labelStart":{"type":"string","description":"rewind: the anchor to go back to"},"#,
    r#""labelEnd":{"type":"string","description":"rewind: kebab-case name for the summary's new anchor"},"#,
    r#""summaryFocus":{"type":"string","description":"rewind: ≥20 chars telling the summarizer what to keep: "#,
    r#"the user's latest instruction verbatim, what is done, what is left"}},"#,
    r#""required":["action"]}}"#
);

/// Everything `pi.registerTool` needs besides `execute`, as JSON text: `{name, label, description,
/// promptSnippet, executionMode: "sequential", parameters}`. Calls mutate the session tree, so pi must not
/// run them in parallel.
pub fn definition() -> &'static str {
    DEFINITION
}

/// Characters (UTF-16 units) of the description plus every parameter description: the part of the
/// definition written in prose, which the 400-token budget is about.
pub fn definition_text_len() -> usize {
    let def = crate::json::parse(DEFINITION, 8).unwrap_or(Value::Null);
    let description = def.get("description").and_then(Value::as_str).unwrap_or_default();
    let params = def.get("parameters").and_then(|p| p.get("properties")).and_then(Value::as_object);
    let described = params.unwrap_or_default().iter().filter_map(|(_, p)| p.get("description").and_then(Value::as_str));
    utf16_len(&description) + described.map(|d| utf16_len(&d)).sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::MAX_NAME_LENGTH;
    use crate::tool::plan::MIN_FOCUS_CHARS;
    use serde_json::json;

    /// The definition as `serde_json` reads it.
    fn def() -> serde_json::Value {
        serde_json::from_str(definition()).expect("the definition is JSON")
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
        let params = crate::json::parse(DEFINITION, 8).unwrap();
        let properties = params.get("parameters").and_then(|p| p.get("properties")).and_then(Value::as_object);
        let keys: Vec<String> = properties.unwrap().iter().map(|(k, _)| k.decoded().into_owned()).collect();
        assert_eq!(keys, ["action", "name", "labelStart", "labelEnd", "summaryFocus"], "the order the model reads");
        let prose = utf16_len(def()["description"].as_str().unwrap()) + expected["properties"].as_object().unwrap().values()
            .map(|v| utf16_len(v["description"].as_str().unwrap())).sum::<usize>();
        assert_eq!(definition_text_len(), prose);
    }

    #[test]
    fn schema_is_a_flat_object_with_only_action_required() {
        let p = def()["parameters"].clone();
        assert_eq!(p["type"], "object");
        assert_eq!(p["required"], json!(["action"]));
        for key in ["action", "name", "labelStart", "labelEnd", "summaryFocus"] {
            assert_eq!(p["properties"][key]["type"], "string", "{key}");
        }
    }
}
