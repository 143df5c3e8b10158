//! Statute search: a § citation is answered exactly first, then words over headings, labels
//! and texts, optionally within one law. Words are analysed first ([`QueryPlan`]: function words
//! dropped, compounds split, typos corrected, legal-register terms added); sections holding
//! every word rank first, multiplied by the [`LawPrior`] (how often held decisions cite the § and
//! its law); each row says why it matched (`matched_by`). The sections the legal-register
//! dictionary answers with or votes for are candidates whatever else they hold.

use crate::contract::answer::ToolError;
use crate::contract::answers::{
    BookFilter, CitedByDecisions, DictionaryVote, HighlightedSnippet, LawMatch, LawSearchRow, MatchedVia, MatchedWord,
    SearchLawsAnswer, SearchSuggestion, SuggestionKind,
};
use crate::contract::args::SearchLawsArgs;
use crate::query::analysis::{
    QueryPlan, Via, Vocabulary, alternative_weight, concept_weight, plan_concept_queries, plan_walk_clauses,
};
use crate::query::dictionary_answers::{ANSWER_LIFT, DictionaryAnswers};
use crate::query::identifiers::{find_section, parse_section_citation, resolve_book};
use crate::query::law_prior::LawPrior;
use crate::query::section_walk::{Tweak, WalkLimits, walk_sections};
use crate::query::text::slice_chars;
use crate::store::laws::{Law, Section, law_by_id, section_by_id, section_url};
use index::Generation;
use model::{MatchMode, SearchMode};
use tantivy::collector::Count;
use tantivy::query::{Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Term};
use tantivy::{DocAddress, DocId, DocSet, Score, Searcher};

/// Sections to lift in the ranking: how many of `results` decision results cite each (by
/// section id). `cross_type_search` lifts the §§ its decision results cite.
#[derive(Debug, Default)]
pub struct SectionLift {
    pub cited: std::collections::HashMap<u64, i64>,
    pub results: usize,
}

impl SectionLift {
    /// The largest [`SectionLift::factor`] of any section.
    fn max_factor(&self) -> f32 {
        if self.cited.is_empty() { 1.0 } else { 2.0 }
    }

    /// 1 for a § no result cites, up to 2 for one every result cites.
    fn factor(&self, section_id: u64) -> f32 {
        match self.cited.get(&section_id) {
            Some(n) if self.results > 0 => 1.0 + (*n as f32 / self.results as f32).min(1.0),
            _ => 1.0,
        }
    }
}

/// `search_laws(query, book?, limit?)`: full-text search over law sections only.
pub fn search_laws(g: &Generation, a: &SearchLawsArgs) -> Result<SearchLawsAnswer, ToolError> {
    search_laws_lifted(g, a, std::sync::Arc::new(SectionLift::default()))
}

