//! A big JSON Lines work file kept as content-addressed parts: `<dir>/<aa>/<sha256>.jsonl`,
//! listed in order by a list file. The file's lines are the listed parts' lines, in order; a
//! night that changes 1% of the lines writes only the parts holding a changed line and keeps
//! every other part file as it is, instead of rewriting gigabytes. extract's decisions
//! (`decisions.parts`) and resolve's citations (`citations.parts`) are kept this way.
//!
//! Format of a list: one line per part, in order: `<sha256> <chunk_key> <lines> <bytes>`. Its
//! own sha256 is what a stage records as its output's sha256: it names every part by the hash
//! of its bytes, so it fingerprints the whole content.
//!
//! Invariants:
//! - every line has a key (hex) that its bytes are a function of: extract's `line_key`, or
//!   the line's own sha256. Where a part ends is a function of the keys alone ([`ends_part`]):
//!   a line ends its part when its key says so, or when the part holds [`MAX_LINES`]. A run from
//!   scratch and a night over the same input therefore cut the same parts, with the same names;
//! - a part is a function of its chunk key (its lines' keys, [`chunk_key`]), so a part whose
//!   chunk key the last run listed is kept, not written again;
//! - a part is written to a temp file and renamed to the sha256 of its bytes, and flushed to
//!   disk ([`make_durable`]) before any list names it; a part no list names is removed only
//!   after the new list and the summary naming it are in place ([`remove_unlisted`]).

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

/// A line ends its part when its key (as a number) is a multiple of this: parts hold 8 lines
/// on average, so a night that changes 1% of the lines at random rewrites about a tenth of
/// the bytes (a changed line lies in a longer part more often), and a million lines make
/// about 125,000 part files.
pub const AVERAGE_LINES: u64 = 8;

/// No part holds more lines than this.
pub const MAX_LINES: usize = 32;

/// Where a line is: its part (the place in the list), the byte offset in that part and the
/// length (the newline included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartSpan {
    pub part: u32,
    pub offset: u64,
    pub len: usize,
}

/// One part as a list names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartEntry {
    /// sha256 of the part's bytes (hex): its file name.
    pub name: String,
    /// [`chunk_key`] of its lines.
    pub chunk_key: String,
    pub lines: usize,
    pub bytes: u64,
}

/// Where a parted file lies, and what its lines are (for the messages).
#[derive(Debug, Clone)]
pub struct PartsLayout {
    /// The list (`decisions.parts`).
    pub list: PathBuf,
    /// The parts' directory.
    pub dir: PathBuf,
    /// What one line is ("decision").
    pub line_is: &'static str,
    /// The stage that writes it ("extract").
    pub stage: &'static str,
}

impl PartsLayout {
    /// The file of the part named `name`.
    pub fn part_path(&self, name: &str) -> PathBuf {
        self.dir.join(&name[..2.min(name.len())]).join(format!("{name}.jsonl"))
    }
}

/// Whether a line with `key` ends its part, the part holding `lines` lines with it.
pub fn ends_part(key: &str, lines: usize) -> bool {
    let by_key = key.get(..16).and_then(|h| u64::from_str_radix(h, 16).ok()).is_some_and(|v| v % AVERAGE_LINES == 0);
    by_key || lines >= MAX_LINES
}

/// The line ranges of the parts the lines with `keys` (in order) are cut into.
pub fn chunks(keys: &[String]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, key) in keys.iter().enumerate() {
        if ends_part(key, i + 1 - start) {
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
pub fn chunk_key<S: AsRef<str>>(keys: &[S]) -> String {
    let mut h = Sha256::new();
    for k in keys {
        h.update(k.as_ref().as_bytes());
        h.update(b"\n");
    }
    hex::encode(h.finalize())
}

/// A list as text.
pub fn render_list(parts: &[PartEntry]) -> String {
    let mut out = String::with_capacity(parts.len() * 150);
    for p in parts {
        out.push_str(&format!("{} {} {} {}\n", p.name, p.chunk_key, p.lines, p.bytes));
    }
    out
}

/// Parses a list (`text`, read from `path`); an entry that is not
/// `<sha256> <chunk_key> <lines> <bytes>` is an error naming its line.
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
            entry.with_context(|| format!("{}: line {} is not a part (rerun the stage)", path.display(), i + 1))
        })
        .collect()
}

