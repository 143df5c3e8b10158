//! Answers of the text tools: `check_citations`, `validate_citation` (the checker's findings)
//! and `assemble_datapackage`.

use std::collections::BTreeMap;

use model::{CaseCitationStatus, CitationRole, Verdict};
use schemars::JsonSchema;
use serde::Serialize;

use super::{Counts, DecisionSummary, LawSummary, MeasuredWindow, TextWindow};

/// Whether a finding is a law or a case citation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    Law,
    Case,
}

/// Whether a part of a citation was compared with what is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ScopeCheck {
    Checked,
    Unchecked,
    /// The citation names no such part.
    NotApplicable,
}

/// What a finding's verdict rests on: what was compared and what was not.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CheckScope {
    /// The Absatz question.
    pub subdivision: ScopeCheck,
    /// Whether a text is held for the cited §; null for case citations and when no law was found.
    pub article_text_available: Option<bool>,
    /// Whether this check read it.
    pub article_text_read: bool,
    /// The court the citation names (never compared for a statute).
    pub court: ScopeCheck,
    /// Case citations that matched a held decision: whether the printed decision kind was compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision_kind: Option<&'static str>,
    /// Case citations that matched a held decision: whether the printed date was compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<&'static str>,
}

/// The Absatz check of a statute finding.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SubdivisionCheck {
    /// Nothing below the § was checked (see `subdivision_advisory`).
    NotChecked,
    AbsatzVerified,
    /// The § has no numbered Absätze, so `Abs. 1` cannot be decided.
    AbsatzUnverified,
    AbsatzAbsent,
}

/// What a case citation prints.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PrintedCase {
    pub court: Option<String>,
    pub decision_kind: Option<String>,
    pub date: Option<String>,
    pub file_number: Option<String>,
    pub ecli: Option<String>,
}

/// A superseded law code and its successor.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SupersededCode {
    pub code: String,
    pub successor: String,
    pub effective_date: Option<String>,
    pub note: String,
}

/// What the printed citation says that the held decision contradicts.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Contradiction {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub printed_court: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub printed_date: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub printed_kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held_document_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference_date: Option<String>,
}

/// A bucket of the coverage map, as a finding names it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BucketRef {
    pub bucket: String,
    pub label: String,
    pub from: Option<String>,
    pub until: Option<String>,
    /// The bucket's sources, comma-separated.
    pub source: String,
}

/// The window of the coverage map a citation lies in, with its measurement.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CoverageWindow {
    #[serde(flatten)]
    pub bucket: BucketRef,
    pub court: Option<String>,
    pub claimed_exhaustive: bool,
    /// null = not measured here.
    pub measured: Option<MeasuredWindow>,
}

/// Why a case citation lies outside every window measured exhaustive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BoundaryReason {
    CourtNotPrinted,
    DateNotPrinted,
    NoWindowForCourt,
    SelectionOnly,
    OutsideWindow,
    WindowNotExhaustive,
}

/// Where a citation of a decision we do not hold lies relative to the coverage map.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CoverageBoundary {
    pub reason: BoundaryReason,
    pub printed_court: Option<String>,
    pub printed_date: Option<String>,
    /// The deciding bucket, where there is one.
    #[serde(flatten)]
    pub bucket: Option<BucketRef>,
    /// `window_not_exhaustive`: the window's court.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub court: Option<String>,
    /// `window_not_exhaustive`: the map's claim.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claimed_exhaustive: Option<bool>,
    /// `window_not_exhaustive`: the measurement (null = not measured here).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured: Option<Option<MeasuredWindow>>,
    /// `selection_only`, `no_window_for_court`: decisions of the court held.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decisions_held_of_court: Option<i64>,
    /// `selection_only`: whether the dumps' bucket claims completeness.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exhaustive: Option<bool>,
}

