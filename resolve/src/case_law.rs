//! Citations of decisions: runs the citation scanner ([`extract::citations`]) over every
//! decision's text, binds each case citation to a corpus decision, and builds the citation
//! graph's citing counts (`citing_counts.tsv`).
//!
//! A case citation with a file number is bound by file number (spaces, dots and slashes
//! folded), then narrowed by the court the citation prints and by its printed date. Statuses
//! (closed set): `resolved`, `unresolved_ambiguous` (candidates kept), `unresolved_no_match`,
//! `unresolved_out_of_coverage`, `unresolved_pending` (kinds not bound yet: reporter, EU and
//! ECtHR citations, ECLIs of courts we do not hold). An edge is **withheld** — kept as a citation,
//! never as a graph edge — when it would bind a decision to itself, to a later decision, or
//! contradict the printed court or date; withheld edges are counted by reason.
//!
//! Roles: `procedural` when the citation stands in the Vorinstanz chain (in the Rubrum before
//! the Tenor / Gründe, or the text just before it says `vorgehend`, `Vorinstanz`, `angefochtene`
//! …), else `cited`.
//!
//! Statuses, withheld reasons, roles and kinds are the closed sets of [`model`], written in
//! their one spelling.
//!
//! Output: resolve's citations, one [`DecisionCitations`] line per decision in the order
//! of extract's decisions, in content-addressed parts listed by `work/resolve/citations.parts`
//! ([`citations_layout`]; readers join them by decision id, [`read_citations_by_id`]), and
//! `work/resolve/citations.json` ([`CitationSummary`]).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use extract::citations::{CaseKind, LawUnit, LawVocabulary, extract as scan};
use extract::courts::{Court, CourtTable, cited_court_fits, cited_court_readable};
use extract::decision_stage::{self, DecisionRecord};
use model::{CaseCitationStatus, CitationRole, WithheldReason};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::line_bindings::{self, LineBinding};
use extract::line_parts::PendingLine;

