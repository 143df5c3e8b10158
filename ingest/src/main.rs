//! `ingest`: fetch sources into the data directory. One summary line per source; exit code
//! 0 (all fetched), 3 (some documents failed, rest in place), 2 (source unreachable), 1 (error).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use ingest::fetch::{Fetcher, Politeness};

#[derive(Parser)]
#[command(about = "Fetch federal statutes (gesetze-im-internet.de) into the data directory")]
struct Args {
    /// Data directory (catalog.sqlite, raw/, work/, generations/).
    #[arg(long, default_value = "data", env = "LEGAL_DATA_DIR")]
    data_dir: PathBuf,
    /// Base URL of gesetze-im-internet.de or of a mirror in the same layout.
    #[arg(long, default_value = ingest::gii::DEFAULT_BASE_URL, env = "GII_BASE_URL")]
    gii_base_url: String,
    /// Requests per second over all workers (0 = unlimited, for loopback mirrors only).
    #[arg(long, default_value_t = 2.0)]
    rate: f64,
    /// Parallel requests.
    #[arg(long, default_value_t = 4)]
    concurrency: usize,
    /// Retries after the first attempt, on timeouts and 5xx.
    #[arg(long, default_value_t = 3)]
    retries: u32,
    /// First retry backoff in milliseconds (doubled per retry).
    #[arg(long, default_value_t = 500)]
    backoff_ms: u64,
    /// Per-request timeout in seconds.
    #[arg(long, default_value_t = 60)]
    timeout_secs: u64,
    /// Fetch only the first N laws of the toc (for trials).
    #[arg(long)]
    limit: Option<usize>,
}

fn main() {
    ingest::init_tracing();
    let args = Args::parse();
    let politeness = Politeness {
        rate_per_second: args.rate,
        retries: args.retries,
        backoff: Duration::from_millis(args.backoff_ms),
        timeout: Duration::from_secs(args.timeout_secs),
        concurrency: args.concurrency,
    };
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let code = rt.block_on(async {
        let fetcher = match Fetcher::new(politeness) {
            Ok(f) => Arc::new(f),
            Err(e) => {
                eprintln!("ingest: cannot build HTTP client: {e:#}");
                return 1;
            }
        };
        let started = std::time::Instant::now();
        match ingest::gii::crawl(&args.data_dir, &args.gii_base_url, fetcher, args.limit).await {
            Ok(s) => {
                println!("{} in {:.1} s", s.line(), started.elapsed().as_secs_f64());
                s.exit_code()
            }
            Err(e) => {
                eprintln!("ingest gii: failed: {e:#}");
                1
            }
        }
    });
    std::process::exit(code);
}
