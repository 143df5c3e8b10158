//! The `laws/` tantivy index of a generation: one document per law section.

use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};

use crate::analysis::{GERMAN, GERMAN_COMPOUND};

pub const LAWS_DIR: &str = "laws";

/// Field handles of the laws index.
#[derive(Clone, Copy, Debug)]
pub struct LawFields {
    pub section_id: Field,
    pub law_id: Field,
    /// Normalised book codes of the law (exact-match filter).
    pub book: Field,
    pub label: Field,
    pub heading: Field,
    pub text: Field,
    pub breadcrumb: Field,
    pub law_title: Field,
    /// The parts of the section's compounds (`körper`, `verletzung` for `Körperverletzung`).
    pub parts: Field,
}

/// A text field with the German analyzer and positions (phrase queries), stored or not.
pub fn german(stored: bool) -> TextOptions {
    let o = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default().set_tokenizer(GERMAN).set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    if stored { o.set_stored() } else { o }
}

pub fn schema() -> Schema {
    let mut b = Schema::builder();
    b.add_u64_field("section_id", INDEXED | STORED | FAST);
    b.add_u64_field("law_id", INDEXED | STORED | FAST);
    b.add_text_field("book", STRING);
    b.add_text_field("label", german(false));
    b.add_text_field("heading", german(false));
    // Stored for snippets.
    b.add_text_field("text", german(true));
    b.add_text_field("breadcrumb", german(false));
    b.add_text_field("law_title", german(false));
    // The parts of the heading's and the text's compounds (index-time split, frequencies only).
    b.add_text_field(
        "parts",
        TextOptions::default().set_indexing_options(
            TextFieldIndexing::default().set_tokenizer(GERMAN_COMPOUND).set_index_option(IndexRecordOption::WithFreqs),
        ),
    );
    b.build()
}

impl LawFields {
    pub fn from_schema(s: &Schema) -> tantivy::Result<LawFields> {
        Ok(LawFields {
            section_id: s.get_field("section_id")?,
            law_id: s.get_field("law_id")?,
            book: s.get_field("book")?,
            label: s.get_field("label")?,
            heading: s.get_field("heading")?,
            text: s.get_field("text")?,
            breadcrumb: s.get_field("breadcrumb")?,
            law_title: s.get_field("law_title")?,
            parts: s.get_field("parts")?,
        })
    }
}
