//! Why an extracted law dropped a `<norm>`: a closed set, so the per-law norm account
//! (norms = section rows + law header + pure headings + dropped) names every loss by one spelling.

crate::closed_set! {
    /// The reason a `<norm>` of a gii law XML became no section row (it is counted, never silent).
    pub enum NormDropReason {
        /// Its plain text (with footnotes) is over the per-section cap
        /// (`extract::law::MAX_SECTION_TEXT_BYTES`); it is dropped whole, never cut.
        SectionTooLarge => "section_too_large",
        /// Not the law's header and carries nothing: no designation, no heading unit, no text,
        /// no footnotes.
        NoContent => "no_content",
    }
}
