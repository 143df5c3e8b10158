//! Query analysis for searches in people's words: function words dropped, German compounds
//! split against the index's own vocabulary (with linking morphemes), typos of everyday words
//! corrected to the index's vocabulary, and the legal-register dictionary applied
//! ([`crate::query::expansion`]). The result is a [`QueryPlan`]: one [`Concept`] per word the
//! caller typed, each with the ways it can be matched, plus optional added terms.
//!
//! Invariants: identifiers (tokens with digits, § citations) are never split, corrected or
//! expanded; every change to the caller's words is reported (compounds, corrections, added
//! terms, dropped words), so an answer never hides how it was broadened.

use crate::query::section_walk::WalkClauses;
use std::collections::BTreeSet;

use model::{ExpansionReason, ExpansionStatus};
use tantivy::query::{BooleanQuery, BoostQuery, FuzzyTermQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{Searcher, Term};

use crate::contract::answers::{
    CompoundSplit, EverydayWord, JoinedCompound, QueryAnalysis, TypoCorrection, VerbForm, WordForm,
};
use crate::query::everyday;
use crate::query::expansion::{QueryExpansion, register};
use crate::query::text::query_words;

/// German function words a question carries and a statute's wording does not decide on
/// (surface forms, lower case, space-separated; matched before stemming).
const STOPWORDS: &str = "der die das den dem des ein eine einer eines einem einen und oder aber wenn wann wie \
    was wer wem wen wo warum welche welcher welches ist sind bin bist war waren wird werden wurde hat habe \
    haben hatte kann können koennen darf dürfen duerfen muss müssen muessen soll sollen man ich du er sie es \
    wir ihr mein meine meinen meinem meiner dein sein seine ihre ihren mich mir dich dir sich uns für fuer mit \
    von vom zu zum zur bei beim auf aus an am im in ins über ueber unter nach vor gegen ohne um durch bis ab \
    als auch noch nur so schon sehr viel viele mehr jemand jemanden jemandem etwas dass daß ob da hier dort \
    denn weil keine kein keinen stehen steht gibt geben lassen bekommen kriegen machen tun mal bitte \
    eigentlich innerhalb";

/// Whether a lower-case word is one a query drops (`query_analysis.dropped_function_words`).
pub fn is_stopword(lower: &str) -> bool {
    STOPWORDS.split_whitespace().any(|w| w == lower)
}

/// Shortest word (characters) a typo is corrected in; shorter words are too often real.
const TYPO_MIN_CHARS: usize = 5;
/// Shortest word split as a compound, and shortest part.
const COMPOUND_MIN_CHARS: usize = 8;
const PART_MIN_CHARS: usize = 4;
/// A part must occur in at least this many documents to count as a word of the index.
const PART_MIN_DOCS: u64 = 3;
/// A word occurring in at least this many documents is common enough to stand alone unsplit.
const COMMON_WORD_DOCS: u64 = 400;
/// Shortest index term (characters) a compound joined from two words may be (`ehegatt`).
const JOINED_MIN_CHARS: usize = 6;
/// Number words, never the head of a compound joined from the caller's words.
const NUMBER_WORDS: &[&str] = &[
    "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun", "zehn", "elf", "zwölf", "zwanzig", "dreißig",
    "vierzig", "fünfzig", "hundert", "tausend",
];
/// Linking morphemes (Fugenelemente) a compound's head may end with.
const LINKING: &[&str] = &["es", "en", "s", "n", "e"];

/// Whether an index term is one of the function words (so added legal terms skip them too).
pub fn is_stopword_term(term: &str) -> bool {
    static TERMS: std::sync::LazyLock<std::collections::HashSet<String>> =
        std::sync::LazyLock::new(|| STOPWORDS.split_whitespace().flat_map(query_words).collect());
    TERMS.contains(term)
}

/// Where a way of matching a concept came from (`matched_by` says which matched).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Via {
    /// The caller's word itself.
    Word,
    /// The parts of the caller's compound, all of them. `whole_in_statutes`: the statutes also
    /// write the compound whole (`Mahnbescheid`), so its parts say nothing the word does not:
    /// they fire no dictionary entry (`Bescheid` → Verwaltungsakt).
    CompoundParts { whole_in_statutes: bool },
    /// A legal-register term for the caller's word (`lay` names the entry; `lay_words`: how many
    /// of the caller's words the entry's terms stand for, which share one weight).
    Expansion { lay: String, lay_words: usize },
    /// The index's spelling of a mistyped word.
    TypoCorrection { typed: String },
    /// A noun for the caller's word: the noun of a verb (`erhöhen` → `Erhöhung`; [`verb_nouns`]),
    /// the base noun of a form the stemmer keeps apart (`Nachbarin`, `Nachbarn` → `Nachbar`;
    /// [`base_nouns`]), or the word an everyday word stands for (`Tochter` → `Kind`;
    /// [`crate::query::synonyms`]).
    WordForm { noun: String },
    /// The third person of the caller's infinitive (`besitzen` → `besitzt`; [`third_person`]).
    VerbForm { form: String },
    /// The compound the statutes write for two neighbouring words (`Geld waschen` → `geldwasch`).
    JoinedCompound { words: [String; 2] },
}

/// One way to match a concept: every one of `terms` in the document.
#[derive(Debug, Clone)]
pub struct Alternative {
    pub terms: Vec<String>,
    pub via: Via,
}

/// One word the caller typed, with the ways it can be matched.
#[derive(Debug, Clone)]
pub struct Concept {
    pub word: String,
    pub alternatives: Vec<Alternative>,
    /// An identifier-like token (digits): matched exactly, never changed.
    pub exact: bool,
}

impl Concept {
    /// How much the word counts in the ranking: less when it is common in everyday German
    /// ([`everyday::weight`]), unless the legal-register dictionary knows it (`Chef`,
    /// `Handy`, `Auto`: the entry's terms are the law's words for it).
    pub fn everyday_weight(&self) -> f32 {
        if self.alternatives.iter().any(|a| matches!(a.via, Via::Expansion { lay_words: 1, .. })) {
            1.0
        } else {
            everyday::weight(&self.word)
        }
    }
}

/// The analysed query.
#[derive(Debug, Clone)]
pub struct QueryPlan {
    pub concepts: Vec<Concept>,
    /// Terms added by multi-word dictionary entries: they rank, they do not restrict.
    pub optional_terms: Vec<String>,
    pub expansion: QueryExpansion,
    pub dropped_words: Vec<String>,
    /// Words with no match in the index, no split and no correction.
    pub unknown_words: Vec<String>,
    /// Each word that can fire dictionary entries, with the terms it fires them by (empty when
    /// the dictionary was not consulted): what [`crate::query::dictionary_answers`] counts the
    /// entries' lay words against.
    pub lay_words: Vec<(String, Vec<String>)>,
}

/// Document frequencies and spelling neighbours from one index's vocabulary, for one query
/// (compound splitting asks for the same parts many times; each is looked up once).
pub struct Vocabulary<'a> {
    searcher: &'a Searcher,
    fields: Vec<Field>,
    doc_freqs: std::cell::RefCell<std::collections::HashMap<String, u64>>,
    /// A second index whose words are real words too (the decisions for statute search): a
    /// word it holds is not a typo, though the searched index lacks it ("herüber").
    also_words: Option<(&'a Searcher, Field)>,
    /// Whether a dictionary phrase of several words is held back for a word this index holds
    /// in [`COMMON_WORD_DOCS`] documents or more ([`Vocabulary::holding_back_phrases`]).
    holds_back_phrases: bool,
}

impl<'a> Vocabulary<'a> {
    pub fn new(searcher: &'a Searcher, fields: Vec<Field>) -> Vocabulary<'a> {
        Vocabulary { searcher, fields, doc_freqs: Default::default(), also_words: None, holds_back_phrases: false }
    }

    /// For a word this index holds in [`COMMON_WORD_DOCS`] documents or more, a dictionary
    /// entry adds only its one-word terms; its phrases of several words are held back (and
    /// named). The passages of decisions are searched so: a phrase of common words
    /// (`Zugang`, `amtlich`, `Information` for `Informationsfreiheit`) widened a word held in
    /// 27,911 passages with those that merely hold the three apart, and walking their postings
    /// cost a search at 100,000 decisions 8 ms of its 10. Statutes are not (their sections
    /// are short, and their search is measured on the lay questions as it is).
    pub fn holding_back_phrases(mut self) -> Vocabulary<'a> {
        self.holds_back_phrases = true;
        self
    }

