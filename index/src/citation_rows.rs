//! A decision's citations as a generation keeps them: one JSON array per decision, the fourth
//! part of its body frame in the text packs ([`crate::text_packs`]), so an unchanged decision's
//! citations are shared with later generations by the same hard links as its text.
//!
//! Why not a table: every reader of a generation reads them one decision at a time
//! (`get_case_references`, the citation graph's unresolved counts, the data package), and as
//! rows with two indexes they were more than half of `store.sqlite`, rewritten by every build.
//! The corpus-wide facts the server queries are derived from them while the build writes them
//! (`citation_edges`, `unheld_case_citations`, `law_citing`, `section_citing`,
//! `decision_norms`; see `decision_writer`).
//!
//! [`load_table`] lays them out as the old `decision_citations` table in a connection's temp
//! schema, for tests and ad-hoc SQL over a whole generation.

use anyhow::{Context, Result};
use model::{CaseCitationStatus, CaseKind, CitationRole, LawCitationStatus, WithheldReason};
use rusqlite::{Connection, params};
use serde::{Deserialize, Serialize};

use crate::text_packs::TextPacks;

/// One citation of a decision, law or case.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StoredCitation {
    Law(StoredLawCitation),
    Case(StoredCaseCitation),
}

impl StoredCitation {
    /// Where it starts in the decision's text (code points).
    pub fn start(&self) -> usize {
        match self {
            StoredCitation::Law(l) => l.start,
            StoredCitation::Case(c) => c.start,
        }
    }
}

/// A statute citation and the law row it was bound to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredLawCitation {
    /// `[start, end)` in code points of the decision's text.
    pub start: usize,
    pub end: usize,
    pub raw: String,
    /// `§ 823 Abs. 1 BGB`.
    pub canonical: String,
    /// Coarser tokens, most specific first (`§ 823 BGB`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parents: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub book: Option<String>,
    pub section: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absatz: Option<String>,
    /// The Normenkette it belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain: Option<String>,
    /// The bound law row (`laws.id`), null when not bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub law_id: Option<i64>,
    pub status: LawCitationStatus,
}

/// A case citation and what resolve bound it to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredCaseCitation {
    pub start: usize,
    pub end: usize,
    pub raw: String,
    pub canonical: String,
    pub case_kind: CaseKind,
    /// The canonical court, and the court as printed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub court: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub court_raw: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_number: Option<String>,
    pub status: CaseCitationStatus,
    /// The bound decision when resolved: its row id (stable across generations) and ext id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_id: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withheld: Option<WithheldReason>,
    pub role: CitationRole,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl StoredCaseCitation {
    /// Whether it is an edge of the citation graph: resolved, not withheld, and not the citing
    /// decision itself (`citing`: its row id).
    pub fn is_edge_from(&self, citing: i64) -> bool {
        self.status == CaseCitationStatus::Resolved
            && self.withheld.is_none()
            && self.target_id.is_some_and(|t| t != citing)
    }

    /// Whether it names a file number that binds to nothing held: what `unheld_case_citations`
    /// lists (an attestation that such a decision exists, never a binding).
    pub fn names_unheld_decision(&self) -> bool {
        self.target_id.is_none()
            && self.file_number.is_some()
            && matches!(
                self.status,
                CaseCitationStatus::UnresolvedNoMatch | CaseCitationStatus::UnresolvedOutOfCoverage
            )
            && self.candidates.is_empty()
    }
}

/// The body part holding `citations`.
pub fn encode(citations: &[StoredCitation]) -> Result<String> {
    serde_json::to_string(citations).context("encoding a decision's citations")
}

/// A body part written by [`encode`].
pub fn decode(part: &str) -> Result<Vec<StoredCitation>> {
    serde_json::from_str(part).context("a decision's citations in its body are not readable (damaged pack?)")
}

/// The store of the generation in `generation_dir`, opened read-only, with every citation in
/// `temp.decision_citations` ([`load_table`]).
pub fn open_store_with_citations(generation_dir: &std::path::Path) -> Result<Connection> {
    let conn = crate::store::open_readonly(&generation_dir.join(crate::store::STORE_FILE))?;
    let texts = TextPacks::open(generation_dir, &conn)?;
    load_table(&conn, &texts)?;
    Ok(conn)
}

