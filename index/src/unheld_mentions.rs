//! The mentions of unheld numbers and the groups of their citing decisions: for every file
//! number that held decisions cite and the corpus does not hold, each distinct way they cite
//! it (court, court as printed, date: a *mention*, numbered per file number in sorted order)
//! with its citing decisions counted, and those decisions grouped by the set of mentions each
//! uses, every group counted with its lowest row ids.
//!
//! Why: `check_citations` names the held decisions that cite a decision it cannot find
//! (`attested_by`), counted once each over every mention the citation fits. With one mention
//! the mention's own count answers; with several, a decision may cite the number in two of
//! them, and counting the union used to read every citation row of the number (one per citing
//! decision: 5,480 rows for the most-cited number at 100k decisions, growing with the corpus).
//! The groups are disjoint, so the union of any set of mentions is the sum of the groups that
//! hold one of them, and its lowest ids are among those groups' lowest ids: a few rows.
//!
//! Invariant: for every mention, the groups holding its ordinal sum to its `decisions`; for
//! every number, all its groups sum to its distinct citing decisions
//! (`tests/tests/nightly_incremental.rs` checks both, and a patched store against a fresh one).

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Context, Result};
use rusqlite::{Connection, params};

/// How many of a mention's or a group's citing decisions `first_ids` names: what
/// `check_citations` names at most.
pub const FIRST_IDS: usize = 20;

/// (court, court as printed, date) of one mention.
type Mention = (Option<String>, Option<String>, Option<String>);

/// Counts `unheld_mentions` and `unheld_mention_groups` for every number of
/// `unheld_case_citations` (a fresh store, whose two tables are empty). Returns how many
/// numbers were counted.
pub fn fill_all(conn: &Connection) -> Result<u64> {
    fill(conn, "")
}

/// Counts the mentions and groups of `numbers` again (a patched store's touched numbers,
/// [`crate::store_patch`]): their rows are deleted first, and a number no citation names any
/// more gets none. Returns how many numbers are still cited.
pub fn refill<'a>(conn: &Connection, numbers: impl Iterator<Item = &'a String>) -> Result<u64> {
    conn.execute_batch("CREATE TEMP TABLE touched_numbers (fn_norm TEXT PRIMARY KEY)")?;
    {
        let mut ins = conn.prepare("INSERT OR IGNORE INTO temp.touched_numbers (fn_norm) VALUES (?1)")?;
        for n in numbers {
            ins.execute([n]).context("recording a touched unheld number")?;
        }
    }
    let scope = "WHERE fn_norm IN (SELECT fn_norm FROM temp.touched_numbers)";
    conn.execute_batch(&format!("DELETE FROM unheld_mentions {scope}; DELETE FROM unheld_mention_groups {scope};"))?;
    let counted = fill(conn, scope)?;
    conn.execute_batch("DROP TABLE temp.touched_numbers")?;
    Ok(counted)
}

/// Counts the mentions and groups of the numbers `scope` (a `WHERE` clause on
/// `unheld_case_citations`, or empty) selects, one number at a time (memory: the citation rows
/// of one number).
fn fill(conn: &Connection, scope: &str) -> Result<u64> {
    // In the order of the covering index `ucc_norm`: a number's rows together, no sort.
    let mut rows = conn.prepare(&format!(
        "SELECT fn_norm, court, court_raw, date, decision_id FROM unheld_case_citations {scope}
         ORDER BY fn_norm, court, court_raw, date, decision_id"
    ))?;
    let mut ins_mention = conn.prepare(
        "INSERT INTO unheld_mentions (fn_norm, ordinal, court, court_raw, date, decisions, first_ids)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    let mut ins_group = conn.prepare(
        "INSERT INTO unheld_mention_groups (fn_norm, mentions, decisions, first_ids) VALUES (?1, ?2, ?3, ?4)",
    )?;
    let mut write = |number: &str, mentions: BTreeMap<Mention, BTreeSet<i64>>| -> Result<()> {
        let mut uses: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
        for (ordinal, ((court, court_raw, date), decisions)) in mentions.iter().enumerate() {
            ins_mention.execute(params![
                number,
                ordinal as i64,
                court,
                court_raw,
                date,
                decisions.len() as i64,
                first_ids(decisions.iter().copied())
            ])?;
            for &d in decisions {
                uses.entry(d).or_default().push(ordinal);
            }
        }
        let mut groups: BTreeMap<Vec<usize>, Vec<i64>> = BTreeMap::new();
        for (decision, ordinals) in uses {
            groups.entry(ordinals).or_default().push(decision);
        }
        for (ordinals, decisions) in groups {
            let key = ordinals.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
            ins_group.execute(params![number, key, decisions.len() as i64, first_ids(decisions.into_iter())])?;
        }
        Ok(())
    };
    let mut counted = 0u64;
    let mut current: Option<(String, BTreeMap<Mention, BTreeSet<i64>>)> = None;
    let mut it = rows.query([])?;
    while let Some(r) = it.next()? {
        let number: String = r.get(0)?;
        let mention: Mention = (r.get(1)?, r.get(2)?, r.get(3)?);
        let decision: i64 = r.get(4)?;
        if current.as_ref().is_none_or(|(n, _)| *n != number) {
            if let Some((done, mentions)) = current.take() {
                write(&done, mentions)?;
                counted += 1;
            }
            current = Some((number, BTreeMap::new()));
        }
        if let Some((_, mentions)) = &mut current {
            mentions.entry(mention).or_default().insert(decision);
        }
    }
    if let Some((done, mentions)) = current.take() {
        write(&done, mentions)?;
        counted += 1;
    }
    Ok(counted)
}