    /// Words of `field` in `searcher` are real words too, never corrected as typos.
    pub fn with_words_of(mut self, searcher: &'a Searcher, field: Field) -> Vocabulary<'a> {
        self.also_words = Some((searcher, field));
        self
    }

    /// Whether `term` is a word of the other index (held by at least [`PART_MIN_DOCS`] documents).
    fn elsewhere_a_word(&self, term: &str) -> bool {
        self.also_words.is_some_and(|(searcher, field)| {
            searcher.doc_freq(&Term::from_field_text(field, term)).unwrap_or(0) >= PART_MIN_DOCS
        })
    }

    /// Documents holding `term` in any of the fields (summed; an upper bound across fields).
    pub fn doc_freq(&self, term: &str) -> u64 {
        if let Some(n) = self.doc_freqs.borrow().get(term) {
            return *n;
        }
        let n = self.fields.iter().map(|f| self.searcher.doc_freq(&Term::from_field_text(*f, term)).unwrap_or(0)).sum();
        self.doc_freqs.borrow_mut().insert(term.to_string(), n);
        n
    }

    /// The index term within `distance` edits of `term` (a stem) closest to what was typed
    /// (`typed`, folded), then held by the most documents (at least 2). Only terms with the same
    /// first letter are considered.
    pub fn nearest(&self, term: &str, typed: &str, distance: u8) -> Option<String> {
        let mut best: Option<(usize, u64, String)> = None;
        // The automaton depends on the term only: built once, run over every field and segment.
        let &first = self.fields.first()?;
        let Ok(dfa) = FuzzyTermQuery::new(Term::from_field_text(first, term), distance, true).automaton() else {
            return None;
        };
        // `[a, b)` for a term starting with an ASCII letter `a`.
        let first_letter = term
            .chars()
            .next()
            .filter(char::is_ascii_lowercase)
            .map(|c| (c.to_string(), ((c as u8 + 1) as char).to_string()));
        for field in &self.fields {
            let mut counts: std::collections::HashMap<String, u64> = std::collections::HashMap::new();
            for segment in self.searcher.segment_readers() {
                let Ok(index) = segment.inverted_index(*field) else { continue };
                // Only terms with the typed word's first letter: a typo rarely hits the first
                // letter, and the automaton's walk over the whole dictionary was most of the
                // time of a search with an unknown word.
                let mut builder = index.terms().search(&dfa);
                if let Some((low, high)) = &first_letter {
                    builder = builder.ge(low.as_bytes()).lt(high.as_bytes());
                }
                let Ok(mut stream) = builder.into_stream() else { continue };
                while stream.advance() {
                    if let Ok(t) = std::str::from_utf8(stream.key()) {
                        *counts.entry(t.to_string()).or_default() += u64::from(stream.value().doc_freq);
                    }
                }
            }
            for (t, n) in counts {
                let d = edit_distance(&t, typed).min(edit_distance(&t, term));
                let better = best
                    .as_ref()
                    .is_none_or(|(bd, bn, bt)| (d, std::cmp::Reverse(n), &t) < (*bd, std::cmp::Reverse(*bn), bt));
                if t != term && n >= 2 && better {
                    best = Some((d, n, t));
                }
            }
        }
        best.map(|(_, _, t)| t)
    }

    /// `word` (lower case, umlauts folded) as parts the index knows, e.g. `urlaubstage` →
    /// `[urlaub, tag]`, `eigenbedarfskuendigung` → `[eigenbedarf, kundig]` (index terms);
    /// up to three parts, the split whose rarest part is most common winning.
    pub fn split_compound(&self, word: &str) -> Option<Vec<String>> {
        // Two parts where any split in two works; three only where none does.
        self.split(word, 1).or_else(|| self.split(word, 2)).map(|(parts, _)| parts)
    }

    /// The best split and the document count of its rarest part.
    fn split(&self, word: &str, depth: u8) -> Option<(Vec<String>, u64)> {
        let chars: Vec<(usize, char)> = word.char_indices().collect();
        if chars.len() < 2 * PART_MIN_CHARS || !word.chars().all(char::is_alphabetic) {
            return None;
        }
        let mut best: Option<(Vec<String>, (u64, u64))> = None;
        for &(at, _) in &chars[PART_MIN_CHARS..=chars.len() - PART_MIN_CHARS] {
            let (head, tail) = (&word[..at], &word[at..]);
            let Some((head_term, head_df)) = self.head_term(head) else { continue };
            let whole_tail = self.known(tail).map(|(t, n)| (vec![t], n));
            let tail_parts = match whole_tail {
                Some(t) => Some(t),
                None if depth > 1 => self.split(tail, depth - 1),
                None => None,
            };
            let Some((mut tail_terms, tail_df)) = tail_parts else { continue };
            // The rarest part decides; of two splits whose rarest part is as common, the one
            // whose other part is more common (`handwerker|rechnung`, not `handwerk|errechnung`).
            let score = (head_df.min(tail_df), head_df.max(tail_df));
            if best.as_ref().is_none_or(|(_, s)| score > *s) {
                let mut parts = vec![head_term];
                parts.append(&mut tail_terms);
                best = Some((parts, score));
            }
        }
        best.map(|(parts, (rarest, _))| (parts, rarest))
    }

    /// The index term of the compound two words make (`Geld` + `waschen` → `geldwasch`,
    /// `Miete` + `erhöhen` → `mieterhoh`), with a linking morpheme or the second word's noun,
    /// when the statutes hold it in enough documents; the most common one.
    fn joined_compound(&self, first: &str, second: &str) -> Option<String> {
        let first = first.to_lowercase();
        // A number word counts something (`zwei Jahren`), it does not name it.
        if !first.chars().all(char::is_alphabetic)
            || first.chars().count() < 3
            || NUMBER_WORDS.contains(&first.as_str())
        {
            return None;
        }
        let own: Vec<String> = [first.as_str(), second].iter().flat_map(|w| query_words(w)).collect();
        let mut stems = vec![first.clone()];
        stems.extend(["en", "n", "e"].iter().filter_map(|e| first.strip_suffix(e)).map(str::to_string));
        let mut tails = vec![second.to_lowercase()];
        tails.extend(verb_nouns(second).iter().map(|n| n.to_lowercase()));
        let mut best: Option<(u64, String)> = None;
        for stem in &stems {
            for link in std::iter::once("").chain(LINKING.iter().copied()) {
                for tail in &tails {
                    let joined = format!("{stem}{link}{tail}");
                    let terms = query_words(&joined);
                    let [term] = terms.as_slice() else { continue };
                    if own.contains(term) || term.chars().count() < JOINED_MIN_CHARS {
                        continue;
                    }
                    let n = self.doc_freq(term);
                    if n >= PART_MIN_DOCS && best.as_ref().is_none_or(|(m, _)| n > *m) {
                        best = Some((n, term.clone()));
                    }
                }
            }
        }
        best.map(|(_, t)| t)
    }

    /// The head of a compound as an index term, with or without a linking morpheme.
    fn head_term(&self, head: &str) -> Option<(String, u64)> {
        let mut found = self.known(head);
        for l in LINKING {
            if let Some(stripped) = head.strip_suffix(l)
                && stripped.chars().count() >= PART_MIN_CHARS
                && let Some((t, n)) = self.known(stripped)
                && found.as_ref().is_none_or(|(_, m)| n > *m)
            {
                found = Some((t, n));
            }
        }
        found
    }

    /// `surface` as one index term held by enough documents.
    fn known(&self, surface: &str) -> Option<(String, u64)> {
        if surface.chars().count() < PART_MIN_CHARS {
            return None;
        }
        let terms = query_words(surface);
        let [term] = terms.as_slice() else { return None };
        if term.chars().count() < PART_MIN_CHARS {
            return None;
        }
        let n = self.doc_freq(term);
        // A lay word of the legal-register dictionary is a word too, though no statute uses it
        // ("Eigenbedarf" in "Eigenbedarfskündigung"): the entry then maps it to the statute's terms.
        if n >= PART_MIN_DOCS {
            Some((term.clone(), n))
        } else if register().is_lay_word(term) {
            Some((term.clone(), PART_MIN_DOCS))
        } else {
            None
        }
    }
}

/// Separable verb prefixes, longest first: `aus` + `zu` + `schlagen`.
const SEPARABLE_PREFIXES: &[&str] = &[
    "zusammen", "zurück", "heraus", "herein", "vorbei", "weiter", "wieder", "durch", "unter", "über", "fest", "frei",
    "nach", "hinzu", "her", "hin", "los", "mit", "vor", "weg", "ab", "an", "auf", "aus", "bei", "ein", "um", "zu",
];

/// A zu-infinitive of a separable verb without its `zu` (`auszuschlagen` → `ausschlagen`,
/// `zurückzuzahlen` → `zurückzahlen`); None for any other word.
fn without_infix_zu(lower: &str) -> Option<String> {
    SEPARABLE_PREFIXES.iter().find_map(|p| {
        let rest = lower.strip_prefix(p)?.strip_prefix("zu")?;
        let verb_like =
            rest.chars().count() >= 4 && (rest.ends_with("en") || rest.ends_with("ern") || rest.ends_with("eln"));
        verb_like.then(|| format!("{p}{rest}"))
    })
}

/// How a noun form the German stemmer keeps apart from its base noun came about.
#[derive(Debug, Clone, Copy, PartialEq)]
enum NounForm {
    /// A plural in `-s` after a vowel (`Fotos`, `Abos`, `Handys`, `Kitas`): German words rarely
    /// end so, but the loan words people use most do.
    PluralS,
    /// A plural or dative in `-n` after `r` or `l` (`Nachbarn`, `Regeln`): the stemmer strips
    /// `-en` and `-ern`, not a bare `-n`.
    PluralN,
    /// A feminine in `-in` or `-innen` (`Nachbarin`, `Vermieterinnen`, `Ärztin`): the statutes
    /// and the dictionary mostly write the masculine.
    Feminine,
}

/// The base nouns of a noun form the stemmer keeps apart from them, as surface words (lower
/// case), each with how it came about; whether a base is a word at all is the caller's check.
/// None for a stem ending in a diphthong (`Haus`, `Preis`), shorter than 3 letters (`Bus`),
/// a lower-case verb in `-eln`/`-ern` (`handeln` is no `Handel`), or a feminine base of fewer
/// than 4 letters or ending in a vowel (`Verein`, `Stein`, `Kamin`).
fn base_nouns(word: &str) -> Vec<(String, NounForm)> {
    let lower = word.to_lowercase();
    let capitalised = word.chars().next().is_some_and(char::is_uppercase);
    let mut out = Vec::new();
    if let Some(singular) = lower.strip_suffix('s') {
        let diphthong = ["au", "ei", "eu", "ai", "äu"].iter().any(|d| singular.ends_with(d));
        let vowel_end = singular.ends_with(['a', 'e', 'i', 'o', 'u', 'y']);
        if vowel_end && !diphthong && singular.chars().count() >= 3 {
            out.push((singular.to_string(), NounForm::PluralS));
        }
    }
    if let Some(singular) = lower.strip_suffix('n')
        && singular.ends_with(['r', 'l'])
        && singular.chars().count() >= 4
        && (capitalised || !(singular.ends_with("er") || singular.ends_with("el")))
    {
        out.push((singular.to_string(), NounForm::PluralN));
    }
    for suffix in ["innen", "in"] {
        if let Some(base) = lower.strip_suffix(suffix)
            && base.chars().count() >= 4
            && !base.ends_with(['a', 'e', 'i', 'o', 'u', 'y', 'ä', 'ö', 'ü'])
        {
            out.push((base.to_string(), NounForm::Feminine));
            break;
        }
    }
    out
}

/// Prefixes a past participle carries instead of `ge-` (`beschädigt`, `verjährt`, `erhöht`,
/// `durchsucht`, `überwacht`).
const INSEPARABLE_PREFIXES: &[&str] =
    &["be", "emp", "ent", "er", "ge", "miss", "ver", "zer", "durch", "über", "unter", "wider", "hinter"];

/// The nouns (`-ung`) a verb the caller wrote in lower case may have, most likely first, as
/// surface words: of an infinitive (`erhöhen` → `Erhöhung`, `verringern` → `Verringerung`) and
/// of a past participle, also inflected (`gepfändet` → `Pfändung`, `gespeicherten` →
/// `Speicherung`, `angemeldet` → `Anmeldung`, `befristeter` → `Befristung`). None for a
/// capitalised word (a noun: `Tagen` is no `Tagung`); whether the statutes use a noun is the
/// caller's check.
fn verb_nouns(word: &str) -> Vec<String> {
    let mut out = Vec::new();
    if !word.chars().next().is_some_and(char::is_lowercase) || !word.chars().all(char::is_alphabetic) {
        return out;
    }
    let mut add = |stem: &str| {
        let mut chars = stem.chars();
        if let Some(first) = chars.next()
            && stem.chars().count() >= 4
        {
            out.push(format!("{}{}ung", first.to_uppercase(), chars.as_str()));
        }
    };
    // Infinitive: `-ern`/`-eln` keep their `er`/`el`, `-en` goes (`gebissen`, a strong
    // participle, has no noun in `-ung`).
    if let Some(stem) = word.strip_suffix('n').filter(|s| s.ends_with("er") || s.ends_with("el")) {
        add(stem);
    } else if let Some(stem) = word.strip_suffix("en").filter(|_| !word.starts_with("ge")) {
        add(stem);
    }
    // Past participle, with or without an adjective's ending: `-t` / `-et` after the stem.
    let bare = ["en", "er", "es", "em", "e"]
        .iter()
        .find_map(|e| word.strip_suffix(e).filter(|w| w.ends_with('t')))
        .unwrap_or(word);
    let Some(body) = bare.strip_suffix('t') else { return out };
    let body = body.strip_suffix('e').filter(|b| b.ends_with('t') || b.ends_with('d')).unwrap_or(body);
    // `ge-` (after a separable prefix: `an|ge|meldet`) is dropped; `be-`, `ver-`, … stay.
    let stem = SEPARABLE_PREFIXES
        .iter()
        .find_map(|p| body.strip_prefix(p).and_then(|r| r.strip_prefix("ge")).map(|r| format!("{p}{r}")))
        .or_else(|| body.strip_prefix("ge").map(str::to_string))
        .or_else(|| INSEPARABLE_PREFIXES.iter().any(|p| body.starts_with(p)).then(|| body.to_string()));
    if let Some(stem) = stem {
        add(&stem);
    }
    out
}

/// Strong verbs whose third person changes the stem vowel or drops the `-et`
/// (`nehmen` → `nimmt`), also with any prefix (`wegnehmen` → `wegnimmt`, `erwerben` →
/// `erwirbt`, `verstoßen` → `verstößt`). A prefixed word that is not such a verb
/// (`beantragen` is not be-an-tragen) gets a form no statute uses, which the caller's check
/// against the index drops.
const STRONG_VERBS: [(&str, &str); 52] = [
    ("nehmen", "nimmt"),
    ("geben", "gibt"),
    ("sehen", "sieht"),
    ("geschehen", "geschieht"),
    ("lesen", "liest"),
    ("helfen", "hilft"),
    ("sprechen", "spricht"),
    ("treffen", "trifft"),
    ("brechen", "bricht"),
    ("stechen", "sticht"),
    ("stehlen", "stiehlt"),
    ("befehlen", "befiehlt"),
    ("empfehlen", "empfiehlt"),
    ("werfen", "wirft"),
    ("werben", "wirbt"),
    ("sterben", "stirbt"),
    ("verderben", "verdirbt"),
    ("bergen", "birgt"),
    ("gelten", "gilt"),
    ("treten", "tritt"),
    ("essen", "isst"),
    ("fressen", "frisst"),
    ("messen", "misst"),
    ("vergessen", "vergisst"),
    ("fahren", "fährt"),
    ("schlagen", "schlägt"),
    ("tragen", "trägt"),
    ("graben", "gräbt"),
    ("laden", "lädt"),
    ("fallen", "fällt"),
    ("halten", "hält"),
    ("lassen", "lässt"),
    ("laufen", "läuft"),
    ("saufen", "säuft"),
    ("stoßen", "stößt"),
    ("raten", "rät"),
    ("braten", "brät"),
    ("schlafen", "schläft"),
    ("blasen", "bläst"),
    ("wachsen", "wächst"),
    ("waschen", "wäscht"),
    ("fangen", "fängt"),
    ("fechten", "ficht"),
    ("schelten", "schilt"),
    ("erschrecken", "erschrickt"),
    ("schmelzen", "schmilzt"),
    ("quellen", "quillt"),
    ("gebären", "gebiert"),
    ("werden", "wird"),
    ("wissen", "weiß"),
    ("dürfen", "darf"),
    ("müssen", "muss"),
];

/// The third person singular present of an infinitive the caller wrote in lower case, as
/// statutes state rules (`besitzen` → `besitzt`, `quälen` → `quält`, `töten` → `tötet`,
/// `rechnen` → `rechnet`, `verhindern` → `verhindert`, `handeln` → `handelt`, `wegnehmen` →
/// `wegnimmt`: [`STRONG_VERBS`]); None for any other word.
fn third_person(word: &str) -> Option<String> {
    let first = word.chars().next()?;
    if !first.is_lowercase() || !word.chars().all(char::is_alphabetic) || word.chars().count() < 5 {
        return None;
    }
    // The longest strong verb the word ends with; a `ge-` before it makes a participle
    // (`gegeben`, `gelesen`), not a verb.
    if let Some((prefix, form)) = STRONG_VERBS
        .iter()
        .filter_map(|(verb, form)| word.strip_suffix(verb).map(|prefix| (prefix, *form, verb.len())))
        .max_by_key(|(_, _, len)| *len)
        .map(|(prefix, form, _)| (prefix, form))
    {
        return (prefix != "ge").then(|| format!("{prefix}{form}"));
    }
    if let Some(stem) = word.strip_suffix('n').filter(|s| s.ends_with("er") || s.ends_with("el")) {
        return Some(format!("{stem}t"));
    }
    // `gebissen`, `gestohlen` are participles.
    let stem = word.strip_suffix("en").filter(|_| !word.starts_with("ge"))?;
    let last: Vec<char> = stem.chars().rev().take(3).collect();
    let vowel = |c: Option<&char>| c.is_some_and(|c| "aeiouäöüy".contains(*c));
    // `-et` after t or d, and after an m or n that follows a consonant (`atmen`, `öffnen`,
    // `rechnen`) other than l, r, m, n or a vowel's h (`filmen`, `lernen`, `brennen`, `wohnen`).
    let before = last.get(1);
    let soft_before = before.is_some_and(|c| "lrmn".contains(*c)) || (before == Some(&'h') && vowel(last.get(2)));
    let et = matches!(last.first(), Some('t' | 'd'))
        || (matches!(last.first(), Some('m' | 'n')) && !vowel(before) && !soft_before);
    Some(if et { format!("{stem}et") } else { format!("{stem}t") })
}

/// Edits (insert, delete, substitute, swap of neighbours) between two short words.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

impl QueryPlan {
    /// Whether a section must hold `c` to match the strict query: not a word the index does
    /// not hold at all (it is reported instead), nor a bare number beside words ("ab 18",
    /// "14 Tage"), which statutes often spell out.
    pub fn restricts(&self, c: &Concept) -> bool {
        !(self.unknown_words.contains(&c.word)
            || (c.exact && self.concepts.iter().any(|o| !o.exact))
            || everyday::is_question_word(&c.word))
    }

