//! Decision search: a query is an identifier (looked up exactly) or words and § citations (ranked passages grouped by decision), under the filters; pages, totals and their basis.

use crate::contract::answer::ToolError;
use crate::contract::answers::{
    DecisionMatch, DecisionSearchRow, HighlightedSnippet, PassageSnippet, RandnummerSpan, SearchDecisionsAnswer,
};
use crate::contract::args::{PAGE_MAX, SearchDecisionsArgs};
use crate::query::analysis::{QueryPlan, Vocabulary, plan_match_query, plan_query};
use crate::query::filters::Filters;
use crate::query::identifiers::{looks_like_ecli, looks_like_file_number};
use crate::query::passage_runs::for_each_matching_decision;
use crate::query::snippets::Highlighter;
use crate::query::text::query_words;
use crate::store::decisions::{
    Decision, citing_counts, decision_by_id, decision_dates, decisions_by_ecli, decisions_by_file_number,
};
use index::Generation;
use index::store::{ecli_norm, file_number_norm};
use model::{DecisionSort, MatchMode, SearchMode};
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, PhraseQuery, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Term, Value as _};
use tantivy::{DocAddress, Score, Searcher, TantivyDocument};

/// The distinct decisions (row ids) among every passage matching `q`, in index order: one
/// passage read per decision ([`for_each_matching_decision`]).
pub(crate) fn matching_decisions(g: &Generation, searcher: &Searcher, q: &dyn Query) -> Result<Vec<u64>, ToolError> {
    let mut out = Vec::new();
    for_each_matching_decision(g, searcher, q, |id| {
        out.push(id);
        ControlFlow::Continue(())
    })?;
    Ok(out)
}

pub(crate) struct Hit {
    pub(crate) decision_id: u64,
    pub(crate) score: f32,
    /// The decision's best passages (at most [`SNIPPETS_PER_ROW`]), best first.
    passages: Vec<DocAddress>,
}

pub(crate) const SNIPPETS_PER_ROW: usize = 2;

/// Best passages per decision, decisions in order of their best passage. Decision ids come
/// from the fast field, so no stored document is read here; callers load only the passages
/// of the rows they show.
pub(crate) fn ranked_hits(searcher: &Searcher, q: &dyn Query, want: usize) -> Result<Vec<Hit>, ToolError> {
    ranked_hits_from(searcher, q, want, first_limit(want))
}

/// How many matching decisions a ranked search counts before it stops, unless the server was
/// started with another cap ([`set_count_cap`]): past it, `total` is a floor. Counting walks
/// every matching passage (no index statistic counts decisions), so an uncapped count grows
/// with the corpus while the ranking need not (single-word queries rank by block-max pruning);
/// the exact figure is one `get_case_statistics` call away.
pub const DEFAULT_COUNT_CAP: usize = 10_000;

/// The cap in force: a process-wide setting, written once at start (`serve --search-count-cap`).
static COUNT_CAP: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(DEFAULT_COUNT_CAP);

/// Sets how many matching decisions a ranked search counts (at least 1).
pub fn set_count_cap(cap: usize) {
    COUNT_CAP.store(cap.max(1), std::sync::atomic::Ordering::Relaxed);
}

fn count_cap() -> usize {
    COUNT_CAP.load(std::sync::atomic::Ordering::Relaxed)
}

