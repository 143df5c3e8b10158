//! Stage 2 of the pipeline: read the raw copies that `ingest` fetched and write normalised
//! records to `data/work/extract/`.
//!
//! - [`plain_text`]: the text writer that implements the seed-000 plain-text rules.
//! - [`law`]: law records ([`law::LawBook`], [`law::LawSection`]) and section keys.
//! - [`gii_xml`]: the gesetze-im-internet.de XML parser.
//! - [`statutes`]: the stage run over every law of the current toc.
//! - [`citations`]: the citation scanner (law and case citations in plain text, canonical tokens).
//! - [`decisions`]: court decisions (dump records, rii XML) → normalised text, sections, Randnummern.
//! - [`courts`]: one canonical court for every spelling of its name.
//! - [`decision_stage`]: the stage run over every decision source; second copies merged.
//! - [`companion`]: what a companion file (one entry per line of a big work file) is, opened and written.
//! - [`decision_lines`]: `decisions.lines`, each line's key, place and head (no text).
//! - [`line_parts`]: a big JSON Lines work file as content-addressed parts (extract's decisions,
//!   resolve's citations), so a night writes only the parts that changed.
//!
//! Invariant: outputs are keyed by the content hash of their input and the extractor version,
//! so an unchanged document is never re-extracted, and a run killed midway leaves only whole
//! files (temp file + rename); `current.json` is written last and is the done-marker.

pub mod bounded_read;
pub mod citations;
pub mod companion;
pub mod courts;
pub mod decision_lines;
pub mod decision_stage;
pub mod decisions;
pub mod gii_xml;
pub mod law;
pub mod line_parts;
pub mod plain_text;
pub mod statutes;
pub mod zstd_frame;

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` atomically (temp file in the same directory, fsync, rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_via_temp(path, bytes, true)
}

/// Writes `bytes` to `path` by temp file and rename, without fsync: for caches, where a file
/// lost in a crash only costs recomputing it, and an fsync per file costs minutes at scale.
pub fn write_replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_via_temp(path, bytes, false)
}

fn write_via_temp(path: &Path, bytes: &[u8], sync: bool) -> std::io::Result<()> {
    let dir = path.parent().expect("output path has a parent");
    std::fs::create_dir_all(dir)?;
    let tmp =
        dir.join(format!(".tmp-{}-{}", std::process::id(), path.file_name().and_then(|n| n.to_str()).unwrap_or("out")));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    if sync {
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)
}