/// [`search_laws`], with the sections of `lift` ranked up (each row says by how many results).
pub fn search_laws_lifted(
    g: &Generation,
    a: &SearchLawsArgs,
    lift: std::sync::Arc<SectionLift>,
) -> Result<SearchLawsAnswer, ToolError> {
    let (query, book, limit) = (&a.query, &a.book, a.limit as usize);
    let law_filter = match &book {
        Some(b) => Some(resolve_book(g, b)?),
        None => None,
    };
    // A query that is a § citation throughout is answered exactly first.
    let mut exact: Option<(Law, Section)> = None;
    if let Some((designation, book)) = parse_section_citation(query)
        && let Ok(law) = resolve_book(g, &book)
        && law_filter.as_ref().is_none_or(|f| f.id == law.id)
        && let Ok(s) = find_section(g, &law, &designation)
    {
        exact = Some((law, s));
    }
    let f = g.law_fields;
    let searcher = g.laws_reader.searcher();
    // A word the decisions use is a real word, not a typo, though no statute holds it.
    let decisions = g.decisions_reader.searcher();
    let vocabulary =
        Vocabulary::new(&searcher, vec![f.text, f.heading]).with_words_of(&decisions, g.decision_fields.text);
    let plan = QueryPlan::analyse(query, &vocabulary, a.expand_query);
    if plan.concepts.is_empty() && exact.is_none() {
        return Err(ToolError::invalid(
            "the query has no searchable words",
            "Send words or a citation, e.g. \"Notwehr\" or \"§ 823 BGB\".",
        ));
    }
    // One law's sections only: a clause every result holds (scored alike in all of them).
    let law_clause = law_filter.as_ref().map(|l| {
        let t = TermQuery::new(Term::from_field_u64(f.law_id, l.id as u64), IndexRecordOption::Basic);
        Box::new(t) as Box<dyn Query>
    });
    let prior = LawPrior::of(g)?;
    let dictionary = DictionaryAnswers::of(g)?;
    // The §§ the fired dictionary entries answer with, lifted.
    let answers = std::sync::Arc::new(if plan.expansion.added.is_empty() {
        Default::default()
    } else {
        dictionary.answers(&plan.expansion)
    });
    // The §§ the dictionary's lay words vote for, lifted too.
    let votes = std::sync::Arc::new(if plan.lay_words.len() < 2 {
        Default::default()
    } else {
        dictionary.votes(&plan.lay_words)
    });
    let mut match_mode = MatchMode::AllTerms;
    let mut rows = Vec::new();
    let mut total = 0usize;
    let mut more_candidates = false;
    if !plan.concepts.is_empty() {
        // `parts` (compound parts, split at index time) matches `verletzen` in `Körperverletzung`.
        // A heading weighs 1.5 times the text: at 3 (tuned on lay-dev alone), a section whose
        // short heading held one of a question's words outranked the one whose text answers
        // it. A heading the question names whole is lifted after the walk instead
        // ([`lift_headings_the_question_names`]). Both together, measured over the 423 lay
        // questions of the eight sets `make bench` scores (limit 10): the answering § in the
        // top 5 for 63.4% of them (before: 61.5%; the two never-read sets 46.8%, before 42.2%;
        // lay-dev alone 90.0%, before 92.5%).
        let fields = [
            (f.heading, 1.5f32),
            (f.label, 2.0),
            (f.text, 1.0),
            (f.breadcrumb, 0.5),
            (f.law_title, 0.5),
            (f.parts, 0.1),
        ];
        let clauses = plan_walk_clauses(&plan, &fields, law_clause);
        let tweak = |segment: &tantivy::SegmentReader| -> tantivy::Result<Tweak> {
            let (by_doc, lift, answers, votes) =
                (prior.segment(segment)?, lift.clone(), answers.clone(), votes.clone());
            let answer_lift = if answers.is_empty() { 1.0 } else { ANSWER_LIFT };
            let vote_lift = votes.values().map(|v| v.lift).fold(1.0, f32::max);
            let max_factor = by_doc.max_factor * lift.max_factor() * answer_lift * vote_lift;
            let apply = move |doc: DocId, score: Score| {
                let at = doc as usize;
                let section = by_doc.section[at];
                let lifted = if lift.cited.is_empty() { 1.0 } else { lift.factor(section) };
                let answer = if answers.contains_key(&section) { ANSWER_LIFT } else { 1.0 };
                let voted = if votes.is_empty() { 1.0 } else { votes.get(&section).map_or(1.0, |v| v.lift) };
                score * by_doc.factor[at] * lifted * answer * voted
            };
            Ok(Tweak { apply: Box::new(apply), max_factor })
        };
        // The sections holding every word, all but one, or any: one walk ranks them all.
        // "Any" is ranked only when [`RANKED_AT_LEAST`] or fewer hold every word (`few`
        // below), said once here, whatever the caller's page: were it the page's size, a page
        // of 3 and one of 10 would rank from different sections and begin with different rows
        // (43 of the 723 lay questions did). The walk ranks candidates for a page of
        // [`RANKED_AT_LEAST`] at least, which the heading lift then reorders.
        let ranked = limit.max(RANKED_AT_LEAST);
        let limits = WalkLimits {
            every_word: ranked + 1,
            all_but_one: (ranked + 1) * 2,
            any_word: (ranked + 1) * 4,
            any_word_when_every_at_most: (plan.concepts.len() > 1).then_some(RANKED_AT_LEAST),
        };
        let mut walk = walk_sections(&searcher, &clauses, limits, &tweak)?;
        let count = walk.every_word.count;
        // (score, section, how many of the caller's words it misses)
        let mut top: Vec<(f32, DocAddress, usize)> = walk.every_word.top.iter().map(|h| (h.score, h.addr, 0)).collect();
        total = count;
        // Lay questions carry words the on-point § does not use ("bei einem Unfall nicht
        // helfen": § 323c StGB says Unglücksfälle; "Aufsichtspflicht der Eltern": § 832 BGB
        // names no parents), and the few sections that hold every word are often annexes that
        // hold them by their length. So with 2 words or more, sections missing one word rank
        // beside those holding all, and when few hold all, sections holding fewer rank beside
        // them too: one ranking, each missing word lowering the score.
        let few = limits.any_word_when_every_at_most.is_some_and(|n| count <= n);
        // When few hold every word, the sections holding any word are pooled instead, which
        // include those missing one.
        // Pooled below, a section holding none of the words scores nothing (its share of the
        // words held), so with a page of sections holding some, those holding only added
        // terms are counted, not ranked.
        let relaxed = if few {
            Some(walk.take_any_word_holding_a_required_clause(&searcher, &clauses, limit, &tweak)?)
        } else {
            None
        };
        let soft = if few { None } else { walk.all_but_one.take() };
        // The counts of the pooled modes (all but one, any), when sections missing words are pooled.
        let mut pooled = None;
        if soft.is_some() || few {
            let mut pool = std::mem::take(&mut walk.every_word.top);
            let mut soft_count = 0;
            if let Some(soft) = soft {
                pool.extend(soft.top);
                soft_count = soft.count;
            }
            let mut relaxed_count = None;
            if let Some(relaxed) = relaxed {
                pool.extend(relaxed.top);
                relaxed_count = Some(relaxed.count);
            }
            // Every mode scores a section the same (the same clauses, summed).
            let mut seen = std::collections::HashSet::new();
            pool.retain(|h| seen.insert(h.addr));
            // Which of the caller's words each pooled section holds, and what they weigh: a
            // missing rare word (`misshandeln`) costs more than a missing common one (`Person`).
            let num_docs = searcher.num_docs();
            let holding = match walk.sections_holding.take() {
                Some(holding) => holding,
                // Under a book filter the walk saw only the law's sections; the weights are
                // the whole index's.
                None => plan_concept_queries(&plan, &fields)
                    .iter()
                    .map(|(_, q)| searcher.search(q.as_ref(), &Count).map(|n| n as u64))
                    .collect::<tantivy::Result<_>>()?,
            };
            // One per restricting word, in the plan's order (as the walk's required clauses);
            // a word common in everyday German weighs less here too, as in the score.
            let restricting = plan.concepts.iter().filter(|c| plan.restricts(c));
            let weights: Vec<f32> = holding
                .iter()
                .zip(restricting)
                .map(|(df, c)| concept_weight(*df, num_docs) * c.everyday_weight())
                .collect();
            let all_weight: f32 = weights.iter().sum();
            // The sections the dictionary answers with or votes for are candidates whatever
            // else they hold: a lay question's other words often miss the § an entry names
            // ("wann muss der Arbeitgeber den Lohn zahlen": § 614 BGB holds only `Lohn`, as
            // Vergütung), and the pool held only sections missing one word at most. Each
            // is ranked as the others: its clauses' scores, its lifts, its share of the words.
            // Under a book filter the walk saw only the law's sections; left so.
            if law_filter.is_none() && !(answers.is_empty() && votes.is_empty()) {
                let wanted = answers.keys().chain(votes.keys()).copied();
                let mut addrs = sections_at(&searcher, f.section_id, wanted)?;
                addrs.retain(|a| pool.iter().all(|h| h.addr != *a));
                if !addrs.is_empty() {
                    let hits = walk.score_sections(&searcher, &addrs, &tweak)?;
                    // One holding none of the caller's words would score nothing.
                    pool.extend(hits.into_iter().filter(|h| (0..weights.len()).any(|i| h.holds(i))));
                }
            }
            top = pool
                .iter()
                .map(|h| {
                    let held: f32 = weights.iter().enumerate().filter(|(i, _)| h.holds(*i)).map(|(_, w)| w).sum();
                    let missing = (0..weights.len()).filter(|i| !h.holds(*i)).count();
                    let share = if missing == 0 || all_weight <= 0.0 { 1.0 } else { held / all_weight };
                    (h.score * share, h.addr, missing)
                })
                .collect();
            pooled = Some((soft_count, relaxed_count));
        }
        let mut holdings = Holdings::new(&searcher, top.iter().map(|(_, a, _)| *a));
        lift_headings_the_question_names(&mut top, &mut holdings, &searcher, &plan, f.heading)?;
        // The page as ranked says which sections it shows: all holding every word, or not.
        if let Some((soft_count, relaxed_count)) = pooled {
            let page_missing = top.iter().take(limit).map(|(_, _, m)| *m).max().unwrap_or(0);
            if page_missing > 1 || (page_missing == 1 && few) {
                match_mode = if count == 0 { MatchMode::AnyTerm } else { MatchMode::RankedByWordsHeld };
                // A dictionary's candidate missing two words or more can bring this mode to a
                // page whose sections missing words were not pooled: then they are counted.
                total = match relaxed_count {
                    Some(n) => n,
                    None => walk.count_any_word(&searcher, &clauses, &tweak)?,
                };
            } else if page_missing == 1 {
                match_mode = MatchMode::AllTermsButOne;
                total = soft_count;
            }
        }
        let mut highlighter =
            crate::query::snippets::Highlighter::new(&plan.all_terms().into_iter().collect::<Vec<_>>());
        // The section id from the fast field: the stored text is read once, from the store.
        let ids = searcher
            .segment_readers()
            .iter()
            .map(|r| r.fast_fields().u64("section_id"))
            .collect::<tantivy::Result<Vec<_>>>()?;
        let shown_rows = limit.saturating_sub(usize::from(exact.is_some()));
        let mut candidates = top.into_iter().filter_map(|(score, addr, _)| {
            let sid = ids[addr.segment_ord as usize].first(addr.doc_id).unwrap_or(0) as i64;
            exact.as_ref().is_none_or(|(_, s)| s.id != sid).then_some((score, addr, sid))
        });
        // Rows are built for the page only; one candidate more says whether there is more.
        let page: Vec<(f32, DocAddress, i64)> = candidates.by_ref().take(shown_rows).collect();
        more_candidates = candidates.next().is_some();
        for (score, addr, sid) in page {
            let s = section_by_id(g, sid)?;
            let law = law_by_id(g, s.law_id)?;
            let frag = highlighter.fragment(&s.text, 240);
            let (section_n, law_n) = prior.citing(s.id, law.id);
            let cited = prior.has_citations().then_some(CitedByDecisions { section: section_n, law: law_n });
            let mut matched = matched_by(&mut holdings, addr, &plan, &f, cited);
            if let LawMatch::Words { cited_by_decision_results, dictionary_answer_to, dictionary_vote, .. } =
                &mut matched
            {
                *cited_by_decision_results = lift.cited.get(&(s.id as u64)).copied();
                *dictionary_answer_to = answers.get(&(s.id as u64)).cloned();
                *dictionary_vote = votes.get(&(s.id as u64)).map(|v| DictionaryVote {
                    words: v.words.clone(),
                    lift: (f64::from(v.lift) * 100.0).round() / 100.0,
                });
            }
            rows.push(result_row(&law, &s, Some(score), matched, frag.text, frag.highlights));
        }
    }
    if let Some((law, s)) = &exact {
        let text = slice_chars(&s.text, 0, 240);
        rows.insert(0, result_row(law, s, None, LawMatch::ExactCitation, text, Vec::new()));
    }
    let has_more = more_candidates || rows.len() > limit;
    rows.truncate(limit);
    Ok(SearchLawsAnswer {
        filters_applied: law_filter.as_ref().map(|l| BookFilter { book: l.code.clone() }),
        query: query.clone(),
        mode: if exact.is_some() { SearchMode::ExactCitationThenKeyword } else { SearchMode::Keyword },
        match_mode,
        total_matching_sections: total,
        total_basis: match match_mode {
            MatchMode::AllTerms => "law_sections_matching_every_query_word",
            MatchMode::AllTermsButOne => "law_sections_matching_all_but_one_query_word",
            MatchMode::RankedByWordsHeld => "law_sections_matching_any_query_word",
            _ => "law_sections_matching_any_query_word",
        },
        limit,
        has_more: has_more || total > rows.len(),
        query_expansion: plan.expansion.report(),
        query_analysis: plan.report(),
        suggestions: rows.is_empty().then(|| suggestions(&plan, law_filter.is_some())),
        results: rows,
        scope: "federal statutes only (gesetze-im-internet.de); never decisions",
    })
}

