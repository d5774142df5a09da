//! The background work: loading the search index (and updating it after a write),
//! searching, histograms, detail reads and writes, off the UI loop. The newest search
//! request wins: requests sit in a watch channel that keeps only the latest, every
//! answer carries its generation, and the state drops answers of older generations.
//!
//! After a write — the browser's own, or another process's, which the live view
//! ([`super::watch`]) notices — the index is updated, not rebuilt: the reload reads from
//! the store's change log which memories were written since the change the index holds
//! and hands those to [`SearchSource::updated`]; only when the log cannot say, or that
//! fails, is the index loaded again whole.

use super::action::Action;
use super::effect::{Effect, HistogramJob};
use super::offload::{Waits, offload};
use super::watch::{Held, held_now, watch_store};
use super::write::{WriteJob, write_task};
use crate::search::{SearchRequest, Searcher};
use crate::store::{Since, Store};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::{mpsc, watch};

pub use super::jobs::{
    HISTOGRAM_BINS, SearchSource, read_detail, read_facets, run_histogram, run_link_search,
    run_mark_all, run_search, run_search_unless,
};

/// Builds the search source from the store (runs on a blocking thread): at the start,
/// and again after every write.
pub type Loader = Arc<dyn Fn(&Store) -> Result<Arc<dyn SearchSource>, String> + Send + Sync>;

/// The loader of the real program: `Searcher::open` on a fresh snapshot (it reads only
/// the search records, not every memory, so the first results show sooner; each page's
/// memories are read from the snapshot). After a write the worker updates the searcher
/// instead (see [`SearchSource::updated`]) and calls this again only when that fails.
pub fn searcher_loader() -> Loader {
    Arc::new(|store: &Store| {
        let reader = store.read().map_err(|e| e.to_string())?;
        let searcher = Searcher::open(reader).map_err(|e| e.to_string())?;
        Ok(Arc::new(searcher) as Arc<dyn SearchSource>)
    })
}

/// The newest search source, for the reload to update.
type Latest = Arc<Mutex<Option<Arc<dyn SearchSource>>>>;

/// A request that sits in a watch channel: the newest replaces the older one.
type Newest<T> = watch::Sender<Option<(u64, T)>>;

/// The app's side of the worker: where effects are sent.
pub struct Worker {
    search: Newest<Box<ListRequest>>,
    /// The generation of the newest search asked for: a running search stops once a
    /// newer one is asked for.
    newest_search: Arc<AtomicU64>,
    histograms: Newest<Vec<HistogramJob>>,
    link_search: Newest<Box<SearchRequest>>,
    mark_all: Newest<Box<SearchRequest>>,
    details: mpsc::UnboundedSender<String>,
    reviews: mpsc::UnboundedSender<ReviewJob>,
    reload: watch::Sender<u64>,
    writes: Option<mpsc::UnboundedSender<WriteJob>>,
    writer: Option<tokio::task::JoinHandle<()>>,
    waits: Waits,
}

/// A list to answer: a search, or with a seed a random draw of what it finds.
type ListRequest = (SearchRequest, Option<u64>);

/// The receiving ends the search task listens on.
struct SearchInbox {
    search: watch::Receiver<Option<(u64, Box<ListRequest>)>>,
    histograms: watch::Receiver<Option<(u64, Vec<HistogramJob>)>>,
    link_search: watch::Receiver<Option<(u64, Box<SearchRequest>)>>,
    mark_all: watch::Receiver<Option<(u64, Box<SearchRequest>)>>,
    sources: watch::Receiver<Option<Arc<dyn SearchSource>>>,
    newest: Arc<AtomicU64>,
}

