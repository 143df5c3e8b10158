//! API tokens: a small SQLite file beside the generations (`<data-dir>/access/tokens.sqlite`),
//! never inside one, written by `serve token create|list|revoke`.
//!
//! A token is `ldt_<id>_<secret>`; only the SHA-256 of the secret is stored, the token is shown
//! once, and the secret is compared in constant time. Every request looks its token up, so a
//! revocation or an expiry takes effect on the next request.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result};
use rusqlite::{Connection, OptionalExtension, params};

use crate::contract::caller::{Ability, TokenIdentity};

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS tokens (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    secret_sha256 TEXT NOT NULL,
    abilities TEXT NOT NULL,
    per_hour INTEGER,
    created_at TEXT NOT NULL,
    expires_at_unix INTEGER,
    revoked_at TEXT
)";

/// The token file of a data directory.
pub fn tokens_path(data_dir: &Path) -> PathBuf {
    data_dir.join("access").join("tokens.sqlite")
}

/// A valid token's row.
#[derive(Debug, Clone)]
pub struct TokenGrant {
    pub identity: TokenIdentity,
    /// Its own requests per hour; None = the deployment's token default.
    pub per_hour: Option<u32>,
}

/// A token's row as `serve token list` shows it (never the secret or its hash).
#[derive(Debug, Clone)]
pub struct TokenInfo {
    pub id: i64,
    pub name: String,
    pub abilities: String,
    pub per_hour: Option<u32>,
    pub created_at: String,
    pub expires_at_unix: Option<i64>,
    pub revoked_at: Option<String>,
}

/// Why a presented bearer token (an API token, or an OAuth access token: [`super::oauth`])
/// was not accepted.
pub use model::TokenRefusal;

pub struct TokenStore {
    path: PathBuf,
    /// Opened on first use once the file exists: the server never creates it (its data
    /// directory may be read-only), `serve token create` does.
    conn: Mutex<Option<Connection>>,
}

fn now_unix() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

/// 32 random bytes from the kernel, hex.
fn random_secret() -> Result<String> {
    use std::io::Read;
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .context("cannot read /dev/urandom for a token secret")?;
    Ok(hex_of(&bytes))
}

fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Equal strings compare in time independent of where they differ.
fn constant_time_eq(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl TokenStore {
    /// Opens (creating if needed) the token file at `path`: the operator's commands.
    pub fn open(path: &Path) -> Result<TokenStore> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let conn = Connection::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        conn.execute_batch(SCHEMA)?;
        Ok(TokenStore { path: path.to_path_buf(), conn: Mutex::new(Some(conn)) })
    }

    /// The token file at `path` for the server: read when it exists, never created.
    pub fn for_serving(path: &Path) -> TokenStore {
        TokenStore { path: path.to_path_buf(), conn: Mutex::new(None) }
    }

    /// Runs `f` on the connection, opening the file first if it now exists; None without a file.
    fn with_conn<R>(&self, f: impl FnOnce(&Connection) -> Result<R>) -> Result<Option<R>> {
        let mut guard = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        if guard.is_none() && self.path.is_file() {
            let conn = Connection::open(&self.path).with_context(|| format!("cannot open {}", self.path.display()))?;
            conn.busy_timeout(std::time::Duration::from_secs(2))?;
            *guard = Some(conn);
        }
        match guard.as_ref() {
            Some(conn) => f(conn).map(Some),
            None => Ok(None),
        }
    }

    /// Creates a token; returns its id and the token itself (shown once, stored hashed).
    pub fn create(
        &self,
        name: &str,
        abilities: &[Ability],
        per_hour: Option<u32>,
        expires_in_days: Option<u32>,
    ) -> Result<(i64, String)> {
        let secret = random_secret()?;
        let hash = catalog::sha256_hex(secret.as_bytes());
        let abilities: Vec<&str> = abilities.iter().map(|a| a.as_str()).collect();
        let expires = expires_in_days.map(|d| now_unix() + i64::from(d) * 86_400);
        let id = self
            .with_conn(|conn| {
                conn.execute(
                    "INSERT INTO tokens (name, secret_sha256, abilities, per_hour, created_at, expires_at_unix)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![name, hash, abilities.join(","), per_hour, catalog::now_utc(), expires],
                )?;
                Ok(conn.last_insert_rowid())
            })?
            .context("the token file is not open")?;
        Ok((id, format!("ldt_{id}_{secret}")))
    }

    pub fn list(&self) -> Result<Vec<TokenInfo>> {
        let rows = self.with_conn(|conn| {
            let mut st = conn.prepare(
                "SELECT id, name, abilities, per_hour, created_at, expires_at_unix, revoked_at FROM tokens ORDER BY id",
            )?;
            let rows = st
                .query_map([], |r| {
                    Ok(TokenInfo {
                        id: r.get(0)?,
                        name: r.get(1)?,
                        abilities: r.get(2)?,
                        per_hour: r.get(3)?,
                        created_at: r.get(4)?,
                        expires_at_unix: r.get(5)?,
                        revoked_at: r.get(6)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(rows)
        })?;
        Ok(rows.unwrap_or_default())
    }

    /// Revokes token `id`; false when no live token has that id.
    pub fn revoke(&self, id: i64) -> Result<bool> {
        let n = self.with_conn(|conn| {
            Ok(conn.execute(
                "UPDATE tokens SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
                params![id, catalog::now_utc()],
            )?)
        })?;
        Ok(n == Some(1))
    }

    /// The grant of a presented token, or why it is refused.
    pub fn verify(&self, token: &str) -> Result<Result<TokenGrant, TokenRefusal>> {
        let Some((id, secret)) = token.strip_prefix("ldt_").and_then(|rest| rest.split_once('_')) else {
            return Ok(Err(TokenRefusal::Malformed));
        };
        let Ok(id) = id.parse::<i64>() else { return Ok(Err(TokenRefusal::Malformed)) };
        type Row = (String, String, String, Option<u32>, Option<i64>, Option<String>);
        let row: Option<Row> = self
            .with_conn(|conn| {
                Ok(conn
                    .query_row(
                        "SELECT name, secret_sha256, abilities, per_hour, expires_at_unix, revoked_at FROM tokens WHERE id = ?1",
                        params![id],
                        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)),
                    )
                    .optional()?)
            })?
            .flatten();
        let Some((name, hash, abilities, per_hour, expires, revoked)) = row else {
            return Ok(Err(TokenRefusal::Unknown));
        };
        if !constant_time_eq(&catalog::sha256_hex(secret.as_bytes()), &hash) {
            return Ok(Err(TokenRefusal::Unknown));
        }
        if revoked.is_some() {
            return Ok(Err(TokenRefusal::Revoked));
        }
        if expires.is_some_and(|e| e <= now_unix()) {
            return Ok(Err(TokenRefusal::Expired));
        }
        let abilities = abilities.split(',').filter_map(Ability::parse).collect();
        Ok(Ok(TokenGrant { identity: TokenIdentity { id, name, abilities }, per_hour }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_verifies_until_it_is_revoked_and_its_secret_is_stored_hashed() {
        let dir = std::env::temp_dir().join(format!("tokens-test-{}", std::process::id()));
        let store = TokenStore::open(&tokens_path(&dir)).unwrap();
        let (id, token) = store.create("ci", &[Ability::Read], Some(10), None).unwrap();
        let grant = store.verify(&token).unwrap().unwrap();
        assert_eq!(
            (grant.identity.id, grant.identity.abilities.clone(), grant.per_hour),
            (id, vec![Ability::Read], Some(10))
        );
        let secret = token.rsplit('_').next().unwrap();
        let bytes = std::fs::read(tokens_path(&dir)).unwrap();
        assert!(!bytes.windows(secret.len()).any(|w| w == secret.as_bytes()), "the secret is never stored");
        let flipped = if token.ends_with('0') { '1' } else { '0' };
        let wrong = format!("{}{flipped}", &token[..token.len() - 1]);
        assert_eq!(store.verify(&wrong).unwrap().unwrap_err(), TokenRefusal::Unknown, "a wrong secret");
        assert_eq!(store.verify("ldt_x").unwrap().unwrap_err(), TokenRefusal::Malformed);
        assert!(store.revoke(id).unwrap());
        assert_eq!(store.verify(&token).unwrap().unwrap_err(), TokenRefusal::Revoked);
        std::fs::remove_dir_all(&dir).ok();
    }
}
