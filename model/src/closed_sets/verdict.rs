//! The verdicts of the hallucination guard (`check_citations`, `validate_citation`): a closed
//! set; only `discrepancy` asserts that something is wrong.

crate::closed_set! {
    /// One citation's verdict.
    pub enum Verdict {
        /// Matches a decision or a statute § (and the cited Absatz) we hold.
        VerifiedCorpus => "verified_corpus",
        /// Not in what we hold, inside a window where that is measurable.
        NotFound => "not_found",
        /// Outside the coverage map's windows: existence is not confirmed either way.
        OutOfCoverage => "out_of_coverage",
        /// Several held decisions match (candidates in the evidence).
        Ambiguous => "ambiguous",
        /// A tooling limit, not a statement about the citation.
        Unverifiable => "unverifiable",
        /// Found, and the citation contradicts it (court, date, kind, Absatz, §).
        Discrepancy => "discrepancy",
    }
}
