//! The tool registry: name, title, description, input schema and the one service function
//! per capability. MCP `tools/list` / `tools/call` and the REST routes both go through
//! [`call`], so payloads are identical on both transports.

pub mod checker;
pub mod citations;
pub mod courts;
pub mod datapackage;
pub mod decisions;
pub mod laws;
pub mod output_schema;
pub mod statistics;

use std::sync::Arc;

use index::Generation;
use model::{Branch, CitingSort, ClosedSet, DecisionSort, FacetField, GraphDirection, LawPart};
use serde_json::{Map, Value, json};

use crate::contract::answer::{ErrorCode, GenerationRef, ToolError, with_envelope};
use crate::contract::args::Args;

type Run = fn(&Generation, &Args<'_>) -> Result<Map<String, Value>, ToolError>;

pub struct Tool {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub schema: fn() -> Value,
    /// The refusal codes this tool answers besides the ones every tool can give
    /// ([`COMMON_REFUSALS`]); listed in its description.
    pub refusals: &'static [ErrorCode],
    /// Lists (JSON pointers) that rows are dropped from, in this order, when an answer is over
    /// the response budget (applied by the app layer); empty for tools whose answers are bounded by
    /// their arguments or page their text by offset/length.
    pub shed: &'static [&'static str],
    pub run: Run,
}

/// Refusals any tool can give: a bad argument, no generation loaded yet, out of time, a defect.
pub const COMMON_REFUSALS: &[ErrorCode] =
    &[ErrorCode::InvalidArgument, ErrorCode::NoGeneration, ErrorCode::Timeout, ErrorCode::InternalError];

impl Tool {
    /// Declared argument names (from the schema's `properties`).
    pub fn declared(&self) -> Vec<String> {
        (self.schema)()["properties"].as_object().map(|p| p.keys().cloned().collect()).unwrap_or_default()
    }

    /// The description `tools/list` sends: the purpose (how it differs from its siblings), then
    /// every argument with its type, limits and default read from the input schema, then the
    /// refusal codes. Generated, so the text cannot drift from the schema or the code.
    pub fn full_description(&self) -> String {
        let schema = (self.schema)();
        let required: Vec<&str> =
            schema["required"].as_array().map(|r| r.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
        let args: Vec<String> = schema["properties"]
            .as_object()
            .map(|props| {
                props.iter().map(|(name, p)| argument_summary(name, p, required.contains(&name.as_str()))).collect()
            })
            .unwrap_or_default();
        let mut text = self.description.to_string();
        text.push_str(if args.is_empty() { "\nArguments: none." } else { "\nArguments: " });
        text.push_str(&args.join("; "));
        if !args.is_empty() {
            text.push('.');
        }
        let own: Vec<&str> = self.refusals.iter().map(|c| c.as_str()).collect();
        let common: Vec<&str> = COMMON_REFUSALS.iter().map(|c| c.as_str()).collect();
        if own.is_empty() {
            text.push_str(&format!("\nRefusals (error_code): only those of every tool ({}).", common.join(", ")));
        } else {
            text.push_str(&format!(
                "\nRefusals (error_code): {}; and those of every tool ({}).",
                own.join(", "),
                common.join(", ")
            ));
        }
        text
    }

    /// The `tools/list` entry.
    pub fn descriptor(&self) -> Value {
        json!({
            "name": self.name,
            "title": self.title,
            "description": self.full_description(),
            "inputSchema": (self.schema)(),
            "outputSchema": crate::tools::output_schema::for_tool(self.name),
            "annotations": {
                "title": self.title,
                "readOnlyHint": true,
                "destructiveHint": false,
                "idempotentHint": true,
                "openWorldHint": false,
            },
        })
    }
}

/// `name (type, required, limits, default)`: one argument of a description, from its schema.
fn argument_summary(name: &str, p: &Value, required: bool) -> String {
    let mut facts: Vec<String> = Vec::new();
    let ty = match (p["type"].as_str(), p["items"]["type"].as_str()) {
        (Some("array"), Some(item)) => format!("list of {item}s"),
        (Some(t), _) => t.to_string(),
        _ => "value".to_string(),
    };
    facts.push(ty);
    if required {
        facts.push("required".into());
    }
    let values = p["enum"].as_array().or(p["items"]["enum"].as_array());
    if let Some(values) = values {
        facts.push(format!("one of {}", values.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("|")));
    }
    match (p["minimum"].as_i64(), p["maximum"].as_i64()) {
        (Some(lo), Some(hi)) => facts.push(format!("{lo}-{hi}")),
        (Some(lo), None) => facts.push(format!(">= {lo}")),
        _ => {}
    }
    match (p["minLength"].as_i64(), p["maxLength"].as_i64()) {
        (_, Some(hi)) => facts.push(format!("at most {hi} characters")),
        (Some(lo), None) if lo > 1 => facts.push(format!("at least {lo} characters")),
        _ => {}
    }
    if let Some(n) = p["maxItems"].as_i64() {
        facts.push(format!("at most {n} items"));
    }
    if let Some(d) = p.get("default") {
        facts.push(format!("default {d}"));
    }
    format!("{name} ({})", facts.join(", "))
}

/// A string argument taking one value of the closed set `T`: the schema's `enum` is the set's
/// spellings, so it cannot list a value the code does not accept (or miss one it does).
fn closed_prop<T: ClosedSet>(description: &str, default: Option<T>) -> Value {
    let mut v = json!({"type": "string", "enum": T::spellings(), "description": description});
    if let Some(d) = default {
        v["default"] = json!(d.as_str());
    }
    v
}

fn int_prop(description: &str, minimum: i64, maximum: Option<i64>, default: i64) -> Value {
    let mut v = json!({"type": "integer", "description": description, "minimum": minimum, "default": default});
    if let Some(m) = maximum {
        v["maximum"] = json!(m);
    }
    v
}

fn schema_search_laws() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "German words or a citation (\"Notwehr\", \"§ 823 BGB\"). Max 500 characters.", "minLength": 1, "maxLength": 500},
            "book": {"type": "string", "description": "Only sections of this law: abbreviation as usually written (BGB, StGB, AO, SGB V, EGBGB) or the law's title."},
            "limit": int_prop("Rows to return.", 1, Some(50), 10),
        },
        "required": ["query"],
    })
}