/// One law citation of a decision (binding to law rows happens where the rows are: `index`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LawRef {
    pub start: usize,
    pub end: usize,
    pub raw: String,
    pub book: Option<String>,
    pub section: String,
    pub absatz: Option<String>,
    pub unit: LawUnit,
    /// `§ 823 Abs. 1 BGB`; `parents` are the coarser forms (`§ 823 BGB`).
    pub canonical: String,
    pub parents: Vec<String>,
    /// Index of the Normenkette this citation belongs to, if it is part of one.
    pub chain: Option<String>,
    /// The book is Land law (instrument as written, Land): never bound to a federal law.
    #[serde(default)]
    pub state_law: Option<extract::citations::StateLaw>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseRef {
    pub start: usize,
    pub end: usize,
    pub raw: String,
    pub kind: CaseKind,
    pub canonical: String,
    /// The court as the citation prints it, and its canonical name.
    pub court_raw: Option<String>,
    pub court: Option<String>,
    pub date: Option<String>,
    pub file_number: Option<String>,
    /// The ECLI the citation prints (an ECLI citation is bound by it).
    #[serde(default)]
    pub ecli: Option<String>,
    pub status: CaseCitationStatus,
    /// The bound decision (ext id) when `resolved`.
    pub target: Option<String>,
    pub candidates: Vec<String>,
    /// Why an edge was withheld, or null.
    pub withheld: Option<WithheldReason>,
    pub role: CitationRole,
    pub note: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DecisionCitations {
    pub id: String,
    /// What the line was scanned from (the record's content hash under [`SCAN_VERSION`] and
    /// the scanner's tables): a later run reuses the scan while it is the same.
    #[serde(default)]
    pub scan_key: String,
    pub laws: Vec<LawRef>,
    /// Normenkette tokens of the decision: the text's canonical forms and parents plus the
    /// rii `<norm>` field's, deduplicated.
    pub norms: Vec<String>,
    pub norms_from_norm_field: Vec<String>,
    pub cases: Vec<CaseRef>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CitationSummary {
    pub decisions: usize,
    pub law_citations: usize,
    pub case_citations: usize,
    pub by_status: BTreeMap<CaseCitationStatus, usize>,
    pub withheld: BTreeMap<WithheldReason, usize>,
    pub resolved_edges: usize,
    pub distinct_edges: usize,
    pub sha256: String,
    /// Decisions scanned in this run, and decisions whose earlier scan was reused (bound anew
    /// or carried).
    #[serde(default)]
    pub scanned: usize,
    #[serde(default)]
    pub reused: usize,
    /// Of the reused, the lines carried unread: nothing their bindings read changed.
    #[serde(default)]
    pub carried: usize,
    /// What binding read besides the decisions ([`bind_basis`]): lines are carried only
    /// between runs of the same basis.
    #[serde(default)]
    pub bind_basis: String,
    /// The input equals the last run's: nothing was redone.
    #[serde(default)]
    pub unchanged: bool,
    /// What the run read (decisions, scanner tables, court table, coverage map).
    #[serde(default)]
    pub input_fingerprint: String,
    /// The citations' parts this run kept from the last run's list as they were, and wrote.
    #[serde(default)]
    pub parts_kept: usize,
    #[serde(default)]
    pub parts_written: usize,
}

/// Where the citations lie: one line per decision, in content-addressed parts in
/// `work/resolve/parts/`, listed in order by `citations.parts` ([`extract::line_parts`]).
pub fn citations_layout(data_dir: &Path) -> extract::line_parts::PartsLayout {
    extract::line_parts::PartsLayout {
        list: data_dir.join("work/resolve/citations.parts"),
        dir: data_dir.join("work/resolve/parts"),
        line_is: "decision's citations",
        stage: "resolve",
    }
}

pub fn summary_path(data_dir: &Path) -> PathBuf {
    data_dir.join("work/resolve/citations.json")
}

pub fn read_summary(data_dir: &Path) -> Result<Option<CitationSummary>> {
    match std::fs::read(summary_path(data_dir)) {
        Ok(b) => Ok(Some(serde_json::from_slice(&b)?)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Streams the citations of the last run, one per decision, in order. A line that cannot be
/// read or parsed (a truncated or garbled part, a status this build does not know) is an error
/// naming the part and the place, never a silently shorter list.
pub fn read_citations(data_dir: &Path) -> Result<impl Iterator<Item = Result<DecisionCitations>>> {
    let parts = extract::line_parts::PartedLines::open(citations_layout(data_dir))?;
    Ok(parts.records::<DecisionCitations>().map(|r| r.map(|(_, c)| c)))
}

/// The citations of the last run keyed by decision id, so a reader joins them to decisions by
/// id, never by line position. `None` when resolve wrote none (there were no decisions). Any
/// unreadable line or an id given twice is an error naming the file and the line.
pub fn read_citations_by_id(data_dir: &Path) -> Result<Option<HashMap<String, DecisionCitations>>> {
    let list = citations_layout(data_dir).list;
    if !list.exists() {
        return Ok(None);
    }
    let mut by_id = HashMap::new();
    for (i, c) in read_citations(data_dir)?.enumerate() {
        let c = c?;
        if let Some(first) = by_id.insert(c.id.clone(), c) {
            anyhow::bail!(
                "{}: line {} (counted across its parts) repeats decision {} (one line per decision expected; rerun `resolve`)",
                list.display(),
                i + 1,
                first.id
            );
        }
    }
    Ok(Some(by_id))
}

/// The form file numbers are compared in: no spaces, `.` as `/`, upper case.
pub fn file_number_key(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| match c {
            '.' => '/',
            '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' => '-',
            c => c,
        })
        .flat_map(char::to_uppercase)
        .collect()
}

#[derive(Clone)]
struct Held {
    ext_id: String,
    /// Shared between the decisions of one court.
    court: Option<std::sync::Arc<Court>>,
    date: Option<String>,
}

/// Words that put a citation in the Vorinstanz chain when they stand just before it.
const PROCEDURAL_CUES: &[&str] = &[
    "vorgehend",
    "Vorinstanz",
    "vorinstanzlich",
    "angefochtene",
    "angegriffene",
    "Berufungsurteil",
    "Ausgangsverfahren",
];

fn role_of(text_before: &str) -> CitationRole {
    if PROCEDURAL_CUES.iter().any(|c| text_before.contains(c)) { CitationRole::Procedural } else { CitationRole::Cited }
}

/// The coverage buckets whose court the printed court `cited` can name (resolve's coverage
/// status and the checker's coverage boundary read the same buckets).
pub fn buckets_for_cited_court<'m>(map: &'m coverage_map::CoverageMap, cited: &str) -> Vec<&'m coverage_map::Bucket> {
    let table = CourtTable::shipped();
    map.buckets
        .iter()
        .filter(|b| {
            b.court
                .as_deref()
                .and_then(|n| table.canonical(n))
                .is_some_and(|bc| cited_court_fits(cited, &bc) == Some(true))
        })
        .collect()
}

/// What binding needs to know of a printed court, besides the date: the coverage buckets (of
/// the sources this run ingested) whose court it can name, and whether it can name a court
/// whose decisions are held.
#[derive(Debug, Clone)]
struct PrintedCoverage {
    buckets: Vec<coverage_map::Bucket>,
    held: bool,
}

fn printed_coverage(
    map: &coverage_map::CoverageMap,
    cited: &str,
    courts_held: &[Court],
    sources: &[&str],
) -> PrintedCoverage {
    // Only buckets of sources this run ingested speak for what is held.
    let buckets = buckets_for_cited_court(map, cited)
        .into_iter()
        .filter(|b| b.sources.iter().any(|s| sources.contains(&source_id(s))))
        .cloned()
        .collect();
    let held = courts_held.iter().any(|c| cited_court_fits(cited, c) == Some(true));
    PrintedCoverage { buckets, held }
}

/// Why a citation of `cited` (dated `date`) lies outside what we ingest, or None when it lies
/// inside: a coverage bucket names the court and the date is outside its range, or no bucket
/// names the court and we hold none of its decisions.
fn outside_coverage(cited: &str, date: Option<&str>, printed: &PrintedCoverage) -> Option<String> {
    let buckets = &printed.buckets;
    if buckets.is_empty() {
        return (!printed.held).then(|| format!("no coverage bucket names {cited} and no decision of it is held"));
    }
    let d = date?;
    let inside = buckets.iter().any(|b| b.contains_date(d));
    (!inside).then(|| {
        let ranges: Vec<String> = buckets
            .iter()
            .map(|b| {
                format!(
                    "{}: {}..{}",
                    b.bucket,
                    b.from.as_deref().unwrap_or("open"),
                    b.until.as_deref().unwrap_or("open")
                )
            })
            .collect();
        format!("{d} is outside the coverage of {cited} ({})", ranges.join(", "))
    })
}

/// A run's answers about printed courts, each computed once: a run binds millions of case
/// citations that print a few thousand distinct courts, and reading a printed court (folding
/// it, the court table) costs far more than a look-up. Shared by the scanning threads. Valid
/// for one run only: the answers depend on the courts held and the sources read.
#[derive(Default)]
struct PrintedCourts {
    readable: std::sync::RwLock<HashMap<String, bool>>,
    /// Keyed by the held court's name, a newline, and the printed court.
    fits: std::sync::RwLock<HashMap<String, Option<bool>>>,
    coverage: std::sync::RwLock<HashMap<String, std::sync::Arc<PrintedCoverage>>>,
}

/// The memoised `f()` for `key` in `memo`.
fn memoised<V: Clone>(memo: &std::sync::RwLock<HashMap<String, V>>, key: &str, f: impl FnOnce() -> V) -> V {
    if let Some(v) = memo.read().unwrap_or_else(|e| e.into_inner()).get(key) {
        return v.clone();
    }
    let v = f();
    memo.write().unwrap_or_else(|e| e.into_inner()).insert(key.to_string(), v.clone());
    v
}

impl PrintedCourts {
    fn readable(&self, printed: &str) -> bool {
        memoised(&self.readable, printed, || cited_court_readable(printed))
    }

    fn fits(&self, printed: &str, held: &Court) -> Option<bool> {
        memoised(&self.fits, &format!("{}\n{printed}", held.name), || cited_court_fits(printed, held))
    }

    fn coverage(
        &self,
        map: &coverage_map::CoverageMap,
        printed: &str,
        courts_held: &[Court],
        sources: &[&str],
    ) -> std::sync::Arc<PrintedCoverage> {
        memoised(&self.coverage, printed, || std::sync::Arc::new(printed_coverage(map, printed, courts_held, sources)))
    }
}

fn source_id_of_catalog(source: &str) -> &'static str {
    match source {
        "rii" => "rii",
        "oldp" => "oldp",
        _ => "",
    }
}

/// What a printed court or date leaves of the candidates for a file number.
pub enum Narrowed<T> {
    /// The candidates it does not contradict (all of them when nothing readable was printed).
    Left(Vec<T>),
    /// It contradicts every candidate (they are returned).
    Contradicted(Vec<T>),
}

/// Keeps the candidates whose court the printed court can be (`OVG NRW`, `BVerwG`, `VG`). A
/// printed court that no candidate's court can be compared with says nothing and keeps all.
/// Shared by `resolve` and the citation checker, so both bind a citation the same way.
pub fn narrow_by_court<T>(cands: Vec<T>, printed: Option<&str>, court_of: impl Fn(&T) -> Option<Court>) -> Narrowed<T> {
    narrow_by_court_with(cands, printed, |t, printed| court_of(t).and_then(|c| cited_court_fits(printed, &c)))
}

/// [`narrow_by_court`] with `fits(candidate, printed)` answering whether the printed court can
/// be the candidate's (None: cannot be compared).
fn narrow_by_court_with<T>(
    cands: Vec<T>,
    printed: Option<&str>,
    fits: impl Fn(&T, &str) -> Option<bool>,
) -> Narrowed<T> {
    let Some(printed) = printed else { return Narrowed::Left(cands) };
    let fits: Vec<Option<bool>> = cands.iter().map(|t| fits(t, printed)).collect();
    if fits.iter().all(Option::is_none) {
        return Narrowed::Left(cands);
    }
    if !fits.contains(&Some(true)) {
        return Narrowed::Contradicted(cands);
    }
    Narrowed::Left(cands.into_iter().zip(fits).filter(|(_, f)| *f == Some(true)).map(|(t, _)| t).collect())
}

/// Keeps the candidates decided on the printed date (ISO), when one was printed.
pub fn narrow_by_date<T>(cands: Vec<T>, printed: Option<&str>, date_of: impl Fn(&T) -> Option<String>) -> Narrowed<T> {
    let Some(printed) = printed else { return Narrowed::Left(cands) };
    if !cands.iter().any(|t| date_of(t).as_deref() == Some(printed)) {
        return Narrowed::Contradicted(cands);
    }
    Narrowed::Left(cands.into_iter().filter(|t| date_of(t).as_deref() == Some(printed)).collect())
}

/// The catalog source behind a coverage-map source name.
fn source_id(name: &str) -> &'static str {
    match name {
        "rechtsprechung-im-internet.de" => "rii",
        "Open Legal Data" => "oldp",
        "gesetze-im-internet.de" => "gii",
        _ => "",
    }
}

