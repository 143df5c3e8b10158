//! Decision tools: `search_decisions`, `get_decision`, `filter_cases`, `list_courts`,
//! `get_court`, `list_facets`, `cross_type_search`, `get_similar_cases`.
//! One function per capability; MCP and REST both call these.
//!
//! Honesty rules (seed 002): totals say what they count (`total_basis`); every filter that ran
//! is echoed in `filters_applied`; an empty result under a court or document-type filter says
//! whether the value exists at all (`filter_vocabulary`); null means "not recorded".

use std::collections::{BTreeMap, HashSet};
use std::ops::Bound;

use extract::courts::fold;
use index::Generation;
use index::decision_writer::{court_keys, date_number};
use index::store::{ecli_norm, file_number_norm};
use model::{DecisionSort, FacetField, MatchMode, SearchMode};
use rusqlite::{params, params_from_iter};
use serde_json::{Map, Value, json};
use tantivy::collector::{Count, DocSetCollector, TopDocs};
use tantivy::query::{BooleanQuery, Occur, PhraseQuery, Query, RangeQuery, TermQuery};
use tantivy::schema::{IndexRecordOption, Term, Value as _};
use tantivy::{DocAddress, Searcher, TantivyDocument};

use crate::contract::answer::{ErrorCode, ToolError};
use crate::contract::args::Args;
use crate::query::snippets::Highlighter;
use crate::tools::laws::{query_words, slice_chars, snippet, words_query};

pub const PAGE_SIZE_MAX: i64 = 20;
pub const PAGE_MAX: i64 = 10;

/// A decision row of the store (without its text).
#[derive(Debug, Clone)]
pub struct Decision {
    pub id: i64,
    pub ext_id: String,
    pub court: Option<Value>,
    pub court_name_raw: Option<String>,
    pub chamber: Option<String>,
    pub date: Option<String>,
    pub date_confidence: String,
    pub ecli: Option<String>,
    pub ecli_date_agrees: Option<bool>,
    pub document_type: Option<String>,
    pub title: Option<String>,
    pub file_numbers: Vec<String>,
    pub text_length: i64,
    pub citing_count: i64,
}

const DEC_COLS: &str = "d.id, d.ext_id, d.court_name_raw, d.chamber, d.date, d.date_confidence, d.ecli, \
     d.ecli_date_agrees, d.document_type, d.title, d.file_numbers, d.text_length, \
     c.name, c.court_type, c.branch, c.level, c.land, c.ecli_code, d.citing_count";
const DEC_FROM: &str = "decisions d LEFT JOIN courts c ON c.id = d.court_id";

fn decision_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Decision> {
    let court_name: Option<String> = r.get(12)?;
    let court = match court_name {
        Some(name) => Some(json!({
            "name": name,
            "type": r.get::<_, Option<String>>(13)?,
            "branch": r.get::<_, String>(14)?,
            "level": r.get::<_, Option<i64>>(15)?,
            "land": r.get::<_, Option<String>>(16)?,
            "ecli_code": r.get::<_, Option<String>>(17)?,
        })),
        None => None,
    };
    Ok(Decision {
        id: r.get(0)?,
        ext_id: r.get(1)?,
        court,
        court_name_raw: r.get(2)?,
        chamber: r.get(3)?,
        date: r.get(4)?,
        date_confidence: r.get(5)?,
        ecli: r.get(6)?,
        ecli_date_agrees: r.get(7)?,
        document_type: r.get(8)?,
        title: r.get(9)?,
        file_numbers: serde_json::from_str(&r.get::<_, String>(10)?).unwrap_or_default(),
        text_length: r.get(11)?,
        citing_count: r.get(18)?,
    })
}

impl Decision {
    pub fn summary(&self) -> Value {
        json!({
            "id": self.ext_id,
            "aktenzeichen": self.file_numbers.first(),
            "file_numbers": self.file_numbers,
            "court": self.court,
            "court_name_as_given": self.court_name_raw,
            "chamber": self.chamber,
            "date": self.date,
            "date_confidence": self.date_confidence,
            "ecli": self.ecli,
            "document_type": self.document_type,
            "title": self.title,
            "fundstelle": Value::Null,
            "citing_cases_count": self.citing_count,
        })
    }
}

