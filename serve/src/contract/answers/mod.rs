//! A tool's answer as a type: one serde + `schemars` struct per tool, which gives both the
//! `structuredContent` it sends and the `outputSchema` it declares ([`output_schema`]), so the
//! schema a client validates against cannot drift from what the code answers.
//!
//! Field rules (the answer contract): a field typed `Option<T>` without `skip_serializing_if`
//! is always sent and `null` means "not recorded", never zero; a field with
//! `skip_serializing_if` is sent only in the case its doc comment names; closed sets are the
//! `model` enums, so the schema lists exactly the spellings an answer can carry. The envelope
//! (`api_version`, `generation`, `ignored_parameters`) and the response budget's fields
//! (`payload_truncated`, `truncation`, `guidance`) are added by the app layer and merged into
//! the schema by `tools::output_schema`.

mod access;
mod citations;
mod courts;
mod decisions;
mod laws;
mod shared;
mod statistics;
mod texts;

pub use access::*;
pub use citations::*;
pub use courts::*;
pub use decisions::*;
pub use laws::*;
pub use shared::*;
pub use statistics::*;
pub use texts::*;

use schemars::JsonSchema;
use schemars::generate::{Contract, SchemaSettings};
use serde_json::Value;

/// The output schema of the answer struct `T`: JSON Schema 2020-12, shared shapes under
/// `$defs` (referenced as `#/$defs/Name`), `null` in a type list where a field may be
/// unrecorded. `format` annotations go: strict validators refuse formats they do not know
/// (`uint`), and `minimum` already says what they would.
pub fn output_schema<T: JsonSchema>() -> Value {
    // The serialize contract: a field is `required` exactly when it is always sent (an `Option`
    // without `skip_serializing_if` is sent as null), which is what a client can rely on.
    let generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.meta_schema = None;
            s.contract = Contract::Serialize;
        })
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    if let Some(m) = schema.as_object_mut() {
        // The struct's name is ours; the tool carries its own title.
        m.remove("title");
    }
    without_format(&mut schema);
    schema
}

fn without_format(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if m.get("format").is_some_and(Value::is_string) {
                m.remove("format");
            }
            m.values_mut().for_each(without_format);
        }
        Value::Array(a) => a.iter_mut().for_each(without_format),
        _ => {}
    }
}
