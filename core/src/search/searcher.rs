//! The searcher: the in-memory search state of one store snapshot, answering
//! [`SearchRequest`]s exactly as SPEC §3 defines them.

use crate::index::haystacks::{FUZZY_TEXT, LITERAL_TEXT, TextCursor};
use crate::index::tokenize::literal_words;
use crate::index::{IndexEntry, RecordView, SEARCH_DOCS, each_memory_indexed};
use crate::schema::sealed::Sealed;
use crate::search::corpus::Corpus;
use crate::search::engine;
use crate::search::filter::CompiledFilters;
use crate::search::fuzzy::{Floor, Ranking};
use crate::search::histogram::{self, Histogram};
use crate::search::order;
use crate::search::request::{
    BrowseMode, Engine, Filters, Hit, MatchQuality, NumericField, Order, SearchRequest,
    SearchResponse,
};
use crate::store::tables::{MEMORIES, decode_doc};
use crate::store::{StoreError, StoreReader, StoreResult};
use redb::{ReadableTable, ReadableTableMetadata};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Everything search needs of one store snapshot, held in memory; cheap to share
/// through an `Arc` (it is `Send + Sync`).
pub struct Searcher {
    pub(crate) corpus: Corpus,
    /// The snapshot hits are read from when the searcher holds no copy of the memories.
    snapshot: Option<StoreReader>,
    /// The store file, for naming it when a memory cannot be read.
    path: std::path::PathBuf,
    pub(super) memo: Mutex<Option<Memo>>,
    /// The last filters asked for and what they keep: typing reuses them.
    pub(super) selection: Mutex<Option<(Filters, Arc<Selection>)>>,
    pub(super) permutations: Mutex<HashMap<PermutationKey, Arc<Vec<u32>>>>,
    /// Browse orders of the searcher this one updates, each with the slots whose place
    /// in it may have changed since: brought up to date on first need instead of
    /// sorted again.
    pub(super) inherited: Mutex<HashMap<PermutationKey, Inherited>>,
}

/// A browse order of an earlier searcher and the slots (ascending) that changed since.
pub(super) type Inherited = (Arc<Vec<u32>>, Arc<Vec<usize>>);

/// A browse order: the field sorted by (time when `None`) and the direction.
pub(super) type PermutationKey = (Option<NumericField>, Order);

/// Whether a search's matches seed the next query's (a page asked for) or not (the
/// whole order, computed to locate one memory in it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seeds {
    Keep,
    Skip,
}

/// The matches of the last literal (all words) or fuzzy query, to narrow the next one.
#[derive(Clone)]
pub(super) struct Memo {
    pub engine: Engine,
    pub filters: Filters,
    pub query: String,
    pub slots: Vec<u32>,
    /// The best fuzzy matches by relevance and their runners-up, when ranked: likely
    /// among the next query's best, they set its first floor.
    pub best: Vec<u32>,
}

/// What the last query leaves a new one that extends it.
pub(crate) struct Narrowed {
    /// A subset of the memories the filters keep that holds every new match.
    pub within: Vec<u32>,
    /// The last query's best matches by relevance (fuzzy), best first.
    pub seeds: Vec<u32>,
}

/// The memories a set of filters keeps.
pub(crate) struct Selection {
    /// Their slots, ascending.
    pub set: Vec<u32>,
    /// How many slots the corpus has.
    slots: usize,
    /// Whether each slot is kept, made on first need (a scan of the stored haystacks
    /// walks `set` alone).
    member: OnceLock<Vec<bool>>,
    /// Their summed BM25 lengths, computed on first need.
    length: OnceLock<u64>,
}

impl Selection {
    /// The memories of `set` (ascending slots of a corpus of `n`).
    pub(crate) fn of(set: Vec<u32>, n: usize) -> Selection {
        Selection {
            set,
            slots: n,
            member: OnceLock::new(),
            length: OnceLock::new(),
        }
    }

    /// Whether each slot of the corpus is kept.
    pub(crate) fn member(&self) -> &[bool] {
        self.member.get_or_init(|| {
            let mut member = vec![false; self.slots];
            for &s in &self.set {
                member[s as usize] = true;
            }
            member
        })
    }

