//! Ways to ask that agents need (issue 17 item 7), over the embedded sample through the real
//! `serve` binary: `get_law_section` addressing an Absatz or a Nummer.

use legal_tests::http::Client;
use legal_tests::procs::Server;
use serde_json::{Value, json};

fn section(c: &Client, server: &Server, args: Value) -> (u16, Value) {
    let url = format!("{}/api/tools/get_law_section", server.base_url);
    let (status, body) = c.post(&url, "application/json", args.to_string());
    (status, serde_json::from_str(&body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}")))
}

#[test]
fn an_absatz_is_returned_with_its_offsets_into_the_whole_section() {
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &[]);
    let c = Client::new();
    for (book, designation, whole, number) in [
        ("BGB", "§ 823 Abs. 2", "823", "2"),
        ("BGB", "823 Abs 1", "823", "1"),
        ("GG", "Art. 20 Abs. 4", "Art. 20", "4"),
    ] {
        let (status, v) = section(&c, &server, json!({"book": book, "section": designation}));
        assert_eq!(status, 200, "{designation}: {v}");
        let (_, full) = section(&c, &server, json!({"book": book, "section": whole}));
        let text: Vec<char> = full["content"].as_str().unwrap().chars().collect();
        let a = &v["absatz"];
        assert_eq!(a["number"], json!(number), "{designation}: {a}");
        let (start, end) = (a["start"].as_u64().unwrap() as usize, a["end"].as_u64().unwrap() as usize);
        assert!(start < end && end <= text.len(), "{designation}: {start}..{end} of {}", text.len());
        // The offsets are the Absatz's place in the whole section text, and its text starts "(N)".
        assert_eq!(a["text"].as_str().unwrap(), text[start..end].iter().collect::<String>(), "{designation}");
        assert!(a["text"].as_str().unwrap().starts_with(&format!("({number})")), "{designation}: {a}");
        assert_eq!(v["section"], full["section"], "{designation}: the section itself is the same");
    }
    // Below the Absatz: said, not located.
    let (_, v) = section(&c, &server, json!({"book": "BGB", "section": "§ 823 Abs. 1 Satz 1"}));
    assert_eq!(v["absatz"]["finer_part_not_located"], json!("Satz 1"), "{v}");
    // An Absatz the section does not have, and a section without numbered Absätze.
    let (status, v) = section(&c, &server, json!({"book": "BGB", "section": "§ 823 Abs. 9"}));
    assert_eq!((status, v["error_code"].clone()), (404, json!("absatz_not_found")), "{v}");
    assert_eq!(v["absaetze_present"], json!(["1", "2"]), "{v}");
    // A designation that is no Absatz stays a section miss.
    let (status, v) = section(&c, &server, json!({"book": "BGB", "section": "§ 99999"}));
    assert_eq!((status, v["error_code"].clone()), (404, json!("section_not_found")), "{v}");
}

#[test]
fn a_nummer_is_returned_inside_its_absatz_with_offsets_into_the_whole_section() {
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &[]);
    let c = Client::new();
    let (status, v) = section(&c, &server, json!({"book": "BGB", "section": "§ 573 Abs. 2 Nr. 2"}));
    assert_eq!(status, 200, "{v}");
    let (_, full) = section(&c, &server, json!({"book": "BGB", "section": "573"}));
    let text: Vec<char> = full["content"].as_str().unwrap().chars().collect();
    let (a, n) = (&v["absatz"], &v["nummer"]);
    assert_eq!((a["number"].clone(), n["number"].clone()), (json!("2"), json!("2")), "{v}");
    let span = |p: &Value| (p["start"].as_u64().unwrap() as usize, p["end"].as_u64().unwrap() as usize);
    let ((a_start, a_end), (n_start, n_end)) = (span(a), span(n));
    assert!(a_start < n_start && n_end <= a_end, "the Nummer lies inside its Absatz: {a} {n}");
    assert_eq!(n["text"].as_str().unwrap(), text[n_start..n_end].iter().collect::<String>());
    assert!(n["text"].as_str().unwrap().starts_with("2. "), "{n}");
    assert!(!n["text"].as_str().unwrap().contains("\n3. "), "it ends before the next Nummer: {n}");
    assert_eq!(a["finer_part_not_located"], json!(null), "the Nummer is located, not merely named: {a}");
    // Below the Nummer: said, not located.
    let (_, v) = section(&c, &server, json!({"book": "BGB", "section": "§ 573 Abs. 2 Nr. 3 Satz 1"}));
    assert_eq!(v["nummer"]["finer_part_not_located"], json!("Satz 1"), "{v}");
    // A Nummer the Absatz does not have names those it has.
    let (status, v) = section(&c, &server, json!({"book": "BGB", "section": "§ 573 Abs. 2 Nr. 9"}));
    assert_eq!((status, v["error_code"].clone()), (404, json!("nummer_not_found")), "{v}");
    assert_eq!(v["nummern_present"], json!(["1", "2", "3"]), "{v}");
}