fn schema_get_law_section() -> Value {
    json!({
        "type": "object",
        "properties": {
            "book": {"type": "string", "description": "Law abbreviation (BGB, GG, AO, SGB V, …), slug or title."},
            "section": {"type": "string", "description": "Section designation: \"823\", \"§ 823\", \"§823\", \"Art. 20\", \"Art 20\", \"Artikel 20\", \"Art. 229 § 5\" (a § inside an article, EGBGB/EGInsO/EGAO), \"Anlage 1\", or a `section` key from get_law's table of contents. Exact only."},
            "offset": int_prop("Snippet mode: start, in Unicode code points of the plain text.", 0, None, 0),
            "length": int_prop("Snippet mode: code points to return; 0 = to the end.", 0, None, 0),
        },
        "required": ["book", "section"],
    })
}

fn schema_get_law() -> Value {
    json!({
        "type": "object",
        "properties": {
            "book": {"type": "string", "description": "Law abbreviation (BGB, GG, AO, SGB V, …), slug or title."},
            "include": {"type": "array", "items": {"type": "string", "enum": LawPart::SPELLINGS}, "description": "Parts to return; default [\"meta\", \"toc\"]."},
            "offset": int_prop("Text part: start in code points of the whole law's plain text; pass next_offset to continue.", 0, None, 0),
            "length": int_prop("Text part: code points per page.", 1, Some(100_000), 20_000),
            "toc_offset": int_prop("Table of contents: first entry.", 0, None, 0),
            "toc_limit": int_prop("Table of contents: entries per page.", 1, Some(5_000), 500),
        },
        "required": ["book"],
    })
}

fn schema_list_law_books() -> Value {
    json!({
        "type": "object",
        "properties": {
            "prefix": {"type": "string", "description": "Abbreviation prefix (\"SGB\", \"Bau\")."},
            "search": {"type": "string", "description": "Substring of the title or abbreviation."},
            "limit": int_prop("Rows to return.", 1, Some(500), 50),
            "offset": int_prop("Rows to skip (paging).", 0, None, 0),
        },
    })
}

fn decision_filter_props() -> Map<String, Value> {
    let v = json!({
        "court": {"type": "string", "description": "Court as usually named (\"BVerwG\", \"Bundesverwaltungsgericht\", \"VGH München\", \"Bayerischer Verwaltungsgerichtshof\"); matches all its chambers."},
        "branch": closed_prop::<Branch>("Branch of jurisdiction.", None),
        "document_type": {"type": "string", "description": "Urteil, Beschluss, Gerichtsbescheid, … (list_facets field=document_type lists them)."},
        "date_from": {"type": "string", "description": "Earliest decision date, YYYY-MM-DD or YYYY."},
        "date_to": {"type": "string", "description": "Latest decision date, YYYY-MM-DD or YYYY."},
    });
    v.as_object().cloned().unwrap_or_default()
}

fn with_props(mut base: Map<String, Value>, more: Value, required: &[&str]) -> Value {
    if let Some(m) = more.as_object() {
        base.extend(m.clone());
    }
    json!({"type": "object", "properties": base, "required": required})
}

