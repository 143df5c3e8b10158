//! Writes the decisions of `work/extract/decisions/` into a generation: rows in the store
//! (`decisions`, `decision_file_numbers`, `courts` with measured holdings, and what is derived
//! from the citations: edges, Normenketten, unheld case citations, citing counts), bodies with
//! their citations in the text packs, and passages in the `decisions/` tantivy index.
//!
//! A night changes few decisions, so a decision whose [`build_key`] equals the earlier
//! generation's is not built again: its row is copied from the earlier store and its body and
//! passages are kept. Invariant: a row, body and passages are a function of what the build key
//! hashes, plus the court id and citing count, which are taken fresh on every copy; anything
//! new a row is made from must go into the key (or bump [`BUILD_VERSION`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use anyhow::{Context, Result, bail};
use extract::courts::{Court, CourtTable, fold};
use extract::decision_stage::{self, DecisionRecord};
use rusqlite::{Connection, params};
use sha2::{Digest, Sha256};
use tantivy::TantivyDocument;
use tantivy::schema::Term;

use crate::citation_rows::{StoredCaseCitation, StoredCitation, StoredLawCitation};
use crate::decisions_index::{DecisionFields, passages};
use crate::earlier::EarlierDecisions;
use crate::store::file_number_norm;
use crate::text_packs::DecisionBody;
use model::{CitationRole, LawCitationStatus};
use resolve::case_law::{self, DecisionCitations};

#[derive(Debug, Default, Clone)]
pub struct DecisionCounts {
    pub decisions: u64,
    pub passages: u64,
    /// Decisions whose passages the carried-over full-text index already held as they are.
    pub index_kept: u64,
    /// Decisions whose passages were (re)written: new ones and changed ones.
    pub index_written: u64,
    /// Decisions of the earlier generation no longer held, their passages deleted.
    pub index_removed: u64,
    /// Decisions whose `build_key` was the earlier generation's: their row was copied from it
    /// (or, in a patched store, left as it was), their line among extract's parts not read
    /// (their citations are written again only when the row is copied).
    pub rows_copied: u64,
    /// Patched store: decisions of the earlier generation whose rows were removed (changed ones,
    /// written again, and those no longer held).
    pub rows_removed: u64,
    /// Patched store: kept decisions whose citing count changed.
    pub citing_counts_updated: u64,
    /// Patched store: wall seconds spent removing rows and settling the counts.
    pub patch_seconds: Option<(f64, f64)>,
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

/// The courts of the decisions written, by canonical name (their holdings are counted in SQL
/// from `decision_facts`, the one definition every tool reads).
type Holdings = BTreeMap<String, Court>;

/// resolve's citations joined to the decisions by decision id, read and checked before a
/// build starts (see [`read_citations_input`]). Holds where each decision's line is, not the
/// lines: the build reads one line at a time.
pub struct CitationsInput {
    /// Each decision's line among resolve's citations parts.
    lines: HashMap<String, CitationsLine>,
    /// Each decision, where its line is among extract's parts and extract's `line_key` of it
    /// (when `decisions.lines` was read), in the file's order.
    order: Vec<(String, extract::line_parts::PartSpan, Option<String>)>,
    /// resolve's citations (`citations.parts`).
    parts: extract::line_parts::PartedLines,
    /// Each decision's row id: its id in the earlier generation, else the next above the
    /// earlier maximum in extract's order (see [`crate::earlier`]).
    row_ids: HashMap<String, i64>,
    /// The courts of the decisions held, by canonical name.
    held_courts: Holdings,
    /// resolve's citing count per decision (cited ones only).
    citing_counts: HashMap<String, u32>,
}

/// Where a decision's citations line is, its place in their order, and its sha256 (part of
/// [`build_key`]).
struct CitationsLine {
    span: extract::line_parts::PartSpan,
    line_no: usize,
    sha256: [u8; 32],
}

impl CitationsInput {
    /// resolve's citing count of decision `id` (0 when no held decision cites it).
    fn citing_count(&self, id: &str) -> u32 {
        self.citing_counts.get(id).copied().unwrap_or(0)
    }

