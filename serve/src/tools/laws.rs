//! Statute tools: `search_laws`, `get_law_section`, `get_law`, `list_law_books`.
//! One function per capability; MCP and REST both call these.

use crate::contract::answer::{ErrorCode, ToolError};
use crate::contract::answers::{
    BuildReport, DateSpan, GetLawAnswer, GetLawSectionAnswer, LawBookFilters, LawBookRow, LawMeta, ListLawBooksAnswer,
    NormAccountReport, PlatformInfoAnswer, SearchLawsAnswer, SectionMeta, StatuteHoldings, SubdivisionPart, TocEntry,
    TocPage,
};
use crate::contract::args::{GetLawArgs, GetLawSectionArgs, ListLawBooksArgs, NoArgs, SearchLawsArgs};
use crate::query::identifiers::{SubdivisionDesignation, find_section, nummern, resolve_book};
use crate::query::text::{snippet, span_text};
use crate::store::laws::{GII, LAW_COLS, Law, NormAccount, Section, law_from_row, norm_account_from_row, section_url};
use index::Generation;
use model::LawPart;
use resolve::book_codes::normalise_book_code;
use rusqlite::params;

fn section_meta(law: &Law, s: &Section) -> SectionMeta {
    SectionMeta {
        section: s.toc_key.clone(),
        label: s.label.clone(),
        kind: s.kind.clone(),
        heading: s.heading.clone(),
        breadcrumb: s.breadcrumb.clone(),
        doknr: s.doknr.clone(),
        absaetze: s.absaetze.clone(),
        footnotes: s.footnotes.clone(),
        html_url: section_url(&law.slug, s.label.as_deref()),
    }
}

/// `get_law_section(book, section, offset?, length?)`.
pub fn get_law_section(g: &Generation, a: GetLawSectionArgs) -> Result<GetLawSectionAnswer, ToolError> {
    let GetLawSectionArgs { book, section: designation, offset, length } = a;
    let law = resolve_book(g, &book)?;
    // A designation the law does not hold as such may name an Absatz of a section it holds.
    let (s, absatz) = match find_section(g, &law, &designation) {
        Ok(s) => (s, None),
        Err(e) if e.code == ErrorCode::SectionNotFound => match SubdivisionDesignation::parse(&designation) {
            Some(part) => (find_section(g, &law, &part.section)?, Some(part)),
            None => return Err(e),
        },
        Err(e) => return Err(e),
    };
    let (absatz, nummer) = match absatz {
        Some(part) => subdivision_parts(&law, &s, &part)?,
        None => (None, None),
    };
    let total = s.text_length as usize;
    let whole = offset == 0 && length == 0;
    Ok(GetLawSectionAnswer {
        law: law.summary(),
        section: section_meta(&law, &s),
        absatz,
        nummer,
        source_url: law.source_url(),
        snippet: if whole { None } else { Some(snippet(&s.text, total, offset, length)?) },
        total_length: whole.then_some(total),
        content: whole.then_some(s.text),
    })
}

/// The Absatz `part` names in section `s`: its number, its code-point offsets into the
/// section's text (`start` inclusive, `end` exclusive, as `absaetze` records them) and its text;
/// what the designation names below the Absatz is said, not located.
fn subdivision_parts(
    law: &Law,
    s: &Section,
    part: &SubdivisionDesignation,
) -> Result<(Option<SubdivisionPart>, Option<SubdivisionPart>), ToolError> {
    let label = s.label.clone().unwrap_or_else(|| part.section.clone());
    let absatz = match &part.absatz {
        Some(number) => Some(absatz_part(law, s, number, part)?),
        None => None,
    };
    let Some(wanted) = &part.nummer else { return Ok((absatz, None)) };
    // A Nummer is a line `2. …` of its Absatz, or of the whole section when none is named.
    let (start, end) = absatz.as_ref().map(|a| (a.start, a.end)).unwrap_or((0, s.text_length as usize));
    let listed = nummern(&s.text, start, end);
    let Some((number, n_start, n_end)) = listed.iter().find(|(n, ..)| n == wanted) else {
        let within = part.absatz.as_ref().map(|a| format!(" Abs. {a}")).unwrap_or_default();
        return Err(ToolError::new(
            ErrorCode::NummerNotFound,
            if listed.is_empty() {
                format!("{label}{within} {} has no numbered Nummern", law.code)
            } else {
                format!("{label}{within} {} has no Nummer {wanted}", law.code)
            },
            "Send the designation without Nr. for the whole Absatz or section, or one of nummern_present.",
        )
        .with("nummern_present", listed.iter().map(|(n, ..)| n.clone()).collect::<Vec<_>>()));
    };
    let nummer = SubdivisionPart {
        number: number.clone(),
        start: *n_start,
        end: *n_end,
        text: span_text(&s.text, *n_start, *n_end),
        finer_part_not_located: part.finer.clone(),
    };
    Ok((absatz, Some(nummer)))
}

