//! Where a decision citation lies in the coverage map of this generation, and what held
//! decisions say about a decision we do not hold.
//!
//! The rule the checker builds on: an absence is evidence (`not_found`) only inside a window
//! that is **measured** exhaustive (`coverage_measured`, written by `index` from the rii toc
//! this run read: every toc item of the court in the window is held). Everywhere else an
//! absence says nothing, and the verdict is `out_of_coverage` with the reason:
//!
//! - `court_not_printed` / `date_not_printed`: the citation cannot be placed in a window;
//! - `no_window_for_court`: no bucket names the court and no decision of it is held;
//! - `selection_only`: no bucket names the court, but Open Legal Data dumps (a selection,
//!   never a complete collection) hold some of its decisions;
//! - `outside_window`: the court has a window and the date lies outside it;
//! - `window_not_exhaustive`: inside a window the map claims, but the measurement does not
//!   bear the claim out (no toc read, the toc lists nothing of the court, or items are missing).

use coverage_map::Bucket;
use extract::citations::CaseCitation;
use extract::courts::{CourtTable, cited_court_fits, cited_court_readable, fold};
use index::Generation;
use index::store::file_number_norm;
use rusqlite::params;

use crate::contract::answer::ToolError;
use crate::contract::answers::{
    ATTESTED_LISTED, Attestation, BoundaryReason, BucketRef, CoverageBoundary, CoverageWindow, MeasuredWindow,
};

/// Where a case citation we hold nothing of lies.
pub enum Placement {
    /// Inside a window measured exhaustive: the absence is evidence. The window, measured.
    Exhaustive(CoverageWindow),
    /// Anywhere else: the boundary, with `reason`.
    Outside(CoverageBoundary),
}

/// One `coverage_measured` row (None when the bucket is not measured here).
pub fn measured(g: &Generation, bucket: &str) -> Result<Option<MeasuredWindow>, ToolError> {
    Ok(g.store.with(|c| {
        let mut st = c.prepare_cached(
            "SELECT claimed_exhaustive, toc_read, toc_items_in_window, held, missing, measured_exhaustive,
                    not_exhaustive_because, missing_keys FROM coverage_measured WHERE bucket = ?1",
        )?;
        let mut rows = st.query_map(params![bucket], |r| {
            let missing_keys: String = r.get(7)?;
            Ok(MeasuredWindow {
                claimed_exhaustive: r.get(0)?,
                toc_read: r.get(1)?,
                toc_items_in_window: r.get(2)?,
                held: r.get(3)?,
                missing: r.get(4)?,
                measured_exhaustive: r.get(5)?,
                not_exhaustive_because: r.get(6)?,
                missing_keys: serde_json::from_str(&missing_keys).unwrap_or_default(),
            })
        })?;
        Ok(rows.next().transpose()?)
    })?)
}

fn bucket_ref(b: &Bucket) -> BucketRef {
    BucketRef {
        bucket: b.bucket.clone(),
        label: b.label.clone(),
        from: b.from.clone(),
        until: b.until.clone(),
        source: b.sources.join(", "),
    }
}

/// Places a case citation of a decision we do not hold (see the module doc).
pub fn place(g: &Generation, c: &CaseCitation) -> Result<Placement, ToolError> {
    let outside = |reason: BoundaryReason, bucket: Option<&Bucket>| CoverageBoundary {
        reason,
        printed_court: c.court.clone(),
        printed_date: c.date.clone(),
        bucket: bucket.map(bucket_ref),
        court: None,
        claimed_exhaustive: None,
        measured: None,
        decisions_held_of_court: None,
        exhaustive: None,
    };
    let Some(court) = c.court.as_deref().filter(|p| cited_court_readable(p)) else {
        return Ok(Placement::Outside(outside(BoundaryReason::CourtNotPrinted, None)));
    };
    let map = coverage_map::shipped();
    let buckets: Vec<&Bucket> = resolve::case_law::buckets_for_cited_court(&map, court);
    if buckets.is_empty() {
        // Held decisions of a court the citation can name come from dumps: a selection.
        let held: i64 = held_of_court(g, court)?;
        if held > 0
            && let Some(oldp) = map.buckets.iter().find(|b| b.bucket == "oldp-dumps")
        {
            return Ok(Placement::Outside(CoverageBoundary {
                decisions_held_of_court: Some(held),
                exhaustive: Some(oldp.exhaustive),
                ..outside(BoundaryReason::SelectionOnly, Some(oldp))
            }));
        }
        return Ok(Placement::Outside(CoverageBoundary {
            decisions_held_of_court: Some(held),
            ..outside(BoundaryReason::NoWindowForCourt, None)
        }));
    }
    let Some(date) = c.date.as_deref() else {
        return Ok(Placement::Outside(outside(BoundaryReason::DateNotPrinted, Some(buckets[0]))));
    };
    let Some(b) = buckets.iter().find(|b| b.contains_date(date)) else {
        // The deciding range: the bucket whose start lies after the printed date, else the first.
        let b = buckets.iter().find(|b| b.from.as_deref().is_some_and(|f| date < f)).unwrap_or(&buckets[0]);
        return Ok(Placement::Outside(outside(BoundaryReason::OutsideWindow, Some(b))));
    };
    let m = measured(g, &b.bucket)?;
    if m.as_ref().is_some_and(|m| m.measured_exhaustive) {
        return Ok(Placement::Exhaustive(CoverageWindow {
            bucket: bucket_ref(b),
            court: b.court.clone(),
            claimed_exhaustive: b.exhaustive,
            measured: m,
        }));
    }
    Ok(Placement::Outside(CoverageBoundary {
        court: Some(b.court.clone()).flatten(),
        claimed_exhaustive: Some(b.exhaustive),
        measured: Some(m),
        ..outside(BoundaryReason::WindowNotExhaustive, Some(b))
    }))
}

