//! A tool's arguments as types: one struct per tool (serde + `schemars`) gives both its input
//! schema ([`input_schema`]) and its parsing ([`parse`]), so the schema a client reads cannot
//! drift from what the code accepts.
//!
//! [`parse`] reads the limits from the same schema: types, `minimum`/`maximum`,
//! `minLength`/`maxLength`, `minItems`/`maxItems`, `enum` and `required` are checked before
//! serde sees the value, so every refusal names the argument and says what to send.
//! REST query strings arrive as strings, so integers and booleans also accept their decimal
//! and `true`/`false` spellings and a list accepts one comma-separated string; an `enum` value
//! is matched with case and surrounding blanks folded. Anything else is refused, never guessed.
//! A blank optional string counts as not sent.

mod citations;
mod courts;
mod decisions;
mod laws;
mod texts;

pub use citations::{
    CitingPage, CorpusCoverageArgs, GetCaseReferencesArgs, GetCasesForLawArgs, GetCitationGraphArgs, GetCitingCasesArgs,
};
pub use courts::{GetCourtArgs, ListCourtsArgs, ListFacetsArgs};
pub use decisions::{
    CitationFilterArgs, CrossTypeSearchArgs, DecisionFilterArgs, DecisionRef, FilterCasesArgs, GetCaseStatisticsArgs,
    GetDecisionArgs, GetSimilarCasesArgs, PAGE_MAX, SearchDecisionsArgs,
};
pub use laws::{GetLawArgs, GetLawSectionArgs, ListLawBooksArgs, NoArgs, SearchLawsArgs};
pub use texts::{AssembleDatapackageArgs, CheckCitationsArgs, ValidateCitationArgs};

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::contract::answer::ToolError;

/// The value of a `#[serde(default = "int::<N>")]` argument (schemars writes it as `default`).
pub(crate) const fn int<const N: i64>() -> i64 {
    N
}

/// The value of a `#[serde(default = "yes")]` argument.
pub(crate) const fn yes() -> bool {
    true
}

/// The input schema of the argument struct `A`: JSON Schema 2020-12, everything inlined, an
/// optional argument typed as its value (absent = not sent; `null` is read as absent too).
pub fn input_schema<A: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator();
    let mut schema = generator.into_root_schema_for::<A>().to_value();
    if let Some(m) = schema.as_object_mut() {
        // The struct's name and doc are ours, not the client's; the tool carries its own title.
        m.remove("title");
        m.remove("description");
        let props = m.entry("properties").or_insert_with(|| Value::Object(Map::new()));
        if let Some(props) = props.as_object_mut() {
            props.values_mut().for_each(without_null);
        }
    }
    schema
}

