//! The decisions run: every record of every Open Legal Data dump and every rii zip in the
//! catalog → normalised documents ([`crate::decisions`]) → canonical courts
//! ([`crate::courts`]) → second copies merged → the decisions' lines in content-addressed parts
//! (`work/extract/decisions/parts/`, listed by `decisions.parts`: [`crate::line_parts`]), and
//! `work/extract/decisions/current.json` last (the done-marker, with the counts and every
//! record that could not be used).
//!
//! Invariants:
//! - every source record ends up in exactly one decision (alone or merged) or in the catalog's
//!   `problems` with its reason; `current.json` counts both, so nothing is lost silently;
//! - normalised records are cached by the sha256 of the record's bytes and
//!   [`DECISION_EXTRACT_VERSION`] (zstd-compressed JSON): an unchanged record is never
//!   normalised again; a run that reads the records leaves only the files of the records it
//!   read (a changed record's earlier file goes), so the cache does not grow night by night;
//! - two records are one decision when they share court, date and a file number; the copy
//!   with the richer text is the primary, and every copy is listed in `sources`;
//! - what a night reuses is keyed by everything it is a function of: a line of the last run's
//!   parts is copied only under its `line_key`, a part is kept only under its chunk key (its
//!   lines' keys), both only while `decisions.lines` describes that very list of parts; a
//!   record is grouped by its kept `SlotHead` only under its `slot_key` and while its cache
//!   file exists. Either way the output equals a run that
//!   reads everything (the nightly test compares them byte for byte).

use std::collections::HashMap;
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use catalog::Catalog;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::courts::{Court, CourtTable, branch_of_jurisdiction};
use crate::decision_lines::{DecisionHead, EarlierLines, LinesWriter};
use crate::decisions::{DecisionDoc, normalise_oldp, parse_oldp_line, parse_rii_xml};
use crate::line_parts::{PartEntry, PartSpan, PartedLines, PartsLayout};

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
    /// What the decision was made from: the sha256 of its source record's bytes under
    /// [`DECISION_EXTRACT_VERSION`] (of all its copies' when merged). Later stages reuse their
    /// work for a decision while it is unchanged; empty in output of older builds.
    #[serde(default)]
    pub input_sha: String,
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
    /// sha256 of `decisions.parts` (which names each part by its bytes' sha256).
    pub sha256: String,
    /// What the run read ([`input_fingerprint`]); a run with the same input rewrites nothing.
    #[serde(default)]
    pub input_fingerprint: String,
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

/// Where the decisions' lines lie: content-addressed parts in `parts/`, listed in order by
/// `decisions.parts` ([`crate::line_parts`]).
pub fn parts_layout(data_dir: &Path) -> PartsLayout {
    PartsLayout {
        list: dir(data_dir).join("decisions.parts"),
        dir: dir(data_dir).join("parts"),
        line_is: "decision",
        stage: "extract",
    }
}

/// The decisions of the last complete run, to read line by line.
pub fn open_decisions(data_dir: &Path) -> Result<PartedLines> {
    PartedLines::open(parts_layout(data_dir))
}

/// `decisions.parts`' companion ([`crate::decision_lines`]): the list it describes, then each
/// line's `line_key`, place and head. The next run copies a line whose key it computes again
/// instead of reading, merging and serialising its copies; later stages read heads from it.
pub fn line_keys_path(data_dir: &Path) -> PathBuf {
    dir(data_dir).join("decisions.lines")
}

/// What the merge needed of each cached record in the last run (`SlotHead`, JSON Lines), so
/// that a record seen before is grouped without reading its cache file again.
pub fn slot_heads_path(data_dir: &Path) -> PathBuf {
    dir(data_dir).join("slots.jsonl")
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

/// Where a line is in one file (a head in `decisions.lines`): its
/// byte offset and length (the newline included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineSpan {
    pub offset: u64,
    pub len: usize,
}

/// Streams a part of every decision of the last complete run with where its line is, `T`
/// naming the fields wanted (the rest of each line, the text included, is skipped, not kept);
/// a line that is not a decision is an error naming its part and place.
pub(crate) fn read_located_parts<T: serde::de::DeserializeOwned>(
    data_dir: &Path,
) -> Result<impl Iterator<Item = Result<(PartSpan, T)>> + use<T>> {
    Ok(open_decisions(data_dir)?.records::<T>())
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
    /// Lines not built again: copied from the last run's parts, or in a part kept whole.
    pub lines_copied: usize,
    /// Parts of the last run kept as they were, and parts written.
    pub parts_kept: usize,
    pub parts_written: usize,
    /// Cache files of records this run did not read (changed or gone), removed, and their bytes.
    pub cache_removed: usize,
    pub cache_removed_bytes: u64,
    /// The input equals the last run's: nothing was read or rewritten.
    pub unchanged: bool,
    /// Wall seconds reading every record (decompress, hash, normalise what changed), and
    /// merging and writing the parts with `decisions.lines`.
    pub read_secs: f64,
    pub write_secs: f64,
}