    /// Analyses `query` against `vocabulary`; `expand` = the caller's `expand_query`.
    pub fn analyse(query: &str, vocabulary: &Vocabulary<'_>, expand: bool) -> QueryPlan {
        let surface: Vec<String> = query
            .split(|c: char| !(c.is_alphanumeric() || c == '-'))
            .flat_map(|w| w.split('-'))
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
        // A § / Art. citation throughout ("§ 823 BGB") is an identifier: no word of it is changed.
        let citation = crate::query::identifiers::parse_section_citation(query).is_some();
        let mut dropped_words = Vec::new();
        let mut concepts: Vec<Concept> = Vec::new();
        // Whether a function word stood right before each concept's word ("Frist für die
        // Berufung"): where a head named first and its modifier may be joined.
        let mut after_function_word: Vec<bool> = Vec::new();
        let mut function_word_before = false;
        for word in &surface {
            let lower = word.to_lowercase();
            let term = query_words(word).into_iter().next();
            // A word the index cannot tell from a function word (`nächste` is `nach` once
            // stemmed and its umlaut folded) matches as one: it says nothing either. Not a noun
            // as written (`Ware` is no `war`).
            let exact_word = citation || word.chars().any(|c| c.is_ascii_digit());
            let noun = word.chars().next().is_some_and(char::is_uppercase);
            if is_stopword(&lower) || (!exact_word && !noun && term.as_deref().is_some_and(is_stopword_term)) {
                dropped_words.push(word.clone());
                function_word_before = true;
                continue;
            }
            let Some(term) = term else { continue };
            if concepts.iter().any(|c| c.alternatives[0].terms == [term.clone()]) {
                continue;
            }
            let exact = citation || word.chars().any(|c| c.is_ascii_digit());
            let alternatives = vec![Alternative { terms: vec![term], via: Via::Word }];
            concepts.push(Concept { word: word.clone(), alternatives, exact });
            after_function_word.push(std::mem::take(&mut function_word_before));
        }
        // A question of function words only ("wer ist das") keeps its words rather than none.
        if concepts.is_empty() && !dropped_words.is_empty() {
            for word in std::mem::take(&mut dropped_words) {
                if let Some(term) = query_words(&word).into_iter().next() {
                    concepts.push(Concept {
                        word,
                        alternatives: vec![Alternative { terms: vec![term], via: Via::Word }],
                        exact: false,
                    });
                }
            }
        }
        // Two neighbouring words the statutes write as one (`Geld waschen` → Geldwäsche, `Miete
        // erhöhen` → Mieterhöhung, `Ehe Gatte` → Ehegatte): the compound is one more way to match
        // each of them, and neither is a typo then.
        let joins: Vec<(usize, String)> = (1..concepts.len())
            .filter(|&i| !concepts[i - 1].exact && !concepts[i].exact)
            .filter_map(|i| {
                let (first, second) = (&concepts[i - 1].word, &concepts[i].word);
                // People also name the head first and the modifier after it, a function word
                // between them ("Frist für die Berufung"), where the statute writes one
                // compound (`Berufungsfrist`).
                let reversed = || {
                    after_function_word.get(i).copied().unwrap_or(false)
                        && second.chars().next().is_some_and(char::is_uppercase)
                        && first.chars().next().is_some_and(char::is_uppercase)
                };
                let joined = vocabulary
                    .joined_compound(first, second)
                    .or_else(|| reversed().then(|| vocabulary.joined_compound(second, first)).flatten())?;
                Some((i, joined))
            })
            .collect();
        let mut unknown_words = Vec::new();
        for (at, c) in concepts.iter_mut().enumerate().filter(|(_, c)| !c.exact) {
            let joined = joins.iter().any(|(i, _)| at == *i || at + 1 == *i);
            let term = c.alternatives[0].terms[0].clone();
            let df = vocabulary.doc_freq(&term);
            let folded = extract::courts::fold(&c.word);
            // Statutes name the act (`Erhöhung`, `Pfändung`, `Befristung`) where people use the
            // verb (`erhöhen`, `gepfändet`, `befristeter`): its noun is one more way to match it,
            // when the statutes use that noun.
            let mut has_form = false;
            for noun in verb_nouns(&c.word) {
                let Some(noun_term) = query_words(&noun).into_iter().next() else { continue };
                if noun_term != term && vocabulary.doc_freq(&noun_term) >= PART_MIN_DOCS {
                    c.alternatives.push(Alternative { terms: vec![noun_term], via: Via::WordForm { noun } });
                    has_form = true;
                    break;
                }
            }
            // Statutes state a rule in the third person (`wer … besitzt`, `verkauft`, `quält`)
            // where people write the infinitive (`besitzen`, `verkaufen`, `quälen`); the stems
            // differ, so the third person is one more way to match the verb.
            // The form comes from grammar, not from a guess: one statute using it is enough
            // (`quält`: § 225 StGB), and the word is then no typo (`quälen` is no `quad`).
            if let Some(form) = third_person(&c.word)
                && let Some(form_term) = query_words(&form).into_iter().next()
                && form_term != term
                && vocabulary.doc_freq(&form_term) >= 1
            {
                c.alternatives.push(Alternative { terms: vec![form_term], via: Via::VerbForm { form } });
                has_form = true;
            }
            // `auszuschlagen` is `ausschlagen` with the infinitive's `zu`: the verb's own stem
            // matches its noun (`Ausschlagung`) where the form with `zu` matches nothing. And a
            // dictionary entry names the verb without `zu` (`Telefonat aufnehmen`): it fires
            // on `aufzunehmen` too, however often the statutes write that form.
            if let Some(plain) = without_infix_zu(&c.word.to_lowercase())
                && let Some(plain_term) = query_words(&plain).into_iter().next()
                && plain_term != term
                && (vocabulary.doc_freq(&plain_term) >= PART_MIN_DOCS.max(df + 1)
                    || register().is_lay_term(&plain_term))
            {
                c.alternatives.push(Alternative { terms: vec![plain_term], via: Via::Word });
                continue;
            }
            // `Tochter` is a `Kind` and `Papa` a `Vater` ([`crate::query::synonyms`]): the word
            // stood for is searched too and fires the dictionary's entries, as the caller's does.
            if let Some(target) = crate::query::synonyms::stands_for(&term) {
                c.alternatives.push(Alternative {
                    terms: vec![target.term.clone()],
                    via: Via::WordForm { noun: target.word.clone() },
                });
                continue;
            }
            // `Fotos`, `Nachbarn` and `Nachbarin` fire the entries of `Foto` and `Nachbar`: a noun
            // form the stemmer keeps apart is matched as its base noun when a dictionary entry
            // names that, or, but for a plural in `-s` (`Glas` is no `Gla`), when the statutes
            // write the base more often (`Vermieterin` finds the `Vermieter` of § 551 BGB).
            let base = base_nouns(&c.word).into_iter().find_map(|(base, form)| {
                let base_term = query_words(&base).into_iter().next()?;
                let known = register().is_lay_term(&base_term)
                    || (form != NounForm::PluralS && vocabulary.doc_freq(&base_term) >= PART_MIN_DOCS.max(df + 1));
                (base_term != term && known).then_some((base, base_term))
            });
            if let Some((base, base_term)) = base {
                let mut letters = base.chars();
                let noun = letters.next().map(|f| f.to_uppercase().chain(letters).collect()).unwrap_or_default();
                c.alternatives.push(Alternative { terms: vec![base_term], via: Via::WordForm { noun } });
                continue;
            }
            // Split only now: a word matched as its verb without `zu`, the word it stands for or
            // its base noun has gone on above, and the split is the analysis' dearest look-up.
            let split = (folded.chars().count() >= COMPOUND_MIN_CHARS && df < COMMON_WORD_DOCS)
                .then(|| vocabulary.split_compound(&folded).filter(|parts| parts.len() > 1))
                .flatten();
            if let Some(parts) = split {
                let whole_in_statutes = df >= PART_MIN_DOCS;
                c.alternatives.push(Alternative { terms: parts, via: Via::CompoundParts { whole_in_statutes } });
            } else if has_form || joined {
                // Matched through its noun, its third person or a compound: neither a typo nor
                // unknown.
            } else if df == 0
                && folded.chars().count() >= TYPO_MIN_CHARS
                && !vocabulary.elsewhere_a_word(&term)
                && !register().is_lay_word(&term)
                && !everyday::is_known_word(&c.word)
            {
                // (A dictionary lay word, `Stalking`, is matched through its entry, not
                // corrected to a statute word, `Stärkung`.)
                let distance = if folded.chars().count() >= 7 { 2 } else { 1 };
                match vocabulary.nearest(&term, &folded, distance) {
                    Some(fixed) => c
                        .alternatives
                        .push(Alternative { terms: vec![fixed], via: Via::TypoCorrection { typed: c.word.clone() } }),
                    None => unknown_words.push(c.word.clone()),
                }
            } else if df == 0 {
                unknown_words.push(c.word.clone());
            }
        }
        for (i, term) in joins {
            let words = [concepts[i - 1].word.clone(), concepts[i].word.clone()];
            for c in &mut concepts[i - 1..=i] {
                let via = Via::JoinedCompound { words: words.clone() };
                c.alternatives.push(Alternative { terms: vec![term.clone()], via });
            }
        }
        let mut plan = QueryPlan {
            concepts,
            optional_terms: Vec::new(),
            expansion: QueryExpansion::not_applied(query, ExpansionStatus::Abstained, ExpansionReason::NoEntryMatched),
            dropped_words,
            unknown_words,
            lay_words: Vec::new(),
        };
        if plan.concepts.is_empty() {
            plan.expansion = QueryExpansion::not_applied(query, ExpansionStatus::Skipped, ExpansionReason::EmptyQuery);
        } else if plan.concepts.iter().all(|c| c.exact) {
            plan.expansion =
                QueryExpansion::not_applied(query, ExpansionStatus::Skipped, ExpansionReason::PreciseIdentifier);
        } else if !expand {
            plan.expansion =
                QueryExpansion::not_applied(query, ExpansionStatus::Skipped, ExpansionReason::CallerOptedOut);
        } else {
            plan.apply_register(query, vocabulary);
        }
        plan
    }

