//! German text analysis, shared by indexing and querying (so both sides agree):
//! simple tokens → drop tokens over 64 bytes → lowercase → fold ä/ae, ö/oe, ü/ue, ß/ss →
//! German Snowball stemmer. "Schaefer" and "Schäfer", "Strasse" and "Straße" meet.
//!
//! The statutes also get their compounds split at index time ([`german_compound_analyzer`]):
//! a section's `parts` field holds `körper` + `verletzung` for its `Körperverletzung`, so a
//! question's `verletzen` finds the § headed "Körperverletzung", while the section's own fields
//! keep the words as written (their ranking is unchanged; `parts` weighs less). The parts come
//! from the statutes' own vocabulary ([`CompoundDictionary`]), with the linking morphemes of
//! German.

use std::collections::HashMap;
use std::sync::Arc;

use tantivy::Index;
use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer, TextAnalyzer, Token, TokenFilter, TokenStream,
    Tokenizer,
};

/// Name under which the analyzer is registered on every index of a generation.
pub const GERMAN: &str = "de_folded";

/// Name of the analyzer that emits only the parts of compounds (the statutes' `parts` field).
pub const GERMAN_COMPOUND: &str = "de_folded_compound_parts";

/// Version of the analysis: part of a generation's input hash, so a change reindexes.
pub const ANALYSIS_VERSION: &str = "compound-parts-1";

/// Shortest word split as a compound, and shortest part.
const COMPOUND_MIN_CHARS: usize = 9;
const PART_MIN_CHARS: usize = 4;
/// A part must occur this often in the corpus to count as a word of its own.
const PART_MIN_COUNT: u32 = 20;
/// Linking morphemes (Fugenelemente) a compound's head may end with.
const LINKING: &[&str] = &["es", "en", "s", "n", "e"];

/// The words of a corpus (lower case, umlauts folded as [`fold_german`] does) and how often
/// each occurs: what a compound may be split into.
#[derive(Debug, Default)]
pub struct CompoundDictionary {
    counts: HashMap<String, u32>,
}

impl CompoundDictionary {
    /// Counts the words of `text`.
    pub fn add(&mut self, text: &str) {
        // One analyzer per thread, not per text: `index build` counts every section of every law.
        thread_local! {
            static WORDS: std::cell::RefCell<TextAnalyzer> = std::cell::RefCell::new(folded_words().build());
        }
        WORDS.with_borrow_mut(|analyzer| self.count_words(analyzer, text));
    }

    fn count_words(&mut self, analyzer: &mut TextAnalyzer, text: &str) {
        let mut ts = analyzer.token_stream(text);
        while ts.advance() {
            let t = &ts.token().text;
            if t.chars().count() >= PART_MIN_CHARS && t.chars().all(char::is_alphabetic) {
                *self.counts.entry(t.clone()).or_default() += 1;
            }
        }
    }

    fn count(&self, word: &str) -> u32 {
        self.counts.get(word).copied().unwrap_or(0)
    }

    /// `word`'s parts, when it is a compound of frequent words (`koerperverletzung` →
    /// `[koerper, verletzung]`, `bundesverwaltungsgericht` → `[bund, verwaltungsgericht,
    /// verwaltung, gericht]`): the head with or without a linking morpheme, the tail as a whole
    /// word, and the tail's own parts. The split whose rarer part is most frequent wins.
    pub fn split(&self, word: &str) -> Vec<String> {
        let chars: Vec<(usize, char)> = word.char_indices().collect();
        if chars.len() < COMPOUND_MIN_CHARS || !word.chars().all(char::is_alphabetic) {
            return Vec::new();
        }
        let mut best: Option<(u32, &str, &str)> = None;
        for &(at, _) in &chars[PART_MIN_CHARS..=chars.len() - PART_MIN_CHARS] {
            let (head, tail) = (&word[..at], &word[at..]);
            let tail_n = self.count(tail);
            if tail_n < PART_MIN_COUNT {
                continue;
            }
            let mut heads = vec![head];
            heads.extend(LINKING.iter().filter_map(|l| head.strip_suffix(l)));
            for h in heads {
                let n = self.count(h);
                if h.chars().count() >= PART_MIN_CHARS && n >= PART_MIN_COUNT {
                    let score = n.min(tail_n);
                    if best.is_none_or(|(s, ..)| score > s) {
                        best = Some((score, h, tail));
                    }
                }
            }
        }
        let Some((_, head, tail)) = best else { return Vec::new() };
        let mut parts = vec![head.to_string(), tail.to_string()];
        parts.extend(self.split(tail));
        parts
    }
}

/// The analyzer of the statutes' `parts` field: the parts of each compound `dictionary` splits
/// (stemmed as [`german_analyzer`] stems), and nothing else.
pub fn german_compound_analyzer(dictionary: Arc<CompoundDictionary>) -> TextAnalyzer {
    folded_words().filter(CompoundParts { dictionary }).filter(Stemmer::new(Language::German)).build()
}

pub fn german_analyzer() -> TextAnalyzer {
    folded_words().filter(Stemmer::new(Language::German)).build()
}

/// The steps every analysis here starts with: simple tokens, none over 64 bytes, lower-cased,
/// umlauts folded.
fn folded_words() -> tantivy::tokenizer::TextAnalyzerBuilder<impl Tokenizer> {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(64))
        .filter(LowerCaser)
        .filter(GermanFold)
}

/// Registers the analyzers on an index (needed after every open, not stored in the index).
/// Reading needs no dictionary (queries are built from terms), so the compound analyzer is
/// registered with an empty one; `index build` registers the statutes' own before writing.
pub fn register(index: &Index) {
    index.tokenizers().register(GERMAN, german_analyzer());
    index.tokenizers().register(GERMAN_COMPOUND, german_compound_analyzer(Arc::default()));
}

