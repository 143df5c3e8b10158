//! Decision tools: `search_decisions`, `get_decision`, `filter_cases`, `list_courts`,
//! `get_court`, `list_facets`, `cross_type_search`, `get_similar_cases`.
//! One function per capability; MCP and REST both call these.
//!
//! Honesty rules (seed 002): totals say what they count (`total_basis`); every filter that ran
//! is echoed in `filters_applied`; an empty result under a court or document-type filter says
//! whether the value exists at all (`filter_vocabulary`); null means "not recorded".

use crate::contract::answer::{ErrorCode, ToolError};
use crate::contract::answers::{
    CitedByResults, CrossTypeSearchAnswer, DecisionFlags, DecisionSectionSpan, DecisionSectionText,
    DecisionSourceRecord, FilterCasesAnswer, GetDecisionAnswer, GetSimilarCasesAnswer, NormCitedByResults, PartRefusal,
    RandnummerBlock, RandnummerOverview, RandnummerWindow, SearchDecisionsAnswer, SearchPart, SimilarCase,
};
use crate::contract::args::{
    CrossTypeSearchArgs, DecisionRef, FilterCasesArgs, GetDecisionArgs, GetSimilarCasesArgs, SearchDecisionsArgs,
    SearchLawsArgs,
};
use crate::query::decision_search::{FILTERS_BASIS, ranked_hits};
use crate::query::filters::{Filters, parse_date_arg};
use crate::query::identifiers::{
    SubdivisionDesignation, find_section, parse_section_citation, resolve_book, resolve_decision,
};
use crate::query::law_search::SectionLift;
use crate::query::text::{query_words_all, snippet, span_text};
use crate::store::decisions::{decision_by_id, decisions_filtered_page, decisions_where};
use extract::courts::fold;
use index::Generation;
use index::store::{ecli_norm, file_number_norm};
use rusqlite::params;
use std::collections::BTreeMap;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Term};

