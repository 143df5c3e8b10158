//! What every source crawl shares: fetch one document (conditionally), store good bytes in
//! `raw/`, and record the outcome in the catalog — and the same for a list of documents with
//! bounded parallelism. Source modules (`gii`, `rii`, `oldp`) only parse their tables of
//! contents and say which documents exist.

use std::collections::HashMap;
use std::sync::Arc;

use anyhow::{Context, Result};
use model::SourceProblem;
use tokio::task::JoinSet;

use crate::catalog::{Catalog, DocumentRow, FetchRow, FetchStatus, TocItem};
use crate::fetch::{FetchOutcome, Fetcher, Validators};
use crate::raw::RawStore;
use crate::{CrawlSummary, progress_bar};

/// A table of contents as a source module read it.
#[derive(Debug, Default)]
pub struct ParsedToc {
    pub items: Vec<TocItem>,
    /// `(link, reason)` of entries that could not be used (recorded as problems, not fetched).
    pub rejected: Vec<(String, String)>,
    /// `(key, reason)` of items kept but recorded as problems (an entity nobody defines).
    pub noted: Vec<(String, String)>,
}

/// One document a toc lists.
#[derive(Debug, Clone)]
pub struct DocRequest {
    pub key: String,
    pub url: String,
    /// The toc's own modification stamp (rii `<modified>`); when it equals the stored one the
    /// document is not requested at all.
    pub source_modified: Option<String>,
}

/// Where the crawl of one source writes.
pub struct CrawlCtx<'a> {
    pub catalog: &'a Catalog,
    pub raw: &'a RawStore,
    pub run_id: i64,
    pub source: &'static str,
}

