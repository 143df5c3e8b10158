//! The decisions run: every record of every Open Legal Data dump and every rii zip in the
//! catalog → normalised documents ([`crate::decisions`]) → canonical courts
//! ([`crate::courts`]) → second copies merged → `work/extract/decisions/decisions.jsonl`, and
//! `work/extract/decisions/current.json` last (the done-marker, with the counts and every
//! record that could not be used).
//!
//! Invariants:
//! - every source record ends up in exactly one decision (alone or merged) or in the catalog's
//!   `problems` with its reason; `current.json` counts both, so nothing is lost silently;
//! - normalised records are cached by the sha256 of the record's bytes and
//!   [`DECISION_EXTRACT_VERSION`]: an unchanged record is never normalised again;
//! - two records are one decision when they share court, date and a file number; the copy
//!   with the richer text is the primary, and every copy is listed in `sources`.

use std::collections::HashMap;
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use ingest::catalog::Catalog;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::courts::{Court, CourtTable, branch_of_jurisdiction};
use crate::decisions::{DecisionDoc, normalise_oldp, parse_oldp_line, parse_rii_xml};

/// Bump when the normaliser's output changes, so cached records are rebuilt.
pub const DECISION_EXTRACT_VERSION: u32 = 1;

/// One decision as later stages see it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DecisionRecord {
    /// Stable internal id: `rii-<DOKNR>` or `oldp-<record id>` of the primary copy.
    pub id: String,
    pub court: Option<Court>,
    pub doc: DecisionDoc,
    /// Every source copy merged into this decision, the primary first.
    pub sources: Vec<SourceRef>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SourceRef {
    pub source: String,
    /// The catalog document (dump file name or DOKNR).
    pub document: String,
    /// The record's own id in that source.
    pub record_id: String,
    pub source_format: String,
    pub text_chars: usize,
}

/// `work/extract/decisions/current.json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct DecisionsManifest {
    pub extract_version: u32,
    pub records_read: usize,
    pub decisions: usize,
    /// Records merged into another record's decision (second copies).
    pub merged_copies: usize,
    pub failed: Vec<FailedRecord>,
    /// sha256 of `decisions.jsonl`.
    pub sha256: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FailedRecord {
    pub source: String,
    pub key: String,
    pub reason: String,
}

pub fn dir(data_dir: &Path) -> PathBuf {
    data_dir.join("work/extract/decisions")
}

pub fn manifest_path(data_dir: &Path) -> PathBuf {
    dir(data_dir).join("current.json")
}

pub fn records_path(data_dir: &Path) -> PathBuf {
    dir(data_dir).join("decisions.jsonl")
}

