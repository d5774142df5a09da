//! The library's front door: one [`Collection`] that every client calls — `memlens
//! search` and `get`, the browser, the headless test harness, and the agents' server —
//! with the policy behind it rather than in the callers:
//!
//! - **which index answers**: the in-memory [`Searcher`] once it is loaded, else the
//!   persisted index through the planner ([`crate::search::plan`]); both give the
//!   exact answer of SPEC §3, so a caller never chooses;
//! - **the background load** ([`LocalCollection::load_in_background`]), which a
//!   one-shot command never starts;
//! - **the incremental update after a write**, whichever process made it: the loaded
//!   searcher remembers the store's change number it holds, and the next search that
//!   finds the number moved brings it up to date with the memories the store's change
//!   log names ([`Searcher::apply`]) instead of reloading;
//! - **cancelling a superseded search** ([`Collection::search_unless`]): a scan asks
//!   between its chunks whether a newer request arrived and stops; a search that runs
//!   to its end is exact.
//!
//! Every method is a plain synchronous call, safe from any thread (the collection is
//! `Send + Sync`; share it in an `Arc`). A tool server wraps it in one function per
//! tool:
//!
//! ```no_run
//! use memlens::collection::{Collection, LocalCollection};
//! use memlens::search::SearchRequest;
//! let memories = LocalCollection::open(std::path::Path::new("memories.redb"))?;
//! let page = memories.search(&SearchRequest { query: "cache".into(), ..Default::default() })?;
//! for hit in &page.hits {
//!     println!("{} {}", hit.memory.id, hit.memory.title.as_deref().unwrap_or(""));
//! }
//! # Ok::<(), memlens::collection::CollectionError>(())
//! ```

use crate::curate::{Applied, Change, CurateError, UndoStack};
use crate::model::{Memory, Timestamp};
use crate::review::request as review;
use crate::review::{LiveReview, ReviewOptions, ReviewPage, ReviewRequest};
use crate::search::plan::{self, Index};
use crate::search::random;
use crate::search::{Filters, Histogram, NumericField, SearchRequest, SearchResponse, Searcher};
use crate::store::{Since, Store, StoreError, StoreReader};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

/// Why a collection call failed. Nothing is written when one is returned.
#[derive(Debug, thiserror::Error)]
pub enum CollectionError {
    /// The store could not be read or written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A change was refused.
    #[error(transparent)]
    Curate(#[from] CurateError),
    /// A stored memory or index value is damaged (the message names it).
    #[error("{0}")]
    Damaged(String),
    /// The collection was opened on a read-only snapshot.
    #[error("this collection is a read-only snapshot; open the store to change it")]
    ReadOnly,
}

/// Result of a collection call.
pub type CollectionResult<T> = Result<T, CollectionError>;

/// What changed in a collection, sent to every subscriber after a change is durable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
    /// The ids of the memories the change wrote (created, edited, linked or purged).
    pub ids: Vec<String>,
}

/// Memories to search, read and curate: the interface every client uses. Other
/// backends (a remote team store, a semantic engine) implement the same calls.
pub trait Collection: Send + Sync {
    /// Answers a request exactly (SPEC §3): any engine, filters, mode, order, offset and
    /// limit.
    fn search(&self, request: &SearchRequest) -> CollectionResult<SearchResponse>;

    /// [`Collection::search`], stopping early with `Ok(None)` once `superseded` says a
    /// newer request made this one pointless. An answer it returns is exact.
    fn search_unless(
        &self,
        request: &SearchRequest,
        superseded: &dyn Fn() -> bool,
    ) -> CollectionResult<Option<SearchResponse>> {
        if superseded() {
            return Ok(None);
        }
        self.search(request).map(Some)
    }

    /// A uniform sample of `request.limit` memories of everything `request` finds (its
    /// filters and query), drawn with `seed`; `total` is the size of the set drawn from.
    fn sample(&self, request: &SearchRequest, seed: u64) -> CollectionResult<SearchResponse>;

    /// The distribution of `field` over what `filters` keep (the field's own range left
    /// out) in `bins` bins, with how many its range keeps: a slider of the filter panel.
    fn histogram(
        &self,
        filters: &Filters,
        field: NumericField,
        bins: usize,
    ) -> CollectionResult<Histogram>;

    /// The distinct types, tags and modules, each sorted: the filter panel's choices.
    fn facet_names(&self) -> CollectionResult<[Vec<String>; 3]>;

    /// One memory by id.
    fn get(&self, id: &str) -> CollectionResult<Option<Memory>>;

    /// One page of a review queue (approval, pending, agent, stale, duplicates,
    /// conflicts), narrowed to what a search finds, with every queue's count: the
    /// lists `memlens review`, the browser's Review tab and the agents' server show.
    fn review(&self, request: &ReviewRequest) -> CollectionResult<ReviewPage>;

    /// Applies one change (the `curate` [`Change`] the CLI and the browser send) and
    /// keeps it for [`Collection::undo`].
    fn apply(&self, change: &Change) -> CollectionResult<Applied>;

