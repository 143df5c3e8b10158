//! Snippets with highlights for search results (laws and decisions).
//!
//! Why not tantivy's `SnippetGenerator`: it runs the whole German analyzer (with the Snowball
//! stemmer) over every token of every shown text, which was half of the CPU time of a search
//! request. Here a token is stemmed only when a query term is a prefix of its folded form (a
//! stem is a prefix of the folded word), and each such word once, so almost no token is
//! stemmed; a match is still decided by the same analyzer the index used.

use tantivy::tokenizer::{TextAnalyzer, TokenStream};

pub struct Highlighter {
    terms: Vec<String>,
    analyzer: TextAnalyzer,
    folded: String,
    scratch: Vec<char>,
    /// The first letters of the terms (each once).
    initials: Vec<char>,
    /// The same for ASCII bytes, either case: most words are dropped at this look-up.
    ascii_initials: [bool; 128],
    /// The first two letters of the terms of two letters or more, and the terms of one letter,
    /// as [`collapse_umlauts`] folds them (each once).
    beginnings: Vec<[char; 2]>,
    one_letter_terms: Vec<char>,
    /// The term (index into `terms`) of each folded word that was stemmed: words repeat.
    stemmed: std::collections::HashMap<String, Option<usize>>,
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
    /// Bytes, of the same span.
    start_byte: usize,
    term: usize,
}

/// `word` as the Snowball German stemmer reads it after the analyzer's fold, so that a stem is
/// a prefix of it: lower-cased, `ä`/`ö`/`ü`/`ß` folded to `ae`/`oe`/`ue`/`ss` (the analyzer);
/// then the stemmer's prelude: a `u` or `y` between vowels is a consonant, and `ae`/`oe`/`ue`
/// (not `qu`+`e`) are read as umlauts, which its postlude writes as `a`/`o`/`u`. `chars` is
/// scratch space.
fn collapse_umlauts(word: &str, chars: &mut Vec<char>, out: &mut String) {
    chars.clear();
    for c in word.chars() {
        if c.is_ascii() {
            chars.push(c.to_ascii_lowercase());
            continue;
        }
        for l in c.to_lowercase() {
            match l {
                'ä' => chars.extend(['a', 'e']),
                'ö' => chars.extend(['o', 'e']),
                'ü' => chars.extend(['u', 'e']),
                'ß' => chars.extend(['s', 's']),
                l => chars.push(l),
            }
        }
    }
    // Consonant u/y, marked upper-case as the prelude does, leftmost first.
    let vowel = |c: char| matches!(c, 'a' | 'e' | 'i' | 'o' | 'u' | 'y' | 'ä' | 'ö' | 'ü');
    for i in 1..chars.len().saturating_sub(1) {
        if matches!(chars[i], 'u' | 'y') && vowel(chars[i - 1]) && vowel(chars[i + 1]) {
            chars[i] = chars[i].to_ascii_uppercase();
        }
    }
    out.clear();
    let mut i = 0;
    while i < chars.len() {
        let (c, next) = (chars[i], chars.get(i + 1).copied());
        match (c, next) {
            ('a' | 'o' | 'u', Some('e')) => {
                out.push(c);
                i += 2;
            }
            ('q', Some('u')) => {
                out.push_str("qu");
                i += 2;
            }
            (c, _) => {
                out.push(c.to_ascii_lowercase());
                i += 1;
            }
        }
    }
}

/// ASCII bytes that are word characters (letters and digits).
const ASCII_WORD: [bool; 128] = {
    let mut t = [false; 128];
    let mut b = 0;
    while b < 128 {
        t[b] = (b as u8).is_ascii_alphanumeric();
        b += 1;
    }
    t
};

/// `c.is_alphanumeric()`, answered directly for Latin-1 and general punctuation (umlauts, `ß`,
/// `§`, dashes and quotes are most of a German text's other characters; the general look-up is
/// slow).
fn is_word_char(c: char) -> bool {
    match c as u32 {
        0..=0x7F => ASCII_WORD[c as usize],
        // Latin-1: the letters less × and ÷; then ª µ º and the numbers ² ³ ¹ ¼ ½ ¾.
        0xC0..=0xFF => c != '\u{D7}' && c != '\u{F7}',
        0x80..=0xBF => matches!(c as u32, 0xAA | 0xB2 | 0xB3 | 0xB5 | 0xB9 | 0xBA | 0xBC..=0xBE),
        // General punctuation: dashes, quotes, spaces.
        0x2000..=0x206F => false,
        _ => c.is_alphanumeric(),
    }
}

