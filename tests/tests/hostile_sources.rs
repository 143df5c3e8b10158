//! Hostile sources cannot stop the nightly run: each bad record becomes a recorded problem
//! (catalog row with its reason), and every other document is still published and searchable.
//!
//! The real binaries (`ingest` → `extract` → `resolve` → `index`, then `serve`) run against
//! the loopback mirror over a few real laws of `sample/gii` and the real rii decision of
//! `sample/rii`, with the hostile parts added around them:
//!
//! - run 1 (content): a duplicated toc `<item>`, HTML, declared and unknown entities in toc
//!   titles, a same-host 302, a law zip bomb (300 KB holding 200 MiB), a decision zip bomb and
//!   an over-cap record in an Open Legal Data dump;
//! - run 2 (transport), on documents that have a last good copy: a 302 to another host, a
//!   redirect loop, `Retry-After: 3600`, a body that stalls, a 300 MB body — with ingest in a
//!   child whose address space is limited below what buffering that body would take.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use legal_tests::current_id as current;
use legal_tests::http::get_json;
use legal_tests::procs::{Server, bin, run_stage, run_stage_ok};
use legal_tests::{Fault, Mirror, sample_gii, sample_oldp_dump, sample_rii, write};
use rusqlite::Connection;
use serde_json::Value;

/// The real laws of the sample this test publishes, with a word each one's text holds.
const LAWS: [(&str, &str, &str); 6] = [
    ("gg", "GG", "Würde"),
    ("ifg", "IFG", "Informationen"),
    ("kschg", "KSchG", "Kündigung"),
    ("betrkv", "BetrKV", "Betriebskosten"),
    ("woeigg", "WEG", "Wohnungseigentum"),
    ("uwg_2004", "UWG", "Mitbewerber"),
];
/// Added to the toc in run 2, so that run publishes a new generation.
const ADDED_LAW: (&str, &str, &str) = ("vwgo", "VwGO", "Verwaltungsgericht");
const RII_DOKNR: &str = "KVRE427811801";
const RII_BOMB: &str = "KVRE000000001";
const MIB: u64 = 1024 * 1024;

fn manifest(data: &Path) -> Value {
    let p = data.join("generations").join(current(data)).join("manifest.json");
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

/// A gii toc over `items` (slug, title), with one entity declared in its internal subset.
fn gii_toc(items: &[(&str, &str)]) -> String {
    let mut s = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" ?><!DOCTYPE items SYSTEM \"http://www.gesetze-im-internet.de/dtd/1.0/gii-toc.dtd\" [\n<!ENTITY brd \"Bundesrepublik&#160;Deutschland\">\n]>\n\n<items>\n",
    );
    for (slug, title) in items {
        s.push_str(&format!(
            "<item>\n<title>{title}</title>\n<link>http://www.gesetze-im-internet.de/{slug}/xml.zip</link>\n</item>\n"
        ));
    }
    s.push_str("</items>\n");
    s
}

/// A zip whose one entry is `head`, then `filler` repeated to `total` bytes, then `tail`:
/// written in pieces, so the test never holds the whole text.
fn bomb_zip(entry: &str, head: &str, tail: &str, total: u64) -> Vec<u8> {
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut buf);
        z.start_file(entry, zip::write::SimpleFileOptions::default().large_file(true)).unwrap();
        z.write_all(head.as_bytes()).unwrap();
        let piece = "Sprengstoff ".repeat(87_382).into_bytes(); // about 1 MiB
        let mut left = total - head.len() as u64 - tail.len() as u64;
        while left > 0 {
            let n = left.min(piece.len() as u64) as usize;
            z.write_all(&piece[..n]).unwrap();
            left -= n as u64;
        }
        z.write_all(tail.as_bytes()).unwrap();
        z.finish().unwrap();
    }
    buf.into_inner()
}