/// How many held decisions are of a court the printed court can name.
fn held_of_court(g: &Generation, printed: &str) -> Result<i64, ToolError> {
    let courts = crate::store::courts::stored_courts(g)?;
    Ok(courts
        .iter()
        .filter(|(_, court, n)| *n > 0 && cited_court_fits(printed, court) == Some(true))
        .map(|(_, _, n)| n)
        .sum())
}

/// Held decisions that cite a decision we do not hold under the same file number and court
/// (and, where both print one, the same date), counted and the first few named. None when none
/// does, or when the citation prints no court (the same court cannot be told then) or no file
/// number.
pub fn attested_by(g: &Generation, c: &CaseCitation) -> Result<Option<Attestation>, ToolError> {
    let (Some(number), Some(court)) = (c.file_number.as_deref(), c.court.as_deref()) else { return Ok(None) };
    let cited = CourtTable::shipped().canonical(court);
    let fn_norm = file_number_norm(number);
    // The distinct (canonical court, court as printed, printed date) under which held decisions
    // cite this number: a few, however many decisions cite it (read from the covering index).
    type Mention = (Option<String>, Option<String>, Option<String>);
    let mentions: Vec<Mention> = g.store.with(|conn| {
        let mut st = conn
            .prepare_cached("SELECT DISTINCT court, court_raw, date FROM unheld_case_citations WHERE fn_norm = ?1")?;
        let rows = st
            .query_map(params![fn_norm], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    })?;
    let same_court = |canonical: Option<&str>, raw: Option<&str>| -> bool {
        match (&cited, canonical, raw) {
            (Some(k), Some(m), _) if k.in_reference_table => k.name == m,
            (Some(k), _, Some(r)) => cited_court_fits(r, k) == Some(true) || fold(r) == fold(court),
            (None, _, Some(r)) => fold(r) == fold(court),
            _ => false,
        }
    };
    let same: Vec<Mention> = mentions
        .into_iter()
        .filter(|(canonical, raw, date)| {
            same_court(canonical.as_deref(), raw.as_deref())
                && (c.date.is_none() || date.is_none() || date.as_deref() == c.date.as_deref())
        })
        .collect();
    if same.is_empty() {
        return Ok(None);
    }
    // The citing decisions of those mentions, counted once each; the first few by row id named.
    let mut vals: Vec<rusqlite::types::Value> = vec![fn_norm.into()];
    let mut alternatives = Vec::new();
    for (canonical, raw, date) in same {
        let n = vals.len();
        alternatives.push(format!("(court IS ?{} AND court_raw IS ?{} AND date IS ?{})", n + 1, n + 2, n + 3));
        vals.extend([canonical.into(), raw.into(), date.into()]);
    }
    let citing = format!("FROM unheld_case_citations WHERE fn_norm = ?1 AND ({})", alternatives.join(" OR "));
    let (total, listed): (i64, Vec<String>) = g.store.with(|conn| {
        let total = conn.query_row(
            &format!("SELECT COUNT(DISTINCT decision_id) {citing}"),
            rusqlite::params_from_iter(vals.iter()),
            |r| r.get(0),
        )?;
        let mut st = conn.prepare(&format!(
            "SELECT d.ext_id FROM decisions d WHERE d.id IN
               (SELECT DISTINCT decision_id {citing} ORDER BY decision_id LIMIT {ATTESTED_LISTED})"
        ))?;
        let listed =
            st.query_map(rusqlite::params_from_iter(vals.iter()), |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
        Ok((total, listed))
    })?;
    Ok(Attestation::new(listed, total as usize))
}
