//! Stage 1 of the pipeline: fetch sources into `data/raw/` and record every fetch, good or
//! bad, in `data/catalog.sqlite`.
//!
//! Sources: gesetze-im-internet.de ([`gii`]), rechtsprechung-im-internet.de ([`rii`]) and
//! Open Legal Data case dumps ([`oldp`]); [`crawl`] is what they share. Each crawl is polite ([`fetch::Politeness`]),
//! conditional (ETag / Last-Modified), and never loses a last good copy: a failed fetch is
//! recorded with its reason and the old bytes stay in place.

pub use catalog;
pub use catalog::cli::{init_tracing, progress_bar};
pub mod crawl;
pub mod fetch;
pub mod gii;
pub mod oldp;
pub mod raw;
pub mod rii;
pub mod toc_xml;

use catalog::{Catalog, FetchStatus};

/// What one crawl did, for the one-line summary and the exit code.
#[derive(Debug, Clone)]
pub struct CrawlSummary {
    pub source: &'static str,
    pub run_id: i64,
    pub toc_items: usize,
    pub toc_changed: Option<bool>,
    pub changed: usize,
    pub unchanged: usize,
    pub not_modified: usize,
    pub failed: usize,
    pub rejected: usize,
    pub bytes: u64,
    /// Set when the source as a whole could not be reached.
    pub outage: Option<String>,
    pub first_failures: Vec<(String, String)>,
}

impl CrawlSummary {
    pub fn new(source: &'static str, run_id: i64) -> Self {
        CrawlSummary {
            source,
            run_id,
            toc_items: 0,
            toc_changed: None,
            changed: 0,
            unchanged: 0,
            not_modified: 0,
            failed: 0,
            rejected: 0,
            bytes: 0,
            outage: None,
            first_failures: Vec::new(),
        }
    }

    pub fn count(&mut self, s: FetchStatus) {
        match s {
            FetchStatus::Changed => self.changed += 1,
            FetchStatus::Unchanged => self.unchanged += 1,
            FetchStatus::NotModified => self.not_modified += 1,
            FetchStatus::HttpError | FetchStatus::NetworkError | FetchStatus::Refused => self.failed += 1,
        }
    }

    pub fn note_failure(&mut self, key: &str, reason: &str) {
        if self.first_failures.len() < 5 {
            self.first_failures.push((key.to_string(), reason.to_string()));
        }
    }

    /// 0 = everything fetched; 3 = some documents failed or toc entries were rejected (the
    /// rest is in place); 2 = the source was unreachable (last good copies kept).
    pub fn exit_code(&self) -> i32 {
        if self.outage.is_some() {
            2
        } else if self.failed > 0 || self.rejected > 0 {
            3
        } else {
            0
        }
    }

    pub fn line(&self) -> String {
        let mut s = format!(
            "ingest {}: toc {} items ({}); fetched {} changed, {} unchanged, {} not modified, {} failed; {:.1} MB",
            self.source,
            self.toc_items,
            match self.toc_changed {
                Some(true) => "changed",
                Some(false) => "unchanged",
                None => "not read",
            },
            self.changed,
            self.unchanged,
            self.not_modified,
            self.failed,
            self.bytes as f64 / 1e6
        );
        if self.rejected > 0 {
            s.push_str(&format!("; {} toc entries rejected", self.rejected));
        }
        if let Some(o) = &self.outage {
            s.push_str(&format!("; OUTAGE: {o}"));
        }
        if !self.first_failures.is_empty() {
            let f: Vec<String> = self.first_failures.iter().map(|(k, r)| format!("{k}: {r}")).collect();
            s.push_str(&format!("; first failures: {}", f.join(", ")));
        }
        s
    }

    /// Finishes the run row whatever the crawl's `result`: its exit code and summary line, or
    /// exit code 1 and the error (then returned), so no run is left unfinished.
    pub(crate) fn finish_with(self, catalog: &Catalog, result: anyhow::Result<()>) -> anyhow::Result<CrawlSummary> {
        match result {
            Ok(()) => {
                catalog.finish_run(self.run_id, self.exit_code(), &self.line())?;
                Ok(self)
            }
            Err(e) => {
                let line = format!("{}; FAILED: {e:#}", self.line());
                if let Err(also) = catalog.finish_run(self.run_id, 1, &line) {
                    tracing::error!(run = self.run_id, "cannot finish the run row: {also:#}");
                }
                Err(e)
            }
        }
    }
}
