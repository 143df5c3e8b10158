//! Issue 14, items 2 and 4, over the whole decision corpus (all 966 records) with the sample
//! statutes plus the EGAO: a law is never cited before it existed (`predates_law`: not bound,
//! not counted by `get_cases_for_law` or `cited_norm`), and `Art. 97 § 14 EGAO` is one citation
//! bound to its row. Built the way `decisions_pipeline.rs` builds the full-corpus generation.

use std::collections::BTreeSet;

use legal_tests::http::get_json;
use legal_tests::procs::{Server, build_generation_with_decisions};
use legal_tests::{Mirror, sample_gii, sample_rii, shared_dir, write};

#[path = "checks/closed_sets.rs"]
mod closed_sets;

#[test]
fn no_law_is_cited_before_it_existed_and_art_paragraph_is_one_address() {
    let corpus = shared_dir().join("data/decisions/corpus.oldp.jsonl.gz");
    let full_gii = shared_dir().join("data/gii");
    if !corpus.exists() || !full_gii.join("aoeg_1977/xml.zip").exists() {
        eprintln!("skipped: the shared corpus or gii mirror is not at {}", shared_dir().display());
        return;
    }
    // The sample's toc plus the EGAO (its zip comes from the shared mirror).
    let site = tempfile::tempdir().unwrap();
    let toc = std::fs::read_to_string(sample_gii().join("gii-toc.xml")).unwrap();
    let egao = "<item>\n<title>Einführungsgesetz zur Abgabenordnung</title>\n<link>http://www.gesetze-im-internet.de/aoeg_1977/xml.zip</link>\n</item>\n";
    write(&site.path().join("gii-toc.xml"), toc.replace("</items>", &format!("{egao}</items>")).as_bytes());
    let mirror = Mirror::start(vec![site.path().to_path_buf(), sample_gii(), full_gii, sample_rii()]);
    let data = tempfile::tempdir().unwrap();
    build_generation_with_decisions(data.path(), &mirror.base_url(), &corpus);
    let id = std::fs::read_to_string(data.path().join("CURRENT")).unwrap();
    let db = index::citation_rows::open_store_with_citations(&data.path().join("generations").join(id.trim())).unwrap();
    let count = |sql: &str| -> i64 { db.query_row(sql, [], |r| r.get(0)).unwrap() };

    // No law citation is bound to a law its decision predates; the rule is not vacuous.
    let bound_before = count(
        "SELECT COUNT(*) FROM decision_citations dc JOIN decisions d ON d.id = dc.decision_id JOIN laws l ON l.id = dc.law_id
         WHERE dc.kind = 'law' AND d.date < l.ausfertigung_datum",
    );
    assert_eq!(bound_before, 0, "law citations bound to a law dated after their decision");
    assert_eq!(
        count("SELECT COUNT(*) FROM decision_citations WHERE law_status = 'predates_law' AND law_id IS NOT NULL"),
        0
    );
    let ifg_predating = count(
        "SELECT COUNT(DISTINCT dc.decision_id) FROM decision_citations dc JOIN decisions d ON d.id = dc.decision_id
         WHERE dc.law_status = 'predates_law' AND dc.book = 'IFG' AND d.date < '2005-09-05'",
    );
    assert!(ifg_predating >= 10, "decisions before 2005 citing an `IFG` (the Länder's): {ifg_predating}");
    // Nor counted: no Normenkette token of the federal IFG for a decision dated before it.
    let counted_before = count(
        "SELECT COUNT(*) FROM decision_norms n JOIN decisions d ON d.id = n.decision_id
         WHERE n.norm LIKE '% IFG' AND d.date < '2005-09-05'",
    );
    assert_eq!(counted_before, 0, "IFG tokens counted for decisions before the IFG");

    let server = Server::start(data.path(), &[]);
    let base = &server.base_url;
    let law = get_json(&format!("{base}/api/laws/IFG"));
    let enacted = law["meta"]["ausfertigung_datum"]
        .as_str()
        .unwrap_or_else(|| panic!("get_law serves the IFG's Ausfertigung: {law}"))
        .to_string();
    assert_eq!(enacted, "2005-09-05");
    for sort in ["date", "most_cited"] {
        let mut seen = BTreeSet::new();
        let mut offset = 0;
        loop {
            let v =
                get_json(&format!("{base}/api/laws/IFG/sections/3/decisions?sort={sort}&limit=200&offset={offset}"));
            let results = v["results"].as_array().unwrap_or_else(|| panic!("{v}"));
            for r in results {
                if let Some(d) = r["date"].as_str() {
                    assert!(d >= enacted.as_str(), "get_cases_for_law(IFG, 3, {sort}) lists {} of {d}", r["id"]);
                }
                seen.insert(r["id"].as_str().unwrap().to_string());
            }
            offset += results.len();
            if !v["has_more"].as_bool().unwrap() || results.is_empty() {
                assert_eq!(seen.len() as u64, v["total"].as_u64().unwrap(), "paged through every result");
                break;
            }
        }
        assert!(seen.len() >= 100, "the federal IFG's § 3 is cited by many decisions: {}", seen.len());
    }
    // `cited_norm` counts the same way.
    let v = get_json(&format!("{base}/api/statistics?cited_norm=%C2%A7%203%20IFG&date_to=2005-09-04"));
    assert_eq!(v["total"], 0, "cited_norm § 3 IFG before the IFG: {v}");

    // `Art. 97 § 14 Abs. 5 i.V.m. Art. 97 § 1 Abs. 12 Satz 1 des Einführungsgesetzes zur
    // Abgabenordnung` (record 40): two citations, each one address, bound to the EGAO's rows.
    let mut st = db
        .prepare(
            "SELECT dc.canonical, dc.section, dc.law_status FROM decision_citations dc JOIN decisions d ON d.id = dc.decision_id
             WHERE d.ext_id = 'oldp-40' AND dc.kind = 'law' AND dc.raw LIKE 'Art.%97%' ORDER BY dc.start",
        )
        .unwrap();
    let rows: Vec<(String, String, String)> =
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect();
    let canon: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(canon, ["Art. 97 § 14 Abs. 5 EGAO", "Art. 97 § 1 Abs. 12 Satz 1 EGAO"], "{rows:?}");
    for (canonical, section, status) in &rows {
        assert!(section.contains('§'), "{canonical}: section {section}");
        assert_eq!(status, "bound", "{canonical} binds to the EGAO row `Art. {section}`");
    }
    let split = count(
        "SELECT COUNT(*) FROM decision_citations dc JOIN decisions d ON d.id = dc.decision_id
         WHERE d.ext_id = 'oldp-40' AND dc.kind = 'law' AND dc.canonical IN ('Art. 97', '§ 14 Abs. 5', '§ 1 Abs. 12 Satz 1 EGAO')",
    );
    assert_eq!(split, 0, "no half citations left over");

    // Last, on the same generation (it rewrites resolve's citations and republishes): closed sets
    // and the join of resolve's citations by decision id (H5, issue 14 item 7).
    closed_sets::check(data.path());
}
