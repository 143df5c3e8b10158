//! Arguments of the citation tools: `get_case_references`, `get_citing_cases`,
//! `get_citation_graph`, `get_cases_for_law`, `corpus_coverage`, and the page of citing
//! decisions two of them share.

use model::{Branch, CitingSort, GraphDirection};
use schemars::JsonSchema;
use serde::Deserialize;

use super::decisions::DecisionRef;
use super::int;

/// A page of citing decisions (`get_citing_cases`, `get_cases_for_law`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct CitingPage {
    /// Rows to return.
    #[serde(default = "int::<20>")]
    #[schemars(range(min = 1, max = 200))]
    pub limit: i64,
    /// Rows to skip (paging).
    #[serde(default)]
    #[schemars(range(min = 0, max = 1_000_000))]
    pub offset: i64,
}

/// `get_case_references`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct GetCaseReferencesArgs {
    #[serde(flatten)]
    pub decision: DecisionRef,
    /// Citations per kind to return.
    #[serde(default = "int::<500>")]
    #[schemars(range(min = 1, max = 5000))]
    pub limit: i64,
}

/// `get_citing_cases`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct GetCitingCasesArgs {
    #[serde(flatten)]
    pub decision: DecisionRef,
    #[serde(flatten)]
    pub page: CitingPage,
}

fn both() -> GraphDirection {
    GraphDirection::Both
}

/// `get_citation_graph`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct GetCitationGraphArgs {
    #[serde(flatten)]
    pub decision: DecisionRef,
    /// Cited by it, citing it, or both.
    #[serde(default = "both")]
    pub direction: GraphDirection,
    /// 1 or 2 hops.
    #[serde(default = "int::<1>")]
    #[schemars(range(min = 1, max = 2))]
    pub depth: i64,
    /// Node cap (capped says when it was reached).
    #[serde(default = "int::<50>")]
    #[schemars(range(min = 1, max = 500))]
    pub max_nodes: i64,
}

/// `get_cases_for_law`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct GetCasesForLawArgs {
    /// Law abbreviation (BGB, VwGO, IFG, GG).
    #[schemars(length(min = 1, max = 100))]
    pub book: String,
    /// "823", "§ 823", "§ 823 Abs. 1", "Art. 20".
    #[schemars(length(min = 1, max = 100))]
    pub section: String,
    /// date (newest first) or most_cited.
    #[serde(default = "super::decisions::by_date")]
    pub sort: CitingSort,
    #[serde(flatten)]
    pub page: CitingPage,
}

/// `corpus_coverage`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct CorpusCoverageArgs {
    /// Only courts of this branch in held_by_court.
    pub branch: Option<Branch>,
}
