//! `assemble_datapackage`: 1 to 10 decisions with an excerpt or their full text and their
//! outgoing citation edges, in one package sized for an LLM context.
//!
//! The package has a budget (`max_chars`, counted as characters of the serialised
//! `decisions` and `citation_edges` arrays). When it is over budget it sheds in the fixed
//! order of seed 002 ("Response budget"), stopping as soon as it fits:
//! 1. text shortened, uniformly, down to a span-anchored excerpt of about 300 characters;
//! 2. `citation_edges` capped to N rows per source, down to one;
//! 3. whole decisions dropped from the END of `ids` (at least one survives).
//!
//! Nothing is cut silently: every text says where it starts, how long it is and whether more
//! follows (`total_length`, `has_more`, `next_offset`, as `get_decision`'s snippets); every
//! shed step is named in `truncation`, dropped decisions in `truncation.dropped_seed_ids`, and
//! edges in `edge_accounting` (total = included + dropped, per source and overall).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use extract::courts::fold;
use index::Generation;
use index::citation_rows::StoredCitation;
use model::{CaseCitationStatus, CitationRole, WithheldReason};
use serde_json::{Value, json};

use crate::contract::answer::ToolError;
use crate::contract::answers::{
    CandidateDecision, CitationEdgeRow, DatapackageAnswer, EdgeAccounting, EdgeCaps, EdgeTarget, PackageDecision,
    PackageTruncation, ShedStep, SourceEdgeAccounting, TextWindow, TruncatedReason,
};
use crate::contract::args::AssembleDatapackageArgs;
use crate::query::identifiers::resolve_decision;
use crate::store::decisions::{Decision, decision_by_id};

pub const IDS_MAX: usize = 10;
pub const MAX_CHARS_DEFAULT: i64 = 60_000;
pub const MAX_CHARS_MIN: i64 = 500;
pub const MAX_CHARS_MAX: i64 = 200_000;
/// The default excerpt (seed 002: "about 700 characters").
const EXCERPT_CHARS: usize = 700;
/// The floor of shedding step 1 (seed 002: "about 300 characters").
const EXCERPT_FLOOR: usize = 300;
/// Per source decision, before any budget: distinct resolved targets and unresolved rows.
const RESOLVED_TARGET_CAP: usize = 50;
const UNRESOLVED_ROW_CAP: usize = 50;
/// Withheld citations that are not edges at all (impossible on their face): counted, not served.
const NOT_SERVED: &[WithheldReason] = &[WithheldReason::SelfReference, WithheldReason::ForwardDate];

const SHED_ORDER: [ShedStep; 3] = [ShedStep::TextShortened, ShedStep::EdgesCapped, ShedStep::DecisionsDropped];
const BUDGET_BASIS: &str = "characters of the serialised decisions and citation_edges arrays (texts, metadata, edge rows); the envelope, edge_accounting and truncation are not counted";

/// One requested decision with what the package may serve of it.
struct Seed {
    d: Decision,
    chars: Vec<char>,
    /// (name, start): where an excerpt starts (Leitsatz, else Tenor, else Gründe), or None.
    span: Option<(String, usize)>,
    /// Every edge row, best first (resolved, then procedural, then most cited).
    edges: Vec<CitationEdgeRow>,
    /// Edge rows before the per-source caps.
    edges_total: usize,
    resolved_total: usize,
    unresolved_by_status: BTreeMap<String, usize>,
    withheld_not_served: BTreeMap<String, usize>,
    occurrences: usize,
}

/// How much of each decision the package serves: the state the shedding moves.
#[derive(Clone, Copy)]
struct Shape {
    /// Characters of text per decision.
    text_cap: usize,
    /// True: excerpts at the substantive span; false: full text from offset 0.
    span_anchored: bool,
    /// Edge rows per source, None = untouched.
    edge_cap: Option<usize>,
    /// Decisions kept, from the front of `ids`.
    kept: usize,
    /// Shedding step 1 ran: a cut text says `budget_shedding`, not its natural reason.
    shortened: bool,
}

