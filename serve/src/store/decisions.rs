//! The decision rows of the store (metadata without the text), read by id, by file number, by ECLI, or a page of ids in an order.

use crate::contract::answer::ToolError;
use crate::contract::answers::{CourtSummary, DecisionSummary};
use index::Generation;
use rusqlite::OptionalExtension;

/// A decision row of the store (without its text).
#[derive(Debug, Clone)]
pub struct Decision {
    pub id: i64,
    pub ext_id: String,
    pub court: Option<CourtSummary>,
    pub court_name_raw: Option<String>,
    pub chamber: Option<String>,
    pub date: Option<String>,
    pub date_confidence: String,
    pub ecli: Option<String>,
    pub ecli_date_agrees: Option<bool>,
    pub document_type: Option<String>,
    pub title: Option<String>,
    pub file_numbers: Vec<String>,
    pub text_length: i64,
    pub citing_count: i64,
}

pub(crate) const DEC_COLS: &str = "d.id, d.ext_id, d.court_name_raw, d.chamber, d.date, d.date_confidence, d.ecli, \
     d.ecli_date_agrees, d.document_type, d.title, d.file_numbers, d.text_length, \
     c.name, c.court_type, c.branch, c.level, c.land, c.ecli_code, d.citing_count";

pub(crate) const DEC_FROM: &str = "decisions d LEFT JOIN courts c ON c.id = d.court_id";

pub(crate) fn decision_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Decision> {
    let court_name: Option<String> = r.get(12)?;
    let court = match court_name {
        Some(name) => Some(CourtSummary {
            name,
            court_type: r.get(13)?,
            branch: r.get(14)?,
            level: r.get(15)?,
            land: r.get(16)?,
            ecli_code: r.get(17)?,
        }),
        None => None,
    };
    Ok(Decision {
        id: r.get(0)?,
        ext_id: r.get(1)?,
        court,
        court_name_raw: r.get(2)?,
        chamber: r.get(3)?,
        date: r.get(4)?,
        date_confidence: r.get(5)?,
        ecli: r.get(6)?,
        ecli_date_agrees: r.get(7)?,
        document_type: r.get(8)?,
        title: r.get(9)?,
        file_numbers: serde_json::from_str(&r.get::<_, String>(10)?).unwrap_or_default(),
        text_length: r.get(11)?,
        citing_count: r.get(18)?,
    })
}

impl Decision {
    pub fn summary(&self) -> DecisionSummary {
        DecisionSummary {
            id: self.ext_id.clone(),
            aktenzeichen: self.file_numbers.first().cloned(),
            file_numbers: self.file_numbers.clone(),
            court: self.court.clone(),
            court_name_as_given: self.court_name_raw.clone(),
            chamber: self.chamber.clone(),
            date: self.date.clone(),
            date_confidence: self.date_confidence.clone(),
            ecli: self.ecli.clone(),
            document_type: self.document_type.clone(),
            title: self.title.clone(),
            fundstelle: None,
            citing_cases_count: self.citing_count,
        }
    }
}

