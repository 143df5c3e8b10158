//! The generation a build follows (the one CURRENT names, of the same schema): what a new
//! build keeps from it.
//!
//! - **Decision row ids are stable:** a decision keeps the id it had in the earlier
//!   generation; new decisions get ids above the earlier maximum, in extract's order.
//!   The decisions' full-text index is keyed by these ids, so it can be carried over.
//! - **Each decision's `index_key`** (a hash of the passages it puts into the full-text
//!   index) says whether its documents there are still right: an equal key keeps them.
//! - **Each decision's `build_key`** (a hash of what its rows, body and passages are made
//!   from: see `decision_writer::build_key`) says whether all of them are still right: an
//!   equal key copies its row instead of reading and building the decision again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Result;
use rusqlite::Connection;

use crate::generation::{Manifest, SCHEMA_VERSION, current_id, generations_dir, read_manifest};

/// The earlier generation's decisions by ext id.
pub type EarlierDecisions = HashMap<String, EarlierDecision>;

/// What a build needs to know of one decision of the earlier generation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EarlierDecision {
    pub id: i64,
    pub index_key: String,
    pub build_key: String,
}

/// The earlier generation, its store open read-only.
pub struct Earlier {
    pub id: String,
    pub dir: PathBuf,
    pub manifest: Manifest,
    conn: Connection,
}

impl Earlier {
    /// The generation CURRENT names, when it has this build's schema and its store opens
    /// (else nothing is kept: the build is a full one).
    pub fn find(data_dir: &Path) -> Option<Earlier> {
        let id = current_id(data_dir)?;
        let dir = generations_dir(data_dir).join(&id);
        let manifest = read_manifest(&dir).ok().filter(|m| m.schema_version == SCHEMA_VERSION)?;
        match crate::store::open_readonly(&dir.join(crate::store::STORE_FILE)) {
            Ok(conn) => Some(Earlier { id, dir, manifest, conn }),
            Err(e) => {
                tracing::warn!("the store of generation {id} (CURRENT) does not open, nothing is kept from it: {e:#}");
                None
            }
        }
    }

    /// The share of its store's pages that are free (see [`crate::store::free_share`]).
    pub fn store_free_share(&self) -> Result<f64> {
        crate::store::free_share(&self.conn)
    }

    /// Every decision's row id, `index_key` and `build_key`, by ext id.
    pub fn decisions(&self) -> Result<EarlierDecisions> {
        let mut st = self.conn.prepare("SELECT ext_id, id, index_key, build_key FROM decisions")?;
        let rows = st.query_map([], |r| {
            Ok((r.get::<_, String>(0)?, EarlierDecision { id: r.get(1)?, index_key: r.get(2)?, build_key: r.get(3)? }))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}