/// `assemble_datapackage(ids, include_citations?, full_text?, max_chars?)`.
pub fn assemble_datapackage(g: &Generation, a: AssembleDatapackageArgs) -> Result<DatapackageAnswer, ToolError> {
    let AssembleDatapackageArgs { ids, include_citations, full_text, .. } = a;
    let max_chars = a.max_chars as usize;

    // Every id must name exactly one decision: a package silently missing one would read as
    // complete, so the whole call fails and names each id that did not resolve.
    let mut resolved: Vec<Decision> = Vec::new();
    let mut unresolved: Vec<Value> = Vec::new();
    let mut first_code = None;
    for id in &ids {
        crate::contract::deadline::check()?;
        match resolve_decision(g, id, None, None) {
            Ok(d) => resolved.push(d),
            Err(e) => {
                first_code.get_or_insert(e.code);
                let mut v = json!({"id": id, "error_code": e.code.as_str(), "message": e.message});
                if let Some(c) = e.details.get("candidates") {
                    v["candidates"] = c.clone();
                }
                unresolved.push(v);
            }
        }
    }
    if let Some(code) = first_code {
        return Err(ToolError::new(
            code,
            format!("{} of {} ids name no single decision; nothing was assembled", unresolved.len(), ids.len()),
            "Fix or drop the ids in unresolved_ids: use an id from search_decisions, pick a candidate's id for a shared Aktenzeichen, or check the spelling.",
        )
        .with("unresolved_ids", unresolved));
    }
    let requested = resolved.len();
    let mut seen = BTreeSet::new();
    resolved.retain(|d| seen.insert(d.id));
    let deduped = requested - resolved.len();

    let seeds: Vec<Seed> =
        resolved.into_iter().map(|d| load_seed(g, d, include_citations)).collect::<Result<_, _>>()?;
    let natural = Shape {
        text_cap: if full_text { max_chars } else { EXCERPT_CHARS },
        span_anchored: !full_text,
        edge_cap: None,
        kept: seeds.len(),
        shortened: false,
    };
    let size_before = size(&seeds, natural, full_text);
    let (shape, steps) = shed(&seeds, natural, full_text, max_chars);
    let (decisions, edges) = build(&seeds, shape, full_text);
    let size_after = chars_of(&decisions, &edges);
    let fits = size_after <= max_chars;

    let texts_cut = decisions.iter().any(|d| d.truncated);
    let accounting = include_citations.then(|| edge_accounting(&seeds, shape));
    let edges_dropped = accounting.as_ref().is_some_and(|a| a.dropped > 0);
    let mut truncation = None;
    let mut truncation_notice = None;
    let mut guidance = None;
    if !steps.is_empty() {
        let dropped: Vec<String> = seeds[shape.kept..].iter().map(|s| s.d.ext_id.clone()).collect();
        let mut notice = format!(
            "Das Paket überschritt das Budget von {max_chars} Zeichen ({size_before}) und wurde gekürzt: {}.",
            steps
                .iter()
                .map(|s| match *s {
                    ShedStep::TextShortened => format!("Texte auf {} Zeichen je Entscheidung gekürzt", shape.text_cap),
                    ShedStep::EdgesCapped =>
                        format!("Zitierkanten auf {} je Entscheidung begrenzt", shape.edge_cap.unwrap_or(0)),
                    ShedStep::DecisionsDropped =>
                        format!("{} Entscheidung(en) vom Ende der ids weggelassen", dropped.len()),
                })
                .collect::<Vec<_>>()
                .join("; ")
        );
        if !dropped.is_empty() {
            notice.push_str(" Die weggelassenen ids stehen in truncation.dropped_seed_ids; rufen Sie das Werkzeug damit erneut auf.");
        }
        if !fits {
            notice.push_str(
                " Auch eine einzelne Entscheidung passt nicht: include_citations=false oder get_decision verwenden.",
            );
        }
        truncation_notice = Some(notice);
        guidance = Some(
            "Raise max_chars, pass truncation.dropped_seed_ids as ids in a second call, read whole texts with get_decision (offset/length) and all edges with get_case_references.",
        );
        truncation = Some(PackageTruncation {
            reason: "over_budget",
            shed_order: SHED_ORDER,
            shed_order_source: "seed 002, assemble_datapackage, Response budget: (1) text shortened down to a span-anchored excerpt of about 300 characters; (2) citation_edges capped to N rows per source, down to one; (3) whole decisions dropped from the end of ids",
            excerpt_mode_applied: full_text && shape.span_anchored,
            excerpt_chars_applied: steps.contains(&ShedStep::TextShortened).then_some(shape.text_cap),
            edges_capped: shape.edge_cap,
            dropped_seed_ids: dropped,
            fits_budget: fits,
            size_before,
            size_after,
            steps_applied: steps.clone(),
        });
    }
    Ok(DatapackageAnswer {
        requested,
        deduped,
        included: shape.kept,
        include_citations,
        full_text,
        max_chars,
        budget_basis: BUDGET_BASIS,
        budget_used: size_after,
        text_rule: if full_text {
            "full_text: the whole stored text from offset 0, cut at max_chars per decision (full_text_excerpt when cut)"
        } else {
            "excerpt: about 700 characters from the first substantive section (Leitsatz, else Tenor, else Gründe / Entscheidungsgründe, else the document start), ended at a word boundary; offsets are Unicode code points of get_decision's text"
        },
        truncated: texts_cut || edges_dropped || !steps.is_empty(),
        payload_truncated: !steps.is_empty(),
        truncation,
        truncation_notice,
        guidance,
        decisions,
        citation_edges: include_citations.then_some(edges),
        caps: include_citations.then_some(EdgeCaps {
            per_source_resolved_target_cap: RESOLVED_TARGET_CAP,
            per_source_unresolved_edge_row_cap: UNRESOLVED_ROW_CAP,
        }),
        edge_accounting: accounting,
        fortgeltung_note: "fortgeltung_checked: false on every decision: whether a decision was quashed or is still good law is not checked; keep the flag when you pass rows to a model.",
    })
}

