//! The statute search's prior: which sections practice treats as on point. A section's score is
//! multiplied by how many held decisions cite its law and the section itself (the generation's
//! `law_citing` / `section_citing` tables, built by `index`), and lowered for units that are not
//! norms (repealed placeholders most, then tables of contents, Eingangs- and Schlussformeln)
//! and, less, for annexes. A section of a law the legal-register dictionary names as the answer
//! to some everyday situation is raised a little too ([`REGISTER_LAW_FACTOR`]): those 264
//! laws are the ones people ask about, and with 966 decisions the citation prior alone left a
//! never-cited ordinance level with them (`Kaution zurück` ranked the Magermilchpulver
//! ordinance's `Kautionen` first).
//! Built once per generation on first use; a generation without the tables has no citation
//! prior (factors from the unit kind only).

use std::collections::HashMap;
use std::sync::Arc;

use index::Generation;
use tantivy::SegmentReader;
use tantivy::index::SegmentId;

use crate::contract::answer::ToolError;
use crate::store::kept::PerGeneration;

/// Per section: the score factor and the decisions citing it and its law.
pub struct LawPrior {
    /// By section id (ids are the store's dense row ids; a missing one reads 1.0): indexed,
    /// not hashed, since every matching section of a search is looked up.
    factor: Vec<f32>,
    section_citing: HashMap<i64, i64>,
    law_citing: HashMap<i64, i64>,
    /// By segment of the generation's statute index: its sections' ids and factors by doc id.
    segments: HashMap<SegmentId, Arc<SegmentPrior>>,
}

/// One segment's section ids and factors, by doc id: a search reads them for every section it
/// ranks (read through the fast-field column, they took a tenth of a lay search).
pub struct SegmentPrior {
    pub section: Vec<u64>,
    pub factor: Vec<f32>,
    /// The largest of `factor`.
    pub max_factor: f32,
}

/// Keys of units that are not norms (a key starting with one: `(xxxx) §§ 861 und 862`, a
/// group of repealed sections).
const NOT_NORMS: &[&str] =
    &["inhaltsübersicht", "inhaltsverzeichnis", "eingangsformel", "schlussformel", "schlußformel", "(xxxx)"];

/// Whether a section (`s`) is repealed, a placeholder that holds no rule: its heading or its
/// short text says `(weggefallen)`. The full mirror has about 3,000; a word search matching
/// `weggefallen` ranked them first ("einfach weggefahren" corrected to it).
const REPEALED_SQL: &str = "s.text_length < 80 AND (s.heading LIKE '%weggefallen%' OR s.text LIKE '%weggefallen%')";

/// The factor of a section of a law the legal-register dictionary names as an answer. Chosen
/// on the read lay question sets: 1.25 raised their recall@5 77.3 -> 77.8 and MRR@10 0.697 ->
/// 0.700, 1.5 to 0.701, 2 no further; heading questions unchanged, citation recommendation
/// MRR@10 0.210 -> 0.208 (words only).
const REGISTER_LAW_FACTOR: f32 = 1.5;

/// The factor of a repealed section: below every other unit.
const REPEALED_FACTOR: f32 = 0.1;

impl LawPrior {
    /// The prior of the generation `g`, built on first use and kept while it serves.
    pub fn of(g: &Generation) -> Result<Arc<LawPrior>, ToolError> {
        static KEPT: PerGeneration<LawPrior> = PerGeneration::new();
        KEPT.get(g, LawPrior::load)
    }

