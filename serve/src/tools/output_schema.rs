//! Each tool's `outputSchema`: the JSON Schema (2020-12) its `structuredContent` conforms to on
//! success (a refusal carries the refusal fields instead, flagged `isError`).
//!
//! The schemas live as data in `serve/schemas/<tool>.json`; the shapes several tools share (a
//! decision's metadata, a court, a law, the generation, counts by status) are defined once in
//! `serve/schemas/_defs.json` and referenced as `#/$defs/…`. Each served schema is
//! self-contained: the shared definitions and the envelope (`api_version`, `generation`,
//! `ignored_parameters`) are merged in here. A `null` in a type list means "not recorded",
//! never zero. `tests/python/output_schema_check.py` validates every tool's answers against
//! these schemas through a real MCP client.

use std::collections::HashMap;
use std::sync::LazyLock;

use serde_json::{Value, json};

const DEFS: &str = include_str!("../../schemas/_defs.json");

macro_rules! schema_files {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../../schemas/", $name, ".json")))),*]
    };
}

/// (tool name, schema text) for every tool.
const FILES: &[(&str, &str)] = schema_files!(
    "search_laws",
    "get_law_section",
    "get_law",
    "list_law_books",
    "search_decisions",
    "get_decision",
    "filter_cases",
    "list_courts",
    "get_court",
    "list_facets",
    "cross_type_search",
    "get_similar_cases",
    "get_case_references",
    "get_citing_cases",
    "get_citation_graph",
    "get_cases_for_law",
    "corpus_coverage",
    "check_citations",
    "validate_citation",
    "assemble_datapackage",
    "get_case_statistics",
    "get_platform_info",
);

static SCHEMAS: LazyLock<HashMap<&'static str, Value>> = LazyLock::new(|| {
    let defs: Value = serde_json::from_str(DEFS).expect("serve/schemas/_defs.json is JSON");
    FILES
        .iter()
        .map(|(name, text)| {
            let mut schema: Value =
                serde_json::from_str(text).unwrap_or_else(|e| panic!("serve/schemas/{name}.json is not JSON: {e}"));
            let mut required: Vec<Value> = schema["required"].as_array().cloned().unwrap_or_default();
            required.splice(0..0, [json!("api_version"), json!("generation")]);
            let props = schema["properties"].as_object_mut().expect("a schema with properties");
            props.insert("api_version".into(), json!({"type": "string", "description": "SemVer of this API surface."}));
            props.insert("generation".into(), json!({"$ref": "#/$defs/generation"}));
            props.insert(
                "ignored_parameters".into(),
                json!({"type": "array", "items": {"type": "string"}, "description": "Arguments sent that this tool does not declare: accepted and ignored."}),
            );
            let tool = crate::tools::find(name);
            if tool.is_some_and(|t| !t.shed.is_empty()) {
                props.insert("payload_truncated".into(), json!({"type": "boolean", "description": "true when rows were dropped from the end of this answer's lists to fit the response budget (truncation says which, guidance what to do)."}));
                props.insert("truncation".into(), json!({"type": "object", "properties": {
                    "budget_bytes": {"type": "integer"}, "size_before": {"type": "integer"}, "size_after": {"type": "integer"},
                    "fits_budget": {"type": "boolean"}, "dropped": {"$ref": "#/$defs/counts"}, "order": {"type": "string"}},
                    "required": ["budget_bytes", "size_before", "fits_budget"]}));
                props.insert("guidance".into(), json!({"type": "string"}));
                required.push(json!("payload_truncated"));
            }
            schema["required"] = Value::Array(required);
            let refusal = refusal_schema(tool.map(|t| t.refusals).unwrap_or_default());
            let both = json!({"answer": schema, "refusal": refusal});
            let mut all_defs = referenced_defs(&both, &defs);
            if let (Some(m), Value::Object(b)) = (all_defs.as_object_mut(), both) {
                m.extend(b);
            }
            let root = json!({
                "type": "object",
                "description": "The answer (#/$defs/answer), or, with isError, a refusal (#/$defs/refusal) whose error_code is one this tool lists.",
                "anyOf": [{"$ref": "#/$defs/answer"}, {"$ref": "#/$defs/refusal"}],
                "$defs": all_defs,
            });
            (*name, root)
        })
        .collect()
});

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

/// The definitions of `defs` that `schema` references, directly or through another definition
/// (so each served schema carries only what it uses).
fn referenced_defs(schema: &Value, defs: &Value) -> Value {
    fn refs(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    match (k.as_str(), x.as_str().and_then(|r| r.strip_prefix("#/$defs/"))) {
                        ("$ref", Some(name)) => out.push(name.to_string()),
                        _ => refs(x, out),
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
            _ => {}
        }
    }
    let mut wanted = Vec::new();
    refs(schema, &mut wanted);
    let mut picked = serde_json::Map::new();
    while let Some(name) = wanted.pop() {
        if picked.contains_key(&name) {
            continue;
        }
        if let Some(def) = defs.get(&name) {
            refs(def, &mut wanted);
            picked.insert(name, def.clone());
        }
    }
    Value::Object(picked)
}

/// The `outputSchema` of the tool `name`, or None for a name without a schema file.
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
            let s = for_tool(t.name).unwrap_or_else(|| panic!("{} has no serve/schemas/{0}.json", t.name));
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
        for (name, _) in FILES {
            assert!(TOOLS.iter().any(|t| t.name == *name), "serve/schemas/{name}.json names no tool");
        }
    }

    /// The closed sets a schema lists are the sets the code answers with.
    #[test]
    fn query_expansion_lists_exactly_its_closed_sets() {
        use model::{ExpansionReason, ExpansionStatus};
        let defs: Value = serde_json::from_str(DEFS).unwrap();
        let e = &defs["query_expansion"]["properties"];
        assert_eq!(e["status"]["enum"], json!(ExpansionStatus::SPELLINGS));
        let mut reasons = vec![Value::Null];
        reasons.extend(ExpansionReason::SPELLINGS.iter().map(|r| json!(r)));
        assert_eq!(e["reason"]["enum"], Value::Array(reasons), "null = applied, no reason");
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
        for (name, _) in FILES {
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