/// Reads a decision's text, its excerpt span and its outgoing case citations as edge rows.
fn load_seed(g: &Generation, d: Decision, include_citations: bool) -> Result<Seed, ToolError> {
    let body = g.decision_body(d.id)?;
    let text = body.text;
    let sections: Vec<crate::contract::answers::DecisionSectionSpan> =
        serde_json::from_str(&body.sections).unwrap_or_default();
    let span = ["leitsatz", "leitsatze", "tenor", "grunde", "entscheidungsgrunde"]
        .iter()
        .find_map(|want| sections.iter().find(|s| fold(&s.name) == *want).map(|s| (s.name.clone(), s.start)));
    let mut seed = Seed {
        chars: text.chars().collect(),
        d,
        span,
        edges: Vec::new(),
        edges_total: 0,
        resolved_total: 0,
        unresolved_by_status: BTreeMap::new(),
        withheld_not_served: BTreeMap::new(),
        occurrences: 0,
    };
    if include_citations {
        load_edges(g, &mut seed)?;
    }
    Ok(seed)
}

/// One served edge in the making: the citations of one key, folded.
struct EdgeAcc {
    target: Option<i64>,
    status: String,
    canonicals: Vec<String>,
    roles: BTreeSet<String>,
    occurrences: usize,
    notes: BTreeSet<String>,
    candidates: Vec<String>,
    withheld: Option<String>,
}

/// Case citations → edge rows: a resolved row per distinct cited decision, an unresolved row
/// per distinct spelling and status; withheld impossibilities are counted, not served.
fn load_edges(g: &Generation, seed: &mut Seed) -> Result<(), ToolError> {
    let mut cases: Vec<_> = g
        .decision_citations(seed.d.id)?
        .into_iter()
        .filter_map(|c| match c {
            StoredCitation::Case(k) => Some(k),
            StoredCitation::Law(_) => None,
        })
        .collect();
    // Reading order: a cap keeps the earliest of equally ranked edges.
    cases.sort_by_key(|k| k.start);
    let mut order: Vec<String> = Vec::new();
    let mut acc: HashMap<String, EdgeAcc> = HashMap::new();
    for k in cases {
        if let Some(w) = k.withheld.filter(|w| NOT_SERVED.contains(w)) {
            *seed.withheld_not_served.entry(w.as_str().to_string()).or_default() += 1;
            continue;
        }
        seed.occurrences += 1;
        let (canonical, target, note) = (k.canonical, k.target_id, k.note);
        let withheld = k.withheld.map(|w| w.as_str().to_string());
        let role = Some(k.role.as_str().to_string());
        let status = k.status.as_str().to_string();
        let bound = k.status == CaseCitationStatus::Resolved && withheld.is_none() && target.is_some();
        let key = if bound {
            format!("t:{}", target.unwrap_or(0))
        } else {
            let norm: String = canonical.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
            format!("u:{status}:{norm}")
        };
        let e = acc.entry(key.clone()).or_insert_with(|| {
            order.push(key);
            EdgeAcc {
                target: if bound { target } else { None },
                status: status.clone(),
                canonicals: Vec::new(),
                roles: BTreeSet::new(),
                occurrences: 0,
                notes: BTreeSet::new(),
                candidates: Vec::new(),
                withheld: None,
            }
        });
        e.occurrences += 1;
        if !e.canonicals.contains(&canonical) {
            e.canonicals.push(canonical);
        }
        e.roles.extend(role);
        e.notes.extend(note);
        if e.withheld.is_none() {
            e.withheld = withheld;
        }
        for c in k.candidates {
            if !e.candidates.contains(&c) {
                e.candidates.push(c);
            }
        }
    }
    let mut edges: Vec<EdgeAcc> = order.into_iter().filter_map(|k| acc.remove(&k)).collect();
    seed.edges_total = edges.len();
    seed.resolved_total = edges.iter().filter(|e| e.target.is_some()).count();
    for e in edges.iter().filter(|e| e.target.is_none()) {
        *seed.unresolved_by_status.entry(e.status.clone()).or_default() += 1;
    }
    // Best first, so a cap keeps what matters: corpus decisions, then the instance chain,
    // then what the text cites most; ties in reading order (the sort is stable).
    let procedural = CitationRole::Procedural.as_str();
    edges.sort_by_key(|e| (e.target.is_none(), !e.roles.contains(procedural), std::cmp::Reverse(e.occurrences)));
    let (mut n_res, mut n_unres) = (0, 0);
    for e in edges {
        let keep = if e.target.is_some() { &mut n_res } else { &mut n_unres };
        let cap = if e.target.is_some() { RESOLVED_TARGET_CAP } else { UNRESOLVED_ROW_CAP };
        if *keep >= cap {
            continue;
        }
        *keep += 1;
        seed.edges.push(edge_row(g, &seed.d, e)?);
    }
    Ok(())
}

