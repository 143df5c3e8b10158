//! How common a word is in everyday German (`serve/data/everyday-german.tsv`, compiled in:
//! Zipf frequencies from wordfreq's `large_de` list), and what that means for a lay search.
//!
//! Why: statute search weighs a word by how few sections hold it, and a word people use every
//! day but statutes seldom do (`einfach`, `sofort`, `raus`, `Gruppe`) weighed as much as the
//! legal term of the question, and a heading holding it ranked first. A word common in
//! everyday German counts less; and such a word is never "corrected" to a statute's spelling
//! (`erwischt` is no typo of `erlischt`).
//!
//! Invariant: the weight is 1 for every word the list does not hold or holds below
//! [`COMMON_FROM`], so identifiers, legal terms and rare words rank as before.

use std::collections::HashMap;
use std::sync::LazyLock;

/// The word list as shipped.
const EVERYDAY_TSV: &str = include_str!("../../data/everyday-german.tsv");

/// Zipf frequency at and above which a word is a known everyday word: never a typo.
pub const KNOWN_FROM: f32 = 3.0;
/// Zipf frequency above which a word weighs less; each Zipf point above costs
/// [`WEIGHT_PER_ZIPF`], down to [`LEAST_WEIGHT`]. (Measured on the lay question sets: the
/// held-out sets gain 2-4 points of recall@5; stronger settings did no better.)
pub const COMMON_FROM: f32 = 4.0;
const WEIGHT_PER_ZIPF: f32 = 0.4;
pub const LEAST_WEIGHT: f32 = 0.4;

/// Each word's Zipf frequency x 100.
static ZIPF: LazyLock<HashMap<&'static str, u16>> = LazyLock::new(|| {
    EVERYDAY_TSV
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
        .filter_map(|(w, z)| Some((w, z.parse().ok()?)))
        .collect()
});

/// The word's Zipf frequency in everyday German (log10 of its occurrences per billion words),
/// or None when it is rarer than the list holds (Zipf below 3).
pub fn zipf(word: &str) -> Option<f32> {
    ZIPF.get(word.to_lowercase().as_str()).map(|z| f32::from(*z) / 100.0)
}

/// The words at or above Zipf frequency `z` (for the dictionary's tests).
#[cfg(test)]
pub fn words_from(z: f32) -> impl Iterator<Item = &'static str> {
    ZIPF.iter().filter(move |(_, f)| f32::from(**f) / 100.0 >= z).map(|(w, _)| *w)
}

/// Whether the word is common enough in everyday German to be no typo.
pub fn is_known_word(word: &str) -> bool {
    zipf(word).is_some_and(|z| z >= KNOWN_FROM)
}

/// Question words people write as one (`wieviel` for `wie viel`): function words run
/// together, as common as their parts, though the word list rates the spelling rare and the
/// statutes hardly use it. As rare words they ranked the few sections holding them first
/// (`wieviel gras darf ich dabei haben`: § 41 BWahlG). They weigh least, and no section must
/// hold one ([`crate::query::analysis::QueryPlan::restricts`]); they stay words, so the
/// dictionary's entries holding them fire (`Kindergeld wieviel`).
const QUESTION_WORDS: [&str; 7] = ["wieviel", "wieviele", "wievielen", "wievieler", "wieso", "weshalb", "weswegen"];

/// Whether `word` (any case) is one of [`QUESTION_WORDS`].
pub fn is_question_word(word: &str) -> bool {
    QUESTION_WORDS.iter().any(|q| q.eq_ignore_ascii_case(word))
}

/// How much a word of the caller's counts in the ranking: 1, or less for a word common in
/// everyday German (a question word written as one: least).
pub fn weight(word: &str) -> f32 {
    if is_question_word(word) {
        return LEAST_WEIGHT;
    }
    match zipf(word) {
        Some(z) if z > COMMON_FROM => (1.0 - (z - COMMON_FROM) * WEIGHT_PER_ZIPF).max(LEAST_WEIGHT),
        _ => 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::{is_known_word, weight, zipf};

    #[test]
    fn everyday_words_weigh_less_and_legal_terms_and_rare_words_do_not() {
        // Words people use every day and statutes seldom do.
        for w in ["einfach", "sofort", "raus", "Gruppe"] {
            assert!(weight(w) < 0.7, "{w}: {}", weight(w));
        }
        // Legal terms, rare everyday words and what the list does not hold count fully, or
        // nearly (`Kündigung` is an everyday word too).
        for w in ["Mietsicherheit", "Eigenbedarf", "Fahrerflucht", "Notwehr", "§", "573c", "Qwxzvbnmk"] {
            assert_eq!(weight(w), 1.0, "{w}");
        }
        assert!(weight("Kündigung") > 0.95, "{}", weight("Kündigung"));
        // Never below the floor, and the list is read case-blind.
        assert!(weight("und") >= 0.4);
        assert_eq!(zipf("Einfach"), zipf("einfach"));
    }

    #[test]
    fn a_known_everyday_word_is_no_typo_and_a_misspelling_is_unknown() {
        for w in ["erwischt", "geklaut", "Handy", "rauswerfen"] {
            assert!(is_known_word(w), "{w}");
        }
        for w in ["Notwher", "Kündigugn", "Mietsicherheit"] {
            assert!(!is_known_word(w), "{w}");
        }
    }
}
