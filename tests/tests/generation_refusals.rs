//! What `CURRENT` may name, against the real `serve` binary: a copied generation (manifest id ≠
//! directory name), a garbage or symlinked `CURRENT`, a symlinked generation directory. Each is
//! a logged refusal on `/healthz` and in `/metrics`, the served generation stays, a refused id
//! is retried with backoff (not five times a second) and at once on SIGHUP.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use legal_tests::Mirror;
use legal_tests::copy_dir;
use legal_tests::http::get_text;
use legal_tests::procs::{Server, build_statutes_generation};
use serde_json::Value;

fn health(server: &Server) -> Value {
    serde_json::from_str(&get_text(&format!("{}/healthz", server.base_url))).expect("healthz JSON")
}

fn set_current(data: &Path, id: &str) {
    let tmp = data.join("CURRENT.tmp");
    std::fs::write(&tmp, format!("{id}\n")).unwrap();
    std::fs::rename(&tmp, data.join("CURRENT")).unwrap();
}

/// Waits until `cond` holds on `/healthz` (at most 10 s).
fn wait_for(server: &Server, what: &str, cond: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let h = health(server);
        if cond(&h) {
            return h;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}: {h}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_bad_current_is_a_visible_refusal_and_a_refused_id_backs_off_and_retries_on_sighup() {
    let data = tempfile::tempdir().unwrap();
    let mirror = Mirror::start(vec![legal_tests::sample_gii()]);
    build_statutes_generation(data.path(), &mirror.base_url());
    let good = std::fs::read_to_string(data.path().join("CURRENT")).unwrap().trim().to_string();
    let server = Server::start(data.path(), &["--poll-ms", "100"]);
    let served = |h: &Value| h["detail"]["generation"]["id"].as_str().map(str::to_string);
    assert_eq!(served(&health(&server)).as_deref(), Some(good.as_str()));
    let gens = data.path().join("generations");

    // A generation copied under another name: refused without hashing it again and again.
    let copy = format!("{good}-copy");
    copy_dir(&gens.join(&good), &gens.join(&copy));
    set_current(data.path(), &copy);
    let h = wait_for(&server, "the copy's refusal", |h| h["detail"]["last_refused"]["id"] == copy.as_str());
    assert!(h["detail"]["last_refused"]["reason"].as_str().unwrap().contains("differs from its directory name"), "{h}");
    let first = h["detail"]["refusals"].as_u64().unwrap();
    std::thread::sleep(Duration::from_secs(3));
    let h = health(&server);
    let after = h["detail"]["refusals"].as_u64().unwrap();
    // Polled every 100 ms, i.e. 30 checks: with backoff (1 s, 2 s, …) at most 3 more attempts.
    assert!(after - first <= 3, "refused id retried {} times in 3 s: {h}", after - first);
    assert_eq!(served(&h).as_deref(), Some(good.as_str()), "the good generation stays served");
    assert!(h["detail"]["last_refused"]["retry_in_seconds"].is_u64(), "{h}");
    // SIGHUP retries it at once, whatever the backoff says.
    std::thread::sleep(Duration::from_millis(300));
    let before_hup = health(&server)["detail"]["refusals"].as_u64().unwrap();
    let status = Command::new("kill").args(["-HUP", &server.child.id().to_string()]).status().unwrap();
    assert!(status.success());
    wait_for(&server, "a retry on SIGHUP", |h| h["detail"]["refusals"].as_u64().unwrap() > before_hup);

    // Garbage in CURRENT: a refusal with its kind on /healthz and in /metrics.
    std::fs::write(data.path().join("CURRENT"), "../../etc/passwd\n").unwrap();
    let h = wait_for(&server, "garbage refused", |h| h["detail"]["current"]["status"] == "refused");
    assert_eq!(h["detail"]["current"]["problem"], "current_garbage", "{h}");
    assert_eq!(served(&h).as_deref(), Some(good.as_str()));
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let m = get_text(&format!("{}/metrics", server.base_url));
        if m.lines().any(|l| l.contains("transport=\"current\"") && l.contains("current_garbage")) {
            break;
        }
        assert!(Instant::now() < deadline, "no current_garbage metric:\n{m}");
        std::thread::sleep(Duration::from_millis(200));
    }

    // A symlinked CURRENT is not followed, even when it points at a good one.
    let elsewhere = data.path().join("CURRENT.elsewhere");
    std::fs::write(&elsewhere, format!("{good}\n")).unwrap();
    std::fs::remove_file(data.path().join("CURRENT")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, data.path().join("CURRENT")).unwrap();
    let h = wait_for(&server, "symlink refused", |h| h["detail"]["current"]["problem"] == "current_is_symlink");
    assert_eq!(served(&h).as_deref(), Some(good.as_str()));

    // A symlinked generation directory is not followed either.
    let link = format!("{good}-link");
    std::os::unix::fs::symlink(gens.join(&good), gens.join(&link)).unwrap();
    std::fs::remove_file(data.path().join("CURRENT")).unwrap();
    set_current(data.path(), &link);
    let h = wait_for(&server, "symlinked generation refused", |h| h["detail"]["last_refused"]["id"] == link.as_str());
    assert!(h["detail"]["last_refused"]["reason"].as_str().unwrap().contains("symbolic link"), "{h}");
    assert_eq!(h["detail"]["current"]["status"], "ok", "CURRENT itself is fine now: {h}");

    // Back to the good id: nothing to swap, no problem left.
    set_current(data.path(), &good);
    let h = wait_for(&server, "ok again", |h| h["detail"]["current"]["status"] == "ok");
    assert_eq!(served(&h).as_deref(), Some(good.as_str()));
}
