//! Parses one gii law XML (`<dokumente><norm>…`) into a [`LawBook`].
//!
//! The first `<norm>` describes the law (jurabk, amtabk, langue, …); a norm with a
//! `<gliederungseinheit>` is a heading that feeds the breadcrumb; every other norm with an
//! `<enbez>` or with text becomes a [`LawSection`]. The DOCTYPE names an external DTD, which
//! is never fetched (quick-xml does not resolve DTDs).

use std::io::Read;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use crate::law::{LawBook, LawSection, find_absaetze, section_key, section_kind};
use crate::plain_text::PlainText;

#[derive(Debug, thiserror::Error)]
pub enum LawXmlError {
    #[error("malformed XML at byte {position}: {message}")]
    Malformed { position: u64, message: String },
    #[error("not a gii law document: {0}")]
    NotALaw(String),
    #[error("zip archive unreadable: {0}")]
    Zip(String),
    #[error("zip archive holds no .xml entry (entries: {0})")]
    NoXmlInZip(String),
}

/// The single `.xml` entry of a gii `xml.zip`, as bytes.
pub fn xml_from_zip(zip_bytes: &[u8]) -> Result<(String, Vec<u8>), LawXmlError> {
    let mut archive =
        zip::ZipArchive::new(std::io::Cursor::new(zip_bytes)).map_err(|e| LawXmlError::Zip(e.to_string()))?;
    let mut names = Vec::new();
    for i in 0..archive.len() {
        let mut f = archive.by_index(i).map_err(|e| LawXmlError::Zip(e.to_string()))?;
        let name = f.name().map(|n| n.into_owned()).unwrap_or_else(|_| format!("entry {i} (undecodable name)"));
        if name.to_ascii_lowercase().ends_with(".xml") {
            // Guard against zip bombs: a gii law is at most a few MiB of XML.
            const MAX_XML: u64 = 256 * 1024 * 1024;
            let mut buf = Vec::with_capacity(f.size().min(MAX_XML) as usize);
            (&mut f).take(MAX_XML + 1).read_to_end(&mut buf).map_err(|e| LawXmlError::Zip(e.to_string()))?;
            if buf.len() as u64 > MAX_XML {
                return Err(LawXmlError::Zip(format!("entry {name} is larger than {MAX_XML} bytes")));
            }
            return Ok((name, buf));
        }
        names.push(name);
    }
    Err(LawXmlError::NoXmlInZip(if names.is_empty() { "none".into() } else { names.join(", ") }))
}

#[derive(Default)]
struct NormMeta {
    doknr: String,
    jurabk: Vec<String>,
    amtabk: Option<String>,
    enbez: Option<String>,
    titel: Option<String>,
    langue: Option<String>,
    kurzue: Option<String>,
    ausfertigung: Option<String>,
    periodikum: Option<String>,
    zitstelle: Option<String>,
    stand: Vec<String>,
    gliederung: Option<(String, String, String)>,
    text: Option<String>,
    footnotes: Option<String>,
}

type Xml<'a> = Reader<&'a [u8]>;

fn malformed(r: &Xml<'_>, e: impl std::fmt::Display) -> LawXmlError {
    LawXmlError::Malformed { position: r.buffer_position(), message: e.to_string() }
}

fn attr(e: &BytesStart<'_>, name: &[u8]) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.as_ref() == name)
        .and_then(|a| a.unescape_value().ok().map(|v| v.into_owned()))
}

fn unescape_text(t: &quick_xml::events::BytesText<'_>) -> String {
    match t.unescape() {
        Ok(s) => s.into_owned(),
        // An unknown entity: keep the raw text rather than lose the passage.
        Err(_) => String::from_utf8_lossy(t).into_owned(),
    }
}

/// Reads the inline content of the element just opened as one collapsed line.
fn read_inline(r: &mut Xml<'_>, buf: &mut Vec<u8>) -> Result<String, LawXmlError> {
    let mut t = PlainText::new();
    read_markup(r, buf, &mut t)?;
    let s = t.finish();
    Ok(s.split('\n').collect::<Vec<_>>().join(" "))
}

