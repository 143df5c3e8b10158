//! `store.sqlite` of a generation: law texts, sections, metadata, book codes, decisions (their
//! bodies are in `texts/` packs, see [`crate::text_packs`]), courts.
//!
//! Written once by `index` (no journal, one transaction), then opened read-only with
//! `immutable=1` by `serve`, through a small connection pool.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result};
use rusqlite::{Connection, OpenFlags, params};

pub const STORE_FILE: &str = "store.sqlite";
/// The laws' tables, a file of their own: part of the laws part, shared between generations
/// built from the same laws, attached (read-only) to every connection to the store as `laws`.
pub const LAWS_STORE_FILE: &str = "laws.sqlite";

/// The tables of `laws.sqlite`.
pub const LAWS_SCHEMA: &str = r#"
CREATE TABLE laws (
    id INTEGER PRIMARY KEY,
    slug TEXT NOT NULL UNIQUE,
    code TEXT NOT NULL,
    jurabk TEXT NOT NULL,          -- JSON array
    amtabk TEXT,
    title TEXT NOT NULL,
    short_title TEXT,
    toc_title TEXT NOT NULL,
    doknr TEXT NOT NULL,
    builddate TEXT,
    ausfertigung_datum TEXT,
    fundstelle TEXT,
    stand TEXT NOT NULL,           -- JSON array
    notes TEXT,
    section_count INTEGER NOT NULL,
    text_length INTEGER NOT NULL,  -- code points of law_texts.text
    xml_sha256 TEXT NOT NULL,
    -- The norm account: norms = section_count + norms_header + norms_headings + dropped.
    norms INTEGER NOT NULL,        -- <norm> elements in the law's XML
    norms_header INTEGER NOT NULL, -- 1: the header norm made no row (0: its text is a row)
    norms_headings INTEGER NOT NULL, -- pure headings (no text), breadcrumb only
    norms_dropped TEXT NOT NULL,   -- JSON object {NormDropReason: count}, every reason
    norms_text_bearing INTEGER NOT NULL -- norms with text or footnotes, whatever became of them
);
CREATE TABLE book_codes (
    code_norm TEXT NOT NULL,
    code TEXT NOT NULL,
    law_id INTEGER NOT NULL,
    tier INTEGER NOT NULL,
    kind TEXT NOT NULL
);
CREATE INDEX book_codes_norm ON book_codes(code_norm, tier);
CREATE TABLE superseded_codes (
    code_norm TEXT NOT NULL,
    code TEXT NOT NULL,
    successor TEXT NOT NULL,
    successor_law_id INTEGER,
    effective_date TEXT,
    note TEXT NOT NULL
);
CREATE INDEX superseded_norm ON superseded_codes(code_norm);
CREATE TABLE sections (
    id INTEGER PRIMARY KEY,
    law_id INTEGER NOT NULL,
    ordinal INTEGER NOT NULL,
    doknr TEXT NOT NULL,
    label TEXT,                    -- designation: enbez as printed, `Art. 229 § 5`, or a heading unit's own
    key TEXT,                      -- section_key(label)
    toc_key TEXT NOT NULL,         -- key if unique in the law, else doknr
    kind TEXT NOT NULL,
    heading TEXT,
    breadcrumb TEXT NOT NULL,      -- JSON array
    text TEXT NOT NULL,
    footnotes TEXT,
    absaetze TEXT NOT NULL,        -- JSON array of {number,start,end}
    text_length INTEGER NOT NULL,  -- code points
    law_offset INTEGER NOT NULL    -- code point where this section starts in law_texts.text
);
CREATE INDEX sections_law_key ON sections(law_id, key);
CREATE INDEX sections_law_ord ON sections(law_id, ordinal);
CREATE INDEX sections_doknr ON sections(doknr);
CREATE TABLE law_texts (law_id INTEGER PRIMARY KEY, text TEXT NOT NULL);
"#;

