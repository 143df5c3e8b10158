//! Statute tools: `search_laws`, `get_law_section`, `get_law`, `list_law_books`.
//! One function per capability; MCP and REST both call these.

use std::collections::BTreeSet;

use extract::law::{SectionKind, section_key, section_kind};
use index::Generation;
use model::{LawPart, MatchMode, NormDropReason, SearchMode};
use resolve::book_codes::normalise_book_code;
use rusqlite::params;
use serde_json::{Map, Value, json};
use tantivy::collector::{Count, TopDocs};
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Term};
use tantivy::tokenizer::TokenStream;

use crate::contract::answer::{ErrorCode, ToolError};
use crate::contract::args::Args;

const GII: &str = "https://www.gesetze-im-internet.de";

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
    fn add(&mut self, o: &NormAccount) {
        self.norms += o.norms;
        self.section_rows += o.section_rows;
        self.law_header += o.law_header;
        self.headings += o.headings;
        self.text_bearing += o.text_bearing;
        for (r, n) in &o.dropped {
            *self.dropped.entry(*r).or_default() += n;
        }
    }

    pub fn to_json(&self) -> Value {
        let dropped: Map<String, Value> = NormDropReason::ALL
            .iter()
            .map(|r| (r.as_str().to_string(), json!(self.dropped.get(r).copied().unwrap_or(0))))
            .collect();
        json!({
            "norms": self.norms,
            "section_rows": self.section_rows,
            "law_header": self.law_header,
            "headings": self.headings,
            "dropped": dropped,
            "dropped_total": self.dropped.values().sum::<i64>(),
            "text_bearing_norms": self.text_bearing,
            "note": "Every <norm> of the law's XML is one of: a section row, the law header (when its own text is no row), a pure heading (no text), or dropped with its reason. norms = section_rows + law_header + headings + dropped_total.",
        })
    }
}

const LAW_COLS: &str = "id, slug, code, jurabk, amtabk, title, short_title, doknr, builddate, ausfertigung_datum, \
                        fundstelle, stand, notes, section_count, text_length, \
                        norms, norms_header, norms_headings, norms_dropped, norms_text_bearing";

