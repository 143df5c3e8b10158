//! Which decision each passage of the decisions' index belongs to, as runs of doc ids, so a
//! walk over a query's matches reads one passage per matching decision and seeks past the
//! rest of its passages, instead of reading a decision id for every matching passage.
//!
//! Runs are read from the `decision_id` fast field (a run is a longest stretch of docs of one
//! decision) once per generation and segment, and kept while the generation serves. The walk
//! is exact for any layout: it skips only the rest of the run it matched in, and keeps a set
//! of the decisions it has given. That it reads one passage per decision rests on the `index`
//! stage's layout: a decision's passages are added together by one writer thread, so they are
//! one run in one segment; merges concatenate segments; a decision written again on a night
//! has its old passages deleted whole.

use std::collections::HashMap;
use std::ops::ControlFlow;

use crate::contract::answer::ToolError;
use crate::store::kept::PerGeneration;
use index::Generation;
use tantivy::index::SegmentId;
use tantivy::query::{EnableScoring, Query};
use tantivy::{DocId, Searcher, SegmentReader, TERMINATED};

/// One segment's passages by decision: run `r` holds docs `starts[r]..starts[r + 1]` (the
/// last up to `max_doc`), all of decision `decisions[r]` (None: passages without an id).
pub(crate) struct SegmentRuns {
    starts: Vec<DocId>,
    decisions: Vec<Option<u64>>,
    max_doc: DocId,
}

impl SegmentRuns {
    /// The runs of `reader`'s docs, deleted ones included (their runs are runs like any).
    fn read(reader: &SegmentReader) -> tantivy::Result<SegmentRuns> {
        let ids = reader.fast_fields().u64("decision_id")?;
        let max_doc = reader.max_doc();
        let (mut starts, mut decisions) = (Vec::new(), Vec::new());
        let (mut docs, mut block) = (Vec::with_capacity(1024), Vec::with_capacity(1024));
        for from in (0..max_doc).step_by(1024) {
            docs.clear();
            docs.extend(from..(from + 1024).min(max_doc));
            block.clear();
            block.resize(docs.len(), None);
            ids.first_vals(&docs, &mut block);
            for (&doc, &id) in docs.iter().zip(&block) {
                if decisions.last() != Some(&id) {
                    starts.push(doc);
                    decisions.push(id);
                }
            }
        }
        Ok(SegmentRuns { starts, decisions, max_doc })
    }

    /// The run holding `doc`, looked for from run `from` on (`doc` is at or after its start).
    /// Galloping: the next match of a query lies a few runs on far more often than far away,
    /// and a search of the nearby runs stays in cache where one over all of them would not.
    fn run_of(&self, doc: DocId, from: usize) -> usize {
        let n = self.starts.len();
        let (mut lo, mut step) = (from, 1);
        // Invariant: starts[lo] <= doc. Widen until a start past `doc` (or the end) is found.
        let hi = loop {
            let probe = lo + step;
            if probe >= n {
                break n;
            }
            if self.starts[probe] > doc {
                break probe;
            }
            lo = probe;
            step *= 2;
        };
        lo + self.starts[lo..hi].partition_point(|&s| s <= doc) - 1
    }

    /// Where run `r` ends: the first doc after it, or `max_doc`.
    fn end(&self, r: usize) -> DocId {
        self.starts.get(r + 1).copied().unwrap_or(self.max_doc)
    }
}

/// Every segment's runs of a generation's decisions' index, by segment.
pub(crate) struct PassageRuns(HashMap<SegmentId, SegmentRuns>);

/// The runs of `g`'s decisions' index, read on first use and kept while `g` serves.
fn passage_runs(g: &Generation, searcher: &Searcher) -> Result<std::sync::Arc<PassageRuns>, ToolError> {
    static KEPT: PerGeneration<PassageRuns> = PerGeneration::new();
    KEPT.get(g, |_| {
        let mut by_segment = HashMap::new();
        for reader in searcher.segment_readers() {
            by_segment.insert(reader.segment_id(), SegmentRuns::read(reader)?);
        }
        Ok(PassageRuns(by_segment))
    })
}

/// Calls `f` with each decision (row id) that has a live passage matching `q`, once, in index
/// order, until `f` breaks. No passage is scored.
pub fn for_each_matching_decision(
    g: &Generation,
    searcher: &Searcher,
    q: &dyn Query,
    mut f: impl FnMut(u64) -> ControlFlow<()>,
) -> Result<(), ToolError> {
    let runs = passage_runs(g, searcher)?;
    let weight = q.weight(EnableScoring::disabled_from_searcher(searcher))?;
    // A decision has one run in one segment by the layout above; the set keeps it once if not.
    let mut seen = SeenIds::default();
    for reader in searcher.segment_readers() {
        let read_now;
        let segment = match runs.0.get(&reader.segment_id()) {
            Some(s) => s,
            None => {
                // Not among the kept runs (a reader that reloaded): read for this call.
                read_now = SegmentRuns::read(reader)?;
                &read_now
            }
        };
        let alive = reader.alive_bitset();
        let mut scorer = weight.scorer(reader, 1.0)?;
        let (mut doc, mut r) = (scorer.doc(), 0);
        while doc != TERMINATED {
            r = segment.run_of(doc, r);
            let id = segment.decisions[r].filter(|_| alive.is_none_or(|a| a.is_alive(doc)));
            let Some(id) = id else {
                doc = scorer.advance();
                continue;
            };
            if seen.insert(id) && f(id).is_break() {
                return Ok(());
            }
            let end = segment.end(r);
            doc = if end >= segment.max_doc { TERMINATED } else { scorer.seek(end) };
        }
    }
    Ok(())
}

/// Decision row ids already seen. Row ids are dense (assigned from 1 up), so a bit per id is
/// the cheapest set; it grows as ids come.
#[derive(Default)]
struct SeenIds(Vec<u64>);

impl SeenIds {
    /// Adds `id`; false when it was there.
    fn insert(&mut self, id: u64) -> bool {
        let (word, bit) = ((id / 64) as usize, 1u64 << (id % 64));
        if word >= self.0.len() {
            self.0.resize(word + 1, 0);
        }
        let new = self.0[word] & bit == 0;
        self.0[word] |= bit;
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(starts: &[DocId], max_doc: DocId) -> SegmentRuns {
        SegmentRuns { starts: starts.to_vec(), decisions: (0..starts.len() as u64).map(Some).collect(), max_doc }
    }

    #[test]
    fn a_doc_is_found_in_its_run_from_any_earlier_run() {
        let s = runs(&[0, 3, 4, 10, 11, 12, 13, 20, 40], 50);
        for doc in 0..50 {
            let want = s.starts.iter().rposition(|&st| st <= doc).unwrap();
            for from in 0..=want {
                assert_eq!(s.run_of(doc, from), want, "doc {doc} from run {from}");
            }
            assert!(s.starts[want] <= doc && doc < s.end(want));
        }
        assert_eq!(s.end(8), 50);
    }
}
