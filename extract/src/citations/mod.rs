//! Citation scanner: finds law citations (Normenketten) and case citations in German legal plain
//! text, with structured fields, canonical tokens and offsets in Unicode code points.
//!
//! # API
//!
//! - [`extract`]`(text, vocab) -> `[`Extraction`]: everything found in one text.
//!   - [`Extraction::laws`]: one [`LawCitation`] per cited section/article (`§§ 21, 15 Abs. 2 TzBfG`
//!     gives two), with `unit`, `section`, `absatz`, `satz`, `nr`, `lit`, `alt`, `halbsatz`,
//!     `following` (`f.`/`ff.`), `book` (canonical abbreviation, `AsylVfG` → `AsylG`), `version`
//!     (`a.F.`/`n.F.`), `canonical` (`§ 823 Abs. 1 BGB`) and `parents` (`§ 823 BGB`).
//!   - [`Extraction::chains`]: each Normenkette ([`Normenkette`]: a list and/or `i.V.m.` chain) as
//!     one unit, naming its members.
//!   - [`Extraction::law_names`]: laws named without a section (`des Grundgesetzes`, `EMRK`,
//!     `Richtlinie 2008/50/EG`).
//!   - [`Extraction::cases`]: [`CaseCitation`]s — Aktenzeichen, dated citations (court, decision
//!     kind, ISO date, file number as fields), reporter citations (`BVerfGE 90, 22`), ECLI, EU and
//!     ECtHR case numbers.
//!   - [`Extraction::refused`]: [`RefusedLookalike`]s — `§ 13 MV` (a contract clause) or the `§`
//!     inside `Buchholz 310 § 132 VwGO Nr. 129` — not taken for statutes, with the reason.
//! - [`norm_field_tokens`]: the canonical tokens of a rii `<norm>` field
//!   (`"§ 32 Abs 1 BVerfGG, Art 38 Abs 1 S 2 GG"`); [`decision_norm_tokens`] joins them with the
//!   laws the text cites (a decision's Normenkette from both sources).
//! - [`stated_dates`]: every calendar date a text states, with its offsets.
//! - [`LawVocabulary::shipped`]: the vocabulary embedded in the crate (law books of the statutes
//!   corpus + refex codes + aliases, reporters, Registerzeichen), loaded once.
//! - [`spans`]: the benchmark conventions (refex's and LER's) as span lists.
//!
//! Every `start`/`end` is a code-point offset into the text, end exclusive, and
//! `raw == text.chars().skip(start).take(end - start)`. The scanner is a single pass over tokens
//! ([`scan`]) with short forward/backward walks from triggers; it never panics and allocates only
//! the token vector (reused per thread) and its results. Types are `Send + Sync`; run documents
//! in parallel with rayon at the call site.
//!
//! # Data
//!
//! `extract/reference/law-vocabulary.tsv` (≈ 14,000 forms, 0.5 MB: every jurabk/amtabk, short
//! and long title of the 6,821 laws of `../shared/data/gii`, refex's law-book codes, the aliases of
//! `law-aliases.tsv`), `reporters.tsv` and `registerzeichen.tsv` are `include_str!`'d; regenerate
//! them with `python3 scripts/gen-law-vocabulary.py` (deterministic, diffs cleanly).
//! `extract/reference/land-law.tsv` (hand-kept, each row with its source) holds the Land marks,
//! prefixes, adjectives and Land-law names ([`LandTable`]) and the held federal codes that look
//! like Land law (`BRüG-Saar`).
//!
//! # Conventions worth knowing
//!
//! - A citation never runs across a paragraph break (an empty line or a line holding only a
//!   Randnummer); a single line break (PDF text) does not stop it.
//! - A book written after the last member applies to the members before it (`book_inherited`);
//!   a member that names no book at all keeps `book: None` and a canonical token without book.
//! - Unknown books are kept when they look like a law (`BbgHG`, `Berliner Straßengesetz`), with
//!   `book_known: false`; contract look-alikes (`MV`, `TV…`, `AGB`, `des Mietvertrags`) are
//!   refused. `Art. 100 BV` and `Artikel 190 des Vertrages` are articles of a constitution and a
//!   treaty, not refused.
//! - Land law is never federal law: a book with a Land mark however attached (`IFG Bln`,
//!   `VwVfG-SH`, `IFG M-V`, `Nds. SOG`, `BayBO`), a Land adjective (`Berliner Straßengesetz`) or
//!   a Land-law name (`ASOG`, `LVwG`, `HVwVfG`) gets `state_law` (instrument as written, Land)
//!   and the instrument as its `book`, so it is never bound to the federal `IFG` or `VwVfG`.
//! - Journal citations with an author before them are flagged `literature` (refex's gold types
//!   them `case`, LER's does not mark them).

