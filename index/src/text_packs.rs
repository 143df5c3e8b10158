//! Decision bodies (text, sections, Randnummern, citations) in immutable, content-addressed pack files
//! under a generation's `texts/`, shared with later generations by hard link.
//!
//! Each body is one zstd frame. A decision's row in the store names its pack (`text_packs`),
//! the frame's offset and length, and `text_key`, the sha256 of the uncompressed body. A pack
//! is named by the sha256 of its own bytes and is never written again once finished.
//!
//! A build links the packs of the generation it follows (CURRENT) whose bodies it still needs:
//! a decision whose `text_key` equals its earlier row's keeps that frame. Only new or changed
//! bodies are compressed and written, into new packs. A linked pack whose live frames fill less
//! than [`MIN_LIVE_SHARE`] of it is not kept: its live frames are copied (still compressed)
//! into the new packs, so dead bodies do not pile up over nightly runs.
//!
//! Invariants: the store's `text_packs` lists exactly the files of `texts/`; every row's frame
//! lies inside its pack; the manifest hashes every pack like any other file, so a generation
//! verifies on its own, whichever generation first wrote its packs.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};

pub const TEXTS_DIR: &str = "texts";
/// A new pack is started once the current one holds this many bytes.
const PACK_TARGET_BYTES: u64 = 256 << 20;
/// zstd level: 3 compresses German decision text to about a third at several hundred MB/s.
const ZSTD_LEVEL: i32 = 3;
/// A linked pack whose live frames fill less than this share of its bytes is rewritten.
pub const MIN_LIVE_SHARE: f64 = 0.5;

/// What a decision's full view needs beyond its metadata row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecisionBody {
    pub text: String,
    /// JSON array of `{name, heading, start, end}`.
    pub sections: String,
    /// JSON array of `{rn, start, end, printed}`.
    pub randnummern: String,
    /// JSON array of the decision's citations ([`crate::citation_rows`]).
    pub citations: String,
}

impl DecisionBody {
    /// Four length-prefixed UTF-8 strings: text, sections, Randnummern, citations.
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            16 + self.text.len() + self.sections.len() + self.randnummern.len() + self.citations.len(),
        );
        for part in [&self.text, &self.sections, &self.randnummern, &self.citations] {
            out.extend_from_slice(&(part.len() as u32).to_le_bytes());
            out.extend_from_slice(part.as_bytes());
        }
        out
    }

    fn decode(bytes: &[u8]) -> Result<DecisionBody> {
        let [text, sections, randnummern, citations] = Self::parts(bytes)?.map(utf8);
        Ok(DecisionBody { text: text?, sections: sections?, randnummern: randnummern?, citations: citations? })
    }

    /// The citations part alone (the text is neither copied nor checked).
    fn decode_citations(bytes: &[u8]) -> Result<String> {
        let [.., citations] = Self::parts(bytes)?;
        utf8(citations)
    }

    /// The four length-prefixed parts of an encoded body, checked to fill it exactly.
    fn parts(bytes: &[u8]) -> Result<[&[u8]; 4]> {
        let mut rest = bytes;
        let mut parts: [&[u8]; 4] = [&[]; 4];
        for part in &mut parts {
            if rest.len() < 4 {
                bail!("decision body truncated");
            }
            let n = u32::from_le_bytes(rest[..4].try_into().expect("4 bytes")) as usize;
            rest = &rest[4..];
            if rest.len() < n {
                bail!("decision body truncated");
            }
            *part = &rest[..n];
            rest = &rest[n..];
        }
        if !rest.is_empty() {
            bail!("decision body has {} trailing bytes", rest.len());
        }
        Ok(parts)
    }
}

fn utf8(part: &[u8]) -> Result<String> {
    String::from_utf8(part.to_vec()).context("decision body is not UTF-8")
}

/// Where a body's frame is: the pack's id in `text_packs`, the frame's offset and length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextRef {
    pub pack: i64,
    pub offset: u64,
    pub bytes: u64,
}

/// What a build did with the bodies and packs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackCounts {
    /// Bodies whose frame was kept from the earlier generation.
    pub bodies_reused: u64,
    /// Bodies compressed and written anew.
    pub bodies_written: u64,
    /// Frames copied out of a linked pack that was too empty to keep.
    pub frames_moved: u64,
    pub packs_linked: u64,
    pub bytes_linked: u64,
    pub packs_written: u64,
    pub bytes_written: u64,
    /// Linked packs dropped because less than [`MIN_LIVE_SHARE`] of them was live.
    pub packs_dropped: u64,
}