pub(crate) fn decisions_where(
    g: &Generation,
    cond: &str,
    args: &[&dyn rusqlite::ToSql],
) -> Result<Vec<Decision>, ToolError> {
    Ok(g.store.with(|c| {
        let mut st = c.prepare_cached(&format!("SELECT {DEC_COLS} FROM {DEC_FROM} WHERE {cond}"))?;
        let rows = st.query_map(args, decision_from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    })?)
}

/// Up to this many matching ids are listed literally, so SQLite reads exactly those rows by
/// rowid and sorts them; more are found by walking the order's index (dense matches then fill
/// a page after a short walk).
pub(crate) const LISTED_IDS_MAX: usize = 5_000;

/// One page, in `order` (SQL over `d` and `c`), of the held decisions whose ids `ids_sql`
/// (one `?1` argument) selects; `total` is how many it selects.
pub(crate) fn decisions_page(
    g: &Generation,
    ids_sql: &str,
    arg: &dyn rusqlite::ToSql,
    total: usize,
    order: &str,
    limit: usize,
    offset: usize,
) -> Result<Vec<Decision>, ToolError> {
    let page = format!("ORDER BY {order} LIMIT {limit} OFFSET {offset}");
    if total > LISTED_IDS_MAX {
        return decisions_where(g, &format!("d.id IN ({ids_sql}) {page}"), &[arg]);
    }
    let ids: Vec<i64> = g.store.with(|c| {
        let mut st = c.prepare(ids_sql)?;
        let ids = st.query_map([arg], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
        Ok(ids)
    })?;
    decisions_with_ids(g, &ids, &page)
}

/// The held decisions with these ids (read by rowid), then `tail` (an ORDER BY / LIMIT or "").
pub(crate) fn decisions_with_ids(g: &Generation, ids: &[i64], tail: &str) -> Result<Vec<Decision>, ToolError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let list = ids.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
    decisions_where(g, &format!("d.id IN ({list}) {tail}"), &[])
}

/// Held decisions with this file number (`store::file_number_norm` form).
pub fn decisions_by_file_number(g: &Generation, fn_norm: &str) -> Result<Vec<Decision>, ToolError> {
    let ids: Vec<i64> = g.store.with(|c| {
        let mut st = c.prepare_cached(
            "SELECT DISTINCT decision_id FROM decision_file_numbers WHERE fn_norm = ?1 ORDER BY decision_id",
        )?;
        let ids = st.query_map([fn_norm], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
        Ok(ids)
    })?;
    // A file number is held by one decision or a few: each is read by rowid through one
    // prepared statement (a list of literal ids would be parsed and planned anew every time).
    let mut found = Vec::with_capacity(ids.len());
    for id in ids {
        found.extend(decisions_where(g, "d.id = ?1", &[&id])?);
    }
    Ok(found)
}

/// Held decisions with this ECLI (`store::ecli_norm` form; index `decisions_ecli_norm`).
pub fn decisions_by_ecli(g: &Generation, ecli: &str) -> Result<Vec<Decision>, ToolError> {
    decisions_where(g, "upper(replace(d.ecli, ' ', '')) = ?1", &[&ecli])
}

/// The held decisions matching every condition (SQL over `d` and `c`, `?n` bound to `vals`):
/// how many, and one page of them in `order`. Counted and paged in SQL, however many are held;
/// `known_total` (the same conditions counted elsewhere, e.g. from the generation's grouped
/// facts) spares the count.
pub(crate) fn decisions_filtered_page(
    g: &Generation,
    conds: &[String],
    vals: &[rusqlite::types::Value],
    order: &str,
    page: (usize, usize),
    known_total: Option<usize>,
) -> Result<(usize, Vec<Decision>), ToolError> {
    let (limit, offset) = page;
    let cond = if conds.is_empty() { "1 = 1".to_string() } else { conds.join(" AND ") };
    Ok(g.store.with(|c| {
        let params = rusqlite::params_from_iter(vals.iter());
        let total = match known_total {
            Some(n) => n as i64,
            None => c.query_row(&format!("SELECT COUNT(*) FROM {DEC_FROM} WHERE {cond}"), params, |r| r.get(0))?,
        };
        let mut st = c.prepare(&format!(
            "SELECT {DEC_COLS} FROM {DEC_FROM} WHERE {cond} ORDER BY {order} LIMIT {limit} OFFSET {offset}"
        ))?;
        let rows = st
            .query_map(rusqlite::params_from_iter(vals.iter()), decision_from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok((total as usize, rows))
    })?)
}

/// The SQL order (over `d`) of a list of held decisions sorted by date or by how many held
/// decisions cite each (index `decisions_citing` / `decisions_date_order`).
pub(crate) fn citing_sort_order(sort: model::CitingSort) -> &'static str {
    match sort {
        model::CitingSort::MostCited => "d.citing_count DESC, d.date IS NULL, d.date DESC, d.id",
        model::CitingSort::Date => "d.date IS NULL, d.date DESC, d.id",
    }
}

/// How many held decisions cite the norm token `norm` (`§ 823 BGB`), in text or norm field
/// (counted per generation in `norms`).
pub(crate) fn decisions_citing_norm(g: &Generation, norm: &str) -> Result<i64, ToolError> {
    Ok(g.store.with(|c| {
        let n: Option<i64> = c
            .prepare_cached("SELECT decisions FROM norms WHERE norm = ?1")?
            .query_row(rusqlite::params![norm], |r| r.get(0))
            .optional()?;
        Ok(n.unwrap_or(0))
    })?)
}

/// One page, in `sort`, of the held decisions citing the norm token `norm`: a range of
/// `norm_citing` (keyed in most-cited order) or of its covering index in date order, then
/// those rows by id.
pub(crate) fn decisions_citing_norm_page(
    g: &Generation,
    norm: &str,
    sort: model::CitingSort,
    limit: usize,
    offset: usize,
) -> Result<Vec<Decision>, ToolError> {
    // The decisions' order (`citing_sort_order`) with `undated` for `date IS NULL`.
    let page_order = match sort {
        model::CitingSort::MostCited => "c.citing_count DESC, c.undated, c.date DESC, c.id",
        model::CitingSort::Date => "c.undated, c.date DESC, c.id",
    };
    let ids: Vec<i64> = g.store.with(|c| {
        let mut st = c.prepare_cached(&format!(
            "SELECT c.id FROM norm_citing c WHERE c.norm_id = (SELECT id FROM norms WHERE norm = ?1)
             ORDER BY {page_order} LIMIT ?2 OFFSET ?3"
        ))?;
        let ids = st
            .query_map(rusqlite::params![norm, limit as i64, offset as i64], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(ids)
    })?;
    decisions_with_ids(g, &ids, &format!("ORDER BY {}", citing_sort_order(sort)))
}

pub fn decision_by_id(g: &Generation, id: i64) -> Result<Decision, ToolError> {
    decisions_where(g, "d.id = ?1", &[&id])?.pop().ok_or_else(|| ToolError::internal(format!("decision {id} missing")))
}

/// `citing_count` of every decision, indexed by decision id (read once per generation).
pub(crate) fn citing_counts(g: &Generation) -> Result<std::sync::Arc<Vec<i64>>, ToolError> {
    static KEPT: crate::store::kept::PerGeneration<Vec<i64>> = crate::store::kept::PerGeneration::new();
    KEPT.get(g, |g| column_by_id(g, "SELECT id, citing_count FROM decisions", |r| r.get(1)))
}

/// The date of every decision as `YYYYMMDD` (None when undated), indexed by decision id (read
/// once per generation): a search sorted by date orders its matches by it without reading a
/// date per match from the index.
pub(crate) fn decision_dates(g: &Generation) -> Result<std::sync::Arc<Vec<Option<i64>>>, ToolError> {
    static KEPT: crate::store::kept::PerGeneration<Vec<Option<i64>>> = crate::store::kept::PerGeneration::new();
    KEPT.get(g, |g| {
        column_by_id(g, "SELECT id, date FROM decisions", |r| {
            Ok(r.get::<_, Option<String>>(1)?.as_deref().and_then(index::decision_writer::date_number))
        })
    })
}

/// One value per decision from `sql` (`SELECT id, …`), indexed by decision id; ids no row has
/// hold the default.
fn column_by_id<T: Default + Clone>(
    g: &Generation,
    sql: &str,
    value: impl Fn(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> Result<Vec<T>, ToolError> {
    Ok(g.store.with(|c| {
        let n: i64 = c.query_row("SELECT COALESCE(MAX(id), 0) FROM decisions", [], |r| r.get(0))?;
        let mut v = vec![T::default(); n as usize + 1];
        let mut st = c.prepare(sql)?;
        for row in st.query_map([], |r| Ok((r.get::<_, i64>(0)?, value(r)?)))? {
            let (id, x) = row?;
            v[id as usize] = x;
        }
        Ok(v)
    })?)
}
