//! The statute pipeline over the real shared corpus and over deliberately broken inputs,
//! with the real binaries as processes against a loopback mirror.

use std::path::Path;

use legal_tests::http::{get_json, post_json};
use legal_tests::procs::{Server, run_stage, run_stage_ok};
use legal_tests::{Fault, Mirror, shared_dir};
use legal_tests::{write, zip_with};
use rusqlite::Connection;
use serde_json::Value;

fn current_generation(data: &Path) -> std::path::PathBuf {
    let id = std::fs::read_to_string(data.join("CURRENT")).expect("CURRENT").trim().to_string();
    data.join("generations").join(id)
}

fn manifest(data: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(current_generation(data).join("manifest.json")).unwrap()).unwrap()
}

/// The shared gii mirror, or None (and a note) when `../shared` is not there.
fn shared_gii() -> Option<std::path::PathBuf> {
    let gii = shared_dir().join("data/gii");
    if gii.join("gii-toc.xml").is_file() {
        Some(gii)
    } else {
        eprintln!("skipped: no shared gii mirror at {} (set LEGAL_SHARED_DIR)", gii.display());
        None
    }
}

/// The one XML of a mirror law's `xml.zip`.
fn mirror_xml(gii: &Path, slug: &str) -> String {
    let mut a = zip::ZipArchive::new(std::fs::File::open(gii.join(slug).join("xml.zip")).unwrap()).unwrap();
    let mut s = String::new();
    std::io::Read::read_to_string(&mut a.by_index(0).unwrap(), &mut s).unwrap();
    s
}

/// The `<norm>` elements of a gii XML as raw text, found by plain string search (not our parser).
fn raw_norms(xml: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = xml;
    while let Some(i) = rest.find("<norm") {
        let after = &rest[i + "<norm".len()..];
        if !after.starts_with([' ', '>']) {
            rest = after;
            continue;
        }
        let end = after.find("</norm>").expect("<norm> is closed");
        out.push(&after[..end]);
        rest = &after[end..];
    }
    out
}

