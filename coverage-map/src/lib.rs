//! The version-controlled coverage map (`coverage-map/coverage.json`): what the pipeline
//! ingests, bucket by bucket. An absence inside a bucket and an absence outside every bucket
//! are different answers; this map is what tells them apart.

use serde::{Deserialize, Serialize};

/// The map as shipped with the code.
pub const COVERAGE_JSON: &str = include_str!("../coverage.json");

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CoverageMap {
    pub as_of: String,
    pub buckets: Vec<Bucket>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Bucket {
    pub bucket: String,
    /// Canonical court name for decision buckets; null for statutes.
    pub court: Option<String>,
    pub label: String,
    /// First and last date covered (ISO), null when the bucket has no date bound.
    pub from: Option<String>,
    pub until: Option<String>,
    pub sources: Vec<String>,
    /// True when the bucket holds everything its sources publish in the range.
    pub exhaustive: bool,
    pub ocr: bool,
    pub note: String,
}

impl Bucket {
    /// Whether an ISO date lies in the bucket's range (open ends are open).
    pub fn contains_date(&self, date: &str) -> bool {
        self.from.as_deref().is_none_or(|f| date >= f) && self.until.as_deref().is_none_or(|u| date <= u)
    }
}

/// One item of a source's table of contents as the index reads it: the canonical court it
/// names (None when the court line is unreadable), its decision date (ISO, None when
/// unreadable) and whether this generation holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct TocEntry {
    pub key: String,
    pub court: Option<String>,
    pub date: Option<String>,
    pub held: bool,
}

/// How many toc items a missing list names at most (the count is always whole).
pub const MISSING_LISTED: usize = 20;

/// A decision bucket measured against the toc this generation was built from: the claim of
/// the map next to what was measured. Exhaustive is measured, never declared: a bucket is
/// exhaustive only when the toc was read, lists at least one item of the court in the window,
/// and every such item is held.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Measured {
    pub bucket: String,
    pub court: String,
    pub claimed_exhaustive: bool,
    pub toc_read: bool,
    /// Toc items of the court in the window (an item whose date is unreadable counts: it may
    /// lie in the window, and counting it can only make the bucket less exhaustive).
    pub toc_items_in_window: u64,
    pub held: u64,
    pub missing: u64,
    pub measured_exhaustive: bool,
    /// Why the bucket is not measured exhaustive (`no_toc_read`, `no_toc_item_in_window`,
    /// `toc_items_missing`), None when it is.
    pub not_exhaustive_because: Option<String>,
    /// Keys of missing toc items, at most [`MISSING_LISTED`].
    pub missing_keys: Vec<String>,
}

/// Measures every bucket that names a court and is fed by a source with a toc
/// (`rechtsprechung-im-internet.de`); `toc` is None when no toc was read.
pub fn measure(map: &CoverageMap, toc: Option<&[TocEntry]>) -> Vec<Measured> {
    let toc_sources = ["rechtsprechung-im-internet.de"];
    map.buckets
        .iter()
        .filter(|b| b.sources.iter().any(|s| toc_sources.contains(&s.as_str())))
        .filter_map(|b| {
            let court = b.court.clone()?;
            let in_window: Vec<&TocEntry> = toc
                .unwrap_or_default()
                .iter()
                .filter(|t| t.court.as_deref() == Some(court.as_str()))
                .filter(|t| t.date.as_deref().is_none_or(|d| b.contains_date(d)))
                .collect();
            let missing: Vec<&TocEntry> = in_window.iter().copied().filter(|t| !t.held).collect();
            let because = if toc.is_none() {
                Some("no_toc_read")
            } else if in_window.is_empty() {
                Some("no_toc_item_in_window")
            } else if !missing.is_empty() {
                Some("toc_items_missing")
            } else {
                None
            };
            Some(Measured {
                bucket: b.bucket.clone(),
                court,
                claimed_exhaustive: b.exhaustive,
                toc_read: toc.is_some(),
                toc_items_in_window: in_window.len() as u64,
                held: (in_window.len() - missing.len()) as u64,
                missing: missing.len() as u64,
                measured_exhaustive: b.exhaustive && because.is_none(),
                not_exhaustive_because: because.map(str::to_string),
                missing_keys: missing.iter().take(MISSING_LISTED).map(|t| t.key.clone()).collect(),
            })
        })
        .collect()
}

