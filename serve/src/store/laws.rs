//! The statute rows of the store: laws (with their norm account) and sections, read by id.

use crate::contract::answer::ToolError;
use crate::contract::answers::{AbsatzSpan, LawSummary, NormAccountReport};
use crate::store::kept::PerGeneration;
use index::Generation;
use model::NormDropReason;
use rusqlite::params;

pub(crate) const GII: &str = "https://www.gesetze-im-internet.de";

/// A law row of the store.
#[derive(Debug, Clone)]
pub struct Law {
    pub id: i64,
    pub slug: String,
    pub code: String,
    pub jurabk: Vec<String>,
    pub amtabk: Option<String>,
    pub title: String,
    pub short_title: Option<String>,
    pub doknr: String,
    pub builddate: Option<String>,
    pub ausfertigung_datum: Option<String>,
    pub fundstelle: Option<String>,
    pub stand: Vec<String>,
    pub notes: Option<String>,
    pub section_count: i64,
    pub text_length: i64,
    pub norm_account: NormAccount,
}

/// What became of every `<norm>` of a law's XML, as the store holds it:
/// `norms = section_rows + law_header + headings + Σ dropped`.
#[derive(Debug, Clone, Default)]
pub struct NormAccount {
    pub norms: i64,
    pub section_rows: i64,
    pub law_header: i64,
    pub headings: i64,
    pub dropped: std::collections::BTreeMap<NormDropReason, i64>,
    pub text_bearing: i64,
}

impl NormAccount {
    pub(crate) fn add(&mut self, o: &NormAccount) {
        self.norms += o.norms;
        self.section_rows += o.section_rows;
        self.law_header += o.law_header;
        self.headings += o.headings;
        self.text_bearing += o.text_bearing;
        for (r, n) in &o.dropped {
            *self.dropped.entry(*r).or_default() += n;
        }
    }

    /// The account as answers carry it: every drop reason, zero included.
    pub fn report(&self) -> NormAccountReport {
        NormAccountReport {
            norms: self.norms,
            section_rows: self.section_rows,
            law_header: self.law_header,
            headings: self.headings,
            dropped: NormDropReason::ALL.iter().map(|r| (*r, self.dropped.get(r).copied().unwrap_or(0))).collect(),
            dropped_total: self.dropped.values().sum::<i64>(),
            text_bearing_norms: self.text_bearing,
            laws_with_text_but_no_rows: None,
            note: "Every <norm> of the law's XML is one of: a section row, the law header (when its own text is no row), a pure heading (no text), or dropped with its reason. norms = section_rows + law_header + headings + dropped_total.",
        }
    }
}

pub(crate) const LAW_COLS: &str = "id, slug, code, jurabk, amtabk, title, short_title, doknr, builddate, ausfertigung_datum, \
                        fundstelle, stand, notes, section_count, text_length, \
                        norms, norms_header, norms_headings, norms_dropped, norms_text_bearing";

/// The norm account columns from `norms` on (positions in [`LAW_COLS`]).
pub(crate) fn norm_account_from_row(r: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<NormAccount> {
    let dropped: String = r.get(first + 3)?;
    let dropped: std::collections::BTreeMap<NormDropReason, i64> = serde_json::from_str(&dropped)
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(first + 3, rusqlite::types::Type::Text, Box::new(e)))?;
    Ok(NormAccount {
        norms: r.get(first)?,
        law_header: r.get(first + 1)?,
        headings: r.get(first + 2)?,
        dropped,
        text_bearing: r.get(first + 4)?,
        section_rows: 0,
    })
}

pub(crate) fn law_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Law> {
    let json_list = |s: String| serde_json::from_str::<Vec<String>>(&s).unwrap_or_default();
    Ok(Law {
        id: r.get(0)?,
        slug: r.get(1)?,
        code: r.get(2)?,
        jurabk: json_list(r.get(3)?),
        amtabk: r.get(4)?,
        title: r.get(5)?,
        short_title: r.get(6)?,
        doknr: r.get(7)?,
        builddate: r.get(8)?,
        ausfertigung_datum: r.get(9)?,
        fundstelle: r.get(10)?,
        stand: json_list(r.get(11)?),
        notes: r.get(12)?,
        section_count: r.get(13)?,
        text_length: r.get(14)?,
        norm_account: NormAccount { section_rows: r.get(13)?, ..norm_account_from_row(r, 15)? },
    })
}

impl Law {
    pub fn summary(&self) -> LawSummary {
        LawSummary {
            code: self.code.clone(),
            slug: self.slug.clone(),
            title: self.title.clone(),
            jurabk: self.jurabk.clone(),
            amtabk: self.amtabk.clone(),
        }
    }

    pub fn source_url(&self) -> String {
        format!("{GII}/{}/index.html", self.slug)
    }
}