/// Writes the markup content of the element just opened into `out`, until its end tag.
fn read_markup(r: &mut Xml<'_>, buf: &mut Vec<u8>, out: &mut PlainText) -> Result<(), LawXmlError> {
    let mut depth = 0usize;
    let mut skip_depth: Option<usize> = None;
    let mut pre = 0usize;
    loop {
        buf.clear();
        let ev = r.read_event_into(buf).map_err(|e| malformed(r, e))?;
        match ev {
            Event::Start(e) => {
                depth += 1;
                if skip_depth.is_some() {
                    continue;
                }
                match e.name().as_ref() {
                    b"P" | b"LA" | b"DL" | b"table" | b"tgroup" | b"thead" | b"tbody" | b"tfoot" | b"row" | b"TOC"
                    | b"Title" | b"Subtitle" | b"Footnotes" | b"Footnote" | b"Content" | b"Revision" | b"Ident"
                    | b"div" | b"kommentar" => out.block_break(),
                    b"pre" => {
                        pre += 1;
                        out.block_break();
                    }
                    b"DT" => out.block_break(),
                    b"DD" => out.block_break(),
                    b"entry" => out.cell(),
                    b"BR" => out.hard_break(),
                    b"SUP" | b"sup" => out.soft_space(),
                    b"IMG" => out.text(" [Bild] "),
                    b"FILE" => out.text(" [Datei] "),
                    // Reference markers are removed (seed 000); their content too.
                    b"FnR" | b"FnArea" => skip_depth = Some(depth),
                    _ => {}
                }
            }
            Event::End(e) => {
                if depth == 0 {
                    return Ok(());
                }
                if skip_depth == Some(depth) {
                    skip_depth = None;
                    depth -= 1;
                    continue;
                }
                depth -= 1;
                if skip_depth.is_some() {
                    continue;
                }
                match e.name().as_ref() {
                    b"P" | b"LA" | b"DL" | b"table" | b"tgroup" | b"thead" | b"tbody" | b"tfoot" | b"row" | b"TOC"
                    | b"Title" | b"Subtitle" | b"Footnotes" | b"Footnote" | b"Content" | b"Revision" | b"Ident"
                    | b"div" | b"kommentar" => out.block_break(),
                    b"pre" => {
                        pre = pre.saturating_sub(1);
                        out.block_break();
                    }
                    b"DT" => out.glue_next_block(),
                    b"DD" => {
                        out.unglue();
                        out.block_break();
                    }
                    b"SUP" | b"sup" => out.soft_space(),
                    _ => {}
                }
            }
            Event::Text(t) if skip_depth.is_none() => {
                let s = unescape_text(&t);
                if pre > 0 { out.preformatted(&s) } else { out.text(&s) }
            }
            Event::CData(c) if skip_depth.is_none() => out.text(&String::from_utf8_lossy(&c)),
            Event::Eof => return Err(malformed(r, "unexpected end of document inside an element")),
            _ => {}
        }
    }
}

/// Skips the element just opened.
fn skip_element(r: &mut Xml<'_>, buf: &mut Vec<u8>) -> Result<(), LawXmlError> {
    let mut depth = 0usize;
    loop {
        buf.clear();
        match r.read_event_into(buf).map_err(|e| malformed(r, e))? {
            Event::Start(_) => depth += 1,
            Event::End(_) => {
                if depth == 0 {
                    return Ok(());
                }
                depth -= 1;
            }
            Event::Eof => return Err(malformed(r, "unexpected end of document")),
            _ => {}
        }
    }
}

