//! `citations.bindings`, beside `citations.parts` and `citations.lines`: for each decision's
//! citations line, what the binding of its case citations read of the corpus and what it
//! yielded, so a night binds anew only the decisions a change can reach and carries every
//! other line, with its counts and its edges, without reading it.
//!
//! A line's bindings are a function of its case citations (its scan), the decision's own head
//! (id, court, date), the held decisions under each key its citations look up (file number,
//! ECLI) and the run's binding basis (`case_law::bind_basis`: court table, coverage map,
//! courts held, sources read). So under the same basis, a line whose scan is reused, whose
//! decision's head is the same, and none of whose looked-up keys is held by a decision that
//! appeared, vanished or changed its head (in a corpus whose decisions kept their order),
//! binds exactly as it did.
//!
//! Format: an [`extract::companion`] of `citations.parts` (its header as `citations.lines`'),
//! one JSON [`LineBinding`] per line, in order.
//!
//! Invariant: keys are compared by a 64-bit hash ([`key_hash`]); two keys sharing one only
//! make a line be bound anew that need not be, never the other way round.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use model::{CaseCitationStatus, WithheldReason};
use serde::{Deserialize, Serialize};

use crate::case_law::CaseRef;

pub fn line_bindings_path(data_dir: &Path) -> PathBuf {
    data_dir.join("work/resolve/citations.bindings")
}

/// What binding read and yielded for one decision's citations line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LineBinding {
    /// [`head_hash`] of the decision: what binding reads of the citing decision itself.
    pub head: String,
    /// [`key_hash`]es of the keys the decision is held under (its file numbers, its ECLI).
    pub held_under: Vec<u64>,
    /// [`key_hash`]es of the keys its case citations are looked up by, each once.
    pub looks_up: Vec<u64>,
    /// Its law citations.
    pub laws: usize,
    /// Its case citations by status, in the order of `CaseCitationStatus::ALL`.
    pub statuses: Vec<u32>,
    /// Its withheld case citations by reason, in the order of `WithheldReason::ALL`.
    pub withheld: Vec<u32>,
    /// The decision each resolved, not withheld, case citation binds to (ext id), in order.
    pub targets: Vec<String>,
}

impl LineBinding {
    /// The binding of a line with `laws` law citations and the bound case citations `cases`,
    /// of the decision whose head hashes to `head` and which is held under `held_under`.
    pub fn of(head: String, held_under: Vec<u64>, laws: usize, cases: &[CaseRef]) -> LineBinding {
        let mut looks_up: Vec<u64> = cases
            .iter()
            .filter_map(|c| crate::case_law::lookup_key(c.kind, c.file_number.as_deref(), c.ecli.as_deref()))
            .map(|k| key_hash(&k))
            .collect();
        looks_up.sort_unstable();
        looks_up.dedup();
        let mut statuses = vec![0u32; CaseCitationStatus::ALL.len()];
        let mut withheld = vec![0u32; WithheldReason::ALL.len()];
        let mut targets = Vec::new();
        for c in cases {
            if let Some(s) = CaseCitationStatus::ALL.iter().position(|s| *s == c.status) {
                statuses[s] += 1;
            }
            match (c.withheld, &c.target) {
                (Some(w), _) => {
                    if let Some(w) = WithheldReason::ALL.iter().position(|r| *r == w) {
                        withheld[w] += 1;
                    }
                }
                (None, Some(t)) => targets.push(t.clone()),
                (None, None) => {}
            }
        }
        LineBinding { head, held_under, looks_up, laws, statuses, withheld, targets }
    }

    /// Its case citations.
    pub fn cases(&self) -> usize {
        self.statuses.iter().map(|&n| n as usize).sum()
    }
}

/// A key's 64-bit FNV-1a hash: stable across runs and builds, cheap for millions of keys.
pub fn key_hash(key: &str) -> u64 {
    key.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The hash of what binding reads of a decision itself (its id, court, date and the keys it
/// is held under, sorted): equal in two runs exactly when binding sees the same decision.
pub fn head_hash(id: &str, court: Option<&extract::courts::Court>, date: Option<&str>, keys: &[String]) -> String {
    use sha2::Digest;
    let mut keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    keys.sort_unstable();
    let text = serde_json::json!([id, court, date, keys]).to_string();
    hex::encode(&sha2::Sha256::digest(text.as_bytes())[..16])
}

/// Every line's binding, in order, when `citations.bindings` describes the list whose sha256
/// is `sha256` exactly as it lies on disk and every entry parses; None otherwise.
pub fn read_line_bindings(data_dir: &Path, sha256: &str) -> Option<Vec<LineBinding>> {
    let file = std::fs::File::open(crate::case_law::citations_layout(data_dir).list).ok()?;
    extract::companion::open_companion(&line_bindings_path(data_dir), sha256, &file)?
        .lines()
        .map(|l| serde_json::from_str(&l.ok()?).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_hash_is_fnv1a_and_stable() {
        // The published FNV-1a 64 test vectors: a change of function would silently make
        // every earlier companion describe other keys.
        assert_eq!(key_hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(key_hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(key_hash("foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn a_head_hash_changes_with_anything_binding_reads_of_the_decision_and_not_with_key_order() {
        let keys = |k: &[&str]| k.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let base = head_hash("a", None, Some("2020-01-01"), &keys(&["1C1/20", "ECLI=X"]));
        assert_eq!(base, head_hash("a", None, Some("2020-01-01"), &keys(&["ECLI=X", "1C1/20"])));
        assert_ne!(base, head_hash("b", None, Some("2020-01-01"), &keys(&["1C1/20", "ECLI=X"])));
        assert_ne!(base, head_hash("a", None, Some("2020-01-02"), &keys(&["1C1/20", "ECLI=X"])));
        assert_ne!(base, head_hash("a", None, None, &keys(&["1C1/20", "ECLI=X"])));
        assert_ne!(base, head_hash("a", None, Some("2020-01-01"), &keys(&["1C1/20"])));
        let court = extract::courts::CourtTable::shipped().canonical("BVerwG").unwrap();
        assert_ne!(base, head_hash("a", Some(&court), Some("2020-01-01"), &keys(&["1C1/20", "ECLI=X"])));
    }
}
