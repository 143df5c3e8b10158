//! The statutes run: every law of the current gii toc → `work/extract/gii/laws/…json`,
//! plus `work/extract/gii/current.json` naming the record of each law (the done-marker).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use ingest::catalog::Catalog;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::gii_xml::{parse_law_xml, xml_from_zip};
use crate::law::{LAW_EXTRACT_VERSION, LawBook};

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
}

impl StatutesSummary {
    pub fn line(&self, secs: f64) -> String {
        format!(
            "extract gii: {} laws in toc; {} extracted, {} unchanged (reused), {} failed; {} sections; {:.1} MB XML parsed in {:.1} s ({:.1} MB/s)",
            self.toc_items,
            self.extracted,
            self.reused,
            self.failed,
            self.sections,
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
    Extracted(LawEntry),
    Reused(LawEntry),
    Failed(MissingLaw),
}

pub fn run(data_dir: &Path) -> Result<StatutesSummary> {
    let catalog = Catalog::open(data_dir)?;
    let run_id = catalog.start_run("extract", Some(SOURCE))?;
    let toc = catalog.toc(SOURCE)?;
    let docs: HashMap<String, ingest::catalog::DocumentRow> =
        catalog.documents(SOURCE)?.into_iter().map(|d| (d.key.clone(), d)).collect();
    let mut failures_reason: HashMap<String, String> = HashMap::new();
    for item in &toc {
        if !docs.contains_key(&item.key) {
            let why = catalog.last_fetch_failure(SOURCE, &item.key)?.unwrap_or_else(|| "never fetched".into());
            failures_reason.insert(item.key.clone(), why);
        }
    }
    let bar = ingest::progress_bar(toc.len() as u64, "extract gii");
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
    };
    for o in outcomes {
        match o {
            Outcome::Extracted(e) => {
                summary.extracted += 1;
                summary.sections += e.sections;
                summary.xml_bytes += e.xml_bytes;
                manifest.laws.push(e);
            }
            Outcome::Reused(e) => {
                summary.reused += 1;
                summary.sections += e.sections;
                manifest.laws.push(e);
            }
            Outcome::Failed(m) => {
                summary.failed += 1;
                catalog.record_problem(Some(run_id), SOURCE, &m.slug, "extract", &m.reason)?;
                manifest.missing.push(m);
            }
        }
    }
    crate::write_atomic(&manifest_path(data_dir), &serde_json::to_vec(&manifest)?)?;
    catalog.finish_run(run_id, 0, &format!("{} laws, {} failed", manifest.laws.len(), summary.failed))?;
    Ok(summary)
}

fn extract_one(
    data_dir: &Path,
    item: &ingest::catalog::TocItem,
    doc: Option<&ingest::catalog::DocumentRow>,
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
        return Outcome::Reused(LawEntry {
            slug: item.key.clone(),
            zip_sha256: doc.sha256.clone(),
            path: rel,
            sections: law.sections.len(),
            xml_bytes: 0,
            jurabk: law.jurabk,
            amtabk: law.amtabk,
            title: law.title,
            short_title: law.short_title,
        });
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
    Outcome::Extracted(LawEntry {
        slug: item.key.clone(),
        zip_sha256: doc.sha256.clone(),
        path: rel,
        sections: law.sections.len(),
        xml_bytes: xml.len() as u64,
        jurabk: law.jurabk,
        amtabk: law.amtabk,
        title: law.title,
        short_title: law.short_title,
    })
}