    /// The summed BM25 lengths of the memories kept (avgdl's numerator).
    pub(crate) fn total_length(&self, c: &Corpus) -> u64 {
        *self.length.get_or_init(|| {
            self.set
                .iter()
                .map(|&s| u64::from(c.lengths[s as usize]))
                .sum()
        })
    }
}

/// An ordered answer before its page is cut and decoded.
pub(crate) struct Answer {
    pub total: usize,
    pub placed: Vec<order::Placed>,
    pub notice: Option<&'static str>,
    pub quality: Option<MatchQuality>,
    pub scored: bool,
}

pub(crate) fn storage(reader: &StoreReader, e: impl std::fmt::Display) -> StoreError {
    StoreError::of_storage(reader.path(), e)
}

pub(crate) fn corrupt(reader: &StoreReader, doc: u32) -> StoreError {
    StoreError::corrupt_record(reader.path(), doc)
}

/// Adds a memory from an index entry built from the memory itself (the whole load,
/// or a memory whose stored search record or haystacks are missing or damaged).
fn push_entry(
    corpus: &mut Corpus,
    reader: &StoreReader,
    doc: u32,
    raw: Option<&[u8]>,
    entry: &IndexEntry,
) -> StoreResult<()> {
    let view = RecordView::parse(entry.record()).ok_or_else(|| corrupt(reader, doc))?;
    corpus.push(doc, raw, &view, entry.text(), entry.term_section());
    Ok(())
}

/// Opens an index table of `reader`'s snapshot; `None` when the store has none.
fn index_table(
    reader: &StoreReader,
    table: redb::TableDefinition<u32, Sealed>,
) -> StoreResult<Option<redb::ReadOnlyTable<u32, Sealed>>> {
    reader.table_if_present(table)
}

/// How many memories an opening load reads between two calls of its `pause`.
const PAUSE_EVERY: usize = 4096;

impl Searcher {
    /// Builds the in-memory search state from a store snapshot, decoding and indexing
    /// every memory (the terms BM25 scans are in no stored table), so it needs no
    /// index table of the store; the searcher holds its own copy of every memory.
    pub fn load(reader: &StoreReader) -> StoreResult<Searcher> {
        let memories = reader.table(MEMORIES)?;
        let mut corpus = Corpus::new();
        each_memory_indexed(
            &memories,
            |e| storage(reader, e),
            |doc, raw, entry| {
                let entry = match entry {
                    Some(entry) => entry,
                    None => {
                        return Err(decode_doc(reader.path(), doc, raw)
                            .err()
                            .unwrap_or_else(|| corrupt(reader, doc)));
                    }
                };
                push_entry(&mut corpus, reader, doc, Some(raw), &entry)
            },
        )?;
        corpus.finish();
        Ok(Searcher::with(corpus, None, reader.path()).preselected())
    }

    /// Like [`Searcher::load`], but keeps the snapshot and reads the memories of each
    /// page of results from it instead of holding a copy of every memory: less to read
    /// when opening (the memories table is not scanned) and less memory while open.
    pub fn open(reader: StoreReader) -> StoreResult<Searcher> {
        Self::open_pausing(reader, &|| {})
    }

    /// [`Searcher::open`] calling `pause` every few thousand memories, where the load
    /// may wait for other work (the collection's requests answered meanwhile).
    pub fn open_pausing(reader: StoreReader, pause: &dyn Fn()) -> StoreResult<Searcher> {
        let Some(corpus) = Self::from_records(&reader, pause)? else {
            let mut s = Searcher::load(&reader)?;
            s.corpus.raw = Default::default();
            s.snapshot = Some(reader);
            return Ok(s);
        };
        let path = reader.path().to_path_buf();
        Ok(Searcher::with(corpus, Some(reader), &path).preselected())
    }

