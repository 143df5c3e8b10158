//! Issue 14, item 3: Land law is never federal law. Over the whole shared data:
//! - no federal jurabk/amtabk of the 6,821 gii laws reads as Land law (the false-positive
//!   measure of `extract/reference/land-law.tsv`);
//! - the labelled Land-law citations of `tests/fixtures/land-law-citations.tsv` (found in the
//!   corpus texts by a search independent of the scanner, checked by reading) run through the
//!   real pipeline on the whole decision corpus: none is bound to a federal law, every one is
//!   `state_law` with the labelled Land (or no Land where the name does not tell), none is
//!   `verified_corpus` (or a `discrepancy` against a federal text) in `check_citations`; the
//!   federal look-alikes of the same set still bind and verify;
//! - the named examples through the real server;
//! - `get_cases_for_law("IFG", "3")` lists no decision for a Land-law citation (and, with the
//!   `predates_law` rule, none dated before the IFG).
//!
//! The generation is built the way `decisions_pipeline.rs` builds a full-corpus one
//! ([`build_generation_with_decisions`]): the sample statutes plus the federal laws whose codes
//! the Land instruments of the set share (so a misbinding would show), from the shared gii mirror.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use extract::citations::LandTable;
use legal_tests::procs::{Server, build_generation_with_decisions};
use legal_tests::{Mirror, sample_gii, sample_rii, shared_corpus_dump, shared_dir, workspace_root, write};
use serde_json::Value;

/// Federal laws (gii slugs) whose codes Land instruments of the fixture share: `VwVfG NRW`,
/// `UIG-SH`, `StVollzG NRW`, `LBG NRW`, `IHKG NRW`, `KHG` (`ThürKHG`), `VIG` (`AGVIG BW`). The
/// sample already holds the IFG, the VwGO and the BDSG.
const SHARED_CODE_LAWS: &[&str] = &["vwvfg", "uig_2005", "stvollzg", "lbg", "ihkg", "khg", "vig"];

/// The jurabk and amtabk of one gii law zip (the first `<metadaten>` block is the law's own).
fn law_codes(zip_path: &Path) -> Vec<String> {
    // The pipeline's own reader of a gii zip (its one XML entry).
    let (_, bytes) = extract::gii_xml::xml_from_zip(&std::fs::read(zip_path).unwrap()).unwrap();
    let xml = String::from_utf8_lossy(&bytes);
    let Some(meta) = xml.split("</metadaten>").next() else { return Vec::new() };
    let mut out = Vec::new();
    for tag in ["jurabk", "amtabk"] {
        let open = format!("<{tag}>");
        for part in meta.split(&open).skip(1) {
            if let Some(v) = part.split(&format!("</{tag}>")).next() {
                out.push(v.replace("&amp;", "&").trim().to_string());
            }
        }
    }
    out
}

#[test]
fn no_federal_code_reads_as_land_law() {
    let gii = shared_dir().join("data/gii");
    if !gii.join("ifg/xml.zip").exists() {
        eprintln!("SKIPPED: the gii mirror is not at {}", gii.display());
        return;
    }
    let table = LandTable::shipped();
    let (mut laws, mut codes, mut land) = (0, BTreeSet::new(), Vec::new());
    for e in std::fs::read_dir(&gii).unwrap() {
        let zip = e.unwrap().path().join("xml.zip");
        if !zip.is_file() {
            continue;
        }
        laws += 1;
        for c in law_codes(&zip) {
            if let Some(state) = table.land_of(&c) {
                land.push(format!("{c} ({state:?}) in {}", zip.display()));
            }
            codes.insert(c);
        }
    }
    eprintln!("{laws} laws, {} distinct jurabk/amtabk, {} read as Land law", codes.len(), land.len());
    assert_eq!(laws, 6821, "the whole gii mirror was read");
    assert!(codes.len() > 7000, "jurabk and amtabk were read: {}", codes.len());
    assert!(land.is_empty(), "federal codes read as Land law (false positives): {land:#?}");
}

/// One labelled row of the fixture.
struct Row {
    decision: String,
    citation: String,
    state: String,
    federal: bool,
}

fn fixture() -> Vec<Row> {
    let path = workspace_root().join("tests/fixtures/land-law-citations.tsv");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut rows = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 4, "malformed fixture line {line:?}");
        assert!(matches!(f[3], "land" | "federal"), "label {:?}", f[3]);
        rows.push(Row { decision: f[0].into(), citation: f[1].into(), state: f[2].into(), federal: f[3] == "federal" });
    }
    rows
}

