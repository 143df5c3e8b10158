//! Throughput of decision normalisation: every HTML record of the decisions corpus (OLDP
//! dump lines whose content is HTML) normalised N times on one thread; prints MB/s of HTML
//! per core. Run in release: `cargo run --release -p extract --bin bench-normalise -- [N] [corpus]`.
//!
//! Besides wall time it reports the process's CPU time (Linux `/proc/self/stat`), because on a
//! shared machine wall time measures the neighbours too; "per core" uses CPU time when known.

use std::io::{BufRead, BufReader};
use std::time::Instant;

use extract::decisions::{normalise_oldp, parse_oldp_line};

/// User + system CPU seconds of this process (Linux; clock ticks of 1/100 s).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Runs `f`, returns (wall seconds, CPU seconds or wall when unknown).
fn timed(mut f: impl FnMut()) -> (f64, f64) {
    let c0 = cpu_seconds();
    let t = Instant::now();
    f();
    let wall = t.elapsed().as_secs_f64();
    let cpu = match (c0, cpu_seconds()) {
        (Some(a), Some(b)) if b > a => b - a,
        _ => wall,
    };
    (wall, cpu)
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(50);
    let path = args.next().unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data/decisions/corpus.oldp.jsonl.gz").to_string()
    });
    let f = std::fs::File::open(&path)?;
    let reader: Box<dyn BufRead> = if path.ends_with(".gz") {
        Box::new(BufReader::new(flate2::read::GzDecoder::new(f)))
    } else {
        Box::new(BufReader::new(f))
    };
    let mut recs = Vec::new();
    let mut all = Vec::new();
    let mut bytes = 0usize;
    let mut all_bytes = 0usize;
    for line in reader.lines() {
        let Ok(rec) = parse_oldp_line(&line?) else { continue };
        let c = rec.content.as_deref().unwrap_or("").trim_start();
        let html = c.starts_with('<') && !c.starts_with("<?xml") || c.starts_with("b'<");
        all_bytes += c.len();
        if html {
            bytes += c.len();
            recs.push(rec.clone());
        }
        all.push(rec);
    }
    // One warm-up round, then the timed ones.
    let mut out_chars = 0usize;
    for r in &recs {
        out_chars += normalise_oldp(r).map(|d| d.text.len()).unwrap_or(0);
    }
    let (wall, cpu) = timed(|| {
        for _ in 0..rounds {
            for r in &recs {
                std::hint::black_box(normalise_oldp(r).ok());
            }
        }
    });
    let mb = (bytes * rounds) as f64 / 1e6;
    println!(
        "html records: {}, {:.2} MB of HTML -> {:.2} MB of text; {rounds} rounds: wall {wall:.2} s, cpu {cpu:.2} s on 1 \
         thread: {:.1} MB/s of HTML per core (wall: {:.1})",
        recs.len(),
        bytes as f64 / 1e6,
        out_chars as f64 / 1e6,
        mb / cpu,
        mb / wall
    );
    // Every record (PDF text, markdown, XML too), for the reindex estimate.
    let (wall, cpu) = timed(|| {
        for _ in 0..rounds {
            for r in &all {
                std::hint::black_box(normalise_oldp(r).ok());
            }
        }
    });
    println!(
        "all records: {}, {:.2} MB of content; {:.1} MB/s per core, {:.0} records/s per core (wall: {:.0} records/s)",
        all.len(),
        all_bytes as f64 / 1e6,
        (all_bytes * rounds) as f64 / 1e6 / cpu,
        (all.len() * rounds) as f64 / cpu,
        (all.len() * rounds) as f64 / wall
    );
    Ok(())
}
