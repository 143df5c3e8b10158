//! Answers of the decision tools: `search_decisions`, `get_decision`, `filter_cases`,
//! `cross_type_search`, `get_similar_cases`; and the filter echo and vocabulary they share.

use model::{CitingSort, DecisionSort, MatchMode, SearchMode};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{
    DateSpan, DecisionSummary, HighlightedSnippet, QueryAnalysis, QueryExpansionReport, SourceSnapshotReport,
    TextWindow,
};
use crate::contract::answer::ErrorCode;

/// `cited_norm` as it was applied.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CitedNormApplied {
    pub given: String,
    /// The canonical citation (`§ 823 BGB`) or, for a whole law, its abbreviation.
    pub canonical: String,
    /// What a decision must cite to match.
    pub matches: &'static str,
}

/// `court` as it was applied.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CourtApplied {
    pub given: String,
    /// The folded key the court names are matched against.
    pub matches_key: String,
    pub includes_all_chambers: bool,
}

/// Every filter that ran; a filter not sent is absent.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct FiltersApplied {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cited_norm: Option<CitedNormApplied>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cited_case_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub court: Option<CourtApplied>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date_from: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date_to: Option<String>,
    /// `filter_cases` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_number: Option<String>,
    /// `filter_cases` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecli: Option<String>,
}

#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VocabularyStatus {
    /// The value names something held; the other filters excluded it.
    Matched,
    Unmatched,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CourtCount {
    pub court: String,
    pub decisions: i64,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DocumentTypeCount {
    pub document_type: String,
    pub decisions: i64,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CourtVocabulary {
    pub given: String,
    pub status: VocabularyStatus,
    /// Held courts whose names contain the value or are contained in it (up to 10).
    pub suggestions: Vec<CourtCount>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DocumentTypeVocabulary {
    pub given: String,
    pub status: VocabularyStatus,
    pub values_held: Vec<DocumentTypeCount>,
}

/// On an empty result under a court or document-type filter: whether the value exists at all.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct FilterVocabulary {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub court: Option<CourtVocabulary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document_type: Option<DocumentTypeVocabulary>,
}

/// The Randnummer span of one passage: one number, a range `[from, to]`, or null when the
/// passage has none.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum RandnummerSpan {
    One(u64),
    Range([u64; 2]),
}

/// A matching passage of a decision.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PassageSnippet {
    #[serde(flatten)]
    pub snippet: HighlightedSnippet,
    pub randnummer: Option<RandnummerSpan>,
    /// The decision section the passage lies in (`Tenor`, `Gründe` …).
    pub section: Option<String>,
}

/// How a decision row matched: by its identifier, or by the words of its passages.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DecisionMatch {
    ExactEcli,
    ExactFileNumber,
    TextMatch,
    /// No query: the row matches every filter.
    FiltersOnly,
}

/// A decision found by `search_decisions`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DecisionSearchRow {
    #[serde(flatten)]
    pub decision: DecisionSummary,
    pub matched_by: DecisionMatch,
    /// The ranking score; sent with sort=relevance on a text match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f32>,
    /// Up to two matching passages; empty for an identifier match.
    pub snippets: Vec<PassageSnippet>,
}

/// `search_decisions` (also the decisions half of `cross_type_search`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SearchDecisionsAnswer {
    /// null: no words, the filters alone listed decisions by `sort` (mode `filters_only`).
    pub query: Option<String>,
    pub filters_applied: FiltersApplied,
    pub sort: DecisionSort,
    pub page: usize,
    pub limit: usize,
    pub query_expansion: QueryExpansionReport,
    /// What was done to the caller's words; sent for a word query (not for an identifier or a
    /// § citation, which are matched as printed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query_analysis: Option<QueryAnalysis>,
    pub mode: SearchMode,
    /// Sent for an identifier or citation query.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode_note: Option<&'static str>,
    /// Sent for a text match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_mode: Option<MatchMode>,
    pub total: usize,
    /// true: more than `total` decisions match. A word or § search sorted by relevance stops
    /// counting past the server's count cap (`--search-count-cap`, 10,000 by default), so
    /// `total` is a floor ("at least"); get_case_statistics under the same arguments counts
    /// them all. false: exact.
    pub total_is_floor: bool,
    pub total_basis: &'static str,
    pub returned: usize,
    pub has_more: bool,
    /// Sent when more results exist beyond the last page served.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paging_note: Option<String>,
    /// Sent on an empty result under a court or document-type filter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter_vocabulary: Option<FilterVocabulary>,
    pub results: Vec<DecisionSearchRow>,
    /// Sent for a text match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<&'static str>,
}

/// A section of a decision's text (code points, end exclusive).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DecisionSectionSpan {
    /// Canonical (`Leitsatz`, `Tenor`, `Tatbestand`, `Entscheidungsgründe`, `Gründe` …): what
    /// `section` takes.
    pub name: String,
    /// The heading as printed (`Leitsätze`, `G r ü n d e :`).
    pub heading: String,
    pub start: usize,
    pub end: usize,
}

