//! Bounded work per request, over real loopback HTTP against the `serve` binary:
//! - an answer over the response budget loses whole rows from the end of its lists, says so
//!   (`payload_truncated`, `truncation`, `guidance`) and stays pageable;
//! - a call answered `timeout` stops: the server does not keep burning CPU on it;
//! - scanning calls run at most `--max-concurrent-scans` at once, the others wait their turn,
//!   and look-ups by key do not wait behind them.

use std::time::{Duration, Instant};

use legal_tests::http::Client;
use legal_tests::procs::Server;
use serde_json::{Value, json};

fn call(c: &Client, server: &Server, tool: &str, args: &Value) -> (usize, Value) {
    let url = format!("{}/api/tools/{tool}", server.base_url);
    let (status, body) = c.post(&url, "application/json", args.to_string());
    let v: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{tool}: not JSON ({e}): {body}"));
    assert_eq!(status, 200, "{tool} {args}: {v}");
    (body.len(), v)
}

/// A text with many distinct citations, so `check_citations` has many findings and much work.
fn citation_heavy_text(chars: usize) -> String {
    let mut t = String::new();
    for i in 1.. {
        let sentence = format!(
            "Der Anspruch folgt aus § {i} BGB und § {} Abs. 1 ZPO; vgl. BVerwG, Urteil vom 29.10.2009 - 7 C {i}.08 -, sowie Art. {} GG. ",
            i + 1,
            i % 140 + 1
        );
        if t.chars().count() + sentence.chars().count() > chars {
            break;
        }
        t.push_str(&sentence);
    }
    t
}

#[test]
fn an_answer_over_the_budget_loses_whole_rows_from_the_end_and_says_so() {
    let data = legal_tests::sample_data_dir();
    let budget = 6_000;
    let small = Server::start(data.path(), &["--max-response-bytes", &budget.to_string()]);
    let large = Server::start(data.path(), &[]);
    let c = Client::new();
    let cases = [
        ("search_laws", json!({"query": "Gesetz", "limit": 50}), "/results"),
        ("check_citations", json!({"text": citation_heavy_text(8_000)}), "/findings"),
        ("get_law", json!({"book": "BGB", "include": ["toc"], "toc_limit": 500}), "/toc/entries"),
    ];
    for (tool, args, list) in cases {
        let (full_len, full) = call(&c, &large, tool, &args);
        assert_eq!(full["payload_truncated"], json!(false), "{tool}: within the default budget");
        assert!(full_len > budget, "{tool}: the full answer ({full_len} bytes) must exceed the small budget");
        let full_rows = full.pointer(list).and_then(Value::as_array).unwrap();

        let (cut_len, cut) = call(&c, &small, tool, &args);
        assert!(cut_len <= budget, "{tool}: {cut_len} bytes over a budget of {budget}");
        assert_eq!(cut["payload_truncated"], json!(true), "{tool}: {cut}");
        assert_eq!(cut["truncation"]["fits_budget"], json!(true));
        assert!(cut["guidance"].as_str().unwrap().contains("limit"), "{tool}: guidance names the remedy");
        let rows = cut.pointer(list).and_then(Value::as_array).unwrap();
        let dropped = cut["truncation"]["dropped"][list].as_u64().unwrap() as usize;
        assert!(dropped > 0, "{tool}: rows were dropped");
        assert_eq!(rows.len() + dropped, full_rows.len(), "{tool}: kept + dropped = all rows");
        assert_eq!(rows[..], full_rows[..rows.len()], "{tool}: the kept rows are the first rows, unchanged");
    }

    // A cut page pages on from the first dropped row: nothing is skipped.
    let (_, cut) = call(&c, &small, "get_law", &json!({"book": "BGB", "include": ["toc"], "toc_limit": 500}));
    let kept = cut["toc"]["entries"].as_array().unwrap().len();
    assert_eq!(cut["toc"]["next_offset"], json!(kept));
    assert_eq!(cut["toc"]["has_more"], json!(true));
    let (_, full) = call(&c, &large, "get_law", &json!({"book": "BGB", "include": ["toc"], "toc_limit": 500}));
    let (_, next) =
        call(&c, &large, "get_law", &json!({"book": "BGB", "include": ["toc"], "toc_offset": kept, "toc_limit": 5}));
    assert_eq!(
        next["toc"]["entries"][0], full["toc"]["entries"][kept],
        "the next page starts at the first dropped row"
    );
}

/// CPU seconds (user + system) the process `pid` has used.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc stat");
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap();
    ticks / 100.0
}

