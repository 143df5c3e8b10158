//! A nightly build's store: a copy of the earlier generation's `store.sqlite`, patched, instead
//! of one written afresh.
//!
//! A night changes about 1% of the decisions, yet writing a fresh store copies every row and
//! builds every secondary index again (at 300k decisions: 78 s of rows and 52 s of indexes).
//! A patch copies the file (the earlier one is never written: it is immutable once published),
//! removes the rows of the decisions that changed or are gone, lets the build write the
//! changed and new ones as usual, and then settles what counts across decisions:
//!
//! - citing counts of kept decisions (resolve's, written where they differ, with their
//!   `norm_citing` rows keyed by them);
//! - each Normenkette token's count of decisions (the tokens the removed and written decisions
//!   hold), tokens no decision counts any more dropped;
//! - `law_citing` / `section_citing`, adjusted by what the removed decisions counted (read
//!   from their bodies in the earlier generation) and what the written ones count;
//! - `fact_combos`, grouped again (one pass over the decisions).
//!
//! Invariant: a patched store holds what a fresh build from the same inputs holds, up to the
//! ids a store gives itself (courts, Normenkette tokens, text packs: names and keys agree);
//! `tests/tests/nightly_incremental.rs` compares every table with a build from scratch.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::PathBuf;

use anyhow::{Context, Result};
use rusqlite::{Connection, params};

use crate::citation_rows::StoredCitation;
use crate::decision_writer::Derived;
use crate::store::file_number_norm;

/// A store is patched only when at least this share of the decisions keeps its rows: below
/// it, removing and writing rows one by one costs more than one sorted load.
const MIN_KEPT_SHARE: f64 = 0.5;

/// A store whose free pages (left by the removals of earlier patches) exceed this share of its
/// pages is written afresh instead: the file stays compact.
pub const MAX_FREE_SHARE: f64 = 0.25;

/// What a patch of the earlier generation's store does.
pub struct StorePatch {
    /// The earlier generation: its id and directory (its packs hold the removed decisions'
    /// bodies, which say what they counted).
    pub earlier_id: String,
    pub earlier_dir: PathBuf,
    /// Row ids of the earlier store removed before the build writes: decisions that changed
    /// (written again under the same id) and those no longer held.
    pub remove: Vec<i64>,
    /// Decisions whose rows stay as they are.
    pub keep: usize,
    /// The earlier generation's count of decision citations (its manifest's).
    pub earlier_citations: u64,
}

impl StorePatch {
    /// Whether patching beats writing afresh for a build of `total` decisions.
    pub fn worth_it(&self, total: usize) -> bool {
        total > 0 && self.keep as f64 >= MIN_KEPT_SHARE * total as f64
    }
}

/// A row of `unheld_case_citations` less its decision: file number (normalised), court, court
/// as printed, date.
type UnheldRowKey<'a> = (String, Option<&'a str>, Option<&'a str>, Option<&'a str>);

/// What [`remove_decisions`] removed.
pub(crate) struct Removed {
    pub rows: u64,
    /// Their citations, as their bodies keep them.
    pub citations: u64,
}

/// Removes the rows of `patch.remove` from the copied store: each decision's row, file
/// numbers, edges, unheld case citations, Normenkette rows and `norm_citing` rows; what they
/// counted is uncounted in `derived` (which also takes the store's Normenkette token ids).
pub(crate) fn remove_decisions(conn: &Connection, patch: &StorePatch, derived: &mut Derived) -> Result<Removed> {
    {
        let mut st = conn.prepare("SELECT id, norm FROM norms")?;
        let rows = st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
        for row in rows {
            let (id, norm) = row?;
            derived.next_norm_id = derived.next_norm_id.max(id + 1);
            derived.norm_ids.insert(norm, id);
        }
    }
    let packs = crate::text_packs::TextPacks::open(&patch.earlier_dir, conn)
        .context("opening the earlier generation's text packs (to read the bodies of changed decisions)")?;
    let mut removed = Removed { rows: 0, citations: 0 };
    let mut row = conn.prepare("SELECT citing_count, date FROM decisions WHERE id = ?1")?;
    // Every column of the covering index is named, so each delete seeks its rows: a number many
    // decisions cite has as many rows, and naming only it would walk them all.
    let mut del_unheld = conn.prepare(
        "DELETE FROM unheld_case_citations
         WHERE fn_norm = ?1 AND court IS ?2 AND court_raw IS ?3 AND date IS ?4 AND decision_id = ?5",
    )?;
    for &id in &patch.remove {
        let (citing_count, date): (i64, Option<String>) = row
            .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
            .with_context(|| format!("decision row {id} of the earlier generation cannot be read"))?;
        let stored = crate::citation_rows::decode(&packs.citations_of(conn, id)?)?;
        removed.citations += stored.len() as u64;
        derived.count_bound(&stored, -1);
        // The rows its unheld case citations made (as `write_citations` writes them).
        let unheld: BTreeSet<UnheldRowKey> = stored
            .iter()
            .filter_map(|c| match c {
                StoredCitation::Case(c) if c.names_unheld_decision() => c.file_number.as_deref().map(|number| {
                    (file_number_norm(number), c.court.as_deref(), c.court_raw.as_deref(), c.date.as_deref())
                }),
                _ => None,
            })
            .collect();
        let norms = remove_norm_citing(conn, id, citing_count, date.as_deref())?;
        let touched = derived.touched.get_or_insert_default();
        for (number, court, court_raw, date) in unheld {
            del_unheld.execute(params![number, court, court_raw, date, id])?;
            touched.unheld_numbers.insert(number);
        }
        touched.norms.extend(norms);
        for sql in [
            "DELETE FROM decision_norm_ids WHERE decision_id = ?1",
            "DELETE FROM citation_edges WHERE citing_id = ?1",
            "DELETE FROM decision_file_numbers WHERE decision_id = ?1",
            "DELETE FROM decisions WHERE id = ?1",
        ] {
            conn.prepare_cached(sql)?.execute([id])?;
        }
        removed.rows += 1;
    }
    Ok(removed)
}