fn edge_row(g: &Generation, from: &Decision, e: EdgeAcc) -> Result<CitationEdgeRow, ToolError> {
    let roles: Vec<CitationRole> = e.roles.iter().filter_map(|r| CitationRole::parse(r)).collect();
    let role = if roles.contains(&CitationRole::Procedural) { CitationRole::Procedural } else { CitationRole::Cited };
    let status = CaseCitationStatus::parse(&e.status).unwrap_or(CaseCitationStatus::UnresolvedPending);
    let mut row = CitationEdgeRow {
        from_id: from.ext_id.clone(),
        in_corpus: e.target.is_some(),
        resolution_status: status,
        reference_canonical: e.canonicals.first().cloned(),
        reference_canonicals: e.canonicals,
        reference_role: role,
        reference_roles: roles,
        occurrences: e.occurrences,
        withheld_reason: e.withheld,
        target_id: None,
        corpus: None,
        unresolved_note: None,
        ambiguous_candidates: None,
    };
    let court_name = |d: &Decision| d.court.as_ref().map(|c| c.name.clone());
    match e.target {
        Some(t) => {
            let d = decision_by_id(g, t)?;
            row.target_id = Some(d.ext_id.clone());
            row.corpus = Some(EdgeTarget {
                id: d.ext_id.clone(),
                aktenzeichen: d.file_numbers.first().cloned(),
                court: court_name(&d),
                date: d.date.clone(),
                document_type: d.document_type.clone(),
            });
        }
        None => {
            if !e.notes.is_empty() {
                row.unresolved_note = Some(e.notes.iter().cloned().collect::<Vec<_>>().join("; "));
            }
            if status == CaseCitationStatus::UnresolvedAmbiguous {
                let mut cands = Vec::new();
                for c in e.candidates.iter().take(5) {
                    if let Ok(d) = resolve_decision(g, c, None, None) {
                        cands.push(CandidateDecision {
                            id: d.ext_id.clone(),
                            court: court_name(&d),
                            date: d.date.clone(),
                        });
                    }
                }
                row.ambiguous_candidates = Some(cands);
            }
        }
    }
    Ok(row)
}