/// What binding reads of a case citation: the scanner's fields, from a fresh scan or from
/// the line of an earlier run.
pub struct CitedCase<'a> {
    pub kind: CaseKind,
    pub court: Option<&'a str>,
    pub date: Option<&'a str>,
    pub file_number: Option<&'a str>,
    pub ecli: Option<&'a str>,
}

impl<'a> From<&'a extract::citations::CaseCitation> for CitedCase<'a> {
    fn from(c: &'a extract::citations::CaseCitation) -> Self {
        CitedCase {
            kind: c.kind,
            court: c.court.as_deref(),
            date: c.date.as_deref(),
            file_number: c.file_number.as_deref(),
            ecli: c.ecli.as_deref(),
        }
    }
}

impl<'a> From<&'a CaseRef> for CitedCase<'a> {
    fn from(c: &'a CaseRef) -> Self {
        CitedCase {
            kind: c.kind,
            court: c.court_raw.as_deref(),
            date: c.date.as_deref(),
            file_number: c.file_number.as_deref(),
            ecli: c.ecli.as_deref(),
        }
    }
}

/// What the binding of any decision's citations looks at: every held decision's identity,
/// court and date, the keys they can be cited by, the courts held and the sources read.
/// Small per decision (no texts): the stage's memory grows with this, not with the corpus.
struct HeldIndex {
    held: Vec<Held>,
    by_fn: HashMap<String, Vec<usize>>,
    courts_held: Vec<Court>,
    sources: Vec<&'static str>,
    coverage: coverage_map::CoverageMap,
    printed_courts: PrintedCourts,
}

/// The key a case citation is looked up by among the held decisions (`by_fn`): its file
/// number, or its ECLI; None for a reporter citation, which names neither.
pub fn lookup_key(kind: CaseKind, file_number: Option<&str>, ecli: Option<&str>) -> Option<String> {
    match kind {
        CaseKind::FileNumber | CaseKind::EuCase | CaseKind::EcthrApplication => file_number.map(file_number_key),
        CaseKind::Ecli => ecli.map(ecli_key),
        CaseKind::Reporter => None,
    }
}

/// The key a held decision's ECLI is looked up by (as [`lookup_key`] makes it of a cited ECLI).
fn ecli_key(ecli: &str) -> String {
    format!("ECLI={}", file_number_key(ecli))
}

/// Binds one case citation of decision `me` (its court and date given).
fn bind(
    c: &CitedCase<'_>,
    me: &Held,
    ix: &HeldIndex,
) -> (CaseCitationStatus, Option<usize>, Vec<usize>, Option<WithheldReason>, Option<String>) {
    let Some(key) = lookup_key(c.kind, c.file_number, c.ecli) else {
        // A reporter citation (`BVerfGE 90, 22`) names no file number: binding it needs a
        // reporter concordance we do not have.
        return (
            CaseCitationStatus::UnresolvedPending,
            None,
            Vec::new(),
            None,
            Some(format!("{:?} citations are not bound yet", c.kind)),
        );
    };
    // The printed court, when it is one we can read (`OVG NRW`, `BVerwG`, `VG`).
    let cited_court = c.court.filter(|raw| ix.printed_courts.readable(raw));
    let mut cands: Vec<usize> = ix.by_fn.get(&key).cloned().unwrap_or_default();
    if cands.is_empty() {
        let outside = cited_court.and_then(|ct| {
            outside_coverage(ct, c.date, &ix.printed_courts.coverage(&ix.coverage, ct, &ix.courts_held, &ix.sources))
        });
        return match outside {
            Some(why) => (CaseCitationStatus::UnresolvedOutOfCoverage, None, Vec::new(), None, Some(why)),
            None => (CaseCitationStatus::UnresolvedNoMatch, None, Vec::new(), None, None),
        };
    }
    // Narrow by the printed court, then by the printed date.
    let held = &ix.held;
    let fits = |&i: &usize, printed: &str| held[i].court.as_deref().and_then(|c| ix.printed_courts.fits(printed, c));
    cands = match narrow_by_court_with(cands, cited_court, fits) {
        Narrowed::Left(left) => left,
        Narrowed::Contradicted(all) => {
            return (CaseCitationStatus::UnresolvedNoMatch, None, all, Some(WithheldReason::CourtContradicts), None);
        }
    };
    let first = held[cands[0]].court.as_ref().map(|c| &c.name);
    if first.is_none() || cands.iter().any(|&i| held[i].court.as_ref().map(|c| &c.name) != first) {
        return (
            CaseCitationStatus::UnresolvedAmbiguous,
            None,
            cands,
            None,
            Some("the file number is held at several courts and the citation does not tell which".into()),
        );
    }
    cands = match narrow_by_date(cands, c.date, |&i| held[i].date.clone()) {
        Narrowed::Left(left) => left,
        Narrowed::Contradicted(all) => {
            return (CaseCitationStatus::UnresolvedNoMatch, None, all, Some(WithheldReason::DateContradicts), None);
        }
    };
    if cands.len() > 1 {
        return (CaseCitationStatus::UnresolvedAmbiguous, None, cands, None, None);
    }
    let t = cands[0];
    // Withheld: the only candidate is the citing decision itself, or decided after it.
    if held[t].ext_id == me.ext_id {
        return (CaseCitationStatus::UnresolvedNoMatch, None, cands, Some(WithheldReason::SelfReference), None);
    }
    if let (Some(td), Some(md)) = (&held[t].date, &me.date)
        && td > md
    {
        return (CaseCitationStatus::UnresolvedNoMatch, None, cands, Some(WithheldReason::ForwardDate), None);
    }
    (CaseCitationStatus::Resolved, Some(t), Vec::new(), None, None)
}

/// Bump when what a scan yields changes (scanner, role rules, the fields of a line), so no
/// line of an earlier run is reused.
pub const SCAN_VERSION: u32 = 2;

/// Decisions are scanned and written this many at a time.
const BATCH: usize = 256;

/// The earlier run's line of a decision: where it is and what it was scanned from.
#[derive(Deserialize)]
struct LineHead {
    id: String,
    #[serde(default)]
    scan_key: String,
}

/// Everything a decision's scan depends on besides its normalised record: the scan version
/// and the scanner's reference tables. With the record's `input_sha` it keys a line's reuse.
fn scan_basis() -> String {
    format!("scan {SCAN_VERSION}; tables {}", extract::citations::reference_fingerprint())
}

fn scan_key(basis: &str, input_sha: &str) -> String {
    use sha2::Digest;
    if input_sha.is_empty() {
        return String::new();
    }
    hex::encode(sha2::Sha256::digest(format!("{basis}; record {input_sha}")))
}

/// The whole stage's input as one hash: decisions, scan basis, court table, coverage map.
fn input_fingerprint(decisions_sha: &str, basis: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(format!(
        "decisions {decisions_sha}; {basis}; courts {}; coverage {}",
        hex::encode(sha2::Sha256::digest(extract::courts::REFERENCE_TSV)),
        hex::encode(sha2::Sha256::digest(coverage_map::COVERAGE_JSON)),
    )))
}

/// Bump when binding changes (its rules, or what [`LineBinding`] records), so no line of an
/// earlier run is carried unread.
const BIND_VERSION: u32 = 1;

