//! `predict-citations`: runs the citation scanner over every text of a gold file (the JSONL format
//! of `../shared/benchmarks/`) and writes predictions in the scorer's format, in the span
//! convention of that gold set. Prints the throughput in MB/s of plain text (UTF-8 bytes), one
//! core, only the `extract` calls timed, best of `--repeat` passes.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Parser, ValueEnum};
use extract::citations::spans::{Convention, spans};
use extract::citations::{LawVocabulary, extract};

#[derive(Clone, Copy, ValueEnum)]
enum Conv {
    Refex,
    Ler,
}

#[derive(Parser)]
#[command(about = "Write citation predictions for a gold JSONL file in the scorer's format")]
struct Args {
    /// Gold file: one JSON object per line with `id` and `text`.
    #[arg(long)]
    gold: PathBuf,
    /// Span convention of the gold set.
    #[arg(long, value_enum)]
    convention: Conv,
    /// Where to write the predictions (JSONL: `id`, `spans`).
    #[arg(long)]
    out: PathBuf,
    /// Also write the full structured extraction of every text here (JSONL: `id`, `extraction`).
    #[arg(long)]
    extractions: Option<PathBuf>,
    /// Timing passes over all texts (the best is reported).
    #[arg(long, default_value_t = 5)]
    repeat: usize,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let conv = match args.convention {
        Conv::Refex => Convention::Refex,
        Conv::Ler => Convention::Ler,
    };
    let f = std::fs::File::open(&args.gold).with_context(|| format!("open {}", args.gold.display()))?;
    let mut docs: Vec<(String, String)> = Vec::new();
    for line in BufReader::new(f).lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(&line).context("gold line is not JSON")?;
        let id = v["id"].as_str().unwrap_or_default().to_string();
        let text = v["text"].as_str().unwrap_or_default().to_string();
        docs.push((id, text));
    }
    let vocab = LawVocabulary::shipped();
    let bytes: usize = docs.iter().map(|(_, t)| t.len()).sum();
    let mut best = f64::INFINITY;
    let mut found = 0usize;
    let cpu0 = thread_cpu_seconds();
    for _ in 0..args.repeat.max(1) {
        let t0 = Instant::now();
        found = 0;
        for (_, text) in &docs {
            let ex = extract(text, vocab);
            found += ex.laws.len() + ex.cases.len() + ex.law_names.len();
        }
        best = best.min(t0.elapsed().as_secs_f64());
    }
    // CPU time of this thread over all passes: a per-core figure that other processes on a busy
    // machine do not distort (wall time includes waiting for the core).
    let cpu = cpu0.and_then(|a| thread_cpu_seconds().map(|b| (b - a) / args.repeat.max(1) as f64));
    let mut w =
        BufWriter::new(std::fs::File::create(&args.out).with_context(|| format!("create {}", args.out.display()))?);
    let mut full = match &args.extractions {
        Some(p) => Some(BufWriter::new(std::fs::File::create(p).with_context(|| format!("create {}", p.display()))?)),
        None => None,
    };
    for (id, text) in &docs {
        let ex = extract(text, vocab);
        let sp = spans(text, &ex, conv);
        let line = serde_json::json!({ "id": id, "spans": sp });
        writeln!(w, "{line}")?;
        if let Some(f) = full.as_mut() {
            writeln!(f, "{}", serde_json::json!({ "id": id, "extraction": ex }))?;
        }
    }
    w.flush()?;
    if let Some(mut f) = full {
        f.flush()?;
    }
    let cpu_figure = match cpu {
        Some(c) if c > 0.0 => format!("; CPU time {:.4} s/pass = {:.1} MB/s per core", c, bytes as f64 / c / 1e6),
        _ => String::new(),
    };
    println!(
        "{}: {} texts, {} bytes, {} citations; wall best of {}: {:.4} s = {:.1} MB/s (one thread){}",
        args.gold.display(),
        docs.len(),
        bytes,
        found,
        args.repeat.max(1),
        best,
        bytes as f64 / best / 1e6,
        cpu_figure
    );
    Ok(())
}

/// User + system CPU seconds of the calling thread (Linux `/proc/thread-self/stat`, 100 Hz ticks).
fn thread_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // Fields after the `(comm)`; utime and stime are fields 14 and 15 of the whole line.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}
