//! The catalog: `data/catalog.sqlite`, the record of what was fetched and what could not be read.
//!
//! Invariants:
//! - `documents` holds, per (source, key), the *last good copy* only; a failed fetch never
//!   overwrites it, it only updates `last_status`/`last_reason`.
//! - `fetches` is append-only: one row per HTTP attempt outcome (after retries).
//! - `problems` is append-only: one row per record a stage could not use, with its reason.
//! - `toc_items` is the table of contents of the newest successfully read toc per source.
//!
//! The crate also holds what every stage binary and the server share without needing the
//! crawler: [`sources`] (source names, the rii toc entry), [`cli`] (logging, progress bars) and
//! [`sha256_hex`].

pub mod cli;
pub mod sources;

use std::path::Path;

use anyhow::{Context, Result};
use rusqlite::{Connection, OptionalExtension, params};

/// One row of `documents`: the newest good copy of a source document.
#[derive(Debug, Clone)]
pub struct DocumentRow {
    pub source: String,
    pub key: String,
    pub url: String,
    pub sha256: String,
    pub raw_path: String,
    pub bytes: i64,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    /// Source-side modification stamp (e.g. rii toc `<modified>`), when the source has one.
    pub source_modified: Option<String>,
    /// Where the bytes came from after redirects on the source's host (None: not recorded,
    /// a copy stored before final URLs were kept).
    pub final_url: Option<String>,
}

/// What happened to one fetch, after retries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FetchStatus {
    /// 200 with bytes different from the last good copy (or no copy yet).
    Changed,
    /// 200 with the same bytes as the last good copy.
    Unchanged,
    /// 304 answered to a conditional GET, or skipped because the toc says it is unchanged.
    NotModified,
    /// A 4xx/5xx status after retries.
    HttpError,
    /// Timeout, stall, connection refused, body read error, deadline, after retries.
    NetworkError,
    /// An answer not taken (body over the cap, redirect off the source's host, redirect loop);
    /// the reason starts with its `model::SourceProblem` spelling.
    Refused,
}

impl FetchStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            FetchStatus::Changed => "changed",
            FetchStatus::Unchanged => "unchanged",
            FetchStatus::NotModified => "not_modified",
            FetchStatus::HttpError => "http_error",
            FetchStatus::NetworkError => "network_error",
            FetchStatus::Refused => "refused",
        }
    }
    pub fn is_failure(self) -> bool {
        matches!(self, FetchStatus::HttpError | FetchStatus::NetworkError | FetchStatus::Refused)
    }
}

/// One row of `fetches`.
#[derive(Debug, Clone)]
pub struct FetchRow<'a> {
    pub run_id: i64,
    pub source: &'a str,
    pub key: &'a str,
    pub url: &'a str,
    pub status: FetchStatus,
    pub http_status: Option<u16>,
    pub sha256: Option<&'a str>,
    pub bytes: Option<i64>,
    pub reason: Option<&'a str>,
    /// True when the request carried If-None-Match / If-Modified-Since.
    pub conditional: bool,
    /// The URL that answered, after redirects on the source's host (None: no answer).
    pub final_url: Option<&'a str>,
}

/// One row of `norm_accounts`: what became of the `<norm>`s of one law (counts as the extract
/// stage computed them; `dropped_by_reason` is a JSON object keyed by the drop reasons' spellings).
#[derive(Debug, Clone)]
pub struct NormAccountRow {
    pub key: String,
    pub sha256: String,
    pub norms: i64,
    pub section_rows: i64,
    pub law_header: i64,
    pub headings: i64,
    pub dropped: i64,
    pub dropped_by_reason: String,
    pub text_bearing: i64,
}

/// One entry of a source's table of contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TocItem {
    pub key: String,
    pub title: String,
    /// The document URL exactly as the toc wrote it.
    pub link: String,
    /// Extra per-item metadata as JSON (rii: court, date, file number, modified).
    pub extra: Option<String>,
}

pub struct Catalog {
    conn: Connection,
}

