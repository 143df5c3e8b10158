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
}