/// The lowest [`FIRST_IDS`] of ascending `ids`, comma-separated.
fn first_ids(ids: impl Iterator<Item = i64>) -> String {
    ids.take(FIRST_IDS).map(|id| id.to_string()).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
mod tests {
    use super::{fill_all, refill};
    use rusqlite::Connection;

    fn store() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(crate::store::SCHEMA).unwrap();
        conn
    }

    fn cite(conn: &Connection, number: &str, court: Option<&str>, raw: &str, date: Option<&str>, decision: i64) {
        conn.execute(
            "INSERT INTO unheld_case_citations (fn_norm, court, court_raw, date, decision_id) VALUES (?1, ?2, ?3, ?4, ?5)",
            rusqlite::params![number, court, raw, date, decision],
        )
        .unwrap();
    }

    fn table(conn: &Connection, sql: &str) -> Vec<String> {
        let mut st = conn.prepare(sql).unwrap();
        st.query_map([], |r| {
            let n = r.as_ref().column_count();
            let cell = |i| match r.get_ref(i).unwrap() {
                rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                rusqlite::types::ValueRef::Integer(n) => n.to_string(),
                other => format!("{other:?}"),
            };
            Ok((0..n).map(cell).collect::<Vec<_>>().join(" | "))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
    }

    #[test]
    fn a_decision_citing_a_number_in_two_ways_is_one_group_counted_once() {
        let conn = store();
        // Decision 1 cites 5 C 1/20 as "VG Köln" and "Verwaltungsgericht Köln"; 2 and 3 only one way each.
        cite(&conn, "5C1/20", Some("VG Köln"), "VG Köln", Some("2020-01-02"), 1);
        cite(&conn, "5C1/20", Some("VG Köln"), "Verwaltungsgericht Köln", Some("2020-01-02"), 1);
        cite(&conn, "5C1/20", Some("VG Köln"), "VG Köln", Some("2020-01-02"), 2);
        cite(&conn, "5C1/20", Some("VG Köln"), "VG Köln", Some("2020-01-02"), 2);
        cite(&conn, "5C1/20", Some("VG Köln"), "Verwaltungsgericht Köln", Some("2020-01-02"), 3);
        cite(&conn, "9K7/19", None, "AG X", None, 3);
        assert_eq!(fill_all(&conn).unwrap(), 2);
        assert_eq!(
            table(&conn, "SELECT fn_norm, ordinal, court_raw, decisions, first_ids FROM unheld_mentions ORDER BY 1, 2"),
            [
                "5C1/20 | 0 | VG Köln | 2 | 1,2",
                "5C1/20 | 1 | Verwaltungsgericht Köln | 2 | 1,3",
                "9K7/19 | 0 | AG X | 1 | 3",
            ]
        );
        // Both ways: 3 decisions, not 2 + 2.
        assert_eq!(
            table(&conn, "SELECT fn_norm, mentions, decisions, first_ids FROM unheld_mention_groups ORDER BY 1, 2"),
            ["5C1/20 | 0 | 1 | 2", "5C1/20 | 0,1 | 1 | 1", "5C1/20 | 1 | 1 | 3", "9K7/19 | 0 | 1 | 3",]
        );
        // A touched number is counted again, the others kept.
        conn.execute("DELETE FROM unheld_case_citations WHERE decision_id = 1", []).unwrap();
        assert_eq!(refill(&conn, ["5C1/20".to_string()].iter()).unwrap(), 1);
        assert_eq!(
            table(&conn, "SELECT fn_norm, mentions, decisions, first_ids FROM unheld_mention_groups ORDER BY 1, 2"),
            ["5C1/20 | 0 | 1 | 2", "5C1/20 | 1 | 1 | 3", "9K7/19 | 0 | 1 | 3",]
        );
        assert_eq!(table(&conn, "SELECT COUNT(*) FROM unheld_mentions"), ["3"]);
    }
}
