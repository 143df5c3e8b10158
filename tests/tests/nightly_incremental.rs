//! The nightly run at scale is incremental, through the real binaries on the whole shared
//! decision corpus: with no change nothing is rewritten; after 1% of the records change only
//! the decisions they make are normalised, written and scanned again (counted from the stages'
//! own summaries), and what the incremental run writes is byte for byte what a run from scratch
//! on the changed input writes. The new generation shares what did not change with the one
//! before (laws, decision text packs with their citations, the decisions' full-text segments)
//! and still holds what a generation built from scratch holds.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::path::Path;

use legal_tests::procs::{ingest_statutes_and_dump, run_stage_ok};
use legal_tests::{Mirror, sample_gii, shared_corpus_dump};
use serde_json::Value;

fn read_gz_lines(p: &Path) -> Vec<String> {
    let mut s = String::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(p).unwrap()).read_to_string(&mut s).unwrap();
    s.lines().map(str::to_string).collect()
}

fn write_gz_lines(p: &Path, lines: &[String]) {
    let mut gz = flate2::write::GzEncoder::new(std::fs::File::create(p).unwrap(), flate2::Compression::fast());
    for l in lines {
        gz.write_all(l.as_bytes()).unwrap();
        gz.write_all(b"\n").unwrap();
    }
    gz.finish().unwrap();
}

fn stages(data: &Path, mirror: &str, dump: &Path, with_index: bool) -> String {
    let d = data.to_str().unwrap();
    let mut log = ingest_statutes_and_dump(data, mirror, dump);
    let last: &[&str] = if with_index { &["extract", "resolve", "index"] } else { &["extract", "resolve"] };
    for stage in last {
        log.push_str(&run_stage_ok(stage, &["--data-dir", d]));
    }
    log
}

/// The files in extract's record cache (one directory per first two hex digits).
fn record_cache_files(data: &Path) -> usize {
    std::fs::read_dir(extract::decision_stage::dir(data).join("records"))
        .unwrap()
        .flatten()
        .flat_map(|shard| std::fs::read_dir(shard.path()).unwrap().flatten())
        .count()
}

/// The number in `text` just before `what` (`"10 normalised"` → 10).
fn count_before(text: &str, what: &str) -> usize {
    let at = text.find(what).unwrap_or_else(|| panic!("{what:?} not in {text}"));
    text[..at].split_whitespace().last().and_then(|w| w.trim_start_matches('(').parse().ok()).unwrap()
}