/// Parses and checks a map: unique bucket names, ISO dates, `from <= until`.
pub fn parse(json: &str) -> anyhow::Result<CoverageMap> {
    let m: CoverageMap = serde_json::from_str(json)?;
    let mut seen = std::collections::HashSet::new();
    for b in &m.buckets {
        anyhow::ensure!(seen.insert(b.bucket.clone()), "bucket {} appears twice", b.bucket);
        for d in [&b.from, &b.until].into_iter().flatten() {
            anyhow::ensure!(is_iso_date(d), "bucket {}: {d:?} is not YYYY-MM-DD", b.bucket);
        }
        if let (Some(f), Some(u)) = (&b.from, &b.until) {
            anyhow::ensure!(f <= u, "bucket {}: from {f} is after until {u}", b.bucket);
        }
    }
    Ok(m)
}

fn is_iso_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

/// The shipped map.
pub fn shipped() -> CoverageMap {
    parse(COVERAGE_JSON).expect("coverage.json is checked by the tests")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_map_parses_and_bad_maps_are_refused() {
        assert!(!shipped().buckets.is_empty());
        let dup = r#"{"as_of":"2026-01-01","buckets":[
            {"bucket":"a","court":null,"label":"","from":null,"until":null,"sources":[],"exhaustive":true,"ocr":false,"note":""},
            {"bucket":"a","court":null,"label":"","from":null,"until":null,"sources":[],"exhaustive":true,"ocr":false,"note":""}]}"#;
        assert!(parse(dup).is_err());
        let bad_date = r#"{"as_of":"2026-01-01","buckets":[
            {"bucket":"a","court":null,"label":"","from":"2020-13","until":null,"sources":[],"exhaustive":true,"ocr":false,"note":""}]}"#;
        assert!(parse(bad_date).is_err());
        let b: Bucket = serde_json::from_str(
            r#"{"bucket":"a","court":null,"label":"","from":"2010-01-01","until":null,"sources":[],"exhaustive":true,"ocr":false,"note":""}"#,
        )
        .unwrap();
        assert!(b.contains_date("2010-01-01") && b.contains_date("2024-05-01") && !b.contains_date("2009-12-31"));
    }

    #[test]
    fn exhaustive_is_measured_against_the_toc() {
        let map = shipped();
        let entry = |key: &str, court: &str, date: Option<&str>, held: bool| TocEntry {
            key: key.into(),
            court: Some(court.into()),
            date: date.map(str::to_string),
            held,
        };
        let of = |m: &[Measured], court: &str| m.iter().find(|x| x.court == court).cloned().unwrap();
        // No toc read: nothing is exhaustive, whatever the map claims.
        let none = measure(&map, None);
        assert!(!none.is_empty() && none.iter().all(|m| !m.measured_exhaustive && m.claimed_exhaustive));
        assert_eq!(of(&none, "Bundesgerichtshof").not_exhaustive_because.as_deref(), Some("no_toc_read"));
        let toc = vec![
            entry("A", "Bundesverfassungsgericht", Some("2018-08-22"), true),
            entry("B", "Bundesverwaltungsgericht", Some("2015-01-01"), true),
            entry("C", "Bundesverwaltungsgericht", Some("2016-01-01"), false),
            // Before the window: does not count.
            entry("D", "Bundesfinanzhof", Some("2005-01-01"), false),
            entry("E", "Bundesfinanzhof", Some("2012-01-01"), true),
            // Undated: counts, and is missing.
            entry("F", "Bundessozialgericht", None, false),
        ];
        let m = measure(&map, Some(&toc));
        let bverfg = of(&m, "Bundesverfassungsgericht");
        assert!(bverfg.measured_exhaustive && bverfg.toc_items_in_window == 1 && bverfg.missing == 0);
        let bverwg = of(&m, "Bundesverwaltungsgericht");
        assert!(!bverwg.measured_exhaustive);
        assert_eq!((bverwg.toc_items_in_window, bverwg.held, bverwg.missing), (2, 1, 1));
        assert_eq!(bverwg.missing_keys, ["C"]);
        assert!(of(&m, "Bundesfinanzhof").measured_exhaustive);
        assert_eq!(of(&m, "Bundessozialgericht").missing, 1);
        // A court the toc does not list at all is not exhaustive (the toc says nothing of it).
        let bgh = of(&m, "Bundesgerichtshof");
        assert_eq!(
            (bgh.measured_exhaustive, bgh.not_exhaustive_because.as_deref()),
            (false, Some("no_toc_item_in_window"))
        );
    }
}