mod case;
mod land;
mod law;
pub mod scan;
pub mod spans;
mod vocab;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

pub use land::{LandTable, StateLaw};
use scan::{CharIndex, Kind, Tok, tokenize};
pub use vocab::{FormKind, LawVocabulary};

/// Whether a citation names a `§`, an article or a whole act.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LawUnit {
    Paragraph,
    Article,
}

/// How a member of a Normenkette is joined to the one before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Connector {
    /// First member.
    None,
    /// `,` or `;` list.
    List,
    /// `und`, `oder`, `sowie`.
    And,
    /// `bis`, `-`: the range from the previous member to this one.
    Range,
    /// `i.V.m.`, `in Verbindung mit`.
    InVerbindungMit,
}

/// One cited section or article.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LawCitation {
    pub start: usize,
    pub end: usize,
    pub raw: String,
    /// End of `§ N` alone (where a list head is cut in refex's convention).
    pub head_end: usize,
    pub unit: LawUnit,
    /// `823`, `74a`, `1908i`.
    pub section: String,
    pub absatz: Option<String>,
    pub satz: Option<String>,
    pub nr: Option<String>,
    pub lit: Option<String>,
    pub alt: Option<String>,
    pub halbsatz: Option<String>,
    /// `f.` or `ff.`.
    pub following: Option<String>,
    /// The canonical abbreviation of the book (`BGB`, `SGB V`, `RL 2008/50/EG`); `None` if the
    /// text names none (the citation then refers to a law named elsewhere).
    pub book: Option<String>,
    /// The book as written (`des Sozialgerichtsgesetzes`).
    pub book_raw: Option<String>,
    /// The book is written on a later member of the list or chain, not on this one.
    pub book_inherited: bool,
    /// The book is in the vocabulary (false: an unknown abbreviation or a `…gesetz` word).
    pub book_known: bool,
    /// `a.F.`, `n.F.` (normalised).
    pub version: Option<String>,
    /// The book is Land law (`IFG Bln`, `VwVfG-SH`, `BayBO`, `ASOG`): its instrument as written
    /// (also `book`) and Land. Never bound to a federal law of the same abbreviation.
    #[serde(default)]
    pub state_law: Option<StateLaw>,
    pub connector: Connector,
    /// Index into [`Extraction::chains`].
    pub chain: usize,
    /// `§ 823 Abs. 1 BGB` (the book omitted when unknown).
    pub canonical: String,
    /// Coarser tokens, most specific first: `§ 823 BGB`.
    pub parents: Vec<String>,
}

/// A Normenkette: the members of one list or `i.V.m.` chain, kept as one unit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Normenkette {
    pub start: usize,
    pub end: usize,
    pub raw: String,
    /// Indices into [`Extraction::laws`].
    pub members: Vec<usize>,
    /// The members' canonical tokens joined with ` i.V.m. ` / `, `.
    pub canonical: String,
}

