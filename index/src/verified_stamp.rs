//! Verification stamps: `data/verified/<id>.json` records, for every file of a generation
//! that was hashed in full against its manifest, the file's size, inode and modification
//! time at that moment. A server starting on a generation whose files still carry exactly
//! those attributes opens it at once ([`Generation::open_stamped`]) and re-hashes every file
//! in the background ([`verify_files`]); without a stamp, or when any attribute differs, it
//! hashes everything first. Generations are never modified after publication, so a changed
//! attribute means the bytes are not the ones that were verified.
//!
//! Invariant: a stamp is written only right after every file was hashed and matched (by the
//! build that computed the manifest, or by a full verification), and it names the manifest's
//! hashes, so a stamp for other bytes can never match.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::generation::{Generation, Manifest, SCHEMA_VERSION, VerifyError, read_manifest, sha256_file};

#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct StampedFile {
    path: String,
    sha256: String,
    bytes: u64,
    inode: u64,
    mtime_ns: i128,
}

#[derive(Debug, Serialize, Deserialize)]
struct Stamp {
    id: String,
    files: Vec<StampedFile>,
}

/// How a generation was found to hold the bytes its manifest names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verification {
    /// Every file was hashed now.
    Hashed,
    /// Every file still has the size, inode and modification time it had when it was hashed
    /// in full; the caller re-hashes in the background ([`verify_files`]).
    Stamped,
}

pub fn stamp_path(data_dir: &Path, id: &str) -> PathBuf {
    data_dir.join("verified").join(format!("{id}.json"))
}

fn stamped_file(dir: &Path, path: &str, sha256: &str) -> std::io::Result<StampedFile> {
    let m = std::fs::symlink_metadata(dir.join(path))?;
    let mtime_ns = i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec());
    Ok(StampedFile { path: path.to_string(), sha256: sha256.to_string(), bytes: m.len(), inode: m.ino(), mtime_ns })
}

/// Records that every file of the generation in `dir` was just hashed and matched `manifest`.
/// A stamp that cannot be written only costs a full verification at the next start.
pub fn write_stamp(data_dir: &Path, dir: &Path, manifest: &Manifest) {
    let files: std::io::Result<Vec<StampedFile>> =
        manifest.files.iter().map(|f| stamped_file(dir, &f.path, &f.sha256)).collect();
    let Ok(files) = files else { return };
    let stamp = Stamp { id: manifest.id.clone(), files };
    if let Ok(json) = serde_json::to_vec(&stamp) {
        let _ = extract::write_atomic(&stamp_path(data_dir, &manifest.id), &json);
    }
}

/// Forgets the stamp of generation `id` (its files no longer match, or it is removed).
pub fn remove_stamp(data_dir: &Path, id: &str) {
    let _ = std::fs::remove_file(stamp_path(data_dir, id));
}

/// True when the stamp of `manifest`'s generation names exactly its files and hashes and
/// every file still has the stamped size, inode and modification time.
fn stamp_matches(data_dir: &Path, dir: &Path, manifest: &Manifest) -> bool {
    let Ok(bytes) = std::fs::read(stamp_path(data_dir, &manifest.id)) else { return false };
    let Ok(stamp) = serde_json::from_slice::<Stamp>(&bytes) else { return false };
    stamp.id == manifest.id
        && stamp.files.len() == manifest.files.len()
        && manifest.files.iter().zip(&stamp.files).all(|(f, s)| {
            f.path == s.path
                && f.sha256 == s.sha256
                && f.bytes == s.bytes
                && stamped_file(dir, &f.path, &f.sha256).is_ok_and(|now| now == *s)
        })
}

/// Hashes every file of the generation in `dir` against its manifest.
pub fn verify_files(dir: &Path, manifest: &Manifest) -> Result<(), VerifyError> {
    for f in &manifest.files {
        let (bytes, sha) = sha256_file(&dir.join(&f.path))
            .map_err(|e| VerifyError::MissingFile { path: f.path.clone(), reason: e.to_string() })?;
        if bytes != f.bytes {
            return Err(VerifyError::Mismatch {
                path: f.path.clone(),
                what: format!("{bytes} bytes, manifest says {}", f.bytes),
            });
        }
        if sha != f.sha256 {
            return Err(VerifyError::Mismatch { path: f.path.clone(), what: "sha256 differs".into() });
        }
    }
    Ok(())
}

impl Generation {
    /// Opens the generation in `dir` (of data directory `data_dir`): at once when its stamp
    /// matches ([`Verification::Stamped`]; the caller re-hashes in the background), else after
    /// hashing every file ([`Verification::Hashed`], and the stamp is written for next time).
    pub fn open_stamped(data_dir: &Path, dir: &Path) -> Result<(Generation, Verification), VerifyError> {
        let manifest = read_manifest(dir)?;
        if manifest.schema_version != SCHEMA_VERSION {
            return Err(VerifyError::SchemaVersion { found: manifest.schema_version });
        }
        if stamp_matches(data_dir, dir, &manifest) {
            return Ok((Generation::open_checked_files(dir, manifest)?, Verification::Stamped));
        }
        remove_stamp(data_dir, &manifest.id);
        let g = Generation::open_verified(dir)?;
        write_stamp(data_dir, dir, &g.manifest);
        Ok((g, Verification::Hashed))
    }
}
