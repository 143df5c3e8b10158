//! `index`: build and publish a generation (default), verify one, or collect old ones.
//! One summary line; exit 0 on success, 1 with the reason on failure.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use index::generation::{self, BuildOptions, BuildOutcome};

#[derive(Parser)]
#[command(about = "Write, verify and publish immutable index generations")]
struct Args {
    #[arg(long, default_value = "data", env = "LEGAL_DATA_DIR", global = true)]
    data_dir: PathBuf,
    #[command(subcommand)]
    cmd: Option<Cmd>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Build a generation from work/ and point CURRENT at it (the default).
    Build {
        /// Build even if nothing changed since the current generation (the store is written
        /// afresh, every input line read and checked).
        #[arg(long)]
        force: bool,
        /// Build and verify, but leave CURRENT alone.
        #[arg(long)]
        no_publish: bool,
        /// Commit of the code, recorded in the manifest.
        #[arg(long, env = "LEGAL_GIT_COMMIT")]
        git_commit: Option<String>,
        /// Test hook: stop for an hour after N laws (for kill tests).
        #[arg(long, hide = true)]
        pause_after_laws: Option<usize>,
        /// Write the store afresh (one sorted load, compact) even where a copy of the current
        /// generation's store could be patched (a nightly run's default).
        #[arg(long)]
        fresh_store: bool,
    },
    /// Verify a generation (default: the one CURRENT names).
    Verify { id: Option<String> },
    /// Remove old generations, keeping the newest N, CURRENT and any a server holds open.
    Gc {
        #[arg(long, default_value_t = 3)]
        keep: usize,
    },
}

/// The build's summary line after `verb` ("published" / "built … (not published)"): counts,
/// the decision bodies kept and written, and the parts linked from an earlier generation.
fn summary_line(verb: &str, s: &generation::BuildSummary) -> String {
    let b = &s.bodies;
    let phases: Vec<String> = s.phases.iter().map(|(name, secs)| format!("{name} {secs:.1} s")).collect();
    let mut line = format!(
        "index: {verb}: {} laws, {} sections, {} decisions in {:.1} s ({}); decision rows: {} unchanged, not built again ({}); decision bodies: {} kept, {} written, {} moved out of {} sparse packs; full-text index: {} decisions kept, {} written, {} removed",
        s.laws,
        s.sections,
        s.decisions,
        s.seconds,
        phases.join(", "),
        s.decision_rows_copied,
        match &s.store_patched_from {
            Some(from) => format!(
                "store patched from {from}'s ({} rows removed, {} kept rows' citing counts updated; of the decisions phase, {:.1} s removing, {:.1} s settling counts)",
                s.decision_rows_removed,
                s.citing_counts_updated,
                s.patch_seconds.map_or(0.0, |p| p.0),
                s.patch_seconds.map_or(0.0, |p| p.1)
            ),
            None => "store written afresh".to_string(),
        },
        b.bodies_reused,
        b.bodies_written,
        b.frames_moved,
        b.packs_dropped,
        s.decisions_index_kept,
        s.decisions_index_written,
        s.decisions_index_removed
    );
    for p in &s.shared {
        line.push_str(&format!(
            "; {} shared with {} ({} files, {:.1} MB, hard links)",
            p.part,
            p.from,
            p.files,
            p.bytes as f64 / 1e6
        ));
    }
    line
}

fn main() {
    catalog::cli::init_tracing();
    let args = Args::parse();
    let cmd = args.cmd.unwrap_or(Cmd::Build {
        force: false,
        no_publish: false,
        git_commit: std::env::var("LEGAL_GIT_COMMIT").ok(),
        pause_after_laws: None,
        fresh_store: false,
    });
    let result = match cmd {
        Cmd::Build { force, no_publish, git_commit, pause_after_laws, fresh_store } => {
            let opts = BuildOptions { force, git_commit, no_publish, pause_after_laws, fresh_store };
            generation::build(&args.data_dir, &opts).map(|o| match o {
                BuildOutcome::Unchanged { id } => format!("index: unchanged, CURRENT stays {id}"),
                BuildOutcome::Published(s) => summary_line(&format!("published {}", s.id), &s),
                BuildOutcome::Built(s) => summary_line(&format!("built {} (not published)", s.id), &s),
            })
        }
        Cmd::Verify { id } => {
            let id = id.or_else(|| generation::current_id(&args.data_dir));
            match id {
                None => Err(anyhow::anyhow!("no generation named and no CURRENT")),
                Some(id) => {
                    let dir = generation::generations_dir(&args.data_dir).join(&id);
                    generation::Generation::open_verified(&dir)
                        .map(|g| format!("index: {} verified ({} files)", g.id, g.manifest.files.len()))
                        .map_err(|e| anyhow::anyhow!("generation {id} refused: {e}"))
                }
            }
        }
        Cmd::Gc { keep } => generation::gc(&args.data_dir, keep).map(|s| {
            format!("index gc: kept {}, removed {} ({})", s.kept.len(), s.removed.len(), s.removed.join(", "))
        }),
    };
    match result {
        Ok(line) => println!("{line}"),
        Err(e) => {
            eprintln!("index: failed: {e:#}");
            std::process::exit(1);
        }
    }
}
