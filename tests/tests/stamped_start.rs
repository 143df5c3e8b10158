//! Serve starts at once on a generation its build verified (the verification stamp), and
//! still never keeps serving bytes that do not match the manifest: the background re-hash
//! finds a changed byte even when size, inode and modification time were kept, withdraws the
//! generation (a refusal on `/healthz`, readiness lost) and removes the stamp, so the next
//! attempt hashes in full and refuses it.

use std::io::{Read, Seek, SeekFrom, Write};
use std::time::{Duration, Instant};

use legal_tests::http::Client;
use legal_tests::procs::Server;
use legal_tests::{current_id, sample_data_dir};
use serde_json::Value;

#[test]
fn a_stamped_generation_is_served_at_once_and_withdrawn_when_the_background_rehash_finds_a_changed_byte() {
    let data = sample_data_dir();
    let id = current_id(data.path());
    let stamp = data.path().join("verified").join(format!("{id}.json"));
    assert!(stamp.is_file(), "index wrote no verification stamp for {id}");

    // One byte in the middle of the store changes; size, inode and mtime are kept.
    let store = data.path().join("generations").join(&id).join("store.sqlite");
    let mtime = std::fs::metadata(&store).unwrap().modified().unwrap();
    let mut f = std::fs::OpenOptions::new().read(true).write(true).open(&store).unwrap();
    let middle = f.metadata().unwrap().len() / 2;
    let mut b = [0u8; 1];
    f.seek(SeekFrom::Start(middle)).unwrap();
    f.read_exact(&mut b).unwrap();
    f.seek(SeekFrom::Start(middle)).unwrap();
    f.write_all(&[b[0] ^ 0x5a]).unwrap();
    f.set_modified(mtime).unwrap();
    drop(f);

    // The stamp still matches, so the server opens the generation without hashing first...
    let server = Server::start(data.path(), &[]);
    let client = Client::new();
    // ...and the background re-hash withdraws it.
    let deadline = Instant::now() + Duration::from_secs(30);
    let health = loop {
        let (_, body) = client.get(&format!("{}/healthz", server.base_url));
        let h: Value = serde_json::from_str(&body).unwrap();
        if h["detail"]["last_refused"]["id"] == Value::String(id.clone()) {
            break h;
        }
        assert!(Instant::now() < deadline, "the changed byte was not found: {h}");
        std::thread::sleep(Duration::from_millis(100));
    };
    let reason = health["detail"]["last_refused"]["reason"].as_str().unwrap();
    assert!(reason.contains("store.sqlite") && reason.contains("sha256"), "{health}");
    assert!(health["detail"]["generation"].is_null(), "the generation is still served: {health}");
    let rehash = &health["detail"]["background_verification"];
    assert_eq!(
        (rehash["generation"].as_str(), rehash["state"].as_str()),
        (Some(id.as_str()), Some("failed")),
        "{health}"
    );
    let (status, _) = client.get(&format!("{}/readyz", server.base_url));
    assert_eq!(status, 503, "a withdrawn generation must not leave the server ready");
    assert!(!stamp.exists(), "the stamp of a generation that failed verification was kept");
}

#[test]
fn without_a_stamp_the_generation_is_hashed_before_it_is_served_and_stamped_for_next_time() {
    let data = sample_data_dir();
    let id = current_id(data.path());
    let stamp = data.path().join("verified").join(format!("{id}.json"));
    std::fs::remove_file(&stamp).unwrap();
    let server = Server::start(data.path(), &[]);
    let (status, body) = Client::new().get(&format!("{}/readyz", server.base_url));
    assert_eq!(status, 200, "{body}");
    assert!(stamp.is_file(), "a full verification wrote no stamp");
}

/// `/healthz` says how the background re-hash of a stamped generation stands, so an operator (and
/// `make bench-scale`, before it measures) can tell when every served byte was hashed again.
#[test]
fn healthz_reports_the_background_rehash_of_a_stamped_generation_until_it_is_verified() {
    let data = sample_data_dir();
    let id = current_id(data.path());
    let server = Server::start(data.path(), &[]);
    let client = Client::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    let rehash = loop {
        let (_, body) = client.get(&format!("{}/healthz", server.base_url));
        let h: Value = serde_json::from_str(&body).unwrap();
        let r = h["detail"]["background_verification"].clone();
        assert_eq!(r["generation"].as_str(), Some(id.as_str()), "{h}");
        match r["state"].as_str() {
            Some("hashing") => assert!(r["seconds"].is_null(), "{h}"),
            Some("verified") => break r,
            _ => panic!("unexpected background verification: {h}"),
        }
        assert!(Instant::now() < deadline, "the re-hash did not finish: {h}");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(rehash["seconds"].as_f64().is_some_and(|s| s >= 0.0), "{rehash}");
    assert!(client.get(&format!("{}/readyz", server.base_url)).0 == 200);
}