fn decisions_where(g: &Generation, cond: &str, args: &[&dyn rusqlite::ToSql]) -> Result<Vec<Decision>, ToolError> {
    Ok(g.store.with(|c| {
        let mut st = c.prepare(&format!("SELECT {DEC_COLS} FROM {DEC_FROM} WHERE {cond}"))?;
        let rows = st.query_map(args, decision_from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    })?)
}

/// Up to this many matching ids are listed literally, so SQLite reads exactly those rows by
/// rowid and sorts them; more are found by walking the order's index (dense matches then fill
/// a page after a short walk).
const LISTED_IDS_MAX: usize = 5_000;

/// One page, in `order` (SQL over `d` and `c`), of the held decisions whose ids `ids_sql`
/// (one `?1` argument) selects; `total` is how many it selects.
pub(crate) fn decisions_page(
    g: &Generation,
    ids_sql: &str,
    arg: &dyn rusqlite::ToSql,
    total: usize,
    order: &str,
    limit: usize,
    offset: usize,
) -> Result<Vec<Decision>, ToolError> {
    let page = format!("ORDER BY {order} LIMIT {limit} OFFSET {offset}");
    if total > LISTED_IDS_MAX {
        return decisions_where(g, &format!("d.id IN ({ids_sql}) {page}"), &[arg]);
    }
    let ids: Vec<i64> = g.store.with(|c| {
        let mut st = c.prepare(ids_sql)?;
        let ids = st.query_map([arg], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
        Ok(ids)
    })?;
    decisions_with_ids(g, &ids, &page)
}

/// The held decisions with these ids (read by rowid), then `tail` (an ORDER BY / LIMIT or "").
fn decisions_with_ids(g: &Generation, ids: &[i64], tail: &str) -> Result<Vec<Decision>, ToolError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let list = ids.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
    decisions_where(g, &format!("d.id IN ({list}) {tail}"), &[])
}

/// Held decisions with this file number (`store::file_number_norm` form).
pub fn decisions_by_file_number(g: &Generation, fn_norm: &str) -> Result<Vec<Decision>, ToolError> {
    let ids: Vec<i64> = g.store.with(|c| {
        let mut st = c.prepare_cached("SELECT DISTINCT decision_id FROM decision_file_numbers WHERE fn_norm = ?1")?;
        let ids = st.query_map([fn_norm], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
        Ok(ids)
    })?;
    decisions_with_ids(g, &ids, "ORDER BY d.id")
}

/// Held decisions with this ECLI (`store::ecli_norm` form; index `decisions_ecli_norm`).
pub fn decisions_by_ecli(g: &Generation, ecli: &str) -> Result<Vec<Decision>, ToolError> {
    decisions_where(g, "upper(replace(d.ecli, ' ', '')) = ?1", &[&ecli])
}

pub fn decision_by_id(g: &Generation, id: i64) -> Result<Decision, ToolError> {
    decisions_where(g, "d.id = ?1", &[&id])?.pop().ok_or_else(|| ToolError::internal(format!("decision {id} missing")))
}

/// Every court row of the store as a [`extract::courts::Court`], with its id and the number
/// of decisions held.
fn stored_courts(g: &Generation) -> Result<Vec<(i64, extract::courts::Court, i64)>, ToolError> {
    Ok(g.store.with(|c| {
        let mut st = c.prepare(
            "SELECT id, name, court_type, branch, level, land, city, ecli_code, citation_name, in_reference_table,
                    decision_count FROM courts",
        )?;
        let rows = st
            .query_map([], |r| {
                let court = extract::courts::Court {
                    name: r.get(1)?,
                    court_type: r.get(2)?,
                    branch: {
                        let b: String = r.get(3)?;
                        extract::courts::Branch::parse(&b).unwrap_or(extract::courts::Branch::Unbekannt)
                    },
                    level: r.get::<_, Option<i64>>(4)?.and_then(|l| u8::try_from(l).ok()),
                    land: r.get(5)?,
                    city: r.get(6)?,
                    ecli_code: r.get(7)?,
                    citation_name: r.get(8)?,
                    in_reference_table: r.get(9)?,
                };
                Ok((r.get(0)?, court, r.get(10)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    })?)
}

/// The stored courts a court filter value names: the keys the index filters on
/// (`index::decision_writer::court_keys`), so search and store agree.
fn courts_named(g: &Generation, given: &str) -> Result<Vec<(i64, extract::courts::Court, i64)>, ToolError> {
    let key = court_filter_key(given);
    Ok(stored_courts(g)?.into_iter().filter(|(_, c, _)| court_keys(c).contains(&key)).collect())
}

/// Court filter value → the folded keys the index holds; a court matches all its chambers.
fn court_filter_key(court: &str) -> String {
    // `BFH 10. Senat` filters the whole court: chambers are not part of the canonical court.
    match extract::courts::CourtTable::shipped().canonical(court) {
        Some(c) if c.in_reference_table => fold(&c.name),
        _ => fold(court),
    }
}

/// The filters every decision search shares.
#[derive(Debug, Default, Clone)]
pub(crate) struct Filters {
    court: Option<String>,
    branch: Option<String>,
    document_type: Option<String>,
    date_from: Option<String>,
    date_to: Option<String>,
    /// Canonical norm tokens the decision must cite (`§ 823 BGB`), from the argument's spelling.
    cited_norm: Option<(String, String)>,
    /// Ext id of a decision it must cite.
    cited_case: Option<String>,
}

/// A branch argument: one of the closed set's spellings, else a refusal that lists them.
fn branch_arg(given: &str) -> Result<(), ToolError> {
    match extract::courts::Branch::parse(given) {
        Some(_) => Ok(()),
        None => Err(ToolError::invalid(
            format!("unknown branch {given:?}"),
            format!("Use one of: {}.", extract::courts::Branch::SPELLINGS.join(", ")),
        )),
    }
}

fn parse_date_arg(a: &Args<'_>, name: &str) -> Result<Option<String>, ToolError> {
    let Some(v) = a.str_opt(name, 20)?.filter(|s| !s.trim().is_empty()) else { return Ok(None) };
    let v = v.trim().to_string();
    let v = if v.len() == 4 && v.bytes().all(|b| b.is_ascii_digit()) {
        if name.ends_with("to") { format!("{v}-12-31") } else { format!("{v}-01-01") }
    } else {
        v
    };
    if date_number(&v).is_none() {
        return Err(ToolError::invalid(
            format!("{name} must be a date YYYY-MM-DD (or a year YYYY), got {v:?}"),
            "Example: date_from=\"2015-01-01\", date_to=\"2020\".",
        ));
    }
    Ok(Some(v))
}

impl Filters {
    pub(crate) fn from_args(a: &Args<'_>) -> Result<Filters, ToolError> {
        let f = Filters {
            court: a.str_opt("court", 200)?.filter(|s| !s.trim().is_empty()),
            branch: a.closed::<model::Branch>("branch")?.map(|b| b.as_str().to_string()),
            document_type: a.str_opt("document_type", 100)?.filter(|s| !s.trim().is_empty()),
            date_from: parse_date_arg(a, "date_from")?,
            date_to: parse_date_arg(a, "date_to")?,
            cited_norm: None,
            cited_case: None,
        };
        if let Some(b) = &f.branch {
            branch_arg(b)?;
        }
        if let (Some(a), Some(b)) = (&f.date_from, &f.date_to)
            && a > b
        {
            return Err(ToolError::invalid("date_from is after date_to", "Swap them or widen the range."));
        }
        Ok(f)
    }

    pub(crate) fn applied(&self) -> Value {
        let mut m = Map::new();
        if let Some((given, token)) = &self.cited_norm {
            m.insert("cited_norm".into(), json!({"given": given, "canonical": token, "matches": "this norm and every finer citation of it (§ 823 BGB matches § 823 Abs. 1 BGB)"}));
        }
        if let Some(c) = &self.cited_case {
            m.insert("cited_case_id".into(), json!(c));
        }
        if let Some(c) = &self.court {
            m.insert(
                "court".into(),
                json!({"given": c, "matches_key": court_filter_key(c), "includes_all_chambers": true}),
            );
        }
        for (k, v) in [
            ("branch", &self.branch),
            ("document_type", &self.document_type),
            ("date_from", &self.date_from),
            ("date_to", &self.date_to),
        ] {
            if let Some(v) = v {
                m.insert(k.into(), json!(v));
            }
        }
        Value::Object(m)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.court.is_none()
            && self.branch.is_none()
            && self.document_type.is_none()
            && self.date_from.is_none()
            && self.date_to.is_none()
            && self.cited_norm.is_none()
            && self.cited_case.is_none()
    }

    fn clauses(&self, g: &Generation) -> Vec<(Occur, Box<dyn Query>)> {
        let f = g.decision_fields;
        let term = |field, v: &str| -> Box<dyn Query> {
            Box::new(TermQuery::new(Term::from_field_text(field, v), IndexRecordOption::Basic))
        };
        let mut out: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        if let Some(c) = &self.court {
            out.push((Occur::Must, term(f.court, &court_filter_key(c))));
        }
        if let Some(b) = &self.branch {
            out.push((Occur::Must, term(f.branch, b)));
        }
        if let Some(t) = &self.document_type {
            out.push((Occur::Must, term(f.document_type, &fold(t))));
        }
        if let Some((_, token)) = &self.cited_norm {
            out.push((Occur::Must, term(f.cited_norm, token)));
        }
        if let Some(c) = &self.cited_case {
            out.push((Occur::Must, term(f.cited_case, c)));
        }
        if self.date_from.is_some() || self.date_to.is_some() {
            let bound = |d: &Option<String>| match d.as_deref().and_then(date_number) {
                Some(n) => Bound::Included(Term::from_field_i64(f.date, n)),
                None => Bound::Unbounded,
            };
            out.push((Occur::Must, Box::new(RangeQuery::new(bound(&self.date_from), bound(&self.date_to)))));
        }
        out
    }

    /// [`Filters::from_args`] plus the citation filters (`cited_norm`, `cited_case_id`) that
    /// the searches declare: `search_decisions` and `get_case_statistics` must filter alike.
    pub(crate) fn from_search_args(g: &Generation, a: &Args<'_>) -> Result<Filters, ToolError> {
        let mut filters = Filters::from_args(a)?;
        if let Some(n) = a.str_opt("cited_norm", 200)?.filter(|s| !s.trim().is_empty()) {
            filters.cited_norm = Some((n.clone(), canonical_norm(&n)?));
        }
        if let Some(c) = a.str_opt("cited_case_id", 200)?.filter(|s| !s.trim().is_empty()) {
            filters.cited_case = Some(resolve_decision(g, &c, None, None)?.ext_id);
        }
        Ok(filters)
    }

    /// Keeps the store rows that pass every filter, the citation filters included (the index
    /// applies the same filters as query clauses; rows read from the store need this instead).
    pub(crate) fn retain(&self, g: &Generation, ds: &mut Vec<Decision>) -> Result<(), ToolError> {
        if ds.is_empty() {
            return Ok(());
        }
        // The same SQL conditions filter_cases runs, restricted to these rows: one definition
        // of what each filter means for the store.
        let (mut conds, vals) = self.sql_conditions_all(g)?;
        conds.push(format!("d.id IN ({})", ds.iter().map(|d| d.id.to_string()).collect::<Vec<_>>().join(", ")));
        let keep: HashSet<i64> = g.store.with(|c| {
            let mut st = c.prepare(&format!("SELECT d.id FROM {DEC_FROM} WHERE {}", conds.join(" AND ")))?;
            let ids = st.query_map(params_from_iter(vals.iter()), |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
            Ok(ids)
        })?;
        ds.retain(|d| keep.contains(&d.id));
        Ok(())
    }

    /// Every filter as SQL conditions over `decisions d LEFT JOIN courts c`: those of
    /// [`Self::sql_conditions`] plus the cited norm (`decision_norms`) and the cited decision
    /// (`citation_edges`).
    pub(crate) fn sql_conditions_all(
        &self,
        g: &Generation,
    ) -> Result<(Vec<String>, Vec<rusqlite::types::Value>), ToolError> {
        use rusqlite::types::Value as Sql;
        let (mut conds, mut vals) = self.sql_conditions(g)?;
        if let Some((_, token)) = &self.cited_norm {
            vals.push(Sql::Text(token.clone()));
            conds.push(format!("d.id IN (SELECT decision_id FROM decision_norms WHERE norm = ?{})", vals.len()));
        }
        if let Some(ext) = &self.cited_case {
            vals.push(Sql::Text(ext.clone()));
            conds.push(format!(
                "d.id IN (SELECT e.citing_id FROM citation_edges e JOIN decisions t ON t.id = e.cited_id WHERE t.ext_id = ?{})",
                vals.len()
            ));
        }
        Ok((conds, vals))
    }

    /// The filters as SQL conditions over `decisions d LEFT JOIN courts c` (court and document
    /// type are matched the way the index matches them, by their folded forms).
    fn sql_conditions(&self, g: &Generation) -> Result<(Vec<String>, Vec<rusqlite::types::Value>), ToolError> {
        use rusqlite::types::Value as Sql;
        let mut conds = vec!["1 = 1".to_string()];
        let mut vals: Vec<Sql> = Vec::new();
        if let Some(court) = &self.court {
            let ids: Vec<i64> = courts_named(g, court)?.into_iter().map(|(id, ..)| id).collect();
            let list = ids.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
            conds.push(if ids.is_empty() { "0 = 1".into() } else { format!("d.court_id IN ({list})") });
        }
        if let Some(b) = &self.branch {
            vals.push(Sql::Text(b.clone()));
            conds.push(format!("c.branch = ?{}", vals.len()));
        }
        if let Some(t) = &self.document_type {
            let types: Vec<String> = g.store.with(|c| {
                let mut st =
                    c.prepare("SELECT DISTINCT document_type FROM decisions WHERE document_type IS NOT NULL")?;
                let rows = st.query_map([], |r| r.get::<_, String>(0))?.collect::<rusqlite::Result<Vec<_>>>()?;
                Ok(rows)
            })?;
            let mut marks = Vec::new();
            for ty in types.into_iter().filter(|ty| fold(ty) == fold(t)) {
                vals.push(Sql::Text(ty));
                marks.push(format!("?{}", vals.len()));
            }
            conds.push(if marks.is_empty() {
                "0 = 1".into()
            } else {
                format!("d.document_type IN ({})", marks.join(", "))
            });
        }
        if let Some(d) = &self.date_from {
            vals.push(Sql::Text(d.clone()));
            conds.push(format!("d.date >= ?{}", vals.len()));
        }
        if let Some(d) = &self.date_to {
            vals.push(Sql::Text(d.clone()));
            conds.push(format!("d.date <= ?{}", vals.len()));
        }
        Ok((conds, vals))
    }

    /// For an empty result: does each filter value exist at all, and what is close to it?
    pub(crate) fn vocabulary(&self, g: &Generation) -> Result<Option<Value>, ToolError> {
        let mut m = Map::new();
        if let Some(c) = &self.court {
            let key = court_filter_key(c);
            // Suggestions: held courts any of whose keys contains the value or is contained in it.
            let held: Vec<(String, i64)> = stored_courts(g)?
                .into_iter()
                .filter(|(_, ct, n)| {
                    *n > 0 && court_keys(ct).iter().any(|k| k == &key || k.contains(&key) || key.contains(k.as_str()))
                })
                .map(|(_, ct, n)| (ct.name, n))
                .collect();
            let exact = held.iter().any(|(n, _)| fold(n) == key);
            m.insert(
                "court".into(),
                json!({
                    "given": c,
                    "status": if exact { "matched" } else { "unmatched" },
                    "suggestions": held.iter().take(10).map(|(n, k)| json!({"court": n, "decisions": k})).collect::<Vec<_>>(),
                }),
            );
        }
        if let Some(t) = &self.document_type {
            let types: Vec<(String, i64)> = g.store.with(|conn| {
                let mut st = conn.prepare("SELECT document_type, COUNT(*) FROM decisions WHERE document_type IS NOT NULL GROUP BY document_type ORDER BY COUNT(*) DESC")?;
                let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<Vec<_>>>()?;
                Ok(rows)
            })?;
            let exact = types.iter().any(|(n, _)| fold(n) == fold(t));
            m.insert(
                "document_type".into(),
                json!({
                    "given": t,
                    "status": if exact { "matched" } else { "unmatched" },
                    "values_held": types.iter().map(|(n, k)| json!({"document_type": n, "decisions": k})).collect::<Vec<_>>(),
                }),
            );
        }
        Ok((!m.is_empty()).then_some(Value::Object(m)))
    }
}

/// The canonical token of a norm as a user spells it (`§823 BGB`, `BGB § 823`, `Art. 20 GG`,
/// `§ 26 AsylVfG` → `§ 26 AsylG`), by the same scanner that read the decisions.
pub fn canonical_norm(given: &str) -> Result<String, ToolError> {
    let ex = extract::citations::extract(given, extract::citations::LawVocabulary::shipped());
    match ex.laws.iter().find(|l| l.book.is_some()) {
        Some(l) => Ok(l.canonical.clone()),
        None => Err(ToolError::invalid(
            format!("{given:?} is not a citation of a § or Artikel of a named law"),
            "Send e.g. \"§ 823 BGB\", \"§ 823 Abs. 1 BGB\" or \"Art. 20 GG\".",
        )),
    }
}

/// True when the whole query is one Aktenzeichen (`VIII ZR 231/07`, `7 C 2.11`,
/// `B 1 KR 2/20 R`, `2 BvQ 53/18`, `I-5 U 12/19`).
pub fn looks_like_file_number(q: &str) -> bool {
    let toks: Vec<&str> = q.split_whitespace().collect();
    if toks.len() < 2 || toks.len() > 6 || q.len() > 40 {
        return false;
    }
    let is_num_year = |t: &str| {
        let t = t.trim_end_matches(['.', ',']);
        let parts: Vec<&str> = t.split(['/', '.']).collect();
        parts.len() == 2
            && !parts[0].is_empty()
            && parts[0].bytes().all(|b| b.is_ascii_digit())
            && (2..=4).contains(&parts[1].len())
            && parts[1].bytes().all(|b| b.is_ascii_digit())
    };
    let has_register = toks.iter().any(|t| t.chars().next().is_some_and(char::is_alphabetic));
    toks.iter().any(|t| is_num_year(t))
        && has_register
        && toks.iter().all(|t| t.chars().all(|c| c.is_alphanumeric() || "-/.()".contains(c)))
}

pub fn looks_like_ecli(q: &str) -> bool {
    let q = q.trim();
    // `get(..5)` is None when byte 5 is inside a multi-byte character: no panic from input.
    q.len() > 10 && q.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("ECLI:")) && !q.contains(char::is_whitespace)
}

/// The distinct decision ids among every passage matching `q`.
/// The distinct decisions among every passage matching `q`, each with its date
/// (`YYYYMMDD`, from the index's fast field; None when undated), in index order.
fn matching_decisions(searcher: &Searcher, q: &dyn Query) -> Result<Vec<(u64, Option<i64>)>, ToolError> {
    let docs = searcher.search(q, &DocSetCollector)?;
    let mut seen = HashSet::new();
    let mut by_segment: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for DocAddress { segment_ord, doc_id } in docs {
        by_segment.entry(segment_ord).or_default().push(doc_id);
    }
    let mut ids = Vec::new();
    for (seg, mut docs) in by_segment {
        docs.sort_unstable();
        let reader = searcher.segment_reader(seg);
        let id_col = reader.fast_fields().u64("decision_id").map_err(ToolError::internal)?;
        let date_col = reader.fast_fields().i64("date").map_err(ToolError::internal)?;
        for d in docs {
            if let Some(v) = id_col.first(d)
                && seen.insert(v)
            {
                ids.push((v, date_col.first(d)));
            }
        }
    }
    Ok(ids)
}

struct Hit {
    decision_id: u64,
    score: f32,
    /// The decision's best passages (at most [`SNIPPETS_PER_ROW`]), best first.
    passages: Vec<DocAddress>,
}

const SNIPPETS_PER_ROW: usize = 2;

/// Best passages per decision, decisions in order of their best passage. Decision ids come
/// from the fast field, so no stored document is read here; callers load only the passages
/// of the rows they show.
fn ranked_hits(searcher: &Searcher, q: &dyn Query, want: usize) -> Result<Vec<Hit>, ToolError> {
    let mut limit = (want * 8).max(50);
    loop {
        let top = searcher.search(q, &TopDocs::with_limit(limit).order_by_score())?;
        let exhausted = top.len() < limit;
        let mut columns = BTreeMap::new();
        let mut hits: Vec<Hit> = Vec::new();
        let mut index_of: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
        for (score, addr) in top {
            let col = match columns.entry(addr.segment_ord) {
                std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::btree_map::Entry::Vacant(e) => e.insert(
                    searcher
                        .segment_reader(addr.segment_ord)
                        .fast_fields()
                        .u64("decision_id")
                        .map_err(ToolError::internal)?,
                ),
            };
            let Some(did) = col.first(addr.doc_id) else { continue };
            match index_of.get(&did) {
                Some(&i) if hits[i].passages.len() < SNIPPETS_PER_ROW => hits[i].passages.push(addr),
                Some(_) => {}
                None => {
                    index_of.insert(did, hits.len());
                    hits.push(Hit { decision_id: did, score, passages: vec![addr] });
                }
            }
        }
        if hits.len() >= want || exhausted || limit >= 20_000 {
            return Ok(hits);
        }
        limit *= 4;
    }
}

fn page_args(a: &Args<'_>) -> Result<(usize, usize), ToolError> {
    let page = a.int("page", 1, 1, PAGE_MAX)? as usize;
    let size = a.int("limit", 10, 1, PAGE_SIZE_MAX)? as usize;
    Ok((page, size))
}

fn snippet_of(hl: &mut Highlighter, g: &Generation, doc: &TantivyDocument, max_chars: usize) -> Value {
    let f = g.decision_fields;
    let text = doc.get_first(f.text).and_then(|v| v.as_str()).unwrap_or("");
    let rn_from = doc.get_first(f.rn_from).and_then(|v| v.as_u64()).unwrap_or(0);
    let rn_to = doc.get_first(f.rn_to).and_then(|v| v.as_u64()).unwrap_or(0);
    let section = doc.get_first(f.section).and_then(|v| v.as_str());
    let frag = hl.fragment(text, max_chars);
    json!({
        "text": frag.text,
        "highlights": frag.highlights,
        "randnummer": if rn_from == 0 { Value::Null } else if rn_from == rn_to { json!(rn_from) } else { json!([rn_from, rn_to]) },
        "section": section,
    })
}

/// `search_decisions(query, court?, branch?, document_type?, date_from?, date_to?, sort?, page?, limit?)`.
pub fn search_decisions(g: &Generation, a: &Args<'_>) -> Result<Map<String, Value>, ToolError> {
    let query = a.str_req("query", 500)?;
    let filters = Filters::from_search_args(g, a)?;
    let sort = a.closed::<DecisionSort>("sort")?.unwrap_or(DecisionSort::Relevance);
    let (page, size) = page_args(a)?;
    let mut out = Map::new();
    out.insert("query".into(), json!(query));
    out.insert("filters_applied".into(), filters.applied());
    out.insert("sort".into(), json!(sort));
    out.insert("page".into(), json!(page));
    out.insert("limit".into(), json!(size));

    let (q, words, citation, match_mode, ids) = match match_query(g, &query, &filters)? {
        QueryMatch::Identifier { mode, decisions: mut found } => {
            sort_decisions(&mut found, sort);
            let total = found.len();
            let rows: Vec<Value> = found
                .iter()
                .skip((page - 1) * size)
                .take(size)
                .map(|d| {
                    let mut r = d.summary();
                    r["matched_by"] = json!(mode);
                    r["snippets"] = json!([]);
                    r
                })
                .collect();
            out.insert("mode".into(), json!(mode));
            out.insert(
                "mode_note".into(),
                json!("The query is an identifier throughout, so it was looked up exactly, not searched as words."),
            );
            finish_page(&mut out, total, IDENTIFIER_BASIS, page, size, rows);
            if total == 0
                && !filters.is_empty()
                && let Some(v) = filters.vocabulary(g)?
            {
                out.insert("filter_vocabulary".into(), v);
            }
            return Ok(out);
        }
        QueryMatch::Text { query, words, citation, match_mode, ids } => (query, words, citation, match_mode, ids),
    };
    let f = g.decision_fields;
    let searcher = g.decisions_reader.searcher();
    let total = ids.len();
    let mut gen_ = Highlighter::new(&words);
    let mut rows = Vec::new();
    let start = (page - 1) * size;
    if sort != DecisionSort::Relevance {
        // date: newest first, undated last; most_cited: by citing_cases_count; ties by id.
        // Only the page's rows are read from the store.
        let mut ordered = ids.clone();
        if sort == DecisionSort::Date {
            ordered.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        } else {
            let counts = citing_counts(g)?;
            let count = |id: u64| counts.get(id as usize).copied().unwrap_or(0);
            ordered.sort_by(|a, b| count(b.0).cmp(&count(a.0)).then(b.1.cmp(&a.1)).then(a.0.cmp(&b.0)));
        }
        let page_ids: Vec<u64> = ordered.iter().skip(start).take(size).map(|(id, _)| *id).collect();
        // One query finds the best passages of every row of the page.
        let id_filter: Vec<(Occur, Box<dyn Query>)> = page_ids
            .iter()
            .map(|id| {
                let t = TermQuery::new(Term::from_field_u64(f.decision_id, *id), IndexRecordOption::Basic);
                (Occur::Should, Box::new(t) as Box<dyn Query>)
            })
            .collect();
        let within = BooleanQuery::new(vec![
            (Occur::Must, Box::new(q.clone()) as Box<dyn Query>),
            (Occur::Must, Box::new(BooleanQuery::new(id_filter))),
        ]);
        let hits = if page_ids.is_empty() { Vec::new() } else { ranked_hits(&searcher, &within, page_ids.len())? };
        for id in page_ids {
            let d = decision_by_id(g, id as i64)?;
            let passages = hits.iter().find(|h| h.decision_id == id).map(|h| h.passages.clone()).unwrap_or_default();
            let snippets: Vec<Value> = passages
                .iter()
                .map(|addr| searcher.doc::<TantivyDocument>(*addr).map(|doc| snippet_of(&mut gen_, g, &doc, 240)))
                .collect::<tantivy::Result<_>>()?;
            let mut r = d.summary();
            r["matched_by"] = json!("text_match");
            r["snippets"] = json!(snippets);
            rows.push(r);
        }
    } else {
        let hits = ranked_hits(&searcher, &q, start + size)?;
        for h in hits.into_iter().skip(start).take(size) {
            let d = decision_by_id(g, h.decision_id as i64)?;
            let mut r = d.summary();
            r["matched_by"] = json!("text_match");
            r["score"] = json!(h.score);
            r["snippets"] = json!(
                h.passages
                    .iter()
                    .map(|addr| searcher.doc::<TantivyDocument>(*addr).map(|doc| snippet_of(&mut gen_, g, &doc, 240)))
                    .collect::<tantivy::Result<Vec<_>>>()?
            );
            rows.push(r);
        }
    }
    out.insert("mode".into(), json!(if citation { SearchMode::ExactCitation } else { SearchMode::Keyword }));
    if citation {
        out.insert("mode_note".into(), json!("The query is a § / Art. citation throughout, so it was matched as a citation (its words in order), not as loose words."));
    }
    out.insert("match_mode".into(), json!(match_mode));
    finish_page(&mut out, total, text_basis(citation, match_mode), page, size, rows);
    if total == 0
        && !filters.is_empty()
        && let Some(v) = filters.vocabulary(g)?
    {
        out.insert("filter_vocabulary".into(), v);
    }
    out.insert("scope".into(), json!("court decisions only; laws are searched by search_laws"));
    Ok(out)
}

/// `total_basis` of an identifier query.
pub(crate) const IDENTIFIER_BASIS: &str = "decisions_with_this_identifier_after_filters";

/// `total_basis` of a word or § query.
pub(crate) fn text_basis(citation: bool, match_mode: MatchMode) -> &'static str {
    if citation {
        "decisions_with_a_passage_citing_these_words_in_order"
    } else if match_mode == MatchMode::AnyTerm {
        "decisions_with_a_passage_containing_any_query_word"
    } else {
        "decisions_with_a_passage_containing_every_query_word"
    }
}

/// What a decision query matched, before sorting and paging.
pub(crate) enum QueryMatch {
    /// The query is one Aktenzeichen or ECLI throughout: looked up exactly, then filtered.
    Identifier { mode: SearchMode, decisions: Vec<Decision> },
    /// Words or a § citation: every matching decision (id, date number) under the filters,
    /// with the index query that found them (callers reuse it to pick snippets).
    Text {
        query: BooleanQuery,
        words: Vec<String>,
        citation: bool,
        match_mode: MatchMode,
        ids: Vec<(u64, Option<i64>)>,
    },
}

/// The matching of `search_decisions`, shared with `get_case_statistics` so a count and a
/// search under the same arguments always agree.
pub(crate) fn match_query(g: &Generation, query: &str, filters: &Filters) -> Result<QueryMatch, ToolError> {
    let trimmed = query.trim();
    if looks_like_ecli(trimmed) || looks_like_file_number(trimmed) {
        // Exact keyword mode: the query is an identifier throughout.
        let (mode, mut found) = if looks_like_ecli(trimmed) {
            (SearchMode::ExactEcli, decisions_by_ecli(g, &ecli_norm(trimmed))?)
        } else {
            (SearchMode::ExactFileNumber, decisions_by_file_number(g, &file_number_norm(trimmed))?)
        };
        filters.retain(g, &mut found)?;
        return Ok(QueryMatch::Identifier { mode, decisions: found });
    }
    let words = query_words(query);
    if words.is_empty() {
        return Err(ToolError::invalid(
            "the query has no searchable words",
            "Send words, an Aktenzeichen or an ECLI, e.g. \"Betriebsgeheimnis\".",
        ));
    }
    let f = g.decision_fields;
    let build = |occur: Occur| words_query(&words, &[(f.text, 1.0), (f.heading, 2.0)], occur, filters.clauses(g));
    let searcher = g.decisions_reader.searcher();
    // A § / Art. citation throughout (`§ 823 BGB`, `Art. 20 GG`): its words in order, close
    // together (`§ 823 Abs. 1 BGB` matches), never the words scattered over a passage.
    let citation = crate::tools::laws::parse_section_citation(trimmed).is_some() && words.len() >= 2;
    let mut match_mode = if citation { MatchMode::CitationWordsInOrder } else { MatchMode::AllTermsInOnePassage };
    let mut q = if citation {
        let mut phrase = PhraseQuery::new(words.iter().map(|w| Term::from_field_text(f.text, w)).collect());
        phrase.set_slop(8);
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, Box::new(phrase))];
        clauses.extend(filters.clauses(g));
        BooleanQuery::new(clauses)
    } else {
        build(Occur::Must)
    };
    let mut ids = matching_decisions(&searcher, &q)?;
    if ids.is_empty() && words.len() > 1 && !citation {
        q = build(Occur::Should);
        ids = matching_decisions(&searcher, &q)?;
        match_mode = MatchMode::AnyTerm;
    }
    Ok(QueryMatch::Text { query: q, words, citation, match_mode, ids })
}

fn finish_page(out: &mut Map<String, Value>, total: usize, basis: &str, page: usize, size: usize, rows: Vec<Value>) {
    let end = page * size;
    out.insert("total".into(), json!(total));
    out.insert("total_basis".into(), json!(basis));
    out.insert("returned".into(), json!(rows.len()));
    out.insert("has_more".into(), json!(end < total && page < PAGE_MAX as usize));
    if end < total && page >= PAGE_MAX as usize {
        out.insert(
            "paging_note".into(),
            json!(format!("Only pages 1-{PAGE_MAX} are served; narrow the query or filters to reach the rest.")),
        );
    }
    out.insert("results".into(), Value::Array(rows));
}

/// `citing_count` of every decision, indexed by decision id (read once per generation).
fn citing_counts(g: &Generation) -> Result<std::sync::Arc<Vec<i64>>, ToolError> {
    static CACHE: std::sync::Mutex<Option<(String, std::sync::Arc<Vec<i64>>)>> = std::sync::Mutex::new(None);
    if let Some((id, v)) = CACHE.lock().expect("cache lock").as_ref()
        && *id == g.id
    {
        return Ok(v.clone());
    }
    let v: Vec<i64> = g.store.with(|c| {
        let n: i64 = c.query_row("SELECT COALESCE(MAX(id), 0) FROM decisions", [], |r| r.get(0))?;
        let mut v = vec![0i64; n as usize + 1];
        let mut st = c.prepare("SELECT id, citing_count FROM decisions")?;
        for row in st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))? {
            let (id, k) = row?;
            v[id as usize] = k;
        }
        Ok(v)
    })?;
    let v = std::sync::Arc::new(v);
    *CACHE.lock().expect("cache lock") = Some((g.id.clone(), v.clone()));
    Ok(v)
}

/// `date`: newest first, undated last; otherwise by id.
fn sort_decisions(ds: &mut [Decision], sort: DecisionSort) {
    match sort {
        DecisionSort::Date => ds.sort_by(|a, b| b.date.cmp(&a.date).then(a.id.cmp(&b.id))),
        DecisionSort::MostCited => {
            ds.sort_by(|a, b| b.citing_count.cmp(&a.citing_count).then(b.date.cmp(&a.date)).then(a.id.cmp(&b.id)))
        }
        DecisionSort::Relevance => ds.sort_by_key(|d| d.id),
    }
}

/// Resolves an id, ECLI or Aktenzeichen (narrowed by court/date) to one decision.
pub fn resolve_decision(
    g: &Generation,
    id: &str,
    court: Option<&str>,
    date: Option<&str>,
) -> Result<Decision, ToolError> {
    let id = id.trim();
    if let Some(d) = decisions_where(g, "d.ext_id = ?1", &[&id])?.pop() {
        return Ok(d);
    }
    if looks_like_ecli(id) {
        return decisions_by_ecli(g, &ecli_norm(id))?.pop().ok_or_else(|| not_found(id));
    }
    let mut found = decisions_by_file_number(g, &file_number_norm(id))?;
    let filters = Filters {
        court: court.map(str::to_string),
        date_from: date.map(str::to_string),
        date_to: date.map(str::to_string),
        ..Default::default()
    };
    filters.retain(g, &mut found)?;
    match found.len() {
        0 => Err(not_found(id)),
        1 => Ok(found.pop().expect("one")),
        _ => Err(ToolError::new(
            ErrorCode::DecisionAmbiguous,
            format!("{} decisions are held under {id:?}", found.len()),
            "Pass court and/or date (YYYY-MM-DD) to pick one, or use a candidate's id.",
        )
        .with("candidates", found.iter().map(Decision::summary).collect::<Vec<_>>())),
    }
}

fn not_found(id: &str) -> ToolError {
    ToolError::new(
        ErrorCode::DecisionNotFound,
        format!("no decision is held under {id:?}"),
        "Pass an id from search_decisions, an Aktenzeichen as the court writes it (\"7 C 2.11\", \"VIII ZR 231/07\") or an ECLI; search_decisions finds decisions by words.",
    )
}

/// The text of `[start, end)` in code points; empty when the span is (`slice_chars` reads a
/// length of 0 as "to the end").
fn span_text(text: &str, start: usize, end: usize) -> String {
    if end <= start { String::new() } else { slice_chars(text, start, end - start) }
}

/// `get_decision(id, court?, date?, offset?, length?, section?, rn_from?, rn_to?)`.
pub fn get_decision(g: &Generation, a: &Args<'_>) -> Result<Map<String, Value>, ToolError> {
    let id = a.str_req("id", 200)?;
    let court = a.str_opt("court", 200)?.filter(|s| !s.trim().is_empty());
    let date = parse_date_arg(a, "date")?;
    let offset = a.int("offset", 0, 0, i64::MAX)?;
    let length = a.int("length", 0, 0, i64::MAX)?;
    let section = a.str_opt("section", 100)?.filter(|s| !s.trim().is_empty());
    let rn_from = a.int("rn_from", 0, 0, 1_000_000)?;
    let rn_to = a.int("rn_to", 0, 0, 1_000_000)?;
    let d = resolve_decision(g, &id, court.as_deref(), date.as_deref())?;
    type Extra = (String, String, String, String, Option<String>, String, String, String, Option<String>);
    let (text, sections, rns, flags, norms, sources, notes, source_format, date_raw): Extra = g.store.with(|c| {
        Ok(c.query_row(
            "SELECT text, sections, randnummern, flags, norms_raw, sources, notes, source_format, date_raw FROM decisions WHERE id = ?1",
            params![d.id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?)),
        )?)
    })?;
    let sections: Vec<Value> = serde_json::from_str(&sections).unwrap_or_default();
    let blocks: Vec<extract::decisions::RnBlock> = serde_json::from_str(&rns).unwrap_or_default();
    let total = d.text_length as usize;
    let mut out = Map::new();
    out.insert("decision".into(), d.summary());
    out.insert("ecli_date_agrees".into(), json!(d.ecli_date_agrees));
    out.insert("date_as_given".into(), json!(date_raw));
    out.insert("norms_as_given".into(), json!(norms));
    out.insert("flags".into(), serde_json::from_str(&flags).unwrap_or(Value::Null));
    out.insert("notes".into(), serde_json::from_str(&notes).unwrap_or(Value::Null));
    out.insert("source_format".into(), json!(source_format));
    out.insert("sources".into(), serde_json::from_str(&sources).unwrap_or(Value::Null));
    out.insert("available_sections".into(), json!(sections));
    out.insert(
        "randnummern".into(),
        json!({
            "count": blocks.len(),
            "first": blocks.first().map(|b| b.rn),
            "last": blocks.last().map(|b| b.rn),
            "printed_in_source": blocks.first().map(|b| b.printed),
        }),
    );
    out.insert("total_length".into(), json!(total));
    if let Some(name) = section {
        let want = fold(&name);
        let Some(s) = sections.iter().find(|s| {
            s["name"].as_str().map(fold) == Some(want.clone()) || s["heading"].as_str().map(fold) == Some(want.clone())
        }) else {
            return Err(ToolError::new(
                ErrorCode::SectionNotInDecision,
                format!("this decision has no section {name:?}"),
                "Pick one of available_sections (by name).",
            )
            .with("available_sections", sections.iter().map(|s| s["name"].clone()).collect::<Vec<_>>()));
        };
        let (start, end) = (s["start"].as_u64().unwrap_or(0) as usize, s["end"].as_u64().unwrap_or(0) as usize);
        out.insert("section".into(), json!({"name": s["name"], "heading": s["heading"], "start": start, "end": end, "text": span_text(&text, start, end)}));
        return Ok(out);
    }
    if rn_from > 0 || rn_to > 0 {
        let (lo, hi) = (rn_from.max(1) as u32, if rn_to > 0 { rn_to as u32 } else { rn_from as u32 });
        if hi < lo {
            return Err(ToolError::invalid("rn_to is before rn_from", "Pass rn_from <= rn_to."));
        }
        let chosen: Vec<&extract::decisions::RnBlock> = blocks.iter().filter(|b| b.rn >= lo && b.rn <= hi).collect();
        let window = match (chosen.first(), chosen.last()) {
            (Some(f), Some(l)) => json!({
                "requested": [lo, hi],
                "returned": [f.rn, l.rn],
                "available": [blocks.first().map(|b| b.rn), blocks.last().map(|b| b.rn)],
                "start": f.start,
                "end": l.end,
                "blocks": chosen.iter().map(|b| json!({"rn": b.rn, "printed": b.printed, "start": b.start, "end": b.end, "text": span_text(&text, b.start, b.end)})).collect::<Vec<_>>(),
            }),
            _ => json!({
                "requested": [lo, hi],
                "returned": Value::Null,
                "available": [blocks.first().map(|b| b.rn), blocks.last().map(|b| b.rn)],
                "blocks": [],
                "note": "No Randnummer of this decision lies in the requested range.",
            }),
        };
        out.insert("randnummer_window".into(), window);
        return Ok(out);
    }
    if offset == 0 && length == 0 {
        out.insert("content".into(), json!(text));
    } else {
        out.insert("snippet".into(), snippet(&text, total, offset, length)?);
    }
    Ok(out)
}