/// Creates `temp.decision_citations` in `conn` (a connection to the generation's store) with
/// one row per citation of every decision, in the columns the store once had: for tests and
/// ad-hoc SQL over a whole generation. Reads every body; returns the rows written.
pub fn load_table(conn: &Connection, texts: &TextPacks) -> Result<u64> {
    conn.execute_batch(
        "CREATE TEMP TABLE decision_citations (
            decision_id INTEGER NOT NULL, kind TEXT NOT NULL, start INTEGER NOT NULL, end INTEGER NOT NULL,
            raw TEXT NOT NULL, canonical TEXT NOT NULL, parents TEXT, book TEXT, section TEXT, absatz TEXT,
            chain TEXT, law_id INTEGER, law_status TEXT, case_kind TEXT, court TEXT, court_raw TEXT, date TEXT,
            file_number TEXT, status TEXT, target_id INTEGER, candidates TEXT, withheld TEXT, role TEXT, note TEXT);
         BEGIN;",
    )?;
    let ids: Vec<i64> = conn
        .prepare("SELECT id FROM main.decisions ORDER BY id")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut law = conn.prepare(
        "INSERT INTO temp.decision_citations (decision_id, kind, start, end, raw, canonical, parents, book, section,
            absatz, chain, law_id, law_status) VALUES (?1, 'law', ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?;
    let mut case = conn.prepare(
        "INSERT INTO temp.decision_citations (decision_id, kind, start, end, raw, canonical, case_kind, court,
            court_raw, date, file_number, status, target_id, candidates, withheld, role, note)
         VALUES (?1, 'case', ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
    )?;
    let mut rows = 0;
    for id in ids {
        for c in decode(&texts.citations_of(conn, id)?)? {
            match c {
                StoredCitation::Law(l) => law.execute(params![
                    id,
                    l.start as i64,
                    l.end as i64,
                    l.raw,
                    l.canonical,
                    serde_json::to_string(&l.parents)?,
                    l.book,
                    l.section,
                    l.absatz,
                    l.chain,
                    l.law_id,
                    l.status.as_str()
                ])?,
                StoredCitation::Case(k) => case.execute(params![
                    id,
                    k.start as i64,
                    k.end as i64,
                    k.raw,
                    k.canonical,
                    k.case_kind.as_str(),
                    k.court,
                    k.court_raw,
                    k.date,
                    k.file_number,
                    k.status.as_str(),
                    k.target_id,
                    serde_json::to_string(&k.candidates)?,
                    k.withheld.map(|w| w.as_str()),
                    k.role.as_str(),
                    k.note
                ])?,
            };
            rows += 1;
        }
    }
    drop((law, case));
    conn.execute_batch("COMMIT")?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn citations_survive_their_body_part_and_unset_fields_are_left_out() {
        let law = StoredCitation::Law(StoredLawCitation {
            start: 3,
            end: 14,
            raw: "§ 3 IFG".into(),
            canonical: "§ 3 IFG".into(),
            parents: vec![],
            book: Some("IFG".into()),
            section: "3".into(),
            absatz: None,
            chain: None,
            law_id: Some(7),
            status: LawCitationStatus::Bound,
        });
        let case = StoredCitation::Case(StoredCaseCitation {
            start: 20,
            end: 40,
            raw: "BVerwG 7 C 2.11".into(),
            canonical: "BVerwG 7 C 2.11".into(),
            case_kind: CaseKind::FileNumber,
            court: Some("BVerwG".into()),
            court_raw: Some("BVerwG".into()),
            date: None,
            file_number: Some("7 C 2.11".into()),
            status: CaseCitationStatus::UnresolvedNoMatch,
            target_id: None,
            target: None,
            candidates: vec![],
            withheld: None,
            role: CitationRole::Cited,
            note: None,
        });
        let part = encode(&[law.clone(), case.clone()]).unwrap();
        assert!(!part.contains("absatz") && !part.contains("candidates"), "{part}");
        assert_eq!(decode(&part).unwrap(), vec![law, case.clone()]);
        let StoredCitation::Case(k) = case else { unreachable!() };
        assert!(k.names_unheld_decision() && !k.is_edge_from(1));
        assert!(decode("[{\"kind\":\"law\"}]").is_err());
    }
}
