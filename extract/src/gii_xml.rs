//! Parses one gii law XML (`<dokumente><norm>…`) into a [`LawBook`].
//!
//! The first `<norm>` describes the law (jurabk, amtabk, langue, …). Every other norm with an
//! `<enbez>`, text or footnotes becomes a [`LawSection`], also when it sits in a
//! `<gliederungseinheit>` (HWG's `-` units, EGBGB's `Art 229` + `§ 5` → `Art. 229 § 5`); a
//! heading unit with nothing else only feeds the breadcrumb. Each norm is counted in the law's
//! [`NormAccount`]. The DOCTYPE names an external DTD, which is never fetched (quick-xml does not
//! resolve DTDs).

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use crate::law::{
    DroppedNorm, LawBook, LawSection, MAX_SECTION_TEXT_BYTES, NormAccount, NormDropReason,
    article_paragraph_designation, find_absaetze, section_key, section_kind,
};
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
    /// Over the per-document decompressed cap, or not the size it declares (`bounded_read`).
    #[error(transparent)]
    Capped(#[from] crate::bounded_read::CappedReadError),
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
            // Zip bombs: the per-document cap on decompressed bytes, declared and actual.
            let buf = crate::bounded_read::read_zip_entry(&mut f, &name)?;
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
    let norm_count = norms.len();
    let mut norms = norms.into_iter();
    let header = norms.next().ok_or_else(|| LawXmlError::NotALaw("no <norm> element".into()))?;
    let doknr = root_doknr.unwrap_or_else(|| header.doknr.clone());

    let mut out = Sections::new(norm_count);
    // The header norm's own text (rare) is kept as an unlabelled section; its footnotes are the
    // law's notes.
    match header.text.clone() {
        Some(text) => {
            out.account.text_bearing += 1;
            out.push(make_section(header.doknr.clone(), None, None, None, Vec::new(), text, None));
        }
        None => out.account.law_header = 1,
    }
    let mut crumbs = Breadcrumbs::default();
    for n in norms {
        classify_norm(n, &mut crumbs, &mut out);
    }
    let title = header.langue.clone().or_else(|| header.kurzue.clone()).unwrap_or_else(|| toc_title.to_string());
    let fundstelle = match (&header.periodikum, &header.zitstelle) {
        (Some(p), Some(z)) => Some(format!("{p} {z}")),
        (Some(p), None) => Some(p.clone()),
        (None, Some(z)) => Some(z.clone()),
        (None, None) => None,
    };
    debug_assert_eq!(out.account.accounted(), out.account.norms);
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
        xml_sha256: catalog::sha256_hex(xml),
        zip_sha256: zip_sha256.to_string(),
        sections: out.sections,
        norm_account: out.account,
        dropped_norms: out.dropped,
    })
}

/// The rows of one law as they are found, with the account of every norm.
struct Sections {
    sections: Vec<LawSection>,
    account: NormAccount,
    dropped: Vec<DroppedNorm>,
}

impl Sections {
    fn new(norms: usize) -> Self {
        Sections { sections: Vec::new(), account: NormAccount { norms, ..NormAccount::default() }, dropped: Vec::new() }
    }

    /// Adds a row, or drops it whole when it is over [`MAX_SECTION_TEXT_BYTES`].
    fn push(&mut self, s: LawSection) {
        let text_bytes = s.text.len() + s.footnotes.as_ref().map_or(0, String::len);
        if text_bytes > MAX_SECTION_TEXT_BYTES {
            self.drop(s.doknr, s.designation, NormDropReason::SectionTooLarge, text_bytes);
            return;
        }
        self.account.section_rows += 1;
        self.sections.push(s);
    }

    fn drop(&mut self, doknr: String, designation: Option<String>, reason: NormDropReason, text_bytes: usize) {
        self.account.drop(reason);
        self.dropped.push(DroppedNorm { doknr, designation, reason, text_bytes });
    }
}

/// The heading units above the current norm, outermost first, as (gliederungskennzahl, label).
/// A unit's kennzahl extends its parent's (`050` → `050002290`); norms inside one unit repeat
/// its kennzahl (every `Art 229 § n` of EGBGB carries `050002290`).
#[derive(Default)]
struct Breadcrumbs(Vec<(String, String)>);

