//! Court decisions: raw records (Open Legal Data dump lines, rechtsprechung-im-internet.de XML)
//! → one normalised [`DecisionDoc`] each: plain text, sections, Randnummern, metadata, flags.
//!
//! # API
//! - [`parse_oldp_line`]: one JSON line → [`OldpRecord`] (all fields optional, unknown ignored).
//! - [`normalise_oldp`]: [`OldpRecord`] → [`DecisionDoc`].
//! - [`parse_rii_xml`]: the bytes of one rii XML file → [`DecisionDoc`]. No DTD is ever fetched
//!   (quick-xml does not resolve external entities).
//! - Every failure is a [`DecisionError`] whose [`DecisionError::reason`] is a stable code for the
//!   catalog: `invalid_json`, `content_too_large`, `markup_too_deep`, `malformed_xml`,
//!   `not_decision_xml`, `binary_content`, `invalid_encoding`.
//!
//! # The document
//! - `text`: plain text by the seed-000 rules ([`crate::plain_text`]): one paragraph per line,
//!   entities decoded, `<sup>` separated, a Randnummer stays on the line of its paragraph
//!   (`12 Die Revision ist …`).
//! - `sections`: cut at real heading lines only: a line that is just `Leitsatz`/`Leitsätze`,
//!   `Orientierungssatz`, `Tenor`, `Tatbestand`, `Entscheidungsgründe`, `Gründe` (also with a
//!   trailing colon, letter-spaced as in PDFs `G r ü n d e :`, upper case, or numbered
//!   `I. Tatbestand` / `A. Gründe`), or `Tenor: …` on one line (the section then starts after the
//!   colon). A word inside a sentence never anchors, and a bare outline line (`I.`, `II.`,
//!   `A.`) inside a section is not a section of its own. Portal rubric labels (`Titel:`,
//!   `Normenkette:`, `Schlagworte:`, `Vorinstanz:`, `Fundstellen:`, BVerwG's `Rechtsquellen`,
//!   `Zitiervorschlag`) are sections too, so a Leitsatz does not run on into the rubrics after
//!   it. `start..end` (code points, end exclusive) covers the text after the heading up to the
//!   line break before the next heading (or the end).
//! - `randnummern`: blocks `{rn, start, end, printed}`. Printed Randnummern are the numbers the
//!   source prints (`1| …` in OLDP markdown, `data-rd`, `<dt>N</dt>`, `<div class="rd">N</div>`,
//!   `<span class="absatzRechts">N</span>`, `<rd nr="N"/>`, a line that is only the number in
//!   plain text) → `printed: true`; an implicit one (a lone number in the rendered text) is only
//!   taken if it continues the sequence, so page numbers or list numbers never become
//!   Randnummern. A block runs from the start of its line to the line break before the next
//!   block or section heading, so blocks tile the body except for the section heading lines.
//!   **Where no Randnummer is printed we number the paragraphs ourselves** (`printed: false`):
//!   every non-heading line from the first Tatbestand/Gründe/Entscheidungsgründe section (or the
//!   first section, or the whole text) on is one block; bare outline lines (`I.`, `2.`, `a)`)
//!   are not numbered and belong to the block before them.
//! - `meta`: the record's fields as given (court fields raw; canonicalisation is not done here),
//!   all file numbers of a joined proceeding, the date with a confidence, ECLI and whether its
//!   year agrees with the date, the normalised document type (raw kept).
//! - `flags`: what was repaired or removed (mojibake, PDF page furniture, hyphenation) and why a
//!   text is empty.
//!
//! # Content formats
//! Sniffed from the content, with the dump's `content_format` as a hint (`meta.source_format`
//! says which path was taken):
//! - `oldp-markdown`: `## Tenor`, `12| …` Randnummern, `:| II.` lines (`markdown.rs`).
//! - `html`: portal containers (BFH `data-rd`, BAG/rii `<dl><dt>`, bayern.recht `div.rd`),
//!   full portal pages (navigation left out), fragments (`html.rs`).
//! - `html-python-bytes`: `b'<section…'` with double-encoded UTF-8 entities, repaired
//!   (`flags.mojibake_repaired`) (`mojibake.rs`).
//! - `pdf-text`: pdftotext output with page furniture, hyphenation and wrapping undone where
//!   safe (`pdf_text.rs`); `flags.pdf_derived`, `page_furniture_removed`, `dehyphenated`.
//! - `plain-text`: one paragraph per line; a line that is only a number is a Randnummer.
//! - `openjur-json-text`: an openJur crawl record with invalid JSON, read line-wise (`openjur.rs`).
//! - `byrecht-xml` / `rii-xml`: gesetze-bayern and rii XML (`xml.rs`); UTF-8 read as Latin-1 is
//!   repaired.
//! - `empty`: no text layer (a scan: `text_empty_reason = "scanned_pdf_without_text_layer"`),
//!   a garbled one (`pdf_text_layer_unreadable`) or no content (`no_content`); markup without
//!   any text gets `no_text_in_content`.
//!
//! # Limits (bad input never crashes or hangs)
//! Content over [`MAX_CONTENT_BYTES`] is refused; HTML/XML nested deeper than [`MAX_DEPTH`] is
//! refused (an HTML bomb is read linearly until the cap trips, then abandoned); binary junk
//! (NUL or many control characters) is refused, except in a PDF-derived text, which becomes an
//! empty text with `pdf_text_layer_unreadable`; malformed or truncated XML is an error with the
//! parser's message. All passes are linear in the input (stack scans are bounded, too).

