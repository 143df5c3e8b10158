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

use std::collections::{BTreeMap, HashSet};

use index::Generation;
use model::SearchMode;
use serde_json::{Map, Value, json};

use crate::contract::answer::ToolError;
use crate::contract::args::Args;
use crate::tools::decisions::{Filters, IDENTIFIER_BASIS, QueryMatch, match_query, text_basis};

/// Decisions per value of each fact (None = not recorded), and how many decisions counted.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct FactCounts {
    pub total: usize,
    pub by_court: BTreeMap<Option<String>, usize>,
    pub by_branch: BTreeMap<Option<String>, usize>,
    pub by_document_type: BTreeMap<Option<String>, usize>,
    pub by_year: BTreeMap<Option<String>, usize>,
}

impl FactCounts {
    /// Rows of one breakdown, in the order every tool shows them.
    pub fn rows(&self, fact: Fact) -> Vec<Value> {
        let (map, key, by_count) = match fact {
            Fact::Court => (&self.by_court, "court", true),
            Fact::Branch => (&self.by_branch, "branch", true),
            Fact::DocumentType => (&self.by_document_type, "document_type", true),
            Fact::Year => (&self.by_year, "year", false),
        };
        rows(map.clone(), key, by_count)
    }
}

/// The facts a decision is counted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fact {
    Court,
    Branch,
    DocumentType,
    Year,
}

type Combo = (Option<String>, Option<String>, Option<String>, Option<String>, i64);

impl FactCounts {
    /// Adds `n` decisions of one (court, branch, document type, year) combination.
    fn add(&mut self, (court, branch, document_type, year, n): Combo) {
        let n = n as usize;
        self.total += n;
        *self.by_court.entry(court).or_default() += n;
        *self.by_branch.entry(branch).or_default() += n;
        *self.by_document_type.entry(document_type).or_default() += n;
        *self.by_year.entry(year).or_default() += n;
    }
}

/// Adds the combinations a `SELECT court, branch, document_type, year, count` returns.
fn add_combos(
    c: &rusqlite::Connection,
    out: &mut FactCounts,
    sql: &str,
    args: &[rusqlite::types::Value],
) -> anyhow::Result<()> {
    let mut st = c.prepare(sql)?;
    let rows = st.query_map(rusqlite::params_from_iter(args.iter()), |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
    })?;
    for row in rows {
        out.add(row?);
    }
    Ok(())
}

/// Counts the `decision_facts` of every held decision (the per-generation `fact_combos`,
/// that view grouped at index time), or of `only` these decision ids (grouped in SQL).
pub fn fact_counts(g: &Generation, only: Option<&HashSet<i64>>) -> Result<FactCounts, ToolError> {
    let mut out = FactCounts::default();
    let Some(keep) = only else {
        let sql = "SELECT court, branch, document_type, year, decisions FROM fact_combos";
        g.store.with(|c| add_combos(c, &mut out, sql, &[]))?;
        return Ok(out);
    };
    let ids: Vec<i64> = keep.iter().copied().collect();
    for chunk in ids.chunks(500) {
        crate::contract::deadline::check()?;
        let list = chunk.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
        let sql = format!(
            "SELECT court, branch, document_type, year, COUNT(*) FROM decision_facts
             WHERE decision_id IN ({list}) GROUP BY 1, 2, 3, 4"
        );
        g.store.with(|c| add_combos(c, &mut out, &sql, &[]))?;
    }
    Ok(out)
}

/// Counts the `decision_facts` of the held decisions matching every filter, grouped in SQL.
fn filtered_fact_counts(g: &Generation, filters: &Filters) -> Result<FactCounts, ToolError> {
    let (conds, vals) = filters.sql_conditions_all(g)?;
    let sql = format!(
        "SELECT f.court, f.branch, f.document_type, f.year, COUNT(*)
         FROM decision_facts f JOIN decisions d ON d.id = f.decision_id LEFT JOIN courts c ON c.id = d.court_id
         WHERE {} GROUP BY 1, 2, 3, 4",
        conds.join(" AND ")
    );
    let mut out = FactCounts::default();
    g.store.with(|c| add_combos(c, &mut out, &sql, &vals))?;
    Ok(out)
}

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

    // Without a query the filters decide in SQL; with one, the matched decisions are counted.
    let (basis, mode, counts) = match &query {
        None if filters.is_empty() => {
            ("decisions_held_matching_every_filter", SearchMode::FiltersOnly, fact_counts(g, None)?)
        }
        None => ("decisions_held_matching_every_filter", SearchMode::FiltersOnly, filtered_fact_counts(g, &filters)?),
        Some(q) => match match_query(g, q, &filters)? {
            QueryMatch::Identifier { mode, decisions } => {
                let keep: HashSet<i64> = decisions.iter().map(|d| d.id).collect();
                (IDENTIFIER_BASIS, mode, fact_counts(g, Some(&keep))?)
            }
            QueryMatch::Text { citation, match_mode, ids, .. } => {
                let keep: HashSet<i64> = ids.iter().map(|(id, _)| *id as i64).collect();
                out.insert("match_mode".into(), json!(match_mode));
                (
                    text_basis(citation, match_mode),
                    if citation { SearchMode::ExactCitation } else { SearchMode::Keyword },
                    fact_counts(g, Some(&keep))?,
                )
            }
        },
    };

    let unrecorded = |m: &BTreeMap<Option<String>, usize>| m.get(&None).copied().unwrap_or(0);
    let total = counts.total;
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
            "court": unrecorded(&counts.by_court),
            "year": unrecorded(&counts.by_year),
            "document_type": unrecorded(&counts.by_document_type),
            "branch": unrecorded(&counts.by_branch),
        }),
    );
    out.insert(
        "null_means".into(),
        json!("not recorded in our record: court null = the source names no court we could place (its branch is then null too); year null = undated decision; document_type null = no type given. Never zero, never 'none'."),
    );
    out.insert("by_court".into(), json!(counts.rows(Fact::Court)));
    out.insert("by_year".into(), json!(counts.rows(Fact::Year)));
    out.insert("by_branch".into(), json!(counts.rows(Fact::Branch)));
    out.insert("by_document_type".into(), json!(counts.rows(Fact::DocumentType)));
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