/// The evidence of a finding, by its reason (the finding's `reason`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Evidence {
    LawNotNamed,
    StateLawOutOfScope {
        instrument: String,
        state: Option<String>,
    },
    StatuteSupersededInstrument {
        superseded_by: Vec<SupersededCode>,
    },
    OldVersionCited,
    EuOrInternationalLawOutOfScope {
        instrument: String,
    },
    StatuteUnknown {
        book: String,
    },
    BookAmbiguous {
        book: String,
        candidate_law_ids: Vec<i64>,
    },
    PredatesLaw {
        law: String,
        law_enacted: String,
        stated_date: String,
        /// What dates the citation (`text`, `reference_date` …).
        date_basis: &'static str,
        section_in_current_text: bool,
    },
    SectionAbsentInCurrentText {
        law: String,
        section: String,
        decisions_citing_it: i64,
    },
    AbsatzUnverified {
        note: &'static str,
    },
    AbsatzAbsentInCurrentText {
        absaetze_present: Vec<String>,
        absatz_cited_by_decisions: i64,
    },
    CostScheduleNumberUnchecked {
        instrument: String,
        schedule: &'static str,
        schedule_number: String,
    },
    ReporterCitationNotResolvable {
        reporter: Option<String>,
    },
    SeveralDecisionsMatch {
        candidates: Vec<DecisionSummary>,
    },
    WrongCourt {
        printed: Contradiction,
        held: Vec<DecisionSummary>,
    },
    WrongDate {
        printed: Contradiction,
        held: Vec<DecisionSummary>,
    },
    WrongDocumentType {
        printed: Contradiction,
        held: Vec<DecisionSummary>,
    },
    DecidedAfterReferenceDate {
        printed: Contradiction,
        held: Vec<DecisionSummary>,
    },
    NoDecisionMatch {
        file_number: Option<String>,
        ecli: Option<String>,
        window: CoverageWindow,
        /// Held decisions citing the same court and file number (absent when none does).
        #[serde(flatten)]
        attestation: Option<Attestation>,
    },
    OutsideCoverageMap {
        /// Held decisions citing the same court and file number (absent when none does).
        #[serde(flatten)]
        attestation: Option<Attestation>,
    },
}

/// Held decisions that cite a decision we do not hold, under the same court and file number
/// (and, where both print one, the same date): a pointer that the decision exists, never a
/// verdict. A decision many held ones cite is named by the first [`ATTESTED_LISTED`] and
/// counted in full, so the answer stays small however large the corpus.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Attestation {
    /// Ext ids of citing decisions, sorted; at most [`ATTESTED_LISTED`] (the first the
    /// store holds).
    pub attested_by: Vec<String>,
    /// How many held decisions cite it, listed or not.
    pub attested_by_total: usize,
    /// True when `attested_by` names fewer than `attested_by_total`.
    pub attested_by_truncated: bool,
}

/// How many citing decisions an [`Attestation`] names.
pub const ATTESTED_LISTED: usize = 20;

impl Attestation {
    /// The attestation of `total` citing decisions of which `listed` (ext ids) are named; None
    /// when there are none.
    pub fn new(mut listed: Vec<String>, total: usize) -> Option<Attestation> {
        listed.sort_unstable();
        listed.dedup();
        listed.truncate(ATTESTED_LISTED);
        (total > 0).then_some(Attestation {
            attested_by_truncated: listed.len() < total,
            attested_by: listed,
            attested_by_total: total,
        })
    }
}

#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CoverageStatus {
    OutOfScope,
    Superseded,
    Unknown,
}

/// What is held of the cited instrument.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CoverageNote {
    pub status: CoverageStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<&'static str>,
    pub instrument: String,
    /// State law: the Land, when the citation tells it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub successor: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded_on: Option<String>,
}

/// One citation found in the text, with its verdict and what the verdict rests on.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Finding {
    /// Code points into the exact input; `raw_text` is `input[start..end]`.
    pub start: usize,
    pub end: usize,
    pub raw_text: String,
    pub kind: FindingKind,
    pub verdict: Verdict,
    /// The evidence's reason; null for a verified citation.
    pub reason: Option<&'static str>,
    /// Key of the distinct citation (the matched decision, the law's §, else the canonical form).
    pub citation_key: String,
    pub canonical: String,
    pub check_scope: CheckScope,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
    /// Statute findings: the law the citation names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub law: Option<LawSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub law_id: Option<i64>,
    /// Case findings: what the citation prints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub printed: Option<PrintedCase>,
    /// Case findings: the held decision it matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched: Option<DecisionSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage: Option<CoverageNote>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage_boundary: Option<CoverageBoundary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subdivision_check: Option<SubdivisionCheck>,
    /// What below the Absatz was not checked; null when nothing below it was cited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subdivision_advisory: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advisory: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage_advisory: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section_absence_advisory: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ambiguity_advisory: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attestation_advisory: Option<&'static str>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CheckProgress {
    /// Occurrences (findings).
    pub citations_total: usize,
    pub unique_citations_total: usize,
}

