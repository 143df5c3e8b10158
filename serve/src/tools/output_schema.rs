//! Each tool's `outputSchema`: the JSON Schema (2020-12) its `structuredContent` conforms to on
//! success (a refusal carries the refusal fields instead, flagged `isError`).
//!
//! The answer schema comes from the tool's answer struct (`contract::answers`, through
//! [`crate::tools::Tool::output`]); the shapes several tools share (a decision's metadata, a
//! court, a law) are its `$defs`, referenced as `#/$defs/Name`. Each served schema is
//! self-contained: the envelope (`api_version`, `generation`, `ignored_parameters`), the
//! response budget's marks and the refusal are merged in here. A `null` in a type list means
//! "not recorded", never zero. `tests/python/output_schema_check.py` validates every tool's
//! answers against these schemas through a real MCP client.

use std::collections::HashMap;
use std::sync::LazyLock;

use serde_json::{Value, json};

static SCHEMAS: LazyLock<HashMap<&'static str, Value>> =
    LazyLock::new(|| crate::tools::TOOLS.iter().map(|t| (t.name, served_schema(t))).collect());

/// The served `outputSchema` of `tool`: its answer struct's schema with the envelope (and the
/// budget's marks for a tool with sheddable lists) as `#/$defs/answer`, the refusal as
/// `#/$defs/refusal`, and the shared shapes beside them.
fn served_schema(tool: &crate::tools::Tool) -> Value {
    let mut schema = (tool.output)();
    let mut defs = match schema.as_object_mut().and_then(|m| m.remove("$defs")) {
        Some(Value::Object(d)) => d,
        _ => serde_json::Map::new(),
    };
    let mut required: Vec<Value> = schema["required"].as_array().cloned().unwrap_or_default();
    required.splice(0..0, [json!("api_version"), json!("generation")]);
    let props = schema["properties"].as_object_mut().expect("an answer schema with properties");
    props.insert("api_version".into(), json!({"type": "string", "description": "SemVer of this API surface."}));
    props.insert("generation".into(), json!({"$ref": "#/$defs/generation"}));
    props.insert(
        "ignored_parameters".into(),
        json!({"type": "array", "items": {"type": "string"}, "description": "Arguments sent that this tool does not declare: accepted and ignored."}),
    );
    if !tool.shed.is_empty() {
        props.insert("payload_truncated".into(), json!({"type": "boolean", "description": "true when rows were dropped from the end of this answer's lists to fit the response budget (truncation says which, guidance what to do)."}));
        props.insert("truncation".into(), json!({"type": "object", "properties": {
            "budget_bytes": {"type": "integer"}, "size_before": {"type": "integer"}, "size_after": {"type": "integer"},
            "fits_budget": {"type": "boolean"},
            "dropped": {"type": "object", "additionalProperties": {"type": "integer"}, "description": "Rows dropped per list (JSON pointer)."},
            "order": {"type": "string"}},
            "required": ["budget_bytes", "size_before", "fits_budget"]}));
        props.insert("guidance".into(), json!({"type": "string"}));
        required.push(json!("payload_truncated"));
    }
    schema["required"] = Value::Array(required);
    defs.insert(
        "generation".into(),
        json!({"description": "The index generation the answer was served from.", "type": "object",
               "properties": {"id": {"type": "string"}, "built_at": {"type": "string"}}, "required": ["id", "built_at"]}),
    );
    defs.insert("answer".into(), schema);
    defs.insert("refusal".into(), refusal_schema(tool.refusals));
    json!({
        "type": "object",
        "description": "The answer (#/$defs/answer), or, with isError, a refusal (#/$defs/refusal) whose error_code is one this tool lists.",
        "anyOf": [{"$ref": "#/$defs/answer"}, {"$ref": "#/$defs/refusal"}],
        "$defs": defs,
    })
}

