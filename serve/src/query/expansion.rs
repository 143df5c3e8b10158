//! The legal-register dictionary (`serve/data/legal-register.tsv`, compiled in): everyday
//! words → the terms federal statutes use ("Kaution" → "Mietsicherheit"), and the
//! `query_expansion` block every search answer carries (seed 002's shape).
//!
//! Invariants: terms are added to a query, never substituted; an entry fires only when every
//! one of its lay words is in the query (stemmed, compound parts included); a query that is an
//! identifier throughout is never expanded.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::LazyLock;

use crate::contract::answers::{AddedTerms, HeldBackPhrases, QueryExpansionReport};
use model::{ExpansionReason, ExpansionStatus};

use crate::query::text::query_words;

/// The dictionary file as shipped.
pub const REGISTER_TSV: &str = include_str!("../../data/legal-register.tsv");

/// One entry: lay words → legal terms, with the § whose text carries the terms.
#[derive(Debug, Clone)]
pub struct RegisterEntry {
    /// The lay words as written in the file.
    pub lay: String,
    /// Their index terms (stemmed and folded); all must be in the query.
    pub lay_terms: Vec<String>,
    /// The legal terms as written in the file.
    pub legal: Vec<String>,
    /// The index terms of each legal phrase (function words left out): each phrase is one way
    /// to match a lay word.
    pub phrases: Vec<Vec<String>>,
    /// Their index terms, in order, without repeats.
    pub legal_terms: Vec<String>,
    /// The § that answers the lay words, whose heading or text carries the legal terms
    /// (`§ 551 BGB`).
    pub source: String,
    /// Whether `source` answers the lay words or only carries the terms.
    pub source_role: SourceRole,
}

/// What an entry's § is to its lay words (the file's optional fifth column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceRole {
    /// The § answers them: a statute search that fires the entry lifts it (the default).
    Answers,
    /// The § only carries the terms (`terms-only`): a question word such as `lange` → Frist
    /// is answered by whichever § sets the Frist asked about, not by § 186 BGB.
    TermsOnly,
}

impl SourceRole {
    /// The fifth column's spellings: empty (or absent) and `terms-only`.
    fn parse(column: Option<&str>) -> Option<SourceRole> {
        match column.map(str::trim).unwrap_or("") {
            "" => Some(SourceRole::Answers),
            "terms-only" => Some(SourceRole::TermsOnly),
            _ => None,
        }
    }
}

/// The parsed dictionary.
impl RegisterEntry {
    /// The entry with only its one-word phrases, and with only its phrases of several words
    /// (None where it has none of that kind).
    pub fn split_by_phrase_length(&self) -> (Option<RegisterEntry>, Option<RegisterEntry>) {
        (self.with_phrases(|p| p.len() <= 1), self.with_phrases(|p| p.len() > 1))
    }

    fn with_phrases(&self, keep: impl Fn(&[String]) -> bool) -> Option<RegisterEntry> {
        let (legal, phrases): (Vec<String>, Vec<Vec<String>>) =
            self.legal.iter().zip(&self.phrases).filter(|(_, p)| keep(p)).map(|(l, p)| (l.clone(), p.clone())).unzip();
        let legal_terms = distinct_terms(&phrases);
        (!legal_terms.is_empty()).then(|| RegisterEntry { legal, phrases, legal_terms, ..self.clone() })
    }
}

/// The index terms of `phrases`, in order, without repeats (an entry's `legal_terms`).
fn distinct_terms(phrases: &[Vec<String>]) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    for t in phrases.iter().flatten() {
        if !terms.contains(t) {
            terms.push(t.clone());
        }
    }
    terms
}

#[derive(Debug)]
pub struct LegalRegister {
    pub version: String,
    pub entries: Vec<RegisterEntry>,
    /// The index terms of the one-word lay entries (compound parts a statute need not use).
    lay_words: HashSet<String>,
    /// The index terms of every entry's lay words.
    lay_terms: HashSet<String>,
    /// The entries by their first lay term: a query looks up its own terms here, not every
    /// entry (a scan of 3,000 entries cost a lay search 0.15-0.2 ms).
    by_first_term: HashMap<String, Vec<usize>>,
}