/// The earlier generation's bodies, looked up by decision ext id in its store.
struct Earlier {
    texts: PathBuf,
    conn: Connection,
}

/// A pack being written: a temporary name until its hash is known.
struct OpenPack {
    id: i64,
    tmp: PathBuf,
    file: File,
    hash: Sha256,
    bytes: u64,
}

enum PackSource {
    /// Hard-linked from the earlier generation under the same name.
    Linked { name: String, bytes: u64 },
    /// Written by this build, renamed to `<sha256>.pack` when finished.
    Written { name: String, bytes: u64 },
}

/// Writes the bodies of one build.
pub struct PackWriter {
    dir: PathBuf,
    earlier: Option<Earlier>,
    packs: BTreeMap<i64, PackSource>,
    linked_ids: HashMap<String, i64>,
    open: Option<OpenPack>,
    next_id: i64,
    pub counts: PackCounts,
}

impl PackWriter {
    /// A writer into `generation_dir/texts/`, reusing the bodies of `earlier_generation` (a
    /// published generation of the same schema) where they are unchanged.
    pub fn create(generation_dir: &Path, earlier_generation: Option<&Path>) -> Result<PackWriter> {
        let dir = generation_dir.join(TEXTS_DIR);
        std::fs::create_dir_all(&dir)?;
        let earlier = match earlier_generation {
            Some(g) => Some(Earlier {
                texts: g.join(TEXTS_DIR),
                conn: crate::store::open_readonly(&g.join(crate::store::STORE_FILE))?,
            }),
            None => None,
        };
        Ok(PackWriter {
            dir,
            earlier,
            packs: BTreeMap::new(),
            linked_ids: HashMap::new(),
            open: None,
            next_id: 1,
            counts: PackCounts::default(),
        })
    }

    /// For a patched store (a copy of the earlier generation's, [`crate::store_patch`]): links
    /// every pack its `text_packs` lists, under the same ids, so the rows it keeps still name
    /// their packs; `finish` drops or compacts those left (nearly) empty. Call before `put`.
    pub fn adopt_earlier_packs(&mut self, conn: &Connection) -> Result<()> {
        let Some(e) = &self.earlier else { bail!("no earlier generation to adopt the packs of") };
        let listed: Vec<(i64, String)> = conn
            .prepare("SELECT id, name FROM text_packs")?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        let texts = e.texts.clone();
        for (id, name) in listed {
            self.link_earlier_pack(&texts, &name, id)?;
            self.next_id = self.next_id.max(id + 1);
        }
        Ok(())
    }

    /// Links the earlier generation's pack `name` (in `texts`) into this one as pack `id`.
    fn link_earlier_pack(&mut self, texts: &Path, name: &str, id: i64) -> Result<()> {
        let to = self.dir.join(name);
        crate::generation::link_file(&texts.join(name), &to)?;
        let bytes = std::fs::metadata(&to)?.len();
        self.packs.insert(id, PackSource::Linked { name: name.to_string(), bytes });
        self.linked_ids.insert(name.to_string(), id);
        Ok(())
    }

    /// Stores `body` of decision `ext_id`; returns where it is and its key.
    pub fn put(&mut self, ext_id: &str, body: &DecisionBody) -> Result<(TextRef, String)> {
        let encoded = body.encode();
        let key = hex::encode(&Sha256::digest(&encoded)[..16]);
        if let Some(r) = self.reuse(ext_id, &key)? {
            self.counts.bodies_reused += 1;
            return Ok((r, key));
        }
        let frame = zstd::bulk::compress(&encoded, ZSTD_LEVEL).context("compressing a decision body")?;
        self.counts.bodies_written += 1;
        Ok((self.append(&frame)?, key))
    }