pub const SCHEMA: &str = r#"
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE courts (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    court_type TEXT,
    branch TEXT NOT NULL,
    level INTEGER,
    land TEXT,
    city TEXT,
    ecli_code TEXT,
    citation_name TEXT,
    in_reference_table INTEGER NOT NULL,
    decision_count INTEGER NOT NULL,   -- decisions held (0 for table rows we hold none of)
    earliest TEXT,                     -- first and last decision date held; null when none dated
    latest TEXT
);
CREATE INDEX courts_type ON courts(court_type);
CREATE TABLE decisions (
    id INTEGER PRIMARY KEY,
    ext_id TEXT NOT NULL UNIQUE,       -- rii-<DOKNR> / oldp-<id>
    court_id INTEGER,                  -- null: the source names no court
    court_name_raw TEXT,
    chamber TEXT,
    date TEXT,
    date_raw TEXT,
    date_confidence TEXT NOT NULL,
    ecli TEXT,
    ecli_date_agrees INTEGER,
    document_type TEXT,
    document_type_raw TEXT,
    title TEXT,
    file_numbers TEXT NOT NULL,        -- JSON array
    norms_raw TEXT,
    source_format TEXT NOT NULL,
    flags TEXT NOT NULL,               -- JSON object
    notes TEXT NOT NULL,               -- JSON array
    sources TEXT NOT NULL,             -- JSON array
    text_length INTEGER NOT NULL,      -- code points
    citing_count INTEGER NOT NULL DEFAULT 0, -- distinct decisions citing it (resolved edges)
    -- The body (text, sections, Randnummern) is a zstd frame in a pack under texts/ (text_packs).
    text_pack INTEGER NOT NULL,        -- text_packs.id
    text_offset INTEGER NOT NULL,      -- the frame's first byte in the pack
    text_bytes INTEGER NOT NULL,       -- the frame's length
    text_key TEXT NOT NULL,            -- sha256 (128 bits, hex) of the uncompressed body
    index_key TEXT NOT NULL,           -- sha256 (128 bits, hex) of its documents in decisions/
    build_key TEXT NOT NULL,           -- sha256 (128 bits, hex) of what its rows, body and documents are made from
    passages INTEGER NOT NULL          -- its documents in decisions/
);
-- The packs of texts/, each named by the sha256 of its bytes (index::text_packs).
CREATE TABLE text_packs (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, bytes INTEGER NOT NULL);
-- A decision's citations are part of its body (index::citation_rows); what the server queries
-- across decisions is derived from them while they are written: edges, unheld case citations,
-- Normenketten and the citing counts below.
-- The Normenkette tokens that count for each decision (`cited_norm`, get_cases_for_law), each
-- token stored once in `norms` (a token is ~16 bytes and a corpus has ~37 per decision).
-- `decisions`: how many held decisions cite the token (filled after the load).
CREATE TABLE norms (id INTEGER PRIMARY KEY, norm TEXT NOT NULL UNIQUE, decisions INTEGER NOT NULL DEFAULT 0);
CREATE TABLE decision_norm_ids (
    decision_id INTEGER NOT NULL,
    norm_id INTEGER NOT NULL,
    from_norm_field INTEGER NOT NULL,
    PRIMARY KEY (decision_id, norm_id)
) WITHOUT ROWID;
CREATE VIEW decision_norms AS
    SELECT x.decision_id, n.norm, x.from_norm_field FROM decision_norm_ids x JOIN norms n ON n.id = x.norm_id;
