//! Decision tools: `search_decisions`, `get_decision`, `filter_cases`, `list_courts`,
//! `get_court`, `list_facets`, `cross_type_search`, `get_similar_cases`.
//! One function per capability; MCP and REST both call these.
//!
//! Honesty rules (seed 002): totals say what they count (`total_basis`); every filter that ran
//! is echoed in `filters_applied`; an empty result under a court or document-type filter says
//! whether the value exists at all (`filter_vocabulary`); null means "not recorded".

use crate::contract::answer::{ErrorCode, ToolError};
use crate::contract::args::{
    CrossTypeSearchArgs, DecisionRef, FilterCasesArgs, GetDecisionArgs, GetSimilarCasesArgs, SearchDecisionsArgs,
    SearchLawsArgs,
};
use crate::query::decision_search::ranked_hits;
use crate::query::filters::{Filters, parse_date_arg};
use crate::query::identifiers::resolve_decision;
use crate::query::text::{query_words_all, snippet, span_text};
use crate::store::decisions::{DEC_COLS, DEC_FROM, decision_by_id, decision_from_row, decisions_where};
use extract::courts::fold;
use index::Generation;
use index::store::{ecli_norm, file_number_norm};
use rusqlite::{params, params_from_iter};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Term};

/// `get_decision(id, court?, date?, offset?, length?, section?, rn_from?, rn_to?)`.
pub fn get_decision(g: &Generation, a: GetDecisionArgs) -> Result<Map<String, Value>, ToolError> {
    let GetDecisionArgs { decision: DecisionRef { id, court, date }, offset, length, section, rn_from, rn_to } = a;
    let date = parse_date_arg(date.as_deref(), "date")?;
    let d = resolve_decision(g, &id, court.as_deref(), date.as_deref())?;
    type Extra = (String, String, String, String, Option<String>, String, String, String, Option<String>);
    let (text, sections, rns, flags, norms, sources, notes, source_format, date_raw): Extra = g.store.with(|c| {
        Ok(c.query_row(
            "SELECT text, sections, randnummern, flags, norms_raw, sources, notes, source_format, date_raw FROM decisions WHERE id = ?1",
            params![d.id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?)),
        )?)
    })?;
    let sections: Vec<Value> = serde_json::from_str(&sections).unwrap_or_default();
    let blocks: Vec<extract::decisions::RnBlock> = serde_json::from_str(&rns).unwrap_or_default();
    let total = d.text_length as usize;
    let mut out = Map::new();
    out.insert("decision".into(), d.summary());
    out.insert("ecli_date_agrees".into(), json!(d.ecli_date_agrees));
    out.insert("date_as_given".into(), json!(date_raw));
    out.insert("norms_as_given".into(), json!(norms));
    out.insert("flags".into(), serde_json::from_str(&flags).unwrap_or(Value::Null));
    out.insert("notes".into(), serde_json::from_str(&notes).unwrap_or(Value::Null));
    out.insert("source_format".into(), json!(source_format));
    out.insert("sources".into(), serde_json::from_str(&sources).unwrap_or(Value::Null));
    out.insert("available_sections".into(), json!(sections));
    out.insert(
        "randnummern".into(),
        json!({
            "count": blocks.len(),
            "first": blocks.first().map(|b| b.rn),
            "last": blocks.last().map(|b| b.rn),
            "printed_in_source": blocks.first().map(|b| b.printed),
        }),
    );
    out.insert("total_length".into(), json!(total));
    if let Some(name) = section {
        let want = fold(&name);
        let Some(s) = sections.iter().find(|s| {
            s["name"].as_str().map(fold) == Some(want.clone()) || s["heading"].as_str().map(fold) == Some(want.clone())
        }) else {
            return Err(ToolError::new(
                ErrorCode::SectionNotInDecision,
                format!("this decision has no section {name:?}"),
                "Pick one of available_sections (by name).",
            )
            .with("available_sections", sections.iter().map(|s| s["name"].clone()).collect::<Vec<_>>()));
        };
        let (start, end) = (s["start"].as_u64().unwrap_or(0) as usize, s["end"].as_u64().unwrap_or(0) as usize);
        out.insert("section".into(), json!({"name": s["name"], "heading": s["heading"], "start": start, "end": end, "text": span_text(&text, start, end)}));
        return Ok(out);
    }
    if rn_from > 0 || rn_to > 0 {
        let (lo, hi) = (rn_from.max(1) as u32, if rn_to > 0 { rn_to as u32 } else { rn_from as u32 });
        if hi < lo {
            return Err(ToolError::invalid("rn_to is before rn_from", "Pass rn_from <= rn_to."));
        }
        let chosen: Vec<&extract::decisions::RnBlock> = blocks.iter().filter(|b| b.rn >= lo && b.rn <= hi).collect();
        let window = match (chosen.first(), chosen.last()) {
            (Some(f), Some(l)) => json!({
                "requested": [lo, hi],
                "returned": [f.rn, l.rn],
                "available": [blocks.first().map(|b| b.rn), blocks.last().map(|b| b.rn)],
                "start": f.start,
                "end": l.end,
                "blocks": chosen.iter().map(|b| json!({"rn": b.rn, "printed": b.printed, "start": b.start, "end": b.end, "text": span_text(&text, b.start, b.end)})).collect::<Vec<_>>(),
            }),
            _ => json!({
                "requested": [lo, hi],
                "returned": Value::Null,
                "available": [blocks.first().map(|b| b.rn), blocks.last().map(|b| b.rn)],
                "blocks": [],
                "note": "No Randnummer of this decision lies in the requested range.",
            }),
        };
        out.insert("randnummer_window".into(), window);
        return Ok(out);
    }
    if offset == 0 && length == 0 {
        out.insert("content".into(), json!(text));
    } else {
        out.insert("snippet".into(), snippet(&text, total, offset, length)?);
    }
    Ok(out)
}