impl DecisionsSummary {
    pub fn line(&self, secs: f64) -> String {
        if self.unchanged {
            return format!(
                "extract decisions: input unchanged ({} records, {} decisions, {} failed); nothing rewritten in {:.1} s",
                self.records_read, self.decisions, self.failed, secs
            );
        }
        format!(
            "extract decisions: {} records; {} normalised, {} unchanged (reused), {} failed; {} decisions ({} second copies merged; {} lines copied as they were; {} parts kept, {} parts written); {} stale cache files removed ({:.1} MB); {:.1} MB in {:.1} s (read records {:.1} s, write decisions {:.1} s)",
            self.records_read,
            self.normalised,
            self.reused,
            self.failed,
            self.decisions,
            self.merged,
            self.lines_copied,
            self.parts_kept,
            self.parts_written,
            self.cache_removed,
            self.cache_removed_bytes as f64 / 1e6,
            self.bytes as f64 / 1e6,
            secs,
            self.read_secs,
            self.write_secs
        )
    }
}

/// Where one source record came from: enough to name it in a problem, to build its
/// [`SourceRef`] and to find its normalisation again.
struct Origin {
    source: &'static str,
    document: Arc<str>,
    /// `<document>#<line>` or the DOKNR: where to find it again.
    key: String,
    /// The rii toc's court line, a fallback when the XML names none.
    toc_court: Option<String>,
}

/// One source record before normalisation.
struct RawRecord {
    origin: Origin,
    bytes: Vec<u8>,
}

type Normalised = std::result::Result<(String, DecisionDoc), String>;

/// Records are normalised this many at a time, and merged decisions written this many at a
/// time: the stage holds one batch of texts, never the corpus.
const BATCH: usize = 256;

/// Where a normalised record waits for the merge: its cache file (the usual case), or in
/// memory when the cache could not be written.
enum Stored {
    Cache(PathBuf),
    Memory(Box<DecisionRecord>),
}

/// What the merge needs of one normalised record; its text stays in the cache.
struct Slot {
    origin: Origin,
    /// sha256 of the record's bytes.
    sha: String,
    stored: Stored,
    court: Option<String>,
    date: Option<String>,
    file_numbers: Vec<String>,
}

/// What the merge needs of a cached record, under its [`slot_key`] (`slots.jsonl`).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct SlotHead {
    key: String,
    court: Option<String>,
    date: Option<String>,
    file_numbers: Vec<String>,
}

/// What a record's [`SlotHead`] is a function of: [`line_basis`], its source and toc court,
/// and its bytes (sha256).
fn slot_key(basis: &str, origin: &Origin, sha: &str) -> String {
    let member = serde_json::to_string(&(origin.source, &origin.toc_court, sha)).unwrap_or_default();
    hex::encode(Sha256::digest(format!("{basis}\n{member}")))
}

/// The last run's slot heads by key; empty when there are none or they cannot be read (the
/// records' cache files are read instead).
fn read_slot_heads(data_dir: &Path) -> HashMap<String, SlotHead> {
    let Ok(text) = std::fs::read_to_string(slot_heads_path(data_dir)) else { return HashMap::new() };
    text.lines().map_while(|l| serde_json::from_str::<SlotHead>(l).ok()).map(|h| (h.key.clone(), h)).collect()
}

/// Writes the slot heads of every slot whose record is in the cache.
fn write_slot_heads(data_dir: &Path, basis: &str, slots: &[Slot]) -> Result<()> {
    let mut out = Vec::new();
    for s in slots.iter().filter(|s| matches!(s.stored, Stored::Cache(_))) {
        let head = SlotHead {
            key: slot_key(basis, &s.origin, &s.sha),
            court: s.court.clone(),
            date: s.date.clone(),
            file_numbers: s.file_numbers.clone(),
        };
        serde_json::to_writer(&mut out, &head)?;
        out.push(b'\n');
    }
    crate::write_atomic(&slot_heads_path(data_dir), &out)?;
    Ok(())
}

/// One record after pass 1's look at it.
enum Outcome {
    /// Seen by an earlier run under the same [`slot_key`] and still in the cache: its head is
    /// the earlier run's, its cache file is not read.
    Known { head: SlotHead, sha: String, path: PathBuf },
    /// Normalised now, or read back from the cache (`reused`); `cached_at` is where the cache
    /// holds it (None: the cache could not be written).
    Read { result: Box<Normalised>, sha: String, cached_at: Option<PathBuf>, reused: bool },
}