    /// `query_analysis` in answers: what was done to the caller's words.
    pub fn report(&self) -> QueryAnalysis {
        let mut compounds_split = Vec::new();
        let mut typo_corrections = Vec::new();
        let mut word_forms = Vec::new();
        let mut verb_forms = Vec::new();
        let mut compounds_joined: Vec<JoinedCompound> = Vec::new();
        for c in &self.concepts {
            for a in &c.alternatives {
                match &a.via {
                    Via::CompoundParts { .. } => {
                        compounds_split.push(CompoundSplit { word: c.word.clone(), parts: a.terms.clone() })
                    }
                    Via::TypoCorrection { typed } => {
                        typo_corrections.push(TypoCorrection { typed: typed.clone(), searched: a.terms[0].clone() })
                    }
                    Via::WordForm { noun } => word_forms.push(WordForm { word: c.word.clone(), noun: noun.clone() }),
                    Via::VerbForm { form } => verb_forms.push(VerbForm { word: c.word.clone(), form: form.clone() }),
                    // Each of the two words holds it: reported once.
                    Via::JoinedCompound { words } if !compounds_joined.iter().any(|j| j.words == *words) => {
                        compounds_joined.push(JoinedCompound { words: words.clone(), term: a.terms[0].clone() })
                    }
                    _ => {}
                }
            }
        }
        QueryAnalysis {
            words: self.concepts.iter().map(|c| c.word.clone()).collect(),
            dropped_function_words: self.dropped_words.clone(),
            compounds_split,
            typo_corrections,
            word_forms,
            verb_forms,
            compounds_joined,
            unknown_words: self.unknown_words.clone(),
            everyday_words: self
                .concepts
                .iter()
                .filter(|c| !c.exact)
                .map(|c| (c, c.everyday_weight()))
                .filter(|(_, w)| *w < 1.0)
                .map(|(c, w)| EverydayWord { word: c.word.clone(), weight: (f64::from(w) * 100.0).round() / 100.0 })
                .collect(),
        }
    }

