//! Immutable generations: build, verify, publish, open, collect.
//!
//! Invariants (DESIGN §1):
//! - a generation is built in `generations/.tmp-<id>/`, fsynced, verified, and only then
//!   renamed to `generations/<id>/`; nothing under `generations/<id>/` is ever modified;
//! - `CURRENT` names a verified generation; it is replaced by writing `CURRENT.tmp`,
//!   fsyncing it and renaming it over `CURRENT`, so a crash at any point leaves the old one;
//! - `manifest.json` lists every other file of the generation with its size and sha256, and
//!   [`Generation::open_verified`] refuses a generation whose files do not match.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tantivy::schema::Term;
use tantivy::{Index, IndexReader, ReloadPolicy, TantivyDocument};

use crate::analysis;
use crate::decisions_index::{self, DECISIONS_DIR, DecisionFields};
use crate::earlier::Earlier;
use crate::laws_index::{LAWS_DIR, LawFields};
use crate::store::{self, STORE_FILE, StorePool};
use crate::text_packs::{DecisionBody, PackWriter, TEXTS_DIR, TextPacks};

/// Bumped when the layout of a generation changes; `serve` refuses other versions.
/// 10: a decision's citations moved from the `decision_citations` table into its body.
/// 11: a decision's `build_key` and passage count, so an unchanged one is copied.
/// 12: `unheld_mentions`, each way an unheld number is cited with its decisions counted.
/// 13: `unheld_mention_groups`, their citing decisions grouped by the mentions they use.
pub const SCHEMA_VERSION: u32 = 13;
pub const MANIFEST_FILE: &str = "manifest.json";
pub const CURRENT_FILE: &str = "CURRENT";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    pub id: String,
    pub schema_version: u32,
    /// RFC 3339 UTC.
    pub built_at: String,
    /// Commit of the code that built it; null when the build did not know it.
    pub git_commit: Option<String>,
    /// Hash of everything the generation was built from; equal inputs → equal hash.
    pub input_hash: String,
    pub sources: BTreeMap<String, SourceSnapshot>,
    pub counts: BTreeMap<String, u64>,
    pub files: Vec<FileEntry>,
    /// Hash of what each shareable part was built from (`laws`: the laws' full-text index).
    /// A later build whose part input hashes the same links that part's files from this
    /// generation instead of building it again; absent in generations built before parts.
    #[serde(default)]
    pub part_inputs: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SourceSnapshot {
    /// Entries of the source's table of contents at extraction time.
    pub toc_items: u64,
    /// Records of this source in the generation.
    pub records: u64,
    /// Toc entries with no record (fetch or parse failed; reasons in the catalog).
    pub missing: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FileEntry {
    pub path: String,
    pub bytes: u64,
    pub sha256: String,
}

/// Why a generation was refused.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("manifest unreadable: {0}")]
    Manifest(String),
    #[error("schema version {found} is not the supported {SCHEMA_VERSION}")]
    SchemaVersion { found: u32 },
    #[error("file {path} missing or unreadable: {reason}")]
    MissingFile { path: String, reason: String },
    #[error("file {path} does not match the manifest ({what})")]
    Mismatch { path: String, what: String },
    #[error("store does not open: {0}")]
    Store(String),
    #[error("laws index does not open or answer: {0}")]
    Index(String),
    #[error("decisions index does not open or answer: {0}")]
    DecisionsIndex(String),
    #[error("decision texts do not open or read: {0}")]
    Texts(String),
}

/// An open, verified generation: what `serve` answers from.
pub struct Generation {
    pub id: String,
    pub dir: PathBuf,
    pub manifest: Manifest,
    pub store: StorePool,
    pub laws: Index,
    pub laws_reader: IndexReader,
    pub law_fields: LawFields,
    pub decisions: Index,
    pub decisions_reader: IndexReader,
    pub decision_fields: DecisionFields,
    /// The decisions' bodies (`texts/`).
    pub texts: TextPacks,
}

impl std::fmt::Debug for Generation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Generation").field("id", &self.id).field("dir", &self.dir).finish()
    }
}

pub fn sha256_file(path: &Path) -> std::io::Result<(u64, String)> {
    let mut f = File::open(path)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut n = 0u64;
    loop {
        let k = f.read(&mut buf)?;
        if k == 0 {
            break;
        }
        n += k as u64;
        h.update(&buf[..k]);
    }
    Ok((n, hex::encode(h.finalize())))
}