#[test]
fn a_call_answered_timeout_stops_instead_of_burning_cpu() {
    let data = legal_tests::sample_data_dir();
    let text = citation_heavy_text(20_000);
    let args = json!({"text": text});
    let calls = 32;

    // What the work costs when it is allowed to finish.
    let patient = Server::start(data.path(), &["--tool-timeout-ms", "120000"]);
    let c = Client::new();
    call(&c, &patient, "check_citations", &args);
    let before = cpu_seconds(patient.child.id());
    let (_, done) = call(&c, &patient, "check_citations", &args);
    assert!(done["findings"].as_array().is_some_and(|f| !f.is_empty()));
    let one_call = cpu_seconds(patient.child.id()) - before;

    let hasty = Server::start(data.path(), &["--tool-timeout-ms", "1"]);
    let pid = hasty.child.id();
    let url = format!("{}/api/tools/check_citations", hasty.base_url);
    let answers: Vec<Value> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..calls)
            .map(|_| {
                let (url, body) = (url.clone(), args.to_string());
                s.spawn(move || {
                    let (_, b) = Client::new().post(&url, "application/json", body);
                    serde_json::from_str::<Value>(&b).expect("JSON")
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for a in &answers {
        assert_eq!(a["error_code"], "timeout", "{a}");
    }
    let answered = cpu_seconds(pid);
    // Wait until the server is quiet: under 20 ms of CPU in a 250 ms window.
    let started = Instant::now();
    let mut last = answered;
    loop {
        std::thread::sleep(Duration::from_millis(250));
        let now = cpu_seconds(pid);
        if now - last < 0.02 || started.elapsed() > Duration::from_secs(30) {
            last = now;
            break;
        }
        last = now;
    }
    let after_answers = last - answered;
    eprintln!(
        "one full call: {one_call:.2} s CPU; {calls} timed-out calls burned {after_answers:.2} s after their answers (they would take {:.2} s to finish)",
        one_call * calls as f64
    );
    assert!(
        after_answers < 0.25 * one_call * calls as f64,
        "{after_answers:.2} s of CPU after {calls} timeout answers: the calls went on (one call costs {one_call:.2} s)"
    );
}

/// A gauge or counter of the server's `/metrics`.
fn metric(c: &Client, server: &Server, name: &str) -> f64 {
    let (_, text) = c.get(&format!("{}/metrics", server.base_url));
    text.lines()
        .find_map(|l| l.strip_prefix(name).and_then(|v| v.strip_prefix(' ')).and_then(|v| v.trim().parse().ok()))
        .unwrap_or_else(|| panic!("{name} not in /metrics:\n{text}"))
}

#[test]
fn scans_run_at_most_the_configured_number_at_once_and_lookups_do_not_wait_behind_them() {
    let data = legal_tests::sample_data_dir();
    let server = Server::start(data.path(), &["--max-concurrent-scans", "2", "--tool-timeout-ms", "120000"]);
    let c = Client::new();
    let scan = json!({"text": citation_heavy_text(20_000)});
    let scans = 12;
    let url = format!("{}/api/tools/check_citations", server.base_url);
    let lookup_url = format!("{}/api/laws/BGB/sections/823", server.base_url);
    let (scan_ends, lookup_end) = std::thread::scope(|s| {
        let handles: Vec<_> = (0..scans)
            .map(|_| {
                let (url, body) = (url.clone(), scan.to_string());
                s.spawn(move || {
                    let (status, b) = Client::new().post(&url, "application/json", body);
                    assert_eq!(status, 200, "{b}");
                    Instant::now()
                })
            })
            .collect();
        // Once scans wait, a look-up by key is answered without waiting for them.
        let since = Instant::now();
        while metric(&c, &server, "legal_scan_waits_total") < 1.0 {
            assert!(since.elapsed() < Duration::from_secs(30), "no scan waited for its turn");
            std::thread::sleep(Duration::from_millis(2));
        }
        let (status, body) = Client::new().get(&lookup_url);
        assert_eq!(status, 200, "{body}");
        let lookup_end = Instant::now();
        (handles.into_iter().map(|h| h.join().unwrap()).collect::<Vec<_>>(), lookup_end)
    });
    let peak = metric(&c, &server, "legal_scans_running_peak");
    let waited = metric(&c, &server, "legal_scan_waits_total");
    assert!((1.0..=2.0).contains(&peak), "{peak} scans ran at once; at most 2 may");
    assert!((1.0..=(scans - 1) as f64).contains(&waited), "{waited} of {scans} scans waited");
    assert_eq!(metric(&c, &server, "legal_scans_running"), 0.0, "every scan has ended");
    let last_scan = scan_ends.iter().max().unwrap();
    assert!(
        lookup_end < *last_scan,
        "the look-up was answered after the last queued scan ended: it waited behind them"
    );
}