    /// Every term any alternative of any concept can match (what the query holds).
    pub fn all_terms(&self) -> BTreeSet<String> {
        self.concepts.iter().flat_map(|c| c.alternatives.iter().flat_map(|a| a.terms.iter().cloned())).collect()
    }

    /// Adds the legal-register entries whose lay words the query holds: a one-word entry as a
    /// further way to match that word, a longer one as optional terms.
    fn apply_register(&mut self, query: &str, vocabulary: &Vocabulary<'_>) {
        let held = self.all_terms();
        // A lay word counts when the caller's words hold it, except as a part of a compound the
        // statutes write whole: `Mahnbescheid` is no `Bescheid` to expand.
        self.lay_words = self
            .concepts
            .iter()
            .map(|c| {
                let terms = c.alternatives.iter().filter(|a| fires_entries(a)).flat_map(|a| a.terms.iter().cloned());
                (c.word.clone(), terms.collect::<BTreeSet<String>>().into_iter().collect::<Vec<String>>())
            })
            .filter(|(_, terms)| !terms.is_empty())
            .collect();
        let lay_held: BTreeSet<String> = self.lay_words.iter().flat_map(|(_, terms)| terms.iter().cloned()).collect();
        let mut added = Vec::new();
        let mut held_back = Vec::new();
        for entry in register().matching(&lay_held) {
            let mut lay_concepts: Vec<usize> = entry
                .lay_terms
                .iter()
                .filter_map(|lay| {
                    self.concepts
                        .iter()
                        .position(|c| c.alternatives.iter().any(|a| fires_entries(a) && a.terms.contains(lay)))
                })
                .collect();
            lay_concepts.sort_unstable();
            lay_concepts.dedup();
            let lay_words = lay_concepts.len();
            // A word the index holds often matches well alone ([`Vocabulary::holding_back_phrases`]):
            // its one-word terms still join it; the phrases held back are reported.
            let narrowed;
            let mut entry = entry;
            if let [at] = lay_concepts[..]
                && vocabulary.holds_back_phrases
            {
                let documents = vocabulary.doc_freq(&self.concepts[at].alternatives[0].terms[0]);
                if documents >= COMMON_WORD_DOCS {
                    let (one_word, several) = entry.split_by_phrase_length();
                    if let Some(several) = several {
                        held_back.push((several, documents));
                    }
                    let Some(one_word) = one_word else { continue };
                    narrowed = one_word;
                    entry = &narrowed;
                }
            }
            // Each legal phrase is one more way to match each of the entry's lay words (all of
            // the phrase's terms), unless the query holds it already: one of its words, or
            // one way to match a word, lies within the phrase. The query may hold a phrase's
            // terms only beside others: `Arbeitszeugnis` holds `zeugnis` as a compound part,
            // beside `arbeit`, and `Zeugnis` alone (§ 109 GewO) is the way the entry adds.
            let implied = |terms: &Vec<String>| {
                self.concepts.iter().flat_map(|c| &c.alternatives).any(|a| a.terms.iter().all(|t| terms.contains(t)))
            };
            let phrases: Vec<&Vec<String>> = entry
                .phrases
                .iter()
                .filter(|terms| !terms.is_empty() && (!terms.iter().all(|t| held.contains(t)) || !implied(terms)))
                .collect();
            // The terms the entry adds: those the query did not hold, and those of a phrase
            // that is a new way to match.
            let mut new: Vec<String> = entry.legal_terms.iter().filter(|t| !held.contains(*t)).cloned().collect();
            for t in phrases.iter().copied().flatten() {
                if !new.contains(t) {
                    new.push(t.clone());
                }
            }
            if new.is_empty() {
                continue;
            }
            for at in lay_concepts {
                let c = &mut self.concepts[at];
                for terms in &phrases {
                    c.alternatives.push(Alternative {
                        terms: (*terms).clone(),
                        via: Via::Expansion { lay: entry.lay.clone(), lay_words },
                    });
                }
                // A lay word no statute holds is matched through the statute's terms now:
                // it restricts again, and is no longer reported as unknown.
                if !phrases.is_empty() {
                    let word = c.word.clone();
                    self.unknown_words.retain(|w| *w != word);
                }
            }
            if entry.lay_terms.len() > 1 {
                for t in &new {
                    if !self.optional_terms.contains(t) {
                        self.optional_terms.push(t.clone());
                    }
                }
            }
            added.push((entry.clone(), new));
        }
        self.expansion = if added.is_empty() {
            let reason =
                if held_back.is_empty() { ExpansionReason::NoEntryMatched } else { ExpansionReason::WordHeldOften };
            QueryExpansion { held_back, ..QueryExpansion::not_applied(query, ExpansionStatus::Abstained, reason) }
        } else {
            QueryExpansion {
                status: ExpansionStatus::Applied,
                reason: None,
                original_query: query.to_string(),
                added,
                held_back,
            }
        };
    }
}

/// Whether an alternative's terms can fire dictionary entries: not the parts of a compound the
/// statutes write whole, nor terms the dictionary itself added.
fn fires_entries(a: &Alternative) -> bool {
    !matches!(a.via, Via::CompoundParts { whole_in_statutes: true } | Via::Expansion { .. })
}

/// The word query of a plan: each concept (`occur`: every concept or any) matched by any of its
/// alternatives (an alternative = all its terms, in any field, each field with its boost), plus
/// the optional added terms, which rank and never restrict.
pub fn plan_query(
    plan: &QueryPlan,
    fields: &[(Field, f32)],
    occur: Occur,
    filters: Vec<(Occur, Box<dyn Query>)>,
) -> BooleanQuery {
    assemble(plan, fields, occur, filters, true)
}

/// The query that decides which passages match [`plan_query`] with the same arguments: the
/// same clauses, less those that only rank when a required clause already decides (the
/// ranking ones, and alternatives another alternative implies). They cannot change the set
/// then, and a common added term (`beteiligt`) would cost a walk over its postings for every
/// match counted.
pub fn plan_match_query(
    plan: &QueryPlan,
    fields: &[(Field, f32)],
    occur: Occur,
    filters: Vec<(Occur, Box<dyn Query>)>,
) -> BooleanQuery {
    assemble(plan, fields, occur, filters, false)
}

/// Whether a required clause decides the set alone (the clauses that only rank cannot change it).
fn decides(plan: &QueryPlan, occur: Occur) -> bool {
    occur == Occur::Must && plan.concepts.iter().any(|c| plan.restricts(c))
}

/// Whether alternative `i` of `c` matches only where another alternative matches (its terms
/// hold all of the other's; of two equal ones the later): it can raise a score, never add a
/// match (`Akteneinsicht` ∧ `beteiligt` beside `Akteneinsicht`).
fn subsumed(c: &Concept, i: usize) -> bool {
    let a = &c.alternatives[i];
    c.alternatives
        .iter()
        .enumerate()
        .any(|(j, b)| j != i && b.terms.iter().all(|t| a.terms.contains(t)) && (b.terms.len() < a.terms.len() || j < i))
}

/// How much an alternative's terms weigh against the words as typed.
pub fn alternative_weight(via: &Via) -> f32 {
    match via {
        Via::Word => 1.0,
        Via::TypoCorrection { .. } => 0.9,
        // A dictionary entry standing for several of the caller's words counts once in all.
        Via::Expansion { lay_words, .. } => 0.8 / (*lay_words).max(1) as f32,
        Via::CompoundParts { .. } | Via::WordForm { .. } | Via::VerbForm { .. } | Via::JoinedCompound { .. } => 0.8,
    }
}

/// The weight of an added (dictionary) term, which only ranks.
const OPTIONAL_TERM_WEIGHT: f32 = 0.5;

/// The clauses of a plan as one query: the required ones under `occur`, the filters, and the
/// ranking ones unless `for_ranking` is false and a required clause decides the set alone.
fn assemble(
    plan: &QueryPlan,
    fields: &[(Field, f32)],
    occur: Occur,
    filters: Vec<(Occur, Box<dyn Query>)>,
    for_ranking: bool,
) -> BooleanQuery {
    let decides = decides(plan, occur);
    // A count needs no clause that only ranks: neither the ranking ones nor the alternatives
    // another one implies.
    let count_only = !for_ranking && decides;
    let PlanClauses { mut required, ranking } = concept_clauses(plan, fields, count_only);
    // One required concept alone is its union of ways, matching and scoring as the query
    // wrapping it does. Unwrapped, a union of single terms is ranked by block-max WAND (tantivy
    // skips the blocks that cannot reach the top); wrapped, every match is scored.
    if required.len() == 1 && occur == Occur::Must && filters.is_empty() && (count_only || ranking.is_empty()) {
        return required.remove(0);
    }
    let mut clauses = if count_only { Vec::new() } else { ranking };
    clauses.extend(required.into_iter().map(|q| (occur, Box::new(q) as Box<dyn Query>)));
    clauses.extend(filters);
    BooleanQuery::new(clauses)
}

/// The clauses of a plan for one walk over the sections ([`crate::query::section_walk`]): one
/// per concept that restricts, in the plan's order (as [`plan_concept_queries`]), and those
/// that only rank, as one union (it scores a section the sum of those it holds, as they add to
/// [`plan_query`]'s score; one scorer to move instead of one per term and field). A section
/// scores the sum of what it holds, as in [`plan_query`] and in the query holding all but one
/// concept.
pub fn plan_walk_clauses(plan: &QueryPlan, fields: &[(Field, f32)], filter: Option<Box<dyn Query>>) -> WalkClauses {
    let PlanClauses { required, ranking } = concept_clauses(plan, fields, false);
    let ranking = (!ranking.is_empty()).then(|| Box::new(BooleanQuery::new(ranking)) as Box<dyn Query>);
    WalkClauses { required: boxed(required), ranking, filter }
}

/// One query per concept that restricts, with the concept's index in the plan: which documents
/// hold that word, in any of its ways (nothing is scored).
pub fn plan_concept_queries(plan: &QueryPlan, fields: &[(Field, f32)]) -> Vec<(usize, Box<dyn Query>)> {
    let PlanClauses { required, .. } = concept_clauses(plan, fields, true);
    let restricting = plan.concepts.iter().enumerate().filter(|(_, c)| plan.restricts(c)).map(|(i, _)| i);
    restricting.zip(boxed(required)).collect()
}

fn boxed(queries: Vec<BooleanQuery>) -> Vec<Box<dyn Query>> {
    queries.into_iter().map(|q| Box::new(q) as Box<dyn Query>).collect()
}

/// How much a document holding a concept tells, as an inverse document frequency over
/// `num_docs`: `ln(1 + N / (1 + df))`, `df` the documents that hold the concept in any of its
/// ways, counted (a way of several terms, a compound's parts or a dictionary entry's terms,
/// matches far fewer documents than its commonest term). `misshandeln` weighs more than
/// `Person`.
pub fn concept_weight(df: u64, num_docs: u64) -> f32 {
    (1.0 + num_docs as f32 / (1.0 + df as f32)).ln()
}

/// The clauses of a plan.
struct PlanClauses {
    /// One per concept that restricts, the union of its ways (the caller decides how).
    required: Vec<BooleanQuery>,
    /// `Should` clauses that only rank (unknown words, bare numbers beside words, added terms).
    ranking: Vec<(Occur, Box<dyn Query>)>,
}

/// `count_only`: leave out the alternatives of a required concept that another implies
/// ([`subsumed`]), for a query that decides the set and is not scored.
fn concept_clauses(plan: &QueryPlan, fields: &[(Field, f32)], count_only: bool) -> PlanClauses {
    let field_clauses = |t: &str, weight: f32| -> Vec<(Occur, Box<dyn Query>)> {
        fields
            .iter()
            .map(|(field, boost)| {
                let tq = TermQuery::new(Term::from_field_text(*field, t), IndexRecordOption::WithFreqs);
                (Occur::Should, Box::new(BoostQuery::new(Box::new(tq), boost * weight)) as Box<dyn Query>)
            })
            .collect()
    };
    let mut required: Vec<BooleanQuery> = Vec::new();
    let mut ranking: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    // A one-term alternative's field clauses join the union it is part of directly: the same
    // sum of scores and the same matches, with one union less to walk per document (most of a
    // search's time is spent advancing unions). A compound's terms are all required.
    let alternative_clauses = |a: &Alternative, factor: f32| -> Vec<(Occur, Box<dyn Query>)> {
        let weight = alternative_weight(&a.via) * factor;
        match a.terms.as_slice() {
            [t] => field_clauses(t, weight),
            terms => {
                let all: Vec<(Occur, Box<dyn Query>)> = terms
                    .iter()
                    .map(|t| {
                        let per_field = BooleanQuery::new(field_clauses(t, weight / terms.len() as f32));
                        (Occur::Must, Box::new(per_field) as Box<dyn Query>)
                    })
                    .collect();
                vec![(Occur::Should, Box::new(BooleanQuery::new(all)) as Box<dyn Query>)]
            }
        }
    };
    for c in &plan.concepts {
        let restricts = plan.restricts(c);
        let factor = c.everyday_weight();
        let mut alternatives: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for (i, a) in c.alternatives.iter().enumerate() {
            if restricts && subsumed(c, i) {
                // It matches only where another alternative of the concept matches, so as a
                // clause of its own beside the concept it adds the same score (scores are
                // summed) and is sought only in the passages that match: inside the concept's
                // union it was walked over its whole postings. A count leaves it out.
                if !count_only {
                    ranking.extend(alternative_clauses(a, factor));
                }
                continue;
            }
            alternatives.extend(alternative_clauses(a, factor));
        }
        let q = BooleanQuery::new(alternatives);
        if restricts {
            required.push(q);
        } else {
            ranking.push((Occur::Should, Box::new(q)));
        }
    }
    for t in &plan.optional_terms {
        ranking.extend(field_clauses(t, OPTIONAL_TERM_WEIGHT));
    }
    PlanClauses { required, ranking }
}

#[cfg(test)]
mod tests {
    use super::{
        Alternative, Concept, QueryPlan, Via, alternative_weight, plan_match_query, plan_query, subsumed, third_person,
        verb_nouns, without_infix_zu,
    };