/// The named section with its text.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DecisionSectionText {
    #[serde(flatten)]
    pub span: DecisionSectionSpan,
    pub text: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RandnummerOverview {
    pub count: usize,
    /// null when the decision has no Randnummern.
    pub first: Option<u32>,
    pub last: Option<u32>,
    /// Whether the source printed them (else they were counted); null without Randnummern.
    pub printed_in_source: Option<bool>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RandnummerBlock {
    pub rn: u32,
    pub printed: bool,
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// The Randnummern asked for, snapped to whole blocks.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RandnummerWindow {
    pub requested: [u32; 2],
    /// The first and last Randnummer returned; null when none lies in the range.
    pub returned: Option<[u32; 2]>,
    /// The decision's first and last Randnummer (null without Randnummern).
    pub available: [Option<u32>; 2],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<usize>,
    pub blocks: Vec<RandnummerBlock>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<&'static str>,
}

/// What normalisation repaired, removed or could not do (as `extract` recorded it).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DecisionFlags {
    pub mojibake_repaired: bool,
    pub pdf_derived: bool,
    /// PDF header/footer lines and bare page numbers removed.
    pub page_furniture_removed: u32,
    /// Line-end hyphens removed (`Verwal-` + `tungsgericht`).
    pub dehyphenated: u32,
    /// Why the text is empty (`scanned_pdf_without_text_layer`, `no_content`); null when it is not.
    pub text_empty_reason: Option<String>,
    pub ocr_note: Option<String>,
}

/// One source record merged into a decision.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DecisionSourceRecord {
    pub source: String,
    pub record_id: String,
    pub document: String,
    pub source_format: String,
    pub text_chars: u64,
}

/// `get_decision`: metadata, then the whole text (`content`) or one of: `snippet`
/// (offset/length), `section`, `randnummer_window`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GetDecisionAnswer {
    pub decision: DecisionSummary,
    /// Whether the date in the ECLI agrees with `date`; null without an ECLI.
    pub ecli_date_agrees: Option<bool>,
    pub date_as_given: Option<String>,
    pub norms_as_given: Option<String>,
    /// What normalisation repaired, removed or could not do; null when the store holds none.
    pub flags: Option<DecisionFlags>,
    /// Why a value was flagged or split (`date_suspicious: …`); null when the store holds none.
    pub notes: Option<Vec<String>>,
    pub source_format: String,
    /// The source records merged into this decision; null when the store holds none.
    pub sources: Option<Vec<DecisionSourceRecord>>,
    pub available_sections: Vec<DecisionSectionSpan>,
    pub randnummern: RandnummerOverview,
    pub total_length: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<DecisionSectionText>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub randnummer_window: Option<RandnummerWindow>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet: Option<TextWindow>,
}

#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FilterCasesOrder {
    DateDescUndatedLast,
    MostCitedThenDateDesc,
}

impl From<CitingSort> for FilterCasesOrder {
    fn from(s: CitingSort) -> Self {
        match s {
            CitingSort::Date => FilterCasesOrder::DateDescUndatedLast,
            CitingSort::MostCited => FilterCasesOrder::MostCitedThenDateDesc,
        }
    }
}

/// `filter_cases`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FilterCasesAnswer {
    pub filters_applied: FiltersApplied,
    pub total: usize,
    pub total_basis: &'static str,
    pub offset: usize,
    pub limit: usize,
    pub has_more: bool,
    pub sort: FilterCasesOrder,
    /// Sent on an empty result under a court or document-type filter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter_vocabulary: Option<FilterVocabulary>,
    pub results: Vec<DecisionSummary>,
}

/// A refusal inside a combined answer: the refusal fields without the envelope.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PartRefusal {
    pub error_code: ErrorCode,
    pub message: String,
    pub retryable: bool,
    pub hint: String,
}

/// One half of `cross_type_search`: its answer, or the refusal that half gave.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum SearchPart<T> {
    Answer(T),
    Refusal(PartRefusal),
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CitedByResults {
    #[serde(flatten)]
    pub decision: DecisionSummary,
    /// How many of the decision results cite it.
    pub cited_by_results: i64,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct NormCitedByResults {
    pub norm: String,
    pub cited_by_results: i64,
}

/// `cross_type_search`: laws and decisions side by side, never merged.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CrossTypeSearchAnswer {
    pub query: String,
    pub laws: SearchPart<super::SearchLawsAnswer>,
    pub decisions: SearchPart<SearchDecisionsAnswer>,
    pub frequently_cited_by_results: Vec<CitedByResults>,
    pub norms_cited_by_decision_results: Vec<NormCitedByResults>,
    pub cited_basis: String,
    pub note: &'static str,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SimilarCase {
    #[serde(flatten)]
    pub decision: DecisionSummary,
    pub score: f32,
}

/// `get_similar_cases`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GetSimilarCasesAnswer {
    pub decision: DecisionSummary,
    pub method: &'static str,
    pub terms_used: Vec<String>,
    pub results: Vec<SimilarCase>,
}

#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HoldingStatus {
    Ingested,
    NoneHeld,
}

/// What decisions a generation holds (`get_platform_info`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DecisionHoldings {
    pub status: HoldingStatus,
    pub sources: Vec<&'static str>,
    pub decisions: i64,
    pub decisions_without_text: i64,
    pub courts_with_decisions: i64,
    pub date_range: DateSpan,
    /// null when the generation records no snapshot of the decision sources.
    pub snapshot: Option<SourceSnapshotReport>,
}