/// A law named without a section (`des Grundgesetzes`, `EMRK`, `Richtlinie 2008/50/EG`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LawName {
    pub start: usize,
    pub end: usize,
    pub raw: String,
    pub book: String,
    pub known: bool,
}

/// What kind of case citation: a closed set shared with resolve, index and serve.
pub use model::CaseKind;

/// One case citation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseCitation {
    pub start: usize,
    pub end: usize,
    pub raw: String,
    pub kind: CaseKind,
    pub court: Option<String>,
    /// `[start, end)` of the court name, if written.
    pub court_span: Option<(usize, usize)>,
    /// `Urteil`, `Beschluss`, … as written.
    pub decision_kind: Option<String>,
    /// ISO `YYYY-MM-DD`.
    pub date: Option<String>,
    pub file_number: Option<String>,
    pub file_number_span: Option<(usize, usize)>,
    /// The Registerzeichen of the file number (`ZR`, `BvR`, `KR`).
    pub register: Option<String>,
    pub reporter: Option<String>,
    pub volume: Option<String>,
    pub page: Option<String>,
    pub pinpoint: Option<String>,
    pub ecli: Option<String>,
    /// A journal citation with an author before it (`Kleiber, ZfBR 1996, 131`): an article,
    /// not a decision (refex's gold still types these `case`).
    pub literature: bool,
    /// `BGH VIII ZR 231/07`, `BVerfGE 90, 22`, `ECLI:DE:BGH:2009:…`.
    pub canonical: String,
}