#[test]
fn a_nightly_run_redoes_only_the_changed_decisions_and_matches_a_run_from_scratch() {
    let Some(corpus) = shared_corpus_dump() else { return };
    let mirror = Mirror::start(vec![sample_gii()]);
    let work = tempfile::tempdir().unwrap();
    let dump = work.path().join("cases.jsonl.gz");
    let original = read_gz_lines(&corpus);
    write_gz_lines(&dump, &original);
    let data = work.path().join("data");
    stages(&data, &mirror.base_url(), &dump, true);

    // No change: every stage says so and rewrites nothing.
    let decisions = extract::decision_stage::parts_layout(&data).list;
    let citations = resolve::case_law::citations_layout(&data).list;
    let mtimes = || [&decisions, &citations].map(|p| std::fs::metadata(p).unwrap().modified().unwrap());
    let before = mtimes();
    let log = stages(&data, &mirror.base_url(), &dump, true);
    // The dump file is the one read last time (inode, size, mtime): not read again.
    assert!(log.contains("fetched 0 changed, 0 unchanged, 1 not modified, 0 failed; 0.0 MB"), "{log}");
    assert!(log.contains("extract decisions: input unchanged"), "{log}");
    assert!(log.contains("resolve citations: input unchanged"), "{log}");
    assert!(log.contains("index: unchanged"), "{log}");
    assert_eq!(mtimes(), before, "an unchanged input rewrote a work file");

    // 1% of the records change: each gets one more sentence with a law and two case citations,
    // one of them of a held decision (whose own lines do not change, so its row is copied with
    // its citing count taken fresh).
    let cited = original
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| {
            r["court"]["slug"] == "bverwg"
                && r["type"] == "Urteil"
                && r["date"].is_string()
                && r["file_number"].is_string()
        })
        .expect("a BVerwG judgment in the corpus");
    let cited_citation = {
        let date = cited["date"].as_str().unwrap();
        let (y, m, d) = (&date[..4], &date[5..7], &date[8..10]);
        let number = cited["file_number"].as_str().unwrap().replace('\u{a0}', " ");
        format!("BVerwG, Urteil vom {d}.{m}.{y} - {number} -")
    };
    let mut changed_ids = BTreeSet::new();
    let mut lines = original.clone();
    let step = lines.len() / (lines.len() / 100).max(1);
    for l in lines.iter_mut().step_by(step) {
        let mut rec: Value = serde_json::from_str(l).unwrap();
        let Some(content) = rec["content"].as_str().filter(|c| c.len() > 200) else { continue };
        let added = format!(
            "{content}\n\nErgänzend: vgl. § 823 Abs. 1 BGB und BVerwG, Urteil vom 12.03.2015 - 7 C 12.14 -; {cited_citation}."
        );
        rec["content"] = Value::String(added);
        changed_ids.insert(rec["id"].to_string().trim_matches('"').to_string());
        *l = rec.to_string();
    }
    assert!(changed_ids.len() >= 5, "too few records changed: {}", changed_ids.len());
    write_gz_lines(&dump, &lines);
    let before_id = legal_tests::current_id(&data);
    let (lines_before, citations_before) = (decisions_by_id(&data), citations_by_id(&data));
    let log = stages(&data, &mirror.base_url(), &dump, true);
    // Today's dump is another file: read again.
    assert!(log.contains("ingest oldp: toc 1 items (not read); fetched 1 changed"), "{log}");
    // Yesterday's dump was replaced by today's: its copy is gone, and every document's last
    // good copy (the statutes', today's dump) is still there.
    assert!(log.contains("ingest raw: 1 superseded copies removed"), "{log}");
    let dumps_held: Vec<_> = std::fs::read_dir(data.join("raw/oldp"))
        .unwrap()
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .flat_map(|shard| std::fs::read_dir(shard.path()).unwrap().flatten().map(|f| f.path()))
        .collect();
    assert_eq!(dumps_held.len(), 1, "{dumps_held:?}");
    let catalog = catalog::Catalog::open(&data).unwrap();
    for source in ["gii", "oldp"] {
        let docs = catalog.documents(source).unwrap();
        assert!(!docs.is_empty(), "{source}");
        for d in docs {
            assert!(data.join(&d.raw_path).is_file(), "{source} {}: last good copy {} removed", d.key, d.raw_path);
        }
    }
    assert_eq!(
        count_before(&log, "normalised,"),
        changed_ids.len(),
        "extract normalised more than the changed records: {log}"
    );
    // The record cache keeps one file per record read: each changed record's earlier
    // normalisation went, so the cache does not grow night by night.
    assert_eq!(count_before(&log, "stale cache files removed"), changed_ids.len(), "{log}");
    let cache_files = record_cache_files(&data);
    assert_eq!(cache_files, count_before(&log, "records;"), "{log}");

    // The decisions those records make (alone or merged) are the only ones scanned again.
    let affected: BTreeSet<String> = legal_tests::decision_lines(&data)
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|d| {
            d["sources"].as_array().unwrap().iter().any(|s| changed_ids.contains(s["record_id"].as_str().unwrap()))
        })
        .map(|d| d["id"].as_str().unwrap().to_string())
        .collect();
    assert!(!affected.is_empty());
    let total = count_before(&log, "decisions (");
    assert_eq!(
        count_before(&log, "scanned,"),
        affected.len(),
        "resolve scanned more than the changed decisions: {log}"
    );
    // No decision appeared, vanished or reads otherwise to binding (id, court, date, the
    // numbers it is held under): every unchanged decision's line is carried unread.
    assert_eq!(count_before(&log, "carried unread"), total - affected.len(), "{log}");
    assert_eq!(count_before(&log, "bound anew"), 0, "{log}");
    // extract copied the other decisions' lines as they were, without reading their records,
    // and kept every part that holds none of the changed ones without writing it: only the
    // parts the list names are left on disk.
    assert_eq!(count_before(&log, "lines copied as they were"), total - affected.len(), "{log}");
    let listed = extract::decision_stage::open_decisions(&data).unwrap().parts().to_vec();
    let (kept, written) = (count_before(&log, "parts kept,"), count_before(&log, "parts written"));
    assert_eq!(kept + written, listed.len(), "{log}");
    // A changed line's key may also move where its part ends (two parts become one, or one
    // two), so a change rewrites at most two parts.
    assert!(
        kept > 0 && written <= 2 * affected.len(),
        "{kept} parts kept, {written} written for {} changed: {log}",
        affected.len()
    );
    // So did resolve with the citations: a changed decision's line (and a line bound anew
    // differently) goes to a new part, every other part is kept.
    let resolved = &log[log.find("resolve citations:").unwrap_or_else(|| panic!("no resolve line in {log}"))..];
    let (kept_c, written_c) = (count_before(resolved, "parts kept,"), count_before(resolved, "parts written"));
    assert!(
        kept_c > 0 && written_c <= 2 * affected.len() + 2,
        "citations: {kept_c} parts kept, {written_c} written: {log}"
    );
    let on_disk = std::fs::read_dir(extract::decision_stage::parts_layout(&data).dir)
        .unwrap()
        .flatten()
        .flat_map(|d| std::fs::read_dir(d.path()).unwrap().flatten())
        .count();
    assert_eq!(on_disk, listed.len(), "part files no list names are left on disk");
    assert!(log.contains("index: published"), "{log}");
    // index copies the row of every decision whose line among extract's parts and of
    // its citations line are as they were, and only theirs (the rows are compared with a build
    // from scratch below).
    let (lines_after, citations_after) = (decisions_by_id(&data), citations_by_id(&data));
    let unchanged = lines_after
        .iter()
        .filter(|(id, line)| {
            lines_before.get(*id) == Some(line) && citations_before.get(*id) == citations_after.get(*id)
        })
        .count();
    assert!(unchanged > total / 2, "{unchanged} of {total}");
    assert_eq!(count_before(&log, "unchanged, not built again"), unchanged, "{log}");
    // The store is a copy of yesterday's, patched: only the rows of the changed decisions were
    // removed and written again (compared table by table with a build from scratch below).
    assert!(log.contains(&format!("store patched from {before_id}'s")), "{log}");
    assert_eq!(count_before(&log, "rows removed"), total - unchanged, "{log}");
    let citing_count = |id: &str| -> i64 {
        let db = rusqlite::Connection::open(data.join("generations").join(id).join("store.sqlite")).unwrap();
        let ext = format!("oldp-{}", cited["id"]);
        db.query_row("SELECT citing_count FROM decisions WHERE ext_id = ?1", [ext], |r| r.get(0)).unwrap()
    };
    let after_id = legal_tests::current_id(&data);
    assert!(
        citing_count(&after_id) > citing_count(&before_id),
        "the changed records' citation of {cited_citation} was not counted"
    );
    // index compresses and writes only those decisions' bodies; the others keep their frames.
    // (A changed record merged as a second copy leaves its decision's text as it was.)
    let rewritten: BTreeSet<String> = legal_tests::decision_lines(&data)
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|d| d["doc"]["text"].as_str().unwrap().contains("Ergänzend: vgl."))
        .map(|d| d["id"].as_str().unwrap().to_string())
        .collect();
    assert!(!rewritten.is_empty() && rewritten.is_subset(&affected));
    let bodies = &log[log.find("decision bodies:").unwrap_or_else(|| panic!("no body counts in {log}"))..];
    assert_eq!(count_before(bodies, "written,"), rewritten.len(), "{log}");
    assert_eq!(count_before(bodies, "kept,"), total - rewritten.len(), "{log}");

    // The new generation shares the part that did not change (the laws' index, built from the
    // same laws) with the one before: the same inodes, one copy on disk. Each still verifies
    // on its own, every file hashed against its own manifest.
    assert_ne!(after_id, before_id);
    assert!(log.contains(&format!("laws shared with {before_id}")), "{log}");
    let gens = data.join("generations");
    let inodes = |id: &str, part: &str| -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> = std::fs::read_dir(gens.join(id).join(part))
            .unwrap()
            .map(|e| e.unwrap())
            // tantivy's (empty) lock files are made afresh by whoever opens an index.
            .filter(|e| !e.file_name().to_string_lossy().starts_with(".tantivy-"))
            .map(|e| {
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::os::unix::fs::MetadataExt::ino(&e.metadata().unwrap()),
                )
            })
            .collect();
        v.sort();
        v
    };
    let (old_laws, new_laws) = (inodes(&before_id, "laws"), inodes(&after_id, "laws"));
    assert!(old_laws.len() > 3, "{old_laws:?}");
    assert_eq!(new_laws, old_laws, "the laws' index files are not the same files");
    let laws_db =
        |id: &str| std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(gens.join(id).join("laws.sqlite")).unwrap());
    assert_eq!(laws_db(&before_id), laws_db(&after_id), "laws.sqlite is not the same file");
    // The decisions' full-text index is carried over: only the changed decisions' passages
    // are written (a new segment and deletes, new files); the earlier segments are the same files.
    let full_text = &log[log.find("full-text index:").unwrap_or_else(|| panic!("no index counts in {log}"))..];
    assert_eq!(count_before(full_text, "decisions kept,"), total - rewritten.len(), "{log}");
    assert_eq!(count_before(full_text, "written,"), rewritten.len(), "{log}");
    assert_eq!(count_before(full_text, "removed"), 0, "{log}");
    assert!(log.contains(&format!("decisions shared with {before_id}")), "{log}");
    let (old_dec, new_dec) = (inodes(&before_id, "decisions"), inodes(&after_id, "decisions"));
    let segment_files =
        |v: &[(String, u64)]| v.iter().filter(|(n, _)| n.ends_with(".idx")).cloned().collect::<Vec<_>>();
    let old_segments = segment_files(&old_dec);
    assert!(!old_segments.is_empty());
    assert!(old_segments.iter().all(|f| new_dec.contains(f)), "an earlier segment is not shared");
    assert!(segment_files(&new_dec).len() > old_segments.len(), "no new segment for the changed decisions");
    // The decision bodies: the earlier pack is the same file in both, the changed bodies are in
    // a new pack, and each generation reads its own version of a changed decision.
    assert!(log.contains(&format!("texts shared with {before_id}")), "{log}");
    let (old_texts, new_texts) = (inodes(&before_id, "texts"), inodes(&after_id, "texts"));
    assert_eq!(old_texts.len(), 1, "{old_texts:?}");
    assert!(new_texts.contains(&old_texts[0]), "the unchanged pack is not shared: {old_texts:?} {new_texts:?}");
    assert_eq!(new_texts.len(), 2, "{new_texts:?}");
    let body_of = |id: &str, ext_id: &str| -> String {
        let dir = gens.join(id);
        let db = rusqlite::Connection::open(dir.join("store.sqlite")).unwrap();
        let row: i64 = db.query_row("SELECT id FROM decisions WHERE ext_id = ?1", [ext_id], |r| r.get(0)).unwrap();
        index::text_packs::TextPacks::open(&dir, &db).unwrap().body_of(&db, row).unwrap().text
    };
    for ext_id in &rewritten {
        assert!(!body_of(&before_id, ext_id).contains("Ergänzend: vgl."), "{ext_id}");
        assert!(body_of(&after_id, ext_id).contains("Ergänzend: vgl."), "{ext_id}");
    }
    assert_walk_finds_every_matching_decision(&gens.join(&after_id));
    for id in [&before_id, &after_id] {
        let out = run_stage_ok("index", &["--data-dir", data.to_str().unwrap(), "verify", id]);
        assert!(out.contains("verified"), "{id}: {out}");
    }

    // What the incremental run wrote is what a run from scratch on the changed input writes.
    let fresh = work.path().join("fresh");
    stages(&fresh, &mirror.base_url(), &dump, true);
    // The decisions are cut into the same parts (the list names each by its bytes' sha256), so
    // they hold the same lines in the same order.
    assert!(legal_tests::decision_lines(&data) == legal_tests::decision_lines(&fresh), "the decisions differ");
    assert!(legal_tests::citation_lines(&data) == legal_tests::citation_lines(&fresh), "the citations differ");
    for rel in
        ["work/extract/decisions/decisions.parts", "work/resolve/citations.parts", "work/resolve/citing_counts.tsv"]
    {
        assert!(
            std::fs::read(data.join(rel)).unwrap() == std::fs::read(fresh.join(rel)).unwrap(),
            "{rel} of the incremental run differs from a run from scratch"
        );
    }
    // Their companions (each line's key, place and head; each citations line's place, scan key
    // and hash) are what a run from scratch writes too; only the headers differ (they name
    // each file as it lies on disk).
    for rel in ["work/extract/decisions/decisions.lines", "work/resolve/citations.lines"] {
        let entries = |root: &Path| -> Vec<String> {
            std::fs::read_to_string(root.join(rel)).unwrap().lines().skip(1).map(str::to_string).collect()
        };
        assert_eq!(entries(&data).len(), total, "{rel}");
        assert!(entries(&data) == entries(&fresh), "{rel} of the incremental run differs from a run from scratch");
    }
    // The carried-over full-text index holds what one built from scratch holds: per decision
    // the same documents (its index key) and as many live passages (deletes took effect).
    let incremental = passages_by_decision(&gens.join(&after_id));
    let scratch = passages_by_decision(&fresh.join("generations").join(legal_tests::current_id(&fresh)));
    assert_eq!(incremental.len(), total);
    assert_eq!(incremental, scratch, "the incremental full-text index differs from one built from scratch");
    let fresh_dir = fresh.join("generations").join(legal_tests::current_id(&fresh));
    // The rows: the copied ones hold what a build from scratch writes (court by name, resolve's
    // citing count, file numbers, keys), as the rewritten ones do.
    let (incremental_rows, scratch_rows) = (rows_by_decision(&gens.join(&after_id)), rows_by_decision(&fresh_dir));
    assert_eq!(incremental_rows.len(), total);
    assert!(
        incremental_rows == scratch_rows,
        "the incremental generation's decision rows differ from a build from scratch"
    );
    // Every decision's citations travel in its body: the kept ones and the rewritten ones
    // are bound exactly as a build from scratch binds them.
    let (kept_citations, scratch_citations) =
        (citations_by_decision(&gens.join(&after_id)), citations_by_decision(&fresh_dir));
    assert_eq!(kept_citations.len(), total);
    assert!(kept_citations.values().map(Vec::len).sum::<usize>() > 10 * total, "the corpus cites");
    assert!(
        kept_citations == scratch_citations,
        "the incremental generation's citations differ from a build from scratch"
    );
    // Everything else the store holds (Normenketten and their pages, edges, unheld case
    // citations, citing counts per law and section, courts and their holdings, fact counts,
    // coverage): the patched store holds what a fresh one does, table by table.
    assert_same_tables(&gens.join(&after_id), &fresh_dir);

    // Five records leave the dump: their decisions' passages are deleted, no other id moves.
    let dropped: Vec<String> = lines.iter().skip(3).step_by(97).take(5).cloned().collect();
    let kept: Vec<String> = lines.iter().filter(|l| !dropped.contains(l)).cloned().collect();
    write_gz_lines(&dump, &kept);
    let (decisions_before_drop, citations_before_drop) =
        (legal_tests::decision_lines(&data), legal_tests::citation_lines(&data));
    let log = stages(&data, &mirror.base_url(), &dump, true);
    let without = passages_by_decision(&gens.join(legal_tests::current_id(&data)));
    let gone: Vec<&String> = incremental.keys().filter(|k| !without.contains_key(*k)).collect();
    assert!(!gone.is_empty(), "dropping records removed no decision");
    // resolve binds anew exactly the decisions whose case citations look up a number (or an
    // ECLI) a gone decision was held under, and carries every other line unread.
    let citers = citing_any_key_of(&gone, &decisions_before_drop, &citations_before_drop);
    assert!(!citers.is_empty(), "no decision cited the gone ones: the case shows nothing");
    let resolved = &log[log.find("resolve citations:").unwrap()..];
    assert_eq!(count_before(resolved, "scanned,"), 0, "{log}");
    assert_eq!(count_before(resolved, "bound anew"), citers.len(), "{log}");
    assert_eq!(count_before(resolved, "carried unread"), without.len() - citers.len(), "{log}");
    let full_text = &log[log.find("full-text index:").unwrap()..];
    assert_eq!(count_before(full_text, "removed"), gone.len(), "{log}");
    // The store loses their rows, and those of the decisions written again (they cited them).
    let rows_kept = count_before(&log, "unchanged, not built again");
    assert_eq!(count_before(&log, "rows removed"), gone.len() + (without.len() - rows_kept), "{log}");
    for (ext, (id, _, n)) in &without {
        assert_eq!(incremental[ext].0, *id, "{ext} changed its row id");
        assert!(*n > 0, "{ext} lost its passages");
    }
    // They come back: as new decisions, with ids above every earlier one, and the index again
    // holds per decision the passages one built from scratch holds.
    write_gz_lines(&dump, &lines);
    let log = stages(&data, &mirror.base_url(), &dump, true);
    assert!(log.contains("store patched from"), "{log}");
    // They are scanned, the decisions citing their numbers bound anew, the rest carried; and
    // resolve's output is again byte for byte a run from scratch's on the same input.
    let resolved = &log[log.find("resolve citations:").unwrap()..];
    assert_eq!(count_before(resolved, "scanned,"), gone.len(), "{log}");
    assert_eq!(count_before(resolved, "bound anew"), citers.len(), "{log}");
    assert_eq!(count_before(resolved, "carried unread"), total - gone.len() - citers.len(), "{log}");
    assert!(legal_tests::citation_lines(&data) == legal_tests::citation_lines(&fresh), "the citations differ");
    for rel in ["work/resolve/citations.parts", "work/resolve/citing_counts.tsv"] {
        assert!(
            std::fs::read(data.join(rel)).unwrap() == std::fs::read(fresh.join(rel)).unwrap(),
            "{rel} after a removal and a return differs from a run from scratch"
        );
    }
    let back = passages_by_decision(&gens.join(legal_tests::current_id(&data)));
    let max_before = without.values().map(|(id, _, _)| *id).max().unwrap();
    for ext in &gone {
        assert!(back[*ext].0 > max_before, "{ext} came back under an old id");
    }
    let live = |m: &BTreeMap<String, (i64, String, usize)>| m.iter().map(|(e, v)| (e.clone(), v.2)).collect::<Vec<_>>();
    assert_eq!(live(&back), live(&scratch));
    // Two more patches (decisions removed, then added back) still hold what a fresh store holds.
    let last = gens.join(legal_tests::current_id(&data));
    // (Less the index key: it hashes the passages, which hold the row id, and a decision that
    // came back has a new one.)
    let without_index_key = |rows: BTreeMap<String, Vec<Option<String>>>| -> BTreeMap<String, Vec<Option<String>>> {
        rows.into_iter().map(|(ext, mut row)| (ext, (row.remove(20), row).1)).collect()
    };
    let (last_rows, scratch_rows) = (without_index_key(rows_by_decision(&last)), without_index_key(scratch_rows));
    assert_eq!(last_rows.len(), scratch_rows.len());
    if let Some((ext, row)) = last_rows.iter().find(|(ext, row)| scratch_rows.get(*ext) != Some(row)) {
        panic!("the rows after removals and additions differ: {ext}: {row:?} vs {:?}", scratch_rows.get(ext));
    }
    assert_same_tables(&last, &fresh_dir);
}

