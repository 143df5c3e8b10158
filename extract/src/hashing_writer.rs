//! A file written and hashed (sha256) on a second thread, so a stage that copies or builds
//! lines on the other cores waits for neither the disk nor the hash.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::SyncSender;
use std::thread::JoinHandle;

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};

/// Batches of lines in flight between the producer and the writing thread.
const IN_FLIGHT: usize = 2;

pub struct HashingWriter {
    path: PathBuf,
    tx: SyncSender<Vec<Vec<u8>>>,
    thread: JoinHandle<std::io::Result<(std::fs::File, String)>>,
}

impl HashingWriter {
    /// Creates (truncates) `path`.
    pub fn create(path: &Path) -> Result<HashingWriter> {
        let file = std::fs::File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Vec<u8>>>(IN_FLIGHT);
        let thread = std::thread::spawn(move || {
            let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
            let mut hasher = Sha256::new();
            for batch in rx {
                for bytes in batch {
                    hasher.update(&bytes);
                    out.write_all(&bytes)?;
                }
            }
            Ok((out.into_inner().map_err(|e| e.into_error())?, hex::encode(hasher.finalize())))
        });
        Ok(HashingWriter { path: path.to_path_buf(), tx, thread })
    }

    /// Appends `batch`, in order. An error of the writing thread surfaces in [`Self::finish`].
    pub fn send(&self, batch: Vec<Vec<u8>>) {
        let _ = self.tx.send(batch);
    }

    /// Waits for every batch to be written, fsyncs, and returns the file and the sha256 of
    /// all bytes sent.
    pub fn finish(self) -> Result<(std::fs::File, String)> {
        drop(self.tx);
        let path = self.path.display();
        let (file, sha256) = self
            .thread
            .join()
            .map_err(|_| anyhow::anyhow!("the writer of {path} panicked"))?
            .with_context(|| format!("cannot write {path}"))?;
        file.sync_all().with_context(|| format!("cannot write {path}"))?;
        Ok((file, sha256))
    }
}