/// Finds the shape that fits, shedding in the fixed order; returns it and the steps taken.
fn shed(seeds: &[Seed], natural: Shape, full_text: bool, budget: usize) -> (Shape, Vec<ShedStep>) {
    let fits = |s: Shape| size(seeds, s, full_text) <= budget;
    let mut shape = natural;
    let mut steps = Vec::new();
    if fits(shape) {
        return (shape, steps);
    }
    // (1) Text: the largest uniform cap that fits, down to the span-anchored ~300 floor.
    steps.push(SHED_ORDER[0]);
    shape.shortened = true;
    let longest = seeds.iter().map(|s| s.chars.len()).max().unwrap_or(0).min(shape.text_cap);
    let cap = largest_fitting(EXCERPT_FLOOR, longest, |c| fits(Shape { text_cap: c, ..shape }));
    match cap {
        Some(c) => {
            shape.text_cap = c;
            return (shape, steps);
        }
        None => {
            shape.text_cap = EXCERPT_FLOOR;
            shape.span_anchored = true;
            if fits(shape) {
                return (shape, steps);
            }
        }
    }
    // (2) Edges: the largest per-source row cap that fits, down to one.
    let most = seeds.iter().map(|s| s.edges.len()).max().unwrap_or(0);
    if most > 1 {
        steps.push(SHED_ORDER[1]);
        let cap = largest_fitting(1, most - 1, |n| fits(Shape { edge_cap: Some(n), ..shape }));
        shape.edge_cap = Some(cap.unwrap_or(1));
        if cap.is_some() {
            return (shape, steps);
        }
    }
    // (3) Whole decisions from the end of ids; the first one always stays.
    if shape.kept > 1 {
        steps.push(SHED_ORDER[2]);
        while shape.kept > 1 && !fits(shape) {
            shape.kept -= 1;
        }
    }
    (shape, steps)
}

/// The largest `x` in `lo..=hi` with `ok(x)`, assuming `ok` holds below some point; None if
/// not even `lo` passes.
fn largest_fitting(lo: usize, hi: usize, ok: impl Fn(usize) -> bool) -> Option<usize> {
    if hi < lo || !ok(lo) {
        return None;
    }
    let (mut good, mut bad) = (lo, hi + 1);
    while bad - good > 1 {
        let mid = good + (bad - good) / 2;
        if ok(mid) { good = mid } else { bad = mid }
    }
    Some(good)
}

fn size(seeds: &[Seed], shape: Shape, full_text: bool) -> usize {
    let (d, e) = build(seeds, shape, full_text);
    chars_of(&d, &e)
}

fn chars_of(decisions: &[PackageDecision], edges: &[CitationEdgeRow]) -> usize {
    let d = serde_json::to_string(decisions).map(|s| s.chars().count()).unwrap_or(0);
    let e = serde_json::to_string(edges).map(|s| s.chars().count()).unwrap_or(0);
    d + e
}

/// The decisions and edge rows a shape serves.
fn build(seeds: &[Seed], shape: Shape, full_text: bool) -> (Vec<PackageDecision>, Vec<CitationEdgeRow>) {
    let mut decisions = Vec::new();
    let mut edges = Vec::new();
    for s in &seeds[..shape.kept] {
        decisions.push(package_decision(s, shape, full_text));
        let n = shape.edge_cap.unwrap_or(usize::MAX);
        edges.extend(s.edges.iter().take(n).cloned());
    }
    (decisions, edges)
}

/// `[start, end)` of about `cap` characters from `start`, ended at a word boundary when one
/// lies in the last 15 % (a cut mid-word reads like a typo in the source).
fn window(chars: &[char], start: usize, cap: usize) -> (usize, usize) {
    let start = start.min(chars.len());
    let end = (start + cap).min(chars.len());
    if end == chars.len() {
        return (start, end);
    }
    let floor = start + cap * 85 / 100;
    match (floor..end).rev().find(|&i| chars[i].is_whitespace()) {
        Some(i) => (start, i),
        None => (start, end),
    }
}

fn package_decision(s: &Seed, shape: Shape, full_text: bool) -> PackageDecision {
    let total = s.chars.len();
    let disagrees = s.d.ecli_date_agrees == Some(false);
    let anchor = if shape.span_anchored { s.span.as_ref().map(|(_, st)| *st).unwrap_or(0) } else { 0 };
    let (start, end) = window(&s.chars, anchor, shape.text_cap);
    let served = end - start;
    let whole = start == 0 && end == total;
    let text = TextWindow {
        text: s.chars[start..end].iter().collect(),
        offset: start,
        length: served,
        total_length: total,
        has_more: end < total,
        next_offset: (end < total).then_some(end),
    };
    let mut p = PackageDecision {
        decision: s.d.summary(),
        fortgeltung_checked: false,
        ecli_date_disagrees_with_source: disagrees.then_some(true),
        ecli_advisory: disagrees.then_some(
            "Das Datum im ECLI weicht vom Entscheidungsdatum der Quelle ab; maßgeblich sind die Datumsfelder.",
        ),
        text_length: total,
        truncated: !whole,
        excerpt: None,
        excerpt_span: None,
        leitsatz_source: None,
        full_text: None,
        full_text_excerpt: None,
        full_text_returned_chars: None,
        truncated_reason: None,
    };
    if shape.span_anchored {
        p.excerpt = Some(text);
        p.excerpt_span = Some(s.span.as_ref().map(|(n, _)| n.clone()).unwrap_or_else(|| "document_start".into()));
        if let Some((n, _)) = &s.span
            && fold(n).starts_with("leitsatz")
        {
            // A Leitsatz section of the source: possibly a portal's editorial headnote.
            p.leitsatz_source = Some("source_document");
        }
    } else if whole {
        p.full_text = Some(text);
    } else {
        p.full_text_excerpt = Some(text);
        p.full_text_returned_chars = Some(served);
    }
    if !whole {
        p.truncated_reason = Some(if shape.shortened {
            TruncatedReason::BudgetShedding
        } else if full_text {
            TruncatedReason::MaxChars
        } else {
            TruncatedReason::Excerpt
        });
    }
    p
}