/// In the patched generation at `dir` (its earlier segments hold the deleted passages of the
/// decisions written again), the search's walk, which reads one passage per decision and seeks
/// past the rest, finds each decision once and exactly the decisions that a read of every
/// matching live passage finds.
fn assert_walk_finds_every_matching_decision(dir: &Path) {
    use std::ops::ControlFlow;
    let g = index::Generation::open_verified(dir).unwrap();
    let searcher = g.decisions_reader.searcher();
    assert!(
        searcher.segment_readers().iter().any(|r| r.num_deleted_docs() > 0),
        "no deleted passages: the case shows nothing"
    );
    let parser = tantivy::query::QueryParser::for_index(&g.decisions, vec![g.decision_fields.text]);
    for words in ["Behörde", "Urteil", "Kosten Verfahren", "Ergänzend", "Informationsfreiheit"] {
        let q = parser.parse_query(words).unwrap();
        let (mut walked, mut visits) = (BTreeSet::new(), 0);
        serve::query::passage_runs::for_each_matching_decision(&g, &searcher, &*q, |id| {
            visits += 1;
            walked.insert(id);
            ControlFlow::Continue(())
        })
        .unwrap();
        let every: BTreeSet<u64> = searcher
            .search(&*q, &tantivy::collector::DocSetCollector)
            .unwrap()
            .into_iter()
            .map(|a| {
                let ids = searcher.segment_reader(a.segment_ord).fast_fields().u64("decision_id").unwrap();
                ids.first(a.doc_id).unwrap()
            })
            .collect();
        assert!(!every.is_empty(), "{words} matches nothing");
        assert_eq!(walked, every, "{words}");
        assert_eq!(visits, walked.len(), "{words}: a decision was visited twice");
    }
}

