//! The tool registry: name, title, description, input schema and the one service function
//! per capability. MCP `tools/list` / `tools/call` and the REST routes both go through
//! [`call`], so payloads are identical on both transports.

pub mod access;
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
use serde_json::{Map, Value, json};

use crate::contract::answer::{ErrorCode, GenerationRef, ToolError, with_envelope};
use crate::contract::answers::*;
use crate::contract::args::*;
use crate::contract::caller::Ability;
use crate::contract::json_object::JsonObject;

/// Parses the arguments against the tool's input schema into its argument struct, runs it and
/// hands its answer struct to the app layer as a JSON object, serialised once (which the
/// response budget measures and the transports send).
type Run = fn(&Generation, &Map<String, Value>, &Value) -> Result<JsonObject, ToolError>;

/// How a tool's work grows, which decides whether a call waits its turn ([`crate::app::run_tool`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// Rows read by key, or values kept per generation: about a millisecond; never waits.
    Lookup,
    /// Walks postings, texts or the citation graph: grows with the corpus or the arguments.
    /// At most `--max-concurrent-scans` run at once; the others wait in arrival order.
    Scan,
}

pub struct Tool {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    /// The input schema, from the tool's argument struct (`input_schema::<XArgs>`), which also
    /// parses the arguments (`parse::<XArgs>` in `run`, named again so that a struct that is not
    /// the function's argument type does not compile): one definition of what the tool accepts.
    pub schema: fn() -> Value,
    /// The output schema, from the tool's answer struct (`output_schema::<XAnswer>`), which
    /// `run` also names (`answer::<XAnswer>`): one definition of what the tool answers.
    pub output: fn() -> Value,
    /// The refusal codes this tool answers besides the ones every tool can give
    /// ([`COMMON_REFUSALS`]); listed in its description.
    pub refusals: &'static [ErrorCode],
    /// The token ability this tool needs (`whoami` needs none); `app::access` checks it.
    pub ability: Option<Ability>,
    /// Lists (JSON pointers) that rows are dropped from, in this order, when an answer is over
    /// the response budget (applied by the app layer); empty for tools whose answers are bounded by
    /// their arguments or page their text by offset/length.
    pub shed: &'static [&'static str],
    pub workload: Workload,
    pub run: Run,
}

/// The answer struct `T` of a tool as the JSON object the app layer and transports carry.
fn answer<T: serde::Serialize>(result: Result<T, ToolError>) -> Result<JsonObject, ToolError> {
    JsonObject::of(&result?).map_err(ToolError::internal)
}

/// Refusals any tool can give: a bad argument, no generation loaded yet, out of time, a defect.
pub const COMMON_REFUSALS: &[ErrorCode] = &[
    ErrorCode::InvalidArgument,
    ErrorCode::NoGeneration,
    ErrorCode::Timeout,
    ErrorCode::InternalError,
    ErrorCode::RateLimited,
    ErrorCode::InvalidToken,
    ErrorCode::TokenRequired,
    ErrorCode::TokenAbilityMissing,
    ErrorCode::AuthUnavailable,
];

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

