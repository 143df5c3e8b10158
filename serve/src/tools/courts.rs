//! Court tools: `list_courts`, `get_court`, and `list_facets` (value counts of the decision facets).
//! One function per capability; MCP and REST both call these.

use crate::contract::answer::{ErrorCode, ToolError};
use crate::contract::args::{GetCourtArgs, ListCourtsArgs, ListFacetsArgs};
use crate::query::filters::courts_named;
use crate::query::identifiers::canonical_norm;
use crate::store::courts::{COURT_COLS, court_json};
use extract::courts::fold;
use index::Generation;
use model::FacetField;
use rusqlite::{params, params_from_iter};
use serde_json::{Map, Value, json};

/// `list_courts(branch?, land?, level?, include_empty?, limit?, offset?)`.
pub fn list_courts(g: &Generation, a: ListCourtsArgs) -> Result<Map<String, Value>, ToolError> {
    let branch = a.branch.map(|b| b.as_str().to_string());
    let land = a.land.map(|s| s.trim().to_uppercase());
    let ListCourtsArgs { level, include_empty, .. } = a;
    let (limit, offset) = (a.limit as usize, a.offset as usize);
    let mut conds = vec!["1 = 1".to_string()];
    let mut vals: Vec<Value> = Vec::new();
    if let Some(b) = &branch {
        vals.push(json!(b));
        conds.push(format!("branch = ?{}", vals.len()));
    }
    if let Some(l) = &land {
        let l = if l.starts_with("DE-") { l.clone() } else { format!("DE-{l}") };
        vals.push(json!(l));
        conds.push(format!("land = ?{}", vals.len()));
    }
    if level >= 0 {
        vals.push(json!(level));
        conds.push(format!("level = ?{}", vals.len()));
    }
    if !include_empty {
        conds.push("decision_count > 0".into());
    }
    let sql_vals: Vec<rusqlite::types::Value> = vals
        .iter()
        .map(|v| match v {
            Value::Number(n) => rusqlite::types::Value::Integer(n.as_i64().unwrap_or(0)),
            other => rusqlite::types::Value::Text(other.as_str().unwrap_or("").to_string()),
        })
        .collect();
    let rows: Vec<Value> = g.store.with(|c| {
        let mut st = c.prepare(&format!(
            "SELECT {COURT_COLS} FROM courts WHERE {} ORDER BY decision_count DESC, name",
            conds.join(" AND ")
        ))?;
        let rows =
            st.query_map(params_from_iter(sql_vals.iter()), court_json)?.collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    })?;
    let total = rows.len();
    let page: Vec<Value> = rows.into_iter().skip(offset).take(limit).collect();
    let mut out = Map::new();
    out.insert(
        "filters_applied".into(),
        json!({"branch": branch, "land": land, "level": (level >= 0).then_some(level), "include_empty": include_empty}),
    );
    out.insert("total".into(), json!(total));
    out.insert(
        "total_basis".into(),
        json!(if include_empty {
            "courts_in_reference_table_or_held"
        } else {
            "courts_with_at_least_one_decision_held"
        }),
    );
    out.insert("has_more".into(), json!(offset + page.len() < total));
    out.insert("results".into(), Value::Array(page));
    // Decisions no court row counts, so the courts' holdings plus these are every decision held.
    let facts = crate::query::facts::fact_counts(g, None)?;
    out.insert("decisions_without_court".into(), json!(facts.by_court.get(&None).copied().unwrap_or(0)));
    out.insert("decisions_held".into(), json!(facts.total));
    Ok(out)
}

/// `get_court(court)`: one court, its holdings and its decisions per year.
pub fn get_court(g: &Generation, a: GetCourtArgs) -> Result<Map<String, Value>, ToolError> {
    let name = a.court;
    let named = courts_named(g, &name)?;
    let court: Option<Value> = match named.first() {
        Some((id, ..)) => Some(g.store.with(|c| {
            Ok(c.query_row(&format!("SELECT {COURT_COLS} FROM courts WHERE id = ?1"), params![id], court_json)?)
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
    let cname = court["name"].as_str().unwrap_or("").to_string();
    let by_year: Vec<Value> = g.store.with(|c| {
        let mut st = c.prepare(
            "SELECT year, COUNT(*) FROM decision_facts WHERE court = ?1 GROUP BY year ORDER BY year IS NULL, year",
        )?;
        let rows = st
            .query_map(params![cname], |r| {
                Ok(json!({"year": r.get::<_, Option<String>>(0)?, "decisions": r.get::<_, i64>(1)?}))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    })?;
    let mut out = Map::new();
    out.insert("court".into(), court);
    out.insert("decisions_by_year".into(), json!(by_year));
    out.insert("note".into(), json!("Holdings count the decisions in this generation, not all the court ever decided; year null = undated decisions."));
    Ok(out)
}

/// `list_facets(field, prefix?, limit?)`: value counts of court_name, court_branch or document_type.
pub fn list_facets(g: &Generation, a: ListFacetsArgs) -> Result<Map<String, Value>, ToolError> {
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
                Fact::Court => counts.by_court,
                Fact::Branch => counts.by_branch,
                Fact::DocumentType => counts.by_document_type,
                Fact::Year => counts.by_year,
            };
            let unrecorded = map.get(&None).copied().unwrap_or(0) as i64;
            (map.into_iter().filter_map(|(v, n)| Some((v?, n as i64))).collect(), unrecorded)
        }
        None => {
            let values = g.store.with(|c| {
                let mut st = c.prepare("SELECT norm, COUNT(DISTINCT decision_id) FROM decision_norms GROUP BY norm")?;
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
    let mut out = Map::new();
    out.insert("field".into(), json!(field));
    out.insert("prefix".into(), json!(prefix));
    out.insert(
        "values".into(),
        json!(values.iter().map(|(v, n)| json!({"value": v, "decisions": n})).collect::<Vec<_>>()),
    );
    out.insert("distinct_values".into(), json!(total_values));
    out.insert("truncated".into(), json!(truncated));
    out.insert("decisions_without_this_field".into(), json!(unrecorded));
    if let Some((given, token, ..)) = family {
        out.insert("norm".into(), json!({"given": given, "canonical": token}));
        out.insert("counts_basis".into(), json!("held decisions citing each norm (a decision counts once per norm)"));
    }
    Ok(out)
}