impl Generation {
    /// Opens `dir` after checking every file against the manifest, opening the store and the
    /// index, and answering a probe query. Any failure refuses the generation.
    pub fn open_verified(dir: &Path) -> Result<Generation, VerifyError> {
        let manifest = read_manifest(dir)?;
        if manifest.schema_version != SCHEMA_VERSION {
            return Err(VerifyError::SchemaVersion { found: manifest.schema_version });
        }
        crate::verified_stamp::verify_files(dir, &manifest)?;
        Self::open_checked_files(dir, manifest)
    }

    /// Opens a generation this process has just built and hashed (its manifest's hashes were
    /// computed from the files on disk after they were written): the store and the indexes
    /// are opened and probed, the files are not hashed a second time.
    fn open_just_built(dir: &Path) -> Result<Generation, VerifyError> {
        let manifest = read_manifest(dir)?;
        Self::open_checked_files(dir, manifest)
    }

    pub(crate) fn open_checked_files(dir: &Path, manifest: Manifest) -> Result<Generation, VerifyError> {
        let store = StorePool::open(&dir.join(STORE_FILE)).map_err(|e| VerifyError::Store(format!("{e:#}")))?;
        let stored_id: String = store
            .with(|c| Ok(c.query_row("SELECT value FROM meta WHERE key = 'generation_id'", [], |r| r.get(0))?))
            .map_err(|e| VerifyError::Store(format!("{e:#}")))?;
        if stored_id != manifest.id {
            return Err(VerifyError::Store(format!("store belongs to generation {stored_id}, not {}", manifest.id)));
        }
        let laws = Index::open_in_dir(dir.join(LAWS_DIR)).map_err(|e| VerifyError::Index(e.to_string()))?;
        analysis::register(&laws);
        let law_fields = LawFields::from_schema(&laws.schema()).map_err(|e| VerifyError::Index(e.to_string()))?;
        let laws_reader = laws
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(|e: tantivy::TantivyError| VerifyError::Index(e.to_string()))?;
        // Probe: the index holds what the manifest says and answers a query.
        let searcher = laws_reader.searcher();
        let expected = manifest.counts.get("sections").copied().unwrap_or(0);
        if searcher.num_docs() != expected {
            return Err(VerifyError::Index(format!("{} documents, manifest says {expected}", searcher.num_docs())));
        }
        let probe = tantivy::query::TermQuery::new(
            Term::from_field_u64(law_fields.law_id, 1),
            tantivy::schema::IndexRecordOption::Basic,
        );
        let hits = searcher
            .search(&probe, &tantivy::collector::Count)
            .map_err(|e| VerifyError::Index(format!("probe query failed: {e}")))?;
        if expected > 0 && hits == 0 {
            return Err(VerifyError::Index("probe query found nothing for law 1".into()));
        }
        // Decision row ids are stable across generations, so the first one need not be 1.
        let first_decision: Option<i64> = store
            .with(|c| Ok(c.query_row("SELECT MIN(id) FROM decisions", [], |r| r.get(0))?))
            .map_err(|e| VerifyError::Store(format!("{e:#}")))?;
        let (decisions, decisions_reader, decision_fields) = open_decisions(dir, &manifest, first_decision)?;
        let texts = open_texts(dir, &store, first_decision)?;
        let id = manifest.id.clone();
        Ok(Generation {
            id,
            dir: dir.to_path_buf(),
            manifest,
            store,
            laws,
            laws_reader,
            law_fields,
            decisions,
            decisions_reader,
            decision_fields,
            texts,
        })
    }

    /// The body (text, sections, Randnummern, citations) of the decision with row id `decision_id`.
    pub fn decision_body(&self, decision_id: i64) -> Result<DecisionBody> {
        self.store.with(|c| self.texts.body_of(c, decision_id))
    }

    /// The citations of the decision with row id `decision_id`, in the order the scanner
    /// found them (laws, then cases).
    pub fn decision_citations(&self, decision_id: i64) -> Result<Vec<crate::citation_rows::StoredCitation>> {
        crate::citation_rows::decode(&self.store.with(|c| self.texts.citations_of(c, decision_id))?)
    }
}

/// Opens the decisions' text packs and probes the first decision's body.
fn open_texts(dir: &Path, store: &StorePool, first_decision: Option<i64>) -> Result<TextPacks, VerifyError> {
    let bad = |e: anyhow::Error| VerifyError::Texts(format!("{e:#}"));
    let texts = store.with(|c| TextPacks::open(dir, c)).map_err(bad)?;
    if let Some(id) = first_decision {
        store.with(|c| texts.body_of(c, id)).map_err(bad)?;
    }
    Ok(texts)
}