fn schema_search_decisions() -> Value {
    with_props(
        decision_filter_props(),
        json!({
            "query": {"type": "string", "minLength": 1, "maxLength": 500, "description": "German words, or one identifier: an Aktenzeichen (\"7 C 2.11\") or an ECLI, which is looked up exactly (mode says so)."},
            "sort": closed_prop("relevance; date (newest first, undated last); most_cited (citing_cases_count).", Some(DecisionSort::Relevance)),
            "cited_norm": {"type": "string", "description": "Only decisions citing this norm (\"§ 823 BGB\" also matches \"§ 823 Abs. 1 BGB\"; spellings and renamed laws of one law are one filter)."},
            "cited_case_id": {"type": "string", "description": "Only decisions citing this decision (id, Aktenzeichen or ECLI)."},
            "page": int_prop("Page (1-10).", 1, Some(10), 1),
            "limit": int_prop("Rows per page (1-20).", 1, Some(20), 10),
        }),
        &["query"],
    )
}

fn schema_get_decision() -> Value {
    json!({
        "type": "object",
        "properties": {
            "id": {"type": "string", "description": "A decision id from search results, any of its Aktenzeichen as the court writes it, or its ECLI."},
            "court": {"type": "string", "description": "Narrows an Aktenzeichen that several decisions share."},
            "date": {"type": "string", "description": "Narrows an Aktenzeichen that several decisions share (YYYY-MM-DD)."},
            "offset": int_prop("Snippet mode: start, in Unicode code points.", 0, None, 0),
            "length": int_prop("Snippet mode: code points to return; 0 = to the end.", 0, None, 0),
            "section": {"type": "string", "description": "Only this section (Tenor, Tatbestand, Gründe, … as in available_sections)."},
            "rn_from": int_prop("Randnummer window start (whole blocks).", 0, None, 0),
            "rn_to": int_prop("Randnummer window end (whole blocks).", 0, None, 0),
        },
        "required": ["id"],
    })
}

fn schema_filter_cases() -> Value {
    with_props(
        decision_filter_props(),
        json!({
            "file_number": {"type": "string", "description": "Aktenzeichen (spaces, dots and slashes folded)."},
            "ecli": {"type": "string", "description": "ECLI."},
            "limit": int_prop("Rows to return.", 1, Some(100), 20),
            "offset": int_prop("Rows to skip (paging).", 0, None, 0),
        }),
        &[],
    )
}

fn schema_list_courts() -> Value {
    json!({
        "type": "object",
        "properties": {
            "branch": closed_prop::<Branch>("Branch of jurisdiction.", None),
            "land": {"type": "string", "description": "Land as ISO 3166-2 (DE-BY) or its letters (BY)."},
            "level": int_prop("0 European, 1 federal, 2 higher Land court, 3 Land court, 4 local court; -1 any.", -1, Some(4), -1),
            "include_empty": {"type": "boolean", "default": false, "description": "Also list courts of the reference table with no decision held."},
            "limit": int_prop("Rows to return.", 1, Some(2000), 100),
            "offset": int_prop("Rows to skip (paging).", 0, None, 0),
        },
    })
}

fn schema_get_court() -> Value {
    json!({
        "type": "object",
        "properties": {"court": {"type": "string", "description": "Court name, citation name (\"VGH München\") or ECLI code (\"BAYVGH\")."}},
        "required": ["court"],
    })
}

fn schema_list_facets() -> Value {
    json!({
        "type": "object",
        "properties": {
            "field": closed_prop::<FacetField>("Facet to count.", None),
            "norm": {"type": "string", "description": "With field=cited_norms: the family of this norm (\"§ 823 BGB\": § 823 Abs. 1 BGB, § 823 Abs. 2 BGB, …)."},
            "prefix": {"type": "string", "description": "Only values starting with this (case and umlauts folded)."},
            "limit": int_prop("Values to return.", 1, Some(1000), 50),
        },
        "required": ["field"],
    })
}

fn schema_cross_type_search() -> Value {
    with_props(
        decision_filter_props(),
        json!({
            "query": {"type": "string", "minLength": 1, "maxLength": 500, "description": "German words or a citation."},
            "book": {"type": "string", "description": "Filters the laws section only."},
            "limit": int_prop("Rows per section.", 1, Some(20), 5),
        }),
        &["query"],
    )
}

fn schema_get_similar_cases() -> Value {
    json!({
        "type": "object",
        "properties": {
            "id": {"type": "string", "description": "Decision id, Aktenzeichen or ECLI."},
            "limit": int_prop("Rows to return.", 1, Some(20), 5),
        },
        "required": ["id"],
    })
}

