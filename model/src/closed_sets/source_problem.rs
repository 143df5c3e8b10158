//! Why a source document (a toc item, a fetched body, a decompressed entry) was not taken as
//! it came: a closed set, so `fetches.reason`, `documents.last_reason` and `problems.reason`
//! start with one spelling per cause (`<spelling>: <detail>`), whatever stage wrote them.

crate::closed_set! {
    /// One hostile or broken source record that the run recorded and went past.
    pub enum SourceProblem {
        /// The toc lists the same document key again; the first item is kept, the repeat is
        /// recorded (a duplicated toc `<item>`).
        DuplicateTocItem => "duplicate_toc_item",
        /// A toc text uses an entity that is neither XML's, declared in the toc, nor an HTML
        /// entity; the text keeps the reference as written (`&name;`).
        TocUnknownEntity => "toc_unknown_entity",
        /// The toc as a whole is not well-formed XML; the last stored toc stays in force.
        TocUnreadable => "toc_unreadable",
        /// The body is over the per-document download cap (`--max-document-bytes`); nothing is stored.
        BodyTooLarge => "body_too_large",
        /// A redirect points to another host (or scheme) than the source's; not followed.
        RedirectOffHost => "redirect_off_host",
        /// Redirects come back to a URL already visited, or go on beyond the redirect limit.
        RedirectLoop => "redirect_loop",
        /// The site asks (`Retry-After`) for a wait longer than the configured budget.
        RetryAfterOverBudget => "retry_after_over_budget",
        /// No byte arrived within the idle timeout (`--idle-timeout-secs`).
        Stalled => "stalled",
        /// The document's total deadline (`--document-deadline-secs`, all attempts) passed.
        DeadlineExceeded => "deadline_exceeded",
        /// A zip entry or dump record decompresses to more than the per-document cap
        /// (`--max-decompressed-bytes`), by its declared size or by what it actually yields.
        DecompressedTooLarge => "decompressed_too_large",
        /// A zip entry yields a different number of bytes than its header declares.
        ZipSizeMismatch => "zip_size_mismatch",
    }
}

impl SourceProblem {
    /// The reason text written to the catalog: the spelling first, then what happened.
    pub fn reason(self, detail: impl std::fmt::Display) -> String {
        format!("{}: {detail}", self.as_str())
    }

    /// The problem a reason text starts with, if it was written by [`SourceProblem::reason`].
    pub fn of_reason(reason: &str) -> Option<SourceProblem> {
        SourceProblem::parse(reason.split(':').next()?.trim())
    }
}
