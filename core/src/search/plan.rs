//! The planner: one entry that answers every [`SearchRequest`] exactly, whatever its
//! engine, filters, mode, order, offset and limit, from whichever index is there.
//!
//! - [`Index::Loaded`]: the in-memory [`Searcher`] (every column, the haystacks and
//!   the orders of the tabs in memory), once a background load has built it.
//! - [`Index::Stored`]: a store snapshot alone. The request's columns are read from
//!   the persisted index (the facts, the per-field columns of the fields it filters
//!   or sorts by, the backlinks when it needs relationship counts), BM25 reads the
//!   postings, literal and fuzzy the haystack chunks, and only the page's memories
//!   are decoded. When the stored index cannot answer (written by another version,
//!   or damaged), the store is loaded for the request instead: the answer is the
//!   same, only slower.
//!
//! - [`Index::Kept`]: a snapshot, with the corpus the last such request read kept for
//!   the next ([`KeptCorpus`]): only the columns a request adds are read.
//!
//! All run the same filter, engine, order and page code (`Searcher::answer_on`), so
//! they agree by construction; `tests/search_plan.rs` holds them to each other.

use crate::search::histogram::Histogram;
use crate::search::kept::{KeptCorpus, with_searcher};
use crate::search::request::{NumericField, SearchRequest, SearchResponse};
use crate::search::searcher::Searcher;
use crate::search::stored::{self, Needs};
use crate::search::{Filters, Stop};
use crate::store::{StoreError, StoreReader, StoreResult};

/// Where a request is answered from.
#[derive(Clone, Copy)]
pub enum Index<'a> {
    /// The in-memory searcher.
    Loaded(&'a Searcher),
    /// The persisted index of a snapshot.
    Stored(&'a StoreReader),
    /// The persisted index of a snapshot, with what earlier requests on the same change
    /// of the store read from it.
    Kept(&'a StoreReader, &'a KeptCorpus),
}

/// The two ways an [`Index`] answers.
enum Source<'a> {
    /// The in-memory searcher.
    Memory(&'a Searcher),
    /// The persisted index of a snapshot, and what is kept of it between requests.
    Persisted(&'a StoreReader, Option<&'a KeptCorpus>),
}

impl<'a> Index<'a> {
    fn source(self) -> Source<'a> {
        match self {
            Index::Loaded(searcher) => Source::Memory(searcher),
            Index::Stored(reader) => Source::Persisted(reader, None),
            Index::Kept(reader, kept) => Source::Persisted(reader, Some(kept)),
        }
    }
}

/// Runs `f` on a searcher over a corpus of `reader` holding what `needs` asks for, kept
/// in `kept` when there is one; `None` when the persisted index cannot answer, or when
/// `stop` said so while the kept corpus read a column.
fn on_stored<T>(
    reader: &StoreReader,
    kept: Option<&KeptCorpus>,
    needs: &Needs,
    stop: Stop<'_>,
    f: impl FnOnce(&Searcher) -> T,
) -> StoreResult<Option<T>> {
    with_searcher(kept, reader, needs, stop, f)
}

/// Answers `req` exactly (SPEC §3) from `index`.
pub fn answer(index: Index<'_>, req: &SearchRequest) -> StoreResult<SearchResponse> {
    let never: Stop<'_> = &crate::search::never;
    match answer_unless(index, req, never)? {
        Some(resp) => Ok(resp),
        None => unreachable!("a scan that is never stopped answers"),
    }
}

/// [`answer`], whose scan of the persisted haystacks stops between their chunks once
/// `stop` says so: then `None` (a newer request supersedes this one). The in-memory
/// searcher answers whole here (its own scans stop through
/// [`Searcher::search_progressive`]).
pub fn answer_unless(
    index: Index<'_>,
    req: &SearchRequest,
    stop: Stop<'_>,
) -> StoreResult<Option<SearchResponse>> {
    let (reader, kept) = match index.source() {
        Source::Memory(searcher) => return Ok(Some(searcher.search(req))),
        Source::Persisted(reader, kept) => (reader, kept),
    };
    match answer_stored(reader, kept, req, stop)? {
        Some(resp) => Ok(Some(resp)),
        // stopped, not damaged: nothing to answer, and no reason to load the store
        None if stop() => Ok(None),
        None => Ok(Some(Searcher::load(reader)?.search(req))),
    }
}

/// Answers `req` from the persisted index of `reader` alone; `None` when that index
/// cannot answer (not current, or a stored value is damaged).
pub fn from_stored(
    reader: &StoreReader,
    req: &SearchRequest,
) -> StoreResult<Option<SearchResponse>> {
    answer_stored(reader, None, req, &crate::search::never)
}

