//! Reading compressed input with a cap on what it decompresses to, per document: a law zip's
//! XML entry, a decision zip's XML entry, one record (line) of an Open Legal Data dump.
//!
//! A 300 KB zip can hold 200 MiB of text; taken whole it makes search time out and the server
//! swell past a gigabyte. A zip entry's header declares its uncompressed size, but the header
//! is the sender's word: the declared size is checked first (refused before a byte is
//! inflated), then the reading itself stops one byte past the cap, and an entry that yields
//! more or fewer bytes than it declared is refused too. A refused document is a recorded
//! problem (its reason starts with the [`SourceProblem`] spelling); the run goes on.
//!
//! The cap is one number per process ([`set_max_decompressed_bytes`], from `extract
//! --max-decompressed-bytes` / `EXTRACT_MAX_DECOMPRESSED_BYTES`), so every call site applies
//! the same limit without threading it through each stage.

use std::io::{BufRead, Read};
use std::sync::atomic::{AtomicU64, Ordering};

use model::SourceProblem;

const MIB: u64 = 1024 * 1024;

/// The largest real gii law XML is 3.1 MiB (`bodsch_tzdv`, `sgb_5`); rii decision XML is smaller.
pub const DEFAULT_MAX_DECOMPRESSED_BYTES: u64 = 32 * MIB;

static MAX_DECOMPRESSED_BYTES: AtomicU64 = AtomicU64::new(DEFAULT_MAX_DECOMPRESSED_BYTES);

/// Sets the per-document cap on decompressed bytes for this process.
pub fn set_max_decompressed_bytes(bytes: u64) {
    MAX_DECOMPRESSED_BYTES.store(bytes, Ordering::Relaxed);
}

pub fn max_decompressed_bytes() -> u64 {
    MAX_DECOMPRESSED_BYTES.load(Ordering::Relaxed)
}

#[derive(Debug, thiserror::Error)]
pub enum CappedReadError {
    #[error("{}", SourceProblem::DecompressedTooLarge.reason(format!("{what} {}, over the cap of {cap} bytes", match declared {
        Some(d) => format!("declares {d} bytes uncompressed"),
        None => "yields more".to_string(),
    })))]
    TooLarge { what: String, declared: Option<u64>, cap: u64 },
    #[error("{}", SourceProblem::ZipSizeMismatch.reason(format!("{what} declares {declared} bytes uncompressed but yields {actual}")))]
    SizeMismatch { what: String, declared: u64, actual: u64 },
    #[error("cannot read {what}: {message}")]
    Io { what: String, message: String },
}

/// Reads one zip entry whole, refusing it over the process's cap (by its declared size, or by
/// what it actually yields) and when it yields another size than it declares.
pub fn read_zip_entry<R: Read>(entry: &mut zip::read::ZipFile<'_, R>, name: &str) -> Result<Vec<u8>, CappedReadError> {
    let declared = entry.size();
    read_declared(entry, &format!("zip entry {name}"), declared, max_decompressed_bytes())
}

fn read_declared(reader: impl Read, what: &str, declared: u64, cap: u64) -> Result<Vec<u8>, CappedReadError> {
    if declared > cap {
        return Err(CappedReadError::TooLarge { what: what.into(), declared: Some(declared), cap });
    }
    // `declared <= cap` here, so the allocation is bounded by the cap, not by the sender.
    let mut buf = Vec::with_capacity(declared as usize);
    reader
        .take(cap + 1)
        .read_to_end(&mut buf)
        .map_err(|e| CappedReadError::Io { what: what.into(), message: e.to_string() })?;
    let actual = buf.len() as u64;
    if actual > cap {
        return Err(CappedReadError::TooLarge { what: what.into(), declared: None, cap });
    }
    if actual != declared {
        return Err(CappedReadError::SizeMismatch { what: what.into(), declared, actual });
    }
    Ok(buf)
}

/// One line of a dump, read with the cap.
#[derive(Debug, PartialEq, Eq)]
pub enum CappedLine {
    /// The input is at its end.
    End,
    /// A whole line (with its `\n`, when it had one) is in the buffer.
    Line,
    /// The line was longer than the cap: it was skipped up to its end, and `bytes` is its length.
    TooLarge { bytes: u64 },
}

/// Reads the next line into `line` (cleared first), keeping at most `cap` bytes of it; a longer
/// line is consumed to its end without being kept, so the next call starts at the next record.
pub fn read_line_capped(reader: &mut impl BufRead, cap: u64, line: &mut Vec<u8>) -> std::io::Result<CappedLine> {
    line.clear();
    let n = reader.by_ref().take(cap + 1).read_until(b'\n', line)?;
    if n == 0 {
        return Ok(CappedLine::End);
    }
    if (n as u64) <= cap || line.last() == Some(&b'\n') {
        return Ok(CappedLine::Line);
    }
    let mut bytes = n as u64;
    line.clear();
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            break;
        }
        match available.iter().position(|&b| b == b'\n') {
            Some(i) => {
                bytes += i as u64 + 1;
                reader.consume(i + 1);
                break;
            }
            None => {
                let len = available.len();
                bytes += len as u64;
                reader.consume(len);
            }
        }
    }
    Ok(CappedLine::TooLarge { bytes })
}

/// The problem reason of a dump line over the cap.
pub fn line_too_large_reason(bytes: u64, cap: u64) -> String {
    SourceProblem::DecompressedTooLarge.reason(format!("the record is {bytes} bytes, over the cap of {cap} bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_and_actual_sizes_are_both_checked() {
        assert_eq!(read_declared(&b"abc"[..], "e", 3, 10).unwrap(), b"abc");
        let over_declared = read_declared(&b"abc"[..], "e", 11, 10).unwrap_err().to_string();
        assert!(over_declared.starts_with("decompressed_too_large: e declares 11"), "{over_declared}");
        // A header that lies low: the reading stops one byte past the cap.
        let lies = read_declared(&[b'x'; 64][..], "e", 3, 10).unwrap_err().to_string();
        assert!(lies.starts_with("decompressed_too_large: e yields more"), "{lies}");
        let mismatch = read_declared(&b"abcd"[..], "e", 3, 10).unwrap_err().to_string();
        assert!(mismatch.starts_with("zip_size_mismatch: "), "{mismatch}");
    }

    #[test]
    fn a_line_over_the_cap_is_skipped_and_the_next_one_read() {
        let input = format!("short\n{}\nnext\nlast", "y".repeat(100));
        let mut r = std::io::BufReader::with_capacity(16, input.as_bytes());
        let mut line = Vec::new();
        assert_eq!(read_line_capped(&mut r, 10, &mut line).unwrap(), CappedLine::Line);
        assert_eq!(line, b"short\n");
        assert_eq!(read_line_capped(&mut r, 10, &mut line).unwrap(), CappedLine::TooLarge { bytes: 101 });
        assert_eq!(read_line_capped(&mut r, 10, &mut line).unwrap(), CappedLine::Line);
        assert_eq!(line, b"next\n");
        assert_eq!(read_line_capped(&mut r, 10, &mut line).unwrap(), CappedLine::Line);
        assert_eq!(line, b"last");
        assert_eq!(read_line_capped(&mut r, 10, &mut line).unwrap(), CappedLine::End);
    }
}
