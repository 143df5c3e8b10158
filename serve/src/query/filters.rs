//! The decision filters (court with all its chambers, branch, document type, dates, cited norm, cited decision): parsed once from the arguments, run as SQL or as index queries, and echoed in `filters_applied`.

use crate::contract::answer::ToolError;
use crate::contract::answers::{
    CitedNormApplied, CourtApplied, CourtCount, CourtVocabulary, DocumentTypeCount, DocumentTypeVocabulary,
    FilterVocabulary, FiltersApplied, VocabularyStatus,
};
use crate::contract::args::{CitationFilterArgs, DecisionFilterArgs};
use crate::query::identifiers::{canonical_norm, resolve_decision};
use crate::store::courts::stored_courts;
use crate::store::decisions::{DEC_FROM, Decision};
use extract::courts::fold;
use index::Generation;
use index::decision_writer::{court_keys, date_number};
use rusqlite::params_from_iter;
use std::collections::HashSet;
use std::ops::Bound;
use tantivy::query::{Occur, Query, RangeQuery, TermQuery};
use tantivy::schema::{IndexRecordOption, Term};

/// The stored courts a court filter value names: the keys the index filters on
/// (`index::decision_writer::court_keys`), so search and store agree.
pub(crate) fn courts_named(g: &Generation, given: &str) -> Result<Vec<(i64, extract::courts::Court, i64)>, ToolError> {
    let courts = stored_courts(g)?;
    let by_key = crate::store::courts::courts_by_key(g)?;
    Ok(by_key.get(&court_filter_key(given)).into_iter().flatten().map(|&at| courts[at].clone()).collect())
}

/// Court filter value → the folded keys the index holds; a court matches all its chambers.
pub(crate) fn court_filter_key(court: &str) -> String {
    // `BFH 10. Senat` filters the whole court: chambers are not part of the canonical court.
    match extract::courts::CourtTable::shipped().canonical(court) {
        Some(c) if c.in_reference_table => fold(&c.name),
        _ => fold(court),
    }
}

/// A date bound's year (`YYYY`) and whether the bound takes that whole year.
struct DateBound {
    year: String,
    whole_year: bool,
}

/// The filters every decision search shares.
#[derive(Debug, Default, Clone)]
pub(crate) struct Filters {
    pub(crate) court: Option<String>,
    pub(crate) branch: Option<String>,
    pub(crate) document_type: Option<String>,
    pub(crate) date_from: Option<String>,
    pub(crate) date_to: Option<String>,
    /// The norm (or whole law) the decision must cite, from the argument's spelling.
    pub(crate) cited_norm: Option<CitedNorm>,
    /// Ext id of a decision it must cite.
    pub(crate) cited_case: Option<String>,
}

/// Where the facet filters' columns are in a query: a court id, a branch and a document type.
pub(crate) struct FacetColumns {
    court_id: &'static str,
    branch: &'static str,
    document_type: &'static str,
}

impl FacetColumns {
    /// `decisions d LEFT JOIN courts c`.
    pub(crate) const DECISIONS: FacetColumns =
        FacetColumns { court_id: "d.court_id", branch: "c.branch", document_type: "d.document_type" };
    /// The per-generation `fact_combos` table (decisions grouped by court id, branch, type, year).
    pub(crate) const FACT_COMBOS: FacetColumns =
        FacetColumns { court_id: "court_id", branch: "branch", document_type: "document_type" };
}

/// A `cited_norm` filter: one norm (`§ 823 BGB`: it and every finer citation of it) or a whole
/// law (`IFG`: a citation of any of its §§ or Artikel).
#[derive(Debug, Clone)]
pub(crate) enum CitedNorm {
    /// `token`: the canonical norm token (`§ 823 BGB`), as `norms` stores it.
    Norm { given: String, token: String },
    /// `book`: the law's canonical abbreviation, the last word(s) of each of its tokens.
    Law { given: String, book: String },
}

