//! `decisions.lines`, beside `decisions.parts`: each decision's `line_key`, the place of its
//! line among the parts ([`crate::line_parts`]) and its head (what later stages need of a
//! decision without its text), so a night neither rebuilds an unchanged line nor makes
//! `resolve` and `index` read gigabytes of text to learn ids, courts, dates and file numbers.
//!
//! Format: a [`crate::companion`] of `decisions.parts` (its header names the list as the
//! manifest names it and as it lies on disk), one entry per decision in order:
//! `<line_key> <part> <offset> <len> <head as JSON>`.
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
use crate::decision_stage::{BuiltPart, DecisionRecord, LineSpan, line_keys_path, parts_layout, read_manifest};
use crate::line_parts::{PartSpan, PartedLines, part_is_whole};

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
/// `decisions.lines` was read (None: read from the parts themselves).
#[derive(Debug, Clone)]
pub struct LocatedHead {
    pub span: PartSpan,
    pub line_key: Option<String>,
    pub head: DecisionHead,
}

/// One line after the header: key, place, head (JSON text, never holding a newline).
fn parse_entry(line: &str) -> Option<(&str, PartSpan, &str)> {
    let mut f = line.splitn(5, ' ');
    let (key, part, offset, len, head) = (f.next()?, f.next()?, f.next()?, f.next()?, f.next()?);
    Some((key, PartSpan { part: part.parse().ok()?, offset: offset.parse().ok()?, len: len.parse().ok()? }, head))
}

/// `decisions.lines` at its first entry, when it describes the `decisions.parts` the manifest
/// (`sha256`) names, as it lies on disk (`file`).
fn open_matching(data_dir: &Path, sha256: &str, file: &std::fs::File) -> Option<std::io::BufReader<std::fs::File>> {
    open_companion(&line_keys_path(data_dir), sha256, file)
}

/// The last run's parts and `decisions.lines`, held open while new ones replace them: where
/// each line and its head are, by `line_key`, and each part by its chunk key.
pub(crate) struct EarlierLines {
    parts: PartedLines,
    lines: std::fs::File,
    /// line_key → (the line among the parts, its head in `decisions.lines`).
    spans: HashMap<String, (PartSpan, LineSpan)>,
    /// chunk key → the part's place in the list.
    by_chunk: HashMap<String, u32>,
}

impl EarlierLines {
    /// None when there is no earlier list, or `decisions.lines` does not describe the list
    /// the last run's manifest names (`sha256`) exactly as it lies on disk.
    pub(crate) fn open(data_dir: &Path, sha256: &str) -> Option<EarlierLines> {
        let layout = parts_layout(data_dir);
        let list = std::fs::File::open(&layout.list).ok()?;
        let mut reader = open_matching(data_dir, sha256, &list)?;
        let parts = PartedLines::open(layout).ok()?;
        let by_chunk = parts.parts().iter().enumerate().map(|(i, p)| (p.chunk_key.clone(), i as u32)).collect();
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
        Some(EarlierLines { parts, lines, spans, by_chunk })
    }

    fn head(&self, at: LineSpan) -> Option<Vec<u8>> {
        let mut head = vec![0u8; at.len];
        self.lines.read_exact_at(&mut head, at.offset).ok()?;
        (head.first() == Some(&b'{')).then_some(head)
    }

    /// The earlier line with `key` and its head's JSON, if any and readable as whole.
    pub(crate) fn line(&self, key: &str) -> Option<(Vec<u8>, Vec<u8>)> {
        let (span, head_span) = self.spans.get(key)?;
        let line = self.parts.read_line(*span).ok()?;
        let whole = line.last() == Some(&b'\n') && line.first() == Some(&b'{');
        whole.then_some((line, self.head(*head_span)?))
    }

    /// The earlier part of `chunk_key`, kept as it is, when its file is whole and every one of
    /// its lines (`keys`, in order) has its place and head in `decisions.lines`.
    pub(crate) fn kept_part(&self, chunk_key: &str, keys: &[String]) -> Option<BuiltPart> {
        let part = *self.by_chunk.get(chunk_key)?;
        let entry = self.parts.parts().get(part as usize)?.clone();
        if entry.lines != keys.len() || !part_is_whole(self.parts.layout(), &entry) {
            return None;
        }
        let mut lines = Vec::with_capacity(keys.len());
        let mut offset = 0u64;
        for key in keys {
            let (span, head_span) = self.spans.get(key)?;
            if span.part != part || span.offset != offset {
                return None;
            }
            offset += span.len as u64;
            lines.push((span.len, self.head(*head_span)?));
        }
        (offset == entry.bytes).then_some(BuiltPart { entry, lines, copied: keys.len(), kept: true })
    }
}

/// `decisions.lines` being written, one entry per decision of the new parts.
pub(crate) struct LinesWriter(CompanionWriter);

impl LinesWriter {
    pub(crate) fn create(data_dir: &Path) -> Result<LinesWriter> {
        Ok(LinesWriter(CompanionWriter::create(&line_keys_path(data_dir))?))
    }

    /// The next decision: its line's key, place and head's JSON.
    pub(crate) fn push(&mut self, key: &str, span: PartSpan, head: &[u8]) -> std::io::Result<()> {
        let out = self.0.entries();
        write!(out, "{key} {} {} {} ", span.part, span.offset, span.len)?;
        out.write_all(head)?;
        out.write_all(b"\n")
    }

    /// Writes the file for `file`, the finished `decisions.parts` whose sha256 is `sha256`,
    /// before that file is renamed into place.
    pub(crate) fn finish(self, sha256: &str, file: &std::fs::File) -> Result<()> {
        self.0.finish(sha256, file)
    }
}

/// Every decision of the last complete run, in order, as its [`LocatedHead`]: from
/// `decisions.lines` when it describes `decisions.parts` on disk (no text is read), else from
/// the parts themselves (every line read, `line_key` None). A line that is not a decision is
/// an error naming the file and the place.
pub fn read_heads(data_dir: &Path) -> Result<Box<dyn Iterator<Item = Result<LocatedHead>>>> {
    let p = parts_layout(data_dir).list;
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

/// The fields of a decision's line a [`DecisionHead`] is made of (the text skipped).
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
