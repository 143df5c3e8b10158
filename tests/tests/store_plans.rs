//! The server's look-ups stay indexed as the corpus grows: on a real generation (the
//! embedded sample, built by the real binaries) SQLite's own query plans for the statements
//! the tools run (the same SQL as `serve/src/decisions.rs`, `citations.rs`, `statistics.rs`)
//! read `decisions` by an index or by rowid, never by a full scan, and sort a page by an
//! index instead of a temporary B-tree. Removing one of the generation's indexes fails this.

use legal_tests::current_id;
use rusqlite::Connection;

fn plan(c: &Connection, sql: &str) -> Vec<String> {
    let mut st = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    st.query_map([], |r| r.get::<_, String>(3)).unwrap().collect::<rusqlite::Result<_>>().unwrap()
}

const DEC_FROM: &str = "decisions d LEFT JOIN courts c ON c.id = d.court_id";

#[test]
fn identifier_look_ups_pages_and_counts_use_indexes_not_scans() {
    let data = legal_tests::sample_data_dir();
    let store = data.path().join("generations").join(current_id(data.path())).join("store.sqlite");
    let c = index::store::open_readonly(&store).unwrap();
    let court: i64 =
        c.query_row("SELECT court_id FROM decisions WHERE court_id IS NOT NULL LIMIT 1", [], |r| r.get(0)).unwrap();
    let cases: &[(&str, String, &str)] = &[
        (
            "get_decision by ECLI",
            format!("SELECT d.id FROM {DEC_FROM} WHERE upper(replace(d.ecli, ' ', '')) = 'X'"),
            "USING INDEX decisions_ecli_norm",
        ),
        (
            "get_decision by ext id",
            "SELECT id FROM decisions WHERE ext_id = 'x'".into(),
            "USING COVERING INDEX sqlite_autoindex_decisions_1",
        ),
        (
            "file number ids",
            "SELECT DISTINCT decision_id FROM decision_file_numbers WHERE fn_norm = 'X'".into(),
            "USING INDEX dfn_norm",
        ),
        (
            "decisions by listed ids",
            format!("SELECT d.id FROM {DEC_FROM} WHERE d.id IN (1, 2, 3) ORDER BY d.id"),
            "USING INTEGER PRIMARY KEY",
        ),
        (
            "get_cases_for_law total",
            "SELECT decisions FROM norms WHERE norm = 'x'".into(),
            "USING INDEX sqlite_autoindex_norms_1",
        ),
        (
            "get_cases_for_law page, most cited",
            "SELECT c.id FROM norm_citing c WHERE c.norm_id = (SELECT id FROM norms WHERE norm = 'x')
             ORDER BY c.citing_count DESC, c.undated, c.date DESC, c.id LIMIT 20 OFFSET 40"
                .into(),
            "USING PRIMARY KEY (norm_id=?)",
        ),
        (
            "get_cases_for_law page, by date",
            "SELECT c.id FROM norm_citing c WHERE c.norm_id = (SELECT id FROM norms WHERE norm = 'x')
             ORDER BY c.undated, c.date DESC, c.id LIMIT 20 OFFSET 40"
                .into(),
            "USING COVERING INDEX norm_citing_date",
        ),
        (
            "decisions citing a norm (cited_norm)",
            "SELECT x.decision_id FROM norms n JOIN decision_norm_ids x ON x.norm_id = n.id WHERE n.norm = 'x'".into(),
            "USING COVERING INDEX dn_norm_decision",
        ),
        (
            "filter_cases page",
            format!("SELECT d.id FROM {DEC_FROM} WHERE 1 = 1 ORDER BY d.date IS NULL, d.date DESC, d.id LIMIT 20"),
            "USING INDEX decisions_date_order",
        ),
        (
            "filter_cases page of one court",
            format!(
                "SELECT d.id FROM {DEC_FROM} WHERE 1 = 1 AND d.court_id IN ({court}) ORDER BY d.date IS NULL, d.date DESC, d.id LIMIT 20"
            ),
            "decisions_court_order",
        ),
        (
            "citing edges",
            "SELECT citing_id, role, citations FROM citation_edges WHERE cited_id = 1".into(),
            "USING INDEX ce_cited",
        ),
        (
            "check_citations: the mentions of an unheld file number",
            "SELECT DISTINCT court, court_raw, date FROM unheld_case_citations WHERE fn_norm = 'X'".into(),
            "USING COVERING INDEX ucc_norm",
        ),
        (
            "check_citations: the decisions attesting an unheld file number",
            "SELECT COUNT(DISTINCT decision_id) FROM unheld_case_citations WHERE fn_norm = 'X'
             AND ((court IS 'a' AND court_raw IS 'b' AND date IS NULL) OR (court IS NULL AND court_raw IS 'c' AND date IS '2001-01-01'))"
                .into(),
            "USING COVERING INDEX ucc_norm",
        ),
    ];
    for (what, sql, want) in cases {
        let p = plan(&c, sql);
        assert!(p.iter().any(|l| l.contains(want)), "{what}: plan {p:?} does not use {want}");
        assert!(
            !p.iter().any(|l| (l.starts_with("SCAN d") || l.starts_with("SCAN decisions")) && !l.contains("INDEX")),
            "{what}: full scan of decisions in {p:?}"
        );
        assert!(
            !p.iter().any(|l| l.contains("TEMP B-TREE FOR ORDER BY")) || what.contains("listed ids"),
            "{what}: sorts {p:?}"
        );
    }
    // The unfiltered breakdowns read the per-generation table, and it counts every decision once,
    // also court by court (a court filter sums its rows).
    let (combos, decisions): (i64, i64) = c
        .query_row("SELECT (SELECT SUM(decisions) FROM fact_combos), (SELECT COUNT(*) FROM decision_facts)", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(combos, decisions);
    let courts_disagreeing: i64 = c
        .query_row(
            "SELECT COUNT(*) FROM (SELECT court_id, COUNT(*) AS n FROM decisions GROUP BY court_id) d
             LEFT JOIN (SELECT court_id, SUM(decisions) AS n FROM fact_combos GROUP BY court_id) f
             ON f.court_id IS d.court_id WHERE f.n IS NOT d.n",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(courts_disagreeing, 0);
    // Each norm's total is the number of distinct decisions citing it, and it lists exactly those.
    let (norms, disagreeing): (i64, i64) = c
        .query_row(
            "SELECT COUNT(*), COUNT(*) FILTER (WHERE t.decisions IS NOT a.n OR c.n IS NOT a.n)
             FROM (SELECT norm, COUNT(DISTINCT decision_id) AS n FROM decision_norms GROUP BY norm) a
             LEFT JOIN norms t USING (norm)
             LEFT JOIN (SELECT n.norm, COUNT(*) AS n FROM norm_citing k JOIN norms n ON n.id = k.norm_id GROUP BY n.norm) c
             USING (norm)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert!(norms > 100, "{norms} norms");
    assert_eq!(disagreeing, 0);
    assert!(
        plan(&c, "SELECT court, branch, document_type, year, decisions FROM fact_combos")
            .iter()
            .all(|l| !l.contains("decisions d"))
    );
}
