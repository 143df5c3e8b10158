//! Throughput of decision normalisation: every HTML record of the decisions corpus (OLDP
//! dump lines whose content is HTML) normalised N times on one thread; prints MB/s of HTML
//! per core. Run in release: `cargo run --release -p extract --bin bench-normalise -- [N] [corpus]`.

use std::io::{BufRead, BufReader};
use std::time::Instant;

use extract::decisions::{normalise_oldp, parse_oldp_line};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(20);
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
    let mut bytes = 0usize;
    for line in reader.lines() {
        let Ok(rec) = parse_oldp_line(&line?) else { continue };
        let c = rec.content.as_deref().unwrap_or("").trim_start();
        let html = c.starts_with('<') && !c.starts_with("<?xml") || c.starts_with("b'<");
        if html {
            bytes += c.len();
            recs.push(rec);
        }
    }
    // One warm-up round, then the timed ones.
    let mut out_chars = 0usize;
    for r in &recs {
        out_chars += normalise_oldp(r).map(|d| d.text.len()).unwrap_or(0);
    }
    let t = Instant::now();
    for _ in 0..rounds {
        for r in &recs {
            std::hint::black_box(normalise_oldp(r).ok());
        }
    }
    let secs = t.elapsed().as_secs_f64();
    let mb = (bytes * rounds) as f64 / 1e6;
    println!(
        "html records: {}, {:.2} MB of HTML -> {:.2} MB of text; {rounds} rounds in {secs:.2} s on 1 thread: {:.1} MB/s of HTML per core",
        recs.len(),
        bytes as f64 / 1e6,
        out_chars as f64 / 1e6,
        mb / secs
    );
    Ok(())
}
