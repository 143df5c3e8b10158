//! Citation tools: `get_case_references`, `get_citing_cases`, `get_citation_graph`,
//! `get_cases_for_law`, `corpus_coverage`. One function per capability; MCP and REST both
//! call these.
//!
//! Edges are the resolved, not withheld case citations of `resolve` (one edge per ordered pair
//! of decisions, however often the text cites); statuses of unresolved citations are reported,
//! never dropped. Totals are computed before paging and do not change with it.

use std::collections::{BTreeMap, HashMap, HashSet};

use index::Generation;
use model::GraphDirection;
use rusqlite::params;
use serde_json::{Map, Value, json};

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
pub fn get_case_references(g: &Generation, a: GetCaseReferencesArgs) -> Result<Map<String, Value>, ToolError> {
    let d = id_arg(g, &a.decision)?;
    let limit = a.limit as usize;
    // Each row as (kind, status, the JSON the answer shows).
    let rows: Vec<(String, Option<String>, Value)> = g.store.with(|c| {
        let mut st = c.prepare(
            "SELECT dc.kind, dc.start, dc.end, dc.raw, dc.canonical, dc.book, dc.section, dc.absatz, dc.law_status,
                    dc.case_kind, dc.court, dc.court_raw, dc.date, dc.file_number, dc.status, t.ext_id, dc.candidates,
                    dc.withheld, dc.role
             FROM decision_citations dc LEFT JOIN decisions t ON t.id = dc.target_id
             WHERE dc.decision_id = ?1 ORDER BY dc.start",
        )?;
        let rows = st
            .query_map(params![d.id], |r| {
                let kind: String = r.get(0)?;
                let (start, end, raw, canonical): (i64, i64, String, String) =
                    (r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?);
                if kind == "law" {
                    let status: Option<String> = r.get(8)?;
                    let v = json!({
                        "raw": raw, "start": start, "end": end, "canonical": canonical,
                        "book": r.get::<_, Option<String>>(5)?, "section": r.get::<_, Option<String>>(6)?,
                        "absatz": r.get::<_, Option<String>>(7)?, "status": status,
                    });
                    return Ok((kind, status, v));
                }
                let status: Option<String> = r.get(14)?;
                let candidates: Option<String> = r.get(16)?;
                let v = json!({
                    "raw": raw, "start": start, "end": end, "canonical": canonical,
                    "kind": r.get::<_, Option<String>>(9)?, "court": r.get::<_, Option<String>>(10)?,
                    "court_as_printed": r.get::<_, Option<String>>(11)?, "date": r.get::<_, Option<String>>(12)?,
                    "file_number": r.get::<_, Option<String>>(13)?, "status": status,
                    "target_id": r.get::<_, Option<String>>(15)?,
                    "candidates": candidates.and_then(|c| serde_json::from_str::<Value>(&c).ok()).unwrap_or(json!([])),
                    "withheld": r.get::<_, Option<String>>(17)?, "role": r.get::<_, Option<String>>(18)?,
                });
                Ok((kind, status, v))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    })?;
    let mut laws = Vec::new();
    let mut cases = Vec::new();
    let mut law_status: BTreeMap<String, usize> = BTreeMap::new();
    let mut case_status: BTreeMap<String, usize> = BTreeMap::new();
    for (kind, status, v) in rows {
        let (list, counts) = if kind == "law" { (&mut laws, &mut law_status) } else { (&mut cases, &mut case_status) };
        *counts.entry(status.unwrap_or_default()).or_default() += 1;
        list.push(v);
    }
    let norms: Vec<String> = g.store.with(|c| {
        let mut st = c.prepare("SELECT norm FROM decision_norms WHERE decision_id = ?1 ORDER BY norm")?;
        let rows = st.query_map(params![d.id], |r| r.get(0))?.collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    })?;
    let mut out = Map::new();
    out.insert("decision".into(), d.summary());
    out.insert("law_citations_total".into(), json!(laws.len()));
    out.insert("law_citations_by_status".into(), json!(law_status));
    out.insert("case_citations_total".into(), json!(cases.len()));
    out.insert("case_citations_by_status".into(), json!(case_status));
    out.insert("truncated".into(), json!(laws.len() > limit || cases.len() > limit));
    laws.truncate(limit);
    cases.truncate(limit);
    out.insert("normenkette".into(), json!(norms));
    out.insert("laws".into(), Value::Array(laws));
    out.insert("cases".into(), Value::Array(cases));
    out.insert(
        "statuses".into(),
        json!({
            "law": "bound (the § / Absatz exists in the current text), section_absent_in_current_text, absatz_absent_in_current_text, statute_unknown (a law we do not hold), book_not_named, book_ambiguous, predates_law (the decision is dated before the law's Ausfertigung: it cites a predecessor or another law of that name; not counted as citing it), state_law (Land law, e.g. `IFG Bln`, `VwVfG-SH`, `BayBO`: we hold federal law only; never bound to the federal law of that abbreviation, not counted)",
            "case": "resolved, unresolved_ambiguous (candidates), unresolved_no_match, unresolved_out_of_coverage, unresolved_pending (reporter citations are not bound yet); withheld says why a match is not an edge",
        }),
    );
    Ok(out)
}

/// `(other decision id, role, citations)` of every resolved edge of decision `id`: the
/// decisions citing it (`incoming`) or the decisions it cites (otherwise).
fn edges_of(g: &Generation, id: i64, incoming: bool) -> Result<Vec<(i64, String, i64)>, ToolError> {
    let sql = if incoming {
        "SELECT citing_id, role, citations FROM citation_edges WHERE cited_id = ?1"
    } else {
        "SELECT cited_id, role, citations FROM citation_edges WHERE citing_id = ?1"
    };
    Ok(g.store.with(|c| {
        let mut st = c.prepare_cached(sql)?;
        let rows = st
            .query_map(params![id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    })?)
}

/// `get_citing_cases(id, limit?, offset?)`: decisions that cite this one (resolved edges).
pub fn get_citing_cases(g: &Generation, a: GetCitingCasesArgs) -> Result<Map<String, Value>, ToolError> {
    let d = id_arg(g, &a.decision)?;
    let (limit, offset) = (a.page.limit as usize, a.page.offset as usize);
    // The edges are small rows; the decisions are read for the page only, sorted in SQL.
    let edges: std::collections::HashMap<i64, (String, i64)> =
        edges_of(g, d.id, true)?.into_iter().map(|(cid, role, n)| (cid, (role, n))).collect();
    let total = edges.len();
    let page: Vec<Value> = crate::store::decisions::decisions_page(
        g,
        "SELECT citing_id FROM citation_edges WHERE cited_id = ?1",
        &d.id,
        total,
        "d.date IS NULL, d.date DESC, d.id",
        limit,
        offset,
    )?
    .iter()
    .map(|x| {
        let mut v = x.summary();
        if let Some((role, n)) = edges.get(&x.id) {
            v["role"] = json!(role);
            v["citations_in_text"] = json!(n);
        }
        v
    })
    .collect();
    let mut out = Map::new();
    out.insert("decision".into(), d.summary());
    out.insert("total".into(), json!(total));
    out.insert("total_basis".into(), json!("held decisions with a resolved citation of this decision"));
    out.insert("has_more".into(), json!(offset + page.len() < total));
    out.insert("sort".into(), json!("date_desc"));
    out.insert("results".into(), Value::Array(page));
    Ok(out)
}

/// `get_citation_graph(id, direction?, depth?, max_nodes?)`: the neighbourhood of a decision.
pub fn get_citation_graph(g: &Generation, a: GetCitationGraphArgs) -> Result<Map<String, Value>, ToolError> {
    let d = id_arg(g, &a.decision)?;
    let direction = a.direction;
    let (depth, max_nodes) = (a.depth as usize, a.max_nodes as usize);
    // Breadth first; each distinct decision once, at its smallest depth.
    let mut seen: HashMap<i64, (usize, String, String)> = HashMap::new(); // id -> (depth, via direction, role)
    let mut edges: Vec<Value> = Vec::new();
    let mut frontier = vec![d.id];
    let mut capped = false;
    let mut reachable: HashSet<i64> = HashSet::new();
    for level in 1..=depth {
        let mut next = Vec::new();
        for &from in &frontier {
            crate::contract::deadline::check()?;
            let mut hops: Vec<(i64, i64, String, i64, &str)> = Vec::new(); // (other, citing, role, n, dir)
            if direction != GraphDirection::Incoming {
                let out = GraphDirection::Outgoing.as_str();
                hops.extend(edges_of(g, from, false)?.into_iter().map(|(o, r, n)| (o, from, r, n, out)));
            }
            if direction != GraphDirection::Outgoing {
                let inc = GraphDirection::Incoming.as_str();
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
                    seen.insert(other, (level, dir.to_string(), role.clone()));
                    next.push(other);
                }
                edges.push(json!({"citing": citing, "cited": cited, "role": role, "citations_in_text": n}));
            }
        }
        frontier = next;
    }
    let mut ext: HashMap<i64, String> = HashMap::from([(d.id, d.ext_id.clone())]);
    let mut nodes = Vec::new();
    let mut ordered: Vec<(&i64, &(usize, String, String))> = seen.iter().collect();
    ordered.sort_by_key(|(id, (lvl, ..))| (*lvl, **id));
    for (id, (lvl, dir, role)) in ordered {
        let x = decision_by_id(g, *id)?;
        ext.insert(*id, x.ext_id.clone());
        let mut v = x.summary();
        v["depth"] = json!(lvl);
        v["reached_by"] = json!(dir);
        v["role"] = json!(role);
        v["status"] = json!(model::CaseCitationStatus::Resolved);
        nodes.push(v);
    }
    let edges: Vec<Value> = edges
        .into_iter()
        .filter_map(|e| {
            let c = ext.get(&e["citing"].as_i64()?)?;
            let t = ext.get(&e["cited"].as_i64()?)?;
            Some(json!({"citing": c, "cited": t, "role": e["role"], "citations_in_text": e["citations_in_text"]}))
        })
        .collect();
    // What the root cites that is not an edge: by status, so absences are visible.
    let unresolved: BTreeMap<String, i64> = g.store.with(|c| {
        let mut st = c.prepare(
            "SELECT CASE WHEN withheld IS NOT NULL THEN 'withheld:' || withheld ELSE status END, COUNT(*)
             FROM decision_citations WHERE decision_id = ?1 AND kind = 'case' AND NOT (status = 'resolved' AND withheld IS NULL)
             GROUP BY 1",
        )?;
        let rows = st.query_map(params![d.id], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<BTreeMap<_, _>>>()?;
        Ok(rows)
    })?;
    let mut out = Map::new();
    out.insert("root".into(), d.summary());
    out.insert("direction".into(), json!(direction));
    out.insert("depth".into(), json!(depth));
    out.insert("total_nodes".into(), json!(reachable.len()));
    out.insert(
        "total_basis".into(),
        json!("distinct held decisions linked to the root by resolved citations within depth (root excluded)"),
    );
    out.insert("returned_nodes".into(), json!(nodes.len()));
    out.insert("node_cap".into(), json!(max_nodes));
    out.insert("capped".into(), json!(capped));
    out.insert("nodes".into(), Value::Array(nodes));
    out.insert("edges".into(), Value::Array(edges));
    out.insert("root_unresolved_citations".into(), json!(unresolved));
    Ok(out)
}

/// `get_cases_for_law(book, section, sort?, limit?, offset?)`: decisions citing a § / Artikel.
pub fn get_cases_for_law(g: &Generation, a: GetCasesForLawArgs) -> Result<Map<String, Value>, ToolError> {
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
    // Sorted, counted and paged in SQL (indexes `dn_norm_decision`, `decisions_citing`,
    // `decisions_date_order`): no row is read beyond the page asked for.
    let order = crate::store::decisions::citing_sort_order(sort);
    let total = crate::store::decisions::decisions_citing_norm(g, &token)? as usize;
    let ids_sql = "SELECT DISTINCT decision_id FROM decision_norms WHERE norm = ?1";
    let ds = crate::store::decisions::decisions_page(g, ids_sql, &token, total, order, limit, offset)?;
    let rows: Vec<Value> = ds.iter().map(Decision::summary).collect();
    let mut out = Map::new();
    out.insert("norm".into(), json!({"given": given, "canonical": token}));
    out.insert("sort".into(), json!(sort));
    out.insert("total".into(), json!(total));
    out.insert(
        "total_basis".into(),
        json!("held decisions whose text or norm field cites this norm (finer citations such as Abs. included)"),
    );
    out.insert("has_more".into(), json!(offset + rows.len() < total));
    out.insert("results".into(), Value::Array(rows));
    Ok(out)
}

/// `corpus_coverage(branch?)`: what is ingested (the coverage map) next to what is measured:
/// per decision bucket the claim (`exhaustive`) and the measurement against the toc this
/// generation was built from (`measured`), and the holdings by court, branch, type and year,
/// counted by the one definition every tool shares (`statistics::fact_counts`).
pub fn corpus_coverage(g: &Generation, a: CorpusCoverageArgs) -> Result<Map<String, Value>, ToolError> {
    let branch = a.branch.map(|b| b.as_str());
    let map = coverage_map::shipped();
    let held: Vec<Value> = g.store.with(|c| {
        let mut st = c.prepare(
            "SELECT name, court_type, branch, level, land, decision_count, earliest, latest FROM courts
             WHERE decision_count > 0 AND (?1 IS NULL OR branch = ?1) ORDER BY decision_count DESC, name",
        )?;
        let rows = st
            .query_map(params![branch], |r| {
                Ok(json!({
                    "court": r.get::<_, String>(0)?, "type": r.get::<_, Option<String>>(1)?,
                    "branch": r.get::<_, String>(2)?, "level": r.get::<_, Option<i64>>(3)?,
                    "land": r.get::<_, Option<String>>(4)?, "decisions": r.get::<_, i64>(5)?,
                    "earliest": r.get::<_, Option<String>>(6)?, "latest": r.get::<_, Option<String>>(7)?,
                }))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    })?;
    let facts = crate::query::facts::fact_counts(g, None)?;
    let sources = &g.manifest.sources;
    let mut buckets: Vec<Value> = Vec::new();
    for b in &map.buckets {
        let source_present = b.sources.iter().any(|s| match s.as_str() {
            "gesetze-im-internet.de" => sources.get("gii").is_some_and(|x| x.records > 0),
            "rechtsprechung-im-internet.de" | "Open Legal Data" => {
                sources.get("decisions").is_some_and(|x| x.records > 0)
            }
            _ => false,
        });
        let mut v = serde_json::to_value(b).unwrap_or(Value::Null);
        v["source_in_this_generation"] = json!(source_present);
        v["claimed_exhaustive"] = json!(b.exhaustive);
        // Null: this bucket is not measured against a toc here (statutes, dumps).
        let measured = crate::query::coverage::measured(g, &b.bucket)?;
        v["measured_exhaustive"] = measured.as_ref().map(|m| m["measured_exhaustive"].clone()).unwrap_or(Value::Null);
        v["measured"] = measured.unwrap_or(Value::Null);
        buckets.push(v);
    }
    use crate::query::facts::Fact;
    let mut out = Map::new();
    out.insert("as_of".into(), json!(map.as_of));
    out.insert("generation_built_at".into(), json!(g.manifest.built_at));
    out.insert("buckets".into(), json!(buckets));
    out.insert("held_total".into(), json!(facts.total));
    out.insert("held_by_branch".into(), json!(facts.rows(Fact::Branch)));
    out.insert("held_by_document_type".into(), json!(facts.rows(Fact::DocumentType)));
    out.insert("held_by_year".into(), json!(facts.rows(Fact::Year)));
    out.insert("held_without_court".into(), json!(facts.by_court.get(&None).copied().unwrap_or(0)));
    out.insert("held_by_court".into(), json!(held));
    out.insert(
        "how_to_read".into(),
        json!("buckets say what the pipeline ingests; claimed_exhaustive is the map's claim, measured_exhaustive what this generation bears out (every toc item of the court in the window held; null = not measured here). check_citations gives not_found only inside a measured exhaustive window. held_* are measured from this generation (branch null = no court recorded); held_by_court lists the courts of the branch filter, the other held_* count every decision."),
    );
    if branch.is_some() {
        out.insert("filters_applied".into(), json!({"branch": branch}));
    }
    Ok(out)
}