fn schema_decision_id(extra: Value) -> Value {
    let mut props = json!({
        "id": {"type": "string", "description": "Decision id, Aktenzeichen or ECLI."},
        "court": {"type": "string", "description": "Narrows an Aktenzeichen that several decisions share."},
        "date": {"type": "string", "description": "Narrows an Aktenzeichen that several decisions share (YYYY-MM-DD)."},
    });
    if let (Some(p), Some(e)) = (props.as_object_mut(), extra.as_object()) {
        p.extend(e.clone());
    }
    json!({"type": "object", "properties": props, "required": ["id"]})
}

fn schema_get_case_references() -> Value {
    schema_decision_id(json!({"limit": int_prop("Citations per kind to return.", 1, Some(5000), 500)}))
}

fn schema_get_citing_cases() -> Value {
    schema_decision_id(json!({
        "limit": int_prop("Rows to return.", 1, Some(200), 20),
        "offset": int_prop("Rows to skip (paging).", 0, None, 0),
    }))
}

fn schema_get_citation_graph() -> Value {
    schema_decision_id(json!({
        "direction": closed_prop("Cited by it, citing it, or both.", Some(GraphDirection::Both)),
        "depth": int_prop("1 or 2 hops.", 1, Some(2), 1),
        "max_nodes": int_prop("Node cap (capped says when it was reached).", 1, Some(500), 50),
    }))
}

fn schema_get_cases_for_law() -> Value {
    json!({
        "type": "object",
        "properties": {
            "book": {"type": "string", "description": "Law abbreviation (BGB, VwGO, IFG, GG)."},
            "section": {"type": "string", "description": "\"823\", \"§ 823\", \"§ 823 Abs. 1\", \"Art. 20\"."},
            "sort": closed_prop("date (newest first) or most_cited.", Some(CitingSort::Date)),
            "limit": int_prop("Rows to return.", 1, Some(200), 20),
            "offset": int_prop("Rows to skip (paging).", 0, None, 0),
        },
        "required": ["book", "section"],
    })
}

fn schema_corpus_coverage() -> Value {
    json!({
        "type": "object",
        "properties": {"branch": closed_prop::<Branch>("Only courts of this branch in held_by_court.", None)},
    })
}

fn schema_check_citations() -> Value {
    json!({
        "type": "object",
        "properties": {
            "text": {"type": "string", "minLength": 1, "description": "German legal text, 50 to 20,000 characters, with the citations to check."},
            "reference_date": {"type": "string", "description": "The date the text speaks from (YYYY-MM-DD), echoed in the answer."},
        },
        "required": ["text"],
    })
}

fn schema_validate_citation() -> Value {
    json!({
        "type": "object",
        "properties": {"citation": {"type": "string", "minLength": 1, "maxLength": 300, "description": "One citation: \"§ 823 Abs. 1 BGB\", \"Art. 20 GG\", \"VIII ZR 231/07\", \"BGH, Urteil vom 08.04.2009 - VIII ZR 231/07\" or an ECLI."}},
        "required": ["citation"],
    })
}

fn schema_assemble_datapackage() -> Value {
    json!({
        "type": "object",
        "properties": {
            "ids": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 200}, "minItems": 1, "maxItems": 10, "description": "1-10 decision ids, Aktenzeichen or ECLIs. Order matters: over budget, decisions are dropped from the end. Duplicates collapse."},
            "include_citations": {"type": "boolean", "default": true, "description": "Each decision's outgoing citation edges (resolved to a held decision or not, with status) and edge_accounting."},
            "full_text": {"type": "boolean", "default": false, "description": "Whole texts (cut at max_chars each) instead of ~700-character excerpts from the Leitsatz/Tenor/Gründe."},
            "max_chars": int_prop("Response budget in characters of the serialised decisions and edges (also the per-decision cap with full_text).", 500, Some(200_000), 60_000),
        },
        "required": ["ids"],
    })
}

fn schema_get_case_statistics() -> Value {
    with_props(
        decision_filter_props(),
        json!({
            "query": {"type": "string", "maxLength": 500, "description": "Optional: count only decisions search_decisions would match (words, a § citation, an Aktenzeichen or an ECLI)."},
            "cited_norm": {"type": "string", "description": "Only decisions citing this norm (\"§ 823 BGB\" also matches \"§ 823 Abs. 1 BGB\")."},
            "cited_case_id": {"type": "string", "description": "Only decisions citing this decision (id, Aktenzeichen or ECLI)."},
        }),
        &[],
    )
}

fn schema_none() -> Value {
    json!({"type": "object", "properties": {}})
}

