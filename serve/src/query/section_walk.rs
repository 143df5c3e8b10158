//! One walk over the statute sections a word query can match, for every way `search_laws`
//! ranks them at once: the sections holding every word, those holding all but one, those
//! holding any, each counted and ranked, and how many sections hold each word.
//!
//! Why: the same results came from two or three tantivy searches and a count per word, each
//! walking the words' postings again (half of a lay search's time). Here each clause's scorer
//! is moved over its postings once. Scores are the sums tantivy's boolean queries give for the
//! same clauses (each clause scored by its own scorer, held clauses summed), so a section ranks
//! as it did (the unit test compares both on a three-segment index).
//!
//! Invariant: a mode's count and ranking cover exactly the sections its boolean query matches:
//! - every word: all required clauses held (with no required clause: the ranking clause, or,
//!   under a filter, every section the filter admits);
//! - all but one: at least `required - 1` required clauses held (only for 2 or more);
//! - any: any clause held, or, under a filter, every section the filter admits (a boolean query
//!   with a `Must` filter treats its `Should` clauses as optional).
//!
//! Under a filter every mode also needs the filter's clause, which is then scored too. The
//! sections holding only the ranking clause matter only to "any", and a walk led by the
//! required clauses leaves them to [`SectionWalk::take_any_word`], or, for a caller whose
//! ranking gives them nothing, only counts them from their postings
//! ([`SectionWalk::take_any_word_holding_a_required_clause`]).
//!
//! With 3 required clauses or more, the sections holding each are first listed unscored (one
//! bit set per clause, the smallest clause first) and counted; when the caller will not rank
//! "any" (more sections hold every word than [`WalkLimits::any_word_when_every_at_most`]), only
//! the sections holding all but one are scored: a lay question with one common word
//! ("Person") held by 40,000 sections scored all of them for a ranking of the few hundred that
//! hold the others too. The counts stay exact (the bit sets' population counts). Listing stops
//! as soon as the clauses listed show that few hold every one: then "any" is ranked, and the
//! walk visits every section holding a clause as before.

use tantivy::query::{BooleanQuery, BoostQuery, EnableScoring, Occur, Query, Scorer, TermQuery, Weight};
use tantivy::schema::{IndexRecordOption, Term};
use tantivy::{COLLECT_BLOCK_BUFFER_LEN, DocAddress, DocId, DocSet, Score, Searcher, SegmentReader, TERMINATED};

/// The clauses of a word query, as `search_laws` builds them.
pub struct WalkClauses {
    /// One per word that restricts (any of its ways, in any field).
    pub required: Vec<Box<dyn Query>>,
    /// Clauses that only rank (added terms, unknown words, alternatives another implies), as
    /// one union.
    pub ranking: Option<Box<dyn Query>>,
    /// A clause every result must hold (one law), scored like the others.
    pub filter: Option<Box<dyn Query>>,
}

/// How many of each mode's best sections to keep.
#[derive(Debug, Clone, Copy)]
pub struct WalkLimits {
    pub every_word: usize,
    pub all_but_one: usize,
    pub any_word: usize,
    /// The caller ranks the sections holding any clause only when at most this many hold every
    /// one (None: never); past it, "any" is counted but not ranked unless
    /// [`SectionWalk::take_any_word`] asks (which then walks them).
    pub any_word_when_every_at_most: Option<usize>,
}

/// A ranked section: its score after the caller's tweak, its address, and which required
/// clauses it holds (bit `i` of word `i / 64`).
#[derive(Debug, Clone)]
pub struct WalkHit {
    pub score: Score,
    pub addr: DocAddress,
    pub held: Vec<u64>,
}

impl WalkHit {
    /// Whether the section holds required clause `i`.
    pub fn holds(&self, i: usize) -> bool {
        holds(&self.held, i)
    }

    /// The ranking order: the higher score first, of equal scores the lower address (as
    /// tantivy's top-k).
    fn best_first(a: &WalkHit, b: &WalkHit) -> std::cmp::Ordering {
        b.score.total_cmp(&a.score).then_with(|| a.addr.cmp(&b.addr))
    }
}

/// Whether bit `i` of `held` (bit `i % 64` of word `i / 64`) is set.
fn holds(held: &[u64], i: usize) -> bool {
    held.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
}

/// One mode's best sections, best first (ties: the lower address first, as tantivy's top-k),
/// and how many sections it matches.
#[derive(Debug, Clone, Default)]
pub struct Ranked {
    pub top: Vec<WalkHit>,
    pub count: usize,
}

/// What one walk found.
pub struct SectionWalk {
    pub every_word: Ranked,
    /// None with fewer than 2 required clauses.
    pub all_but_one: Option<Ranked>,
    /// The sections holding any clause; until [`SectionWalk::take_any_word`] ran, only
    /// those holding a required one (unless there is none, or a filter leads), and only
    /// counted, not ranked, when the walk visited only the sections holding all but one.
    any_word: Ranked,
    any_word_walked: AnyWordWalked,
    /// For each required clause, the sections of the whole index that hold it (the filter
    /// left aside); None under a filter, where the walk does not visit them all.
    pub sections_holding: Option<Vec<u64>>,
    weights: ClauseWeights,
    any_limit: usize,
    /// Per segment, the sections holding a required clause, as bits: those a walk led by the
    /// required clauses visited, or those listed; empty when the walk was led otherwise.
    holding_required: Vec<Vec<u64>>,
}

