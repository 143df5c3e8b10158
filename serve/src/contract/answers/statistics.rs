//! Answers of `get_case_statistics`, and the breakdown rows it shares with `corpus_coverage`.

use model::{MatchMode, SearchMode};
use schemars::JsonSchema;
use serde::Serialize;

use super::{FilterVocabulary, FiltersApplied, YearCount};

/// Decisions of one court; null = the source names no court we could place.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ByCourt {
    pub court: Option<String>,
    pub decisions: i64,
}

/// Decisions of one branch; null = no court placed, so no branch.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ByBranch {
    pub branch: Option<String>,
    pub decisions: i64,
}

/// Decisions of one document type; null = no type given.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ByDocumentType {
    pub document_type: Option<String>,
    pub decisions: i64,
}

/// Decisions of one court in one year.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ByCourtAndYear {
    pub court: Option<String>,
    pub year: Option<String>,
    pub decisions: i64,
}

/// Decisions whose court, year, document type or branch is not recorded.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Unrecorded {
    pub court: i64,
    pub year: i64,
    pub document_type: i64,
    pub branch: i64,
}

/// `get_case_statistics`: every breakdown sums to `total`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CaseStatisticsAnswer {
    pub query: Option<String>,
    pub filters_applied: FiltersApplied,
    /// Sent for a text query.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_mode: Option<MatchMode>,
    pub mode: SearchMode,
    pub total: i64,
    pub total_basis: &'static str,
    pub counts_basis: &'static str,
    pub unrecorded: Unrecorded,
    pub null_means: &'static str,
    pub by_court: Vec<ByCourt>,
    pub by_year: Vec<YearCount>,
    pub by_branch: Vec<ByBranch>,
    pub by_document_type: Vec<ByDocumentType>,
    /// Court × year cells: each decision once, so the cells sum to total, a court's cells to its
    /// by_court count and a year's to its by_year count.
    pub by_court_and_year: Vec<ByCourtAndYear>,
    /// Sent when nothing matched under a court or document-type filter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter_vocabulary: Option<FilterVocabulary>,
    pub scope: &'static str,
}