pub static TOOLS: &[Tool] = &[
    Tool {
        name: "search_laws",
        title: "Search federal statutes",
        description: "Full-text search over the sections (§§, Artikel, Anlagen) of German federal law from gesetze-im-internet.de. Headings are searchable (\"Notwehr\" finds § 32 StGB). Returns snippets, never decisions; a query that is a § citation (\"§ 823 BGB\") returns that section first. Filter with book. Read the full text with get_law_section.",
        schema: schema_search_laws,
        refusals: &[ErrorCode::BookNotFound, ErrorCode::BookAmbiguous],
        shed: &["/results"],
        run: laws::search_laws,
    },
    Tool {
        name: "get_law_section",
        title: "Read one section of a law",
        description: "The complete plain text of one § / Artikel / Anlage by book and section (\"BGB\" + \"823\"; \"GG\" + \"Art. 20\"; \"EGBGB\" + \"Art. 229 § 5\"). Exact sections only (never § 1823 for 823); a miss returns a hint showing how the book labels its sections. Never truncated: offset/length return a snippet with total_length, has_more and next_offset instead. For a whole law, its metadata or its table of contents use get_law; to find a § by words, search_laws.",
        schema: schema_get_law_section,
        refusals: &[
            ErrorCode::BookNotFound,
            ErrorCode::BookAmbiguous,
            ErrorCode::SectionNotFound,
            ErrorCode::SectionAmbiguous,
            ErrorCode::OffsetOutOfRange,
        ],
        shed: &[],
        run: laws::get_law_section,
    },
    Tool {
        name: "get_law",
        title: "Read a law: metadata, table of contents, text",
        description: "A law by abbreviation: metadata (title, dates, Fundstelle, Stand), the table of contents (keys that get_law_section accepts, paged with toc_offset/toc_limit) and/or the whole plain text paged by characters (follow next_offset). Links to the law on gesetze-im-internet.de.",
        schema: schema_get_law,
        refusals: &[ErrorCode::BookNotFound, ErrorCode::BookAmbiguous, ErrorCode::OffsetOutOfRange],
        shed: &["/toc/entries"],
        run: laws::get_law,
    },
    Tool {
        name: "list_law_books",
        title: "List law books",
        description: "The federal laws held, with abbreviation, title and section count; filter by abbreviation prefix or a title substring; paged with limit/offset and a total. To find a § by words use search_laws; for one law, get_law.",
        schema: schema_list_law_books,
        refusals: &[],
        shed: &["/laws"],
        run: laws::list_law_books,
    },
    Tool {
        name: "search_decisions",
        title: "Search court decisions",
        description: "Full-text search over German court decisions (passages grouped by decision, with snippets and their Randnummer). Filters: court (all chambers), branch, document_type, date_from/date_to, cited_norm, cited_case_id; sort by relevance, date or most_cited; pages 1-10 of up to 20 rows. A query that is one Aktenzeichen or ECLI is looked up exactly (mode says so). totals say what they count; an empty result under a filter reports whether the value exists (filter_vocabulary). Never returns laws. Without words use filter_cases; laws and decisions at once, cross_type_search; counts instead of rows, get_case_statistics.",
        schema: schema_search_decisions,
        refusals: &[ErrorCode::CourtNotFound, ErrorCode::DecisionNotFound, ErrorCode::DecisionAmbiguous],
        shed: &["/results"],
        run: decisions::search_decisions,
    },
    Tool {
        name: "get_decision",
        title: "Read a court decision",
        description: "One decision by id, Aktenzeichen (any of a joined proceeding's numbers) or ECLI: metadata, available_sections, Randnummern and the whole plain text (never truncated), or a snippet (offset/length with total_length, has_more, next_offset), one section (section=\"Tenor\"), or a Randnummer window (rn_from/rn_to, snapped to whole blocks). An Aktenzeichen several decisions share is refused with the candidates unless court/date pick one.",
        schema: schema_get_decision,
        refusals: &[
            ErrorCode::DecisionNotFound,
            ErrorCode::DecisionAmbiguous,
            ErrorCode::SectionNotInDecision,
            ErrorCode::OffsetOutOfRange,
        ],
        shed: &[],
        run: decisions::get_decision,
    },
    Tool {
        name: "filter_cases",
        title: "List decisions by metadata",
        description: "Decisions matching court, branch, document_type, date range, file number or ECLI, newest first; paged with limit/offset and a labelled total. No words and no ranking: for words use search_decisions; for one decision by its id, get_decision.",
        schema: schema_filter_cases,
        refusals: &[ErrorCode::CourtNotFound],
        shed: &["/results"],
        run: decisions::filter_cases,
    },
    Tool {
        name: "list_courts",
        title: "List courts",
        description: "Courts with canonical name, type, branch, level, Land, ECLI code and the decisions held (count, earliest, latest). Filter by branch, land, level; include_empty also lists reference-table courts with nothing held. One court with its decisions per year: get_court.",
        schema: schema_list_courts,
        refusals: &[],
        shed: &["/results"],
        run: courts::list_courts,
    },
    Tool {
        name: "get_court",
        title: "One court and its holdings",
        description: "A court by name, citation name or ECLI code: its reference data and the decisions held per year.",
        schema: schema_get_court,
        refusals: &[ErrorCode::CourtNotFound],
        shed: &[],
        run: courts::get_court,
    },
    Tool {
        name: "list_facets",
        title: "Count decisions by facet",
        description: "Value counts of court_name, court_branch, document_type or year (the same counts as get_case_statistics and corpus_coverage), or of cited_norms, optionally by prefix; says when the list is truncated and how many decisions lack the field.",
        schema: schema_list_facets,
        refusals: &[],
        shed: &["/values"],
        run: courts::list_facets,
    },
    Tool {
        name: "cross_type_search",
        title: "Search laws and decisions together",
        description: "One query over statutes and decisions, answered in two separate sections (never merged or ranked against each other). book filters the laws section; court, branch, document_type and dates filter the decisions section.",
        schema: schema_cross_type_search,
        refusals: &[],
        shed: &["/decisions/results", "/laws/results"],
        run: decisions::cross_type_search,
    },
    Tool {
        name: "get_similar_cases",
        title: "Decisions similar to one",
        description: "More-like-this: decisions whose passages share the given decision's most distinctive words; says which words it used. Lexical, not a citation link: for what a decision cites use get_case_references, for who cites it get_citing_cases.",
        schema: schema_get_similar_cases,
        refusals: &[ErrorCode::DecisionNotFound, ErrorCode::DecisionAmbiguous],
        shed: &["/results"],
        run: decisions::get_similar_cases,
    },
    Tool {
        name: "get_case_references",
        title: "What a decision cites",
        description: "The laws and decisions one decision cites, each with its marker text, code-point offsets and what it was bound to: laws checked against the current text (bound, section_absent_in_current_text, absatz_absent_in_current_text, statute_unknown …), decisions with a status (resolved, unresolved_ambiguous with candidates, unresolved_no_match, unresolved_out_of_coverage, unresolved_pending) and a role (procedural for the Vorinstanz chain, else cited). Also the decision's Normenkette.",
        schema: schema_get_case_references,
        refusals: &[ErrorCode::DecisionNotFound, ErrorCode::DecisionAmbiguous],
        shed: &["/cases", "/laws"],
        run: citations::get_case_references,
    },
    Tool {
        name: "get_citing_cases",
        title: "Decisions citing a decision",
        description: "Held decisions with a resolved citation of the given decision, newest first, with their role and how often they cite it; total before paging. One hop, paged; both directions and two hops at once: get_citation_graph. What the decision itself cites: get_case_references.",
        schema: schema_get_citing_cases,
        refusals: &[ErrorCode::DecisionNotFound, ErrorCode::DecisionAmbiguous],
        shed: &["/results"],
        run: citations::get_citing_cases,
    },
    Tool {
        name: "get_citation_graph",
        title: "Citation neighbourhood of a decision",
        description: "Decisions linked to one decision by resolved citations: outgoing, incoming or both, depth 1 or 2, one node per distinct decision with depth and role, the edges between them, a node cap (capped says when it was hit), totals that do not change with the cap, and the root's unresolved citations by status.",
        schema: schema_get_citation_graph,
        refusals: &[ErrorCode::DecisionNotFound, ErrorCode::DecisionAmbiguous],
        shed: &["/edges"],
        run: citations::get_citation_graph,
    },
    Tool {
        name: "get_cases_for_law",
        title: "Decisions citing a § or Artikel",
        description: "Held decisions whose text or norm field cites the given § / Artikel (finer citations with Abs., Satz, Nr. included), sorted by date or most_cited. The § text itself: get_law_section; counts by court and year for a norm: get_case_statistics with cited_norm.",
        schema: schema_get_cases_for_law,
        refusals: &[
            ErrorCode::BookNotFound,
            ErrorCode::BookAmbiguous,
            ErrorCode::SectionNotFound,
            ErrorCode::SectionAmbiguous,
        ],
        shed: &["/results"],
        run: citations::get_cases_for_law,
    },
    Tool {
        name: "corpus_coverage",
        title: "What is covered and what is held",
        description: "The coverage map (buckets of what is ingested, with date ranges and sources) with, per decision bucket, the claimed and the measured exhaustiveness (toc items in the window, held, missing), and the holdings of this generation by court, branch, document type and year (the same counts as get_case_statistics, list_courts and list_facets).",
        schema: schema_corpus_coverage,
        refusals: &[],
        shed: &["/held_by_court"],
        run: citations::corpus_coverage,
    },
    Tool {
        name: "check_citations",
        title: "Check every citation in a text",
        description: "The hallucination guard: every statute and decision citation in a German legal text (50-20,000 characters), one finding per occurrence with code-point offsets and a verdict: verified_corpus (exists in what we hold: the § and cited Absatz in the current federal text, or exactly one decision that nothing printed contradicts), not_found (with evidence.reason; Land law is out_of_scope), out_of_coverage (court/year outside the coverage map), ambiguous (candidates), unverifiable (a tooling limit, with its reason), discrepancy (found, but the citation contradicts it). Plus unique_citations, verdict_counts, reason_counts, refused look-alikes and extraction losses. Never verifies what it cannot find.",
        schema: schema_check_citations,
        refusals: &[ErrorCode::TextTooLong, ErrorCode::TextTooShort, ErrorCode::NotGermanLegalText],
        shed: &["/findings", "/unique_citations"],
        run: checker::check_citations,
    },
    Tool {
        name: "validate_citation",
        title: "Validate one citation",
        description: "One Aktenzeichen, ECLI or § reference: found (verified_corpus) or not, match_type, the verdict and the matched record. Exact only: never § 1823 BGB for § 823 BGB. For every citation in a passage use check_citations.",
        schema: schema_validate_citation,
        refusals: &[],
        shed: &[],
        run: checker::validate_citation,
    },
    Tool {
        name: "assemble_datapackage",
        title: "Package decisions with their citations",
        description: "1-10 decisions (ids, Aktenzeichen or ECLIs) in one JSON package for grounded LLM context: metadata, an excerpt (~700 characters from the Leitsatz, else Tenor, else Gründe) or the full text, and each decision's outgoing citation edges (resolved to a held decision, or unresolved with status), with edge_accounting (total, included, dropped). max_chars is the response budget: over it, the package sheds in a fixed order (texts shortened to ~300 characters, then edges capped per decision, then decisions dropped from the end of ids) and says so in payload_truncated, truncation (steps, dropped_seed_ids) and truncation_notice. Every cut text carries offset, total_length and has_more. An id that names no single decision fails the whole call (unresolved_ids). For one whole decision use get_decision.",
        schema: schema_assemble_datapackage,
        refusals: &[ErrorCode::DecisionNotFound, ErrorCode::DecisionAmbiguous],
        shed: &[],
        run: datapackage::assemble_datapackage,
    },
    Tool {
        name: "get_case_statistics",
        title: "Count decisions by court, year, branch, type",
        description: "Counts of held decisions by court, year, branch and document type, under the same filters as search_decisions (court, branch, document_type, date_from, date_to, cited_norm, cited_case_id) and an optional query matched exactly as search_decisions matches it. Each breakdown sums to total (total_basis says what it counts); values not recorded are counted under null (undated decisions under year null). Rows instead of counts: search_decisions or filter_cases; one facet with a prefix or cited norms: list_facets.",
        schema: schema_get_case_statistics,
        refusals: &[ErrorCode::CourtNotFound, ErrorCode::DecisionNotFound, ErrorCode::DecisionAmbiguous],
        shed: &[],
        run: statistics::get_case_statistics,
    },
    Tool {
        name: "get_platform_info",
        title: "What this server holds",
        description: "Counts of laws and sections, source snapshot, and the generation (id, build time, code commit) answers come from. What is covered per court and period: corpus_coverage.",
        schema: schema_none,
        refusals: &[],
        shed: &[],
        run: laws::platform_info,
    },
];