/// The norm account columns from `norms` on (positions in [`LAW_COLS`]).
fn norm_account_from_row(r: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<NormAccount> {
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

fn law_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Law> {
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
    pub fn summary(&self) -> Value {
        json!({
            "code": self.code,
            "slug": self.slug,
            "title": self.title,
            "jurabk": self.jurabk,
            "amtabk": self.amtabk,
        })
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
    g.store
        .with(|c| Ok(c.query_row(&format!("SELECT {LAW_COLS} FROM laws WHERE id = ?1"), params![id], law_from_row)?))
        .map_err(ToolError::from)
}

/// What a book code names.
pub enum BookLookup {
    Found(Box<Law>),
    /// Several laws at the best tier: their ids.
    Ambiguous(BTreeSet<i64>),
    NotHeld,
}

/// Looks a book code up without building a refusal (no suggestions: cheap).
pub fn lookup_book(g: &Generation, book: &str) -> Result<BookLookup, ToolError> {
    let norm = normalise_book_code(book);
    let hits: Vec<(i64, i64)> = g.store.with(|c| {
        let mut st =
            c.prepare_cached("SELECT law_id, tier FROM book_codes WHERE code_norm = ?1 ORDER BY tier, law_id")?;
        let rows = st.query_map(params![norm], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    })?;
    let Some(best) = hits.first().map(|h| h.1) else { return Ok(BookLookup::NotHeld) };
    let ids: BTreeSet<i64> = hits.iter().filter(|h| h.1 == best).map(|h| h.0).collect();
    if ids.len() == 1 {
        return Ok(BookLookup::Found(Box::new(law_by_id(g, *ids.iter().next().expect("one id"))?)));
    }
    Ok(BookLookup::Ambiguous(ids))
}

/// Resolves what a user typed as a book code (`BGB`, `AO`, `SGB V`, `EGBGB`, a title) to a law.
pub fn resolve_book(g: &Generation, book: &str) -> Result<Law, ToolError> {
    let norm = normalise_book_code(book);
    match lookup_book(g, book)? {
        BookLookup::Found(law) => return Ok(*law),
        BookLookup::Ambiguous(ids) => {
            let candidates: Vec<Value> =
                ids.iter().filter_map(|id| law_by_id(g, *id).ok()).map(|l| l.summary()).collect();
            return Err(ToolError::new(
                ErrorCode::BookAmbiguous,
                format!("book code {book:?} names {} laws", candidates.len()),
                "Pass the slug or the full title of the law you mean (see candidates).",
            )
            .with("candidates", candidates));
        }
        BookLookup::NotHeld => {}
    }
    // Not a code we hold: say whether it is a superseded one, and suggest near codes.
    let superseded: Vec<Value> = g.store.with(|c| {
        let mut st = c.prepare_cached(
            "SELECT s.code, s.successor, s.effective_date, s.note, l.code, l.slug FROM superseded_codes s
             LEFT JOIN laws l ON l.id = s.successor_law_id WHERE s.code_norm = ?1",
        )?;
        let rows = st.query_map(params![norm], |r| {
            Ok(json!({
                "code": r.get::<_, String>(0)?,
                "successor": r.get::<_, String>(1)?,
                "effective_date": r.get::<_, Option<String>>(2)?,
                "note": r.get::<_, String>(3)?,
                "successor_in_corpus": r.get::<_, Option<String>>(4)?.is_some(),
                "successor_slug": r.get::<_, Option<String>>(5)?,
            }))
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    })?;
    let suggestions = suggest_codes(g, &norm)?;
    let mut hint = String::from("Use list_law_books(prefix=…) to find the abbreviation; ");
    if !superseded.is_empty() {
        hint = format!(
            "{book} is a superseded instrument (replaced by {}); its numbering does not carry over to the successor. ",
            superseded.iter().filter_map(|s| s["successor"].as_str()).collect::<Vec<_>>().join(", ")
        );
    }
    hint.push_str("statutes held are the federal laws of gesetze-im-internet.de (no Land law).");
    let mut err = ToolError::new(ErrorCode::BookNotFound, format!("no law is known under {book:?}"), hint)
        .with("suggestions", suggestions);
    if !superseded.is_empty() {
        err = err.with("superseded", superseded);
    }
    Err(err)
}

fn suggest_codes(g: &Generation, norm: &str) -> Result<Vec<Value>, ToolError> {
    if norm.is_empty() {
        return Ok(Vec::new());
    }
    let prefix: String = norm.chars().take(3).collect();
    let like = format!("{}%", prefix.replace(['%', '_'], ""));
    Ok(g.store.with(|c| {
        let mut st = c.prepare_cached(
            "SELECT DISTINCT l.code, l.title FROM book_codes b JOIN laws l ON l.id = b.law_id
             WHERE b.code_norm LIKE ?1 AND b.tier <= 2 ORDER BY length(b.code_norm), l.code LIMIT 8",
        )?;
        let rows = st.query_map(params![like], |r| {
            Ok(json!({"code": r.get::<_, String>(0)?, "title": r.get::<_, String>(1)?}))
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    })?)
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
    pub absaetze: Value,
    pub text_length: i64,
}

const SECTION_COLS: &str = "id, law_id, ordinal, doknr, label, key, toc_key, kind, heading, breadcrumb, text, footnotes, absaetze, text_length";

fn section_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Section> {
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
        absaetze: serde_json::from_str(&r.get::<_, String>(12)?).unwrap_or(Value::Array(vec![])),
        text_length: r.get(13)?,
    })
}

pub fn section_by_id(g: &Generation, id: i64) -> Result<Section, ToolError> {
    g.store
        .with(|c| {
            Ok(c.query_row(
                &format!("SELECT {SECTION_COLS} FROM sections WHERE id = ?1"),
                params![id],
                section_from_row,
            )?)
        })
        .map_err(ToolError::from)
}

/// Finds the section `designation` of `law`: exact key (`823` never matches `1823`), toc key or doknr.
pub fn find_section(g: &Generation, law: &Law, designation: &str) -> Result<Section, ToolError> {
    let key = section_key(designation);
    let raw = designation.trim();
    let found: Vec<Section> = g.store.with(|c| {
        let mut st = c.prepare_cached(&format!(
            "SELECT {SECTION_COLS} FROM sections WHERE law_id = ?1 AND (key = ?2 OR toc_key = ?3 OR doknr = ?3) ORDER BY ordinal"
        ))?;
        let rows = st.query_map(params![law.id, key, raw], section_from_row)?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    })?;
    // A toc key / doknr names exactly one section even where the key repeats.
    if let Some(exact) = found.iter().find(|s| s.toc_key == raw || s.doknr == raw) {
        return Ok(exact.clone());
    }
    // `§ 4` and `Art 4` share the key `4`; a typed `§` or `Art` tells them apart.
    let typed_kind = section_kind(Some(designation));
    if found.len() > 1 && matches!(typed_kind, SectionKind::Paragraph | SectionKind::Article) {
        let spelled = serde_json::to_value(typed_kind).ok();
        let same_kind: Vec<&Section> =
            found.iter().filter(|s| spelled.as_ref().and_then(Value::as_str) == Some(s.kind.as_str())).collect();
        if let [one] = same_kind.as_slice() {
            return Ok((*one).clone());
        }
    }
    match found.len() {
        1 => Ok(found.into_iter().next().expect("one")),
        0 => {
            let examples: Vec<Value> = g.store.with(|c| {
                let mut st = c.prepare_cached(
                    "SELECT label, toc_key, kind FROM sections WHERE law_id = ?1 AND label IS NOT NULL ORDER BY ordinal LIMIT 400",
                )?;
                let rows = st.query_map(params![law.id], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?))
                })?;
                let all: Vec<(String, String, String)> = rows.collect::<Result<Vec<_>, _>>()?;
                // A spread of examples: first few and a few of each kind.
                let mut seen_kinds = BTreeSet::new();
                let mut out = Vec::new();
                for (i, (label, toc_key, kind)) in all.iter().enumerate() {
                    if i < 3 || seen_kinds.insert(kind.clone()) {
                        out.push(json!({"label": label, "section": toc_key, "kind": kind}));
                    }
                    if out.len() >= 8 {
                        break;
                    }
                }
                Ok(out)
            })?;
            let labels: Vec<String> = examples.iter().filter_map(|e| e["label"].as_str().map(str::to_string)).collect();
            Err(ToolError::new(
                ErrorCode::SectionNotFound,
                format!("{} has no section {designation:?}", law.code),
                format!(
                    "{} labels its sections like {}; pass the number (\"823\", \"Art. 20\", \"Art. 229 § 5\") or a key from get_law's table of contents. Only exact sections match.",
                    law.code,
                    if labels.is_empty() { "(no labelled sections)".to_string() } else { labels.join(", ") }
                ),
            )
            .with("law", law.summary())
            .with("examples", examples))
        }
        _ => Err(ToolError::new(
            ErrorCode::SectionAmbiguous,
            format!("{} has {} sections labelled {designation:?}", law.code, found.len()),
            "Pass the `section` key of the one you mean (from candidates or get_law's table of contents).",
        )
        .with("law", law.summary())
        .with(
            "candidates",
            found
                .iter()
                .map(|s| json!({"section": s.toc_key, "label": s.label, "heading": s.heading, "breadcrumb": s.breadcrumb}))
                .collect::<Vec<_>>(),
        )),
    }
}

/// Code-point slice `[offset, offset+length)` of `text` (length 0 = to the end).
pub fn slice_chars(text: &str, offset: usize, length: usize) -> String {
    let mut it = text.char_indices().skip(offset);
    let Some((start, _)) = it.next() else { return String::new() };
    if length == 0 {
        return text[start..].to_string();
    }
    let end = text[start..].char_indices().nth(length).map(|(i, _)| start + i).unwrap_or(text.len());
    text[start..end].to_string()
}

/// The seed-000 snippet object, or a refusal when `offset` lies beyond the text.
pub fn snippet(text: &str, total_length: usize, offset: i64, length: i64) -> Result<Value, ToolError> {
    let offset = offset as usize;
    if offset > total_length {
        return Err(ToolError::new(
            ErrorCode::OffsetOutOfRange,
            format!("offset {offset} is beyond the end of the text ({total_length} characters)"),
            "Pass an offset between 0 and total_length; follow next_offset from the previous answer.",
        )
        .with("total_length", total_length));
    }
    let part = slice_chars(text, offset, length as usize);
    let got = part.chars().count();
    let end = offset + got;
    let has_more = end < total_length;
    Ok(json!({
        "text": part,
        "offset": offset,
        "length": got,
        "total_length": total_length,
        "has_more": has_more,
        "next_offset": if has_more { json!(end) } else { Value::Null },
    }))
}

fn section_json(law: &Law, s: &Section) -> Value {
    json!({
        "section": s.toc_key,
        "label": s.label,
        "kind": s.kind,
        "heading": s.heading,
        "breadcrumb": s.breadcrumb,
        "doknr": s.doknr,
        "absaetze": s.absaetze,
        "footnotes": s.footnotes,
        "html_url": section_url(&law.slug, s.label.as_deref()),
    })
}

/// `get_law_section(book, section, offset?, length?)`.
pub fn get_law_section(g: &Generation, a: &Args<'_>) -> Result<Map<String, Value>, ToolError> {
    let book = a.str_req("book", 200)?;
    let designation = a.str_req("section", 200)?;
    let offset = a.int("offset", 0, 0, i64::MAX)?;
    let length = a.int("length", 0, 0, i64::MAX)?;
    let law = resolve_book(g, &book)?;
    let s = find_section(g, &law, &designation)?;
    let mut out = Map::new();
    out.insert("law".into(), law.summary());
    out.insert("section".into(), section_json(&law, &s));
    out.insert("source_url".into(), json!(law.source_url()));
    let total = s.text_length as usize;
    if offset == 0 && length == 0 {
        out.insert("content".into(), json!(s.text));
        out.insert("total_length".into(), json!(total));
    } else {
        out.insert("snippet".into(), snippet(&s.text, total, offset, length)?);
    }
    Ok(out)
}

/// `get_law(book, include?, offset?, length?, toc_offset?, toc_limit?)`.
pub fn get_law(g: &Generation, a: &Args<'_>) -> Result<Map<String, Value>, ToolError> {
    let book = a.str_req("book", 200)?;
    let include = a.closed_list::<LawPart>("include")?.unwrap_or_else(|| vec![LawPart::Meta, LawPart::Toc]);
    let offset = a.int("offset", 0, 0, i64::MAX)?;
    let length = a.int("length", 20_000, 1, 100_000)?;
    let toc_offset = a.int("toc_offset", 0, 0, i64::MAX)?;
    let toc_limit = a.int("toc_limit", 500, 1, 5_000)?;
    let law = resolve_book(g, &book)?;
    let mut out = Map::new();
    out.insert("law".into(), law.summary());
    out.insert("included".into(), json!(include));
    if include.contains(&LawPart::Meta) {
        out.insert(
            "meta".into(),
            json!({
                "code": law.code,
                "slug": law.slug,
                "title": law.title,
                "short_title": law.short_title,
                "jurabk": law.jurabk,
                "amtabk": law.amtabk,
                "doknr": law.doknr,
                "builddate": law.builddate,
                "ausfertigung_datum": law.ausfertigung_datum,
                "fundstelle": law.fundstelle,
                "stand": law.stand,
                "notes": law.notes,
                "section_count": law.section_count,
                "text_length": law.text_length,
                "norm_account": law.norm_account.to_json(),
                "source_url": law.source_url(),
                "xml_url": format!("{GII}/{}/xml.zip", law.slug),
            }),
        );
    }
    if include.contains(&LawPart::Toc) {
        let rows: Vec<Value> = g.store.with(|c| {
            let mut st = c.prepare_cached(
                "SELECT toc_key, label, heading, kind, breadcrumb FROM sections WHERE law_id = ?1 ORDER BY ordinal LIMIT ?2 OFFSET ?3",
            )?;
            let rows = st.query_map(params![law.id, toc_limit, toc_offset], |r| {
                let crumbs: Vec<String> = serde_json::from_str(&r.get::<_, String>(4)?).unwrap_or_default();
                Ok(json!({
                    "section": r.get::<_, String>(0)?,
                    "label": r.get::<_, Option<String>>(1)?,
                    "heading": r.get::<_, Option<String>>(2)?,
                    "kind": r.get::<_, String>(3)?,
                    "group": crumbs.last(),
                }))
            })?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })?;
        let total = law.section_count;
        let end = toc_offset + rows.len() as i64;
        out.insert(
            "toc".into(),
            json!({
                "entries": rows,
                "offset": toc_offset,
                "total": total,
                "has_more": end < total,
                "next_offset": if end < total { json!(end) } else { Value::Null },
                "note": "Pass an entry's `section` to get_law_section.",
            }),
        );
    }
    if include.contains(&LawPart::Text) {
        let text: String = g.store.with(|c| {
            Ok(c.query_row("SELECT text FROM law_texts WHERE law_id = ?1", params![law.id], |r| r.get(0))?)
        })?;
        out.insert("text".into(), snippet(&text, law.text_length as usize, offset, length)?);
    }
    Ok(out)
}

/// `list_law_books(prefix?, search?, limit?, offset?)`.
pub fn list_law_books(g: &Generation, a: &Args<'_>) -> Result<Map<String, Value>, ToolError> {
    let prefix = a.str_opt("prefix", 100)?.filter(|s| !s.trim().is_empty());
    let search = a.str_opt("search", 200)?.filter(|s| !s.trim().is_empty());
    let limit = a.int("limit", 50, 1, 500)?;
    let offset = a.int("offset", 0, 0, i64::MAX)?;
    let mut filters = Map::new();
    let mut clauses = Vec::new();
    let mut params_v: Vec<String> = Vec::new();
    if let Some(p) = &prefix {
        let n = normalise_book_code(p).replace(['%', '_'], "");
        params_v.push(format!("{n}%"));
        clauses.push(format!(
            "id IN (SELECT law_id FROM book_codes WHERE tier <= 3 AND code_norm LIKE ?{})",
            params_v.len()
        ));
        filters.insert("prefix".into(), json!(p));
    }
    if let Some(s) = &search {
        let n = s.to_lowercase().replace(['%', '_'], "");
        params_v.push(format!("%{n}%"));
        let i = params_v.len();
        clauses.push(format!(
            "(lower(title) LIKE ?{i} OR lower(code) LIKE ?{i} OR lower(ifnull(short_title, '')) LIKE ?{i})"
        ));
        filters.insert("search".into(), json!(s));
    }
    let where_sql = if clauses.is_empty() { String::new() } else { format!("WHERE {}", clauses.join(" AND ")) };
    let (total, rows): (i64, Vec<Value>) = g.store.with(|c| {
        let total: i64 = c.query_row(
            &format!("SELECT COUNT(*) FROM laws {where_sql}"),
            rusqlite::params_from_iter(params_v.iter()),
            |r| r.get(0),
        )?;
        let mut p = params_v.clone();
        p.push(limit.to_string());
        p.push(offset.to_string());
        let n = p.len();
        let mut st = c.prepare(&format!(
            "SELECT {LAW_COLS} FROM laws {where_sql} ORDER BY lower(code), id LIMIT CAST(?{} AS INTEGER) OFFSET CAST(?{} AS INTEGER)",
            n - 1,
            n
        ))?;
        let rows = st.query_map(rusqlite::params_from_iter(p.iter()), law_from_row)?;
        let laws: Vec<Law> = rows.collect::<Result<Vec<_>, _>>()?;
        Ok((
            total,
            laws.iter()
                .map(|l| {
                    json!({
                        "code": l.code,
                        "slug": l.slug,
                        "title": l.title,
                        "jurabk": l.jurabk,
                        "amtabk": l.amtabk,
                        "section_count": l.section_count,
                        "builddate": l.builddate,
                    })
                })
                .collect(),
        ))
    })?;
    let end = offset + rows.len() as i64;
    let mut out = Map::new();
    if !filters.is_empty() {
        out.insert("filters_applied".into(), Value::Object(filters));
    }
    out.insert("total_matching_laws".into(), json!(total));
    out.insert("offset".into(), json!(offset));
    out.insert("limit".into(), json!(limit));
    out.insert("has_more".into(), json!(end < total));
    out.insert("next_offset".into(), if end < total { json!(end) } else { Value::Null });
    out.insert("laws".into(), Value::Array(rows));
    Ok(out)
}

/// Splits `§ 823 Abs. 1 BGB` / `Art. 20 GG` / `BGB § 823` into (section designation, book), if it is one.
pub fn parse_section_citation(q: &str) -> Option<(String, String)> {
    let q = q.trim().replace('\u{a0}', " ");
    let tokens: Vec<&str> = q.split_whitespace().collect();
    let is_marker = |t: &str| matches!(t.to_lowercase().as_str(), "§" | "art." | "art" | "artikel");
    let is_number = |t: &str| {
        let digits = t.chars().take_while(|c| c.is_ascii_digit()).count();
        digits > 0 && t[digits..].chars().all(|c| c.is_ascii_lowercase()) && t.len() - digits <= 1
    };
    // Drop Absatz/Satz/Nr. qualifiers: `Abs. 1`, `S. 2`, `Nr. 3`.
    let strip_qualifiers = |ts: &[&str]| -> Vec<String> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < ts.len() {
            let t = ts[i].to_lowercase();
            if matches!(t.as_str(), "abs." | "abs" | "s." | "satz" | "nr." | "nr" | "lit." | "buchst.")
                && i + 1 < ts.len()
            {
                i += 2;
                continue;
            }
            out.push(ts[i].to_string());
            i += 1;
        }
        out
    };
    let (marker_num, rest): (String, Vec<String>) = if let Some(first) = tokens.first() {
        if let Some(n) = first.strip_prefix('§').filter(|n| is_number(n)) {
            (n.to_string(), strip_qualifiers(&tokens[1..]))
        } else if is_marker(first) && tokens.len() >= 3 && is_number(tokens[1]) {
            // `Art. 229 § 5 EGBGB`: a § inside an article is one designation.
            let is_article = first.to_lowercase().starts_with("art");
            match (tokens.get(2), tokens.get(3)) {
                (Some(&"§"), Some(n)) if is_article && is_number(n) && tokens.len() >= 5 => {
                    (format!("{} {} § {n}", tokens[0], tokens[1]), strip_qualifiers(&tokens[4..]))
                }
                (Some(t), _) if is_article && t.strip_prefix('§').is_some_and(is_number) && tokens.len() >= 4 => {
                    (format!("{} {} {t}", tokens[0], tokens[1]), strip_qualifiers(&tokens[3..]))
                }
                _ => (format!("{} {}", tokens[0], tokens[1]), strip_qualifiers(&tokens[2..])),
            }
        } else if tokens.len() >= 3 && is_marker(tokens[1]) && is_number(tokens[2]) {
            // Law-first: `BGB § 823`.
            let book = tokens[0].to_string();
            let rest = strip_qualifiers(&tokens[3..]);
            return rest.is_empty().then(|| (format!("{} {}", tokens[1], tokens[2]), book));
        } else {
            return None;
        }
    } else {
        return None;
    };
    (!rest.is_empty()).then(|| (marker_num, rest.join(" ")))
}

/// The distinct index terms of a query, by the same German analyzer the index used.
pub fn query_words(query: &str) -> Vec<String> {
    let mut analyzer = index::analysis::german_analyzer();
    let mut words: Vec<String> = Vec::new();
    let mut ts = analyzer.token_stream(query);
    while ts.advance() {
        let t = ts.token().text.clone();
        if !words.contains(&t) {
            words.push(t);
        }
    }
    words
}

/// Every word (`Occur::Must`) or any word (`Occur::Should`) in any of `fields` (each with its
/// boost), plus the filter clauses: the query shape of both searches (laws and decisions).
pub fn words_query(
    words: &[String],
    fields: &[(tantivy::schema::Field, f32)],
    occur: Occur,
    filters: Vec<(Occur, Box<dyn Query>)>,
) -> BooleanQuery {
    let word_query = |w: &str| -> Box<dyn Query> {
        let clauses: Vec<(Occur, Box<dyn Query>)> = fields
            .iter()
            .map(|(field, boost)| {
                let tq = TermQuery::new(Term::from_field_text(*field, w), IndexRecordOption::WithFreqs);
                (Occur::Should, Box::new(BoostQuery::new(Box::new(tq), *boost)) as Box<dyn Query>)
            })
            .collect();
        Box::new(BooleanQuery::new(clauses))
    };
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = words.iter().map(|w| (occur, word_query(w))).collect();
    clauses.extend(filters);
    BooleanQuery::new(clauses)
}

/// `search_laws(query, book?, limit?)`: full-text search over law sections only.
pub fn search_laws(g: &Generation, a: &Args<'_>) -> Result<Map<String, Value>, ToolError> {
    let query = a.str_req("query", 500)?;
    let book = a.str_opt("book", 200)?.filter(|s| !s.trim().is_empty());
    let limit = a.int("limit", 10, 1, 50)? as usize;
    let law_filter = match &book {
        Some(b) => Some(resolve_book(g, b)?),
        None => None,
    };
    let mut out = Map::new();
    if let Some(l) = &law_filter {
        out.insert("filters_applied".into(), json!({"book": l.code}));
    }
    // A query that is a § citation throughout is answered exactly first.
    let mut exact: Option<(Law, Section)> = None;
    if let Some((designation, book)) = parse_section_citation(&query)
        && let Ok(law) = resolve_book(g, &book)
        && law_filter.as_ref().is_none_or(|f| f.id == law.id)
        && let Ok(s) = find_section(g, &law, &designation)
    {
        exact = Some((law, s));
    }
    let f = g.law_fields;
    let words = query_words(&query);
    if words.is_empty() && exact.is_none() {
        return Err(ToolError::invalid(
            "the query has no searchable words",
            "Send words or a citation, e.g. \"Notwehr\" or \"§ 823 BGB\".",
        ));
    }
    let fields = [(f.heading, 3.0f32), (f.label, 2.0), (f.text, 1.0), (f.breadcrumb, 0.5), (f.law_title, 0.5)];
    let build = |occur: Occur| -> BooleanQuery {
        let filter: Vec<(Occur, Box<dyn Query>)> = law_filter
            .iter()
            .map(|l| {
                let t = TermQuery::new(Term::from_field_u64(f.law_id, l.id as u64), IndexRecordOption::Basic);
                (Occur::Must, Box::new(t) as Box<dyn Query>)
            })
            .collect();
        words_query(&words, &fields, occur, filter)
    };
    let searcher = g.laws_reader.searcher();
    let mut match_mode = MatchMode::AllTerms;
    let mut rows = Vec::new();
    let mut total = 0usize;
    if !words.is_empty() {
        let mut q = build(Occur::Must);
        let (mut top, mut count) = searcher.search(&q, &(TopDocs::with_limit(limit + 1).order_by_score(), Count))?;
        if count == 0 && words.len() > 1 {
            q = build(Occur::Should);
            (top, count) = searcher.search(&q, &(TopDocs::with_limit(limit + 1).order_by_score(), Count))?;
            match_mode = MatchMode::AnyTerm;
        }
        total = count;
        let mut highlighter = crate::query::snippets::Highlighter::new(&words);
        for (score, addr) in top {
            // The section id from the fast field: the stored text is read once, from the store.
            let ids = searcher.segment_reader(addr.segment_ord).fast_fields().u64("section_id")?;
            let sid = ids.first(addr.doc_id).unwrap_or(0) as i64;
            if exact.as_ref().is_some_and(|(_, s)| s.id == sid) {
                continue;
            }
            let s = section_by_id(g, sid)?;
            let law = law_by_id(g, s.law_id)?;
            let frag = highlighter.fragment(&s.text, 240);
            let (text, highlights) = (frag.text, frag.highlights);
            rows.push(result_row(&law, &s, Some(score), "text_match", text, highlights));
        }
    }
    if let Some((law, s)) = &exact {
        let text = slice_chars(&s.text, 0, 240);
        rows.insert(0, result_row(law, s, None, "exact_citation", text, Vec::new()));
    }
    let has_more = rows.len() > limit;
    rows.truncate(limit);
    out.insert("query".into(), json!(query));
    out.insert(
        "mode".into(),
        json!(if exact.is_some() { SearchMode::ExactCitationThenKeyword } else { SearchMode::Keyword }),
    );
    out.insert("match_mode".into(), json!(match_mode));
    out.insert("total_matching_sections".into(), json!(total));
    out.insert(
        "total_basis".into(),
        json!(if match_mode == MatchMode::AllTerms {
            "law_sections_containing_every_query_word"
        } else {
            "law_sections_containing_any_query_word"
        }),
    );
    out.insert("limit".into(), json!(limit));
    out.insert("has_more".into(), json!(has_more || total > rows.len()));
    out.insert("results".into(), Value::Array(rows));
    out.insert("scope".into(), json!("federal statutes only (gesetze-im-internet.de); never decisions"));
    Ok(out)
}

fn result_row(
    law: &Law,
    s: &Section,
    score: Option<f32>,
    matched: &str,
    text: String,
    highlights: Vec<[usize; 2]>,
) -> Value {
    json!({
        "law": law.summary(),
        "section": s.toc_key,
        "label": s.label,
        "heading": s.heading,
        "breadcrumb": s.breadcrumb,
        "kind": s.kind,
        "matched_by": matched,
        "score": score,
        "snippet": {"text": text, "highlights": highlights},
        "html_url": section_url(&law.slug, s.label.as_deref()),
    })
}

/// `get_platform_info()`: what this server holds and from which generation.
pub fn platform_info(g: &Generation, _a: &Args<'_>) -> Result<Map<String, Value>, ToolError> {
    let m = &g.manifest;
    let (laws, sections, with_text): (i64, i64, i64) = g.store.with(|c| {
        Ok(c.query_row(
            "SELECT (SELECT COUNT(*) FROM laws), (SELECT COUNT(*) FROM sections), (SELECT COUNT(*) FROM sections WHERE text_length > 0)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?)
    })?;
    let norm_account = g.store.with(|c| {
        let mut st = c.prepare_cached(
            "SELECT section_count, norms, norms_header, norms_headings, norms_dropped, norms_text_bearing FROM laws",
        )?;
        let mut total = NormAccount::default();
        let mut laws_text_without_rows = 0i64;
        let rows = st.query_map([], |r| Ok(NormAccount { section_rows: r.get(0)?, ..norm_account_from_row(r, 1)? }))?;
        for a in rows {
            let a = a?;
            if a.section_rows == 0 && a.text_bearing > 0 {
                laws_text_without_rows += 1;
            }
            total.add(&a);
        }
        Ok((total, laws_text_without_rows))
    })?;
    let mut norm_totals = norm_account.0.to_json();
    norm_totals["laws_with_text_but_no_rows"] = json!(norm_account.1);
    let builddates: (Option<String>, Option<String>) = g.store.with(|c| {
        Ok(c.query_row("SELECT MIN(builddate), MAX(builddate) FROM laws", [], |r| Ok((r.get(0)?, r.get(1)?)))?)
    })?;
    let mut out = Map::new();
    out.insert("name".into(), json!("legal-data MCP/REST server"));
    out.insert(
        "statutes".into(),
        json!({
            "source": "gesetze-im-internet.de (federal statutes and ordinances)",
            "laws": laws,
            "sections": sections,
            "sections_with_text": with_text,
            "norm_account": norm_totals,
            "builddate_range": {"earliest": builddates.0, "latest": builddates.1},
            "toc_snapshot": m.sources.get("gii"),
            "scope_note": "Federal law only; Land law is not held.",
        }),
    );
    out.insert("decisions".into(), crate::tools::decisions::holdings(g)?);
    out.insert(
        "build".into(),
        json!({
            "generation_id": m.id,
            "built_at": m.built_at,
            "git_commit": m.git_commit,
            "schema_version": m.schema_version,
            "counts": m.counts,
        }),
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn citation_queries_split_into_section_and_book() {
        let p = |q: &str| parse_section_citation(q);
        assert_eq!(p("§ 823 BGB"), Some(("§ 823".into(), "BGB".into())));
        assert_eq!(p("§823 BGB"), Some(("823".into(), "BGB".into())));
        assert_eq!(p("§ 823 Abs. 1 BGB"), Some(("§ 823".into(), "BGB".into())));
        assert_eq!(p("Art. 20 GG"), Some(("Art. 20".into(), "GG".into())));
        assert_eq!(p("BGB § 823"), Some(("§ 823".into(), "BGB".into())));
        assert_eq!(p("SGB V § 5"), None, "a two-token book before § is not parsed as law-first");
        assert_eq!(p("Notwehr"), None);
        assert_eq!(p("§ 823"), None);
        assert_eq!(p("Art. 229 § 5 EGBGB"), Some(("Art. 229 § 5".into(), "EGBGB".into())));
        assert_eq!(p("Art. 229 §5 Abs. 1 EGBGB"), Some(("Art. 229 §5".into(), "EGBGB".into())));
        assert_eq!(p("Art. 97 § 1 EGAO"), Some(("Art. 97 § 1".into(), "EGAO".into())));
    }

    #[test]
    fn char_slices_and_snippets_count_code_points() {
        let t = "Äß€😀x";
        assert_eq!(slice_chars(t, 1, 2), "ß€");
        assert_eq!(slice_chars(t, 3, 0), "😀x");
        assert_eq!(slice_chars(t, 9, 1), "");
        let s = snippet(t, 5, 3, 10).unwrap();
        assert_eq!(s["text"], "😀x");
        assert_eq!(s["has_more"], false);
        assert_eq!(s["next_offset"], Value::Null);
        let s = snippet(t, 5, 0, 2).unwrap();
        assert_eq!(s["next_offset"], 2);
        assert!(snippet(t, 5, 6, 1).is_err());
    }

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
