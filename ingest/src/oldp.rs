//! Open Legal Data case dumps: JSON Lines (gzip or not) from a local path or a URL, stored
//! whole in `raw/oldp/`. Records are read one by one in `extract`, where a broken line is
//! recorded with its reason and the rest go on; here a dump is one document.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};

use crate::CrawlSummary;
use crate::catalog::Catalog;
use crate::crawl::{CrawlCtx, DocRequest};
use crate::fetch::{FetchOutcome, Fetcher, Validators, spool_local_file};
use crate::raw::RawStore;
use model::SourceProblem;

pub const SOURCE: &str = catalog::sources::OLDP;

/// The catalog key of a dump: its file name (`cases.jsonl.gz`), so a re-downloaded dump of
/// the same name replaces the last copy.
pub fn dump_key(location: &str) -> String {
    let trimmed = location.trim_end_matches('/');
    let name = trimmed.rsplit(['/', '\\']).next().unwrap_or(trimmed);
    let name = name.split(['?', '#']).next().unwrap_or(name);
    if name.is_empty() { "dump".into() } else { name.to_string() }
}

/// A local file's stamp: its path, inode, size and modification time (ns). A file moved,
/// replaced or written since has another.
fn file_stamp(path: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    Some(format!("file {} ino {} size {} mtime {}.{:09}", path.display(), m.ino(), m.len(), m.mtime(), m.mtime_nsec()))
}

fn is_url(location: &str) -> bool {
    location.starts_with("http://") || location.starts_with("https://")
}

/// Reads (path) or fetches (URL, conditionally) each dump into `raw/oldp/`, streamed and
/// under the dump cap. The run row is finished whatever happens.
pub async fn ingest_dumps(data_dir: &Path, locations: &[String], fetcher: Arc<Fetcher>) -> Result<CrawlSummary> {
    let catalog = Catalog::open(data_dir)?;
    let run_id = catalog.start_run("ingest", Some(SOURCE))?;
    let mut summary = CrawlSummary::new(SOURCE, run_id);
    let result = ingest_each(&catalog, data_dir, locations, &fetcher, &mut summary).await;
    summary.finish_with(&catalog, result)
}

async fn ingest_each(
    catalog: &Catalog,
    data_dir: &Path,
    locations: &[String],
    fetcher: &Fetcher,
    summary: &mut CrawlSummary,
) -> Result<()> {
    let raw = RawStore::new(data_dir, SOURCE);
    raw.clear_stale_spool();
    let max_bytes = fetcher.caps().dump_bytes;
    summary.toc_items = locations.len();
    let ctx = CrawlCtx { catalog, raw: &raw, run_id: summary.run_id, source: SOURCE };
    for loc in locations {
        let key = dump_key(loc);
        let ext = if loc.ends_with(".gz") { "jsonl.gz" } else { "jsonl" };
        if is_url(loc) {
            let req = DocRequest { key, url: loc.clone(), source_modified: None };
            ctx.fetch_one(fetcher, &req, ext, max_bytes, summary).await?;
        } else {
            let path = std::path::absolute(loc).with_context(|| format!("bad dump path {loc}"))?;
            let url = format!("file://{}", path.display());
            let req = DocRequest { key, url: url.clone(), source_modified: file_stamp(&path) };
            let stored = ctx.stored(&req.key)?;
            // The same file as last time (path, inode, size, modification time): not read again,
            // as a 304 answers a conditional GET; a dump of 14 GB is not copied to learn that.
            if ctx.not_modified_by_stamp(&req, stored.as_ref(), summary)? {
                continue;
            }
            let outcome = match spool_local_file(&path, &raw.spool_dir(), max_bytes) {
                Ok(body) => FetchOutcome::Body { body, validators: Validators::default(), final_url: url },
                Err(reason) => match SourceProblem::of_reason(&reason) {
                    Some(problem) => FetchOutcome::Refused { problem, http_status: None, reason },
                    None => FetchOutcome::Failed { reason },
                },
            };
            ctx.record(&req, stored.as_ref(), false, outcome, ext, summary, false)?;
        }
    }
    if summary.failed == locations.len() && !locations.is_empty() {
        summary.outage = Some("no dump could be read".into());
    }
    Ok(())
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