    /// The corpus from the search records alone; `None` when some memory has no record
    /// or the postings are not complete (a store written before its index existed, or
    /// by another version), so the full load must run.
    fn from_records(reader: &StoreReader, pause: &dyn Fn()) -> StoreResult<Option<Corpus>> {
        let memories = reader.table(MEMORIES)?;
        let Some(records) = index_table(reader, SEARCH_DOCS)? else {
            return Ok(None);
        };
        let (Some(literal), Some(fuzzy)) = (
            index_table(reader, LITERAL_TEXT)?,
            index_table(reader, FUZZY_TEXT)?,
        ) else {
            return Ok(None);
        };
        let mut texts = TextCursor::new(&literal, &fuzzy);
        let count = |len: Result<u64, redb::StorageError>| len.map_err(|e| storage(reader, e));
        if count(memories.len())? != count(records.len())? {
            return Ok(None);
        }
        // BM25 reads the persisted postings, so they must be complete
        if !reader.index_is_current()? {
            return Ok(None);
        }
        let mut corpus = Corpus::without_terms();
        for (n, entry) in records.iter().map_err(|e| storage(reader, e))?.enumerate() {
            if n % PAUSE_EVERY == PAUSE_EVERY - 1 {
                pause();
            }
            let (doc, record) = entry.map_err(|e| storage(reader, e))?;
            let doc = doc.value();
            let text = texts.text(doc).map_err(|e| storage(reader, e))?;
            let record = record.value().open(&doc).map_err(|e| storage(reader, e))?;
            match RecordView::parse(record).zip(text) {
                Some((view, text)) => corpus.push(doc, None, &view, text, &[]),
                None => {
                    let memory = reader.get_doc(doc)?.ok_or_else(|| corrupt(reader, doc))?;
                    push_entry(&mut corpus, reader, doc, None, &IndexEntry::of(&memory))?;
                }
            }
        }
        corpus.finish();
        Ok(Some(corpus))
    }

    /// The searcher with the memories the default filters keep already selected (and
    /// their summed lengths, BM25's avgdl), as a store's first search nearly always
    /// asks: part of opening, in the background, instead of the first keystroke's wait
    /// (15 ms at 1M memories).
    fn preselected(self) -> Searcher {
        let kept = self.select(&Filters::default());
        kept.total_length(&self.corpus);
        self
    }

    pub(crate) fn with(
        corpus: Corpus,
        snapshot: Option<StoreReader>,
        path: &std::path::Path,
    ) -> Searcher {
        Searcher {
            corpus,
            snapshot,
            path: path.to_path_buf(),
            memo: Mutex::new(None),
            selection: Mutex::new(None),
            permutations: Mutex::new(HashMap::new()),
            inherited: Mutex::new(HashMap::new()),
        }
    }

    /// Builds what is otherwise built on first need: the BM25 inverted index, the
    /// composite columns, and the order of every tab (4 bytes a memory each): time,
    /// density, rating (also Discovery's) and total significance (the Property tab's
    /// first field), so switching tabs never waits for a sort. Call it from a
    /// background thread after `load`; results never change, only their speed (BM25
    /// without the index scans every memory's terms).
    pub fn warm(&self) {
        self.warm_pausing(&|| {});
    }

    /// [`Searcher::warm`] calling `pause` between its steps.
    pub fn warm_pausing(&self, pause: &dyn Fn()) {
        if self.corpus.holds_terms {
            self.corpus.postings();
            pause();
        }
        self.corpus.composite_columns();
        for mode in [
            BrowseMode::Time,
            BrowseMode::Density,
            BrowseMode::Rating,
            BrowseMode::Significance,
        ] {
            pause();
            self.permutation(order::sort_field(mode), Order::Desc);
        }
    }

    /// The store snapshot the searcher reads hits (and, without terms, postings) from.
    pub(crate) fn snapshot(&self) -> Option<&StoreReader> {
        self.snapshot.as_ref()
    }

    /// True when hits are read from the kept snapshot ([`Searcher::open`]), false when
    /// the searcher holds its own copy of every memory ([`Searcher::load`]).
    pub fn reads_snapshot(&self) -> bool {
        self.snapshot.is_some()
    }

    /// Number of memories loaded (deleted included).
    pub fn len(&self) -> usize {
        self.corpus.len()
    }

    /// True when no memory is loaded.
    pub fn is_empty(&self) -> bool {
        self.corpus.len() == 0
    }

