//! `decisions.lines`, beside `decisions.jsonl`: each line's `line_key`, its place in the file
//! and its head (what later stages need of a decision without its text), so a night neither
//! rebuilds an unchanged line nor makes `resolve` and `index` read gigabytes of text to learn
//! ids, courts, dates and file numbers.
//!
//! Format: a [`crate::companion`] of `decisions.jsonl` (its header names the file as the manifest
//! names it and as it lies on disk), one entry per decision in file order:
//! `<line_key> <offset> <len> <head as JSON>`.
//!
//! Invariants: those of every companion (never read against another file); a head is a function
//! of its line, and a line of its key, so a copied line carries its copied head.

use std::collections::HashMap;
use std::io::{BufRead, Seek, Write};

use std::os::unix::fs::FileExt;
use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::companion::{CompanionWriter, open_companion};
use crate::courts::Court;
use crate::decision_stage::{DecisionRecord, LineSpan, line_keys_path, read_manifest, records_path};

/// What `resolve` and `index` read of a decision before its text: its id, court, date, file
/// numbers, ECLI, the sources of its copies and what it was made from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecisionHead {
    pub id: String,
    pub court: Option<Court>,
    pub date: Option<String>,
    pub file_numbers: Vec<String>,
    pub ecli: Option<String>,
    /// Each copy's source (`oldp`, `rii`), the primary first.
    pub sources: Vec<String>,
    /// [`DecisionRecord::input_sha`].
    pub input_sha: String,
}

impl DecisionHead {
    pub fn of(r: &DecisionRecord) -> DecisionHead {
        let m = &r.doc.meta;
        DecisionHead {
            id: r.id.clone(),
            court: r.court.clone(),
            date: m.date.clone(),
            file_numbers: m.file_numbers.clone(),
            ecli: m.ecli.clone(),
            sources: r.sources.iter().map(|s| s.source.clone()).collect(),
            input_sha: r.input_sha.clone(),
        }
    }
}

/// A decision's head with where its line is, and the line's `line_key` when
/// `decisions.lines` was read (None: read from `decisions.jsonl` itself).
#[derive(Debug, Clone)]
pub struct LocatedHead {
    pub span: LineSpan,
    pub line_key: Option<String>,
    pub head: DecisionHead,
}

/// One line after the header: key, place, head (JSON text, never holding a newline).
fn parse_entry(line: &str) -> Option<(&str, LineSpan, &str)> {
    let mut parts = line.splitn(4, ' ');
    let (key, offset, len, head) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    Some((key, LineSpan { offset: offset.parse().ok()?, len: len.parse().ok()? }, head))
}

/// `decisions.lines` at its first entry, when it describes the `decisions.jsonl` the manifest
/// (`sha256`) names, as it lies on disk (`file`).
fn open_matching(data_dir: &Path, sha256: &str, file: &std::fs::File) -> Option<std::io::BufReader<std::fs::File>> {
    open_companion(&line_keys_path(data_dir), sha256, file)
}

/// The last run's `decisions.jsonl` and `decisions.lines`, held open while new ones replace
/// them: where each line and its head are, by `line_key`.
pub(crate) struct EarlierLines {
    records: std::fs::File,
    lines: std::fs::File,
    /// line_key → (the line in `decisions.jsonl`, its head in `decisions.lines`).
    spans: HashMap<String, (LineSpan, LineSpan)>,
}

impl EarlierLines {
    /// None when there is no earlier file, or `decisions.lines` does not describe the file
    /// the last run's manifest names (`sha256`) exactly as it lies on disk.
    pub(crate) fn open(data_dir: &Path, sha256: &str) -> Option<EarlierLines> {
        let records = std::fs::File::open(records_path(data_dir)).ok()?;
        let mut reader = open_matching(data_dir, sha256, &records)?;
        let lines = reader.get_ref().try_clone().ok()?;
        let mut offset = reader.stream_position().ok()?;
        let mut spans = HashMap::new();
        let mut line = String::new();
        loop {
            line.clear();
            let n = reader.read_line(&mut line).ok()?;
            if n == 0 {
                break;
            }
            let (key, span, head) = parse_entry(line.trim_end_matches('\n'))?;
            let head_at = offset + (line.len() - head.len() - usize::from(line.ends_with('\n'))) as u64;
            spans.insert(key.to_string(), (span, LineSpan { offset: head_at, len: head.len() }));
            offset += n as u64;
        }
        Some(EarlierLines { records, lines, spans })
    }