/// Why something that looks like a statute citation was not taken for one.
impl CaseCitation {
    /// A citation of `kind` over `[start, end)` with nothing read yet but its canonical form;
    /// the scanner and callers that look up a bare file number or ECLI fill in the rest.
    pub fn empty(start: usize, end: usize, kind: CaseKind, canonical: String) -> CaseCitation {
        CaseCitation {
            start,
            end,
            raw: String::new(),
            kind,
            court: None,
            court_span: None,
            decision_kind: None,
            date: None,
            file_number: None,
            file_number_span: None,
            register: None,
            reporter: None,
            volume: None,
            page: None,
            pinpoint: None,
            ecli: None,
            literature: false,
            canonical,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefusalReason {
    /// `§ 13 MV`, `§ 5 TV`, `Nr. 3 AGB`, `§ 4 des Arbeitsvertrags`: a clause of a contract,
    /// collective agreement or terms and conditions.
    ContractClause,
    /// `Buchholz 310 § 132 VwGO Nr. 129`, `SozR 3-2500 § 240 Nr 6`: part of a reporter citation.
    InsideReporter,
}

/// A statute look-alike that was refused (for an advisory by a later checker).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefusedLookalike {
    pub start: usize,
    pub end: usize,
    pub raw: String,
    pub reason: RefusalReason,
}

/// Everything found in one text.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Extraction {
    pub laws: Vec<LawCitation>,
    pub chains: Vec<Normenkette>,
    pub law_names: Vec<LawName>,
    pub cases: Vec<CaseCitation>,
    pub refused: Vec<RefusedLookalike>,
}

/// The sha256 of the scanner's shipped reference tables (vocabulary, reporters,
/// Registerzeichen, Land law): part of what a scan depends on, so a cached scan is reused only
/// under the same tables.
pub fn reference_fingerprint() -> String {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    for t in [vocab::LAW_VOCABULARY_TSV, vocab::REPORTERS_TSV, vocab::REGISTERZEICHEN_TSV, land::LAND_LAW_TSV] {
        h.update(t.len().to_le_bytes());
        h.update(t);
    }
    hex::encode(h.finalize())
}

/// Scans `text` for law and case citations. Never panics.
pub fn extract(text: &str, vocab: &LawVocabulary) -> Extraction {
    // The token buffer is reused per thread: many short texts would otherwise pay an allocation each.
    thread_local! {
        static TOKS: std::cell::RefCell<Vec<Tok>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    TOKS.with(|cell| {
        let mut toks = cell.take();
        tokenize(text, &mut toks);
        let mut sc = Sc { text, t: &toks, v: vocab, out: Extraction::default(), done: 0 };
        sc.run();
        let mut out = sc.out;
        to_code_points(text, &mut out);
        if toks.capacity() <= 1 << 20 {
            cell.replace(toks);
        }
        out
    })
}

/// The canonical tokens of a rii `<norm>` field (`"§ 32 Abs 1 BVerfGG, Art 38 Abs 1 S 2 GG"`):
/// each cited member's canonical token, in order, without duplicates. Parts naming no book
/// (`§ 5`) inherit the book of a later part, as in running text.
pub fn norm_field_tokens(field: &str, vocab: &LawVocabulary) -> Vec<String> {
    let ex = extract(field, vocab);
    let mut out: Vec<String> = Vec::new();
    for l in &ex.laws {
        if l.book.is_some() && !out.contains(&l.canonical) {
            out.push(l.canonical.clone());
        }
    }
    out
}

/// A decision's Normenkette as canonical tokens: the rii `<norm>` field's tokens (if any) first,
/// then every law the text cites with a book, each once. Both sources feed it (DESIGN §3).
pub fn decision_norm_tokens(norm_field: Option<&str>, text: &Extraction, vocab: &LawVocabulary) -> Vec<String> {
    let mut out = norm_field.map(|f| norm_field_tokens(f, vocab)).unwrap_or_default();
    let mut seen: std::collections::HashSet<String> = out.iter().cloned().collect();
    for l in &text.laws {
        if l.book.is_some() && seen.insert(l.canonical.clone()) {
            out.push(l.canonical.clone());
        }
    }
    out
}

/// A calendar date the text states (`1.3.2002`, `1. März 2002`, `2002-03-01`), read by the same
/// rule as the date of a dated case citation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatedDate {
    /// Code points, end exclusive.
    pub start: usize,
    pub end: usize,
    /// ISO `YYYY-MM-DD`.
    pub iso: String,
}

/// Every date `text` states, in reading order (the checker dates a sentence's citations by them).
pub fn stated_dates(text: &str) -> Vec<StatedDate> {
    let mut toks = Vec::new();
    tokenize(text, &mut toks);
    let sc = Sc { text, t: &toks, v: LawVocabulary::shipped(), out: Extraction::default(), done: 0 };
    let mut bytes: Vec<(usize, usize, String)> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        // A number glued to a word or a `/` before it is part of a file number or reporter page.
        let glued = i > 0 && !toks[i].gap_sp && !matches!(sc.s(i - 1), "(" | "[" | "-" | "–");
        match sc.date_forward(i).filter(|_| !glued) {
            Some((iso, next)) => {
                bytes.push((sc.start_of(i), sc.end_before(next), iso));
                i = next;
            }
            None => i += 1,
        }
    }
    let mut ix = CharIndex::new(text);
    bytes.into_iter().map(|(a, b, iso)| StatedDate { start: ix.char_of(a), end: ix.char_of(b), iso }).collect()
}

/// The scanner state over one text's tokens. Offsets are byte offsets until [`to_code_points`].
pub(crate) struct Sc<'a> {
    pub text: &'a str,
    pub t: &'a [Tok],
    pub v: &'a LawVocabulary,
    pub out: Extraction,
    /// Tokens before this index belong to an earlier citation (backward walks stop here).
    pub done: usize,
}

impl<'a> Sc<'a> {
    fn run(&mut self) {
        let n = self.t.len();
        let mut i = 0;
        while i < n {
            let next = match self.t[i].kind {
                Kind::Para => self.law_at(i, None),
                Kind::Word => self.word_at(i),
                Kind::Num => self.num_at(i),
                Kind::Punct => None,
            };
            match next {
                Some(j) if j > i => {
                    self.done = j;
                    i = j;
                }
                _ => i += 1,
            }
        }
    }

