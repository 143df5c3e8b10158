//! Writes the decisions of `work/extract/decisions/` into a generation: rows in the store
//! (`decisions`, `decision_file_numbers`, `courts` with measured holdings) and passages in
//! the `decisions/` tantivy index.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;
use extract::courts::{Court, CourtTable, fold};
use extract::decision_stage::{self, DecisionRecord};
use rusqlite::{Connection, params};
use tantivy::TantivyDocument;

use crate::decisions_index::{DecisionFields, passages};
use crate::store::file_number_norm;
use resolve::case_law::{self, DecisionCitations};

#[derive(Debug, Default, Clone)]
pub struct DecisionCounts {
    pub decisions: u64,
    pub passages: u64,
    pub courts_held: u64,
    pub records_read: u64,
    pub records_failed: u64,
    pub citations: u64,
    pub edges: u64,
}

/// `YYYY-MM-DD` → `YYYYMMDD` as a number, when it is a date at all.
pub fn date_number(iso: &str) -> Option<i64> {
    let b = iso.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    format!("{}{}{}", &iso[..4], &iso[5..7], &iso[8..10]).parse().ok()
}

/// The keys a court filter matches: folded canonical name, type, citation name, ECLI code.
pub fn court_keys(c: &Court) -> Vec<String> {
    let mut keys: Vec<String> = [Some(&c.name), c.citation_name.as_ref(), c.ecli_code.as_ref()]
        .into_iter()
        .flatten()
        .map(|s| fold(s))
        .collect();
    // A federal or European court's type names it uniquely (`BVerwG`).
    if matches!(c.level, Some(0) | Some(1))
        && let Some(t) = &c.court_type
    {
        keys.push(fold(t));
    }
    keys.sort();
    keys.dedup();
    keys
}

/// Per held court: the court, its decision count, earliest and latest date.
type Holdings = BTreeMap<String, (Court, u64, Option<String>, Option<String>)>;

pub fn write(
    data_dir: &Path,
    conn: &Connection,
    writer: &mut tantivy::IndexWriter<TantivyDocument>,
    f: &DecisionFields,
) -> Result<DecisionCounts> {
    let mut counts = DecisionCounts::default();
    let Some(manifest) = decision_stage::read_manifest(data_dir)? else {
        write_courts(conn, &BTreeMap::new())?;
        return Ok(counts);
    };
    counts.records_read = manifest.records_read as u64;
    counts.records_failed = manifest.failed.len() as u64;
    let mut held: Holdings = BTreeMap::new();
    let mut ins_dec = conn.prepare(
        "INSERT INTO decisions (id, ext_id, court_id, court_name_raw, chamber, date, date_raw, date_confidence, ecli,
            ecli_date_agrees, document_type, document_type_raw, title, file_numbers, norms_raw, source_format, flags,
            notes, sources, text, text_length, sections, randnummern)
         VALUES (?1, ?2, NULL, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)",
    )?;
    let mut ins_fn =
        conn.prepare("INSERT INTO decision_file_numbers (fn_norm, file_number, decision_id) VALUES (?1, ?2, ?3)")?;
    let mut court_of: Vec<(i64, String)> = Vec::new();
    // Citations of the same run, one per decision in the same order (resolve writes them so).
    let citations: Vec<DecisionCitations> = match case_law::read_citations(data_dir) {
        Ok(it) => it.collect::<Result<_>>()?,
        Err(_) => Vec::new(),
    };
    let ext_to_id: BTreeMap<String, i64> =
        citations.iter().enumerate().map(|(i, c)| (c.id.clone(), i as i64 + 1)).collect();
    for (i, rec) in decision_stage::read_records(data_dir)?.enumerate() {
        let rec: DecisionRecord = rec?;
        let id = i as i64 + 1;
        let cites = citations.get(i).filter(|c| c.id == rec.id);
        let m = &rec.doc.meta;
        let text_chars = rec.doc.text.chars().count();
        ins_dec.execute(params![
            id,
            rec.id,
            m.court_name_raw,
            m.chamber,
            m.date,
            m.date_raw,
            m.date_confidence,
            m.ecli,
            m.ecli_date_agrees,
            m.document_type,
            m.document_type_raw,
            m.title,
            serde_json::to_string(&m.file_numbers)?,
            m.norms_raw,
            m.source_format,
            serde_json::to_string(&rec.doc.flags)?,
            serde_json::to_string(&m.notes)?,
            serde_json::to_string(&rec.sources)?,
            rec.doc.text,
            text_chars as i64,
            serde_json::to_string(&rec.doc.sections)?,
            serde_json::to_string(&rec.doc.randnummern)?,
        ])?;
        for fnum in &m.file_numbers {
            ins_fn.execute(params![file_number_norm(fnum), fnum, id])?;
        }
        if let Some(c) = &rec.court {
            let e = held.entry(c.name.clone()).or_insert_with(|| (c.clone(), 0, None, None));
            e.1 += 1;
            if let Some(d) = &m.date {
                if e.2.as_ref().is_none_or(|x| d < x) {
                    e.2 = Some(d.clone());
                }
                if e.3.as_ref().is_none_or(|x| d > x) {
                    e.3 = Some(d.clone());
                }
            }
            court_of.push((id, c.name.clone()));
        }
        if let Some(c) = cites {
            write_citations(conn, id, c, &ext_to_id)?;
            counts.citations += (c.laws.len() + c.cases.len()) as u64;
        }
        counts.passages += index_passages(writer, f, id as u64, &rec, cites)?;
        counts.decisions += 1;
    }
    drop(ins_dec);
    drop(ins_fn);
    let ids = write_courts(conn, &held)?;
    let mut upd = conn.prepare("UPDATE decisions SET court_id = ?1 WHERE id = ?2")?;
    for (dec, name) in court_of {
        upd.execute(params![ids.get(&name), dec])?;
    }
    counts.courts_held = held.len() as u64;
    counts.edges = write_edges(conn)?;
    Ok(counts)
}