impl Worker {
    /// Starts the worker tasks on the current tokio runtime: the index loads at once,
    /// in the background; answers arrive on `actions`.
    pub fn spawn(
        store: Arc<Store>,
        loader: Loader,
        actions: mpsc::UnboundedSender<Action>,
    ) -> Worker {
        let (search, search_rx) = watch::channel(None);
        let (histograms, hist_rx) = watch::channel(None);
        let (link_search, link_rx) = watch::channel(None);
        let (mark_all, mark_rx) = watch::channel(None);
        let (sources, sources_rx) = watch::channel(None);
        let (reload, reload_rx) = watch::channel(0);
        let (details, details_rx) = mpsc::unbounded_channel();
        let (reviews, reviews_rx) = mpsc::unbounded_channel();
        let (writes, writes_rx) = mpsc::unbounded_channel();
        let (written, written_rx) = mpsc::unbounded_channel();
        // before the load starts, so the index it loads holds at least this change
        let held = held_now(&store);
        let latest: Latest = Arc::default();
        let waits = Waits::default();
        let newest_search = Arc::new(AtomicU64::new(0));
        let inbox = SearchInbox {
            search: search_rx,
            histograms: hist_rx,
            link_search: link_rx,
            mark_all: mark_rx,
            sources: sources_rx,
            newest: newest_search.clone(),
        };
        tokio::spawn(search_task(
            store.clone(),
            loader.clone(),
            inbox,
            latest.clone(),
            Answers::new(&actions, &waits),
        ));
        tokio::spawn(reload_task(
            Reload {
                store: store.clone(),
                loader,
                held: held.clone(),
                latest,
            },
            reload_rx,
            sources,
            Answers::new(&actions, &waits),
        ));
        tokio::spawn(detail_task(
            store.clone(),
            details_rx,
            Answers::new(&actions, &waits),
        ));
        tokio::spawn(review_task(
            store.clone(),
            reviews_rx,
            Answers::new(&actions, &waits),
        ));
        tokio::spawn(watch_store(
            store.clone(),
            held,
            reload.clone(),
            actions.clone(),
            waits.clone(),
        ));
        let writer = tokio::spawn(write_task(store, writes_rx, written, waits.clone()));
        tokio::spawn(pass_on(written_rx, actions));
        Worker {
            search,
            newest_search,
            histograms,
            link_search,
            mark_all,
            details,
            reviews,
            reload,
            writes: Some(writes),
            writer: Some(writer),
            waits,
        }
    }

    /// Whole seconds the oldest store call under way has kept the browser waiting,
    /// once that is [`SLOW_CALL`](super::offload::SLOW_CALL) or longer.
    pub fn slow_seconds(&self) -> Option<u64> {
        self.waits.slow_seconds()
    }

    /// Hands an effect to the worker (`Quit` is the app's to handle).
    pub fn send(&self, effect: Effect) {
        match effect {
            Effect::Search {
                generation,
                request,
                draw,
            } => {
                self.newest_search
                    .fetch_max(generation, AtomicOrdering::Relaxed);
                self.search
                    .send_replace(Some((generation, Box::new((*request, draw)))));
            }
            Effect::Histograms { generation, jobs } => {
                self.histograms.send_replace(Some((generation, jobs)));
            }
            Effect::LoadDetail { id } => {
                let _ = self.details.send(id);
            }
            Effect::Write(job) => {
                if let Some(writes) = &self.writes {
                    let _ = writes.send(job);
                }
            }
            Effect::ReloadIndex => self.reload.send_modify(|v| *v += 1),
            Effect::LinkSearch {
                generation,
                request,
            } => {
                self.link_search.send_replace(Some((generation, request)));
            }
            Effect::MarkAll {
                generation,
                request,
            } => {
                self.mark_all.send_replace(Some((generation, request)));
            }
            Effect::Review {
                generation,
                request,
            } => {
                let _ = self.reviews.send((generation, request));
            }
            Effect::Quit => {}
        }
    }

    /// Waits until every write already sent is durable, so quitting never drops one,
    /// but no longer than `grace`: a write stuck on a damaged store is left to end
    /// with the process (redb keeps the store as its last commit left it). True when
    /// every write finished.
    pub async fn finish_writes(&mut self, grace: std::time::Duration) -> bool {
        self.writes = None;
        match self.writer.take() {
            Some(writer) => tokio::time::timeout(grace, writer).await.is_ok(),
            None => true,
        }
    }
}

/// Where a task sends its answers, and the clock of its store calls.
struct Answers {
    actions: mpsc::UnboundedSender<Action>,
    waits: Waits,
}

impl Answers {
    fn new(actions: &mpsc::UnboundedSender<Action>, waits: &Waits) -> Answers {
        Answers {
            actions: actions.clone(),
            waits: waits.clone(),
        }
    }

