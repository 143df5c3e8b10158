//! `citations.lines`, beside `citations.parts` (the list of the citations' parts,
//! [`extract::line_parts`]): each decision's line with where it is, the key it was scanned
//! under and its sha256, so the next `resolve` finds a reusable line and `index` joins lines
//! to decisions without reading gigabytes of citations first.
//!
//! Format: an [`extract::companion`] of `citations.parts` (its header names the list by the
//! sha256 `citations.json` records and as it lies on disk), one entry per line, in order:
//! `<part> <offset> <len> <scan_key or -> <sha256 of the line> <decision id>` (the id last: it
//! is the rest of the line).
//!
//! Invariant: those of every companion; a reader that finds none that describes the list (or an
//! entry it cannot parse) reads the parts themselves.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use anyhow::Result;
use extract::companion::{CompanionWriter, open_companion};
use extract::line_parts::{PartEntry, PartSpan, PartsWriter, PendingLine, WrittenParts};

pub fn citation_lines_path(data_dir: &Path) -> PathBuf {
    data_dir.join("work/resolve/citations.lines")
}

/// One citations line, as `citations.lines` describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct CitationLine {
    pub id: String,
    pub span: PartSpan,
    /// The key the decision was scanned under; empty when it cannot be reused.
    pub scan_key: String,
    pub sha256: [u8; 32],
}

/// Every citations line in order, when `citations.lines` describes the list whose sha256 is
/// `sha256` exactly as it lies on disk; None otherwise.
pub fn read_citation_lines(data_dir: &Path, sha256: &str) -> Option<Vec<CitationLine>> {
    let file = std::fs::File::open(crate::case_law::citations_layout(data_dir).list).ok()?;
    open_companion(&citation_lines_path(data_dir), sha256, &file)?
        .lines()
        .map(|l| {
            let l = l.ok()?;
            let mut parts = l.splitn(6, ' ');
            let (part, offset, len, key, sha, id) =
                (parts.next()?, parts.next()?, parts.next()?, parts.next()?, parts.next()?, parts.next()?);
            let mut sha256 = [0u8; 32];
            hex::decode_to_slice(sha, &mut sha256).ok()?;
            Some(CitationLine {
                id: id.to_string(),
                span: PartSpan { part: part.parse().ok()?, offset: offset.parse().ok()?, len: len.parse().ok()? },
                scan_key: if key == "-" { String::new() } else { key.to_string() },
                sha256,
            })
        })
        .collect()
}

/// The citations' parts, `citations.lines` and `citations.bindings`, written on a second
/// thread while the lines are built: each line goes to its part (a part the last run listed is
/// kept, not written; a line carried from the last run is read only when its part is not), its
/// entry names where it lies, and its binding entry what binding it read and yielded.
pub(crate) struct CitationsWriter {
    tx: std::sync::mpsc::SyncSender<Vec<OutLine>>,
    thread: std::thread::JoinHandle<Result<WrittenParts>>,
}

/// One line for [`CitationsWriter`]: its decision, scan key, bytes, sha256 and binding.
pub(crate) struct OutLine {
    pub id: String,
    pub scan_key: String,
    pub bytes: PendingLine,
    pub sha256: [u8; 32],
    pub binding: crate::line_bindings::LineBinding,
}

impl CitationsWriter {
    /// Writes into `data_dir`'s citations layout, keeping the parts of `earlier` (the last
    /// run's list) that come out the same.
    pub(crate) fn create(data_dir: &Path, earlier: &[PartEntry]) -> Result<CitationsWriter> {
        let layout = crate::case_law::citations_layout(data_dir);
        let mut parts = PartsWriter::create(layout, earlier);
        let mut entries = CompanionWriter::create(&citation_lines_path(data_dir))?;
        let mut bindings = CompanionWriter::create(&crate::line_bindings::line_bindings_path(data_dir))?;
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<OutLine>>(2);
        let thread = std::thread::spawn(move || -> Result<WrittenParts> {
            for batch in rx {
                for l in batch {
                    // A line's key is its own sha256: the line is a function of it.
                    let sha256 = hex::encode(l.sha256);
                    let span = parts.push_pending(sha256.clone(), l.bytes)?;
                    serde_json::to_writer(&mut *bindings.entries(), &l.binding)?;
                    writeln!(bindings.entries())?;
                    let key = if l.scan_key.is_empty() { "-" } else { l.scan_key.as_str() };
                    writeln!(
                        entries.entries(),
                        "{} {} {} {key} {} {}",
                        span.part,
                        span.offset,
                        span.len,
                        sha256,
                        l.id
                    )?;
                }
            }
            parts.finish(|sha256, list| {
                entries.finish(sha256, list)?;
                bindings.finish(sha256, list)
            })
        });
        Ok(CitationsWriter { tx, thread })
    }

    /// Appends `batch`, in order. An error of the writing thread surfaces in [`Self::finish`].
    pub(crate) fn send(&self, batch: Vec<OutLine>) {
        let _ = self.tx.send(batch);
    }

    /// Waits for every line, writes the list and `citations.lines`.
    pub(crate) fn finish(self) -> Result<WrittenParts> {
        drop(self.tx);
        self.thread.join().map_err(|_| anyhow::anyhow!("the writer of the citations panicked"))?
    }
}