mod html;
mod lines;
mod markdown;
mod meta;
mod mojibake;
mod openjur;
mod pdf_text;
mod xml;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

pub use meta::{normalise_document_type, split_file_numbers};

/// Largest content (bytes of UTF-8) that is normalised; larger records are refused.
pub const MAX_CONTENT_BYTES: usize = 20 * 1024 * 1024;
/// Deepest element nesting accepted in HTML or XML; real decisions stay far below 100.
pub const MAX_DEPTH: usize = 1024;

/// One Open Legal Data dump line, as read (all fields optional; unknown fields ignored).
///
/// Reading is lenient about types, because dumps differ: a string field given as a number
/// becomes its text, any other wrong type becomes None; `court` may be an object (the dump
/// layout), a plain name, or an id (then only `court.id` is set); a malformed `quirks` is empty.
/// Only invalid JSON makes the line unreadable.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct OldpRecord {
    pub id: Option<serde_json::Value>,
    #[serde(deserialize_with = "lenient::string")]
    pub slug: Option<String>,
    #[serde(deserialize_with = "lenient::court")]
    pub court: Option<OldpCourt>,
    #[serde(deserialize_with = "lenient::string")]
    pub file_number: Option<String>,
    #[serde(deserialize_with = "lenient::string")]
    pub date: Option<String>,
    #[serde(rename = "type", deserialize_with = "lenient::string")]
    pub type_: Option<String>,
    #[serde(deserialize_with = "lenient::string")]
    pub ecli: Option<String>,
    #[serde(deserialize_with = "lenient::string")]
    pub title: Option<String>,
    #[serde(deserialize_with = "lenient::string")]
    pub content: Option<String>,
    #[serde(deserialize_with = "lenient::string")]
    pub content_format: Option<String>,
    pub source: Option<serde_json::Value>,
    #[serde(deserialize_with = "lenient::strings")]
    pub quirks: Vec<String>,
}

/// The `court` object of a dump line, as given.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct OldpCourt {
    pub id: Option<serde_json::Value>,
    #[serde(deserialize_with = "lenient::string")]
    pub name: Option<String>,
    #[serde(deserialize_with = "lenient::string")]
    pub slug: Option<String>,
    #[serde(deserialize_with = "lenient::string")]
    pub city: Option<String>,
    #[serde(deserialize_with = "lenient::string")]
    pub state: Option<String>,
    #[serde(deserialize_with = "lenient::string")]
    pub jurisdiction: Option<String>,
    #[serde(deserialize_with = "lenient::string")]
    pub level_of_appeal: Option<String>,
}

/// Type-lenient field readers for dump lines.
mod lenient {
    use serde::{Deserialize, Deserializer};
    use serde_json::Value;