/// `filter_cases(court?, branch?, document_type?, date_from?, date_to?, file_number?, ecli?, limit?, offset?)`.
pub fn filter_cases(g: &Generation, a: &Args<'_>) -> Result<Map<String, Value>, ToolError> {
    let filters = Filters::from_args(a)?;
    let file_number = a.str_opt("file_number", 100)?.filter(|s| !s.trim().is_empty());
    let ecli = a.str_opt("ecli", 100)?.filter(|s| !s.trim().is_empty());
    let limit = a.int("limit", 20, 1, 100)? as usize;
    let offset = a.int("offset", 0, 0, 1_000_000)? as usize;
    let (mut conds, mut vals) = filters.sql_conditions(g)?;
    if let Some(fnum) = &file_number {
        vals.push(rusqlite::types::Value::Text(file_number_norm(fnum)));
        conds.push(format!("d.id IN (SELECT decision_id FROM decision_file_numbers WHERE fn_norm = ?{})", vals.len()));
    }
    if let Some(e) = &ecli {
        vals.push(rusqlite::types::Value::Text(ecli_norm(e)));
        conds.push(format!("upper(replace(d.ecli, ' ', '')) = ?{}", vals.len()));
    }
    // Filters, count and page in SQL: the store does the work, however many decisions it holds.
    let cond = conds.join(" AND ");
    let (total, rows): (usize, Vec<Value>) = g.store.with(|c| {
        let total: i64 = c.query_row(
            &format!("SELECT COUNT(*) FROM {DEC_FROM} WHERE {cond}"),
            params_from_iter(vals.iter()),
            |r| r.get(0),
        )?;
        let mut st = c.prepare(&format!(
            "SELECT {DEC_COLS} FROM {DEC_FROM} WHERE {cond} ORDER BY d.date IS NULL, d.date DESC, d.id LIMIT {limit} OFFSET {offset}"
        ))?;
        let rows = st
            .query_map(params_from_iter(vals.iter()), decision_from_row)?
            .map(|d| d.map(|d| d.summary()))
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok((total as usize, rows))
    })?;
    let mut out = Map::new();
    let mut applied = filters.applied();
    if let Some(x) = &file_number {
        applied["file_number"] = json!(x);
    }
    if let Some(x) = &ecli {
        applied["ecli"] = json!(x);
    }
    out.insert("filters_applied".into(), applied);
    out.insert("total".into(), json!(total));
    out.insert("total_basis".into(), json!("decisions_held_matching_every_filter"));
    out.insert("offset".into(), json!(offset));
    out.insert("limit".into(), json!(limit));
    out.insert("has_more".into(), json!(offset + rows.len() < total));
    out.insert("sort".into(), json!("date_desc_undated_last"));
    if total == 0
        && !filters.is_empty()
        && let Some(v) = filters.vocabulary(g)?
    {
        out.insert("filter_vocabulary".into(), v);
    }
    out.insert("results".into(), Value::Array(rows));
    Ok(out)
}

