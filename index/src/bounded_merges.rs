//! The decisions' merge policy: no merge produces a segment over a fixed number of passages.
//!
//! A merge maps its input segments, and every mapped page counts in the stage's resident
//! memory: at 100k decisions tantivy's default log policy ended with a merge of 1.3M passages
//! that mapped 1.5 GB, and its merges grow with the corpus (segments of up to 10M documents).
//! Here small segments (at most half the bound) are merged in groups of at least
//! [`MIN_SEGMENTS`], smallest first, each group summing to at most the bound: the work of a
//! merge, and the memory it maps, stay the same at any N; a large corpus has more segments. A
//! nightly build (one that carries an earlier generation's index) merges only its own small
//! segments ([`MAX_PASSAGES_PER_NIGHTLY_MERGE`]), so the carried ones stay shared files.

use tantivy::SegmentMeta;
use tantivy::indexer::{MergeCandidate, MergePolicy};

/// Passages (documents, deleted ones included) of the largest segment a merge may produce.
pub const MAX_PASSAGES_PER_MERGED_SEGMENT: u32 = 1_500_000;

/// The same bound in a build that carries an earlier generation's index (the nightly run): only
/// small segments, its own new ones, are merged. A carried segment merged again would be a new
/// file, shared with no generation (at 300k decisions one such merge cost 75 s, 1.5 GB of
/// mapped pages and 1.5 GB of disk per generation); the segments of a full build stay as they
/// are until the next one.
pub const MAX_PASSAGES_PER_NIGHTLY_MERGE: u32 = 400_000;

/// Fewest segments merged at once (tantivy's log policy merges 8): fewer merges, each of many.
const MIN_SEGMENTS: usize = 8;

#[derive(Debug, Clone)]
pub struct BoundedMerges {
    max_docs: u32,
}

impl BoundedMerges {
    /// The bound the decisions' index is built with from scratch.
    pub fn for_decisions() -> BoundedMerges {
        BoundedMerges { max_docs: MAX_PASSAGES_PER_MERGED_SEGMENT }
    }

    /// The bound when the build carries an earlier generation's index.
    pub fn for_nightly() -> BoundedMerges {
        BoundedMerges { max_docs: MAX_PASSAGES_PER_NIGHTLY_MERGE }
    }
}

impl MergePolicy for BoundedMerges {
    fn compute_merge_candidates(&self, segments: &[SegmentMeta]) -> Vec<MergeCandidate> {
        let mut small: Vec<&SegmentMeta> = segments.iter().filter(|s| s.max_doc() <= self.max_docs / 2).collect();
        small.sort_by_key(|s| s.max_doc());
        let mut out = Vec::new();
        let (mut group, mut sum) = (Vec::new(), 0u32);
        for s in small {
            if sum + s.max_doc() > self.max_docs {
                if group.len() >= MIN_SEGMENTS {
                    out.push(MergeCandidate(std::mem::take(&mut group)));
                }
                group.clear();
                sum = 0;
            }
            group.push(s.id());
            sum += s.max_doc();
        }
        if group.len() >= MIN_SEGMENTS {
            out.push(MergeCandidate(group));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{BoundedMerges, MAX_PASSAGES_PER_NIGHTLY_MERGE, MIN_SEGMENTS, MergePolicy};
    use tantivy::index::SegmentId;
    use tantivy::schema::Schema;
    use tantivy::{Index, SegmentMeta};

    fn segments(sizes: &[u32]) -> Vec<SegmentMeta> {
        let index = Index::create_in_ram(Schema::builder().build());
        sizes.iter().map(|&n| index.new_segment_meta(SegmentId::generate_random(), n)).collect()
    }

    #[test]
    fn no_merge_exceeds_the_bound_and_large_segments_are_left_alone() {
        let policy = BoundedMerges { max_docs: 1000 };
        // 20 flushed segments of 120 passages, two merged ones of 960, one of 600.
        let mut sizes = vec![120; 20];
        sizes.extend([960, 960, 600]);
        let metas = segments(&sizes);
        let size_of = |id| metas.iter().find(|m| m.id() == id).unwrap().max_doc();
        let candidates = policy.compute_merge_candidates(&metas);
        assert!(!candidates.is_empty(), "the small segments are merged");
        for c in &candidates {
            let total: u32 = c.0.iter().map(|id| size_of(*id)).sum();
            assert!(total <= 1000, "a merge of {total} passages");
            assert!(c.0.len() >= MIN_SEGMENTS);
            assert!(c.0.iter().all(|id| size_of(*id) <= 500), "a segment over half the bound is never merged again");
        }
        // Fewer small segments than a merge takes: nothing to do.
        assert!(policy.compute_merge_candidates(&segments(&[120; 7])).is_empty());
    }

    #[test]
    fn a_nightly_build_leaves_the_segments_of_a_full_build_alone() {
        let nightly = BoundedMerges::for_nightly();
        // A full build's flushed segments (about 160k passages at 128 MiB) and one night's new one.
        let mut sizes = vec![160_000; 7];
        sizes.push(50_000);
        assert!(nightly.compute_merge_candidates(&segments(&sizes)).is_empty());
        // Eight nights' small segments are merged, within the nightly bound.
        let small = segments(&[45_000; 8]);
        let candidates = nightly.compute_merge_candidates(&small);
        assert_eq!(candidates.len(), 1);
        assert!(45_000 * candidates[0].0.len() as u32 <= MAX_PASSAGES_PER_NIGHTLY_MERGE);
        // The full build's policy would merge the flushed segments.
        assert!(!BoundedMerges::for_decisions().compute_merge_candidates(&segments(&[160_000; 8])).is_empty());
    }
}