/// The manifest of the last complete run; None when decisions were never extracted.
pub fn read_manifest(data_dir: &Path) -> Result<Option<DecisionsManifest>> {
    let p = manifest_path(data_dir);
    match std::fs::read(&p) {
        Ok(b) => Ok(Some(serde_json::from_slice(&b).with_context(|| format!("{} is unreadable", p.display()))?)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", p.display())),
    }
}

/// Streams the decisions of the last complete run.
pub fn read_records(data_dir: &Path) -> Result<impl Iterator<Item = Result<DecisionRecord>>> {
    let p = records_path(data_dir);
    let f = std::fs::File::open(&p).with_context(|| format!("cannot open {}", p.display()))?;
    Ok(std::io::BufReader::new(f).lines().map(|l| Ok(serde_json::from_str(&l?)?)))
}

#[derive(Debug, Default)]
pub struct DecisionsSummary {
    pub records_read: usize,
    pub normalised: usize,
    pub reused: usize,
    pub failed: usize,
    pub decisions: usize,
    pub merged: usize,
    pub bytes: u64,
}

impl DecisionsSummary {
    pub fn line(&self, secs: f64) -> String {
        format!(
            "extract decisions: {} records; {} normalised, {} unchanged (reused), {} failed; {} decisions ({} second copies merged); {:.1} MB in {:.1} s",
            self.records_read,
            self.normalised,
            self.reused,
            self.failed,
            self.decisions,
            self.merged,
            self.bytes as f64 / 1e6,
            secs
        )
    }
}

/// One source record before normalisation.
struct RawRecord {
    source: &'static str,
    document: String,
    /// `<document>#<line>` or the DOKNR: where to find it again.
    key: String,
    bytes: Vec<u8>,
    /// The rii toc's court line, a fallback when the XML names none.
    toc_court: Option<String>,
}

type Normalised = std::result::Result<(String, DecisionDoc), String>;

pub fn run(data_dir: &Path) -> Result<DecisionsSummary> {
    let catalog = Catalog::open(data_dir)?;
    let run_id = catalog.start_run("extract", Some("decisions"))?;
    let mut summary = DecisionsSummary::default();
    let mut failed = Vec::new();
    let mut raws = Vec::new();

    for d in catalog.documents(ingest::oldp::SOURCE)? {
        let bytes = std::fs::read(data_dir.join(&d.raw_path)).with_context(|| format!("raw copy of {}", d.key))?;
        read_dump_lines(&d.key, &bytes, &mut raws, &mut failed);
    }
    let rii_docs: HashMap<String, ingest::catalog::DocumentRow> =
        catalog.documents(ingest::rii::SOURCE)?.into_iter().map(|d| (d.key.clone(), d)).collect();
    for item in catalog.toc(ingest::rii::SOURCE)? {
        let toc_court = item
            .extra
            .as_deref()
            .and_then(|e| serde_json::from_str::<ingest::rii::RiiTocEntry>(e).ok())
            .map(|e| e.gericht);
        match rii_docs.get(&item.key) {
            Some(d) => match std::fs::read(data_dir.join(&d.raw_path)) {
                Ok(bytes) => raws.push(RawRecord {
                    source: ingest::rii::SOURCE,
                    document: item.key.clone(),
                    key: item.key.clone(),
                    bytes,
                    toc_court,
                }),
                Err(e) => failed.push(fail("rii", &item.key, format!("raw copy unreadable: {e}"))),
            },
            None => {
                let why = catalog.last_fetch_failure("rii", &item.key)?.unwrap_or_else(|| "never fetched".into());
                failed.push(fail("rii", &item.key, format!("no copy fetched: {why}")));
            }
        }
    }
    summary.records_read = raws.len() + failed.len();

    let cache = dir(data_dir).join("records");
    let bar = ingest::progress_bar(raws.len() as u64, "extract decisions");
    let results: Vec<(Normalised, bool)> = raws
        .par_iter()
        .map(|r| {
            let out = normalise_cached(&cache, r);
            bar.inc(1);
            out
        })
        .collect();
    bar.finish_and_clear();

    let table = CourtTable::shipped();
    let mut records = Vec::new();
    for (raw, (result, reused)) in raws.iter().zip(results) {
        summary.bytes += raw.bytes.len() as u64;
        match result {
            Ok((record_id, doc)) => {
                if reused {
                    summary.reused += 1
                } else {
                    summary.normalised += 1
                }
                records.push(to_record(raw, record_id, doc, table));
            }
            Err(reason) => failed.push(fail(raw.source, &raw.key, reason)),
        }
    }
    let before = records.len();
    let decisions = merge_copies(records);
    summary.merged = before - decisions.len();
    summary.decisions = decisions.len();
    summary.failed = failed.len();
    for f in &failed {
        catalog.record_problem(Some(run_id), &f.source, &f.key, "extract", &f.reason)?;
    }

    let mut jsonl = Vec::new();
    for d in &decisions {
        serde_json::to_writer(&mut jsonl, d)?;
        jsonl.push(b'\n');
    }
    crate::write_atomic(&records_path(data_dir), &jsonl)?;
    let manifest = DecisionsManifest {
        extract_version: DECISION_EXTRACT_VERSION,
        records_read: summary.records_read,
        decisions: decisions.len(),
        merged_copies: summary.merged,
        failed,
        sha256: hex::encode(Sha256::digest(&jsonl)),
    };
    crate::write_atomic(&manifest_path(data_dir), &serde_json::to_vec_pretty(&manifest)?)?;
    catalog.finish_run(run_id, 0, &summary.line(0.0))?;
    Ok(summary)
}

fn fail(source: &str, key: &str, reason: String) -> FailedRecord {
    FailedRecord { source: source.into(), key: key.into(), reason }
}

/// Splits a dump (gzip or plain JSON Lines) into records. A line that is not UTF-8 and a
/// gzip stream that breaks off are recorded; the lines before them are kept.
fn read_dump_lines(document: &str, bytes: &[u8], out: &mut Vec<RawRecord>, failed: &mut Vec<FailedRecord>) {
    let gz = bytes.starts_with(&[0x1f, 0x8b]);
    let reader: Box<dyn Read + '_> =
        if gz { Box::new(flate2::read::MultiGzDecoder::new(bytes)) } else { Box::new(bytes) };
    let mut reader = std::io::BufReader::new(reader);
    let mut line_no = 0usize;
    let cap = crate::bounded_read::max_decompressed_bytes();
    loop {
        let mut line = Vec::new();
        match crate::bounded_read::read_line_capped(&mut reader, cap, &mut line) {
            Ok(crate::bounded_read::CappedLine::End) => break,
            Ok(crate::bounded_read::CappedLine::TooLarge { bytes }) => {
                line_no += 1;
                let reason = crate::bounded_read::line_too_large_reason(bytes, cap);
                failed.push(fail(ingest::oldp::SOURCE, &format!("{document}#{line_no}"), reason));
            }
            Ok(crate::bounded_read::CappedLine::Line) => {
                line_no += 1;
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                out.push(RawRecord {
                    source: ingest::oldp::SOURCE,
                    document: document.into(),
                    key: format!("{document}#{line_no}"),
                    bytes: line,
                    toc_court: None,
                });
            }
            Err(e) => {
                let key = format!("{document}#{}", line_no + 1);
                let what = if gz { "gzip stream breaks off" } else { "read error" };
                failed.push(fail(
                    ingest::oldp::SOURCE,
                    &key,
                    format!("truncated_dump: {what} after line {line_no}: {e}"),
                ));
                break;
            }
        }
    }
}

/// Normalises one record, or reuses the cached result for the same bytes and version.
fn normalise_cached(cache: &Path, raw: &RawRecord) -> (Normalised, bool) {
    let sha = hex::encode(Sha256::digest(&raw.bytes));
    let path = cache.join(&sha[..2]).join(format!("{sha}.v{DECISION_EXTRACT_VERSION}.json"));
    if let Ok(b) = std::fs::read(&path)
        && let Ok(n) = serde_json::from_slice::<Normalised>(&b)
    {
        return (n, true);
    }
    let n = normalise(raw);
    if let Ok(json) = serde_json::to_vec(&n) {
        // A cache write that fails only costs time on the next run.
        let _ = crate::write_atomic(&path, &json);
    }
    (n, false)
}

fn normalise(raw: &RawRecord) -> Normalised {
    let caught = std::panic::catch_unwind(|| -> Normalised {
        match raw.source {
            "rii" => {
                let (_, xml) = crate::gii_xml::xml_from_zip(&raw.bytes).map_err(|e| match e {
                    // Its reason starts with the problem's spelling already.
                    crate::gii_xml::LawXmlError::Capped(c) => c.to_string(),
                    other => format!("zip: {other}"),
                })?;
                let doc = parse_rii_xml(&xml).map_err(|e| format!("{}: {e}", e.reason()))?;
                Ok((raw.key.clone(), doc))
            }
            _ => {
                let line = std::str::from_utf8(&raw.bytes).map_err(|e| format!("invalid_encoding: {e}"))?;
                let rec = parse_oldp_line(line).map_err(|e| format!("{}: {e}", e.reason()))?;
                let id = match &rec.id {
                    Some(serde_json::Value::Number(n)) => n.to_string(),
                    Some(serde_json::Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
                    _ => raw.key.clone(),
                };
                let mut doc = normalise_oldp(&rec).map_err(|e| format!("{}: {e}", e.reason()))?;
                if doc.meta.court_name_raw.is_none() {
                    doc.meta.court_name_raw = rec.court.as_ref().and_then(|c| c.name.clone());
                }
                Ok((id, doc))
            }
        }
    });
    caught.unwrap_or_else(|_| Err("normaliser_panicked: the record was skipped (a bug; please report)".into()))
}

fn to_record(raw: &RawRecord, record_id: String, doc: DecisionDoc, table: &CourtTable) -> DecisionRecord {
    let court_name = doc.meta.court_name_raw.clone().or_else(|| raw.toc_court.clone());
    let mut court = court_name.as_deref().and_then(|n| table.canonical(n));
    if let Some(c) = &mut court
        && c.branch == crate::courts::Branch::Unbekannt
        && c.level != Some(0)
        && let Some(b) = doc.meta.court_jurisdiction_raw.as_deref().and_then(branch_of_jurisdiction)
    {
        c.branch = b;
    }
    let id = match raw.source {
        "rii" => format!("rii-{record_id}"),
        _ => format!("oldp-{}", record_id.replace(['#', ' ', '/'], "-")),
    };
    DecisionRecord {
        id,
        court,
        sources: vec![SourceRef {
            source: raw.source.into(),
            document: raw.document.clone(),
            record_id,
            source_format: doc.meta.source_format.clone(),
            text_chars: doc.text.chars().count(),
        }],
        doc,
    }
}

/// How good a copy's text is, for choosing the primary of merged copies.
fn richness(r: &DecisionRecord) -> (usize, usize) {
    let format_rank = match r.doc.meta.source_format.as_str() {
        "rii-xml" => 5,
        "html" | "html-python-bytes" | "byrecht-xml" => 4,
        "oldp-markdown" => 3,
        "plain-text" => 2,
        "pdf-text" => 1,
        _ => 0,
    };
    (if r.doc.text.trim().is_empty() { 0 } else { 1 + format_rank }, r.doc.text.len())
}

/// Merges records that share court, date and a file number into one decision.
pub fn merge_copies(records: Vec<DecisionRecord>) -> Vec<DecisionRecord> {
    let n = records.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    let mut first_of: HashMap<(String, String, String), usize> = HashMap::new();
    for (i, r) in records.iter().enumerate() {
        let (Some(court), Some(date)) = (&r.court, &r.doc.meta.date) else { continue };
        for f in &r.doc.meta.file_numbers {
            let key = (court.name.clone(), date.clone(), f.split_whitespace().collect::<Vec<_>>().join(" "));
            match first_of.get(&key) {
                Some(&j) => {
                    let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                    parent[a] = b;
                }
                None => {
                    first_of.insert(key, i);
                }
            }
        }
    }
    let mut groups: HashMap<usize, Vec<DecisionRecord>> = HashMap::new();
    let mut order = Vec::new();
    for (i, r) in records.into_iter().enumerate() {
        let root = find(&mut parent, i);
        let g = groups.entry(root).or_default();
        if g.is_empty() {
            order.push(root);
        }
        g.push(r);
    }
    order
        .into_iter()
        .map(|root| {
            let mut g = groups.remove(&root).expect("group exists");
            g.sort_by_key(|r| std::cmp::Reverse(richness(r)));
            let mut primary = g.remove(0);
            for copy in g {
                for f in copy.doc.meta.file_numbers {
                    if !primary.doc.meta.file_numbers.contains(&f) {
                        primary.doc.meta.file_numbers.push(f);
                    }
                }
                if primary.doc.meta.ecli.is_none() {
                    primary.doc.meta.ecli = copy.doc.meta.ecli;
                }
                primary.sources.extend(copy.sources);
            }
            primary
        })
        .collect()
}