    /// The earlier generation's frame of this body, its pack linked on first use.
    fn reuse(&mut self, ext_id: &str, key: &str) -> Result<Option<TextRef>> {
        let Some(e) = &self.earlier else { return Ok(None) };
        let found: Option<(String, String, i64, i64)> = e
            .conn
            .prepare_cached(
                "SELECT d.text_key, p.name, d.text_offset, d.text_bytes
                 FROM decisions d JOIN text_packs p ON p.id = d.text_pack WHERE d.ext_id = ?1",
            )?
            .query_row([ext_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .optional()?;
        let Some((old_key, name, offset, bytes)) = found else { return Ok(None) };
        if old_key != key {
            return Ok(None);
        }
        Ok(Some(self.earlier_frame(&name, offset as u64, bytes as u64)?))
    }

    /// Keeps a body as the earlier generation stored it: the frame at `offset` (`bytes` long)
    /// of its pack `name`, for a decision whose body is known unchanged without building it.
    pub fn keep(&mut self, name: &str, offset: u64, bytes: u64) -> Result<TextRef> {
        let r = self.earlier_frame(name, offset, bytes)?;
        self.counts.bodies_reused += 1;
        Ok(r)
    }

    /// The frame at `offset` (`bytes` long) of the earlier generation's pack `name`, its pack
    /// linked on first use.
    fn earlier_frame(&mut self, name: &str, offset: u64, bytes: u64) -> Result<TextRef> {
        let Some(e) = &self.earlier else { bail!("no earlier generation to keep the body of from") };
        let pack = match self.linked_ids.get(name) {
            Some(&id) => id,
            None => {
                let (texts, id) = (e.texts.clone(), self.next_id);
                self.next_id += 1;
                self.link_earlier_pack(&texts, name, id)?;
                id
            }
        };
        Ok(TextRef { pack, offset, bytes })
    }

    /// Appends one compressed frame to the open pack (starting one when needed).
    fn append(&mut self, frame: &[u8]) -> Result<TextRef> {
        if self.open.as_ref().is_some_and(|p| p.bytes >= PACK_TARGET_BYTES) {
            self.close_open()?;
        }
        if self.open.is_none() {
            let id = self.next_id;
            self.next_id += 1;
            let tmp = self.dir.join(format!(".tmp-{id}.pack"));
            let file = File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
            self.open = Some(OpenPack { id, tmp, file, hash: Sha256::new(), bytes: 0 });
        }
        let p = self.open.as_mut().expect("opened above");
        p.file.write_all(frame)?;
        p.hash.update(frame);
        let r = TextRef { pack: p.id, offset: p.bytes, bytes: frame.len() as u64 };
        p.bytes += frame.len() as u64;
        Ok(r)
    }

    fn close_open(&mut self) -> Result<()> {
        let Some(mut p) = self.open.take() else { return Ok(()) };
        p.file.flush()?;
        drop(p.file);
        let name = format!("{}.pack", hex::encode(p.hash.finalize()));
        std::fs::rename(&p.tmp, self.dir.join(&name))?;
        self.counts.packs_written += 1;
        self.counts.bytes_written += p.bytes;
        self.packs.insert(p.id, PackSource::Written { name, bytes: p.bytes });
        Ok(())
    }

    /// Finishes the packs and writes `text_packs`: linked packs too empty to keep have their
    /// live frames copied into new packs (rows updated) and are removed from `texts/`.
    pub fn finish(mut self, conn: &Connection) -> Result<PackCounts> {
        let live: HashMap<i64, u64> = conn
            .prepare("SELECT text_pack, SUM(text_bytes) FROM decisions GROUP BY text_pack")?
            .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)? as u64)))?
            .collect::<rusqlite::Result<_>>()?;
        let sparse: Vec<(i64, String)> = self
            .packs
            .iter()
            .filter_map(|(&id, s)| match s {
                PackSource::Linked { name, bytes } => {
                    let used = live.get(&id).copied().unwrap_or(0);
                    ((used as f64) < MIN_LIVE_SHARE * *bytes as f64).then(|| (id, name.clone()))
                }
                PackSource::Written { .. } => None,
            })
            .collect();
        for (id, name) in sparse {
            let path = self.dir.join(&name);
            let file = File::open(&path)?;
            let rows: Vec<(i64, u64, u64)> = conn
                .prepare("SELECT id, text_offset, text_bytes FROM decisions WHERE text_pack = ?1")?
                .query_map([id], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64, r.get::<_, i64>(2)? as u64)))?
                .collect::<rusqlite::Result<_>>()?;
            let mut upd = conn.prepare("UPDATE decisions SET text_pack = ?1, text_offset = ?2 WHERE id = ?3")?;
            for (row, offset, bytes) in rows {
                let mut frame = vec![0u8; bytes as usize];
                file.read_exact_at(&mut frame, offset)?;
                let r = self.append(&frame)?;
                upd.execute(params![r.pack, r.offset as i64, row])?;
                self.counts.frames_moved += 1;
            }
            std::fs::remove_file(&path)?;
            self.packs.remove(&id);
            self.counts.packs_dropped += 1;
        }
        self.close_open()?;
        // A patched store lists the earlier generation's packs: the table is written whole.
        conn.execute("DELETE FROM text_packs", [])?;
        let mut ins = conn.prepare("INSERT INTO text_packs (id, name, bytes) VALUES (?1, ?2, ?3)")?;
        for (id, s) in &self.packs {
            let (name, bytes) = match s {
                PackSource::Linked { name, bytes } => {
                    self.counts.packs_linked += 1;
                    self.counts.bytes_linked += bytes;
                    (name, bytes)
                }
                PackSource::Written { name, bytes } => (name, bytes),
            };
            ins.execute(params![id, name, *bytes as i64])?;
        }
        Ok(self.counts)
    }
}