/// `get_decision(id, court?, date?, offset?, length?, section?, rn_from?, rn_to?)`.
pub fn get_decision(g: &Generation, a: GetDecisionArgs) -> Result<GetDecisionAnswer, ToolError> {
    let GetDecisionArgs { decision: DecisionRef { id, court, date }, offset, length, section, rn_from, rn_to } = a;
    let date = parse_date_arg(date.as_deref(), "date")?;
    let d = resolve_decision(g, &id, court.as_deref(), date.as_deref())?;
    type Extra = (String, Option<String>, String, String, String, Option<String>);
    let (flags, norms, sources, notes, source_format, date_raw): Extra = g.store.with(|c| {
        Ok(c.prepare_cached(
            "SELECT flags, norms_raw, sources, notes, source_format, date_raw FROM decisions WHERE id = ?1",
        )?
        .query_row(params![d.id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))?)
    })?;
    let body = g.decision_body(d.id)?;
    let text = body.text;
    let sections: Vec<DecisionSectionSpan> = serde_json::from_str(&body.sections).unwrap_or_default();
    let blocks: Vec<extract::decisions::RnBlock> = serde_json::from_str(&body.randnummern).unwrap_or_default();
    let total = d.text_length as usize;
    let mut out = GetDecisionAnswer {
        decision: d.summary(),
        ecli_date_agrees: d.ecli_date_agrees,
        date_as_given: date_raw,
        norms_as_given: norms,
        flags: serde_json::from_str::<DecisionFlags>(&flags).ok(),
        notes: serde_json::from_str::<Vec<String>>(&notes).ok(),
        source_format,
        sources: serde_json::from_str::<Vec<DecisionSourceRecord>>(&sources).ok(),
        available_sections: Vec::new(),
        randnummern: RandnummerOverview {
            count: blocks.len(),
            first: blocks.first().map(|b| b.rn),
            last: blocks.last().map(|b| b.rn),
            printed_in_source: blocks.first().map(|b| b.printed),
        },
        total_length: total,
        section: None,
        randnummer_window: None,
        content: None,
        snippet: None,
    };
    if let Some(name) = section {
        let want = fold(&name);
        let Some(s) = sections.iter().find(|s| fold(&s.name) == want || fold(&s.heading) == want) else {
            return Err(ToolError::new(
                ErrorCode::SectionNotInDecision,
                format!("this decision has no section {name:?}"),
                "Pick one of available_sections (by name).",
            )
            .with("available_sections", sections.iter().map(|s| s.name.clone()).collect::<Vec<_>>()));
        };
        out.section = Some(DecisionSectionText { span: s.clone(), text: span_text(&text, s.start, s.end) });
        out.available_sections = sections;
        return Ok(out);
    }
    out.available_sections = sections;
    if rn_from > 0 || rn_to > 0 {
        let (lo, hi) = (rn_from.max(1) as u32, if rn_to > 0 { rn_to as u32 } else { rn_from as u32 });
        if hi < lo {
            return Err(ToolError::invalid("rn_to is before rn_from", "Pass rn_from <= rn_to."));
        }
        let chosen: Vec<&extract::decisions::RnBlock> = blocks.iter().filter(|b| b.rn >= lo && b.rn <= hi).collect();
        let available = [blocks.first().map(|b| b.rn), blocks.last().map(|b| b.rn)];
        let window = match (chosen.first(), chosen.last()) {
            (Some(f), Some(l)) => RandnummerWindow {
                requested: [lo, hi],
                returned: Some([f.rn, l.rn]),
                available,
                start: Some(f.start),
                end: Some(l.end),
                blocks: chosen
                    .iter()
                    .map(|b| RandnummerBlock {
                        rn: b.rn,
                        printed: b.printed,
                        start: b.start,
                        end: b.end,
                        text: span_text(&text, b.start, b.end),
                    })
                    .collect(),
                note: None,
            },
            _ => RandnummerWindow {
                requested: [lo, hi],
                returned: None,
                available,
                start: None,
                end: None,
                blocks: Vec::new(),
                note: Some("No Randnummer of this decision lies in the requested range."),
            },
        };
        out.randnummer_window = Some(window);
        return Ok(out);
    }
    if offset == 0 && length == 0 {
        out.content = Some(text);
    } else {
        out.snippet = Some(snippet(&text, total, offset, length)?);
    }
    Ok(out)
}

/// `filter_cases(court?, branch?, document_type?, date_from?, date_to?, cited_norm?, cited_case_id?, file_number?, ecli?, sort?, limit?, offset?)`.
pub fn filter_cases(g: &Generation, a: FilterCasesArgs) -> Result<FilterCasesAnswer, ToolError> {
    let filters = Filters::from_search_args(g, &a.filters, &a.citations)?;
    let FilterCasesArgs { file_number, ecli, sort, .. } = a;
    let (limit, offset) = (a.limit as usize, a.offset as usize);
    let (mut conds, mut vals) = filters.sql_conditions_all(g)?;
    if let Some(fnum) = &file_number {
        vals.push(rusqlite::types::Value::Text(file_number_norm(fnum)));
        conds.push(format!("d.id IN (SELECT decision_id FROM decision_file_numbers WHERE fn_norm = ?{})", vals.len()));
    }
    if let Some(e) = &ecli {
        vals.push(rusqlite::types::Value::Text(ecli_norm(e)));
        conds.push(format!("upper(replace(d.ecli, ' ', '')) = ?{}", vals.len()));
    }
    // Filters, count and page in SQL: the store does the work, however many decisions it holds.
    let order = crate::store::decisions::citing_sort_order(sort);
    // Facet filters alone are counted from the generation's grouped facts, not row by row.
    let known_total = match (&file_number, &ecli) {
        (None, None) => crate::query::facts::facet_total(g, &filters)?,
        _ => None,
    };
    let (total, found) = decisions_filtered_page(g, &conds, &vals, order, (limit, offset), known_total)?;
    let rows: Vec<_> = found.iter().map(|d| d.summary()).collect();
    let filter_vocabulary = if total == 0 && !filters.is_empty() { filters.vocabulary(g)? } else { None };
    let mut filters_applied = filters.applied();
    filters_applied.file_number = file_number;
    filters_applied.ecli = ecli;
    Ok(FilterCasesAnswer {
        filters_applied,
        total,
        total_basis: FILTERS_BASIS,
        offset,
        limit,
        has_more: offset + rows.len() < total,
        sort: sort.into(),
        filter_vocabulary,
        results: rows,
    })
}