    /// Sends an answer; false when the app is gone.
    fn send(&self, action: Action) -> bool {
        self.actions.send(action).is_ok()
    }

    /// Runs a job that answers with an action off the loop; a damaged store's panic
    /// answers `StoreFailed`.
    async fn run(&self, job: impl FnOnce() -> Action + Send + 'static) -> Action {
        offload(&self.waits, job)
            .await
            .unwrap_or_else(Action::StoreFailed)
    }

    /// Reads the filter panel's choices from `source` beside the search loop, so that
    /// a search asked for meanwhile (the refresh after an update) does not wait for
    /// them; the answer for a source older than the newest asked about is dropped.
    fn facets(&self, store: &Arc<Store>, source: &Arc<dyn SearchSource>, asked: &Arc<AtomicU64>) {
        let number = asked.fetch_add(1, AtomicOrdering::Relaxed) + 1;
        let (st, src, asked) = (store.clone(), source.clone(), asked.clone());
        let (actions, waits) = (self.actions.clone(), self.waits.clone());
        tokio::spawn(async move {
            let read = offload(&waits, move || read_facets(&st, src.as_ref())).await;
            if asked.load(AtomicOrdering::Relaxed) != number {
                return;
            }
            let _ = actions.send(match read {
                Ok(Ok(facets)) => Action::FacetsLoaded(facets),
                // The filters offer no choices; the message of the read says why.
                Ok(Err(reason)) | Err(reason) => Action::StoreFailed(reason),
            });
        });
    }

    /// [`Answers::run`] with a shared search source.
    async fn with_source(
        &self,
        source: &Arc<dyn SearchSource>,
        job: impl FnOnce(&dyn SearchSource) -> Action + Send + 'static,
    ) -> Action {
        let src = source.clone();
        self.run(move || job(src.as_ref())).await
    }

    /// Warms a source's caches in the background; a panic there is reported.
    fn warm(&self, source: &Arc<dyn SearchSource>) {
        // Untimed: nobody waits for the caches, searches answer without them.
        let (src, actions) = (source.clone(), self.actions.clone());
        tokio::spawn(async move {
            if let Err(reason) = offload(&Waits::default(), move || src.warm()).await {
                let _ = actions.send(Action::StoreFailed(reason));
            }
        });
    }
}

/// The newest request of a watch channel newer than `done`, marking it seen.
fn newest<T: Clone>(
    rx: &mut watch::Receiver<Option<(u64, T)>>,
    done: &mut u64,
) -> Option<(u64, T)> {
    let newest = rx.borrow_and_update().clone();
    let (generation, request) = newest.filter(|(g, _)| *g > *done)?;
    *done = generation;
    Some((generation, request))
}

/// Passes the answers of writes on to the app (the reload each one asks for reads what
/// it wrote from the change log).
async fn pass_on(
    mut written: mpsc::UnboundedReceiver<Action>,
    actions: mpsc::UnboundedSender<Action>,
) {
    while let Some(action) = written.recv().await {
        // The screen may be gone already on quit; the write is done either way.
        let _ = actions.send(action);
    }
}

