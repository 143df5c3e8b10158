//! What became of a law citation of a decision when `index` bound it to the law rows
//! (`index::citation_rows`, a decision's citations in its generation; `get_case_references`,
//! `get_cases_for_law`, the checker).

crate::closed_set! {
    /// The binding of one cited § / Artikel (and Absatz) to the current text of the law it names.
    pub enum LawCitationStatus {
        /// The law is held and the cited § (and Absatz, where numbered) is in its current text.
        Bound => "bound",
        /// The law is held; the cited § is not in its current text.
        SectionAbsentInCurrentText => "section_absent_in_current_text",
        /// The § is held with numbered Absätze, none of them the cited one.
        AbsatzAbsentInCurrentText => "absatz_absent_in_current_text",
        /// The named book matches no law we hold (Land law, EU law, an unknown abbreviation).
        StatuteUnknown => "statute_unknown",
        /// The citation names no book (`§ 3 Abs. 1` with the law named elsewhere).
        BookNotNamed => "book_not_named",
        /// The book code names several laws at its best tier.
        BookAmbiguous => "book_ambiguous",
        /// The citing decision is dated before the law's Ausfertigung: it cannot cite this law
        /// (it cites a predecessor or another law of that name); not bound, never counted (H6).
        PredatesLaw => "predates_law",
        /// The book is Land law (`IFG Bln`, `VwVfG-SH`, `BayBO`, `ASOG`; `extract/reference/land-law.tsv`):
        /// we hold federal law only, so it is never bound to the federal law of that abbreviation
        /// and never counted (H3).
        StateLaw => "state_law",
    }
}

impl LawCitationStatus {
    /// Whether a citation with this status counts as citing the law it names (`cited_norm`,
    /// `decision_norms`, `get_cases_for_law`): not when it cannot be a citation of that law.
    pub const fn counts_as_citing(self) -> bool {
        !matches!(self, LawCitationStatus::PredatesLaw | LawCitationStatus::StateLaw)
    }
}