impl Breadcrumbs {
    fn position(&self, kennzahl: &str) -> Option<usize> {
        (!kennzahl.is_empty()).then(|| self.0.iter().position(|(k, _)| k == kennzahl)).flatten()
    }

    /// Leaves every unit at the level of `kennzahl` or deeper: what a new unit `kennzahl` replaces.
    fn leave_to_parent_of(&mut self, kennzahl: &str) {
        if let Some(p) = self.position(kennzahl) {
            self.0.truncate(p);
        }
        while !kennzahl.is_empty() && self.0.last().is_some_and(|(k, _)| k.len() >= kennzahl.len()) {
            self.0.pop();
        }
    }

    /// Moves into unit `kennzahl`: true when it is already open (a norm inside it), else its
    /// siblings and their children are left and the caller may open it.
    fn enter(&mut self, kennzahl: &str) -> bool {
        if let Some(p) = self.position(kennzahl) {
            self.0.truncate(p + 1);
            return true;
        }
        self.leave_to_parent_of(kennzahl);
        false
    }

    fn open(&mut self, kennzahl: String, label: Option<String>) {
        if let Some(label) = label {
            self.0.push((kennzahl, label));
        }
    }

    fn labels(&self) -> Vec<String> {
        self.0.iter().map(|(_, l)| l.clone()).collect()
    }
}

/// A `<gliederungseinheit>` with its designation read: `-` (gii's "no designation", on every
/// HWG norm) is none.
struct Unit {
    kennzahl: String,
    designation: Option<String>,
    title: Option<String>,
}

impl Unit {
    fn new((kennzahl, bez, title): (String, String, String)) -> Self {
        let designation = (!bez.trim().chars().all(|c| matches!(c, '-' | '–'))).then(|| bez.trim().to_string());
        let title = (!title.trim().is_empty()).then(|| title.trim().to_string());
        Unit { kennzahl, designation, title }
    }

    /// `Art 229 Weitere Überleitungsvorschriften`, as the breadcrumb shows it.
    fn label(&self) -> Option<String> {
        let parts: Vec<&str> = [self.designation.as_deref(), self.title.as_deref()].into_iter().flatten().collect();
        (!parts.is_empty()).then(|| parts.join(" "))
    }
}

/// Puts one body norm into exactly one category of the account: a row when it has an
/// `<enbez>`, text or footnotes; a pure heading when it is a heading unit and nothing else;
/// otherwise dropped as `no_content`. Every heading unit moves the breadcrumb.
fn classify_norm(n: NormMeta, crumbs: &mut Breadcrumbs, out: &mut Sections) {
    let carries_text = n.text.is_some() || n.footnotes.is_some();
    if carries_text {
        out.account.text_bearing += 1;
    }
    let unit = n.gliederung.map(Unit::new);
    let (designation, heading, breadcrumb) = match (&n.enbez, unit) {
        // A designated norm, inside its unit when it has one (EGBGB `Art 229` + `§ 5`).
        (Some(enbez), unit) => {
            let mut designation = enbez.clone();
            if let Some(u) = unit {
                if let Some(compound) = u.designation.as_deref().and_then(|d| article_paragraph_designation(d, enbez)) {
                    designation = compound;
                }
                let label = u.label();
                if !crumbs.enter(&u.kennzahl) {
                    crumbs.open(u.kennzahl, label);
                }
            }
            (Some(designation), n.titel, crumbs.labels())
        }
        (None, Some(u)) if !carries_text => {
            crumbs.leave_to_parent_of(&u.kennzahl);
            let label = u.label();
            crumbs.open(u.kennzahl, label);
            out.account.headings += 1;
            return;
        }
        // A heading unit with its own text (`Art 22` of PflegeVG, BGB `Abschnitt 2` with its
        // "Amtlicher Hinweis"): a row named by the unit, which then holds what follows.
        (None, Some(u)) if u.designation.is_some() => {
            crumbs.leave_to_parent_of(&u.kennzahl);
            let breadcrumb = crumbs.labels();
            let label = u.label();
            let heading = n.titel.or(u.title);
            let designation = u.designation;
            crumbs.open(u.kennzahl, label);
            (designation, heading, breadcrumb)
        }
        // Text in a unit without a designation (`-`): an unlabelled row of the enclosing unit.
        (None, Some(u)) => {
            crumbs.enter(&u.kennzahl);
            (None, n.titel.or(u.title), crumbs.labels())
        }
        (None, None) if carries_text => (None, n.titel, crumbs.labels()),
        (None, None) => {
            out.drop(n.doknr, None, NormDropReason::NoContent, 0);
            return;
        }
    };
    out.push(make_section(n.doknr, n.enbez, designation, heading, breadcrumb, n.text.unwrap_or_default(), n.footnotes));
}

