//! `raw/<source>/<aa>/<sha256>.<ext>`: fetched bytes exactly as received, content-addressed.
//! Downloads are streamed to `raw/<source>/.incoming/` and renamed into place once whole, so a
//! killed run leaves no torn file.

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