/// Emits the compound parts of each token, at the token's position; drops the tokens.
#[derive(Clone)]
pub struct CompoundParts {
    dictionary: Arc<CompoundDictionary>,
}

impl TokenFilter for CompoundParts {
    type Tokenizer<T: Tokenizer> = CompoundPartsFilter<T>;
    fn transform<T: Tokenizer>(self, tokenizer: T) -> CompoundPartsFilter<T> {
        CompoundPartsFilter { inner: tokenizer, dictionary: self.dictionary }
    }
}

#[derive(Clone)]
pub struct CompoundPartsFilter<T> {
    inner: T,
    dictionary: Arc<CompoundDictionary>,
}

impl<T: Tokenizer> Tokenizer for CompoundPartsFilter<T> {
    type TokenStream<'a> = CompoundPartsStream<'a, T::TokenStream<'a>>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        CompoundPartsStream { tail: self.inner.token_stream(text), dictionary: &self.dictionary, pending: Vec::new() }
    }
}

pub struct CompoundPartsStream<'a, T> {
    tail: T,
    dictionary: &'a CompoundDictionary,
    /// Parts still to emit, last first.
    pending: Vec<String>,
}

impl<T: TokenStream> TokenStream for CompoundPartsStream<'_, T> {
    fn advance(&mut self) -> bool {
        loop {
            if let Some(part) = self.pending.pop() {
                self.tail.token_mut().text = part;
                return true;
            }
            if !self.tail.advance() {
                return false;
            }
            let mut parts = self.dictionary.split(&self.tail.token().text);
            parts.reverse();
            self.pending = parts;
        }
    }
    fn token(&self) -> &Token {
        self.tail.token()
    }
    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

/// Folds German umlauts and ß to their two-letter spellings, on lowercased tokens.
#[derive(Clone)]
pub struct GermanFold;

impl TokenFilter for GermanFold {
    type Tokenizer<T: Tokenizer> = GermanFoldFilter<T>;
    fn transform<T: Tokenizer>(self, tokenizer: T) -> GermanFoldFilter<T> {
        GermanFoldFilter { inner: tokenizer }
    }
}

#[derive(Clone)]
pub struct GermanFoldFilter<T> {
    inner: T,
}

impl<T: Tokenizer> Tokenizer for GermanFoldFilter<T> {
    type TokenStream<'a> = GermanFoldStream<T::TokenStream<'a>>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        GermanFoldStream { tail: self.inner.token_stream(text), buf: String::new() }
    }
}

pub struct GermanFoldStream<T> {
    tail: T,
    buf: String,
}

/// `straße` → `strasse`, `schäfer` → `schaefer` (input already lowercased).
pub fn fold_german(s: &str, out: &mut String) {
    out.clear();
    for c in s.chars() {
        match c {
            'ä' => out.push_str("ae"),
            'ö' => out.push_str("oe"),
            'ü' => out.push_str("ue"),
            'ß' => out.push_str("ss"),
            c => out.push(c),
        }
    }
}

impl<T: TokenStream> TokenStream for GermanFoldStream<T> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let tok = self.tail.token_mut();
        if !tok.text.is_ascii() {
            fold_german(&tok.text, &mut self.buf);
            std::mem::swap(&mut tok.text, &mut self.buf);
        }
        true
    }
    fn token(&self) -> &Token {
        self.tail.token()
    }
    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(s: &str) -> Vec<String> {
        let mut a = german_analyzer();
        let mut ts = a.token_stream(s);
        let mut out = Vec::new();
        while ts.advance() {
            out.push(ts.token().text.clone());
        }
        out
    }

    #[test]
    fn compounds_are_indexed_as_their_parts_and_nothing_else_is() {
        let mut d = CompoundDictionary::default();
        for _ in 0..PART_MIN_COUNT {
            d.add("Körper Verletzung Bund Verwaltung Gericht Verwaltungsgericht Miete Sicherheit");
        }
        let mut a = german_compound_analyzer(Arc::new(d));
        let mut got = Vec::new();
        {
            let mut ts = a.token_stream("Körperverletzung beim Bundesverwaltungsgericht");
            while ts.advance() {
                got.push((ts.token().text.clone(), ts.token().position));
            }
        }
        let at = |p: usize| got.iter().filter(|(_, q)| *q == p).map(|(t, _)| t.as_str()).collect::<Vec<_>>();
        assert_eq!(at(0), tokens("Körper Verletzung"), "{got:?}");
        assert_eq!(at(1), Vec::<&str>::new(), "no compound: {got:?}");
        assert_eq!(at(2), tokens("Bund Verwaltungsgericht Verwaltung Gericht"), "{got:?}");
        // Words that are no compound of frequent words give nothing (`miet` is no word here).
        let mut ts = a.token_stream("Mietsicherheiten Schadensersatzpflicht");
        let mut whole = Vec::new();
        while ts.advance() {
            whole.push(ts.token().text.clone());
        }
        assert_eq!(whole, Vec::<String>::new(), "no part is a frequent word: {whole:?}");
    }

    #[test]
    fn umlaut_and_digraph_spellings_meet() {
        assert_eq!(tokens("Schäfer"), tokens("Schaefer"));
        assert_eq!(tokens("Straße"), tokens("Strasse"));
        assert_eq!(tokens("Notwehr"), tokens("notwehr"));
        assert_eq!(tokens("Schadensersatzpflicht"), tokens("SCHADENSERSATZPFLICHT"));
        assert_eq!(tokens("§ 823"), vec!["823".to_string()]);
    }
}
