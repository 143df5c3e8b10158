//! The court rows of the store: as reference-table courts (for matching a name) and as answer rows.

use crate::contract::answer::ToolError;
use crate::contract::answers::{CourtRow, CourtSummary};
use crate::store::kept::PerGeneration;
use index::Generation;
use std::collections::HashMap;
use std::sync::Arc;

/// A court row: its id, the court, and the number of decisions held.
pub(crate) type StoredCourt = (i64, extract::courts::Court, i64);

/// Every court row of the store as a [`extract::courts::Court`], with its id and the number
/// of decisions held; read once per generation (a court filter or a citation check asks for
/// them on every call).
pub(crate) fn stored_courts(g: &Generation) -> Result<Arc<Vec<StoredCourt>>, ToolError> {
    static KEPT: PerGeneration<Vec<StoredCourt>> = PerGeneration::new();
    KEPT.get(g, read_courts)
}

/// The stored courts (indexes into [`stored_courts`], ascending) under each folded key the index
/// filters on (`index::decision_writer::court_keys`); built once per generation: folding every
/// court's names on each court filter was 60% of a `filter_cases` call at 100,000 decisions.
pub(crate) fn courts_by_key(g: &Generation) -> Result<Arc<HashMap<String, Vec<usize>>>, ToolError> {
    static KEPT: PerGeneration<HashMap<String, Vec<usize>>> = PerGeneration::new();
    KEPT.get(g, |g| {
        let mut by_key: HashMap<String, Vec<usize>> = HashMap::new();
        for (at, (_, court, _)) in stored_courts(g)?.iter().enumerate() {
            for key in index::decision_writer::court_keys(court) {
                by_key.entry(key).or_default().push(at);
            }
        }
        Ok(by_key)
    })
}

fn read_courts(g: &Generation) -> Result<Vec<StoredCourt>, ToolError> {
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

/// A court row with its holdings, from the columns [`COURT_COLS`].
pub(crate) fn court_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<CourtRow> {
    Ok(CourtRow {
        court: CourtSummary {
            name: r.get(0)?,
            court_type: r.get(1)?,
            branch: r.get(2)?,
            level: r.get(3)?,
            land: r.get(4)?,
            ecli_code: r.get(6)?,
        },
        city: r.get(5)?,
        citation_name: r.get(7)?,
        in_reference_table: r.get(8)?,
        decisions_held: r.get(9)?,
        earliest_decision: r.get(10)?,
        latest_decision: r.get(11)?,
    })
}

pub(crate) const COURT_COLS: &str = "name, court_type, branch, level, land, city, ecli_code, citation_name, in_reference_table, decision_count, earliest, latest";