/// Character data of `s` with every tag removed.
fn strip_tags(s: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// The contents of every `<tag …>…</tag>` in `norm` (self-closing ones are empty).
fn element_texts(norm: &str, tag: &str) -> Vec<String> {
    let (open, close) = (format!("<{tag}"), format!("</{tag}>"));
    let mut out = Vec::new();
    let mut rest = norm;
    while let Some(i) = rest.find(&open) {
        let after = &rest[i + open.len()..];
        rest = after;
        if !after.starts_with([' ', '>', '/']) {
            continue;
        }
        let gt = after.find('>').expect("tag is closed");
        if after[..gt].ends_with('/') {
            continue;
        }
        let body = &after[gt + 1..];
        let end = body.find(&close).expect("element is closed");
        out.push(strip_tags(&body[..end]));
        rest = &body[end..];
    }
    out
}

fn has_text(norm: &str, tag: &str) -> bool {
    element_texts(norm, tag).iter().any(|t| !t.trim().is_empty())
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first words of one norm's `<text>` as the XML has them, to compare a served text against.
fn first_words(norm: &str, n: usize) -> String {
    let text = element_texts(norm, "text").join(" ");
    let words: Vec<&str> = text.split_whitespace().take_while(|w| !w.contains('&')).take(n).collect();
    assert!(words.len() >= 3, "too few plain words to compare: {text:?}");
    words.join(" ")
}

#[test]
fn every_law_of_the_shared_toc_reaches_the_generation_and_a_rerun_fetches_nothing() {
    let Some(gii) = shared_gii() else { return };
    let data = tempfile::tempdir().unwrap();
    let d = data.path().to_str().unwrap();
    let mirror = Mirror::start(vec![gii.clone()]);
    let log = legal_tests::procs::build_statutes_generation(data.path(), &mirror.base_url());
    eprintln!("{log}");

    // Toc entries and <norm> counts of the mirror, read independently of our parser.
    let toc = std::fs::read_to_string(gii.join("gii-toc.xml")).unwrap();
    let toc_items = toc.matches("<item>").count() as u64;
    let m = manifest(data.path());
    assert_eq!(m["sources"]["gii"]["toc_items"], toc_items);
    assert_eq!(m["sources"]["gii"]["records"], toc_items, "every toc law is in the generation");
    assert_eq!(m["sources"]["gii"]["missing"], 0);
    assert_eq!(m["counts"]["laws"], toc_items);

    let store = index::store::open_readonly(&current_generation(data.path()).join("store.sqlite")).unwrap();
    let slugs: std::collections::HashSet<String> = store
        .prepare("SELECT slug FROM laws")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for line in std::fs::read_to_string(gii.join("manifest.tsv")).unwrap().lines().skip(1) {
        let slug = line.split('\t').next().unwrap();
        assert!(slugs.contains(slug), "{slug} missing from the generation");
    }
    let sections: i64 = store.query_row("SELECT COUNT(*) FROM sections", [], |r| r.get(0)).unwrap();
    assert_eq!(m["counts"]["sections"], sections);
    eprintln!("generation: {toc_items} laws, {sections} sections");
    let account_before_rerun = every_norm_is_accounted_for(&gii, &store, data.path());
    // Spot checks of the real texts.
    let heading: String = store
        .query_row(
            "SELECT heading FROM sections s JOIN laws l ON l.id = s.law_id WHERE l.slug = 'stgb' AND s.key = '32'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(heading, "Notwehr");

    // The catalog: the first run fetched every law.
    let cat = Connection::open(data.path().join("catalog.sqlite")).unwrap();
    let changed: i64 = cat
        .query_row(
            "SELECT COUNT(*) FROM fetches WHERE run_id = 1 AND key != 'gii-toc.xml' AND status = 'changed'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(changed as u64, toc_items);

    // A rerun with no upstream change: conditional GETs answered 304, nothing rebuilt.
    let ok_before = mirror.stats().ok.load(std::sync::atomic::Ordering::Relaxed);
    let out = run_stage_ok(
        "ingest",
        &[
            "--data-dir",
            d,
            "--sources",
            "gii",
            "--gii-base-url",
            &mirror.base_url(),
            "--rate",
            "0",
            "--concurrency",
            "8",
        ],
    );
    assert!(out.contains("0 changed, 0 unchanged"), "{out}");
    let (run2, fetched): (i64, i64) = cat
        .query_row(
            "SELECT MAX(run_id), SUM(status IN ('changed', 'unchanged')) FROM fetches WHERE run_id = (SELECT MAX(run_id) FROM fetches)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert!(run2 > 1);
    assert_eq!(fetched, 0, "no document bytes were fetched again");
    assert_eq!(mirror.stats().ok.load(std::sync::atomic::Ordering::Relaxed), ok_before, "the mirror served no body");
    let ex = run_stage_ok("extract", &["--data-dir", d]);
    assert!(ex.contains("0 extracted"), "{ex}");
    run_stage_ok("resolve", &["--data-dir", d]);
    let ix = run_stage_ok("index", &["--data-dir", d]);
    assert!(ix.contains("unchanged"), "{ix}");

    // Usual abbreviations over the whole corpus, through the server.
    let server = Server::start(data.path(), &[]);
    for (code, slug) in [
        ("AO", "ao_1977"),
        ("UStG", "ustg_1980"),
        ("BauGB", "bbaug"),
        ("AsylG", "asylvfg_1992"),
        ("WEG", "woeigg"),
        ("SGB V", "sgb_5"),
        ("SGB 5", "sgb_5"),
        ("EGBGB", "bgbeg"),
        ("BGBEG", "bgbeg"),
        ("EGAO", "aoeg_1977"),
        ("EGInsO", "eginso"),
        ("EGStPO", "stpoeg"),
        ("EGGVG", "gvgeg"),
        ("HWG", "heilmwerbg"),
        ("SGB IX", "sgb_9_2018"),
    ] {
        let v = get_json(&format!("{}/api/laws/{}?include=meta", server.base_url, code.replace(' ', "%20")));
        assert_eq!(v["law"]["slug"], slug, "{code}: {v}");
    }
    einfuehrungsgesetze_and_hwg_are_readable(&gii, &server.base_url, &account_before_rerun);
    // Every legal-register entry names a § of the federal statutes that holds its terms.
    let check = legal_tests::register::check_register_sources(&server.base_url);
    assert!(check.law_not_held.is_empty(), "dictionary sources naming no federal law: {:?}", check.law_not_held);
    assert!(check.terms_missing.is_empty(), "terms the named § does not hold:\n{}", check.terms_missing.join("\n"));
    eprintln!("legal-register: {} entries, each source § holds its terms", check.checked);
    let v = get_json(&format!("{}/api/search/laws?q=Notwehr&book=StGB", server.base_url));
    assert_eq!(v["results"][0]["label"], "§ 32");
    let v = get_json(&format!("{}/api/search/laws?q=Notwehr", server.base_url));
    assert!(
        v["results"].as_array().unwrap().iter().take(3).any(|r| r["label"] == "§ 32" && r["law"]["code"] == "StGB"),
        "{v}"
    );
}

#[test]
fn broken_sources_are_recorded_with_their_reason_and_the_rest_is_indexed() {
    let Some(gii) = shared_gii() else { return };
    let overlay = tempfile::tempdir().unwrap();
    let o = overlay.path();
    let good = ["gg", "stgb", "ifg"];
    // Read, but its one norm is over the per-section cap: a record with no rows, and a problem.
    let lost = "huge-norm";
    let broken = ["broken-xml", "no-xml", "not-a-zip", "gone", "flaky", "slow"];
    let mut toc = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" ?><!DOCTYPE items SYSTEM \"http://www.gesetze-im-internet.de/dtd/1.0/gii-toc.dtd\">\n<items>\n",
    );
    for s in good.iter().chain(broken.iter()).chain([&lost]) {
        toc.push_str(&format!(
            "<item>\n<title>Gesetz {s}</title>\n<link>http://www.gesetze-im-internet.de/{s}/xml.zip</link>\n</item>\n"
        ));
    }
    toc.push_str("<item><title>kaputt</title><link>http://www.gesetze-im-internet.de/</link></item>\n</items>\n");
    write(&o.join("gii-toc.xml"), toc.as_bytes());
    let stgb_xml = {
        let mut a = zip::ZipArchive::new(std::fs::File::open(gii.join("stgb/xml.zip")).unwrap()).unwrap();
        let mut s = Vec::new();
        std::io::Read::read_to_end(&mut a.by_index(0).unwrap(), &mut s).unwrap();
        s
    };
    write(&o.join("broken-xml/xml.zip"), &zip_with(&[("BJNR0.xml", &stgb_xml[..stgb_xml.len() / 2])]));
    write(&o.join("no-xml/xml.zip"), &zip_with(&[("readme.txt", b"nothing here")]));
    write(&o.join("not-a-zip/xml.zip"), b"<html>Wartungsarbeiten</html>");
    write(&o.join("flaky/xml.zip"), &std::fs::read(gii.join("ifg/xml.zip")).unwrap());
    write(&o.join("slow/xml.zip"), &std::fs::read(gii.join("ifg/xml.zip")).unwrap());
    let huge_text = "Wort ".repeat(extract::law::MAX_SECTION_TEXT_BYTES / 5 + 100);
    let huge_xml = format!(
        r#"<?xml version="1.0" encoding="UTF-8" ?><dokumente doknr="BJNR9"><norm doknr="BJNR9"><metadaten><jurabk>HugeG</jurabk><langue>Riesengesetz</langue></metadaten></norm><norm doknr="BJNR9BJNE1"><metadaten><jurabk>HugeG</jurabk><enbez>§ 1</enbez></metadaten><textdaten><text format="XML"><Content><P>{huge_text}</P></Content></text></textdaten></norm></dokumente>"#
    );
    write(&o.join(format!("{lost}/xml.zip")), &zip_with(&[("BJNR9.xml", huge_xml.as_bytes())]));
    let mirror = Mirror::start(vec![o.to_path_buf(), gii.clone()]);
    mirror.set_fault("/flaky/xml.zip", Fault::Status(500));
    mirror.set_fault("/slow/xml.zip", Fault::Hang);

    let data = tempfile::tempdir().unwrap();
    let d = data.path().to_str().unwrap();
    let base = mirror.base_url();
    let ingest_args = [
        "--data-dir",
        d,
        "--sources",
        "gii",
        "--gii-base-url",
        &base,
        "--rate",
        "0",
        "--retries",
        "1",
        "--backoff-ms",
        "10",
        "--timeout-secs",
        "1",
    ];
    let out = run_stage("ingest", &ingest_args);
    assert_eq!(out.status.code(), Some(3), "some documents failed: exit 3\n{}", String::from_utf8_lossy(&out.stdout));
    let extract_some_failed = || {
        let ex = run_stage("extract", &["--data-dir", d]);
        let stdout = String::from_utf8_lossy(&ex.stdout).into_owned();
        assert_eq!(ex.status.code(), Some(3), "laws failed or lost text: exit 3\n{stdout}");
        assert!(stdout.contains(&format!("{} failed, 1 lost text", broken.len())), "{stdout}");
    };
    extract_some_failed();
    run_stage_ok("resolve", &["--data-dir", d]);
    run_stage_ok("index", &["--data-dir", d]);

    let m = manifest(data.path());
    assert_eq!(m["sources"]["gii"]["records"], good.len() + 1, "the good laws and the one that lost text are indexed");
    assert_eq!(m["sources"]["gii"]["missing"], broken.len());
    let cat = Connection::open(data.path().join("catalog.sqlite")).unwrap();
    let fetch = |key: &str| -> (String, Option<i64>, Option<String>) {
        cat.query_row(
            "SELECT status, http_status, reason FROM fetches WHERE key = ?1 ORDER BY id DESC LIMIT 1",
            [key],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap()
    };
    assert_eq!(fetch("gone"), ("http_error".into(), Some(404), Some("HTTP 404".into())));
    let (st, code, reason) = fetch("flaky");
    assert_eq!((st.as_str(), code), ("http_error", Some(500)));
    assert!(reason.unwrap().contains("after 2 attempts"));
    let (st, code, reason) = fetch("slow");
    assert_eq!((st.as_str(), code), ("network_error", None));
    assert!(reason.unwrap().contains("timeout"));
    let problem = |key: &str| -> String {
        cat.query_row(
            "SELECT stage || ': ' || reason FROM problems WHERE key = ?1 ORDER BY id DESC LIMIT 1",
            [key],
            |r| r.get(0),
        )
        .unwrap_or_else(|_| panic!("no problem recorded for {key}"))
    };
    assert!(problem("broken-xml").contains("extract: malformed XML"), "{}", problem("broken-xml"));
    assert!(problem("no-xml").contains("no .xml entry (entries: readme.txt)"), "{}", problem("no-xml"));
    assert!(problem("not-a-zip").contains("zip archive unreadable"), "{}", problem("not-a-zip"));
    assert!(problem("gone").contains("no copy fetched: HTTP 404"), "{}", problem("gone"));
    assert!(problem("http://www.gesetze-im-internet.de/").contains("ingest: toc link has no law slug"));
    // The law whose only norm is over the cap: both losses named, and its account says where the norm went.
    let reasons: Vec<String> = cat
        .prepare("SELECT reason FROM problems WHERE key = ?1 AND stage = 'extract' ORDER BY id")
        .unwrap()
        .query_map([lost], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(reasons.iter().any(|r| r.starts_with("text_without_rows: 1 of 2 norms carry text")), "{reasons:?}");
    assert!(reasons.iter().any(|r| r.starts_with("section_too_large: norm BJNR9BJNE1 (§ 1)")), "{reasons:?}");
    let account: (i64, i64, i64, String) = cat
        .query_row(
            "SELECT norms, section_rows, law_header, dropped_by_reason FROM norm_accounts WHERE key = ?1",
            [lost],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!((account.0, account.1, account.2), (2, 0, 1));
    let by_reason: Value = serde_json::from_str(&account.3).unwrap();
    assert_eq!(by_reason["section_too_large"], 1);
    let store = index::store::open_readonly(&current_generation(data.path()).join("store.sqlite")).unwrap();
    let (sections, dropped): (i64, String) = store
        .query_row("SELECT section_count, norms_dropped FROM laws WHERE slug = ?1", [lost], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(sections, 0);
    assert_eq!(serde_json::from_str::<Value>(&dropped).unwrap()["section_too_large"], 1);

    // A whole-site outage: the last good copies stay, ingest exits 2, the generation stands.
    let before = manifest(data.path())["id"].clone();
    mirror.set_site_fault(Some(Fault::Status(503)));
    let out = run_stage("ingest", &ingest_args);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("OUTAGE"));
    extract_some_failed();
    run_stage_ok("resolve", &["--data-dir", d]);
    let ix = run_stage_ok("index", &["--data-dir", d]);
    assert!(ix.contains("unchanged"), "{ix}");
    assert_eq!(manifest(data.path())["id"], before);
    let docs: i64 =
        cat.query_row("SELECT COUNT(*) FROM documents WHERE key IN ('gg', 'stgb', 'ifg')", [], |r| r.get(0)).unwrap();
    assert_eq!(docs, 3);
}

/// Store and catalog against the mirror read without our parser: every law's norm account sums
/// to its `<norm>` count (manifest.tsv, and a plain string scan of the XML), and every law whose
/// XML holds text has rows. Returns the account totals the extract run wrote.
fn every_norm_is_accounted_for(gii: &Path, store: &Connection, data: &Path) -> Value {
    let mut expected: std::collections::BTreeMap<String, i64> = std::collections::BTreeMap::new();
    for line in std::fs::read_to_string(gii.join("manifest.tsv")).unwrap().lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        expected.insert(f[0].to_string(), f[5].parse().unwrap());
    }
    let expected_total: i64 = expected.values().sum();
    let readme = std::fs::read_to_string(gii.join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("{},{:03}", expected_total / 1000, expected_total % 1000)),
        "manifest.tsv counts {expected_total} norms, as the README states"
    );

    type Row = (String, i64, i64, i64, i64, String, i64, Option<String>);
    let laws: Vec<Row> = store
        .prepare(
            "SELECT slug, norms, section_count, norms_header, norms_headings, norms_dropped, norms_text_bearing, notes FROM laws",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(laws.len(), expected.len());
    let (mut total, mut rows, mut headers, mut headings, mut dropped) = (0i64, 0i64, 0i64, 0i64, 0i64);
    let mut zero_rows = 0;
    let mut text_laws = 0;
    for (slug, norms, section_count, header, heads, dropped_json, _, notes) in &laws {
        let by_reason: std::collections::BTreeMap<String, i64> = serde_json::from_str(dropped_json).unwrap();
        let d: i64 = by_reason.values().sum();
        assert_eq!(norms, &expected[slug], "{slug}: norms in the account vs manifest.tsv");
        assert_eq!(section_count + header + heads + d, *norms, "{slug}: the account does not add up");
        let xml = mirror_xml(gii, slug);
        let raw = raw_norms(&xml);
        assert_eq!(raw.len() as i64, *norms, "{slug}: <norm> elements by string scan");
        // Text-bearing: the header's own text, or text or footnotes of any other norm.
        let text_bearing =
            has_text(raw[0], "text") || raw[1..].iter().any(|n| has_text(n, "text") || has_text(n, "fussnoten"));
        if text_bearing {
            text_laws += 1;
            assert!(*section_count > 0, "{slug}: its XML holds text but it has no section row");
        }
        // The header's footnotes are the law's notes, not lost either.
        if has_text(raw[0], "fussnoten") {
            assert!(notes.is_some(), "{slug}: header footnotes but no notes");
        }
        if *section_count == 0 {
            zero_rows += 1;
        }
        total += norms;
        rows += section_count;
        headers += header;
        headings += heads;
        dropped += d;
    }
    assert_eq!(total, expected_total, "the account over all laws sums to the mirror's <norm> elements");
    assert_eq!(rows + headers + headings + dropped, total);
    eprintln!(
        "norm account: {total} norms = {rows} section rows + {headers} law headers + {headings} headings + {dropped} dropped; {text_laws} laws hold text, {zero_rows} laws have no row (none of them holds text)"
    );

    // The catalog holds the same accounts, and the extract output its totals.
    let cat = Connection::open(data.join("catalog.sqlite")).unwrap();
    let (n, cat_norms, cat_rows): (i64, i64, i64) = cat
        .query_row("SELECT COUNT(*), SUM(norms), SUM(section_rows) FROM norm_accounts WHERE source = 'gii'", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap();
    assert_eq!((n, cat_norms, cat_rows), (laws.len() as i64, total, rows));
    let unbalanced: i64 = cat
        .query_row(
            "SELECT COUNT(*) FROM norm_accounts WHERE norms != section_rows + law_header + headings + dropped",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(unbalanced, 0);
    let problems: i64 =
        cat.query_row("SELECT COUNT(*) FROM problems WHERE stage = 'extract'", [], |r| r.get(0)).unwrap();
    assert_eq!(problems, 0, "no law of the real mirror lost text");
    let extract_out: Value =
        serde_json::from_slice(&std::fs::read(data.join("work/extract/gii/current.json")).unwrap()).unwrap();
    let acc = extract_out["norm_account"].clone();
    assert_eq!(acc["norms"], total);
    assert_eq!(acc["section_rows"], rows);
    acc
}

/// EGBGB `Art. 229 § 5` in every spelling, HWG `§ 3`, EGInsO and EGAO articles, through the
/// real server, with the text the XML holds; `get_law` and `get_platform_info` show the accounts.
fn einfuehrungsgesetze_and_hwg_are_readable(gii: &Path, base: &str, totals: &Value) {
    let section = |book: &str, section: &str| {
        post_json(&format!("{base}/api/tools/get_law_section"), &serde_json::json!({"book": book, "section": section}))
    };
    let norm_with = |slug: &str, parts: &[&str]| -> String {
        let xml = mirror_xml(gii, slug);
        let found: Vec<String> =
            raw_norms(&xml).into_iter().filter(|n| parts.iter().all(|p| n.contains(p))).map(str::to_string).collect();
        assert_eq!(found.len(), 1, "{slug}: one norm with {parts:?}");
        found.into_iter().next().unwrap()
    };
    let art229_5 = norm_with("bgbeg", &["<gliederungsbez>Art 229</gliederungsbez>", "<enbez>§ 5</enbez>"]);
    let expected = first_words(&art229_5, 8);
    for spelling in ["Art. 229 § 5", "Art 229 § 5", "Art. 229 §5", "Artikel 229 § 5", "229§5"] {
        for book in ["EGBGB", "BGBEG"] {
            let v = section(book, spelling);
            assert_eq!(v["law"]["slug"], "bgbeg", "{book} {spelling}: {v}");
            assert_eq!(v["section"]["label"], "Art. 229 § 5", "{book} {spelling}: {v}");
            assert_eq!(v["section"]["section"], "229§5");
            let content = collapse(v["content"].as_str().unwrap());
            assert!(content.contains(&expected), "{spelling}: {expected:?} not in {content:?}");
        }
    }
    let v = section("EGBGB", "Art. 229 § 5");
    assert_eq!(v["section"]["kind"], "article");
    assert!(
        v["section"]["breadcrumb"].as_array().unwrap().iter().any(|c| c.as_str().unwrap().starts_with("Art 229")),
        "{v}"
    );
    // `§ 5` alone is not Art. 229 § 5 (EGBGB has no plain § 5).
    assert_ne!(section("EGBGB", "§ 5")["section"]["label"], "Art. 229 § 5");

    let hwg3 = norm_with("heilmwerbg", &["<enbez>§ 3</enbez>"]);
    let v = section("HWG", "§ 3");
    assert_eq!(v["section"]["label"], "§ 3", "{v}");
    assert!(collapse(v["content"].as_str().unwrap()).contains(&first_words(&hwg3, 6)), "{v}");

    for (book, gliederung, enbez, designation) in [
        ("EGInsO", "<gliederungsbez>Art 102</gliederungsbez>", "<enbez>§ 1</enbez>", "Art. 102 § 1"),
        ("EGInsO", "<gliederungsbez>Art 102c</gliederungsbez>", "<enbez>§ 1</enbez>", "Art. 102c § 1"),
        ("EGInsO", "<gliederungsbez>-</gliederungsbez>", "<enbez>Art 103</enbez>", "Art 103"),
        ("EGAO", "<gliederungsbez>Art 97</gliederungsbez>", "<enbez>§ 1</enbez>", "Art. 97 § 1"),
    ] {
        let slug = if book == "EGAO" { "aoeg_1977" } else { "eginso" };
        let norm = norm_with(slug, &[gliederung, enbez]);
        let v = section(book, designation);
        assert_eq!(v["section"]["label"], designation, "{book} {designation}: {v}");
        assert!(collapse(v["content"].as_str().unwrap()).contains(&first_words(&norm, 6)), "{book} {designation}: {v}");
    }

    // BAStrlSchG has `§ 4` (under `Art 2 und 3`) and the article `Art 4`, both key `4`: the typed
    // marker tells them apart, a bare number is ambiguous.
    let art4 = norm_with("bastrlschg", &["<gliederungsbez>Art 4</gliederungsbez>"]);
    let v = section("BAStrlSchG", "Art 4");
    assert_eq!(v["section"]["label"], "Art 4", "{v}");
    assert!(collapse(v["content"].as_str().unwrap()).contains(&first_words(&art4, 6)), "{v}");
    assert_eq!(section("BAStrlSchG", "§ 4")["section"]["label"], "§ 4");
    assert_eq!(section("BAStrlSchG", "4")["error_code"], "section_ambiguous");

    // get_law's metadata carries the law's account; get_platform_info the totals.
    let v = get_json(&format!("{base}/api/laws/EGBGB?include=meta"));
    let acc = &v["meta"]["norm_account"];
    let xml = mirror_xml(gii, "bgbeg");
    assert_eq!(acc["norms"], raw_norms(&xml).len(), "{acc}");
    assert_eq!(acc["section_rows"], v["meta"]["section_count"]);
    let sum = |a: &Value| {
        ["section_rows", "law_header", "headings", "dropped_total"].iter().map(|k| a[k].as_i64().unwrap()).sum::<i64>()
    };
    assert_eq!(sum(acc), acc["norms"].as_i64().unwrap());
    assert_eq!(acc["dropped"]["section_too_large"], 0);
    let p = get_json(&format!("{base}/api/platform"));
    let t = &p["statutes"]["norm_account"];
    assert_eq!(t["norms"], totals["norms"], "{t}");
    assert_eq!(t["section_rows"], p["statutes"]["sections"]);
    assert_eq!(sum(t), t["norms"].as_i64().unwrap());
    assert_eq!(t["laws_with_text_but_no_rows"], 0);
}
