//! Counts of held decisions by court, branch, document type and year (precomputed per generation, or under filters), and the holdings by court.

use crate::contract::answer::ToolError;
use crate::contract::answers::{ByCourtAndYear, DateSpan, DecisionHoldings, HoldingStatus};
use crate::query::filters::{FacetColumns, Filters};
use crate::store::kept::PerGeneration;
use index::Generation;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use tantivy::collector::Count;

/// Decisions per value of each fact (None = not recorded), and how many decisions counted.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct FactCounts {
    pub total: usize,
    pub by_court: BTreeMap<Option<String>, usize>,
    pub by_branch: BTreeMap<Option<String>, usize>,
    pub by_document_type: BTreeMap<Option<String>, usize>,
    pub by_year: BTreeMap<Option<String>, usize>,
    /// Court × year: the cells of the two breakdowns above (each sums to `total` too).
    pub by_court_year: BTreeMap<(Option<String>, Option<String>), usize>,
}

impl FactCounts {
    /// (value, decisions) of one breakdown, in the order every tool shows them: busiest first
    /// (years chronologically), the unrecorded bucket (null) last.
    pub fn rows(&self, fact: Fact) -> Vec<(Option<String>, i64)> {
        let (map, by_count) = match fact {
            Fact::Court => (&self.by_court, true),
            Fact::Branch => (&self.by_branch, true),
            Fact::DocumentType => (&self.by_document_type, true),
            Fact::Year => (&self.by_year, false),
        };
        rows(map, by_count)
    }

    /// [`FactCounts::rows`] as answer rows (`ByCourt`, `YearCount` …).
    pub fn rows_as<T>(&self, fact: Fact, row: impl Fn(Option<String>, i64) -> T) -> Vec<T> {
        self.rows(fact).into_iter().map(|(v, n)| row(v, n)).collect()
    }

    /// The court × year cells, by court (as `rows(Fact::Court)` orders courts) then year.
    pub fn court_year_rows(&self) -> Vec<ByCourtAndYear> {
        // The cells come in (court, year) order, so a stable sort by the court's total alone
        // keeps courts of equal totals, and each court's years, in that order. Each court's
        // total is looked up once per cell, not once per comparison.
        let mut cells: Vec<(usize, ByCourtAndYear)> = self
            .by_court_year
            .iter()
            .map(|((court, year), n)| {
                let court_total = self.by_court.get(court).copied().unwrap_or(0);
                (court_total, ByCourtAndYear { court: court.clone(), year: year.clone(), decisions: *n as i64 })
            })
            .collect();
        cells.sort_by_key(|(court_total, _)| std::cmp::Reverse(*court_total));
        cells.into_iter().map(|(_, row)| row).collect()
    }
}

