//! `citations.lines`, beside `citations.jsonl`: each decision's line with where it is, the
//! key it was scanned under and its sha256, so the next `resolve` finds a reusable line and
//! `index` joins lines to decisions without reading gigabytes of citations first.
//!
//! Format: an [`extract::companion`] of `citations.jsonl` (its header names the file by the
//! sha256 `citations.json` records and as it lies on disk), one entry per line, in order:
//! `<offset> <len> <scan_key or -> <sha256 of the line> <decision id>` (the id last: it is the
//! rest of the line).
//!
//! Invariant: those of every companion; a reader that finds none that describes the file (or an
//! entry it cannot parse) reads `citations.jsonl` itself.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use anyhow::Result;
use extract::companion::{CompanionWriter, open_companion};
use extract::decision_stage::LineSpan;

pub fn citation_lines_path(data_dir: &Path) -> PathBuf {
    data_dir.join("work/resolve/citations.lines")
}

/// One line of `citations.jsonl`, as `citations.lines` describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct CitationLine {
    pub id: String,
    pub span: LineSpan,
    /// The key the decision was scanned under; empty when it cannot be reused.
    pub scan_key: String,
    pub sha256: [u8; 32],
}

/// Every line of `citations.jsonl` in file order, when `citations.lines` describes the file
/// whose sha256 is `sha256` exactly as it lies on disk; None otherwise.
pub fn read_citation_lines(data_dir: &Path, sha256: &str) -> Option<Vec<CitationLine>> {
    let file = std::fs::File::open(crate::case_law::citations_path(data_dir)).ok()?;
    open_companion(&citation_lines_path(data_dir), sha256, &file)?
        .lines()
        .map(|l| {
            let l = l.ok()?;
            let mut parts = l.splitn(5, ' ');
            let (offset, len, key, sha, id) =
                (parts.next()?, parts.next()?, parts.next()?, parts.next()?, parts.next()?);
            let mut sha256 = [0u8; 32];
            hex::decode_to_slice(sha, &mut sha256).ok()?;
            Some(CitationLine {
                id: id.to_string(),
                span: LineSpan { offset: offset.parse().ok()?, len: len.parse().ok()? },
                scan_key: if key == "-" { String::new() } else { key.to_string() },
                sha256,
            })
        })
        .collect()
}

/// `citations.lines` being written, one entry per line of the new `citations.jsonl`.
pub(crate) struct CitationLinesWriter(CompanionWriter);

impl CitationLinesWriter {
    pub(crate) fn create(data_dir: &Path) -> Result<CitationLinesWriter> {
        Ok(CitationLinesWriter(CompanionWriter::create(&citation_lines_path(data_dir))?))
    }

    pub(crate) fn push(&mut self, id: &str, len: usize, scan_key: &str, sha256: &[u8; 32]) -> std::io::Result<()> {
        let key = if scan_key.is_empty() { "-" } else { scan_key };
        let (offset, out) = self.0.entry(len);
        writeln!(out, "{offset} {len} {key} {} {id}", hex::encode(sha256))
    }

    /// Writes the file for `file`, the finished `citations.jsonl` whose sha256 is `sha256`,
    /// before that file is renamed into place.
    pub(crate) fn finish(self, sha256: &str, file: &std::fs::File) -> Result<()> {
        self.0.finish(sha256, file)
    }
}
