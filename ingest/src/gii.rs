//! gesetze-im-internet.de: `gii-toc.xml`, then one `<slug>/xml.zip` per law.
//!
//! The toc's links are written `http://www.gesetze-im-internet.de/<slug>/xml.zip`; only the
//! path is used, joined to the configured base URL, so the same crawl runs against the real
//! site (https) and against a loopback mirror.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use quick_xml::events::Event;

use crate::CrawlSummary;
use crate::catalog::TocItem;
use crate::crawl::{DocRequest, ParsedToc, TocSource, crawl_toc_source};
use crate::fetch::Fetcher;
use crate::toc_xml::TocEntities;
use model::SourceProblem;

pub const SOURCE: &str = catalog::sources::GII;
pub const DEFAULT_BASE_URL: &str = "https://www.gesetze-im-internet.de";

/// Parses `gii-toc.xml` into (slug, title, link) items. Items whose link has no usable slug
/// are rejected with the reason; a title with an entity nobody defines keeps it as written
/// and is noted.
pub fn parse_toc(xml: &[u8]) -> Result<ParsedToc> {
    let mut reader = quick_xml::Reader::from_reader(xml);
    reader.config_mut().trim_text(false);
    let mut toc = ParsedToc::default();
    let mut entities = TocEntities::default();
    let mut buf = Vec::new();
    let mut field: Option<&'static str> = None;
    let (mut title, mut link) = (String::new(), String::new());
    let mut unknown: Vec<String> = Vec::new();
    let mut in_item = false;
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::DocType(d)) => entities = TocEntities::from_doctype(&String::from_utf8_lossy(&d)),
            Ok(Event::Start(e)) => match e.name().as_ref() {
                b"item" => {
                    in_item = true;
                    title.clear();
                    link.clear();
                    unknown.clear();
                }
                b"title" if in_item => field = Some("title"),
                b"link" if in_item => field = Some("link"),
                _ => {}
            },
            Ok(Event::Text(t)) => {
                if let Some(f) = field {
                    let raw = std::str::from_utf8(&t).context("toc text is not valid UTF-8")?;
                    let (s, odd) = entities.decode(raw);
                    unknown.extend(odd);
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
                        Some(slug) => {
                            if !unknown.is_empty() {
                                let why = format!("title {title:?} keeps {} as written", unknown.join(", "));
                                toc.noted.push((slug.clone(), SourceProblem::TocUnknownEntity.reason(why)));
                            }
                            toc.items.push(TocItem { key: slug, title, link, extra: None })
                        }
                        None => toc.rejected.push((link.clone(), format!("toc link has no law slug: {link:?}"))),
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
    Ok(toc)
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
    // The toc carries no dates: the conditional GET is the only nightly signal.
    let request = |it: &TocItem| DocRequest {
        key: it.key.clone(),
        url: join_url(base_url, link_path(&it.link)),
        source_modified: None,
    };
    let source = TocSource { name: SOURCE, toc_url: join_url(base_url, "/gii-toc.xml"), what: "gii laws" };
    crawl_toc_source(data_dir, source, fetcher, limit, parse_toc, request).await
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
        let toc = parse_toc(xml).unwrap();
        assert_eq!(toc.items.len(), 1);
        assert_eq!(toc.items[0].title, "Stiftung \"Geld und Währung\"");
        assert_eq!(toc.items[0].key, "1-dm-goldm_nzg");
        assert_eq!(toc.rejected.len(), 1);
        assert!(toc.noted.is_empty());
    }

    #[test]
    fn an_html_entity_in_a_title_is_decoded_and_an_unknown_one_kept_and_noted() {
        let xml = br#"<?xml version="1.0" encoding="UTF-8" ?><!DOCTYPE items SYSTEM "gii-toc.dtd">
<items>
<item><title>Gesetz&nbsp;&uuml;ber &sect; 1</title><link>http://x/a/xml.zip</link></item>
<item><title>Odd &wat; title</title><link>http://x/b/xml.zip</link></item>
</items>"#;
        let toc = parse_toc(xml).unwrap();
        assert_eq!(toc.items.len(), 2);
        assert_eq!(toc.items[0].title, "Gesetz über § 1");
        assert_eq!(toc.items[1].title, "Odd &wat; title");
        assert_eq!(toc.noted.len(), 1);
        assert_eq!(toc.noted[0].0, "b");
        assert!(toc.noted[0].1.starts_with("toc_unknown_entity: "), "{:?}", toc.noted);
    }
}