    #[test]
    fn an_infinitive_is_also_searched_in_the_third_person_a_statute_states_rules_in() {
        for (word, form) in [
            ("besitzen", "besitzt"),
            ("quälen", "quält"),
            ("töten", "tötet"),
            ("schädigen", "schädigt"),
            ("misshandeln", "misshandelt"),
            ("verhindern", "verhindert"),
            ("rechnen", "rechnet"),
            ("atmen", "atmet"),
            ("verkaufen", "verkauft"),
            ("lernen", "lernt"),
            ("wohnen", "wohnt"),
            ("brennen", "brennt"),
            ("wegnehmen", "wegnimmt"),
            ("erwerben", "erwirbt"),
            ("verstoßen", "verstößt"),
            ("geben", "gibt"),
            ("vergessen", "vergisst"),
            ("entlassen", "entlässt"),
            ("betreten", "betritt"),
        ] {
            assert_eq!(third_person(word).as_deref(), Some(form), "{word}");
        }
        // Nouns (capitalised), participles, short words and words with digits have none.
        for word in ["Tagen", "Kaution", "gebissen", "gestohlen", "gegeben", "gelesen", "b2b"] {
            assert_eq!(third_person(word), None, "{word}");
        }
    }

    #[test]
    fn a_dictionary_entry_for_several_words_weighs_as_much_in_all_as_one_for_one_word() {
        let one = alternative_weight(&Via::Expansion { lay: "Kaution".into(), lay_words: 1 });
        let two = alternative_weight(&Via::Expansion { lay: "Heizung Miete".into(), lay_words: 2 });
        assert!((2.0 * two - one).abs() < 1e-6, "{one} vs 2 x {two}");
        assert!(one < alternative_weight(&Via::Word), "an added term never outweighs the caller's word");
    }

    #[test]
    fn a_verb_in_lower_case_is_also_searched_as_its_noun_and_a_noun_never() {
        for (word, noun) in [
            ("erhöhen", "Erhöhung"),
            ("verringern", "Verringerung"),
            ("anfechten", "Anfechtung"),
            ("gepfändet", "Pfändung"),
            ("gespeicherten", "Speicherung"),
            ("angemeldet", "Anmeldung"),
            ("befristeter", "Befristung"),
            ("beschädigt", "Beschädigung"),
            ("gekündigt", "Kündigung"),
            ("durchsucht", "Durchsuchung"),
            ("überwacht", "Überwachung"),
            ("durchgeführt", "Durchführung"),
        ] {
            assert!(verb_nouns(word).contains(&noun.to_string()), "{word}: {:?}", verb_nouns(word));
        }
        // A capitalised word is a noun (`Tagen` is no `Tagung`); a strong participle, an adverb
        // and a word with digits have no noun in -ung.
        for word in ["Tagen", "Zeugen", "gebissen", "nicht", "recht", "jetzt", "b2b", "tun"] {
            assert_eq!(verb_nouns(word), Vec::<String>::new(), "{word}");
        }
    }
    use crate::query::expansion::QueryExpansion;
    use tantivy::collector::TopDocs;
    use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
    use tantivy::schema::{IndexRecordOption, STORED, Schema, TEXT};
    use tantivy::{Index, TantivyDocument, Term, doc};