/// Pass 1: records arrive one by one, are normalised a batch at a time (in parallel) and
/// leave only a [`Slot`] behind.
struct Pass1 {
    cache: PathBuf,
    table: &'static CourtTable,
    /// The last run's slot heads, and what their keys are made from.
    known: HashMap<String, SlotHead>,
    basis: String,
    /// [`slot_heads_path`].
    slot_heads: PathBuf,
    slots: Vec<Slot>,
    failed: Vec<FailedRecord>,
    /// The records whose normalisation failed (cached as a failure too), by sha256.
    failed_shas: Vec<String>,
    summary: DecisionsSummary,
    batch: Vec<RawRecord>,
    bar: indicatif::ProgressBar,
}

impl Pass1 {
    fn push(&mut self, raw: RawRecord) {
        self.batch.push(raw);
        if self.batch.len() >= BATCH {
            self.flush();
        }
    }

    fn flush(&mut self) {
        let batch = std::mem::take(&mut self.batch);
        let (cache, known, basis) = (&self.cache, &self.known, self.basis.as_str());
        let results: Vec<Outcome> = batch.par_iter().map(|r| normalise_cached(cache, r, known, basis)).collect();
        self.bar.inc(batch.len() as u64);
        for (raw, outcome) in batch.into_iter().zip(results) {
            self.summary.bytes += raw.bytes.len() as u64;
            let (result, sha, cached_at, reused) = match outcome {
                Outcome::Known { head, sha, path } => {
                    self.summary.reused += 1;
                    let SlotHead { court, date, file_numbers, .. } = head;
                    let stored = Stored::Cache(path);
                    self.slots.push(Slot { origin: raw.origin, sha, stored, court, date, file_numbers });
                    continue;
                }
                Outcome::Read { result, sha, cached_at, reused } => (*result, sha, cached_at, reused),
            };
            match result {
                Ok((record_id, doc)) => {
                    if reused {
                        self.summary.reused += 1
                    } else {
                        self.summary.normalised += 1
                    }
                    let rec = to_record(&raw.origin, &sha, record_id, doc, self.table);
                    let (court, date, file_numbers) = (
                        rec.court.as_ref().map(|c| c.name.clone()),
                        rec.doc.meta.date.clone(),
                        rec.doc.meta.file_numbers.clone(),
                    );
                    let stored = match cached_at {
                        Some(p) => Stored::Cache(p),
                        None => Stored::Memory(Box::new(rec)),
                    };
                    self.slots.push(Slot { origin: raw.origin, sha, stored, court, date, file_numbers });
                }
                Err(reason) => {
                    self.failed_shas.push(sha);
                    self.failed.push(fail(raw.origin.source, &raw.origin.key, reason));
                }
            }
        }
    }

    /// The decision record of slot `i`, read back from the cache. A cache file that cannot be
    /// used is removed with the slot heads (which vouched for it), so the next run normalises
    /// its record again.
    fn load(&self, i: usize) -> Result<DecisionRecord> {
        let slot = &self.slots[i];
        match &slot.stored {
            Stored::Memory(rec) => Ok((**rec).clone()),
            Stored::Cache(p) => {
                let parsed = read_cached(p).and_then(|n| n.map_err(|e| format!("holds a failure now ({e})")));
                match parsed {
                    Ok((record_id, doc)) => Ok(to_record(&slot.origin, &slot.sha, record_id, doc, self.table)),
                    Err(why) => {
                        let _ = std::fs::remove_file(p);
                        let _ = std::fs::remove_file(&self.slot_heads);
                        bail!("the cached normalisation {} {why}; it was removed: run `extract` again", p.display())
                    }
                }
            }
        }
    }
}

/// What the decisions run reads, as one hash: the extractor version, the court table, the
/// size cap and every source document's content address (the raw path is `<sha256>.<ext>`).
/// Equal to the last run's: the output would be the same, so nothing is read or rewritten.
fn input_fingerprint(
    oldp: &[catalog::DocumentRow],
    toc: &[catalog::TocItem],
    rii_docs: &HashMap<String, catalog::DocumentRow>,
) -> String {
    let mut h = Sha256::new();
    h.update(format!(
        "extract {DECISION_EXTRACT_VERSION}; courts {}; cap {}\n",
        hex::encode(Sha256::digest(crate::courts::REFERENCE_TSV)),
        crate::bounded_read::max_decompressed_bytes()
    ));
    for d in oldp {
        h.update(format!("oldp {} {}\n", d.key, d.raw_path));
    }
    for item in toc {
        let raw = rii_docs.get(&item.key).map(|d| d.raw_path.as_str()).unwrap_or("-");
        h.update(format!("rii {} {} {}\n", item.key, raw, item.extra.as_deref().unwrap_or("")));
    }
    hex::encode(h.finalize())
}