fn absatz_part(
    law: &Law,
    s: &Section,
    number: &str,
    part: &SubdivisionDesignation,
) -> Result<SubdivisionPart, ToolError> {
    let present: Vec<&str> = s.absaetze.iter().map(|a| a.number.as_str()).collect();
    let Some(a) = s.absaetze.iter().find(|a| a.number == number) else {
        let label = s.label.clone().unwrap_or_else(|| part.section.clone());
        return Err(ToolError::new(
            ErrorCode::AbsatzNotFound,
            if present.is_empty() {
                format!("{label} {} has no numbered Absätze", law.code)
            } else {
                format!("{label} {} has no Absatz {number}", law.code)
            },
            "Send the section without Abs. for its whole text, or one of absaetze_present.",
        )
        .with("absaetze_present", present));
    };
    Ok(SubdivisionPart {
        number: number.to_string(),
        start: a.start,
        end: a.end,
        text: span_text(&s.text, a.start, a.end),
        finer_part_not_located: part.finer.clone(),
    })
}

/// `get_law(book, include?, offset?, length?, toc_offset?, toc_limit?)`.
pub fn get_law(g: &Generation, a: GetLawArgs) -> Result<GetLawAnswer, ToolError> {
    let GetLawArgs { book, include, offset, length, toc_offset, toc_limit } = a;
    let law = resolve_book(g, &book)?;
    let meta = include.contains(&LawPart::Meta).then(|| LawMeta {
        law: law.summary(),
        short_title: law.short_title.clone(),
        doknr: law.doknr.clone(),
        builddate: law.builddate.clone(),
        ausfertigung_datum: law.ausfertigung_datum.clone(),
        fundstelle: law.fundstelle.clone(),
        stand: law.stand.clone(),
        notes: law.notes.clone(),
        section_count: law.section_count,
        text_length: law.text_length,
        norm_account: law.norm_account.report(),
        source_url: law.source_url(),
        xml_url: format!("{GII}/{}/xml.zip", law.slug),
    });
    let mut toc = None;
    if include.contains(&LawPart::Toc) {
        let entries: Vec<TocEntry> = g.store.with(|c| {
            let mut st = c.prepare_cached(
                "SELECT toc_key, label, heading, kind, breadcrumb FROM sections WHERE law_id = ?1 ORDER BY ordinal LIMIT ?2 OFFSET ?3",
            )?;
            let rows = st.query_map(params![law.id, toc_limit, toc_offset], |r| {
                let crumbs: Vec<String> = serde_json::from_str(&r.get::<_, String>(4)?).unwrap_or_default();
                Ok(TocEntry {
                    section: r.get(0)?,
                    label: r.get(1)?,
                    heading: r.get(2)?,
                    kind: r.get(3)?,
                    group: crumbs.last().cloned(),
                })
            })?;
            Ok(rows.collect::<Result<Vec<_>, _>>()?)
        })?;
        let total = law.section_count;
        let end = toc_offset + entries.len() as i64;
        toc = Some(TocPage {
            entries,
            offset: toc_offset,
            total,
            has_more: end < total,
            next_offset: (end < total).then_some(end),
            note: "Pass an entry's `section` to get_law_section.",
        });
    }
    let mut text = None;
    if include.contains(&LawPart::Text) {
        let whole: String = g.store.with(|c| {
            Ok(c.query_row("SELECT text FROM law_texts WHERE law_id = ?1", params![law.id], |r| r.get(0))?)
        })?;
        text = Some(snippet(&whole, law.text_length as usize, offset, length)?);
    }
    Ok(GetLawAnswer { law: law.summary(), included: include, meta, toc, text })
}