/// Opens the decisions index and checks it holds the passages the manifest counts.
fn open_decisions(
    dir: &Path,
    manifest: &Manifest,
    first_decision: Option<i64>,
) -> Result<(Index, IndexReader, DecisionFields), VerifyError> {
    let bad = |e: String| VerifyError::DecisionsIndex(e);
    let idx = Index::open_in_dir(dir.join(DECISIONS_DIR)).map_err(|e| bad(e.to_string()))?;
    analysis::register(&idx);
    let fields = DecisionFields::from_schema(&idx.schema()).map_err(|e| bad(e.to_string()))?;
    let reader: IndexReader = idx
        .reader_builder()
        .reload_policy(ReloadPolicy::Manual)
        .try_into()
        .map_err(|e: tantivy::TantivyError| bad(e.to_string()))?;
    let expected = manifest.counts.get("passages").copied().unwrap_or(0);
    let searcher = reader.searcher();
    if searcher.num_docs() != expected {
        return Err(bad(format!("{} passages, manifest says {expected}", searcher.num_docs())));
    }
    if expected > 0
        && let Some(id) = first_decision
    {
        let probe = tantivy::query::TermQuery::new(
            Term::from_field_u64(fields.decision_id, id as u64),
            tantivy::schema::IndexRecordOption::Basic,
        );
        let hits = searcher.search(&probe, &tantivy::collector::Count).map_err(|e| bad(format!("probe: {e}")))?;
        if hits == 0 {
            return Err(bad(format!("probe query found nothing for decision {id}")));
        }
    }
    Ok((idx, reader, fields))
}

pub fn read_manifest(dir: &Path) -> Result<Manifest, VerifyError> {
    let p = dir.join(MANIFEST_FILE);
    let bytes = std::fs::read(&p).map_err(|e| VerifyError::Manifest(format!("{}: {e}", p.display())))?;
    serde_json::from_slice(&bytes).map_err(|e| VerifyError::Manifest(format!("{}: {e}", p.display())))
}

pub fn generations_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("generations")
}

/// The id `CURRENT` names, if any.
pub fn current_id(data_dir: &Path) -> Option<String> {
    let s = std::fs::read_to_string(data_dir.join(CURRENT_FILE)).ok()?;
    let id = s.trim();
    (!id.is_empty() && valid_id(id)).then(|| id.to_string())
}

/// Ids are `YYYYMMDDTHHMMSSmmmZ-<hex>` (UTC time to the millisecond, input hash): sortable,
/// unique, no path separators, no dots.
pub fn valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

fn fsync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

fn fsync_tree(dir: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let p = entry.path();
        if entry.file_type()?.is_dir() {
            fsync_tree(&p)?;
        } else {
            File::open(&p)?.sync_all()?;
        }
    }
    fsync_dir(dir)
}

fn list_files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let p = entry.path();
        if entry.file_type()?.is_dir() {
            list_files(root, &p, out)?;
        } else if p != root.join(MANIFEST_FILE) {
            out.push(p);
        }
    }
    Ok(())
}

/// Points `CURRENT` at `id` atomically.
pub fn write_current(data_dir: &Path, id: &str) -> Result<()> {
    let tmp = data_dir.join("CURRENT.tmp");
    {
        let mut f = File::create(&tmp)?;
        f.write_all(format!("{id}\n").as_bytes())?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, data_dir.join(CURRENT_FILE))?;
    fsync_dir(data_dir)?;
    Ok(())
}

#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// Build even when the inputs equal those of the current generation; the store is then
    /// written afresh (every decision's citations line read and checked), never patched.
    pub force: bool,
    pub git_commit: Option<String>,
    /// Do not point `CURRENT` at the new generation.
    pub no_publish: bool,
    /// Pause after this many laws (tests kill the process there).
    pub pause_after_laws: Option<usize>,
    /// Write the store afresh even when a copy of the earlier generation's could be patched.
    pub fresh_store: bool,
}

#[derive(Debug)]
pub enum BuildOutcome {
    Unchanged { id: String },
    Published(BuildSummary),
    Built(BuildSummary),
}