pub static TOOLS: &[Tool] = &[
    Tool {
        name: "search_laws",
        title: "Search federal statutes",
        description: "Full-text search over the sections (§§, Artikel, Anlagen) of German federal law from gesetze-im-internet.de. Headings are searchable (\"Notwehr\" finds § 32 StGB). Returns snippets, never decisions; a query that is a § citation (\"§ 823 BGB\") returns that section first. Filter with book. Read the full text with get_law_section.",
        schema: input_schema::<SearchLawsArgs>,
        output: output_schema::<SearchLawsAnswer>,
        ability: Some(Ability::Search),
        refusals: &[ErrorCode::BookNotFound, ErrorCode::BookAmbiguous],
        shed: &["/results"],
        workload: Workload::Scan,
        run: |g, arguments, schema| {
            answer::<SearchLawsAnswer>(laws::search_laws(g, parse::<SearchLawsArgs>(arguments, schema)?))
        },
    },
    Tool {
        name: "get_law_section",
        title: "Read one section of a law",
        description: "The complete plain text of one § / Artikel / Anlage by book and section (\"BGB\" + \"823\"; \"GG\" + \"Art. 20\"; \"EGBGB\" + \"Art. 229 § 5\"). Exact sections only (never § 1823 for 823); a miss returns a hint showing how the book labels its sections. \"§ 32 Abs. 2\" also returns that Absatz, \"§ 573 Abs. 2 Nr. 2\" or \"§ 2 Nr. 3\" that Nummer, with their offsets into the section text (Satz and lit. are named, not located). Never truncated: offset/length return a snippet with total_length, has_more and next_offset instead. For a whole law, its metadata or its table of contents use get_law; to find a § by words, search_laws.",
        schema: input_schema::<GetLawSectionArgs>,
        output: output_schema::<GetLawSectionAnswer>,
        ability: Some(Ability::Read),
        refusals: &[
            ErrorCode::BookNotFound,
            ErrorCode::BookAmbiguous,
            ErrorCode::SectionNotFound,
            ErrorCode::SectionAmbiguous,
            ErrorCode::AbsatzNotFound,
            ErrorCode::NummerNotFound,
            ErrorCode::OffsetOutOfRange,
        ],
        shed: &[],
        workload: Workload::Lookup,
        run: |g, arguments, schema| {
            answer::<GetLawSectionAnswer>(laws::get_law_section(g, parse::<GetLawSectionArgs>(arguments, schema)?))
        },
    },
    Tool {
        name: "get_law",
        title: "Read a law: metadata, table of contents, text",
        description: "A law by abbreviation: metadata (title, dates, Fundstelle, Stand), the table of contents (keys that get_law_section accepts, paged with toc_offset/toc_limit) and/or the whole plain text paged by characters (follow next_offset). Links to the law on gesetze-im-internet.de.",
        schema: input_schema::<GetLawArgs>,
        output: output_schema::<GetLawAnswer>,
        ability: Some(Ability::Read),
        refusals: &[ErrorCode::BookNotFound, ErrorCode::BookAmbiguous, ErrorCode::OffsetOutOfRange],
        shed: &["/toc/entries"],
        workload: Workload::Lookup,
        run: |g, arguments, schema| answer::<GetLawAnswer>(laws::get_law(g, parse::<GetLawArgs>(arguments, schema)?)),
    },
    Tool {
        name: "list_law_books",
        title: "List law books",
        description: "The federal laws held, with abbreviation, title and section count; filter by abbreviation prefix or a title substring; paged with limit/offset and a total. To find a § by words use search_laws; for one law, get_law.",
        schema: input_schema::<ListLawBooksArgs>,
        output: output_schema::<ListLawBooksAnswer>,
        ability: Some(Ability::Search),
        refusals: &[],
        shed: &["/laws"],
        workload: Workload::Lookup,
        run: |g, arguments, schema| {
            answer::<ListLawBooksAnswer>(laws::list_law_books(g, parse::<ListLawBooksArgs>(arguments, schema)?))
        },
    },
    Tool {
        name: "search_decisions",
        title: "Search court decisions",
        description: "Full-text search over German court decisions (passages grouped by decision, with snippets and their Randnummer). Filters: court (all chambers), branch, document_type, date_from/date_to, cited_norm, cited_case_id; sort by relevance, date or most_cited; pages 1-10 of up to 20 rows. A query that is one Aktenzeichen or ECLI is looked up exactly (mode says so); words are analysed as in search_laws (compounds, typos, the legal-register dictionary: query_expansion, query_analysis). Without a query, sort=most_cited lists the corpus's leading decisions under the filters (sort=date the newest). totals say what they count; a relevance search stops counting past the server's count cap, 10,000 decisions by default (total_is_floor: true, total is then \"at least\"; get_case_statistics counts them all); an empty result under a filter reports whether the value exists (filter_vocabulary). Never returns laws. Without words use filter_cases; laws and decisions at once, cross_type_search; counts instead of rows, get_case_statistics.",
        schema: input_schema::<SearchDecisionsArgs>,
        output: output_schema::<SearchDecisionsAnswer>,
        ability: Some(Ability::Search),
        refusals: &[ErrorCode::CourtNotFound, ErrorCode::DecisionNotFound, ErrorCode::DecisionAmbiguous],
        shed: &["/results"],
        workload: Workload::Scan,
        run: |g, arguments, schema| {
            answer::<SearchDecisionsAnswer>(decisions::search_decisions(
                g,
                parse::<SearchDecisionsArgs>(arguments, schema)?,
            ))
        },
    },
    Tool {
        name: "get_decision",
        title: "Read a court decision",
        description: "One decision by id, Aktenzeichen (any of a joined proceeding's numbers) or ECLI: metadata, available_sections, Randnummern and the whole plain text (never truncated), or a snippet (offset/length with total_length, has_more, next_offset), one section (section=\"Tenor\"), or a Randnummer window (rn_from/rn_to, snapped to whole blocks). An Aktenzeichen several decisions share is refused with the candidates unless court/date pick one.",
        schema: input_schema::<GetDecisionArgs>,
        output: output_schema::<GetDecisionAnswer>,
        ability: Some(Ability::Read),
        refusals: &[
            ErrorCode::DecisionNotFound,
            ErrorCode::DecisionAmbiguous,
            ErrorCode::SectionNotInDecision,
            ErrorCode::OffsetOutOfRange,
        ],
        shed: &[],
        workload: Workload::Lookup,
        run: |g, arguments, schema| {
            answer::<GetDecisionAnswer>(decisions::get_decision(g, parse::<GetDecisionArgs>(arguments, schema)?))
        },
    },
    Tool {
        name: "filter_cases",
        title: "List decisions by metadata",
        description: "Decisions matching court, branch, document_type, date range, file number, ECLI, a cited norm or whole law (cited_norm) or a cited decision (cited_case_id), newest first or most cited first (sort=most_cited: the corpus's leading decisions); paged with limit/offset and a labelled total. No words and no ranking by relevance: for words use search_decisions; for one decision by its id, get_decision.",
        schema: input_schema::<FilterCasesArgs>,
        output: output_schema::<FilterCasesAnswer>,
        ability: Some(Ability::Search),
        refusals: &[ErrorCode::CourtNotFound, ErrorCode::DecisionNotFound, ErrorCode::DecisionAmbiguous],
        shed: &["/results"],
        workload: Workload::Scan,
        run: |g, arguments, schema| {
            answer::<FilterCasesAnswer>(decisions::filter_cases(g, parse::<FilterCasesArgs>(arguments, schema)?))
        },
    },
    Tool {
        name: "list_courts",
        title: "List courts",
        description: "Courts with canonical name, type, branch, level, Land, ECLI code and the decisions held (count, earliest, latest). Filter by branch, land, level; include_empty also lists reference-table courts with nothing held. One court with its decisions per year: get_court.",
        schema: input_schema::<ListCourtsArgs>,
        output: output_schema::<ListCourtsAnswer>,
        ability: Some(Ability::Search),
        refusals: &[],
        shed: &["/results"],
        workload: Workload::Lookup,
        run: |g, arguments, schema| {
            answer::<ListCourtsAnswer>(courts::list_courts(g, parse::<ListCourtsArgs>(arguments, schema)?))
        },
    },
    Tool {
        name: "get_court",
        title: "One court and its holdings",
        description: "A court by name, citation name or ECLI code: its reference data and the decisions held per year.",
        schema: input_schema::<GetCourtArgs>,
        output: output_schema::<GetCourtAnswer>,
        ability: Some(Ability::Read),
        refusals: &[ErrorCode::CourtNotFound],
        shed: &[],
        workload: Workload::Lookup,
        run: |g, arguments, schema| {
            answer::<GetCourtAnswer>(courts::get_court(g, parse::<GetCourtArgs>(arguments, schema)?))
        },
    },
    Tool {
        name: "list_facets",
        title: "Count decisions by facet",
        description: "Value counts of court_name, court_branch, document_type or year (the same counts as get_case_statistics and corpus_coverage), or of cited_norms, optionally by prefix; says when the list is truncated and how many decisions lack the field.",
        schema: input_schema::<ListFacetsArgs>,
        output: output_schema::<ListFacetsAnswer>,
        ability: Some(Ability::Search),
        refusals: &[],
        shed: &["/values"],
        workload: Workload::Scan,
        run: |g, arguments, schema| {
            answer::<ListFacetsAnswer>(courts::list_facets(g, parse::<ListFacetsArgs>(arguments, schema)?))
        },
    },
    Tool {
        name: "cross_type_search",
        title: "Search laws and decisions together",
        description: "One query over statutes and decisions, answered in two separate sections (never merged or ranked against each other). book filters the laws section; court, branch, document_type and dates filter the decisions section.",
        schema: input_schema::<CrossTypeSearchArgs>,
        output: output_schema::<CrossTypeSearchAnswer>,
        ability: Some(Ability::Search),
        refusals: &[],
        shed: &["/decisions/results", "/laws/results"],
        workload: Workload::Scan,
        run: |g, arguments, schema| {
            answer::<CrossTypeSearchAnswer>(decisions::cross_type_search(
                g,
                parse::<CrossTypeSearchArgs>(arguments, schema)?,
            ))
        },
    },
    Tool {
        name: "get_similar_cases",
        title: "Decisions similar to one",
        description: "More-like-this: decisions whose passages share the given decision's most distinctive words; says which words it used. Lexical, not a citation link: for what a decision cites use get_case_references, for who cites it get_citing_cases.",
        schema: input_schema::<GetSimilarCasesArgs>,
        output: output_schema::<GetSimilarCasesAnswer>,
        ability: Some(Ability::Search),
        refusals: &[ErrorCode::DecisionNotFound, ErrorCode::DecisionAmbiguous],
        shed: &["/results"],
        workload: Workload::Scan,
        run: |g, arguments, schema| {
            answer::<GetSimilarCasesAnswer>(decisions::get_similar_cases(
                g,
                parse::<GetSimilarCasesArgs>(arguments, schema)?,
            ))
        },
    },
    Tool {
        name: "get_case_references",
        title: "What a decision cites",
        description: "The laws and decisions one decision cites, each with its marker text, code-point offsets and what it was bound to: laws checked against the current text (bound, section_absent_in_current_text, absatz_absent_in_current_text, statute_unknown …), decisions with a status (resolved, unresolved_ambiguous with candidates, unresolved_no_match, unresolved_out_of_coverage, unresolved_pending) and a role (procedural for the Vorinstanz chain, else cited). Also the decision's Normenkette.",
        schema: input_schema::<GetCaseReferencesArgs>,
        output: output_schema::<CaseReferencesAnswer>,
        ability: Some(Ability::Graph),
        refusals: &[ErrorCode::DecisionNotFound, ErrorCode::DecisionAmbiguous],
        shed: &["/cases", "/laws"],
        workload: Workload::Lookup,
        run: |g, arguments, schema| {
            answer::<CaseReferencesAnswer>(citations::get_case_references(
                g,
                parse::<GetCaseReferencesArgs>(arguments, schema)?,
            ))
        },
    },
    Tool {
        name: "get_citing_cases",
        title: "Decisions citing a decision",
        description: "Held decisions with a resolved citation of the given decision, newest first, with their role and how often they cite it; total before paging. One hop, paged; both directions and two hops at once: get_citation_graph. What the decision itself cites: get_case_references.",
        schema: input_schema::<GetCitingCasesArgs>,
        output: output_schema::<CitingCasesAnswer>,
        ability: Some(Ability::Graph),
        refusals: &[ErrorCode::DecisionNotFound, ErrorCode::DecisionAmbiguous],
        shed: &["/results"],
        workload: Workload::Lookup,
        run: |g, arguments, schema| {
            answer::<CitingCasesAnswer>(citations::get_citing_cases(g, parse::<GetCitingCasesArgs>(arguments, schema)?))
        },
    },
    Tool {
        name: "get_citation_graph",
        title: "Citation neighbourhood of a decision",
        description: "Decisions linked to one decision by resolved citations: outgoing, incoming or both, depth 1 or 2, one node per distinct decision with depth and role, the edges between them, a node cap (capped says when it was hit), totals that do not change with the cap, and the root's unresolved citations by status.",
        schema: input_schema::<GetCitationGraphArgs>,
        output: output_schema::<CitationGraphAnswer>,
        ability: Some(Ability::Graph),
        refusals: &[ErrorCode::DecisionNotFound, ErrorCode::DecisionAmbiguous],
        shed: &["/edges"],
        workload: Workload::Scan,
        run: |g, arguments, schema| {
            answer::<CitationGraphAnswer>(citations::get_citation_graph(
                g,
                parse::<GetCitationGraphArgs>(arguments, schema)?,
            ))
        },
    },
    Tool {
        name: "get_cases_for_law",
        title: "Decisions citing a § or Artikel",
        description: "Held decisions whose text or norm field cites the given § / Artikel (finer citations with Abs., Satz, Nr. included), sorted by date or most_cited. The § text itself: get_law_section; counts by court and year for a norm: get_case_statistics with cited_norm.",
        schema: input_schema::<GetCasesForLawArgs>,
        output: output_schema::<CasesForLawAnswer>,
        ability: Some(Ability::Graph),
        refusals: &[
            ErrorCode::BookNotFound,
            ErrorCode::BookAmbiguous,
            ErrorCode::SectionNotFound,
            ErrorCode::SectionAmbiguous,
        ],
        shed: &["/results"],
        workload: Workload::Lookup,
        run: |g, arguments, schema| {
            answer::<CasesForLawAnswer>(citations::get_cases_for_law(
                g,
                parse::<GetCasesForLawArgs>(arguments, schema)?,
            ))
        },
    },
    Tool {
        name: "corpus_coverage",
        title: "What is covered and what is held",
        description: "The coverage map (buckets of what is ingested, with date ranges and sources) with, per decision bucket, the claimed and the measured exhaustiveness (toc items in the window, held, missing), and the holdings of this generation by court, branch, document type and year (the same counts as get_case_statistics, list_courts and list_facets).",
        schema: input_schema::<CorpusCoverageArgs>,
        output: output_schema::<CorpusCoverageAnswer>,
        ability: Some(Ability::Read),
        refusals: &[],
        shed: &["/held_by_court"],
        workload: Workload::Lookup,
        run: |g, arguments, schema| {
            answer::<CorpusCoverageAnswer>(citations::corpus_coverage(
                g,
                parse::<CorpusCoverageArgs>(arguments, schema)?,
            ))
        },
    },
    Tool {
        name: "check_citations",
        title: "Check every citation in a text",
        description: "The hallucination guard: every statute and decision citation in a German legal text (50-20,000 characters), one finding per occurrence with code-point offsets and a verdict: verified_corpus (exists in what we hold: the § and cited Absatz in the current federal text, or exactly one decision that nothing printed contradicts), not_found (with evidence.reason; Land law is out_of_scope), out_of_coverage (court/year outside the coverage map), ambiguous (candidates), unverifiable (a tooling limit, with its reason), discrepancy (found, but the citation contradicts it). Plus unique_citations, verdict_counts, reason_counts, refused look-alikes and extraction losses. Never verifies what it cannot find.",
        schema: input_schema::<CheckCitationsArgs>,
        output: output_schema::<CheckCitationsAnswer>,
        ability: Some(Ability::CitationCheck),
        refusals: &[ErrorCode::TextTooLong, ErrorCode::TextTooShort, ErrorCode::NotGermanLegalText],
        shed: &["/findings", "/unique_citations"],
        workload: Workload::Scan,
        run: |g, arguments, schema| {
            answer::<CheckCitationsAnswer>(checker::check_citations(g, parse::<CheckCitationsArgs>(arguments, schema)?))
        },
    },
    Tool {
        name: "validate_citation",
        title: "Validate one citation",
        description: "One Aktenzeichen, ECLI or § reference: found (verified_corpus) or not, match_type, the verdict and the matched record. Exact only: never § 1823 BGB for § 823 BGB. For every citation in a passage use check_citations.",
        schema: input_schema::<ValidateCitationArgs>,
        output: output_schema::<ValidateCitationAnswer>,
        ability: Some(Ability::CitationCheck),
        refusals: &[],
        shed: &[],
        workload: Workload::Lookup,
        run: |g, arguments, schema| {
            answer::<ValidateCitationAnswer>(checker::validate_citation(
                g,
                parse::<ValidateCitationArgs>(arguments, schema)?,
            ))
        },
    },
    Tool {
        name: "assemble_datapackage",
        title: "Package decisions with their citations",
        description: "1-10 decisions (ids, Aktenzeichen or ECLIs) in one JSON package for grounded LLM context: metadata, an excerpt (~700 characters from the Leitsatz, else Tenor, else Gründe) or the full text, and each decision's outgoing citation edges (resolved to a held decision, or unresolved with status), with edge_accounting (total, included, dropped). max_chars is the response budget: over it, the package sheds in a fixed order (texts shortened to ~300 characters, then edges capped per decision, then decisions dropped from the end of ids) and says so in payload_truncated, truncation (steps, dropped_seed_ids) and truncation_notice. Every cut text carries offset, total_length and has_more. An id that names no single decision fails the whole call (unresolved_ids). For one whole decision use get_decision.",
        schema: input_schema::<AssembleDatapackageArgs>,
        output: output_schema::<DatapackageAnswer>,
        ability: Some(Ability::Datapackage),
        refusals: &[ErrorCode::DecisionNotFound, ErrorCode::DecisionAmbiguous],
        shed: &[],
        workload: Workload::Scan,
        run: |g, arguments, schema| {
            answer::<DatapackageAnswer>(datapackage::assemble_datapackage(
                g,
                parse::<AssembleDatapackageArgs>(arguments, schema)?,
            ))
        },
    },
    Tool {
        name: "get_case_statistics",
        title: "Count decisions by court, year, branch, type",
        description: "Counts of held decisions by court, year, branch and document type, under the same filters as search_decisions (court, branch, document_type, date_from, date_to, cited_norm, cited_case_id) and an optional query matched exactly as search_decisions matches it. Each breakdown sums to total (total_basis says what it counts); values not recorded are counted under null (undated decisions under year null). Rows instead of counts: search_decisions or filter_cases; one facet with a prefix or cited norms: list_facets.",
        schema: input_schema::<GetCaseStatisticsArgs>,
        output: output_schema::<CaseStatisticsAnswer>,
        ability: Some(Ability::Search),
        refusals: &[ErrorCode::CourtNotFound, ErrorCode::DecisionNotFound, ErrorCode::DecisionAmbiguous],
        shed: &[],
        workload: Workload::Scan,
        run: |g, arguments, schema| {
            answer::<CaseStatisticsAnswer>(statistics::get_case_statistics(
                g,
                parse::<GetCaseStatisticsArgs>(arguments, schema)?,
            ))
        },
    },
    Tool {
        name: "get_platform_info",
        title: "What this server holds",
        description: "Counts of laws and sections, source snapshot, and the generation (id, build time, code commit) answers come from. What is covered per court and period: corpus_coverage.",
        schema: input_schema::<NoArgs>,
        output: output_schema::<PlatformInfoAnswer>,
        ability: Some(Ability::Read),
        refusals: &[],
        shed: &[],
        workload: Workload::Lookup,
        run: |g, arguments, schema| {
            answer::<PlatformInfoAnswer>(laws::platform_info(g, parse::<NoArgs>(arguments, schema)?))
        },
    },
    Tool {
        name: "whoami",
        title: "Who am I, and how much budget is left",
        description: "Whether this connection sends an API token or an OAuth access token (and which: the token's id and name, or the OAuth subject, client and scopes; with its abilities), the rate-limit tier and bucket it is counted in, the limit, what is used and left (this call included) and when to retry, read from the limiter the next request is judged by; and how to get a larger budget. MCP and REST share one budget per caller.",
        schema: input_schema::<NoArgs>,
        output: output_schema::<WhoamiAnswer>,
        ability: None,
        refusals: &[],
        shed: &[],
        workload: Workload::Lookup,
        run: |g, arguments, schema| answer::<WhoamiAnswer>(access::whoami(g, parse::<NoArgs>(arguments, schema)?)),
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
    pub body: JsonObject,
    pub error: Option<ErrorCode>,
    /// The ability a refusal names in `required_ability` (no token, or one without it).
    pub required_ability: Option<Ability>,
}

impl Answer {
    /// A refusal with the envelope (`generation` null when none was loaded).
    pub fn refusal(e: ToolError, generation: Option<&GenerationRef>, ignored: &[String]) -> Answer {
        let required_ability = e.details.get("required_ability").and_then(Value::as_str).and_then(Ability::parse);
        Answer {
            body: with_envelope(JsonObject::from_map(&e.payload()), generation, ignored),
            error: Some(e.code),
            required_ability,
        }
    }
}

pub fn generation_ref(g: &Generation) -> GenerationRef {
    GenerationRef { id: g.id.clone(), built_at: g.manifest.built_at.clone() }
}

/// Calls `tool` with `arguments` on `generation` (blocking: run it off the async executor).
pub fn call(tool: &Tool, generation: Option<Arc<Generation>>, arguments: &Map<String, Value>) -> Answer {
    // The input schema comes from the cached `tools/list` entry, not built per call (a tool
    // outside the registry, as in unit tests, builds its own).
    let schema: std::borrow::Cow<'static, Value> = match descriptors().iter().find(|d| d["name"] == tool.name) {
        Some(d) => std::borrow::Cow::Borrowed(&d["inputSchema"]),
        None => std::borrow::Cow::Owned((tool.schema)()),
    };
    let declared = schema["properties"].as_object();
    let ignored: Vec<String> =
        arguments.keys().filter(|k| !declared.is_some_and(|p| p.contains_key(k.as_str()))).cloned().collect();
    let Some(g) = generation else {
        let e = ToolError::new(
            ErrorCode::NoGeneration,
            "no index generation is loaded",
            "The server is starting or no generation was published yet (run `make reindex`); retry shortly.",
        );
        return Answer::refusal(e, None, &ignored);
    };
    let gref = generation_ref(&g);
    match (tool.run)(&g, arguments, &schema) {
        Ok(payload) => {
            Answer { body: with_envelope(payload, Some(&gref), &ignored), error: None, required_ability: None }
        }
        Err(e) => Answer::refusal(e, Some(&gref), &ignored),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{Branch, CitingSort, DecisionSort, FacetField, GraphDirection, LawPart};

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
            ("filter_cases", "/properties/sort", CitingSort::SPELLINGS),
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

    /// The envelope and the budget's mark are put around an answer as text
    /// ([`JsonObject::after`], [`JsonObject::push`]): a key the answer held too would be sent
    /// twice.
    #[test]
    fn no_answer_holds_a_key_the_envelope_or_the_budget_adds() {
        for tool in TOOLS {
            let schema = (tool.output)();
            let props = schema["properties"].as_object().unwrap_or_else(|| panic!("{}: no properties", tool.name));
            for key in crate::contract::answer::ENVELOPE_KEYS {
                assert!(!props.contains_key(*key), "{}: its answer has the envelope key {key}", tool.name);
            }
            if !tool.shed.is_empty() {
                assert!(!props.contains_key("payload_truncated"), "{}: sheds lists and says so itself", tool.name);
            }
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
        let schema = input_schema::<SearchDecisionsArgs>();
        for value in DecisionSort::SPELLINGS {
            let m = json!({"query": "x", "sort": value.to_uppercase()}).as_object().cloned().unwrap();
            assert_eq!(parse::<SearchDecisionsArgs>(&m, &schema).unwrap().sort.as_str(), *value);
        }
        let m = json!({"query": "x", "sort": "newest"}).as_object().cloned().unwrap();
        let p = parse::<SearchDecisionsArgs>(&m, &schema).expect_err("refused").payload();
        assert_eq!(p["allowed"], json!(DecisionSort::SPELLINGS), "{p:?}");
        assert_eq!(p["argument"], json!("sort"), "{p:?}");
        let schema = input_schema::<GetLawArgs>();
        let m = json!({"book": "BGB", "include": ["meta", "toc", "html"]}).as_object().cloned().unwrap();
        assert!(parse::<GetLawArgs>(&m, &schema).is_err());
        let m = json!({"book": "BGB", "include": "meta, TEXT"}).as_object().cloned().unwrap();
        assert_eq!(parse::<GetLawArgs>(&m, &schema).unwrap().include, vec![LawPart::Meta, LawPart::Text]);
    }

    #[test]
    fn arguments_are_parsed_with_the_limits_and_defaults_their_schema_declares() {
        let schema = input_schema::<SearchLawsArgs>();
        assert_eq!(schema["properties"]["limit"]["default"], json!(10), "{schema}");
        assert_eq!(schema["properties"]["limit"]["maximum"], json!(50), "{schema}");
        assert_eq!(schema["properties"]["book"]["type"], json!("string"), "an optional argument is its value type");
        assert_eq!(schema["required"], json!(["query"]));
        let ok = |v: Value| parse::<SearchLawsArgs>(v.as_object().unwrap(), &schema);
        let a = ok(json!({"query": "Notwehr"})).unwrap();
        assert_eq!((a.limit, a.book), (10, None), "the default is the schema's");
        // REST spellings: an integer as a string, a blank optional string as not sent.
        let a = ok(json!({"query": "Notwehr", "limit": " 7 ", "book": "  "})).unwrap();
        assert_eq!((a.limit, a.book), (7, None));
        for (bad, argument) in [
            (json!({"query": "Notwehr", "limit": 51}), "limit"),
            (json!({"query": "Notwehr", "limit": "seven"}), "limit"),
            (json!({"query": "Notwehr", "limit": 2.5}), "limit"),
            (json!({"query": "   "}), "query"),
            (json!({"limit": 5}), "query"),
            (json!({"query": 5}), "query"),
            (json!({"query": "x".repeat(501)}), "query"),
            (json!({"query": "Notwehr", "book": ["BGB"]}), "book"),
        ] {
            let e = ok(bad.clone()).expect_err(&bad.to_string());
            assert_eq!(e.code, ErrorCode::InvalidArgument, "{bad}");
            assert_eq!(e.payload()["argument"], json!(argument), "{bad}: {:?}", e.payload());
        }
        // Lists: counts and item lengths from the schema.
        let schema = input_schema::<AssembleDatapackageArgs>();
        assert_eq!(schema["properties"]["ids"]["maxItems"], json!(10), "{schema}");
        assert_eq!(schema["properties"]["include_citations"]["default"], json!(true), "{schema}");
        let dp = |v: Value| parse::<AssembleDatapackageArgs>(v.as_object().unwrap(), &schema);
        assert_eq!(dp(json!({"ids": "a, b"})).unwrap().ids, vec!["a", "b"]);
        assert!(dp(json!({"ids": []})).is_err());
        assert!(dp(json!({"ids": vec!["x"; 11]})).is_err());
        assert!(dp(json!({"ids": ["x".repeat(201)]})).is_err());
        assert!(dp(json!({"ids": ["a", 3]})).is_err());
    }
}