/// `text` with whitespace runs folded to one space, and for each kept char its code-point
/// offset in `text` (so a match in the folded text maps back to the stored offsets).
fn folded(text: &str) -> (Vec<char>, Vec<usize>) {
    let (mut chars, mut at) = (Vec::new(), Vec::new());
    for (i, c) in text.chars().enumerate() {
        if c.is_whitespace() {
            if chars.last() != Some(&' ') {
                chars.push(' ');
                at.push(i);
            }
        } else {
            chars.push(c);
            at.push(i);
        }
    }
    (chars, at)
}

/// Code-point spans of every occurrence of `needle` in `text` (whitespace-insensitive), each
/// ending at a word boundary (`§ 4 IFG` is not found inside `§ 4 IFG NRW`'s neighbour `§ 4 IFGx`).
fn occurrences(text: &str, needle: &str) -> Vec<(usize, usize)> {
    let (hay, at) = folded(text);
    let (pin, _) = folded(needle);
    let mut out = Vec::new();
    if pin.is_empty() || hay.len() < pin.len() {
        return out;
    }
    for i in 0..=hay.len() - pin.len() {
        if hay[i..i + pin.len()] == pin[..] && !hay.get(i + pin.len()).is_some_and(|c| c.is_alphanumeric()) {
            let (s, e) = (at[i], at[i + pin.len() - 1] + 1);
            // Citations never run across a paragraph break (an empty line, or a line holding only
            // a number: justified PDF text `§\n\n26\n\nBremDSG`), so neither does an occurrence.
            let written: String = text.chars().skip(s).take(e - s).collect();
            let mut lines = written.split('\n').map(str::trim);
            let inner_break =
                written.contains('\n') && lines.any(|l| l.is_empty() || l.bytes().all(|b| b.is_ascii_digit()));
            if !inner_break {
                out.push((s, e));
            }
        }
    }
    out
}

/// `check_citations` over REST: the findings (the call must succeed).
fn findings_of(http: &legal_tests::http::Client, base: &str, text: &str) -> Vec<Value> {
    let (status, v) = http.check_citations(base, text);
    assert_eq!(status, 200, "{text}: {v}");
    v["findings"].as_array().unwrap_or_else(|| panic!("{v}")).clone()
}

/// The law findings overlapping code points `[s, e)` of the checked text.
fn law_findings_at(findings: &[Value], s: usize, e: usize) -> Vec<&Value> {
    findings
        .iter()
        .filter(|f| {
            f["kind"] == "law"
                && (f["start"].as_u64().unwrap() as usize) < e
                && (f["end"].as_u64().unwrap() as usize) > s
        })
        .collect()
}

/// A finding is the Land-law answer: `not_found`, out of scope, no Land law held, the instrument.
fn is_out_of_scope_land_law(f: &Value) -> bool {
    f["verdict"] == "not_found"
        && f["coverage"]["status"] == "out_of_scope"
        && f["coverage"]["scope"] == "no_state_law"
        && f["coverage"]["instrument"].is_string()
        && f["coverage_advisory"].is_string()
}

