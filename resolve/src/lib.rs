//! Stage 3 of the pipeline: bind what `extract` found to what it refers to.
//!
//! - [`book_codes`]: every way a law is named (jurabk, amtabk, aliases, titles) → the law's
//!   slug, written to `work/resolve/book_codes.json` for `index`;
//! - [`case_law`]: the citations of every decision, case citations bound to corpus decisions
//!   with honest statuses, and the citation graph (`work/resolve/citations.parts` and its parts);
//! - [`citation_lines`]: `citations.lines`, where each decision's line is, its scan key and hash;
//! - [`line_bindings`]: `citations.bindings`, what each line's binding read and yielded, so a
//!   night carries the lines no change can reach without reading them.

pub mod book_codes;
pub mod case_law;
pub mod citation_lines;
pub mod line_bindings;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use book_codes::{BookCodeTable, LawNames, build_table};

pub fn book_codes_path(data_dir: &Path) -> PathBuf {
    data_dir.join("work/resolve/book_codes.json")
}

pub fn read_book_codes(data_dir: &Path) -> Result<BookCodeTable> {
    let p = book_codes_path(data_dir);
    let bytes = std::fs::read(&p).with_context(|| format!("no book codes at {} (run `resolve` first)", p.display()))?;
    serde_json::from_slice(&bytes).with_context(|| format!("{} is unreadable", p.display()))
}

/// Builds the book-code table from the statutes extract and writes it.
pub fn run(data_dir: &Path) -> Result<BookCodeTable> {
    let manifest = extract::statutes::read_manifest(data_dir)?;
    let names: Vec<LawNames<'_>> = manifest
        .laws
        .iter()
        .map(|l| LawNames {
            slug: &l.slug,
            jurabk: &l.jurabk,
            amtabk: l.amtabk.as_deref(),
            title: &l.title,
            short_title: l.short_title.as_deref(),
        })
        .collect();
    let table = build_table(&names, book_codes::LAW_ALIASES_TSV);
    extract::write_atomic(&book_codes_path(data_dir), &serde_json::to_vec(&table)?)?;
    Ok(table)
}