impl CitedNorm {
    /// Reads the argument: a § / Artikel citation of a named law, else a law's name alone.
    pub(crate) fn parse(given: &str) -> Result<CitedNorm, ToolError> {
        if let Ok(token) = canonical_norm(given) {
            return Ok(CitedNorm::Norm { given: given.to_string(), token });
        }
        // A law alone: read as "§ 1 <law>" by the same grammar, which knows the law's names.
        let ex =
            extract::citations::extract(&format!("§ 1 {}", given.trim()), extract::citations::LawVocabulary::shipped());
        match ex.laws.first().and_then(|l| l.book.clone()) {
            Some(book) if ex.laws.len() == 1 => Ok(CitedNorm::Law { given: given.to_string(), book }),
            _ => Err(ToolError::invalid(
                format!("{given:?} is not a citation of a § or Artikel of a named law, nor a law"),
                "Send e.g. \"§ 823 BGB\", \"§ 823 Abs. 1 BGB\", \"Art. 20 GG\" or a whole law: \"IFG\".",
            )),
        }
    }

    fn applied(&self) -> CitedNormApplied {
        match self {
            CitedNorm::Norm { given, token } => CitedNormApplied {
                given: given.clone(),
                canonical: token.clone(),
                matches: "this norm and every finer citation of it (§ 823 BGB matches § 823 Abs. 1 BGB)",
            },
            CitedNorm::Law { given, book } => CitedNormApplied {
                given: given.clone(),
                canonical: book.clone(),
                matches: "a citation of any § or Artikel of this law",
            },
        }
    }

    /// The `norms.norm` condition (with `?{n}` for its one value) and that value.
    fn sql(&self, n: usize) -> (String, String) {
        match self {
            CitedNorm::Norm { token, .. } => (format!("norm = ?{n}"), token.clone()),
            // Tokens end in " <book>"; an abbreviation holds no `%` or `_`, but a LIKE
            // pattern escapes them all the same.
            CitedNorm::Law { book, .. } => {
                let escaped = book.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
                (format!("norm LIKE ?{n} ESCAPE '\\'"), format!("% {escaped}"))
            }
        }
    }

    /// The index clause over the `cited_norm` field.
    fn clause(&self, field: tantivy::schema::Field) -> Box<dyn Query> {
        match self {
            CitedNorm::Norm { token, .. } => {
                Box::new(TermQuery::new(Term::from_field_text(field, token), IndexRecordOption::Basic))
            }
            CitedNorm::Law { book, .. } => {
                let escaped: String = book
                    .chars()
                    .flat_map(|c| if ".+*?()|[]{}^$\\#&~-\"@<>".contains(c) { vec!['\\', c] } else { vec![c] })
                    .collect();
                match tantivy::query::RegexQuery::from_pattern(&format!(".* {escaped}"), field) {
                    Ok(q) => Box::new(q),
                    // A pattern that cannot be built matches nothing rather than everything.
                    Err(_) => Box::new(tantivy::query::EmptyQuery),
                }
            }
        }
    }
}

