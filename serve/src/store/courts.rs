//! The court rows of the store: as reference-table courts (for matching a name) and as JSON rows.

use crate::contract::answer::ToolError;
use index::Generation;
use serde_json::{Value, json};

/// Every court row of the store as a [`extract::courts::Court`], with its id and the number
/// of decisions held.
pub(crate) fn stored_courts(g: &Generation) -> Result<Vec<(i64, extract::courts::Court, i64)>, ToolError> {
    Ok(g.store.with(|c| {
        let mut st = c.prepare_cached(
            "SELECT id, name, court_type, branch, level, land, city, ecli_code, citation_name, in_reference_table,
                    decision_count FROM courts",
        )?;
        let rows = st
            .query_map([], |r| {
                let court = extract::courts::Court {
                    name: r.get(1)?,
                    court_type: r.get(2)?,
                    branch: {
                        let b: String = r.get(3)?;
                        extract::courts::Branch::parse(&b).unwrap_or(extract::courts::Branch::Unbekannt)
                    },
                    level: r.get::<_, Option<i64>>(4)?.and_then(|l| u8::try_from(l).ok()),
                    land: r.get(5)?,
                    city: r.get(6)?,
                    ecli_code: r.get(7)?,
                    citation_name: r.get(8)?,
                    in_reference_table: r.get(9)?,
                };
                Ok((r.get(0)?, court, r.get(10)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    })?)
}

pub(crate) fn court_json(r: &rusqlite::Row<'_>) -> rusqlite::Result<Value> {
    Ok(json!({
        "name": r.get::<_, String>(0)?,
        "type": r.get::<_, Option<String>>(1)?,
        "branch": r.get::<_, String>(2)?,
        "level": r.get::<_, Option<i64>>(3)?,
        "land": r.get::<_, Option<String>>(4)?,
        "city": r.get::<_, Option<String>>(5)?,
        "ecli_code": r.get::<_, Option<String>>(6)?,
        "citation_name": r.get::<_, Option<String>>(7)?,
        "in_reference_table": r.get::<_, bool>(8)?,
        "decisions_held": r.get::<_, i64>(9)?,
        "earliest_decision": r.get::<_, Option<String>>(10)?,
        "latest_decision": r.get::<_, Option<String>>(11)?,
    }))
}

pub(crate) const COURT_COLS: &str = "name, court_type, branch, level, land, city, ecli_code, citation_name, in_reference_table, decision_count, earliest, latest";
