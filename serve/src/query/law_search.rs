//! Statute search: a § citation is answered exactly first, then words over headings, labels and texts, optionally within one law.

use crate::contract::answer::ToolError;
use crate::contract::args::SearchLawsArgs;
use crate::query::identifiers::{find_section, parse_section_citation, resolve_book};
use crate::query::text::{query_words, slice_chars, words_query};
use crate::store::laws::{Law, Section, law_by_id, section_by_id, section_url};
use index::Generation;
use model::{MatchMode, SearchMode};
use serde_json::{Map, Value, json};
use tantivy::collector::{Count, TopDocs};
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Term};

/// `search_laws(query, book?, limit?)`: full-text search over law sections only.
pub fn search_laws(g: &Generation, a: &SearchLawsArgs) -> Result<Map<String, Value>, ToolError> {
    let (query, book, limit) = (&a.query, &a.book, a.limit as usize);
    let law_filter = match &book {
        Some(b) => Some(resolve_book(g, b)?),
        None => None,
    };
    let mut out = Map::new();
    if let Some(l) = &law_filter {
        out.insert("filters_applied".into(), json!({"book": l.code}));
    }
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
    let words = query_words(query);
    if words.is_empty() && exact.is_none() {
        return Err(ToolError::invalid(
            "the query has no searchable words",
            "Send words or a citation, e.g. \"Notwehr\" or \"§ 823 BGB\".",
        ));
    }
    let fields = [(f.heading, 3.0f32), (f.label, 2.0), (f.text, 1.0), (f.breadcrumb, 0.5), (f.law_title, 0.5)];
    let build = |occur: Occur| -> BooleanQuery {
        let filter: Vec<(Occur, Box<dyn Query>)> = law_filter
            .iter()
            .map(|l| {
                let t = TermQuery::new(Term::from_field_u64(f.law_id, l.id as u64), IndexRecordOption::Basic);
                (Occur::Must, Box::new(t) as Box<dyn Query>)
            })
            .collect();
        words_query(&words, &fields, occur, filter)
    };
    let searcher = g.laws_reader.searcher();
    let mut match_mode = MatchMode::AllTerms;
    let mut rows = Vec::new();
    let mut total = 0usize;
    if !words.is_empty() {
        let mut q = build(Occur::Must);
        let (mut top, mut count) = searcher.search(&q, &(TopDocs::with_limit(limit + 1).order_by_score(), Count))?;
        if count == 0 && words.len() > 1 {
            q = build(Occur::Should);
            (top, count) = searcher.search(&q, &(TopDocs::with_limit(limit + 1).order_by_score(), Count))?;
            match_mode = MatchMode::AnyTerm;
        }
        total = count;
        let mut highlighter = crate::query::snippets::Highlighter::new(&words);
        for (score, addr) in top {
            // The section id from the fast field: the stored text is read once, from the store.
            let ids = searcher.segment_reader(addr.segment_ord).fast_fields().u64("section_id")?;
            let sid = ids.first(addr.doc_id).unwrap_or(0) as i64;
            if exact.as_ref().is_some_and(|(_, s)| s.id == sid) {
                continue;
            }
            let s = section_by_id(g, sid)?;
            let law = law_by_id(g, s.law_id)?;
            let frag = highlighter.fragment(&s.text, 240);
            let (text, highlights) = (frag.text, frag.highlights);
            rows.push(result_row(&law, &s, Some(score), "text_match", text, highlights));
        }
    }
    if let Some((law, s)) = &exact {
        let text = slice_chars(&s.text, 0, 240);
        rows.insert(0, result_row(law, s, None, "exact_citation", text, Vec::new()));
    }
    let has_more = rows.len() > limit;
    rows.truncate(limit);
    out.insert("query".into(), json!(query));
    out.insert(
        "mode".into(),
        json!(if exact.is_some() { SearchMode::ExactCitationThenKeyword } else { SearchMode::Keyword }),
    );
    out.insert("match_mode".into(), json!(match_mode));
    out.insert("total_matching_sections".into(), json!(total));
    out.insert(
        "total_basis".into(),
        json!(if match_mode == MatchMode::AllTerms {
            "law_sections_containing_every_query_word"
        } else {
            "law_sections_containing_any_query_word"
        }),
    );
    out.insert("limit".into(), json!(limit));
    out.insert("has_more".into(), json!(has_more || total > rows.len()));
    out.insert("results".into(), Value::Array(rows));
    out.insert("scope".into(), json!("federal statutes only (gesetze-im-internet.de); never decisions"));
    Ok(out)
}

pub(crate) fn result_row(
    law: &Law,
    s: &Section,
    score: Option<f32>,
    matched: &str,
    text: String,
    highlights: Vec<[usize; 2]>,
) -> Value {
    json!({
        "law": law.summary(),
        "section": s.toc_key,
        "label": s.label,
        "heading": s.heading,
        "breadcrumb": s.breadcrumb,
        "kind": s.kind,
        "matched_by": matched,
        "score": score,
        "snippet": {"text": text, "highlights": highlights},
        "html_url": section_url(&law.slug, s.label.as_deref()),
    })
}