#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum KeyBasis {
    /// Keyed on the held decision it resolved to (several spellings count once).
    MatchedDecision,
    Canonical,
}

#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReferenceType {
    Case,
    Statute,
}

/// One distinct citation of the text.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct UniqueCitation {
    pub key_basis: KeyBasis,
    /// The held decision's id, for a resolved case citation.
    pub target_artifact_id: Option<String>,
    pub canonical: String,
    pub spellings: Vec<String>,
    pub occurrences: usize,
    pub verdict: Verdict,
    pub reference_type: ReferenceType,
}

#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LookalikeReason {
    ContractClause,
    InsideReporter,
}

/// Text that looks like a citation and is not one (not checked, said so).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RefusedLookalike {
    pub start: usize,
    pub end: usize,
    pub raw_text: String,
    pub reason: LookalikeReason,
    pub advisory: &'static str,
}

/// `§` / `Art.` text the scanner could not read as a citation.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ExtractionLoss {
    pub start: usize,
    pub end: usize,
    pub raw_text: String,
    pub why: &'static str,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ExtractionReport {
    pub losses_total: usize,
    /// The first 200 losses.
    pub losses: Vec<ExtractionLoss>,
    pub losses_truncated: bool,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct VerdictMeanings {
    pub verified_corpus: &'static str,
    pub not_found: &'static str,
    pub out_of_coverage: &'static str,
    pub ambiguous: &'static str,
    pub unverifiable: &'static str,
    pub discrepancy: &'static str,
}

/// `check_citations`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CheckCitationsAnswer {
    pub text_chars: usize,
    pub reference_date: Option<String>,
    pub progress: CheckProgress,
    pub findings: Vec<Finding>,
    pub unique_citations: Vec<UniqueCitation>,
    /// Distinct citations per verdict.
    pub verdict_counts: Counts,
    /// Distinct citations per reason.
    pub reason_counts: Counts,
    pub refused_lookalikes: Vec<RefusedLookalike>,
    pub extraction: ExtractionReport,
    pub verdict_meanings: VerdictMeanings,
}

/// `validate_citation`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ValidateCitationAnswer {
    pub citation: String,
    /// true when the verdict is `verified_corpus`.
    pub found: bool,
    /// null when no citation was recognised.
    pub verdict: Option<Verdict>,
    /// Sent when no citation was recognised (`no_citation_recognised`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_type: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finding: Option<Finding>,
}

/// The held decision an edge points at.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EdgeTarget {
    pub id: String,
    pub aktenzeichen: Option<String>,
    pub court: Option<String>,
    pub date: Option<String>,
    pub document_type: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CandidateDecision {
    pub id: String,
    pub court: Option<String>,
    pub date: Option<String>,
}

/// One outgoing citation row of a package decision.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CitationEdgeRow {
    pub from_id: String,
    pub in_corpus: bool,
    pub resolution_status: CaseCitationStatus,
    pub reference_canonical: Option<String>,
    pub reference_canonicals: Vec<String>,
    pub reference_role: CitationRole,
    pub reference_roles: Vec<CitationRole>,
    pub occurrences: usize,
    pub withheld_reason: Option<String>,
    pub target_id: Option<String>,
    /// The held decision; null when unresolved.
    pub corpus: Option<EdgeTarget>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unresolved_note: Option<String>,
    /// `unresolved_ambiguous`: up to 5 held decisions it could mean.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ambiguous_candidates: Option<Vec<CandidateDecision>>,
}

#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TruncatedReason {
    BudgetShedding,
    MaxChars,
    Excerpt,
}

