//! Answers of the citation tools: `get_case_references`, `get_citing_cases`,
//! `get_citation_graph`, `get_cases_for_law`, `corpus_coverage`.

use model::{
    CaseCitationStatus, CaseKind, CitationRole, CitingSort, GraphDirection, LawCitationStatus, WithheldReason,
};
use schemars::JsonSchema;
use serde::Serialize;

use super::{ByBranch, ByDocumentType, Counts, DecisionSummary, NormFamily, YearCount};

/// A law citation in a decision's text and what it was bound to.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LawReference {
    /// The citation as printed.
    pub raw: String,
    /// Code-point offsets into the decision's text (end exclusive).
    pub start: i64,
    pub end: i64,
    pub canonical: String,
    pub book: Option<String>,
    pub section: Option<String>,
    pub absatz: Option<String>,
    /// null when the store recorded no status (never for a scanned citation).
    pub status: Option<LawCitationStatus>,
}

/// A case citation in a decision's text and what it was bound to.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CaseReference {
    pub raw: String,
    pub start: i64,
    pub end: i64,
    pub canonical: String,
    pub kind: Option<CaseKind>,
    /// The court, canonical; null when the printed court could not be placed.
    pub court: Option<String>,
    pub court_as_printed: Option<String>,
    pub date: Option<String>,
    pub file_number: Option<String>,
    pub status: Option<CaseCitationStatus>,
    /// The held decision it resolved to; null when unresolved.
    pub target_id: Option<String>,
    /// Held decisions it could mean (for `unresolved_ambiguous`).
    pub candidates: Vec<String>,
    /// Why a match is not an edge; null when it is one (or nothing matched).
    pub withheld: Option<WithheldReason>,
    pub role: Option<CitationRole>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StatusLegend {
    pub law: &'static str,
    pub case: &'static str,
}

/// `get_case_references`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CaseReferencesAnswer {
    pub decision: DecisionSummary,
    pub law_citations_total: usize,
    pub law_citations_by_status: Counts,
    pub case_citations_total: usize,
    pub case_citations_by_status: Counts,
    /// true when `laws` or `cases` stops at limit (the totals count all).
    pub truncated: bool,
    /// The norms the decision cites, canonical.
    pub normenkette: Vec<String>,
    pub laws: Vec<LawReference>,
    pub cases: Vec<CaseReference>,
    pub statuses: StatusLegend,
}

/// A decision citing the one asked about.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CitingCase {
    #[serde(flatten)]
    pub decision: DecisionSummary,
    pub role: CitationRole,
    /// How often its text cites the decision.
    pub citations_in_text: i64,
}

/// `get_citing_cases`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CitingCasesAnswer {
    pub decision: DecisionSummary,
    pub total: usize,
    pub total_basis: &'static str,
    pub has_more: bool,
    pub sort: &'static str,
    pub results: Vec<CitingCase>,
}

/// A decision in a citation graph.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GraphNode {
    #[serde(flatten)]
    pub decision: DecisionSummary,
    /// Hops from the root (its smallest).
    pub depth: usize,
    /// The direction of the edge it was first reached by.
    pub reached_by: GraphDirection,
    pub role: CitationRole,
    pub status: CaseCitationStatus,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GraphEdge {
    /// Decision ids.
    pub citing: String,
    pub cited: String,
    pub role: CitationRole,
    pub citations_in_text: i64,
}

/// `get_citation_graph`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CitationGraphAnswer {
    pub root: DecisionSummary,
    pub direction: GraphDirection,
    pub depth: usize,
    pub total_nodes: usize,
    pub total_basis: &'static str,
    pub returned_nodes: usize,
    pub node_cap: usize,
    /// true when more decisions were reachable than `node_cap`.
    pub capped: bool,
    pub nodes: Vec<GraphNode>,
    pub edges: Vec<GraphEdge>,
    /// What the root cites that is no edge, by status (`withheld:<reason>` for a withheld match).
    pub root_unresolved_citations: Counts,
}

/// `get_cases_for_law`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CasesForLawAnswer {
    pub norm: NormFamily,
    pub sort: CitingSort,
    pub total: usize,
    pub total_basis: &'static str,
    pub has_more: bool,
    pub results: Vec<DecisionSummary>,
}

/// A coverage bucket measured against the toc this generation was built from.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MeasuredWindow {
    pub claimed_exhaustive: bool,
    pub toc_read: bool,
    pub toc_items_in_window: i64,
    pub held: i64,
    pub missing: i64,
    pub measured_exhaustive: bool,
    /// Why the window is not exhaustive; null when it is.
    pub not_exhaustive_because: Option<String>,
    /// Toc keys of the window not held.
    pub missing_keys: Vec<String>,
}

/// A bucket of the coverage map with its measurement.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CoverageBucket {
    pub bucket: String,
    /// Canonical court name for decision buckets; null for statutes.
    pub court: Option<String>,
    pub label: String,
    /// First and last date covered (ISO); null when the bucket has no date bound.
    pub from: Option<String>,
    pub until: Option<String>,
    pub sources: Vec<String>,
    /// The map's claim: the bucket holds everything its sources publish in the range.
    pub exhaustive: bool,
    pub ocr: bool,
    pub note: String,
    pub source_in_this_generation: bool,
    pub claimed_exhaustive: bool,
    /// null = not measured here.
    pub measured_exhaustive: Option<bool>,
    pub measured: Option<MeasuredWindow>,
}

/// A court's holdings.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HeldByCourt {
    pub court: String,
    #[serde(rename = "type")]
    pub court_type: Option<String>,
    pub branch: String,
    pub level: Option<i64>,
    pub land: Option<String>,
    pub decisions: i64,
    pub earliest: Option<String>,
    pub latest: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BranchFilter {
    pub branch: String,
}

/// `corpus_coverage`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CorpusCoverageAnswer {
    pub as_of: String,
    pub generation_built_at: String,
    pub buckets: Vec<CoverageBucket>,
    pub held_total: usize,
    pub held_by_branch: Vec<ByBranch>,
    pub held_by_document_type: Vec<ByDocumentType>,
    pub held_by_year: Vec<YearCount>,
    pub held_without_court: usize,
    pub held_by_court: Vec<HeldByCourt>,
    pub how_to_read: &'static str,
    /// Sent when branch was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filters_applied: Option<BranchFilter>,
}
