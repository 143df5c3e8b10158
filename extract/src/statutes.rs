//! The statutes run: every law of the current gii toc → `work/extract/gii/laws/…json`,
//! plus `work/extract/gii/current.json` naming the record of each law (the done-marker) with its
//! norm account, the same accounts in the catalog's `norm_accounts`, and a `problems` row for
//! every law without a record or that lost text.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use catalog::Catalog;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::gii_xml::{parse_law_xml, xml_from_zip};
use crate::law::{LAW_EXTRACT_VERSION, LawBook, NormAccount, NormDropReason};

pub const SOURCE: &str = "gii";

/// `work/extract/gii/current.json`: what the last complete run produced.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StatutesManifest {
    pub extract_version: u32,
    /// Toc entries at the time of the run.
    pub toc_items: usize,
    /// One entry per law that has a readable record, in toc order.
    pub laws: Vec<LawEntry>,
    /// Toc entries without a record, with the reason (also in the catalog's `problems`).
    pub missing: Vec<MissingLaw>,
    /// The norm accounts of `laws` added up.
    #[serde(default)]
    pub norm_account: NormAccount,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LawEntry {
    pub slug: String,
    pub zip_sha256: String,
    /// Relative to the data directory.
    pub path: String,
    pub sections: usize,
    pub xml_bytes: u64,
    /// Copied from the record so later stages can map book codes without reading every law.
    pub jurabk: Vec<String>,
    pub amtabk: Option<String>,
    pub title: String,
    pub short_title: Option<String>,
    /// What became of every `<norm>` of the law's XML.
    #[serde(default)]
    pub norm_account: NormAccount,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MissingLaw {
    pub slug: String,
    pub reason: String,
}

#[derive(Debug, Default)]
pub struct StatutesSummary {
    pub toc_items: usize,
    pub extracted: usize,
    pub reused: usize,
    pub failed: usize,
    pub sections: usize,
    pub xml_bytes: u64,
    /// Laws with a record that lost text (no rows from a text-bearing XML, or a norm over the
    /// section cap); each is a row in the catalog's `problems`.
    pub laws_with_problems: usize,
    pub norm_account: NormAccount,
}

/// Exit code of the `extract` binary when some documents failed or lost text (the rest written),
/// as `ingest` uses it.
pub const EXIT_SOME_FAILED: i32 = 3;

impl StatutesSummary {
    /// True when the run recorded a problem: a law without a record or a law that lost text.
    pub fn has_problems(&self) -> bool {
        self.failed > 0 || self.laws_with_problems > 0
    }

    pub fn line(&self, secs: f64) -> String {
        format!(
            "extract gii: {} laws in toc; {} extracted, {} unchanged (reused), {} failed, {} lost text; {} sections; norms: {} = {} rows + {} headers + {} headings + {} dropped ({}); {:.1} MB XML parsed in {:.1} s ({:.1} MB/s)",
            self.toc_items,
            self.extracted,
            self.reused,
            self.failed,
            self.laws_with_problems,
            self.sections,
            self.norm_account.norms,
            self.norm_account.section_rows,
            self.norm_account.law_header,
            self.norm_account.headings,
            self.norm_account.dropped_total(),
            self.norm_account.dropped.iter().map(|(r, n)| format!("{r} {n}")).collect::<Vec<_>>().join(", "),
            self.xml_bytes as f64 / 1e6,
            secs,
            if secs > 0.0 { self.xml_bytes as f64 / 1e6 / secs } else { 0.0 }
        )
    }
}

pub fn manifest_path(data_dir: &Path) -> PathBuf {
    data_dir.join("work/extract/gii/current.json")
}

pub fn read_manifest(data_dir: &Path) -> Result<StatutesManifest> {
    let p = manifest_path(data_dir);
    let bytes =
        std::fs::read(&p).with_context(|| format!("no statutes extract at {} (run `extract` first)", p.display()))?;
    serde_json::from_slice(&bytes).with_context(|| format!("{} is unreadable", p.display()))
}

pub fn read_law(data_dir: &Path, entry: &LawEntry) -> Result<LawBook> {
    let p = data_dir.join(&entry.path);
    let bytes = std::fs::read(&p).with_context(|| format!("cannot read {}", p.display()))?;
    serde_json::from_slice(&bytes).with_context(|| format!("{} is not a law record", p.display()))
}

enum Outcome {
    /// The record, freshly written, and the text it lost (each a problem to record).
    Extracted(LawEntry, Vec<String>),
    Reused(LawEntry, Vec<String>),
    Failed(MissingLaw),
}

/// What a law record lost, one reason per problem: text in the XML but no row at all
/// (`text_without_rows`), and every norm dropped for its size (`section_too_large`).
pub fn law_problems(law: &LawBook) -> Vec<String> {
    let a = &law.norm_account;
    let mut out = Vec::new();
    if law.sections.is_empty() && a.text_bearing > 0 {
        out.push(format!(
            "text_without_rows: {} of {} norms carry text, no section row ({} dropped)",
            a.text_bearing,
            a.norms,
            a.dropped_total()
        ));
    }
    for d in law.dropped_norms.iter().filter(|d| d.reason == NormDropReason::SectionTooLarge) {
        out.push(format!(
            "{}: norm {} {}has {} bytes of text, over the cap of {} bytes; dropped whole",
            d.reason,
            d.doknr,
            d.designation.as_deref().map(|x| format!("({x}) ")).unwrap_or_default(),
            d.text_bytes,
            crate::law::MAX_SECTION_TEXT_BYTES
        ));
    }
    out
}

pub fn run(data_dir: &Path) -> Result<StatutesSummary> {
    let mut catalog = Catalog::open(data_dir)?;
    let run_id = catalog.start_run("extract", Some(SOURCE))?;
    let toc = catalog.toc(SOURCE)?;
    let docs: HashMap<String, catalog::DocumentRow> =
        catalog.documents(SOURCE)?.into_iter().map(|d| (d.key.clone(), d)).collect();
    let mut failures_reason: HashMap<String, String> = HashMap::new();
    for item in &toc {
        if !docs.contains_key(&item.key) {
            let why = catalog.last_fetch_failure(SOURCE, &item.key)?.unwrap_or_else(|| "never fetched".into());
            failures_reason.insert(item.key.clone(), why);
        }
    }
    let bar = catalog::cli::progress_bar(toc.len() as u64, "extract gii");
    let outcomes: Vec<Outcome> = toc
        .par_iter()
        .map(|item| {
            let out = extract_one(data_dir, item, docs.get(&item.key), failures_reason.get(&item.key));
            bar.inc(1);
            out
        })
        .collect();
    bar.finish_and_clear();

    let mut summary = StatutesSummary { toc_items: toc.len(), ..Default::default() };
    let mut manifest = StatutesManifest {
        extract_version: LAW_EXTRACT_VERSION,
        toc_items: toc.len(),
        laws: Vec::new(),
        missing: Vec::new(),
        norm_account: NormAccount::default(),
    };
    let mut accounts = Vec::with_capacity(toc.len());
    for o in outcomes {
        let (e, problems) = match o {
            Outcome::Extracted(e, p) => {
                summary.extracted += 1;
                summary.xml_bytes += e.xml_bytes;
                (e, p)
            }
            Outcome::Reused(e, p) => {
                summary.reused += 1;
                (e, p)
            }
            Outcome::Failed(m) => {
                summary.failed += 1;
                catalog.record_problem(Some(run_id), SOURCE, &m.slug, "extract", &m.reason)?;
                manifest.missing.push(m);
                continue;
            }
        };
        summary.sections += e.sections;
        if !problems.is_empty() {
            summary.laws_with_problems += 1;
        }
        for p in &problems {
            catalog.record_problem(Some(run_id), SOURCE, &e.slug, "extract", p)?;
        }
        manifest.norm_account.add(&e.norm_account);
        accounts.push(account_row(&e)?);
        manifest.laws.push(e);
    }
    summary.norm_account = manifest.norm_account.clone();
    catalog.replace_norm_accounts(run_id, SOURCE, &accounts)?;
    crate::write_atomic(&manifest_path(data_dir), &serde_json::to_vec(&manifest)?)?;
    let exit_code = if summary.has_problems() { EXIT_SOME_FAILED } else { 0 };
    catalog.finish_run(
        run_id,
        exit_code,
        &format!(
            "{} laws, {} failed, {} lost text; {} norms, {} section rows",
            manifest.laws.len(),
            summary.failed,
            summary.laws_with_problems,
            manifest.norm_account.norms,
            manifest.norm_account.section_rows
        ),
    )?;
    Ok(summary)
}

fn account_row(e: &LawEntry) -> Result<catalog::NormAccountRow> {
    let a = &e.norm_account;
    Ok(catalog::NormAccountRow {
        key: e.slug.clone(),
        sha256: e.zip_sha256.clone(),
        norms: a.norms as i64,
        section_rows: a.section_rows as i64,
        law_header: a.law_header as i64,
        headings: a.headings as i64,
        dropped: a.dropped_total() as i64,
        dropped_by_reason: serde_json::to_string(&a.dropped)?,
        text_bearing: a.text_bearing as i64,
    })
}

fn extract_one(
    data_dir: &Path,
    item: &catalog::TocItem,
    doc: Option<&catalog::DocumentRow>,
    fetch_failure: Option<&String>,
) -> Outcome {
    let fail = |reason: String| Outcome::Failed(MissingLaw { slug: item.key.clone(), reason });
    let Some(doc) = doc else {
        return fail(format!("no copy fetched: {}", fetch_failure.map(String::as_str).unwrap_or("unknown")));
    };
    let rel = format!("work/extract/gii/laws/{}/{}.v{}.json", &doc.sha256[..2], doc.sha256, LAW_EXTRACT_VERSION);
    let out = data_dir.join(&rel);
    // A previous run already extracted these exact bytes: reuse (the record is small to peek).
    if let Ok(bytes) = std::fs::read(&out)
        && let Ok(law) = serde_json::from_slice::<LawBook>(&bytes)
    {
        let problems = law_problems(&law);
        return Outcome::Reused(entry(item, doc, rel, 0, law), problems);
    }
    let zip = match std::fs::read(data_dir.join(&doc.raw_path)) {
        Ok(b) => b,
        Err(e) => return fail(format!("raw copy unreadable: {e}")),
    };
    let (_, xml) = match xml_from_zip(&zip) {
        Ok(x) => x,
        Err(e) => return fail(e.to_string()),
    };
    let law = match parse_law_xml(&xml, &item.key, &item.title, &doc.sha256) {
        Ok(l) => l,
        Err(e) => return fail(e.to_string()),
    };
    let json = match serde_json::to_vec(&law) {
        Ok(j) => j,
        Err(e) => return fail(format!("cannot serialise record: {e}")),
    };
    if let Err(e) = crate::write_atomic(&out, &json) {
        return fail(format!("cannot write {}: {e}", out.display()));
    }
    let problems = law_problems(&law);
    Outcome::Extracted(entry(item, doc, rel, xml.len() as u64, law), problems)
}

fn entry(item: &catalog::TocItem, doc: &catalog::DocumentRow, path: String, xml_bytes: u64, law: LawBook) -> LawEntry {
    LawEntry {
        slug: item.key.clone(),
        zip_sha256: doc.sha256.clone(),
        path,
        sections: law.sections.len(),
        xml_bytes,
        jurabk: law.jurabk,
        amtabk: law.amtabk,
        title: law.title,
        short_title: law.short_title,
        norm_account: law.norm_account,
    }
}