/// A refusal of a tool that lists `own` codes: the envelope, `error_code` (one of `own` or of
/// the codes every tool can give), `message`, `retryable`, `hint`; `generation` is null when
/// no generation was loaded.
fn refusal_schema(own: &[crate::contract::answer::ErrorCode]) -> Value {
    let codes: Vec<&str> = own.iter().chain(crate::tools::COMMON_REFUSALS).map(|c| c.as_str()).collect();
    json!({
        "type": "object",
        "properties": {
            "api_version": {"type": "string"},
            "generation": {"anyOf": [{"$ref": "#/$defs/generation"}, {"type": "null"}]},
            "ignored_parameters": {"type": "array", "items": {"type": "string"}},
            "error_code": {"type": "string", "enum": codes},
            "message": {"type": "string"},
            "retryable": {"type": "boolean"},
            "hint": {"type": "string"},
        },
        "required": ["api_version", "generation", "error_code", "message", "retryable", "hint"],
    })
}

/// The `outputSchema` of the tool `name`, or None for a name no tool has.
pub fn for_tool(name: &str) -> Option<&'static Value> {
    SCHEMAS.get(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::TOOLS;

    #[test]
    fn every_tool_has_exactly_one_output_schema_with_the_envelope() {
        for t in TOOLS {
            let s = for_tool(t.name).unwrap_or_else(|| panic!("{} has no output schema", t.name));
            assert_eq!(s["type"], "object", "{}", t.name);
            for def in ["answer", "refusal"] {
                for field in ["api_version", "generation"] {
                    let required = s["$defs"][def]["required"].as_array().unwrap();
                    assert!(required.contains(&json!(field)), "{} {def}: {field} required", t.name);
                }
            }
            let codes = s["$defs"]["refusal"]["properties"]["error_code"]["enum"].as_array().unwrap();
            for c in t.refusals.iter().chain(crate::tools::COMMON_REFUSALS) {
                assert!(codes.contains(&json!(c.as_str())), "{}: {} not in its refusal schema", t.name, c.as_str());
            }
        }
    }

    /// The closed sets a schema lists are the sets the code answers with, and a field that is
    /// always sent (null = not recorded) is required, so a client can tell null from absent.
    #[test]
    fn closed_sets_and_nullable_fields_are_declared_as_they_are_sent() {
        use model::{ExpansionReason, ExpansionStatus};
        let s = for_tool("search_laws").unwrap();
        let e = &s["$defs"]["QueryExpansionReport"];
        assert_eq!(e["properties"]["status"]["enum"], json!(ExpansionStatus::SPELLINGS));
        let mut reasons = ExpansionReason::SPELLINGS.iter().map(|r| json!(r)).collect::<Vec<_>>();
        reasons.push(Value::Null);
        assert_eq!(e["properties"]["reason"]["enum"], Value::Array(reasons), "null = applied, no reason");
        assert!(e["required"].as_array().unwrap().contains(&json!("reason")), "reason is sent as null");
        let d = &for_tool("get_decision").unwrap()["$defs"]["DecisionSummary"];
        for field in ["aktenzeichen", "court", "date", "ecli", "fundstelle"] {
            assert!(d["required"].as_array().unwrap().contains(&json!(field)), "{field} is always sent");
        }
    }

    /// Strict validators (Ajv in strict mode) refuse a `format` they do not know (`uint`).
    #[test]
    fn no_output_schema_carries_a_format() {
        for t in TOOLS {
            let text = for_tool(t.name).unwrap().to_string();
            assert!(!text.contains("\"format\""), "{} declares a format", t.name);
        }
    }

    /// Every `$ref` points at a definition the merged schema carries.
    #[test]
    fn every_reference_resolves_inside_its_schema() {
        fn refs(v: &Value, out: &mut Vec<String>) {
            match v {
                Value::Object(m) => {
                    for (k, x) in m {
                        if k == "$ref" {
                            out.push(x.as_str().unwrap().to_string());
                        } else {
                            refs(x, out);
                        }
                    }
                }
                Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
                _ => {}
            }
        }
        for name in TOOLS.iter().map(|t| t.name) {
            let s = for_tool(name).unwrap();
            let mut found = Vec::new();
            refs(s, &mut found);
            for r in found {
                let pointer = r.strip_prefix('#').expect("a local reference");
                assert!(s.pointer(pointer).is_some(), "{name}: {r} does not resolve");
            }
        }
    }
}
