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

/// How many held decisions are of a court the printed court can name. Each printed court is
/// read against every stored court once per generation: a text cites the same few courts over
/// and over (the answers of the first [`HELD_OF_COURT_KEPT`] printed courts are kept).
fn held_of_court(g: &Generation, printed: &str) -> Result<i64, ToolError> {
    type Kept = std::sync::Mutex<std::collections::HashMap<String, i64>>;
    static KEPT: crate::store::kept::PerGeneration<Kept> = crate::store::kept::PerGeneration::new();
    let kept = KEPT.get(g, |_| Ok(Kept::default()))?;
    if let Some(&n) = kept.lock().unwrap_or_else(|e| e.into_inner()).get(printed) {
        return Ok(n);
    }
    let courts = crate::store::courts::stored_courts(g)?;
    let n = courts
        .iter()
        .filter(|(_, court, n)| *n > 0 && cited_court_fits(printed, court) == Some(true))
        .map(|(_, _, n)| n)
        .sum();
    let mut kept = kept.lock().unwrap_or_else(|e| e.into_inner());
    if kept.len() < HELD_OF_COURT_KEPT {
        kept.insert(printed.to_string(), n);
    }
    Ok(n)
}

/// How many printed courts' counts [`held_of_court`] keeps per generation (a bound on memory
/// whatever texts are sent).
const HELD_OF_COURT_KEPT: usize = 4096;

// A mention's or a group's stored ids are the decisions an attestation names.
const _: () = assert!(ATTESTED_LISTED <= index::unheld_mentions::FIRST_IDS);

/// Held decisions that cite a decision we do not hold under the same file number and court
/// (and, where both print one, the same date), counted and the first few named. None when none
/// does, or when the citation prints no court (the same court cannot be told then) or no file
/// number.
pub fn attested_by(g: &Generation, c: &CaseCitation) -> Result<Option<Attestation>, ToolError> {
    let (Some(number), Some(court)) = (c.file_number.as_deref(), c.court.as_deref()) else { return Ok(None) };
    let cited = CourtTable::shipped().canonical(court);
    let fn_norm = file_number_norm(number);
    // The distinct (canonical court, court as printed, printed date) under which held decisions
    // cite this number, each with how many decisions cite it so and the lowest row ids among
    // them: a few rows, however many decisions cite the number (`index::unheld_mentions`).
    struct Mention {
        ordinal: i64,
        court: Option<String>,
        court_raw: Option<String>,
        date: Option<String>,
        decisions: i64,
        first_ids: String,
    }
    let mentions: Vec<Mention> = g.store.with(|conn| {
        let mut st = conn.prepare_cached(
            "SELECT ordinal, court, court_raw, date, decisions, first_ids FROM unheld_mentions WHERE fn_norm = ?1",
        )?;
        let rows = st
            .query_map(params![fn_norm], |r| {
                Ok(Mention {
                    ordinal: r.get(0)?,
                    court: r.get(1)?,
                    court_raw: r.get(2)?,
                    date: r.get(3)?,
                    decisions: r.get(4)?,
                    first_ids: r.get(5)?,
                })
            })?
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
        .filter(|m| {
            same_court(m.court.as_deref(), m.court_raw.as_deref())
                && (c.date.is_none() || m.date.is_none() || m.date.as_deref() == c.date.as_deref())
        })
        .collect();
    let parse_ids = |ids: &str| ids.split(',').filter_map(|id| id.parse::<i64>().ok()).collect::<Vec<_>>();
    // The citing decisions of those mentions, counted once each; the first few by row id named.
    // One mention: its own count and ids. Several: a decision may cite the number in two of
    // them, so the decisions are counted from the number's groups (disjoint, each the decisions
    // using one set of its mentions): those holding one of the mentions, summed.
    let (total, ids): (usize, Vec<i64>) = match same.as_slice() {
        [] => return Ok(None),
        [one] => (one.decisions as usize, parse_ids(&one.first_ids)),
        several => g.store.with(|conn| {
            let wanted: std::collections::BTreeSet<i64> = several.iter().map(|m| m.ordinal).collect();
            let mut st = conn.prepare_cached(
                "SELECT mentions, decisions, first_ids FROM unheld_mention_groups WHERE fn_norm = ?1",
            )?;
            let groups = st.query_map(params![fn_norm], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?, r.get::<_, String>(2)?))
            })?;
            let (mut total, mut ids) = (0usize, Vec::new());
            for group in groups {
                let (mentions, decisions, first_ids) = group?;
                if mentions.split(',').filter_map(|o| o.parse::<i64>().ok()).any(|o| wanted.contains(&o)) {
                    total += decisions as usize;
                    ids.extend(parse_ids(&first_ids));
                }
            }
            // The lowest ids of the union are among each group's lowest (the groups are disjoint).
            ids.sort_unstable();
            ids.truncate(ATTESTED_LISTED);
            Ok((total, ids))
        })?,
    };
    let listed: Vec<String> = g.store.with(|conn| {
        let mut st = conn.prepare_cached("SELECT ext_id FROM decisions WHERE id = ?1")?;
        let mut listed = Vec::with_capacity(ids.len());
        for id in ids.iter().take(ATTESTED_LISTED) {
            listed.push(st.query_row([id], |r| r.get::<_, String>(0))?);
        }
        Ok(listed)
    })?;
    Ok(Attestation::new(listed, total))
}