/// `list_law_books(prefix?, search?, limit?, offset?)`.
pub fn list_law_books(g: &Generation, a: ListLawBooksArgs) -> Result<ListLawBooksAnswer, ToolError> {
    let ListLawBooksArgs { prefix, search, limit, offset } = a;
    let mut clauses = Vec::new();
    let mut params_v: Vec<String> = Vec::new();
    if let Some(p) = &prefix {
        let n = normalise_book_code(p).replace(['%', '_'], "");
        params_v.push(format!("{n}%"));
        clauses.push(format!(
            "id IN (SELECT law_id FROM book_codes WHERE tier <= 3 AND code_norm LIKE ?{})",
            params_v.len()
        ));
    }
    if let Some(s) = &search {
        let n = s.to_lowercase().replace(['%', '_'], "");
        params_v.push(format!("%{n}%"));
        let i = params_v.len();
        clauses.push(format!(
            "(lower(title) LIKE ?{i} OR lower(code) LIKE ?{i} OR lower(ifnull(short_title, '')) LIKE ?{i})"
        ));
    }
    let where_sql = if clauses.is_empty() { String::new() } else { format!("WHERE {}", clauses.join(" AND ")) };
    let (total, laws): (i64, Vec<LawBookRow>) = g.store.with(|c| {
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
                .map(|l| LawBookRow { law: l.summary(), section_count: l.section_count, builddate: l.builddate.clone() })
                .collect(),
        ))
    })?;
    let end = offset + laws.len() as i64;
    let filtered = prefix.is_some() || search.is_some();
    Ok(ListLawBooksAnswer {
        filters_applied: filtered.then_some(LawBookFilters { prefix, search }),
        total_matching_laws: total,
        offset,
        limit,
        has_more: end < total,
        next_offset: (end < total).then_some(end),
        laws,
    })
}

/// `get_platform_info()`: what this server holds and from which generation.
pub fn platform_info(g: &Generation, _a: NoArgs) -> Result<PlatformInfoAnswer, ToolError> {
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
    let (total, laws_text_without_rows) = norm_account;
    let norm_totals = NormAccountReport { laws_with_text_but_no_rows: Some(laws_text_without_rows), ..total.report() };
    let builddates: (Option<String>, Option<String>) = g.store.with(|c| {
        Ok(c.query_row("SELECT MIN(builddate), MAX(builddate) FROM laws", [], |r| Ok((r.get(0)?, r.get(1)?)))?)
    })?;
    Ok(PlatformInfoAnswer {
        name: "legal-data MCP/REST server",
        statutes: StatuteHoldings {
            source: "gesetze-im-internet.de (federal statutes and ordinances)",
            laws,
            sections,
            sections_with_text: with_text,
            norm_account: norm_totals,
            builddate_range: DateSpan { earliest: builddates.0, latest: builddates.1 },
            toc_snapshot: m.sources.get("gii").map(Into::into),
            scope_note: "Federal law only; Land law is not held.",
        },
        decisions: crate::query::facts::holdings(g)?,
        build: BuildReport {
            generation_id: m.id.clone(),
            built_at: m.built_at.clone(),
            git_commit: m.git_commit.clone(),
            schema_version: m.schema_version,
            counts: m.counts.clone(),
        },
    })
}

/// `search_laws(query, book?, limit?)`: full-text search over law sections only.
pub fn search_laws(g: &Generation, a: SearchLawsArgs) -> Result<SearchLawsAnswer, ToolError> {
    crate::query::law_search::search_laws(g, &a)
}