#[test]
fn filter_cases_lists_the_most_cited_decisions_first_without_a_query() {
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &[]);
    let c = Client::new();
    let url = format!("{}/api/tools/filter_cases", server.base_url);
    let (status, body) = c.post(&url, "application/json", json!({"sort": "most_cited", "limit": 100}).to_string());
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["sort"], json!("most_cited_then_date_desc"));
    let counts: Vec<i64> =
        v["results"].as_array().unwrap().iter().map(|r| r["citing_cases_count"].as_i64().unwrap()).collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]), "most cited first: {counts:?}");
    assert!(counts.first().is_some_and(|n| *n > 0), "the sample holds cited decisions: {counts:?}");
    // Each count is what get_citing_cases answers for that decision.
    let top = &v["results"][0];
    let url = format!("{}/api/tools/get_citing_cases", server.base_url);
    let (_, body) = c.post(&url, "application/json", json!({"id": top["id"]}).to_string());
    let citing: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(citing["total"], top["citing_cases_count"], "{citing}");
    // The default stays newest first.
    let (_, body) = c.post(&format!("{}/api/tools/filter_cases", server.base_url), "application/json", "{}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["sort"], json!("date_desc_undated_last"));
}

#[test]
fn search_decisions_lists_the_leading_decisions_without_a_query() {
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &[]);
    let c = Client::new();
    let v = post(&c, &server, "search_decisions", json!({"sort": "most_cited", "limit": 20}));
    assert_eq!((v["mode"].clone(), v["query"].clone()), (json!("filters_only"), json!(null)), "{v}");
    let rows = v["results"].as_array().unwrap();
    let counts: Vec<i64> = rows.iter().map(|r| r["citing_cases_count"].as_i64().unwrap()).collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]) && counts[0] > 0, "most cited first: {counts:?}");
    assert!(rows.iter().all(|r| r["matched_by"] == json!("filters_only")), "{v}");
    // The same list as filter_cases gives, and the same total.
    let f = post(&c, &server, "filter_cases", json!({"sort": "most_cited", "limit": 20}));
    let ids = |v: &Value| v["results"].as_array().unwrap().iter().map(|r| r["id"].clone()).collect::<Vec<_>>();
    assert_eq!(ids(&v), ids(&f));
    assert_eq!(v["total"], f["total"]);
    // Relevance needs words: refused, with what to send instead.
    let (status, body) =
        c.post(&format!("{}/api/tools/search_decisions", server.base_url), "application/json", "{}".to_string());
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("sort=most_cited"), "{body}");
}

#[test]
fn a_search_sorted_by_date_or_citations_pages_through_one_order_of_every_match() {
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &[]);
    let c = Client::new();
    let query = "Behörde";
    let relevance = post(&c, &server, "search_decisions", json!({"query": query, "limit": 20}));
    let total = relevance["total"].as_u64().unwrap();
    assert!(total > 20, "the sample holds more than a page of matches: {total}");
    for sort in ["date", "most_cited"] {
        let whole = post(&c, &server, "search_decisions", json!({"query": query, "sort": sort, "limit": 20}));
        assert_eq!(whole["total"].as_u64(), Some(total), "{sort}: every match is counted, as by relevance");
        let rows = whole["results"].as_array().unwrap().clone();
        assert_eq!(rows.len(), 20);
        // Newest first, undated last; by citations first, then newest.
        let date = |r: &Value| r["date"].as_str().map(str::to_string);
        let key = |r: &Value| (if sort == "date" { 0 } else { r["citing_cases_count"].as_i64().unwrap() }, date(r));
        assert!(rows.windows(2).all(|w| key(&w[0]) >= key(&w[1])), "{sort}: {rows:?}");
        // Pages of 3 are the same order, cut in pages.
        let mut paged = Vec::new();
        for page in 1..=7 {
            let v =
                post(&c, &server, "search_decisions", json!({"query": query, "sort": sort, "limit": 3, "page": page}));
            assert_eq!(v["total"].as_u64(), Some(total));
            paged.extend(v["results"].as_array().unwrap().iter().map(|r| r["id"].clone()));
        }
        let ids: Vec<Value> = rows.iter().map(|r| r["id"].clone()).collect();
        assert_eq!(paged[..20], ids[..], "{sort}");
    }
}