pub fn run(data_dir: &Path) -> Result<DecisionsSummary> {
    let catalog = Catalog::open(data_dir)?;
    let oldp_docs = catalog.documents(catalog::sources::OLDP)?;
    let rii_docs: HashMap<String, catalog::DocumentRow> =
        catalog.documents(catalog::sources::RII)?.into_iter().map(|d| (d.key.clone(), d)).collect();
    let toc = catalog.toc(catalog::sources::RII)?;
    let fingerprint = input_fingerprint(&oldp_docs, &toc, &rii_docs);
    if let Some(m) = read_manifest(data_dir)?
        && m.input_fingerprint == fingerprint
        && m.extract_version == DECISION_EXTRACT_VERSION
        && crate::line_parts::list_is_whole(&parts_layout(data_dir))
    {
        return Ok(DecisionsSummary {
            records_read: m.records_read,
            failed: m.failed.len(),
            decisions: m.decisions,
            merged: m.merged_copies,
            unchanged: true,
            ..Default::default()
        });
    }
    let started = std::time::Instant::now();
    let run_id = catalog.start_run("extract", Some("decisions"))?;
    let bar = catalog::cli::progress_bar(toc.len() as u64, "extract decisions");
    let basis = line_basis();
    let mut pass = Pass1 {
        cache: dir(data_dir).join("records"),
        table: CourtTable::shipped(),
        known: read_slot_heads(data_dir),
        basis: basis.clone(),
        slot_heads: slot_heads_path(data_dir),
        slots: Vec::new(),
        failed: Vec::new(),
        failed_shas: Vec::new(),
        summary: DecisionsSummary::default(),
        batch: Vec::with_capacity(BATCH),
        bar,
    };

    for d in &oldp_docs {
        let path = data_dir.join(&d.raw_path);
        let f = std::fs::File::open(&path).with_context(|| format!("raw copy of {}", d.key))?;
        read_dump_lines(&d.key, f, &mut pass).with_context(|| format!("raw copy of {}", d.key))?;
    }
    for item in &toc {
        let toc_court = item
            .extra
            .as_deref()
            .and_then(|e| serde_json::from_str::<catalog::sources::RiiTocEntry>(e).ok())
            .map(|e| e.gericht);
        match rii_docs.get(&item.key) {
            Some(d) => match std::fs::read(data_dir.join(&d.raw_path)) {
                Ok(bytes) => pass.push(RawRecord {
                    origin: Origin {
                        source: catalog::sources::RII,
                        document: Arc::from(item.key.as_str()),
                        key: item.key.clone(),
                        toc_court,
                    },
                    bytes,
                }),
                Err(e) => pass.failed.push(fail("rii", &item.key, format!("raw copy unreadable: {e}"))),
            },
            None => {
                let why = catalog.last_fetch_failure("rii", &item.key)?.unwrap_or_else(|| "never fetched".into());
                pass.failed.push(fail("rii", &item.key, format!("no copy fetched: {why}")));
            }
        }
    }
    pass.flush();
    pass.bar.finish_and_clear();
    pass.summary.records_read = pass.slots.len() + pass.failed.len();
    pass.known = HashMap::new();
    pass.summary.read_secs = started.elapsed().as_secs_f64();
    write_slot_heads(data_dir, &basis, &pass.slots)?;

    // Pass 2: second copies merged, one batch of groups read back and written at a time.
    let groups = merge_groups(pass.slots.iter().map(|s| (s.court.as_deref(), s.date.as_deref(), &s.file_numbers[..])));
    let keys: Vec<String> = groups.iter().map(|g| line_key(&basis, g.iter().map(|&i| &pass.slots[i]))).collect();
    let earlier = read_manifest(data_dir)?.and_then(|m| EarlierLines::open(data_dir, &m.sha256));
    let out = write_decisions(data_dir, &groups, &keys, earlier.as_ref(), |i| pass.load(i))?;
    drop(earlier);
    let (sha256, written) = (out.sha256, groups.len());
    let mut summary = std::mem::take(&mut pass.summary);
    summary.lines_copied = out.copied;
    summary.parts_kept = out.parts_kept;
    summary.parts_written = out.parts.len() - out.parts_kept;
    summary.write_secs = started.elapsed().as_secs_f64() - summary.read_secs;
    summary.decisions = written;
    summary.merged = pass.slots.len() - written;
    summary.failed = pass.failed.len();
    for f in &pass.failed {
        catalog.record_problem(Some(run_id), &f.source, &f.key, "extract", &f.reason)?;
    }
    let manifest = DecisionsManifest {
        extract_version: DECISION_EXTRACT_VERSION,
        records_read: summary.records_read,
        decisions: written,
        merged_copies: summary.merged,
        failed: std::mem::take(&mut pass.failed),
        sha256,
        input_fingerprint: fingerprint,
    };
    crate::write_atomic(&manifest_path(data_dir), &serde_json::to_vec_pretty(&manifest)?)?;
    // The list and the manifest name the new parts: what no list names now goes, and the
    // single `decisions.jsonl` of builds before the parts.
    crate::line_parts::remove_unlisted(&parts_layout(data_dir), &out.parts);
    let _ = std::fs::remove_file(dir(data_dir).join("decisions.jsonl"));
    let mut keep: Vec<&str> =
        pass.slots.iter().map(|s| s.sha.as_str()).chain(pass.failed_shas.iter().map(String::as_str)).collect();
    keep.sort_unstable();
    (summary.cache_removed, summary.cache_removed_bytes) = remove_stale_cache(&pass.cache, &keep);
    catalog.finish_run(run_id, 0, &summary.line(0.0))?;
    Ok(summary)
}