    /// Answers one request exactly as SPEC §3 defines it.
    pub fn search(&self, req: &SearchRequest) -> SearchResponse {
        self.answer(req).unwrap_or_else(|| SearchResponse {
            damage: Some(format!(
                "{}: a stored haystack cannot be read; run `memlens check --repair`",
                self.path.display()
            )),
            ..SearchResponse::default()
        })
    }

    /// [`Searcher::search`], or `None` when a searcher that holds no text could not
    /// read a stored haystack (the caller then answers from a loaded searcher).
    pub(crate) fn answer(&self, req: &SearchRequest) -> Option<SearchResponse> {
        self.answer_on(self.snapshot(), req)
    }

    /// [`Searcher::answer`] reading hits, postings and haystacks from `snapshot`.
    pub(crate) fn answer_on(
        &self,
        snapshot: Option<&StoreReader>,
        req: &SearchRequest,
    ) -> Option<SearchResponse> {
        self.answer_unless(snapshot, req, &crate::search::never)
    }

    /// [`Searcher::answer_on`] whose scan of stored haystacks stops between chunks once
    /// `stop` says so (then `None`, as when a haystack cannot be read).
    pub(crate) fn answer_unless(
        &self,
        snapshot: Option<&StoreReader>,
        req: &SearchRequest,
        stop: crate::search::Stop<'_>,
    ) -> Option<SearchResponse> {
        let upto = req.offset.saturating_add(req.limit);
        let answer = self.arrange_unless(snapshot, req, upto, stop, Seeds::Keep)?;
        Some(self.respond_on(snapshot, answer, req.offset, upto))
    }

    /// The position of the memory stored under `doc` in the whole list `req` gives
    /// (its offset and limit aside): where a selection kept on that memory is after
    /// the list changed. `Some(None)` when it is not among the matches; `None` when a
    /// stored haystack cannot be read.
    pub(crate) fn locate_on(
        &self,
        snapshot: Option<&StoreReader>,
        req: &SearchRequest,
        doc: u32,
    ) -> Option<Option<usize>> {
        let Some(slot) = self.corpus.docs.iter().position(|&d| d == doc) else {
            return Some(None);
        };
        // the whole order, not a page: no seed for the next query
        let never = &crate::search::never;
        let every = self.corpus.len();
        let answer = self.arrange_unless(snapshot, req, every, never, Seeds::Skip)?;
        let slot = slot as u32;
        Some(answer.placed.iter().position(|(m, _)| m.slot == slot))
    }

    /// The matches of `req` and the first `upto` of them in its order, or `None` as
    /// [`Searcher::answer_unless`]; `keep` says whether the matches seed the next
    /// query's.
    fn arrange_unless(
        &self,
        snapshot: Option<&StoreReader>,
        req: &SearchRequest,
        upto: usize,
        stop: crate::search::Stop<'_>,
        keep: Seeds,
    ) -> Option<Answer> {
        let c = &self.corpus;
        let selection = self.select(&req.filters);
        let set = &selection.set;
        // a corpus read for one request has no time ranks: memories created at the
        // same instant among the first `upto` are put in id order from the snapshot
        let by_id = |slots: &mut [u32]| {
            snapshot.is_some_and(|r| super::stored::sort_by_id(r, c, slots).is_ok())
        };
        let ids: Option<order::IdOrder<'_>> = Some(&by_id);
        if req.query.trim().is_empty() {
            let placed = if !c.stored_text {
                self.browse(selection.member(), req.mode, req.order, upto)
            } else {
                // one request over a corpus read for it: no order of the whole
                // collection is worth sorting and keeping
                let all = order::Matched::Slots(set.into());
                order::arrange(c, all, req.mode, req.order, false, upto, ids)?
            };
            return Some(Answer {
                total: set.len(),
                placed,
                notice: None,
                quality: None,
                scored: false,
            });
        }
        let narrowed = self.narrowed(req);
        let ranking = Ranking::of(req, upto);
        let seeds = narrowed.as_ref().map_or(&[][..], |n| &n.seeds);
        let floor = Floor::seeded(c, &req.query, seeds, ranking);
        let o = engine::run(
            c,
            &selection,
            narrowed.as_ref().map(|n| &n.within[..]),
            (req.engine, &req.query),
            snapshot,
            (ranking, &floor),
            stop,
        );
        if o.incomplete {
            return None;
        }
        if keep == Seeds::Keep {
            self.remember(req, &o);
        }
        Some(Answer {
            total: o.matches.len(),
            notice: o.notice,
            quality: o.quality,
            scored: o.scored,
            placed: o.place(c, req, ranking, upto, ids, snapshot)?,
        })
    }