fn post(c: &Client, server: &Server, tool: &str, args: Value) -> Value {
    let (status, body) = c.post(&format!("{}/api/tools/{tool}", server.base_url), "application/json", args.to_string());
    let v: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"));
    assert_eq!(status, 200, "{tool} {args}: {v}");
    v
}

#[test]
fn a_whole_law_filter_matches_the_decisions_citing_any_of_its_sections() {
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &[]);
    let c = Client::new();
    // The decisions citing each § of the IFG, one § at a time.
    let toc = post(&c, &server, "get_law", json!({"book": "IFG", "include": ["toc"], "toc_limit": 500}));
    let mut by_section = std::collections::BTreeSet::new();
    for entry in toc["toc"]["entries"].as_array().unwrap() {
        let Some(section) = entry["section"].as_str() else { continue };
        let url = format!("{}/api/tools/get_cases_for_law", server.base_url);
        let (status, body) =
            c.post(&url, "application/json", json!({"book": "IFG", "section": section, "limit": 200}).to_string());
        if status != 200 {
            continue; // headings and annexes are no citable §
        }
        let v: Value = serde_json::from_str(&body).unwrap();
        assert!(v["total"].as_u64().unwrap() <= 200, "one page holds them all");
        by_section.extend(v["results"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_string()));
    }
    assert!(by_section.len() > 3, "the sample cites the IFG: {by_section:?}");
    // The whole-law filter counts the same decisions, in SQL (statistics) and in the index (search).
    let stats = post(&c, &server, "get_case_statistics", json!({"cited_norm": "IFG"}));
    assert_eq!(stats["total"].as_u64().unwrap() as usize, by_section.len(), "{}", stats["filters_applied"]);
    assert_eq!(stats["filters_applied"]["cited_norm"]["canonical"], json!("IFG"));
    let listed = post(&c, &server, "filter_cases", json!({"cited_norm": "IFG", "limit": 100}));
    let ids: std::collections::BTreeSet<String> =
        listed["results"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_string()).collect();
    assert_eq!(ids, by_section);
    let found =
        post(&c, &server, "search_decisions", json!({"query": "Informationszugang", "cited_norm": "IFG", "limit": 20}));
    for r in found["results"].as_array().unwrap() {
        assert!(by_section.contains(r["id"].as_str().unwrap()), "{} does not cite the IFG", r["id"]);
    }
    assert!(!found["results"].as_array().unwrap().is_empty(), "{found}");
}

#[test]
fn statistics_by_court_and_year_are_the_cells_of_both_breakdowns() {
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &[]);
    let c = Client::new();
    for args in [json!({}), json!({"branch": "verwaltung"}), json!({"query": "Informationszugang"})] {
        let v = post(&c, &server, "get_case_statistics", args.clone());
        let cells = v["by_court_and_year"].as_array().unwrap();
        assert!(!cells.is_empty(), "{args}: {v}");
        let sum = |f: &dyn Fn(&Value) -> bool| -> u64 {
            cells.iter().filter(|c| f(c)).map(|c| c["decisions"].as_u64().unwrap()).sum()
        };
        assert_eq!(sum(&|_| true), v["total"].as_u64().unwrap(), "{args}: the cells sum to total");
        for row in v["by_court"].as_array().unwrap() {
            assert_eq!(sum(&|c| c["court"] == row["court"]), row["decisions"].as_u64().unwrap(), "{args}: {row}");
        }
        for row in v["by_year"].as_array().unwrap() {
            assert_eq!(sum(&|c| c["year"] == row["year"]), row["decisions"].as_u64().unwrap(), "{args}: {row}");
        }
    }
}