/// The distinct decisions among the passages matching `q`, counted until `cap` is passed:
/// `(n, false)` when all were counted, `(cap, true)` when more than `cap` match.
pub(crate) fn count_decisions_up_to(
    g: &Generation,
    searcher: &Searcher,
    q: &dyn Query,
    cap: usize,
) -> Result<(usize, bool), ToolError> {
    let mut counted = 0;
    let mut over = false;
    for_each_matching_decision(g, searcher, q, |_| {
        counted += 1;
        if counted > cap {
            over = true;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    })?;
    Ok(if over { (cap, true) } else { (counted, false) })
}

/// How many top passages are read first: a decision often has several among them.
fn first_limit(want: usize) -> usize {
    (want * 8).max(50)
}

/// [`ranked_hits`] from the top `limit` passages, four times as many until `want` decisions
/// are found, every match is read, or 20,000 passages are.
fn ranked_hits_from(searcher: &Searcher, q: &dyn Query, want: usize, mut limit: usize) -> Result<Vec<Hit>, ToolError> {
    loop {
        let top = searcher.search(q, &TopDocs::with_limit(limit).order_by_score())?;
        let exhausted = top.len() < limit;
        let hits = hits_of(searcher, top)?;
        if hits.len() >= want || exhausted || limit >= 20_000 {
            return Ok(hits);
        }
        limit *= 4;
    }
}

/// Top passages → decisions in order of their best passage, each with its best passages.
fn hits_of(searcher: &Searcher, top: Vec<(Score, DocAddress)>) -> Result<Vec<Hit>, ToolError> {
    let mut columns = BTreeMap::new();
    let mut hits: Vec<Hit> = Vec::new();
    let mut index_of: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
    for (score, addr) in top {
        let col = match columns.entry(addr.segment_ord) {
            std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::btree_map::Entry::Vacant(e) => e.insert(
                searcher
                    .segment_reader(addr.segment_ord)
                    .fast_fields()
                    .u64("decision_id")
                    .map_err(ToolError::internal)?,
            ),
        };
        let Some(did) = col.first(addr.doc_id) else { continue };
        match index_of.get(&did) {
            Some(&i) if hits[i].passages.len() < SNIPPETS_PER_ROW => hits[i].passages.push(addr),
            Some(_) => {}
            None => {
                index_of.insert(did, hits.len());
                hits.push(Hit { decision_id: did, score, passages: vec![addr] });
            }
        }
    }
    Ok(hits)
}

/// Whether any live passage matches `q`: stops at the first (no collector walks every match).
fn matches_any(searcher: &Searcher, q: &dyn Query) -> Result<bool, ToolError> {
    use tantivy::query::EnableScoring;
    let weight = q.weight(EnableScoring::disabled_from_searcher(searcher))?;
    for reader in searcher.segment_readers() {
        let mut scorer = weight.scorer(reader, 1.0)?;
        let alive = reader.alive_bitset();
        let mut doc = scorer.doc();
        while doc != tantivy::TERMINATED {
            if alive.is_none_or(|a| a.is_alive(doc)) {
                return Ok(true);
            }
            doc = scorer.advance();
        }
    }
    Ok(false)
}

/// The snippet of one passage (its text is stored with it in the decisions index).
fn snippet_of(hl: &mut Highlighter, g: &Generation, doc: &TantivyDocument, max_chars: usize) -> PassageSnippet {
    let f = g.decision_fields;
    let text = doc.get_first(f.text).and_then(|v| v.as_str()).unwrap_or("");
    let field = |field| doc.get_first(field).and_then(|v| v.as_u64()).unwrap_or(0);
    let (rn_from, rn_to) = (field(f.rn_from), field(f.rn_to));
    let section = doc.get_first(f.section).and_then(|v| v.as_str()).map(str::to_string);
    let frag = hl.fragment(text, max_chars);
    PassageSnippet {
        snippet: HighlightedSnippet { text: frag.text, highlights: frag.highlights },
        randnummer: match (rn_from, rn_to) {
            (0, _) => None,
            (from, to) if from == to => Some(RandnummerSpan::One(from)),
            (from, to) => Some(RandnummerSpan::Range([from, to])),
        },
        section,
    }
}

/// The passages of one hit as snippets.
fn passage_snippets(
    hl: &mut Highlighter,
    g: &Generation,
    searcher: &Searcher,
    passages: &[DocAddress],
) -> Result<Vec<PassageSnippet>, ToolError> {
    Ok(passages
        .iter()
        .map(|addr| searcher.doc::<TantivyDocument>(*addr).map(|doc| snippet_of(hl, g, &doc, 240)))
        .collect::<tantivy::Result<_>>()?)
}

/// `search_decisions(query, court?, branch?, document_type?, date_from?, date_to?, sort?, page?, limit?)`.
pub fn search_decisions(g: &Generation, a: &SearchDecisionsArgs) -> Result<SearchDecisionsAnswer, ToolError> {
    let filters = Filters::from_search_args(g, &a.filters, &a.citations)?;
    let Some(query) = &a.query else { return list_by_filters(g, a, &filters) };
    let sort = a.sort;
    let (page, size) = (a.page as usize, a.limit as usize);
    // An identifier or a § citation is never expanded; words are, unless the caller opted out.
    let expansion = crate::query::expansion::QueryExpansion::not_applied(
        query,
        model::ExpansionStatus::Skipped,
        model::ExpansionReason::PreciseIdentifier,
    );
    let mut answer =
        SearchDecisionsAnswer::unpaged(Some(query.clone()), &filters, a, expansion.report(), SearchMode::Keyword);

    let m = match match_query(g, query, &filters, a.expand_query)? {
        QueryMatch::Identifier { mode, decisions: mut found } => {
            sort_decisions(&mut found, sort);
            let total = found.len();
            let matched_by =
                if mode == SearchMode::ExactEcli { DecisionMatch::ExactEcli } else { DecisionMatch::ExactFileNumber };
            let rows = found
                .iter()
                .skip((page - 1) * size)
                .take(size)
                .map(|d| DecisionSearchRow { decision: d.summary(), matched_by, score: None, snippets: Vec::new() })
                .collect();
            answer.mode = mode;
            answer.mode_note =
                Some("The query is an identifier throughout, so it was looked up exactly, not searched as words.");
            finish_page(g, &filters, &mut answer, total, IDENTIFIER_BASIS, rows)?;
            return Ok(answer);
        }
        QueryMatch::Text(m) => m,
    };
    if let Some(plan) = &m.plan {
        answer.query_expansion = plan.expansion.report();
        answer.query_analysis = Some(plan.report());
    }
    let f = g.decision_fields;
    let searcher = g.decisions_reader.searcher();
    let mut gen_ = Highlighter::new(&m.words);
    let mut rows = Vec::new();
    let start = (page - 1) * size;
    let total;
    if sort != DecisionSort::Relevance {
        let mut ordered = m.decisions(g, &searcher)?;
        total = ordered.len();
        let dates = decision_dates(g)?;
        let date = |id: u64| dates.get(id as usize).copied().flatten();
        let page_ids = if sort == DecisionSort::Date {
            page_of(&mut ordered, start, size, |a, b| date(*b).cmp(&date(*a)).then(a.cmp(b)))
        } else {
            let counts = citing_counts(g)?;
            let count = |id: u64| counts.get(id as usize).copied().unwrap_or(0);
            page_of(&mut ordered, start, size, |a, b| {
                count(*b).cmp(&count(*a)).then(date(*b).cmp(&date(*a))).then(a.cmp(b))
            })
        };
        let id_filter: Vec<(Occur, Box<dyn Query>)> = page_ids
            .iter()
            .map(|id| {
                let t = TermQuery::new(Term::from_field_u64(f.decision_id, *id), IndexRecordOption::Basic);
                (Occur::Should, Box::new(t) as Box<dyn Query>)
            })
            .collect();
        let within = BooleanQuery::new(vec![
            (Occur::Must, Box::new(m.query.clone()) as Box<dyn Query>),
            (Occur::Must, Box::new(BooleanQuery::new(id_filter))),
        ]);
        let hits = if page_ids.is_empty() { Vec::new() } else { ranked_hits(&searcher, &within, page_ids.len())? };
        for id in page_ids {
            let d = decision_by_id(g, id as i64)?;
            let passages = hits.iter().find(|h| h.decision_id == id).map(|h| h.passages.clone()).unwrap_or_default();
            let snippets = passage_snippets(&mut gen_, g, &searcher, &passages)?;
            rows.push(DecisionSearchRow {
                decision: d.summary(),
                matched_by: DecisionMatch::TextMatch,
                score: None,
                snippets,
            });
        }
    } else {
        // Counted up to the cap, then ranked: a top-k of one word skips most passages.
        let (counted, is_floor) = count_decisions_up_to(g, &searcher, &m.count_query, count_cap())?;
        let hits = if counted == 0 { Vec::new() } else { ranked_hits(&searcher, &m.query, start + size)? };
        // Under a cap smaller than the pages reach, the ranked decisions are a higher floor.
        total = if is_floor { counted.max(hits.len()) } else { counted };
        answer.total_is_floor = is_floor;
        for h in hits.into_iter().skip(start).take(size) {
            let d = decision_by_id(g, h.decision_id as i64)?;
            let snippets = passage_snippets(&mut gen_, g, &searcher, &h.passages)?;
            rows.push(DecisionSearchRow {
                decision: d.summary(),
                matched_by: DecisionMatch::TextMatch,
                score: Some(h.score),
                snippets,
            });
        }
    }
    answer.mode = if m.citation { SearchMode::ExactCitation } else { SearchMode::Keyword };
    if m.citation {
        answer.mode_note = Some(
            "The query is a § / Art. citation throughout, so it was matched as a citation (its words in order), not as loose words.",
        );
    }
    answer.match_mode = Some(m.match_mode);
    finish_page(g, &filters, &mut answer, total, text_basis(m.citation, m.match_mode), rows)?;
    answer.scope = Some("court decisions only; laws are searched by search_laws");
    Ok(answer)
}

/// The ids at `start..start + size` of `ids` in the order `cmp` (a total order) gives. Only the
/// ids up to the page's end are sorted: the rest are set apart in linear time, so a page of a
/// word that many decisions hold costs no sort of all of them.
fn page_of(ids: &mut Vec<u64>, start: usize, size: usize, cmp: impl Fn(&u64, &u64) -> std::cmp::Ordering) -> Vec<u64> {
    let end = (start + size).min(ids.len());
    if start >= end {
        return Vec::new();
    }
    if end < ids.len() {
        ids.select_nth_unstable_by(end - 1, &cmp);
        ids.truncate(end);
    }
    ids.sort_unstable_by(&cmp);
    ids.split_off(start)
}

/// `search_decisions` without words: the decisions matching every filter, newest or most cited
/// first, paged as a search (counted and paged in SQL).
fn list_by_filters(
    g: &Generation,
    a: &SearchDecisionsArgs,
    filters: &Filters,
) -> Result<SearchDecisionsAnswer, ToolError> {
    let order = match a.sort {
        DecisionSort::Date => model::CitingSort::Date,
        DecisionSort::MostCited => model::CitingSort::MostCited,
        DecisionSort::Relevance => {
            return Err(ToolError::invalid(
                "sort=relevance needs a query",
                "Send query words, or list by the filters alone with sort=most_cited (the leading decisions) or sort=date.",
            ));
        }
    };
    let (page, size) = (a.page as usize, a.limit as usize);
    let (conds, vals) = filters.sql_conditions_all(g)?;
    let order = crate::store::decisions::citing_sort_order(order);
    let known_total = crate::query::facts::facet_total(g, filters)?;
    let (total, found) = crate::store::decisions::decisions_filtered_page(
        g,
        &conds,
        &vals,
        order,
        (size, (page - 1) * size),
        known_total,
    )?;
    let rows = found
        .iter()
        .map(|d| DecisionSearchRow {
            decision: d.summary(),
            matched_by: DecisionMatch::FiltersOnly,
            score: None,
            snippets: Vec::new(),
        })
        .collect();
    let mut answer = SearchDecisionsAnswer::unpaged(
        None,
        filters,
        a,
        crate::query::expansion::QueryExpansion::not_applied(
            "",
            model::ExpansionStatus::Skipped,
            model::ExpansionReason::EmptyQuery,
        )
        .report(),
        SearchMode::FiltersOnly,
    );
    answer.mode_note = Some("No query: every decision matching the filters, in the order sort names.");
    answer.scope = Some("court decisions only; laws are searched by search_laws");
    finish_page(g, filters, &mut answer, total, FILTERS_BASIS, rows)?;
    Ok(answer)
}

impl SearchDecisionsAnswer {
    /// The answer before any page is filled: what was asked, and how it is matched.
    fn unpaged(
        query: Option<String>,
        filters: &Filters,
        a: &SearchDecisionsArgs,
        query_expansion: crate::contract::answers::QueryExpansionReport,
        mode: SearchMode,
    ) -> SearchDecisionsAnswer {
        SearchDecisionsAnswer {
            query,
            filters_applied: filters.applied(),
            sort: a.sort,
            page: a.page as usize,
            limit: a.limit as usize,
            query_expansion,
            query_analysis: None,
            mode,
            mode_note: None,
            match_mode: None,
            total: 0,
            total_is_floor: false,
            total_basis: IDENTIFIER_BASIS,
            returned: 0,
            has_more: false,
            paging_note: None,
            filter_vocabulary: None,
            results: Vec::new(),
            scope: None,
        }
    }
}

/// `total_basis` of a listing by the filters alone.
pub(crate) const FILTERS_BASIS: &str = "decisions_held_matching_every_filter";

pub(crate) const IDENTIFIER_BASIS: &str = "decisions_with_this_identifier_after_filters";

/// `total_basis` of a word or § query.
pub(crate) fn text_basis(citation: bool, match_mode: MatchMode) -> &'static str {
    if citation {
        "decisions_with_a_passage_citing_these_words_in_order"
    } else if match_mode == MatchMode::AnyTerm {
        "decisions_with_a_passage_containing_any_query_word"
    } else {
        "decisions_with_a_passage_containing_every_query_word"
    }
}