    /// Undoes the newest change not yet undone.
    fn undo(&self) -> CollectionResult<Applied>;

    /// Applies again the newest change undone.
    fn redo(&self) -> CollectionResult<Applied>;

    /// A channel that receives a [`Changed`] after every change made through this
    /// collection.
    fn subscribe(&self) -> Receiver<Changed>;
}

/// Where a local collection's memories live.
enum Backing {
    /// A store open for reading and writing.
    Store(Arc<Store>),
    /// One read-only snapshot (a one-shot command's).
    Snapshot(StoreReader),
}

/// A [`Collection`] over one redb file on this machine.
pub struct LocalCollection {
    backing: Backing,
    /// The in-memory searcher, once loaded.
    loaded: RwLock<Option<Arc<Searcher>>>,
    /// The store's change number the loaded searcher holds.
    held: AtomicU64,
    history: Mutex<UndoStack>,
    subscribers: Mutex<Vec<Sender<Changed>>>,
    /// The review queues, kept current from the change log once listed.
    reviews: Mutex<Option<LiveReview>>,
}

impl LocalCollection {
    /// The collection of the store at `path`, opened for reading and writing (created
    /// when absent).
    pub fn open(path: &Path) -> CollectionResult<LocalCollection> {
        Ok(LocalCollection::over(Arc::new(Store::open(path)?)))
    }

    /// The collection of an open store.
    pub fn over(store: Arc<Store>) -> LocalCollection {
        LocalCollection::with(Backing::Store(store))
    }

    /// A read-only collection of one snapshot: searches and reads, no changes.
    pub fn snapshot(reader: StoreReader) -> LocalCollection {
        LocalCollection::with(Backing::Snapshot(reader))
    }

    fn with(backing: Backing) -> LocalCollection {
        LocalCollection {
            backing,
            loaded: RwLock::new(None),
            held: AtomicU64::new(0),
            history: Mutex::new(UndoStack::default()),
            subscribers: Mutex::new(Vec::new()),
            reviews: Mutex::new(None),
        }
    }

    /// The store, when the collection can write.
    pub fn store(&self) -> Option<&Arc<Store>> {
        match &self.backing {
            Backing::Store(store) => Some(store),
            Backing::Snapshot(_) => None,
        }
    }

    /// A new snapshot of the memories as they are now (of a read-only collection too:
    /// its store as it is now).
    pub fn reader(&self) -> CollectionResult<StoreReader> {
        Ok(match &self.backing {
            Backing::Snapshot(reader) => reader.again()?,
            Backing::Store(store) => store.read()?,
        })
    }