/// What a build wrote and what it took from earlier generations.
#[derive(Debug)]
pub struct BuildSummary {
    pub id: String,
    pub laws: u64,
    pub sections: u64,
    pub decisions: u64,
    pub seconds: f64,
    pub shared: Vec<SharedPart>,
    /// Decision bodies kept from the earlier generation or written anew, and their packs.
    pub bodies: crate::text_packs::PackCounts,
    /// Decisions whose passages were kept in, written to, or removed from the full-text index.
    pub decisions_index_kept: u64,
    pub decisions_index_written: u64,
    pub decisions_index_removed: u64,
    /// Decisions whose row was copied from the earlier generation (unchanged `build_key`), or
    /// left as it was in a patched copy of its store.
    pub decision_rows_copied: u64,
    /// The generation whose store was copied and patched ([`crate::store_patch`]); None: the
    /// store was written afresh.
    pub store_patched_from: Option<String>,
    /// Patched store: rows removed (changed decisions, written again, and those no longer
    /// held), and kept rows whose citing count changed.
    pub decision_rows_removed: u64,
    pub citing_counts_updated: u64,
    /// Patched store: wall seconds of the decisions phase spent removing rows and settling.
    pub patch_seconds: Option<(f64, f64)>,
    /// Wall seconds of each phase, in order: where a build's time goes.
    pub phases: Vec<(&'static str, f64)>,
}

/// The wall time of a build's phases.
struct PhaseClock {
    last: std::time::Instant,
    phases: Vec<(&'static str, f64)>,
}

impl PhaseClock {
    fn start() -> PhaseClock {
        PhaseClock { last: std::time::Instant::now(), phases: Vec::new() }
    }

    /// Ends phase `name` (it began where the last one ended).
    fn lap(&mut self, name: &'static str) {
        let now = std::time::Instant::now();
        self.phases.push((name, (now - self.last).as_secs_f64()));
        self.last = now;
    }
}

/// A part of a new generation whose files are hard links to an earlier generation's, because
/// it was built from the same input.
#[derive(Debug, Clone)]
pub struct SharedPart {
    pub part: &'static str,
    pub from: String,
    pub files: usize,
    pub bytes: u64,
}

/// Holds `data/.index.lock` for the duration of a build: one build at a time.
struct BuildLock(#[allow(dead_code)] File);

fn lock_builds(data_dir: &Path) -> Result<BuildLock> {
    let f = File::create(data_dir.join(".index.lock"))?;
    match f.try_lock() {
        Ok(()) => Ok(BuildLock(f)),
        Err(_) => bail!("another `index` run holds {}; wait for it", data_dir.join(".index.lock").display()),
    }
}

/// The laws' part of a build's inputs: every law's source zip, then the book codes' hash.
fn hash_laws(h: &mut Sha256, statutes: &extract::statutes::StatutesManifest, codes_sha: &str) {
    for l in &statutes.laws {
        h.update(format!("{} {}\n", l.slug, l.zip_sha256));
    }
    h.update(codes_sha);
}

/// Hash of everything a generation is built from; `codes_sha` is the book codes' hash.
fn input_hash(data_dir: &Path, statutes: &extract::statutes::StatutesManifest, codes_sha: &str) -> Result<String> {
    let mut h = Sha256::new();
    h.update(format!(
        "schema {SCHEMA_VERSION}; extract {}; analysis {}\n",
        statutes.extract_version,
        analysis::ANALYSIS_VERSION
    ));
    hash_laws(&mut h, statutes, codes_sha);
    if let Some(d) = extract::decision_stage::read_manifest(data_dir)? {
        h.update(format!("decisions {} {}\n", d.extract_version, d.sha256));
    }
    if let Some(c) = resolve::case_law::read_summary(data_dir)? {
        h.update(format!("citations {}\n", c.sha256));
    }
    Ok(hex::encode(h.finalize()))
}

/// Hash of what the laws' full-text index is built from: the schema, the extractor, every
/// law's source zip and the book codes (its `book` terms). Law and section ids follow the
/// statutes' order, which these inputs fix.
fn laws_part_input(statutes: &extract::statutes::StatutesManifest, codes_sha: &str) -> String {
    let mut h = Sha256::new();
    h.update(format!(
        "laws part; schema {SCHEMA_VERSION}; extract {}; analysis {}; layout {}\n",
        statutes.extract_version,
        analysis::ANALYSIS_VERSION,
        crate::law_writer::LAWS_INDEX_LAYOUT
    ));
    hash_laws(&mut h, statutes, codes_sha);
    hex::encode(h.finalize())
}

/// Hash of how the decisions' full-text index is built (schema and analyzer). Which
/// documents it holds is each decision's `index_key`.
fn decisions_part_input() -> String {
    let mut h = Sha256::new();
    h.update(format!("decisions part; schema {SCHEMA_VERSION}; analysis {}\n", analysis::ANALYSIS_VERSION));
    hex::encode(h.finalize())
}

/// The regular files of `to` that are the same file (inode) as one of `from`: (files, bytes).
fn same_files(from: &Path, to: &Path) -> Result<(usize, u64)> {
    use std::os::unix::fs::MetadataExt;
    let inodes: std::collections::HashSet<(u64, u64)> =
        std::fs::read_dir(from)?.flatten().filter_map(|e| e.metadata().ok()).map(|m| (m.dev(), m.ino())).collect();
    let (mut files, mut bytes) = (0, 0);
    for e in std::fs::read_dir(to)?.flatten() {
        let m = e.metadata()?;
        if m.is_file() && inodes.contains(&(m.dev(), m.ino())) {
            files += 1;
            bytes += m.len();
        }
    }
    Ok((files, bytes))
}

/// The ids of the generation directories under `gens`, oldest first (ids sort by build time;
/// temporary build directories start with `.` and are not ids).
fn generation_ids(gens: &Path) -> std::io::Result<Vec<String>> {
    let mut ids: Vec<String> = std::fs::read_dir(gens)?
        .flatten()
        .filter(|e| e.file_type().map(|t| t.is_dir()).unwrap_or(false))
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| !n.starts_with('.') && valid_id(n))
        .collect();
    ids.sort();
    Ok(ids)
}

/// The directory of `part` in the newest generation (CURRENT first) built from `input`, if any.
fn generation_with_part(gens: &Path, current: Option<&str>, part: &str, input: &str) -> Option<(String, PathBuf)> {
    let mut ids = generation_ids(gens).ok()?;
    ids.reverse();
    if let Some(c) = current {
        ids.retain(|i| i != c);
        ids.insert(0, c.to_string());
    }
    ids.into_iter().find_map(|id| {
        let dir = gens.join(&id);
        let m = read_manifest(&dir).ok()?;
        (m.schema_version == SCHEMA_VERSION && m.part_inputs.get(part).map(String::as_str) == Some(input))
            .then(|| (id, dir.join(part)))
    })
}

/// Links every regular file of `from` into `to` (copies where a link cannot be made, e.g. across
/// file systems). Symlinks are not followed. Returns (files, bytes).
fn link_part(from: &Path, to: &Path) -> Result<(usize, u64)> {
    let (mut files, mut bytes) = (0, 0);
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let meta = std::fs::symlink_metadata(e.path())?;
        // tantivy's lock files are made afresh by whoever opens the copy.
        if !meta.file_type().is_file() || e.file_name().to_string_lossy().starts_with(".tantivy-") {
            continue;
        }
        link_file(&e.path(), &to.join(e.file_name()))?;
        files += 1;
        bytes += meta.len();
    }
    Ok((files, bytes))
}

/// A file linked from an earlier generation must still hash as that generation's manifest
/// says: the new manifest is computed from the bytes on disk, so without this check a file
/// damaged on disk since its generation was verified would be certified anew.
fn check_linked_files(gens: &Path, tmp: &Path, shared: &[SharedPart], files: &[FileEntry]) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    let inode = |p: &Path| std::fs::metadata(p).map(|m| (m.dev(), m.ino())).ok();
    let mut froms: Vec<&str> = shared.iter().map(|p| p.from.as_str()).collect();
    froms.sort();
    froms.dedup();
    for from in froms {
        let dir = gens.join(from);
        let manifest = read_manifest(&dir).map_err(|e| anyhow::anyhow!("generation {from}: {e}"))?;
        let earlier: BTreeMap<&str, &str> =
            manifest.files.iter().map(|f| (f.path.as_str(), f.sha256.as_str())).collect();
        for f in files {
            let Some(&want) = earlier.get(f.path.as_str()) else { continue };
            let linked = inode(&tmp.join(&f.path)).is_some_and(|i| Some(i) == inode(&dir.join(&f.path)));
            if linked && want != f.sha256 {
                bail!(
                    "{} of generation {from} no longer matches its manifest (damaged on disk?); \
                     run `index verify {from}`, remove that generation and build again",
                    f.path
                );
            }
        }
    }
    Ok(())
}

