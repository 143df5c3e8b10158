//! Citation tools: `get_case_references`, `get_citing_cases`, `get_citation_graph`,
//! `get_cases_for_law`, `corpus_coverage`. One function per capability; MCP and REST both
//! call these.
//!
//! Edges are the resolved, not withheld case citations of `resolve` (one edge per ordered pair
//! of decisions, however often the text cites); statuses of unresolved citations are reported,
//! never dropped. Totals are computed before paging and do not change with it.

use std::collections::{HashMap, HashSet};

use index::Generation;
use index::citation_rows::StoredCitation;
use model::{CaseCitationStatus, CitationRole, GraphDirection};
use rusqlite::params;

use crate::contract::answers::{
    BranchFilter, ByBranch, ByDocumentType, CaseReference, CaseReferencesAnswer, CasesForLawAnswer,
    CitationGraphAnswer, CitingCase, CitingCasesAnswer, CorpusCoverageAnswer, Counts, CoverageBucket, DecisionSummary,
    GraphEdge, GraphNode, HeldByCourt, LawReference, NormFamily, StatusLegend, YearCount,
};
use crate::store::closed_column;

use crate::contract::answer::ToolError;
use crate::contract::args::{
    CorpusCoverageArgs, DecisionRef, GetCaseReferencesArgs, GetCasesForLawArgs, GetCitationGraphArgs,
    GetCitingCasesArgs,
};
use crate::query::identifiers::{canonical_norm, resolve_decision};
use crate::store::decisions::{Decision, decision_by_id};

fn id_arg(g: &Generation, a: &DecisionRef) -> Result<Decision, ToolError> {
    resolve_decision(g, &a.id, a.court.as_deref(), a.date.as_deref())
}

/// `get_case_references(id)`: the laws and decisions one decision cites, with marker text,
/// offsets and what each was bound to.
pub fn get_case_references(g: &Generation, a: GetCaseReferencesArgs) -> Result<CaseReferencesAnswer, ToolError> {
    let d = id_arg(g, &a.decision)?;
    let limit = a.limit as usize;
    let mut citations = g.decision_citations(d.id)?;
    citations.sort_by_key(StoredCitation::start);
    let mut laws = Vec::new();
    let mut cases = Vec::new();
    let mut law_status = Counts::new();
    let mut case_status = Counts::new();
    for c in citations {
        match c {
            StoredCitation::Law(l) => {
                *law_status.entry(l.status.as_str().to_string()).or_default() += 1;
                laws.push(LawReference {
                    raw: l.raw,
                    start: l.start as i64,
                    end: l.end as i64,
                    canonical: l.canonical,
                    book: l.book,
                    section: Some(l.section),
                    absatz: l.absatz,
                    status: Some(l.status),
                });
            }
            StoredCitation::Case(k) => {
                *case_status.entry(k.status.as_str().to_string()).or_default() += 1;
                cases.push(CaseReference {
                    raw: k.raw,
                    start: k.start as i64,
                    end: k.end as i64,
                    canonical: k.canonical,
                    kind: Some(k.case_kind),
                    court: k.court,
                    court_as_printed: k.court_raw,
                    date: k.date,
                    file_number: k.file_number,
                    status: Some(k.status),
                    target_id: k.target,
                    candidates: k.candidates,
                    withheld: k.withheld,
                    role: Some(k.role),
                });
            }
        }
    }
    let normenkette: Vec<String> = g.store.with(|c| {
        let mut st = c.prepare_cached("SELECT norm FROM decision_norms WHERE decision_id = ?1 ORDER BY norm")?;
        let rows = st.query_map(params![d.id], |r| r.get(0))?.collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    })?;
    let (law_citations_total, case_citations_total) = (laws.len(), cases.len());
    let truncated = laws.len() > limit || cases.len() > limit;
    laws.truncate(limit);
    cases.truncate(limit);
    Ok(CaseReferencesAnswer {
        decision: d.summary(),
        law_citations_total,
        law_citations_by_status: law_status,
        case_citations_total,
        case_citations_by_status: case_status,
        truncated,
        normenkette,
        laws,
        cases,
        statuses: StatusLegend {
            law: "bound (the § / Absatz exists in the current text), section_absent_in_current_text, absatz_absent_in_current_text, statute_unknown (a law we do not hold), book_not_named, book_ambiguous, predates_law (the decision is dated before the law's Ausfertigung: it cites a predecessor or another law of that name; not counted as citing it), state_law (Land law, e.g. `IFG Bln`, `VwVfG-SH`, `BayBO`: we hold federal law only; never bound to the federal law of that abbreviation, not counted)",
            case: "resolved, unresolved_ambiguous (candidates), unresolved_no_match, unresolved_out_of_coverage, unresolved_pending (reporter citations are not bound yet); withheld says why a match is not an edge",
        },
    })
}

