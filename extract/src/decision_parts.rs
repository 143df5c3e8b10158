//! The decisions' lines as content-addressed parts: `work/extract/decisions/parts/<aa>/<sha256>.jsonl`,
//! listed in order by `decisions.parts`. The logical `decisions.jsonl` is the concatenation of
//! the listed parts; a night that changes 1% of the decisions writes only the parts holding a
//! changed line and keeps every other part file as it is, instead of rewriting gigabytes.
//!
//! Format of `decisions.parts`: one line per part, in order: `<sha256> <chunk_key> <lines> <bytes>`.
//! Its own sha256 is what the manifest records as the decisions' sha256: it names every part by
//! the hash of its bytes, so it fingerprints the whole content.
//!
//! Invariants:
//! - where a part ends is a function of the lines' `line_key`s alone ([`chunks`]): a line
//!   ends its part when its key says so, or when the part holds [`MAX_LINES`]. A run from
//!   scratch and a night over the same input therefore cut the same parts, with the same names;
//! - a part is a function of its `chunk_key` (its lines' keys, each line a function of its
//!   key), so a part whose chunk key the last run listed is kept, not read or written;
//! - a part is written to a temp file and renamed to the sha256 of its bytes, and flushed to
//!   disk before any list names it; a part no list names is removed only after the new list and
//!   the manifest are in place ([`remove_unlisted`]).

use std::io::{BufRead, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

use crate::decision_stage::{DecisionRecord, dir};

/// A line ends its part when its key (as a number) is a multiple of this: parts hold 8 lines
/// on average, so a night that changes 1% of the decisions at random rewrites about 14% of
/// the bytes (a changed line lies in a longer part more often), and a million decisions make
/// about 125,000 part files.
pub const AVERAGE_LINES: u64 = 8;

/// No part holds more lines than this.
pub const MAX_LINES: usize = 32;

/// Where a decision's line is: the part (its place in `decisions.parts`), the byte offset in
/// that part and the length (the newline included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecisionSpan {
    pub part: u32,
    pub offset: u64,
    pub len: usize,
}

/// One part as `decisions.parts` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartEntry {
    /// sha256 of the part's bytes (hex): its file name.
    pub name: String,
    /// [`chunk_key`] of its lines.
    pub chunk_key: String,
    pub lines: usize,
    pub bytes: u64,
}

pub fn parts_dir(data_dir: &Path) -> PathBuf {
    dir(data_dir).join("parts")
}

/// `decisions.parts`: the parts in order.
pub fn parts_list_path(data_dir: &Path) -> PathBuf {
    dir(data_dir).join("decisions.parts")
}

/// The file of the part named `name`.
pub fn part_path(data_dir: &Path, name: &str) -> PathBuf {
    parts_dir(data_dir).join(&name[..2.min(name.len())]).join(format!("{name}.jsonl"))
}

/// The line ranges of the parts the lines with `keys` (in order) are cut into.
pub fn chunks(keys: &[String]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, key) in keys.iter().enumerate() {
        let ends = key.get(..16).and_then(|h| u64::from_str_radix(h, 16).ok()).is_some_and(|v| v % AVERAGE_LINES == 0);
        if ends || i + 1 - start >= MAX_LINES {
            out.push(start..i + 1);
            start = i + 1;
        }
    }
    if start < keys.len() {
        out.push(start..keys.len());
    }
    out
}

/// What a part is a function of: its lines' keys, in order.
pub fn chunk_key(keys: &[String]) -> String {
    let mut h = Sha256::new();
    for k in keys {
        h.update(k.as_bytes());
        h.update(b"\n");
    }
    hex::encode(h.finalize())
}

/// `decisions.parts` as text.
pub fn render_list(parts: &[PartEntry]) -> String {
    let mut out = String::with_capacity(parts.len() * 150);
    for p in parts {
        out.push_str(&format!("{} {} {} {}\n", p.name, p.chunk_key, p.lines, p.bytes));
    }
    out
}

/// Parses `decisions.parts`; an entry that is not `<sha256> <chunk_key> <lines> <bytes>` is an
/// error naming its line.
pub fn parse_list(path: &Path, text: &str) -> Result<Vec<PartEntry>> {
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            let mut f = line.split(' ');
            let entry = (|| {
                let (name, chunk_key) = (f.next()?, f.next()?);
                let (lines, bytes) = (f.next()?.parse().ok()?, f.next()?.parse().ok()?);
                let hex64 = |s: &str| s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit());
                (hex64(name) && hex64(chunk_key) && f.next().is_none()).then(|| PartEntry {
                    name: name.to_string(),
                    chunk_key: chunk_key.to_string(),
                    lines,
                    bytes,
                })
            })();
            entry.with_context(|| format!("{}: line {} is not a part (rerun `extract`)", path.display(), i + 1))
        })
        .collect()
}