    fn word_at(&mut self, i: usize) -> Option<usize> {
        let w = self.s(i);
        let first = w.as_bytes()[0];
        if first.is_ascii_lowercase() {
            // Lower-case words start nothing but an ECtHR number (`no. 41723/06`) and `wistra`.
            return match w {
                "no" => self.eu_case_at(i),
                "wistra" => self.reporter_case_at(i),
                _ => None,
            };
        }
        let n = w.len();
        match (first, n) {
            (b'A', 3 | 4 | 7) if matches!(w, "Art" | "Artikel" | "Artt") => {
                if let Some(j) = self.law_at(i, None) {
                    return Some(j);
                }
                // `Art. II § 6 IntPatÜG`: an article of an act that has §§.
                let r = if self.s(i + 1) == "." { i + 2 } else { i + 1 };
                if self.is_word(r)
                    && self.s(r).bytes().all(|c| matches!(c, b'I' | b'V' | b'X'))
                    && self.kind(r + 1) == Some(Kind::Para)
                {
                    let first = self.out.laws.len();
                    if let Some(j) = self.law_at(r + 1, None) {
                        let s0 = self.start_of(i);
                        if let Some(l) = self.out.laws.get_mut(first) {
                            l.start = s0;
                        }
                        if let Some(c) = self.out.chains.last_mut() {
                            c.start = s0;
                        }
                        return Some(j);
                    }
                }
            }
            (b'E', 4) if w == "ECLI" => return self.ecli_at(i),
            _ => {}
        }
        // Capitals in the word: two or more mark abbreviations (reporters, registers, law books).
        let caps = {
            // Stops at the second capital: only "one" or "two or more" matters.
            let mut c = 0;
            for &b in w.as_bytes() {
                c += b.is_ascii_uppercase() as usize;
                if c >= 2 {
                    break;
                }
            }
            c
        };
        let one_cap_reporter = match first {
            b'B' => w == "Buchholz" || w == "Breith",
            b'S' => w == "Slg",
            b'R' => w == "Rpfleger",
            b'M' => w == "Mitt",
            _ => false,
        };
        if (caps >= 2 || one_cap_reporter)
            && let Some(j) = self.reporter_case_at(i)
        {
            return Some(j);
        }
        // Cheap shape tests first: most capitalised words are nouns that start nothing.
        let eu = (n == 1 && matches!(first, b'C' | b'T' | b'F'))
            || (n == 2 && (w == "Nr" || w == "No"))
            || (n >= 10 && (w.starts_with("Beschwerde") || w.starts_with("Individual")));
        if eu && let Some(j) = self.eu_case_at(i) {
            return Some(j);
        }
        let fnum = n <= 6 && (n == 1 || caps >= 2 || (matches!(first, b'I' | b'V' | b'X') && case::roman_senate(w)));
        if fnum && let Some(j) = self.file_number_at(i) {
            return Some(j);
        }
        if first.is_ascii_uppercase() || first >= 0xC3 {
            // One vocabulary lookup serves both the law-first form and a bare law name; most
            // capitalised words are neither, and cheap byte tests skip the lookup for them.
            if matches!(first, b'R' | b'V')
                && matches!(n, 2 | 10 | 11 | 12 | 15)
                && let Some(j) = self.eu_act_name_at(i)
            {
                return Some(j);
            }
            let unit_next = |k: usize| match self.t.get(k) {
                Some(t) if t.kind == Kind::Para => true,
                Some(t) if t.kind == Kind::Word && matches!(t.end - t.start, 3 | 7) => {
                    matches!(self.s(k), "Art" | "Artikel")
                }
                _ => false,
            };
            // A book before `§` is an abbreviation (`HGB § 59`, `SGB V § 5`); one capital → one token.
            let law_first = unit_next(i + 1) || (caps >= 2 && (unit_next(i + 2) || unit_next(i + 3)));
            if !law_first && caps < 2 && !name_candidate(w) {
                return None;
            }
            let book = self.v.book_at(self.text, self.t, i);
            if let Some(b) = book
                && let Some(j) = self.law_first_at(i, b)
            {
                return Some(j);
            }
            return self.law_name_at(i, book);
        }
        None
    }

