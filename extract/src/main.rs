//! `extract`: raw copies → normalised records in `work/extract/`. Prints one summary line;
//! exit 0 (records written, failures recorded in the catalog) or 1 (the stage could not run).

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
}

fn main() {
    ingest::init_tracing();
    let args = Args::parse();
    if let Some(n) = args.threads {
        let _ = rayon::ThreadPoolBuilder::new().num_threads(n).build_global();
    }
    let started = std::time::Instant::now();
    match extract::statutes::run(&args.data_dir) {
        Ok(s) => println!("{}", s.line(started.elapsed().as_secs_f64())),
        Err(e) => {
            eprintln!("extract gii: failed: {e:#}");
            std::process::exit(1);
        }
    }
    let started = std::time::Instant::now();
    match extract::decision_stage::run(&args.data_dir) {
        Ok(s) => println!("{}", s.line(started.elapsed().as_secs_f64())),
        Err(e) => {
            eprintln!("extract decisions: failed: {e:#}");
            std::process::exit(1);
        }
    }
}
