//! Case citations as `resolve` binds them (`work/resolve/citations.parts`, then
//! each decision's citations in its generation, `index::citation_rows`): what kind of citation,
//! what it was bound to, why an edge was withheld, and where it stands in the decision.

crate::closed_set! {
    /// What kind of case citation the scanner read.
    pub enum CaseKind {
        /// An Aktenzeichen, possibly with court, decision kind and date.
        FileNumber => "file_number",
        /// `BVerfGE 90, 22`, `NJW 2019, 1234`, `Buchholz 310 § 132 VwGO Nr. 129`.
        Reporter => "reporter",
        Ecli => "ecli",
        /// `C-459/99`, `T-1/20`.
        EuCase => "eu_case",
        /// An application number of the ECtHR (`41723/06`), only where introduced as such.
        EcthrApplication => "ecthr_application",
    }
}

crate::closed_set! {
    /// The binding of a case citation to a held decision.
    pub enum CaseCitationStatus {
        /// Exactly one held decision, contradicted by nothing the citation prints.
        Resolved => "resolved",
        /// Several held decisions fit (candidates kept).
        UnresolvedAmbiguous => "unresolved_ambiguous",
        /// No held decision fits (or the only one is withheld).
        UnresolvedNoMatch => "unresolved_no_match",
        /// Nothing held, and the cited court / date lies outside what the coverage map covers.
        UnresolvedOutOfCoverage => "unresolved_out_of_coverage",
        /// Kinds not bound yet: reporter citations, EU and ECtHR numbers without a match.
        UnresolvedPending => "unresolved_pending",
    }
}

crate::closed_set! {
    /// Why a citation that found its decision is kept as a citation but never as a graph edge.
    pub enum WithheldReason {
        /// The only candidate is the citing decision itself.
        SelfReference => "self_reference",
        /// The only candidate was decided after the citing decision.
        ForwardDate => "forward_date",
        /// Every candidate contradicts the court the citation prints.
        CourtContradicts => "court_contradicts",
        /// Every candidate contradicts the date the citation prints.
        DateContradicts => "date_contradicts",
    }
}

crate::closed_set! {
    /// Where a case citation stands in the citing decision.
    pub enum CitationRole {
        /// In the Vorinstanz chain (the Rubrum, or after `vorgehend`, `Vorinstanz`, `angefochtene` …).
        Procedural => "procedural",
        /// Anywhere else.
        Cited => "cited",
    }
}
