//! Statute tools: `search_laws`, `get_law_section`, `get_law`, `list_law_books`.
//! One function per capability; MCP and REST both call these.

use crate::contract::answer::{ErrorCode, ToolError};
use crate::contract::args::{GetLawArgs, GetLawSectionArgs, ListLawBooksArgs, NoArgs, SearchLawsArgs};
use crate::query::identifiers::{AbsatzDesignation, find_section, resolve_book};
use crate::query::text::{snippet, span_text};
use crate::store::laws::{GII, LAW_COLS, Law, NormAccount, Section, law_from_row, norm_account_from_row, section_url};
use index::Generation;
use model::LawPart;
use resolve::book_codes::normalise_book_code;
use rusqlite::params;
use serde_json::{Map, Value, json};

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
pub fn get_law_section(g: &Generation, a: GetLawSectionArgs) -> Result<Map<String, Value>, ToolError> {
    let GetLawSectionArgs { book, section: designation, offset, length } = a;
    let law = resolve_book(g, &book)?;
    // A designation the law does not hold as such may name an Absatz of a section it holds.
    let (s, absatz) = match find_section(g, &law, &designation) {
        Ok(s) => (s, None),
        Err(e) if e.code == ErrorCode::SectionNotFound => match AbsatzDesignation::parse(&designation) {
            Some(part) => (find_section(g, &law, &part.section)?, Some(part)),
            None => return Err(e),
        },
        Err(e) => return Err(e),
    };
    let mut out = Map::new();
    out.insert("law".into(), law.summary());
    out.insert("section".into(), section_json(&law, &s));
    if let Some(part) = absatz {
        out.insert("absatz".into(), absatz_json(&law, &s, &part)?);
    }
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

/// The Absatz `part` names in section `s`: its number, its code-point offsets into the
/// section's text (`start` inclusive, `end` exclusive, as `absaetze` records them) and its text;
/// what the designation names below the Absatz is said, not located.
fn absatz_json(law: &Law, s: &Section, part: &AbsatzDesignation) -> Result<Value, ToolError> {
    let present: Vec<&str> = s.absaetze.as_array().into_iter().flatten().filter_map(|a| a["number"].as_str()).collect();
    let Some(a) =
        s.absaetze.as_array().into_iter().flatten().find(|a| a["number"].as_str() == Some(part.absatz.as_str()))
    else {
        let label = s.label.clone().unwrap_or_else(|| part.section.clone());
        return Err(ToolError::new(
            ErrorCode::AbsatzNotFound,
            if present.is_empty() {
                format!("{label} {} has no numbered Absätze", law.code)
            } else {
                format!("{label} {} has no Absatz {}", law.code, part.absatz)
            },
            "Send the section without Abs. for its whole text, or one of absaetze_present.",
        )
        .with("absaetze_present", present));
    };
    let (start, end) = (a["start"].as_u64().unwrap_or(0) as usize, a["end"].as_u64().unwrap_or(0) as usize);
    Ok(json!({
        "number": part.absatz,
        "start": start,
        "end": end,
        "text": span_text(&s.text, start, end),
        "finer_part_not_located": part.finer,
    }))
}

/// `get_law(book, include?, offset?, length?, toc_offset?, toc_limit?)`.
pub fn get_law(g: &Generation, a: GetLawArgs) -> Result<Map<String, Value>, ToolError> {
    let GetLawArgs { book, include, offset, length, toc_offset, toc_limit } = a;
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
pub fn list_law_books(g: &Generation, a: ListLawBooksArgs) -> Result<Map<String, Value>, ToolError> {
    let ListLawBooksArgs { prefix, search, limit, offset } = a;
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

/// `get_platform_info()`: what this server holds and from which generation.
pub fn platform_info(g: &Generation, _a: NoArgs) -> Result<Map<String, Value>, ToolError> {
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
    out.insert("decisions".into(), crate::query::facts::holdings(g)?);
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

/// `search_laws(query, book?, limit?)`: full-text search over law sections only.
pub fn search_laws(g: &Generation, a: SearchLawsArgs) -> Result<Map<String, Value>, ToolError> {
    crate::query::law_search::search_laws(g, &a)
}