/// The score tweak of one segment (the caller's prior), applied before ranking.
pub type SegmentTweak<'a> = dyn Fn(&SegmentReader) -> tantivy::Result<Tweak> + 'a;

/// A segment's tweak: the factor a document's score is multiplied by, and the largest it
/// can be (a section whose score times that cannot enter a full ranking is not tweaked).
pub struct Tweak {
    pub apply: Box<dyn Fn(DocId, Score) -> Score>,
    pub max_factor: Score,
}

/// How much of "any" a walk ranked.
#[derive(Debug, Clone, Copy, PartialEq)]
enum AnyWordWalked {
    /// Every section holding a clause.
    All,
    /// Those holding a required clause (the others hold only the ranking clause).
    Required,
    /// None: only those holding all required clauses but one were visited.
    None,
}

/// Which documents a walk visits: those of the filter, those holding a required clause, those
/// holding a ranking clause and no required one, or those a list names (by bit).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Lead {
    Filter,
    Required,
    RankingOnly,
    Listed,
}

/// The sections holding each required clause, listed unscored, one bit set per clause and
/// segment, and what they count to over the whole index.
struct ClauseSets {
    /// Per segment, the sections holding all required clauses but one (or all).
    all_but_one: Vec<Vec<u64>>,
    /// Per segment, the sections holding any required clause.
    any: Vec<Vec<u64>>,
    /// Per required clause, the sections holding it.
    holding: Vec<u64>,
    every_word: usize,
    all_but_one_count: usize,
    any_word: usize,
}

impl ClauseSets {
    /// Lists `clauses`' required ones in every segment, scoring nothing, the smallest first (by
    /// their terms' document counts); None as soon as the sections holding all of those listed are
    /// `every_at_most` or fewer, since then at most that many hold every clause, and the walk
    /// visits all sections anyway to rank "any" (the larger clauses are not listed for nothing).
    fn list(
        searcher: &Searcher,
        clauses: &WalkClauses,
        every_at_most: Option<usize>,
    ) -> tantivy::Result<Option<ClauseSets>> {
        let unscored = EnableScoring::disabled_from_searcher(searcher);
        let required = clauses.required.len();
        let readers = searcher.segment_readers();
        let holders: Vec<Option<Holders>> = clauses.required.iter().map(|q| Holders::of(q.as_ref())).collect();
        // The smallest first, estimated by the documents holding each term (a look-up in the
        // term dictionary; a scorer, which also opens the postings, is made only for the
        // clauses listed).
        let mut estimate = vec![0u64; required];
        for (q, n) in clauses.required.iter().zip(&mut estimate) {
            let mut terms = Vec::new();
            q.query_terms(&mut |term, _| terms.push(term.clone()));
            for term in &terms {
                *n += searcher.doc_freq(term)?;
            }
        }
        let mut order: Vec<usize> = (0..required).collect();
        order.sort_by_key(|&i| estimate[i]);
        let words = |r: &SegmentReader| (r.max_doc() as usize).div_ceil(64);
        // [segment][clause], filled in `order`.
        let mut bits: Vec<Vec<Vec<u64>>> = readers.iter().map(|_| vec![Vec::new(); required]).collect();
        let mut in_all: Vec<Vec<u64>> = readers.iter().map(|r| vec![u64::MAX; words(r)]).collect();
        for &i in &order {
            // The clause's own (unscored) weight, only where its structure is not read or
            // debug builds check the listing against it.
            let weight = (holders[i].is_none() || cfg!(debug_assertions))
                .then(|| clauses.required[i].weight(unscored))
                .transpose()?;
            let mut holding_all = 0usize;
            for (seg, reader) in readers.iter().enumerate() {
                let set = match &holders[i] {
                    Some(h) => h.list(reader, words(reader))?,
                    None => {
                        let mut set = vec![0u64; words(reader)];
                        let weight = weight.as_ref().expect("made for a clause without holders");
                        list_docs(weight.scorer(reader, 1.0)?.as_mut(), &mut set);
                        set
                    }
                };
                // The postings read directly hold what the clause's query matches.
                if let Some(weight) = weight.as_ref().filter(|_| cfg!(debug_assertions)) {
                    let listed: u32 = set.iter().map(|w| w.count_ones()).sum();
                    assert_eq!(listed, weight.count(reader)?, "clause {i}: listed from its terms' postings");
                }
                for (all, w) in in_all[seg].iter_mut().zip(&set) {
                    *all &= w;
                    holding_all += all.count_ones() as usize;
                }
                bits[seg][i] = set;
            }
            if every_at_most.is_some_and(|n| holding_all <= n) {
                return Ok(None);
            }
        }
        let mut sets = ClauseSets {
            all_but_one: Vec::new(),
            any: Vec::new(),
            holding: (0..required)
                .map(|i| bits.iter().flat_map(|b| &b[i]).map(|w| u64::from(w.count_ones())).sum())
                .collect(),
            every_word: 0,
            all_but_one_count: 0,
            any_word: 0,
        };
        for bits in &bits {
            let words = bits.first().map_or(0, Vec::len);
            let mut listed = vec![0u64; words];
            let mut any_listed = vec![0u64; words];
            // All but one: the union over i of the intersection of every set but the i-th,
            // from the intersections of the sets before i and after i.
            let mut after = vec![u64::MAX; bits.len() + 1];
            for k in 0..words {
                for i in (0..bits.len()).rev() {
                    after[i] = after[i + 1] & bits[i][k];
                }
                let (mut before, mut any, mut but_one) = (u64::MAX, 0u64, 0u64);
                for (i, set) in bits.iter().enumerate() {
                    but_one |= before & after[i + 1];
                    before &= set[k];
                    any |= set[k];
                }
                listed[k] = but_one;
                any_listed[k] = any;
                sets.every_word += before.count_ones() as usize;
                sets.all_but_one_count += but_one.count_ones() as usize;
                sets.any_word += any.count_ones() as usize;
            }
            sets.all_but_one.push(listed);
            sets.any.push(any_listed);
        }
        Ok(Some(sets))
    }
}

