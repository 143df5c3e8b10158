//! Generations: hot swap under load, crash safety of `index`, refusal of corrupted generations,
//! incremental ingestion of one changed law, a damaged shared file refused by the next build.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use legal_tests::procs::{Server, bin, run_stage, run_stage_ok};
use legal_tests::{Mirror, sample_data_dir, sample_gii};
use legal_tests::{copy_dir, current_id as current};
use serde_json::{Value, json};

fn gen_dirs(data: &Path) -> BTreeSet<String> {
    std::fs::read_dir(data.join("generations"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect()
}

async fn json_of(r: reqwest::Response) -> Result<Value, String> {
    let t = r.text().await.map_err(|e| e.to_string())?;
    serde_json::from_str(&t).map_err(|e| format!("{e}: {t}"))
}

/// A small synchronous HTTP client for the test thread (reqwest's `blocking` feature is off).
struct SyncClient {
    inner: reqwest::Client,
    rt: tokio::runtime::Runtime,
}

impl SyncClient {
    fn get_json(&self, url: &str) -> (u16, Value) {
        self.rt.block_on(async {
            let r = self.inner.get(url).send().await.unwrap();
            let s = r.status().as_u16();
            (s, json_of(r).await.unwrap_or(Value::Null))
        })
    }

    fn get_text(&self, url: &str) -> String {
        self.rt.block_on(async { self.inner.get(url).send().await.unwrap().text().await.unwrap() })
    }
}

fn client() -> SyncClient {
    let _ = rustls::crypto::ring::default_provider().install_default();
    SyncClient {
        // No pooled connections: this runtime is driven only inside `block_on`, so it would not
        // notice the server closing an idle keep-alive connection and would write into it.
        inner: reqwest::Client::builder().pool_max_idle_per_host(0).build().unwrap(),
        rt: tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap(),
    }
}

/// Waits until the server answers from generation `id`.
fn wait_served(c: &SyncClient, base: &str, id: &str) -> Duration {
    let t = Instant::now();
    loop {
        let (_, v) = c.get_json(&format!("{base}/readyz"));
        if v["generation"] == id {
            return t.elapsed();
        }
        assert!(t.elapsed() < Duration::from_secs(60), "server never swapped to {id}: {v}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn ten_generations_swap_in_under_load_without_a_failed_or_wrong_answer() {
    let data = legal_tests::sample_data_dir();
    let d = data.path().to_path_buf();
    let server = Server::start(&d, &["--poll-ms", "100"]);
    let c = client();
    let first = current(&d);
    wait_served(&c, &server.base_url, &first);

    let base = server.base_url.clone();
    let builds_done = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicUsize::new(0));
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let load = {
        let (builds_done, sent) = (builds_done.clone(), sent.clone());
        rt.spawn(async move {
            let http = reqwest::Client::new();
            let mut tasks = tokio::task::JoinSet::new();
            for w in 0..16usize {
                let (http, base, builds_done, sent) = (http.clone(), base.clone(), builds_done.clone(), sent.clone());
                tasks.spawn(async move {
                    let mut seen = BTreeSet::new();
                    let mut failures = Vec::new();
                    loop {
                        let i = sent.fetch_add(1, Ordering::Relaxed);
                        if i >= 20_000 && builds_done.load(Ordering::Relaxed) {
                            break;
                        }
                        assert!(i < 200_000, "load bounded");
                        let (answer, check): (Result<Value, String>, &str) = match (i + w) % 4 {
                            0 => {
                                let body = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                    "params": {"name": "get_law_section", "arguments": {"book": "BGB", "section": "823"}}});
                                let r = http.post(format!("{base}/mcp")).header("mcp-protocol-version", "2025-11-25")
                                    .header("content-type", "application/json").body(body.to_string()).send().await;
                                (match r {
                                    Ok(r) if r.status() == 200 => json_of(r).await.map(|v| v["result"]["structuredContent"].clone()),
                                    Ok(r) => Err(format!("HTTP {}", r.status())),
                                    Err(e) => Err(e.to_string()),
                                }, "§ 823")
                            }
                            1 => {
                                let body = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                    "params": {"name": "search_laws", "arguments": {"query": "Notwehr", "book": "StGB", "limit": 3}}});
                                let r = http.post(format!("{base}/mcp")).header("mcp-protocol-version", "2025-06-18")
                                    .header("content-type", "application/json").body(body.to_string()).send().await;
                                (match r {
                                    Ok(r) if r.status() == 200 => json_of(r).await.map(|v| v["result"]["structuredContent"].clone()),
                                    Ok(r) => Err(format!("HTTP {}", r.status())),
                                    Err(e) => Err(e.to_string()),
                                }, "§ 32")
                            }
                            2 => {
                                let r = http.get(format!("{base}/api/laws/GG/sections/Art.%2020")).send().await;
                                (match r {
                                    Ok(r) if r.status() == 200 => json_of(r).await,
                                    Ok(r) => Err(format!("HTTP {}", r.status())),
                                    Err(e) => Err(e.to_string()),
                                }, "Art 20")
                            }
                            _ => {
                                let r = http.get(format!("{base}/api/search/laws?q=Schadensersatz&book=BGB&limit=5")).send().await;
                                (match r {
                                    Ok(r) if r.status() == 200 => json_of(r).await,
                                    Ok(r) => Err(format!("HTTP {}", r.status())),
                                    Err(e) => Err(e.to_string()),
                                }, "BGB")
                            }
                        };
                        match answer {
                            Ok(v) if v.to_string().contains(check) && v.get("error_code").is_none() => {
                                seen.insert(v["generation"]["id"].as_str().unwrap_or("?").to_string());
                            }
                            Ok(v) => failures.push(format!("wrong answer: {}", v.to_string().chars().take(300).collect::<String>())),
                            Err(e) => failures.push(e),
                        }
                    }
                    (seen, failures)
                });
            }
            let mut seen = BTreeSet::new();
            let mut failures = Vec::new();
            while let Some(r) = tasks.join_next().await {
                let (s, f) = r.unwrap();
                seen.extend(s);
                failures.extend(f);
            }
            (seen, failures)
        })
    };

    let mut published = vec![first.clone()];
    let mut swap_times = Vec::new();
    for _ in 0..10 {
        let out = run_stage_ok("index", &["--data-dir", d.to_str().unwrap(), "build", "--force"]);
        assert!(out.contains("published"), "{out}");
        let id = current(&d);
        swap_times.push(wait_served(&c, &server.base_url, &id));
        published.push(id);
    }
    builds_done.store(true, Ordering::Relaxed);
    let (seen, failures) = rt.block_on(load).unwrap();
    let total = sent.load(Ordering::Relaxed);
    eprintln!("{total} requests; generations answered: {}; swap waits: {swap_times:?}", seen.len());
    assert!(
        failures.is_empty(),
        "{} failed or wrong answers, first: {:?}",
        failures.len(),
        &failures[..failures.len().min(3)]
    );
    assert!(total >= 20_000);
    let published_set: BTreeSet<String> = published.iter().cloned().collect();
    assert_eq!(published_set.len(), 11);
    assert!(seen.is_subset(&published_set), "answers name only published generations: {seen:?}");
    assert!(seen.len() >= 3, "answers came from several generations: {seen:?}");

    // The old generations are released: once the lease says so, gc removes them all.
    let last = published.last().unwrap().clone();
    let lease = d.join("leases").join(server.child.id().to_string());
    let t = Instant::now();
    while std::fs::read_to_string(&lease).unwrap_or_default().trim() != last {
        assert!(t.elapsed() < Duration::from_secs(10), "lease still holds old generations");
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = run_stage_ok("index", &["--data-dir", d.to_str().unwrap(), "gc", "--keep", "1"]);
    assert!(out.contains("removed 10"), "{out}");
    assert_eq!(gen_dirs(&d), BTreeSet::from([last.clone()]));
    let maps = std::fs::read_to_string(format!("/proc/{}/maps", server.child.id())).unwrap();
    for old in &published[..10] {
        assert!(!maps.contains(old.as_str()), "server still maps files of {old}");
    }
    let (_, v) = c.get_json(&format!("{}/api/laws/BGB/sections/823", server.base_url));
    assert_eq!(v["generation"]["id"], last.as_str());
}