/// Per source and overall: edge rows total, included and dropped (by the per-source caps, by
/// the budget, or with a dropped decision).
fn edge_accounting(seeds: &[Seed], shape: Shape) -> EdgeAccounting {
    let (mut total, mut included, mut by_cap, mut by_budget) = (0, 0, 0, 0);
    let mut rows = Vec::new();
    for (i, s) in seeds.iter().enumerate() {
        let kept = i < shape.kept;
        let served: Vec<&CitationEdgeRow> =
            if kept { s.edges.iter().take(shape.edge_cap.unwrap_or(usize::MAX)).collect() } else { Vec::new() };
        let res_in = served.iter().filter(|e| e.in_corpus).count();
        let cap_drop = s.edges_total - s.edges.len();
        let budget_drop = s.edges.len() - served.len();
        total += s.edges_total;
        included += served.len();
        by_cap += cap_drop;
        by_budget += budget_drop;
        rows.push(SourceEdgeAccounting {
            from_id: s.d.ext_id.clone(),
            unit: "edge_rows",
            decision_included: kept,
            edges_total: s.edges_total,
            edges_included: served.len(),
            edges_resolved_total: s.resolved_total,
            edges_resolved_included: res_in,
            edges_unresolved_total: s.edges_total - s.resolved_total,
            edges_unresolved_included: served.len() - res_in,
            targets_resolved_total: s.resolved_total,
            targets_resolved_included: res_in,
            dropped_by_per_source_cap: cap_drop,
            dropped_by_budget: budget_drop,
            unresolved_by_status: s.unresolved_by_status.clone(),
            citation_occurrences: s.occurrences,
            withheld_not_served: s.withheld_not_served.clone(),
        });
    }
    EdgeAccounting {
        unit: "edge_rows",
        unit_note: "a resolved row is one distinct cited decision (all its spellings in reference_canonicals); an unresolved row is one distinct spelling and status; withheld self-references and forward-dated bindings are not edges and are counted in withheld_not_served",
        total,
        included,
        dropped: total - included,
        dropped_by_per_source_cap: by_cap,
        dropped_by_budget: by_budget,
        dropped_note: "dropped = dropped_by_per_source_cap + dropped_by_budget; the budget count includes every edge of a decision the budget dropped",
        per_source: rows,
        rest: "get_case_references lists every citation of a decision with its status; get_citation_graph the resolved neighbourhood",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_fitting_is_the_boundary() {
        assert_eq!(largest_fitting(1, 100, |x| x <= 37), Some(37));
        assert_eq!(largest_fitting(1, 100, |x| x <= 500), Some(100));
        assert_eq!(largest_fitting(5, 100, |x| x < 5), None);
        assert_eq!(largest_fitting(5, 4, |_| true), None);
    }

    #[test]
    fn windows_end_at_a_word_boundary_and_never_overrun() {
        let chars: Vec<char> = "Die Klage wird abgewiesen. Die Kosten trägt der Kläger.".chars().collect();
        // "Die Klage wird abgewiesen": the cap of 16 falls inside "abgewiesen"; the window
        // ends before it, at the space after "wird" (inside the last 15 %).
        assert_eq!(window(&chars, 0, 16), (0, 14));
        // No space in the last 15 %: the exact cap, mid-word, rather than a much shorter text.
        assert_eq!(window(&chars, 0, 20), (0, 20));
        assert_eq!(window(&chars, 0, 10_000), (0, chars.len()));
        assert_eq!(window(&chars, 10_000, 5), (chars.len(), chars.len()));
    }
}