/// Facet-only filters (court, branch, document type) are counted from the generation's grouped
/// facts (by `get_case_statistics` and `filter_cases` alike); they must count exactly what the
/// decision rows give: a date range that every dated decision is inside forces both tools onto
/// the rows, and the two counts differ by exactly the undated decisions, breakdown by breakdown.
#[test]
fn statistics_under_facet_filters_count_exactly_what_the_decision_rows_count() {
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &[]);
    let c = Client::new();
    let rows = |v: &Value, key: &str| -> Vec<(Value, u64)> {
        v[key].as_array().unwrap().iter().map(|r| (r[key_of(key)].clone(), r["decisions"].as_u64().unwrap())).collect()
    };
    fn key_of(breakdown: &str) -> &'static str {
        match breakdown {
            "by_court" => "court",
            "by_branch" => "branch",
            "by_document_type" => "document_type",
            _ => "year",
        }
    }
    let mut nonempty = 0;
    for args in [
        json!({"court": "BVerwG"}),
        json!({"court": "VG Berlin"}),
        json!({"branch": "verwaltung"}),
        json!({"document_type": "urteil"}),
        json!({"court": "BVerwG", "document_type": "Beschluss"}),
        json!({"branch": "verwaltung", "document_type": "Urteil"}),
        json!({"court": "Amtsgericht Nirgendwo"}),
    ] {
        let facts = post(&c, &server, "get_case_statistics", args.clone());
        let listed = post(&c, &server, "filter_cases", args.clone());
        assert_eq!(facts["total"], listed["total"], "{args}: statistics vs filter_cases");
        let total = facts["total"].as_u64().unwrap();
        nonempty += usize::from(total > 0);
        let mut dated = args.clone();
        dated["date_from"] = json!("0001-01-01");
        dated["date_to"] = json!("9999-12-31");
        let from_rows = post(&c, &server, "get_case_statistics", dated.clone());
        let listed_rows = post(&c, &server, "filter_cases", dated);
        assert_eq!(from_rows["total"], listed_rows["total"], "{args}: both counted from the rows");
        let undated = facts["unrecorded"]["year"].as_u64().unwrap();
        assert_eq!(from_rows["total"].as_u64().unwrap() + undated, total, "{args}");
        for breakdown in ["by_court", "by_branch", "by_document_type"] {
            if undated == 0 {
                assert_eq!(rows(&facts, breakdown), rows(&from_rows, breakdown), "{args}: {breakdown}");
            }
        }
        let dated_years: Vec<_> = rows(&facts, "by_year").into_iter().filter(|(y, _)| !y.is_null()).collect();
        assert_eq!(dated_years, rows(&from_rows, "by_year"), "{args}: by_year");
    }
    assert!(nonempty >= 5, "the sample holds decisions under most of these filters");
}

/// A date range is counted from the generation's per-year facts for its whole years and from
/// the rows of its bounds' own years: each total and each year's count is what the decision
/// rows themselves hold in that range, read here straight from the store.
#[test]
fn a_date_range_counts_exactly_the_decisions_dated_within_it_whatever_its_bounds() {
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &[]);
    let c = Client::new();
    let current = std::fs::read_to_string(data.path().join("CURRENT")).unwrap();
    let store = data.path().join("generations").join(current.trim()).join("store.sqlite");
    let db = rusqlite::Connection::open_with_flags(store, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let years: Vec<(String, u64)> = db
        .prepare("SELECT substr(date, 1, 4), COUNT(*) FROM decisions WHERE date IS NOT NULL GROUP BY 1 ORDER BY 1")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(years.len() >= 3, "the sample spans several years: {years:?}");
    let (first, mid, last) = (&years[0].0, &years[years.len() / 2].0, &years[years.len() - 1].0);
    let mut ranges: Vec<(Option<String>, Option<String>)> = vec![
        (Some(format!("{mid}-01-01")), None),
        (Some(format!("{mid}-03-15")), None),
        (None, Some(format!("{mid}-12-31"))),
        (None, Some(format!("{mid}-07-01"))),
        (Some(format!("{mid}-02-01")), Some(format!("{mid}-10-31"))),
        (Some(format!("{first}-06-30")), Some(format!("{last}-02-01"))),
        (Some(mid.clone()), Some(mid.clone())),
    ];
    ranges.push((Some(format!("{first}-01-02")), Some(format!("{last}-12-30"))));
    ranges.push((Some(format!("{first}-01-01")), Some(format!("{mid}-06-30"))));
    ranges.push((Some(format!("{mid}-07-01")), Some(format!("{last}-12-31"))));
    for (from, to) in ranges {
        let mut args = json!({});
        let (mut lo, mut hi) = ("0000-00-00".to_string(), "9999-99-99".to_string());
        if let Some(f) = &from {
            args["date_from"] = json!(f);
            lo = if f.len() == 4 { format!("{f}-01-01") } else { f.clone() };
        }
        if let Some(t) = &to {
            args["date_to"] = json!(t);
            hi = if t.len() == 4 { format!("{t}-12-31") } else { t.clone() };
        }
        let by_year: Vec<(String, u64)> = db
            .prepare("SELECT substr(date, 1, 4), COUNT(*) FROM decisions WHERE date >= ?1 AND date <= ?2 GROUP BY 1 ORDER BY 1")
            .unwrap()
            .query_map([&lo, &hi], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let want: u64 = by_year.iter().map(|(_, n)| n).sum();
        let listed = post(&c, &server, "filter_cases", args.clone());
        assert_eq!(listed["total"].as_u64(), Some(want), "{args}: filter_cases");
        let stats = post(&c, &server, "get_case_statistics", args.clone());
        assert_eq!(stats["total"].as_u64(), Some(want), "{args}: get_case_statistics");
        let mut got: Vec<(String, u64)> = stats["by_year"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["year"].to_string().trim_matches('"').to_string(), r["decisions"].as_u64().unwrap()))
            .collect();
        got.sort();
        assert_eq!(got, by_year, "{args}: by_year");
    }
}

