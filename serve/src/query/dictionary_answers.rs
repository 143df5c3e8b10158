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
//!
//! The entries answering with one § also vote for it together ([`DictionaryAnswers::votes`]):
//! two words or more of a query that their lay words hold lift it (`matched_by.dictionary_vote`),
//! though no single entry fired, because people tell one situation in many ways.

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

/// How much the sections the dictionary's lay words vote for are lifted: the best by
/// 1 + this, the others in proportion to their votes ([`DictionaryAnswers::votes`]). Measured
/// on the read lay question sets (603 questions): recall@5 78.8 -> 82.3 at 1.5, 83.6 at 2.5,
/// 84.4 at 6 (MRR@10 0.712 -> 0.749, 0.755, 0.762), about the same at 10 and 20; the heading
/// questions and the citation recommendation did not move.
pub const VOTE_LIFT: f32 = 6.0;

/// How many sections a query's votes lift at most (the best first): 2, 3 and 4 measured
/// alike on the read sets.
pub const VOTED_SECTIONS: usize = 3;

/// Weights within this share of each other tie.
const TIE: f32 = 1e-4;

/// The section id of each source the dictionary names, in one generation (None: this
/// generation does not hold it), the laws those sources name, and each lay word's answers.
pub struct DictionaryAnswers {
    by_source: HashMap<String, Option<u64>>,
    laws: HashSet<i64>,
    /// Per lay term (an entry's lay word as an index term): its weight, ln(answer sections /
    /// those whose entries hold it), and those sections.
    lay_term_answers: HashMap<String, (f32, Vec<u64>)>,
}

/// The words of a query that the lay words of the entries answering with one section hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Vote {
    /// The query's words, in its order.
    pub words: Vec<String>,
    /// The sum of their lay terms' weights.
    pub weight: f32,
    /// What the section's score is multiplied by.
    pub lift: f32,
}

impl DictionaryAnswers {
    pub fn of(g: &Generation) -> Result<Arc<DictionaryAnswers>, ToolError> {
        static KEPT: PerGeneration<DictionaryAnswers> = PerGeneration::new();
        KEPT.get(g, DictionaryAnswers::load)
    }

    /// Looks up each distinct source once (about 3,600 of them, of 264 laws, each law once),
    /// at the generation's first statute search.
    fn load(g: &Generation) -> Result<DictionaryAnswers, ToolError> {
        let mut by_source: HashMap<String, Option<u64>> = HashMap::new();
        let mut law_of_book: HashMap<String, Option<Law>> = HashMap::new();
        // Per lay term, the sections of the entries holding it (one pass with the look-ups).
        let mut holders: HashMap<String, HashSet<u64>> = HashMap::new();
        for e in register().entries.iter().filter(|e| e.source_role == SourceRole::Answers) {
            let id = *by_source.entry(e.source.clone()).or_insert_with(|| {
                parse_section_citation(&e.source).and_then(|(designation, book)| {
                    let law = law_of_book.entry(book).or_insert_with_key(|book| resolve_book(g, book).ok()).as_ref()?;
                    find_section(g, law, &designation).ok().map(|s| s.id as u64)
                })
            });
            if let Some(id) = id {
                for t in &e.lay_terms {
                    holders.entry(t.clone()).or_default().insert(id);
                }
            }
        }
        let laws = law_of_book.into_values().flatten().map(|law| law.id).collect();
        Ok(DictionaryAnswers { lay_term_answers: lay_term_weights(holders), by_source, laws })
    }

