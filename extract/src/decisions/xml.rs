//! Decision XML: rechtsprechung-im-internet.de (`<dokument>`) and gesetze-bayern
//! (`<byrecht-rspr>`), read with quick-xml, which never resolves a DTD or external entity.
//!
//! Metadata leaves (`gertyp`, `entsch-datum`, `aktenzeichen`, `norm`/`enbez`, …) are collected
//! as text. Each text field (`titelzeile`, `leitsatz`, `tenor`, `tatbestand`,
//! `entscheidungsgruende`, `gruende`, …) is cut out verbatim and rendered by the HTML renderer
//! under a heading line with its canonical name — the same text the OLDP conversion of a rii
//! file (`<h2>Tenor</h2>` + the field's markup) yields. `<rd nr="N"/>` marks a Randnummer.

use quick_xml::Reader;
use quick_xml::events::Event;

use super::meta::{Extra, normal_spaces};
use super::{DecisionError, MAX_DEPTH, Rendered, html};

/// Text fields in document order → the heading we print.
const FIELDS: &[(&str, &str)] = &[
    ("titelzeile", "Titelzeile"),
    ("leitsatz", "Leitsatz"),
    ("sonstosatz", "Orientierungssatz"),
    ("orientierungssatz", "Orientierungssatz"),
    ("tenor", "Tenor"),
    ("tatbestand", "Tatbestand"),
    ("entscheidungsgruende", "Entscheidungsgründe"),
    ("gruende", "Gründe"),
    ("abwmeinung", "Abweichende Meinung"),
    ("sonstlt", "Sonstiger Langtext"),
];

/// XML bytes → text: UTF-8 (BOM stripped), or ISO-8859-1 when so declared.
pub(crate) fn decode_xml_bytes(bytes: &[u8]) -> Result<String, DecisionError> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(s.to_string()),
        Err(e) => {
            let head = String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).to_ascii_lowercase();
            if head.contains("iso-8859") || head.contains("latin") || head.contains("windows-1252") {
                Ok(bytes.iter().map(|&b| b as char).collect())
            } else {
                Err(DecisionError::Encoding(e.to_string()))
            }
        }
    }
}

struct Parsed {
    root: String,
    fields: Extra,
    /// (heading, inner markup)
    sections: Vec<(&'static str, String)>,
}

fn xml_err(e: impl std::fmt::Display, pos: u64) -> DecisionError {
    DecisionError::MalformedXml(format!("{e} (at byte {pos})"))
}

fn parse(text: &str) -> Result<Parsed, DecisionError> {
    let mut r = Reader::from_str(text);
    r.config_mut().check_end_names = true;
    let mut stack: Vec<String> = Vec::new();
    let mut root: Option<String> = None;
    let mut fields = Extra::default();
    let mut sections = Vec::new();
    let mut enbez: Vec<String> = Vec::new();
    let (mut gertyp, mut gerort) = (String::new(), String::new());
    loop {
        let pos = r.buffer_position();
        let ev = r.read_event().map_err(|e| xml_err(e, pos))?;
        match ev {
            Event::Start(e) => {
                let name = String::from_utf8_lossy(e.local_name().as_ref()).into_owned();
                if root.is_none() {
                    root = Some(name.clone());
                }
                if let Some((_, heading)) = FIELDS.iter().find(|(f, _)| *f == name)
                    && !stack.is_empty()
                {
                    let span = r.read_to_end(e.name()).map_err(|e| xml_err(e, r.buffer_position()))?;
                    let inner = &text[span.start as usize..span.end as usize];
                    sections.push((*heading, inner.to_string()));
                    continue;
                }
                stack.push(name);
                if stack.len() > MAX_DEPTH {
                    return Err(DecisionError::TooDeep { limit: MAX_DEPTH });
                }
            }
            Event::End(_) => {
                stack.pop();
            }
            Event::Empty(e) if root.is_none() => {
                root = Some(String::from_utf8_lossy(e.local_name().as_ref()).into_owned());
            }
            Event::Text(t) => {
                let Some(cur) = stack.last() else { continue };
                let raw =
                    t.unescape().map(|c| c.into_owned()).unwrap_or_else(|_| String::from_utf8_lossy(&t).into_owned());
                let v = normal_spaces(&raw);
                if v.is_empty() {
                    continue;
                }
                let slot = match cur.as_str() {
                    "ecli" => &mut fields.ecli,
                    "spruchkoerper" => &mut fields.chamber,
                    "entsch-datum" => &mut fields.date,
                    "aktenzeichen" => &mut fields.file_number,
                    "doktyp" => &mut fields.doktyp,
                    "norm" => &mut fields.norms,
                    "enbez" => {
                        enbez.push(v);
                        continue;
                    }
                    "gertyp" => {
                        gertyp = v;
                        continue;
                    }
                    "gerort" => {
                        gerort = v;
                        continue;
                    }
                    _ => continue,
                };
                match slot {
                    Some(s) => {
                        s.push(' ');
                        s.push_str(&v);
                    }
                    None => *slot = Some(v),
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if let Some(open) = stack.last() {
        return Err(DecisionError::MalformedXml(format!("unexpected end of file inside <{open}>")));
    }
    let Some(root) = root else {
        return Err(DecisionError::NotDecisionXml("no root element".into()));
    };
    if fields.norms.is_none() && !enbez.is_empty() {
        fields.norms = Some(enbez.join("; "));
    }
    let court = normal_spaces(&format!("{gertyp} {gerort}"));
    fields.court = (!court.is_empty()).then_some(court);
    Ok(Parsed { root, fields, sections })
}

fn render_sections(p: &Parsed) -> Result<Rendered, DecisionError> {
    let mut html_doc = String::new();
    for (heading, inner) in &p.sections {
        if inner.trim().is_empty() {
            continue;
        }
        html_doc.push_str("<h2>");
        html_doc.push_str(heading);
        html_doc.push_str("</h2>\n");
        html_doc.push_str(inner);
        html_doc.push('\n');
    }
    html::render(&html_doc)
}

fn title_of(p: &Parsed) -> Option<String> {
    let (_, inner) = p.sections.iter().find(|(h, _)| *h == "Titelzeile")?;
    let t = html::render(inner).ok()?.text;
    let t = normal_spaces(&t.replace(super::lines::RN_MARK, ""));
    (!t.is_empty()).then_some(t)
}

/// XML found in a dump record's content → (source format, rendered text); metadata goes to
/// `extra` (the record's own fields take precedence).
pub(crate) fn render_xml_content(text: &str, extra: &mut Extra) -> Result<(&'static str, Rendered), DecisionError> {
    let p = parse(text)?;
    let format = match p.root.as_str() {
        "byrecht-rspr" => "byrecht-xml",
        "dokument" => "rii-xml",
        other => return Err(DecisionError::NotDecisionXml(format!("root element <{other}>"))),
    };
    *extra = p.fields.clone();
    extra.title = title_of(&p);
    Ok((format, render_sections(&p)?))
}

/// A rii XML file → its fields and rendered text.
pub(crate) fn render_rii(text: &str) -> Result<(Extra, Rendered), DecisionError> {
    let p = parse(text)?;
    if p.root != "dokument" {
        return Err(DecisionError::NotDecisionXml(format!("root element <{}>, expected <dokument>", p.root)));
    }
    let mut fields = p.fields.clone();
    fields.title = title_of(&p);
    Ok((fields, render_sections(&p)?))
}