/// The site of run 1: the toc, the zip bombs, the target of the same-host redirect, the rii
/// toc with a bomb next to the real decision, and the file an off-host redirect would reach.
fn build_site(site: &Path) {
    let uwg = std::fs::read(sample_gii().join("uwg_2004/xml.zip")).unwrap();
    write(&site.join("moved/uwg.zip"), &uwg);
    write(&site.join("elsewhere/gg.zip"), &std::fs::read(sample_gii().join("gg/xml.zip")).unwrap());
    let law_head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><dokumente builddate=\"20250101000000\" doknr=\"BJNR000000000\"><norm builddate=\"20250101000000\" doknr=\"BJNR000000000\"><metadaten><jurabk>BombG</jurabk><langue>Bombengesetz</langue></metadaten></norm><norm builddate=\"20250101000000\" doknr=\"BJNE000000000\"><metadaten><jurabk>BombG</jurabk><enbez>§ 1</enbez></metadaten><textdaten><text format=\"XML\"><Content><P>";
    let law_tail = "</P></Content></text></textdaten></norm></dokumente>";
    write(&site.join("bomb/xml.zip"), &bomb_zip("BJNR000000000.xml", law_head, law_tail, 200 * MIB));
    let rii_head = "<?xml version=\"1.0\" encoding=\"utf-8\"?><dokument><doknr>KVRE000000001</doknr><gertyp>BGH</gertyp><entsch-datum>20200101</entsch-datum><aktenzeichen>I ZR 1/20</aktenzeichen><doktyp>Urteil</doktyp><gruende><dl><dt/><dd><p>";
    let rii_tail = "</p></dd></dl></gruende></dokument>";
    write(
        &site.join(format!("jportal/docs/bsjrs/jb-{RII_BOMB}.zip")),
        &bomb_zip(&format!("{RII_BOMB}.xml"), rii_head, rii_tail, 200 * MIB),
    );
    let real_rii = std::fs::read_to_string(sample_rii().join("rii-toc.xml")).unwrap();
    let bomb_item = format!(
        "<item><gericht>BGH 1. Zivilsenat</gericht><entsch-datum>20200101</entsch-datum><aktenzeichen>I ZR 1/20</aktenzeichen><link>http://www.rechtsprechung-im-internet.de/jportal/docs/bsjrs/jb-{RII_BOMB}.zip</link><modified>2020-01-02T10:00:00Z</modified></item>\n</items>"
    );
    write(&site.join("rii-toc.xml"), real_rii.replace("</items>", &bomb_item).as_bytes());
    let toc = gii_toc(&[
        ("gg", "Grundgesetz f&uuml;r die &brd;"),
        ("ifg", "Gesetz zur Regelung des Zugangs zu Informationen des Bundes"),
        ("kschg", "K&uuml;ndigungsschutzgesetz &kschg-kurz;"),
        ("betrkv", "Verordnung&nbsp;&uuml;ber die Aufstellung von Betriebskosten"),
        ("woeigg", "Gesetz &uuml;ber das Wohnungseigentum und das Dauerwohnrecht"),
        ("uwg_2004", "Gesetz gegen den unlauteren Wettbewerb"),
        ("ifg", "Informationsfreiheitsgesetz (zweites Mal gelistet)"),
        ("bomb", "Bombengesetz"),
    ]);
    write(&site.join("gii-toc.xml"), toc.as_bytes());
}

/// Three real records of the sample dump and one record over the decompressed cap (gzip).
fn build_dump(path: &Path) -> usize {
    let mut lines = Vec::new();
    let gz = flate2::read::MultiGzDecoder::new(std::fs::File::open(sample_oldp_dump()).unwrap());
    for line in std::io::BufRead::lines(std::io::BufReader::new(gz)).take(3) {
        lines.push(line.unwrap());
    }
    let mut enc = flate2::write::GzEncoder::new(std::fs::File::create(path).unwrap(), flate2::Compression::fast());
    for l in &lines {
        writeln!(enc, "{l}").unwrap();
    }
    write!(enc, "{{\"id\": 999999, \"content\": \"").unwrap();
    let piece = "Sprengstoff ".repeat(87_382);
    for _ in 0..40 {
        enc.write_all(piece.as_bytes()).unwrap();
    }
    writeln!(enc, "\"}}").unwrap();
    enc.finish().unwrap();
    lines.len() + 1
}

struct Catalog(Connection);

impl Catalog {
    fn open(data: &Path) -> Catalog {
        Catalog(Connection::open(data.join("catalog.sqlite")).unwrap())
    }