/// Which documents a clause's query matches, read from how it is built: a `BooleanQuery` of
/// `Must` clauses is their intersection, one of `Should` clauses their union, a term query
/// (boosted or not) its postings. Listing reads the postings' blocks directly: the clause's own
/// scorer, a union of unions, took as long to list its documents as to score them.
///
/// Assumes what `analysis::plan_walk_clauses` builds: no `MustNot`, and no minimum number of
/// `Should` clauses (tantivy does not say; debug builds check every listing against the
/// clause's own count).
enum Holders {
    Term(Term),
    Any(Vec<Holders>),
    All(Vec<Holders>),
}

impl Holders {
    /// None for a query built otherwise (it is then listed by its own scorer).
    fn of(q: &dyn Query) -> Option<Holders> {
        if let Some(b) = q.downcast_ref::<BooleanQuery>() {
            let clauses = b.clauses();
            if clauses.iter().any(|(o, _)| *o == Occur::MustNot) {
                return None;
            }
            let must: Vec<&Box<dyn Query>> =
                clauses.iter().filter(|(o, _)| *o == Occur::Must).map(|(_, q)| q).collect();
            return if must.is_empty() {
                clauses.iter().map(|(_, q)| Holders::of(q.as_ref())).collect::<Option<_>>().map(Holders::Any)
            } else {
                must.into_iter().map(|q| Holders::of(q.as_ref())).collect::<Option<_>>().map(Holders::All)
            };
        }
        if let Some(t) = q.downcast_ref::<TermQuery>() {
            return Some(Holders::Term(t.term().clone()));
        }
        if q.downcast_ref::<BoostQuery>().is_some() {
            // A boost changes no match; tantivy does not hand out the query it wraps, but its
            // terms: one term is a term query's (a phrase has two or more).
            let mut terms = Vec::new();
            q.query_terms(&mut |t, _| terms.push(t.clone()));
            return match <[Term; 1]>::try_from(terms) {
                Ok([t]) => Some(Holders::Term(t)),
                Err(_) => None,
            };
        }
        None
    }

    /// The documents of `reader` (of `words` × 64 bits) that match.
    fn list(&self, reader: &SegmentReader, words: usize) -> tantivy::Result<Vec<u64>> {
        let mut set = vec![0u64; words];
        self.add_to(reader, &mut set)?;
        Ok(set)
    }

    /// Sets in `set` the bits of the documents of `reader` that match: a union's parts write
    /// into the one set, not each into a set of its own that is then merged (a lay word's
    /// clause is a union of a dozen terms, each set as large as the index).
    fn add_to(&self, reader: &SegmentReader, set: &mut [u64]) -> tantivy::Result<()> {
        match self {
            Holders::Term(t) => {
                let index = reader.inverted_index(t.field())?;
                if let Some(mut block) = index.read_block_postings(t, IndexRecordOption::Basic)? {
                    loop {
                        let docs = block.docs();
                        if docs.is_empty() {
                            break;
                        }
                        set_bits(set, docs);
                        block.advance();
                    }
                }
            }
            Holders::Any(parts) => {
                for p in parts {
                    p.add_to(reader, set)?;
                }
            }
            Holders::All(parts) => {
                let mut all = vec![u64::MAX; set.len()];
                for p in parts {
                    all.iter_mut().zip(p.list(reader, set.len())?).for_each(|(a, b)| *a &= b);
                }
                set.iter_mut().zip(all).for_each(|(a, b)| *a |= b);
            }
        }
        Ok(())
    }
}

/// Sets the bit of each of `docs`.
fn set_bits(set: &mut [u64], docs: &[DocId]) {
    for &d in docs {
        set[d as usize / 64] |= 1 << (d % 64);
    }
}

/// Sets the bit of each document `docs` holds, read in blocks.
fn list_docs(docs: &mut dyn Scorer, set: &mut [u64]) {
    let mut buffer = [0 as DocId; COLLECT_BLOCK_BUFFER_LEN];
    loop {
        let n = docs.fill_buffer(&mut buffer);
        set_bits(set, &buffer[..n]);
        if n < COLLECT_BLOCK_BUFFER_LEN {
            break;
        }
    }
}

/// The clauses' weights (their scoring statistics), made once for both walks.
struct ClauseWeights {
    /// The required clauses, then the ranking one.
    clauses: Vec<Box<dyn Weight>>,
    required: usize,
    filter: Option<Box<dyn Weight>>,
}