/// A decision in a package.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PackageDecision {
    #[serde(flatten)]
    pub decision: DecisionSummary,
    /// Always false: whether the decision is still good law is not checked.
    pub fortgeltung_checked: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecli_date_disagrees_with_source: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecli_advisory: Option<&'static str>,
    pub text_length: usize,
    pub truncated: bool,
    /// Excerpt mode: the excerpt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excerpt: Option<TextWindow>,
    /// The section the excerpt starts at (`document_start` when none was found).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excerpt_span: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leitsatz_source: Option<&'static str>,
    /// Full-text mode, the whole text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_text: Option<TextWindow>,
    /// Full-text mode, cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_text_excerpt: Option<TextWindow>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_text_returned_chars: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated_reason: Option<TruncatedReason>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ShedStep {
    TextShortened,
    EdgesCapped,
    DecisionsDropped,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PackageTruncation {
    pub reason: &'static str,
    pub shed_order: [ShedStep; 3],
    pub shed_order_source: &'static str,
    pub steps_applied: Vec<ShedStep>,
    pub excerpt_mode_applied: bool,
    pub excerpt_chars_applied: Option<usize>,
    pub edges_capped: Option<usize>,
    pub dropped_seed_ids: Vec<String>,
    pub fits_budget: bool,
    pub size_before: usize,
    pub size_after: usize,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EdgeCaps {
    pub per_source_resolved_target_cap: usize,
    pub per_source_unresolved_edge_row_cap: usize,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SourceEdgeAccounting {
    pub from_id: String,
    pub unit: &'static str,
    pub decision_included: bool,
    pub edges_total: usize,
    pub edges_included: usize,
    pub edges_resolved_total: usize,
    pub edges_resolved_included: usize,
    pub edges_unresolved_total: usize,
    pub edges_unresolved_included: usize,
    pub targets_resolved_total: usize,
    pub targets_resolved_included: usize,
    pub dropped_by_per_source_cap: usize,
    pub dropped_by_budget: usize,
    pub unresolved_by_status: BTreeMap<String, usize>,
    pub citation_occurrences: usize,
    pub withheld_not_served: BTreeMap<String, usize>,
}

/// Edge rows total, included and dropped, per source and overall.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EdgeAccounting {
    pub unit: &'static str,
    pub unit_note: &'static str,
    pub total: usize,
    pub included: usize,
    pub dropped: usize,
    pub dropped_by_per_source_cap: usize,
    pub dropped_by_budget: usize,
    pub dropped_note: &'static str,
    pub per_source: Vec<SourceEdgeAccounting>,
    pub rest: &'static str,
}

/// `assemble_datapackage`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DatapackageAnswer {
    pub requested: usize,
    pub deduped: usize,
    pub included: usize,
    pub include_citations: bool,
    pub full_text: bool,
    pub max_chars: usize,
    pub budget_basis: &'static str,
    pub budget_used: usize,
    pub text_rule: &'static str,
    /// true when any text was cut, any edge dropped or any shedding step ran.
    pub truncated: bool,
    pub payload_truncated: bool,
    /// null when nothing was shed.
    pub truncation: Option<PackageTruncation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncation_notice: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guidance: Option<&'static str>,
    pub decisions: Vec<PackageDecision>,
    /// Sent with include_citations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub citation_edges: Option<Vec<CitationEdgeRow>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caps: Option<EdgeCaps>,
    /// null without include_citations.
    pub edge_accounting: Option<EdgeAccounting>,
    pub fortgeltung_note: &'static str,
}