/// The decisions of the last complete run, to read line by line: the listed parts, each
/// opened when first read.
pub struct DecisionParts {
    data_dir: PathBuf,
    parts: Vec<PartEntry>,
    files: Vec<OnceLock<std::fs::File>>,
}

impl DecisionParts {
    /// The parts `decisions.parts` lists; an error when it is missing or unreadable.
    pub fn open(data_dir: &Path) -> Result<DecisionParts> {
        let p = parts_list_path(data_dir);
        let text =
            std::fs::read_to_string(&p).with_context(|| format!("cannot read {} (run `extract`)", p.display()))?;
        Ok(DecisionParts::of(data_dir, parse_list(&p, &text)?))
    }

    pub(crate) fn of(data_dir: &Path, parts: Vec<PartEntry>) -> DecisionParts {
        let files = parts.iter().map(|_| OnceLock::new()).collect();
        DecisionParts { data_dir: data_dir.to_path_buf(), parts, files }
    }

    pub fn parts(&self) -> &[PartEntry] {
        &self.parts
    }

    /// The file of part `i`.
    pub fn path(&self, part: u32) -> PathBuf {
        match self.parts.get(part as usize) {
            Some(p) => part_path(&self.data_dir, &p.name),
            None => parts_list_path(&self.data_dir),
        }
    }

    fn file(&self, part: u32) -> Result<&std::fs::File> {
        let i = part as usize;
        let Some(slot) = self.files.get(i) else {
            bail!("{} lists no part {part} (rerun `extract`)", parts_list_path(&self.data_dir).display())
        };
        if let Some(f) = slot.get() {
            return Ok(f);
        }
        let p = self.path(part);
        let f = std::fs::File::open(&p).with_context(|| format!("cannot open {} (rerun `extract`)", p.display()))?;
        Ok(slot.get_or_init(|| f))
    }

    /// The bytes of the line at `span`.
    pub fn read_line(&self, span: DecisionSpan) -> Result<Vec<u8>> {
        use std::os::unix::fs::FileExt;
        let mut buf = vec![0u8; span.len];
        self.file(span.part)?.read_exact_at(&mut buf, span.offset).with_context(|| {
            format!("{} changed while it was read: run the stage again", self.path(span.part).display())
        })?;
        Ok(buf)
    }

    /// The decision on the line at `span`.
    pub fn read_record(&self, span: DecisionSpan) -> Result<DecisionRecord> {
        self.parse_record(span, &self.read_line(span)?)
    }

    /// The decision on `line`, read at `span` ([`Self::read_line`]).
    pub fn parse_record(&self, span: DecisionSpan, line: &[u8]) -> Result<DecisionRecord> {
        serde_json::from_slice(line).with_context(|| {
            format!(
                "{}: the line at byte {} is not a decision (rerun `extract`)",
                self.path(span.part).display(),
                span.offset
            )
        })
    }

    /// Every line of part `part` with its span.
    pub fn part_lines(&self, part: u32) -> Result<Vec<(DecisionSpan, Vec<u8>)>> {
        let p = self.path(part);
        let f = std::fs::File::open(&p).with_context(|| format!("cannot open {} (rerun `extract`)", p.display()))?;
        let mut reader = std::io::BufReader::with_capacity(1 << 16, f);
        let (mut offset, mut out) = (0u64, Vec::new());
        loop {
            let mut line = Vec::new();
            let n = reader.read_until(b'\n', &mut line).with_context(|| format!("cannot read {}", p.display()))?;
            if n == 0 {
                break;
            }
            out.push((DecisionSpan { part, offset, len: n }, line));
            offset += n as u64;
        }
        Ok(out)
    }
}

