//! `citations.lines`, beside `citations.jsonl`: each decision's line with where it is, the
//! key it was scanned under and its sha256, so the next `resolve` finds a reusable line and
//! `index` joins lines to decisions without reading gigabytes of citations first.
//!
//! Format: a header line naming the `citations.jsonl` it describes
//! ([`extract::decision_lines::describe_file`]: the sha256 `citations.json` names, inode,
//! size, modification time), then one line per line of that file, in order:
//! `<offset> <len> <scan_key or -> <sha256 of the line> <decision id>` (the id last: it is the
//! rest of the line).
//!
//! Invariant: written right before `citations.jsonl` is renamed into place, and read only
//! while its header describes that file exactly; a reader that finds no such file (or a line
//! it cannot parse) reads `citations.jsonl` itself.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use anyhow::Result;
use extract::decision_lines::describe_file;
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
    let f = std::fs::File::open(citation_lines_path(data_dir)).ok()?;
    let mut lines = std::io::BufReader::with_capacity(1 << 20, f).lines();
    if lines.next()?.ok()? != describe_file(sha256, &file).ok()? {
        return None;
    }
    lines
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
#[derive(Default)]
pub(crate) struct CitationLinesWriter {
    text: String,
    offset: u64,
}

impl CitationLinesWriter {
    pub(crate) fn push(&mut self, id: &str, len: usize, scan_key: &str, sha256: &[u8; 32]) {
        use std::fmt::Write;
        let key = if scan_key.is_empty() { "-" } else { scan_key };
        let _ = writeln!(self.text, "{} {len} {key} {} {id}", self.offset, hex::encode(sha256));
        self.offset += len as u64;
    }

    /// Writes the file (temp + fsync + rename) for `file`, the finished `citations.jsonl`
    /// whose sha256 is `sha256`, before that file is renamed into place.
    pub(crate) fn finish(self, data_dir: &Path, sha256: &str, file: &std::fs::File) -> Result<()> {
        let text = format!("{}\n{}", describe_file(sha256, file)?, self.text);
        extract::write_atomic(&citation_lines_path(data_dir), text.as_bytes())?;
        Ok(())
    }
}
