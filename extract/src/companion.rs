//! Companion files: a small file beside a big work file (`decisions.lines` beside
//! `decisions.parts`, the list of the decisions' parts; `citations.lines` beside
//! `citations.parts`) with one entry per line of it, so a later reader learns where each line is and what it holds without reading the big
//! file. The entry formats are their owners' (`decision_lines`, resolve's `citation_lines`);
//! this module is what they share: the header, how a companion is opened, how it is written.
//!
//! Invariant: the first line names the file described, by content (its sha256, as the stage's
//! summary records it) and as it lies on disk (inode, size, modification time); a companion is
//! written before its file is renamed into place and is read only while that header describes
//! the file exactly, so its entries never describe another file (a run stopped between the two
//! renames, a copied data directory, a file changed since).

use std::io::{BufRead, Seek, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The header line (without its newline) of a companion of `file`, whose sha256 is `sha256`.
fn describe_file(sha256: &str, file: &std::fs::File) -> std::io::Result<String> {
    use std::os::unix::fs::MetadataExt;
    let m = file.metadata()?;
    Ok(format!("{sha256} {} {} {}.{}", m.ino(), m.len(), m.mtime(), m.mtime_nsec()))
}

/// The companion at `path`, positioned at its first entry, when its header describes
/// `described` (whose sha256 is `sha256`) exactly as it lies on disk; None otherwise.
pub fn open_companion(
    path: &Path,
    sha256: &str,
    described: &std::fs::File,
) -> Option<std::io::BufReader<std::fs::File>> {
    let f = std::fs::File::open(path).ok()?;
    let mut reader = std::io::BufReader::with_capacity(1 << 20, f);
    let mut first = String::new();
    reader.read_line(&mut first).ok()?;
    (first.trim_end_matches('\n') == describe_file(sha256, described).ok()?).then_some(reader)
}

/// A companion being written while the file it describes is: the entries go to a temp file as
/// they come (memory does not grow with the lines); the header, known only once the described
/// file is complete, is put before them by [`Self::finish`].
pub struct CompanionWriter {
    path: PathBuf,
    entries: std::io::BufWriter<std::fs::File>,
    entries_path: PathBuf,
    /// Where the next line of the described file starts.
    offset: u64,
}

impl CompanionWriter {
    /// A companion to be renamed to `path` by [`Self::finish`].
    pub fn create(path: &Path) -> Result<CompanionWriter> {
        let dir = path.parent().expect("output path has a parent");
        std::fs::create_dir_all(dir)?;
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("companion");
        let entries_path = dir.join(format!(".tmp-{}-{name}.entries", std::process::id()));
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&entries_path)
            .with_context(|| format!("cannot create {}", entries_path.display()))?;
        let entries = std::io::BufWriter::with_capacity(1 << 20, file);
        Ok(CompanionWriter { path: path.to_path_buf(), entries, entries_path, offset: 0 })
    }

    /// The entry of the described file's next line, `len` bytes long: where that line starts,
    /// and where to write the entry (one line, its newline included).
    pub fn entry(&mut self, len: usize) -> (u64, &mut impl Write) {
        let at = self.offset;
        self.offset += len as u64;
        (at, &mut self.entries)
    }

    /// Where to write the next entry, for an owner whose entries say where their lines are
    /// themselves (not one file's lines back to back).
    pub fn entries(&mut self) -> &mut impl Write {
        &mut self.entries
    }

    /// Writes the companion (temp + fsync + rename) of `described`, the finished file whose
    /// sha256 is `sha256`; call it before `described` is renamed into place.
    pub fn finish(self, sha256: &str, described: &std::fs::File) -> Result<()> {
        let mut entries = self.entries.into_inner().map_err(|e| e.into_error())?;
        entries.seek(std::io::SeekFrom::Start(0))?;
        let name = self.path.file_name().and_then(|n| n.to_str()).unwrap_or("companion");
        let tmp = self.path.with_file_name(format!(".tmp-{}-{name}", std::process::id()));
        let mut out = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&tmp)?);
        writeln!(out, "{}", describe_file(sha256, described)?)?;
        std::io::copy(&mut entries, &mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, &self.path).with_context(|| format!("cannot write {}", self.path.display()))?;
        drop(entries);
        let _ = std::fs::remove_file(&self.entries_path);
        Ok(())
    }
}