-- Each norm's citing decisions with their sort keys, one row per (norm, decision), filled after
-- the load: a page of get_cases_for_law in either order is a range of the table (most cited)
-- or of its covering index (date). `undated` is `date IS NULL`, a column so the key can hold it;
-- `date` is '' where the decision has none (a key column cannot be null).
CREATE TABLE norm_citing (
    norm_id INTEGER NOT NULL,
    citing_count INTEGER NOT NULL,
    undated INTEGER NOT NULL,
    date TEXT NOT NULL,
    id INTEGER NOT NULL,
    PRIMARY KEY (norm_id, citing_count DESC, undated, date DESC, id)
) WITHOUT ROWID;
CREATE TABLE citation_edges (
    citing_id INTEGER NOT NULL,
    cited_id INTEGER NOT NULL,
    citations INTEGER NOT NULL,        -- how often the citing text cites it
    role TEXT NOT NULL                 -- procedural if any of them is, else cited
);
CREATE TABLE decision_file_numbers (
    fn_norm TEXT NOT NULL,             -- file_number_norm(): case, spaces, dots/slashes folded
    file_number TEXT NOT NULL,
    decision_id INTEGER NOT NULL
);
-- The one definition of a decision's count facts: every breakdown of every tool reads this
-- (court null = not recorded, so branch null too; year = the date's first four characters).
CREATE VIEW decision_facts AS
    SELECT d.id AS decision_id, d.court_id, c.name AS court, c.branch AS branch, d.document_type, d.date,
           CASE WHEN length(d.date) >= 4 THEN substr(d.date, 1, 4) END AS year
    FROM decisions d LEFT JOIN courts c ON c.id = d.court_id;
-- Coverage map decision buckets measured against the rii toc of this run (coverage_map::measure).
CREATE TABLE coverage_measured (
    bucket TEXT PRIMARY KEY,
    court TEXT NOT NULL,
    claimed_exhaustive INTEGER NOT NULL,
    toc_read INTEGER NOT NULL,
    toc_items_in_window INTEGER NOT NULL,
    held INTEGER NOT NULL,
    missing INTEGER NOT NULL,
    measured_exhaustive INTEGER NOT NULL,
    not_exhaustive_because TEXT,       -- no_toc_read | no_toc_item_in_window | toc_items_missing
    missing_keys TEXT NOT NULL         -- JSON array, at most coverage_map::MISSING_LISTED
);
-- How many held decisions cite each law and each section (bound citations only): the statute
-- search's prior for which § practice treats as on point (serve/src/query/law_prior.rs).
CREATE TABLE law_citing (law_id INTEGER PRIMARY KEY, decisions INTEGER NOT NULL);
CREATE TABLE section_citing (section_id INTEGER PRIMARY KEY, decisions INTEGER NOT NULL);
-- Case citations of held decisions naming a file number that binds to nothing held.
CREATE TABLE unheld_case_citations (
    fn_norm TEXT NOT NULL,
    court TEXT,                        -- canonical court as resolve read it, null when unread
    court_raw TEXT,
    date TEXT,                         -- the date the citation prints, null when none
    decision_id INTEGER NOT NULL       -- the citing decision
);
-- Each distinct way held decisions cite an unheld number (number, court, court as printed,
-- date; `ordinal` numbers them per number in that order), with how many decisions cite it so
-- and the lowest row ids among them (at most 20, comma-separated); and those decisions grouped
-- by the set of mentions each uses (`mentions`: ordinals, comma-separated), each group counted
-- with its lowest ids. check_citations' `attested_by` reads a few of these rows instead of
-- every citation of a number many decisions cite. Filled after the load (unheld_mentions.rs).
CREATE TABLE unheld_mentions (
    fn_norm TEXT NOT NULL,
    ordinal INTEGER NOT NULL,
    court TEXT,
    court_raw TEXT,
    date TEXT,
    decisions INTEGER NOT NULL,
    first_ids TEXT NOT NULL
);
CREATE TABLE unheld_mention_groups (
    fn_norm TEXT NOT NULL,
    mentions TEXT NOT NULL,
    decisions INTEGER NOT NULL,
    first_ids TEXT NOT NULL
);
CREATE INDEX um_norm ON unheld_mentions(fn_norm);
CREATE INDEX umg_norm ON unheld_mention_groups(fn_norm);
"#;

/// Count facts per (court, branch, type, year), for the tools' breakdowns unfiltered or
/// filtered by facets only: the decision_facts view grouped once per generation (constant for
/// it). court_id is kept so a court filter (a set of court ids) sums its rows.
macro_rules! fact_combos_sql {
    () => {
        "CREATE TABLE fact_combos AS
    SELECT court_id, court, branch, document_type, year, COUNT(*) AS decisions FROM decision_facts
    GROUP BY 1, 2, 3, 4, 5;"
    };
}

/// Secondary indexes of the decision tables, built once after the rows are loaded (building
/// an index at the end is one sort; keeping it during a million inserts rewrites its pages
/// over and over). A patched store keeps them ([`crate::store_patch`]).
pub const DECISION_INDEXES: &str = concat!(
    r#"
CREATE INDEX decisions_court_date ON decisions(court_id, date);
CREATE INDEX decisions_date ON decisions(date);
CREATE INDEX ce_citing ON citation_edges(citing_id);
CREATE INDEX ce_cited ON citation_edges(cited_id);
CREATE INDEX dfn_norm ON decision_file_numbers(fn_norm);
CREATE INDEX dfn_decision ON decision_file_numbers(decision_id);
-- Covering: check_citations groups a number's mentions and counts their decisions from it alone.
CREATE INDEX ucc_norm ON unheld_case_citations(fn_norm, court, court_raw, date, decision_id);
CREATE INDEX decisions_ecli_norm ON decisions(upper(replace(ecli, ' ', '')));
CREATE INDEX decisions_date_order ON decisions(date IS NULL, date DESC, id);
CREATE INDEX decisions_court_order ON decisions(court_id, date IS NULL, date DESC, id);
CREATE INDEX decisions_citing ON decisions(citing_count DESC, date IS NULL, date DESC, id);
CREATE INDEX dn_norm_decision ON decision_norm_ids(norm_id, decision_id);
INSERT INTO norm_citing (norm_id, citing_count, undated, date, id)
    SELECT x.norm_id, d.citing_count, d.date IS NULL, COALESCE(d.date, ''), d.id
    FROM decision_norm_ids x JOIN decisions d ON d.id = x.decision_id
    ORDER BY x.norm_id, d.citing_count DESC, d.date IS NULL, d.date DESC, d.id;
CREATE INDEX norm_citing_date ON norm_citing(norm_id, undated, date DESC, id);
UPDATE norms SET decisions = (SELECT COUNT(*) FROM decision_norm_ids x WHERE x.norm_id = norms.id);
"#,
    fact_combos_sql!()
);

/// `fact_combos` (see [`fact_combos_sql`]), made again by a patched store.
pub const FACT_COMBOS: &str = fact_combos_sql!();

/// The form file numbers are looked up by: upper case, no spaces, `.` as `/`, NBSP folded, so
/// `7 C 2.11`, `7 C 2/11` and `7C2.11` meet.
pub fn file_number_norm(s: &str) -> String {
    resolve::case_law::file_number_key(s)
}

/// The Absätze (JSON arrays) of the sections of law `law_id` that a citation of `section` as a
/// § or an Artikel (`unit`) can name, for index's binding and the checker alike. A section key
/// ignores the unit (`§ 3` and `Art. 3` are both key `3`), so where the law holds the key only
/// in the other unit (EGBGB has `Art. 3`, no `§ 3`) the citation names nothing there: no rows.
/// Rows of the cited unit win when both exist (BAStrlSchG `§ 4` and `Art 4`); rows of neither
/// unit (annexes, unlabelled) stay candidates.
pub fn cited_section_absaetze(
    conn: &Connection,
    law_id: i64,
    section: &str,
    unit: extract::citations::LawUnit,
) -> rusqlite::Result<Vec<String>> {
    let key = extract::law::section_key(section);
    let mut st = conn.prepare_cached("SELECT kind, absaetze FROM sections WHERE law_id = ?1 AND key = ?2")?;
    let rows: Vec<(String, String)> =
        st.query_map(params![law_id, key], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?;
    let (wanted, other) = match unit {
        extract::citations::LawUnit::Paragraph => ("paragraph", "article"),
        extract::citations::LawUnit::Article => ("article", "paragraph"),
    };
    let of = |kind: &str| rows.iter().filter(|(k, _)| k == kind).map(|(_, a)| a.clone()).collect::<Vec<_>>();
    if rows.iter().any(|(k, _)| k == wanted) {
        Ok(of(wanted))
    } else if rows.iter().all(|(k, _)| k == other) {
        Ok(Vec::new())
    } else {
        Ok(rows.into_iter().map(|(_, a)| a).collect())
    }
}

/// The form ECLIs are looked up by: upper case, no spaces.
pub fn ecli_norm(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).flat_map(char::to_uppercase).collect()
}

/// Creates a fresh store for writing (fast settings: the file is verified before publishing).
pub fn create(path: &Path) -> Result<Connection> {
    create_with(path, SCHEMA)
}

/// Creates `laws.sqlite` with [`LAWS_SCHEMA`].
pub fn create_laws(path: &Path) -> Result<Connection> {
    create_with(path, LAWS_SCHEMA)
}

fn create_with(path: &Path, schema: &str) -> Result<Connection> {
    let conn = Connection::open(path).with_context(|| format!("cannot create {}", path.display()))?;
    conn.execute_batch("PRAGMA page_size = 8192;")?;
    set_writing_pragmas(&conn)?;
    conn.execute_batch(schema)?;
    Ok(conn)
}

/// Opens a copy of an earlier generation's store for patching ([`crate::store_patch`]), with
/// the settings a fresh store is written with.
pub fn open_for_patch(path: &Path) -> Result<Connection> {
    let conn = Connection::open(path).with_context(|| format!("cannot open {} to patch it", path.display()))?;
    set_writing_pragmas(&conn)?;
    Ok(conn)
}

/// No journal and no syncs (the file is hashed and verified before it is published), and a
/// page cache of 256 MiB (not SQLite's 2 MB): the build's B-tree inserts stay in memory
/// instead of writing each page many times over; bounded, whatever the corpus size.
fn set_writing_pragmas(conn: &Connection) -> Result<()> {
    conn.execute_batch(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -262144; PRAGMA temp_store = FILE;",
    )?;
    Ok(())
}

/// The share of a store's pages that are free (left by removed rows).
pub fn free_share(conn: &Connection) -> Result<f64> {
    let free: i64 = conn.query_row("PRAGMA freelist_count", [], |r| r.get(0))?;
    let pages: i64 = conn.query_row("PRAGMA page_count", [], |r| r.get(0))?;
    Ok(if pages > 0 { free as f64 / pages as f64 } else { 0.0 })
}

/// Attaches `laws.sqlite` read-only as `laws`: the store's queries name its tables unqualified
/// (SQLite looks in `main`, then in attached databases).
pub fn attach_laws(conn: &Connection, laws: &Path) -> Result<()> {
    attach_immutable(conn, laws, "laws")
}

/// Attaches the store of the generation a build follows as `earlier` (read-only: a published
/// generation is never modified), so unchanged rows are copied by SQL.
pub fn attach_earlier(conn: &Connection, store: &Path) -> Result<()> {
    attach_immutable(conn, store, "earlier")
}

fn attach_immutable(conn: &Connection, db: &Path, schema: &str) -> Result<()> {
    let uri = format!("file:{}?mode=ro&immutable=1", db.display());
    conn.execute(&format!("ATTACH DATABASE ?1 AS {schema}"), [uri])
        .with_context(|| format!("cannot attach {}", db.display()))?;
    Ok(())
}

/// The number of sections `laws.sqlite` holds.
pub fn count_sections(laws: &Path) -> Result<u64> {
    let conn = open_one(laws)?;
    Ok(conn.query_row("SELECT COUNT(*) FROM sections", [], |r| r.get::<_, i64>(0))? as u64)
}

/// Builds [`DECISION_INDEXES`]: call once the decision rows, citations, norms and file
/// numbers are loaded, before anything reads them by index.
pub fn create_decision_indexes(conn: &Connection) -> Result<()> {
    conn.execute_batch(DECISION_INDEXES).context("building the decision indexes")?;
    crate::unheld_mentions::fill_all(conn).context("counting the mentions of unheld numbers")?;
    Ok(())
}

pub fn set_meta(conn: &Connection, key: &str, value: &str) -> Result<()> {
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)", params![key, value])?;
    Ok(())
}

