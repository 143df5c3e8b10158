//! The scale path through the real binaries, on corpora made by `gen-corpus` from the shared
//! records: the generator is reproducible and its citations resolve (the CI smoke test of
//! `make bench-scale`), and the stages that read every decision stream them: at N = 50,000
//! their peak memory stays far below what holding the corpus would take.

use std::io::Read;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use legal_tests::procs::{bin, ingest_statutes_and_dump, run_stage_ok};
use legal_tests::{Mirror, sample_gii, shared_corpus_dump};
use serde_json::Value;

fn generate(out: &Path, n: u64, seed: u64, change: f64) -> String {
    let o = Command::new(bin("gen-corpus"))
        .args(["--n", &n.to_string(), "--seed", &seed.to_string(), "--change-fraction", &change.to_string()])
        .arg("--out")
        .arg(out)
        .output()
        .expect("run gen-corpus");
    assert!(o.status.success(), "gen-corpus failed: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn lines(p: &Path) -> Vec<String> {
    let mut s = String::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(p).unwrap()).read_to_string(&mut s).unwrap();
    s.lines().map(str::to_string).collect()
}

fn json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

#[test]
fn the_generated_corpus_is_reproducible_and_its_citations_resolve() {
    if shared_corpus_dump().is_none() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let (a, b, c) = (work.path().join("a.jsonl.gz"), work.path().join("b.jsonl.gz"), work.path().join("c.jsonl.gz"));
    generate(&a, 300, 42, 0.0);
    generate(&b, 300, 42, 0.0);
    assert!(std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(), "the same seed gave two corpora");
    let said = generate(&c, 300, 42, 0.05);
    let announced: usize = said.split(", ").nth(1).and_then(|s| s.split_whitespace().next()).unwrap().parse().unwrap();
    let differing = lines(&a).iter().zip(lines(&c)).filter(|(x, y)| *x != y).count();
    assert_eq!(differing, announced, "{said}");
    assert!(announced > 0);

    let mirror = Mirror::start(vec![sample_gii()]);
    let data = work.path().join("data");
    ingest_statutes_and_dump(&data, &mirror.base_url(), &a);
    let d = data.to_str().unwrap();
    for stage in ["extract", "resolve", "index"] {
        run_stage_ok(stage, &["--data-dir", d]);
    }
    let extracted = json(&data.join("work/extract/decisions/current.json"));
    assert_eq!(extracted["decisions"], 300, "{extracted}");
    let cites = json(&data.join("work/resolve/citations.json"));
    let resolved = cites["by_status"]["resolved"].as_u64().unwrap();
    assert!(resolved >= 3 * 300, "{resolved} resolved case citations for 300 decisions: {cites}");
    assert!(cites["withheld"].as_object().unwrap().is_empty(), "generated citations were withheld: {cites}");
}

/// Runs a stage binary and returns its peak resident memory in MiB (VmHWM, read until it exits).
fn peak_rss_mib(stage: &str, data: &Path) -> u64 {
    let mut child = Command::new(bin(stage)).arg("--data-dir").arg(data).env("RUST_LOG", "warn").spawn().unwrap();
    let status = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0u64;
    loop {
        if let Ok(s) = std::fs::read_to_string(&status)
            && let Some(kib) = s
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
        {
            peak_kib = peak_kib.max(kib);
        }
        if let Some(exit) = child.try_wait().unwrap() {
            assert!(exit.success(), "{stage} failed: {exit:?}");
            return peak_kib / 1024;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn extract_and_resolve_of_50k_decisions_stay_in_bounded_memory() {
    if shared_corpus_dump().is_none() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let dump = work.path().join("corpus.jsonl.gz");
    generate(&dump, 50_000, 7, 0.0);
    let mirror = Mirror::start(vec![sample_gii()]);
    let data = work.path().join("data");
    ingest_statutes_and_dump(&data, &mirror.base_url(), &dump);
    // Run through the stages (extract first: resolve reads its output).
    let extract_mib = peak_rss_mib("extract", &data);
    let resolve_mib = peak_rss_mib("resolve", &data);
    let corpus_mib =
        extract::decision_stage::open_decisions(&data).unwrap().parts().iter().map(|p| p.bytes).sum::<u64>() >> 20;
    // The corpus is about 1.4 GB of decisions; a stage that held it (as every stage did before
    // they streamed: about 83 KB of memory per decision) would need several GiB. A streaming
    // stage holds one batch of texts plus a few hundred bytes per decision.
    assert!(corpus_mib > 1_000, "the corpus is too small to tell: {corpus_mib} MiB");
    for (stage, mib) in [("extract", extract_mib), ("resolve", resolve_mib)] {
        assert!(mib < corpus_mib / 3, "{stage} peaked at {mib} MiB for a {corpus_mib} MiB corpus");
    }
    eprintln!("peak RSS at 50,000 decisions ({corpus_mib} MiB): extract {extract_mib} MiB, resolve {resolve_mib} MiB");
}