/// The shipped dictionary, parsed once.
pub fn register() -> &'static LegalRegister {
    static REGISTER: LazyLock<LegalRegister> =
        LazyLock::new(|| LegalRegister::parse(REGISTER_TSV).expect("serve/data/legal-register.tsv is well-formed"));
    &REGISTER
}

impl LegalRegister {
    /// Parses the TSV format the README documents; a malformed line is an error naming it.
    pub fn parse(text: &str) -> Result<LegalRegister, String> {
        let mut version = None;
        let mut entries = Vec::new();
        for (n, line) in text.lines().enumerate() {
            if let Some(v) = line.strip_prefix("#version\t") {
                version = Some(v.trim().to_string());
                continue;
            }
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let cols: Vec<&str> = line.split('\t').collect();
            if cols.len() < 3 {
                return Err(format!("line {}: want lay<TAB>legal terms<TAB>source, got {line:?}", n + 1));
            }
            let Some(source_role) = SourceRole::parse(cols.get(4).copied()) else {
                return Err(format!(
                    "line {}: the fifth column is {:?}; leave it empty or write `terms-only`",
                    n + 1,
                    cols[4]
                ));
            };
            let legal: Vec<String> =
                cols[1].split(';').map(|t| t.trim().to_string()).filter(|t| !t.is_empty()).collect();
            // A query drops its function words before the dictionary sees it: an entry whose
            // lay words hold one (`zu schnell`, `scheiden lassen`) could never fire.
            if let Some(w) = cols[0]
                .split(|c: char| !c.is_alphanumeric())
                .map(str::to_lowercase)
                .find(|w| crate::query::analysis::is_stopword(w))
            {
                return Err(format!(
                    "line {}: the lay words {:?} hold {w:?}, a function word every query drops, so the entry \
                     could never fire; leave it out",
                    n + 1,
                    cols[0]
                ));
            }
            let lay_terms = query_words(cols[0]);
            let phrases: Vec<Vec<String>> = legal
                .iter()
                .map(|p| query_words(p).into_iter().filter(|t| !crate::query::analysis::is_stopword_term(t)).collect())
                .collect();
            let legal_terms = distinct_terms(&phrases);
            if lay_terms.is_empty() || legal_terms.is_empty() {
                return Err(format!("line {}: no searchable words in {line:?}", n + 1));
            }
            entries.push(RegisterEntry {
                lay: cols[0].trim().to_string(),
                lay_terms,
                legal,
                phrases,
                legal_terms,
                source: cols[2].trim().to_string(),
                source_role,
            });
        }
        let lay_words = entries.iter().filter(|e| e.lay_terms.len() == 1).map(|e| e.lay_terms[0].clone()).collect();
        let lay_terms = entries.iter().flat_map(|e| e.lay_terms.iter().cloned()).collect();
        let mut by_first_term: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, e) in entries.iter().enumerate() {
            by_first_term.entry(e.lay_terms[0].clone()).or_default().push(i);
        }
        Ok(LegalRegister { version: version.ok_or("no #version line")?, entries, lay_words, lay_terms, by_first_term })
    }

    /// Whether `term` is the lay word of a one-word entry.
    pub fn is_lay_word(&self, term: &str) -> bool {
        self.lay_words.contains(term)
    }

    /// Whether `term` is one of the lay words of any entry.
    pub fn is_lay_term(&self, term: &str) -> bool {
        self.lay_terms.contains(term)
    }

    /// The entries whose lay words are all among `terms`, in the file's order. Each entry is
    /// found at most once: it stands under one first term, and `terms` holds each term once.
    pub fn matching<'a>(&'a self, terms: &BTreeSet<String>) -> Vec<&'a RegisterEntry> {
        let mut at: Vec<usize> = terms
            .iter()
            .filter_map(|t| self.by_first_term.get(t))
            .flatten()
            .copied()
            .filter(|&i| self.entries[i].lay_terms.iter().all(|t| terms.contains(t)))
            .collect();
        at.sort_unstable();
        at.into_iter().map(|i| &self.entries[i]).collect()
    }
}

