//! Answers of the court tools: `list_courts`, `get_court`, `list_facets`.

use model::FacetField;
use schemars::JsonSchema;
use serde::Serialize;

use super::CourtRow;

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CourtFilters {
    pub branch: Option<String>,
    pub land: Option<String>,
    pub level: Option<i64>,
    pub include_empty: bool,
}

/// `list_courts`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ListCourtsAnswer {
    /// Every filter; null = not sent.
    pub filters_applied: CourtFilters,
    pub total: usize,
    pub total_basis: &'static str,
    pub has_more: bool,
    pub results: Vec<CourtRow>,
    /// Decisions no court row counts: the courts' holdings plus these are every decision held.
    pub decisions_without_court: i64,
    pub decisions_held: i64,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct YearCount {
    /// null = undated decisions.
    pub year: Option<String>,
    pub decisions: i64,
}

/// `get_court`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GetCourtAnswer {
    pub court: CourtRow,
    pub decisions_by_year: Vec<YearCount>,
    pub note: &'static str,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FacetValue {
    pub value: String,
    pub decisions: i64,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct NormFamily {
    pub given: String,
    pub canonical: String,
}

/// `list_facets`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ListFacetsAnswer {
    pub field: FacetField,
    pub prefix: String,
    pub values: Vec<FacetValue>,
    pub distinct_values: usize,
    /// true when `values` stops at limit.
    pub truncated: bool,
    pub decisions_without_this_field: i64,
    /// Sent with norm: the norm whose family (it and every finer citation) was counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub norm: Option<NormFamily>,
    /// Sent with norm.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counts_basis: Option<&'static str>,
}