#[test]
fn land_law_is_never_federal_law_over_the_whole_corpus() {
    let Some(corpus) = shared_corpus_dump() else { return };
    let full_gii = shared_dir().join("data/gii");
    if !full_gii.join("vwvfg/xml.zip").exists() {
        eprintln!("SKIPPED: the gii mirror is not at {}", full_gii.display());
        return;
    }
    // The sample's toc plus the federal laws the Land instruments share codes with.
    let site = tempfile::tempdir().unwrap();
    let toc = std::fs::read_to_string(sample_gii().join("gii-toc.xml")).unwrap();
    let extra: String = SHARED_CODE_LAWS
        .iter()
        .map(|s| {
            format!("<item>\n<title>{s}</title>\n<link>http://www.gesetze-im-internet.de/{s}/xml.zip</link>\n</item>\n")
        })
        .collect();
    write(&site.path().join("gii-toc.xml"), toc.replace("</items>", &format!("{extra}</items>")).as_bytes());
    let mirror = Mirror::start(vec![site.path().to_path_buf(), sample_gii(), full_gii, sample_rii()]);
    let data = tempfile::tempdir().unwrap();
    build_generation_with_decisions(data.path(), &mirror.base_url(), &corpus);
    let id = std::fs::read_to_string(data.path().join("CURRENT")).unwrap();
    let gen_dir = data.path().join("generations").join(id.trim());
    let db = index::citation_rows::open_store_with_citations(&gen_dir).unwrap();
    let texts = index::text_packs::TextPacks::open(&gen_dir, &db).unwrap();

    // Decisions by every record id they hold (a second copy is merged into its primary).
    let mut by_record: BTreeMap<String, (i64, String)> = BTreeMap::new();
    {
        let mut st = db.prepare("SELECT id, ext_id, sources FROM decisions").unwrap();
        let rows =
            st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?))).unwrap();
        for row in rows {
            let (id, ext, sources): (i64, String, String) = row.unwrap();
            let text = texts.body_of(&db, id).unwrap().text;
            let sources: Vec<Value> = serde_json::from_str(&sources).unwrap();
            for s in &sources {
                if s["source"] == "oldp"
                    && let Some(r) = s["record_id"].as_str()
                {
                    by_record.insert(format!("oldp-{r}"), (id, text.clone()));
                }
            }
            by_record.insert(ext, (id, text));
        }
    }
    let codes_held = |code: &str| -> bool {
        let norm = resolve::book_codes::normalise_book_code(code);
        db.query_row("SELECT COUNT(*) FROM book_codes WHERE code_norm = ?1", [norm], |r| r.get::<_, i64>(0)).unwrap()
            > 0
    };

    let rows = fixture();
    let (land_rows, federal_rows) =
        (rows.iter().filter(|r| !r.federal).count(), rows.iter().filter(|r| r.federal).count());
    assert!(land_rows >= 200 && federal_rows >= 15, "fixture too small: {land_rows} Land, {federal_rows} federal");
    let server = Server::start(data.path(), &[]);
    let http = legal_tests::http::Client::new();
    let mut failures: Vec<String> = Vec::new();
    let (mut land_checked, mut shares_federal_code, mut federal_checked) = (0, 0, 0);
    for row in &rows {
        let Some((decision_id, text)) = by_record.get(&row.decision) else {
            failures.push(format!("{}: decision not in the generation", row.decision));
            continue;
        };
        let mut occ = occurrences(text, &row.citation);
        if row.federal {
            // `§ 29 VwVfG` is also the start of `§ 29 VwVfG NRW`: only the unmarked occurrences.
            let chars: Vec<char> = text.chars().collect();
            occ.retain(|&(_, e)| {
                let after: String = chars[e..(e + 8).min(chars.len())].iter().collect();
                let next = after.trim_start().split(|c: char| !c.is_alphanumeric() && c != '-').next().unwrap_or("");
                !after.starts_with('-') && LandTable::shipped().suffix_mark(next).is_none()
            });
        }
        if occ.is_empty() {
            failures.push(format!("{} {:?}: not in the decision's text", row.decision, row.citation));
            continue;
        }
        // The graph: every law citation the scanner made over an occurrence.
        let mut st = db
            .prepare_cached(
                "SELECT start, end, raw, book, law_id, law_status FROM decision_citations
                 WHERE decision_id = ?1 AND kind = 'law' AND start < ?3 AND end > ?2",
            )
            .unwrap();
        let chars: Vec<char> = text.chars().collect();
        for &(s, e) in &occ {
            let cits: Vec<(String, Option<String>, Option<i64>, String)> = st
                .query_map(rusqlite::params![decision_id, s as i64, e as i64], |r| {
                    Ok((r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?))
                })
                .unwrap()
                .map(Result::unwrap)
                .collect();
            if cits.is_empty() {
                failures.push(format!("{} {:?}@{s}: no law citation scanned there", row.decision, row.citation));
                continue;
            }
            // The checker, on the sentence around it.
            let (ws, we) = (s.saturating_sub(120), (e + 60).min(chars.len()));
            // A sentence of legal writing before it, so that a short window is never refused as
            // "not German legal text" (its own finding lies elsewhere).
            const LEAD: &str = "Die Klage ist zulässig (§ 42 Abs. 2 VwGO). ";
            let lead = LEAD.chars().count();
            let window: String = LEAD.chars().chain(chars[ws..we].iter().copied()).collect();
            let findings = findings_of(&http, &server.base_url, &window);
            let at = law_findings_at(&findings, s - ws + lead, e - ws + lead);
            if row.federal {
                federal_checked += 1;
                if !cits.iter().any(|c| c.2.is_some() && c.3 == "bound") {
                    failures.push(format!("{} {:?}: federal, not bound: {cits:?}", row.decision, row.citation));
                }
                if !at.iter().any(|f| f["verdict"] == "verified_corpus") {
                    failures.push(format!("{} {:?}: federal, not verified: {at:?}", row.decision, row.citation));
                }
                continue;
            }
            land_checked += 1;
            // The instrument's code without its Land mark (`IFG` of `IFG Bln`, `UIG` of `UIG-SH`).
            let table = LandTable::shipped();
            let word = row.citation.split_whitespace().rev().find(|w| table.suffix_mark(w).is_none()).unwrap_or("");
            if codes_held(word.split('-').next().unwrap_or("")) {
                shares_federal_code += 1;
            }
            for (raw, book, law_id, status) in &cits {
                if law_id.is_some() || status != "state_law" {
                    failures.push(format!(
                        "{} {:?}: scanned as {raw:?} book {book:?}: law_id {law_id:?}, status {status}",
                        row.decision, row.citation
                    ));
                }
            }
            if at.is_empty() {
                failures.push(format!("{} {:?}: no law finding in {window:?}", row.decision, row.citation));
            }
            for f in &at {
                let state = f["coverage"]["state"].as_str();
                if !is_out_of_scope_land_law(f) || state.is_some_and(|st| st != row.state) {
                    failures.push(format!("{} {:?}: checker said {f}", row.decision, row.citation));
                }
            }
        }
    }
    eprintln!(
        "{} rows: {land_checked} Land-law occurrences checked ({shares_federal_code} share a held federal code), {federal_checked} federal",
        rows.len()
    );
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert!(shares_federal_code >= 50, "the set tests the confusion: {shares_federal_code} share a federal code");

    // In the whole graph no citation the scanner took for Land law is bound, and it is counted nowhere.
    let count = |sql: &str| -> i64 { db.query_row(sql, [], |r| r.get(0)).unwrap() };
    let state_law = count("SELECT COUNT(*) FROM decision_citations WHERE law_status = 'state_law'");
    // How many of them name a code the federal corpus holds (`IFG` of `IFG Bln`): before this
    // rule each of those was bound to, and verified against, the federal law.
    let books: Vec<(String, i64)> = db
        .prepare("SELECT book, COUNT(*) FROM decision_citations WHERE law_status = 'state_law' GROUP BY book")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let table = LandTable::shipped();
    let would_misbind: i64 = books
        .iter()
        .filter(|(book, _)| {
            let code = book.split_whitespace().find(|w| table.suffix_mark(w).is_none()).unwrap_or("");
            code != book && codes_held(code.split('-').next().unwrap_or(""))
                || book.split_once('-').is_some_and(|(c, m)| table.suffix_mark(m).is_some() && codes_held(c))
        })
        .map(|(_, n)| n)
        .sum();
    eprintln!(
        "{state_law} law citations of the corpus are Land law ({} instruments); {would_misbind} of them name a held federal code",
        books.len()
    );
    assert!(state_law >= 1000, "Land-law citations of the corpus: {state_law}");
    assert_eq!(
        count("SELECT COUNT(*) FROM decision_citations WHERE law_status = 'state_law' AND law_id IS NOT NULL"),
        0
    );
    assert_eq!(
        count(
            "SELECT COUNT(*) FROM decision_citations dc JOIN decision_norms n ON n.decision_id = dc.decision_id AND n.norm = dc.canonical
             WHERE dc.law_status = 'state_law'"
        ),
        0,
        "Land-law tokens counted in decision_norms"
    );

    // The named examples through the real server, next to their federal look-alikes.
    let named = [
        ("§ 3 IFG Bln", Some("Berlin")),
        ("§ 35 VwVfG Bln", Some("Berlin")),
        ("§ 28 VwVfG-SH", Some("Schleswig-Holstein")),
        ("§ 4 IFG M-V", Some("Mecklenburg-Vorpommern")),
        ("§ 3 Abs. 2 IFG-SH", Some("Schleswig-Holstein")),
        ("§ 47 BauO LSA", Some("Sachsen-Anhalt")),
        ("§ 17 ASOG Bln", Some("Berlin")),
        ("§ 14 IZG-SH", Some("Schleswig-Holstein")),
        ("Art. 2 BayBO", Some("Bayern")),
        ("§ 8 HVwVfG", Some("Hessen")),
        ("§ 11 Nds. SOG", Some("Niedersachsen")),
        ("§ 5 LBO", None),
    ];
    for (citation, state) in named {
        let text = format!("Der Kläger stützt seinen Antrag auf {citation}. Die Beklagte hält das für unbegründet.");
        let s = "Der Kläger stützt seinen Antrag auf ".chars().count();
        let findings = findings_of(&http, &server.base_url, &text);
        let at = law_findings_at(&findings, s, s + citation.chars().count());
        assert_eq!(at.len(), 1, "{citation}: one finding: {findings:?}");
        assert!(is_out_of_scope_land_law(at[0]), "{citation}: {}", at[0]);
        assert_eq!(at[0]["coverage"]["state"].as_str(), state, "{citation}: {}", at[0]);
        assert_eq!(at[0]["evidence"]["reason"], "state_law_out_of_scope", "{citation}: {}", at[0]);
    }
    // Their federal look-alikes are checked against the federal text: `§ 3 IFG` has no
    // numbered Absätze, so `§ 3 Abs. 2 IFG` is a discrepancy there (what `IFG-SH` was read as).
    for (citation, verdict) in [
        ("§ 3 IFG", "verified_corpus"),
        ("§ 35 VwVfG", "verified_corpus"),
        ("§ 28 VwVfG", "verified_corpus"),
        ("§ 4 IFG", "verified_corpus"),
        ("§ 1 Abs. 2 IFG", "verified_corpus"),
        ("§ 3 Abs. 2 IFG", "discrepancy"),
    ] {
        let text = format!("Der Kläger stützt seinen Antrag auf {citation}. Die Beklagte hält das für unbegründet.");
        let s = "Der Kläger stützt seinen Antrag auf ".chars().count();
        let findings = findings_of(&http, &server.base_url, &text);
        let at = law_findings_at(&findings, s, s + citation.chars().count());
        assert!(at.iter().all(|f| f["verdict"] == verdict) && !at.is_empty(), "{citation}: {at:?}");
    }

    // get_cases_for_law("IFG", "3"): only decisions with a citation of § 3 of the federal IFG
    // (bound to it), none for a Land IFG, none dated before the IFG.
    let ifg: i64 = db.query_row("SELECT id FROM laws WHERE code = 'IFG'", [], |r| r.get(0)).unwrap();
    let enacted: String =
        db.query_row("SELECT ausfertigung_datum FROM laws WHERE id = ?1", [ifg], |r| r.get(0)).unwrap();
    let mut listed = BTreeSet::new();
    for sort in ["most_cited", "date"] {
        let mut offset = 0;
        loop {
            let v = http.get_json(&format!(
                "{}/api/laws/IFG/sections/3/decisions?sort={sort}&limit=200&offset={offset}",
                server.base_url
            ));
            let results = v["results"].as_array().unwrap_or_else(|| panic!("{v}"));
            for r in results {
                let ext = r["id"].as_str().unwrap().to_string();
                if let Some(d) = r["date"].as_str() {
                    assert!(d >= enacted.as_str(), "get_cases_for_law(IFG, 3, {sort}) lists {ext} of {d}");
                }
                listed.insert(ext);
            }
            if results.len() < 200 {
                break;
            }
            offset += 200;
        }
    }
    assert!(!listed.is_empty(), "the federal IFG § 3 is cited in the corpus");
    for ext in &listed {
        let federal: i64 = db
            .query_row(
                "SELECT COUNT(*) FROM decision_citations dc JOIN decisions d ON d.id = dc.decision_id
                 WHERE d.ext_id = ?1 AND dc.law_id = ?2 AND dc.section = '3' AND dc.law_status != 'state_law'",
                rusqlite::params![ext, ifg],
                |r| r.get(0),
            )
            .unwrap();
        assert!(federal > 0, "get_cases_for_law(IFG, 3) lists {ext}, which cites no § 3 of the federal IFG");
    }
    // The decisions of the set that cite § 3 of a Land IFG and never the federal one are not listed.
    let land_only: Vec<&String> = rows
        .iter()
        .filter(|r| !r.federal && r.citation.starts_with("§ 3") && r.citation.contains("IFG"))
        .map(|r| &r.decision)
        .filter(|d| {
            by_record.get(*d).is_some_and(|(id, _)| {
                db.query_row(
                    "SELECT COUNT(*) FROM decision_citations WHERE decision_id = ?1 AND law_id = ?2 AND section = '3'",
                    rusqlite::params![id, ifg],
                    |r| r.get::<_, i64>(0),
                )
                .unwrap()
                    == 0
            })
        })
        .collect();
    for d in &land_only {
        let ext: String =
            db.query_row("SELECT ext_id FROM decisions WHERE id = ?1", [by_record[*d].0], |r| r.get(0)).unwrap();
        assert!(!listed.contains(&ext), "{d} cites only a Land IFG § 3 and is listed");
    }
    eprintln!(
        "get_cases_for_law(IFG, 3): {} decisions; {} Land-only decisions of the set not listed",
        listed.len(),
        land_only.len()
    );
}
