//! `ingest`: fetch sources into the data directory. One summary line per source; exit code
//! 0 (all fetched), 3 (some documents failed, rest in place), 2 (source unreachable), 1 (error).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use ingest::fetch::{Fetcher, Politeness, SizeCaps};

#[derive(Parser)]
#[command(
    about = "Fetch federal statutes (gesetze-im-internet.de), federal decisions (rechtsprechung-im-internet.de) and Open Legal Data case dumps into the data directory"
)]
struct Args {
    /// Data directory (catalog.sqlite, raw/, work/, generations/).
    #[arg(long, default_value = "data", env = "LEGAL_DATA_DIR")]
    data_dir: PathBuf,
    /// Base URL of gesetze-im-internet.de or of a mirror in the same layout.
    #[arg(long, default_value = ingest::gii::DEFAULT_BASE_URL, env = "GII_BASE_URL")]
    gii_base_url: String,
    /// Base URL of rechtsprechung-im-internet.de or of a mirror in the same layout.
    #[arg(long, default_value = ingest::rii::DEFAULT_BASE_URL, env = "RII_BASE_URL")]
    rii_base_url: String,
    /// Sources to crawl (comma-separated): gii, rii. `--oldp-dump` adds Open Legal Data dumps.
    #[arg(long, value_delimiter = ',', default_value = "gii,rii")]
    sources: Vec<String>,
    /// An Open Legal Data case dump (JSON Lines, gzip or not): a path or a URL. Repeatable.
    #[arg(long, env = "OLDP_DUMP", value_delimiter = ' ')]
    oldp_dump: Vec<String>,
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
    /// Time for one attempt (headers and body) in seconds.
    #[arg(long, default_value_t = 60, env = "INGEST_TIMEOUT_SECS")]
    timeout_secs: u64,
    /// Time to open a connection, in seconds.
    #[arg(long, default_value_t = 10.0, env = "INGEST_CONNECT_TIMEOUT_SECS")]
    connect_timeout_secs: f64,
    /// A response that sends no byte for this long (headers or body) is stalled, in seconds.
    #[arg(long, default_value_t = 20.0, env = "INGEST_IDLE_TIMEOUT_SECS")]
    idle_timeout_secs: f64,
    /// All attempts of one document together (backoff and Retry-After waits included), in seconds.
    #[arg(long, default_value_t = 120.0, env = "INGEST_DOCUMENT_DEADLINE_SECS")]
    document_deadline_secs: f64,
    /// Longest Retry-After honoured, in seconds; a longer one ends that document with a problem.
    #[arg(long, default_value_t = 60.0, env = "INGEST_RETRY_AFTER_BUDGET_SECS")]
    retry_after_budget_secs: f64,
    /// Largest law zip or decision zip taken, in bytes (compressed, as downloaded).
    #[arg(long, default_value_t = ingest::fetch::SizeCaps::default().document_bytes, env = "INGEST_MAX_DOCUMENT_BYTES")]
    max_document_bytes: u64,
    /// Largest table of contents taken, in bytes.
    #[arg(long, default_value_t = ingest::fetch::SizeCaps::default().toc_bytes, env = "INGEST_MAX_TOC_BYTES")]
    max_toc_bytes: u64,
    /// Largest Open Legal Data dump taken, in bytes.
    #[arg(long, default_value_t = ingest::fetch::SizeCaps::default().dump_bytes, env = "INGEST_MAX_DUMP_BYTES")]
    max_dump_bytes: u64,
    /// Fetch only the first N documents of each toc (for trials).
    #[arg(long)]
    limit: Option<usize>,
    /// Keep raw copies that a later good copy of the same document replaced (by default they
    /// are removed after the run: nothing reads them).
    #[arg(long)]
    keep_superseded_raw: bool,
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
        connect_timeout: Duration::from_secs_f64(args.connect_timeout_secs),
        idle_timeout: Duration::from_secs_f64(args.idle_timeout_secs),
        document_deadline: Duration::from_secs_f64(args.document_deadline_secs),
        retry_after_budget: Duration::from_secs_f64(args.retry_after_budget_secs),
        ..Politeness::default()
    };
    let caps = SizeCaps {
        toc_bytes: args.max_toc_bytes,
        document_bytes: args.max_document_bytes,
        dump_bytes: args.max_dump_bytes,
    };
    // Held until the run ends: no removal of superseded copies runs meanwhile.
    let raw_lock = match ingest::raw::RawLock::shared(&args.data_dir) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("ingest: {e:#}");
            std::process::exit(1);
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let code = rt.block_on(async {
        let fetcher = match Fetcher::new(politeness, caps) {
            Ok(f) => Arc::new(f),
            Err(e) => {
                eprintln!("ingest: cannot build HTTP client: {e:#}");
                return 1;
            }
        };
        let mut worst = 0;
        for source in &args.sources {
            let started = std::time::Instant::now();
            let result = match source.as_str() {
                "gii" => ingest::gii::crawl(&args.data_dir, &args.gii_base_url, fetcher.clone(), args.limit).await,
                "rii" => ingest::rii::crawl(&args.data_dir, &args.rii_base_url, fetcher.clone(), args.limit).await,
                other => {
                    eprintln!("ingest: unknown source {other:?}; use gii, rii (and --oldp-dump for dumps)");
                    return 1;
                }
            };
            worst = worse(worst, report(source, result, started));
        }
        let dumps: Vec<String> = args.oldp_dump.iter().filter(|d| !d.is_empty()).cloned().collect();
        if !dumps.is_empty() {
            let started = std::time::Instant::now();
            worst = worse(
                worst,
                report("oldp", ingest::oldp::ingest_dumps(&args.data_dir, &dumps, fetcher).await, started),
            );
        }
        worst
    });
    drop(raw_lock);
    if !args.keep_superseded_raw && args.data_dir.join("catalog.sqlite").is_file() {
        match ingest::raw::remove_superseded(&args.data_dir) {
            Ok(Some(c)) => println!(
                "ingest raw: {} superseded copies removed ({:.1} MB); every document's last good copy kept",
                c.files,
                c.bytes as f64 / 1e6
            ),
            Ok(None) => println!("ingest raw: another ingest run is under way; superseded copies left for a later run"),
            Err(e) => eprintln!("ingest raw: superseded copies not removed: {e:#}"),
        }
    }
    std::process::exit(code);
}

/// Prints a source's summary line; returns its exit code.
fn report(source: &str, result: anyhow::Result<ingest::CrawlSummary>, started: std::time::Instant) -> i32 {
    match result {
        Ok(s) => {
            println!("{} in {:.1} s", s.line(), started.elapsed().as_secs_f64());
            s.exit_code()
        }
        Err(e) => {
            eprintln!("ingest {source}: failed: {e:#}");
            1
        }
    }
}

/// The more serious of two exit codes: 1 (error) > 2 (outage) > 3 (some failed) > 0.
fn worse(a: i32, b: i32) -> i32 {
    let rank = |c| match c {
        0 => 0,
        3 => 1,
        2 => 2,
        _ => 3,
    };
    if rank(b) > rank(a) { b } else { a }
}
