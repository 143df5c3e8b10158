//! `extract`: raw copies → normalised records in `work/extract/`. Prints one summary line per
//! source; exit 0 (every record written), 3 (some laws have no record or lost text: each a row in
//! the catalog's `problems`, the rest written) or 1 (the stage could not run).

use std::path::PathBuf;

use clap::Parser;

#[derive(Parser)]
#[command(about = "Normalise fetched statutes and decisions into records (plain text, sections, Absätze, Randnummern)")]
struct Args {
    #[arg(long, default_value = "data", env = "LEGAL_DATA_DIR")]
    data_dir: PathBuf,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Largest decompressed document taken (a law's or decision's XML, one dump record), in bytes.
    #[arg(long, default_value_t = extract::bounded_read::DEFAULT_MAX_DECOMPRESSED_BYTES, env = "EXTRACT_MAX_DECOMPRESSED_BYTES")]
    max_decompressed_bytes: u64,
}

fn main() {
    catalog::cli::init_tracing();
    let args = Args::parse();
    extract::bounded_read::set_max_decompressed_bytes(args.max_decompressed_bytes);
    if let Some(n) = args.threads {
        let _ = rayon::ThreadPoolBuilder::new().num_threads(n).build_global();
    }
    let started = std::time::Instant::now();
    let statutes_problems = match extract::statutes::run(&args.data_dir) {
        Ok(s) => {
            println!("{}", s.line(started.elapsed().as_secs_f64()));
            s.has_problems()
        }
        Err(e) => {
            eprintln!("extract gii: failed: {e:#}");
            std::process::exit(1);
        }
    };
    let started = std::time::Instant::now();
    match extract::decision_stage::run(&args.data_dir) {
        Ok(s) => println!("{}", s.line(started.elapsed().as_secs_f64())),
        Err(e) => {
            eprintln!("extract decisions: failed: {e:#}");
            std::process::exit(1);
        }
    }
    if statutes_problems {
        std::process::exit(extract::statutes::EXIT_SOME_FAILED);
    }
}