pub(crate) fn result_row(
    law: &Law,
    s: &Section,
    score: Option<f32>,
    matched: LawMatch,
    text: String,
    highlights: Vec<[usize; 2]>,
) -> LawSearchRow {
    LawSearchRow {
        law: law.summary(),
        section: s.toc_key.clone(),
        label: s.label.clone(),
        heading: s.heading.clone(),
        breadcrumb: s.breadcrumb.clone(),
        kind: s.kind.clone(),
        matched_by: matched,
        score,
        snippet: HighlightedSnippet { text, highlights },
        html_url: section_url(&law.slug, s.label.as_deref()),
    }
}

/// How much a section whose heading is what the question names is lifted: its score times up
/// to 1 + this, for a heading every word of which the question holds and which holds every
/// word of the question (`Diebstahl` is § 242 StGB's whole heading and a third of § 252's;
/// `Körperverletzung` is § 223's). Measured (`make bench`'s heading questions, 150 unique
/// headings of 37 major laws asked as they are written): the § ranks first for 97.3% of them,
/// against 86.0% with the heading weight of 1.5 alone and 90.0% with the former weight of 3.
const HEADING_NAMED_LIFT: f32 = 1.0;

/// The fewest candidates of each kind (every word, all but one, any) a search ranks before the
/// heading lift, whatever its limit: a section the lift raises to the top of a page of 10 is
/// also among the candidates of a page of 3.
const RANKED_AT_LEAST: usize = 10;