impl FactCounts {
    /// Adds `n` decisions of one (court, branch, document type, year) combination.
    fn add(&mut self, (court, branch, document_type, year, n): Combo) {
        let n = n as usize;
        self.total += n;
        *self.by_court_year.entry((court.clone(), year.clone())).or_default() += n;
        *self.by_court.entry(court).or_default() += n;
        *self.by_branch.entry(branch).or_default() += n;
        *self.by_document_type.entry(document_type).or_default() += n;
        *self.by_year.entry(year).or_default() += n;
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

/// Adds the combinations a `SELECT court, branch, document_type, year, count` returns.
pub(crate) fn add_combos(
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
/// that view grouped at index time; counted once per generation and kept), or of `only`
/// these decision ids.
pub fn fact_counts(g: &Generation, only: Option<&HashSet<i64>>) -> Result<Arc<FactCounts>, ToolError> {
    let Some(keep) = only else {
        static KEPT: PerGeneration<FactCounts> = PerGeneration::new();
        return KEPT.get(g, |g| {
            let mut out = FactCounts::default();
            let sql = "SELECT court, branch, document_type, year, decisions FROM fact_combos";
            g.store.with(|c| add_combos(c, &mut out, sql, &[]))?;
            Ok(out)
        });
    };
    let mut out = FactCounts::default();
    static KEPT: PerGeneration<DecisionCombos> = PerGeneration::new();
    let combos = KEPT.get(g, DecisionCombos::load)?;
    let mut decisions = vec![0i64; combos.combos.len()];
    for id in keep {
        if let Some(&k) = usize::try_from(*id).ok().and_then(|id| combos.of_decision.get(id))
            && k != NO_DECISION
        {
            decisions[k as usize] += 1;
        }
    }
    for ((court, branch, document_type, year), n) in combos.combos.iter().zip(decisions) {
        if n > 0 {
            out.add((court.clone(), branch.clone(), document_type.clone(), year.clone(), n));
        }
    }
    Ok(Arc::new(out))
}

/// Each held decision's fact combination by row id, read once per generation: counting a set
/// of decisions (a search's matches) is one array read per decision, however many match.
struct DecisionCombos {
    /// The generation's distinct (court, branch, document type, year).
    combos: Vec<Facts>,
    /// Row id → index into `combos`; [`NO_DECISION`] where no decision has that id.
    of_decision: Vec<u32>,
}

const NO_DECISION: u32 = u32::MAX;

impl DecisionCombos {
    fn load(g: &Generation) -> Result<DecisionCombos, ToolError> {
        Ok(g.store.with(|c| {
            let mut index = std::collections::HashMap::new();
            let (mut combos, mut of_decision) = (Vec::new(), Vec::new());
            let mut st = c.prepare("SELECT decision_id, court, branch, document_type, year FROM decision_facts")?;
            let mut rows = st.query([])?;
            while let Some(r) = rows.next()? {
                let id = usize::try_from(r.get::<_, i64>(0)?)?;
                let combo = (r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?);
                let next = u32::try_from(combos.len())?;
                let k = *index.entry(combo).or_insert_with_key(|combo| {
                    combos.push(combo.clone());
                    next
                });
                if of_decision.len() <= id {
                    of_decision.resize(id + 1, NO_DECISION);
                }
                of_decision[id] = k;
            }
            Ok(DecisionCombos { combos, of_decision })
        })?)
    }
}

/// A filter on facets and dates, as what counts it: conditions over the generation's
/// `fact_combos` (the facets and the range's whole years), and, where a date bound cuts its
/// year, conditions over the decision rows of that year (`decisions d LEFT JOIN courts c`).
struct YearSplit {
    combos: (Vec<String>, Vec<rusqlite::types::Value>),
    rows: Option<(Vec<String>, Vec<rusqlite::types::Value>)>,
}

impl YearSplit {
    /// None for a citation filter (only rows can count it).
    fn of(g: &Generation, filters: &Filters) -> Result<Option<YearSplit>, ToolError> {
        if !filters.only_facets_and_dates() {
            return Ok(None);
        }
        let (mut conds, mut vals) = filters.facet_conditions(g, &FacetColumns::FACT_COMBOS)?;
        conds.extend(filters.whole_years(&mut vals));
        let (mut row_conds, mut row_vals) = filters.sql_conditions(g)?;
        let rows = filters.bound_years(&mut row_vals).map(|bound_years| {
            row_conds.push(bound_years);
            (row_conds, row_vals)
        });
        Ok(Some(YearSplit { combos: (conds, vals), rows }))
    }
}

/// How many held decisions match filters on facets (court, branch, document type) and dates,
/// summed from the generation's `fact_combos` for whole years, with the rows of a date bound's
/// own year counted one by one where the bound cuts it ([`YearSplit`]); None for a citation
/// filter (the caller counts rows). A date filter counted every row it matched: `date_from:
/// 2010-01-01` read 58,333 rows at 100,000 decisions, and would read ten times as many at a
/// million.
pub(crate) fn facet_total(g: &Generation, filters: &Filters) -> Result<Option<usize>, ToolError> {
    let Some(YearSplit { combos: (conds, vals), rows }) = YearSplit::of(g, filters)? else { return Ok(None) };
    let count = |sql: String, vals: &[rusqlite::types::Value]| -> Result<i64, ToolError> {
        Ok(g.store.with(|c| Ok(c.query_row(&sql, rusqlite::params_from_iter(vals.iter()), |r| r.get(0))?))?)
    };
    let mut total =
        count(format!("SELECT COALESCE(SUM(decisions), 0) FROM fact_combos WHERE {}", conds.join(" AND ")), &vals)?;
    if let Some((conds, vals)) = rows {
        let from = crate::store::decisions::DEC_FROM;
        total += count(format!("SELECT COUNT(*) FROM {from} WHERE {}", conds.join(" AND ")), &vals)?;
    }
    Ok(Some(total as usize))
}

/// Counts the `decision_facts` of the held decisions matching every filter, grouped in SQL.
/// Filters on facets (court, branch, document type) and dates sum the generation's
/// `fact_combos` for whole years and read only the rows of a date bound's own year where the
/// bound cuts it ([`YearSplit`]).
pub(crate) fn filtered_fact_counts(g: &Generation, filters: &Filters) -> Result<FactCounts, ToolError> {
    let mut out = FactCounts::default();
    let Some(YearSplit { combos: (conds, vals), rows }) = YearSplit::of(g, filters)? else {
        let (conds, vals) = filters.sql_conditions_all(g)?;
        add_row_combos(g, &mut out, &conds, &vals)?;
        return Ok(out);
    };
    let sql = format!(
        "SELECT court, branch, document_type, year, SUM(decisions) FROM fact_combos
         WHERE {} GROUP BY 1, 2, 3, 4",
        conds.join(" AND ")
    );
    g.store.with(|c| add_combos(c, &mut out, &sql, &vals))?;
    if let Some((conds, vals)) = rows {
        add_row_combos(g, &mut out, &conds, &vals)?;
    }
    Ok(out)
}

/// Adds the facts of the decision rows meeting `conds` (over `decisions d LEFT JOIN courts c`),
/// grouped in SQL.
fn add_row_combos(
    g: &Generation,
    out: &mut FactCounts,
    conds: &[String],
    vals: &[rusqlite::types::Value],
) -> Result<(), ToolError> {
    let sql = format!(
        "SELECT f.court, f.branch, f.document_type, f.year, COUNT(*)
         FROM decision_facts f JOIN decisions d ON d.id = f.decision_id LEFT JOIN courts c ON c.id = d.court_id
         WHERE {} GROUP BY 1, 2, 3, 4",
        conds.join(" AND ")
    );
    Ok(g.store.with(|c| add_combos(c, out, &sql, vals))?)
}

/// Counts for `get_platform_info`.
pub fn holdings(g: &Generation) -> Result<DecisionHoldings, ToolError> {
    let (n, courts, earliest, latest, empty): (i64, i64, Option<String>, Option<String>, i64) = g.store.with(|c| {
        Ok(c.query_row(
            "SELECT (SELECT COUNT(*) FROM decisions), (SELECT COUNT(*) FROM courts WHERE decision_count > 0),
                    (SELECT MIN(date) FROM decisions), (SELECT MAX(date) FROM decisions),
                    (SELECT COUNT(*) FROM decisions WHERE text_length = 0)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )?)
    })?;
    let _ = Count;
    Ok(DecisionHoldings {
        status: if n > 0 { HoldingStatus::Ingested } else { HoldingStatus::NoneHeld },
        sources: vec!["rechtsprechung-im-internet.de (rii XML)", "Open Legal Data case dumps (JSON Lines)"],
        decisions: n,
        decisions_without_text: empty,
        courts_with_decisions: courts,
        date_range: DateSpan { earliest, latest },
        snapshot: g.manifest.sources.get("decisions").map(Into::into),
    })
}

/// One decision's (court, branch, document type, year); None = not recorded.
type Facts = (Option<String>, Option<String>, Option<String>, Option<String>);

pub(crate) type Combo = (Option<String>, Option<String>, Option<String>, Option<String>, i64);

/// Count rows: a value (null = not recorded) and its decisions.
fn rows(counts: &BTreeMap<Option<String>, usize>, by_count: bool) -> Vec<(Option<String>, i64)> {
    let mut v: Vec<(Option<String>, i64)> = counts.iter().map(|(k, n)| (k.clone(), *n as i64)).collect();
    if by_count {
        // Busiest first; the unrecorded bucket last so it never looks like a top value.
        v.sort_by(|a, b| a.0.is_none().cmp(&b.0.is_none()).then(b.1.cmp(&a.1)).then(a.0.cmp(&b.0)));
    } else {
        // Chronological, null (undated) last.
        v.sort_by(|a, b| a.0.is_none().cmp(&b.0.is_none()).then(a.0.cmp(&b.0)));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn court_year_cells_list_the_busiest_court_first_then_by_name_and_each_courts_years_in_order() {
        let s = |v: &str| Some(v.to_string());
        let mut counts = FactCounts::default();
        for (court, year, n) in [
            (s("VG Berlin"), s("2019"), 2),
            (s("BVerwG"), s("2020"), 1),
            (None, s("2018"), 3),
            (s("BVerwG"), None, 1),
            (s("VG Berlin"), s("2011"), 1),
            (s("OVG NRW"), s("2015"), 3),
        ] {
            counts.add((court, None, None, year, n));
        }
        let rows: Vec<(Option<String>, Option<String>, i64)> =
            counts.court_year_rows().into_iter().map(|r| (r.court, r.year, r.decisions)).collect();
        // Totals: VG Berlin 3, OVG NRW 3, no court 3, BVerwG 2; equal totals by name, the
        // unrecorded court (None) first as it sorts first.
        assert_eq!(
            rows,
            vec![
                (None, s("2018"), 3),
                (s("OVG NRW"), s("2015"), 3),
                (s("VG Berlin"), s("2011"), 1),
                (s("VG Berlin"), s("2019"), 2),
                (s("BVerwG"), None, 1),
                (s("BVerwG"), s("2020"), 1),
            ]
        );
    }
}