/// [`from_stored`], reading the corpus into `kept` when there is one.
fn answer_stored(
    reader: &StoreReader,
    kept: Option<&KeptCorpus>,
    req: &SearchRequest,
    stop: Stop<'_>,
) -> StoreResult<Option<SearchResponse>> {
    if let Some(answer) = bm25_among_postings(reader, req)? {
        return Ok(Some(answer));
    }
    if let Some(answer) = literal_among_postings(reader, req)? {
        return Ok(Some(answer));
    }
    let mut needs = Needs::default();
    needs.filters(&req.filters);
    needs.mode(Searcher::effective_mode(req));
    needs.engine(req);
    Ok(on_stored(reader, kept, &needs, stop, |searcher| {
        searcher.answer_unless(Some(reader), req, stop)
    })?
    .flatten())
}

/// A BM25 query under the default filters, in any mode and order: its postings name
/// every memory it can find, so only their facts and columns are read, with N and
/// avgdl from the stored totals (the default filters' set, as the whole corpus gives
/// them); every mode orders the matches by their own fields. `None` for any other
/// request, without totals, or when BM25 finds nothing there (the literal fallback
/// searches every memory).
fn bm25_among_postings(
    reader: &StoreReader,
    req: &SearchRequest,
) -> StoreResult<Option<SearchResponse>> {
    use crate::index::facts::Totals;
    use crate::search::request::{DeletedFilter, Engine};
    let defaults = Filters {
        deleted: req.filters.deleted,
        ..Filters::default()
    };
    if req.engine != Engine::Bm25 || req.query.trim().is_empty() || req.filters != defaults {
        return Ok(None);
    }
    let Some(meta) = reader.table_if_present(crate::store::tables::META)? else {
        return Ok(None);
    };
    let totals = Totals::read(&meta).map_err(|e| StoreError::of_storage(reader.path(), e))?;
    let Some(t) = totals else {
        return Ok(None);
    };
    let (n, total) = match req.filters.deleted {
        DeletedFilter::Exclude => (t.live, t.live_length),
        DeletedFilter::Only => (t.deleted, t.deleted_length),
        DeletedFilter::Include => (t.live + t.deleted, t.live_length + t.deleted_length),
    };
    let terms = crate::index::tokenize::query_tokens(&req.query);
    let Some(lists) = crate::search::bm25::read_persisted(reader, &terms) else {
        return Ok(None);
    };
    let mut docs: Vec<u32> = lists.iter().flatten().map(|&(doc, _)| doc).collect();
    docs.sort_unstable();
    docs.dedup();
    if n == 0 || docs.is_empty() {
        return Ok(None);
    }
    let mut needs = Needs::default();
    needs.filters(&req.filters);
    needs.mode(Searcher::effective_mode(req));
    needs.engine(req);
    let Some(mut corpus) = stored::load_docs(reader, &needs, &docs)? else {
        return Ok(None);
    };
    corpus.bm25_totals = Some((n, total));
    let answer = Searcher::with(corpus, None, reader.path()).answer_on(Some(reader), req);
    Ok(answer.filter(|a| a.total > 0 && a.notice.is_none() && a.damage.is_none()))
}

/// A literal query whose words the postings answer (`literal_postings`): the memories
/// holding any of its words are all it can show, whatever the filters and the mode,
/// so only their facts and columns are read. `None` for any other request, or when the
/// request filters by tags (which this corpus does not read).
fn literal_among_postings(
    reader: &StoreReader,
    req: &SearchRequest,
) -> StoreResult<Option<SearchResponse>> {
    use crate::search::request::Engine;
    if req.engine != Engine::Literal || req.query.trim().is_empty() {
        return Ok(None);
    }
    let words = crate::index::tokenize::literal_words(&req.query);
    let Some(holding) = crate::search::literal_postings::word_docs(reader, &words) else {
        return Ok(None);
    };
    let mut docs = holding.concat();
    docs.sort_unstable();
    docs.dedup();
    if docs.is_empty() {
        // no memory holds any of the words: nothing to show, and nothing to say
        return Ok(Some(SearchResponse::default()));
    }
    let mut needs = Needs::default();
    needs.filters(&req.filters);
    needs.mode(Searcher::effective_mode(req));
    needs.engine(req);
    let Some(mut corpus) = stored::load_docs(reader, &needs, &docs)? else {
        return Ok(None);
    };
    corpus.literal_word_docs = Some(holding);
    Ok(Searcher::with(corpus, None, reader.path()).answer_on(Some(reader), req))
}

