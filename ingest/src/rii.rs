//! rechtsprechung-im-internet.de: `rii-toc.xml` (about 84,000 flat `<item>`s with `gericht`,
//! `entsch-datum`, `aktenzeichen`, `link` to `jb-<DOKNR>.zip`, `modified`), then one zip per
//! decision.
//!
//! The toc is stream-parsed (the real one is about 23 MB). Its `<modified>` stamp is the
//! nightly signal: a decision whose stamp equals the stored one is not requested at all.

use std::path::Path;
use std::sync::Arc;

use anyhow::Result;
use quick_xml::events::Event;

use crate::CrawlSummary;
use crate::catalog::TocItem;
use crate::crawl::{DocRequest, ParsedToc, TocSource, crawl_toc_source};
use crate::fetch::Fetcher;
use crate::gii::{join_url, link_path};
use crate::toc_xml::TocEntities;
use model::SourceProblem;

pub const SOURCE: &str = catalog::sources::RII;
pub const DEFAULT_BASE_URL: &str = "https://www.rechtsprechung-im-internet.de";

pub use catalog::sources::RiiTocEntry;

/// `…/jb-KVRE427811801.zip` → `KVRE427811801`.
pub fn doknr_from_link(link: &str) -> Option<String> {
    let name = link_path(link).rsplit('/').next()?;
    let doknr = name.strip_prefix("jb-")?.strip_suffix(".zip")?;
    let ok = !doknr.is_empty() && doknr.bytes().all(|b| b.is_ascii_alphanumeric());
    ok.then(|| doknr.to_string())
}

/// Parses `rii-toc.xml` into toc items (key = DOKNR). Items without a usable link are
/// rejected with the reason; a text with an entity nobody defines keeps it and is noted.
pub fn parse_toc(xml: &[u8]) -> Result<ParsedToc> {
    let mut reader = quick_xml::Reader::from_reader(xml);
    let mut toc = ParsedToc::default();
    let mut entities = TocEntities::default();
    let mut buf = Vec::new();
    let mut cur = RiiTocEntry::default();
    let mut unknown: Vec<String> = Vec::new();
    let mut field: Option<Vec<u8>> = None;
    let mut in_item = false;
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::DocType(d)) => entities = TocEntities::from_doctype(&String::from_utf8_lossy(&d)),
            Ok(Event::Start(e)) => {
                let name = e.name().as_ref().to_vec();
                if name == b"item" {
                    in_item = true;
                    cur = RiiTocEntry::default();
                    unknown.clear();
                } else if in_item {
                    field = Some(name);
                }
            }
            Ok(Event::Text(t)) => {
                let target = match field.as_deref() {
                    Some(b"gericht") => Some(&mut cur.gericht),
                    Some(b"entsch-datum") => Some(&mut cur.entsch_datum),
                    Some(b"aktenzeichen") => Some(&mut cur.aktenzeichen),
                    Some(b"link") => Some(&mut cur.link),
                    Some(b"modified") => Some(&mut cur.modified),
                    _ => None,
                };
                if let Some(target) = target {
                    let raw =
                        std::str::from_utf8(&t).map_err(|e| anyhow::anyhow!("rii-toc.xml: text is not UTF-8: {e}"))?;
                    let (s, odd) = entities.decode(raw);
                    unknown.extend(odd);
                    target.push_str(&s);
                }
            }
            Ok(Event::End(e)) => {
                if e.name().as_ref() == b"item" {
                    in_item = false;
                    for s in [
                        &mut cur.gericht,
                        &mut cur.entsch_datum,
                        &mut cur.aktenzeichen,
                        &mut cur.link,
                        &mut cur.modified,
                    ] {
                        *s = s.split_whitespace().collect::<Vec<_>>().join(" ");
                    }
                    match doknr_from_link(&cur.link) {
                        Some(doknr) => {
                            let title = format!("{} {} {}", cur.gericht, cur.entsch_datum, cur.aktenzeichen);
                            if !unknown.is_empty() {
                                let why = format!("item {title:?} keeps {} as written", unknown.join(", "));
                                toc.noted.push((doknr.clone(), SourceProblem::TocUnknownEntity.reason(why)));
                            }
                            toc.items.push(TocItem {
                                key: doknr,
                                title,
                                link: cur.link.clone(),
                                extra: Some(serde_json::to_string(&cur)?),
                            })
                        }
                        None => toc
                            .rejected
                            .push((cur.link.clone(), format!("toc link names no jb-<DOKNR>.zip: {:?}", cur.link))),
                    }
                }
                field = None;
            }
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => anyhow::bail!("rii-toc.xml is not well-formed XML at byte {}: {e}", reader.buffer_position()),
        }
        buf.clear();
    }
    Ok(toc)
}

/// Crawls the rii toc and every decision zip it lists into `raw/rii/`; a decision whose toc
/// `<modified>` equals the stored one is not requested.
pub async fn crawl(
    data_dir: &Path,
    base_url: &str,
    fetcher: Arc<Fetcher>,
    limit: Option<usize>,
) -> Result<CrawlSummary> {
    let request = |it: &TocItem| {
        let entry: Option<RiiTocEntry> = it.extra.as_deref().and_then(|e| serde_json::from_str(e).ok());
        DocRequest {
            key: it.key.clone(),
            url: join_url(base_url, link_path(&it.link)),
            source_modified: entry.map(|e| e.modified).filter(|m| !m.is_empty()),
        }
    };
    let source = TocSource { name: SOURCE, toc_url: join_url(base_url, "/rii-toc.xml"), what: "rii decisions" };
    crawl_toc_source(data_dir, source, fetcher, limit, parse_toc, request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toc_items_keep_court_date_file_number_and_stamp() {
        let xml = br#"<?xml version="1.0" encoding="utf-8"?>
<items>
<item><gericht>BVerfG 2. Senat</gericht><entsch-datum>20180822</entsch-datum><aktenzeichen>2 BvQ 53/18</aktenzeichen>
<link>http://www.rechtsprechung-im-internet.de/jportal/docs/bsjrs/jb-KVRE427811801.zip</link><modified>2018-09-05T10:00:00Z</modified></item>
<item><gericht>BFH</gericht><link>http://x/no-zip-here</link></item>
</items>"#;
        let toc = parse_toc(xml).unwrap();
        let (items, rejected) = (toc.items, toc.rejected);
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].key, "KVRE427811801");
        let e: RiiTocEntry = serde_json::from_str(items[0].extra.as_deref().unwrap()).unwrap();
        assert_eq!(e.gericht, "BVerfG 2. Senat");
        assert_eq!(e.aktenzeichen, "2 BvQ 53/18");
        assert_eq!(e.modified, "2018-09-05T10:00:00Z");
        assert_eq!(rejected.len(), 1);
        assert!(parse_toc(b"<items><item><link>x</link></items>").is_err());
    }
}