    /// The newest fetch of a document: (status, http_status, reason, final_url).
    fn last_fetch(&self, source: &str, key: &str) -> (String, Option<i64>, Option<String>, Option<String>) {
        self.0
            .query_row(
                "SELECT status, http_status, reason, final_url FROM fetches WHERE source = ?1 AND key = ?2
                 ORDER BY id DESC LIMIT 1",
                [source, key],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .unwrap_or_else(|e| panic!("no fetch of {source}/{key}: {e}"))
    }

    /// Every problem of a key: "stage: reason".
    fn problems(&self, source: &str, key: &str) -> Vec<String> {
        let mut st = self
            .0
            .prepare("SELECT stage || ': ' || reason FROM problems WHERE source = ?1 AND key = ?2 ORDER BY id")
            .unwrap();
        st.query_map([source, key], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    }

    /// The problem reason of `key` that starts with `spelling`, written by `stage`.
    fn problem(&self, source: &str, key: &str, stage: &str, spelling: &str) -> String {
        let all = self.problems(source, key);
        all.iter()
            .find(|p| p.starts_with(&format!("{stage}: {spelling}: ")))
            .unwrap_or_else(|| panic!("no {stage} problem {spelling} for {source}/{key}; problems: {all:?}"))
            .clone()
    }

    /// The last good copy: (sha256, final_url, last_status).
    fn document(&self, source: &str, key: &str) -> Option<(String, Option<String>, String)> {
        self.0
            .query_row(
                "SELECT sha256, final_url, last_status FROM documents WHERE source = ?1 AND key = ?2",
                [source, key],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .ok()
    }

    fn toc_titles(&self, source: &str) -> BTreeMap<String, String> {
        let mut st = self.0.prepare("SELECT key, title FROM toc_items WHERE source = ?1").unwrap();
        st.query_map([source], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
    }

    fn unfinished_runs(&self) -> i64 {
        self.0.query_row("SELECT COUNT(*) FROM runs WHERE finished_at IS NULL", [], |r| r.get(0)).unwrap()
    }
}

fn ingest_args<'a>(data: &'a str, base: &'a str, dump: &'a str) -> Vec<&'a str> {
    vec![
        "--data-dir",
        data,
        "--sources",
        "gii,rii",
        "--gii-base-url",
        base,
        "--rii-base-url",
        base,
        "--oldp-dump",
        dump,
        "--rate",
        "0",
        "--concurrency",
        "8",
        "--retries",
        "1",
        "--backoff-ms",
        "20",
        // Bounded stalls in test time: one second of silence is a stall, two attempts at most.
        "--idle-timeout-secs",
        "1",
        "--document-deadline-secs",
        "10",
    ]
}

/// extract (which exits 3: the law bomb has no record, every other law has), resolve, index.
fn run_later_stages(d: &str) -> String {
    let out = run_stage("extract", &["--data-dir", d]);
    let mut log = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(3), "extract: some documents failed, the rest written\n{log}");
    for stage in ["resolve", "index"] {
        log.push_str(&run_stage_ok(stage, &["--data-dir", d]));
    }
    log
}

/// Every law of `laws` is published: readable by its code and found by a word of its text.
fn assert_laws_served(base: &str, laws: &[(&str, &str, &str)]) {
    for (slug, code, word) in laws {
        let v = get_json(&format!("{base}/api/laws/{code}?include=meta"));
        assert_eq!(v["law"]["slug"], *slug, "{code} is published: {v}");
        let v = get_json(&format!("{base}/api/search/laws?q={word}&book={code}"));
        let results = v["results"].as_array().unwrap_or_else(|| panic!("search {word} in {code}: {v}"));
        assert!(!results.is_empty(), "{code} is searchable ({word}): {v}");
        assert!(results.iter().all(|r| r["law"]["code"] == *code), "{v}");
    }
}

/// Runs ingest in a child whose address space is limited to `limit` bytes; returns its exit
/// code and the peak resident set seen while it ran (sampled from /proc; a lower bound).
fn ingest_limited(args: &[&str], limit: u64) -> (Option<i32>, u64, String) {
    let mut child = Command::new("prlimit")
        .arg(format!("--as={limit}"))
        .arg("--")
        .arg(bin("ingest"))
        .args(args)
        .env("RUST_LOG", "warn")
        // One malloc arena per thread would reserve 64 MiB of address space each.
        .env("MALLOC_ARENA_MAX", "2")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("prlimit runs");
    let pid = child.id();
    let mut peak_kib = 0u64;
    let started = Instant::now();
    let mut out = String::new();
    loop {
        // prlimit execs ingest in place, so the pid is ingest's.
        if let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) {
            let hwm = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).map(|v| v.trim().trim_end_matches(" kB"));
            peak_kib = peak_kib.max(hwm.and_then(|v| v.trim().parse().ok()).unwrap_or(0));
        }
        if let Some(status) = child.try_wait().unwrap() {
            let o = child.wait_with_output().unwrap();
            out.push_str(&String::from_utf8_lossy(&o.stdout));
            out.push_str(&String::from_utf8_lossy(&o.stderr));
            return (status.code(), peak_kib * 1024, out);
        }
        assert!(started.elapsed() < Duration::from_secs(300), "ingest did not finish");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn hostile_records_become_problems_and_every_other_document_is_published() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    build_site(&site);
    let dump: PathBuf = tmp.path().join("oldp-hostile.jsonl.gz");
    let dump_records = build_dump(&dump);
    let data = tmp.path().join("data");
    let d = data.to_str().unwrap();
    let mirror = Mirror::start(vec![site.clone(), sample_gii(), sample_rii()]);
    let base = mirror.base_url();
    // A same-host redirect is followed; its final URL is recorded.
    mirror.set_fault("/uwg_2004/xml.zip", Fault::Redirect { status: 302, location: "/moved/uwg.zip".into() });

