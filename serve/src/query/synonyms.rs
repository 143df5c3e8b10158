//! Everyday words that stand for a word the dictionary and the statutes use
//! (`serve/data/lay-synonyms.tsv`, compiled in): `Tochter` is a `Kind`, `Papa` a `Vater`,
//! `Chef` an `Arbeitgeber`.
//!
//! Why: a dictionary entry fires only when the query holds every one of its lay words, so
//! `Kind sehen` (§ 1684 BGB) never fired on "lässt mich meine Tochter nicht sehen", and the
//! statutes write `Kind` where people write `Tochter`. The query analysis adds the word stood
//! for as a further way to match the caller's word ([`crate::query::analysis`]); it is searched
//! and it fires entries, as the caller's own word does.
//!
//! Invariant: each everyday word stands for one word, and no word stands for itself.

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::query::text::query_words;

/// The table as shipped.
pub const SYNONYMS_TSV: &str = include_str!("../../data/lay-synonyms.tsv");

/// A word an everyday word stands for: as the table writes it, and its index term.
#[derive(Debug, PartialEq)]
pub struct StoodFor {
    pub word: String,
    pub term: String,
}

/// By the everyday word's index term: the word it stands for.
static STANDS_FOR: LazyLock<HashMap<String, StoodFor>> =
    LazyLock::new(|| parse(SYNONYMS_TSV).expect("serve/data/lay-synonyms.tsv is well-formed"));

/// The word `term` (an index term of the caller's word) stands for, if the table names one.
pub fn stands_for(term: &str) -> Option<&'static StoodFor> {
    STANDS_FOR.get(term)
}

/// The table: each line's everyday word (as its index term) and the word it stands for (its
/// index term worked out once, here). An error names the line: a missing column, a word of
/// several terms, a word standing for itself or named twice.
fn parse(text: &str) -> Result<HashMap<String, StoodFor>, String> {
    let mut out = HashMap::new();
    for (n, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l)) {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut cols = line.split('\t');
        let (Some(word), Some(target)) = (cols.next(), cols.next()) else {
            return Err(format!("line {n}: expected `everyday word<TAB>word it stands for<TAB>note`"));
        };
        let (Ok([term]), Ok([target_term])) =
            (<[String; 1]>::try_from(query_words(word)), <[String; 1]>::try_from(query_words(target)))
        else {
            return Err(format!("line {n}: {word:?} and {target:?} must each be one word"));
        };
        if term == target_term {
            return Err(format!("line {n}: {word:?} stands for itself"));
        }
        if out.insert(term, StoodFor { word: target.to_string(), term: target_term }).is_some() {
            return Err(format!("line {n}: {word:?} is named twice"));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_table_parses_and_a_bad_line_is_refused_with_its_number() {
        let table = parse(SYNONYMS_TSV).unwrap();
        assert_eq!(table.get(&query_words("Tochter")[0]).map(|t| t.word.as_str()), Some("Kind"));
        assert!(parse("Papa\tVater\t\nPapa\tMutter\t").unwrap_err().starts_with("line 2"));
        assert!(parse("Kind\tKinder\t").unwrap_err().contains("itself"));
        assert!(parse("Papa\tVater Mutter\t").unwrap_err().contains("one word"));
        assert!(parse("Papa").unwrap_err().starts_with("line 1"));
    }
}