    /// The citations of decision `id`, read from its line; a line whose bytes are not the ones
    /// recorded for it (by resolve in `citations.lines`, or when read through) fails, so what a
    /// build key was made from is what is written.
    fn of(&self, id: &str) -> Result<DecisionCitations> {
        let list = self.parts.list_path().display();
        let Some(&CitationsLine { span, line_no, sha256 }) = self.lines.get(id) else {
            bail!("{list} has no line for decision {id} (truncated, or from another run of extract): rerun `resolve`")
        };
        let buf = self.parts.read_line(span)?;
        let p = self.parts.path(span.part);
        if <[u8; 32]>::from(Sha256::digest(&buf)) != sha256 {
            bail!(
                "{}: the line at byte {} (line {line_no} of {list}, of {id}) is not the line resolve wrote (changed since): rerun `resolve`",
                p.display(),
                span.offset
            );
        }
        serde_json::from_slice(&buf).with_context(|| {
            format!(
                "{}: the line at byte {} (line {line_no} of {list}) is not a decision's citations (of {id}; garbled, or from another version? rerun `resolve`)",
                p.display(),
                span.offset
            )
        })
    }
}

/// resolve's citations keyed by decision id, for [`write`]; `None` when no decisions are held.
/// Where each line is comes from `citations.lines` when it describes `citations.parts` as it
/// lies on disk (same sha256 as resolve's summary, inode, size, mtime), else every part is read
/// through here; either way missing, unreadable or truncated citations, or ones whose
/// decisions are not exactly extract's (`decisions.parts`), are an error naming the file (and
/// the line or decision) before anything is built, and a line that is not a decision's citations
/// fails the build, naming it, at the latest when its decision is written.
/// `earlier` is every decision of the earlier generation (ext id → row id, index key) and
/// `earlier_max` its largest row id: they keep row ids stable.
pub fn read_citations_input(
    data_dir: &Path,
    earlier: &EarlierDecisions,
    earlier_max: i64,
) -> Result<Option<CitationsInput>> {
    if decision_stage::read_manifest(data_dir)?.is_none() {
        return Ok(None);
    }
    let layout = case_law::citations_layout(data_dir);
    let p = layout.list.clone();
    let parts = extract::line_parts::PartedLines::open(layout)
        .with_context(|| format!("{} is missing: run `resolve` before `index` (decisions are held)", p.display()))?;
    // `citations.lines` when it describes this very list: no line is read here (each is read
    // and parsed when its decision is written, so a garbled one still fails the build).
    let described = case_law::read_summary(data_dir)
        .ok()
        .flatten()
        .and_then(|s| resolve::citation_lines::read_citation_lines(data_dir, &s.sha256));
    let located = match described {
        Some(described) => described
            .into_iter()
            .enumerate()
            .map(|(i, l)| (l.id, CitationsLine { span: l.span, line_no: i + 1, sha256: l.sha256 }))
            .collect(),
        None => read_through_citations(&parts)?,
    };
    let mut lines = HashMap::with_capacity(located.len());
    for (id, at) in located {
        let line_no = at.line_no;
        if let Some(id) = lines.insert(id.clone(), at).map(|_| id) {
            bail!(
                "{}: line {line_no} (counted across its parts) repeats decision {id} (one line per decision expected; rerun `resolve`)",
                p.display()
            );
        }
    }
    let (order, row_ids, held_courts) = decision_heads(data_dir, earlier, earlier_max)?;
    if let Some(id) = row_ids.keys().filter(|id| !lines.contains_key(*id)).min() {
        bail!(
            "{} has no line for decision {id} (truncated, or from another run of extract): rerun `resolve`",
            p.display()
        );
    }
    if let Some(stray) = lines.keys().filter(|id| !row_ids.contains_key(*id)).min() {
        bail!(
            "{} holds citations of decision {stray}, which extract's decisions do not hold: rerun `resolve`",
            p.display()
        );
    }
    let citing_counts = case_law::read_citing_counts(data_dir)?;
    Ok(Some(CitationsInput { lines, order, parts, row_ids, held_courts, citing_counts }))
}

impl CitationsInput {
    /// The decisions held.
    pub fn decisions(&self) -> usize {
        self.order.len()
    }
}

/// Which rows of the earlier generation's store (its decisions: `carried`) a patch of it
/// removes ([`crate::store_patch`]): those of decisions whose `build_key` changed and of those
/// no longer held, in row id order; with how many decisions keep their rows. None when a
/// decision's key is not known without reading its line (`decisions.lines` does not describe
/// extract's decisions (`decisions.parts`)): the store is written afresh then.
pub fn plan_patch(
    citations: &CitationsInput,
    carried: &EarlierDecisions,
    laws_input: &str,
) -> Option<(Vec<i64>, usize)> {
    let mut remove = Vec::new();
    let mut keep = 0;
    for (ext_id, _, line_key) in &citations.order {
        let key = build_key(laws_input, line_key.as_deref()?, &citations.lines.get(ext_id)?.sha256);
        match carried.get(ext_id) {
            Some(e) if e.build_key == key => keep += 1,
            Some(e) => remove.push(e.id),
            None => {}
        }
    }
    remove.extend(carried.iter().filter(|(ext, _)| !citations.row_ids.contains_key(*ext)).map(|(_, e)| e.id));
    remove.sort_unstable();
    Some((remove, keep))
}

/// Every line of resolve's citations parts read through: each decision id with where its line
/// is and its sha256. A line that is not JSON with an id is an error naming its part and place.
fn read_through_citations(parts: &extract::line_parts::PartedLines) -> Result<Vec<(String, CitationsLine)>> {
    #[derive(serde::Deserialize)]
    struct LineId {
        id: String,
    }
    let mut out = Vec::new();
    for part in 0..parts.parts().len() as u32 {
        for (span, line) in parts.part_lines(part)? {
            // The id is kept; the rest is read through (a line that is not JSON fails here), and
            // parsed in full when its decision is written.
            let c: LineId = parts.parse(span, &line)?;
            let line_no = out.len() + 1;
            out.push((c.id, CitationsLine { span, line_no, sha256: Sha256::digest(&line).into() }));
        }
    }
    Ok(out)
}

/// `citations`: from [`read_citations_input`], joined to the decisions by decision id.
/// Rows are written once, complete (court and citing count included); secondary indexes are
/// built after the load.
///
/// `carried`: the earlier generation's decisions when `writer` writes into a copy of its
/// full-text index and its store is attached as `earlier` ([`crate::store::attach_earlier`]).
/// A decision whose `index_key` is unchanged keeps its passages there; a changed one has them
/// deleted and written anew; one no longer held has them deleted. A decision whose
/// [`build_key`] is unchanged has its row copied from `earlier` and its body kept, without
/// its line of extract's decisions (`decisions.parts`) being read; its citations are written
/// as any decision's (what is derived from them counts across decisions).
///
/// `patch`: `conn` is a copy of the earlier generation's store (see [`plan_patch`]): the rows
/// of a decision whose `build_key` is unchanged are left as they are (nothing of it is read),
/// the planned decisions' rows are removed first, and what counts across decisions is
/// adjusted instead of counted anew ([`crate::store_patch`]).
///
/// `laws_input`: the laws part's input hash (the laws and book codes citations are bound to).
#[allow(clippy::too_many_arguments)]
pub fn write(
    data_dir: &Path,
    conn: &Connection,
    writer: &mut tantivy::IndexWriter<TantivyDocument>,
    f: &DecisionFields,
    packs: &mut crate::text_packs::PackWriter,
    carried: Option<&EarlierDecisions>,
    citations: Option<CitationsInput>,
    laws_input: &str,
    patch: Option<&crate::store_patch::StorePatch>,
) -> Result<DecisionCounts> {
    let mut counts = DecisionCounts::default();
    let Some(manifest) = decision_stage::read_manifest(data_dir)? else {
        write_courts(conn, &BTreeMap::new())?;
        return Ok(counts);
    };
    counts.records_read = manifest.records_read as u64;
    counts.records_failed = manifest.failed.len() as u64;
    let Some(citations) = citations else { bail!("decisions are held but their citations were not read") };
    let court_ids = write_courts(conn, &citations.held_courts)?;
    let records = decision_stage::open_decisions(data_dir)?;
    let mut derived = Derived { touched: patch.map(|_| Touched::default()), ..Derived::default() };
    let started = std::time::Instant::now();
    let mut removing = 0.0;
    if let Some(patch) = patch {
        let removed = crate::store_patch::remove_decisions(conn, patch, &mut derived)?;
        removing = started.elapsed().as_secs_f64();
        counts.rows_removed = removed.rows;
        counts.citations = patch.earlier_citations.saturating_sub(removed.citations);
    }
    let mut ins_dec = conn.prepare(
        "INSERT INTO decisions (id, ext_id, court_id, court_name_raw, chamber, date, date_raw, date_confidence, ecli,
            ecli_date_agrees, document_type, document_type_raw, title, file_numbers, norms_raw, source_format, flags,
            notes, sources, text_length, citing_count, text_pack, text_offset, text_bytes, text_key, index_key,
            build_key, passages)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22,
            ?23, ?24, ?25, ?26, ?27, ?28)",
    )?;
    let mut ins_fn =
        conn.prepare("INSERT INTO decision_file_numbers (fn_norm, file_number, decision_id) VALUES (?1, ?2, ?3)")?;
    let mut binder = LawBinder::default();
    // Row ids of the decisions built here (not copied, not kept).
    let mut written: Vec<i64> = Vec::new();
    for (ext_id, span, line_key) in &citations.order {
        let id = *citations
            .row_ids
            .get(ext_id)
            .context("extract's decisions changed while index read them: rerun `index`")?;
        let citations_sha = &citations.lines[ext_id].sha256;
        let earlier = carried.and_then(|c| c.get(ext_id));
        // extract's key of the line when `decisions.lines` describes the file, else the line's hash.
        let (key, line) = match line_key {
            Some(line_key) => (build_key(laws_input, line_key, citations_sha), None),
            None => {
                let line = records.read_line(*span)?;
                let line_key = format!("line sha256 {}", hex::encode(Sha256::digest(&line)));
                (build_key(laws_input, &line_key, citations_sha), Some(line))
            }
        };
        if earlier.is_some_and(|e| e.build_key == key) && patch.is_some() {
            // Its rows are in the patched store as they were; its citing count is set below.
            packs.counts.bodies_reused += 1;
            counts.index_kept += 1;
            counts.rows_copied += 1;
            counts.decisions += 1;
            continue;
        }
        // Citations of the same run, joined to the decisions by decision id (never by line).
        let cites = citations.of(ext_id)?;
        counts.citations += (cites.laws.len() + cites.cases.len()) as u64;
        if earlier.is_some_and(|e| e.build_key == key) {
            let kept = copy_earlier_row(conn, packs, ext_id, id, &court_ids, citations.citing_count(ext_id))?;
            write_citations(conn, &mut binder, &mut derived, id, &cites, kept.date.as_deref(), &citations.row_ids)?;
            for fnum in &kept.file_numbers {
                ins_fn.execute(params![file_number_norm(fnum), fnum, id])?;
            }
            counts.index_kept += 1;
            counts.rows_copied += 1;
            counts.decisions += 1;
            continue;
        }
        let line = match line {
            Some(line) => line,
            None => records.read_line(*span)?,
        };
        let mut rec = records.parse::<decision_stage::DecisionRecord>(*span, &line)?;
        drop(line);
        if rec.id != *ext_id {
            bail!("{} changed while index read it: rerun `index`", records.path(span.part).display());
        }
        let m = &rec.doc.meta;
        let text_chars = rec.doc.text.chars().count();
        let court_id = rec.court.as_ref().and_then(|c| court_ids.get(&c.name));
        // The Normenkette tokens that count for this decision (`cited_norm`, `decision_norm_ids`).
        let (norms, stored) =
            write_citations(conn, &mut binder, &mut derived, id, &cites, m.date.as_deref(), &citations.row_ids)?;
        let docs = passage_docs(f, id as u64, &rec, Some(&cites), &norms);
        let index_key = docs_key(&docs);
        // The text is not read after this: it moves into the body instead of being copied.
        let body = DecisionBody {
            text: std::mem::take(&mut rec.doc.text),
            sections: serde_json::to_string(&rec.doc.sections)?,
            randnummern: serde_json::to_string(&rec.doc.randnummern)?,
            citations: crate::citation_rows::encode(&stored)?,
        };
        let (text_ref, text_key) = packs.put(&rec.id, &body)?;
        ins_dec.execute(params![
            id,
            rec.id,
            court_id,
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
            text_chars as i64,
            citations.citing_count(&rec.id),
            text_ref.pack,
            text_ref.offset as i64,
            text_ref.bytes as i64,
            text_key,
            index_key,
            key,
            docs.len() as i64,
        ])?;
        for fnum in &m.file_numbers {
            ins_fn.execute(params![file_number_norm(fnum), fnum, id])?;
        }
        written.push(id);
        match earlier {
            Some(e) if e.index_key == index_key => counts.index_kept += 1,
            earlier => {
                if earlier.is_some() {
                    writer.delete_term(Term::from_field_u64(f.decision_id, id as u64));
                }
                for doc in docs {
                    writer.add_document(doc)?;
                }
                counts.index_written += 1;
            }
        }
        counts.decisions += 1;
    }
    for (ext_id, e) in carried.into_iter().flatten() {
        if !citations.row_ids.contains_key(ext_id) {
            writer.delete_term(Term::from_field_u64(f.decision_id, e.id as u64));
            counts.index_removed += 1;
        }
    }
    drop(ins_dec);
    drop(ins_fn);
    match patch {
        Some(_) => {
            let settling = std::time::Instant::now();
            let citing_counts = citations.row_ids.iter().map(|(ext, &id)| (id, citations.citing_count(ext))).collect();
            counts.citing_counts_updated = crate::store_patch::settle(conn, &derived, &written, &citing_counts)?;
            counts.patch_seconds = Some((removing, settling.elapsed().as_secs_f64()));
        }
        None => write_citing_counts(conn, &derived)?,
    }
    count_holdings(conn)?;
    counts.courts_held = citations.held_courts.len() as u64;
    counts.edges = check_edges(conn, &citations)?;
    write_coverage_measured(data_dir, conn)?;
    counts.passages =
        conn.query_row("SELECT COALESCE(SUM(passages), 0) FROM decisions", [], |r| r.get::<_, i64>(0))? as u64;
    Ok(counts)
}

