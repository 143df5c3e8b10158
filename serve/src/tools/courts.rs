//! Court tools: `list_courts`, `get_court`, and `list_facets` (value counts of the decision facets).
//! One function per capability; MCP and REST both call these.

use crate::contract::answer::{ErrorCode, ToolError};
use crate::contract::answers::{
    CourtFilters, CourtRow, FacetValue, GetCourtAnswer, ListCourtsAnswer, ListFacetsAnswer, NormFamily, YearCount,
};
use crate::contract::args::{GetCourtArgs, ListCourtsArgs, ListFacetsArgs};
use crate::query::filters::courts_named;
use crate::query::identifiers::canonical_norm;
use crate::store::courts::{COURT_COLS, court_row};
use extract::courts::fold;
use index::Generation;
use model::FacetField;
use rusqlite::{params, params_from_iter};

/// `list_courts(branch?, land?, level?, include_empty?, limit?, offset?)`.
pub fn list_courts(g: &Generation, a: ListCourtsArgs) -> Result<ListCourtsAnswer, ToolError> {
    let branch = a.branch.map(|b| b.as_str().to_string());
    let land = a.land.map(|s| s.trim().to_uppercase());
    let ListCourtsArgs { level, include_empty, .. } = a;
    let (limit, offset) = (a.limit as usize, a.offset as usize);
    let mut conds = vec!["1 = 1".to_string()];
    let mut sql_vals: Vec<rusqlite::types::Value> = Vec::new();
    if let Some(b) = &branch {
        sql_vals.push(rusqlite::types::Value::Text(b.clone()));
        conds.push(format!("branch = ?{}", sql_vals.len()));
    }
    if let Some(l) = &land {
        let l = if l.starts_with("DE-") { l.clone() } else { format!("DE-{l}") };
        sql_vals.push(rusqlite::types::Value::Text(l));
        conds.push(format!("land = ?{}", sql_vals.len()));
    }
    if level >= 0 {
        sql_vals.push(rusqlite::types::Value::Integer(level));
        conds.push(format!("level = ?{}", sql_vals.len()));
    }
    if !include_empty {
        conds.push("decision_count > 0".into());
    }
    let rows: Vec<CourtRow> = g.store.with(|c| {
        let mut st = c.prepare(&format!(
            "SELECT {COURT_COLS} FROM courts WHERE {} ORDER BY decision_count DESC, name",
            conds.join(" AND ")
        ))?;
        let rows = st.query_map(params_from_iter(sql_vals.iter()), court_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    })?;
    let total = rows.len();
    let results: Vec<CourtRow> = rows.into_iter().skip(offset).take(limit).collect();
    // Decisions no court row counts, so the courts' holdings plus these are every decision held.
    let facts = crate::query::facts::fact_counts(g, None)?;
    Ok(ListCourtsAnswer {
        filters_applied: CourtFilters { branch, land, level: (level >= 0).then_some(level), include_empty },
        total,
        total_basis: if include_empty {
            "courts_in_reference_table_or_held"
        } else {
            "courts_with_at_least_one_decision_held"
        },
        has_more: offset + results.len() < total,
        results,
        decisions_without_court: facts.by_court.get(&None).copied().unwrap_or(0) as i64,
        decisions_held: facts.total as i64,
    })
}

/// `get_court(court)`: one court, its holdings and its decisions per year.
pub fn get_court(g: &Generation, a: GetCourtArgs) -> Result<GetCourtAnswer, ToolError> {
    let name = a.court;
    let named = courts_named(g, &name)?;
    let court: Option<CourtRow> = match named.first() {
        Some((id, ..)) => Some(g.store.with(|c| {
            Ok(c.prepare_cached(&format!("SELECT {COURT_COLS} FROM courts WHERE id = ?1"))?
                .query_row(params![id], court_row)?)
        })?),
        None => None,
    };
    let Some(court) = court else {
        return Err(ToolError::new(
            ErrorCode::CourtNotFound,
            format!("no court is known as {name:?}"),
            "Use list_courts to see the courts held (name, citation name or ECLI code).",
        ));
    };
    let cname = court.court.name.clone();
    let decisions_by_year: Vec<YearCount> = g.store.with(|c| {
        let mut st = c.prepare(
            "SELECT year, COUNT(*) FROM decision_facts WHERE court = ?1 GROUP BY year ORDER BY year IS NULL, year",
        )?;
        let rows = st
            .query_map(params![cname], |r| Ok(YearCount { year: r.get(0)?, decisions: r.get(1)? }))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    })?;
    Ok(GetCourtAnswer {
        court,
        decisions_by_year,
        note: "Holdings count the decisions in this generation, not all the court ever decided; year null = undated decisions.",
    })
}

/// `list_facets(field, prefix?, limit?)`: value counts of court_name, court_branch or document_type.
pub fn list_facets(g: &Generation, a: ListFacetsArgs) -> Result<ListFacetsAnswer, ToolError> {
    let field = a.field;
    let prefix = a.prefix.unwrap_or_default();
    let limit = a.limit as usize;
    // Court, branch, type and year are counted by the one definition every tool shares
    // (`statistics::fact_counts`); cited norms count decisions per norm.
    use crate::query::facts::Fact;
    let fact = match field {
        FacetField::CourtName => Some(Fact::Court),
        FacetField::CourtBranch => Some(Fact::Branch),
        FacetField::DocumentType => Some(Fact::DocumentType),
        FacetField::Year => Some(Fact::Year),
        FacetField::CitedNorms => None,
    };
    // The family of a norm: the norm and every finer citation of it (`§ 823 BGB` → `§ 823 Abs. 1 BGB`).
    let family = match a.norm {
        Some(n) if field == FacetField::CitedNorms => {
            let token = canonical_norm(&n)?;
            let (head, book) = token.rsplit_once(' ').map(|(h, b)| (h.to_string(), b.to_string())).unwrap_or_default();
            Some((n, token, head, book))
        }
        Some(_) => {
            return Err(ToolError::invalid("norm goes with field=cited_norms", "Drop norm or set field=cited_norms."));
        }
        None => None,
    };
    let (mut values, unrecorded): (Vec<(String, i64)>, i64) = match fact {
        Some(fact) => {
            let counts = crate::query::facts::fact_counts(g, None)?;
            let map = match fact {
                Fact::Court => &counts.by_court,
                Fact::Branch => &counts.by_branch,
                Fact::DocumentType => &counts.by_document_type,
                Fact::Year => &counts.by_year,
            };
            let unrecorded = map.get(&None).copied().unwrap_or(0) as i64;
            (map.iter().filter_map(|(v, n)| Some((v.clone()?, *n as i64))).collect(), unrecorded)
        }
        None => {
            let values = g.store.with(|c| {
                let mut st = c.prepare("SELECT norm, decisions FROM norms")?;
                let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<Vec<_>>>()?;
                Ok(rows)
            })?;
            (values, 0)
        }
    };
    let p = fold(&prefix);
    values.retain(|(v, _)| p.is_empty() || fold(v).starts_with(&p));
    if let Some((_, token, head, book)) = &family {
        values.retain(|(v, _)| {
            v == token
                || (v.ends_with(&format!(" {book}"))
                    && v.strip_prefix(head.as_str()).is_some_and(|rest| rest.starts_with(' ')))
        });
    }
    values.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let total_values = values.len();
    let truncated = total_values > limit;
    values.truncate(limit);
    let counted_family = family.is_some();
    Ok(ListFacetsAnswer {
        field,
        prefix,
        values: values.into_iter().map(|(value, decisions)| FacetValue { value, decisions }).collect(),
        distinct_values: total_values,
        truncated,
        decisions_without_this_field: unrecorded,
        norm: family.map(|(given, canonical, ..)| NormFamily { given, canonical }),
        counts_basis: counted_family.then_some("held decisions citing each norm (a decision counts once per norm)"),
    })
}
