//! gesetze-im-internet.de: `gii-toc.xml`, then one `<slug>/xml.zip` per law.
//!
//! The toc's links are written `http://www.gesetze-im-internet.de/<slug>/xml.zip`; only the
//! path is used, joined to the configured base URL, so the same crawl runs against the real
//! site (https) and against a loopback mirror.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use quick_xml::events::Event;
use tokio::task::JoinSet;

use crate::catalog::{Catalog, DocumentRow, FetchRow, FetchStatus, TocItem};
use crate::fetch::{FetchOutcome, Fetcher, Validators};
use crate::raw::RawStore;
use crate::{CrawlSummary, progress_bar};

pub const SOURCE: &str = "gii";
pub const DEFAULT_BASE_URL: &str = "https://www.gesetze-im-internet.de";
const TOC_KEY: &str = "gii-toc.xml";

/// `(link, reason)` of toc items that could not be used.
pub type RejectedItems = Vec<(String, String)>;

/// Parses `gii-toc.xml` into (slug, title, link) items. Items whose link has no usable slug
/// are returned in the second list with the reason.
pub fn parse_toc(xml: &[u8]) -> Result<(Vec<TocItem>, RejectedItems)> {
    let mut reader = quick_xml::Reader::from_reader(xml);
    reader.config_mut().trim_text(false);
    let mut items = Vec::new();
    let mut rejected = Vec::new();
    let mut buf = Vec::new();
    let mut field: Option<&'static str> = None;
    let (mut title, mut link) = (String::new(), String::new());
    let mut in_item = false;
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) => match e.name().as_ref() {
                b"item" => {
                    in_item = true;
                    title.clear();
                    link.clear();
                }
                b"title" if in_item => field = Some("title"),
                b"link" if in_item => field = Some("link"),
                _ => {}
            },
            Ok(Event::Text(t)) => {
                if let Some(f) = field {
                    let s = t.unescape().context("toc text is not valid UTF-8 / XML text")?;
                    if f == "title" { title.push_str(&s) } else { link.push_str(&s) }
                }
            }
            Ok(Event::End(e)) => match e.name().as_ref() {
                b"title" | b"link" => field = None,
                b"item" => {
                    in_item = false;
                    let link = link.trim().to_string();
                    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
                    match slug_from_link(&link) {
                        Some(slug) => items.push(TocItem { key: slug, title, link, extra: None }),
                        None => rejected.push((link.clone(), format!("toc link has no law slug: {link:?}"))),
                    }
                }
                _ => {}
            },
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => anyhow::bail!("gii-toc.xml is not well-formed XML at byte {}: {e}", reader.buffer_position()),
        }
        buf.clear();
    }
    Ok((items, rejected))
}

/// The path part of a link (`http://host/a/b` → `/a/b`); a bare path is returned as is.
pub fn link_path(link: &str) -> &str {
    match link.find("://") {
        Some(i) => {
            let rest = &link[i + 3..];
            rest.find('/').map(|j| &rest[j..]).unwrap_or("/")
        }
        None => link,
    }
}

/// `http://www.gesetze-im-internet.de/bgb/xml.zip` → `bgb`.
pub fn slug_from_link(link: &str) -> Option<String> {
    let path = link_path(link).trim_start_matches('/');
    let slug = path.strip_suffix("/xml.zip")?;
    let ok = !slug.is_empty()
        && slug.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
    ok.then(|| slug.to_string())
}

pub fn join_url(base: &str, path: &str) -> String {
    format!("{}/{}", base.trim_end_matches('/'), path.trim_start_matches('/'))
}