/// Ranks up the candidates whose heading the question names: each one's score times
/// 1 + [`HEADING_NAMED_LIFT`] × (the share of the heading's words the question's words match ×
/// the share of the question the heading names)², then sorted again. A heading's words are
/// counted by its field norm (function words included, so a heading of several parts is lifted
/// less). The question's words are its concepts that restrict (a word no statute holds is in no
/// heading), each weighing as in the score (`einfach` less than `Diebstahl`:
/// [`crate::query::analysis::Concept::everyday_weight`]); a concept the heading holds in one of
/// its ways counts as much as that way weighs ([`alternative_weight`]: the caller's word 1, a
/// dictionary term 0.8 or less). The dictionary guesses what the caller means; the lift rewards
/// most what the caller named.
fn lift_headings_the_question_names(
    top: &mut [(f32, DocAddress, usize)],
    holdings: &mut Holdings<'_>,
    searcher: &Searcher,
    plan: &QueryPlan,
    heading: Field,
) -> tantivy::Result<()> {
    let norms = searcher
        .segment_readers()
        .iter()
        .map(|r| r.get_fieldnorms_reader(heading))
        .collect::<tantivy::Result<Vec<_>>>()?;
    let question_weight: f32 = plan.concepts.iter().filter(|c| plan.restricts(c)).map(|c| c.everyday_weight()).sum();
    for (score, addr, _) in top.iter_mut() {
        let words = norms[addr.segment_ord as usize].fieldnorm(addr.doc_id);
        if words == 0 {
            continue;
        }
        // Per restricting word: how much it weighs in the question, and how well the heading
        // names it.
        let (mut named, mut named_weighed) = (0.0f32, 0.0f32);
        for c in plan.concepts.iter().filter(|c| plan.restricts(c)) {
            let held = c
                .alternatives
                .iter()
                .filter(|a| a.terms.iter().all(|t| holdings.holds(*addr, heading, t)))
                .map(|a| alternative_weight(&a.via))
                .fold(0.0, f32::max);
            named += held;
            named_weighed += held * c.everyday_weight();
        }
        let of_heading = (named / words as f32).min(1.0);
        let of_question = if question_weight > 0.0 { named_weighed / question_weight } else { 0.0 };
        *score *= 1.0 + HEADING_NAMED_LIFT * (of_heading * of_question).powi(2);
    }
    top.sort_by(|x, y| y.0.total_cmp(&x.0));
    Ok(())
}