/// Every court of the reference table plus every court held that is not in it; holdings
/// (count, earliest, latest) are measured from the decisions written.
fn write_courts(conn: &Connection, held: &Holdings) -> Result<BTreeMap<String, i64>> {
    let mut all: BTreeMap<String, Court> = BTreeMap::new();
    for c in CourtTable::shipped().rows() {
        all.entry(c.name.clone()).or_insert_with(|| c.clone());
    }
    for (name, (c, ..)) in held {
        all.entry(name.clone()).or_insert_with(|| c.clone());
    }
    let mut ins = conn.prepare(
        "INSERT INTO courts (id, name, court_type, branch, level, land, city, ecli_code, citation_name,
            in_reference_table, decision_count, earliest, latest)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    )?;
    let mut ids = BTreeMap::new();
    for (i, (name, c)) in all.iter().enumerate() {
        let id = i as i64 + 1;
        let (n, earliest, latest) = held.get(name).map(|h| (h.1, h.2.clone(), h.3.clone())).unwrap_or((0, None, None));
        ins.execute(params![
            id,
            c.name,
            c.court_type,
            c.branch,
            c.level,
            c.land,
            c.city,
            c.ecli_code,
            c.citation_name,
            c.in_reference_table,
            n as i64,
            earliest,
            latest
        ])?;
        ids.insert(name.clone(), id);
    }
    Ok(ids)
}