/// The decisions (other than `gone`) whose case citations, in `citation_lines`, look up a key
/// (file number or ECLI) that a `gone` decision, in `decision_lines`, was held under.
fn citing_any_key_of(gone: &[&String], decision_lines: &[String], citation_lines: &[String]) -> BTreeSet<String> {
    use resolve::case_law::file_number_key;
    let mut keys = BTreeSet::new();
    for d in decision_lines.iter().map(|l| serde_json::from_str::<Value>(l).unwrap()) {
        if gone.iter().any(|g| d["id"] == g.as_str()) {
            let meta = &d["doc"]["meta"];
            keys.extend(meta["file_numbers"].as_array().unwrap().iter().map(|f| file_number_key(f.as_str().unwrap())));
            keys.extend(meta["ecli"].as_str().map(|e| format!("ECLI={}", file_number_key(e))));
        }
    }
    assert!(!keys.is_empty(), "the gone decisions were held under no key");
    citation_lines
        .iter()
        .map(|l| serde_json::from_str::<resolve::case_law::DecisionCitations>(l).unwrap())
        .filter(|c| !gone.contains(&&c.id))
        .filter(|c| {
            c.cases.iter().any(|k| {
                resolve::case_law::lookup_key(k.kind, k.file_number.as_deref(), k.ecli.as_deref())
                    .is_some_and(|key| keys.contains(&key))
            })
        })
        .map(|c| c.id)
        .collect()
}