/// Every tool's `tools/list` entry, built once: the registry is static, so the list is too.
pub fn descriptors() -> &'static [Value] {
    static LIST: std::sync::LazyLock<Vec<Value>> =
        std::sync::LazyLock::new(|| TOOLS.iter().map(Tool::descriptor).collect());
    &LIST
}

pub fn find(name: &str) -> Option<&'static Tool> {
    TOOLS.iter().find(|t| t.name == name)
}

/// The answer of one call: the payload with envelope, and whether it is a refusal.
pub struct Answer {
    pub body: Map<String, Value>,
    pub error: Option<ErrorCode>,
}

pub fn generation_ref(g: &Generation) -> GenerationRef {
    GenerationRef { id: g.id.clone(), built_at: g.manifest.built_at.clone() }
}

/// Calls `tool` with `arguments` on `generation` (blocking: run it off the async executor).
pub fn call(tool: &Tool, generation: Option<Arc<Generation>>, arguments: &Map<String, Value>) -> Answer {
    // The declared names come from the cached `tools/list` entry, not a schema built per call.
    let declared =
        descriptors().iter().find(|d| d["name"] == tool.name).and_then(|d| d["inputSchema"]["properties"].as_object());
    let ignored: Vec<String> =
        arguments.keys().filter(|k| !declared.is_some_and(|p| p.contains_key(k.as_str()))).cloned().collect();
    let Some(g) = generation else {
        let e = ToolError::new(
            ErrorCode::NoGeneration,
            "no index generation is loaded",
            "The server is starting or no generation was published yet (run `make reindex`); retry shortly.",
        );
        return Answer { body: with_envelope(e.payload(), None, &ignored), error: Some(e.code) };
    };
    let gref = generation_ref(&g);
    let args = Args::new(arguments);
    match (tool.run)(&g, &args) {
        Ok(payload) => Answer { body: with_envelope(payload, Some(&gref), &ignored), error: None },
        Err(e) => Answer { body: with_envelope(e.payload(), Some(&gref), &ignored), error: Some(e.code) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every argument that takes a closed set: (tool, JSON pointer into its input schema, the
    /// set's spellings). A new `enum` in a schema must be added here, with its set.
    fn enumerated_arguments() -> Vec<(&'static str, &'static str, &'static [&'static str])> {
        let mut v: Vec<(&'static str, &'static str, &'static [&'static str])> = vec![
            ("get_law", "/properties/include/items", LawPart::SPELLINGS),
            ("search_decisions", "/properties/sort", DecisionSort::SPELLINGS),
            ("list_courts", "/properties/branch", Branch::SPELLINGS),
            ("list_facets", "/properties/field", FacetField::SPELLINGS),
            ("get_citation_graph", "/properties/direction", GraphDirection::SPELLINGS),
            ("get_cases_for_law", "/properties/sort", CitingSort::SPELLINGS),
            ("corpus_coverage", "/properties/branch", Branch::SPELLINGS),
        ];
        for tool in ["search_decisions", "filter_cases", "cross_type_search", "get_case_statistics"] {
            v.push((tool, "/properties/branch", Branch::SPELLINGS));
        }
        v
    }

    /// JSON pointers of every `enum` list in `v`.
    fn enum_pointers(v: &Value, at: String, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    if k == "enum" {
                        out.push(at.clone());
                    } else {
                        enum_pointers(x, format!("{at}/{k}"), out);
                    }
                }
            }
            Value::Array(items) => {
                for (i, x) in items.iter().enumerate() {
                    enum_pointers(x, format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
    }

    #[test]
    fn every_enum_list_of_every_input_schema_is_exactly_its_closed_set() {
        let expected = enumerated_arguments();
        let mut found = Vec::new();
        for tool in TOOLS {
            let schema = (tool.schema)();
            let mut pointers = Vec::new();
            enum_pointers(&schema, String::new(), &mut pointers);
            for p in pointers {
                let prop = schema.pointer(&p).unwrap();
                let listed: Vec<&str> = prop["enum"].as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect();
                let Some((_, _, set)) = expected.iter().find(|(t, at, _)| *t == tool.name && *at == p) else {
                    panic!("{}{p}: an enum list that is not a declared closed set: {listed:?}", tool.name)
                };
                assert_eq!(&listed, set, "{}{p}: the schema lists other values than the closed set", tool.name);
                if let Some(d) = prop.get("default") {
                    assert!(set.contains(&d.as_str().unwrap()), "{}{p}: default {d} is not in the set", tool.name);
                }
                found.push((tool.name, p));
            }
        }
        for (tool, p, _) in &expected {
            assert!(found.contains(&(*tool, p.to_string())), "{tool}{p}: expected an enum list from its closed set");
        }
    }

    #[test]
    fn enumerated_arguments_accept_every_listed_value_and_refuse_others() {
        for value in DecisionSort::SPELLINGS {
            let m = json!({"sort": value.to_uppercase()}).as_object().cloned().unwrap();
            assert_eq!(Args::new(&m).closed::<DecisionSort>("sort").unwrap().map(|s| s.as_str()), Some(*value));
        }
        let m = json!({"sort": "newest", "include": ["meta", "toc", "html"]}).as_object().cloned().unwrap();
        let e = Args::new(&m).closed::<DecisionSort>("sort").expect_err("refused");
        let p = e.payload();
        assert_eq!(p["allowed"], json!(DecisionSort::SPELLINGS), "{p:?}");
        assert!(Args::new(&m).closed_list::<LawPart>("include").is_err());
        let m = json!({"include": "meta, text"}).as_object().cloned().unwrap();
        assert_eq!(Args::new(&m).closed_list::<LawPart>("include").unwrap(), Some(vec![LawPart::Meta, LawPart::Text]));
    }
}