    pub fn string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::String(s) => Some(s),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        })
    }

    pub fn strings<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::Array(a) => a.into_iter().filter_map(|v| v.as_str().map(str::to_string)).collect(),
            _ => Vec::new(),
        })
    }

    pub fn court<'de, D: Deserializer<'de>>(d: D) -> Result<Option<super::OldpCourt>, D::Error> {
        Ok(match Value::deserialize(d)? {
            v @ Value::Object(_) => serde_json::from_value(v).ok(),
            Value::String(name) => Some(super::OldpCourt { name: Some(name), ..Default::default() }),
            v @ Value::Number(_) => Some(super::OldpCourt { id: Some(v), ..Default::default() }),
            _ => None,
        })
    }
}

/// A normalised decision.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DecisionDoc {
    /// Plain text by the seed-000 rules; one paragraph per line.
    pub text: String,
    pub sections: Vec<Section>,
    pub randnummern: Vec<RnBlock>,
    pub meta: DecisionMeta,
    pub flags: DocFlags,
}

/// A section of the text: the text after its heading line up to the next heading.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Section {
    /// Canonical: "Leitsatz", "Orientierungssatz", "Tenor", "Tatbestand", "Entscheidungsgründe",
    /// "Gründe", "Titelzeile", "Abweichende Meinung", "Sonstiger Langtext"; portal rubrics:
    /// "Titel", "Normenkette", "Schlagworte", "Vorinstanz", "Fundstellen",
    /// "Rechtsmittelinstanz", "Zitiervorschlag".
    pub name: String,
    /// The heading as printed (`Leitsätze`, `G r ü n d e :`, `Tenor:`).
    pub heading: String,
    /// Code points, end exclusive.
    pub start: usize,
    pub end: usize,
}

/// One Randnummer block (code points, end exclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RnBlock {
    pub rn: u32,
    pub start: usize,
    pub end: usize,
    /// True when the source prints this number; false when we numbered paragraphs ourselves.
    pub printed: bool,
}

/// Metadata as given by the source, lightly normalised and checked; never invented.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DecisionMeta {
    pub court_name_raw: Option<String>,
    pub court_jurisdiction_raw: Option<String>,
    pub court_level_raw: Option<String>,
    pub court_state_raw: Option<String>,
    /// Spruchkörper (`2. Senat`, `VI. Zivilsenat`).
    pub chamber: Option<String>,
    /// ISO `YYYY-MM-DD` as given or parsed; kept even when implausible.
    pub date: Option<String>,
    pub date_raw: Option<String>,
    /// `exact`, `suspicious` (kept but flagged, see `notes`) or `missing`.
    pub date_confidence: String,
    /// All file numbers of a joined proceeding in normal spelling (NBSP → space, trimmed).
    pub file_numbers: Vec<String>,
    pub file_number_raw: Option<String>,
    pub ecli: Option<String>,
    /// Whether the ECLI's year equals the date's year; None when either is missing.
    pub ecli_date_agrees: Option<bool>,
    /// Normalised (`Urteil`, `Beschluss`, `Gerichtsbescheid`, `Vorlagebeschluss`, …).
    pub document_type: Option<String>,
    pub document_type_raw: Option<String>,
    pub title: Option<String>,
    /// The rii `<norm>` field (or the gesetze-bayern `<enbez>` list), as given.
    pub norms_raw: Option<String>,
    /// What the content was: `oldp-markdown`, `html`, `html-python-bytes`, `pdf-text`,
    /// `plain-text`, `openjur-json-text`, `byrecht-xml`, `rii-xml`, `empty`.
    pub source_format: String,
    /// Why a value was flagged or split (`date_suspicious: …`, `file_number_old_in_parentheses`).
    pub notes: Vec<String>,
}

/// What normalisation repaired, removed or could not do.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DocFlags {
    pub mojibake_repaired: bool,
    pub pdf_derived: bool,
    /// PDF header/footer lines and bare page numbers removed.
    pub page_furniture_removed: u32,
    /// Line-end hyphens removed (`Verwal-` + `tungsgericht`).
    pub dehyphenated: u32,
    /// Why `text` is empty (`scanned_pdf_without_text_layer`, `no_content`).
    pub text_empty_reason: Option<String>,
    pub ocr_note: Option<String>,
}