/// An optional argument is typed as its value: "not sent" is absence, and `null` is read as
/// absence too, so a `null` alternative in the schema would only invite clients to send it.
/// (`format: int64` goes too: it says nothing `minimum`/`maximum` do not, and strict validators
/// refuse formats they do not know.)
fn without_null(p: &mut Value) {
    let Some(m) = p.as_object_mut() else { return };
    m.remove("format");
    if let Some(Value::Array(values)) = m.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    if let Some(Value::Array(types)) = m.get("type") {
        let kept: Vec<Value> = types.iter().filter(|t| t.as_str() != Some("null")).cloned().collect();
        if kept.len() == 1 {
            m.insert("type".into(), kept[0].clone());
        }
    }
    let alternatives = m.get("anyOf").and_then(Value::as_array).cloned();
    if let Some(alts) = alternatives {
        let kept: Vec<Value> = alts.into_iter().filter(|a| a["type"].as_str() != Some("null")).collect();
        if let [only] = kept.as_slice()
            && let Some(inner) = only.as_object()
        {
            m.remove("anyOf");
            for (k, v) in inner {
                m.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
    }
}

/// Parses `arguments` into `A`, checking them against `schema` (the tool's input schema, i.e.
/// [`input_schema::<A>`], passed in so it is built once per process, not per call).
/// Undeclared arguments are not `A`'s business: the caller reports them as ignored.
pub fn parse<A: DeserializeOwned>(arguments: &Map<String, Value>, schema: &Value) -> Result<A, ToolError> {
    let required: Vec<&str> =
        schema["required"].as_array().map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    let mut checked = Map::new();
    if let Some(props) = schema["properties"].as_object() {
        for (name, p) in props {
            let is_required = required.contains(&name.as_str());
            let value = match arguments.get(name).filter(|v| !v.is_null()) {
                Some(v) => coerce(name, p, v)?,
                None => None,
            };
            match value {
                Some(v) => {
                    checked.insert(name.clone(), v);
                }
                None if is_required => {
                    return Err(match arguments.get(name).filter(|v| !v.is_null()) {
                        Some(_) => ToolError::invalid(
                            format!("argument `{name}` is empty"),
                            format!("Send a non-empty `{name}`."),
                        ),
                        None => ToolError::invalid(format!("argument `{name}` is required"), format!("Send `{name}`.")),
                    }
                    .with("argument", name.as_str()));
                }
                None => {}
            }
        }
    }
    // Every value now has the schema's type and limits, so serde cannot refuse what the schema
    // allows; if it does, the struct and its schema disagree, which is ours to fix.
    serde_json::from_value(Value::Object(checked))
        .map_err(|e| ToolError::internal(format!("the arguments passed their schema but not their type: {e}")))
}

/// One argument checked against its property schema; `None` = counts as not sent.
fn coerce(name: &str, p: &Value, v: &Value) -> Result<Option<Value>, ToolError> {
    match p["type"].as_str() {
        Some("integer") => integer(name, p, v).map(Some),
        Some("boolean") => boolean(name, v).map(Some),
        Some("string") => string(name, p, v),
        Some("array") => array(name, p, v).map(Some),
        _ => Ok(Some(v.clone())),
    }
}

fn integer(name: &str, p: &Value, v: &Value) -> Result<Value, ToolError> {
    let i = match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse::<i64>().ok(),
        _ => None,
    }
    .ok_or_else(|| type_error(name, "an integer", v))?;
    let (min, max) = (p["minimum"].as_i64(), p["maximum"].as_i64());
    if min.is_some_and(|m| i < m) || max.is_some_and(|m| i > m) {
        let range = match (min, max) {
            (Some(lo), Some(hi)) => format!("{lo}..={hi}"),
            (Some(lo), None) => format!("{lo}.."),
            (None, Some(hi)) => format!("..={hi}"),
            (None, None) => unreachable!("checked above"),
        };
        let mut e = ToolError::invalid(
            format!("argument `{name}` = {i} is outside {range}"),
            match (min, max) {
                (Some(lo), Some(hi)) => format!("Send `{name}` between {lo} and {hi}."),
                (Some(lo), None) => format!("Send `{name}` of at least {lo}."),
                _ => format!("Send `{name}` of at most {}.", max.unwrap_or_default()),
            },
        )
        .with("argument", name);
        if let Some(lo) = min {
            e = e.with("minimum", lo);
        }
        if let Some(hi) = max {
            e = e.with("maximum", hi);
        }
        return Err(e);
    }
    Ok(Value::from(i))
}

fn boolean(name: &str, v: &Value) -> Result<Value, ToolError> {
    match v {
        Value::Bool(b) => Ok(Value::Bool(*b)),
        Value::String(s) => match s.trim() {
            "true" | "1" => Ok(Value::Bool(true)),
            "false" | "0" => Ok(Value::Bool(false)),
            _ => Err(type_error(name, "a boolean", v)),
        },
        _ => Err(type_error(name, "a boolean", v)),
    }
}

fn string(name: &str, p: &Value, v: &Value) -> Result<Option<Value>, ToolError> {
    let Value::String(s) = v else { return Err(type_error(name, "a string", v)) };
    if let Some(max) = p["maxLength"].as_u64()
        && s.chars().count() as u64 > max
    {
        return Err(ToolError::invalid(
            format!("argument `{name}` is longer than {max} characters"),
            format!("Shorten `{name}` to at most {max} characters."),
        )
        .with("argument", name)
        .with("maxLength", max));
    }
    if s.trim().is_empty() {
        return Ok(None);
    }
    if let Some(allowed) = p["enum"].as_array() {
        let folded = s.trim().to_lowercase();
        return match allowed.iter().find(|a| a.as_str() == Some(folded.as_str())) {
            Some(a) => Ok(Some(a.clone())),
            None => Err(unknown_value(name, s, allowed)),
        };
    }
    Ok(Some(v.clone()))
}

fn array(name: &str, p: &Value, v: &Value) -> Result<Value, ToolError> {
    let items: Vec<Value> = match v {
        Value::Array(items) => items.clone(),
        // A REST caller sends a list as one comma-separated string.
        Value::String(s) => {
            s.split(',').map(str::trim).filter(|x| !x.is_empty()).map(|x| Value::String(x.to_string())).collect()
        }
        _ => return Err(type_error(name, "an array", v)),
    };
    let item_schema = &p["items"];
    let mut out = Vec::with_capacity(items.len());
    for item in &items {
        let what = format!("{name}[{}]", out.len());
        match coerce(&what, item_schema, item)? {
            Some(x) => out.push(x),
            None => {
                return Err(ToolError::invalid(
                    format!("argument `{what}` is empty"),
                    format!("Send only non-empty values in `{name}`."),
                )
                .with("argument", name));
            }
        }
    }
    let (min, max) = (p["minItems"].as_u64(), p["maxItems"].as_u64());
    let n = out.len() as u64;
    if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) {
        let (lo, hi) = (min.unwrap_or(0), max.map(|m| m.to_string()).unwrap_or_else(|| "any number of".into()));
        return Err(ToolError::invalid(
            format!("argument `{name}` has {n} items; it takes {lo} to {hi}"),
            format!("Send `{name}` with {lo} to {hi} items."),
        )
        .with("argument", name));
    }
    Ok(Value::Array(out))
}

fn type_error(name: &str, want: &str, got: &Value) -> ToolError {
    ToolError::invalid(
        format!("argument `{name}` must be {want}, got {}", short(got)),
        format!("Send `{name}` as {want}."),
    )
    .with("argument", name)
}

fn unknown_value(name: &str, got: &str, allowed: &[Value]) -> ToolError {
    let known: Vec<&str> = allowed.iter().filter_map(Value::as_str).collect();
    let list = known.join(", ");
    ToolError::invalid(
        format!("argument `{name}` = {} is not one of: {list}", short(&Value::String(got.to_string()))),
        format!("Send `{name}` as one of: {list}."),
    )
    .with("argument", name)
    .with("allowed", known)
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 { format!("{}…", s.chars().take(60).collect::<String>()) } else { s }
}