    /// True once the in-memory searcher answers.
    pub fn is_loaded(&self) -> bool {
        self.loaded
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    /// Loads the in-memory searcher now (and builds its caches): every later request is
    /// answered from memory. Until then the persisted index answers, exactly as well.
    pub fn load(&self) -> CollectionResult<()> {
        let Backing::Store(store) = &self.backing else {
            return Ok(());
        };
        let reader = store.read()?;
        let held = reader.change_number()?;
        let searcher = Searcher::open(reader)?;
        searcher.warm();
        self.hold(searcher, held);
        Ok(())
    }

    /// [`LocalCollection::load`] on a thread of its own.
    pub fn load_in_background(self: &Arc<Self>) -> std::thread::JoinHandle<CollectionResult<()>> {
        let me = Arc::clone(self);
        std::thread::spawn(move || me.load())
    }

    /// Makes `searcher`, which holds change `held` of the store, the one that answers.
    fn hold(&self, searcher: Searcher, held: u64) -> Arc<Searcher> {
        let searcher = Arc::new(searcher);
        *self.loaded.write().unwrap_or_else(PoisonError::into_inner) = Some(Arc::clone(&searcher));
        self.held.store(held, Ordering::Relaxed);
        searcher
    }

    /// The loaded searcher brought up to date with the writes any process made since
    /// it was built, or `None` while it is not loaded.
    fn current(&self) -> CollectionResult<Option<Arc<Searcher>>> {
        let Some(searcher) = self
            .loaded
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
        else {
            return Ok(None);
        };
        let Backing::Store(store) = &self.backing else {
            return Ok(Some(searcher));
        };
        let reader = store.read()?;
        let now = reader.change_number()?;
        let held = self.held.load(Ordering::Relaxed);
        if now == held {
            return Ok(Some(searcher));
        }
        let fresh = match reader.changes_since(held)? {
            Since::Nothing => return Ok(Some(searcher)),
            Since::Ids(ids) => searcher.apply(reader, &ids)?,
            Since::Everything => Searcher::open(reader)?,
        };
        Ok(Some(self.hold(fresh, now)))
    }

    /// [`Collection::review`] with the clock given (the stale queue depends on it).
    pub fn review_at(
        &self,
        request: &ReviewRequest,
        now: Timestamp,
    ) -> CollectionResult<ReviewPage> {
        let matching = match request.narrows() {
            true => Some(self.with_index(|index| Ok(plan::matching(index, &request.narrow)?))?),
            false => None,
        };
        // read after the search: the snapshot holds at least what it found
        let reader = self.reader()?;
        let options = ReviewOptions {
            now,
            root: request.root.clone(),
        };
        let mut kept = self.reviews.lock().unwrap_or_else(PoisonError::into_inner);
        let review = LiveReview::current(&mut kept, &reader, &options)?;
        Ok(review::page(&reader, review, request, matching.as_deref())?)
    }

    /// Runs `f` on the index that answers now: the loaded searcher, else a snapshot.
    fn with_index<T>(
        &self,
        f: impl FnOnce(Index<'_>) -> CollectionResult<T>,
    ) -> CollectionResult<T> {
        if let Some(searcher) = self.current()? {
            return f(Index::Loaded(&searcher));
        }
        match &self.backing {
            Backing::Snapshot(reader) => f(Index::Stored(reader)),
            Backing::Store(store) => f(Index::Stored(&store.read()?)),
        }
    }

    /// Tells the subscribers what a change wrote (the next search reads it from the
    /// store's change log).
    fn changed(&self, applied: &Applied) {
        let ids: Vec<String> = applied.changed().iter().map(|e| e.id.clone()).collect();
        if ids.is_empty() {
            return;
        }
        let mut subscribers = self
            .subscribers
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        subscribers.retain(|s| s.send(Changed { ids: ids.clone() }).is_ok());
    }

    /// Runs a change on the store's history and notes it.
    fn curate(
        &self,
        f: impl FnOnce(&mut UndoStack, &Store) -> Result<Applied, CurateError>,
    ) -> CollectionResult<Applied> {
        let Backing::Store(store) = &self.backing else {
            return Err(CollectionError::ReadOnly);
        };
        let applied = {
            let mut history = self.history.lock().unwrap_or_else(PoisonError::into_inner);
            f(&mut history, store)?
        };
        self.changed(&applied);
        Ok(applied)
    }
}

/// A response that names damage is an error for a caller of the library.
fn exact(mut resp: SearchResponse) -> CollectionResult<SearchResponse> {
    match resp.damage.take() {
        Some(damage) => Err(CollectionError::Damaged(damage)),
        None => Ok(resp),
    }
}

impl Collection for LocalCollection {
    fn search(&self, request: &SearchRequest) -> CollectionResult<SearchResponse> {
        self.with_index(|index| exact(plan::answer(index, request)?))
    }

    fn search_unless(
        &self,
        request: &SearchRequest,
        superseded: &dyn Fn() -> bool,
    ) -> CollectionResult<Option<SearchResponse>> {
        if superseded() {
            return Ok(None);
        }
        match self.current()? {
            // scans stop between their chunks
            Some(searcher) => searcher
                .search_progressive(request, PROGRESS_CHUNK, &mut |_| !superseded())
                .map(exact)
                .transpose(),
            // the persisted index answers whole; a newer request waits at most for it
            None => self.search(request).map(Some),
        }
    }

    fn sample(&self, request: &SearchRequest, seed: u64) -> CollectionResult<SearchResponse> {
        let resp = match self.current()? {
            Some(searcher) => random::sample(&searcher, request, seed),
            // drawing needs every match in memory: a searcher of this snapshot only
            None => random::sample(&Searcher::open(self.reader()?)?, request, seed),
        };
        exact(resp)
    }

    fn histogram(
        &self,
        filters: &Filters,
        field: NumericField,
        bins: usize,
    ) -> CollectionResult<Histogram> {
        self.with_index(|index| Ok(plan::histogram(index, filters, field, bins)?))
    }

    fn facet_names(&self) -> CollectionResult<[Vec<String>; 3]> {
        self.with_index(|index| Ok(plan::facet_names(index)?))
    }

    fn get(&self, id: &str) -> CollectionResult<Option<Memory>> {
        Ok(match &self.backing {
            Backing::Snapshot(reader) => reader.get(id)?,
            Backing::Store(store) => store.read()?.get(id)?,
        })
    }

    fn review(&self, request: &ReviewRequest) -> CollectionResult<ReviewPage> {
        self.review_at(request, Timestamp::now())
    }

    fn apply(&self, change: &Change) -> CollectionResult<Applied> {
        self.curate(|history, store| history.apply(store, change))
    }

    fn undo(&self) -> CollectionResult<Applied> {
        self.curate(|history, store| history.undo(store))
    }

    fn redo(&self) -> CollectionResult<Applied> {
        self.curate(|history, store| history.redo(store))
    }

    fn subscribe(&self) -> Receiver<Changed> {
        let (tx, rx) = channel();
        self.subscribers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(tx);
        rx
    }
}

/// Memories a cancellable scan checks between (the first chunk; later ones grow).
const PROGRESS_CHUNK: usize = 16_384;