    // A crawl killed mid-run (SIGKILL while the toc hangs) cannot finish its run row; the next
    // run of that source closes it.
    let args = ingest_args(d, &base, dump.to_str().unwrap());
    mirror.set_fault("/gii-toc.xml", Fault::Hang);
    let mut killed = Command::new(bin("ingest")).args(&args).stdout(std::process::Stdio::null()).spawn().unwrap();
    let t = Instant::now();
    while mirror.stats().hits("/gii-toc.xml") == 0 {
        assert!(t.elapsed() < Duration::from_secs(30), "ingest never asked for the toc");
        std::thread::sleep(Duration::from_millis(20));
    }
    killed.kill().unwrap();
    killed.wait().unwrap();
    mirror.clear_fault("/gii-toc.xml");
    assert_eq!(Catalog::open(&data).unfinished_runs(), 1, "the killed crawl left its run open");

    // Run 1: content that is hostile.
    let out = run_stage("ingest", &args);
    let log = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(3), "a rejected toc item: exit 3, the rest in place\n{log}");
    let ix = run_later_stages(d);
    assert!(ix.contains("index: published"), "{ix}");
    let first = current(&data);

    let cat = Catalog::open(&data);
    assert_eq!(cat.unfinished_runs(), 0, "every run row is finished");
    let abandoned: i64 = cat
        .0
        .query_row("SELECT COUNT(*) FROM runs WHERE exit_code = 1 AND summary LIKE 'abandoned:%'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(abandoned, 1, "the killed run is closed as abandoned");
    // The duplicated item: one law, one recorded repeat.
    let dup = cat.problem("gii", "ifg", "ingest", "duplicate_toc_item");
    assert!(dup.contains("toc item 7 repeats key \"ifg\"") && dup.contains("item 2 is kept"), "{dup}");
    let titles = cat.toc_titles("gii");
    assert_eq!(titles.len(), 7, "the toc holds each law once: {titles:?}");
    // Entities: HTML and declared ones decoded; an unknown one kept as written and recorded.
    assert_eq!(titles["gg"], "Grundgesetz für die Bundesrepublik Deutschland");
    assert_eq!(titles["betrkv"], "Verordnung über die Aufstellung von Betriebskosten");
    assert_eq!(titles["kschg"], "Kündigungsschutzgesetz &kschg-kurz;");
    let ent = cat.problem("gii", "kschg", "ingest", "toc_unknown_entity");
    assert!(ent.contains("&kschg-kurz;"), "{ent}");
    // The same-host redirect: fetched, final URL recorded on the fetch and the document.
    let (status, http, _, final_url) = cat.last_fetch("gii", "uwg_2004");
    assert_eq!((status.as_str(), http), ("changed", Some(200)));
    assert_eq!(final_url.as_deref(), Some(format!("{base}/moved/uwg.zip").as_str()));
    assert_eq!(cat.document("gii", "uwg_2004").unwrap().1, final_url);
    // The zip bombs (a law and a decision) and the over-cap dump record: recorded, not published.
    let bomb = cat.problem("gii", "bomb", "extract", "decompressed_too_large");
    assert!(bomb.contains(&format!("declares {} bytes", 200 * MIB)), "{bomb}");
    assert_eq!(cat.last_fetch("rii", RII_DOKNR).0, "changed", "the real decision is fetched");
    let rii_bomb = cat.problem("rii", RII_BOMB, "extract", "decompressed_too_large");
    assert!(rii_bomb.contains("over the cap"), "{rii_bomb}");
    let key = format!("oldp-hostile.jsonl.gz#{dump_records}");
    let record = cat.problem("oldp", &key, "extract", "decompressed_too_large");
    assert!(record.contains("the record is"), "{record}");

    let m = manifest(&data);
    assert_eq!(m["sources"]["gii"]["records"], LAWS.len(), "every good law is published: {m}");
    assert_eq!(m["sources"]["gii"]["missing"], 1, "the bomb is missing: {m}");
    assert_eq!(m["sources"]["decisions"]["missing"], 2, "the decision bomb and the over-cap record: {m}");
    let decisions = m["sources"]["decisions"]["records"].as_u64().unwrap();
    assert!(decisions >= 2, "the real rii decision and the dump's real records are published: {m}");
    let server = Server::start(&data, &["--poll-ms", "100"]);
    let sb = server.base_url.clone();
    assert_laws_served(&sb, &LAWS);
    let v = get_json(&format!("{sb}/api/laws/BombG?include=meta"));
    assert!(v.get("error_code").is_some(), "the bomb is not served: {v}");
    let v = get_json(&format!("{sb}/api/search/decisions?q=2%20BvQ%2053%2F18"));
    assert!(v["total"].as_u64().unwrap_or(0) >= 1, "the real rii decision is published: {v}");
    let v = get_json(&format!("{sb}/api/search/decisions?q=Sprengstoff"));
    assert_eq!(v["total"].as_u64(), Some(0), "no bomb text is served: {v}");
    eprintln!("run 1: {} laws, {decisions} decisions; generation {first}", LAWS.len());

    // Run 2: transport that is hostile, on documents with a last good copy; one law is added
    // so the run publishes a new generation.
    let before: BTreeMap<&str, String> =
        LAWS.iter().map(|(slug, ..)| (*slug, cat.document("gii", slug).unwrap().0)).collect();
    let mut toc = std::fs::read_to_string(site.join("gii-toc.xml")).unwrap();
    toc = toc.replace(
        "</items>",
        &format!("<item>\n<title>Verwaltungsgerichtsordnung</title>\n<link>http://www.gesetze-im-internet.de/{}/xml.zip</link>\n</item>\n</items>", ADDED_LAW.0),
    );
    write(&site.join("gii-toc.xml"), toc.as_bytes());
    let port = mirror.addr.port();
    mirror.set_fault(
        "/gg/xml.zip",
        Fault::Redirect { status: 302, location: format!("http://localhost:{port}/elsewhere/gg.zip") },
    );
    mirror.set_fault("/kschg/xml.zip", Fault::Redirect { status: 307, location: "/kschg/again.zip".into() });
    mirror.set_fault("/kschg/again.zip", Fault::Redirect { status: 302, location: "/kschg/xml.zip".into() });
    mirror.set_fault("/betrkv/xml.zip", Fault::RetryAfter { status: 503, retry_after: "3600".into() });
    mirror.set_fault("/woeigg/xml.zip", Fault::StallBody { after_bytes: 1000 });
    mirror.set_fault("/ifg/xml.zip", Fault::LargeBody { bytes: 300_000_000 });
    // A Retry-After within the budget is honoured: one wait, then the law is fetched.
    let added = format!("/{}/xml.zip", ADDED_LAW.0);
    mirror.set_fault_times(&added, Fault::RetryAfter { status: 503, retry_after: "1".into() }, 1);
    let hits = |p: &str| mirror.stats().hits(p);
    let hits_before: BTreeMap<&str, u64> =
        ["/gg/xml.zip", "/kschg/xml.zip", "/betrkv/xml.zip", "/woeigg/xml.zip", "/ifg/xml.zip"]
            .iter()
            .map(|p| (*p, hits(p)))
            .collect();

    // Buffering the 300 MB body (as ingest did) cannot fit in this address space; streaming can.
    let limit = 512 * MIB;
    let started = Instant::now();
    let (code, peak_rss, log) = ingest_limited(&args, limit);
    let took = started.elapsed();
    assert_eq!(code, Some(3), "some documents failed, the rest in place (address space {limit} bytes)\n{log}");
    eprintln!(
        "run 2 ingest: {:.1} s, peak RSS {:.1} MiB (address space capped at {} MiB)",
        took.as_secs_f64(),
        peak_rss as f64 / MIB as f64,
        limit / MIB
    );
    assert!(peak_rss < 200 * MIB, "ingest's peak RSS {peak_rss} stays far below the 300 MB body");

    let cat = Catalog::open(&data);
    assert_eq!(cat.unfinished_runs(), 0, "every run row is finished");
    let fetch = |key: &str| cat.last_fetch("gii", key);
    // Redirect to another host: not followed (the target was never asked), refused.
    let (status, http, reason, _) = fetch("gg");
    assert_eq!((status.as_str(), http), ("refused", Some(302)), "{reason:?}");
    assert!(reason.unwrap().starts_with("redirect_off_host: "));
    assert_eq!(hits("/elsewhere/gg.zip"), 0, "the other host was never asked");
    cat.problem("gii", "gg", "ingest", "redirect_off_host");
    // Redirect loop: refused at once, not retried.
    let (status, _, reason, _) = fetch("kschg");
    assert_eq!(status, "refused", "{reason:?}");
    assert!(reason.unwrap().starts_with("redirect_loop: "));
    assert_eq!(hits("/kschg/xml.zip") - hits_before["/kschg/xml.zip"], 1, "a loop is not retried");
    cat.problem("gii", "kschg", "ingest", "redirect_loop");
    // Retry-After 3600: asked once, not hammered, not slept through.
    let (status, http, reason, _) = fetch("betrkv");
    assert_eq!((status.as_str(), http), ("http_error", Some(503)), "{reason:?}");
    assert!(reason.unwrap().starts_with("retry_after_over_budget: "));
    assert_eq!(hits("/betrkv/xml.zip") - hits_before["/betrkv/xml.zip"], 1, "one request, no hammering");
    cat.problem("gii", "betrkv", "ingest", "retry_after_over_budget");
    // A stalling body: given up after the idle timeout, on each of the two attempts.
    let (status, _, reason, _) = fetch("woeigg");
    assert_eq!(status, "network_error", "{reason:?}");
    let reason = reason.unwrap();
    assert!(reason.starts_with("stalled: ") || reason.starts_with("deadline_exceeded: "), "{reason}");
    assert_eq!(hits("/woeigg/xml.zip") - hits_before["/woeigg/xml.zip"], 2, "retried once within the deadline");
    // The 300 MB body: refused over the cap, never stored as ok.
    let (status, http, reason, _) = fetch("ifg");
    assert_eq!((status.as_str(), http), ("refused", Some(200)), "{reason:?}");
    assert!(reason.unwrap().starts_with("body_too_large: "));
    assert_eq!(hits("/ifg/xml.zip") - hits_before["/ifg/xml.zip"], 1, "an over-cap body is not retried");
    cat.problem("gii", "ifg", "ingest", "body_too_large");
    let (status, ..) = fetch(ADDED_LAW.0);
    assert_eq!(status, "changed", "fetched after the wait it was asked for");
    let arrivals = mirror.stats().arrivals(&added);
    assert_eq!(arrivals.len(), 2, "one retry");
    assert!(arrivals[1] - arrivals[0] >= Duration::from_secs(1), "the retry waited Retry-After: 1");
    let spool = data.join("raw/gii/.incoming");
    let left: Vec<_> = std::fs::read_dir(&spool).map(|r| r.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    assert!(left.is_empty(), "no partial download is left behind: {left:?}");
    // Every faulted law keeps its last good copy, marked with the failure.
    for (slug, sha) in &before {
        let (now, _, last_status) = cat.document("gii", slug).unwrap();
        assert_eq!(&now, sha, "{slug}: the last good copy is kept");
        if *slug != "uwg_2004" {
            assert_eq!(last_status, "error", "{slug}");
        }
    }

    // The rest is published: a new generation with every law, the faulted ones from their last good copies.
    let ix = run_later_stages(d);
    assert!(ix.contains("index: published"), "{ix}");
    assert_ne!(current(&data), first, "CURRENT moves");
    let m = manifest(&data);
    assert_eq!(m["sources"]["gii"]["records"], LAWS.len() + 1, "{m}");
    let mut all = LAWS.to_vec();
    all.push(ADDED_LAW);
    let t = Instant::now();
    loop {
        let v = get_json(&format!("{sb}/readyz"));
        if v["generation"] == current(&data) {
            break;
        }
        assert!(t.elapsed() < Duration::from_secs(30), "the server swaps to the new generation: {v}");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_laws_served(&sb, &all);
}