const SCHEMA: &str = r#"
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    stage TEXT NOT NULL,
    source TEXT,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    exit_code INTEGER,
    summary TEXT
);
CREATE TABLE IF NOT EXISTS fetches (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL,
    source TEXT NOT NULL,
    key TEXT NOT NULL,
    url TEXT NOT NULL,
    status TEXT NOT NULL,
    http_status INTEGER,
    sha256 TEXT,
    bytes INTEGER,
    reason TEXT,
    conditional INTEGER NOT NULL,
    fetched_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS fetches_run ON fetches(run_id);
CREATE TABLE IF NOT EXISTS documents (
    source TEXT NOT NULL,
    key TEXT NOT NULL,
    url TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    raw_path TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    etag TEXT,
    last_modified TEXT,
    source_modified TEXT,
    first_seen TEXT NOT NULL,
    last_changed TEXT NOT NULL,
    last_checked TEXT NOT NULL,
    last_status TEXT NOT NULL,
    last_reason TEXT,
    PRIMARY KEY (source, key)
);
CREATE TABLE IF NOT EXISTS toc_items (
    source TEXT NOT NULL,
    position INTEGER NOT NULL,
    key TEXT NOT NULL,
    title TEXT NOT NULL,
    link TEXT NOT NULL,
    extra TEXT,
    PRIMARY KEY (source, position)
);
CREATE TABLE IF NOT EXISTS problems (
    id INTEGER PRIMARY KEY,
    run_id INTEGER,
    source TEXT NOT NULL,
    key TEXT NOT NULL,
    stage TEXT NOT NULL,
    reason TEXT NOT NULL,
    at TEXT NOT NULL
);
-- One row per law of the last extract run: what became of every <norm> of its XML.
-- norms = section_rows + law_header + headings + dropped (dropped_by_reason: JSON {reason: count}).
CREATE TABLE IF NOT EXISTS norm_accounts (
    source TEXT NOT NULL,
    key TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    run_id INTEGER,
    norms INTEGER NOT NULL,
    section_rows INTEGER NOT NULL,
    law_header INTEGER NOT NULL,
    headings INTEGER NOT NULL,
    dropped INTEGER NOT NULL,
    dropped_by_reason TEXT NOT NULL,
    text_bearing INTEGER NOT NULL,
    recorded_at TEXT NOT NULL,
    PRIMARY KEY (source, key)
);
"#;

pub fn now_utc() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| "1970-01-01T00:00:00Z".to_string())
}

impl Catalog {
    /// Opens (creating if needed) `<data_dir>/catalog.sqlite`.
    pub fn open(data_dir: &Path) -> Result<Self> {
        std::fs::create_dir_all(data_dir)
            .with_context(|| format!("cannot create data directory {}", data_dir.display()))?;
        let path = data_dir.join("catalog.sqlite");
        let conn = Connection::open(&path).with_context(|| format!("cannot open catalog {}", path.display()))?;
        conn.busy_timeout(std::time::Duration::from_secs(30))?;
        conn.execute_batch(SCHEMA).context("cannot create catalog schema")?;
        add_final_url_columns(&conn).context("cannot add final_url to the catalog")?;
        Ok(Catalog { conn })
    }