impl ClauseWeights {
    fn new(searcher: &Searcher, clauses: &WalkClauses) -> tantivy::Result<ClauseWeights> {
        let scoring = EnableScoring::enabled_from_searcher(searcher);
        let weights = clauses.required.iter().chain(clauses.ranking.iter()).map(|q| q.weight(scoring));
        Ok(ClauseWeights {
            clauses: weights.collect::<tantivy::Result<_>>()?,
            required: clauses.required.len(),
            filter: clauses.filter.as_ref().map(|q| q.weight(scoring)).transpose()?,
        })
    }
}

/// Walks the sections `clauses` can match, once, and ranks them in every mode. Ranking clauses
/// are sought only in the sections a required clause leads to (as tantivy does beside a `Must`
/// clause): the sections holding a ranking clause alone are walked by
/// [`SectionWalk::take_any_word`], only when the caller needs them.
pub fn walk_sections(
    searcher: &Searcher,
    clauses: &WalkClauses,
    limits: WalkLimits,
    tweak: &SegmentTweak<'_>,
) -> tantivy::Result<SectionWalk> {
    let required = clauses.required.len();
    let lead = match (&clauses.filter, required) {
        (Some(_), _) => Lead::Filter,
        (None, 0) => Lead::RankingOnly,
        (None, _) => Lead::Required,
    };
    let mut every = TopHits::new(limits.every_word);
    let mut soft = TopHits::new(limits.all_but_one);
    let mut any = TopHits::new(limits.any_word);
    let mut holding = vec![0u64; required];
    let weights = ClauseWeights::new(searcher, clauses)?;
    // Counted first where that can spare the walk most sections (see the module's doc).
    let mut sets = if lead == Lead::Required && required >= 3 {
        ClauseSets::list(searcher, clauses, limits.any_word_when_every_at_most)?
    } else {
        None
    };
    // Kept only where "any" may be taken later (the caller ranks it when few hold every word)
    // or counted (listed: the sets hold them).
    let mut holding_required: Vec<Vec<u64>> = match (lead, &mut sets) {
        (_, Some(s)) => std::mem::take(&mut s.any),
        (Lead::Required, None) if limits.any_word_when_every_at_most.is_some() => {
            searcher.segment_readers().iter().map(|r| vec![0u64; (r.max_doc() as usize).div_ceil(64)]).collect()
        }
        _ => Vec::new(),
    };
    let (lead, listed_sets) = match &sets {
        Some(s) => (Lead::Listed, s.all_but_one.as_slice()),
        None => (lead, &[][..]),
    };
    walk(searcher, &weights, lead, listed_sets, tweak, |hit, n_held, ranking_held| {
        if let Some(set) = holding_required.get_mut(hit.addr.segment_ord as usize).filter(|_| lead == Lead::Required) {
            let doc = hit.addr.doc_id as usize;
            set[doc / 64] |= 1 << (doc % 64);
        }
        let in_every = n_held == required && (required > 0 || ranking_held || lead == Lead::Filter);
        if in_every {
            every.push(&hit);
        }
        if required >= 2 && n_held + 1 >= required {
            soft.push(&hit);
        }
        if lead != Lead::Listed && (n_held > 0 || ranking_held || lead == Lead::Filter) {
            any.push(&hit);
        }
        if lead != Lead::Filter && sets.is_none() {
            for (i, n) in holding.iter_mut().enumerate() {
                *n += u64::from(hit.holds(i));
            }
        }
    })?;
    let mut any_word = any.into_ranked();
    if let Some(s) = sets {
        // The same counts the walk's pushes give, also where it did not visit.
        debug_assert_eq!((every.count, soft.count), (s.every_word, s.all_but_one_count));
        any_word.count = s.any_word;
        holding = s.holding;
    }
    Ok(SectionWalk {
        every_word: every.into_ranked(),
        all_but_one: (required >= 2).then(|| soft.into_ranked()),
        any_word,
        any_word_walked: match lead {
            Lead::Listed => AnyWordWalked::None,
            Lead::Required => AnyWordWalked::Required,
            Lead::Filter | Lead::RankingOnly => AnyWordWalked::All,
        },
        sections_holding: (lead != Lead::Filter).then_some(holding),
        weights,
        any_limit: limits.any_word,
        holding_required,
    })
}

impl SectionWalk {
    /// The sections holding any clause, ranked and counted, handed over (a second call gets
    /// none): those holding only ranking clauses are walked now if they were not yet.
    pub fn take_any_word(&mut self, searcher: &Searcher, tweak: &SegmentTweak<'_>) -> tantivy::Result<Ranked> {
        if self.any_word_walked == AnyWordWalked::None {
            let mut any = TopHits::new(self.any_limit);
            walk(searcher, &self.weights, Lead::Required, &[], tweak, |hit, _, _| any.push(&hit))?;
            self.any_word = any.into_ranked();
            self.any_word_walked = AnyWordWalked::Required;
        }
        if self.any_word_walked == AnyWordWalked::Required {
            let mut more = TopHits::new(self.any_limit);
            walk(searcher, &self.weights, Lead::RankingOnly, &[], tweak, |hit, n_held, _| {
                if n_held == 0 {
                    more.push(&hit);
                }
            })?;
            let more = more.into_ranked();
            let mut top: Vec<WalkHit> = std::mem::take(&mut self.any_word.top).into_iter().chain(more.top).collect();
            top.sort_by(WalkHit::best_first);
            top.truncate(self.any_limit);
            self.any_word = Ranked { top, count: self.any_word.count + more.count };
            self.any_word_walked = AnyWordWalked::All;
        }
        Ok(std::mem::take(&mut self.any_word))
    }