/// The code points in `bytes` (whole UTF-8 characters): the bytes that do not continue one.
fn code_points(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

/// The index of the first match of the window of `max_chars` code points holding the most
/// distinct terms, then the most matches (the first such window). `ms` is not empty.
fn best_window(ms: &[Match], max_chars: usize) -> usize {
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
    best.2
}

impl Highlighter {
    /// `terms` are index terms (as `query_words` returns them).
    pub fn new(terms: &[String]) -> Highlighter {
        let terms: Vec<String> = terms.iter().filter(|t| !t.is_empty()).cloned().collect();
        fn once<T: Ord>(mut v: Vec<T>) -> Vec<T> {
            v.sort_unstable();
            v.dedup();
            v
        }
        let initials = once(terms.iter().filter_map(|t| t.chars().next()).collect());
        let beginnings = once(terms.iter().filter_map(|t| Some([t.chars().next()?, t.chars().nth(1)?])).collect());
        let one_letter_terms =
            once(terms.iter().filter(|t| t.chars().count() == 1).filter_map(|t| t.chars().next()).collect());
        let mut ascii_initials = [false; 128];
        for c in initials.iter().filter(|c| c.is_ascii()) {
            ascii_initials[c.to_ascii_lowercase() as usize] = true;
            ascii_initials[c.to_ascii_uppercase() as usize] = true;
        }
        Highlighter {
            ascii_initials,
            terms,
            analyzer: index::analysis::german_analyzer(),
            folded: String::new(),
            scratch: Vec::new(),
            initials,
            beginnings,
            one_letter_terms,
            stemmed: Default::default(),
        }
    }

    /// The query term `word` is a form of, if any. A stem is a prefix of the word as the
    /// Snowball German stemmer reads it ([`collapse_umlauts`]), so a word that no term is a
    /// prefix of is not stemmed at all; a stemmed word is stemmed once.
    fn term_of(&mut self, word: &str) -> Option<usize> {
        // Most words of a long text end here: no term starts with their first letter.
        let first = word.chars().next().and_then(|c| c.to_lowercase().next()).map(|c| match c {
            'ä' => 'a',
            'ö' => 'o',
            'ü' => 'u',
            c => c,
        });
        if !first.is_some_and(|f| self.initials.contains(&f)) {
            return None;
        }
        // Lay questions bring many terms, so most words pass the first letter: the first two
        // folded letters decide next. Folding reads at most one letter ahead and joins at most
        // two into one, so the word's first 5 letters fold to the same two first letters.
        let head = word.char_indices().nth(5).map_or(word, |(b, _)| &word[..b]);
        collapse_umlauts(head, &mut self.scratch, &mut self.folded);
        let mut folded_head = self.folded.chars();
        let begins_like_a_term = match (folded_head.next(), folded_head.next()) {
            (Some(a), Some(b)) => self.one_letter_terms.contains(&a) || self.beginnings.contains(&[a, b]),
            (Some(a), None) => self.one_letter_terms.contains(&a),
            _ => false,
        };
        if !begins_like_a_term {
            return None;
        }
        collapse_umlauts(word, &mut self.scratch, &mut self.folded);
        let folded = &self.folded;
        if !self.terms.iter().any(|t| folded.starts_with(t.as_str())) {
            return None;
        }
        if let Some(known) = self.stemmed.get(folded) {
            return *known;
        }
        let mut ts = self.analyzer.token_stream(word);
        let term = if ts.advance() {
            let stem = &ts.token().text;
            self.terms.iter().position(|t| t == stem)
        } else {
            None
        };
        self.stemmed.insert(self.folded.clone(), term);
        term
    }

    /// The query-term words of `text` (a word: a maximal run of alphanumeric characters). ASCII
    /// is read byte by byte through a table, and a word no term starts like is dropped at its
    /// first letter; code points are counted only up to the words that match: annexes of
    /// 100,000 characters and more are read on every search that shows them.
    fn matches(&mut self, text: &str) -> Vec<Match> {
        let bytes = text.as_bytes();
        // The length of the word character at `pos` (a char boundary), if it is one.
        let word_char = |pos: usize| -> Option<usize> {
            let b = bytes[pos];
            if b < 0x80 {
                return ASCII_WORD[b as usize].then_some(1);
            }
            let c = text[pos..].chars().next()?;
            is_word_char(c).then(|| c.len_utf8())
        };
        let mut out = Vec::new();
        // Code points before byte `counted_to` (a char boundary).
        let (mut counted_to, mut counted) = (0usize, 0usize);
        let mut pos = 0usize;
        while pos < bytes.len() {
            let b = bytes[pos];
            if b < 0x80 && !ASCII_WORD[b as usize] {
                pos += 1;
                continue;
            }
            let Some(len) = word_char(pos) else {
                pos += text[pos..].chars().next().map_or(1, char::len_utf8);
                continue;
            };
            let word_byte = pos;
            pos += len;
            while pos < bytes.len() {
                let b = bytes[pos];
                if b < 0x80 {
                    if !ASCII_WORD[b as usize] {
                        break;
                    }
                    pos += 1;
                } else if let Some(len) = word_char(pos) {
                    pos += len;
                } else {
                    break;
                }
            }
            if b < 0x80 && !self.ascii_initials[b as usize] {
                continue;
            }
            if let Some(term) = self.term_of(&text[word_byte..pos]) {
                let start = counted + code_points(&bytes[counted_to..word_byte]);
                let end = start + code_points(&bytes[word_byte..pos]);
                (counted_to, counted) = (pos, end);
                out.push(Match { start, end, start_byte: word_byte, term });
            }
        }
        out
    }

    /// The window of `max_chars` code points holding the most distinct query terms (then the
    /// most matches), starting a little before its first match at a word boundary.
    pub fn fragment(&mut self, text: &str, max_chars: usize) -> Fragment {
        let ms = self.matches(text);
        if ms.is_empty() {
            return Fragment { text: text.chars().take(max_chars).collect(), highlights: Vec::new() };
        }
        let first = &ms[best_window(&ms, max_chars)];
        // Only the region around the window is decoded: up to 40 characters before the first
        // match, and the window after it (a section can be 100,000 characters long).
        // One character more than the 40, to see whether the window starts at a word boundary.
        let back: Vec<(usize, char)> = text[..first.start_byte].char_indices().rev().take(41).collect();
        let region_start_char = first.start - back.len();
        let region_start_byte = back.last().map_or(first.start_byte, |(b, _)| *b);
        let wanted = back.len() + max_chars + 1;
        let chars: Vec<char> = text[region_start_byte..].chars().take(wanted).collect();
        // The text's length in characters when it ends within the region; else "longer".
        let total_chars = if chars.len() < wanted { region_start_char + chars.len() } else { usize::MAX };
        let at = |i: usize| chars[i - region_start_char];
        let mut start = first.start.saturating_sub(40);
        while start > 0 && start < first.start && !at(start - 1).is_whitespace() {
            start += 1;
        }
        let mut end = (start + max_chars).min(total_chars);
        if end < total_chars {
            let mut e = end;
            while e > first.end && !at(e).is_whitespace() {
                e -= 1;
            }
            if e > first.end {
                end = e;
            }
        }
        let highlights =
            ms.iter().filter(|m| m.start >= start && m.end <= end).map(|m| [m.start - start, m.end - start]).collect();
        let text = chars[start - region_start_char..end - region_start_char].iter().collect();
        Fragment { text, highlights }
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

    /// The reference: the window cut from the whole text decoded, as before the region
    /// optimisation (the window's choice, [`best_window`], is shared).
    fn reference(h: &mut Highlighter, text: &str, max_chars: usize) -> Fragment {
        let ms = h.matches(text);
        let chars: Vec<char> = text.chars().collect();
        let cut = |from: usize, to: usize| chars[from..to.min(chars.len())].iter().collect::<String>();
        if ms.is_empty() {
            return Fragment { text: cut(0, max_chars), highlights: Vec::new() };
        }
        let first = &ms[best_window(&ms, max_chars)];
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

    #[test]
    fn a_stem_is_a_prefix_of_the_folded_lower_cased_word() {
        // The premise of `term_of`'s filter, over the words of real statute text.
        let text = sample_decision_text()
            + " Übergabe Außenbereich Bußgeldvorschriften Gebäude Schüler Häuser grüßen Mäuse Ärztinnen \
               Kündigungsfristen Eigenbedarfs Mietsicherheiten Verjährungsfrist Zuständigkeiten \
               Bauerwartungsland Steuerpflichtigen gegenüber Aufenthaltsgesetzes hinsichtlich";
        let mut analyzer = index::analysis::german_analyzer();
        let (mut folded, mut scratch) = (String::new(), Vec::new());
        let mut checked = 0usize;
        for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
            let mut ts = analyzer.token_stream(word);
            if !ts.advance() {
                continue;
            }
            let stem = ts.token().text.clone();
            collapse_umlauts(word, &mut scratch, &mut folded);
            assert!(folded.starts_with(&stem), "{word}: stem {stem} is not a prefix of {folded}");
            checked += 1;
        }
        assert!(checked > 100_000, "{checked} words");
    }

    /// The texts of the embedded sample's decisions (German court writing, a few MB).
    fn sample_decision_text() -> String {
        use std::io::Read;
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../sample/decisions/oldp-sample.jsonl.gz");
        let mut raw = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap()).read_to_string(&mut raw).unwrap();
        raw.replace("\\n", " ")
    }

    #[test]
    fn the_letter_filters_drop_only_words_that_are_no_form_of_a_term() {
        // A lay question's many terms (expansions included), against every word of real text:
        // the filtered look-up equals stemming each word and comparing the stem.
        let terms = crate::query::text::query_words(
            "Kaution Mietsicherheit Vermieter zurückzahlen Übergabe Außenbereich Ärztin Quelle \
             Steuerpflichtige Eigenbedarf Kündigung Frist Behörde Auskunft Daten Schaden Unfall Ärger Oeffnung ja a",
        );
        let mut h = Highlighter::new(&terms);
        let mut analyzer = index::analysis::german_analyzer();
        let (mut found, mut checked) = (0usize, 0usize);
        let text = sample_decision_text()
            + " Aeußerung Aerger AERGERN Öffnung Oeffnungen Quäler Bauer Treue Ärztinnen Aa Ä ä au aue";
        for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
            let mut ts = analyzer.token_stream(word);
            let want = if ts.advance() { h.terms.iter().position(|t| *t == ts.token().text) } else { None };
            assert_eq!(h.term_of(word), want, "{word}");
            found += usize::from(want.is_some());
            checked += 1;
        }
        assert!(checked > 100_000 && found > 1_000, "{checked} words, {found} forms of a term");
    }

    #[test]
    fn the_word_character_table_agrees_with_is_alphanumeric() {
        for c in (0..0x3000u32).filter_map(char::from_u32) {
            assert_eq!(is_word_char(c), c.is_alphanumeric(), "{c:?}");
        }
    }

    /// The words of `text` a term is a form of, as a char-by-char scan finds them:
    /// (code-point start, end, byte start).
    fn char_scan(h: &mut Highlighter, text: &str) -> Vec<(usize, usize, usize)> {
        let mut want = Vec::new();
        let mut start: Option<(usize, usize)> = None;
        for (i, (b, c)) in text.char_indices().chain(std::iter::once((text.len(), ' '))).enumerate() {
            if c.is_alphanumeric() {
                start.get_or_insert((b, i));
            } else if let Some((wb, wc)) = start.take()
                && h.term_of(&text[wb..b]).is_some()
            {
                want.push((wc, i, wb));
            }
        }
        want
    }

    #[test]
    fn words_are_found_as_a_char_by_char_scan_finds_them() {
        let terms = crate::query::text::query_words("Behörde Geschäftsgeheimnis Übergabe Straße");
        let text = "Die Behörde, ÜBERGABE; x1Behörde 😀Behörden—Geschäftsgeheimnisse straße. Behörde";
        let mut h = Highlighter::new(&terms);
        let got: Vec<(usize, usize, usize)> = h.matches(text).iter().map(|m| (m.start, m.end, m.start_byte)).collect();
        assert_eq!(got, char_scan(&mut h, text));
        assert_eq!(got.len(), 6, "{got:?}");
        // The same over real court writing (umlauts, §, dashes, quotes), with a lay question's terms.
        let text = sample_decision_text();
        let terms =
            crate::query::text::query_words("Mietsicherheit Vermieter Behörde Auskunft Schaden Unfall Übergabe");
        let mut h = Highlighter::new(&terms);
        let got: Vec<(usize, usize, usize)> = h.matches(&text).iter().map(|m| (m.start, m.end, m.start_byte)).collect();
        assert!(got.len() > 500, "{} matches", got.len());
        assert_eq!(got, char_scan(&mut h, &text));
    }

    #[test]
    fn the_window_is_the_one_a_whole_text_scan_finds_at_every_position_and_length() {
        let terms = crate::query::text::query_words("Mietsicherheit Vermieter Kaution");
        let filler = ["Der ", "Mieter ", "zahlt ", "die ", "Über\u{AD}gabe ", "ä ", "ßö ", "x", "   ", "😀 "];
        for len in [0usize, 3, 17, 60, 200, 700] {
            for pos in [0usize, 1, 5, 39, 40, 41, 42, 100, 400] {
                let mut text: String = (0..len).map(|i| filler[i % filler.len()]).collect();
                let at = text.char_indices().nth(pos).map_or(text.len(), |(b, _)| b);
                text.insert_str(at, "Kaution des Vermieters als Mietsicherheit ");
                for max in [5usize, 30, 240] {
                    let got = Highlighter::new(&terms).fragment(&text, max);
                    let want = reference(&mut Highlighter::new(&terms), &text, max);
                    assert_eq!(got, want, "len {len} pos {pos} max {max}");
                }
            }
        }
    }
}