async fn search_task(
    store: Arc<Store>,
    loader: Loader,
    mut inbox: SearchInbox,
    latest: Latest,
    actions: Answers,
) {
    let (load_store, waits) = (store.clone(), actions.waits.clone());
    let loading = tokio::spawn(async move {
        offload(&waits, move || loader(&load_store))
            .await
            .and_then(|loaded| loaded)
    });
    let mut done_search = 0u64;
    let Some(loaded) =
        answer_while_loading(&store, loading, &mut inbox, &mut done_search, &actions).await
    else {
        return;
    };
    let mut source = match loaded {
        Ok(Ok(source)) => source,
        Ok(Err(reason)) => {
            actions.send(Action::LoadFailed(reason));
            return;
        }
        Err(e) => {
            actions.send(Action::LoadFailed(format!("loading failed: {e}")));
            return;
        }
    };
    latest
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get_or_insert_with(|| source.clone());
    actions.send(Action::SearcherReady {
        memories: source.len(),
    });
    let mut facets_sent = false;
    let facets_asked = Arc::new(AtomicU64::new(0));
    // When the persisted index answered the first search, warm the caches at once.
    let mut warmed = done_search > 0;
    if warmed {
        actions.warm(&source);
    }
    let (mut done_hist, mut done_link, mut done_mark) = (0u64, 0u64, 0u64);
    let mut queue: VecDeque<(u64, HistogramJob)> = VecDeque::new();
    // `changed()` below marks a new index as seen, so remember that one arrived.
    let mut rebuilt = false;
    loop {
        rebuilt |= inbox.sources.has_changed().unwrap_or(false);
        let answer = if rebuilt && let Some(fresh) = inbox.sources.borrow_and_update().clone() {
            // Swapped before telling the state, so the refresh it sends finds it.
            rebuilt = false;
            source = fresh;
            facets_sent = false;
            Some(Action::IndexReloaded {
                memories: source.len(),
            })
        } else if let Some((g, request)) = newest(&mut inbox.search, &mut done_search) {
            let latest = inbox.newest.clone();
            let superseded = move || latest.load(AtomicOrdering::Relaxed) > g;
            let answer = actions
                .with_source(&source, move |s| {
                    let (request, draw) = *request;
                    run_search_unless(s, g, &request, draw, &superseded)
                })
                .await;
            // a superseded search answers nothing; the newer request is next
            let answer = match answer {
                Action::SearchSuperseded => None,
                a => Some(a),
            };
            if !warmed {
                // The first results are on their way: build the remaining caches
                // (BM25 index, composites, time order) now, off the search path.
                warmed = true;
                actions.warm(&source);
            }
            answer
        } else if let Some((g, request)) = newest(&mut inbox.link_search, &mut done_link) {
            let job = move |s: &dyn SearchSource| run_link_search(s, g, &request);
            Some(actions.with_source(&source, job).await)
        } else if let Some((g, request)) = newest(&mut inbox.mark_all, &mut done_mark) {
            let job = move |s: &dyn SearchSource| run_mark_all(s, g, &request);
            Some(actions.with_source(&source, job).await)
        } else if !facets_sent {
            facets_sent = true;
            actions.facets(&store, &source, &facets_asked);
            continue;
        } else {
            if let Some((generation, jobs)) = newest(&mut inbox.histograms, &mut done_hist) {
                queue = jobs.into_iter().map(|j| (generation, j)).collect();
            }
            match queue.pop_front() {
                Some((g, job)) => {
                    let job = move |s: &dyn SearchSource| run_histogram(s, g, &job);
                    Some(actions.with_source(&source, job).await)
                }
                None => {
                    tokio::select! {
                        changed = inbox.search.changed() => if changed.is_err() { return },
                        changed = inbox.histograms.changed() => if changed.is_err() { return },
                        changed = inbox.link_search.changed() => if changed.is_err() { return },
                        changed = inbox.mark_all.changed() => if changed.is_err() { return },
                        changed = inbox.sources.changed() => {
                            if changed.is_err() { return }
                            rebuilt = true;
                        }
                    }
                    continue;
                }
            }
        };
        if let Some(action) = answer
            && !actions.send(action)
        {
            return;
        }
    }
}

/// The loader's result, as its task returns it.
type Loaded = Result<Result<Arc<dyn SearchSource>, String>, tokio::task::JoinError>;

/// While the full index loads, answers every search from the persisted index (the
/// planner's stored path), so neither the first screen nor a tab switch, a filter step
/// or an engine change waits for the load. Returns the
/// loader's result, or `None` when the app is gone.
async fn answer_while_loading(
    store: &Arc<Store>,
    mut loading: tokio::task::JoinHandle<Result<Arc<dyn SearchSource>, String>>,
    inbox: &mut SearchInbox,
    done_search: &mut u64,
    actions: &Answers,
) -> Option<Loaded> {
    let mut tried = 0u64;
    loop {
        let wanted = inbox.search.borrow_and_update().clone();
        // a random draw needs the loaded index: it waits for the load
        let wanted = wanted.filter(|(g, list)| *g > tried && list.1.is_none());
        if let Some((g, list)) = wanted {
            tried = g;
            let request = list.0;
            let st = store.clone();
            let quick = offload(&actions.waits, move || {
                let started = std::time::Instant::now();
                let reader = st.read().ok()?;
                // any request: the planner answers it from the persisted index
                let response = crate::search::plan::from_stored(&reader, &request).ok()??;
                Some(Action::SearchDone {
                    generation: g,
                    response,
                    elapsed: started.elapsed(),
                })
            });
            if let Ok(Some(action)) = quick.await {
                *done_search = g;
                if !actions.send(action) {
                    return None;
                }
            }
            continue;
        }
        tokio::select! {
            loaded = &mut loading => return Some(loaded),
            changed = inbox.search.changed() => if changed.is_err() { return None },
        }
    }
}