impl CrawlCtx<'_> {
    /// The last good copy of `key` whose bytes are still on disk.
    pub fn stored(&self, key: &str) -> Result<Option<DocumentRow>> {
        Ok(self.catalog.document(self.source, key)?.filter(|d| self.raw.exists(&d.raw_path)))
    }

    /// Records one fetch outcome. Returns the document's current bytes when there are any
    /// (new body, or the stored copy after a 304), `None` after a failure.
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &self,
        req: &DocRequest,
        stored: Option<&DocumentRow>,
        conditional: bool,
        outcome: FetchOutcome,
        ext: &str,
        summary: &mut CrawlSummary,
        want_bytes: bool,
    ) -> Result<Option<Vec<u8>>> {
        let (key, url, source) = (req.key.as_str(), req.url.as_str(), self.source);
        let row = |status, http_status, sha256, bytes, reason, final_url| FetchRow {
            run_id: self.run_id,
            source,
            key,
            url,
            status,
            http_status,
            sha256,
            bytes,
            reason,
            conditional,
            final_url,
        };
        match outcome {
            FetchOutcome::Body { body, validators: got, final_url } => {
                let bytes = body.bytes as i64;
                let (sha, path) = self.raw.adopt(body, ext)?;
                let changed = stored.is_none_or(|d| d.sha256 != sha);
                let status = if changed { FetchStatus::Changed } else { FetchStatus::Unchanged };
                self.catalog.record_fetch(&row(status, Some(200), Some(&sha), Some(bytes), None, Some(&final_url)))?;
                self.catalog.upsert_document(
                    &DocumentRow {
                        source: source.into(),
                        key: key.into(),
                        url: url.into(),
                        sha256: sha,
                        raw_path: path.clone(),
                        bytes,
                        etag: got.etag,
                        last_modified: got.last_modified,
                        source_modified: req.source_modified.clone(),
                        final_url: Some(final_url),
                    },
                    changed,
                )?;
                summary.bytes += bytes as u64;
                summary.count(status);
                if want_bytes { Ok(Some(self.raw.read(&path)?)) } else { Ok(None) }
            }
            FetchOutcome::NotModified { final_url } => {
                let d = stored.context("a 304 can only answer a conditional GET of a stored copy")?;
                let fetch = row(FetchStatus::NotModified, Some(304), Some(&d.sha256), None, None, Some(&final_url));
                self.catalog.record_fetch(&fetch)?;
                self.catalog.touch_document(source, key)?;
                summary.count(FetchStatus::NotModified);
                if want_bytes { Ok(Some(self.raw.read(&d.raw_path)?)) } else { Ok(None) }
            }
            FetchOutcome::Status { status, reason } => {
                self.record_failure(req, conditional, FetchStatus::HttpError, Some(status), &reason, summary)
            }
            FetchOutcome::Failed { reason } => {
                self.record_failure(req, conditional, FetchStatus::NetworkError, None, &reason, summary)
            }
            FetchOutcome::Refused { problem: _, http_status, reason } => {
                self.record_failure(req, conditional, FetchStatus::Refused, http_status, &reason, summary)
            }
        }
    }

    /// A failure keeps the last good copy: it is a fetch row, a mark on the document and a
    /// problem of this run, and the crawl goes on.
    fn record_failure(
        &self,
        req: &DocRequest,
        conditional: bool,
        status: FetchStatus,
        http_status: Option<u16>,
        reason: &str,
        summary: &mut CrawlSummary,
    ) -> Result<Option<Vec<u8>>> {
        let (key, source) = (req.key.as_str(), self.source);
        self.catalog.record_fetch(&FetchRow {
            run_id: self.run_id,
            source,
            key,
            url: &req.url,
            status,
            http_status,
            sha256: None,
            bytes: None,
            reason: Some(reason),
            conditional,
            final_url: None,
        })?;
        self.catalog.mark_document_failed(source, key, reason)?;
        self.catalog.record_problem(Some(self.run_id), source, key, "ingest", reason)?;
        summary.count(status);
        summary.note_failure(key, reason);
        Ok(None)
    }

    /// True, with the document touched and counted not modified, when the source's stamp for
    /// it (`req.source_modified`) equals the stored copy's: it is not requested at all.
    pub fn not_modified_by_stamp(
        &self,
        req: &DocRequest,
        stored: Option<&DocumentRow>,
        summary: &mut CrawlSummary,
    ) -> Result<bool> {
        let (Some(d), Some(m)) = (stored, &req.source_modified) else { return Ok(false) };
        if d.source_modified.as_deref() != Some(m.as_str()) {
            return Ok(false);
        }
        self.catalog.touch_document(self.source, &req.key)?;
        summary.count(FetchStatus::NotModified);
        Ok(true)
    }

    /// Fetches one document (conditionally when a copy is stored) and records it.
    pub async fn fetch_one(
        &self,
        fetcher: &Fetcher,
        req: &DocRequest,
        ext: &str,
        max_bytes: u64,
        summary: &mut CrawlSummary,
    ) -> Result<Option<Vec<u8>>> {
        let stored = self.stored(&req.key)?;
        let validators = validators_of(stored.as_ref());
        let outcome = fetcher.get(&req.url, &validators, &self.raw.spool_dir(), max_bytes).await;
        self.record(req, stored.as_ref(), !validators.is_empty(), outcome, ext, summary, true)
    }

    /// Fetches every document of `reqs` with the fetcher's concurrency and records each.
    /// A document whose toc stamp equals the stored one is not requested (counted not modified).
    pub async fn fetch_all(
        &self,
        fetcher: Arc<Fetcher>,
        reqs: Vec<DocRequest>,
        ext: &str,
        what: &str,
        summary: &mut CrawlSummary,
    ) -> Result<()> {
        let sem = Arc::new(tokio::sync::Semaphore::new(fetcher.politeness().concurrency.max(1)));
        let (spool, max_bytes) = (self.raw.spool_dir(), fetcher.caps().document_bytes);
        let mut set = JoinSet::new();
        let bar = progress_bar(reqs.len() as u64, what);
        for req in reqs {
            let stored = self.stored(&req.key)?;
            if self.not_modified_by_stamp(&req, stored.as_ref(), summary)? {
                bar.inc(1);
                continue;
            }
            let validators = validators_of(stored.as_ref());
            let (fetcher, sem, spool) = (fetcher.clone(), sem.clone(), spool.clone());
            set.spawn(async move {
                let _permit = sem.acquire_owned().await.expect("semaphore never closed");
                let outcome = fetcher.get(&req.url, &validators, &spool, max_bytes).await;
                (req, stored, !validators.is_empty(), outcome)
            });
        }
        while let Some(joined) = set.join_next().await {
            let (req, stored, conditional, outcome) = joined.context("fetch task panicked")?;
            bar.inc(1);
            self.record(&req, stored.as_ref(), conditional, outcome, ext, summary, false)?;
        }
        bar.finish_and_clear();
        Ok(())
    }
}

/// A toc-based source: its catalog name, where its toc is, and what its progress bar says.
pub struct TocSource<'a> {
    pub name: &'static str,
    pub toc_url: String,
    pub what: &'a str,
}

/// Crawls one source the way every toc-based source works: the toc (conditionally), then the
/// documents it lists. `parse` turns the toc bytes into items; `request` says where each
/// item's document is. A toc that cannot be fetched or read is an outage: the last good
/// copies and the last toc stay and nothing else is requested. The run row is finished
/// whatever happens, with exit code 1 and the error when the crawl itself fails.
pub async fn crawl_toc_source(
    data_dir: &std::path::Path,
    source: TocSource<'_>,
    fetcher: Arc<Fetcher>,
    limit: Option<usize>,
    parse: impl Fn(&[u8]) -> Result<ParsedToc>,
    request: impl Fn(&TocItem) -> DocRequest,
) -> Result<CrawlSummary> {
    let mut catalog = Catalog::open(data_dir)?;
    let run_id = catalog.start_run("ingest", Some(source.name))?;
    let mut summary = CrawlSummary::new(source.name, run_id);
    let result = crawl_toc_items(&mut catalog, data_dir, source, fetcher, limit, parse, request, &mut summary).await;
    summary.finish_with(&catalog, result)
}