impl Evidence {
    /// The evidence's `reason` tag (the finding's `reason`).
    pub fn reason(&self) -> &'static str {
        match self {
            Evidence::LawNotNamed => "law_not_named",
            Evidence::StateLawOutOfScope { .. } => "state_law_out_of_scope",
            Evidence::StatuteSupersededInstrument { .. } => "statute_superseded_instrument",
            Evidence::OldVersionCited => "old_version_cited",
            Evidence::EuOrInternationalLawOutOfScope { .. } => "eu_or_international_law_out_of_scope",
            Evidence::StatuteUnknown { .. } => "statute_unknown",
            Evidence::BookAmbiguous { .. } => "book_ambiguous",
            Evidence::PredatesLaw { .. } => "predates_law",
            Evidence::SectionAbsentInCurrentText { .. } => "section_absent_in_current_text",
            Evidence::AbsatzUnverified { .. } => "absatz_unverified",
            Evidence::AbsatzAbsentInCurrentText { .. } => "absatz_absent_in_current_text",
            Evidence::CostScheduleNumberUnchecked { .. } => "cost_schedule_number_unchecked",
            Evidence::ReporterCitationNotResolvable { .. } => "reporter_citation_not_resolvable",
            Evidence::SeveralDecisionsMatch { .. } => "several_decisions_match",
            Evidence::WrongCourt { .. } => "wrong_court",
            Evidence::WrongDate { .. } => "wrong_date",
            Evidence::WrongDocumentType { .. } => "wrong_document_type",
            Evidence::DecidedAfterReferenceDate { .. } => "decided_after_reference_date",
            Evidence::NoDecisionMatch { .. } => "no_decision_match",
            Evidence::OutsideCoverageMap { .. } => "outside_coverage_map",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::LawCitationStatus;

    /// `reason()` is the serialised tag, and the statuses a finding shares with the pipeline's
    /// law binding are spelled as `LawCitationStatus` spells them.
    #[test]
    fn an_evidence_reason_is_its_serialised_tag() {
        let window = CoverageWindow {
            bucket: BucketRef { bucket: "b".into(), label: "l".into(), from: None, until: None, source: "s".into() },
            court: None,
            claimed_exhaustive: false,
            measured: None,
        };
        let all = [
            Evidence::LawNotNamed,
            Evidence::StateLawOutOfScope { instrument: "x".into(), state: None },
            Evidence::StatuteSupersededInstrument { superseded_by: vec![] },
            Evidence::OldVersionCited,
            Evidence::EuOrInternationalLawOutOfScope { instrument: "x".into() },
            Evidence::StatuteUnknown { book: "x".into() },
            Evidence::BookAmbiguous { book: "x".into(), candidate_law_ids: vec![] },
            Evidence::PredatesLaw {
                law: "x".into(),
                law_enacted: "x".into(),
                stated_date: "x".into(),
                date_basis: "text",
                section_in_current_text: true,
            },
            Evidence::SectionAbsentInCurrentText { law: "x".into(), section: "1".into(), decisions_citing_it: 0 },
            Evidence::AbsatzUnverified { note: "x" },
            Evidence::AbsatzAbsentInCurrentText { absaetze_present: vec![], absatz_cited_by_decisions: 0 },
            Evidence::CostScheduleNumberUnchecked {
                instrument: "RVG".into(),
                schedule: "VV",
                schedule_number: "1".into(),
            },
            Evidence::ReporterCitationNotResolvable { reporter: None },
            Evidence::SeveralDecisionsMatch { candidates: vec![] },
            Evidence::WrongCourt { printed: Contradiction::default(), held: vec![] },
            Evidence::WrongDate { printed: Contradiction::default(), held: vec![] },
            Evidence::WrongDocumentType { printed: Contradiction::default(), held: vec![] },
            Evidence::DecidedAfterReferenceDate { printed: Contradiction::default(), held: vec![] },
            Evidence::NoDecisionMatch { file_number: None, ecli: None, window, attestation: None },
            Evidence::OutsideCoverageMap { attestation: None },
        ];
        for e in &all {
            assert_eq!(serde_json::to_value(e).unwrap()["reason"], e.reason());
        }
        for status in [
            LawCitationStatus::StatuteUnknown,
            LawCitationStatus::BookAmbiguous,
            LawCitationStatus::PredatesLaw,
            LawCitationStatus::SectionAbsentInCurrentText,
            LawCitationStatus::AbsatzAbsentInCurrentText,
        ] {
            assert!(all.iter().any(|e| e.reason() == status.as_str()), "{}", status.as_str());
        }
    }

    #[test]
    fn an_attestation_names_at_most_twenty_and_counts_all() {
        assert_eq!(Attestation::new(Vec::new(), 0), None);
        let few = Attestation::new(vec!["b".into(), "a".into()], 2).unwrap();
        assert_eq!(
            (few.attested_by, few.attested_by_total, few.attested_by_truncated),
            (vec!["a".into(), "b".into()], 2, false)
        );
        let many = Attestation::new((0..ATTESTED_LISTED).rev().map(|i| format!("d{i:04}")).collect(), 1000).unwrap();
        assert_eq!(
            (many.attested_by.len(), many.attested_by_total, many.attested_by_truncated),
            (ATTESTED_LISTED, 1000, true)
        );
        assert_eq!(many.attested_by[0], "d0000", "sorted");
        let e = serde_json::to_value(Evidence::OutsideCoverageMap { attestation: Some(many) }).unwrap();
        assert_eq!(
            (e["attested_by_total"].as_u64(), e["attested_by_truncated"].as_bool()),
            (Some(1000), Some(true)),
            "{e}"
        );
        let none = serde_json::to_value(Evidence::OutsideCoverageMap { attestation: None }).unwrap();
        assert!(none.get("attested_by").is_none() && none.get("attested_by_total").is_none(), "{none}");
    }
}