fn court_json(r: &rusqlite::Row<'_>) -> rusqlite::Result<Value> {
    Ok(json!({
        "name": r.get::<_, String>(0)?,
        "type": r.get::<_, Option<String>>(1)?,
        "branch": r.get::<_, String>(2)?,
        "level": r.get::<_, Option<i64>>(3)?,
        "land": r.get::<_, Option<String>>(4)?,
        "city": r.get::<_, Option<String>>(5)?,
        "ecli_code": r.get::<_, Option<String>>(6)?,
        "citation_name": r.get::<_, Option<String>>(7)?,
        "in_reference_table": r.get::<_, bool>(8)?,
        "decisions_held": r.get::<_, i64>(9)?,
        "earliest_decision": r.get::<_, Option<String>>(10)?,
        "latest_decision": r.get::<_, Option<String>>(11)?,
    }))
}

const COURT_COLS: &str = "name, court_type, branch, level, land, city, ecli_code, citation_name, in_reference_table, decision_count, earliest, latest";

/// `list_courts(branch?, land?, level?, include_empty?, limit?, offset?)`.
pub fn list_courts(g: &Generation, a: &Args<'_>) -> Result<Map<String, Value>, ToolError> {
    let branch = a.closed::<model::Branch>("branch")?.map(|b| b.as_str().to_string());
    let land = a.str_opt("land", 10)?.filter(|s| !s.is_empty()).map(|s| s.to_uppercase());
    let level = a.int("level", -1, -1, 4)?;
    let include_empty = a.bool_opt("include_empty")?.unwrap_or(false);
    let limit = a.int("limit", 100, 1, 2000)? as usize;
    let offset = a.int("offset", 0, 0, 1_000_000)? as usize;
    if let Some(b) = &branch {
        branch_arg(b)?;
    }
    let mut conds = vec!["1 = 1".to_string()];
    let mut vals: Vec<Value> = Vec::new();
    if let Some(b) = &branch {
        vals.push(json!(b));
        conds.push(format!("branch = ?{}", vals.len()));
    }
    if let Some(l) = &land {
        let l = if l.starts_with("DE-") { l.clone() } else { format!("DE-{l}") };
        vals.push(json!(l));
        conds.push(format!("land = ?{}", vals.len()));
    }
    if level >= 0 {
        vals.push(json!(level));
        conds.push(format!("level = ?{}", vals.len()));
    }
    if !include_empty {
        conds.push("decision_count > 0".into());
    }
    let sql_vals: Vec<rusqlite::types::Value> = vals
        .iter()
        .map(|v| match v {
            Value::Number(n) => rusqlite::types::Value::Integer(n.as_i64().unwrap_or(0)),
            other => rusqlite::types::Value::Text(other.as_str().unwrap_or("").to_string()),
        })
        .collect();
    let rows: Vec<Value> = g.store.with(|c| {
        let mut st = c.prepare(&format!(
            "SELECT {COURT_COLS} FROM courts WHERE {} ORDER BY decision_count DESC, name",
            conds.join(" AND ")
        ))?;
        let rows =
            st.query_map(params_from_iter(sql_vals.iter()), court_json)?.collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    })?;
    let total = rows.len();
    let page: Vec<Value> = rows.into_iter().skip(offset).take(limit).collect();
    let mut out = Map::new();
    out.insert(
        "filters_applied".into(),
        json!({"branch": branch, "land": land, "level": (level >= 0).then_some(level), "include_empty": include_empty}),
    );
    out.insert("total".into(), json!(total));
    out.insert(
        "total_basis".into(),
        json!(if include_empty {
            "courts_in_reference_table_or_held"
        } else {
            "courts_with_at_least_one_decision_held"
        }),
    );
    out.insert("has_more".into(), json!(offset + page.len() < total));
    out.insert("results".into(), Value::Array(page));
    // Decisions no court row counts, so the courts' holdings plus these are every decision held.
    let facts = crate::tools::statistics::fact_counts(g, None)?;
    out.insert("decisions_without_court".into(), json!(facts.by_court.get(&None).copied().unwrap_or(0)));
    out.insert("decisions_held".into(), json!(facts.total));
    Ok(out)
}

