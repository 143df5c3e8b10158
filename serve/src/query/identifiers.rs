//! Identifiers a caller sends: book names, section designations and § citations (`§ 823 BGB`), Aktenzeichen, ECLIs and norm tokens, resolved to the rows they name or refused with a hint.

use crate::contract::answer::{ErrorCode, ToolError};
use crate::query::filters::Filters;
use crate::store::decisions::{Decision, decisions_by_ecli, decisions_by_file_number, decisions_where};
use crate::store::laws::{Law, SECTION_COLS, Section, law_by_id, section_from_row};
use extract::law::{SectionKind, section_key, section_kind};
use index::Generation;
use index::store::{ecli_norm, file_number_norm};
use resolve::book_codes::normalise_book_code;
use rusqlite::params;
use serde_json::{Value, json};
use std::collections::BTreeSet;

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
            let candidates: Vec<crate::contract::answers::LawSummary> =
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

pub(crate) fn suggest_codes(g: &Generation, norm: &str) -> Result<Vec<Value>, ToolError> {
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

/// Finds the section `designation` of `law`: exact key (`823` never matches `1823`), toc key or doknr.
pub fn find_section(g: &Generation, law: &Law, designation: &str) -> Result<Section, ToolError> {
    let key = section_key(designation);
    let raw = designation.trim();
    // A section's toc key is its key where that is unique in the law, else its doknr
    // (`index::law_writer`), so `toc_key = ?3` is `key = ?3 OR doknr = ?3`; spelt so, each
    // branch reads one index. (`law_id = ? AND (… OR toc_key = ?)` read every section of the
    // law: 2,541 rows of the BGB, 1.5 ms a call.)
    let found: Vec<Section> = g.store.with(|c| {
        let mut st = c.prepare_cached(&format!(
            "SELECT {SECTION_COLS} FROM sections WHERE id IN (
                 SELECT id FROM sections WHERE law_id = ?1 AND key IN (?2, ?3)
                 UNION SELECT id FROM sections WHERE doknr = ?3 AND law_id = ?1)
             ORDER BY ordinal"
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

/// A section designation that names a part of the section (`§ 32 Abs. 2`, `32 Abs. 2 Satz 1`,
/// `Art. 20 Abs. 4`, `§ 573 Abs. 2 Nr. 2`, `§ 2 Nr. 3`), read by the citation grammar: the
/// section alone (`§ 32`), the Absatz and the Nummer it names, and what it names below them,
/// which is not located (`Satz 1`, `lit. a`).
pub struct SubdivisionDesignation {
    pub section: String,
    pub absatz: Option<String>,
    pub nummer: Option<String>,
    pub finer: Option<String>,
}

impl SubdivisionDesignation {
    pub fn parse(designation: &str) -> Option<SubdivisionDesignation> {
        let d = designation.trim();
        // A bare number is a § (`32 Abs. 2`); the grammar needs its marker to read it.
        let marked = if d.starts_with(|c: char| c.is_ascii_digit()) { format!("§ {d}") } else { d.to_string() };
        let ex = extract::citations::extract(&marked, extract::citations::LawVocabulary::shipped());
        let [l] = ex.laws.as_slice() else { return None };
        if l.absatz.is_none() && l.nr.is_none() {
            return None;
        }
        let unit = match l.unit {
            extract::citations::LawUnit::Paragraph => "§",
            extract::citations::LawUnit::Article => "Art.",
        };
        let finer: Vec<String> = [("Satz", &l.satz), ("lit.", &l.lit), ("Alt.", &l.alt), ("Halbsatz", &l.halbsatz)]
            .into_iter()
            .filter_map(|(name, v)| v.as_ref().map(|v| format!("{name} {v}")))
            .collect();
        Some(SubdivisionDesignation {
            section: format!("{unit} {}", l.section),
            absatz: l.absatz.clone(),
            nummer: l.nr.clone(),
            finer: (!finer.is_empty()).then(|| finer.join(" ")),
        })
    }
}

/// The Nummern of `text[start..end)` (code points): each line that starts with a number and a
/// dot (`1. der Mieter …`), up to the next such line or the span's end, as (number, start, end).
pub fn nummern(text: &str, start: usize, end: usize) -> Vec<(String, usize, usize)> {
    let mut found: Vec<(String, usize)> = Vec::new();
    let mut line_start = 0usize;
    for line in text.split('\n') {
        let len = line.chars().count();
        if line_start >= start && line_start < end {
            let digits: String = line.chars().take_while(|c| c.is_ascii_digit() || c.is_ascii_lowercase()).collect();
            let rest: String = line.chars().skip(digits.chars().count()).take(2).collect();
            if digits.starts_with(|c: char| c.is_ascii_digit()) && rest.starts_with('.') && rest != ".." {
                found.push((digits, line_start));
            }
        }
        line_start += len + 1;
    }
    let mut out = Vec::new();
    for (i, (number, at)) in found.iter().enumerate() {
        let next = found.get(i + 1).map(|(_, n)| n.saturating_sub(1)).unwrap_or(end);
        out.push((number.clone(), *at, next.min(end)));
    }
    out
}

/// The canonical token of a norm as a user spells it (`§823 BGB`, `BGB § 823`, `Art. 20 GG`,
/// `§ 26 AsylVfG` → `§ 26 AsylG`), by the same scanner that read the decisions.
pub fn canonical_norm(given: &str) -> Result<String, ToolError> {
    let ex = extract::citations::extract(given, extract::citations::LawVocabulary::shipped());
    match ex.laws.iter().find(|l| l.book.is_some()) {
        Some(l) => Ok(l.canonical.clone()),
        None => Err(ToolError::invalid(
            format!("{given:?} is not a citation of a § or Artikel of a named law"),
            "Send e.g. \"§ 823 BGB\", \"§ 823 Abs. 1 BGB\" or \"Art. 20 GG\".",
        )),
    }
}

/// True when the whole query is one Aktenzeichen (`VIII ZR 231/07`, `7 C 2.11`,
/// `B 1 KR 2/20 R`, `2 BvQ 53/18`, `I-5 U 12/19`).
pub fn looks_like_file_number(q: &str) -> bool {
    let toks: Vec<&str> = q.split_whitespace().collect();
    if toks.len() < 2 || toks.len() > 6 || q.len() > 40 {
        return false;
    }
    let is_num_year = |t: &str| {
        let t = t.trim_end_matches(['.', ',']);
        let parts: Vec<&str> = t.split(['/', '.']).collect();
        parts.len() == 2
            && !parts[0].is_empty()
            && parts[0].bytes().all(|b| b.is_ascii_digit())
            && (2..=4).contains(&parts[1].len())
            && parts[1].bytes().all(|b| b.is_ascii_digit())
    };
    let has_register = toks.iter().any(|t| t.chars().next().is_some_and(char::is_alphabetic));
    toks.iter().any(|t| is_num_year(t))
        && has_register
        && toks.iter().all(|t| t.chars().all(|c| c.is_alphanumeric() || "-/.()".contains(c)))
}

pub fn looks_like_ecli(q: &str) -> bool {
    let q = q.trim();
    // `get(..5)` is None when byte 5 is inside a multi-byte character: no panic from input.
    q.len() > 10 && q.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("ECLI:")) && !q.contains(char::is_whitespace)
}

/// Resolves an id, ECLI or Aktenzeichen (narrowed by court/date) to one decision.
pub fn resolve_decision(
    g: &Generation,
    id: &str,
    court: Option<&str>,
    date: Option<&str>,
) -> Result<Decision, ToolError> {
    let id = id.trim();
    if let Some(d) = decisions_where(g, "d.ext_id = ?1", &[&id])?.pop() {
        return Ok(d);
    }
    if looks_like_ecli(id) {
        return decisions_by_ecli(g, &ecli_norm(id))?.pop().ok_or_else(|| not_found(id));
    }
    let mut found = decisions_by_file_number(g, &file_number_norm(id))?;
    let filters = Filters {
        court: court.map(str::to_string),
        date_from: date.map(str::to_string),
        date_to: date.map(str::to_string),
        ..Default::default()
    };
    filters.retain(g, &mut found)?;
    match found.len() {
        0 => Err(not_found(id)),
        1 => Ok(found.pop().expect("one")),
        _ => Err(ToolError::new(
            ErrorCode::DecisionAmbiguous,
            format!("{} decisions are held under {id:?}", found.len()),
            "Pass court and/or date (YYYY-MM-DD) to pick one, or use a candidate's id.",
        )
        .with("candidates", found.iter().map(Decision::summary).collect::<Vec<_>>())),
    }
}

pub(crate) fn not_found(id: &str) -> ToolError {
    ToolError::new(
        ErrorCode::DecisionNotFound,
        format!("no decision is held under {id:?}"),
        "Pass an id from search_decisions, an Aktenzeichen as the court writes it (\"7 C 2.11\", \"VIII ZR 231/07\") or an ECLI; search_decisions finds decisions by words.",
    )
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
    fn identifiers_are_told_from_words() {
        for q in
            ["VIII ZR 231/07", "7 C 2.11", "B 1 KR 2/20 R", "2 BvQ 53/18", "I-5 U 12/19", "20 F 1.10", "M 9 K 14.488"]
        {
            assert!(looks_like_file_number(q), "{q}");
        }
        for q in ["Betriebs- und Geschäftsgeheimnis", "§ 823 BGB", "Art. 20 GG", "Urteil 2019", "Nr 1/2"] {
            assert!(!looks_like_file_number(q), "{q}");
        }
        assert!(looks_like_ecli("ECLI:DE:BVerfG:2018:qs20180822.2bvq005318"));
        assert!(!looks_like_ecli("ECLI"));
    }

    #[test]
    fn identifier_tests_do_not_panic_on_multi_byte_input() {
        for q in ["ääääää", "ääääääääääää", "ECLIä:DE:BGH:2020:1", "€€€€€€€€€€€", "ECL\u{301}I:DE:BGH:2020"]
        {
            assert!(!looks_like_ecli(q), "{q}");
            let _ = looks_like_file_number(q);
        }
    }
}
