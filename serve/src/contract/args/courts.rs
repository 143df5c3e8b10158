//! Arguments of the court tools: `list_courts`, `get_court`, `list_facets`.

use model::{Branch, FacetField};
use schemars::JsonSchema;
use serde::Deserialize;

use super::int;

/// `list_courts`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ListCourtsArgs {
    /// Branch of jurisdiction.
    pub branch: Option<Branch>,
    /// Land as ISO 3166-2 (DE-BY) or its letters (BY).
    #[schemars(length(max = 10))]
    pub land: Option<String>,
    /// 0 European, 1 federal, 2 higher Land court, 3 Land court, 4 local court; -1 any.
    #[serde(default = "int::<-1>")]
    #[schemars(range(min = -1, max = 4))]
    pub level: i64,
    /// Also list courts of the reference table with no decision held.
    #[serde(default)]
    pub include_empty: bool,
    /// Rows to return.
    #[serde(default = "int::<100>")]
    #[schemars(range(min = 1, max = 2000))]
    pub limit: i64,
    /// Rows to skip (paging).
    #[serde(default)]
    #[schemars(range(min = 0, max = 1_000_000))]
    pub offset: i64,
}

/// `get_court`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct GetCourtArgs {
    /// Court name, citation name ("VGH München") or ECLI code ("BAYVGH").
    #[schemars(length(min = 1, max = 200))]
    pub court: String,
}

/// `list_facets`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ListFacetsArgs {
    /// Facet to count.
    pub field: FacetField,
    /// With field=cited_norms: the family of this norm ("§ 823 BGB": § 823 Abs. 1 BGB, § 823 Abs. 2 BGB, …).
    #[schemars(length(max = 200))]
    pub norm: Option<String>,
    /// Only values starting with this (case and umlauts folded).
    #[schemars(length(max = 100))]
    pub prefix: Option<String>,
    /// Values to return.
    #[serde(default = "int::<50>")]
    #[schemars(range(min = 1, max = 1000))]
    pub limit: i64,
}
