//! Open Legal Data case dumps: JSON Lines (gzip or not) from a local path or a URL, stored
//! whole in `raw/oldp/`. Records are read one by one in `extract`, where a broken line is
//! recorded with its reason and the rest go on; here a dump is one document.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};

use crate::CrawlSummary;
use crate::catalog::Catalog;
use crate::crawl::{CrawlCtx, DocRequest};
use crate::fetch::{FetchOutcome, Fetcher, Validators};
use crate::raw::RawStore;

pub const SOURCE: &str = "oldp";

/// The catalog key of a dump: its file name (`cases.jsonl.gz`), so a re-downloaded dump of
/// the same name replaces the last copy.
pub fn dump_key(location: &str) -> String {
    let trimmed = location.trim_end_matches('/');
    let name = trimmed.rsplit(['/', '\\']).next().unwrap_or(trimmed);
    let name = name.split(['?', '#']).next().unwrap_or(name);
    if name.is_empty() { "dump".into() } else { name.to_string() }
}

fn is_url(location: &str) -> bool {
    location.starts_with("http://") || location.starts_with("https://")
}

/// Reads (path) or fetches (URL, conditionally) each dump into `raw/oldp/`.
pub async fn ingest_dumps(data_dir: &Path, locations: &[String], fetcher: Arc<Fetcher>) -> Result<CrawlSummary> {
    let catalog = Catalog::open(data_dir)?;
    let raw = RawStore::new(data_dir, SOURCE);
    let run_id = catalog.start_run("ingest", Some(SOURCE))?;
    let mut summary = CrawlSummary::new(SOURCE, run_id);
    summary.toc_items = locations.len();
    let ctx = CrawlCtx { catalog: &catalog, raw: &raw, run_id, source: SOURCE };
    for loc in locations {
        let key = dump_key(loc);
        let ext = if loc.ends_with(".gz") { "jsonl.gz" } else { "jsonl" };
        if is_url(loc) {
            let req = DocRequest { key, url: loc.clone(), source_modified: None };
            ctx.fetch_one(&fetcher, &req, ext, &mut summary).await?;
        } else {
            let path = std::path::absolute(loc).with_context(|| format!("bad dump path {loc}"))?;
            let req = DocRequest { key, url: format!("file://{}", path.display()), source_modified: None };
            let stored = ctx.stored(&req.key)?;
            let outcome = match std::fs::read(&path) {
                Ok(bytes) => FetchOutcome::Body { bytes, validators: Validators::default() },
                Err(e) => FetchOutcome::Failed { reason: format!("cannot read {}: {e}", path.display()) },
            };
            ctx.record(&req, stored.as_ref(), false, outcome, ext, &mut summary, false)?;
        }
    }
    if summary.failed == locations.len() && !locations.is_empty() {
        summary.outage = Some("no dump could be read".into());
    }
    summary.finish(&catalog)?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dump_keys_are_file_names() {
        assert_eq!(dump_key("https://example.org/dumps/cases.jsonl.gz?x=1"), "cases.jsonl.gz");
        assert_eq!(dump_key("../shared/data/decisions/corpus.oldp.jsonl.gz"), "corpus.oldp.jsonl.gz");
        assert_eq!(dump_key("cases.jsonl"), "cases.jsonl");
    }
}