/// A hard link of `from` at `to`, or a copy where a link cannot be made.
pub(crate) fn link_file(from: &Path, to: &Path) -> Result<()> {
    if std::fs::hard_link(from, to).is_err() {
        std::fs::copy(from, to).with_context(|| format!("linking {}", from.display()))?;
    }
    Ok(())
}

fn now_parts() -> (String, String) {
    let now = time::OffsetDateTime::now_utc();
    let rfc = now.format(&time::format_description::well_known::Rfc3339).unwrap_or_default();
    let compact = now
        .format(time::macros::format_description!("[year][month][day]T[hour][minute][second][subsecond digits:3]Z"))
        .unwrap_or_default();
    (rfc, compact)
}

/// Builds a generation from `work/`, verifies it and (unless told not to) publishes it.
pub fn build(data_dir: &Path, opts: &BuildOptions) -> Result<BuildOutcome> {
    let started = std::time::Instant::now();
    let mut clock = PhaseClock::start();
    let gens = generations_dir(data_dir);
    std::fs::create_dir_all(&gens)?;
    let _lock = lock_builds(data_dir)?;
    let statutes = extract::statutes::read_manifest(data_dir)?;
    let codes = resolve::read_book_codes(data_dir)?;
    let (_, codes_sha) =
        sha256_file(&resolve::book_codes_path(data_dir)).context("book codes missing (run `resolve`)")?;
    let input_hash = input_hash(data_dir, &statutes, &codes_sha)?;
    if !opts.force
        && let Some(cur) = current_id(data_dir)
        && let Ok(m) = read_manifest(&gens.join(&cur))
        && m.input_hash == input_hash
        && m.schema_version == SCHEMA_VERSION
    {
        return Ok(BuildOutcome::Unchanged { id: cur });
    }
    // The generation CURRENT names: decision row ids stay as they were there, and what did
    // not change is carried over (text packs, the decisions' full-text index).
    let earlier = Earlier::find(data_dir);
    let earlier_decisions = match &earlier {
        Some(e) => e.decisions()?,
        None => Default::default(),
    };
    let earlier_max = earlier_decisions.values().map(|d| d.id).max().unwrap_or(0);
    // resolve's citations are read (and a bad file refused) before anything is built, and
    // after the unchanged check: reading them is most of a no-change run's work at scale.
    let citations = crate::decision_writer::read_citations_input(data_dir, &earlier_decisions, earlier_max)?;
    clock.lap("read inputs");
    // Leftovers of killed builds: never named by CURRENT, safe to drop.
    for e in std::fs::read_dir(&gens)? {
        let e = e?;
        if e.file_name().to_string_lossy().starts_with(".tmp-") {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
    let (built_at, stamp) = now_parts();
    let id = format!("{stamp}-{}", &input_hash[..8]);
    if gens.join(&id).exists() {
        bail!("generation {id} already exists");
    }
    let tmp = gens.join(format!(".tmp-{id}"));
    std::fs::create_dir_all(tmp.join(LAWS_DIR))?;
    std::fs::create_dir_all(tmp.join(DECISIONS_DIR))?;
    // Decision bodies unchanged since the earlier generation keep its packs (hard links).
    let mut packs = PackWriter::create(&tmp, earlier.as_ref().map(|e| e.dir.as_path()))?;

    // The laws' full-text index is shared with an earlier generation built from the same laws
    // (hard links: one copy on disk); the new manifest still hashes every file, so each
    // generation verifies on its own.
    let laws_input = laws_part_input(&statutes, &codes_sha);
    let mut shared = Vec::new();
    let reused_laws = match generation_with_part(&gens, current_id(data_dir).as_deref(), LAWS_DIR, &laws_input) {
        Some((from, dir)) => {
            let (mut files, mut bytes) = link_part(&dir, &tmp.join(LAWS_DIR))?;
            let db = dir.with_file_name(store::LAWS_STORE_FILE);
            link_file(&db, &tmp.join(store::LAWS_STORE_FILE))?;
            files += 1;
            bytes += std::fs::metadata(&db)?.len();
            shared.push(SharedPart { part: LAWS_DIR, from, files, bytes });
            true
        }
        None => false,
    };

    // The laws' rows and full-text index, unless linked above.
    let laws_db = tmp.join(store::LAWS_STORE_FILE);
    let sections_n = if reused_laws {
        store::count_sections(&laws_db)?
    } else {
        crate::law_writer::write_laws(data_dir, &tmp, &statutes, &codes, opts.pause_after_laws)?
    };
    clock.lap("laws");
    // The decisions' full-text index: a copy (hard links) of the earlier one when it was built
    // the same way, in which only changed decisions are written again (tantivy never rewrites
    // a file: deletes and new segments are new files); else built whole.
    let decisions_input = decisions_part_input();
    let carried = earlier.as_ref().filter(|e| e.manifest.part_inputs.get(DECISIONS_DIR) == Some(&decisions_input));
    // The store: when most decisions keep their rows, a copy of the earlier one, patched
    // (store_patch.rs); else written afresh, the rows of unchanged decisions copied from the
    // earlier store (attached).
    let patch = match (carried, &citations) {
        (Some(e), Some(c)) if !opts.fresh_store && !opts.force => {
            crate::decision_writer::plan_patch(c, &earlier_decisions, &laws_input).and_then(|(remove, keep)| {
                let patch = crate::store_patch::StorePatch {
                    earlier_id: e.id.clone(),
                    earlier_dir: e.dir.clone(),
                    remove,
                    keep,
                    earlier_citations: e.manifest.counts.get("decision_citations").copied().unwrap_or(0),
                };
                let compact = e.store_free_share().is_ok_and(|f| f <= crate::store_patch::MAX_FREE_SHARE);
                (patch.worth_it(c.decisions()) && compact).then_some(patch)
            })
        }
        _ => None,
    };
    let conn = match &patch {
        Some(p) => {
            let path = tmp.join(STORE_FILE);
            std::fs::copy(p.earlier_dir.join(STORE_FILE), &path).context("copying the earlier generation's store")?;
            // Writable by the build only (the copy took the earlier file's mode).
            std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o644))?;
            store::open_for_patch(&path)?
        }
        None => store::create(&tmp.join(STORE_FILE))?,
    };
    store::attach_laws(&conn, &laws_db)?;
    if let Some(e) = carried.filter(|_| patch.is_none()) {
        store::attach_earlier(&conn, &e.dir.join(STORE_FILE))?;
    }
    if patch.is_some() {
        packs.adopt_earlier_packs(&conn)?;
    }
    clock.lap("store copy");
    conn.execute_batch("BEGIN")?;
    let dec_idx = match carried {
        Some(e) => {
            link_part(&e.dir.join(DECISIONS_DIR), &tmp.join(DECISIONS_DIR))?;
            Index::open_in_dir(tmp.join(DECISIONS_DIR))?
        }
        None => Index::create_in_dir(tmp.join(DECISIONS_DIR), decisions_index::schema())?,
    };
    analysis::register(&dec_idx);
    let dec_fields = DecisionFields::from_schema(&dec_idx.schema())?;
    // One writer thread: a decision's passages stay one run of consecutive doc ids, which the
    // server's walk over matches relies on (`serve::query::passage_runs`).
    let mut dec_writer: tantivy::IndexWriter<TantivyDocument> = dec_idx.writer_with_num_threads(1, 128 << 20)?;
    dec_writer.set_merge_policy(Box::new(match carried {
        Some(_) => crate::bounded_merges::BoundedMerges::for_nightly(),
        None => crate::bounded_merges::BoundedMerges::for_decisions(),
    }));
    let dec = crate::decision_writer::write(
        data_dir,
        &conn,
        &mut dec_writer,
        &dec_fields,
        &mut packs,
        carried.map(|_| &earlier_decisions),
        citations,
        &laws_input,
        patch.as_ref(),
    )?;
    let pack_counts = packs.finish(&conn)?;
    clock.lap("decisions");
    if let Some(e) = &earlier
        && pack_counts.packs_linked > 0
    {
        shared.push(SharedPart {
            part: TEXTS_DIR,
            from: e.id.clone(),
            files: pack_counts.packs_linked as usize,
            bytes: pack_counts.bytes_linked,
        });
    }
    // A patched store has its indexes (kept up by every change) and its statistics.
    if patch.is_none() {
        store::create_decision_indexes(&conn)?;
    }
    store::set_meta(&conn, "schema_version", &SCHEMA_VERSION.to_string())?;
    store::set_meta(&conn, "generation_id", &id)?;
    store::set_meta(&conn, "built_at", &built_at)?;
    conn.execute_batch("COMMIT")?;
    if carried.is_some() && patch.is_none() {
        conn.execute_batch("DETACH DATABASE earlier")?;
    }
    // `main` only: the attached laws.sqlite is read-only (and analysed when it was written).
    if patch.is_none() {
        conn.execute_batch("ANALYZE main")?;
    }
    drop(conn);
    clock.lap("store indexes");
    dec_writer.commit()?;
    dec_writer.wait_merging_threads()?;
    clock.lap("full-text commit");
    if let Some(e) = carried {
        // What is still the earlier generation's file (same inode) is shared.
        let (files, bytes) = same_files(&e.dir.join(DECISIONS_DIR), &tmp.join(DECISIONS_DIR))?;
        shared.push(SharedPart { part: DECISIONS_DIR, from: e.id.clone(), files, bytes });
    }

    let laws_n = statutes.laws.len() as u64;
    let mut counts = BTreeMap::new();
    counts.insert("laws".to_string(), laws_n);
    counts.insert("sections".to_string(), sections_n);
    counts.insert("norms".to_string(), statutes.norm_account.norms as u64);
    counts.insert("book_codes".to_string(), codes.codes.len() as u64);
    counts.insert("decisions".to_string(), dec.decisions);
    counts.insert("passages".to_string(), dec.passages);
    counts.insert("courts_held".to_string(), dec.courts_held);
    counts.insert("decision_citations".to_string(), dec.citations);
    counts.insert("citation_edges".to_string(), dec.edges);
    let mut sources = BTreeMap::new();
    sources.insert(
        "gii".to_string(),
        SourceSnapshot {
            toc_items: statutes.toc_items as u64,
            records: laws_n,
            missing: statutes.missing.len() as u64,
        },
    );
    if let Some(d) = extract::decision_stage::read_manifest(data_dir)? {
        sources.insert(
            "decisions".to_string(),
            SourceSnapshot { toc_items: d.records_read as u64, records: dec.decisions, missing: d.failed.len() as u64 },
        );
    }
    let mut paths = Vec::new();
    list_files(&tmp, &tmp, &mut paths)?;
    paths.sort();
    // Every file is read and hashed, linked ones too (see `check_linked_files`): on all cores.
    let files = {
        use rayon::prelude::*;
        paths
            .par_iter()
            .map(|p| {
                let (bytes, sha256) = sha256_file(p)?;
                let rel = p.strip_prefix(&tmp).expect("under tmp").to_string_lossy().replace('\\', "/");
                Ok(FileEntry { path: rel, bytes, sha256 })
            })
            .collect::<Result<Vec<FileEntry>>>()?
    };
    check_linked_files(&gens, &tmp, &shared, &files)?;
    clock.lap("hash files");
    let manifest = Manifest {
        id: id.clone(),
        schema_version: SCHEMA_VERSION,
        built_at,
        git_commit: opts.git_commit.clone(),
        input_hash,
        sources,
        counts,
        files,
        part_inputs: BTreeMap::from([(LAWS_DIR.to_string(), laws_input), (DECISIONS_DIR.to_string(), decisions_input)]),
    };
    std::fs::write(tmp.join(MANIFEST_FILE), serde_json::to_vec_pretty(&manifest)?)?;
    fsync_tree(&tmp)?;
    // Verify what will be published: the hashes above were read from disk; the store and the
    // indexes must open and answer their probes.
    drop(Generation::open_just_built(&tmp).map_err(|e| anyhow::anyhow!("new generation failed verification: {e}"))?);
    let final_dir = gens.join(&id);
    std::fs::rename(&tmp, &final_dir)?;
    fsync_dir(&gens)?;
    // Every file was hashed for the manifest above: a server may start on it without hashing again.
    crate::verified_stamp::write_stamp(data_dir, &final_dir, &manifest);
    clock.lap("verify and publish");
    let seconds = started.elapsed().as_secs_f64();
    let summary = BuildSummary {
        id: id.clone(),
        laws: laws_n,
        sections: sections_n,
        decisions: dec.decisions,
        seconds,
        shared,
        bodies: pack_counts,
        decisions_index_kept: dec.index_kept,
        decisions_index_written: dec.index_written,
        decisions_index_removed: dec.index_removed,
        decision_rows_copied: dec.rows_copied,
        store_patched_from: patch.map(|p| p.earlier_id),
        decision_rows_removed: dec.rows_removed,
        citing_counts_updated: dec.citing_counts_updated,
        patch_seconds: dec.patch_seconds,
        phases: clock.phases,
    };
    if opts.no_publish {
        return Ok(BuildOutcome::Built(summary));
    }
    write_current(data_dir, &id)?;
    Ok(BuildOutcome::Published(summary))
}

