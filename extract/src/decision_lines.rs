//! `decisions.lines`, beside `decisions.jsonl`: each line's `line_key`, its place in the file
//! and its head (what later stages need of a decision without its text), so a night neither
//! rebuilds an unchanged line nor makes `resolve` and `index` read gigabytes of text to learn
//! ids, courts, dates and file numbers.
//!
//! Format: a header line `<sha256> <inode> <size> <mtime>.<nsec>` naming the `decisions.jsonl`
//! it describes (as the manifest names it and as it lies on disk), then one line per decision
//! in file order: `<line_key> <offset> <len> <head as JSON>`.
//!
//! Invariants: the file is written before `decisions.jsonl` is renamed into place and is read
//! only while its header describes that file exactly, so keys, places and heads never describe
//! another file (a run stopped between the two renames, or a file changed since); a head is a
//! function of its line, and a line of its key, so a copied line carries its copied head.

use std::collections::HashMap;
use std::io::{BufRead, Seek, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

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

/// The header line of a companion file (`decisions.lines`, `citations.lines`): the file it
/// describes, by content (`sha256`) and as it lies on disk (inode, size, modification time).
pub fn describe_file(sha256: &str, file: &std::fs::File) -> std::io::Result<String> {
    use std::os::unix::fs::MetadataExt;
    let m = file.metadata()?;
    Ok(format!("{sha256} {} {} {}.{}", m.ino(), m.len(), m.mtime(), m.mtime_nsec()))
}

/// One line after the header: key, place, head (JSON text, never holding a newline).
fn parse_entry(line: &str) -> Option<(&str, LineSpan, &str)> {
    let mut parts = line.splitn(4, ' ');
    let (key, offset, len, head) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    Some((key, LineSpan { offset: offset.parse().ok()?, len: len.parse().ok()? }, head))
}

/// `decisions.lines` opened and its header checked against the `decisions.jsonl` the manifest
/// (`sha256`) names, as it lies on disk (`file`); None when it does not describe that file.
fn open_matching(data_dir: &Path, sha256: &str, file: &std::fs::File) -> Option<std::io::BufReader<std::fs::File>> {
    let f = std::fs::File::open(line_keys_path(data_dir)).ok()?;
    let mut reader = std::io::BufReader::with_capacity(1 << 20, f);
    let mut first = String::new();
    reader.read_line(&mut first).ok()?;
    (first.trim_end_matches('\n') == describe_file(sha256, file).ok()?).then_some(reader)
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

/// `decisions.lines` being written, one entry per line of the new `decisions.jsonl`. The
/// entries go to a temp file as they come, so memory does not grow with the decisions; the
/// header, known only once `decisions.jsonl` is complete, is put before them by
/// [`Self::finish`].
pub(crate) struct LinesWriter {
    entries: std::io::BufWriter<std::fs::File>,
    entries_path: PathBuf,
    offset: u64,
}

impl LinesWriter {
    pub(crate) fn create(data_dir: &Path) -> Result<LinesWriter> {
        let path = line_keys_path(data_dir);
        let dir = path.parent().expect("output path has a parent");
        std::fs::create_dir_all(dir)?;
        let entries_path = dir.join(format!(".tmp-{}-decisions.lines.entries", std::process::id()));
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&entries_path)
            .with_context(|| format!("cannot create {}", entries_path.display()))?;
        Ok(LinesWriter { entries: std::io::BufWriter::with_capacity(1 << 20, file), entries_path, offset: 0 })
    }

    /// The next line of `decisions.jsonl`: its key, its length and its head's JSON.
    pub(crate) fn push(&mut self, key: &str, len: usize, head: &[u8]) -> std::io::Result<()> {
        write!(self.entries, "{key} {} {len} ", self.offset)?;
        self.entries.write_all(head)?;
        self.entries.write_all(b"\n")?;
        self.offset += len as u64;
        Ok(())
    }

    /// Writes the file (temp + fsync + rename) for `file`, the finished `decisions.jsonl`
    /// whose sha256 is `sha256`, before that file is renamed into place.
    pub(crate) fn finish(self, data_dir: &Path, sha256: &str, file: &std::fs::File) -> Result<()> {
        let mut entries = self.entries.into_inner().map_err(|e| e.into_error())?;
        entries.seek(std::io::SeekFrom::Start(0))?;
        let path = line_keys_path(data_dir);
        let tmp = path.with_file_name(format!(".tmp-{}-decisions.lines", std::process::id()));
        let mut out = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&tmp)?);
        writeln!(out, "{}", describe_file(sha256, file)?)?;
        std::io::copy(&mut entries, &mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, &path)?;
        drop(entries);
        let _ = std::fs::remove_file(&self.entries_path);
        Ok(())
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