/// Crawls the toc and every law zip it lists into `raw/gii/`, recording each fetch.
pub async fn crawl(
    data_dir: &Path,
    base_url: &str,
    fetcher: Arc<Fetcher>,
    limit: Option<usize>,
) -> Result<CrawlSummary> {
    let mut catalog = Catalog::open(data_dir)?;
    let raw = RawStore::new(data_dir, SOURCE);
    let run_id = catalog.start_run("ingest", Some(SOURCE))?;
    let mut summary = CrawlSummary::new(SOURCE, run_id);

    // 1. The table of contents.
    let toc_url = join_url(base_url, "/gii-toc.xml");
    let stored = catalog.document(SOURCE, TOC_KEY)?.filter(|d| raw.exists(&d.raw_path));
    let validators = stored
        .as_ref()
        .map(|d| Validators { etag: d.etag.clone(), last_modified: d.last_modified.clone() })
        .unwrap_or_default();
    let toc_bytes = match fetcher.get(&toc_url, &validators).await {
        FetchOutcome::Body { bytes, validators: got } => {
            let (sha, path) = raw.put(&bytes, "xml")?;
            let changed = stored.as_ref().is_none_or(|d| d.sha256 != sha);
            catalog.record_fetch(&FetchRow {
                run_id,
                source: SOURCE,
                key: TOC_KEY,
                url: &toc_url,
                status: if changed { FetchStatus::Changed } else { FetchStatus::Unchanged },
                http_status: Some(200),
                sha256: Some(&sha),
                bytes: Some(bytes.len() as i64),
                reason: None,
                conditional: !validators.is_empty(),
            })?;
            catalog.upsert_document(
                &DocumentRow {
                    source: SOURCE.into(),
                    key: TOC_KEY.into(),
                    url: toc_url.clone(),
                    sha256: sha,
                    raw_path: path,
                    bytes: bytes.len() as i64,
                    etag: got.etag,
                    last_modified: got.last_modified,
                    source_modified: None,
                },
                changed,
            )?;
            summary.toc_changed = Some(changed);
            bytes
        }
        FetchOutcome::NotModified => {
            let d = stored.as_ref().expect("304 only after a conditional GET");
            catalog.record_fetch(&FetchRow {
                run_id,
                source: SOURCE,
                key: TOC_KEY,
                url: &toc_url,
                status: FetchStatus::NotModified,
                http_status: Some(304),
                sha256: Some(&d.sha256),
                bytes: None,
                reason: None,
                conditional: true,
            })?;
            catalog.touch_document(SOURCE, TOC_KEY)?;
            summary.toc_changed = Some(false);
            raw.read(&d.raw_path)?
        }
        failure => {
            let (status, http_status, reason) = match failure {
                FetchOutcome::Status { status, reason } => (FetchStatus::HttpError, Some(status), reason),
                FetchOutcome::Failed { reason } => (FetchStatus::NetworkError, None, reason),
                _ => unreachable!(),
            };
            catalog.record_fetch(&FetchRow {
                run_id,
                source: SOURCE,
                key: TOC_KEY,
                url: &toc_url,
                status,
                http_status,
                sha256: None,
                bytes: None,
                reason: Some(&reason),
                conditional: !validators.is_empty(),
            })?;
            catalog.mark_document_failed(SOURCE, TOC_KEY, &reason)?;
            summary.outage = Some(format!("table of contents unreachable: {toc_url}: {reason}"));
            summary.finish(&catalog)?;
            return Ok(summary);
        }
    };

    let (mut items, rejected) = parse_toc(&toc_bytes)?;
    for (link, reason) in &rejected {
        catalog.record_problem(Some(run_id), SOURCE, link, "ingest", reason)?;
        summary.rejected += 1;
    }
    if let Some(n) = limit {
        items.truncate(n);
    }
    catalog.replace_toc(SOURCE, &items)?;
    summary.toc_items = items.len();

    // 2. One zip per law.
    let sem = Arc::new(tokio::sync::Semaphore::new(fetcher.politeness().concurrency.max(1)));
    let mut set = JoinSet::new();
    for item in &items {
        let stored = catalog.document(SOURCE, &item.key)?.filter(|d| raw.exists(&d.raw_path));
        let validators = stored
            .as_ref()
            .map(|d| Validators { etag: d.etag.clone(), last_modified: d.last_modified.clone() })
            .unwrap_or_default();
        let url = join_url(base_url, link_path(&item.link));
        let (fetcher, sem, key) = (fetcher.clone(), sem.clone(), item.key.clone());
        set.spawn(async move {
            let _permit = sem.acquire_owned().await.expect("semaphore never closed");
            let outcome = fetcher.get(&url, &validators).await;
            (key, url, stored, validators, outcome)
        });
    }
    let bar = progress_bar(items.len() as u64, "gii laws");
    while let Some(joined) = set.join_next().await {
        let (key, url, stored, validators, outcome) = joined.context("fetch task panicked")?;
        bar.inc(1);
        let conditional = !validators.is_empty();
        match outcome {
            FetchOutcome::Body { bytes, validators: got } => {
                let (sha, path) = raw.put(&bytes, "zip")?;
                let changed = stored.as_ref().is_none_or(|d| d.sha256 != sha);
                let status = if changed { FetchStatus::Changed } else { FetchStatus::Unchanged };
                catalog.record_fetch(&FetchRow {
                    run_id,
                    source: SOURCE,
                    key: &key,
                    url: &url,
                    status,
                    http_status: Some(200),
                    sha256: Some(&sha),
                    bytes: Some(bytes.len() as i64),
                    reason: None,
                    conditional,
                })?;
                catalog.upsert_document(
                    &DocumentRow {
                        source: SOURCE.into(),
                        key: key.clone(),
                        url: url.clone(),
                        sha256: sha,
                        raw_path: path,
                        bytes: bytes.len() as i64,
                        etag: got.etag,
                        last_modified: got.last_modified,
                        source_modified: None,
                    },
                    changed,
                )?;
                summary.bytes += bytes.len() as u64;
                summary.count(status);
            }
            FetchOutcome::NotModified => {
                let sha = stored.as_ref().map(|d| d.sha256.clone());
                catalog.record_fetch(&FetchRow {
                    run_id,
                    source: SOURCE,
                    key: &key,
                    url: &url,
                    status: FetchStatus::NotModified,
                    http_status: Some(304),
                    sha256: sha.as_deref(),
                    bytes: None,
                    reason: None,
                    conditional,
                })?;
                catalog.touch_document(SOURCE, &key)?;
                summary.count(FetchStatus::NotModified);
            }
            FetchOutcome::Status { status, reason } => {
                catalog.record_fetch(&FetchRow {
                    run_id,
                    source: SOURCE,
                    key: &key,
                    url: &url,
                    status: FetchStatus::HttpError,
                    http_status: Some(status),
                    sha256: None,
                    bytes: None,
                    reason: Some(&reason),
                    conditional,
                })?;
                catalog.mark_document_failed(SOURCE, &key, &reason)?;
                summary.count(FetchStatus::HttpError);
                summary.note_failure(&key, &reason);
            }
            FetchOutcome::Failed { reason } => {
                catalog.record_fetch(&FetchRow {
                    run_id,
                    source: SOURCE,
                    key: &key,
                    url: &url,
                    status: FetchStatus::NetworkError,
                    http_status: None,
                    sha256: None,
                    bytes: None,
                    reason: Some(&reason),
                    conditional,
                })?;
                catalog.mark_document_failed(SOURCE, &key, &reason)?;
                summary.count(FetchStatus::NetworkError);
                summary.note_failure(&key, &reason);
            }
        }
    }
    bar.finish_and_clear();
    summary.finish(&catalog)?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slug_is_taken_from_the_path_whatever_the_scheme_and_host() {
        assert_eq!(slug_from_link("http://www.gesetze-im-internet.de/bgb/xml.zip").as_deref(), Some("bgb"));
        assert_eq!(
            slug_from_link("https://127.0.0.1:8080/_77abs3__54abs3sgb9bek/xml.zip").as_deref(),
            Some("_77abs3__54abs3sgb9bek")
        );
        assert_eq!(slug_from_link("/1-dm-goldm_nzg/xml.zip").as_deref(), Some("1-dm-goldm_nzg"));
        assert_eq!(slug_from_link("http://x/BGB/xml.zip"), None);
        assert_eq!(slug_from_link("http://x/a/b/xml.zip"), None);
        assert_eq!(slug_from_link("http://x/bgb/index.html"), None);
    }

    #[test]
    fn toc_titles_decode_entities_and_collapse_whitespace() {
        let xml = br#"<?xml version="1.0" encoding="UTF-8" ?><!DOCTYPE items SYSTEM "http://www.gesetze-im-internet.de/dtd/1.0/gii-toc.dtd">
<items>
<item>
<title>Stiftung &quot;Geld und
 W&#228;hrung&quot;</title>
<link>http://www.gesetze-im-internet.de/1-dm-goldm_nzg/xml.zip</link>
</item>
<item><title>broken</title><link>http://www.gesetze-im-internet.de/</link></item>
</items>"#;
        let (items, rejected) = parse_toc(xml).unwrap();
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].title, "Stiftung \"Geld und Währung\"");
        assert_eq!(items[0].key, "1-dm-goldm_nzg");
        assert_eq!(rejected.len(), 1);
    }
}