    #[test]
    fn an_implied_alternative_ranks_beside_its_concept_with_the_scores_of_the_concepts_union() {
        let mut b = Schema::builder();
        let text = b.add_text_field("text", TEXT | STORED);
        let index = Index::create_in_ram(b.build());
        let mut w: tantivy::IndexWriter<TantivyDocument> = index.writer_with_num_threads(1, 15_000_000).unwrap();
        for t in [
            "akteneinsicht behorde",
            "akteneinsicht beteiligt behorde behorde",
            "akteneinsicht beteiligt",
            "beteiligt behorde",
            "akteneinsicht akteneinsicht behorde beteiligt beteiligt",
            "behorde",
        ] {
            w.add_document(doc!(text => t)).unwrap();
        }
        w.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        let alt = |terms: &[&str], via: Via| Alternative { terms: terms.iter().map(|t| t.to_string()).collect(), via };
        let concept =
            |word: &str, alternatives: Vec<Alternative>| Concept { word: word.into(), alternatives, exact: false };
        let plan = plan_of(vec![
            concept(
                "Akteneinsicht",
                vec![
                    alt(&["akteneinsicht"], Via::Word),
                    alt(&["akteneinsicht", "beteiligt"], Via::Expansion { lay: "Akteneinsicht".into(), lay_words: 1 }),
                ],
            ),
            concept("Behörde", vec![alt(&["behorde"], Via::Word)]),
        ]);
        let fields = [(text, 1.0f32)];
        // The reference: each concept the union of all its alternatives (their scores summed).
        let term = |t: &str, weight: f32| -> Box<dyn Query> {
            let tq = TermQuery::new(Term::from_field_text(text, t), IndexRecordOption::WithFreqs);
            Box::new(BooleanQuery::new(vec![(
                Occur::Should,
                Box::new(BoostQuery::new(Box::new(tq), weight)) as Box<dyn Query>,
            )]))
        };
        let all = |terms: &[(&str, f32)]| -> Box<dyn Query> {
            Box::new(BooleanQuery::new(terms.iter().map(|(t, w)| (Occur::Must, term(t, *w))).collect()))
        };
        let union = |alts: Vec<Box<dyn Query>>| -> Box<dyn Query> {
            Box::new(BooleanQuery::new(alts.into_iter().map(|a| (Occur::Should, a)).collect()))
        };
        // Each concept's clauses carry its word's everyday weight (`Behörde` is a common word).
        let (a, b) = (crate::query::everyday::weight("Akteneinsicht"), crate::query::everyday::weight("Behörde"));
        let reference = BooleanQuery::new(vec![
            (
                Occur::Must,
                union(vec![all(&[("akteneinsicht", a)]), all(&[("akteneinsicht", 0.4 * a), ("beteiligt", 0.4 * a)])]),
            ),
            (Occur::Must, union(vec![all(&[("behorde", b)])])),
        ]);
        let ranked = |q: &dyn Query| -> Vec<(u32, f32)> {
            let mut v: Vec<(u32, f32)> = searcher
                .search(q, &TopDocs::with_limit(10).order_by_score())
                .unwrap()
                .into_iter()
                .map(|(score, a)| (a.doc_id, score))
                .collect();
            v.sort_by_key(|(doc, _)| *doc);
            v
        };
        let (want, got) = (ranked(&reference), ranked(&plan_query(&plan, &fields, Occur::Must, Vec::new())));
        assert_eq!(want.iter().map(|d| d.0).collect::<Vec<_>>(), [0, 1, 4]);
        assert_eq!(got.iter().map(|d| d.0).collect::<Vec<_>>(), [0, 1, 4]);
        for ((_, a), (_, b)) in want.iter().zip(&got) {
            assert!((a - b).abs() < 1e-5, "{want:?} {got:?}");
        }
        // The implied alternative raises the passages holding it above the one that does not.
        assert!(got[2].1 > got[0].1 && got[1].1 > got[0].1, "{got:?}");
        let count = plan_match_query(&plan, &fields, Occur::Must, Vec::new());
        assert_eq!(ranked(&count).iter().map(|d| d.0).collect::<Vec<_>>(), [0, 1, 4]);
    }

    /// A plan of these concepts as the analysis would leave it, with nothing added or dropped.
    fn plan_of(concepts: Vec<Concept>) -> QueryPlan {
        QueryPlan {
            concepts,
            optional_terms: Vec::new(),
            expansion: QueryExpansion::not_applied(
                "",
                model::ExpansionStatus::Skipped,
                model::ExpansionReason::EmptyQuery,
            ),
            dropped_words: Vec::new(),
            unknown_words: Vec::new(),
            lay_words: Vec::new(),
        }
    }

    /// A plan of `query` against a one-field index of `word_docs` documents holding `word` and a
    /// few holding the other `words` (index terms, as the query's words become).
    fn plan_over(query: &str, word: &str, word_docs: usize, words: &[&str], hold_back: bool) -> QueryPlan {
        use crate::query::text::query_words;
        use tantivy::schema::{Schema, TEXT};
        use tantivy::{Index, TantivyDocument, doc};
        let mut b = Schema::builder();
        let text = b.add_text_field("text", TEXT);
        let index = Index::create_in_ram(b.build());
        let mut w: tantivy::IndexWriter<TantivyDocument> = index.writer_with_num_threads(1, 15_000_000).unwrap();
        let term = |w: &str| query_words(w).join(" ");
        for _ in 0..word_docs {
            w.add_document(doc!(text => term(word))).unwrap();
        }
        for _ in 0..5 {
            w.add_document(doc!(text => words.iter().map(|w| term(w)).collect::<Vec<_>>().join(" "))).unwrap();
        }
        w.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        let vocabulary = super::Vocabulary::new(&searcher, vec![text]);
        QueryPlan::analyse(query, &if hold_back { vocabulary.holding_back_phrases() } else { vocabulary }, true)
    }

    #[test]
    fn a_question_word_written_as_one_restricts_nothing_weighs_least_and_still_fires_its_entries() {
        // Two documents hold `wieviel` (as § 41 BWahlG does), five the other words.
        let plan = plan_over("wieviel Kindergeld bekomme ich", "wieviel", 2, &["Kindergeld"], false);
        let q = plan.concepts.iter().find(|c| c.word == "wieviel").unwrap();
        assert!(!plan.restricts(q), "a section need not hold it");
        assert_eq!(q.everyday_weight(), crate::query::everyday::LEAST_WEIGHT);
        let kindergeld = plan.concepts.iter().find(|c| c.word == "Kindergeld").unwrap();
        assert!(plan.restricts(kindergeld));
        // `Kindergeld wieviel` (§ 66 EStG, the amount) fires.
        assert!(plan.expansion.added.iter().any(|(e, _)| e.lay == "Kindergeld wieviel"), "{:?}", plan.expansion.added);
        // Another word as rare in the statutes restricts and weighs fully.
        let rare = plan_over("Kindergeld Zwillinge", "Zwillinge", 2, &["Kindergeld"], false);
        let z = rare.concepts.iter().find(|c| c.word == "Zwillinge").unwrap();
        assert!(rare.restricts(z));
    }

    #[test]
    fn a_zu_infinitive_fires_the_dictionary_entry_of_its_verb_however_often_the_statutes_write_it() {
        // `aufzunehmen` is held by 50 documents, `aufnehmen` by 5: the zu-form matches well
        // alone, and `Telefonat aufnehmen` (§ 201 StGB) fires all the same.
        let plan = plan_over("Telefonat heimlich aufzunehmen", "aufzunehmen", 50, &["aufnehmen", "Telefonat"], false);
        let fired: Vec<&str> = plan.expansion.added.iter().map(|(e, _)| e.lay.as_str()).collect();
        assert!(fired.contains(&"Telefonat aufnehmen"), "{fired:?}");
        let verb = plan.concepts.iter().find(|c| c.word == "aufzunehmen").unwrap();
        assert!(verb.alternatives.iter().any(|a| a.terms == crate::query::text::query_words("aufnehmen")));
        // Written without `zu`, the verb fires it as before.
        let plain = plan_over("Telefonat aufnehmen", "aufzunehmen", 50, &["aufnehmen", "Telefonat"], false);
        assert!(plain.expansion.added.iter().any(|(e, _)| e.lay == "Telefonat aufnehmen"));
    }