/// A date argument `name` (`YYYY-MM-DD`, or a year `YYYY`: its first day for a `*_from`, its
/// last for a `*_to`), normalised to `YYYY-MM-DD`.
pub(crate) fn parse_date_arg(given: Option<&str>, name: &str) -> Result<Option<String>, ToolError> {
    let Some(v) = given.filter(|s| !s.trim().is_empty()) else { return Ok(None) };
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
    pub(crate) fn from_args(a: &DecisionFilterArgs) -> Result<Filters, ToolError> {
        let f = Filters {
            court: a.court.clone(),
            branch: a.branch.map(|b| b.as_str().to_string()),
            document_type: a.document_type.clone(),
            date_from: parse_date_arg(a.date_from.as_deref(), "date_from")?,
            date_to: parse_date_arg(a.date_to.as_deref(), "date_to")?,
            cited_norm: None,
            cited_case: None,
        };
        if let (Some(a), Some(b)) = (&f.date_from, &f.date_to)
            && a > b
        {
            return Err(ToolError::invalid("date_from is after date_to", "Swap them or widen the range."));
        }
        Ok(f)
    }

    pub(crate) fn applied(&self) -> FiltersApplied {
        FiltersApplied {
            cited_norm: self.cited_norm.as_ref().map(CitedNorm::applied),
            cited_case_id: self.cited_case.clone(),
            court: self.court.as_ref().map(|c| CourtApplied {
                given: c.clone(),
                matches_key: court_filter_key(c),
                includes_all_chambers: true,
            }),
            branch: self.branch.clone(),
            document_type: self.document_type.clone(),
            date_from: self.date_from.clone(),
            date_to: self.date_to.clone(),
            file_number: None,
            ecli: None,
        }
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

    pub(crate) fn clauses(&self, g: &Generation) -> Vec<(Occur, Box<dyn Query>)> {
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
        if let Some(n) = &self.cited_norm {
            out.push((Occur::Must, n.clause(f.cited_norm)));
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
    pub(crate) fn from_search_args(
        g: &Generation,
        a: &DecisionFilterArgs,
        c: &CitationFilterArgs,
    ) -> Result<Filters, ToolError> {
        let mut filters = Filters::from_args(a)?;
        if let Some(n) = &c.cited_norm {
            filters.cited_norm = Some(CitedNorm::parse(n)?);
        }
        if let Some(id) = &c.cited_case_id {
            filters.cited_case = Some(resolve_decision(g, id, None, None)?.ext_id);
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
        if conds.is_empty() {
            // No filter was given: every row stays (and no statement is parsed for it).
            return Ok(());
        }
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
        if let Some(n) = &self.cited_norm {
            let (cond, value) = n.sql(vals.len() + 1);
            vals.push(Sql::Text(value));
            conds.push(format!(
                "d.id IN (SELECT x.decision_id FROM norms n JOIN decision_norm_ids x ON x.norm_id = n.id WHERE n.{cond})"
            ));
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
    pub(crate) fn sql_conditions(
        &self,
        g: &Generation,
    ) -> Result<(Vec<String>, Vec<rusqlite::types::Value>), ToolError> {
        use rusqlite::types::Value as Sql;
        let (mut conds, mut vals) = self.facet_conditions(g, &FacetColumns::DECISIONS)?;
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

    /// True when every filter set is a facet or a date bound: `fact_combos` answers for the
    /// whole years of the range, and only the rows of a bound's own year are read where the
    /// bound cuts that year ([`Filters::whole_years`], [`Filters::bound_years`]).
    pub(crate) fn only_facets_and_dates(&self) -> bool {
        self.cited_norm.is_none() && self.cited_case.is_none()
    }

    /// The whole years of the date range, as a condition over a `year` column (`YYYY`, as
    /// `decision_facts` has it): the years strictly between the bounds' own years, and a bound's
    /// own year too where the bound takes all of it (`date_from` on 1 January, `date_to` on
    /// 31 December, a year given alone). None without a date bound. With
    /// [`Filters::bound_years`] it splits the range: a decision in the range meets exactly one.
    pub(crate) fn whole_years(&self, vals: &mut Vec<rusqlite::types::Value>) -> Option<String> {
        let [from, to] = self.bounds()?;
        let mut conds = Vec::new();
        for (bound, cut, whole) in [(from, ">", ">="), (to, "<", "<=")] {
            if let Some(b) = bound {
                vals.push(rusqlite::types::Value::Text(b.year));
                conds.push(format!("year {} ?{}", if b.whole_year { whole } else { cut }, vals.len()));
            }
        }
        Some(conds.join(" AND "))
    }

    /// A date in the own year of a bound that cuts its year, as a condition over `d.date` (to
    /// go with the date conditions of [`Filters::sql_conditions`]); None when no bound cuts
    /// one ([`Filters::whole_years`] then counts the whole range).
    pub(crate) fn bound_years(&self, vals: &mut Vec<rusqlite::types::Value>) -> Option<String> {
        let [from, to] = self.bounds()?;
        let mut conds = Vec::new();
        if let Some(b) = from.filter(|b| !b.whole_year) {
            // Before the first day of the year after the lower bound's.
            let next = b.year.parse::<i64>().map_or(b.year, |n| format!("{:04}", n + 1));
            vals.push(rusqlite::types::Value::Text(format!("{next}-01-01")));
            conds.push(format!("d.date < ?{}", vals.len()));
        }
        if let Some(b) = to.filter(|b| !b.whole_year) {
            vals.push(rusqlite::types::Value::Text(format!("{}-01-01", b.year)));
            conds.push(format!("d.date >= ?{}", vals.len()));
        }
        (!conds.is_empty()).then(|| format!("({})", conds.join(" OR ")))
    }

    /// The date bounds (`YYYY-MM-DD`, checked by `parse_date_arg`) by year, `[from, to]`;
    /// None without either.
    fn bounds(&self) -> Option<[Option<DateBound>; 2]> {
        let bound = |d: &Option<String>, whole_from: &str| {
            d.as_ref()
                .map(|d| DateBound { year: d.chars().take(4).collect(), whole_year: d.get(4..) == Some(whole_from) })
        };
        (self.date_from.is_some() || self.date_to.is_some())
            .then(|| [bound(&self.date_from, "-01-01"), bound(&self.date_to, "-12-31")])
    }

    /// The facet filters (court, branch, document type) as SQL conditions over `columns`;
    /// the one definition of what these filters mean in SQL, for decision rows and for the
    /// per-generation `fact_combos` alike.
    pub(crate) fn facet_conditions(
        &self,
        g: &Generation,
        columns: &FacetColumns,
    ) -> Result<(Vec<String>, Vec<rusqlite::types::Value>), ToolError> {
        use rusqlite::types::Value as Sql;
        let mut conds = vec!["1 = 1".to_string()];
        let mut vals: Vec<Sql> = Vec::new();
        if let Some(court) = &self.court {
            let ids: Vec<i64> = courts_named(g, court)?.into_iter().map(|(id, ..)| id).collect();
            let list = ids.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
            conds.push(if ids.is_empty() { "0 = 1".into() } else { format!("{} IN ({list})", columns.court_id) });
        }
        if let Some(b) = &self.branch {
            vals.push(Sql::Text(b.clone()));
            conds.push(format!("{} = ?{}", columns.branch, vals.len()));
        }
        if let Some(t) = &self.document_type {
            // The generation's distinct types, from its small fact table rather than a scan of
            // every decision row.
            let types: Vec<String> = g.store.with(|c| {
                let mut st =
                    c.prepare_cached("SELECT DISTINCT document_type FROM fact_combos WHERE document_type IS NOT NULL")?;
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
                format!("{} IN ({})", columns.document_type, marks.join(", "))
            });
        }
        Ok((conds, vals))
    }

    /// For an empty result: does each filter value exist at all, and what is close to it?
    pub(crate) fn vocabulary(&self, g: &Generation) -> Result<Option<FilterVocabulary>, ToolError> {
        let mut v = FilterVocabulary::default();
        if let Some(c) = &self.court {
            let key = court_filter_key(c);
            // Suggestions: held courts any of whose keys contains the value or is contained in it.
            let held: Vec<(String, i64)> = stored_courts(g)?
                .iter()
                .filter(|(_, ct, n)| {
                    *n > 0 && court_keys(ct).iter().any(|k| k == &key || k.contains(&key) || key.contains(k.as_str()))
                })
                .map(|(_, ct, n)| (ct.name.clone(), *n))
                .collect();
            let exact = held.iter().any(|(n, _)| fold(n) == key);
            v.court = Some(CourtVocabulary {
                given: c.clone(),
                status: if exact { VocabularyStatus::Matched } else { VocabularyStatus::Unmatched },
                suggestions: held
                    .into_iter()
                    .take(10)
                    .map(|(court, decisions)| CourtCount { court, decisions })
                    .collect(),
            });
        }
        if let Some(t) = &self.document_type {
            let types: Vec<(String, i64)> = g.store.with(|conn| {
                let mut st = conn.prepare("SELECT document_type, COUNT(*) FROM decisions WHERE document_type IS NOT NULL GROUP BY document_type ORDER BY COUNT(*) DESC")?;
                let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<Vec<_>>>()?;
                Ok(rows)
            })?;
            let exact = types.iter().any(|(n, _)| fold(n) == fold(t));
            v.document_type = Some(DocumentTypeVocabulary {
                given: t.clone(),
                status: if exact { VocabularyStatus::Matched } else { VocabularyStatus::Unmatched },
                values_held: types
                    .into_iter()
                    .map(|(document_type, decisions)| DocumentTypeCount { document_type, decisions })
                    .collect(),
            });
        }
        Ok((v.court.is_some() || v.document_type.is_some()).then_some(v))
    }
}
