//! Arguments of the decision tools: `search_decisions`, `get_decision`, `filter_cases`,
//! `cross_type_search`, `get_similar_cases`, `get_case_statistics`, and the metadata and
//! citation filters several of them share (flattened into each).

use model::{Branch, CitingSort, DecisionSort};
use schemars::JsonSchema;
use serde::Deserialize;

use super::int;

/// The last page `search_decisions` serves.
pub const PAGE_MAX: i64 = 10;

/// The metadata filters of every decision search and listing.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct DecisionFilterArgs {
    /// Court as usually named ("BVerwG", "Bundesverwaltungsgericht", "VGH München", "Bayerischer Verwaltungsgerichtshof"); matches all its chambers.
    #[schemars(length(max = 200))]
    pub court: Option<String>,
    /// Branch of jurisdiction.
    pub branch: Option<Branch>,
    /// Urteil, Beschluss, Gerichtsbescheid, … (list_facets field=document_type lists them).
    #[schemars(length(max = 100))]
    pub document_type: Option<String>,
    /// Earliest decision date, YYYY-MM-DD or YYYY.
    #[schemars(length(max = 20))]
    pub date_from: Option<String>,
    /// Latest decision date, YYYY-MM-DD or YYYY.
    #[schemars(length(max = 20))]
    pub date_to: Option<String>,
}

/// The citation filters of the searches that count or rank by what decisions cite.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct CitationFilterArgs {
    /// Only decisions citing this norm ("§ 823 BGB" also matches "§ 823 Abs. 1 BGB"; spellings and renamed laws of one law are one filter), or any § / Artikel of a whole law ("IFG").
    #[schemars(length(max = 200))]
    pub cited_norm: Option<String>,
    /// Only decisions citing this decision (id, Aktenzeichen or ECLI).
    #[schemars(length(max = 200))]
    pub cited_case_id: Option<String>,
}

fn relevance() -> DecisionSort {
    DecisionSort::Relevance
}

/// `search_decisions`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SearchDecisionsArgs {
    /// German words, or one identifier: an Aktenzeichen ("7 C 2.11") or an ECLI, which is looked up exactly (mode says so). Without a query, the filters alone list decisions by sort=date or sort=most_cited (the corpus's leading decisions).
    #[schemars(length(min = 1, max = 500))]
    pub query: Option<String>,
    #[serde(flatten)]
    pub filters: DecisionFilterArgs,
    #[serde(flatten)]
    pub citations: CitationFilterArgs,
    /// relevance (needs a query); date (newest first, undated last); most_cited (citing_cases_count).
    #[serde(default = "relevance")]
    pub sort: DecisionSort,
    /// Page (1-10).
    #[serde(default = "int::<1>")]
    #[schemars(range(min = 1, max = PAGE_MAX))]
    pub page: i64,
    /// Rows per page (1-20).
    #[serde(default = "int::<10>")]
    #[schemars(range(min = 1, max = 20))]
    pub limit: i64,
    /// Add legal-register terms for everyday words ("Kaution" adds "Mietsicherheit"); the answer's query_expansion says what was added. false = search your words alone.
    #[serde(default = "super::yes")]
    pub expand_query: bool,
}

/// One decision, by id, Aktenzeichen or ECLI; court and date pick one of several decisions
/// sharing an Aktenzeichen (`get_decision` and the citation tools).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct DecisionRef {
    /// A decision id from search results, any of its Aktenzeichen as the court writes it, or its ECLI.
    #[schemars(length(min = 1, max = 200))]
    pub id: String,
    /// Narrows an Aktenzeichen that several decisions share.
    #[schemars(length(max = 200))]
    pub court: Option<String>,
    /// Narrows an Aktenzeichen that several decisions share (YYYY-MM-DD).
    #[schemars(length(max = 20))]
    pub date: Option<String>,
}

/// `get_decision`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct GetDecisionArgs {
    #[serde(flatten)]
    pub decision: DecisionRef,
    /// Snippet mode: start, in Unicode code points.
    #[serde(default)]
    #[schemars(range(min = 0))]
    pub offset: i64,
    /// Snippet mode: code points to return; 0 = to the end.
    #[serde(default)]
    #[schemars(range(min = 0))]
    pub length: i64,
    /// Only this section (Tenor, Tatbestand, Gründe, … as in available_sections).
    #[schemars(length(max = 100))]
    pub section: Option<String>,
    /// Randnummer window start (whole blocks).
    #[serde(default)]
    #[schemars(range(min = 0, max = 1_000_000))]
    pub rn_from: i64,
    /// Randnummer window end (whole blocks).
    #[serde(default)]
    #[schemars(range(min = 0, max = 1_000_000))]
    pub rn_to: i64,
}

pub(super) fn by_date() -> CitingSort {
    CitingSort::Date
}

/// `filter_cases`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct FilterCasesArgs {
    #[serde(flatten)]
    pub filters: DecisionFilterArgs,
    #[serde(flatten)]
    pub citations: CitationFilterArgs,
    /// date (newest first, undated last) or most_cited (most held decisions citing it first: the corpus's leading decisions).
    #[serde(default = "by_date")]
    pub sort: CitingSort,
    /// Aktenzeichen (spaces, dots and slashes folded).
    #[schemars(length(max = 100))]
    pub file_number: Option<String>,
    /// ECLI.
    #[schemars(length(max = 100))]
    pub ecli: Option<String>,
    /// Rows to return.
    #[serde(default = "int::<20>")]
    #[schemars(range(min = 1, max = 100))]
    pub limit: i64,
    /// Rows to skip (paging).
    #[serde(default)]
    #[schemars(range(min = 0, max = 1_000_000))]
    pub offset: i64,
}

/// `cross_type_search`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct CrossTypeSearchArgs {
    /// German words or a citation.
    #[schemars(length(min = 1, max = 500))]
    pub query: String,
    /// Filters the laws section only.
    #[schemars(length(max = 200))]
    pub book: Option<String>,
    #[serde(flatten)]
    pub filters: DecisionFilterArgs,
    /// Rows per section.
    #[serde(default = "int::<5>")]
    #[schemars(range(min = 1, max = 20))]
    pub limit: i64,
    /// Add legal-register terms for everyday words ("Kaution" adds "Mietsicherheit"); the answer's query_expansion says what was added. false = search your words alone.
    #[serde(default = "super::yes")]
    pub expand_query: bool,
}

/// `get_similar_cases`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct GetSimilarCasesArgs {
    /// Decision id, Aktenzeichen or ECLI.
    #[schemars(length(min = 1, max = 200))]
    pub id: String,
    /// Rows to return.
    #[serde(default = "int::<5>")]
    #[schemars(range(min = 1, max = 20))]
    pub limit: i64,
}

/// `get_case_statistics`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct GetCaseStatisticsArgs {
    /// Optional: count only decisions search_decisions would match (words, a § citation, an Aktenzeichen or an ECLI).
    #[schemars(length(max = 500))]
    pub query: Option<String>,
    #[serde(flatten)]
    pub filters: DecisionFilterArgs,
    #[serde(flatten)]
    pub citations: CitationFilterArgs,
}