/// Adds to `out` which of `segment` (one segment's documents, in index order) `docs` holds:
/// it is moved to each of them in turn.
fn held_of(docs: &mut impl DocSet, segment: &[DocAddress], out: &mut std::collections::HashSet<DocAddress>) {
    for addr in segment {
        // `seek` wants a target at or after the current doc.
        if docs.doc() < addr.doc_id {
            docs.seek(addr.doc_id);
        }
        if docs.doc() == addr.doc_id {
            out.insert(*addr);
        }
    }
}

/// Which of a page's documents hold a term in a field: each (field, term) is looked up once
/// for the whole page, on first asking, instead of once per row.
struct Holdings<'a> {
    searcher: &'a Searcher,
    /// The page's documents, in index order.
    docs: Vec<DocAddress>,
    /// By field, then term (looked up by `&str`: a row asks dozens of times).
    known: std::collections::HashMap<Field, std::collections::HashMap<String, std::collections::HashSet<DocAddress>>>,
}

impl<'a> Holdings<'a> {
    fn new(searcher: &'a Searcher, docs: impl Iterator<Item = DocAddress>) -> Holdings<'a> {
        let mut docs: Vec<DocAddress> = docs.collect();
        docs.sort();
        Holdings { searcher, docs, known: Default::default() }
    }

    /// Whether the document at `addr` (one of the page's) holds `term` in `field`.
    fn holds(&mut self, addr: DocAddress, field: Field, term: &str) -> bool {
        if let Some(holding) = self.known.get(&field).and_then(|terms| terms.get(term)) {
            return holding.contains(&addr);
        }
        let mut holding = std::collections::HashSet::new();
        for segment in self.docs.chunk_by(|a, b| a.segment_ord == b.segment_ord) {
            let reader = self.searcher.segment_reader(segment[0].segment_ord);
            let Ok(index) = reader.inverted_index(field) else { continue };
            if let Ok(Some(mut postings)) =
                index.read_postings(&Term::from_field_text(field, term), IndexRecordOption::Basic)
            {
                held_of(&mut postings, segment, &mut holding);
            }
        }
        let holds = holding.contains(&addr);
        self.known.entry(field).or_default().insert(term.to_string(), holding);
        holds
    }
}

/// Why a row matched: which of the caller's words it holds and how (the word itself, its
/// compound parts, a legal-register term, a corrected spelling), whether in the heading, and
/// which added terms it holds (the caller adds the decisions citing it, the prior's input).
fn matched_by(
    holdings: &mut Holdings<'_>,
    addr: DocAddress,
    plan: &QueryPlan,
    f: &index::laws_index::LawFields,
    cited_by_decisions: Option<CitedByDecisions>,
) -> LawMatch {
    let fields = [f.text, f.heading, f.label, f.breadcrumb, f.law_title, f.parts];
    let in_doc = |h: &mut Holdings<'_>, t: &str| fields.iter().any(|fl| h.holds(addr, *fl, t));
    let mut words = Vec::new();
    let mut every_word = true;
    for c in &plan.concepts {
        let Some(a) = c.alternatives.iter().find(|a| a.terms.iter().all(|t| in_doc(holdings, t))) else {
            every_word &= !plan.restricts(c);
            continue;
        };
        let in_heading = a.terms.iter().all(|t| holdings.holds(addr, f.heading, t));
        let via = match &a.via {
            Via::Word => MatchedVia::Word,
            Via::CompoundParts { .. } => MatchedVia::CompoundParts,
            Via::Expansion { .. } => MatchedVia::LegalRegister,
            Via::TypoCorrection { .. } => MatchedVia::TypoCorrection,
            Via::WordForm { .. } => MatchedVia::WordForm,
            Via::VerbForm { .. } => MatchedVia::VerbForm,
            Via::JoinedCompound { .. } => MatchedVia::JoinedCompound,
        };
        words.push(MatchedWord { word: c.word.clone(), via, terms: a.terms.clone(), in_heading });
    }
    let added_terms = plan.optional_terms.iter().filter(|t| in_doc(holdings, t)).cloned().collect();
    LawMatch::Words {
        every_word,
        words,
        added_terms,
        cited_by_decisions,
        cited_by_decision_results: None,
        dictionary_answer_to: None,
        dictionary_vote: None,
    }
}

/// The statute index's documents of the sections `ids` (each section is one document; an id
/// the index lacks is skipped), in index order.
fn sections_at(searcher: &Searcher, field: Field, ids: impl Iterator<Item = u64>) -> tantivy::Result<Vec<DocAddress>> {
    let mut out = Vec::new();
    for id in ids {
        let term = Term::from_field_u64(field, id);
        for (ord, reader) in searcher.segment_readers().iter().enumerate() {
            let postings = reader.inverted_index(field)?.read_postings(&term, IndexRecordOption::Basic)?;
            if let Some(p) = postings.filter(|p| p.doc() != tantivy::TERMINATED) {
                out.push(DocAddress::new(ord as u32, p.doc()));
            }
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// What to try when nothing matched: corrected spellings of unknown words, the dictionary, and
/// fewer words (each named; nothing is retried silently).
fn suggestions(plan: &QueryPlan, filtered: bool) -> Vec<SearchSuggestion> {
    let mut out = Vec::new();
    if !plan.unknown_words.is_empty() {
        out.push(SearchSuggestion {
            kind: SuggestionKind::UnknownWords,
            words: Some(plan.unknown_words.clone()),
            hint: "These words occur in no federal statute; check the spelling or use the statute's term.",
        });
    }
    if plan.expansion.status != model::ExpansionStatus::Applied {
        out.push(SearchSuggestion {
            kind: SuggestionKind::LegalRegister,
            words: None,
            hint: "No dictionary entry matched; statutes often use other words (Mietsicherheit for Kaution, Nachstellung for Stalking).",
        });
    }
    if filtered {
        out.push(SearchSuggestion {
            kind: SuggestionKind::DropBookFilter,
            words: None,
            hint: "Search again without book.",
        });
    }
    out
}