/// What the reload task needs besides its channels.
struct Reload {
    store: Arc<Store>,
    loader: Loader,
    /// The change number the newest source holds.
    held: Held,
    latest: Latest,
}

impl Reload {
    /// The search source of the store as it is now: the newest source updated with the
    /// memories the change log names since the change it holds, or (when there is none
    /// yet, the log cannot say, or the update fails) a full load. Runs on a blocking
    /// thread.
    fn next_source(&self) -> Result<Arc<dyn SearchSource>, String> {
        let reader = self.store.read().map_err(|e| e.to_string())?;
        let now = reader.change_number().map_err(|e| e.to_string())?;
        let held = self.held.load(AtomicOrdering::Relaxed);
        let since = reader.changes_since(held).map_err(|e| e.to_string())?;
        let base = self
            .latest
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let updated = match (base, since) {
            (Some(base), Since::Nothing) => Some(Ok(base)),
            (Some(base), Since::Ids(ids)) => base.updated(reader, &ids),
            (None, _) | (_, Since::Everything) => None,
        };
        let source = match updated {
            Some(Ok(source)) => source,
            // loads a snapshot at least as new as `now`
            Some(Err(_)) | None => (self.loader)(&self.store)?,
        };
        self.held.store(now, AtomicOrdering::Relaxed);
        *self.latest.lock().unwrap_or_else(PoisonError::into_inner) = Some(source.clone());
        Ok(source)
    }
}

/// Updates the search index whenever a write asks for it; asks that arrive during an
/// update are served by one more update after it. The new index warms its caches in
/// the background once it is in use.
async fn reload_task(
    reload: Reload,
    mut asks: watch::Receiver<u64>,
    sources: watch::Sender<Option<Arc<dyn SearchSource>>>,
    actions: Answers,
) {
    let reload = Arc::new(reload);
    while asks.changed().await.is_ok() {
        asks.borrow_and_update();
        let r = reload.clone();
        match offload(&actions.waits, move || r.next_source()).await {
            Ok(Ok(source)) => {
                sources.send_replace(Some(source.clone()));
                actions.warm(&source);
            }
            Ok(Err(reason)) | Err(reason) => {
                actions.send(Action::IndexReloadFailed(reason));
            }
        }
    }
}

async fn detail_task(
    store: Arc<Store>,
    mut requests: mpsc::UnboundedReceiver<String>,
    actions: Answers,
) {
    while let Some(mut id) = requests.recv().await {
        // Only the newest request matters when the user moves faster than the store.
        while let Ok(newer) = requests.try_recv() {
            id = newer;
        }
        let (st, asked) = (store.clone(), id.clone());
        let action = offload(&actions.waits, move || read_detail(&st, &asked))
            .await
            .unwrap_or_else(|reason| Action::DetailFailed { id, reason });
        if !actions.send(action) {
            return;
        }
    }
}

/// A queue page to list: generation and request.
type ReviewJob = (u64, Box<crate::review::ReviewRequest>);

/// Lists queue pages off the loop, the newest request first.
async fn review_task(
    store: Arc<Store>,
    mut requests: mpsc::UnboundedReceiver<ReviewJob>,
    actions: Answers,
) {
    let reviews = super::review_job::Reviews::default();
    while let Some(mut job) = requests.recv().await {
        while let Ok(newer) = requests.try_recv() {
            job = newer;
        }
        let (st, kept) = (store.clone(), reviews.clone());
        let (generation, request) = job;
        let action = actions
            .run(move || super::review_job::run_review(&st, &kept, generation, &request))
            .await;
        if !actions.send(action) {
            return;
        }
    }
}