fn make_section(
    doknr: String,
    enbez: Option<String>,
    designation: Option<String>,
    heading: Option<String>,
    breadcrumb: Vec<String>,
    text: String,
    footnotes: Option<String>,
) -> LawSection {
    let key = designation.as_deref().map(section_key);
    let kind = section_kind(designation.as_deref());
    let absaetze = find_absaetze(&text);
    LawSection { doknr, enbez, designation, key, kind, heading, breadcrumb, text, footnotes, absaetze }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::law::SectionKind;

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
        let acc = &law.norm_account;
        assert_eq!((acc.norms, acc.section_rows, acc.law_header, acc.headings), (6, 2, 1, 3));
        assert_eq!(acc.dropped_total(), 0);
        assert_eq!(acc.accounted(), acc.norms);
    }

    /// A law in the shapes the Einführungsgesetze and their neighbours use on gii.
    fn law_xml(norms: &[&str]) -> String {
        let mut x = String::from(
            r#"<?xml version="1.0" encoding="UTF-8" ?><dokumente doknr="BJNR0"><norm doknr="H"><metadaten><jurabk>EGX</jurabk><langue>Einführungsgesetz</langue></metadaten></norm>"#,
        );
        for (i, n) in norms.iter().enumerate() {
            x.push_str(&format!(r#"<norm doknr="N{i}"><metadaten><jurabk>EGX</jurabk>{n}</norm>"#));
        }
        x.push_str("</dokumente>");
        x
    }

    fn unit(kennzahl: &str, bez: &str, titel: &str) -> String {
        format!(
            "<gliederungseinheit><gliederungskennzahl>{kennzahl}</gliederungskennzahl><gliederungsbez>{bez}</gliederungsbez><gliederungstitel>{titel}</gliederungstitel></gliederungseinheit>"
        )
    }

    fn text(t: &str) -> String {
        format!(r#"<textdaten><text format="XML"><Content><P>{t}</P></Content></text></textdaten>"#)
    }

    #[test]
    fn heading_units_with_text_are_rows_and_article_paragraphs_one_designation() {
        let xml = law_xml(&[
            // EGBGB: a part heading, the article's own norm with text, then its §§.
            &format!("{}</metadaten>", unit("050", "Sechster Teil", "Inkrafttreten")),
            &format!(
                "{}</metadaten>{}",
                unit("050002290", "Art 229", "Weitere Überleitungsvorschriften"),
                text("(weggefallen)")
            ),
            &format!(
                "{}<enbez>§ 5</enbez><titel>Vorschrift zum Schuldrecht</titel></metadaten>{}",
                unit("050002290", "Art 229", ""),
                text("(1) Auf Schuldverhältnisse …")
            ),
            &format!("{}<enbez>§ 16</enbez><titel>(weggefallen)</titel></metadaten>", unit("050002290", "Art 229", "")),
            // HWG: every norm in a `-` unit.
            &format!(
                "{}<enbez>§ 3</enbez></metadaten>{}",
                unit("010", "-", ""),
                text("Unzulässig ist eine irreführende Werbung.")
            ),
            // PflegeVG: an article that is a heading unit with text and no enbez.
            &format!(
                "{}</metadaten>{}",
                unit("030220", "Art 22", "Regelung für Amtsverhältnisse"),
                text("Für die Empfänger …")
            ),
            // brgo: text in a `-` unit with a title of its own.
            &format!("{}</metadaten>{}", unit("030220", "-", "*Ku Artikel 50 GG *KE"), text("Durch den Bundesrat …")),
            // A heading with only a footnote (juris' application note) keeps it.
            &format!(
                "{}</metadaten><textdaten><fussnoten><Content><P>(+++ Abschn. 5: Zur Anwendung vgl. § 13 +++)</P></Content></fussnoten></textdaten>",
                unit("060", "Abschnitt 5", "Schluss")
            ),
            // Nothing at all: dropped, counted.
            "</metadaten>",
        ]);
        let law = parse_law_xml(xml.as_bytes(), "egx", "t", "z").unwrap();
        let by: Vec<(Option<&str>, Option<&str>)> =
            law.sections.iter().map(|s| (s.designation.as_deref(), s.key.as_deref())).collect();
        assert_eq!(
            by,
            [
                (Some("Art 229"), Some("229")),
                (Some("Art. 229 § 5"), Some("229§5")),
                (Some("Art. 229 § 16"), Some("229§16")),
                (Some("§ 3"), Some("3")),
                (Some("Art 22"), Some("22")),
                (None, None),
                (Some("Abschnitt 5"), Some("abschnitt 5")),
            ]
        );
        let s = |d: &str| law.sections.iter().find(|s| s.designation.as_deref() == Some(d)).unwrap();
        let art229 = s("Art 229");
        assert_eq!(art229.heading.as_deref(), Some("Weitere Überleitungsvorschriften"));
        assert_eq!(art229.breadcrumb, ["Sechster Teil Inkrafttreten"], "a unit row is not its own crumb");
        let p5 = s("Art. 229 § 5");
        assert_eq!(p5.enbez.as_deref(), Some("§ 5"), "the printed enbez is kept");
        assert_eq!(p5.kind, SectionKind::Article);
        assert_eq!(p5.heading.as_deref(), Some("Vorschrift zum Schuldrecht"));
        assert_eq!(p5.breadcrumb, ["Sechster Teil Inkrafttreten", "Art 229 Weitere Überleitungsvorschriften"]);
        assert_eq!(p5.text, "(1) Auf Schuldverhältnisse …");
        let hwg3 = s("§ 3");
        assert!(hwg3.breadcrumb.is_empty(), "`-` is no crumb: {:?}", hwg3.breadcrumb);
        assert_eq!(hwg3.text, "Unzulässig ist eine irreführende Werbung.");
        assert_eq!(s("Art 22").heading.as_deref(), Some("Regelung für Amtsverhältnisse"));
        let quote = &law.sections[5];
        assert_eq!(quote.heading.as_deref(), Some("*Ku Artikel 50 GG *KE"));
        assert_eq!(quote.breadcrumb, ["Art 22 Regelung für Amtsverhältnisse"]);
        assert_eq!(s("Abschnitt 5").footnotes.as_deref(), Some("(+++ Abschn. 5: Zur Anwendung vgl. § 13 +++)"));
        let acc = &law.norm_account;
        assert_eq!((acc.norms, acc.section_rows, acc.law_header, acc.headings), (10, 7, 1, 1));
        assert_eq!(acc.dropped[&NormDropReason::NoContent], 1);
        assert_eq!(acc.dropped[&NormDropReason::SectionTooLarge], 0);
        assert_eq!(acc.accounted(), acc.norms);
        assert_eq!(acc.text_bearing, 6);
        assert_eq!(law.dropped_norms.len(), 1);
        assert_eq!(law.dropped_norms[0].doknr, "N8");
    }

    #[test]
    fn a_section_over_the_cap_is_dropped_whole_and_counted() {
        let big = "x".repeat(MAX_SECTION_TEXT_BYTES + 1);
        let xml = law_xml(&[
            &format!("<enbez>§ 1</enbez></metadaten>{}", text("klein")),
            &format!("<enbez>§ 2</enbez></metadaten>{}", text(&big)),
        ]);
        let law = parse_law_xml(xml.as_bytes(), "egx", "t", "z").unwrap();
        assert_eq!(law.sections.len(), 1);
        assert_eq!(law.sections[0].text, "klein");
        let acc = &law.norm_account;
        assert_eq!(acc.dropped[&NormDropReason::SectionTooLarge], 1);
        assert_eq!((acc.norms, acc.section_rows, acc.accounted()), (3, 1, 3));
        let d = &law.dropped_norms[0];
        assert_eq!(
            (d.doknr.as_str(), d.designation.as_deref(), d.reason),
            ("N1", Some("§ 2"), NormDropReason::SectionTooLarge)
        );
        assert_eq!(d.text_bytes, big.len());
        // Exactly at the cap is kept.
        let at_cap = "y".repeat(MAX_SECTION_TEXT_BYTES);
        let xml = law_xml(&[&format!("<enbez>§ 1</enbez></metadaten>{}", text(&at_cap))]);
        assert_eq!(parse_law_xml(xml.as_bytes(), "egx", "t", "z").unwrap().sections.len(), 1);
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