/// Everything binding reads besides the held decisions under the keys a citation looks up
/// and the citing decision itself: its version and closed sets, the court table, the coverage
/// map, the courts held and the sources read (sorted: their order is not read).
fn bind_basis(ix: &HeldIndex) -> String {
    use sha2::Digest;
    let mut courts: Vec<String> = ix.courts_held.iter().map(|c| serde_json::to_string(c).unwrap_or_default()).collect();
    courts.sort_unstable();
    let mut sources = ix.sources.clone();
    sources.sort_unstable();
    let text = serde_json::json!({
        "version": BIND_VERSION,
        "statuses": CaseCitationStatus::SPELLINGS,
        "withheld": WithheldReason::SPELLINGS,
        "court_table": hex::encode(sha2::Sha256::digest(extract::courts::REFERENCE_TSV)),
        "coverage": hex::encode(sha2::Sha256::digest(coverage_map::COVERAGE_JSON)),
        "courts_held": courts,
        "sources": sources,
    });
    hex::encode(sha2::Sha256::digest(text.to_string().as_bytes()))
}

pub fn citing_counts_path(data_dir: &Path) -> PathBuf {
    data_dir.join("work/resolve/citing_counts.tsv")
}

/// Each held decision's citing count (distinct decisions citing it by a resolved, not
/// withheld edge), for the decisions cited at least once; the others are cited by none.
pub fn read_citing_counts(data_dir: &Path) -> Result<HashMap<String, u32>> {
    let p = citing_counts_path(data_dir);
    let text = std::fs::read_to_string(&p).with_context(|| format!("cannot read {} (run `resolve`)", p.display()))?;
    let mut out = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let parsed = line.split_once('\t').and_then(|(id, n)| Some((id.to_string(), n.parse::<u32>().ok()?)));
        let Some((id, n)) = parsed else {
            anyhow::bail!("{}: line {} is not `id<TAB>count`; rerun `resolve`", p.display(), i + 1)
        };
        out.insert(id, n);
    }
    Ok(out)
}

/// What the second pass needs of each decision besides its held entry.
#[derive(Clone)]
struct ToBind {
    /// Its [`scan_key`] (empty: never reused).
    scan_key: String,
    /// Where its record lies among extract's parts.
    span: extract::line_parts::PartSpan,
    /// [`line_bindings::head_hash`] of it.
    head: String,
    /// [`line_bindings::key_hash`]es of the keys it is held under.
    held_under: Vec<u64>,
}

impl ToBind {
    /// The binding of this decision's line with `laws` law citations and the bound `cases`.
    fn binding(&self, laws: usize, cases: &[CaseRef]) -> LineBinding {
        LineBinding::of(self.head.clone(), self.held_under.clone(), laws, cases)
    }
}

/// Pass 1: the held index, from every decision's head (no texts kept).
fn read_heads(data_dir: &Path, basis: &str) -> Result<(HeldIndex, Vec<ToBind>)> {
    let mut ix = HeldIndex {
        held: Vec::new(),
        by_fn: HashMap::new(),
        courts_held: Vec::new(),
        sources: Vec::new(),
        coverage: coverage_map::shipped(),
        printed_courts: PrintedCourts::default(),
    };
    let mut keys = Vec::new();
    let mut court_arcs: HashMap<String, std::sync::Arc<Court>> = HashMap::new();
    for (i, h) in extract::decision_lines::read_heads(data_dir)?.enumerate() {
        let extract::decision_lines::LocatedHead { span, head: h, .. } = h?;
        let ecli = h.ecli.as_deref().map(ecli_key);
        let mut held_keys: Vec<String> = Vec::new();
        for key in h.file_numbers.iter().map(|f| file_number_key(f)).chain(ecli) {
            if !held_keys.contains(&key) {
                held_keys.push(key);
            }
        }
        for key in &held_keys {
            ix.by_fn.entry(key.clone()).or_default().push(i);
        }
        for s in &h.sources {
            let id = source_id_of_catalog(s);
            if !ix.sources.contains(&id) {
                ix.sources.push(id);
            }
        }
        let court = h.court.map(|c| {
            court_arcs
                .entry(c.name.clone())
                .or_insert_with(|| {
                    ix.courts_held.push(c.clone());
                    std::sync::Arc::new(c)
                })
                .clone()
        });
        let head = line_bindings::head_hash(&h.id, court.as_deref(), h.date.as_deref(), &held_keys);
        let mut held_under: Vec<u64> = held_keys.iter().map(|k| line_bindings::key_hash(k)).collect();
        held_under.sort_unstable();
        keys.push(ToBind { scan_key: scan_key(basis, &h.input_sha), span, head, held_under });
        ix.held.push(Held { ext_id: h.id, court, date: h.date });
    }
    Ok((ix, keys))
}

/// The earlier run's line of a decision among the citations' parts: where it is, the key it
/// was scanned under, and its sha256 when `citations.lines` recorded it.
struct EarlierLine {
    /// Its place in the earlier run's order.
    position: usize,
    span: extract::line_parts::PartSpan,
    scan_key: String,
    sha256: Option<[u8; 32]>,
    /// What its binding read and yielded, when `citations.bindings` recorded it.
    binding: Option<LineBinding>,
}

/// The earlier run's lines by decision id: from `citations.lines` (with `citations.bindings`
/// when it describes the same list) when it describes the list the earlier summary names,
/// else by reading the parts through. Empty when there are none or they cannot be read (every
/// decision is scanned).
fn earlier_lines(data_dir: &Path, earlier_sha256: Option<&str>) -> HashMap<String, EarlierLine> {
    if let Some(sha) = earlier_sha256
        && let Some(lines) = crate::citation_lines::read_citation_lines(data_dir, sha)
    {
        let bindings = line_bindings::read_line_bindings(data_dir, sha).filter(|b| b.len() == lines.len());
        let mut bindings = bindings.map(Vec::into_iter);
        return lines
            .into_iter()
            .enumerate()
            .map(|(position, l)| {
                let binding = bindings.as_mut().and_then(Iterator::next);
                (l.id, EarlierLine { position, span: l.span, scan_key: l.scan_key, sha256: Some(l.sha256), binding })
            })
            .collect();
    }
    let mut out = HashMap::new();
    let Ok(parts) = extract::line_parts::PartedLines::open(citations_layout(data_dir)) else { return out };
    for (position, (span, line)) in parts.lines().map_while(Result::ok).enumerate() {
        if let Ok(h) = serde_json::from_slice::<LineHead>(&line) {
            out.insert(h.id, EarlierLine { position, span, scan_key: h.scan_key, sha256: None, binding: None });
        }
    }
    out
}

/// The keys (as [`line_bindings::key_hash`]es) whose held decisions may differ from the earlier
/// run's: every key of a decision that appeared, vanished or changed what binding reads of it.
/// None when no earlier line can be carried: a line without a recorded binding, or decisions
/// held in another order than before (candidates are listed in the corpus's order).
fn changed_keys(ix: &HeldIndex, to_bind: &[ToBind], earlier: &HashMap<String, EarlierLine>) -> Option<HashSet<u64>> {
    let mut changed = HashSet::new();
    let mut last_position = None;
    let mut surviving = 0usize;
    for (h, t) in ix.held.iter().zip(to_bind) {
        let Some(e) = earlier.get(&h.ext_id) else {
            changed.extend(&t.held_under);
            continue;
        };
        let b = e.binding.as_ref()?;
        if last_position.is_some_and(|p| p >= e.position) {
            return None;
        }
        last_position = Some(e.position);
        surviving += 1;
        if b.head != t.head {
            changed.extend(&b.held_under);
            changed.extend(&t.held_under);
        }
    }
    if surviving < earlier.len() {
        let held: HashSet<&str> = ix.held.iter().map(|h| h.ext_id.as_str()).collect();
        for (id, e) in earlier {
            if !held.contains(id.as_str()) {
                changed.extend(&e.binding.as_ref()?.held_under);
            }
        }
    }
    Some(changed)
}