/// What the dictionary did for one query (`query_expansion` in the answer).
#[derive(Debug, Clone)]
pub struct QueryExpansion {
    pub status: ExpansionStatus,
    pub reason: Option<ExpansionReason>,
    pub original_query: String,
    /// `(entry, terms it added)`: only terms the query did not already hold.
    pub added: Vec<(RegisterEntry, Vec<String>)>,
    /// `(entry, documents)`: the phrases of several words of an entry not added because the
    /// index holds its lay word in `documents` documents, enough to match alone.
    pub held_back: Vec<(RegisterEntry, u64)>,
}

impl QueryExpansion {
    pub fn not_applied(query: &str, status: ExpansionStatus, reason: ExpansionReason) -> QueryExpansion {
        QueryExpansion {
            status,
            reason: Some(reason),
            original_query: query.to_string(),
            added: Vec::new(),
            held_back: Vec::new(),
        }
    }

    /// Every added index term, in entry order, without repeats.
    pub fn added_terms(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for t in self.added.iter().flat_map(|(_, ts)| ts) {
            if !out.contains(t) {
                out.push(t.clone());
            }
        }
        out
    }

    /// The block as answers carry it.
    pub fn report(&self) -> QueryExpansionReport {
        let applied = self.status == ExpansionStatus::Applied;
        let added_terms = self
            .added
            .iter()
            .map(|(e, terms)| AddedTerms {
                lay_words: e.lay.clone(),
                legal_terms: e.legal.clone(),
                index_terms: terms.clone(),
                source: e.source.clone(),
            })
            .collect();
        QueryExpansionReport {
            status: self.status,
            applied,
            reason: self.reason,
            original_query: self.original_query.clone(),
            added_terms,
            phrases_held_back: self
                .held_back
                .iter()
                .map(|(e, documents)| HeldBackPhrases {
                    lay_words: e.lay.clone(),
                    legal_terms: e.legal.clone(),
                    source: e.source.clone(),
                    word_documents: *documents,
                })
                .collect(),
            dictionary_version: register().version.clone(),
            note: if applied {
                "Terms from the legal-register dictionary were added to your words (never substituted); the ranking saw them. Send expand_query=false to search your words alone."
            } else {
                "Nothing was added to your words."
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_dictionary_parses_and_every_entry_names_its_source() {
        let r = register();
        assert!(r.entries.len() >= 100, "{} entries", r.entries.len());
        for e in &r.entries {
            assert!(e.source.starts_with("§ ") || e.source.starts_with("Art. "), "{}: source {:?}", e.lay, e.source);
        }
    }

    #[test]
    fn the_entries_found_by_their_first_term_are_those_a_scan_of_every_entry_finds() {
        let r = register();
        let scan = |terms: &BTreeSet<String>| -> Vec<*const RegisterEntry> {
            r.entries.iter().filter(|e| e.lay_terms.iter().all(|t| terms.contains(t))).map(|e| e as *const _).collect()
        };
        // Each entry's own lay terms with its neighbour's: single and multi-word entries fire.
        let mut fired = 0;
        for pair in r.entries.windows(2) {
            let terms: BTreeSet<String> = pair.iter().flat_map(|e| e.lay_terms.iter().cloned()).collect();
            let found: Vec<*const RegisterEntry> = r.matching(&terms).into_iter().map(|e| e as *const _).collect();
            assert_eq!(found, scan(&terms), "{terms:?}");
            fired += found.len();
        }
        assert!(fired >= r.entries.len(), "{fired}");
    }

    /// Whether `a` and `b` are forms of one word: one of them is the other, or both are one
    /// base, with an inflection ending (`Rente`/`renten`, `ermorden`/`ermordet`). The agent
    /// ending `-er` is no inflection: `Schlichter` is not `schlicht`.
    fn same_word(a: &str, b: &str) -> bool {
        const ENDINGS: [&str; 12] = ["nen", "ens", "ten", "en", "es", "em", "et", "te", "st", "e", "n", "s"];
        let bases = |w: &str| {
            let w = w.to_lowercase();
            let mut out: Vec<String> = ENDINGS.iter().filter_map(|e| w.strip_suffix(e)).map(str::to_string).collect();
            out.extend(w.strip_suffix('t').map(str::to_string));
            out.push(w);
            out
        };
        let (x, y) = (bases(a), bases(b));
        x.iter().any(|w| y.contains(w))
    }

    /// Lay words whose commoner stem-mate is the same root in the same sense.
    const SAME_ROOT: [(&str, &str); 7] = [
        ("angestellter", "angestellten"),
        ("betrüger", "betrug"),
        ("datenschützer", "datenschutz"),
        ("verdächtiger", "verdacht"),
        ("raser", "rasen"),
        ("erzeuger", "erzeugen"),
        ("verdächtiger", "verdächtigen"),
    ];

    #[test]
    fn no_lay_word_shares_its_stem_with_a_more_common_word_it_is_not() {
        // `Nichte` stems to `nicht`, `Verdi` to `verdienen`'s stem, `ledig` to `lediglich`'s:
        // each entry fired on every question holding the commoner word. A clash is an everyday
        // word (Zipf 4 or more) with the lay word's stem that is clearly commoner than the lay
        // word and no inflection of it.
        let mut by_term: std::collections::HashMap<String, Vec<&str>> = std::collections::HashMap::new();
        for w in crate::query::everyday::words_from(4.0) {
            if let Some(t) = query_words(w).into_iter().next() {
                by_term.entry(t).or_default().push(w);
            }
        }
        let clashes: Vec<String> = register()
            .entries
            .iter()
            .filter(|e| e.lay_terms.len() == 1 && !e.lay.contains(char::is_whitespace))
            .flat_map(|e| {
                let lay = e.lay.to_lowercase();
                let own = crate::query::everyday::zipf(&lay).unwrap_or(0.0);
                by_term.get(&e.lay_terms[0]).into_iter().flatten().filter_map(move |c| {
                    let commoner = crate::query::everyday::zipf(c).unwrap_or(0.0) >= own + 0.5;
                    (commoner && !same_word(&lay, c) && !SAME_ROOT.contains(&(lay.as_str(), c)))
                        .then(|| format!("{:?} stems like {c:?}", e.lay))
                })
            })
            .collect();
        assert!(clashes.is_empty(), "{clashes:#?}");
    }

    #[test]
    fn an_entry_fires_only_when_all_its_lay_words_are_in_the_query() {
        let r = register();
        let terms = |q: &str| query_words(q).into_iter().collect::<BTreeSet<_>>();
        let hits = r.matching(&terms("Fahrerflucht nach einem Parkrempler"));
        assert!(hits.iter().any(|e| e.legal.iter().any(|l| l == "unerlaubtes Entfernen vom Unfallort")), "{hits:?}");
        // "Erbe ausschlagen" needs both words.
        assert!(r.matching(&terms("Erbe")).iter().all(|e| e.lay != "Erbe ausschlagen"));
        assert!(r.matching(&terms("das Erbe ausschlagen")).iter().any(|e| e.lay == "Erbe ausschlagen"));
    }

    #[test]
    fn an_entry_whose_lay_words_hold_a_dropped_function_word_is_refused() {
        let e = LegalRegister::parse("#version\t1\nzu schnell\tHöchstgeschwindigkeit\t§ 3 StVO\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("\"zu\""), "{e}");
        assert!(LegalRegister::parse("#version\t1\nschnell gefahren\tHöchstgeschwindigkeit\t§ 3 StVO\n").is_ok());
    }

    #[test]
    fn the_fifth_column_says_whether_the_source_answers_the_lay_words() {
        let r = LegalRegister::parse(
            "#version\t1\nKaution\tMietsicherheit\t§ 551 BGB\nlange\tFrist\t§ 186 BGB\tnote\tterms-only\n",
        )
        .unwrap();
        assert_eq!(r.entries[0].source_role, SourceRole::Answers);
        assert_eq!(r.entries[1].source_role, SourceRole::TermsOnly);
        let e = LegalRegister::parse("#version\t1\nlange\tFrist\t§ 186 BGB\t\tterms only\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("terms-only"), "{e}");
        // The shipped question words only carry their terms.
        let question_words = register().entries.iter().filter(|e| e.source_role == SourceRole::TermsOnly);
        assert!(question_words.clone().any(|e| e.lay == "lange"), "{:?}", question_words.collect::<Vec<_>>());
    }

    #[test]
    fn a_malformed_line_is_refused_with_its_number() {
        let e = LegalRegister::parse("#version\t1\nKaution only two\n").unwrap_err();
        assert!(e.contains("line 2"), "{e}");
    }
}