    /// The sections at `addrs` scored as the walk scores them (each clause it holds, summed,
    /// then the caller's tweak), in index order: for sections the caller wants ranked though
    /// the walk did not keep them (the dictionary's answers).
    pub fn score_sections(
        &self,
        searcher: &Searcher,
        addrs: &[DocAddress],
        tweak: &SegmentTweak<'_>,
    ) -> tantivy::Result<Vec<WalkHit>> {
        let mut listed: Vec<Vec<u64>> =
            searcher.segment_readers().iter().map(|r| vec![0u64; (r.max_doc() as usize).div_ceil(64)]).collect();
        for a in addrs {
            let doc = a.doc_id as usize;
            listed[a.segment_ord as usize][doc / 64] |= 1 << (doc % 64);
        }
        let mut out = Vec::new();
        walk(searcher, &self.weights, Lead::Listed, &listed, tweak, |hit, _, _| {
            out.push(WalkHit { score: hit.score(), addr: hit.addr, held: hit.held.to_vec() });
        })?;
        Ok(out)
    }

    /// How many sections hold any clause, as [`SectionWalk::take_any_word`] counts them, before
    /// any was taken: from the sections known to hold a required clause and the ranking
    /// clause's postings where the walk kept them (led by the required clauses, or listed),
    /// else by walking them.
    pub fn count_any_word(
        &mut self,
        searcher: &Searcher,
        clauses: &WalkClauses,
        tweak: &SegmentTweak<'_>,
    ) -> tantivy::Result<usize> {
        if self.any_word_walked == AnyWordWalked::All {
            return Ok(self.any_word.count);
        }
        let ranking = match &clauses.ranking {
            None => Some(None),
            Some(q) => Holders::of(q.as_ref()).map(Some),
        };
        match ranking {
            Some(ranking) if !self.holding_required.is_empty() => {
                let only_ranking = match ranking {
                    Some(r) => self.holding_only(searcher, &r)?,
                    None => 0,
                };
                Ok(self.any_word.count + only_ranking)
            }
            _ => {
                let any = self.take_any_word(searcher, tweak)?;
                let count = any.count;
                self.any_word = any;
                Ok(count)
            }
        }
    }

    /// The sections `ranking` matches that hold no required clause.
    fn holding_only(&self, searcher: &Searcher, ranking: &Holders) -> tantivy::Result<usize> {
        let mut n = 0usize;
        for (reader, holding) in searcher.segment_readers().iter().zip(&self.holding_required) {
            let set = ranking.list(reader, holding.len())?;
            n += set.iter().zip(holding).map(|(r, h)| (r & !h).count_ones() as usize).sum::<usize>();
        }
        Ok(n)
    }

    /// As [`SectionWalk::take_any_word`], for a caller whose ranking gives a section holding
    /// no required clause nothing (`search_laws` multiplies a pooled section's score by the
    /// share of the words it holds): once `page` sections or more hold a required clause,
    /// those holding only ranking clauses are counted from their postings, not walked and
    /// ranked. That walk was a third of a lay question's search when a dictionary entry
    /// added a common term (`Anspruch`: 7,000 sections holding none of the words).
    pub fn take_any_word_holding_a_required_clause(
        &mut self,
        searcher: &Searcher,
        clauses: &WalkClauses,
        page: usize,
        tweak: &SegmentTweak<'_>,
    ) -> tantivy::Result<Ranked> {
        let ranking = clauses.ranking.as_ref().and_then(|q| Holders::of(q.as_ref()));
        let walked_required = self.any_word_walked == AnyWordWalked::Required && !self.holding_required.is_empty();
        let Some(ranking) = ranking.filter(|_| walked_required && self.any_word.count >= page) else {
            return self.take_any_word(searcher, tweak);
        };
        self.any_word.count += self.holding_only(searcher, &ranking)?;
        self.any_word_walked = AnyWordWalked::All;
        Ok(std::mem::take(&mut self.any_word))
    }
}

/// A section a walk visits: its address, the required clauses it holds, and its score,
/// tweaked on first asking.
struct Visit<'a> {
    addr: DocAddress,
    held: &'a [u64],
    raw: Score,
    tweak: &'a Tweak,
    tweaked: std::cell::Cell<Option<Score>>,
}

impl Visit<'_> {
    fn holds(&self, i: usize) -> bool {
        holds(self.held, i)
    }

    fn score(&self) -> Score {
        *self.tweaked.get().get_or_insert_with(|| (self.tweak.apply)(self.addr.doc_id, self.raw))
    }

    /// At least the tweaked score (a margin for the rounding of the factors' product).
    fn score_bound(&self) -> Score {
        self.raw * self.tweak.max_factor * (1.0 + 1e-5)
    }
}