/// `cross_type_search(query, limit?, book?, court?, …)`: laws and decisions side by side.
pub fn cross_type_search(g: &Generation, a: CrossTypeSearchArgs) -> Result<CrossTypeSearchAnswer, ToolError> {
    let CrossTypeSearchArgs { query, book, filters, limit, expand_query } = a;
    let law_args = SearchLawsArgs { query: query.clone(), book, limit, expand_query };
    let dec_args = SearchDecisionsArgs {
        query: Some(query.clone()),
        filters,
        citations: Default::default(),
        sort: model::DecisionSort::Relevance,
        page: 1,
        limit,
        expand_query,
    };
    let decisions = part(crate::query::decision_search::search_decisions(g, &dec_args));
    // What the decision results cite: the decisions and the norms most of them cite. The laws
    // section ranks those §§ up (each row says by how many results).
    let result_ids: Vec<String> = match &decisions {
        SearchPart::Answer(d) => d.results.iter().map(|r| r.decision.id.clone()).collect(),
        SearchPart::Refusal(_) => Vec::new(),
    };
    let (cited, norms) = cited_by_results(g, &result_ids)?;
    let lift = sections_cited(g, &norms, result_ids.len());
    let laws = part(crate::query::law_search::search_laws_lifted(g, &law_args, std::sync::Arc::new(lift)));
    Ok(CrossTypeSearchAnswer {
        query,
        laws,
        decisions,
        frequently_cited_by_results: cited,
        norms_cited_by_decision_results: norms,
        cited_basis: format!(
            "counts are how many of the {} decision results cite each decision or norm",
            result_ids.len()
        ),
        note: "Two separate sections, never merged or ranked against each other: book filters only laws; court, branch, document_type and dates filter only decisions.",
    })
}

/// The held sections the norms name (`§ 823 Abs. 1 BGB` → § 823 BGB), with how many results
/// cite them; a norm naming no held section lifts nothing.
fn sections_cited(g: &Generation, norms: &[NormCitedByResults], results: usize) -> SectionLift {
    let mut lift = SectionLift { results, ..Default::default() };
    for n in norms {
        let Some((designation, book)) = parse_section_citation(&n.norm) else { continue };
        let Ok(law) = resolve_book(g, &book) else { continue };
        let section = SubdivisionDesignation::parse(&designation).map(|a| a.section).unwrap_or(designation);
        if let Ok(s) = find_section(g, &law, &section) {
            let entry = lift.cited.entry(s.id as u64).or_default();
            *entry = (*entry).max(n.cited_by_results);
        }
    }
    lift
}

/// One half of a combined answer: its answer, or the refusal it gave (the other half still runs).
fn part<T>(result: Result<T, ToolError>) -> SearchPart<T> {
    match result {
        Ok(answer) => SearchPart::Answer(answer),
        Err(e) => SearchPart::Refusal(PartRefusal {
            error_code: e.code,
            message: e.message,
            retryable: e.code.retryable(),
            hint: e.hint,
        }),
    }
}