#[test]
fn killing_index_at_any_point_never_breaks_current_and_the_next_run_succeeds() {
    let data = legal_tests::sample_data_dir();
    let d = data.path().to_path_buf();
    let server = Server::start(&d, &["--poll-ms", "100"]);
    let c = client();
    let before = current(&d);
    wait_served(&c, &server.base_url, &before);
    let ds = d.to_str().unwrap();
    // Deterministic point: inside the law loop (the hook sleeps there); then timed points.
    let mut kills: Vec<Box<dyn Fn() -> std::process::Child>> = vec![Box::new(|| {
        Command::new(bin("index"))
            .args(["--data-dir", ds, "build", "--force", "--pause-after-laws", "5"])
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    })];
    for _ in 0..5 {
        kills.push(Box::new(|| {
            Command::new(bin("index"))
                .args(["--data-dir", ds, "build", "--force"])
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        }));
    }
    let delays = [1500u64, 200, 800, 1600, 2600, 3600];
    for (spawn, delay) in kills.iter().zip(delays) {
        let mut child = spawn();
        std::thread::sleep(Duration::from_millis(delay));
        let _ = child.kill(); // SIGKILL
        let finished = child.wait().unwrap().success();
        let cur = current(&d);
        if !finished {
            assert_eq!(cur, before, "a killed build never moves CURRENT (killed at {delay} ms)");
        }
        // CURRENT always names a complete, verified generation.
        let out = run_stage_ok("index", &["--data-dir", ds, "verify"]);
        assert!(out.contains("verified"), "{out}");
        let (status, v) = c.get_json(&format!("{}/api/laws/StGB/sections/32", server.base_url));
        assert_eq!(status, 200);
        assert_eq!(v["section"]["heading"], "Notwehr");
        if finished {
            return; // this machine built faster than the delay; the kill points above were covered
        }
    }
    // Leftover temp dirs are never served and the next run cleans them and succeeds.
    let out = run_stage_ok("index", &["--data-dir", ds, "build", "--force"]);
    assert!(out.contains("published"), "{out}");
    assert!(gen_dirs(&d).iter().all(|n| !n.starts_with(".tmp-")), "{:?}", gen_dirs(&d));
    let new = current(&d);
    assert_ne!(new, before);
    wait_served(&c, &server.base_url, &new);
}