/// Asserts that the stores of the generations in `a` and `b` hold the same things in every
/// table derived from the decisions, each read by names and keys (not by the ids a store
/// gives its courts, Normenkette tokens and packs).
fn assert_same_tables(a: &Path, b: &Path) {
    const TABLES: [(&str, &str); 15] = [
        (
            "unheld_mentions",
            "SELECT fn_norm, ordinal, court, court_raw, date, decisions FROM unheld_mentions ORDER BY 1, 2",
        ),
        // Row ids differ between the stores (a re-added decision gets a new one): the groups'
        // ids are checked within each store, by their count here and exactly in unit tests.
        (
            "unheld_mention_groups",
            "SELECT fn_norm, mentions, decisions,
                 min(decisions, 20) = length(first_ids) - length(replace(first_ids, ',', '')) + 1
             FROM unheld_mention_groups ORDER BY 1, 2",
        ),
        (
            "unheld_mention_groups_sums (mentions or numbers whose groups do not add up to their decisions: none)",
            "SELECT (SELECT COUNT(*) FROM unheld_mentions m WHERE m.decisions != (SELECT SUM(g.decisions)
                 FROM unheld_mention_groups g WHERE g.fn_norm = m.fn_norm
                 AND ',' || g.mentions || ',' LIKE '%,' || m.ordinal || ',%'))
             + (SELECT COUNT(*) FROM (SELECT fn_norm, COUNT(DISTINCT decision_id) AS n FROM unheld_case_citations
                 GROUP BY fn_norm) u WHERE u.n != (SELECT SUM(g.decisions) FROM unheld_mention_groups g
                 WHERE g.fn_norm = u.fn_norm))",
        ),
        (
            "unheld_mentions_first_ids (mentions naming other than their lowest citing decisions: none)",
            "SELECT COUNT(*) FROM unheld_mentions m WHERE m.first_ids IS NOT (SELECT group_concat(decision_id) FROM
                (SELECT DISTINCT u.decision_id FROM unheld_case_citations u WHERE u.fn_norm = m.fn_norm
                 AND u.court IS m.court AND u.court_raw IS m.court_raw AND u.date IS m.date ORDER BY u.decision_id LIMIT 20))
             OR m.decisions != (SELECT COUNT(DISTINCT u.decision_id) FROM unheld_case_citations u WHERE u.fn_norm = m.fn_norm
                 AND u.court IS m.court AND u.court_raw IS m.court_raw AND u.date IS m.date)",
        ),
        ("norms", "SELECT norm, decisions FROM norms ORDER BY 1"),
        (
            "decision_norms",
            "SELECT d.ext_id, n.norm, x.from_norm_field FROM decision_norm_ids x JOIN norms n ON n.id = x.norm_id
             JOIN decisions d ON d.id = x.decision_id ORDER BY 1, 2",
        ),
        (
            "norm_citing",
            "SELECT n.norm, c.citing_count, c.undated, c.date, d.ext_id FROM norm_citing c JOIN norms n ON n.id = c.norm_id
             JOIN decisions d ON d.id = c.id ORDER BY 1, 2, 3, 4, 5",
        ),
        (
            "citation_edges",
            "SELECT a.ext_id, b.ext_id, e.citations, e.role FROM citation_edges e JOIN decisions a ON a.id = e.citing_id
             JOIN decisions b ON b.id = e.cited_id ORDER BY 1, 2",
        ),
        (
            "unheld_case_citations",
            "SELECT u.fn_norm, u.court, u.court_raw, u.date, d.ext_id FROM unheld_case_citations u
             JOIN decisions d ON d.id = u.decision_id ORDER BY 1, 2, 3, 4, 5",
        ),
        ("law_citing", "SELECT l.slug, c.decisions FROM law_citing c JOIN laws l ON l.id = c.law_id ORDER BY 1"),
        ("section_citing", "SELECT section_id, decisions FROM section_citing ORDER BY 1"),
        (
            "courts",
            "SELECT name, court_type, branch, level, land, city, ecli_code, citation_name, in_reference_table,
             decision_count, earliest, latest FROM courts ORDER BY 1",
        ),
        (
            "fact_combos",
            "SELECT f.court, c.name, f.branch, f.document_type, f.year, f.decisions FROM fact_combos f
             LEFT JOIN courts c ON c.id = f.court_id ORDER BY 1, 3, 4, 5",
        ),
        ("coverage_measured", "SELECT * FROM coverage_measured ORDER BY bucket"),
        ("text_packs", "SELECT COUNT(*) FROM decisions d LEFT JOIN text_packs p ON p.id = d.text_pack WHERE p.id IS NULL"),
    ];
    let dump = |dir: &Path, sql: &str| -> Vec<String> {
        let g = index::Generation::open_verified(dir).unwrap();
        g.store
            .with(|c| {
                let mut st = c.prepare(sql)?;
                let n = st.column_count();
                let rows = st
                    .query_map([], |r| {
                        (0..n)
                            .map(|i| r.get::<_, rusqlite::types::Value>(i).map(|v| format!("{v:?}")))
                            .collect::<Result<Vec<_>, _>>()
                    })?
                    .map(|r| r.map(|cols| cols.join(" | ")))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(rows)
            })
            .unwrap()
    };
    for (table, sql) in TABLES {
        let (x, y) = (dump(a, sql), dump(b, sql));
        assert!(!x.is_empty(), "{table}: nothing to compare");
        if x != y {
            let first = x.iter().zip(&y).position(|(p, q)| p != q).unwrap_or(x.len().min(y.len()));
            panic!(
                "{table} differs from a build from scratch ({} vs {} rows); first difference at row {first}: {:?} vs {:?}",
                x.len(),
                y.len(),
                x.get(first),
                y.get(first)
            );
        }
    }
}

