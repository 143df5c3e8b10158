//! Times `search_decisions` (with `LAWS=1`: `search_laws`) in-process over a data directory's
//! current generation, one thread, no HTTP: what a change to search costs, apart from transport
//! and load.
//!   cargo run --release -p serve --example search_timing -- DATA_DIR [QUERY... | QUERIES.jsonl]
//! (`REPS=N`: each query searched N times, 30 by default, e.g. many more under `perf record`;
//! `NOEXPAND=1`: without the legal-register expansion; `SORT=date` or `SORT=most_cited`:
//! decisions in that order; a `.jsonl` argument reads each line's `query`, e.g.
//! `../shared/benchmarks/lay-dev.jsonl`.)
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(data) = args.next().map(std::path::PathBuf::from) else {
        eprintln!("usage: search_timing DATA_DIR [QUERY... | QUERIES.jsonl] (e.g. a `make bench-scale` data dir)");
        std::process::exit(2);
    };
    let id = std::fs::read_to_string(data.join("CURRENT")).expect("DATA_DIR/CURRENT names no generation");
    let dir = data.join("generations").join(id.trim());
    let (g, _) = index::Generation::open_stamped(&data, &dir).expect("the generation does not open");
    let mut queries: Vec<String> = Vec::new();
    for arg in args {
        if arg.ends_with(".jsonl") {
            let lines = std::fs::read_to_string(&arg).expect("the queries file is not readable");
            for line in lines.lines().filter(|l| !l.trim().is_empty()) {
                let v: serde_json::Value = serde_json::from_str(line).expect("a line is not JSON");
                queries.push(v["query"].as_str().expect("a line has no query").to_string());
            }
        } else {
            queries.push(arg);
        }
    }
    if queries.is_empty() {
        // The queries `make bench-scale` loads the server with.
        queries = ["Informationsfreiheit", "Betriebsgeheimnis", "Akteneinsicht Behörde", "Umweltinformation"]
            .map(String::from)
            .to_vec();
    }
    let expand = std::env::var("NOEXPAND").is_err();
    let laws = std::env::var("LAWS").is_ok();
    let mut all = 0.0;
    let g = &g;
    for q in &queries {
        let mut args = serde_json::json!({"query": q, "expand_query": expand});
        if let Ok(sort) = std::env::var("SORT") {
            args["sort"] = serde_json::Value::String(sort);
        }
        // One search: its total, and whether it is a floor.
        let search: Box<dyn Fn() -> (usize, bool)> = if laws {
            let a: serve::contract::args::SearchLawsArgs = serde_json::from_value(args).expect("arguments");
            Box::new(move || {
                let r = serve::query::law_search::search_laws(g, &a).expect("search_laws");
                (r.total_matching_sections, false)
            })
        } else {
            let a: serve::contract::args::SearchDecisionsArgs = serde_json::from_value(args).expect("arguments");
            Box::new(move || {
                let r = serve::query::decision_search::search_decisions(g, &a).expect("search_decisions");
                (r.total, r.total_is_floor)
            })
        };
        let (total, is_floor) = search();
        let n: usize = std::env::var("REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(30);
        let t = Instant::now();
        for _ in 0..n {
            search();
        }
        let ms = t.elapsed().as_secs_f64() * 1000.0 / n as f64;
        all += ms;
        let floor = if is_floor { "at least " } else { "" };
        println!("{q}: {ms:.2} ms per search, total {floor}{total}");
    }
    println!("mean over {} queries: {:.3} ms per search", queries.len(), all / queries.len() as f64);
}