/// Whether a cited § / Artikel (and Absatz) exists in the current text of the law it names.
fn bind_law(
    conn: &Connection,
    book: Option<&str>,
    section: &str,
    absatz: Option<&str>,
) -> Result<(Option<i64>, &'static str)> {
    let Some(book) = book else { return Ok((None, "book_not_named")) };
    let norm = resolve::book_codes::normalise_book_code(book);
    let mut st = conn.prepare_cached(
        "SELECT DISTINCT law_id FROM book_codes WHERE code_norm = ?1 AND tier = (SELECT MIN(tier) FROM book_codes WHERE code_norm = ?1)",
    )?;
    let laws: Vec<i64> = st.query_map(params![norm], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
    let law = match laws.as_slice() {
        [] => return Ok((None, "statute_unknown")),
        [one] => *one,
        _ => return Ok((None, "book_ambiguous")),
    };
    let key = extract::law::section_key(section);
    let mut st = conn.prepare_cached("SELECT absaetze FROM sections WHERE law_id = ?1 AND key = ?2")?;
    let rows: Vec<String> = st.query_map(params![law, key], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
    if rows.is_empty() {
        return Ok((Some(law), "section_absent_in_current_text"));
    }
    if let Some(a) = absatz {
        let has = rows.iter().any(|j| {
            serde_json::from_str::<Vec<extract::law::Absatz>>(j)
                .map(|abs| abs.iter().any(|x| x.number == a))
                .unwrap_or(false)
        });
        // A § printed without numbered Absätze cannot be checked; only a numbered list that
        // lacks the Absatz is a finding.
        let numbered = rows.iter().any(|j| j.len() > 2);
        if numbered && !has {
            return Ok((Some(law), "absatz_absent_in_current_text"));
        }
    }
    Ok((Some(law), "bound"))
}

fn write_citations(conn: &Connection, id: i64, c: &DecisionCitations, ext_to_id: &BTreeMap<String, i64>) -> Result<()> {
    // One table for both kinds; each insert names only the columns of its kind (the rest stay null).
    let mut ins_law = conn.prepare_cached(
        "INSERT INTO decision_citations (decision_id, kind, start, end, raw, canonical, parents, book, section, absatz,
            chain, law_id, law_status)
         VALUES (?1, 'law', ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?;
    for l in &c.laws {
        let (law_id, status) = bind_law(conn, l.book.as_deref(), &l.section, l.absatz.as_deref())?;
        let parents = serde_json::to_string(&l.parents)?;
        ins_law.execute(params![
            id,
            l.start as i64,
            l.end as i64,
            l.raw,
            l.canonical,
            parents,
            l.book,
            l.section,
            l.absatz,
            l.chain,
            law_id,
            status
        ])?;
    }
    let mut ins_case = conn.prepare_cached(
        "INSERT INTO decision_citations (decision_id, kind, start, end, raw, canonical, case_kind, court, court_raw, date,
            file_number, status, target_id, candidates, withheld, role, note)
         VALUES (?1, 'case', ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
    )?;
    for k in &c.cases {
        let target = k.target.as_ref().and_then(|t| ext_to_id.get(t));
        let candidates = serde_json::to_string(&k.candidates)?;
        ins_case.execute(params![
            id,
            k.start as i64,
            k.end as i64,
            k.raw,
            k.canonical,
            k.kind,
            k.court,
            k.court_raw,
            k.date,
            k.file_number,
            k.status,
            target,
            candidates,
            k.withheld,
            k.role,
            k.note
        ])?;
    }
    let mut ins_norm =
        conn.prepare_cached("INSERT INTO decision_norms (decision_id, norm, from_norm_field) VALUES (?1, ?2, ?3)")?;
    for n in &c.norms {
        ins_norm.execute(params![id, n, c.norms_from_norm_field.contains(n)])?;
    }
    Ok(())
}

/// Distinct resolved, not withheld edges, and each decision's citing count.
fn write_edges(conn: &Connection) -> Result<u64> {
    conn.execute_batch(
        "INSERT INTO citation_edges (citing_id, cited_id, citations, role)
             SELECT decision_id, target_id, COUNT(*), CASE WHEN SUM(role = 'procedural') > 0 THEN 'procedural' ELSE 'cited' END
             FROM decision_citations
             WHERE kind = 'case' AND status = 'resolved' AND withheld IS NULL AND target_id IS NOT NULL AND target_id != decision_id
             GROUP BY decision_id, target_id;
         UPDATE decisions SET citing_count = (SELECT COUNT(*) FROM citation_edges WHERE cited_id = decisions.id);",
    )?;
    Ok(conn.query_row("SELECT COUNT(*) FROM citation_edges", [], |r| r.get::<_, i64>(0))? as u64)
}

fn index_passages(
    writer: &mut tantivy::IndexWriter<TantivyDocument>,
    f: &DecisionFields,
    decision_id: u64,
    rec: &DecisionRecord,
    cites: Option<&DecisionCitations>,
) -> Result<u64> {
    let m = &rec.doc.meta;
    let chars: Vec<char> = rec.doc.text.chars().collect();
    let ps = passages(chars.len(), &rec.doc.randnummern, &rec.doc.sections);
    let date = m.date.as_deref().and_then(date_number);
    let court = rec.court.as_ref().map(court_keys).unwrap_or_default();
    let heading: Vec<String> = [
        rec.court.as_ref().map(|c| c.name.clone()),
        rec.court.as_ref().and_then(|c| c.citation_name.clone()),
        m.court_name_raw.clone(),
        m.document_type.clone(),
        m.title.clone(),
        Some(m.file_numbers.join(" ")),
    ]
    .into_iter()
    .flatten()
    .collect();
    // A decision without text still gets one (empty) passage so filters and counts see it.
    let ps = if ps.is_empty() {
        vec![crate::decisions_index::Passage { start: 0, end: 0, rn_from: 0, rn_to: 0, section: None }]
    } else {
        ps
    };
    for (ord, p) in ps.iter().enumerate() {
        let mut doc = TantivyDocument::default();
        doc.add_u64(f.decision_id, decision_id);
        doc.add_u64(f.ordinal, ord as u64);
        doc.add_u64(f.start, p.start as u64);
        doc.add_u64(f.rn_from, p.rn_from as u64);
        doc.add_u64(f.rn_to, p.rn_to as u64);
        if let Some(s) = &p.section {
            doc.add_text(f.section, s);
        }
        doc.add_text(f.text, chars[p.start..p.end].iter().collect::<String>());
        if ord == 0 {
            doc.add_text(f.heading, heading.join(" "));
        }
        for k in &court {
            doc.add_text(f.court, k);
        }
        if let Some(c) = &rec.court {
            doc.add_text(f.branch, &c.branch);
        } else {
            doc.add_text(f.branch, "unbekannt");
        }
        if let Some(t) = &m.document_type {
            doc.add_text(f.document_type, fold(t));
        }
        if let Some(d) = date {
            doc.add_i64(f.date, d);
        }
        for fnum in &m.file_numbers {
            doc.add_text(f.file_number, file_number_norm(fnum));
        }
        if let Some(c) = cites {
            for n in &c.norms {
                doc.add_text(f.cited_norm, n);
            }
            for k in c.cases.iter().filter(|k| k.status == "resolved" && k.withheld.is_none()) {
                if let Some(t) = &k.target {
                    doc.add_text(f.cited_case, t);
                }
            }
        }
        writer.add_document(doc)?;
    }
    Ok(ps.len() as u64)
}