/// The scan of one decision: its law citations and Normenkette tokens, and its case
/// citations with their roles, not yet bound.
fn scan_decision(r: &DecisionRecord, key: String) -> DecisionCitations {
    let vocab = LawVocabulary::shipped();
    let table = CourtTable::shipped();
    let text = &r.doc.text;
    let ex = scan(text, vocab);
    let chars: Vec<char> = text.chars().collect();
    // The Rubrum before the Tenor / Gründe names the Vorinstanzen: citations there are procedural.
    let body_start = r
        .doc
        .sections
        .iter()
        .filter(|s| matches!(s.name.as_str(), "Tenor" | "Tatbestand" | "Gründe" | "Entscheidungsgründe"))
        .map(|s| s.start)
        .min();
    let laws: Vec<LawRef> = ex
        .laws
        .iter()
        .map(|l| LawRef {
            start: l.start,
            end: l.end,
            raw: l.raw.clone(),
            book: l.book.clone(),
            section: l.section.clone(),
            absatz: l.absatz.clone(),
            unit: l.unit,
            canonical: l.canonical.clone(),
            parents: l.parents.clone(),
            chain: ex.chains.get(l.chain).filter(|c| c.members.len() > 1).map(|c| c.canonical.clone()),
            state_law: l.state_law.clone(),
        })
        .collect();
    let from_field =
        r.doc.meta.norms_raw.as_deref().map(|n| extract::citations::norm_field_tokens(n, vocab)).unwrap_or_default();
    let mut norms: Vec<String> = Vec::new();
    for l in laws.iter().filter(|l| l.book.is_some()) {
        for t in std::iter::once(&l.canonical).chain(l.parents.iter()) {
            if !norms.contains(t) {
                norms.push(t.clone());
            }
        }
    }
    for t in &from_field {
        if !norms.contains(t) {
            norms.push(t.clone());
        }
    }
    let cases = ex
        .cases
        .iter()
        .map(|c| {
            let before: String = chars[c.start.saturating_sub(120)..c.start].iter().collect();
            CaseRef {
                start: c.start,
                end: c.end,
                raw: c.raw.clone(),
                kind: c.kind,
                canonical: c.canonical.clone(),
                court_raw: c.court.clone(),
                court: c
                    .court
                    .as_deref()
                    .and_then(|n| table.canonical(n))
                    .filter(|ct| ct.in_reference_table)
                    .map(|ct| ct.name),
                date: c.date.clone(),
                file_number: c.file_number.clone(),
                ecli: c.ecli.clone(),
                status: CaseCitationStatus::UnresolvedPending,
                target: None,
                candidates: Vec::new(),
                withheld: None,
                role: if body_start.is_some_and(|b| c.end <= b) { CitationRole::Procedural } else { role_of(&before) },
                note: None,
            }
        })
        .collect();
    DecisionCitations { id: r.id.clone(), scan_key: key, laws, norms, norms_from_norm_field: from_field, cases }
}

/// Binds every case citation of decision `i` against the held index (a fresh scan and a
/// reused line alike: bindings always reflect this run's corpus).
fn bind_cases(d: &mut DecisionCitations, i: usize, ix: &HeldIndex) {
    let me = &ix.held[i];
    for c in &mut d.cases {
        let (status, target, cands, withheld, note) = bind(&CitedCase::from(&*c), me, ix);
        c.status = status;
        c.target = target.map(|t| ix.held[t].ext_id.clone());
        c.candidates = cands.iter().map(|&t| ix.held[t].ext_id.clone()).collect();
        c.withheld = withheld;
        c.note = note;
    }
}

/// How a decision's citations line of this run came about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineOrigin {
    /// Scanned now.
    Scanned,
    /// The earlier scan, read back and bound anew: its earlier bytes when no binding changed,
    /// else written anew.
    BoundAnew,
    /// The earlier line, not read: nothing its bindings read changed ([`crate::line_bindings`]).
    Carried,
}

/// One decision's citations line of this run: how it came about, its bytes (or where the
/// earlier ones lie), their sha256, and what its binding read and yielded.
struct BuiltLine {
    origin: LineOrigin,
    bytes: PendingLine,
    sha256: [u8; 32],
    binding: LineBinding,
}

/// The length of a JSON array whose elements are skipped, not kept.
struct SeqLen(usize);

impl<'de> Deserialize<'de> for SeqLen {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<SeqLen, D::Error> {
        struct Counter;
        impl<'de> serde::de::Visitor<'de> for Counter {
            type Value = SeqLen;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<SeqLen, A::Error> {
                let mut n = 0;
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
                    n += 1;
                }
                Ok(SeqLen(n))
            }
        }
        d.deserialize_seq(Counter)
    }
}

/// What binding anew reads of an earlier line: its case citations (the law citations are
/// only counted).
#[derive(Deserialize)]
struct EarlierCases {
    id: String,
    laws: SeqLen,
    cases: Vec<CaseRef>,
}

/// The earlier line `bytes` of decision `i` (its sha256 `sha256` when recorded), bound anew
/// against this run's corpus: kept byte for byte when no binding changed, else parsed in full
/// and rebound; None when it is not a line of that decision (it is scanned again). `t` is
/// what the first pass read of the decision.
fn rebound(
    bytes: Vec<u8>,
    sha256: Option<[u8; 32]>,
    i: usize,
    ix: &HeldIndex,
    t: &ToBind,
) -> Option<Result<BuiltLine>> {
    let earlier: EarlierCases = serde_json::from_slice(&bytes).ok()?;
    if earlier.id != ix.held[i].ext_id {
        return None;
    }
    let mut d = DecisionCitations {
        id: earlier.id,
        scan_key: String::new(),
        laws: Vec::new(),
        norms: Vec::new(),
        norms_from_norm_field: Vec::new(),
        cases: earlier.cases.clone(),
    };
    bind_cases(&mut d, i, ix);
    if d.cases == earlier.cases {
        let sha256 = sha256.unwrap_or_else(|| <sha2::Sha256 as sha2::Digest>::digest(&bytes).into());
        let binding = t.binding(earlier.laws.0, &d.cases);
        return Some(Ok(BuiltLine {
            origin: LineOrigin::BoundAnew,
            bytes: PendingLine::Bytes(bytes),
            sha256,
            binding,
        }));
    }
    let mut d: DecisionCitations = serde_json::from_slice(&bytes).ok()?;
    bind_cases(&mut d, i, ix);
    Some(serialised(d, LineOrigin::BoundAnew, t))
}

/// A decision's line written anew.
fn serialised(d: DecisionCitations, origin: LineOrigin, t: &ToBind) -> Result<BuiltLine> {
    let mut bytes = serde_json::to_vec(&d)?;
    bytes.push(b'\n');
    let sha256 = <sha2::Sha256 as sha2::Digest>::digest(&bytes).into();
    let binding = t.binding(d.laws.len(), &d.cases);
    Ok(BuiltLine { origin, bytes: PendingLine::Bytes(bytes), sha256, binding })
}

/// The earlier line of decision `i` carried as it is, unread, when nothing its bindings read
/// changed: its scan is reused (`e` is its earlier line, under this run's scan key), the
/// decision reads the same to binding, none of the keys it looks up is `changed`, and every
/// decision it binds to is still held. None otherwise.
fn carried(
    e: &EarlierLine,
    t: &ToBind,
    changed: Option<&HashSet<u64>>,
    index_of: &HashMap<&str, usize>,
) -> Option<BuiltLine> {
    let (changed, binding, sha256) = (changed?, e.binding.as_ref()?, e.sha256?);
    let unaffected = binding.head == t.head
        && !binding.looks_up.iter().any(|k| changed.contains(k))
        && binding.targets.iter().all(|id| index_of.contains_key(id.as_str()));
    unaffected.then(|| BuiltLine {
        origin: LineOrigin::Carried,
        bytes: PendingLine::Earlier(e.span),
        sha256,
        binding: binding.clone(),
    })
}

