//! Snippets with highlights for search results (laws and decisions).
//!
//! Why not tantivy's `SnippetGenerator`: it runs the whole German analyzer (with the Snowball
//! stemmer) over every token of every shown text, which was half of the CPU time of a search
//! request. Here a token is stemmed only when its folded form shares the first three letters
//! with a query term (a stem is a prefix of the folded word), so almost no token is stemmed;
//! a match is still decided by the same analyzer the index used.

use tantivy::tokenizer::{TextAnalyzer, TokenStream};

pub struct Highlighter {
    terms: Vec<String>,
    analyzer: TextAnalyzer,
    folded: String,
}

/// A text fragment (at most `max_chars` code points) and the code-point ranges of the query
/// terms in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fragment {
    pub text: String,
    pub highlights: Vec<[usize; 2]>,
}

struct Match {
    /// Code points.
    start: usize,
    end: usize,
    term: usize,
}

impl Highlighter {
    /// `terms` are index terms (as `query_words` returns them).
    pub fn new(terms: &[String]) -> Highlighter {
        Highlighter {
            terms: terms.iter().filter(|t| !t.is_empty()).cloned().collect(),
            analyzer: index::analysis::german_analyzer(),
            folded: String::new(),
        }
    }

    fn term_of(&mut self, word: &str) -> Option<usize> {
        index::analysis::fold_german(&word.to_lowercase(), &mut self.folded);
        let candidate = self.terms.iter().any(|t| {
            let k = t.char_indices().nth(3).map(|(i, _)| i).unwrap_or(t.len());
            self.folded.starts_with(&t[..k])
        });
        if !candidate {
            return None;
        }
        let mut ts = self.analyzer.token_stream(word);
        let stem = if ts.advance() { ts.token().text.clone() } else { return None };
        self.terms.iter().position(|t| *t == stem)
    }

    fn matches(&mut self, text: &str) -> Vec<Match> {
        let mut out = Vec::new();
        let mut word_start: Option<(usize, usize)> = None; // (byte, char)
        for (chars, (b, c)) in text.char_indices().chain(std::iter::once((text.len(), ' '))).enumerate() {
            if c.is_alphanumeric() {
                if word_start.is_none() {
                    word_start = Some((b, chars));
                }
            } else if let Some((wb, wc)) = word_start.take()
                && let Some(term) = self.term_of(&text[wb..b])
            {
                out.push(Match { start: wc, end: chars, term });
            }
        }
        out
    }

    /// The window of `max_chars` code points holding the most distinct query terms (then the
    /// most matches), starting a little before its first match at a word boundary.
    pub fn fragment(&mut self, text: &str, max_chars: usize) -> Fragment {
        let ms = self.matches(text);
        let chars: Vec<char> = text.chars().collect();
        let cut = |from: usize, to: usize| chars[from..to.min(chars.len())].iter().collect::<String>();
        if ms.is_empty() {
            return Fragment { text: cut(0, max_chars), highlights: Vec::new() };
        }
        let mut best = (0usize, 0usize, 0usize); // (distinct, count, index of first match)
        for i in 0..ms.len() {
            let limit = ms[i].start + max_chars;
            let mut seen = Vec::new();
            let mut count = 0;
            for m in ms[i..].iter().take_while(|m| m.end <= limit) {
                count += 1;
                if !seen.contains(&m.term) {
                    seen.push(m.term);
                }
            }
            if (seen.len(), count) > (best.0, best.1) {
                best = (seen.len(), count, i);
            }
        }
        let first = &ms[best.2];
        let mut start = first.start.saturating_sub(40);
        while start > 0 && start < first.start && !chars[start - 1].is_whitespace() {
            start += 1;
        }
        let mut end = (start + max_chars).min(chars.len());
        if end < chars.len() {
            let mut e = end;
            while e > first.end && !chars[e].is_whitespace() {
                e -= 1;
            }
            if e > first.end {
                end = e;
            }
        }
        let highlights =
            ms.iter().filter(|m| m.start >= start && m.end <= end).map(|m| [m.start - start, m.end - start]).collect();
        Fragment { text: cut(start, end), highlights }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragments_highlight_stemmed_matches_in_code_points() {
        let terms = crate::query::text::query_words("Geschäftsgeheimnisse Behörden");
        let mut h = Highlighter::new(&terms);
        let text = "Einleitung 😀 ohne Treffer. ".repeat(20)
            + "Die Behörde berief sich auf ein Geschäftsgeheimnis des Unternehmens.";
        let f = h.fragment(&text, 120);
        assert!(f.text.contains("Behörde berief"), "{f:?}");
        let chars: Vec<char> = f.text.chars().collect();
        let words: Vec<String> = f.highlights.iter().map(|[a, b]| chars[*a..*b].iter().collect()).collect();
        assert_eq!(words, ["Behörde", "Geschäftsgeheimnis"]);
        assert!(f.text.chars().count() <= 120);
        let none = Highlighter::new(&terms).fragment("nichts davon", 5);
        assert_eq!(none, Fragment { text: "nicht".into(), highlights: vec![] });
    }
}
