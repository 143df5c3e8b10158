//! No input makes a tool panic: every tool of the registry, called in-process on a real
//! generation of the embedded sample, with arguments drawn from each tool's own input schema
//! and filled with hostile text (multi-byte, combining marks, right-to-left and bidi controls,
//! control characters, emoji, citation fragments, huge repeats) and hostile types (extreme
//! numbers, nested arrays and objects, null). Every answer must be a result or a refusal with
//! a closed `error_code` other than `internal_error` (which is what a caught panic becomes),
//! and one the tool's description lists.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use serve::tools::{self, TOOLS};

/// Pieces hostile strings are built from: each breaks a different assumption about text.
const PIECES: &[&str] = &[
    "ä",
    "ß",
    "é",
    "e\u{301}",
    "\u{202E}",
    "\u{200F}",
    "\u{2066}",
    "\u{0}",
    "\u{7}",
    "\u{1b}[31m",
    "\r\n",
    "\t",
    "𝔘",
    "😀",
    "👩‍⚖️",
    "§",
    "§§",
    "Abs.",
    "Art.",
    "ECLI:",
    "ECLI:DE:BGH:2020:",
    "BGH",
    "VI ZR 195/17",
    "Art. 229 § 5",
    "§ 823 Abs. 1 BGB",
    "IFG Bln",
    " ",
    "-",
    "/",
    ".",
    ",",
    "%",
    "\"",
    "\\",
    "{",
    "'",
    "../",
    "*",
    "?",
    "0",
    "9",
    "ääääää",
    "\u{feff}",
    "\u{fffd}",
    "\u{10ffff}",
];

fn hostile_string() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => proptest::collection::vec(proptest::sample::select(PIECES), 0..24).prop_map(|v| v.concat()),
        1 => (proptest::sample::select(PIECES), 1000usize..60_000).prop_map(|(p, n)| p.repeat(n)),
        1 => any::<String>(),
    ]
}

fn hostile_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        6 => hostile_string().prop_map(Value::String),
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        2 => prop_oneof![Just(i64::MIN), Just(-1i64), Just(0), Just(1), Just(50), Just(i64::MAX), any::<i64>()].prop_map(|n| json!(n)),
        1 => prop_oneof![Just(1e300f64), Just(-0.5), Just(f64::MIN_POSITIVE)].prop_map(|f| json!(f)),
    ];
    leaf.prop_recursive(2, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(hostile_string(), inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Arguments for one call: some of the tool's declared arguments (hostile values), now and
/// then an undeclared one.
fn hostile_arguments(declared: Vec<String>) -> impl Strategy<Value = Map<String, Value>> {
    let n = declared.len();
    (proptest::collection::vec((0..n.max(1), hostile_value()), 0..4), proptest::option::of(hostile_string())).prop_map(
        move |(picked, extra)| {
            let mut m = Map::new();
            for (i, v) in picked {
                if let Some(name) = declared.get(i) {
                    m.insert(name.clone(), v);
                }
            }
            if let Some(k) = extra {
                m.insert(k, json!("x"));
            }
            m
        },
    )
}

#[test]
fn no_argument_makes_any_tool_panic() {
    let data = legal_tests::sample_data_dir();
    let id = std::fs::read_to_string(data.path().join("CURRENT")).unwrap().trim().to_string();
    let generation = Arc::new(
        index::Generation::open_verified(&data.path().join("generations").join(&id)).expect("open generation"),
    );
    let cases: u32 = std::env::var("TOOL_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48);
    for tool in TOOLS {
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig { cases, ..ProptestConfig::default() });
        let g = generation.clone();
        let result = runner.run(&hostile_arguments(tool.declared()), |args| {
            let answer = catch_unwind(AssertUnwindSafe(|| tools::call(tool, Some(g.clone()), &args)));
            let answer = answer.map_err(|_| TestCaseError::fail(format!("{} panicked", tool.name)))?;
            // The answer is one JSON object as the transports send it.
            let body: serde_json::Map<String, Value> = serde_json::from_str(answer.body.as_str())
                .map_err(|e| TestCaseError::fail(format!("{}: the answer is no JSON object: {e}", tool.name)))?;
            let code = body.get("error_code").and_then(Value::as_str).map(str::to_string);
            prop_assert!(
                code.as_deref() != Some("internal_error"),
                "{}: internal_error for {}: {:?}",
                tool.name,
                serde_json::to_string(&args).unwrap().chars().take(300).collect::<String>(),
                body.get("message")
            );
            prop_assert_eq!(answer.error.is_some(), code.is_some(), "error flag and error_code agree");
            if let Some(e) = answer.error {
                prop_assert!(
                    tool.refusals.contains(&e) || tools::COMMON_REFUSALS.contains(&e),
                    "{}: refused with {} which its description does not list",
                    tool.name,
                    e.as_str()
                );
            }
            Ok(())
        });
        if let Err(e) = result {
            panic!("{}: {e}", tool.name);
        }
    }
}
