//! `loadgen`: a bounded HTTP load generator for `make bench` (loopback targets only).
//! Reads request lines (`GET <url>` or `POST <url> <json>`) from a file, sends `--requests`
//! of them round-robin at `--concurrency`, checks each answer, and prints requests/s, p50, p99.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use clap::Parser;

#[derive(Parser)]
struct Args {
    /// File of request lines.
    #[arg(long)]
    spec: std::path::PathBuf,
    #[arg(long, default_value_t = 8)]
    concurrency: usize,
    #[arg(long, default_value_t = 2000)]
    requests: usize,
    /// Label printed with the figures.
    #[arg(long, default_value = "load")]
    label: String,
    /// Each answer must contain this string (e.g. a generation id prefix); counts failures otherwise.
    #[arg(long)]
    expect: Option<String>,
    /// Stop early once this file exists (a background stream that lasts as long as another run).
    #[arg(long)]
    stop_file: Option<std::path::PathBuf>,
    /// Sends `Authorization: Bearer <token>` with every request (the access layer's token path).
    #[arg(long)]
    bearer: Option<String>,
}

#[derive(Clone)]
enum Req {
    Get(String),
    Post(String, String),
}

fn loopback(url: &str) -> bool {
    url.starts_with("http://127.") || url.starts_with("http://localhost") || url.starts_with("http://[::1]")
}

fn main() {
    let a = Args::parse();
    let reqs: Vec<Req> = std::fs::read_to_string(&a.spec)
        .expect("spec file")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (m, rest) = l.split_once(' ').expect("METHOD URL");
            match m {
                "GET" => Req::Get(rest.trim().to_string()),
                "POST" => {
                    let (u, b) = rest.split_once(' ').expect("POST URL BODY");
                    Req::Post(u.to_string(), b.to_string())
                }
                _ => panic!("unknown method {m}"),
            }
        })
        .collect();
    if reqs.is_empty() {
        eprintln!("loadgen: {} holds no request; write one per line: `GET URL` or `POST URL BODY`", a.spec.display());
        std::process::exit(2);
    }
    for r in &reqs {
        let u = match r {
            Req::Get(u) | Req::Post(u, _) => u,
        };
        assert!(loopback(u), "loadgen only targets loopback addresses: {u}");
    }
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let (lat, failures, secs) = rt.block_on(async move {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut headers = reqwest::header::HeaderMap::new();
        if let Some(t) = &a.bearer {
            headers.insert(reqwest::header::AUTHORIZATION, format!("Bearer {t}").parse().expect("a header value"));
        }
        let client =
            reqwest::Client::builder().timeout(Duration::from_secs(30)).default_headers(headers).build().unwrap();
        let reqs = Arc::new(reqs);
        let next = Arc::new(AtomicUsize::new(0));
        let failures = Arc::new(AtomicUsize::new(0));
        let started = Instant::now();
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..a.concurrency {
            let (client, reqs, next, failures, expect, stop_file) =
                (client.clone(), reqs.clone(), next.clone(), failures.clone(), a.expect.clone(), a.stop_file.clone());
            let total = a.requests;
            set.spawn(async move {
                let mut lat = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= total || stop_file.as_ref().is_some_and(|f| f.exists()) {
                        break;
                    }
                    let t = Instant::now();
                    let resp = match &reqs[i % reqs.len()] {
                        Req::Get(u) => client.get(u).send().await,
                        Req::Post(u, b) => {
                            client
                                .post(u)
                                .header("content-type", "application/json")
                                .header("accept", "application/json, text/event-stream")
                                .header("mcp-protocol-version", "2025-11-25")
                                .body(b.clone())
                                .send()
                                .await
                        }
                    };
                    let ok = match resp {
                        Ok(r) if r.status().is_success() => match r.text().await {
                            Ok(body) => {
                                expect.as_ref().is_none_or(|e| body.contains(e.as_str()))
                                    && !body.contains("\"isError\":true")
                            }
                            Err(_) => false,
                        },
                        _ => false,
                    };
                    lat.push(t.elapsed().as_secs_f64());
                    if !ok {
                        failures.fetch_add(1, Ordering::Relaxed);
                    }
                }
                lat
            });
        }
        let mut all = Vec::new();
        while let Some(r) = set.join_next().await {
            all.extend(r.unwrap());
        }
        (all, failures.load(Ordering::Relaxed), started.elapsed().as_secs_f64())
    });
    let mut lat = lat;
    lat.sort_by(|x, y| x.partial_cmp(y).unwrap());
    let pct =
        |p: f64| lat.get(((lat.len() as f64 * p).ceil() as usize).saturating_sub(1)).copied().unwrap_or(0.0) * 1000.0;
    println!(
        "{}: {} requests at concurrency {} in {:.2} s: {:.0} req/s, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms, failures {}",
        a.label,
        lat.len(),
        a.concurrency,
        secs,
        lat.len() as f64 / secs,
        pct(0.50),
        pct(0.99),
        lat.last().copied().unwrap_or(0.0) * 1000.0,
        failures
    );
    if failures > 0 {
        std::process::exit(1);
    }
}
