//! The statute pipeline over the real shared corpus and over deliberately broken inputs,
//! with the real binaries as processes against a loopback mirror.

use std::path::Path;

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

fn get_json(url: &str) -> Value {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async { reqwest::get(url).await.unwrap().text().await.unwrap() }).parse::<Value>().unwrap()
}

#[test]
fn every_law_of_the_shared_toc_reaches_the_generation_and_a_rerun_fetches_nothing() {
    let gii = shared_dir().join("data/gii");
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

    let store = Connection::open(current_generation(data.path()).join("store.sqlite")).unwrap();
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
        ("SGB IX", "sgb_9_2018"),
    ] {
        let v = get_json(&format!("{}/api/laws/{}?include=meta", server.base_url, code.replace(' ', "%20")));
        assert_eq!(v["law"]["slug"], slug, "{code}: {v}");
    }
    let v = get_json(&format!("{}/api/search/laws?q=Notwehr&book_code=StGB", server.base_url));
    assert_eq!(v["results"][0]["label"], "§ 32");
    let v = get_json(&format!("{}/api/search/laws?q=Notwehr", server.base_url));
    assert!(
        v["results"].as_array().unwrap().iter().take(3).any(|r| r["label"] == "§ 32" && r["law"]["code"] == "StGB"),
        "{v}"
    );
}

#[test]
fn broken_sources_are_recorded_with_their_reason_and_the_rest_is_indexed() {
    let gii = shared_dir().join("data/gii");
    let overlay = tempfile::tempdir().unwrap();
    let o = overlay.path();
    let good = ["gg", "stgb", "ifg"];
    let broken = ["broken-xml", "no-xml", "not-a-zip", "gone", "flaky", "slow"];
    let mut toc = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" ?><!DOCTYPE items SYSTEM \"http://www.gesetze-im-internet.de/dtd/1.0/gii-toc.dtd\">\n<items>\n",
    );
    for s in good.iter().chain(broken.iter()) {
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
    run_stage_ok("extract", &["--data-dir", d]);
    run_stage_ok("resolve", &["--data-dir", d]);
    run_stage_ok("index", &["--data-dir", d]);

    let m = manifest(data.path());
    assert_eq!(m["sources"]["gii"]["records"], 3, "the good laws are indexed");
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

    // A whole-site outage: the last good copies stay, ingest exits 2, the generation stands.
    let before = manifest(data.path())["id"].clone();
    mirror.set_site_fault(Some(Fault::Status(503)));
    let out = run_stage("ingest", &ingest_args);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("OUTAGE"));
    run_stage_ok("extract", &["--data-dir", d]);
    run_stage_ok("resolve", &["--data-dir", d]);
    let ix = run_stage_ok("index", &["--data-dir", d]);
    assert!(ix.contains("unchanged"), "{ix}");
    assert_eq!(manifest(data.path())["id"], before);
    let docs: i64 =
        cat.query_row("SELECT COUNT(*) FROM documents WHERE key IN ('gg', 'stgb', 'ifg')", [], |r| r.get(0)).unwrap();
    assert_eq!(docs, 3);
}
