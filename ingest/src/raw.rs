//! `raw/<source>/<aa>/<sha256>.<ext>`: fetched bytes exactly as received, content-addressed.
//! Writes go to a temp file that is renamed into place, so a killed run leaves no torn file.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};

pub struct RawStore {
    data_dir: PathBuf,
    source: String,
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

impl RawStore {
    pub fn new(data_dir: &Path, source: &str) -> Self {
        RawStore { data_dir: data_dir.to_path_buf(), source: source.to_string() }
    }

    /// Stores `bytes`; returns (sha256, path relative to the data dir).
    pub fn put(&self, bytes: &[u8], ext: &str) -> Result<(String, String)> {
        let sha = sha256_hex(bytes);
        let rel = format!("raw/{}/{}/{}.{}", self.source, &sha[..2], sha, ext);
        let path = self.data_dir.join(&rel);
        if !path.exists() {
            let dir = path.parent().expect("raw path has a parent");
            std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
            let tmp = dir.join(format!(".tmp-{}-{}", std::process::id(), sha));
            let mut f = std::fs::File::create(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?;
            f.write_all(bytes)?;
            f.sync_all()?;
            std::fs::rename(&tmp, &path)?;
        }
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