/// Everything a decision's line depends on besides its copies: the extractor
/// version, the court table and the size cap.
fn line_basis() -> String {
    format!(
        "line; extract {DECISION_EXTRACT_VERSION}; courts {}; cap {}",
        hex::encode(Sha256::digest(crate::courts::REFERENCE_TSV)),
        crate::bounded_read::max_decompressed_bytes()
    )
}

/// What a decision's line is made from: [`line_basis`] and, in the group's order,
/// each copy's source, document, toc court and record bytes (sha256). The line is a function
/// of these, so an equal key means an equal line.
fn line_key<'a>(basis: &str, members: impl Iterator<Item = &'a Slot>) -> String {
    let mut h = Sha256::new();
    h.update(basis);
    for s in members {
        let o = &s.origin;
        let member = serde_json::to_string(&(o.source, &*o.document, &o.toc_court, &s.sha)).unwrap_or_default();
        h.update(b"\n");
        h.update(member);
    }
    hex::encode(h.finalize())
}

/// What [`write_decisions`] wrote.
struct Written {
    /// sha256 of `decisions.parts`.
    sha256: String,
    /// Lines not built again: copied from an earlier part, or in a part kept whole.
    copied: usize,
    parts: Vec<PartEntry>,
    /// Parts of the last run kept as they were (not read, not written).
    parts_kept: usize,
}

/// Parts built at a time (in parallel): a few dozen texts in memory, never the corpus.
const PARTS_PER_BATCH: usize = 32;

/// One part of the new list: kept from the last run or written now, with each line's length
/// and head's JSON for `decisions.lines`.
pub(crate) struct BuiltPart {
    pub(crate) entry: PartEntry,
    pub(crate) lines: Vec<(usize, Vec<u8>)>,
    /// Lines not built again.
    pub(crate) copied: usize,
    pub(crate) kept: bool,
}

/// Writes the decisions as parts ([`crate::line_parts`]) from the merge groups, then
/// `decisions.lines` and `decisions.parts` (temp, fsync, rename). A part whose chunk key the
/// `earlier` run listed is kept as it is; in any other, a group whose key (`keys`, one per
/// group) names an earlier line gets that line and its head, and the rest are loaded member
/// by member with `load`, merged and serialised.
fn write_decisions(
    data_dir: &Path,
    groups: &[Vec<usize>],
    keys: &[String],
    earlier: Option<&EarlierLines>,
    load: impl Fn(usize) -> Result<DecisionRecord> + Sync,
) -> Result<Written> {
    let layout = parts_layout(data_dir);
    let chunks = crate::line_parts::chunks(keys);
    let mut entries = LinesWriter::create(data_dir)?;
    let (mut parts, mut copied, mut parts_kept) = (Vec::with_capacity(chunks.len()), 0usize, 0usize);
    for batch in chunks.chunks(PARTS_PER_BATCH) {
        let built: Vec<Result<BuiltPart>> = batch
            .par_iter()
            .map(|r| {
                let chunk_keys = &keys[r.clone()];
                let chunk_key = crate::line_parts::chunk_key(chunk_keys);
                if let Some(kept) = earlier.and_then(|e| e.kept_part(&chunk_key, chunk_keys)) {
                    return Ok(kept);
                }
                let (mut lines, mut heads, mut copied) = (Vec::new(), Vec::new(), 0);
                for (g, key) in groups[r.clone()].iter().zip(chunk_keys) {
                    if let Some((line, head)) = earlier.and_then(|e| e.line(key)) {
                        copied += 1;
                        lines.push(line);
                        heads.push(head);
                        continue;
                    }
                    let copies = g.iter().map(|&i| load(i)).collect::<Result<Vec<_>>>()?;
                    let merged = merge_group(copies);
                    heads.push(serde_json::to_vec(&DecisionHead::of(&merged))?);
                    let mut line = serde_json::to_vec(&merged)?;
                    line.push(b'\n');
                    lines.push(line);
                }
                let entry = crate::line_parts::write_part(&layout, chunk_key, &lines)?;
                let lines = lines.iter().map(Vec::len).zip(heads).collect();
                Ok(BuiltPart { entry, lines, copied, kept: false })
            })
            .collect();
        for (r, b) in batch.iter().zip(built) {
            let b = b?;
            let part = parts.len() as u32;
            let mut offset = 0u64;
            for ((len, head), key) in b.lines.iter().zip(&keys[r.clone()]) {
                entries.push(key, PartSpan { part, offset, len: *len }, head)?;
                offset += *len as u64;
            }
            copied += b.copied;
            parts_kept += usize::from(b.kept);
            parts.push(b.entry);
        }
    }
    // The lines first: until the manifest names this list, they match no manifest.
    let sha256 = crate::line_parts::write_list(&layout, &parts, |sha256, list| entries.finish(sha256, list))?;
    Ok(Written { sha256, copied, parts, parts_kept })
}

