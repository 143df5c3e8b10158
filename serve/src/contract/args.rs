//! Typed access to a tool's arguments (a JSON object), with refusals that say what to send.
//! REST query strings arrive as strings, so integers and booleans also accept their decimal
//! and `true`/`false` spellings; anything else is refused, never guessed.

use model::ClosedSet;
use serde_json::{Map, Value};

use crate::contract::answer::ToolError;

pub struct Args<'a> {
    map: &'a Map<String, Value>,
}

fn type_error(name: &str, want: &str, got: &Value) -> ToolError {
    ToolError::invalid(
        format!("argument `{name}` must be {want}, got {}", short(got)),
        format!("Send `{name}` as {want}."),
    )
}

fn unknown_value<T: ClosedSet>(name: &str, got: &str) -> ToolError {
    let known = T::spellings().join(", ");
    ToolError::invalid(
        format!("argument `{name}` = {} is not one of: {known}", short(&Value::String(got.to_string()))),
        format!("Send `{name}` as one of: {known}."),
    )
    .with("argument", name)
    .with("allowed", T::spellings())
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 { format!("{}…", s.chars().take(60).collect::<String>()) } else { s }
}

impl<'a> Args<'a> {
    pub fn new(map: &'a Map<String, Value>) -> Self {
        Args { map }
    }

    fn get(&self, name: &str) -> Option<&'a Value> {
        self.map.get(name).filter(|v| !v.is_null())
    }

    pub fn str_opt(&self, name: &str, max_chars: usize) -> Result<Option<String>, ToolError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => {
                if s.chars().count() > max_chars {
                    return Err(ToolError::invalid(
                        format!("argument `{name}` is longer than {max_chars} characters"),
                        format!("Shorten `{name}`."),
                    ));
                }
                Ok(Some(s.clone()))
            }
            Some(v) => Err(type_error(name, "a string", v)),
        }
    }

    /// A required, non-blank string.
    pub fn str_req(&self, name: &str, max_chars: usize) -> Result<String, ToolError> {
        match self.str_opt(name, max_chars)? {
            Some(s) if !s.trim().is_empty() => Ok(s),
            Some(_) => {
                Err(ToolError::invalid(format!("argument `{name}` is empty"), format!("Send a non-empty `{name}`.")))
            }
            None => Err(ToolError::invalid(format!("argument `{name}` is required"), format!("Send `{name}`."))),
        }
    }

    /// An integer in `[min, max]`, or `default` when absent.
    pub fn int(&self, name: &str, default: i64, min: i64, max: i64) -> Result<i64, ToolError> {
        let v = match self.get(name) {
            None => return Ok(default),
            Some(Value::Number(n)) => match n.as_i64() {
                Some(i) => i,
                None => return Err(type_error(name, "an integer", &Value::Number(n.clone()))),
            },
            Some(Value::String(s)) => match s.trim().parse::<i64>() {
                Ok(i) => i,
                Err(_) => return Err(type_error(name, "an integer", &Value::String(s.clone()))),
            },
            Some(v) => return Err(type_error(name, "an integer", v)),
        };
        if v < min || v > max {
            return Err(ToolError::invalid(
                format!("argument `{name}` = {v} is outside {min}..={max}"),
                format!("Send `{name}` between {min} and {max}."),
            )
            .with("argument", name)
            .with("minimum", min)
            .with("maximum", max));
        }
        Ok(v)
    }

    /// A boolean; a REST caller may send `true`/`false`/`1`/`0` as a string.
    pub fn bool_opt(&self, name: &str) -> Result<Option<bool>, ToolError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(Value::String(s)) => match s.trim() {
                "true" | "1" => Ok(Some(true)),
                "false" | "0" => Ok(Some(false)),
                _ => Err(type_error(name, "a boolean", &Value::String(s.clone()))),
            },
            Some(v) => Err(type_error(name, "a boolean", v)),
        }
    }

    /// A value of the closed set `T` (case and surrounding blanks folded; every spelling is
    /// lower-case snake_case), or `None` when absent or blank. Anything else is refused with
    /// the values the set has, the same list the input schema declares.
    pub fn closed<T: ClosedSet>(&self, name: &str) -> Result<Option<T>, ToolError> {
        let Some(raw) = self.str_opt(name, 100)? else { return Ok(None) };
        let folded = raw.trim().to_lowercase();
        if folded.is_empty() {
            return Ok(None);
        }
        match T::all().iter().find(|v| v.as_str() == folded) {
            Some(v) => Ok(Some(*v)),
            None => Err(unknown_value::<T>(name, &raw)),
        }
    }

    /// A required value of the closed set `T`.
    pub fn closed_req<T: ClosedSet>(&self, name: &str) -> Result<T, ToolError> {
        self.closed(name)?
            .ok_or_else(|| ToolError::invalid(format!("argument `{name}` is required"), format!("Send `{name}`.")))
    }

    /// A list of values of the closed set `T` (an array, or one comma-separated string).
    pub fn closed_list<T: ClosedSet>(&self, name: &str) -> Result<Option<Vec<T>>, ToolError> {
        let Some(items) = self.str_list(name)? else { return Ok(None) };
        items
            .iter()
            .map(|raw| {
                let folded = raw.trim().to_lowercase();
                T::all().iter().find(|v| v.as_str() == folded).copied().ok_or_else(|| unknown_value::<T>(name, raw))
            })
            .collect::<Result<Vec<T>, ToolError>>()
            .map(Some)
    }

    /// A list of strings; a REST caller may send one comma-separated string.
    pub fn str_list(&self, name: &str) -> Result<Option<Vec<String>>, ToolError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Array(items)) => items
                .iter()
                .map(|i| match i {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(type_error(name, "an array of strings", other)),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(Value::String(s)) => {
                Ok(Some(s.split(',').map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect()))
            }
            Some(v) => Err(type_error(name, "an array of strings", v)),
        }
    }
}