/// Publishes a copy of the current generation under `new_id`, damaged by `damage`.
fn publish_damaged(d: &Path, new_id: &str, damage: impl Fn(&Path)) {
    let src = d.join("generations").join(current(d));
    let dst = d.join("generations").join(new_id);
    copy_dir(&src, &dst);
    // A damaged generation of its own id: the manifest names the directory it is in (a plain
    // copy under another name is refused before any hashing, see generation_refusals.rs).
    let manifest_path = dst.join("manifest.json");
    let mut manifest: Value = serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
    manifest["id"] = Value::String(new_id.to_string());
    std::fs::write(&manifest_path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
    damage(&dst);
    std::fs::write(d.join("CURRENT.tmp"), format!("{new_id}\n")).unwrap();
    std::fs::rename(d.join("CURRENT.tmp"), d.join("CURRENT")).unwrap();
}

#[test]
fn corrupted_generations_are_refused_at_swap_time_and_the_old_one_keeps_serving() {
    let data = legal_tests::sample_data_dir();
    let d = data.path().to_path_buf();
    let server = Server::start(&d, &["--poll-ms", "100"]);
    let c = client();
    let good = current(&d);
    wait_served(&c, &server.base_url, &good);

    let refused = |id: &str, what: &str| {
        let t = Instant::now();
        loop {
            let (_, h) = c.get_json(&format!("{}/healthz", server.base_url));
            if h["detail"]["last_refused"]["id"] == id {
                assert!(h["detail"]["last_refused"]["reason"].as_str().unwrap().contains(what), "{h}");
                break;
            }
            assert!(t.elapsed() < Duration::from_secs(30), "{id} was not refused: {h}");
            std::thread::sleep(Duration::from_millis(50));
        }
        let (_, v) = c.get_json(&format!("{}/api/laws/BGB/sections/823", server.base_url));
        assert_eq!(v["generation"]["id"], good.as_str(), "the old generation keeps serving");
        assert_eq!(v["section"]["label"], "§ 823");
    };

    // A flipped byte in the store.
    publish_damaged(&d, "20990101T000000000Z-flipbyte", |g| {
        let p = g.join("store.sqlite");
        let mut bytes = std::fs::read(&p).unwrap();
        let i = bytes.len() / 2;
        bytes[i] ^= 0x01;
        std::fs::write(&p, bytes).unwrap();
    });
    refused("20990101T000000000Z-flipbyte", "store.sqlite");
    // A truncated index file.
    publish_damaged(&d, "20990101T000000001Z-truncidx", |g| {
        let seg = std::fs::read_dir(g.join("laws"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .max_by_key(|p| p.metadata().unwrap().len())
            .unwrap();
        let f = std::fs::OpenOptions::new().write(true).open(&seg).unwrap();
        let len = f.metadata().unwrap().len();
        f.set_len(len / 2).unwrap();
    });
    refused("20990101T000000001Z-truncidx", "laws/");
    let metrics = c.get_text(&format!("{}/metrics", server.base_url));
    let line = metrics.lines().find(|l| l.starts_with("legal_generation_refusals_total_status")).unwrap();
    assert!(line.ends_with(" 2"), "{line}");
    // index verify says why, too.
    let out = legal_tests::procs::run_stage("index", &["--data-dir", d.to_str().unwrap(), "verify"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("refused"));
}

#[test]
fn one_changed_law_is_fetched_again_and_reaches_search() {
    let overlay = tempfile::tempdir().unwrap();
    let mirror = Mirror::start(vec![overlay.path().to_path_buf(), sample_gii()]);
    let data = tempfile::tempdir().unwrap();
    let d = data.path();
    let ds = d.to_str().unwrap();
    legal_tests::procs::build_statutes_generation(d, &mirror.base_url());
    let first = current(d);

    // The publisher changes the StGB: § 32 gets a new sentence.
    let xml = {
        let mut a = zip::ZipArchive::new(std::fs::File::open(sample_gii().join("stgb/xml.zip")).unwrap()).unwrap();
        let mut s = String::new();
        std::io::Read::read_to_string(&mut a.by_index(0).unwrap(), &mut s).unwrap();
        s
    };
    let changed =
        xml.replacen("handelt nicht rechtswidrig.</P>", "handelt nicht rechtswidrig. Zitronenfalterklausel.</P>", 1);
    assert_ne!(changed, xml);
    let zip_path: PathBuf = overlay.path().join("stgb/xml.zip");
    std::fs::create_dir_all(zip_path.parent().unwrap()).unwrap();
    {
        let mut z = zip::ZipWriter::new(std::fs::File::create(&zip_path).unwrap());
        z.start_file("BJNR001270871.xml", zip::write::SimpleFileOptions::default()).unwrap();
        z.write_all(changed.as_bytes()).unwrap();
        z.finish().unwrap();
    }
    let out = run_stage_ok(
        "ingest",
        &["--data-dir", ds, "--sources", "gii", "--gii-base-url", &mirror.base_url(), "--rate", "0"],
    );
    assert!(out.contains("fetched 1 changed, 0 unchanged, 19 not modified, 0 failed"), "{out}");
    let ex = run_stage_ok("extract", &["--data-dir", ds]);
    assert!(ex.contains("1 extracted, 19 unchanged"), "{ex}");
    run_stage_ok("resolve", &["--data-dir", ds]);
    let ix = run_stage_ok("index", &["--data-dir", ds]);
    assert!(ix.contains("published"), "{ix}");
    assert_ne!(current(d), first);
    let server = Server::start(d, &[]);
    let c = client();
    let (_, v) = c.get_json(&format!("{}/api/search/laws?q=Zitronenfalterklausel", server.base_url));
    assert_eq!(v["results"][0]["label"], "§ 32", "{v}");
    assert_eq!(v["results"][0]["law"]["code"], "StGB");
}

#[test]
fn a_shared_file_damaged_since_its_generation_was_verified_fails_the_next_build_instead_of_being_certified_again() {
    let data = sample_data_dir();
    let d = data.path().to_str().unwrap();
    let before = current(data.path());
    // One byte of the decision text pack flips; size, inode and mtime stay.
    let texts = data.path().join("generations").join(&before).join("texts");
    let pack = std::fs::read_dir(&texts).unwrap().next().unwrap().unwrap().path();
    let f = std::fs::OpenOptions::new().read(true).write(true).open(&pack).unwrap();
    let mtime = f.metadata().unwrap().modified().unwrap();
    let mut byte = [0u8];
    std::os::unix::fs::FileExt::read_exact_at(&f, &mut byte, 10).unwrap();
    std::os::unix::fs::FileExt::write_all_at(&f, &[byte[0] ^ 0x20], 10).unwrap();
    f.set_modified(mtime).unwrap();
    drop(f);
    // A forced build links that pack again: it must refuse, naming the file, and publish nothing.
    let out = run_stage("index", &["--data-dir", d, "build", "--force"]);
    assert!(!out.status.success(), "the build certified a damaged file");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no longer matches its manifest") && err.contains("texts/"), "{err}");
    assert_eq!(current(data.path()), before);
    let published = gen_dirs(data.path()).into_iter().filter(|n| !n.starts_with('.')).count();
    assert_eq!(published, 1, "a generation was published beside {before}");
}
