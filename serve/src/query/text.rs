//! Text helpers: code-point slices and snippets (offset/length, has_more, next_offset) and the words of a query.

use crate::contract::answer::{ErrorCode, ToolError};
use crate::contract::answers::TextWindow;
use tantivy::tokenizer::TokenStream;

/// Code-point slice `[offset, offset+length)` of `text` (length 0 = to the end).
pub fn slice_chars(text: &str, offset: usize, length: usize) -> String {
    let mut it = text.char_indices().skip(offset);
    let Some((start, _)) = it.next() else { return String::new() };
    if length == 0 {
        return text[start..].to_string();
    }
    let end = text[start..].char_indices().nth(length).map(|(i, _)| start + i).unwrap_or(text.len());
    text[start..end].to_string()
}

/// The seed-000 snippet object, or a refusal when `offset` lies beyond the text.
pub fn snippet(text: &str, total_length: usize, offset: i64, length: i64) -> Result<TextWindow, ToolError> {
    let offset = offset as usize;
    if offset > total_length {
        return Err(ToolError::new(
            ErrorCode::OffsetOutOfRange,
            format!("offset {offset} is beyond the end of the text ({total_length} characters)"),
            "Pass an offset between 0 and total_length; follow next_offset from the previous answer.",
        )
        .with("total_length", total_length));
    }
    let part = slice_chars(text, offset, length as usize);
    let got = part.chars().count();
    let end = offset + got;
    let has_more = end < total_length;
    Ok(TextWindow { text: part, offset, length: got, total_length, has_more, next_offset: has_more.then_some(end) })
}

/// Calls `f` with each index term of `text`, by the same German analyzer the index used (one
/// analyzer per thread: building it, stemmer included, costs more than analysing a word).
fn each_term(text: &str, mut f: impl FnMut(&str)) {
    thread_local! {
        static ANALYZER: std::cell::RefCell<tantivy::tokenizer::TextAnalyzer> =
            std::cell::RefCell::new(index::analysis::german_analyzer());
    }
    ANALYZER.with_borrow_mut(|analyzer| {
        let mut ts = analyzer.token_stream(text);
        while ts.advance() {
            f(&ts.token().text);
        }
    });
}

/// The distinct index terms of a query, by the same German analyzer the index used.
pub fn query_words(query: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    each_term(query, |t| {
        if !words.iter().any(|w| w == t) {
            words.push(t.to_string());
        }
    });
    words
}

/// The text of `[start, end)` in code points; empty when the span is (`slice_chars` reads a
/// length of 0 as "to the end").
pub(crate) fn span_text(text: &str, start: usize, end: usize) -> String {
    if end <= start { String::new() } else { slice_chars(text, start, end - start) }
}

/// Every index term of a text, repeats included.
pub(crate) fn query_words_all(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_term(text, |t| out.push(t.to_string()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn char_slices_and_snippets_count_code_points() {
        let t = "Äß€😀x";
        assert_eq!(slice_chars(t, 1, 2), "ß€");
        assert_eq!(slice_chars(t, 3, 0), "😀x");
        assert_eq!(slice_chars(t, 9, 1), "");
        let s = snippet(t, 5, 3, 10).unwrap();
        assert_eq!(s.text, "😀x");
        assert!(!s.has_more);
        assert_eq!(s.next_offset, None);
        let s = snippet(t, 5, 0, 2).unwrap();
        assert_eq!(s.next_offset, Some(2));
        assert!(snippet(t, 5, 6, 1).is_err());
    }
}
