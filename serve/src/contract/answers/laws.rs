//! Answers of the statute tools: `search_laws`, `get_law_section`, `get_law`, `list_law_books`,
//! `get_platform_info`.

use std::collections::BTreeMap;

use model::{ExpansionReason, ExpansionStatus, LawPart, MatchMode, NormDropReason, SearchMode};
use schemars::JsonSchema;
use serde::Serialize;

use super::{DecisionHoldings, LawSummary};

/// A window of a text by code points: `offset`/`length` of `total_length`; follow
/// `next_offset` (null at the end) for the rest.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TextWindow {
    pub text: String,
    pub offset: usize,
    /// Code points in `text`.
    pub length: usize,
    pub total_length: usize,
    pub has_more: bool,
    pub next_offset: Option<usize>,
}

/// A text shortened for a row, with the spans (code-point `[start, end)`) that hold query words.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HighlightedSnippet {
    pub text: String,
    pub highlights: Vec<[usize; 2]>,
}

/// The `query_expansion` block: whether legal-register terms were added to the caller's words.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct QueryExpansionReport {
    pub status: ExpansionStatus,
    /// true exactly when `status` is `applied`.
    pub applied: bool,
    /// Why nothing was added; null when terms were added.
    pub reason: Option<ExpansionReason>,
    pub original_query: String,
    pub added_terms: Vec<AddedTerms>,
    /// Dictionary phrases of several words not added (decision searches): the passages hold the
    /// lay word they are for often enough to match alone (400 documents or more), and such a
    /// phrase would widen it with passages that merely hold its words apart. The entry's
    /// one-word terms, if any, are in `added_terms`. Statute searches hold none back.
    pub phrases_held_back: Vec<HeldBackPhrases>,
    pub dictionary_version: String,
    pub note: &'static str,
}

/// One dictionary entry that fired.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AddedTerms {
    /// The lay words of the entry, as the query held them.
    #[serde(rename = "for")]
    pub lay_words: String,
    pub legal_terms: Vec<String>,
    /// The index terms searched for them.
    pub index_terms: Vec<String>,
    /// The § the entry's legal term comes from.
    pub source: String,
}

/// A dictionary entry's phrases of several words, held back for a word the index holds often.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HeldBackPhrases {
    /// The lay words of the entry, as the query held them.
    #[serde(rename = "for")]
    pub lay_words: String,
    /// The phrases held back, as the dictionary writes them.
    pub legal_terms: Vec<String>,
    /// The § the entry's legal terms come from.
    pub source: String,
    /// How many documents of the searched index hold the lay word.
    pub word_documents: u64,
}

/// `query_analysis`: what was done to the caller's words before searching.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct QueryAnalysis {
    /// The words searched, in the caller's order.
    pub words: Vec<String>,
    pub dropped_function_words: Vec<String>,
    pub compounds_split: Vec<CompoundSplit>,
    pub typo_corrections: Vec<TypoCorrection>,
    /// A verb's own noun, searched beside the verb (`erhöhen` → `Erhöhung`).
    pub word_forms: Vec<WordForm>,
    /// An infinitive's third person, searched beside it: statutes state rules that way
    /// (`besitzen` → `besitzt`).
    pub verb_forms: Vec<VerbForm>,
    /// Two neighbouring words the statutes write as one compound, searched beside them (`Geld
    /// waschen` → `geldwasch`, the index term of Geldwäsche).
    pub compounds_joined: Vec<JoinedCompound>,
    /// Words no statute holds: they restrict nothing.
    pub unknown_words: Vec<String>,
    /// Words common in everyday German (`einfach`, `sofort`, `Gruppe`), which tell less about
    /// the law asked for: each counts `weight` (below 1) of a word in the ranking. Such a word
    /// is never corrected as a typo.
    pub everyday_words: Vec<EverydayWord>,
}

/// A word that counts less in the ranking because it is common in everyday German.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EverydayWord {
    pub word: String,
    /// Rounded to two decimals.
    pub weight: f64,
}

/// Two words searched also as the compound the statutes write (`term`, an index term).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct JoinedCompound {
    pub words: [String; 2],
    pub term: String,
}

/// A word searched also as a noun: statutes name an act (`Erhöhung`, `Pfändung`) where
/// people use the verb (`erhöhen`, `gepfändet`), and the base noun where people write a plural
/// or feminine form the stemmer keeps apart (`Nachbarn`, `Nachbarin` → `Nachbar`; `Fotos` →
/// `Foto`), and the word an everyday word stands for (`Tochter` → `Kind`, `Chef` →
/// `Arbeitgeber`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct WordForm {
    pub word: String,
    pub noun: String,
}