fn fail(source: &str, key: &str, reason: String) -> FailedRecord {
    FailedRecord { source: source.into(), key: key.into(), reason }
}

/// What the reader of a dump hands over: a record, or one that could not be read.
enum DumpItem {
    Record(RawRecord),
    Failed(FailedRecord),
}

/// Streams a dump (gzip or plain JSON Lines) record by record into `pass`: a second thread
/// decompresses and splits lines while `pass` hashes and normalises the batch before. A line
/// that is too large and a gzip stream that breaks off are recorded; the lines before them
/// are kept.
fn read_dump_lines(document: &str, file: std::fs::File, pass: &mut Pass1) -> Result<()> {
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<DumpItem>>(4);
    std::thread::scope(|s| {
        let reader = s.spawn(move || split_dump(document, file, tx));
        for chunk in rx {
            for item in chunk {
                match item {
                    DumpItem::Record(raw) => {
                        pass.bar.inc_length(1);
                        pass.push(raw);
                    }
                    DumpItem::Failed(f) => pass.failed.push(f),
                }
            }
        }
        reader.join().map_err(|_| anyhow::anyhow!("the reader of dump {document} panicked"))?
    })
}

/// [`read_dump_lines`]' reader: the dump's lines as [`DumpItem`]s, a few dozen at a time.
fn split_dump(document: &str, file: std::fs::File, tx: std::sync::mpsc::SyncSender<Vec<DumpItem>>) -> Result<()> {
    const CHUNK: usize = 64;
    let mut buffered = std::io::BufReader::with_capacity(1 << 16, file);
    let gz = buffered.fill_buf()?.starts_with(&[0x1f, 0x8b]);
    let reader: Box<dyn Read> =
        if gz { Box::new(flate2::read::MultiGzDecoder::new(buffered)) } else { Box::new(buffered) };
    let mut reader = std::io::BufReader::with_capacity(1 << 16, reader);
    let document: Arc<str> = Arc::from(document);
    let mut line_no = 0usize;
    let cap = crate::bounded_read::max_decompressed_bytes();
    let mut chunk = Vec::with_capacity(CHUNK);
    loop {
        let mut line = Vec::new();
        match crate::bounded_read::read_line_capped(&mut reader, cap, &mut line) {
            Ok(crate::bounded_read::CappedLine::End) => break,
            Ok(crate::bounded_read::CappedLine::TooLarge { bytes }) => {
                line_no += 1;
                let reason = crate::bounded_read::line_too_large_reason(bytes, cap);
                chunk.push(DumpItem::Failed(fail(catalog::sources::OLDP, &format!("{document}#{line_no}"), reason)));
            }
            Ok(crate::bounded_read::CappedLine::Line) => {
                line_no += 1;
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                chunk.push(DumpItem::Record(RawRecord {
                    origin: Origin {
                        source: catalog::sources::OLDP,
                        document: document.clone(),
                        key: format!("{document}#{line_no}"),
                        toc_court: None,
                    },
                    bytes: line,
                }));
            }
            Err(e) => {
                let key = format!("{document}#{}", line_no + 1);
                let what = if gz { "gzip stream breaks off" } else { "read error" };
                chunk.push(DumpItem::Failed(fail(
                    catalog::sources::OLDP,
                    &key,
                    format!("truncated_dump: {what} after line {line_no}: {e}"),
                )));
                break;
            }
        }
        if chunk.len() >= CHUNK && tx.send(std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK))).is_err() {
            return Ok(());
        }
    }
    let _ = tx.send(chunk);
    Ok(())
}

/// Normalises one record, or reuses the cached result for the same bytes and version.
/// Returns the result, where the cache holds it (None: the cache could not be written) and
/// whether it was reused. Cache files are not fsynced: a torn one is unreadable and only
/// costs a normalisation on the next run.
fn normalise_cached(cache: &Path, raw: &RawRecord, known: &HashMap<String, SlotHead>, basis: &str) -> Outcome {
    let sha = hex::encode(Sha256::digest(&raw.bytes));
    let path = cache_path(cache, &sha);
    if let Some(head) = known.get(&slot_key(basis, &raw.origin, &sha))
        && path.is_file()
    {
        return Outcome::Known { head: head.clone(), sha, path };
    }
    if let Ok(n) = read_cached(&path) {
        return Outcome::Read { result: Box::new(n), sha, cached_at: Some(path), reused: true };
    }
    let n = normalise(raw);
    let cached = write_cached(&path, &n).is_ok();
    Outcome::Read { result: Box::new(n), sha, cached_at: cached.then_some(path), reused: false }
}