/// Why a record could not be normalised; [`DecisionError::reason`] is the catalog code.
#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize, Deserialize)]
pub enum DecisionError {
    #[error("invalid JSON: {0}")]
    InvalidJson(String),
    #[error("content too large: {bytes} bytes (limit {limit})")]
    ContentTooLarge { bytes: usize, limit: usize },
    #[error("markup nested deeper than {limit} elements")]
    TooDeep { limit: usize },
    #[error("malformed XML: {0}")]
    MalformedXml(String),
    #[error("not a decision XML: {0}")]
    NotDecisionXml(String),
    #[error("binary content: {0}")]
    Binary(String),
    #[error("not valid UTF-8: {0}")]
    Encoding(String),
}

impl DecisionError {
    /// A stable code for the catalog's `problems.reason`.
    pub fn reason(&self) -> &'static str {
        match self {
            DecisionError::InvalidJson(_) => "invalid_json",
            DecisionError::ContentTooLarge { .. } => "content_too_large",
            DecisionError::TooDeep { .. } => "markup_too_deep",
            DecisionError::MalformedXml(_) => "malformed_xml",
            DecisionError::NotDecisionXml(_) => "not_decision_xml",
            DecisionError::Binary(_) => "binary_content",
            DecisionError::Encoding(_) => "invalid_encoding",
        }
    }
}

/// Parses one dump line. Invalid JSON (including a truncated line) is an error with serde's
/// message and position.
pub fn parse_oldp_line(line: &str) -> Result<OldpRecord, DecisionError> {
    let line = line.trim_start_matches('\u{feff}').trim();
    if line.len() > MAX_CONTENT_BYTES * 2 {
        return Err(DecisionError::ContentTooLarge { bytes: line.len(), limit: MAX_CONTENT_BYTES * 2 });
    }
    serde_json::from_str(line).map_err(|e| DecisionError::InvalidJson(e.to_string()))
}

/// The body of a document before structure is found: lines of rendered text.
pub(crate) struct Rendered {
    /// The plain text; `lines::RN_MARK` at the start of a line marks an explicit Randnummer line.
    pub text: String,
    pub flags: DocFlags,
}

/// Normalises one dump record.
pub fn normalise_oldp(rec: &OldpRecord) -> Result<DecisionDoc, DecisionError> {
    let content = rec.content.as_deref().unwrap_or("");
    if content.len() > MAX_CONTENT_BYTES {
        return Err(DecisionError::ContentTooLarge { bytes: content.len(), limit: MAX_CONTENT_BYTES });
    }
    // The Randnummer mark is ours; one in the input must not fake a Randnummer.
    let unmarked;
    let content = if content.contains(lines::RN_MARK) {
        unmarked = content.replace(lines::RN_MARK, "");
        unmarked.as_str()
    } else {
        content
    };
    let hint = rec.content_format.as_deref().unwrap_or("").to_ascii_lowercase();
    let pdf_hint = hint.contains("pdf") || rec.quirks.iter().any(|q| q.starts_with("pdf_"));
    // A PDF whose text layer is garbage (a broken font encoding) is still a decision with
    // metadata: it gets an empty text and a reason, like a scan. Other binary content is refused.
    let binary = match check_not_binary(content) {
        Err(e) if !pdf_hint => return Err(e),
        r => r.is_err(),
    };

    let mut extra = meta::Extra::default();
    // Content without a single letter or digit (a scan's `\f` page breaks) counts as empty.
    let (format, rendered) = if binary || !content.chars().any(char::is_alphanumeric) {
        let has_text = content.chars().any(char::is_alphanumeric);
        let reason = match (pdf_hint, binary && has_text) {
            (true, true) => "pdf_text_layer_unreadable",
            (true, false) => "scanned_pdf_without_text_layer",
            (false, _) => "no_content",
        };
        let flags = DocFlags {
            pdf_derived: pdf_hint,
            text_empty_reason: Some(reason.to_string()),
            ocr_note: pdf_hint.then(|| "PDF text layer missing or unreadable; no OCR was run".to_string()),
            ..Default::default()
        };
        ("empty", Rendered { text: String::new(), flags })
    } else {
        sniff_and_render(content, &hint, pdf_hint, &mut extra)?
    };
    let mut doc = lines::finish(rendered);
    if doc.text.is_empty() && doc.flags.text_empty_reason.is_none() {
        // Markup without any text (a portal page whose container held only a comment).
        doc.flags.text_empty_reason = Some("no_text_in_content".into());
    }
    doc.meta = meta::from_oldp(rec, &doc.text, format, extra);
    if hint.contains("is an html page") {
        // The collection stored a web page under the decision's PDF name.
        doc.meta.notes.push("content_is_a_web_page_not_the_decision".into());
    }
    Ok(doc)
}