/// Opens a store read-only and immutable (no locks, no journal, no writes possible), with the
/// generation's `laws.sqlite` beside it attached.
pub fn open_readonly(path: &Path) -> Result<Connection> {
    let conn = open_one(path)?;
    let laws = path.with_file_name(LAWS_STORE_FILE);
    if laws.is_file() {
        attach_laws(&conn, &laws)?;
    }
    // Look-ups by id run per result row: their statements are prepared once per connection.
    conn.set_prepared_statement_cache_capacity(64);
    // Without the query planner stability guarantee, SQLite marks a statement to be planned
    // again whenever a bound value might change its plan (our `decisions LEFT JOIN courts`
    // look-ups, and any value STAT4 could weigh), and a statement handed back to the cache is
    // then parsed and planned anew on its next use: a quarter of get_decision's CPU. Every
    // look-up here is by key, where the value does not change the plan.
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)
        .context("cannot enable the query planner stability guarantee")?;
    Ok(conn)
}

fn open_one(path: &Path) -> Result<Connection> {
    let uri = format!("file:{}?mode=ro&immutable=1", path.display());
    Connection::open_with_flags(
        &uri,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .with_context(|| format!("cannot open store {}", path.display()))
}

/// A pool of read-only connections to one store.
pub struct StorePool {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
}

impl StorePool {
    pub fn open(path: &Path) -> Result<Self> {
        let first = open_readonly(path)?;
        // Fails here, not on the first request, if the file is not a readable store.
        first
            .query_row("SELECT value FROM meta WHERE key = 'schema_version'", [], |r| r.get::<_, String>(0))
            .with_context(|| format!("{} is not a readable store", path.display()))?;
        Ok(StorePool { path: path.to_path_buf(), idle: Mutex::new(vec![first]) })
    }

    /// Runs `f` with a pooled connection.
    pub fn with<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let conn = self.idle.lock().expect("pool lock").pop();
        let conn = match conn {
            Some(c) => c,
            None => open_readonly(&self.path)?,
        };
        let out = f(&conn);
        let mut idle = self.idle.lock().expect("pool lock");
        if idle.len() < 16 {
            idle.push(conn);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::StatementStatus;

    /// The server's look-ups run through cached statements; without the planner stability
    /// guarantee SQLite parses and plans such a join again each time a new value is bound.
    #[test]
    fn a_cached_lookup_is_not_planned_again_for_each_bound_value() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.sqlite");
        let w = Connection::open(&path).unwrap();
        w.execute_batch(
            "CREATE TABLE courts (id INTEGER PRIMARY KEY, name TEXT);
             CREATE TABLE decisions (id INTEGER PRIMARY KEY, ext_id TEXT UNIQUE, court_id INTEGER);
             INSERT INTO courts VALUES (1, 'BVerwG');
             INSERT INTO decisions VALUES (1, 'a', 1), (2, 'b', 1), (3, 'c', NULL);",
        )
        .unwrap();
        drop(w);
        let conn = open_readonly(&path).unwrap();
        let sql = "SELECT d.id, c.name FROM decisions d LEFT JOIN courts c ON c.id = d.court_id WHERE d.ext_id = ?1";
        let mut found = Vec::new();
        let mut reprepared = 0;
        for ext_id in ["a", "b", "c", "d", "a"] {
            let mut st = conn.prepare_cached(sql).unwrap();
            let ids: Vec<i64> = st.query_map([ext_id], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
            found.push(ids);
            reprepared = st.get_status(StatementStatus::RePrepare);
        }
        assert_eq!(found, vec![vec![1], vec![2], vec![3], vec![], vec![1]]);
        assert_eq!(reprepared, 0, "the cached statement was parsed and planned again");
    }
}