/// A verb searched also in the third person a statute uses (`quälen` → `quält`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct VerbForm {
    pub word: String,
    pub form: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CompoundSplit {
    pub word: String,
    pub parts: Vec<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TypoCorrection {
    pub typed: String,
    pub searched: String,
}

/// What to try when nothing matched (each named; nothing is retried silently).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SearchSuggestion {
    pub kind: SuggestionKind,
    /// The words the suggestion is about (for `unknown_words`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub words: Option<Vec<String>>,
    pub hint: &'static str,
}

#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SuggestionKind {
    UnknownWords,
    LegalRegister,
    DropBookFilter,
}

/// Why a statute row matched.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LawMatch {
    /// The query was a § citation of this section.
    ExactCitation,
    Words {
        /// The row holds every word of the query (else some).
        every_word: bool,
        words: Vec<MatchedWord>,
        /// Added dictionary terms the row holds.
        added_terms: Vec<String>,
        /// Held decisions citing the § and its law (the ranking prior's input); null when the
        /// generation holds no decision citations.
        cited_by_decisions: Option<CitedByDecisions>,
        /// `cross_type_search`: how many of its decision results cite this §, which lifted it
        /// in the ranking; absent when none does.
        #[serde(skip_serializing_if = "Option::is_none")]
        cited_by_decision_results: Option<i64>,
        /// The legal-register entries (their lay words, as the dictionary writes them) that
        /// name this § as the answer to words of the query, which lifted it in the ranking;
        /// absent when none does.
        #[serde(skip_serializing_if = "Option::is_none")]
        dictionary_answer_to: Option<Vec<String>>,
        /// The query's words (two or more) that the lay words of the legal-register entries
        /// naming this § as their answer hold, of one entry or several, which lifted it in the
        /// ranking; absent when they do not.
        #[serde(skip_serializing_if = "Option::is_none")]
        dictionary_vote: Option<DictionaryVote>,
    },
}

/// The query's words that vote for a § through the dictionary's lay words, and what they lift
/// its score by.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DictionaryVote {
    pub words: Vec<String>,
    /// The factor the score is multiplied by (1 + 6 for the § of most votes, less for others).
    pub lift: f64,
}

/// One query word a row holds, and how.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MatchedWord {
    pub word: String,
    pub via: MatchedVia,
    pub terms: Vec<String>,
    pub in_heading: bool,
}

#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchedVia {
    Word,
    CompoundParts,
    LegalRegister,
    TypoCorrection,
    WordForm,
    VerbForm,
    JoinedCompound,
}

#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
pub struct CitedByDecisions {
    pub section: i64,
    pub law: i64,
}

/// One section found by `search_laws` (or the laws half of `cross_type_search`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LawSearchRow {
    pub law: LawSummary,
    /// The key `get_law_section` takes.
    pub section: String,
    pub label: Option<String>,
    pub heading: Option<String>,
    pub breadcrumb: Vec<String>,
    pub kind: String,
    pub matched_by: LawMatch,
    /// The ranking score; null for the exact citation row.
    pub score: Option<f32>,
    pub snippet: HighlightedSnippet,
    pub html_url: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BookFilter {
    pub book: String,
}

/// `search_laws`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SearchLawsAnswer {
    /// Sent when `book` restricted the search.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filters_applied: Option<BookFilter>,
    pub query: String,
    pub mode: SearchMode,
    pub match_mode: MatchMode,
    pub total_matching_sections: usize,
    pub total_basis: &'static str,
    pub limit: usize,
    pub has_more: bool,
    pub query_expansion: QueryExpansionReport,
    pub query_analysis: QueryAnalysis,
    /// Sent when `results` is empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestions: Option<Vec<SearchSuggestion>>,
    pub results: Vec<LawSearchRow>,
    pub scope: &'static str,
}

/// An Absatz's span in its section's text.
#[derive(Debug, Clone, Serialize, serde::Deserialize, JsonSchema)]
pub struct AbsatzSpan {
    pub number: String,
    pub start: usize,
    pub end: usize,
}

/// A section of a law, without its text.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SectionMeta {
    /// The key `get_law_section` takes.
    pub section: String,
    pub label: Option<String>,
    pub kind: String,
    pub heading: Option<String>,
    pub breadcrumb: Vec<String>,
    pub doknr: String,
    /// The numbered Absätze: code-point offsets into the section's text.
    pub absaetze: Vec<AbsatzSpan>,
    pub footnotes: Option<String>,
    pub html_url: Option<String>,
}

/// A part of a section the section argument named, located in its text: an Absatz (`(2) …`)
/// or a Nummer (the line `2. …` of its Absatz, or of the section, up to the next Nummer).
/// Offsets are code points into the section's text (start inclusive, end exclusive).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SubdivisionPart {
    pub number: String,
    pub start: usize,
    pub end: usize,
    pub text: String,
    /// What the designation names below this part that is not located (Satz, lit., Alt.,
    /// Halbsatz; a Nummer is located, in `nummer`); null when it names nothing else.
    pub finer_part_not_located: Option<String>,
}