/// Extracts and binds the citations of every decision; writes the outputs.
///
/// Two streaming passes: the first keeps each decision's head (id, court, date, keys; from
/// `decisions.lines`, without texts, when it describes the file), the second scans a batch of
/// texts at a time. A decision whose record is unchanged since the last run (same `scan_key`)
/// is not scanned again: its earlier line is carried unread when nothing its binding read
/// changed ([`crate::line_bindings`]; [`changed_keys`], [`carried`]), else read back and only
/// bound anew. With the same
/// input as the last run nothing is redone. The citations are written as parts, a part that
/// comes out as the last run's kept as it is, with `citations.lines` (see
/// [`crate::citation_lines`]) and `citations.bindings`.
pub fn run(data_dir: &Path) -> Result<Option<CitationSummary>> {
    let Some(manifest) = decision_stage::read_manifest(data_dir)? else {
        return Ok(None);
    };
    let basis = scan_basis();
    let fingerprint = input_fingerprint(&manifest.sha256, &basis);
    let earlier_summary = read_summary(data_dir).ok().flatten();
    if let Some(s) = &earlier_summary
        && s.input_fingerprint == fingerprint
        && extract::line_parts::list_is_whole(&citations_layout(data_dir))
        && citing_counts_path(data_dir).is_file()
    {
        return Ok(Some(CitationSummary { unchanged: true, scanned: 0, reused: s.decisions, ..s.clone() }));
    }
    let (ix, to_bind) = read_heads(data_dir, &basis)?;
    let bind_basis = bind_basis(&ix);
    let earlier = earlier_lines(data_dir, earlier_summary.as_ref().map(|s| s.sha256.as_str()));
    // Lines are carried unread only under the binding basis they were bound under.
    let changed = earlier_summary
        .as_ref()
        .filter(|s| s.bind_basis == bind_basis)
        .and_then(|_| changed_keys(&ix, &to_bind, &earlier));
    let layout = citations_layout(data_dir);
    let earlier_parts = extract::line_parts::PartedLines::open(layout.clone()).ok();
    std::fs::create_dir_all(data_dir.join("work/resolve"))?;
    let out = crate::citation_lines::CitationsWriter::create(
        data_dir,
        earlier_parts.as_ref().map(|p| p.parts()).unwrap_or_default(),
    )?;
    let mut summary = CitationSummary { decisions: ix.held.len(), bind_basis, ..Default::default() };
    let mut edges: Vec<(u32, u32)> = Vec::new();
    let index_of: HashMap<&str, usize> = ix.held.iter().enumerate().map(|(i, h)| (h.ext_id.as_str(), i)).collect();

    let records = decision_stage::open_decisions(data_dir)?;
    let bar = catalog::cli::progress_bar(ix.held.len() as u64, "resolve citations");
    let all: Vec<usize> = (0..ix.held.len()).collect();
    for batch in all.chunks(BATCH) {
        let done: Vec<Result<BuiltLine>> = batch
            .par_iter()
            .map(|&i| {
                let t = &to_bind[i];
                let reusable = (!t.scan_key.is_empty())
                    .then(|| earlier.get(&ix.held[i].ext_id))
                    .flatten()
                    .filter(|e| e.scan_key == t.scan_key);
                if let Some(line) = reusable.and_then(|e| carried(e, t, changed.as_ref(), &index_of)) {
                    return Ok(line);
                }
                let earlier_bytes = reusable.and_then(|e| earlier_parts.as_ref()?.read_line(e.span).ok());
                // Byte for byte the earlier line when kept: its recorded hash holds.
                let sha256 = reusable.and_then(|e| e.sha256);
                if let Some(built) = earlier_bytes.and_then(|bytes| rebound(bytes, sha256, i, &ix, t)) {
                    return built;
                }
                // Only the decisions to scan are read from the parts (their texts).
                let r = records.read_json::<decision_stage::DecisionRecord>(t.span)?;
                if r.id != ix.held[i].ext_id {
                    anyhow::bail!(
                        "{} changed while resolve read it; run `resolve` again",
                        records.path(t.span.part).display()
                    );
                }
                let mut d = scan_decision(&r, t.scan_key.clone());
                bind_cases(&mut d, i, &ix);
                serialised(d, LineOrigin::Scanned, t)
            })
            .collect();
        bar.inc(batch.len() as u64);
        let mut lines = Vec::with_capacity(batch.len());
        for (&i, d) in batch.iter().zip(done) {
            let BuiltLine { origin, bytes, sha256, binding } = d?;
            match origin {
                LineOrigin::Scanned => summary.scanned += 1,
                LineOrigin::BoundAnew => summary.reused += 1,
                LineOrigin::Carried => {
                    summary.reused += 1;
                    summary.carried += 1;
                }
            }
            summary.law_citations += binding.laws;
            summary.case_citations += binding.cases();
            for (status, &n) in CaseCitationStatus::ALL.iter().zip(&binding.statuses).filter(|(_, n)| **n > 0) {
                *summary.by_status.entry(*status).or_default() += n as usize;
            }
            for (reason, &n) in WithheldReason::ALL.iter().zip(&binding.withheld).filter(|(_, n)| **n > 0) {
                *summary.withheld.entry(*reason).or_default() += n as usize;
            }
            for t in &binding.targets {
                if let Some(&t) = index_of.get(t.as_str()) {
                    summary.resolved_edges += 1;
                    edges.push((i as u32, t as u32));
                }
            }
            let (id, scan_key) = (ix.held[i].ext_id.clone(), to_bind[i].scan_key.clone());
            lines.push(crate::citation_lines::OutLine { id, scan_key, bytes, sha256, binding });
        }
        out.send(lines);
    }
    bar.finish_and_clear();
    // The parts, then `citations.lines`, then the list: until the summary names this list,
    // they match no summary.
    let written = out.finish()?;
    drop(earlier_parts);
    summary.parts_kept = written.kept;
    summary.parts_written = written.parts.len() - written.kept;

    // The graph: resolved, not withheld edges; parallel citations of one pair count once.
    edges.sort_unstable();
    edges.dedup();
    summary.distinct_edges = edges.len();
    let mut citing = vec![0u32; ix.held.len()];
    for &(_, t) in &edges {
        citing[t as usize] += 1;
    }
    let mut tsv = String::new();
    for (h, n) in ix.held.iter().zip(&citing).filter(|(_, n)| **n > 0) {
        tsv.push_str(&format!("{}\t{n}\n", h.ext_id));
    }
    extract::write_atomic(&citing_counts_path(data_dir), tsv.as_bytes())?;
    summary.sha256 = written.sha256;
    summary.input_fingerprint = fingerprint;
    extract::write_atomic(&summary_path(data_dir), &serde_json::to_vec_pretty(&summary)?)?;
    // The summary names the new list: what no list names now goes, and the single
    // `citations.jsonl` of builds before the parts.
    extract::line_parts::remove_unlisted(&layout, &written.parts);
    let _ = std::fs::remove_file(data_dir.join("work/resolve/citations.jsonl"));
    Ok(Some(summary))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(id: &str, court: &str, date: &str) -> Held {
        Held {
            ext_id: id.into(),
            court: CourtTable::shipped().canonical(court).map(std::sync::Arc::new),
            date: Some(date.into()),
        }
    }

    /// The held index of `held`, reachable by `by_fn`, both sources read.
    fn held_index(held: Vec<Held>, by_fn: HashMap<String, Vec<usize>>, courts_held: Vec<Court>) -> HeldIndex {
        HeldIndex {
            held,
            by_fn,
            courts_held,
            sources: vec!["rii", "oldp"],
            coverage: coverage_map::shipped(),
            printed_courts: PrintedCourts::default(),
        }
    }

    fn citation(text: &str) -> extract::citations::CaseCitation {
        let ex = scan(text, LawVocabulary::shipped());
        ex.cases.into_iter().next().unwrap_or_else(|| panic!("no case citation in {text:?}"))
    }

    #[test]
    fn citations_are_read_by_id_and_a_bad_line_is_an_error_naming_file_and_line() {
        let dir = std::env::temp_dir().join(format!("resolve-citations-{}", std::process::id()));
        let layout = citations_layout(&dir);
        let line = |id: &str| {
            serde_json::to_string(&DecisionCitations {
                id: id.into(),
                scan_key: String::new(),
                laws: Vec::new(),
                norms: Vec::new(),
                norms_from_norm_field: Vec::new(),
                cases: Vec::new(),
            })
            .unwrap()
        };
        let write = |lines: &[String]| {
            extract::line_parts::write_lines(&layout, lines.iter().map(|l| format!("{l}\n").into_bytes())).unwrap()
        };
        assert!(read_citations_by_id(&dir.join("nothing-here")).unwrap().is_none(), "no file: nothing written");
        write(&[line("b"), line("a")]);
        let by_id = read_citations_by_id(&dir).unwrap().unwrap();
        assert_eq!(by_id.len(), 2);
        assert_eq!(by_id["a"].id, "a");
        write(&[line("a"), line("b"), line("a")]);
        let e = format!("{:#}", read_citations_by_id(&dir).unwrap_err());
        assert!(e.contains("citations.parts: line 3 (counted across its parts) repeats decision a"), "{e}");
        write(&[line("a"), "{\"id\": \"c\", \"laws\": [".to_string()]);
        let e = format!("{:#}", read_citations_by_id(&dir).unwrap_err());
        assert!(e.contains(".jsonl: the line at byte") && e.contains("is not a decision's citations"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_rebound_line_is_kept_byte_for_byte_while_its_bindings_hold_and_rewritten_when_one_changes() {
        let hs = vec![
            held("a", "Bundesverwaltungsgericht", "2010-01-21"),
            held("me", "Bundesverwaltungsgericht", "2012-01-01"),
        ];
        let index = |by_fn| held_index(hs.clone(), by_fn, vec![(*hs[0].court.clone().unwrap()).clone()]);
        let with_a = index(HashMap::from([(file_number_key("20 F 1.10"), vec![0])]));
        let law = serde_json::json!({"start": 0, "end": 9, "raw": "§ 99 VwGO", "book": "VwGO", "section": "99",
            "absatz": null, "unit": "paragraph", "canonical": "§ 99 VwGO", "parents": [], "chain": null});
        let case = serde_json::json!({"start": 20, "end": 60, "raw": "BVerwG, Beschluss vom 21. Januar 2010 - 20 F 1.10",
            "kind": "file_number", "canonical": "BVerwG 20 F 1.10", "court_raw": "BVerwG", "court": "Bundesverwaltungsgericht",
            "date": "2010-01-21", "file_number": "20 F 1.10", "status": "unresolved_pending", "target": null,
            "candidates": [], "withheld": null, "role": "cited", "note": null});
        let mut d: DecisionCitations = serde_json::from_value(serde_json::json!({"id": "me", "scan_key": "k",
            "laws": [law.clone(), law], "norms": ["§ 99 VwGO"], "norms_from_norm_field": [], "cases": [case]}))
        .unwrap();
        bind_cases(&mut d, 1, &with_a);
        assert_eq!(d.cases[0].status, CaseCitationStatus::Resolved);
        let mut bytes = serde_json::to_vec(&d).unwrap();
        bytes.push(b'\n');

        // Nothing it binds to changed: the earlier bytes, its laws counted, its hash computed
        // (or taken as recorded), and its binding: what it looks up and what it bound to.
        let t = to_bind("me", &hs[1], &[]);
        let sha: [u8; 32] = <sha2::Sha256 as sha2::Digest>::digest(&bytes).into();
        for recorded in [None, Some(sha)] {
            match rebound(bytes.clone(), recorded, 1, &with_a, &t) {
                Some(Ok(BuiltLine {
                    origin: LineOrigin::BoundAnew,
                    bytes: PendingLine::Bytes(kept),
                    sha256,
                    binding,
                })) => {
                    assert_eq!(kept, bytes);
                    assert_eq!(sha256, sha);
                    assert_eq!(binding.laws, 2);
                    assert_eq!(binding.targets, vec!["a".to_string()]);
                    assert_eq!(binding.looks_up, vec![line_bindings::key_hash(&file_number_key("20 F 1.10"))]);
                    assert_eq!(binding, LineBinding::of(t.head.clone(), Vec::new(), 2, &d.cases));
                }
                _ => panic!("an unchanged binding was not kept"),
            }
        }
        // The cited decision is gone: the line is rewritten with the new binding, laws intact.
        let without_a = index(HashMap::new());
        match rebound(bytes.clone(), Some(sha), 1, &without_a, &t) {
            Some(Ok(BuiltLine {
                origin: LineOrigin::BoundAnew,
                bytes: PendingLine::Bytes(written),
                sha256,
                binding,
            })) => {
                let w: DecisionCitations = serde_json::from_slice(&written).unwrap();
                assert_eq!(w.cases[0].status, CaseCitationStatus::UnresolvedNoMatch);
                assert_eq!(w.cases[0].target, None);
                assert_eq!((w.laws.len(), w.norms.clone(), w.scan_key.as_str()), (2, d.norms.clone(), "k"));
                assert_eq!(sha256, <[u8; 32]>::from(<sha2::Sha256 as sha2::Digest>::digest(&written)));
                assert_ne!(sha256, sha);
                assert!(binding.targets.is_empty());
                assert_eq!(binding.cases(), 1);
            }
            _ => panic!("a changed binding was not rewritten"),
        }
        // A line of another decision, or not a line at all, is scanned again instead.
        assert!(rebound(bytes.clone(), None, 0, &with_a, &t).is_none());
        assert!(rebound(b"{\"id\": \"me\"".to_vec(), None, 1, &with_a, &t).is_none());
    }

    /// What the first pass makes of held decision `h` (id `id`), held under `keys`.
    fn to_bind(id: &str, h: &Held, keys: &[&str]) -> ToBind {
        let keys: Vec<String> = keys.iter().map(|k| file_number_key(k)).collect();
        let mut held_under: Vec<u64> = keys.iter().map(|k| line_bindings::key_hash(k)).collect();
        held_under.sort_unstable();
        ToBind {
            scan_key: format!("scan {id}"),
            span: extract::line_parts::PartSpan { part: 0, offset: 0, len: 1 },
            head: line_bindings::head_hash(id, h.court.as_deref(), h.date.as_deref(), &keys),
            held_under,
        }
    }

    /// The earlier line of a decision at `position` whose binding was `binding`.
    fn earlier_line(position: usize, binding: LineBinding) -> EarlierLine {
        EarlierLine {
            position,
            span: extract::line_parts::PartSpan { part: 0, offset: 0, len: 1 },
            scan_key: String::new(),
            sha256: Some([0; 32]),
            binding: Some(binding),
        }
    }

    #[test]
    fn the_keys_a_night_binds_anew_are_those_of_decisions_that_appeared_vanished_or_read_otherwise() {
        let (a, b, c) = (
            held("a", "Bundesverwaltungsgericht", "2010-01-21"),
            held("b", "Bundesgerichtshof", "2011-02-02"),
            held("c", "Bundesgerichtshof", "2012-03-03"),
        );
        let hash = |k: &str| line_bindings::key_hash(&file_number_key(k));
        let (ta, tb, tc) =
            (to_bind("a", &a, &["1 C 1.10"]), to_bind("b", &b, &["II ZR 2/11"]), to_bind("c", &c, &["III ZR 3/12"]));
        let binding_of = |t: &ToBind| LineBinding::of(t.head.clone(), t.held_under.clone(), 0, &[]);
        let ix = |held: Vec<Held>| held_index(held, HashMap::new(), Vec::new());
        let earlier: HashMap<String, EarlierLine> = [("a", &ta), ("b", &tb), ("c", &tc)]
            .into_iter()
            .enumerate()
            .map(|(p, (id, t))| (id.to_string(), earlier_line(p, binding_of(t))))
            .collect();

        // The same decisions: nothing changed.
        let same =
            changed_keys(&ix(vec![a.clone(), b.clone(), c.clone()]), &[ta.clone(), tb.clone(), tc.clone()], &earlier);
        assert_eq!(same, Some(HashSet::new()));
        // b vanished and d appeared: their keys.
        let d = held("d", "Bundesgerichtshof", "2013-04-04");
        let td = to_bind("d", &d, &["IV ZR 4/13"]);
        let keys = changed_keys(&ix(vec![a.clone(), c.clone(), d.clone()]), &[ta.clone(), tc.clone(), td], &earlier);
        assert_eq!(keys, Some(HashSet::from([hash("II ZR 2/11"), hash("IV ZR 4/13")])));
        // c now dated otherwise and held under one more number: its old and new keys.
        let c2 = held("c", "Bundesgerichtshof", "2012-03-04");
        let tc2 = to_bind("c", &c2, &["III ZR 3/12", "III ZR 9/12"]);
        let keys = changed_keys(&ix(vec![a.clone(), b.clone(), c2]), &[ta.clone(), tb.clone(), tc2], &earlier);
        assert_eq!(keys, Some(HashSet::from([hash("III ZR 3/12"), hash("III ZR 9/12")])));
        // Held in another order (candidates would be listed otherwise), or an earlier line without
        // a recorded binding: nothing is carried.
        assert_eq!(
            changed_keys(&ix(vec![b.clone(), a.clone(), c.clone()]), &[tb.clone(), ta.clone(), tc.clone()], &earlier),
            None
        );
        let mut unrecorded = earlier;
        unrecorded.get_mut("b").unwrap().binding = None;
        assert_eq!(changed_keys(&ix(vec![a, b, c]), &[ta, tb, tc], &unrecorded), None);
    }

    #[test]
    fn a_line_is_carried_unread_only_when_nothing_its_binding_read_changed() {
        let me = held("me", "Bundesverwaltungsgericht", "2012-01-01");
        let t = to_bind("me", &me, &["7 C 1.12"]);
        let case = |number: &str, target: Option<&str>| CaseRef {
            start: 0,
            end: 1,
            raw: number.into(),
            kind: CaseKind::FileNumber,
            canonical: number.into(),
            court_raw: None,
            court: None,
            date: None,
            file_number: Some(number.into()),
            ecli: None,
            status: if target.is_some() { CaseCitationStatus::Resolved } else { CaseCitationStatus::UnresolvedNoMatch },
            target: target.map(str::to_string),
            candidates: Vec::new(),
            withheld: None,
            role: CitationRole::Cited,
            note: None,
        };
        let binding = LineBinding::of(
            t.head.clone(),
            t.held_under.clone(),
            3,
            &[case("20 F 1.10", Some("a")), case("1 C 9.99", None)],
        );
        let e = earlier_line(0, binding.clone());
        let held_ids = HashMap::from([("a", 0usize), ("me", 1)]);
        let none = HashSet::new();
        let carried_line = carried(&e, &t, Some(&none), &held_ids).expect("nothing changed: carried");
        assert_eq!((carried_line.origin, carried_line.binding), (LineOrigin::Carried, binding.clone()));
        assert!(matches!(carried_line.bytes, PendingLine::Earlier(_)));
        // A number it cites (bound or not) is held otherwise now: bound anew.
        for number in ["20 F 1.10", "1 C 9.99"] {
            let changed = HashSet::from([line_bindings::key_hash(&file_number_key(number))]);
            assert!(carried(&e, &t, Some(&changed), &held_ids).is_none(), "{number}");
        }
        // Its own head reads otherwise, the decision it bound to is no longer held, or the run
        // carries nothing: bound anew.
        let later = to_bind("me", &held("me", "Bundesverwaltungsgericht", "2012-01-02"), &["7 C 1.12"]);
        assert!(carried(&e, &later, Some(&none), &held_ids).is_none());
        assert!(carried(&e, &t, Some(&none), &HashMap::from([("me", 1usize)])).is_none());
        assert!(carried(&e, &t, None, &held_ids).is_none());
    }

    #[test]
    fn binding_narrows_by_court_and_date_and_withholds_what_contradicts() {
        let hs = vec![
            held("a", "Bundesverwaltungsgericht", "2010-01-21"),
            held("b", "Bundesverwaltungsgericht", "2010-06-25"),
            held("c", "Bundesgerichtshof", "2009-04-08"),
            held("me", "Bundesverwaltungsgericht", "2012-01-01"),
        ];
        let mut by_fn: HashMap<String, Vec<usize>> = HashMap::new();
        by_fn.insert(file_number_key("20 F 1.10"), vec![0, 1]);
        by_fn.insert(file_number_key("VIII ZR 231/07"), vec![2]);
        let courts: Vec<Court> = vec![(*hs[0].court.clone().unwrap()).clone(), (*hs[2].court.clone().unwrap()).clone()];
        let ix = held_index(hs.clone(), by_fn, courts);
        let me = &hs[3];
        let st = |text: &str| {
            let (s, target, cands, withheld, _) = bind(&(&citation(text)).into(), me, &ix);
            (s, target, cands.len(), withheld)
        };
        assert_eq!(
            st("vgl. BVerwG, Beschluss vom 21. Januar 2010 - 20 F 1.10 -"),
            (CaseCitationStatus::Resolved, Some(0), 0, None)
        );
        assert_eq!(st("vgl. Beschluss vom 20 F 1.10"), (CaseCitationStatus::UnresolvedAmbiguous, None, 2, None));
        assert_eq!(st("BGH, Urteil vom 08.04.2009 - VIII ZR 231/07"), (CaseCitationStatus::Resolved, Some(2), 0, None));
        assert_eq!(st("BGH, Urteil vom 09.04.2009 - VIII ZR 231/07").3, Some(WithheldReason::DateContradicts));
        assert_eq!(st("BVerwG, Urteil vom 08.04.2009 - VIII ZR 231/07").3, Some(WithheldReason::CourtContradicts));
        assert_eq!(st("BFH, Urteil vom 08.04.2009 - IX R 1/20").0, CaseCitationStatus::UnresolvedOutOfCoverage);
        let later = held("early", "Bundesgerichtshof", "2001-01-01");
        let (status, _, _, w, _) =
            bind(&(&citation("BGH, Urteil vom 08.04.2009 - VIII ZR 231/07")).into(), &later, &ix);
        assert_eq!(status, CaseCitationStatus::UnresolvedNoMatch);
        assert_eq!(w, Some(WithheldReason::ForwardDate));
        let (_, _, _, w, _) = bind(&(&citation("BGH, Urteil vom 08.04.2009 - VIII ZR 231/07")).into(), &hs[2], &ix);
        assert_eq!(w, Some(WithheldReason::SelfReference));
    }
}