/// Per decision (ext id): its row id, index key and the live passages the full-text index holds.
fn passages_by_decision(dir: &Path) -> BTreeMap<String, (i64, String, usize)> {
    use tantivy::query::TermQuery;
    use tantivy::schema::{IndexRecordOption, Term};
    let g = index::Generation::open_verified(dir).unwrap();
    let searcher = g.decisions_reader.searcher();
    let rows: Vec<(String, i64, String)> = g
        .store
        .with(|c| {
            let mut st = c.prepare("SELECT ext_id, id, index_key FROM decisions")?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<Result<_, _>>()?;
            Ok(rows)
        })
        .unwrap();
    rows.into_iter()
        .map(|(ext, id, key)| {
            let q = TermQuery::new(
                Term::from_field_u64(g.decision_fields.decision_id, id as u64),
                IndexRecordOption::Basic,
            );
            let n = searcher.search(&q, &tantivy::collector::Count).unwrap();
            (ext, (id, key, n))
        })
        .collect()
}

/// Per decision (ext id): its citations as the generation in `dir` serves them.
fn citations_by_decision(dir: &Path) -> BTreeMap<String, Vec<index::citation_rows::StoredCitation>> {
    let g = index::Generation::open_verified(dir).unwrap();
    let rows: Vec<(String, i64)> = g
        .store
        .with(|c| {
            let mut st = c.prepare("SELECT ext_id, id FROM decisions")?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<_, _>>()?;
            Ok(rows)
        })
        .unwrap();
    rows.into_iter().map(|(ext, id)| (ext, g.decision_citations(id).unwrap())).collect()
}