    /// The sections the query's words vote for. A section gets each of the query's words that
    /// a lay word of an entry answering with it holds (of one entry or of several), weighing
    /// the rarest such term's weight; with two words or more it is a candidate. Of the
    /// candidates, the [`VOTED_SECTIONS`] of most weight are lifted, the best by
    /// 1 + [`VOTE_LIFT`], each other in proportion to its weight; sections that tie with the
    /// first one left out are left out too (`Mieter` and `Wohnung` vote for many sections
    /// alike, which single out none).
    ///
    /// Why: an entry fires only when the query holds all its lay words, and people tell one
    /// situation in many ways: "wie lange muss man getrennt leben, bevor man sich scheiden
    /// lassen kann" fires none of § 1566 BGB's entries, but `getrennt` and `scheiden` are lay
    /// words of them.
    pub fn votes(&self, words: &[(String, Vec<String>)]) -> BTreeMap<u64, Vote> {
        let mut tally: HashMap<u64, (f32, Vec<usize>)> = HashMap::new();
        for (i, (_, terms)) in words.iter().enumerate() {
            let mut heaviest: HashMap<u64, f32> = HashMap::new();
            for (weight, sections) in terms.iter().filter_map(|t| self.lay_term_answers.get(t)) {
                for s in sections {
                    let w = heaviest.entry(*s).or_default();
                    *w = w.max(*weight);
                }
            }
            for (s, w) in heaviest {
                let t = tally.entry(s).or_default();
                t.0 += w;
                t.1.push(i);
            }
        }
        let mut ranked: Vec<(u64, (f32, Vec<usize>))> =
            tally.into_iter().filter(|(_, (_, at))| at.len() >= 2).collect();
        ranked.sort_by(|a, b| b.1.0.total_cmp(&a.1.0).then(a.0.cmp(&b.0)));
        if let Some((_, (first_out, _))) = ranked.get(VOTED_SECTIONS) {
            let first_out = *first_out;
            ranked.retain(|(_, (w, _))| *w > first_out * (1.0 + TIE));
        }
        ranked.truncate(VOTED_SECTIONS);
        let best = ranked.first().map_or(1.0, |(_, (w, _))| *w);
        ranked
            .into_iter()
            .map(|(s, (weight, mut at))| {
                at.sort_unstable();
                let words = at.into_iter().map(|i| words[i].0.clone()).collect();
                (s, Vote { words, weight, lift: 1.0 + VOTE_LIFT * weight / best })
            })
            .collect()
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

/// Each lay term's weight, ln(answer sections / those whose entries hold it), with those
/// sections (sorted).
fn lay_term_weights(holders: HashMap<String, HashSet<u64>>) -> HashMap<String, (f32, Vec<u64>)> {
    let sections = holders.values().flatten().collect::<HashSet<_>>().len() as f32;
    holders
        .into_iter()
        .map(|(t, held)| {
            let mut held: Vec<u64> = held.into_iter().collect();
            held.sort_unstable();
            (t, ((sections / held.len() as f32).ln(), held))
        })
        .collect()
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
            lay_term_answers: HashMap::new(),
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

    /// Answers voted for over these lay terms, each held by the entries of these sections.
    fn voting(holders: &[(&str, &[u64])]) -> DictionaryAnswers {
        let holders = holders.iter().map(|(t, s)| (t.to_string(), s.iter().copied().collect())).collect();
        DictionaryAnswers {
            by_source: HashMap::new(),
            laws: HashSet::new(),
            lay_term_answers: lay_term_weights(holders),
        }
    }

    fn word(w: &str, terms: &[&str]) -> (String, Vec<String>) {
        (w.to_string(), terms.iter().map(|t| t.to_string()).collect())
    }

    #[test]
    fn two_words_of_the_entries_answering_with_a_section_vote_for_it_and_one_word_does_not() {
        let d = voting(&[
            ("miet", &[1, 2, 3, 4, 5, 6]),
            ("inflation", &[1]),
            ("index", &[1, 7]),
            ("wohnung", &[2, 3, 4, 5, 6, 8]),
            ("mieter", &[2, 3, 4, 5, 6, 9]),
        ]);
        // One word alone singles out nothing.
        assert!(d.votes(&[word("Inflation", &["inflation"])]).is_empty());
        assert!(d.votes(&[word("Inflation", &["inflation"]), word("Hund", &["hund"])]).is_empty());
        // `Miete` and `Inflation` (of different entries of § 1) vote for § 1 alone.
        let v = d.votes(&[word("Miete", &["miet"]), word("an", &[]), word("Inflation", &["inflation"])]);
        assert_eq!(v.keys().copied().collect::<Vec<_>>(), [1]);
        assert_eq!(v[&1].words, ["Miete", "Inflation"]);
        assert!((v[&1].lift - (1.0 + VOTE_LIFT)).abs() < 1e-5, "{v:?}");
        // A word's two terms both in § 1's lay words count once, at the rarer term's weight.
        let both = d.votes(&[word("Miete", &["miet"]), word("Inflation", &["inflation", "index"])]);
        assert_eq!(both[&1].weight, v[&1].weight);
        // Five sections that the same two common words vote for alike are none of them lifted.
        assert!(d.votes(&[word("Mieter", &["mieter"]), word("Wohnung", &["wohnung"])]).is_empty());
        // Three words: § 1 gets the rare `Inflation` and `Miete`, sections 2-6 the common
        // `Miete` and `Wohnung` alike; their tie at the cut leaves them all out.
        let v = d.votes(&[word("Miete", &["miet"]), word("Inflation", &["inflation"]), word("Wohnung", &["wohnung"])]);
        assert_eq!(v.keys().copied().collect::<Vec<_>>(), [1]);
        let v = d.votes(&[word("Index", &["index"]), word("Miete", &["miet"]), word("Inflation", &["inflation"])]);
        assert_eq!(v.keys().copied().collect::<Vec<_>>(), [1], "§ 7 holds only `Index`: {v:?}");
        let v = d.votes(&[word("Index", &["index"]), word("Mieter", &["mieter"]), word("Hund", &["hund"])]);
        assert!(v.is_empty(), "{v:?}");
    }

    #[test]
    fn the_lift_of_a_voted_section_falls_with_its_weight_behind_the_best() {
        let d = voting(&[("kind", &[1, 2, 3, 4]), ("unterhalt", &[1, 2]), ("vater", &[1]), ("zahlt", &[2, 5, 6, 7])]);
        let v = d.votes(&[
            word("Vater", &["vater"]),
            word("Unterhalt", &["unterhalt"]),
            word("Kind", &["kind"]),
            word("zahlt", &["zahlt"]),
        ]);
        assert_eq!(v.keys().copied().collect::<Vec<_>>(), [1, 2], "{v:?}");
        assert!(v[&1].weight > v[&2].weight, "{v:?}");
        assert!((v[&1].lift - (1.0 + VOTE_LIFT)).abs() < 1e-5, "{v:?}");
        assert!((v[&2].lift - (1.0 + VOTE_LIFT * v[&2].weight / v[&1].weight)).abs() < 1e-6, "{v:?}");
        assert_eq!(v[&2].words, ["Unterhalt", "Kind", "zahlt"]);
    }
}