    #[test]
    fn a_plural_in_s_or_n_and_a_feminine_fire_the_dictionary_entries_of_their_base_noun() {
        use crate::query::text::query_words;
        // The stemmer keeps the `s` of `Fotos`, so the plural alone never met `Foto veröffentlichen`.
        assert_ne!(query_words("Fotos"), query_words("Foto"));
        let plan = plan_over("Nachbar will Fotos von mir veröffentlichen", "Nachbar", 5, &["veröffentlichen"], false);
        let fired: Vec<&str> = plan.expansion.added.iter().map(|(e, _)| e.lay.as_str()).collect();
        assert!(fired.contains(&"Foto veröffentlichen"), "{fired:?}");
        let bases = |w: &str| super::base_nouns(w).into_iter().map(|(b, _)| b).collect::<Vec<_>>();
        assert_eq!(bases("Handys"), ["handy"]);
        assert_eq!(bases("Kitas"), ["kita"]);
        assert_eq!(bases("Nachbarn"), ["nachbar"]);
        assert_eq!(bases("Regeln"), ["regel"]);
        assert_eq!(bases("Nachbarin"), ["nachbar"]);
        assert_eq!(bases("Vermieterinnen"), ["vermieter"]);
        // Words that end so and are no such form stay themselves.
        for word in ["Haus", "Preis", "Bus", "Gas", "Kurs", "Recht", "handeln", "wandern", "Verein", "Stein", "Kamin"] {
            assert!(bases(word).is_empty(), "{word}: {:?}", bases(word));
        }
        // `Nachbarin` and `Nachbarn` fire `Baum Nachbar` (§ 910 BGB) as `Nachbar` does.
        for query in ["Baum der Nachbarin", "Baum des Nachbarn"] {
            let plan = plan_over(query, "Grundstück", 5, &["Baum", "Nachbar"], false);
            let fired: Vec<&str> = plan.expansion.added.iter().map(|(e, _)| e.lay.as_str()).collect();
            assert!(fired.contains(&"Baum Nachbar"), "{query}: {fired:?}");
        }
    }

    #[test]
    fn an_everyday_word_searches_and_fires_as_the_word_it_stands_for() {
        use crate::query::text::query_words;
        // "Kind sehen" (§ 1684 BGB) names `Kind`; the caller wrote `Tochter`.
        let plan = plan_over("Ex lässt mich meine Tochter nicht sehen", "sehen", 5, &["Kind"], false);
        let fired: Vec<&str> = plan.expansion.added.iter().map(|(e, _)| e.lay.as_str()).collect();
        assert!(fired.contains(&"Kind sehen"), "{fired:?}");
        let daughter = plan.concepts.iter().find(|c| c.word == "Tochter").unwrap();
        assert!(
            daughter
                .alternatives
                .iter()
                .any(|a| a.terms == query_words("Kind") && matches!(&a.via, Via::WordForm { noun } if noun == "Kind")),
            "{daughter:?}"
        );
    }

    #[test]
    fn of_two_compound_splits_whose_rarest_part_is_as_common_the_one_with_the_commoner_other_part_wins() {
        // `handwerk|errechnung` and `handwerker|rechnung` both have a rarest part held by 5
        // documents (`handwerk`); `rechnung` is held by 50, `errechnung` by 5.
        let plan = plan_over("Handwerkerrechnung", "Rechnung", 50, &["Handwerker", "Errechnung"], false);
        let parts: Vec<&Vec<String>> = plan.concepts[0]
            .alternatives
            .iter()
            .filter(|a| matches!(a.via, Via::CompoundParts { .. }))
            .map(|a| &a.terms)
            .collect();
        assert_eq!(parts, [&vec!["handwerk".to_string(), "rechnung".to_string()]], "{:?}", plan.concepts[0]);
    }

    #[test]
    fn a_word_the_index_holds_often_is_not_widened_by_a_dictionary_phrase_of_several_words_and_says_so() {
        use model::{ExpansionReason, ExpansionStatus};
        let phrase = ["Zugang", "amtlichen", "Informationen", "Minderung", "Mangel", "Mietsache"];
        let ways = |p: &QueryPlan| -> Vec<Vec<String>> {
            p.concepts[0]
                .alternatives
                .iter()
                .filter(|a| matches!(a.via, Via::Expansion { .. }))
                .map(|a| a.terms.clone())
                .collect()
        };
        // Held by 399 documents: the phrase ("Zugang zu amtlichen Informationen", § 1 IFG) is a
        // way to match the word.
        let rare = plan_over("Informationsfreiheit", "Informationsfreiheit", 399, &phrase, true);
        assert_eq!(rare.expansion.status, ExpansionStatus::Applied);
        assert_eq!(ways(&rare).len(), 1, "{:?}", rare.concepts[0].alternatives);
        assert!(rare.expansion.held_back.is_empty());
        // Held by 400: the word matches alone, and the answer names the phrase held back.
        let common = plan_over("Informationsfreiheit", "Informationsfreiheit", 400, &phrase, true);
        assert_eq!(
            (common.expansion.status, common.expansion.reason),
            (ExpansionStatus::Abstained, Some(ExpansionReason::WordHeldOften))
        );
        assert!(ways(&common).is_empty(), "{:?}", common.concepts[0].alternatives);
        let report = common.expansion.report();
        assert_eq!(report.phrases_held_back.len(), 1);
        let held = &report.phrases_held_back[0];
        assert_eq!(
            (held.legal_terms.clone(), held.word_documents),
            (vec!["Zugang zu amtlichen Informationen".to_string()], 400)
        );
        // An entry with a one-word term beside its phrases (Mietminderung: Minderung; Mangel der
        // Mietsache) keeps the one word for a common word, and holds back only the phrase.
        let common = plan_over("Mietminderung", "Mietminderung", 400, &phrase, true);
        assert_eq!(common.expansion.status, ExpansionStatus::Applied);
        assert_eq!(ways(&common), [crate::query::text::query_words("Minderung")]);
        let report = common.expansion.report();
        assert_eq!(report.added_terms[0].legal_terms, ["Minderung"]);
        assert_eq!(report.phrases_held_back[0].legal_terms, ["Mangel der Mietsache"]);
        let rare = plan_over("Mietminderung", "Mietminderung", 10, &phrase, true);
        assert_eq!(ways(&rare).len(), 2, "{:?}", rare.concepts[0].alternatives);
        // An index searched without holding back (the statutes) keeps the phrase however often
        // it holds the word.
        let statutes = plan_over("Informationsfreiheit", "Informationsfreiheit", 400, &phrase, false);
        assert_eq!(statutes.expansion.status, ExpansionStatus::Applied);
        assert_eq!(ways(&statutes).len(), 1);
    }

    #[test]
    fn one_required_word_alone_is_searched_as_its_flat_union_and_a_ranking_term_never_widens_it() {
        use tantivy::collector::TopDocs;
        use tantivy::query::{BooleanQuery, Occur, Query};
        use tantivy::schema::{Schema, TEXT};
        use tantivy::{Index, TantivyDocument, doc};
        let mut b = Schema::builder();
        let (text, heading) = (b.add_text_field("text", TEXT), b.add_text_field("heading", TEXT));
        let index = Index::create_in_ram(b.build());
        let mut w: tantivy::IndexWriter<TantivyDocument> = index.writer_with_num_threads(1, 15_000_000).unwrap();
        for (t, h) in
            [("behorde", ""), ("behorde frist", "behorde"), ("frist", ""), ("", "behorde"), ("frist frist", "")]
        {
            w.add_document(doc!(text => t, heading => h)).unwrap();
        }
        w.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        let ranked = |q: &dyn Query| -> Vec<(u32, f32)> {
            searcher
                .search(q, &TopDocs::with_limit(10).order_by_score())
                .unwrap()
                .into_iter()
                .map(|(s, a)| (a.doc_id, s))
                .collect()
        };
        let word = |w: &str| Concept {
            word: w.into(),
            alternatives: vec![Alternative { terms: vec![w.into()], via: Via::Word }],
            exact: false,
        };
        let mut plan = plan_of(vec![word("behorde")]);
        let fields = [(text, 1.0f32), (heading, 2.0)];
        let flat = plan_query(&plan, &fields, Occur::Must, Vec::new());
        assert!(flat.clauses().iter().all(|(o, _)| *o == Occur::Should), "a union of its ways: {flat:?}");
        let wrapped = BooleanQuery::new(vec![(Occur::Must, Box::new(flat.clone()) as Box<dyn Query>)]);
        assert_eq!(ranked(&flat), ranked(&wrapped), "the same matches and scores as the wrapped query");
        assert_eq!(ranked(&flat).len(), 3);
        // A term that only ranks keeps the word required: `frist` alone matches nothing.
        plan.optional_terms.push("frist".into());
        let with_ranking = plan_query(&plan, &fields, Occur::Must, Vec::new());
        let mut docs: Vec<u32> = ranked(&with_ranking).into_iter().map(|(d, _)| d).collect();
        docs.sort_unstable();
        assert_eq!(docs, [0, 1, 3]);
    }

    #[test]
    fn an_alternative_holding_all_of_anothers_terms_is_implied_by_it_and_of_equal_ones_the_later() {
        let alt = |terms: &[&str]| Alternative { terms: terms.iter().map(|t| t.to_string()).collect(), via: Via::Word };
        let c = Concept {
            word: "Akteneinsicht".into(),
            alternatives: vec![
                alt(&["akteneinsicht"]),
                alt(&["akteneinsicht", "beteiligt"]),
                alt(&["akte", "einsicht"]),
                alt(&["einsicht", "akte"]),
            ],
            exact: false,
        };
        let implied: Vec<bool> = (0..4).map(|i| subsumed(&c, i)).collect();
        assert_eq!(implied, [false, true, false, true]);
    }

    #[test]
    fn a_zu_infinitive_of_a_separable_verb_loses_its_zu_and_nothing_else_does() {
        assert_eq!(without_infix_zu("auszuschlagen").as_deref(), Some("ausschlagen"));
        assert_eq!(without_infix_zu("zurückzuzahlen").as_deref(), Some("zurückzahlen"));
        assert_eq!(without_infix_zu("einzulegen").as_deref(), Some("einlegen"));
        for word in ["zuzahlen", "anzug", "ausschlagen", "abzug", "einzugsermächtigung", "zuerst"] {
            assert_eq!(without_infix_zu(word), None, "{word}");
        }
    }
}
