//! [`LocalCollection`]: the [`Collection`] over one redb file on this machine.

use super::gate::Gate;
use super::{Changed, Collection, CollectionError, CollectionResult, Detail, History};
use crate::curate::{Applied, Change, CurateError, UndoStack, track_read};
use crate::model::{Memory, Timestamp};
use crate::project::Project;
use crate::project::sync::{self, Synced};
use crate::review::request as review;
use crate::review::{LiveReview, ReviewOptions, ReviewPage, ReviewRequest};
use crate::search::plan::{self, Index};
use crate::search::random;
use crate::search::{
    Filters, Histogram, KeptCorpus, NumericField, SearchRequest, SearchResponse, Searcher,
};
use crate::store::{Since, Store, StoreReader};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Condvar, Mutex, PoisonError, RwLock};

/// Where a local collection's memories live.
enum Backing {
    /// A store open for reading and writing.
    Store(Arc<Store>),
    /// One read-only snapshot (a one-shot command's).
    Snapshot(Box<StoreReader>),
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
    /// Loads under way; a random draw waits for them rather than load a second
    /// searcher of its own.
    loading: Mutex<usize>,
    loaded_now: Condvar,
    /// Requests answered from the persisted index, which the load steps aside for.
    gate: Gate,
    /// What those requests read, kept for the next one until the load ends.
    kept: KeptCorpus,
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
        LocalCollection::with(Backing::Snapshot(Box::new(reader)))
    }

    fn with(backing: Backing) -> LocalCollection {
        LocalCollection {
            backing,
            loaded: RwLock::new(None),
            held: AtomicU64::new(0),
            history: Mutex::new(UndoStack::default()),
            subscribers: Mutex::new(Vec::new()),
            reviews: Mutex::new(None),
            loading: Mutex::new(0),
            loaded_now: Condvar::new(),
            gate: Gate::default(),
            kept: KeptCorpus::default(),
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

    /// Loads the in-memory searcher of the store as it is now and makes it the one
    /// that answers (a read-only snapshot stays on its persisted index). The load runs
    /// at the lowest priority, pausing between its steps while a request is answered.
    fn load_now(&self) -> CollectionResult<()> {
        let Backing::Store(store) = &self.backing else {
            return Ok(());
        };
        crate::allocator::map_large_blocks();
        let reader = store.read()?;
        let held = reader.change_number()?;
        let pause = || self.gate.pause();
        let searcher = crate::parallel::in_the_background(|| {
            let searcher = Searcher::open_pausing(reader, &pause)?;
            searcher.warm_pausing(&pause);
            CollectionResult::Ok(searcher)
        })?;
        self.hold(searcher, held);
        crate::allocator::release_freed();
        Ok(())
    }

    /// Waits for the loads under way to end.
    fn wait_for_loads(&self) {
        let loading = self.loading.lock().unwrap_or_else(PoisonError::into_inner);
        let _done = self
            .loaded_now
            .wait_while(loading, |n| *n > 0)
            .unwrap_or_else(PoisonError::into_inner);
    }

    /// [`Collection::load`] on a thread of its own.
    pub fn load_in_background(self: &Arc<Self>) -> std::thread::JoinHandle<CollectionResult<()>> {
        let me = Arc::clone(self);
        std::thread::spawn(move || Collection::load(me.as_ref()))
    }

    /// Makes `searcher`, which holds change `held` of the store, the one that answers.
    fn hold(&self, searcher: Searcher, held: u64) -> Arc<Searcher> {
        let searcher = Arc::new(searcher);
        *self.loaded.write().unwrap_or_else(PoisonError::into_inner) = Some(Arc::clone(&searcher));
        self.held.store(held, Ordering::Relaxed);
        self.kept.clear();
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
            true => {
                let narrow = request.narrowing_search();
                Some(self.with_index(|index| Ok(plan::matching(index, &narrow)?))?)
            }
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
        let _answering = self.gate.answering();
        match &self.backing {
            Backing::Snapshot(reader) => f(Index::Stored(reader)),
            Backing::Store(store) => {
                let answer = f(Index::Kept(&store.read()?, &self.kept));
                if self.is_loaded() {
                    // the load ended meanwhile: nothing will read the kept corpus again
                    self.kept.clear();
                }
                answer
            }
        }
    }

    /// Tells the subscribers what a change wrote (the next search reads it from the
    /// store's change log).
    fn changed(&self, applied: &Applied) {
        self.tell(applied.changed().iter().map(|e| e.id.clone()).collect());
    }

    /// Tells the subscribers that the memories `ids` were written.
    fn tell(&self, ids: Vec<String>) {
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
        superseded: crate::search::Stop<'_>,
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
            // so does a scan of the persisted haystacks
            None => self.with_index(|index| {
                plan::answer_unless(index, request, superseded)?
                    .map(exact)
                    .transpose()
            }),
        }
    }

    fn sample(&self, request: &SearchRequest, seed: u64) -> CollectionResult<SearchResponse> {
        if !self.is_loaded() {
            self.wait_for_loads();
        }
        let resp = match self.current()? {
            Some(searcher) => random::sample(&searcher, request, seed),
            // drawing needs every match in memory: a searcher of this snapshot only
            None => random::sample(&Searcher::open(self.reader()?)?, request, seed),
        };
        exact(resp)
    }

    fn histogram_unless(
        &self,
        filters: &Filters,
        field: NumericField,
        bins: usize,
        superseded: crate::search::Stop<'_>,
    ) -> CollectionResult<Option<Histogram>> {
        self.with_index(|index| {
            Ok(plan::histogram_unless(
                index, filters, field, bins, superseded,
            )?)
        })
    }

    fn facet_names(&self) -> CollectionResult<[Vec<String>; 3]> {
        self.with_index(|index| Ok(plan::facet_names(index)?))
    }

    fn locate(&self, request: &SearchRequest, id: &str) -> CollectionResult<Option<usize>> {
        let Some(doc) = self.reader()?.doc_of(id)? else {
            return Ok(None);
        };
        self.with_index(|index| Ok(plan::locate(index, request, doc)?))
    }

    fn get(&self, id: &str) -> CollectionResult<Option<Memory>> {
        Ok(self.reader()?.get(id)?)
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

    fn name(&self) -> String {
        match &self.backing {
            Backing::Store(store) => store.path().display().to_string(),
            Backing::Snapshot(reader) => reader.path().display().to_string(),
        }
    }

    fn history(&self) -> History {
        let history = self.history.lock().unwrap_or_else(PoisonError::into_inner);
        History {
            next_undo: history.next_undo().map(|u| u.description.clone()),
            next_redo: history.next_redo().map(|u| u.description.clone()),
            changes: history.len(),
        }
    }

    fn detail(&self, id: &str) -> CollectionResult<Option<Detail>> {
        Ok(super::detail::read(&self.reader()?, id)?)
    }

    fn track_read(&self, id: &str) -> CollectionResult<Memory> {
        let Backing::Store(store) = &self.backing else {
            return Err(CollectionError::ReadOnly);
        };
        let memory = track_read(store, id)?;
        self.tell(vec![id.to_string()]);
        Ok(memory)
    }

    fn read_project(
        &self,
        project: &Project,
        paths: Option<&[String]>,
        usage: bool,
    ) -> CollectionResult<Synced> {
        let Backing::Store(store) = &self.backing else {
            return Err(CollectionError::ReadOnly);
        };
        let synced = match paths {
            Some(paths) => sync::reread(store, project, paths, usage)?,
            None => sync::bring_up_to_date(store, project)?,
        };
        self.tell(
            synced
                .changed
                .iter()
                .chain(&synced.removed)
                .cloned()
                .collect(),
        );
        Ok(synced)
    }

    fn load(&self) -> CollectionResult<()> {
        *self.loading.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        // a load that fails or panics still lets a waiting draw go on
        struct Ended<'a>(&'a LocalCollection);
        impl Drop for Ended<'_> {
            fn drop(&mut self) {
                *self
                    .0
                    .loading
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner) -= 1;
                self.0.loaded_now.notify_all();
            }
        }
        let _ended = Ended(self);
        self.load_now()
    }

    fn version(&self) -> CollectionResult<u64> {
        Ok(self.reader()?.change_number()?)
    }

    fn refresh(&self) -> CollectionResult<u64> {
        match self.current()? {
            Some(_) => Ok(self.held.load(Ordering::Relaxed)),
            None => self.version(),
        }
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

/// Memories a cancellable scan checks between (the first chunk; later ones grow by
/// four). Debug builds use small chunks so that tests on small collections cross them.
const PROGRESS_CHUNK: usize = if cfg!(debug_assertions) { 16 } else { 16_384 };