    /// The earlier line with `key` and its head's JSON, if any and readable as whole.
    pub(crate) fn line(&self, key: &str) -> Option<(Vec<u8>, Vec<u8>)> {
        let (span, head_span) = self.spans.get(key)?;
        let mut line = vec![0u8; span.len];
        self.records.read_exact_at(&mut line, span.offset).ok()?;
        let mut head = vec![0u8; head_span.len];
        self.lines.read_exact_at(&mut head, head_span.offset).ok()?;
        let whole = line.last() == Some(&b'\n') && line.first() == Some(&b'{') && head.first() == Some(&b'{');
        whole.then_some((line, head))
    }
}

/// `decisions.lines` being written, one entry per line of the new `decisions.jsonl`.
pub(crate) struct LinesWriter(CompanionWriter);

impl LinesWriter {
    pub(crate) fn create(data_dir: &Path) -> Result<LinesWriter> {
        Ok(LinesWriter(CompanionWriter::create(&line_keys_path(data_dir))?))
    }

    /// The next line of `decisions.jsonl`: its key, its length and its head's JSON.
    pub(crate) fn push(&mut self, key: &str, len: usize, head: &[u8]) -> std::io::Result<()> {
        let (offset, out) = self.0.entry(len);
        write!(out, "{key} {offset} {len} ")?;
        out.write_all(head)?;
        out.write_all(b"\n")
    }

    /// Writes the file for `file`, the finished `decisions.jsonl` whose sha256 is `sha256`,
    /// before that file is renamed into place.
    pub(crate) fn finish(self, sha256: &str, file: &std::fs::File) -> Result<()> {
        self.0.finish(sha256, file)
    }
}

/// Every decision of the last complete run's `decisions.jsonl`, in line order, as its
/// [`LocatedHead`]: from `decisions.lines` when it describes the file on disk (no text is
/// read), else from the file itself (every line read, `line_key` None). A line that is not
/// a decision is an error naming the file and the place.
pub fn read_heads(data_dir: &Path) -> Result<Box<dyn Iterator<Item = Result<LocatedHead>>>> {
    let p = records_path(data_dir);
    let file = std::fs::File::open(&p).with_context(|| format!("cannot open {} (run `extract`)", p.display()))?;
    let manifest = read_manifest(data_dir)?;
    if let Some(reader) = manifest.and_then(|m| open_matching(data_dir, &m.sha256, &file)) {
        let lines_path = line_keys_path(data_dir);
        let mut line_no = 1usize;
        return Ok(Box::new(reader.lines().map(move |line| {
            line_no += 1;
            let bad =
                || format!("{}: line {line_no} is not a decision's entry (rerun `extract`)", lines_path.display());
            let line = line.with_context(bad)?;
            let (key, span, head) = parse_entry(&line).with_context(bad)?;
            let head: DecisionHead = serde_json::from_str(head).with_context(bad)?;
            Ok(LocatedHead { span, line_key: Some(key.to_string()), head })
        })));
    }
    Ok(Box::new(crate::decision_stage::read_located_parts::<HeadOfRecord>(data_dir)?.map(|r| {
        let (span, h) = r?;
        Ok(LocatedHead { span, line_key: None, head: h.into_head() })
    })))
}

/// The fields of a `decisions.jsonl` line a [`DecisionHead`] is made of (the text skipped).
#[derive(Deserialize)]
struct HeadOfRecord {
    id: String,
    court: Option<Court>,
    doc: HeadDoc,
    sources: Vec<HeadSource>,
    #[serde(default)]
    input_sha: String,
}

#[derive(Deserialize)]
struct HeadDoc {
    meta: HeadMeta,
}

#[derive(Deserialize)]
struct HeadMeta {
    date: Option<String>,
    #[serde(default)]
    file_numbers: Vec<String>,
    ecli: Option<String>,
}

#[derive(Deserialize)]
struct HeadSource {
    source: String,
}

impl HeadOfRecord {
    fn into_head(self) -> DecisionHead {
        DecisionHead {
            id: self.id,
            court: self.court,
            date: self.doc.meta.date,
            file_numbers: self.doc.meta.file_numbers,
            ecli: self.doc.meta.ecli,
            sources: self.sources.into_iter().map(|s| s.source).collect(),
            input_sha: self.input_sha,
        }
    }
}