/// The parts a list names, in order (an error when it is missing or unreadable).
pub fn read_list(layout: &PartsLayout) -> Result<Vec<PartEntry>> {
    let p = &layout.list;
    let text =
        std::fs::read_to_string(p).with_context(|| format!("cannot read {} (run `{}`)", p.display(), layout.stage))?;
    parse_list(p, &text)
}

/// How many part files a reader keeps open: a stage reads the parts in order, a batch of
/// lines (a few dozen parts) at a time, and a million lines make 125,000 parts, far more than
/// a process may hold open.
const OPEN_PARTS: usize = 64;

/// A parted file's last complete version, to read line by line: the listed parts, opened as
/// they are read, the last [`OPEN_PARTS`] kept open.
pub struct PartedLines {
    layout: PartsLayout,
    parts: Vec<PartEntry>,
    open: Mutex<std::collections::VecDeque<(u32, Arc<std::fs::File>)>>,
}

impl PartedLines {
    /// The parts the list names.
    pub fn open(layout: PartsLayout) -> Result<PartedLines> {
        let parts = read_list(&layout)?;
        Ok(PartedLines::of(layout, parts))
    }

    pub fn of(layout: PartsLayout, parts: Vec<PartEntry>) -> PartedLines {
        PartedLines { layout, parts, open: Mutex::new(std::collections::VecDeque::new()) }
    }

    pub fn parts(&self) -> &[PartEntry] {
        &self.parts
    }

    /// Where these parts lie.
    pub fn layout(&self) -> &PartsLayout {
        &self.layout
    }

    /// The list these parts were read from.
    pub fn list_path(&self) -> &Path {
        &self.layout.list
    }

    /// The file of part `part` (the list, when there is no such part).
    pub fn path(&self, part: u32) -> PathBuf {
        match self.parts.get(part as usize) {
            Some(p) => self.layout.part_path(&p.name),
            None => self.layout.list.clone(),
        }
    }

    fn file(&self, part: u32) -> Result<Arc<std::fs::File>> {
        let stage = self.layout.stage;
        if part as usize >= self.parts.len() {
            bail!("{} lists no part {part} (rerun `{stage}`)", self.layout.list.display())
        }
        let open = |open: &std::collections::VecDeque<(u32, Arc<std::fs::File>)>| {
            open.iter().find(|(p, _)| *p == part).map(|(_, f)| f.clone())
        };
        if let Some(f) = open(&self.open.lock().unwrap_or_else(|e| e.into_inner())) {
            return Ok(f);
        }
        let p = self.path(part);
        let f = Arc::new(
            std::fs::File::open(&p).with_context(|| format!("cannot open {} (rerun `{stage}`)", p.display()))?,
        );
        let mut kept = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() >= OPEN_PARTS {
            kept.pop_front();
        }
        kept.push_back((part, f.clone()));
        Ok(f)
    }

    /// The bytes of the line at `span`.
    pub fn read_line(&self, span: PartSpan) -> Result<Vec<u8>> {
        use std::os::unix::fs::FileExt;
        let mut buf = vec![0u8; span.len];
        self.file(span.part)?.read_exact_at(&mut buf, span.offset).with_context(|| {
            format!("{} changed while it was read: run the stage again", self.path(span.part).display())
        })?;
        Ok(buf)
    }

    /// The line at `span` as a `T` ([`Self::parse`]).
    pub fn read_json<T: serde::de::DeserializeOwned>(&self, span: PartSpan) -> Result<T> {
        self.parse(span, &self.read_line(span)?)
    }

    /// `line`, read at `span`, as a `T`; an error naming the part and the place otherwise.
    pub fn parse<T: serde::de::DeserializeOwned>(&self, span: PartSpan, line: &[u8]) -> Result<T> {
        serde_json::from_slice(line).with_context(|| {
            format!(
                "{}: the line at byte {} is not a {} (rerun `{}`)",
                self.path(span.part).display(),
                span.offset,
                self.layout.line_is,
                self.layout.stage
            )
        })
    }