/// The cache file of the record whose bytes hash to `sha`.
fn cache_path(cache: &Path, sha: &str) -> PathBuf {
    cache.join(&sha[..2]).join(cache_file_name(sha))
}

fn cache_file_name(sha: &str) -> String {
    format!("{sha}.v{DECISION_EXTRACT_VERSION}.json.zst")
}

/// zstd's fastest level: the cache is written once per changed record and read back when
/// second copies are merged; JSON of decision texts shrinks about 3 to 4 times at it (a
/// quarter of the data dir at 250,000 decisions was this cache, uncompressed).
const CACHE_ZSTD_LEVEL: i32 = 1;

fn write_cached(path: &Path, n: &Normalised) -> std::io::Result<()> {
    let json = serde_json::to_vec(n).map_err(std::io::Error::other)?;
    crate::write_replace(path, &zstd::bulk::compress(&json, CACHE_ZSTD_LEVEL)?)
}

/// No cached normalisation is larger than this (a record's content is capped far below it).
const MAX_CACHED_BYTES: usize = 256 << 20;

/// A cache file's normalisation, or why it cannot be used (its caller removes it).
fn read_cached(path: &Path) -> std::result::Result<Normalised, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot be read ({e})"))?;
    let json = crate::zstd_frame::decompress(&bytes, MAX_CACHED_BYTES, "a cached normalisation")
        .map_err(|e| format!("is unreadable ({e:#})"))?;
    serde_json::from_slice(&json).map_err(|e| format!("is unreadable ({e})"))
}

/// Removes from the record cache every file that is not the cache file of a record in `keep`
/// (sha256s, sorted): the earlier normalisations of records that changed or vanished, files of
/// another extractor version, temp files a killed run left. Returns the files and bytes removed.
fn remove_stale_cache(cache: &Path, keep: &[&str]) -> (usize, u64) {
    let (mut files, mut bytes) = (0usize, 0u64);
    let Ok(shards) = std::fs::read_dir(cache) else { return (0, 0) };
    for shard in shards.flatten() {
        let Ok(entries) = std::fs::read_dir(shard.path()) else { continue };
        for e in entries.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            let kept = name
                .split_once('.')
                .is_some_and(|(sha, _)| keep.binary_search(&sha).is_ok() && name == cache_file_name(sha));
            if !kept {
                let size = e.metadata().map_or(0, |m| m.len());
                if std::fs::remove_file(e.path()).is_ok() {
                    files += 1;
                    bytes += size;
                }
            }
        }
    }
    (files, bytes)
}

