//! The `decisions/` tantivy index of a generation: one document per passage (consecutive
//! Randnummer blocks of one section, about [`PASSAGE_CHARS`] code points), with the
//! decision's facets on every passage so filters and counts need no store look-up.

use tantivy::schema::{FAST, Field, INDEXED, STORED, STRING, Schema};

use crate::laws_index::german;

pub const DECISIONS_DIR: &str = "decisions";
/// Passages grow block by block until they reach this many code points.
pub const PASSAGE_CHARS: usize = 1200;

#[derive(Clone, Copy, Debug)]
pub struct DecisionFields {
    pub decision_id: Field,
    /// Position of the passage in its decision (0 = first).
    pub ordinal: Field,
    /// Code point where the passage starts in the decision's text.
    pub start: Field,
    /// First and last Randnummer of the passage (0 when the decision has none).
    pub rn_from: Field,
    pub rn_to: Field,
    pub section: Field,
    pub text: Field,
    /// Court names, title, file numbers: indexed on the first passage only.
    pub heading: Field,
    /// Folded court keys: canonical name, type, citation name, ECLI code.
    pub court: Field,
    pub branch: Field,
    pub document_type: Field,
    /// `YYYYMMDD` as a number; absent when the decision has no date.
    pub date: Field,
    /// `store::file_number_norm` of every file number.
    pub file_number: Field,
    /// The decision's Normenkette tokens (`§ 823 Abs. 1 BGB` and `§ 823 BGB`).
    pub cited_norm: Field,
    /// Ext ids of the decisions it cites (resolved edges).
    pub cited_case: Field,
}

pub fn schema() -> Schema {
    let mut b = Schema::builder();
    b.add_u64_field("decision_id", INDEXED | STORED | FAST);
    b.add_u64_field("ordinal", STORED);
    b.add_u64_field("start", STORED);
    b.add_u64_field("rn_from", STORED);
    b.add_u64_field("rn_to", STORED);
    b.add_text_field("section", STRING | STORED);
    // Stored for snippets: reading a passage here is cheaper than decoding the whole body
    // from `texts/`, and the segments are shared between generations like the packs.
    b.add_text_field("text", german(true));
    b.add_text_field("heading", german(false));
    b.add_text_field("court", STRING);
    b.add_text_field("branch", STRING);
    b.add_text_field("document_type", STRING);
    b.add_i64_field("date", INDEXED | FAST);
    b.add_text_field("file_number", STRING);
    b.add_text_field("cited_norm", STRING);
    b.add_text_field("cited_case", STRING);
    b.build()
}

impl DecisionFields {
    pub fn from_schema(s: &Schema) -> tantivy::Result<DecisionFields> {
        Ok(DecisionFields {
            decision_id: s.get_field("decision_id")?,
            ordinal: s.get_field("ordinal")?,
            start: s.get_field("start")?,
            rn_from: s.get_field("rn_from")?,
            rn_to: s.get_field("rn_to")?,
            section: s.get_field("section")?,
            text: s.get_field("text")?,
            heading: s.get_field("heading")?,
            court: s.get_field("court")?,
            branch: s.get_field("branch")?,
            document_type: s.get_field("document_type")?,
            date: s.get_field("date")?,
            file_number: s.get_field("file_number")?,
            cited_norm: s.get_field("cited_norm")?,
            cited_case: s.get_field("cited_case")?,
        })
    }
}

/// A passage: `[start, end)` in code points, with the Randnummern it spans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passage {
    pub start: usize,
    pub end: usize,
    pub rn_from: u32,
    pub rn_to: u32,
    pub section: Option<String>,
}

/// Groups Randnummer blocks into passages of whole blocks that never cross a section
/// boundary. Text outside every block (headings) is left to the `heading` field.
pub fn passages(
    text_chars: usize,
    blocks: &[extract::decisions::RnBlock],
    sections: &[extract::decisions::Section],
) -> Vec<Passage> {
    let section_at = |pos: usize| sections.iter().find(|s| s.start <= pos && pos < s.end).map(|s| s.name.clone());
    let mut out: Vec<Passage> = Vec::new();
    if blocks.is_empty() {
        // No blocks: fixed windows, so every word is still searchable.
        let mut start = 0;
        while start < text_chars {
            let end = (start + PASSAGE_CHARS).min(text_chars);
            out.push(Passage { start, end, rn_from: 0, rn_to: 0, section: section_at(start) });
            start = end;
        }
        return out;
    }
    for b in blocks {
        let section = section_at(b.start);
        match out.last_mut() {
            Some(p) if p.section == section && p.end - p.start < PASSAGE_CHARS && b.start >= p.end => {
                p.end = b.end;
                p.rn_to = b.rn;
            }
            _ => out.push(Passage { start: b.start, end: b.end, rn_from: b.rn, rn_to: b.rn, section }),
        }
    }
    out
}
