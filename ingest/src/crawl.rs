//! What every source crawl shares: fetch one document (conditionally), store good bytes in
//! `raw/`, and record the outcome in the catalog — and the same for a list of documents with
//! bounded parallelism. Source modules (`gii`, `rii`, `oldp`) only parse their tables of
//! contents and say which documents exist.

use std::sync::Arc;

use anyhow::{Context, Result};
use tokio::task::JoinSet;

use crate::catalog::{Catalog, DocumentRow, FetchRow, FetchStatus, TocItem};
use crate::fetch::{FetchOutcome, Fetcher, Validators};
use crate::raw::RawStore;
use crate::{CrawlSummary, progress_bar};

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
        let row = |status, http_status, sha256, bytes, reason| FetchRow {
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
        };
        match outcome {
            FetchOutcome::Body { bytes, validators: got } => {
                let (sha, path) = self.raw.put(&bytes, ext)?;
                let changed = stored.is_none_or(|d| d.sha256 != sha);
                let status = if changed { FetchStatus::Changed } else { FetchStatus::Unchanged };
                self.catalog.record_fetch(&row(status, Some(200), Some(&sha), Some(bytes.len() as i64), None))?;
                self.catalog.upsert_document(
                    &DocumentRow {
                        source: source.into(),
                        key: key.into(),
                        url: url.into(),
                        sha256: sha,
                        raw_path: path,
                        bytes: bytes.len() as i64,
                        etag: got.etag,
                        last_modified: got.last_modified,
                        source_modified: req.source_modified.clone(),
                    },
                    changed,
                )?;
                summary.bytes += bytes.len() as u64;
                summary.count(status);
                Ok(Some(bytes))
            }
            FetchOutcome::NotModified => {
                let d = stored.context("a 304 can only answer a conditional GET of a stored copy")?;
                self.catalog.record_fetch(&row(FetchStatus::NotModified, Some(304), Some(&d.sha256), None, None))?;
                self.catalog.touch_document(source, key)?;
                summary.count(FetchStatus::NotModified);
                if want_bytes { Ok(Some(self.raw.read(&d.raw_path)?)) } else { Ok(None) }
            }
            FetchOutcome::Status { status, reason } => {
                self.catalog.record_fetch(&row(FetchStatus::HttpError, Some(status), None, None, Some(&reason)))?;
                self.catalog.mark_document_failed(source, key, &reason)?;
                summary.count(FetchStatus::HttpError);
                summary.note_failure(key, &reason);
                Ok(None)
            }
            FetchOutcome::Failed { reason } => {
                self.catalog.record_fetch(&row(FetchStatus::NetworkError, None, None, None, Some(&reason)))?;
                self.catalog.mark_document_failed(source, key, &reason)?;
                summary.count(FetchStatus::NetworkError);
                summary.note_failure(key, &reason);
                Ok(None)
            }
        }
    }

    /// Fetches one document (conditionally when a copy is stored) and records it.
    pub async fn fetch_one(
        &self,
        fetcher: &Fetcher,
        req: &DocRequest,
        ext: &str,
        summary: &mut CrawlSummary,
    ) -> Result<Option<Vec<u8>>> {
        let stored = self.stored(&req.key)?;
        let validators = validators_of(stored.as_ref());
        let outcome = fetcher.get(&req.url, &validators).await;
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
        let mut set = JoinSet::new();
        let bar = progress_bar(reqs.len() as u64, what);
        for req in reqs {
            let stored = self.stored(&req.key)?;
            if let (Some(d), Some(m)) = (&stored, &req.source_modified)
                && d.source_modified.as_deref() == Some(m.as_str())
            {
                self.catalog.touch_document(self.source, &req.key)?;
                summary.count(FetchStatus::NotModified);
                bar.inc(1);
                continue;
            }
            let validators = validators_of(stored.as_ref());
            let (fetcher, sem) = (fetcher.clone(), sem.clone());
            set.spawn(async move {
                let _permit = sem.acquire_owned().await.expect("semaphore never closed");
                let outcome = fetcher.get(&req.url, &validators).await;
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
/// documents it lists. `parse` turns the toc bytes into items and rejected entries; `request`
/// says where each item's document is. A toc that cannot be fetched is an outage: the last
/// good copies stay and nothing else is requested.
pub async fn crawl_toc_source(
    data_dir: &std::path::Path,
    source: TocSource<'_>,
    fetcher: Arc<Fetcher>,
    limit: Option<usize>,
    parse: impl Fn(&[u8]) -> Result<(Vec<TocItem>, crate::gii::RejectedItems)>,
    request: impl Fn(&TocItem) -> DocRequest,
) -> Result<CrawlSummary> {
    let TocSource { name: source, toc_url, what } = source;
    let mut catalog = Catalog::open(data_dir)?;
    let raw = RawStore::new(data_dir, source);
    let run_id = catalog.start_run("ingest", Some(source))?;
    let mut summary = CrawlSummary::new(source, run_id);
    let toc = DocRequest { key: format!("{source}-toc.xml"), url: toc_url, source_modified: None };
    let mut toc_summary = CrawlSummary::new(source, run_id);
    let toc_bytes = {
        let ctx = CrawlCtx { catalog: &catalog, raw: &raw, run_id, source };
        ctx.fetch_one(&fetcher, &toc, "xml", &mut toc_summary).await?
    };
    summary.bytes += toc_summary.bytes;
    let Some(toc_bytes) = toc_bytes else {
        let reason = toc_summary.first_failures.first().map(|f| f.1.clone()).unwrap_or_default();
        summary.outage = Some(format!("table of contents unreachable: {}: {reason}", toc.url));
        summary.finish(&catalog)?;
        return Ok(summary);
    };
    summary.toc_changed = Some(toc_summary.changed > 0);
    let (mut items, rejected) = parse(&toc_bytes)?;
    for (link, reason) in &rejected {
        catalog.record_problem(Some(run_id), source, link, "ingest", reason)?;
        summary.rejected += 1;
    }
    if let Some(n) = limit {
        items.truncate(n);
    }
    catalog.replace_toc(source, &items)?;
    summary.toc_items = items.len();
    let reqs = items.iter().map(request).collect();
    let ctx = CrawlCtx { catalog: &catalog, raw: &raw, run_id, source };
    ctx.fetch_all(fetcher, reqs, "zip", what, &mut summary).await?;
    summary.finish(&catalog)?;
    Ok(summary)
}

fn validators_of(stored: Option<&DocumentRow>) -> Validators {
    stored.map(|d| Validators { etag: d.etag.clone(), last_modified: d.last_modified.clone() }).unwrap_or_default()
}