/// What the build still needs of a decision whose row [`copy_earlier_row`] copied.
struct KeptRow {
    date: Option<String>,
    file_numbers: Vec<String>,
}

/// Copies decision `ext_id`'s row from the `earlier` store under row id `id`, with what is
/// taken fresh: its court's id here (by the court's name) and resolve's `citing_count`; its
/// body stays the earlier frame (its pack linked).
fn copy_earlier_row(
    conn: &Connection,
    packs: &mut crate::text_packs::PackWriter,
    ext_id: &str,
    id: i64,
    court_ids: &BTreeMap<String, i64>,
    citing_count: u32,
) -> Result<KeptRow> {
    let (court, pack, offset, bytes, date, file_numbers): (Option<String>, String, i64, i64, Option<String>, String) =
        conn.prepare_cached(
            "SELECT c.name, p.name, d.text_offset, d.text_bytes, d.date, d.file_numbers
             FROM earlier.decisions d JOIN earlier.text_packs p ON p.id = d.text_pack
             LEFT JOIN earlier.courts c ON c.id = d.court_id WHERE d.ext_id = ?1",
        )?
        .query_row([ext_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))
        .with_context(|| format!("decision {ext_id} of the earlier generation cannot be read"))?;
    let court_id = court.and_then(|name| court_ids.get(&name).copied());
    let text_ref = packs.keep(&pack, offset as u64, bytes as u64)?;
    conn.prepare_cached(
        "INSERT INTO decisions (id, ext_id, court_id, court_name_raw, chamber, date, date_raw, date_confidence, ecli,
            ecli_date_agrees, document_type, document_type_raw, title, file_numbers, norms_raw, source_format, flags,
            notes, sources, text_length, citing_count, text_pack, text_offset, text_bytes, text_key, index_key,
            build_key, passages)
         SELECT ?2, ext_id, ?3, court_name_raw, chamber, date, date_raw, date_confidence, ecli,
            ecli_date_agrees, document_type, document_type_raw, title, file_numbers, norms_raw, source_format, flags,
            notes, sources, text_length, ?4, ?5, text_offset, text_bytes, text_key, index_key, build_key, passages
         FROM earlier.decisions WHERE ext_id = ?1",
    )?
    .execute(params![ext_id, id, court_id, citing_count, text_ref.pack])?;
    Ok(KeptRow {
        date,
        file_numbers: serde_json::from_str(&file_numbers)
            .with_context(|| format!("decision {ext_id} of the earlier generation: file numbers unreadable"))?,
    })
}