/// With a query, the statistics count the matched decisions' facts (from the generation's
/// per-decision fact table): each breakdown cell equals what the search itself counts under the
/// same query and that cell's filter.
#[test]
fn statistics_of_a_query_count_what_the_search_counts_under_each_court_and_type() {
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &[]);
    let c = Client::new();
    // `Akteneinsicht`: the dictionary adds `Akteneinsicht durch Beteiligte`, an alternative
    // only ranking can use (it matches only where `Akteneinsicht` does); the count leaves it out.
    for query in ["Informationszugang", "Behörde Auskunft", "§ 3 IFG", "Akteneinsicht Behörde"] {
        let stats = post(&c, &server, "get_case_statistics", json!({"query": query}));
        let found = post(&c, &server, "search_decisions", json!({"query": query, "limit": 1}));
        assert_eq!(stats["total"], found["total"], "{query}: statistics vs search");
        if query.starts_with("Akteneinsicht") {
            assert_eq!(found["query_expansion"]["status"], "applied", "{found}");
        }
        assert!(stats["total"].as_u64().unwrap() > 0, "{query}: {stats}");
        for (breakdown, key, filter) in
            [("by_court", "court", "court"), ("by_document_type", "document_type", "document_type")]
        {
            for row in stats[breakdown].as_array().unwrap().iter().filter(|r| !r[key].is_null()).take(3) {
                let narrowed =
                    post(&c, &server, "search_decisions", json!({"query": query, filter: row[key], "limit": 1}));
                assert_eq!(narrowed["total"], row["decisions"], "{query}: {breakdown} {row}");
            }
        }
    }
}

/// A relevance search stops counting past the server's cap and says its total is a floor; the
/// rows are still ranked from every match, and get_case_statistics still counts them all.
#[test]
fn a_search_past_the_count_cap_reports_a_floor_and_statistics_count_exactly() {
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &["--search-count-cap", "3"]);
    let uncapped = Server::start(data.path(), &[]);
    let c = Client::new();
    let (mut floors, mut exact) = (0, 0);
    for query in [
        "Informationszugang",
        "Behörde Auskunft",
        "§ 3 IFG",
        "Akteneinsicht Behörde",
        "Betriebsgeheimnis",
        "Umweltinformation",
        "Rundfunkbeitrag",
    ] {
        let stats = post(&c, &server, "get_case_statistics", json!({"query": query}));
        let n = stats["total"].as_u64().unwrap();
        let found = post(&c, &server, "search_decisions", json!({"query": query, "limit": 20}));
        let full = post(&c, &uncapped, "search_decisions", json!({"query": query, "limit": 20}));
        assert_eq!(full["total"].as_u64(), Some(n), "{query}: the uncapped search counts what statistics count");
        assert_eq!(full["total_is_floor"], json!(false), "{query}: {full}");
        // The cap changes the count only, never the rows.
        let ids = |v: &Value| v["results"].as_array().unwrap().iter().map(|r| r["id"].clone()).collect::<Vec<_>>();
        assert_eq!(ids(&found), ids(&full), "{query}");
        let total = found["total"].as_u64().unwrap();
        if n > 3 {
            floors += 1;
            assert_eq!(found["total_is_floor"], json!(true), "{query}: {found}");
            assert!(total >= 3 && total <= n, "{query}: a floor of {n}, got {total}");
            assert!(total >= found["returned"].as_u64().unwrap(), "{query}: the rows served are a floor too");
        } else {
            exact += 1;
            assert_eq!((total, found["total_is_floor"].clone()), (n, json!(false)), "{query}: {found}");
        }
    }
    assert!(floors > 0 && exact > 0, "both cases seen: {floors} floors, {exact} exact");
}