/// Each decision's citations line (resolve's parts) by its decision id.
fn citations_by_id(data: &Path) -> BTreeMap<String, String> {
    by_id(legal_tests::citation_lines(data).into_iter())
}

/// Each decision's line (extract's parts) by its decision id.
fn decisions_by_id(data: &Path) -> BTreeMap<String, String> {
    by_id(legal_tests::decision_lines(data).into_iter())
}

fn by_id(lines: impl Iterator<Item = String>) -> BTreeMap<String, String> {
    lines.map(|l| (serde_json::from_str::<Value>(&l).unwrap()["id"].as_str().unwrap().to_string(), l)).collect()
}

/// Per decision (ext id): its row as the generation in `dir` holds it, less where its body
/// lies (pack and offset differ between a build that kept bodies and one that wrote them all),
/// with its court's name and its file numbers as rows of `decision_file_numbers`.
fn rows_by_decision(dir: &Path) -> BTreeMap<String, Vec<Option<String>>> {
    let g = index::Generation::open_verified(dir).unwrap();
    g.store
        .with(|c| {
            let mut st = c.prepare(
                "SELECT d.ext_id, c.name, d.court_name_raw, d.chamber, d.date, d.date_raw, d.date_confidence, d.ecli,
                    d.ecli_date_agrees, d.document_type, d.document_type_raw, d.title, d.file_numbers, d.norms_raw,
                    d.source_format, d.flags, d.notes, d.sources, d.text_length, d.citing_count, d.text_key,
                    d.index_key, d.build_key, d.passages,
                    (SELECT group_concat(f.fn_norm || '=' || f.file_number, '|') FROM
                        (SELECT * FROM decision_file_numbers WHERE decision_id = d.id ORDER BY fn_norm, file_number) f)
                 FROM decisions d LEFT JOIN courts c ON c.id = d.court_id",
            )?;
            let rows = st
                .query_map([], |r| {
                    let cols = (1..25)
                        .map(|i| {
                            r.get::<_, rusqlite::types::Value>(i).map(|v| match v {
                                rusqlite::types::Value::Null => None,
                                v => Some(format!("{v:?}")),
                            })
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok((r.get::<_, String>(0)?, cols))
                })?
                .collect::<Result<_, _>>()?;
            Ok(rows)
        })
        .unwrap()
}

/// A record that cannot be normalised is cached as a failure too, so a night on which
/// another record changes neither normalises it again nor removes its cache file; the
/// changed record's earlier file is the one removed. On the embedded sample (no shared data).
#[test]
fn a_night_normalises_only_the_changed_record_and_keeps_the_cache_file_of_one_that_failed() {
    let mirror = Mirror::start(vec![sample_gii()]);
    let work = tempfile::tempdir().unwrap();
    let dump = work.path().join("cases.jsonl.gz");
    let mut lines = read_gz_lines(&legal_tests::sample_oldp_dump());
    lines.push(r#"{"id": 9999999, "court": {"name": "AG Cut"}, "content": "<p>cut off"#.to_string());
    write_gz_lines(&dump, &lines);
    let data = work.path().join("data");
    let extract_line = |log: &str| -> String {
        log[log.find("extract decisions:").unwrap_or_else(|| panic!("no extract line in {log}"))..].to_string()
    };
    let night = |dump: &Path| {
        let mut log = ingest_statutes_and_dump(&data, &mirror.base_url(), dump);
        log.push_str(&run_stage_ok("extract", &["--data-dir", data.to_str().unwrap()]));
        extract_line(&log)
    };
    let first = night(&dump);
    assert_eq!(count_before(&first, "failed;"), 1, "the cut-off record fails: {first}");
    let mut record: Value = serde_json::from_str(&lines[0]).unwrap();
    record["content"] = Value::String(format!("{} Ergänzend: § 823 BGB.", record["content"].as_str().unwrap_or("")));
    lines[0] = record.to_string();
    write_gz_lines(&dump, &lines);
    let second = night(&dump);
    assert_eq!(count_before(&second, "normalised,"), 1, "only the changed record: {second}");
    assert_eq!(count_before(&second, "failed;"), 1, "{second}");
    assert_eq!(count_before(&second, "stale cache files removed"), 1, "the changed record's earlier file: {second}");
    let cache_files = record_cache_files(&data);
    assert_eq!(cache_files, count_before(&second, "records;"), "one per record read, the failed one's too: {second}");
}