/// gii's HTML page of one § or Artikel (`/bgb/__823.html`, `/gg/art_20.html`); None for other labels.
pub fn section_url(slug: &str, label: Option<&str>) -> Option<String> {
    let label = label?.trim();
    let page_name = |s: &str| (!s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric())).then(|| s.to_lowercase());
    // `Art. 229 § 5` (a § inside an article: EGBGB, EGInsO) → `art_229__5.html`.
    if label.starts_with("Art")
        && let Some((art, par)) = label.split_once('§')
    {
        let art = art.trim_start_matches("Artikel").trim_start_matches("Art").trim_start_matches('.').trim();
        return Some(format!("{GII}/{slug}/art_{}__{}.html", page_name(art)?, page_name(par.trim())?));
    }
    let (prefix, rest) = if let Some(r) = label.strip_prefix('§') {
        ("__", r)
    } else if let Some(r) = label.strip_prefix("Art") {
        ("art_", r.trim_start_matches("ikel").trim_start_matches('.'))
    } else {
        return None;
    };
    let num = rest.trim();
    (!num.is_empty() && num.chars().all(|c| c.is_ascii_alphanumeric()))
        .then(|| format!("{GII}/{slug}/{prefix}{}.html", num.to_lowercase()))
}

pub fn law_by_id(g: &Generation, id: i64) -> Result<Law, ToolError> {
    // Every search row names its law: the law rows (a few thousand, small) are read once per
    // generation rather than parsed again for each row.
    static KEPT: PerGeneration<std::collections::HashMap<i64, Law>> = PerGeneration::new();
    let laws = KEPT.get(g, |g| {
        g.store
            .with(|c| {
                let mut st = c.prepare(&format!("SELECT {LAW_COLS} FROM laws"))?;
                let rows = st.query_map([], law_from_row)?;
                Ok(rows.map(|r| r.map(|l| (l.id, l))).collect::<rusqlite::Result<_>>()?)
            })
            .map_err(ToolError::from)
    })?;
    laws.get(&id).cloned().ok_or_else(|| ToolError::internal(format!("no law with id {id} in the store")))
}

/// A section row.
#[derive(Debug, Clone)]
pub struct Section {
    pub id: i64,
    pub law_id: i64,
    pub ordinal: i64,
    pub doknr: String,
    pub label: Option<String>,
    pub key: Option<String>,
    pub toc_key: String,
    pub kind: String,
    pub heading: Option<String>,
    pub breadcrumb: Vec<String>,
    pub text: String,
    pub footnotes: Option<String>,
    pub absaetze: Vec<AbsatzSpan>,
    pub text_length: i64,
}

pub(crate) const SECTION_COLS: &str = "id, law_id, ordinal, doknr, label, key, toc_key, kind, heading, breadcrumb, text, footnotes, absaetze, text_length";

pub(crate) fn section_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Section> {
    Ok(Section {
        id: r.get(0)?,
        law_id: r.get(1)?,
        ordinal: r.get(2)?,
        doknr: r.get(3)?,
        label: r.get(4)?,
        key: r.get(5)?,
        toc_key: r.get(6)?,
        kind: r.get(7)?,
        heading: r.get(8)?,
        breadcrumb: serde_json::from_str(&r.get::<_, String>(9)?).unwrap_or_default(),
        text: r.get(10)?,
        footnotes: r.get(11)?,
        absaetze: serde_json::from_str(&r.get::<_, String>(12)?).unwrap_or_default(),
        text_length: r.get(13)?,
    })
}

pub fn section_by_id(g: &Generation, id: i64) -> Result<Section, ToolError> {
    g.store
        .with(|c| {
            Ok(c.prepare_cached(&format!("SELECT {SECTION_COLS} FROM sections WHERE id = ?1"))?
                .query_row(params![id], section_from_row)?)
        })
        .map_err(ToolError::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn section_urls_follow_gii_page_names() {
        assert_eq!(
            section_url("bgb", Some("§ 823")).as_deref(),
            Some("https://www.gesetze-im-internet.de/bgb/__823.html")
        );
        assert_eq!(
            section_url("gg", Some("Art 20")).as_deref(),
            Some("https://www.gesetze-im-internet.de/gg/art_20.html")
        );
        assert_eq!(
            section_url("bgb", Some("§ 90a")).as_deref(),
            Some("https://www.gesetze-im-internet.de/bgb/__90a.html")
        );
        assert_eq!(section_url("x", Some("Anlage 1")), None);
        assert_eq!(
            section_url("bgbeg", Some("Art. 229 § 5")).as_deref(),
            Some("https://www.gesetze-im-internet.de/bgbeg/art_229__5.html")
        );
        assert_eq!(section_url("x", Some("Art. 1 §§ 1 bis 5")), None);
    }
}