    /// The store file the searcher was built from.
    pub(crate) fn store_path(&self) -> &std::path::Path {
        &self.path
    }

    /// The record numbers of every memory `req` finds — its filters and its query;
    /// mode, order, offset and limit do not apply —, ascending; `None` when a stored
    /// haystack cannot be read.
    pub(crate) fn matching_docs(
        &self,
        snapshot: Option<&StoreReader>,
        req: &SearchRequest,
    ) -> Option<Vec<u32>> {
        let c = &self.corpus;
        let selection = self.select(&req.filters);
        let mut docs: Vec<u32> = if req.query.trim().is_empty() {
            selection.set.iter().map(|&s| c.docs[s as usize]).collect()
        } else {
            let floor = Floor::default();
            let o = engine::run(
                c,
                &selection,
                None,
                (req.engine, &req.query),
                snapshot,
                (Ranking::Page, &floor),
                &crate::search::never,
            );
            if o.incomplete {
                return None;
            }
            o.matches.iter().map(|m| c.docs[m.slot as usize]).collect()
        };
        docs.sort_unstable();
        Some(docs)
    }

    /// What `filters` keep, reused while they stay the same, and picked out of the
    /// last filters' set when they only narrow it (a slider moved inwards).
    pub(crate) fn select(&self, filters: &Filters) -> Arc<Selection> {
        let mut wider = None;
        if let Ok(last) = self.selection.lock()
            && let Some((f, kept)) = last.as_ref()
        {
            if f == filters {
                return Arc::clone(kept);
            }
            if filters.narrows(f) {
                wider = Some(Arc::clone(kept));
            }
        }
        let c = &self.corpus;
        let compiled = CompiledFilters::new(c, filters, None);
        let set = match wider {
            Some(w) => compiled.select_within(c, &w.set),
            None => compiled.select(c),
        };
        let kept = Arc::new(Selection::of(set, c.len()));
        if let Ok(mut last) = self.selection.lock() {
            *last = Some((filters.clone(), Arc::clone(&kept)));
        }
        kept
    }

    /// The matches of the last literal or fuzzy query when the new request extends it
    /// (same engine and filters; for literal every old word inside a new word, for
    /// fuzzy the old query a prefix of the new one): every new match is among them.
    pub(crate) fn narrowed(&self, req: &SearchRequest) -> Option<Narrowed> {
        let memo = self.memo.lock().ok()?;
        let last = memo.as_ref()?;
        if last.engine != req.engine || last.filters != req.filters {
            return None;
        }
        let extends = match req.engine {
            Engine::Literal => {
                let new = literal_words(&req.query);
                literal_words(&last.query)
                    .iter()
                    .all(|old| new.iter().any(|w| w.contains(old.as_str())))
            }
            Engine::Fuzzy => req.query.starts_with(&last.query),
            Engine::Bm25 => false,
        };
        extends.then(|| Narrowed {
            within: last.slots.clone(),
            seeds: last.best.clone(),
        })
    }

    pub(crate) fn remember(&self, req: &SearchRequest, o: &engine::EngineOutcome) {
        // a corpus that reads its text from the store (kept between requests while the
        // index loads) keeps no matches: the next query would be seeded from text it
        // does not hold
        if self.corpus.stored_text {
            return;
        }
        let keep = match req.engine {
            Engine::Literal => o.quality == Some(MatchQuality::All),
            Engine::Fuzzy => true,
            Engine::Bm25 => false,
        };
        if let Ok(mut memo) = self.memo.lock() {
            *memo = keep.then(|| Memo {
                engine: req.engine,
                filters: req.filters.clone(),
                query: req.query.clone(),
                slots: o.matches.iter().map(|m| m.slot).collect(),
                best: o.best.iter().flatten().map(|m| m.slot).collect(),
            });
        }
    }