fn normalise(raw: &RawRecord) -> Normalised {
    let caught = std::panic::catch_unwind(|| -> Normalised {
        match raw.origin.source {
            "rii" => {
                let (_, xml) = crate::gii_xml::xml_from_zip(&raw.bytes).map_err(|e| match e {
                    // Its reason starts with the problem's spelling already.
                    crate::gii_xml::LawXmlError::Capped(c) => c.to_string(),
                    other => format!("zip: {other}"),
                })?;
                let doc = parse_rii_xml(&xml).map_err(|e| format!("{}: {e}", e.reason()))?;
                Ok((raw.origin.key.clone(), doc))
            }
            _ => {
                let line = std::str::from_utf8(&raw.bytes).map_err(|e| format!("invalid_encoding: {e}"))?;
                let rec = parse_oldp_line(line).map_err(|e| format!("{}: {e}", e.reason()))?;
                let id = match &rec.id {
                    Some(serde_json::Value::Number(n)) => n.to_string(),
                    Some(serde_json::Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
                    _ => raw.origin.key.clone(),
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

fn to_record(origin: &Origin, sha: &str, record_id: String, doc: DecisionDoc, table: &CourtTable) -> DecisionRecord {
    let court_name = doc.meta.court_name_raw.clone().or_else(|| origin.toc_court.clone());
    let mut court = court_name.as_deref().and_then(|n| table.canonical(n));
    if let Some(c) = &mut court
        && c.branch == crate::courts::Branch::Unbekannt
        && c.level != Some(0)
        && let Some(b) = doc.meta.court_jurisdiction_raw.as_deref().and_then(branch_of_jurisdiction)
    {
        c.branch = b;
    }
    let id = match origin.source {
        "rii" => format!("rii-{record_id}"),
        _ => format!("oldp-{}", record_id.replace(['#', ' ', '/'], "-")),
    };
    DecisionRecord {
        id,
        court,
        sources: vec![SourceRef {
            source: origin.source.into(),
            document: origin.document.to_string(),
            record_id,
            source_format: doc.meta.source_format.clone(),
            text_chars: doc.text.chars().count(),
        }],
        doc,
        input_sha: hex::encode(Sha256::digest(format!("extract {DECISION_EXTRACT_VERSION}; record {sha}"))),
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

/// Which records are one decision: records that share court, date and a file number, given
/// as `(court, date, file numbers)` per record. Groups come in the order of their first
/// record, members in record order.
fn merge_groups<'a>(keys: impl Iterator<Item = (Option<&'a str>, Option<&'a str>, &'a [String])>) -> Vec<Vec<usize>> {
    fn find(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    let mut parent: Vec<usize> = Vec::new();
    let mut first_of: HashMap<(&str, &str, String), usize> = HashMap::new();
    for (i, (court, date, file_numbers)) in keys.enumerate() {
        parent.push(i);
        let (Some(court), Some(date)) = (court, date) else { continue };
        for f in file_numbers {
            let key = (court, date, f.split_whitespace().collect::<Vec<_>>().join(" "));
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
    let mut group_of_root: HashMap<usize, usize> = HashMap::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for i in 0..parent.len() {
        let root = find(&mut parent, i);
        let g = *group_of_root.entry(root).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(i);
    }
    groups
}

/// One decision from its copies (in record order): the richest copy is the primary; the
/// others add their file numbers, an ECLI the primary lacks, and their sources.
fn merge_group(mut copies: Vec<DecisionRecord>) -> DecisionRecord {
    let input_sha = match copies.as_slice() {
        [one] => one.input_sha.clone(),
        all => {
            let joined: Vec<&str> = all.iter().map(|c| c.input_sha.as_str()).collect();
            hex::encode(Sha256::digest(joined.join(" ")))
        }
    };
    copies.sort_by_key(|r| std::cmp::Reverse(richness(r)));
    let mut primary = copies.remove(0);
    for copy in copies {
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
    primary.input_sha = input_sha;
    primary
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cache_file_the_slot_heads_vouch_for_that_turns_out_unreadable_is_removed_with_them() {
        let dir = std::env::temp_dir().join(format!("slot-heads-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (torn, heads) = (dir.join(cache_file_name("00")), dir.join("slots.jsonl"));
        // A file cut short while it was written: the first half of a compressed normalisation.
        let whole =
            zstd::bulk::compress(br#"{"Ok": ["oldp-1", {"meta": {}, "text": "Tenor"}]}"#, CACHE_ZSTD_LEVEL).unwrap();
        std::fs::write(&torn, &whole[..whole.len() / 2]).unwrap();
        std::fs::write(&heads, b"{}\n").unwrap();
        let origin = Origin { source: "oldp", document: Arc::from("dump"), key: "dump#1".into(), toc_court: None };
        let pass = Pass1 {
            cache: dir.clone(),
            table: CourtTable::shipped(),
            known: HashMap::new(),
            basis: line_basis(),
            slot_heads: heads.clone(),
            slots: vec![Slot {
                origin,
                sha: "00".into(),
                stored: Stored::Cache(torn.clone()),
                court: None,
                date: None,
                file_numbers: Vec::new(),
            }],
            failed: Vec::new(),
            failed_shas: Vec::new(),
            summary: DecisionsSummary::default(),
            batch: Vec::new(),
            bar: indicatif::ProgressBar::hidden(),
        };
        let err = pass.load(0).unwrap_err().to_string();
        assert!(err.contains("is unreadable") && err.contains("run `extract` again"), "{err}");
        assert!(!torn.exists() && !heads.exists(), "the next run would trust the torn file again");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_record_cache_keeps_only_the_files_of_the_records_read() {
        let dir = std::env::temp_dir().join(format!("record-cache-{}", std::process::id()));
        let shas = ["aa11", "aa22", "bb33"].map(|s| format!("{s}{}", "0".repeat(60)));
        for sha in &shas {
            write_cached(&cache_path(dir.as_path(), sha), &Ok(("oldp-1".into(), Default::default()))).unwrap();
        }
        let stray = [
            dir.as_path().join("aa").join(format!("{}.v0.json", shas[0])),
            dir.as_path().join("bb").join(".tmp-123-x.json.zst"),
            dir.as_path().join("bb").join("notes.txt"),
        ];
        for p in &stray {
            std::fs::write(p, b"x").unwrap();
        }
        let keep = [shas[0].as_str(), shas[2].as_str()];
        let (files, bytes) = remove_stale_cache(dir.as_path(), &keep);
        assert_eq!(files, 4, "the unread record's file and the three strays");
        assert!(bytes >= 3);
        let left: Vec<String> = ["aa", "bb"]
            .iter()
            .flat_map(|d| std::fs::read_dir(dir.as_path().join(d)).unwrap().flatten())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        let mut expected = vec![cache_file_name(&shas[0]), cache_file_name(&shas[2])];
        expected.sort();
        let mut left = left;
        left.sort();
        assert_eq!(left, expected);
        assert!(read_cached(&cache_path(dir.as_path(), &shas[2])).unwrap().is_ok(), "a kept file still reads");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