/// `filter_cases(court?, branch?, document_type?, date_from?, date_to?, cited_norm?, cited_case_id?, file_number?, ecli?, sort?, limit?, offset?)`.
pub fn filter_cases(g: &Generation, a: FilterCasesArgs) -> Result<Map<String, Value>, ToolError> {
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
    let cond = conds.join(" AND ");
    let (total, rows): (usize, Vec<Value>) = g.store.with(|c| {
        let total: i64 = c.query_row(
            &format!("SELECT COUNT(*) FROM {DEC_FROM} WHERE {cond}"),
            params_from_iter(vals.iter()),
            |r| r.get(0),
        )?;
        let mut st = c.prepare(&format!(
            "SELECT {DEC_COLS} FROM {DEC_FROM} WHERE {cond} ORDER BY {order} LIMIT {limit} OFFSET {offset}",
            order = crate::store::decisions::citing_sort_order(sort)
        ))?;
        let rows = st
            .query_map(params_from_iter(vals.iter()), decision_from_row)?
            .map(|d| d.map(|d| d.summary()))
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok((total as usize, rows))
    })?;
    let mut out = Map::new();
    let mut applied = filters.applied();
    if let Some(x) = &file_number {
        applied["file_number"] = json!(x);
    }
    if let Some(x) = &ecli {
        applied["ecli"] = json!(x);
    }
    out.insert("filters_applied".into(), applied);
    out.insert("total".into(), json!(total));
    out.insert("total_basis".into(), json!("decisions_held_matching_every_filter"));
    out.insert("offset".into(), json!(offset));
    out.insert("limit".into(), json!(limit));
    out.insert("has_more".into(), json!(offset + rows.len() < total));
    out.insert(
        "sort".into(),
        json!(match sort {
            model::CitingSort::Date => "date_desc_undated_last",
            model::CitingSort::MostCited => "most_cited_then_date_desc",
        }),
    );
    if total == 0
        && !filters.is_empty()
        && let Some(v) = filters.vocabulary(g)?
    {
        out.insert("filter_vocabulary".into(), v);
    }
    out.insert("results".into(), Value::Array(rows));
    Ok(out)
}