    /// Opens a run row. A row of the same stage and source still open is closed first (exit
    /// code 1): its process ended without recording an outcome (killed, or the machine went
    /// down), and no run row stays unfinished.
    pub fn start_run(&self, stage: &str, source: Option<&str>) -> Result<i64> {
        self.conn.execute(
            "UPDATE runs SET finished_at = ?3, exit_code = 1,
                    summary = 'abandoned: the process ended before it recorded an outcome'
             WHERE stage = ?1 AND source IS ?2 AND finished_at IS NULL",
            params![stage, source, now_utc()],
        )?;
        self.conn.execute(
            "INSERT INTO runs (stage, source, started_at) VALUES (?1, ?2, ?3)",
            params![stage, source, now_utc()],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    pub fn finish_run(&self, run_id: i64, exit_code: i32, summary: &str) -> Result<()> {
        self.conn.execute(
            "UPDATE runs SET finished_at = ?2, exit_code = ?3, summary = ?4 WHERE id = ?1",
            params![run_id, now_utc(), exit_code, summary],
        )?;
        Ok(())
    }

    pub fn record_fetch(&self, f: &FetchRow<'_>) -> Result<()> {
        self.conn.execute(
            "INSERT INTO fetches (run_id, source, key, url, status, http_status, sha256, bytes, reason, conditional, fetched_at, final_url)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![
                f.run_id,
                f.source,
                f.key,
                f.url,
                f.status.as_str(),
                f.http_status,
                f.sha256,
                f.bytes,
                f.reason,
                f.conditional,
                now_utc(),
                f.final_url
            ],
        )?;
        Ok(())
    }

    /// The last good copy of a document, if there is one.
    pub fn document(&self, source: &str, key: &str) -> Result<Option<DocumentRow>> {
        Ok(self
            .conn
            .query_row(
                "SELECT source, key, url, sha256, raw_path, bytes, etag, last_modified, source_modified, final_url
                 FROM documents WHERE source = ?1 AND key = ?2",
                params![source, key],
                row_to_document,
            )
            .optional()?)
    }

    /// Stores a new good copy (bytes already written to `raw_path`).
    pub fn upsert_document(&self, d: &DocumentRow, changed: bool) -> Result<()> {
        let now = now_utc();
        self.conn.execute(
            "INSERT INTO documents (source, key, url, sha256, raw_path, bytes, etag, last_modified, source_modified,
                                    first_seen, last_changed, last_checked, last_status, last_reason, final_url)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10, ?10, 'ok', NULL, ?12)
             ON CONFLICT (source, key) DO UPDATE SET
                url = excluded.url, sha256 = excluded.sha256, raw_path = excluded.raw_path,
                bytes = excluded.bytes, etag = excluded.etag, last_modified = excluded.last_modified,
                source_modified = excluded.source_modified, final_url = excluded.final_url,
                last_changed = CASE WHEN ?11 THEN excluded.last_changed ELSE documents.last_changed END,
                last_checked = excluded.last_checked, last_status = 'ok', last_reason = NULL",
            params![
                d.source,
                d.key,
                d.url,
                d.sha256,
                d.raw_path,
                d.bytes,
                d.etag,
                d.last_modified,
                d.source_modified,
                now,
                changed,
                d.final_url
            ],
        )?;
        Ok(())
    }

    /// Marks a document as checked and unchanged (304 or toc stamp unchanged).
    pub fn touch_document(&self, source: &str, key: &str) -> Result<()> {
        self.conn.execute(
            "UPDATE documents SET last_checked = ?3, last_status = 'ok', last_reason = NULL
             WHERE source = ?1 AND key = ?2",
            params![source, key, now_utc()],
        )?;
        Ok(())
    }

    /// Records a failed fetch on the document row, keeping its last good copy.
    pub fn mark_document_failed(&self, source: &str, key: &str, reason: &str) -> Result<()> {
        self.conn.execute(
            "UPDATE documents SET last_checked = ?3, last_status = 'error', last_reason = ?4
             WHERE source = ?1 AND key = ?2",
            params![source, key, now_utc(), reason],
        )?;
        Ok(())
    }

    pub fn record_problem(
        &self,
        run_id: Option<i64>,
        source: &str,
        key: &str,
        stage: &str,
        reason: &str,
    ) -> Result<()> {
        self.conn.execute(
            "INSERT INTO problems (run_id, source, key, stage, reason, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![run_id, source, key, stage, reason, now_utc()],
        )?;
        Ok(())
    }

    /// Replaces the norm accounts of `source` with those of this run (one transaction; laws
    /// no longer in the toc lose their row).
    pub fn replace_norm_accounts(&mut self, run_id: i64, source: &str, accounts: &[NormAccountRow]) -> Result<()> {
        let tx = self.conn.transaction()?;
        tx.execute("DELETE FROM norm_accounts WHERE source = ?1", params![source])?;
        {
            let mut stmt = tx.prepare(
                "INSERT INTO norm_accounts (source, key, sha256, run_id, norms, section_rows, law_header, headings,
                                            dropped, dropped_by_reason, text_bearing, recorded_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            )?;
            let now = now_utc();
            for a in accounts {
                stmt.execute(params![
                    source,
                    a.key,
                    a.sha256,
                    run_id,
                    a.norms,
                    a.section_rows,
                    a.law_header,
                    a.headings,
                    a.dropped,
                    a.dropped_by_reason,
                    a.text_bearing,
                    now
                ])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Replaces the stored table of contents of `source`.
    pub fn replace_toc(&mut self, source: &str, items: &[TocItem]) -> Result<()> {
        let tx = self.conn.transaction()?;
        tx.execute("DELETE FROM toc_items WHERE source = ?1", params![source])?;
        {
            let mut stmt = tx.prepare(
                "INSERT INTO toc_items (source, position, key, title, link, extra) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for (i, it) in items.iter().enumerate() {
                stmt.execute(params![source, i as i64, it.key, it.title, it.link, it.extra])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    pub fn toc(&self, source: &str) -> Result<Vec<TocItem>> {
        let mut stmt =
            self.conn.prepare("SELECT key, title, link, extra FROM toc_items WHERE source = ?1 ORDER BY position")?;
        let rows = stmt.query_map(params![source], |r| {
            Ok(TocItem { key: r.get(0)?, title: r.get(1)?, link: r.get(2)?, extra: r.get(3)? })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// All good copies of one source, keyed by document key.
    pub fn documents(&self, source: &str) -> Result<Vec<DocumentRow>> {
        let mut stmt = self.conn.prepare(
            "SELECT source, key, url, sha256, raw_path, bytes, etag, last_modified, source_modified, final_url
             FROM documents WHERE source = ?1",
        )?;
        let rows = stmt.query_map(params![source], row_to_document)?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// The raw copies (`raw_path`) some document's last good copy is, over every source.
    pub fn live_raw_paths(&self) -> Result<std::collections::HashSet<String>> {
        let mut stmt = self.conn.prepare("SELECT DISTINCT raw_path FROM documents")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Fetch outcomes of one run, counted by status.
    pub fn fetch_counts(&self, run_id: i64) -> Result<Vec<(String, i64)>> {
        let mut stmt = self
            .conn
            .prepare("SELECT status, COUNT(*) FROM fetches WHERE run_id = ?1 GROUP BY status ORDER BY status")?;
        let rows = stmt.query_map(params![run_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// The last failure reason recorded for a document's fetch, if any.
    pub fn last_fetch_failure(&self, source: &str, key: &str) -> Result<Option<String>> {
        Ok(self
            .conn
            .query_row(
                "SELECT reason FROM fetches WHERE source = ?1 AND key = ?2
                   AND status IN ('http_error', 'network_error', 'refused') ORDER BY id DESC LIMIT 1",
                params![source, key],
                |r| r.get(0),
            )
            .optional()?)
    }

    pub fn connection(&self) -> &Connection {
        &self.conn
    }
}

/// `final_url` on `fetches` and `documents` (where the bytes came from after redirects):
/// added to catalogs made before it existed; a no-op once there.
fn add_final_url_columns(conn: &Connection) -> Result<()> {
    for table in ["fetches", "documents"] {
        let has: bool =
            conn.prepare(&format!("SELECT 1 FROM pragma_table_info('{table}') WHERE name = 'final_url'"))?.exists([])?;
        if !has {
            conn.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN final_url TEXT"))?;
        }
    }
    Ok(())
}

fn row_to_document(r: &rusqlite::Row<'_>) -> rusqlite::Result<DocumentRow> {
    Ok(DocumentRow {
        source: r.get(0)?,
        key: r.get(1)?,
        url: r.get(2)?,
        sha256: r.get(3)?,
        raw_path: r.get(4)?,
        bytes: r.get(5)?,
        etag: r.get(6)?,
        last_modified: r.get(7)?,
        source_modified: r.get(8)?,
        final_url: r.get(9)?,
    })
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(bytes))
}