fn sniff_and_render(
    content: &str,
    hint: &str,
    pdf_hint: bool,
    extra: &mut meta::Extra,
) -> Result<(&'static str, Rendered), DecisionError> {
    let head = content.trim_start();
    if let Some(html) = mojibake::python_bytes_repr(head) {
        let (html, repaired) = mojibake::repair_entity_mojibake(&html);
        let mut r = html::render(&html)?;
        r.flags.mojibake_repaired |= repaired;
        return Ok(("html-python-bytes", r));
    }
    if head.starts_with("<?xml") || head.starts_with("<byrecht-rspr") || head.starts_with("<dokument") {
        let (text, repaired) = mojibake::repair_latin1_mojibake(content);
        let (format, mut r) = xml::render_xml_content(&text, extra)?;
        r.flags.mojibake_repaired |= repaired;
        return Ok((format, r));
    }
    if hint.contains("markdown") || (!looks_like_html(head) && markdown::looks_like_oldp_markdown(content)) {
        return Ok(("oldp-markdown", markdown::render(content)));
    }
    if looks_like_html(head) {
        let (html, repaired) = mojibake::repair_entity_mojibake(content);
        let mut r = html::render(&html)?;
        r.flags.mojibake_repaired |= repaired;
        return Ok(("html", r));
    }
    if pdf_hint || content.contains('\u{c}') {
        let (text, repaired) = mojibake::repair_latin1_mojibake(content);
        let mut r = pdf_text::render(&text);
        r.flags.mojibake_repaired |= repaired;
        return Ok(("pdf-text", r));
    }
    if let Some((r, found)) = openjur::render(content) {
        *extra = found;
        return Ok(("openjur-json-text", r));
    }
    let (text, repaired) = mojibake::repair_latin1_mojibake(content);
    let mut r = lines::render_plain(&text);
    r.flags.mojibake_repaired |= repaired;
    Ok(("plain-text", r))
}

/// HTML when it starts with a tag or holds common block tags early on.
fn looks_like_html(head: &str) -> bool {
    if head.starts_with('<') {
        return true;
    }
    let probe: String = head.chars().take(4096).collect::<String>().to_ascii_lowercase();
    ["<p>", "<p ", "<div", "<br", "<h2", "<dl", "<table", "<section"].iter().any(|t| probe.contains(t))
}

/// Refuses NUL bytes and text where control characters are common (binary junk).
fn check_not_binary(s: &str) -> Result<(), DecisionError> {
    let mut controls = 0usize;
    let mut total = 0usize;
    for c in s.chars().take(1 << 16) {
        total += 1;
        if c == '\0' {
            return Err(DecisionError::Binary("NUL character in content".into()));
        }
        if c.is_control() && !matches!(c, '\n' | '\r' | '\t' | '\u{c}') && (c as u32) < 0x80 {
            controls += 1;
        }
    }
    if total > 0 && controls * 20 > total {
        return Err(DecisionError::Binary(format!("{controls} control characters in the first {total}")));
    }
    Ok(())
}

/// Parses one rechtsprechung-im-internet.de XML file (UTF-8 or with an XML encoding
/// declaration for ISO-8859-1). The DTD named in the DOCTYPE is never fetched.
pub fn parse_rii_xml(bytes: &[u8]) -> Result<DecisionDoc, DecisionError> {
    if bytes.len() > MAX_CONTENT_BYTES {
        return Err(DecisionError::ContentTooLarge { bytes: bytes.len(), limit: MAX_CONTENT_BYTES });
    }
    let text = xml::decode_xml_bytes(bytes)?.replace(lines::RN_MARK, "");
    check_not_binary(&text)?;
    let (text, repaired) = mojibake::repair_latin1_mojibake(&text);
    let (fields, mut rendered) = xml::render_rii(&text)?;
    rendered.flags.mojibake_repaired |= repaired;
    let mut doc = lines::finish(rendered);
    doc.meta = meta::from_rii(&fields, &doc.text);
    Ok(doc)
}
