//! `raw/<source>/<aa>/<sha256>.<ext>`: fetched bytes exactly as received, content-addressed.
//! Downloads are streamed to `raw/<source>/.incoming/` and renamed into place once whole, so a
//! killed run leaves no torn file. A copy no document's last good copy is any more is removed
//! after the run ([`remove_superseded`]).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::fetch::SpooledBody;

pub struct RawStore {
    data_dir: PathBuf,
    source: String,
}

pub use catalog::sha256_hex;

impl RawStore {
    pub fn new(data_dir: &Path, source: &str) -> Self {
        RawStore { data_dir: data_dir.to_path_buf(), source: source.to_string() }
    }

    /// Where downloads are written while they arrive (inside the store, so adopting one is a rename).
    pub fn spool_dir(&self) -> PathBuf {
        self.data_dir.join("raw").join(&self.source).join(".incoming")
    }

    /// Removes spool files a killed run left behind (those of processes no longer running).
    pub fn clear_stale_spool(&self) {
        let Ok(entries) = std::fs::read_dir(self.spool_dir()) else { return };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let pid = name.strip_prefix(".incoming-").and_then(|r| r.split('-').next()).unwrap_or("");
            if !pid.is_empty() && !Path::new("/proc").join(pid).exists() {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }

    /// Moves a fully received body into place; returns (sha256, path relative to the data dir).
    /// The same bytes stored before are kept and the spool file is dropped.
    pub fn adopt(&self, body: SpooledBody, ext: &str) -> Result<(String, String)> {
        let sha = body.sha256.clone();
        let rel = format!("raw/{}/{}/{}.{}", self.source, &sha[..2], sha, ext);
        let path = self.data_dir.join(&rel);
        if path.exists() {
            return Ok((sha, rel));
        }
        let dir = path.parent().expect("raw path has a parent");
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let tmp = body.take_path();
        std::fs::rename(&tmp, &path).with_context(|| format!("cannot move {} into place", tmp.display()))?;
        Ok((sha, rel))
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.data_dir.join(rel).is_file()
    }

    pub fn read(&self, rel: &str) -> Result<Vec<u8>> {
        let p = self.data_dir.join(rel);
        std::fs::read(&p).with_context(|| format!("cannot read raw copy {}", p.display()))
    }
}

/// What [`remove_superseded`] removed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Collected {
    pub files: u64,
    pub bytes: u64,
}

/// Removes the copies under `raw/` that no document's last good copy is any more (the catalog's
/// `documents`): bytes a later good copy of the same document replaced, such as yesterday's
/// dump (1.4 GB per 100,000 decisions, each night). Nothing reads them: `extract` reads the
/// last good copies only. Those stay, whatever failed since, and so does anything still being
/// received (`.incoming/`).
/// `None`: another ingest run holds the store ([`RawLock`]); nothing was removed.
pub fn remove_superseded(data_dir: &Path) -> Result<Option<Collected>> {
    let lock = lock_file(data_dir)?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
        Err(std::fs::TryLockError::Error(e)) => return Err(e).context("cannot lock raw/.lock"),
    }
    let live = catalog::Catalog::open(data_dir)?.live_raw_paths()?;
    let mut collected = Collected::default();
    let raw = data_dir.join("raw");
    let Ok(sources) = std::fs::read_dir(&raw) else { return Ok(Some(collected)) };
    for source in sources.flatten() {
        let name = source.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || !source.path().is_dir() {
            continue;
        }
        for shard in std::fs::read_dir(source.path())?.flatten() {
            let shard_name = shard.file_name().to_string_lossy().into_owned();
            if shard_name.starts_with('.') || !shard.path().is_dir() {
                continue;
            }
            for file in std::fs::read_dir(shard.path())?.flatten() {
                let file_name = file.file_name().to_string_lossy().into_owned();
                let rel = format!("raw/{name}/{shard_name}/{file_name}");
                let meta = file.metadata()?;
                if !meta.is_file() || file_name.starts_with('.') || live.contains(&rel) {
                    continue;
                }
                std::fs::remove_file(file.path())
                    .with_context(|| format!("cannot remove the superseded copy {}", file.path().display()))?;
                collected.files += 1;
                collected.bytes += meta.len();
            }
        }
    }
    Ok(Some(collected))
}

/// Held (shared) by an ingest run from its start to its end, so [`remove_superseded`] (which
/// needs it exclusively) never runs while another run has moved a copy into place but not yet
/// recorded it.
pub struct RawLock(#[allow(dead_code)] std::fs::File);

impl RawLock {
    /// Waits while a removal of superseded copies runs.
    pub fn shared(data_dir: &Path) -> Result<RawLock> {
        let f = lock_file(data_dir)?;
        f.lock_shared().context("cannot lock raw/.lock")?;
        Ok(RawLock(f))
    }
}

fn lock_file(data_dir: &Path) -> Result<std::fs::File> {
    let raw = data_dir.join("raw");
    std::fs::create_dir_all(&raw).with_context(|| format!("cannot create {}", raw.display()))?;
    let p = raw.join(".lock");
    std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&p)
        .with_context(|| format!("cannot open {}", p.display()))
}
