//! Times `search_decisions` in-process over a data directory's current generation, one
//! thread, no HTTP: what a change to decision search costs, apart from transport and load.
//!   cargo run --release -p serve --example search_timing -- DATA_DIR [QUERY...]
//! (`NOEXPAND=1`: without the legal-register expansion.)
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(data) = args.next().map(std::path::PathBuf::from) else {
        eprintln!("usage: search_timing DATA_DIR [QUERY...] (e.g. a `make bench-scale` data dir)");
        std::process::exit(2);
    };
    let id = std::fs::read_to_string(data.join("CURRENT")).expect("DATA_DIR/CURRENT names no generation");
    let dir = data.join("generations").join(id.trim());
    let (g, _) = index::Generation::open_stamped(&data, &dir).expect("the generation does not open");
    let mut queries: Vec<String> = args.collect();
    if queries.is_empty() {
        // The queries `make bench-scale` loads the server with.
        queries = ["Informationsfreiheit", "Betriebsgeheimnis", "Akteneinsicht Behörde", "Umweltinformation"]
            .map(String::from)
            .to_vec();
    }
    let expand = std::env::var("NOEXPAND").is_err();
    for q in &queries {
        let a: serve::contract::args::SearchDecisionsArgs =
            serde_json::from_value(serde_json::json!({"query": q, "expand_query": expand})).expect("arguments");
        let search = || serve::query::decision_search::search_decisions(&g, &a).expect("search_decisions");
        let first = search();
        let n = 30;
        let t = Instant::now();
        for _ in 0..n {
            search();
        }
        let floor = if first.total_is_floor { "at least " } else { "" };
        println!(
            "{q}: {:.2} ms per search, total {floor}{}",
            t.elapsed().as_secs_f64() * 1000.0 / n as f64,
            first.total
        );
    }
}