/// The record numbers of every memory `req` finds (its filters and query; mode,
/// order, offset and limit do not apply), ascending, from `index`: what narrows a
/// review queue to a search.
pub fn matching(index: Index<'_>, req: &SearchRequest) -> StoreResult<Vec<u32>> {
    let mode = crate::search::BrowseMode::Time;
    on_any(index, req, mode, |searcher, snapshot| {
        searcher.matching_docs(snapshot, req)
    })
}

/// The position of the memory stored under `doc` in the whole list `req` gives (its
/// offset and limit aside), from `index`; `None` when it is not among the matches.
pub fn locate(index: Index<'_>, req: &SearchRequest, doc: u32) -> StoreResult<Option<usize>> {
    let mode = Searcher::effective_mode(req);
    on_any(index, req, mode, |searcher, snapshot| {
        searcher.locate_on(snapshot, req, doc)
    })
}

/// `f` on the searcher that answers `req` (its filters, its engine and `mode`) from
/// `index` with the snapshot it reads: the loaded one, else one over the persisted
/// index, else the store loaded whole. `f` answers `None` when a stored haystack cannot
/// be read.
fn on_any<T>(
    index: Index<'_>,
    req: &SearchRequest,
    mode: crate::search::BrowseMode,
    f: impl Fn(&Searcher, Option<&StoreReader>) -> Option<T>,
) -> StoreResult<T> {
    let (reader, kept) = match index.source() {
        Source::Memory(searcher) => {
            return f(searcher, searcher.snapshot())
                .ok_or_else(|| haystack_damage(searcher.store_path()));
        }
        Source::Persisted(reader, kept) => (reader, kept),
    };
    let mut needs = Needs::default();
    needs.filters(&req.filters);
    needs.mode(mode);
    needs.engine(req);
    let found = on_stored(reader, kept, &needs, &crate::search::never, |searcher| {
        f(searcher, Some(reader))
    })?
    .flatten();
    match found {
        Some(found) => Ok(found),
        None => {
            f(&Searcher::load(reader)?, Some(reader)).ok_or_else(|| haystack_damage(reader.path()))
        }
    }
}

/// The histogram of `field` over what `filters` keep (its own range left out), from
/// `index`: the filter panel's slider.
pub fn histogram(
    index: Index<'_>,
    filters: &Filters,
    field: NumericField,
    bins: usize,
) -> StoreResult<Histogram> {
    match histogram_unless(index, filters, field, bins, &crate::search::never)? {
        Some(histogram) => Ok(histogram),
        None => unreachable!("a histogram that is never stopped is built"),
    }
}

/// [`histogram`], which stops once `stop` says so (between two chunks of the column it
/// reads, or of the memories it counts): then `None`, and a corpus kept for the
/// requests stays as it was. A slider's histogram gives way to a search this way.
pub fn histogram_unless(
    index: Index<'_>,
    filters: &Filters,
    field: NumericField,
    bins: usize,
    stop: Stop<'_>,
) -> StoreResult<Option<Histogram>> {
    let (reader, kept) = match index.source() {
        Source::Memory(searcher) => {
            return Ok(searcher.histogram_unless(filters, field, bins, stop));
        }
        Source::Persisted(reader, kept) => (reader, kept),
    };
    if stop() {
        return Ok(None);
    }
    let mut needs = Needs::default();
    needs.filters(filters);
    needs.numeric(field);
    match on_stored(reader, kept, &needs, stop, |s| {
        s.histogram_unless(filters, field, bins, stop)
    })? {
        Some(histogram) => Ok(histogram),
        None if stop() => Ok(None),
        None => Ok(Searcher::load(reader)?.histogram_unless(filters, field, bins, stop)),
    }
}

/// The distinct types, tags and modules (each sorted): the filter panel's choices.
pub fn facet_names(index: Index<'_>) -> StoreResult<[Vec<String>; 3]> {
    let (reader, kept) = match index.source() {
        Source::Memory(searcher) => return Ok(searcher.facet_names()),
        Source::Persisted(reader, kept) => (reader, kept),
    };
    let mut needs = Needs::default();
    needs.facets();
    match on_stored(
        reader,
        kept,
        &needs,
        &crate::search::never,
        Searcher::facet_names,
    )? {
        Some(names) => Ok(names),
        None => Ok(Searcher::load(reader)?.facet_names()),
    }
}

/// The error of a request that found a stored haystack it cannot read.
fn haystack_damage(path: &std::path::Path) -> StoreError {
    StoreError::of_storage(
        path,
        "a stored haystack cannot be read; run `memlens check --repair`",
    )
}
