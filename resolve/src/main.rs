//! `resolve`: book codes and aliases → laws. One summary line; exit 0 or 1.

use std::path::PathBuf;

use clap::Parser;

#[derive(Parser)]
#[command(
    about = "Resolve book codes and aliases to laws, and the citations of decisions to decisions (citation graph)"
)]
struct Args {
    #[arg(long, default_value = "data", env = "LEGAL_DATA_DIR")]
    data_dir: PathBuf,
}

fn main() {
    let args = Args::parse();
    let started = std::time::Instant::now();
    match resolve::run(&args.data_dir) {
        Ok(t) => println!(
            "resolve: {} book codes for laws, {} superseded codes, in {:.1} s",
            t.codes.len(),
            t.superseded.len(),
            started.elapsed().as_secs_f64()
        ),
        Err(e) => {
            eprintln!("resolve: failed: {e:#}");
            std::process::exit(1);
        }
    }
    let started = std::time::Instant::now();
    match resolve::case_law::run(&args.data_dir) {
        Ok(Some(s)) if s.unchanged => println!(
            "resolve citations: input unchanged ({} decisions); nothing redone in {:.1} s",
            s.decisions,
            started.elapsed().as_secs_f64()
        ),
        Ok(Some(s)) => println!(
            "resolve citations: {} decisions ({} scanned, {} unchanged: {} bound anew, {} carried unread), {} law and {} case citations; by status {:?}; withheld {:?}; {} resolved edges ({} distinct); {} parts kept, {} parts written in {:.1} s",
            s.decisions,
            s.scanned,
            s.reused,
            s.reused - s.carried,
            s.carried,
            s.law_citations,
            s.case_citations,
            s.by_status,
            s.withheld,
            s.resolved_edges,
            s.distinct_edges,
            s.parts_kept,
            s.parts_written,
            started.elapsed().as_secs_f64()
        ),
        Ok(None) => println!("resolve citations: no decisions extracted"),
        Err(e) => {
            eprintln!("resolve citations: failed: {e:#}");
            std::process::exit(1);
        }
    }
}