/// `get_law_section`: the whole text (`content`, `total_length`) or, with offset/length, a
/// `snippet`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GetLawSectionAnswer {
    pub law: LawSummary,
    pub section: SectionMeta,
    /// Sent when the section argument named an Absatz.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub absatz: Option<SubdivisionPart>,
    /// Sent when the section argument named a Nummer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nummer: Option<SubdivisionPart>,
    pub source_url: String,
    /// The whole text; sent when neither offset nor length was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Sent with `content`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_length: Option<usize>,
    /// Sent when offset or length was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet: Option<TextWindow>,
}

/// What became of every `<norm>` of a law's XML: `norms = section_rows + law_header + headings
/// + dropped_total`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct NormAccountReport {
    pub norms: i64,
    pub section_rows: i64,
    pub law_header: i64,
    pub headings: i64,
    /// Every reason, zero included.
    pub dropped: BTreeMap<NormDropReason, i64>,
    pub dropped_total: i64,
    pub text_bearing_norms: i64,
    /// Laws whose XML holds text but that have no section row (summed accounts only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub laws_with_text_but_no_rows: Option<i64>,
    pub note: &'static str,
}

/// A law's metadata.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LawMeta {
    #[serde(flatten)]
    pub law: LawSummary,
    pub short_title: Option<String>,
    pub doknr: String,
    pub builddate: Option<String>,
    pub ausfertigung_datum: Option<String>,
    pub fundstelle: Option<String>,
    pub stand: Vec<String>,
    pub notes: Option<String>,
    pub section_count: i64,
    pub text_length: i64,
    pub norm_account: NormAccountReport,
    pub source_url: String,
    pub xml_url: String,
}

/// One entry of a law's table of contents.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TocEntry {
    /// The key `get_law_section` takes.
    pub section: String,
    pub label: Option<String>,
    pub heading: Option<String>,
    pub kind: String,
    /// The innermost heading group the section stands under.
    pub group: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TocPage {
    pub entries: Vec<TocEntry>,
    pub offset: i64,
    pub total: i64,
    pub has_more: bool,
    pub next_offset: Option<i64>,
    pub note: &'static str,
}

/// `get_law`: the parts `included` names.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct GetLawAnswer {
    pub law: LawSummary,
    pub included: Vec<LawPart>,
    /// Sent when `meta` is included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta: Option<LawMeta>,
    /// Sent when `toc` is included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub toc: Option<TocPage>,
    /// Sent when `text` is included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<TextWindow>,
}

/// A law in `list_law_books`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LawBookRow {
    #[serde(flatten)]
    pub law: LawSummary,
    pub section_count: i64,
    pub builddate: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LawBookFilters {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search: Option<String>,
}

/// `list_law_books`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ListLawBooksAnswer {
    /// Sent when prefix or search was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filters_applied: Option<LawBookFilters>,
    pub total_matching_laws: i64,
    pub offset: i64,
    pub limit: i64,
    pub has_more: bool,
    pub next_offset: Option<i64>,
    pub laws: Vec<LawBookRow>,
}

/// A source's snapshot at extraction time.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SourceSnapshotReport {
    /// Entries of the source's table of contents.
    pub toc_items: u64,
    /// Records of this source in the generation.
    pub records: u64,
    /// Toc entries with no record (fetch or parse failed; reasons in the catalog).
    pub missing: u64,
}

impl From<&index::generation::SourceSnapshot> for SourceSnapshotReport {
    fn from(s: &index::generation::SourceSnapshot) -> Self {
        SourceSnapshotReport { toc_items: s.toc_items, records: s.records, missing: s.missing }
    }
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DateSpan {
    pub earliest: Option<String>,
    pub latest: Option<String>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StatuteHoldings {
    pub source: &'static str,
    pub laws: i64,
    pub sections: i64,
    pub sections_with_text: i64,
    pub norm_account: NormAccountReport,
    pub builddate_range: DateSpan,
    /// null when the generation records no snapshot of the statute source.
    pub toc_snapshot: Option<SourceSnapshotReport>,
    pub scope_note: &'static str,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BuildReport {
    pub generation_id: String,
    pub built_at: String,
    pub git_commit: Option<String>,
    pub schema_version: u32,
    pub counts: BTreeMap<String, u64>,
}

/// `get_platform_info`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PlatformInfoAnswer {
    pub name: &'static str,
    pub statutes: StatuteHoldings,
    pub decisions: DecisionHoldings,
    pub build: BuildReport,
}