    fn load(g: &Generation) -> Result<LawPrior, ToolError> {
        // Loaded here at the generation's first search (the lift of fired entries reads it too).
        let answers = crate::query::dictionary_answers::DictionaryAnswers::of(g)?;
        let register_laws = answers.laws();
        g.store
            .with(|c| {
                let has = |t: &str| -> rusqlite::Result<bool> {
                    c.query_row("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?1", [t], |r| {
                        r.get::<_, i64>(0)
                    })
                    .map(|n| n > 0)
                };
                let mut law_citing = HashMap::new();
                let mut section_citing = HashMap::new();
                if has("law_citing")? && has("section_citing")? {
                    let mut st = c.prepare("SELECT law_id, decisions FROM law_citing")?;
                    for r in st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))? {
                        let (k, v) = r?;
                        law_citing.insert(k, v);
                    }
                    let mut st = c.prepare("SELECT section_id, decisions FROM section_citing")?;
                    for r in st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))? {
                        let (k, v) = r?;
                        section_citing.insert(k, v);
                    }
                }
                let mut factor: Vec<f32> = Vec::new();
                let mut st =
                    c.prepare(&format!("SELECT id, law_id, kind, key, COALESCE(({REPEALED_SQL}), 0) FROM sections s"))?;
                let rows = st.query_map([], |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, Option<String>>(3)?,
                        r.get::<_, bool>(4)?,
                    ))
                })?;
                for r in rows {
                    let (id, law, kind, key, repealed) = r?;
                    let unit = match (kind.as_str(), key.as_deref()) {
                        _ if repealed => REPEALED_FACTOR,
                        (_, Some(k)) if NOT_NORMS.iter().any(|n| k.starts_with(n)) => 0.3,
                        ("other", None) => 0.3,
                        ("annex", _) => 0.7,
                        _ => 1.0,
                    };
                    let law_n = *law_citing.get(&law).unwrap_or(&0) as f32;
                    let sec_n = *section_citing.get(&id).unwrap_or(&0) as f32;
                    let lay = if register_laws.contains(&law) { REGISTER_LAW_FACTOR } else { 1.0 };
                    let f = unit * lay * (1.0 + 0.25 * law_n.ln_1p()) * (1.0 + 0.15 * sec_n.ln_1p());
                    let Ok(at) = usize::try_from(id) else { continue };
                    if factor.len() <= at {
                        factor.resize(at + 1, 1.0);
                    }
                    factor[at] = f;
                }
                Ok(LawPrior { factor, section_citing, law_citing, segments: HashMap::new() })
            })
            .map_err(ToolError::internal)
            .and_then(|mut prior| {
                for reader in g.laws_reader.searcher().segment_readers() {
                    let kept = prior.segment_of(reader).map_err(ToolError::internal)?;
                    prior.segments.insert(reader.segment_id(), Arc::new(kept));
                }
                Ok(prior)
            })
    }

    /// The section ids and factors of `reader`'s documents: kept for the generation's own
    /// segments, read now for another.
    pub fn segment(&self, reader: &SegmentReader) -> tantivy::Result<Arc<SegmentPrior>> {
        match self.segments.get(&reader.segment_id()) {
            Some(kept) => Ok(kept.clone()),
            None => self.segment_of(reader).map(Arc::new),
        }
    }

    fn segment_of(&self, reader: &SegmentReader) -> tantivy::Result<SegmentPrior> {
        let ids = reader.fast_fields().u64("section_id")?.first_or_default_col(0);
        let section: Vec<u64> = (0..reader.max_doc()).map(|doc| ids.get_val(doc)).collect();
        let factor: Vec<f32> = section.iter().map(|sid| self.factor(*sid)).collect();
        let max_factor = factor.iter().copied().fold(0.0, f32::max);
        Ok(SegmentPrior { section, factor, max_factor })
    }

    /// The factor a section's text score is multiplied by.
    fn factor(&self, section_id: u64) -> f32 {
        usize::try_from(section_id).ok().and_then(|i| self.factor.get(i)).copied().unwrap_or(1.0)
    }

    /// Held decisions citing the section, and its law (0 when none; the tables count bound
    /// citations only).
    pub fn citing(&self, section_id: i64, law_id: i64) -> (i64, i64) {
        (*self.section_citing.get(&section_id).unwrap_or(&0), *self.law_citing.get(&law_id).unwrap_or(&0))
    }

    /// Whether this generation has the citation tables (else the counts are not recorded).
    pub fn has_citations(&self) -> bool {
        !self.law_citing.is_empty()
    }
}