/// Each decision in extract's order with where its line is and extract's key of it, its
/// row id (kept from the earlier generation, else the next free one above `earlier_max`, in
/// that order) and the courts held: from `decisions.lines` when it describes the file (no text
/// read), else from the file (keys None).
fn decision_heads(data_dir: &Path, earlier: &EarlierDecisions, earlier_max: i64) -> Result<DecisionHeads> {
    let mut order = Vec::new();
    let mut ids = HashMap::new();
    let mut courts = BTreeMap::new();
    let mut next = earlier_max;
    for located in extract::decision_lines::read_heads(data_dir)? {
        let extract::decision_lines::LocatedHead { span, line_key, head } = located?;
        if let Some(c) = head.court {
            courts.entry(c.name.clone()).or_insert(c);
        }
        let id = match earlier.get(&head.id) {
            Some(d) => d.id,
            None => {
                next += 1;
                next
            }
        };
        ids.insert(head.id.clone(), id);
        order.push((head.id, span, line_key));
    }
    Ok((order, ids, courts))
}

/// [`decision_heads`]: the decisions in file order with their lines and line keys, row ids,
/// courts held.
type DecisionHeads = (Vec<(String, extract::line_parts::PartSpan, Option<String>)>, HashMap<String, i64>, Holdings);

/// Bumped when a decision's rows, body or passages are made differently from the same inputs:
/// it is part of every [`build_key`], so no row of an older build is copied.
const BUILD_VERSION: u32 = 1;