    /// Every line of part `part` with its span.
    pub fn part_lines(&self, part: u32) -> Result<Vec<(PartSpan, Vec<u8>)>> {
        let p = self.path(part);
        let stage = self.layout.stage;
        let f = std::fs::File::open(&p).with_context(|| format!("cannot open {} (rerun `{stage}`)", p.display()))?;
        let mut reader = std::io::BufReader::with_capacity(1 << 16, f);
        let (mut offset, mut out) = (0u64, Vec::new());
        loop {
            let mut line = Vec::new();
            let n = reader.read_until(b'\n', &mut line).with_context(|| format!("cannot read {}", p.display()))?;
            if n == 0 {
                break;
            }
            out.push((PartSpan { part, offset, len: n }, line));
            offset += n as u64;
        }
        Ok(out)
    }

    /// Every line in order with its span, one part read at a time.
    pub fn lines(self) -> impl Iterator<Item = Result<(PartSpan, Vec<u8>)>> {
        self.each_line(|_, span, line| Ok((span, line)))
    }

    /// Every line in order with its span, parsed as a `T` ([`Self::parse`]: a line that is not
    /// one is an error naming its part and place), one part read at a time.
    pub fn records<T: serde::de::DeserializeOwned>(self) -> impl Iterator<Item = Result<(PartSpan, T)>> {
        self.each_line(|parts, span, line| parts.parse(span, &line).map(|t| (span, t)))
    }

    /// `f` over every line in order, one part read at a time; a part that cannot be read is
    /// one error in its place.
    fn each_line<R>(self, f: impl Fn(&PartedLines, PartSpan, Vec<u8>) -> Result<R>) -> impl Iterator<Item = Result<R>> {
        let n = self.parts.len() as u32;
        (0..n).flat_map(move |part| match self.part_lines(part) {
            Ok(lines) => lines.into_iter().map(|(span, line)| f(&self, span, line)).collect::<Vec<_>>(),
            Err(e) => vec![Err(e)],
        })
    }
}