/// `cross_type_search(query, limit?, book?, court?, …)`: laws and decisions side by side.
pub fn cross_type_search(g: &Generation, a: CrossTypeSearchArgs) -> Result<Map<String, Value>, ToolError> {
    let CrossTypeSearchArgs { query, book, filters, limit, expand_query } = a;
    let law_args = SearchLawsArgs { query: query.clone(), book, limit, expand_query };
    let dec_args = SearchDecisionsArgs {
        query: query.clone(),
        filters,
        citations: Default::default(),
        sort: model::DecisionSort::Relevance,
        page: 1,
        limit,
        expand_query,
    };
    let section = |r: Result<Map<String, Value>, ToolError>| match r {
        Ok(m) => Value::Object(m),
        Err(e) => Value::Object(e.payload()),
    };
    let laws = section(crate::query::law_search::search_laws(g, &law_args));
    let decisions = section(crate::query::decision_search::search_decisions(g, &dec_args));
    // What the decision results cite: the decisions and the norms most of them cite.
    let result_ids: Vec<String> = decisions["results"]
        .as_array()
        .map(|rs| rs.iter().filter_map(|r| r["id"].as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    let (cited, norms) = cited_by_results(g, &result_ids)?;
    let mut out = Map::new();
    out.insert("query".into(), json!(query));
    out.insert("laws".into(), laws);
    out.insert("decisions".into(), decisions);
    out.insert("frequently_cited_by_results".into(), json!(cited));
    out.insert("norms_cited_by_decision_results".into(), json!(norms));
    out.insert(
        "cited_basis".into(),
        json!(format!("counts are how many of the {} decision results cite each decision or norm", result_ids.len())),
    );
    out.insert("note".into(), json!("Two separate sections, never merged or ranked against each other: book filters only laws; court, branch, document_type and dates filter only decisions."));
    Ok(out)
}

/// The decisions and norms cited by the most of `ext_ids` (top 10 each).
fn cited_by_results(g: &Generation, ext_ids: &[String]) -> Result<(Vec<Value>, Vec<Value>), ToolError> {
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
            let mut v = d.summary();
            v["cited_by_results"] = json!(n);
            cited.push(v);
        }
    }
    Ok((cited, norms.into_iter().map(|(n, k)| json!({"norm": n, "cited_by_results": k})).collect()))
}

/// `get_similar_cases(id, limit?)`: decisions whose passages share the most distinctive words.
pub fn get_similar_cases(g: &Generation, a: GetSimilarCasesArgs) -> Result<Map<String, Value>, ToolError> {
    let (id, limit) = (a.id, a.limit as usize);
    let d = resolve_decision(g, &id, None, None)?;
    let text: String =
        g.store.with(|c| Ok(c.query_row("SELECT text FROM decisions WHERE id = ?1", params![d.id], |r| r.get(0))?))?;
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
            let mut r = decision_by_id(g, h.decision_id as i64)?.summary();
            r["score"] = json!(h.score);
            rows.push(r);
        }
        rows
    };
    let mut out = Map::new();
    out.insert("decision".into(), d.summary());
    out.insert("method".into(), json!("more-like-this: the decision's most distinctive words (tf-idf over the passage index), matched against other decisions' passages"));
    out.insert("terms_used".into(), json!(scored.iter().map(|(_, w)| w).collect::<Vec<_>>()));
    out.insert("results".into(), Value::Array(rows));
    Ok(out)
}

/// `search_decisions(query, court?, branch?, document_type?, date_from?, date_to?, sort?, page?, limit?)`.
pub fn search_decisions(g: &Generation, a: SearchDecisionsArgs) -> Result<Map<String, Value>, ToolError> {
    crate::query::decision_search::search_decisions(g, &a)
}