/// `get_court(court)`: one court, its holdings and its decisions per year.
pub fn get_court(g: &Generation, a: &Args<'_>) -> Result<Map<String, Value>, ToolError> {
    let name = a.str_req("court", 200)?;
    let named = courts_named(g, &name)?;
    let court: Option<Value> = match named.first() {
        Some((id, ..)) => Some(g.store.with(|c| {
            Ok(c.query_row(&format!("SELECT {COURT_COLS} FROM courts WHERE id = ?1"), params![id], court_json)?)
        })?),
        None => None,
    };
    let Some(court) = court else {
        return Err(ToolError::new(
            ErrorCode::CourtNotFound,
            format!("no court is known as {name:?}"),
            "Use list_courts to see the courts held (name, citation name or ECLI code).",
        ));
    };
    let cname = court["name"].as_str().unwrap_or("").to_string();
    let by_year: Vec<Value> = g.store.with(|c| {
        let mut st = c.prepare(
            "SELECT year, COUNT(*) FROM decision_facts WHERE court = ?1 GROUP BY year ORDER BY year IS NULL, year",
        )?;
        let rows = st
            .query_map(params![cname], |r| {
                Ok(json!({"year": r.get::<_, Option<String>>(0)?, "decisions": r.get::<_, i64>(1)?}))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    })?;
    let mut out = Map::new();
    out.insert("court".into(), court);
    out.insert("decisions_by_year".into(), json!(by_year));
    out.insert("note".into(), json!("Holdings count the decisions in this generation, not all the court ever decided; year null = undated decisions."));
    Ok(out)
}

/// `list_facets(field, prefix?, limit?)`: value counts of court_name, court_branch or document_type.
pub fn list_facets(g: &Generation, a: &Args<'_>) -> Result<Map<String, Value>, ToolError> {
    let field = a.closed_req::<FacetField>("field")?;
    let prefix = a.str_opt("prefix", 100)?.unwrap_or_default();
    let limit = a.int("limit", 50, 1, 1000)? as usize;
    // Court, branch, type and year are counted by the one definition every tool shares
    // (`statistics::fact_counts`); cited norms count decisions per norm.
    use crate::tools::statistics::Fact;
    let fact = match field {
        FacetField::CourtName => Some(Fact::Court),
        FacetField::CourtBranch => Some(Fact::Branch),
        FacetField::DocumentType => Some(Fact::DocumentType),
        FacetField::Year => Some(Fact::Year),
        FacetField::CitedNorms => None,
    };
    // The family of a norm: the norm and every finer citation of it (`§ 823 BGB` → `§ 823 Abs. 1 BGB`).
    let family = match a.str_opt("norm", 200)?.filter(|s| !s.trim().is_empty()) {
        Some(n) if field == FacetField::CitedNorms => {
            let token = canonical_norm(&n)?;
            let (head, book) = token.rsplit_once(' ').map(|(h, b)| (h.to_string(), b.to_string())).unwrap_or_default();
            Some((n, token, head, book))
        }
        Some(_) => {
            return Err(ToolError::invalid("norm goes with field=cited_norms", "Drop norm or set field=cited_norms."));
        }
        None => None,
    };
    let (mut values, unrecorded): (Vec<(String, i64)>, i64) = match fact {
        Some(fact) => {
            let counts = crate::tools::statistics::fact_counts(g, None)?;
            let map = match fact {
                Fact::Court => counts.by_court,
                Fact::Branch => counts.by_branch,
                Fact::DocumentType => counts.by_document_type,
                Fact::Year => counts.by_year,
            };
            let unrecorded = map.get(&None).copied().unwrap_or(0) as i64;
            (map.into_iter().filter_map(|(v, n)| Some((v?, n as i64))).collect(), unrecorded)
        }
        None => {
            let values = g.store.with(|c| {
                let mut st = c.prepare("SELECT norm, COUNT(DISTINCT decision_id) FROM decision_norms GROUP BY norm")?;
                let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<Vec<_>>>()?;
                Ok(rows)
            })?;
            (values, 0)
        }
    };
    let p = fold(&prefix);
    values.retain(|(v, _)| p.is_empty() || fold(v).starts_with(&p));
    if let Some((_, token, head, book)) = &family {
        values.retain(|(v, _)| {
            v == token
                || (v.ends_with(&format!(" {book}"))
                    && v.strip_prefix(head.as_str()).is_some_and(|rest| rest.starts_with(' ')))
        });
    }
    values.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let total_values = values.len();
    let truncated = total_values > limit;
    values.truncate(limit);
    let mut out = Map::new();
    out.insert("field".into(), json!(field));
    out.insert("prefix".into(), json!(prefix));
    out.insert(
        "values".into(),
        json!(values.iter().map(|(v, n)| json!({"value": v, "decisions": n})).collect::<Vec<_>>()),
    );
    out.insert("distinct_values".into(), json!(total_values));
    out.insert("truncated".into(), json!(truncated));
    out.insert("decisions_without_this_field".into(), json!(unrecorded));
    if let Some((given, token, ..)) = family {
        out.insert("norm".into(), json!({"given": given, "canonical": token}));
        out.insert("counts_basis".into(), json!("held decisions citing each norm (a decision counts once per norm)"));
    }
    Ok(out)
}

/// `cross_type_search(query, limit?, book?, court?, …)`: laws and decisions side by side.
pub fn cross_type_search(g: &Generation, a: &Args<'_>) -> Result<Map<String, Value>, ToolError> {
    let query = a.str_req("query", 500)?;
    let limit = a.int("limit", 5, 1, 20)?;
    let mut law_args = Map::new();
    law_args.insert("query".into(), json!(query));
    law_args.insert("limit".into(), json!(limit));
    if let Some(b) = a.str_opt("book", 200)? {
        law_args.insert("book".into(), json!(b));
    }
    let mut dec_args = Map::new();
    dec_args.insert("query".into(), json!(query));
    dec_args.insert("limit".into(), json!(limit));
    for k in ["court", "branch", "document_type", "date_from", "date_to"] {
        if let Some(v) = a.str_opt(k, 200)? {
            dec_args.insert(k.into(), json!(v));
        }
    }
    let section = |r: Result<Map<String, Value>, ToolError>| match r {
        Ok(m) => Value::Object(m),
        Err(e) => Value::Object(e.payload()),
    };
    let laws = section(crate::tools::laws::search_laws(g, &Args::new(&law_args)));
    let decisions = section(search_decisions(g, &Args::new(&dec_args)));
    // What the decision results cite: the decisions and the norms most of them cite.
    let result_ids: Vec<String> = decisions["results"]
        .as_array()
        .map(|rs| rs.iter().filter_map(|r| r["id"].as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    let (cited, norms) = cited_by_results(g, &result_ids)?;
    let mut out = Map::new();
    out.insert("query".into(), json!(query));
    out.insert("laws".into(), laws);
    out.insert("decisions".into(), decisions);
    out.insert("frequently_cited_by_results".into(), json!(cited));
    out.insert("norms_cited_by_decision_results".into(), json!(norms));
    out.insert(
        "cited_basis".into(),
        json!(format!("counts are how many of the {} decision results cite each decision or norm", result_ids.len())),
    );
    out.insert("note".into(), json!("Two separate sections, never merged or ranked against each other: book filters only laws; court, branch, document_type and dates filter only decisions."));
    Ok(out)
}

/// The decisions and norms cited by the most of `ext_ids` (top 10 each).
fn cited_by_results(g: &Generation, ext_ids: &[String]) -> Result<(Vec<Value>, Vec<Value>), ToolError> {
    if ext_ids.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let marks = vec!["?"; ext_ids.len()].join(", ");
    let (cases, norms) = g.store.with(|c| {
        let mut st = c.prepare(&format!(
            "SELECT t.ext_id, COUNT(DISTINCT e.citing_id) AS n FROM citation_edges e
             JOIN decisions s ON s.id = e.citing_id JOIN decisions t ON t.id = e.cited_id
             WHERE s.ext_id IN ({marks}) GROUP BY t.ext_id ORDER BY n DESC, t.ext_id LIMIT 10"
        ))?;
        let cases: Vec<(String, i64)> = st
            .query_map(rusqlite::params_from_iter(ext_ids.iter()), |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        let mut st = c.prepare(&format!(
            "SELECT n.norm, COUNT(DISTINCT n.decision_id) AS k FROM decision_norms n JOIN decisions s ON s.id = n.decision_id
             WHERE s.ext_id IN ({marks}) GROUP BY n.norm ORDER BY k DESC, n.norm LIMIT 10"
        ))?;
        let norms: Vec<(String, i64)> = st
            .query_map(rusqlite::params_from_iter(ext_ids.iter()), |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        Ok((cases, norms))
    })?;
    let mut cited = Vec::new();
    for (ext, n) in cases {
        if let Some(d) = decisions_where(g, "d.ext_id = ?1", &[&ext])?.pop() {
            let mut v = d.summary();
            v["cited_by_results"] = json!(n);
            cited.push(v);
        }
    }
    Ok((cited, norms.into_iter().map(|(n, k)| json!({"norm": n, "cited_by_results": k})).collect()))
}

/// `get_similar_cases(id, limit?)`: decisions whose passages share the most distinctive words.
pub fn get_similar_cases(g: &Generation, a: &Args<'_>) -> Result<Map<String, Value>, ToolError> {
    let id = a.str_req("id", 200)?;
    let limit = a.int("limit", 5, 1, 20)? as usize;
    let d = resolve_decision(g, &id, None, None)?;
    let text: String =
        g.store.with(|c| Ok(c.query_row("SELECT text FROM decisions WHERE id = ?1", params![d.id], |r| r.get(0))?))?;
    let f = g.decision_fields;
    let searcher = g.decisions_reader.searcher();
    // Distinctive words: frequent in this text, rare in the corpus (tf-idf over the analyzer's terms).
    let mut tf: BTreeMap<String, usize> = BTreeMap::new();
    for w in query_words_all(&text) {
        *tf.entry(w).or_default() += 1;
    }
    let n_docs = searcher.num_docs().max(1) as f64;
    let mut scored: Vec<(f64, String)> = Vec::new();
    for (w, n) in tf {
        if w.chars().count() < 4 || w.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let df = searcher.doc_freq(&Term::from_field_text(f.text, &w))? as f64;
        if df < 2.0 {
            continue;
        }
        scored.push(((n as f64).sqrt() * (n_docs / df).ln(), w));
    }
    scored.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
    scored.truncate(25);
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = scored
        .iter()
        .map(|(_, w)| {
            (
                Occur::Should,
                Box::new(TermQuery::new(Term::from_field_text(f.text, w), IndexRecordOption::WithFreqs))
                    as Box<dyn Query>,
            )
        })
        .collect();
    clauses.push((
        Occur::MustNot,
        Box::new(TermQuery::new(Term::from_field_u64(f.decision_id, d.id as u64), IndexRecordOption::Basic)),
    ));
    let rows = if scored.is_empty() {
        Vec::new()
    } else {
        let q = BooleanQuery::new(clauses);
        let hits = ranked_hits(&searcher, &q, limit)?;
        let mut rows = Vec::new();
        for h in hits.into_iter().take(limit) {
            let mut r = decision_by_id(g, h.decision_id as i64)?.summary();
            r["score"] = json!(h.score);
            rows.push(r);
        }
        rows
    };
    let mut out = Map::new();
    out.insert("decision".into(), d.summary());
    out.insert("method".into(), json!("more-like-this: the decision's most distinctive words (tf-idf over the passage index), matched against other decisions' passages"));
    out.insert("terms_used".into(), json!(scored.iter().map(|(_, w)| w).collect::<Vec<_>>()));
    out.insert("results".into(), Value::Array(rows));
    Ok(out)
}

/// Every index term of a text, repeats included.
fn query_words_all(text: &str) -> Vec<String> {
    use tantivy::tokenizer::TokenStream;
    let mut analyzer = index::analysis::german_analyzer();
    let mut out = Vec::new();
    let mut ts = analyzer.token_stream(text);
    while ts.advance() {
        out.push(ts.token().text.clone());
    }
    out
}

/// Counts for `get_platform_info`.
pub fn holdings(g: &Generation) -> Result<Value, ToolError> {
    let (n, courts, earliest, latest, empty): (i64, i64, Option<String>, Option<String>, i64) = g.store.with(|c| {
        Ok(c.query_row(
            "SELECT (SELECT COUNT(*) FROM decisions), (SELECT COUNT(*) FROM courts WHERE decision_count > 0),
                    (SELECT MIN(date) FROM decisions), (SELECT MAX(date) FROM decisions),
                    (SELECT COUNT(*) FROM decisions WHERE text_length = 0)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )?)
    })?;
    let _ = Count;
    Ok(json!({
        "status": if n > 0 { "ingested" } else { "none_held" },
        "sources": ["rechtsprechung-im-internet.de (rii XML)", "Open Legal Data case dumps (JSON Lines)"],
        "decisions": n,
        "decisions_without_text": empty,
        "courts_with_decisions": courts,
        "date_range": {"earliest": earliest, "latest": latest},
        "snapshot": g.manifest.sources.get("decisions"),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_told_from_words() {
        for q in
            ["VIII ZR 231/07", "7 C 2.11", "B 1 KR 2/20 R", "2 BvQ 53/18", "I-5 U 12/19", "20 F 1.10", "M 9 K 14.488"]
        {
            assert!(looks_like_file_number(q), "{q}");
        }
        for q in ["Betriebs- und Geschäftsgeheimnis", "§ 823 BGB", "Art. 20 GG", "Urteil 2019", "Nr 1/2"] {
            assert!(!looks_like_file_number(q), "{q}");
        }
        assert!(looks_like_ecli("ECLI:DE:BVerfG:2018:qs20180822.2bvq005318"));
        assert!(!looks_like_ecli("ECLI"));
    }

    #[test]
    fn identifier_tests_do_not_panic_on_multi_byte_input() {
        for q in ["ääääää", "ääääääääääää", "ECLIä:DE:BGH:2020:1", "€€€€€€€€€€€", "ECL\u{301}I:DE:BGH:2020"]
        {
            assert!(!looks_like_ecli(q), "{q}");
            let _ = looks_like_file_number(q);
        }
    }
}