    fn num_at(&mut self, i: usize) -> Option<usize> {
        if let Some(j) = self.file_number_at(i) {
            return Some(j);
        }
        if let Some(j) = self.bare_case_number_at(i) {
            return Some(j);
        }
        self.eu_act_name_at(i)
    }

    // ---- token helpers -------------------------------------------------------------------

    /// Text of token `i` ("" past the end).
    pub fn s(&self, i: usize) -> &'a str {
        match self.t.get(i) {
            Some(t) => {
                let (a, b) = (t.start as usize, t.end as usize);
                debug_assert!(self.text.is_char_boundary(a) && self.text.is_char_boundary(b) && a <= b);
                // SAFETY: `tokenize` cuts `text` only at char boundaries (it steps over whole
                // chars), so every token range lies inside `text` on char boundaries. This is
                // the hottest call of the scanner; the checked slice costs ~5 % of throughput.
                unsafe { self.text.get_unchecked(a..b) }
            }
            None => "",
        }
    }
    pub fn kind(&self, i: usize) -> Option<Kind> {
        self.t.get(i).map(|t| t.kind)
    }
    pub fn is_num(&self, i: usize) -> bool {
        self.kind(i) == Some(Kind::Num)
    }
    pub fn is_word(&self, i: usize) -> bool {
        self.kind(i) == Some(Kind::Word)
    }
    /// Token `i` follows token `i-1` with no space.
    pub fn adj(&self, i: usize) -> bool {
        self.t.get(i).is_some_and(|t| !t.gap_sp)
    }
    /// Token `i` is on the same line as token `i-1`.
    pub fn same_line(&self, i: usize) -> bool {
        self.t.get(i).is_some_and(|t| !t.gap_nl)
    }
    pub fn start_of(&self, i: usize) -> usize {
        self.t.get(i).map_or(self.text.len(), |t| t.start as usize)
    }
    /// End byte of token `i - 1` (the end of a span whose last token is `i - 1`).
    pub fn end_before(&self, i: usize) -> usize {
        if i == 0 { 0 } else { self.t.get(i - 1).map_or(self.text.len(), |t| t.end as usize) }
    }
    pub fn slice(&self, a: usize, b: usize) -> &'a str {
        self.text.get(a..b).unwrap_or("")
    }
    /// Token `i` is `w` followed by an adjacent `.` (or just `w` when `dot_optional`); returns
    /// the index after.
    pub fn abbr(&self, i: usize, w: &str, dot_optional: bool) -> Option<usize> {
        if self.s(i) != w || !self.is_word(i) {
            return None;
        }
        if self.s(i + 1) == "." && self.adj(i + 1) {
            Some(i + 2)
        } else if dot_optional {
            Some(i + 1)
        } else {
            None
        }
    }
}