/// What a decision query matched, before sorting and paging.
pub(crate) enum QueryMatch {
    /// The query is one Aktenzeichen or ECLI throughout: looked up exactly, then filtered.
    Identifier { mode: SearchMode, decisions: Vec<Decision> },
    /// Words or a § citation, matched in the passages under the filters.
    Text(TextMatch),
}

/// How words or a § citation match: the index queries that rank and count, and how the words
/// were read. The matching decisions are read by the caller, with the ranking where it ranks.
pub(crate) struct TextMatch {
    /// Ranks the passages. It matches exactly the passages [`Self::count_query`] matches: the
    /// clauses only it has are optional beside required ones.
    pub query: BooleanQuery,
    /// Decides the set: the ranking query without the clauses that only rank, so a count
    /// does not walk them.
    pub count_query: BooleanQuery,
    pub words: Vec<String>,
    pub citation: bool,
    pub match_mode: MatchMode,
    /// How the words were analysed (None for a § citation, which is matched as printed).
    pub plan: Option<Box<QueryPlan>>,
}

impl TextMatch {
    /// Every matching decision (row id), in index order.
    pub(crate) fn decisions(&self, g: &Generation, searcher: &Searcher) -> Result<Vec<u64>, ToolError> {
        matching_decisions(g, searcher, &self.count_query)
    }
}