#[allow(clippy::too_many_arguments)]
async fn crawl_toc_items(
    catalog: &mut Catalog,
    data_dir: &std::path::Path,
    source: TocSource<'_>,
    fetcher: Arc<Fetcher>,
    limit: Option<usize>,
    parse: impl Fn(&[u8]) -> Result<ParsedToc>,
    request: impl Fn(&TocItem) -> DocRequest,
    summary: &mut CrawlSummary,
) -> Result<()> {
    let TocSource { name: source, toc_url, what } = source;
    let run_id = summary.run_id;
    let raw = RawStore::new(data_dir, source);
    raw.clear_stale_spool();
    let toc = DocRequest { key: format!("{source}-toc.xml"), url: toc_url, source_modified: None };
    let mut toc_summary = CrawlSummary::new(source, run_id);
    let toc_bytes = {
        let ctx = CrawlCtx { catalog, raw: &raw, run_id, source };
        ctx.fetch_one(&fetcher, &toc, "xml", fetcher.caps().toc_bytes, &mut toc_summary).await?
    };
    summary.bytes += toc_summary.bytes;
    let Some(toc_bytes) = toc_bytes else {
        let reason = toc_summary.first_failures.first().map(|f| f.1.clone()).unwrap_or_default();
        summary.outage = Some(format!("table of contents unreachable: {}: {reason}", toc.url));
        return Ok(());
    };
    summary.toc_changed = Some(toc_summary.changed > 0);
    let parsed = match parse(&toc_bytes) {
        Ok(p) => p,
        Err(e) => {
            let reason = SourceProblem::TocUnreadable.reason(format!("{e:#}; the last stored toc stays in force"));
            catalog.record_problem(Some(run_id), source, &toc.key, "ingest", &reason)?;
            summary.outage = Some(format!("table of contents unreadable: {}: {reason}", toc.url));
            return Ok(());
        }
    };
    for (link, reason) in &parsed.rejected {
        catalog.record_problem(Some(run_id), source, link, "ingest", reason)?;
        summary.rejected += 1;
    }
    for (key, reason) in &parsed.noted {
        catalog.record_problem(Some(run_id), source, key, "ingest", reason)?;
    }
    let mut items = parsed.items;
    for (key, reason) in drop_duplicate_items(&mut items) {
        catalog.record_problem(Some(run_id), source, &key, "ingest", &reason)?;
        summary.rejected += 1;
    }
    if let Some(n) = limit {
        items.truncate(n);
    }
    catalog.replace_toc(source, &items)?;
    summary.toc_items = items.len();
    let reqs = items.iter().map(request).collect();
    let ctx = CrawlCtx { catalog, raw: &raw, run_id, source };
    ctx.fetch_all(fetcher, reqs, "zip", what, summary).await
}

/// Keeps the first toc item of each key (one document, one law row); returns `(key, reason)`
/// of each repeat, for the catalog's problems.
pub fn drop_duplicate_items(items: &mut Vec<TocItem>) -> Vec<(String, String)> {
    let mut first: HashMap<String, (usize, TocItem)> = HashMap::new();
    let mut repeats = Vec::new();
    let mut position = 0;
    items.retain(|it| {
        position += 1;
        match first.get(&it.key) {
            Some((at, kept)) => {
                let same = if kept == it { "an identical item" } else { "a different item" };
                let why = format!(
                    "toc item {position} repeats key {:?} ({same}: title {:?}, link {}); item {at} is kept",
                    it.key, it.title, it.link
                );
                repeats.push((it.key.clone(), SourceProblem::DuplicateTocItem.reason(why)));
                false
            }
            None => {
                first.insert(it.key.clone(), (position, it.clone()));
                true
            }
        }
    });
    repeats
}

fn validators_of(stored: Option<&DocumentRow>) -> Validators {
    stored.map(|d| Validators { etag: d.etag.clone(), last_modified: d.last_modified.clone() }).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(key: &str, title: &str) -> TocItem {
        TocItem { key: key.into(), title: title.into(), link: format!("http://x/{key}/xml.zip"), extra: None }
    }

    #[test]
    fn a_repeated_toc_key_keeps_the_first_item_and_reports_the_rest() {
        let mut items = vec![item("a", "A"), item("b", "B"), item("a", "A"), item("a", "A2")];
        let repeats = drop_duplicate_items(&mut items);
        assert_eq!(items, vec![item("a", "A"), item("b", "B")]);
        assert_eq!(repeats.len(), 2);
        assert!(repeats[0].1.starts_with("duplicate_toc_item: toc item 3 repeats key \"a\" (an identical item"));
        assert!(repeats[1].1.contains("(a different item: title \"A2\""), "{:?}", repeats[1]);
        assert!(repeats.iter().all(|(k, r)| k == "a" && r.ends_with("item 1 is kept")));
    }
}