/// What a decision's rows, body and passages are a function of: its line of extract's
/// decisions (`decisions.parts`; extract's `line_key`, of which the line is a function), its
/// citations line (sha256), the laws and book codes its law citations are bound to (`laws_input`, the laws
/// part's input hash) and [`BUILD_VERSION`]. What else a row holds is taken fresh when it is
/// copied: its court's id (by name) and its citing count (resolve's); the row ids its case
/// citations name are stable ([`crate::earlier`]).
fn build_key(laws_input: &str, line_key: &str, citations_sha: &[u8; 32]) -> String {
    let mut h = Sha256::new();
    h.update(BUILD_VERSION.to_le_bytes());
    h.update(laws_input.as_bytes());
    h.update(b"\n");
    h.update(line_key.as_bytes());
    h.update(b"\n");
    h.update(citations_sha);
    hex::encode(&h.finalize()[..16])
}

/// Every court of the reference table plus every court held that is not in it; holdings
/// (count, earliest, latest) are filled by [`count_holdings`] once decisions name their court.
/// A court keeps its id in the store being written (a patched store's rows name it by id),
/// others get ids above them in name order; the table is written whole.
fn write_courts(conn: &Connection, held: &Holdings) -> Result<BTreeMap<String, i64>> {
    let kept: BTreeMap<String, i64> = conn
        .prepare("SELECT name, id FROM courts")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    conn.execute("DELETE FROM courts", [])?;
    let mut all: BTreeMap<String, Court> = BTreeMap::new();
    for c in CourtTable::shipped().rows() {
        all.entry(c.name.clone()).or_insert_with(|| c.clone());
    }
    for (name, c) in held {
        all.entry(name.clone()).or_insert_with(|| c.clone());
    }
    let mut ins = conn.prepare(
        "INSERT INTO courts (id, name, court_type, branch, level, land, city, ecli_code, citation_name,
            in_reference_table, decision_count, earliest, latest)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 0, NULL, NULL)",
    )?;
    let mut ids = BTreeMap::new();
    let mut next = kept.values().max().copied().unwrap_or(0);
    for (name, c) in &all {
        let id = match kept.get(name) {
            Some(&id) => id,
            None => {
                next += 1;
                next
            }
        };
        ins.execute(params![
            id,
            c.name,
            c.court_type,
            c.branch.as_str(),
            c.level,
            c.land,
            c.city,
            c.ecli_code,
            c.citation_name,
            c.in_reference_table,
        ])?;
        ids.insert(name.clone(), id);
    }
    Ok(ids)
}

/// Each court's holdings (count, earliest, latest) from `decision_facts`, the view every count
/// of the server reads, so `list_courts` and the breakdowns cannot disagree.
fn count_holdings(conn: &Connection) -> Result<()> {
    conn.execute_batch(
        "UPDATE courts SET decision_count = h.n, earliest = h.lo, latest = h.hi
         FROM (SELECT court_id, COUNT(*) AS n, MIN(date) AS lo, MAX(date) AS hi FROM decision_facts
               WHERE court_id IS NOT NULL GROUP BY court_id) AS h
         WHERE h.court_id = courts.id;",
    )?;
    Ok(())
}