/// Moves every clause's scorer over the documents `lead` visits (with [`Lead::Listed`], the
/// bits of `listed`, one set per segment), in index order, and hands each to `visit` with how
/// many required clauses it holds and whether a ranking one.
fn walk(
    searcher: &Searcher,
    weights: &ClauseWeights,
    lead: Lead,
    listed: &[Vec<u64>],
    tweak: &SegmentTweak<'_>,
    mut visit: impl FnMut(Visit<'_>, usize, bool),
) -> tantivy::Result<()> {
    let ClauseWeights { clauses: weights, required, filter } = weights;
    let required = *required;
    let filter = if lead == Lead::Filter { filter.as_ref() } else { None };
    let leads = match lead {
        Lead::Filter | Lead::Listed => 0..0,
        Lead::Required => 0..required,
        Lead::RankingOnly => required..weights.len(),
    };
    let mut held = vec![0u64; required.div_ceil(64).max(1)];
    for (ord, reader) in searcher.segment_readers().iter().enumerate() {
        let mut scorers: Vec<Box<dyn Scorer>> =
            weights.iter().map(|w| w.scorer(reader, 1.0)).collect::<tantivy::Result<_>>()?;
        let mut filter = filter.map(|w| w.scorer(reader, 1.0)).transpose()?;
        let tweak = tweak(reader)?;
        // Each scorer's current document, kept here: one virtual call less per clause and
        // document.
        let mut at: Vec<DocId> = scorers.iter().map(|s| s.doc()).collect();
        let mut bits = ListedDocs::new(listed.get(ord).map_or(&[][..], Vec::as_slice));
        loop {
            let doc = match (&filter, lead) {
                (Some(f), _) => f.doc(),
                (None, Lead::Listed) => bits.next_doc(),
                (None, _) => at[leads.clone()].iter().copied().min().unwrap_or(TERMINATED),
            };
            if doc == TERMINATED {
                break;
            }
            held.iter_mut().for_each(|w| *w = 0);
            let (mut n_held, mut ranking_held) = (0usize, false);
            let mut score = filter.as_mut().map_or(0.0, |f| f.score());
            for (i, s) in scorers.iter_mut().enumerate() {
                // `seek` wants a target at or after the current doc.
                if at[i] < doc {
                    at[i] = s.seek(doc);
                }
                if at[i] != doc {
                    continue;
                }
                score += s.score();
                if i < required {
                    held[i / 64] |= 1 << (i % 64);
                    n_held += 1;
                } else {
                    ranking_held = true;
                }
                if leads.contains(&i) {
                    at[i] = s.advance();
                }
            }
            if let Some(f) = filter.as_mut() {
                f.advance();
            }
            let addr = DocAddress::new(ord as u32, doc);
            visit(
                Visit { addr, held: &held, raw: score, tweak: &tweak, tweaked: Default::default() },
                n_held,
                ranking_held,
            );
        }
    }
    Ok(())
}

/// The documents whose bits are set, in order.
struct ListedDocs<'a> {
    words: &'a [u64],
    /// The index of `bits`' word, and its bits not yet handed out.
    at: usize,
    bits: u64,
}

impl ListedDocs<'_> {
    fn new(words: &[u64]) -> ListedDocs<'_> {
        ListedDocs { words, at: 0, bits: words.first().copied().unwrap_or(0) }
    }

    /// The next document listed, or [`TERMINATED`].
    fn next_doc(&mut self) -> DocId {
        while self.bits == 0 {
            self.at += 1;
            match self.words.get(self.at) {
                Some(w) => self.bits = *w,
                None => return TERMINATED,
            }
        }
        let doc = self.at as DocId * 64 + self.bits.trailing_zeros();
        self.bits &= self.bits - 1;
        doc
    }
}

/// The `k` best of what is pushed, and how many were pushed. A heap whose top is the worst
/// kept: higher scores are better, and of equal scores the lower address.
struct TopHits {
    k: usize,
    count: usize,
    heap: std::collections::BinaryHeap<Worst>,
}

/// Orders hits so that the heap's greatest is the worst kept one.
struct Worst(WalkHit);

impl Worst {
    fn better_than(&self, score: Score, addr: DocAddress) -> bool {
        self.0.score.total_cmp(&score).then_with(|| addr.cmp(&self.0.addr)).is_gt()
    }
}

impl PartialEq for Worst {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}
impl Eq for Worst {}
impl PartialOrd for Worst {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Worst {
    /// Greater is worse: a lower score, or of equal scores the higher address.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        WalkHit::best_first(&self.0, &other.0)
    }
}

impl TopHits {
    fn new(k: usize) -> TopHits {
        TopHits { k, count: 0, heap: std::collections::BinaryHeap::with_capacity(k + 1) }
    }

    fn push(&mut self, hit: &Visit<'_>) {
        self.count += 1;
        if self.k == 0 {
            return;
        }
        if self.heap.len() == self.k {
            // The worst kept one stays unless this one is better: a later section needs a
            // higher score, so one that cannot exceed it is not even tweaked.
            if self.heap.peek().is_some_and(|w| w.0.score >= hit.score_bound()) {
                return;
            }
            let score = hit.score();
            if self.heap.peek().is_some_and(|w| w.better_than(score, hit.addr)) {
                return;
            }
            self.heap.pop();
        }
        self.heap.push(Worst(WalkHit { score: hit.score(), addr: hit.addr, held: hit.held.to_vec() }));
    }

    fn into_ranked(self) -> Ranked {
        let mut top: Vec<Worst> = self.heap.into_vec();
        top.sort();
        Ranked { top: top.into_iter().map(|w| w.0).collect(), count: self.count }
    }
}

#[cfg(test)]
mod tests {
    use super::{TopHits, Tweak, Visit, WalkClauses, WalkHit, WalkLimits, walk_sections};
    use tantivy::collector::{Count, TopDocs};
    use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
    use tantivy::schema::{INDEXED, IndexRecordOption, Schema, TEXT};
    use tantivy::{DocAddress, DocId, Index, Score, TantivyDocument, Term};