/// `(other decision id, role, citations)` of every resolved edge of decision `id`: the
/// decisions citing it (`incoming`) or the decisions it cites (otherwise).
fn edges_of(g: &Generation, id: i64, incoming: bool) -> Result<Vec<(i64, CitationRole, i64)>, ToolError> {
    let sql = if incoming {
        "SELECT citing_id, role, citations FROM citation_edges WHERE cited_id = ?1"
    } else {
        "SELECT cited_id, role, citations FROM citation_edges WHERE citing_id = ?1"
    };
    Ok(g.store.with(|c| {
        let mut st = c.prepare_cached(sql)?;
        let rows = st
            .query_map(params![id], |r| {
                let role = closed_column::<CitationRole>(r, 1)?.ok_or(rusqlite::Error::InvalidColumnType(
                    1,
                    "role".into(),
                    rusqlite::types::Type::Null,
                ))?;
                Ok((r.get(0)?, role, r.get(2)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    })?)
}

/// `get_citing_cases(id, limit?, offset?)`: decisions that cite this one (resolved edges).
pub fn get_citing_cases(g: &Generation, a: GetCitingCasesArgs) -> Result<CitingCasesAnswer, ToolError> {
    let d = id_arg(g, &a.decision)?;
    let (limit, offset) = (a.page.limit as usize, a.page.offset as usize);
    // The edges are small rows; the decisions are read for the page only, sorted in SQL.
    let edges: std::collections::HashMap<i64, (CitationRole, i64)> =
        edges_of(g, d.id, true)?.into_iter().map(|(cid, role, n)| (cid, (role, n))).collect();
    let total = edges.len();
    let results: Vec<CitingCase> = crate::store::decisions::decisions_page(
        g,
        "SELECT citing_id FROM citation_edges WHERE cited_id = ?1",
        &d.id,
        total,
        "d.date IS NULL, d.date DESC, d.id",
        limit,
        offset,
    )?
    .iter()
    .filter_map(|x| {
        // Every page row came from these edges; a row without one would be a store defect.
        let (role, n) = edges.get(&x.id)?;
        Some(CitingCase { decision: x.summary(), role: *role, citations_in_text: *n })
    })
    .collect();
    Ok(CitingCasesAnswer {
        decision: d.summary(),
        total,
        total_basis: "held decisions with a resolved citation of this decision",
        has_more: offset + results.len() < total,
        sort: "date_desc",
        results,
    })
}

/// `get_citation_graph(id, direction?, depth?, max_nodes?)`: the neighbourhood of a decision.
pub fn get_citation_graph(g: &Generation, a: GetCitationGraphArgs) -> Result<CitationGraphAnswer, ToolError> {
    let d = id_arg(g, &a.decision)?;
    let direction = a.direction;
    let (depth, max_nodes) = (a.depth as usize, a.max_nodes as usize);
    // Breadth first; each distinct decision once, at its smallest depth.
    let mut seen: HashMap<i64, (usize, GraphDirection, CitationRole)> = HashMap::new(); // id -> (depth, via, role)
    let mut edges: Vec<(i64, i64, CitationRole, i64)> = Vec::new(); // (citing, cited, role, citations)
    let mut frontier = vec![d.id];
    let mut capped = false;
    let mut reachable: HashSet<i64> = HashSet::new();
    for level in 1..=depth {
        let mut next = Vec::new();
        for &from in &frontier {
            crate::contract::deadline::check()?;
            let mut hops: Vec<(i64, i64, CitationRole, i64, GraphDirection)> = Vec::new(); // (other, citing, role, n, dir)
            if direction != GraphDirection::Incoming {
                let out = GraphDirection::Outgoing;
                hops.extend(edges_of(g, from, false)?.into_iter().map(|(o, r, n)| (o, from, r, n, out)));
            }
            if direction != GraphDirection::Outgoing {
                let inc = GraphDirection::Incoming;
                hops.extend(edges_of(g, from, true)?.into_iter().map(|(o, r, n)| (o, o, r, n, inc)));
            }
            for (other, citing, role, n, dir) in hops {
                if other == d.id {
                    continue;
                }
                reachable.insert(other);
                let cited = if citing == from { other } else { from };
                if !seen.contains_key(&other) {
                    if seen.len() >= max_nodes {
                        capped = true;
                        continue;
                    }
                    seen.insert(other, (level, dir, role));
                    next.push(other);
                }
                edges.push((citing, cited, role, n));
            }
        }
        frontier = next;
    }
    let mut ext: HashMap<i64, String> = HashMap::from([(d.id, d.ext_id.clone())]);
    let mut nodes = Vec::new();
    let mut ordered: Vec<(&i64, &(usize, GraphDirection, CitationRole))> = seen.iter().collect();
    ordered.sort_by_key(|(id, (lvl, ..))| (*lvl, **id));
    for (id, (lvl, dir, role)) in ordered {
        let x = decision_by_id(g, *id)?;
        ext.insert(*id, x.ext_id.clone());
        nodes.push(GraphNode {
            decision: x.summary(),
            depth: *lvl,
            reached_by: *dir,
            role: *role,
            status: model::CaseCitationStatus::Resolved,
        });
    }
    let edges: Vec<GraphEdge> = edges
        .into_iter()
        .filter_map(|(citing, cited, role, citations_in_text)| {
            Some(GraphEdge {
                citing: ext.get(&citing)?.clone(),
                cited: ext.get(&cited)?.clone(),
                role,
                citations_in_text,
            })
        })
        .collect();
    // What the root cites that is not an edge: by status, so absences are visible.
    let mut unresolved = Counts::new();
    for c in g.decision_citations(d.id)? {
        if let StoredCitation::Case(k) = c
            && !(k.status == CaseCitationStatus::Resolved && k.withheld.is_none())
        {
            let key = match k.withheld {
                Some(w) => format!("withheld:{}", w.as_str()),
                None => k.status.as_str().to_string(),
            };
            *unresolved.entry(key).or_default() += 1;
        }
    }
    Ok(CitationGraphAnswer {
        root: d.summary(),
        direction,
        depth,
        total_nodes: reachable.len(),
        total_basis: "distinct held decisions linked to the root by resolved citations within depth (root excluded)",
        returned_nodes: nodes.len(),
        node_cap: max_nodes,
        capped,
        nodes,
        edges,
        root_unresolved_citations: unresolved,
    })
}

/// `get_cases_for_law(book, section, sort?, limit?, offset?)`: decisions citing a § / Artikel.
pub fn get_cases_for_law(g: &Generation, a: GetCasesForLawArgs) -> Result<CasesForLawAnswer, ToolError> {
    let GetCasesForLawArgs { book, section, sort, .. } = a;
    let (limit, offset) = (a.page.limit as usize, a.page.offset as usize);
    let designation = section.trim();
    // A bare `229 § 5` is an article's paragraph (`Art. 229 § 5 EGBGB`), a bare `823` a §.
    let marker = if designation.starts_with('§') || designation.to_lowercase().starts_with("art") {
        ""
    } else if designation.contains('§') {
        "Art. "
    } else {
        "§ "
    };
    let given = format!("{marker}{designation} {book}");
    let token = canonical_norm(&given)?;
    // Counted and paged from the per-generation `norms` / `norm_citing`: no row is read
    // beyond the page asked for, however many decisions cite the norm.
    let total = crate::store::decisions::decisions_citing_norm(g, &token)? as usize;
    let ds = crate::store::decisions::decisions_citing_norm_page(g, &token, sort, limit, offset)?;
    let results: Vec<DecisionSummary> = ds.iter().map(Decision::summary).collect();
    Ok(CasesForLawAnswer {
        norm: NormFamily { given, canonical: token },
        sort,
        total,
        total_basis: "held decisions whose text or norm field cites this norm (finer citations such as Abs. included)",
        has_more: offset + results.len() < total,
        results,
    })
}

/// `corpus_coverage(branch?)`: what is ingested (the coverage map) next to what is measured:
/// per decision bucket the claim (`exhaustive`) and the measurement against the toc this
/// generation was built from (`measured`), and the holdings by court, branch, type and year,
/// counted by the one definition every tool shares (`statistics::fact_counts`).
pub fn corpus_coverage(g: &Generation, a: CorpusCoverageArgs) -> Result<CorpusCoverageAnswer, ToolError> {
    let branch = a.branch.map(|b| b.as_str());
    let map = coverage_map::shipped();
    let held: Vec<HeldByCourt> = g.store.with(|c| {
        let mut st = c.prepare(
            "SELECT name, court_type, branch, level, land, decision_count, earliest, latest FROM courts
             WHERE decision_count > 0 AND (?1 IS NULL OR branch = ?1) ORDER BY decision_count DESC, name",
        )?;
        let rows = st
            .query_map(params![branch], |r| {
                Ok(HeldByCourt {
                    court: r.get(0)?,
                    court_type: r.get(1)?,
                    branch: r.get(2)?,
                    level: r.get(3)?,
                    land: r.get(4)?,
                    decisions: r.get(5)?,
                    earliest: r.get(6)?,
                    latest: r.get(7)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    })?;
    let facts = crate::query::facts::fact_counts(g, None)?;
    let sources = &g.manifest.sources;
    let mut buckets: Vec<CoverageBucket> = Vec::new();
    for b in &map.buckets {
        let source_present = b.sources.iter().any(|s| match s.as_str() {
            "gesetze-im-internet.de" => sources.get("gii").is_some_and(|x| x.records > 0),
            "rechtsprechung-im-internet.de" | "Open Legal Data" => {
                sources.get("decisions").is_some_and(|x| x.records > 0)
            }
            _ => false,
        });
        // Null: this bucket is not measured against a toc here (statutes, dumps).
        let measured = crate::query::coverage::measured(g, &b.bucket)?;
        buckets.push(CoverageBucket {
            bucket: b.bucket.clone(),
            court: b.court.clone(),
            label: b.label.clone(),
            from: b.from.clone(),
            until: b.until.clone(),
            sources: b.sources.clone(),
            exhaustive: b.exhaustive,
            ocr: b.ocr,
            note: b.note.clone(),
            source_in_this_generation: source_present,
            claimed_exhaustive: b.exhaustive,
            measured_exhaustive: measured.as_ref().map(|m| m.measured_exhaustive),
            measured,
        });
    }
    use crate::query::facts::Fact;
    Ok(CorpusCoverageAnswer {
        as_of: map.as_of.clone(),
        generation_built_at: g.manifest.built_at.clone(),
        buckets,
        held_total: facts.total,
        held_by_branch: facts.rows_as(Fact::Branch, |branch, decisions| ByBranch { branch, decisions }),
        held_by_document_type: facts
            .rows_as(Fact::DocumentType, |document_type, decisions| ByDocumentType { document_type, decisions }),
        held_by_year: facts.rows_as(Fact::Year, |year, decisions| YearCount { year, decisions }),
        held_without_court: facts.by_court.get(&None).copied().unwrap_or(0),
        held_by_court: held,
        how_to_read: "buckets say what the pipeline ingests; claimed_exhaustive is the map's claim, measured_exhaustive what this generation bears out (every toc item of the court in the window held; null = not measured here). check_citations gives not_found only inside a measured exhaustive window. held_* are measured from this generation (branch null = no court recorded); held_by_court lists the courts of the branch filter, the other held_* count every decision.",
        filters_applied: branch.map(|b| BranchFilter { branch: b.to_string() }),
    })
}