/// Removes decision `id`'s rows of `norm_citing` (keyed by its citing count and date as the
/// store holds them); returns its Normenkette token ids.
fn remove_norm_citing(conn: &Connection, id: i64, citing_count: i64, date: Option<&str>) -> Result<Vec<i64>> {
    let norms: Vec<i64> = conn
        .prepare_cached("SELECT norm_id FROM decision_norm_ids WHERE decision_id = ?1")?
        .query_map([id], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut del = conn.prepare_cached(
        "DELETE FROM norm_citing WHERE norm_id = ?1 AND citing_count = ?2 AND undated = ?3 AND date = ?4 AND id = ?5",
    )?;
    for norm in &norms {
        del.execute(params![norm, citing_count, date.is_none(), date.unwrap_or(""), id])?;
    }
    Ok(norms)
}

/// Settles what counts across decisions once the build wrote its rows (`written`: the row ids
/// it wrote; `citing_counts`: resolve's count for every decision held, by row id). Returns how
/// many kept decisions' citing counts changed.
pub(crate) fn settle(
    conn: &Connection,
    derived: &Derived,
    written: &[i64],
    citing_counts: &HashMap<i64, u32>,
) -> Result<u64> {
    let written_set: HashSet<i64> = written.iter().copied().collect();
    conn.execute_batch("CREATE TEMP TABLE renorm (id INTEGER PRIMARY KEY)")?;
    let mut add_renorm = conn.prepare("INSERT INTO temp.renorm (id) VALUES (?1)")?;
    for id in written {
        add_renorm.execute([id])?;
    }
    // Kept decisions whose citing count changed: their row, and their `norm_citing` rows
    // (keyed by the count), are written again.
    let stale: Vec<(i64, i64, Option<String>, u32)> = {
        let mut st = conn.prepare("SELECT id, citing_count, date FROM decisions")?;
        let rows =
            st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, Option<String>>(2)?)))?;
        let mut stale = Vec::new();
        for row in rows {
            let (id, have, date) = row?;
            let want = citing_counts.get(&id).copied().unwrap_or(0);
            if have != i64::from(want) && !written_set.contains(&id) {
                stale.push((id, have, date, want));
            }
        }
        stale
    };
    {
        let mut upd = conn.prepare("UPDATE decisions SET citing_count = ?2 WHERE id = ?1")?;
        for (id, have, date, want) in &stale {
            remove_norm_citing(conn, *id, *have, date.as_deref())?;
            upd.execute(params![id, want])?;
            add_renorm.execute([id])?;
        }
    }
    drop(add_renorm);
    conn.execute_batch(
        "INSERT INTO norm_citing (norm_id, citing_count, undated, date, id)
             SELECT x.norm_id, d.citing_count, d.date IS NULL, COALESCE(d.date, ''), d.id
             FROM temp.renorm r JOIN decisions d ON d.id = r.id JOIN decision_norm_ids x ON x.decision_id = d.id;
         DROP TABLE temp.renorm;",
    )?;
    // The tokens of removed and written decisions: counted again, dropped when none counts them.
    conn.execute_batch("CREATE TEMP TABLE touched (id INTEGER PRIMARY KEY)")?;
    {
        let mut ins = conn.prepare("INSERT INTO temp.touched (id) VALUES (?1)")?;
        for id in derived.touched.iter().flat_map(|t| &t.norms) {
            ins.execute([id])?;
        }
    }
    conn.execute_batch(
        "UPDATE norms SET decisions = (SELECT COUNT(*) FROM decision_norm_ids x WHERE x.norm_id = norms.id)
             WHERE id IN (SELECT id FROM temp.touched);
         DELETE FROM norms WHERE decisions = 0 AND id IN (SELECT id FROM temp.touched);
         DROP TABLE temp.touched;",
    )?;
    // The unheld numbers the changes touched: their mentions and groups counted again (a
    // number no row cites any more has none).
    crate::unheld_mentions::refill(conn, derived.touched.iter().flat_map(|t| &t.unheld_numbers))?;
    // Citing decisions per law and per section: the store's counts plus the changes.
    {
        let mut law = conn.prepare(
            "INSERT INTO law_citing (law_id, decisions) VALUES (?1, ?2)
             ON CONFLICT (law_id) DO UPDATE SET decisions = decisions + excluded.decisions",
        )?;
        for (id, n) in derived.laws.iter().filter(|(_, n)| **n != 0) {
            law.execute(params![id, n])?;
        }
        // A section key ignores the unit: every row of the law holding the cited key counts.
        let mut section = conn.prepare(
            "INSERT INTO section_citing (section_id, decisions)
                 SELECT s.id, ?3 FROM sections s WHERE s.law_id = ?1 AND s.key = ?2
             ON CONFLICT (section_id) DO UPDATE SET decisions = decisions + excluded.decisions",
        )?;
        for ((id, key), n) in derived.sections.iter().filter(|(_, n)| **n != 0) {
            section.execute(params![id, key, n])?;
        }
    }
    conn.execute_batch(&format!(
        "DELETE FROM law_citing WHERE decisions <= 0;
         DELETE FROM section_citing WHERE decisions <= 0;
         DROP TABLE fact_combos;
         {}",
        crate::store::FACT_COMBOS
    ))?;
    Ok(stale.len() as u64)
}