/// The matching of `search_decisions`, shared with `get_case_statistics` so a count and a
/// search under the same arguments always agree (where the search's total is a floor, the
/// statistics' exact total is at least it).
/// Words are analysed as for statutes ([`QueryPlan`]: function words dropped, compounds split,
/// typos corrected against the passage index's vocabulary, and with `expand` the
/// legal-register terms added); a § citation is matched as a citation, never analysed.
pub(crate) fn match_query(
    g: &Generation,
    query: &str,
    filters: &Filters,
    expand: bool,
) -> Result<QueryMatch, ToolError> {
    let trimmed = query.trim();
    if looks_like_ecli(trimmed) || looks_like_file_number(trimmed) {
        // Exact keyword mode: the query is an identifier throughout.
        let (mode, mut found) = if looks_like_ecli(trimmed) {
            (SearchMode::ExactEcli, decisions_by_ecli(g, &ecli_norm(trimmed))?)
        } else {
            (SearchMode::ExactFileNumber, decisions_by_file_number(g, &file_number_norm(trimmed))?)
        };
        filters.retain(g, &mut found)?;
        return Ok(QueryMatch::Identifier { mode, decisions: found });
    }
    let words = query_words(query);
    if words.is_empty() {
        return Err(ToolError::invalid(
            "the query has no searchable words",
            "Send words, an Aktenzeichen or an ECLI, e.g. \"Betriebsgeheimnis\".",
        ));
    }
    let f = g.decision_fields;
    let searcher = g.decisions_reader.searcher();
    // A § / Art. citation throughout (`§ 823 BGB`, `Art. 20 GG`): its words in order, close
    // together (`§ 823 Abs. 1 BGB` matches), never the words scattered over a passage.
    let citation = crate::query::identifiers::parse_section_citation(trimmed).is_some() && words.len() >= 2;
    if citation {
        let mut phrase = PhraseQuery::new(words.iter().map(|w| Term::from_field_text(f.text, w)).collect());
        phrase.set_slop(8);
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, Box::new(phrase))];
        clauses.extend(filters.clauses(g));
        let q = BooleanQuery::new(clauses);
        return Ok(QueryMatch::Text(TextMatch {
            query: q.clone(),
            count_query: q,
            words,
            citation,
            match_mode: MatchMode::CitationWordsInOrder,
            plan: None,
        }));
    }
    let vocabulary = Vocabulary::new(&searcher, vec![f.text, f.heading]).holding_back_phrases();
    let plan = QueryPlan::analyse(query, &vocabulary, expand);
    if plan.concepts.is_empty() {
        return Err(ToolError::invalid(
            "the query has only function words",
            "Send the words that matter, e.g. \"Kaution Rückzahlung\" rather than \"wann bekomme ich das zurück\".",
        ));
    }
    let fields = [(f.text, 1.0f32), (f.heading, 2.0)];
    let mut match_mode = MatchMode::AllTermsInOnePassage;
    let mut occur = Occur::Must;
    let mut count_query = plan_match_query(&plan, &fields, occur, filters.clauses(g));
    if plan.concepts.len() > 1 && !matches_any(&searcher, &count_query)? {
        occur = Occur::Should;
        match_mode = MatchMode::AnyTerm;
        count_query = plan_match_query(&plan, &fields, occur, filters.clauses(g));
    }
    let query = plan_query(&plan, &fields, occur, filters.clauses(g));
    let mut words: Vec<String> = plan.all_terms().into_iter().collect();
    words.extend(plan.optional_terms.iter().cloned());
    Ok(QueryMatch::Text(TextMatch { query, count_query, words, citation, match_mode, plan: Some(Box::new(plan)) }))
}

