//! `get_case_statistics`: how many held decisions there are by court, year, branch and
//! document type, under exactly the filters (and optional query) of `search_decisions`.
//!
//! One count per fact: the breakdowns here, `corpus_coverage`'s holdings and `list_facets`
//! all count with [`fact_counts`] over the store's `decision_facts` view (whose court counts
//! also fill `courts.decision_count`, what `list_courts` shows), so the same generation gives
//! the same number for the same court, branch, type or year in every tool.
//!
//! The matching is `decisions::match_query` and `Filters`, not a copy, so a count here and a
//! search with the same arguments always agree. Every breakdown sums to `total`; a value the
//! source did not record is counted under `null` and said so (an undated decision is
//! `year: null`, never dropped and never guessed).

use crate::contract::answer::ToolError;
use crate::contract::answers::{ByBranch, ByCourt, ByDocumentType, CaseStatisticsAnswer, Unrecorded, YearCount};
use crate::contract::args::GetCaseStatisticsArgs;
use crate::query::decision_search::{FILTERS_BASIS, IDENTIFIER_BASIS, QueryMatch, match_query, text_basis};
use crate::query::facts::{Fact, fact_counts, filtered_fact_counts};
use crate::query::filters::Filters;
use index::Generation;
use model::SearchMode;
use std::collections::{BTreeMap, HashSet};

/// `get_case_statistics(query?, court?, branch?, document_type?, date_from?, date_to?,
/// cited_norm?, cited_case_id?)`.
pub fn get_case_statistics(g: &Generation, a: GetCaseStatisticsArgs) -> Result<CaseStatisticsAnswer, ToolError> {
    let query = a.query;
    let filters = Filters::from_search_args(g, &a.filters, &a.citations)?;
    let mut text_match_mode = None;

    // Without a query the filters decide in SQL; with one, the matched decisions are counted.
    let (basis, mode, counts) = match &query {
        None if filters.is_empty() => (FILTERS_BASIS, SearchMode::FiltersOnly, fact_counts(g, None)?),
        None => (FILTERS_BASIS, SearchMode::FiltersOnly, std::sync::Arc::new(filtered_fact_counts(g, &filters)?)),
        // Expanded as `search_decisions` expands by default, so the counts match its results.
        Some(q) => match match_query(g, q, &filters, true)? {
            QueryMatch::Identifier { mode, decisions } => {
                let keep: HashSet<i64> = decisions.iter().map(|d| d.id).collect();
                (IDENTIFIER_BASIS, mode, fact_counts(g, Some(&keep))?)
            }
            QueryMatch::Text(m) => {
                let ids = m.decisions(g, &g.decisions_reader.searcher())?;
                let keep: HashSet<i64> = ids.iter().map(|id| *id as i64).collect();
                text_match_mode = Some(m.match_mode);
                (
                    text_basis(m.citation, m.match_mode),
                    if m.citation { SearchMode::ExactCitation } else { SearchMode::Keyword },
                    fact_counts(g, Some(&keep))?,
                )
            }
        },
    };

    let unrecorded = |m: &BTreeMap<Option<String>, usize>| m.get(&None).copied().unwrap_or(0) as i64;
    let total = counts.total as i64;
    let filter_vocabulary = if total == 0 && !filters.is_empty() { filters.vocabulary(g)? } else { None };
    Ok(CaseStatisticsAnswer {
        query,
        filters_applied: filters.applied(),
        match_mode: text_match_mode,
        mode,
        total,
        total_basis: basis,
        counts_basis: "each decision counts once in every breakdown, so each breakdown sums to total",
        unrecorded: Unrecorded {
            court: unrecorded(&counts.by_court),
            year: unrecorded(&counts.by_year),
            document_type: unrecorded(&counts.by_document_type),
            branch: unrecorded(&counts.by_branch),
        },
        null_means: "not recorded in our record: court null = the source names no court we could place (its branch is then null too); year null = undated decision; document_type null = no type given. Never zero, never 'none'.",
        by_court: counts.rows_as(Fact::Court, |court, decisions| ByCourt { court, decisions }),
        by_year: counts.rows_as(Fact::Year, |year, decisions| YearCount { year, decisions }),
        by_branch: counts.rows_as(Fact::Branch, |branch, decisions| ByBranch { branch, decisions }),
        by_document_type: counts
            .rows_as(Fact::DocumentType, |document_type, decisions| ByDocumentType { document_type, decisions }),
        by_court_and_year: counts.court_year_rows(),
        filter_vocabulary,
        scope: "held decisions of this generation, not all the courts ever decided; corpus_coverage says what is ingested",
    })
}