/// No decision body is larger than this (extract caps documents far below it); a frame header
/// claiming more is damage, refused before anything is allocated.
const MAX_BODY_BYTES: usize = 256 << 20;

/// Decompresses one body's frame into a buffer of the size its header records.
fn decompress(frame: &[u8]) -> Result<Vec<u8>> {
    extract::zstd_frame::decompress(frame, MAX_BODY_BYTES, "a decision body")
}

/// The packs of an open generation, read with positioned reads (no shared cursor).
pub struct TextPacks {
    files: HashMap<i64, File>,
}

impl TextPacks {
    /// Opens every pack `text_packs` lists and checks its size.
    pub fn open(generation_dir: &Path, conn: &Connection) -> Result<TextPacks> {
        let dir = generation_dir.join(TEXTS_DIR);
        let mut files = HashMap::new();
        let mut st = conn.prepare("SELECT id, name, bytes FROM text_packs")?;
        let rows = st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, i64>(2)?)))?;
        for row in rows {
            let (id, name, bytes) = row?;
            let path = dir.join(&name);
            let file = File::open(&path).with_context(|| format!("text pack {} missing", path.display()))?;
            let len = file.metadata()?.len();
            if len != bytes as u64 {
                bail!("text pack {} holds {len} bytes, the store says {bytes}", path.display());
            }
            files.insert(id, file);
        }
        Ok(TextPacks { files })
    }

    /// The body at `r`.
    pub fn read(&self, r: TextRef) -> Result<DecisionBody> {
        DecisionBody::decode(&self.frame(r)?)
    }

    /// The body of the decision with row id `decision_id`.
    pub fn body_of(&self, conn: &Connection, decision_id: i64) -> Result<DecisionBody> {
        self.read(text_ref(conn, decision_id)?)
    }

    /// The citations part of the body of the decision with row id `decision_id`
    /// ([`crate::citation_rows`]), without copying its text.
    pub fn citations_of(&self, conn: &Connection, decision_id: i64) -> Result<String> {
        DecisionBody::decode_citations(&self.frame(text_ref(conn, decision_id)?)?)
    }

    /// The decompressed frame at `r`.
    fn frame(&self, r: TextRef) -> Result<Vec<u8>> {
        let file = self.files.get(&r.pack).with_context(|| format!("text pack {} is not listed", r.pack))?;
        let mut frame = vec![0u8; r.bytes as usize];
        file.read_exact_at(&mut frame, r.offset).context("reading a decision body")?;
        decompress(&frame)
    }
}