/// Fills the page's counts and rows; an empty result under a court or document-type filter also
/// says whether the value exists at all (`filter_vocabulary`).
pub(crate) fn finish_page(
    g: &Generation,
    filters: &Filters,
    answer: &mut SearchDecisionsAnswer,
    total: usize,
    basis: &'static str,
    rows: Vec<DecisionSearchRow>,
) -> Result<(), ToolError> {
    let (page, size) = (answer.page, answer.limit);
    let end = page * size;
    answer.total = total;
    answer.total_basis = basis;
    answer.returned = rows.len();
    answer.has_more = end < total && page < PAGE_MAX as usize;
    if end < total && page >= PAGE_MAX as usize {
        answer.paging_note =
            Some(format!("Only pages 1-{PAGE_MAX} are served; narrow the query or filters to reach the rest."));
    }
    answer.results = rows;
    if total == 0 && !filters.is_empty() {
        answer.filter_vocabulary = filters.vocabulary(g)?;
    }
    Ok(())
}

/// `date`: newest first, undated last; otherwise by id.
pub(crate) fn sort_decisions(ds: &mut [Decision], sort: DecisionSort) {
    match sort {
        DecisionSort::Date => ds.sort_by(|a, b| b.date.cmp(&a.date).then(a.id.cmp(&b.id))),
        DecisionSort::MostCited => {
            ds.sort_by(|a, b| b.citing_count.cmp(&a.citing_count).then(b.date.cmp(&a.date)).then(a.id.cmp(&b.id)))
        }
        DecisionSort::Relevance => ds.sort_by_key(|d| d.id),
    }
}

#[cfg(test)]
mod tests {
    use super::page_of;

    #[test]
    fn a_page_of_a_partial_sort_is_the_page_of_the_whole_sort() {
        // Dates with ties and undated decisions, ordered newest first, then by id.
        let date = |id: u64| (!id.is_multiple_of(7)).then_some(20_000_000 + (id * 7_919) % 41);
        let cmp = |a: &u64, b: &u64| date(*b).cmp(&date(*a)).then(a.cmp(b));
        let ids: Vec<u64> = (1..=300).map(|i| (i * 104_729) % 1_009).collect();
        let mut whole = ids.clone();
        whole.sort_by(cmp);
        for (start, size) in [(0, 10), (0, 1), (10, 10), (290, 10), (295, 10), (299, 1), (300, 10), (0, 300), (0, 500)]
        {
            let want: Vec<u64> = whole.iter().skip(start).take(size).copied().collect();
            assert_eq!(page_of(&mut ids.clone(), start, size, cmp), want, "start {start}, size {size}");
        }
        assert!(page_of(&mut Vec::new(), 0, 10, cmp).is_empty());
    }
}