/// Generation ids a running `serve` declared it holds open (`data/leases/<pid>`), live pids only.
pub fn leased_ids(data_dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(data_dir.join("leases")) else { return out };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let alive = name.parse::<u32>().is_ok_and(|pid| Path::new(&format!("/proc/{pid}")).exists());
        if !alive {
            let _ = std::fs::remove_file(e.path());
            continue;
        }
        if let Ok(s) = std::fs::read_to_string(e.path()) {
            out.extend(s.lines().map(str::trim).filter(|l| valid_id(l)).map(str::to_string));
        }
    }
    out
}

#[derive(Debug, Default)]
pub struct GcSummary {
    pub kept: Vec<String>,
    pub removed: Vec<String>,
}

/// Removes all but the newest `keep` generations, never `CURRENT` nor a leased one.
pub fn gc(data_dir: &Path, keep: usize) -> Result<GcSummary> {
    let gens = generations_dir(data_dir);
    let ids = generation_ids(&gens).with_context(|| format!("no generations at {}", gens.display()))?;
    let current = current_id(data_dir);
    let leased = leased_ids(data_dir);
    let mut summary = GcSummary::default();
    let n = ids.len();
    for (i, id) in ids.into_iter().enumerate() {
        let newest = i + keep >= n;
        if newest || current.as_deref() == Some(id.as_str()) || leased.contains(&id) {
            summary.kept.push(id);
        } else {
            std::fs::remove_dir_all(gens.join(&id))?;
            crate::verified_stamp::remove_stamp(data_dir, &id);
            summary.removed.push(id);
        }
    }
    fsync_dir(&gens)?;
    Ok(summary)
}