/// Where the body of the decision with row id `decision_id` is.
fn text_ref(conn: &Connection, decision_id: i64) -> Result<TextRef> {
    conn.prepare_cached("SELECT text_pack, text_offset, text_bytes FROM decisions WHERE id = ?1")?
        .query_row([decision_id], |r| {
            Ok(TextRef { pack: r.get(0)?, offset: r.get::<_, i64>(1)? as u64, bytes: r.get::<_, i64>(2)? as u64 })
        })
        .with_context(|| format!("decision {decision_id} is not held"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(text: &str) -> DecisionBody {
        DecisionBody {
            text: text.to_string(),
            sections: "[]".into(),
            randnummern: "[{\"rn\":1}]".into(),
            citations: "[]".into(),
        }
    }

    #[test]
    fn a_body_survives_encoding_and_a_truncated_one_is_refused() {
        let b = body("Tenor: Die Klage wird abgewiesen. Äöü ß");
        let e = b.encode();
        assert_eq!(DecisionBody::decode(&e).unwrap(), b);
        assert_eq!(DecisionBody::decode_citations(&e).unwrap(), b.citations);
        assert!(DecisionBody::decode(&e[..e.len() - 1]).is_err());
        let mut longer = e.clone();
        longer.push(0);
        assert!(DecisionBody::decode(&longer).is_err());
    }

    fn store(dir: &Path) -> Connection {
        let c = Connection::open(dir.join(crate::store::STORE_FILE)).unwrap();
        c.execute_batch(
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE decisions (id INTEGER PRIMARY KEY, ext_id TEXT NOT NULL UNIQUE, text_pack INTEGER NOT NULL,
                text_offset INTEGER NOT NULL, text_bytes INTEGER NOT NULL, text_key TEXT NOT NULL);
             CREATE TABLE text_packs (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, bytes INTEGER NOT NULL);",
        )
        .unwrap();
        c
    }

    /// `n` decisions `d0`, `d1`, … with bodies of `word` repeated.
    fn corpus(n: usize, word: &str) -> Vec<(String, DecisionBody)> {
        (0..n).map(|i| (format!("d{i}"), body(&format!("{word} {i} ").repeat(40)))).collect()
    }

    /// Writes `bodies` as one generation in `dir`, following `earlier`.
    fn generation(dir: &Path, earlier: Option<&Path>, bodies: &[(String, DecisionBody)]) -> PackCounts {
        std::fs::create_dir_all(dir).unwrap();
        let c = store(dir);
        let mut w = PackWriter::create(dir, earlier).unwrap();
        for (i, (ext, b)) in bodies.iter().enumerate() {
            let (r, key) = w.put(ext, b).unwrap();
            c.execute(
                "INSERT INTO decisions VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![i as i64 + 1, ext, r.pack, r.offset as i64, r.bytes as i64, key],
            )
            .unwrap();
        }
        w.finish(&c).unwrap()
    }

    /// Every body of the generation in `dir`, read back, against `want`.
    fn assert_reads(dir: &Path, want: &[(String, DecisionBody)]) {
        let c = Connection::open(dir.join(crate::store::STORE_FILE)).unwrap();
        let packs = TextPacks::open(dir, &c).unwrap();
        for (i, (ext, b)) in want.iter().enumerate() {
            assert_eq!(&packs.body_of(&c, i as i64 + 1).unwrap(), b, "{ext}");
        }
    }

    fn inode(p: &Path) -> u64 {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(p).unwrap().ino()
    }

    #[test]
    fn unchanged_bodies_keep_their_pack_by_hard_link_and_changed_ones_go_to_a_new_pack() {
        let t = tempfile::tempdir().unwrap();
        let (a, b) = (t.path().join("a"), t.path().join("b"));
        let first = corpus(50, "Gründe");
        let c1 = generation(&a, None, &first);
        assert_eq!((c1.bodies_written, c1.bodies_reused, c1.packs_written), (50, 0, 1));
        let mut second = first.clone();
        second[7].1 = body("geändert");
        let c2 = generation(&b, Some(&a), &second);
        assert_eq!((c2.bodies_written, c2.bodies_reused, c2.packs_linked, c2.packs_written), (1, 49, 1, 1));
        let old_pack = std::fs::read_dir(a.join(TEXTS_DIR)).unwrap().next().unwrap().unwrap().path();
        assert_eq!(inode(&old_pack), inode(&b.join(TEXTS_DIR).join(old_pack.file_name().unwrap())));
        assert_reads(&b, &second);
        assert_reads(&a, &first);
    }

    #[test]
    fn a_linked_pack_mostly_dead_is_rewritten_with_its_live_frames_only() {
        let t = tempfile::tempdir().unwrap();
        let (a, b) = (t.path().join("a"), t.path().join("b"));
        let first = corpus(10, "Tatbestand");
        generation(&a, None, &first);
        // Eight of ten change: the two kept frames are too few to keep the old pack.
        let mut second = first.clone();
        for (i, entry) in second.iter_mut().enumerate().skip(2) {
            entry.1 = body(&format!("neu {i}"));
        }
        let c2 = generation(&b, Some(&a), &second);
        assert_eq!((c2.bodies_reused, c2.frames_moved, c2.packs_dropped, c2.packs_linked), (2, 2, 1, 0));
        assert_eq!(std::fs::read_dir(b.join(TEXTS_DIR)).unwrap().count(), 1);
        assert_reads(&b, &second);
    }
}
