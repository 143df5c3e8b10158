//! `get_case_statistics`: how many held decisions there are by court, year, branch and
//! document type, under exactly the filters (and optional query) of `search_decisions`.
//!
//! The matching is `decisions::match_query` and `Filters`, not a copy, so a count here and a
//! search with the same arguments always agree. Every breakdown sums to `total`; a value the
//! source did not record is counted under `null` and said so (an undated decision is
//! `year: null`, never dropped and never guessed).

use std::collections::{BTreeMap, HashSet};

use index::Generation;
use serde_json::{Map, Value, json};

use crate::answer::ToolError;
use crate::args::Args;
use crate::decisions::{Decision, Filters, IDENTIFIER_BASIS, QueryMatch, match_query, text_basis};

/// One count row: a value (null = not recorded) and its decisions.
fn rows(counts: BTreeMap<Option<String>, usize>, key: &str, by_count: bool) -> Vec<Value> {
    let mut v: Vec<(Option<String>, usize)> = counts.into_iter().collect();
    if by_count {
        // Busiest first; the unrecorded bucket last so it never looks like a top value.
        v.sort_by(|a, b| a.0.is_none().cmp(&b.0.is_none()).then(b.1.cmp(&a.1)).then(a.0.cmp(&b.0)));
    } else {
        // Chronological, null (undated) last.
        v.sort_by(|a, b| a.0.is_none().cmp(&b.0.is_none()).then(a.0.cmp(&b.0)));
    }
    v.into_iter().map(|(k, n)| json!({key: k, "decisions": n})).collect()
}

/// `get_case_statistics(query?, court?, branch?, document_type?, date_from?, date_to?,
/// cited_norm?, cited_case_id?)`.
pub fn get_case_statistics(g: &Generation, a: &Args<'_>) -> Result<Map<String, Value>, ToolError> {
    let query = a.str_opt("query", 500)?.filter(|s| !s.trim().is_empty());
    let filters = Filters::from_search_args(g, a)?;
    let mut out = Map::new();
    out.insert("query".into(), json!(query));
    out.insert("filters_applied".into(), filters.applied());

    // Every held decision's row; the matching below decides which of them count.
    let mut all: Vec<Decision> = crate::decisions::all_decisions(g)?;
    let (basis, mode) = match &query {
        None => {
            filters.retain(g, &mut all)?;
            ("decisions_held_matching_every_filter", "filters_only")
        }
        Some(q) => match match_query(g, q, &filters)? {
            QueryMatch::Identifier { mode, decisions } => {
                let keep: HashSet<i64> = decisions.iter().map(|d| d.id).collect();
                all.retain(|d| keep.contains(&d.id));
                (IDENTIFIER_BASIS, mode)
            }
            QueryMatch::Text { citation, match_mode, ids, .. } => {
                let keep: HashSet<i64> = ids.iter().map(|(id, _)| *id as i64).collect();
                all.retain(|d| keep.contains(&d.id));
                out.insert("match_mode".into(), json!(match_mode));
                (text_basis(citation, match_mode), if citation { "exact_citation" } else { "keyword" })
            }
        },
    };

    let mut by_court: BTreeMap<Option<String>, usize> = BTreeMap::new();
    let mut by_year: BTreeMap<Option<String>, usize> = BTreeMap::new();
    let mut by_branch: BTreeMap<Option<String>, usize> = BTreeMap::new();
    let mut by_type: BTreeMap<Option<String>, usize> = BTreeMap::new();
    let mut no_court = 0usize;
    for d in &all {
        let court = d.court.as_ref().and_then(|c| c["name"].as_str()).map(str::to_string);
        no_court += usize::from(court.is_none());
        // The index files a decision without a court under branch `unbekannt`, and the branch
        // filter matches it there, so the count does the same (and says how many).
        let branch = d.court.as_ref().and_then(|c| c["branch"].as_str()).unwrap_or("unbekannt").to_string();
        let year = d.date.as_deref().filter(|s| s.len() >= 4).map(|s| s[..4].to_string());
        *by_court.entry(court).or_default() += 1;
        *by_year.entry(year).or_default() += 1;
        *by_branch.entry(Some(branch)).or_default() += 1;
        *by_type.entry(d.document_type.clone()).or_default() += 1;
    }
    let unrecorded = |m: &BTreeMap<Option<String>, usize>| m.get(&None).copied().unwrap_or(0);
    let total = all.len();
    out.insert("mode".into(), json!(mode));
    out.insert("total".into(), json!(total));
    out.insert("total_basis".into(), json!(basis));
    out.insert(
        "counts_basis".into(),
        json!("each decision counts once in every breakdown, so each breakdown sums to total"),
    );
    out.insert(
        "unrecorded".into(),
        json!({
            "court": unrecorded(&by_court),
            "year": unrecorded(&by_year),
            "document_type": unrecorded(&by_type),
            "branch_unbekannt_without_court": no_court,
        }),
    );
    out.insert(
        "null_means".into(),
        json!("not recorded in our record: court null = the source names no court we could place; year null = undated decision; document_type null = no type given. Never zero, never 'none'."),
    );
    out.insert("by_court".into(), json!(rows(by_court, "court", true)));
    out.insert("by_year".into(), json!(rows(by_year, "year", false)));
    out.insert("by_branch".into(), json!(rows(by_branch, "branch", true)));
    out.insert("by_document_type".into(), json!(rows(by_type, "document_type", true)));
    if total == 0
        && !filters.is_empty()
        && let Some(v) = filters.vocabulary(g)?
    {
        out.insert("filter_vocabulary".into(), v);
    }
    out.insert(
        "scope".into(),
        json!(
            "held decisions of this generation, not all the courts ever decided; corpus_coverage says what is ingested"
        ),
    );
    Ok(out)
}