    /// Without a query: walks the collection in the mode's order (sorted once and
    /// kept), keeping the filtered memories, until the page is full.
    fn browse(
        &self,
        member: &[bool],
        mode: BrowseMode,
        order: Option<Order>,
        upto: usize,
    ) -> Vec<order::Placed> {
        let order = order.unwrap_or(Order::Desc);
        if mode == BrowseMode::Discovery {
            let c = &self.corpus;
            // both pools walked lazily: the interleave stops once the page is full
            let rated = self.permutation(Some(NumericField::RatingBayesian), order);
            let fresh = self.permutation(None, order);
            return order::interleave(
                order::pool(c, &rated, member, true),
                order::pool(c, &fresh, member, false),
                upto,
            );
        }
        let perm = self.permutation(order::sort_field(mode), order);
        perm.iter()
            .copied()
            .filter(|&s| member[s as usize])
            .take(upto)
            .map(|slot| (engine::Match { slot, score: 0.0 }, None))
            .collect()
    }

    /// The whole collection sorted by `field` (time when `None`), computed once.
    fn permutation(&self, field: Option<NumericField>, order: Order) -> Arc<Vec<u32>> {
        let key = (field, order);
        if let Ok(cache) = self.permutations.lock()
            && let Some(p) = cache.get(&key)
        {
            return Arc::clone(p);
        }
        let inherited = self.inherited.lock().ok().and_then(|mut i| i.remove(&key));
        let p = Arc::new(match inherited {
            Some((old, moved)) => order::repermuted(&self.corpus, &old, field, order, &moved),
            None => order::permutation(&self.corpus, field, order),
        });
        if let Ok(mut cache) = self.permutations.lock() {
            cache.insert(key, Arc::clone(&p));
        }
        p
    }

    pub(crate) fn respond(&self, answer: Answer, offset: usize, upto: usize) -> SearchResponse {
        self.respond_on(self.snapshot(), answer, offset, upto)
    }

