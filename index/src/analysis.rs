//! German text analysis, shared by indexing and querying (so both sides agree):
//! simple tokens → drop tokens over 64 bytes → lowercase → fold ä/ae, ö/oe, ü/ue, ß/ss →
//! German Snowball stemmer. "Schaefer" and "Schäfer", "Strasse" and "Straße" meet.

use tantivy::Index;
use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer, TextAnalyzer, Token, TokenFilter, TokenStream,
    Tokenizer,
};

/// Name under which the analyzer is registered on every index of a generation.
pub const GERMAN: &str = "de_folded";

pub fn german_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(64))
        .filter(LowerCaser)
        .filter(GermanFold)
        .filter(Stemmer::new(Language::German))
        .build()
}

/// Registers the analyzers on an index (needed after every open, not stored in the index).
pub fn register(index: &Index) {
    index.tokenizers().register(GERMAN, german_analyzer());
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
    fn umlaut_and_digraph_spellings_meet() {
        assert_eq!(tokens("Schäfer"), tokens("Schaefer"));
        assert_eq!(tokens("Straße"), tokens("Strasse"));
        assert_eq!(tokens("Notwehr"), tokens("notwehr"));
        assert_eq!(tokens("Schadensersatzpflicht"), tokens("SCHADENSERSATZPFLICHT"));
        assert_eq!(tokens("§ 823"), vec!["823".to_string()]);
    }
}