    fn addrs(top: &[WalkHit]) -> Vec<(f32, u32)> {
        top.iter().map(|h| (h.score, h.addr.doc_id)).collect()
    }

    #[test]
    fn the_top_keeps_the_best_scores_and_of_equal_ones_the_lower_address() {
        let tweak = Tweak { apply: Box::new(|_, s| s), max_factor: 1.0 };
        let hit = |score: f32, doc: u32| Visit {
            addr: DocAddress::new(0, doc),
            held: &[0],
            raw: score,
            tweak: &tweak,
            tweaked: Default::default(),
        };
        let mut top = TopHits::new(3);
        for (score, doc) in [(1.0, 0), (3.0, 1), (2.0, 2), (3.0, 3), (2.0, 4), (0.5, 5), (3.0, 6)] {
            top.push(&hit(score, doc));
        }
        let ranked = top.into_ranked();
        assert_eq!(ranked.count, 7);
        assert_eq!(addrs(&ranked.top), vec![(3.0, 1), (3.0, 3), (3.0, 6)]);
        let mut top = TopHits::new(4);
        for (score, doc) in [(2.0, 9), (1.0, 0), (2.0, 2), (3.0, 3)] {
            top.push(&hit(score, doc));
        }
        assert_eq!(addrs(&top.into_ranked().top), vec![(3.0, 3), (2.0, 2), (2.0, 9), (1.0, 0)]);
    }

    /// A tantivy index of 600 texts in three segments: each text holds some of the words
    /// `alpha` … `eta`, some several times, and belongs to law 1 or 2.
    fn corpus() -> (Index, tantivy::schema::Field, tantivy::schema::Field, tantivy::schema::Field) {
        let mut b = Schema::builder();
        let (text, heading, law) =
            (b.add_text_field("text", TEXT), b.add_text_field("heading", TEXT), b.add_u64_field("law", INDEXED));
        let index = Index::create_in_ram(b.build());
        let mut w = index.writer::<TantivyDocument>(15_000_000).unwrap();
        let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"];
        let mut x: u64 = 7;
        for i in 0..600u64 {
            let mut body = Vec::new();
            for (k, word) in words.iter().enumerate() {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let times = (x >> 33) % (3 + k as u64);
                body.extend(std::iter::repeat_n(*word, times.saturating_sub(1) as usize));
            }
            body.extend(std::iter::repeat_n("filler", (i % 13) as usize));
            let mut doc = TantivyDocument::new();
            doc.add_text(text, body.join(" "));
            doc.add_text(heading, if i % 5 == 0 { "alpha" } else { "none" });
            doc.add_u64(law, 1 + i % 2);
            w.add_document(doc).unwrap();
            if i % 200 == 199 {
                w.commit().unwrap();
            }
        }
        w.commit().unwrap();
        (index, text, heading, law)
    }