    /// The page `offset..upto` of `answer`, its memories read from `snapshot` (or the
    /// searcher's own copy).
    fn respond_on(
        &self,
        snapshot: Option<&StoreReader>,
        answer: Answer,
        offset: usize,
        upto: usize,
    ) -> SearchResponse {
        let Answer {
            total,
            placed,
            notice,
            quality,
            scored,
        } = answer;
        let mut damage = None;
        let page: Vec<_> = placed
            .into_iter()
            .skip(offset)
            .take(upto.saturating_sub(offset))
            .collect();
        // a corpus read without relationship counts: the page's from the column
        let counts = match (self.corpus.relationship_count.len() == 0, snapshot) {
            (true, Some(reader)) if !page.is_empty() => {
                let docs: Vec<u32> = page
                    .iter()
                    .map(|(m, _)| self.corpus.docs[m.slot as usize])
                    .collect();
                super::stored::link_counts(reader, &docs).unwrap_or_else(|e| {
                    damage = Some(e.to_string());
                    Vec::new()
                })
            }
            _ => Vec::new(),
        };
        // every hit in its place as it is read (the store reads them in document
        // order), the page sized once: grown a doubling at a time, ten thousand
        // memories were copied (and their pages faulted in) about twice over
        let mut placed: Vec<Option<Hit>> =
            std::iter::repeat_with(|| None).take(page.len()).collect();
        self.each_memory(snapshot, &page, |at, read| match read {
            Ok(memory) => {
                let (m, is_discovery) = page[at];
                let count = self.corpus.relationship_count.get(m.slot as usize);
                placed[at] = Some(Hit {
                    memory,
                    relationship_count: count.or(counts.get(at)).copied().unwrap_or(0),
                    score: scored.then_some(m.score),
                    match_quality: quality,
                    is_discovery,
                });
            }
            Err(e) => {
                damage.get_or_insert_with(|| e.to_string());
            }
        });
        #[expect(
            clippy::filter_map_identity,
            reason = "collected in place; flatten() copies the page into a new vector (49 -> 68 MB with ten thousand hits)"
        )]
        let hits = placed.into_iter().filter_map(|hit| hit).collect();
        SearchResponse {
            total,
            hits,
            notice: notice.map(str::to_string),
            damage,
        }
    }

    /// Hands each memory of the page's slots to `each` with its place in the page: read
    /// from the snapshot (together, so that neighbours share their page reads) or from
    /// the searcher's copy.
    fn each_memory(
        &self,
        snapshot: Option<&StoreReader>,
        page: &[(engine::Match, Option<bool>)],
        mut each: impl FnMut(usize, StoreResult<crate::model::Memory>),
    ) {
        let docs: Vec<u32> = page
            .iter()
            .map(|(m, _)| self.corpus.docs[m.slot as usize])
            .collect();
        let Some(reader) = snapshot else {
            for (at, (m, _)) in page.iter().enumerate() {
                let raw = self.corpus.raw.get(m.slot as usize);
                each(at, decode_doc(&self.path, docs[at], raw));
            }
            return;
        };
        reader.each_doc(&docs, |at, memory| {
            let missing = || StoreError::corrupt_record(reader.path(), docs[at]);
            each(at, memory.and_then(|m| m.ok_or_else(missing)));
        });
    }

    /// Counts per bin of `field` over the memories that pass `filters` with the range on
    /// `field` itself ignored, plus how many the field's own range keeps.
    /// The other filters' set is the one the last search kept when `filters` hold no
    /// range on `field` (the usual slider: the panel asks for every slider's histogram
    /// under the same filters).
    pub fn histogram(&self, filters: &Filters, field: NumericField, bins: usize) -> Histogram {
        match self.histogram_unless(filters, field, bins, &crate::search::never) {
            Some(histogram) => histogram,
            None => unreachable!("a histogram that is never stopped is built"),
        }
    }

    /// [`Searcher::histogram`], stopping with `None` once `stop` says so between two
    /// parts of the memories it counts.
    pub fn histogram_unless(
        &self,
        filters: &Filters,
        field: NumericField,
        bins: usize,
        stop: crate::search::Stop<'_>,
    ) -> Option<Histogram> {
        let c = &self.corpus;
        let others = CompiledFilters::new(c, filters, Some(field));
        if !others.leaves_out_any() {
            let kept = self.select(filters);
            return histogram::build(c, &kept.set, kept.set.len(), field, bins, stop);
        }
        let set = others.select(c);
        let all = CompiledFilters::new(c, filters, None);
        let kept = engine::in_parts(set.len(), |range| {
            vec![
                set[range]
                    .iter()
                    .filter(|&&s| all.passes(c, s as usize))
                    .count(),
            ]
        });
        histogram::build(c, &set, kept.iter().sum(), field, bins, stop)
    }

    /// The distinct types, tags and modules of the loaded memories (deleted included),
    /// each sorted: the choices of the filter panel, without reading any memory.
    pub fn facet_names(&self) -> [Vec<String>; 3] {
        let c = &self.corpus;
        let used = |names: &crate::search::corpus::Names,
                    numbers: &mut dyn Iterator<Item = &u32>| {
            let mut seen = vec![false; names.numbers.len()];
            for &n in numbers {
                if let Some(s) = seen.get_mut(n as usize) {
                    *s = true;
                }
            }
            let mut out: Vec<String> = names
                .numbers
                .iter()
                .filter(|(_, n)| seen[**n as usize])
                .map(|(name, _)| name.to_string())
                .collect();
            out.sort_unstable();
            out
        };
        [
            used(&c.type_names, &mut c.types.iter()),
            used(&c.tag_names, &mut c.tags.iter()),
            used(&c.module_names, &mut c.module.iter()),
        ]
    }

    /// The browse mode a request is really ordered by (relevance without a query is time).
    pub fn effective_mode(req: &SearchRequest) -> BrowseMode {
        match req.mode {
            BrowseMode::Relevance if req.query.trim().is_empty() => BrowseMode::Time,
            m => m,
        }
    }
}