/// Writes one part from its `lines` (each ending in a newline): a temp file renamed to the
/// sha256 of its bytes (an existing file of that name holds the same bytes and is kept). Not
/// flushed here: an fsync per part costs a full run at 100,000 decisions some 25 s; the
/// writer calls [`make_durable`] once before any list names the parts.
pub(crate) fn write_part(data_dir: &Path, chunk_key: String, lines: &[Vec<u8>]) -> Result<PartEntry> {
    let mut h = Sha256::new();
    let mut bytes = 0u64;
    for l in lines {
        h.update(l);
        bytes += l.len() as u64;
    }
    let name = hex::encode(h.finalize());
    let path = part_path(data_dir, &name);
    let entry = PartEntry { name, chunk_key, lines: lines.len(), bytes };
    if std::fs::metadata(&path).is_ok_and(|m| m.len() == bytes) {
        return Ok(entry);
    }
    let dir = path.parent().expect("a part has a directory");
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let tmp = dir.join(format!(".tmp-{}-{}", std::process::id(), entry.name));
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::fs::File::create(&tmp)?);
    for l in lines {
        out.write_all(l)?;
    }
    out.into_inner().map_err(|e| e.into_error())?;
    std::fs::rename(&tmp, &path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(entry)
}

/// Flushes every part written so far (and whatever else the file system holds unwritten) to
/// disk: one `syncfs` instead of an fsync per part.
pub(crate) fn make_durable(data_dir: &Path) -> Result<()> {
    let dir = parts_dir(data_dir);
    std::fs::create_dir_all(&dir)?;
    let f = std::fs::File::open(&dir).with_context(|| format!("cannot open {}", dir.display()))?;
    rustix::fs::syncfs(&f).with_context(|| format!("cannot flush {} to disk", dir.display()))
}

/// Whether `decisions.parts` is there and every part it lists is too, as long as it says: a
/// run over unchanged input may then write nothing.
pub(crate) fn list_is_whole(data_dir: &Path) -> bool {
    let p = parts_list_path(data_dir);
    let Ok(text) = std::fs::read_to_string(&p) else { return false };
    parse_list(&p, &text).is_ok_and(|parts| parts.iter().all(|part| part_is_whole(data_dir, part)))
}

/// Whether the file of `part` is there, as long as the list says.
pub(crate) fn part_is_whole(data_dir: &Path, part: &PartEntry) -> bool {
    std::fs::metadata(part_path(data_dir, &part.name)).is_ok_and(|m| m.len() == part.bytes)
}

/// Removes every part file `parts` does not name, and leftovers of stopped runs; call it once
/// the list and the manifest naming it are in place. Returns how many files went.
pub(crate) fn remove_unlisted(data_dir: &Path, parts: &[PartEntry]) -> usize {
    let listed: std::collections::HashSet<&str> = parts.iter().map(|p| p.name.as_str()).collect();
    let mut removed = 0;
    let Ok(dirs) = std::fs::read_dir(parts_dir(data_dir)) else { return 0 };
    for d in dirs.flatten() {
        let Ok(files) = std::fs::read_dir(d.path()) else { continue };
        for f in files.flatten() {
            let name = f.file_name();
            let name = name.to_string_lossy();
            let keep = name.strip_suffix(".jsonl").is_some_and(|n| listed.contains(n));
            if !keep && std::fs::remove_file(f.path()).is_ok() {
                removed += 1;
            }
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(i: u64) -> String {
        hex::encode(Sha256::digest(i.to_string()))
    }

    #[test]
    fn parts_are_cut_by_the_keys_alone_so_a_changed_line_recuts_only_its_own_part() {
        let keys: Vec<String> = (0..10_000).map(key).collect();
        let parts = chunks(&keys);
        assert_eq!(parts.iter().map(|r| r.len()).sum::<usize>(), keys.len());
        assert!(parts.iter().all(|r| r.len() <= MAX_LINES));
        let mean = keys.len() as f64 / parts.len() as f64;
        assert!((6.0..10.0).contains(&mean), "{mean} lines per part");
        // One line in the middle changes: every part before and after its own stays.
        let mut changed = keys.clone();
        changed[5_000] = key(1_000_000);
        let keyed = |ks: &[String]| -> Vec<String> { chunks(ks).into_iter().map(|r| chunk_key(&ks[r])).collect() };
        let (before, after) = (keyed(&keys), keyed(&changed));
        let kept = after.iter().filter(|k| before.contains(k)).count();
        assert!(kept + 3 >= after.len(), "{kept} of {} parts kept", after.len());
        assert!(kept < after.len());
    }

    #[test]
    fn a_list_round_trips_and_a_bad_entry_names_its_line() {
        let parts = vec![PartEntry { name: key(1), chunk_key: key(2), lines: 3, bytes: 40 }];
        let p = Path::new("decisions.parts");
        assert_eq!(parse_list(p, &render_list(&parts)).unwrap(), parts);
        let e = format!("{:#}", parse_list(p, &format!("{}x 1\n", render_list(&parts))).unwrap_err());
        assert!(e.contains("line 2 is not a part"), "{e}");
    }
}