/// The decisions and norms cited by the most of `ext_ids` (top 10 each).
fn cited_by_results(
    g: &Generation,
    ext_ids: &[String],
) -> Result<(Vec<CitedByResults>, Vec<NormCitedByResults>), ToolError> {
    if ext_ids.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let marks = vec!["?"; ext_ids.len()].join(", ");
    let (cases, norms) = g.store.with(|c| {
        let mut st = c.prepare(&format!(
            "SELECT t.ext_id, COUNT(DISTINCT e.citing_id) AS n FROM citation_edges e
             JOIN decisions s ON s.id = e.citing_id JOIN decisions t ON t.id = e.cited_id
             WHERE s.ext_id IN ({marks}) GROUP BY t.ext_id ORDER BY n DESC, t.ext_id LIMIT 10"
        ))?;
        let cases: Vec<(String, i64)> = st
            .query_map(rusqlite::params_from_iter(ext_ids.iter()), |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        let mut st = c.prepare(&format!(
            "SELECT n.norm, COUNT(DISTINCT n.decision_id) AS k FROM decision_norms n JOIN decisions s ON s.id = n.decision_id
             WHERE s.ext_id IN ({marks}) GROUP BY n.norm ORDER BY k DESC, n.norm LIMIT 10"
        ))?;
        let norms: Vec<(String, i64)> = st
            .query_map(rusqlite::params_from_iter(ext_ids.iter()), |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        Ok((cases, norms))
    })?;
    let mut cited = Vec::new();
    for (ext, n) in cases {
        if let Some(d) = decisions_where(g, "d.ext_id = ?1", &[&ext])?.pop() {
            cited.push(CitedByResults { decision: d.summary(), cited_by_results: n });
        }
    }
    Ok((cited, norms.into_iter().map(|(norm, k)| NormCitedByResults { norm, cited_by_results: k }).collect()))
}

/// `get_similar_cases(id, limit?)`: decisions whose passages share the most distinctive words.
pub fn get_similar_cases(g: &Generation, a: GetSimilarCasesArgs) -> Result<GetSimilarCasesAnswer, ToolError> {
    let (id, limit) = (a.id, a.limit as usize);
    let d = resolve_decision(g, &id, None, None)?;
    let text = g.decision_body(d.id)?.text;
    let f = g.decision_fields;
    let searcher = g.decisions_reader.searcher();
    // Distinctive words: frequent in this text, rare in the corpus (tf-idf over the analyzer's terms).
    let mut tf: BTreeMap<String, usize> = BTreeMap::new();
    for w in query_words_all(&text) {
        *tf.entry(w).or_default() += 1;
    }
    let n_docs = searcher.num_docs().max(1) as f64;
    let mut scored: Vec<(f64, String)> = Vec::new();
    for (w, n) in tf {
        if w.chars().count() < 4 || w.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let df = searcher.doc_freq(&Term::from_field_text(f.text, &w))? as f64;
        if df < 2.0 {
            continue;
        }
        scored.push(((n as f64).sqrt() * (n_docs / df).ln(), w));
    }
    scored.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
    scored.truncate(25);
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = scored
        .iter()
        .map(|(_, w)| {
            (
                Occur::Should,
                Box::new(TermQuery::new(Term::from_field_text(f.text, w), IndexRecordOption::WithFreqs))
                    as Box<dyn Query>,
            )
        })
        .collect();
    clauses.push((
        Occur::MustNot,
        Box::new(TermQuery::new(Term::from_field_u64(f.decision_id, d.id as u64), IndexRecordOption::Basic)),
    ));
    let rows = if scored.is_empty() {
        Vec::new()
    } else {
        let q = BooleanQuery::new(clauses);
        let hits = ranked_hits(&searcher, &q, limit)?;
        let mut rows = Vec::new();
        for h in hits.into_iter().take(limit) {
            rows.push(SimilarCase { decision: decision_by_id(g, h.decision_id as i64)?.summary(), score: h.score });
        }
        rows
    };
    Ok(GetSimilarCasesAnswer {
        decision: d.summary(),
        method: "more-like-this: the decision's most distinctive words (tf-idf over the passage index), matched against other decisions' passages",
        terms_used: scored.into_iter().map(|(_, w)| w).collect(),
        results: rows,
    })
}

/// `search_decisions(query, court?, branch?, document_type?, date_from?, date_to?, sort?, page?, limit?)`.
pub fn search_decisions(g: &Generation, a: SearchDecisionsArgs) -> Result<SearchDecisionsAnswer, ToolError> {
    crate::query::decision_search::search_decisions(g, &a)
}