/// The coverage map's decision buckets measured against the rii toc of the catalog (the toc
/// this run fetched): claimed next to measured exhaustive, in `coverage_measured`. No catalog
/// or no rii toc read: nothing is exhaustive.
/// The held set is read from the rows written (every copy each decision lists, primary or
/// merged), so a patched store measures what it holds as a fresh one does.
fn write_coverage_measured(data_dir: &Path, conn: &Connection) -> Result<()> {
    let held: BTreeSet<String> = conn
        .prepare(
            "SELECT DISTINCT json_extract(j.value, '$.record_id') FROM decisions d, json_each(d.sources) j
             WHERE json_extract(j.value, '$.source') = ?1",
        )?
        .query_map([catalog::sources::RII], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    conn.execute("DELETE FROM coverage_measured", [])?;
    let catalog_path = data_dir.join("catalog.sqlite");
    let items =
        if catalog_path.is_file() { catalog::Catalog::open(data_dir)?.toc(catalog::sources::RII)? } else { Vec::new() };
    let table = CourtTable::shipped();
    let toc: Vec<coverage_map::TocEntry> = items
        .iter()
        .map(|it| {
            let entry: Option<catalog::sources::RiiTocEntry> =
                it.extra.as_deref().and_then(|e| serde_json::from_str(e).ok());
            let court = entry.as_ref().and_then(|e| table.canonical(&e.gericht)).map(|c| c.name);
            let date = entry.as_ref().and_then(|e| iso_of_compact_date(&e.entsch_datum));
            let held = held.contains(&it.key);
            coverage_map::TocEntry { key: it.key.clone(), court, date, held }
        })
        .collect();
    let measured = coverage_map::measure(&coverage_map::shipped(), (!toc.is_empty()).then_some(toc.as_slice()));
    let mut ins = conn.prepare(
        "INSERT INTO coverage_measured (bucket, court, claimed_exhaustive, toc_read, toc_items_in_window, held, missing,
            measured_exhaustive, not_exhaustive_because, missing_keys)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    for m in measured {
        ins.execute(params![
            m.bucket,
            m.court,
            m.claimed_exhaustive,
            m.toc_read,
            m.toc_items_in_window as i64,
            m.held as i64,
            m.missing as i64,
            m.measured_exhaustive,
            m.not_exhaustive_because,
            serde_json::to_string(&m.missing_keys)?,
        ])?;
    }
    Ok(())
}

/// `20180822` (the rii toc's form) → `2018-08-22`; None when it is not eight digits.
fn iso_of_compact_date(d: &str) -> Option<String> {
    let d = d.trim();
    (d.len() == 8 && d.bytes().all(|b| b.is_ascii_digit())).then(|| format!("{}-{}-{}", &d[..4], &d[4..6], &d[6..]))
}

/// What a book code names among the laws held.
#[derive(Clone)]
enum BookLookup {
    Unknown,
    Ambiguous,
    /// The law and its Ausfertigung date.
    Law(i64, Option<String>),
}

/// What the current text of a law holds at a cited § / Artikel: nothing, or its Absätze.
#[derive(Clone)]
struct CitedSection {
    /// Whether any row of it prints numbered Absätze.
    numbered: bool,
    numbers: Vec<String>,
}

/// Binds law citations to the law rows, remembering every look-up: a corpus cites the same
/// books and sections millions of times, and the rows do not change during a build. Memory
/// grows with the distinct sections cited (bounded by the statutes), not with the decisions.
#[derive(Default)]
struct LawBinder {
    books: HashMap<String, BookLookup>,
    sections: HashMap<(i64, String, extract::citations::LawUnit), Option<CitedSection>>,
}

impl LawBinder {
    /// Whether a cited § / Artikel (and Absatz) exists in the current text of the law it names.
    /// `decided`: the citing decision's date; a decision dated before the law's Ausfertigung
    /// cannot cite it (it cites a predecessor or another law of that name): `predates_law`.
    /// `state_law`: the scanner read the book as Land law (`IFG Bln`): never bound to a federal law.
    #[allow(clippy::too_many_arguments)]
    fn bind(
        &mut self,
        conn: &Connection,
        state_law: bool,
        book: Option<&str>,
        section: &str,
        unit: extract::citations::LawUnit,
        absatz: Option<&str>,
        decided: Option<&str>,
    ) -> Result<(Option<i64>, LawCitationStatus)> {
        if state_law {
            return Ok((None, LawCitationStatus::StateLaw));
        }
        let Some(book) = book else { return Ok((None, LawCitationStatus::BookNotNamed)) };
        let norm = resolve::book_codes::normalise_book_code(book);
        let lookup = match self.books.get(&norm) {
            Some(l) => l.clone(),
            None => {
                let l = look_up_book(conn, &norm)?;
                self.books.insert(norm, l.clone());
                l
            }
        };
        let (law, enacted) = match lookup {
            BookLookup::Unknown => return Ok((None, LawCitationStatus::StatuteUnknown)),
            BookLookup::Ambiguous => return Ok((None, LawCitationStatus::BookAmbiguous)),
            BookLookup::Law(law, enacted) => (law, enacted),
        };
        // gii's `ausfertigung-datum` is the original Ausfertigung, also for a law whose current
        // text is a Neufassung (StGB: 1871-05-15, "Neugefasst durch Bek. v. 13.11.1998").
        if let (Some(decided), Some(enacted)) = (decided.filter(|d| date_number(d).is_some()), enacted.as_deref())
            && date_number(enacted).is_some()
            && decided < enacted
        {
            return Ok((None, LawCitationStatus::PredatesLaw));
        }
        let key = (law, section.to_string(), unit);
        let cited = match self.sections.get(&key) {
            Some(c) => c.clone(),
            None => {
                let rows = crate::store::cited_section_absaetze(conn, law, section, unit)?;
                let c = (!rows.is_empty()).then(|| CitedSection {
                    numbered: rows.iter().any(|j| j.len() > 2),
                    numbers: rows
                        .iter()
                        .filter_map(|j| serde_json::from_str::<Vec<extract::law::Absatz>>(j).ok())
                        .flatten()
                        .map(|a| a.number)
                        .collect(),
                });
                self.sections.insert(key, c.clone());
                c
            }
        };
        let Some(cited) = cited else { return Ok((Some(law), LawCitationStatus::SectionAbsentInCurrentText)) };
        // A § printed without numbered Absätze cannot be checked; only a numbered list that
        // lacks the Absatz is a finding.
        if let Some(a) = absatz
            && cited.numbered
            && !cited.numbers.iter().any(|n| n == a)
        {
            return Ok((Some(law), LawCitationStatus::AbsatzAbsentInCurrentText));
        }
        Ok((Some(law), LawCitationStatus::Bound))
    }
}

/// The law a normalised book code names (the lowest tier that names any), with its Ausfertigung.
fn look_up_book(conn: &Connection, norm: &str) -> Result<BookLookup> {
    let mut st = conn.prepare_cached(
        "SELECT DISTINCT law_id FROM book_codes WHERE code_norm = ?1 AND tier = (SELECT MIN(tier) FROM book_codes WHERE code_norm = ?1)",
    )?;
    let laws: Vec<i64> = st.query_map(params![norm], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
    Ok(match laws.as_slice() {
        [] => BookLookup::Unknown,
        [one] => {
            let mut st = conn.prepare_cached("SELECT ausfertigung_datum FROM laws WHERE id = ?1")?;
            BookLookup::Law(*one, st.query_row(params![one], |r| r.get(0))?)
        }
        _ => BookLookup::Ambiguous,
    })
}

/// What the build derives from the citations as it writes them, for the corpus-wide tables
/// the server queries: memory grows with the laws, sections and Normenkette tokens cited
/// (bounded by the statutes and their citation forms), not with the decisions.
#[derive(Default)]
pub(crate) struct Derived {
    /// Distinct citing decisions per bound law, and per bound (law, cited section):
    /// `law_citing`, `section_citing`. A fresh store gets these counts; a patched one adds
    /// them to its own (a removed decision counts -1: [`crate::store_patch`]).
    pub(crate) laws: HashMap<i64, i64>,
    pub(crate) sections: HashMap<(i64, String), i64>,
    /// Each Normenkette token's row in `norms`, and the id the next new token gets (a patched
    /// store keeps its ids, and may have dropped tokens no decision counts any more).
    pub(crate) norm_ids: HashMap<String, i64>,
    pub(crate) next_norm_id: i64,
    /// When patching: what the removed and written decisions touch, counted again after the
    /// load (a fresh store counts everything once, so it collects nothing).
    pub(crate) touched: Option<Touched>,
}

/// What a patched store's changes touch ([`Derived::touched`]).
#[derive(Default)]
pub(crate) struct Touched {
    /// Normenkette tokens, whose counts of decisions change.
    pub(crate) norms: BTreeSet<i64>,
    /// Unheld numbers (`fn_norm`) whose mentions and groups are counted again
    /// ([`crate::unheld_mentions`]).
    pub(crate) unheld_numbers: BTreeSet<String>,
}

impl Derived {
    /// Counts (`sign` +1) or uncounts (-1) one decision's bound laws and sections, each once
    /// however often the decision cites it.
    pub(crate) fn count_bound(&mut self, citations: &[StoredCitation], sign: i64) {
        let (mut laws, mut sections) = (BTreeSet::new(), BTreeSet::new());
        for c in citations {
            if let StoredCitation::Law(l) = c
                && l.status == LawCitationStatus::Bound
                && let Some(law) = l.law_id
            {
                laws.insert(law);
                sections.insert((law, l.section.as_str()));
            }
        }
        for law in laws {
            *self.laws.entry(law).or_default() += sign;
        }
        for (law, section) in sections {
            *self.sections.entry((law, section.to_string())).or_default() += sign;
        }
    }
}

/// Binds the decision's citations and writes what the store derives from them (its edges,
/// its citations of unheld decisions, its Normenkette); returns its counted Normenkette tokens
/// (see [`counted_norms`]) and the citations as its body keeps them
/// ([`crate::citation_rows`]).
fn write_citations(
    conn: &Connection,
    binder: &mut LawBinder,
    derived: &mut Derived,
    id: i64,
    c: &DecisionCitations,
    decided: Option<&str>,
    ext_to_id: &HashMap<String, i64>,
) -> Result<(Vec<String>, Vec<StoredCitation>)> {
    let mut stored = Vec::with_capacity(c.laws.len() + c.cases.len());
    let mut statuses = Vec::with_capacity(c.laws.len());
    for l in &c.laws {
        let (law_id, status) = binder.bind(
            conn,
            l.state_law.is_some(),
            l.book.as_deref(),
            &l.section,
            l.unit,
            l.absatz.as_deref(),
            decided,
        )?;
        statuses.push(status);
        stored.push(StoredCitation::Law(StoredLawCitation {
            start: l.start,
            end: l.end,
            raw: l.raw.clone(),
            canonical: l.canonical.clone(),
            parents: l.parents.clone(),
            book: l.book.clone(),
            section: l.section.clone(),
            absatz: l.absatz.clone(),
            chain: l.chain.clone(),
            law_id,
            status,
        }));
    }
    derived.count_bound(&stored, 1);
    // Edges: one per distinct cited decision, `procedural` if any of its citations is.
    let mut edges: BTreeMap<i64, (i64, bool)> = BTreeMap::new();
    let mut ins_unheld = conn.prepare_cached(
        "INSERT INTO unheld_case_citations (fn_norm, court, court_raw, date, decision_id) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for k in &c.cases {
        let target_id = k.target.as_ref().and_then(|t| ext_to_id.get(t)).copied();
        let case = StoredCaseCitation {
            start: k.start,
            end: k.end,
            raw: k.raw.clone(),
            canonical: k.canonical.clone(),
            case_kind: k.kind,
            court: k.court.clone(),
            court_raw: k.court_raw.clone(),
            date: k.date.clone(),
            file_number: k.file_number.clone(),
            status: k.status,
            target_id,
            target: target_id.and(k.target.clone()),
            candidates: k.candidates.clone(),
            withheld: k.withheld,
            role: k.role,
            note: k.note.clone(),
        };
        if case.is_edge_from(id) {
            let e = edges.entry(target_id.expect("an edge has a target")).or_default();
            e.0 += 1;
            e.1 |= case.role == CitationRole::Procedural;
        }
        if case.names_unheld_decision()
            && let Some(number) = &case.file_number
        {
            ins_unheld.execute(params![file_number_norm(number), case.court, case.court_raw, case.date, id])?;
            if let Some(touched) = &mut derived.touched {
                touched.unheld_numbers.insert(file_number_norm(number));
            }
        }
        stored.push(StoredCitation::Case(case));
    }
    let mut ins_edge = conn
        .prepare_cached("INSERT INTO citation_edges (citing_id, cited_id, citations, role) VALUES (?1, ?2, ?3, ?4)")?;
    for (cited, (n, procedural)) in edges {
        let role = if procedural { CitationRole::Procedural } else { CitationRole::Cited };
        ins_edge.execute(params![id, cited, n, role.as_str()])?;
    }
    let norms = counted_norms(conn, binder, c, &statuses, decided)?;
    let mut ins_token = conn.prepare_cached("INSERT INTO norms (id, norm) VALUES (?1, ?2)")?;
    let mut ins_norm = conn
        .prepare_cached("INSERT INTO decision_norm_ids (decision_id, norm_id, from_norm_field) VALUES (?1, ?2, ?3)")?;
    let mut written = BTreeSet::new();
    for n in &norms {
        let norm_id = match derived.norm_ids.get(n) {
            Some(&id) => id,
            None => {
                let id = derived.next_norm_id.max(1);
                derived.next_norm_id = id + 1;
                derived.norm_ids.insert(n.clone(), id);
                ins_token.execute(params![id, n])?;
                id
            }
        };
        if let Some(touched) = &mut derived.touched {
            touched.norms.insert(norm_id);
        }
        if written.insert(norm_id) {
            ins_norm.execute(params![id, norm_id, c.norms_from_norm_field.contains(n)])?;
        }
    }
    Ok((norms, stored))
}

/// `law_citing` and `section_citing`: how many held decisions cite each law and each section
/// (bound citations only), the statute search's prior for which § practice treats as on point.
fn write_citing_counts(conn: &Connection, derived: &Derived) -> Result<()> {
    let mut ins = conn.prepare("INSERT INTO law_citing (law_id, decisions) VALUES (?1, ?2)")?;
    for (law, n) in &derived.laws {
        ins.execute(params![law, *n])?;
    }
    conn.execute_batch("CREATE TEMP TABLE cited_sections (law_id INTEGER, section TEXT, decisions INTEGER)")?;
    let mut ins = conn.prepare("INSERT INTO temp.cited_sections (law_id, section, decisions) VALUES (?1, ?2, ?3)")?;
    for ((law, section), n) in &derived.sections {
        ins.execute(params![law, section, *n])?;
    }
    // A section key ignores the unit: every row of the law holding the cited key gets its count.
    conn.execute_batch(
        "INSERT INTO section_citing (section_id, decisions)
             SELECT s.id, k.decisions FROM temp.cited_sections k JOIN sections s ON s.law_id = k.law_id AND s.key = k.section;
         DROP TABLE temp.cited_sections;",
    )?;
    Ok(())
}

/// The decision's Normenkette tokens without those made only by citations whose status does
/// not count as citing the law ([`LawCitationStatus::counts_as_citing`]; `statuses[i]` is the
/// status of `c.laws[i]`). A token of the rii `<norm>` field is bound like a text citation.
fn counted_norms(
    conn: &Connection,
    binder: &mut LawBinder,
    c: &DecisionCitations,
    statuses: &[LawCitationStatus],
    decided: Option<&str>,
) -> Result<Vec<String>> {
    let mut counted: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut uncounted: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for (l, status) in c.laws.iter().zip(statuses) {
        let set = if status.counts_as_citing() { &mut counted } else { &mut uncounted };
        set.extend(std::iter::once(l.canonical.as_str()).chain(l.parents.iter().map(String::as_str)));
    }
    let vocab = extract::citations::LawVocabulary::shipped();
    for token in &c.norms_from_norm_field {
        let ex = extract::citations::extract(token, vocab);
        if let Some(l) = ex.laws.iter().find(|l| l.book.is_some()) {
            let (_, status) = binder.bind(
                conn,
                l.state_law.is_some(),
                l.book.as_deref(),
                &l.section,
                l.unit,
                l.absatz.as_deref(),
                decided,
            )?;
            if !status.counts_as_citing() {
                uncounted.insert(token.as_str());
            } else {
                counted.insert(token.as_str());
            }
        }
    }
    Ok(c.norms.iter().filter(|n| counted.contains(n.as_str()) || !uncounted.contains(n.as_str())).cloned().collect())
}

/// Each decision's citing count was written with its row from resolve's graph; the edges
/// written with the citations (distinct resolved, not withheld) must give the same counts, or
/// the build fails (resolve and index would disagree on the graph).
fn check_edges(conn: &Connection, input: &CitationsInput) -> Result<u64> {
    let mut by_row: HashMap<i64, u32> = HashMap::new();
    for (ext, n) in &input.citing_counts {
        let Some(&row) = input.row_ids.get(ext) else {
            bail!("citing_counts.tsv names decision {ext}, which extract's decisions do not hold: rerun `resolve`")
        };
        by_row.insert(row, *n);
    }
    let mut st = conn.prepare("SELECT cited_id, COUNT(*) FROM citation_edges GROUP BY cited_id")?;
    let from_edges: HashMap<i64, u32> =
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?;
    if from_edges != by_row {
        bail!(
            "resolve's citing counts disagree with the citation edges written (a bug; please report): rerun `resolve`"
        );
    }
    Ok(conn.query_row("SELECT COUNT(*) FROM citation_edges", [], |r| r.get::<_, i64>(0))? as u64)
}

/// A decision's index key: the sha256 (128 bits, hex) of every field value of its passages'
/// documents, in order. Equal keys → the full-text index holds the same documents.
fn docs_key(docs: &[TantivyDocument]) -> String {
    use tantivy::schema::Value;
    let mut h = Sha256::new();
    for d in docs {
        h.update(b"\x1e");
        for (field, v) in d.field_values() {
            h.update(field.field_id().to_le_bytes());
            if let Some(s) = v.as_str() {
                h.update(b"s");
                h.update((s.len() as u64).to_le_bytes());
                h.update(s.as_bytes());
            } else if let Some(n) = v.as_u64() {
                h.update(b"u");
                h.update(n.to_le_bytes());
            } else if let Some(n) = v.as_i64() {
                h.update(b"i");
                h.update(n.to_le_bytes());
            } else {
                // passage_docs adds only text, u64 and i64 values.
                h.update(b"?");
            }
        }
    }
    hex::encode(&h.finalize()[..16])
}

/// The full-text documents of a decision: one per passage.
fn passage_docs(
    f: &DecisionFields,
    decision_id: u64,
    rec: &DecisionRecord,
    cites: Option<&DecisionCitations>,
    norms: &[String],
) -> Vec<TantivyDocument> {
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
    let mut docs = Vec::with_capacity(ps.len());
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
        // No court recorded, no branch recorded: such a decision matches no branch filter
        // (the counts file it under branch null, see `decision_facts`).
        if let Some(c) = &rec.court {
            doc.add_text(f.branch, c.branch.as_str());
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
            for n in norms {
                doc.add_text(f.cited_norm, n);
            }
            for k in c.cases.iter().filter(|k| k.status == model::CaseCitationStatus::Resolved && k.withheld.is_none())
            {
                if let Some(t) = &k.target {
                    doc.add_text(f.cited_case, t);
                }
            }
        }
        docs.push(doc);
    }
    docs
}