fn non_empty(s: String) -> Option<String> {
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// Parses one `<norm>` element whose start tag was just read.
fn read_norm(r: &mut Xml<'_>, buf: &mut Vec<u8>, doknr: String) -> Result<NormMeta, LawXmlError> {
    let mut m = NormMeta { doknr, ..Default::default() };
    let mut glied: (Option<String>, Option<String>, Option<String>) = (None, None, None);
    let mut has_glied = false;
    let mut in_textdaten = false;
    loop {
        buf.clear();
        let ev = r.read_event_into(buf).map_err(|e| malformed(r, e))?;
        match ev {
            Event::Start(e) => {
                let name = e.name().as_ref().to_vec();
                match name.as_slice() {
                    b"metadaten" | b"fundstelle" | b"standangabe" => {}
                    b"textdaten" => in_textdaten = true,
                    b"gliederungseinheit" => has_glied = true,
                    b"jurabk" => {
                        if let Some(v) = non_empty(read_inline(r, buf)?) {
                            m.jurabk.push(v);
                        }
                    }
                    b"amtabk" => m.amtabk = non_empty(read_inline(r, buf)?),
                    b"enbez" => m.enbez = non_empty(read_inline(r, buf)?),
                    b"titel" => m.titel = non_empty(read_inline(r, buf)?),
                    b"langue" => m.langue = non_empty(read_inline(r, buf)?),
                    b"kurzue" => m.kurzue = non_empty(read_inline(r, buf)?),
                    b"ausfertigung-datum" => m.ausfertigung = non_empty(read_inline(r, buf)?),
                    b"periodikum" => m.periodikum = non_empty(read_inline(r, buf)?),
                    b"zitstelle" => m.zitstelle = non_empty(read_inline(r, buf)?),
                    b"standkommentar" => {
                        if let Some(v) = non_empty(read_inline(r, buf)?) {
                            m.stand.push(v);
                        }
                    }
                    b"gliederungskennzahl" => glied.0 = non_empty(read_inline(r, buf)?),
                    b"gliederungsbez" => glied.1 = non_empty(read_inline(r, buf)?),
                    b"gliederungstitel" => glied.2 = non_empty(read_inline(r, buf)?),
                    b"text" if in_textdaten => {
                        let mut t = PlainText::new();
                        read_markup(r, buf, &mut t)?;
                        m.text = non_empty(t.finish());
                    }
                    b"fussnoten" if in_textdaten => {
                        let mut t = PlainText::new();
                        read_markup(r, buf, &mut t)?;
                        m.footnotes = non_empty(t.finish());
                    }
                    _ => skip_element(r, buf)?,
                }
            }
            Event::End(e) => match e.name().as_ref() {
                b"norm" => break,
                b"textdaten" => in_textdaten = false,
                _ => {}
            },
            Event::Eof => return Err(malformed(r, "document ends inside <norm>")),
            _ => {}
        }
    }
    if has_glied {
        m.gliederung = Some((glied.0.unwrap_or_default(), glied.1.unwrap_or_default(), glied.2.unwrap_or_default()));
    }
    Ok(m)
}

/// Parses gii law XML. `toc_title` is the law's title in the toc (fallback when `<langue>` is missing).
pub fn parse_law_xml(xml: &[u8], slug: &str, toc_title: &str, zip_sha256: &str) -> Result<LawBook, LawXmlError> {
    let mut r = Reader::from_reader(xml);
    r.config_mut().expand_empty_elements = true;
    let mut buf = Vec::new();
    let mut root_seen = false;
    let mut root_builddate = None;
    let mut root_doknr = None;
    let mut norms: Vec<NormMeta> = Vec::new();
    loop {
        buf.clear();
        let ev = r.read_event_into(&mut buf).map_err(|e| malformed(&r, e))?;
        match ev {
            Event::Start(e) => match e.name().as_ref() {
                b"dokumente" => {
                    root_seen = true;
                    root_builddate = attr(&e, b"builddate");
                    root_doknr = attr(&e, b"doknr");
                }
                b"norm" if root_seen => {
                    let doknr = attr(&e, b"doknr").unwrap_or_else(|| format!("{slug}#norm{}", norms.len()));
                    let mut b2 = Vec::new();
                    norms.push(read_norm(&mut r, &mut b2, doknr)?);
                }
                other => {
                    if !root_seen {
                        return Err(LawXmlError::NotALaw(format!(
                            "root element is <{}>, expected <dokumente>",
                            String::from_utf8_lossy(other)
                        )));
                    }
                    let mut b2 = Vec::new();
                    skip_element(&mut r, &mut b2)?;
                }
            },
            Event::Eof => break,
            _ => {}
        }
    }
    if !root_seen {
        return Err(LawXmlError::NotALaw("no <dokumente> root element".into()));
    }
    let mut norms = norms.into_iter();
    let header = norms.next().ok_or_else(|| LawXmlError::NotALaw("no <norm> element".into()))?;
    let doknr = root_doknr.unwrap_or_else(|| header.doknr.clone());

    let mut sections = Vec::new();
    // The header norm's own text (rare) is kept as an unlabelled section.
    if let Some(text) = header.text.clone() {
        sections.push(make_section(header.doknr.clone(), None, None, Vec::new(), text, None));
    }
    let mut crumbs: Vec<(String, String)> = Vec::new();
    for n in norms {
        if let Some((kennzahl, bez, titel)) = n.gliederung {
            while crumbs.last().is_some_and(|(k, _)| k.len() >= kennzahl.len() && !kennzahl.is_empty()) {
                crumbs.pop();
            }
            let label = [bez, titel].into_iter().filter(|s| !s.is_empty()).collect::<Vec<_>>().join(" ");
            crumbs.push((kennzahl, label));
            continue;
        }
        if n.enbez.is_none() && n.text.is_none() {
            continue;
        }
        let breadcrumb = crumbs.iter().map(|(_, l)| l.clone()).collect();
        sections.push(make_section(n.doknr, n.enbez, n.titel, breadcrumb, n.text.unwrap_or_default(), n.footnotes));
    }
    let title = header.langue.clone().or_else(|| header.kurzue.clone()).unwrap_or_else(|| toc_title.to_string());
    let fundstelle = match (&header.periodikum, &header.zitstelle) {
        (Some(p), Some(z)) => Some(format!("{p} {z}")),
        (Some(p), None) => Some(p.clone()),
        (None, Some(z)) => Some(z.clone()),
        (None, None) => None,
    };
    Ok(LawBook {
        slug: slug.to_string(),
        doknr,
        builddate: root_builddate,
        jurabk: header.jurabk,
        amtabk: header.amtabk,
        title,
        short_title: header.kurzue,
        toc_title: toc_title.to_string(),
        ausfertigung_datum: header.ausfertigung,
        fundstelle,
        stand: header.stand,
        notes: header.footnotes,
        xml_sha256: ingest::raw::sha256_hex(xml),
        zip_sha256: zip_sha256.to_string(),
        sections,
    })
}

fn make_section(
    doknr: String,
    enbez: Option<String>,
    heading: Option<String>,
    breadcrumb: Vec<String>,
    text: String,
    footnotes: Option<String>,
) -> LawSection {
    let key = enbez.as_deref().map(section_key);
    let kind = section_kind(enbez.as_deref());
    let absaetze = find_absaetze(&text);
    LawSection { doknr, enbez, key, kind, heading, breadcrumb, text, footnotes, absaetze }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"<?xml version="1.0" encoding="UTF-8" ?><!DOCTYPE dokumente SYSTEM "http://www.gesetze-im-internet.de/dtd/1.01/gii-norm.dtd">
<dokumente builddate="20241112214004" doknr="BJNR001270871"><norm builddate="20241112214004" doknr="BJNR001270871"><metadaten><jurabk>StGB</jurabk><amtabk>StGB</amtabk><ausfertigung-datum manuell="ja">1871-05-15</ausfertigung-datum><fundstelle typ="amtlich"><periodikum>RGBl</periodikum><zitstelle>1871, 127</zitstelle></fundstelle><langue>Straf&#173;gesetzbuch
 (Test)</langue><standangabe checked="ja"><standtyp>Neuf</standtyp><standkommentar>Neugefasst durch Bek. v. 13.11.1998 I 3322;</standkommentar></standangabe></metadaten><textdaten><fussnoten><Content><P><BR/> <pre xml:space="preserve">(+++ Textnachweis Geltung ab: 1.1.1982 +++)<BR/>(+++ zweite +++)</pre></P></Content></fussnoten></textdaten></norm>
<norm doknr="G1"><metadaten><jurabk>StGB</jurabk><gliederungseinheit><gliederungskennzahl>010</gliederungskennzahl><gliederungsbez>Allgemeiner Teil</gliederungsbez></gliederungseinheit></metadaten><textdaten><text format="XML"><Content><P/></Content></text></textdaten></norm>
<norm doknr="G2"><metadaten><jurabk>StGB</jurabk><gliederungseinheit><gliederungskennzahl>010020</gliederungskennzahl><gliederungsbez>Zweiter Abschnitt</gliederungsbez><gliederungstitel>Die Tat</gliederungstitel></gliederungseinheit></metadaten></norm>
<norm doknr="N32"><metadaten><jurabk>StGB</jurabk><enbez>§ 32</enbez><titel format="parat">Notwehr<FnR ID="F1"/></titel></metadaten><textdaten><text format="XML"><Content><P>(1) Wer eine Tat begeht, die durch Notwehr geboten ist, handelt nicht rechtswidrig.</P><P>(2) Notwehr ist
   die Verteidigung:<DL Type="arabic"><DT>1.</DT><DD><LA>erstens<SUP>1</SUP>Satz,</LA></DD><DT>2.</DT><DD><LA>zweitens &amp; mehr.</LA></DD></DL></P></Content> </text></textdaten></norm>
<norm doknr="G3"><metadaten><jurabk>StGB</jurabk><gliederungseinheit><gliederungskennzahl>020</gliederungskennzahl><gliederungsbez>Besonderer Teil</gliederungsbez></gliederungseinheit></metadaten></norm>
<norm doknr="A1"><metadaten><jurabk>StGB</jurabk><enbez>Anlage 1</enbez></metadaten><textdaten><text format="XML"><Content><table><tgroup cols="2"><tbody><row><entry>Nr.</entry><entry>Stoff</entry></row><row><entry>1</entry><entry>X</entry></row></tbody></tgroup></table></Content></text></textdaten></norm>
</dokumente>"#;

    #[test]
    fn parses_header_sections_breadcrumbs_and_text_rules() {
        let law = parse_law_xml(SAMPLE.as_bytes(), "stgb", "Strafgesetzbuch", "zipsha").unwrap();
        assert_eq!(law.jurabk, ["StGB"]);
        assert_eq!(law.amtabk.as_deref(), Some("StGB"));
        assert_eq!(law.title, "Straf\u{ad}gesetzbuch (Test)");
        assert_eq!(law.fundstelle.as_deref(), Some("RGBl 1871, 127"));
        assert_eq!(law.builddate.as_deref(), Some("20241112214004"));
        assert_eq!(law.notes.as_deref(), Some("(+++ Textnachweis Geltung ab: 1.1.1982 +++)\n(+++ zweite +++)"));
        assert_eq!(law.sections.len(), 2);
        let s = &law.sections[0];
        assert_eq!(s.enbez.as_deref(), Some("§ 32"));
        assert_eq!(s.key.as_deref(), Some("32"));
        assert_eq!(s.heading.as_deref(), Some("Notwehr"));
        assert_eq!(s.breadcrumb, ["Allgemeiner Teil", "Zweiter Abschnitt Die Tat"]);
        assert_eq!(
            s.text,
            "(1) Wer eine Tat begeht, die durch Notwehr geboten ist, handelt nicht rechtswidrig.\n\
             (2) Notwehr ist die Verteidigung:\n1. erstens 1 Satz,\n2. zweitens & mehr."
        );
        assert_eq!(s.absaetze.len(), 2);
        let a = &law.sections[1];
        assert_eq!(a.breadcrumb, ["Besonderer Teil"]);
        assert_eq!(a.text, "Nr. | Stoff\n1 | X");
    }

    #[test]
    fn malformed_xml_is_an_error_with_a_position() {
        let bad = SAMPLE.replace("</titel>", "");
        match parse_law_xml(bad.as_bytes(), "stgb", "t", "z") {
            Err(LawXmlError::Malformed { .. }) => {}
            other => panic!("expected Malformed, got {other:?}"),
        }
        assert!(matches!(parse_law_xml(b"<html/>", "x", "t", "z"), Err(LawXmlError::NotALaw(_))));
        assert!(matches!(parse_law_xml(b"", "x", "t", "z"), Err(LawXmlError::NotALaw(_))));
    }
}