/// Writes one part from its `lines` (each ending in a newline): a temp file renamed to the
/// sha256 of its bytes (an existing file of that name holds the same bytes and is kept). Not
/// flushed here: an fsync per part cost a full extract at 100,000 decisions some 25 s; the
/// writer calls [`make_durable`] once before any list names the parts.
pub fn write_part(layout: &PartsLayout, chunk_key: String, lines: &[Vec<u8>]) -> Result<PartEntry> {
    let mut h = Sha256::new();
    let mut bytes = 0u64;
    for l in lines {
        h.update(l);
        bytes += l.len() as u64;
    }
    let name = hex::encode(h.finalize());
    let path = layout.part_path(&name);
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
pub fn make_durable(layout: &PartsLayout) -> Result<()> {
    std::fs::create_dir_all(&layout.dir)?;
    let f = std::fs::File::open(&layout.dir).with_context(|| format!("cannot open {}", layout.dir.display()))?;
    rustix::fs::syncfs(&f).with_context(|| format!("cannot flush {} to disk", layout.dir.display()))
}

/// Makes the parts durable, then writes the list of `parts` (temp, fsync, rename) and returns
/// its sha256; `describe` is called with that sha256 and the finished list file before the
/// rename (a companion names the list by both).
pub fn write_list(
    layout: &PartsLayout,
    parts: &[PartEntry],
    describe: impl FnOnce(&str, &std::fs::File) -> Result<()>,
) -> Result<String> {
    make_durable(layout)?;
    let list = render_list(parts);
    let sha256 = hex::encode(Sha256::digest(list.as_bytes()));
    let path = &layout.list;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("parts");
    let tmp = path.with_file_name(format!(".tmp-{}-{name}", std::process::id()));
    let mut file = std::fs::File::create(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
    file.write_all(list.as_bytes())?;
    file.sync_all().with_context(|| format!("cannot write {}", tmp.display()))?;
    describe(&sha256, &file)?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(sha256)
}

/// Whether the list is there and every part it names is too, as long as it says: a run over
/// unchanged input may then write nothing.
pub fn list_is_whole(layout: &PartsLayout) -> bool {
    read_list(layout).is_ok_and(|parts| parts.iter().all(|part| part_is_whole(layout, part)))
}

/// Whether the file of `part` is there, as long as the list says.
pub fn part_is_whole(layout: &PartsLayout, part: &PartEntry) -> bool {
    std::fs::metadata(layout.part_path(&part.name)).is_ok_and(|m| m.len() == part.bytes)
}

/// Removes every part file `parts` does not name, and leftovers of stopped runs; call it once
/// the list and the summary naming it are in place. Returns how many files went.
pub fn remove_unlisted(layout: &PartsLayout, parts: &[PartEntry]) -> usize {
    let listed: std::collections::HashSet<&str> = parts.iter().map(|p| p.name.as_str()).collect();
    let mut removed = 0;
    let Ok(dirs) = std::fs::read_dir(&layout.dir) else { return 0 };
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

/// Writes a parted file line by line, in order: each line is given with its key, the part it
/// will lie in is cut by [`ends_part`], and a finished part whose chunk key the `earlier`
/// list names (and whose file is whole) is kept instead of written.
pub struct PartsWriter {
    layout: PartsLayout,
    earlier: HashMap<String, PartEntry>,
    /// The earlier list's lines, for lines given by their place there ([`Self::push_earlier`]).
    earlier_lines: Option<PartedLines>,
    lines: Vec<PendingLine>,
    keys: Vec<String>,
    offset: u64,
    parts: Vec<PartEntry>,
    /// Parts kept from the earlier list.
    kept: usize,
}

impl PartsWriter {
    /// A writer into `layout`, keeping what the `earlier` list (its parts) holds.
    pub fn create(layout: PartsLayout, earlier: &[PartEntry]) -> PartsWriter {
        let earlier_lines = (!earlier.is_empty()).then(|| PartedLines::of(layout.clone(), earlier.to_vec()));
        let earlier = earlier.iter().map(|p| (p.chunk_key.clone(), p.clone())).collect();
        PartsWriter {
            layout,
            earlier,
            earlier_lines,
            lines: Vec::new(),
            keys: Vec::new(),
            offset: 0,
            parts: Vec::new(),
            kept: 0,
        }
    }

    /// Appends `line` (ending in a newline) with its `key`; returns where it lies.
    pub fn push(&mut self, key: String, line: Vec<u8>) -> Result<PartSpan> {
        self.push_pending(key, PendingLine::Bytes(line))
    }

    /// Appends `line` with its `key`: its bytes, or its place in the earlier list (the list
    /// given to [`Self::create`]), read only when its part cannot be kept.
    pub fn push_pending(&mut self, key: String, line: PendingLine) -> Result<PartSpan> {
        let len = match &line {
            PendingLine::Bytes(b) => b.len(),
            PendingLine::Earlier(span) => span.len,
        };
        let span = PartSpan { part: self.parts.len() as u32, offset: self.offset, len };
        self.offset += len as u64;
        let ends = ends_part(&key, self.lines.len() + 1);
        self.lines.push(line);
        self.keys.push(key);
        if ends {
            self.cut()?;
        }
        Ok(span)
    }

    fn cut(&mut self) -> Result<()> {
        if self.lines.is_empty() {
            return Ok(());
        }
        let key = chunk_key(&self.keys);
        let entry = match self.earlier.get(&key) {
            Some(e) if e.lines == self.lines.len() && e.bytes == self.offset && part_is_whole(&self.layout, e) => {
                self.kept += 1;
                e.clone()
            }
            _ => {
                let lines = std::mem::take(&mut self.lines)
                    .into_iter()
                    .map(|l| match l {
                        PendingLine::Bytes(b) => Ok(b),
                        PendingLine::Earlier(span) => match &self.earlier_lines {
                            Some(earlier) => earlier.read_line(span),
                            None => {
                                bail!("{}: a line of an earlier list was given without one", self.layout.list.display())
                            }
                        },
                    })
                    .collect::<Result<Vec<_>>>()?;
                write_part(&self.layout, key, &lines)?
            }
        };
        self.parts.push(entry);
        (self.lines, self.keys, self.offset) = (Vec::new(), Vec::new(), 0);
        Ok(())
    }

    /// Cuts the last part and writes the list ([`write_list`], `describe` as there).
    pub fn finish(mut self, describe: impl FnOnce(&str, &std::fs::File) -> Result<()>) -> Result<WrittenParts> {
        self.cut()?;
        let sha256 = write_list(&self.layout, &self.parts, describe)?;
        Ok(WrittenParts { sha256, parts: self.parts, kept: self.kept })
    }
}

/// A line given to [`PartsWriter`]: its bytes, or its place in the earlier list.
pub enum PendingLine {
    Bytes(Vec<u8>),
    Earlier(PartSpan),
}

/// What [`PartsWriter::finish`] wrote: the list's sha256, its parts, and how many of them were
/// kept from the earlier list (the last part counted too, once it is cut).
pub struct WrittenParts {
    pub sha256: String,
    pub parts: Vec<PartEntry>,
    pub kept: usize,
}

/// Writes `lines` as a parted file afresh, each line keyed by its own sha256 (no companion):
/// for tools and tests that lay out lines by hand. Returns the list's sha256.
pub fn write_lines(layout: &PartsLayout, lines: impl IntoIterator<Item = Vec<u8>>) -> Result<String> {
    let mut w = PartsWriter::create(layout.clone(), &[]);
    for l in lines {
        w.push(hex::encode(Sha256::digest(&l)), l)?;
    }
    Ok(w.finish(|_, _| Ok(()))?.sha256)
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
    fn the_writer_cuts_as_chunks_does_and_keeps_what_the_earlier_list_holds() {
        let dir = tempfile_dir("parts-writer");
        let layout = PartsLayout { list: dir.join("x.parts"), dir: dir.join("parts"), line_is: "line", stage: "test" };
        let keys: Vec<String> = (0..500).map(key).collect();
        let line = |k: &str| format!("{{\"k\":\"{k}\"}}\n").into_bytes();
        let write = |keys: &[String], earlier: &[PartEntry]| {
            let mut w = PartsWriter::create(layout.clone(), earlier);
            let spans: Vec<PartSpan> = keys.iter().map(|k| w.push(k.clone(), line(k)).unwrap()).collect();
            let written = w.finish(|_, _| Ok(())).unwrap();
            (spans, written.parts, written.kept)
        };
        let (spans, parts, kept) = write(&keys, &[]);
        assert_eq!((parts.len(), kept), (chunks(&keys).len(), 0));
        let read = PartedLines::open(layout.clone()).unwrap();
        for (k, s) in keys.iter().zip(&spans) {
            assert_eq!(read.read_line(*s).unwrap(), line(k));
        }
        let mut changed = keys.clone();
        changed[250] = key(9_999);
        let (_, again, kept) = write(&changed, &parts);
        assert!(kept + 3 >= again.len() && kept < again.len(), "{kept} of {}", again.len());
        let gone = parts.iter().filter(|p| !again.iter().any(|a| a.name == p.name)).count();
        assert!(gone > 0);
        assert_eq!(remove_unlisted(&layout, &again), gone);
        assert!(list_is_whole(&layout));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_reader_holds_a_bounded_number_of_parts_open_however_many_it_reads() {
        let dir = tempfile_dir("parts-open");
        let layout = PartsLayout { list: dir.join("x.parts"), dir: dir.join("parts"), line_is: "line", stage: "test" };
        let lines: Vec<Vec<u8>> = (0..4_000).map(|i| format!("{{\"i\":{i}}}\n").into_bytes()).collect();
        write_lines(&layout, lines.clone()).unwrap();
        let read = PartedLines::open(layout.clone()).unwrap();
        assert!(read.parts().len() > 4 * OPEN_PARTS, "{} parts", read.parts().len());
        let mut spans = Vec::new();
        for part in 0..read.parts().len() as u32 {
            spans.extend(read.part_lines(part).unwrap().into_iter().map(|(s, _)| s));
        }
        for (s, l) in spans.iter().zip(&lines) {
            assert_eq!(&read.read_line(*s).unwrap(), l);
        }
        let open_parts = std::fs::read_dir("/proc/self/fd")
            .unwrap()
            .flatten()
            .filter(|fd| std::fs::read_link(fd.path()).is_ok_and(|t| t.starts_with(&layout.dir)))
            .count();
        assert!(open_parts <= OPEN_PARTS, "{open_parts} part files open");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn tempfile_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
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