    #[test]
    fn one_walk_counts_and_ranks_as_the_three_boolean_queries_do() {
        let (index, text, heading, law) = corpus();
        let searcher = index.reader().unwrap().searcher();
        assert_eq!(searcher.segment_readers().len(), 3);
        let term = |f, w: &str, boost: f32| -> Box<dyn Query> {
            let q = TermQuery::new(Term::from_field_text(f, w), IndexRecordOption::WithFreqs);
            Box::new(BoostQuery::new(Box::new(q), boost))
        };
        let union = |qs: Vec<Box<dyn Query>>| -> Box<dyn Query> {
            Box::new(BooleanQuery::new(qs.into_iter().map(|q| (Occur::Should, q)).collect()))
        };
        let required = || -> Vec<Box<dyn Query>> {
            vec![
                union(vec![term(text, "alpha", 1.0), term(heading, "alpha", 3.0)]),
                // Listed by its own scorer: a boosted union is read as no term structure.
                Box::new(BoostQuery::new(union(vec![term(text, "beta", 1.0), term(text, "gamma", 0.8)]), 1.0)),
                term(text, "delta", 1.0),
                term(text, "epsilon", 1.0),
            ]
        };
        let ranking = || union(vec![term(text, "zeta", 0.5), term(text, "eta", 0.5)]);
        let law_clause =
            || -> Box<dyn Query> { Box::new(TermQuery::new(Term::from_field_u64(law, 1), IndexRecordOption::Basic)) };
        // The walk ranks "any" unless more than `n` sections hold every clause: then it visits
        // only those holding all but one, and "any" is walked when asked for.
        let limits = |n: Option<usize>| WalkLimits {
            every_word: 7,
            all_but_one: 9,
            any_word: 11,
            any_word_when_every_at_most: n,
        };
        // A prior between 1.0 and 1.9 by document: sections that cannot pass the worst kept
        // one once multiplied by 1.9 are skipped, the others ranked by the product.
        let prior = |doc: DocId| 1.0 + ((doc * 7) % 10) as f32 / 10.0;
        let tweak = |_: &tantivy::SegmentReader| -> tantivy::Result<Tweak> {
            Ok(Tweak { apply: Box::new(move |doc: DocId, s: Score| s * prior(doc)), max_factor: 1.9 })
        };
        // Unfiltered: listed without a threshold; listed through a threshold more sections pass;
        // not listed (the threshold is met after the first clause); then under a filter.
        for (filtered, any_word_when_every_at_most) in
            [(false, None), (false, Some(5)), (false, Some(usize::MAX)), (true, None)]
        {
            let filter = || filtered.then(law_clause).into_iter().map(|q| (Occur::Must, q));
            let clauses =
                WalkClauses { required: required(), ranking: Some(ranking()), filter: filtered.then(law_clause) };
            let mut walk = walk_sections(&searcher, &clauses, limits(any_word_when_every_at_most), &tweak).unwrap();
            let every = BooleanQuery::new(
                std::iter::once((Occur::Should, ranking()))
                    .chain(required().into_iter().map(|q| (Occur::Must, q)))
                    .chain(filter())
                    .collect(),
            );
            let soft_inner = BooleanQuery::with_minimum_required_clauses(
                required().into_iter().map(|q| (Occur::Should, q)).collect(),
                3,
            );
            let soft = BooleanQuery::new(
                [(Occur::Should, ranking()), (Occur::Must, Box::new(soft_inner) as Box<dyn Query>)]
                    .into_iter()
                    .chain(filter())
                    .collect(),
            );
            let any = BooleanQuery::new(
                std::iter::once((Occur::Should, ranking()))
                    .chain(required().into_iter().map(|q| (Occur::Should, q)))
                    .chain(filter())
                    .collect(),
            );
            let expect = |q: &BooleanQuery, k: usize| {
                let top = TopDocs::with_limit(k)
                    .tweak_score(move |_: &tantivy::SegmentReader| move |doc: DocId, score: Score| score * prior(doc));
                searcher.search(q, &(top, Count)).unwrap()
            };
            let same = |what: &str, got: &super::Ranked, (top, count): (Vec<(Score, DocAddress)>, usize)| {
                assert_eq!(got.count, count, "{what} (filtered: {filtered}): count");
                let got_top: Vec<DocAddress> = got.top.iter().map(|h| h.addr).collect();
                let want_top: Vec<DocAddress> = top.iter().map(|(_, a)| *a).collect();
                assert_eq!(got_top, want_top, "{what} (filtered: {filtered}): ranking");
                for (h, (s, _)) in got.top.iter().zip(&top) {
                    assert!((h.score - s).abs() < 1e-4, "{what}: score {} vs {s}", h.score);
                }
            };
            same("every word", &walk.every_word, expect(&every, 7));
            same("all but one", walk.all_but_one.as_ref().unwrap(), expect(&soft, 9));
            // Counted before any was taken: from the bits where the walk kept them (led by the
            // required clauses, or listed), else walked.
            let counted = walk_sections(&searcher, &clauses, limits(any_word_when_every_at_most), &tweak)
                .unwrap()
                .count_any_word(&searcher, &clauses, &tweak)
                .unwrap();
            assert_eq!(counted, expect(&any, 1).1, "any word counted (filtered: {filtered})");
            if !filtered {
                // Sections asked for by address score as the boolean query scores them.
                let (want, _) = expect(&any, 11);
                let mut addrs: Vec<DocAddress> = want.iter().map(|(_, a)| *a).collect();
                addrs.sort();
                let got = walk.score_sections(&searcher, &addrs, &tweak).unwrap();
                assert_eq!(got.iter().map(|h| h.addr).collect::<Vec<_>>(), addrs);
                for h in &got {
                    let (s, _) = want.iter().find(|(_, a)| *a == h.addr).unwrap();
                    assert!((h.score - s).abs() < 1e-4, "scored by address: {} vs {s}", h.score);
                }
            }
            let any_word = walk.take_any_word(&searcher, &tweak).unwrap();
            same("any word", &any_word, expect(&any, 11));
            // The sections holding only the ranking clause counted, not ranked: the same count,
            // and the ranking of those holding a required one, after a walk led by the required
            // clauses (not listed); else, or when fewer than a page hold one, as above.
            if !filtered {
                let again = || walk_sections(&searcher, &clauses, limits(any_word_when_every_at_most), &tweak).unwrap();
                let got = again().take_any_word_holding_a_required_clause(&searcher, &clauses, 11, &tweak).unwrap();
                let holding_one = BooleanQuery::new(vec![(Occur::Should, ranking()), (Occur::Must, union(required()))]);
                let (top, count) = expect(&any, 11);
                if any_word_when_every_at_most == Some(usize::MAX) {
                    same("any word, only ranking counted", &got, (expect(&holding_one, 11).0, count));
                    assert!(expect(&holding_one, 1).1 < count, "some sections hold only the ranking clause");
                } else {
                    same("any word, listed first", &got, (top, count));
                }
                let whole_page =
                    again().take_any_word_holding_a_required_clause(&searcher, &clauses, usize::MAX, &tweak);
                same("any word, a page not full", &whole_page.unwrap(), expect(&any, 11));
            }
            // The modes differ here, and each keeps fewer than it counts.
            let soft_count = walk.all_but_one.as_ref().unwrap().count;
            assert!(7 < walk.every_word.count && walk.every_word.count < soft_count && soft_count < any_word.count);
            // Each kept section says which required clauses it holds.
            for h in &walk.every_word.top {
                assert!((0..4).all(|i| h.holds(i)));
            }
            match &walk.sections_holding {
                Some(holding) => {
                    for (i, q) in required().iter().enumerate() {
                        assert_eq!(holding[i], searcher.search(q.as_ref(), &Count).unwrap() as u64, "clause {i}");
                    }
                }
                None => assert!(filtered),
            }
        }
    }
}
