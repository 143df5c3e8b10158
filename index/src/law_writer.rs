//! The laws' part of a generation: `laws.sqlite` (laws, sections, their texts, book codes)
//! and the `laws/` full-text index, written law by law from the statutes `extract` made.
//! Both depend only on the laws and the book codes (the laws part input), so a later build
//! from the same laws links them (hard links) instead of calling [`write_laws`].

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;
use rusqlite::params;
use tantivy::{Index, TantivyDocument};

use crate::analysis;
use crate::laws_index::{self, LAWS_DIR, LawFields};
use crate::store::{self, LAWS_STORE_FILE};

/// How the laws' full-text index is laid out, part of its input hash (a change rebuilds it):
/// one segment, since every statute search looks each term up, and opens its scorers, once per
/// segment. The index is written once per statute change and searched on every request.
pub(crate) const LAWS_INDEX_LAYOUT: &str = "one segment";

/// Writes `laws.sqlite` and `laws/` into the generation being built at `tmp`; returns the
/// number of sections. `pause_after_laws` is a test hook (the process sleeps there).
pub fn write_laws(
    data_dir: &Path,
    tmp: &Path,
    statutes: &extract::statutes::StatutesManifest,
    codes: &resolve::book_codes::BookCodeTable,
    pause_after_laws: Option<usize>,
) -> Result<u64> {
    let conn = store::create_laws(&tmp.join(LAWS_STORE_FILE))?;
    let (mut writer, f): (tantivy::IndexWriter<TantivyDocument>, LawFields) = {
        let laws_idx = Index::create_in_dir(tmp.join(LAWS_DIR), laws_index::schema())?;
        analysis::register(&laws_idx);
        // The `parts` field splits compounds into the statutes' own words: one pass over them first.
        let mut dictionary = analysis::CompoundDictionary::default();
        for entry in &statutes.laws {
            let law = extract::statutes::read_law(data_dir, entry)?;
            for s in &law.sections {
                dictionary.add(s.heading.as_deref().unwrap_or(""));
                dictionary.add(&s.text);
            }
        }
        laws_idx
            .tokenizers()
            .register(analysis::GERMAN_COMPOUND, analysis::german_compound_analyzer(std::sync::Arc::new(dictionary)));
        let f = LawFields::from_schema(&laws_idx.schema())?;
        (laws_idx.writer_with_num_threads(2, 256 << 20)?, f)
    };
    let slug_to_id: BTreeMap<&str, i64> =
        statutes.laws.iter().enumerate().map(|(i, l)| (l.slug.as_str(), i as i64 + 1)).collect();
    let mut codes_by_law: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    for c in &codes.codes {
        if let Some(&lid) = slug_to_id.get(c.slug.as_str()) {
            codes_by_law.entry(lid).or_default().push(c.code_norm.clone());
        }
    }
    let bar = catalog::cli::progress_bar(statutes.laws.len() as u64, "index laws");
    let mut section_id: i64 = 0;
    conn.execute_batch("BEGIN")?;
    {
        let mut ins_law = conn.prepare(
            "INSERT INTO laws (id, slug, code, jurabk, amtabk, title, short_title, toc_title, doknr, builddate,
                ausfertigung_datum, fundstelle, stand, notes, section_count, text_length, xml_sha256,
                norms, norms_header, norms_headings, norms_dropped, norms_text_bearing)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)",
        )?;
        let mut ins_sec = conn.prepare(
            "INSERT INTO sections (id, law_id, ordinal, doknr, label, key, toc_key, kind, heading, breadcrumb,
                text, footnotes, absaetze, text_length, law_offset)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
        )?;
        let mut ins_text = conn.prepare("INSERT INTO law_texts (law_id, text) VALUES (?1, ?2)")?;
        for (i, entry) in statutes.laws.iter().enumerate() {
            if pause_after_laws == Some(i) {
                eprintln!("index: paused after {i} laws (test hook)");
                std::thread::sleep(std::time::Duration::from_secs(3600));
            }
            let law = extract::statutes::read_law(data_dir, entry)?;
            let law_id = i as i64 + 1;
            let mut key_counts: BTreeMap<&str, usize> = BTreeMap::new();
            for s in &law.sections {
                if let Some(k) = s.key.as_deref() {
                    *key_counts.entry(k).or_default() += 1;
                }
            }
            let book_terms = codes_by_law.get(&law_id).cloned().unwrap_or_default();
            let mut law_text = String::new();
            let mut law_chars = 0usize;
            for (ord, s) in law.sections.iter().enumerate() {
                section_id += 1;
                // Invariant: a toc key is the key where that is unique in the law, else the
                // doknr; `serve`'s `find_section` relies on it to look sections up by index.
                let toc_key = match s.key.as_deref() {
                    Some(k) if key_counts.get(k) == Some(&1) => k.to_string(),
                    _ => s.doknr.clone(),
                };
                let header: Vec<&str> =
                    [s.designation.as_deref(), s.heading.as_deref()].into_iter().flatten().collect();
                let law_offset = law_chars;
                let mut block = String::new();
                if !header.is_empty() {
                    block.push_str(&header.join(" "));
                    block.push('\n');
                }
                if !s.text.is_empty() {
                    block.push_str(&s.text);
                    block.push('\n');
                }
                law_chars += block.chars().count();
                law_text.push_str(&block);
                let text_length = s.text.chars().count() as i64;
                ins_sec.execute(params![
                    section_id,
                    law_id,
                    ord as i64,
                    s.doknr,
                    s.designation,
                    s.key,
                    toc_key,
                    serde_json::to_value(s.kind)?.as_str().unwrap_or("other"),
                    s.heading,
                    serde_json::to_string(&s.breadcrumb)?,
                    s.text,
                    s.footnotes,
                    serde_json::to_string(&s.absaetze)?,
                    text_length,
                    law_offset as i64
                ])?;
                let mut doc = TantivyDocument::default();
                doc.add_u64(f.section_id, section_id as u64);
                doc.add_u64(f.law_id, law_id as u64);
                for b in &book_terms {
                    doc.add_text(f.book, b);
                }
                if let Some(l) = &s.designation {
                    doc.add_text(f.label, l);
                }
                if let Some(h) = &s.heading {
                    doc.add_text(f.heading, h);
                }
                doc.add_text(f.text, &s.text);
                doc.add_text(f.breadcrumb, s.breadcrumb.join(" "));
                doc.add_text(f.law_title, &law.title);
                if let Some(h) = &s.heading {
                    doc.add_text(f.parts, h);
                }
                doc.add_text(f.parts, &s.text);
                writer.add_document(doc)?;
            }
            if law_text.ends_with('\n') {
                law_text.pop();
                law_chars = law_chars.saturating_sub(1);
            }
            let code = law.amtabk.clone().or_else(|| law.jurabk.first().cloned()).unwrap_or_else(|| law.slug.clone());
            ins_law.execute(params![
                law_id,
                law.slug,
                code,
                serde_json::to_string(&law.jurabk)?,
                law.amtabk,
                law.title,
                law.short_title,
                law.toc_title,
                law.doknr,
                law.builddate,
                law.ausfertigung_datum,
                law.fundstelle,
                serde_json::to_string(&law.stand)?,
                law.notes,
                law.sections.len() as i64,
                law_chars as i64,
                law.xml_sha256,
                law.norm_account.norms as i64,
                law.norm_account.law_header as i64,
                law.norm_account.headings as i64,
                serde_json::to_string(&law.norm_account.dropped)?,
                law.norm_account.text_bearing as i64
            ])?;
            ins_text.execute(params![law_id, law_text])?;
            bar.inc(1);
        }
        let mut ins_code =
            conn.prepare("INSERT INTO book_codes (code_norm, code, law_id, tier, kind) VALUES (?1, ?2, ?3, ?4, ?5)")?;
        for c in &codes.codes {
            if let Some(&lid) = slug_to_id.get(c.slug.as_str()) {
                ins_code.execute(params![c.code_norm, c.code, lid, c.tier as i64, c.kind])?;
            }
        }
        let mut ins_sup = conn.prepare(
            "INSERT INTO superseded_codes (code_norm, code, successor, successor_law_id, effective_date, note)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        for s in &codes.superseded {
            let lid = s.successor_slug.as_deref().and_then(|sl| slug_to_id.get(sl).copied());
            ins_sup.execute(params![s.code_norm, s.code, s.successor, lid, s.effective_date, s.note])?;
        }
    }
    // The laws index is complete: commit it now, so its writer's memory is not held while
    // the decisions are written.
    conn.execute_batch("COMMIT; ANALYZE")?;
    bar.finish_and_clear();
    writer.commit()?;
    // One segment ([`LAWS_INDEX_LAYOUT`]).
    let segments = writer.index().searchable_segment_ids()?;
    if segments.len() > 1 {
        writer.merge(&segments).wait()?;
    }
    writer.wait_merging_threads()?;
    Ok(section_id as u64)
}