/// Could `w` begin a law's name (so a vocabulary lookup is worth it)? Abbreviations have two
/// capitals or a digit (`BGB`, `SGB`, `EStG`); spelled-out names begin with a word ending like
/// a law (`…gesetz`, `…ordnung`), an adjective (`Bürgerliches`, `Europäische`) or an ordinal
/// (`Fünftes Buch`).
fn name_candidate(w: &str) -> bool {
    let b = w.as_bytes();
    if b.len() < 4 {
        return false;
    }
    // Every ending below ends in one of these bytes (after an inflection ending is cut); most
    // nouns are rejected here without stemming.
    let last = b[b.len() - 1];
    if !matches!(last, b'z' | b'h' | b'g' | b'n' | b'a' | b't' | b'e' | b's' | b'r' | b'm') {
        return false;
    }
    let s = vocab::stem(w);
    let sb = s.as_bytes();
    // Dispatch on the stem's last byte so a word meets at most three endings.
    let ends = |e: &str| sb.len() >= e.len() && &sb[sb.len() - e.len()..] == e.as_bytes();
    match sb[sb.len() - 1] {
        b'z' => ends("gesetz"),
        b'h' => ends("buch") || ends("isch") || ends("lich"),
        b'g' => ends("ordnung") || ends("vertrag") || ends("verfassung"),
        b'n' => ends("konvention") || ends("abkommen"),
        b'a' => ends("charta"),
        b't' => {
            ends("statut")
                || ends("recht")
                || (sb.len() <= 7
                    && matches!(
                        s,
                        "Erst"
                            | "Zweit"
                            | "Dritt"
                            | "Viert"
                            | "Fünft"
                            | "Sechst"
                            | "Siebt"
                            | "Acht"
                            | "Neunt"
                            | "Zehnt"
                            | "Elft"
                            | "Zwölft"
                    ))
        }
        _ => false,
    }
}

/// Collapses line breaks and runs of spaces in a structured field (`VG\nHamburg` → `VG Hamburg`);
/// `raw` keeps the text as written.
fn collapse(s: &mut String) {
    // One pass: a line break, a tab or two spaces in a row.
    let b = s.as_bytes();
    let needs = b
        .iter()
        .enumerate()
        .any(|(k, &c)| matches!(c, b'\n' | b'\r' | b'\t') || (c == b' ' && b.get(k + 1) == Some(&b' ')));
    if needs {
        *s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    }
}

/// Converts every byte offset in `out` to a code-point offset and fills `raw`: all offsets are
/// gathered, sorted and converted in one forward pass over the text.
fn to_code_points(text: &str, out: &mut Extraction) {
    for c in &mut out.cases {
        for f in [&mut c.court, &mut c.file_number, &mut c.volume, &mut c.page].into_iter().flatten() {
            collapse(f);
        }
        collapse(&mut c.canonical);
    }
    for l in &mut out.laws {
        if let Some(b) = &mut l.book {
            collapse(b);
        }
        collapse(&mut l.canonical);
        l.parents.iter_mut().for_each(collapse);
    }
    for c in &mut out.chains {
        collapse(&mut c.canonical);
    }
    for n in &mut out.law_names {
        collapse(&mut n.book);
    }
    let raw = |a: usize, b: usize| text.get(a..b).unwrap_or("").to_string();
    for l in &mut out.laws {
        l.raw = raw(l.start, l.end);
    }
    for c in &mut out.chains {
        c.raw = raw(c.start, c.end);
    }
    for c in &mut out.law_names {
        c.raw = raw(c.start, c.end);
    }
    for c in &mut out.cases {
        c.raw = raw(c.start, c.end);
    }
    for c in &mut out.refused {
        c.raw = raw(c.start, c.end);
    }
    if text.is_ascii() {
        return;
    }
    let mut offs: Vec<&mut usize> = Vec::new();
    for l in &mut out.laws {
        offs.extend([&mut l.start, &mut l.head_end, &mut l.end]);
    }
    for c in &mut out.chains {
        offs.extend([&mut c.start, &mut c.end]);
    }
    for c in &mut out.law_names {
        offs.extend([&mut c.start, &mut c.end]);
    }
    for c in &mut out.cases {
        offs.extend([&mut c.start, &mut c.end]);
        if let Some((a, b)) = &mut c.court_span {
            offs.extend([a, b]);
        }
        if let Some((a, b)) = &mut c.file_number_span {
            offs.extend([a, b]);
        }
    }
    for c in &mut out.refused {
        offs.extend([&mut c.start, &mut c.end]);
    }
    offs.sort_unstable_by_key(|o| **o);
    let mut ix = CharIndex::new(text);
    for o in offs {
        *o = ix.char_of(*o);
    }
}
