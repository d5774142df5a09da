//! The background work: the browser's requests to the collection, off the UI loop.
//! Which index answers, the background load, the update after a write and stopping a
//! superseded scan are the collection's ([`crate::collection`]); the worker is channels
//! and newest-wins around its calls. Search requests sit in a watch channel that keeps
//! only the latest, every answer carries its generation, the state drops answers of
//! older generations, and a running search stops once a newer one is asked for.
//!
//! After a write — the browser's own, or another process's, which the live view
//! ([`super::watch`]) notices — the collection is refreshed (an update from the
//! store's change log, not a reload) and the state asks for its list again.

use super::action::Action;
use super::effect::{Effect, HistogramJob};
use super::offload::{Waits, offload};
use super::watch::watch_store;
use super::write::{WriteJob, write_task};
use crate::collection::Collection;
use crate::review::ReviewRequest;
use crate::search::SearchRequest;
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use tokio::sync::{mpsc, watch};

pub use super::jobs::{
    HISTOGRAM_BINS, read_detail, read_facets, run_histogram, run_histogram_unless, run_link_search,
    run_mark_all, run_search, run_search_unless,
};

/// The collection the worker asks, shared by its tasks.
type Memories = Arc<dyn Collection>;

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

/// A list to answer: a search, or with a seed a random draw of what it finds, and the
/// memory the selection stays on.
type ListRequest = (SearchRequest, Option<u64>, Option<String>);

/// A queue page to list: generation and request.
type ReviewJob = (u64, Box<ReviewRequest>);

/// The receiving ends the search task listens on.
struct SearchInbox {
    search: watch::Receiver<Option<(u64, Box<ListRequest>)>>,
    histograms: watch::Receiver<Option<(u64, Vec<HistogramJob>)>>,
    link_search: watch::Receiver<Option<(u64, Box<SearchRequest>)>>,
    mark_all: watch::Receiver<Option<(u64, Box<SearchRequest>)>>,
    newest: Arc<AtomicU64>,
}

impl Worker {
    /// Starts the worker tasks on the current tokio runtime: the collection loads its
    /// in-memory index at once, in the background (searches are answered meanwhile);
    /// answers arrive on `actions`.
    pub fn spawn(memories: Memories, actions: mpsc::UnboundedSender<Action>) -> Worker {
        let (search, search_rx) = watch::channel(None);
        let (histograms, hist_rx) = watch::channel(None);
        let (link_search, link_rx) = watch::channel(None);
        let (mark_all, mark_rx) = watch::channel(None);
        let (reload, reload_rx) = watch::channel(0);
        let (details, details_rx) = mpsc::unbounded_channel();
        let (reviews, reviews_rx) = mpsc::unbounded_channel();
        let (writes, writes_rx) = mpsc::unbounded_channel();
        let (written, written_rx) = mpsc::unbounded_channel();
        let waits = Waits::default();
        // before the load starts, so what it loads holds at least this version
        let held = Arc::new(AtomicU64::new(memories.version().unwrap_or(0)));
        let newest_search = Arc::new(AtomicU64::new(0));
        let answers = Answers::new(&memories, &actions, &waits);
        let inbox = SearchInbox {
            search: search_rx,
            histograms: hist_rx,
            link_search: link_rx,
            mark_all: mark_rx,
            newest: newest_search.clone(),
        };
        tokio::spawn(load_task(answers.clone()));
        tokio::spawn(search_task(inbox, answers.clone()));
        tokio::spawn(reload_task(held.clone(), reload_rx, answers.clone()));
        tokio::spawn(detail_task(details_rx, answers.clone()));
        tokio::spawn(review_task(reviews_rx, answers));
        tokio::spawn(watch_store(
            memories.clone(),
            held,
            reload.clone(),
            actions.clone(),
            waits.clone(),
        ));
        let writer = tokio::spawn(write_task(memories, writes_rx, written, waits.clone()));
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
                keep,
            } => {
                self.newest_search
                    .fetch_max(generation, AtomicOrdering::Relaxed);
                self.search
                    .send_replace(Some((generation, Box::new((*request, draw, keep)))));
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

/// What a task asks and where it sends its answers, with the clock of its calls.
#[derive(Clone)]
struct Answers {
    memories: Memories,
    actions: mpsc::UnboundedSender<Action>,
    waits: Waits,
    /// Reads of the filter choices asked for; only the newest one's answer is sent.
    facets_asked: Arc<AtomicU64>,
}

impl Answers {
    fn new(memories: &Memories, actions: &mpsc::UnboundedSender<Action>, waits: &Waits) -> Self {
        Answers {
            memories: memories.clone(),
            actions: actions.clone(),
            waits: waits.clone(),
            facets_asked: Arc::default(),
        }
    }

    /// Sends an answer; false when the app is gone.
    fn send(&self, action: Action) -> bool {
        self.actions.send(action).is_ok()
    }

    /// Runs a job on the collection off the loop; a damaged store's panic answers
    /// `StoreFailed`.
    async fn run(&self, job: impl FnOnce(&dyn Collection) -> Action + Send + 'static) -> Action {
        match self.run_unless(move |m| Some(job(m))).await {
            Some(action) => action,
            None => unreachable!("the job always answers"),
        }
    }

    /// [`Answers::run`] for a job that may answer nothing (it gave way to a newer
    /// request).
    async fn run_unless(
        &self,
        job: impl FnOnce(&dyn Collection) -> Option<Action> + Send + 'static,
    ) -> Option<Action> {
        let memories = self.memories.clone();
        offload(&self.waits, move || job(memories.as_ref()))
            .await
            .unwrap_or_else(|reason| Some(Action::StoreFailed(reason)))
    }

    /// Reads the filter panel's choices beside the search loop, so that a search asked
    /// for meanwhile (the refresh after an update) does not wait for them; an answer
    /// older than the newest read asked for is dropped.
    fn facets(&self) {
        let number = self.facets_asked.fetch_add(1, AtomicOrdering::Relaxed) + 1;
        let me = self.clone();
        tokio::spawn(async move {
            let memories = me.memories.clone();
            let read = offload(&me.waits, move || read_facets(memories.as_ref())).await;
            if me.facets_asked.load(AtomicOrdering::Relaxed) != number {
                return;
            }
            me.send(match read {
                Ok(Ok(facets)) => Action::FacetsLoaded(facets),
                // The filters offer no choices; the message of the read says why.
                Ok(Err(reason)) | Err(reason) => Action::StoreFailed(reason),
            });
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

/// Passes the answers of writes on to the app (the refresh each one asks for reads
/// what it wrote from the change log).
async fn pass_on(
    mut written: mpsc::UnboundedReceiver<Action>,
    actions: mpsc::UnboundedSender<Action>,
) {
    while let Some(action) = written.recv().await {
        // The screen may be gone already on quit; the write is done either way.
        let _ = actions.send(action);
    }
}

/// Loads the collection's in-memory index; searches are answered meanwhile (from the
/// persisted index) and after it alike. Then reads the filter choices.
async fn load_task(answers: Answers) {
    let memories = answers.memories.clone();
    // Untimed beyond the usual clock: nobody waits for the load, searches answer.
    let loaded = offload(&answers.waits, move || memories.load()).await;
    answers.send(match loaded {
        Ok(Ok(())) => Action::SearcherReady,
        Ok(Err(e)) => Action::LoadFailed(e.to_string()),
        Err(reason) => Action::LoadFailed(reason),
    });
    answers.facets();
}

/// Answers the searches, link searches, mark-alls and slider histograms, the newest
/// search first; a histogram batch is answered one slider at a time, so a search asked
/// for meanwhile goes first.
async fn search_task(mut inbox: SearchInbox, answers: Answers) {
    let (mut done_search, mut done_hist, mut done_link, mut done_mark) = (0u64, 0, 0, 0);
    let mut queue: VecDeque<(u64, HistogramJob)> = VecDeque::new();
    loop {
        let answer = if let Some((g, list)) = newest(&mut inbox.search, &mut done_search) {
            let latest = inbox.newest.clone();
            let superseded = move || latest.load(AtomicOrdering::Relaxed) > g;
            let answer = answers
                .run(move |m| {
                    let (request, draw, keep) = *list;
                    run_search_unless(m, g, (&request, draw, keep.as_deref()), &superseded)
                })
                .await;
            // a superseded search answers nothing; the newer request is next
            Some(answer).filter(|a| !matches!(a, Action::SearchSuperseded))
        } else if let Some((g, request)) = newest(&mut inbox.link_search, &mut done_link) {
            Some(answers.run(move |m| run_link_search(m, g, &request)).await)
        } else if let Some((g, request)) = newest(&mut inbox.mark_all, &mut done_mark) {
            Some(answers.run(move |m| run_mark_all(m, g, &request)).await)
        } else {
            if let Some((generation, jobs)) = newest(&mut inbox.histograms, &mut done_hist) {
                queue = jobs.into_iter().map(|j| (generation, j)).collect();
            }
            match queue.pop_front() {
                Some((g, job)) => {
                    // a search asked for meanwhile stops this histogram and goes first;
                    // the histogram is computed again after it
                    let latest = inbox.newest.clone();
                    let answered = done_search;
                    let gave_way = move || latest.load(AtomicOrdering::Relaxed) > answered;
                    let again = job.clone();
                    let answer = answers
                        .run_unless(move |m| run_histogram_unless(m, g, &job, &gave_way))
                        .await;
                    if answer.is_none() {
                        queue.push_front((g, again));
                    }
                    answer
                }
                None => {
                    tokio::select! {
                        changed = inbox.search.changed() => if changed.is_err() { return },
                        changed = inbox.histograms.changed() => if changed.is_err() { return },
                        changed = inbox.link_search.changed() => if changed.is_err() { return },
                        changed = inbox.mark_all.changed() => if changed.is_err() { return },
                    }
                    continue;
                }
            }
        };
        if let Some(action) = answer
            && !answers.send(action)
        {
            return;
        }
    }
}

/// Refreshes the collection whenever a write asks for it (an update from the change
/// log); asks that arrive during a refresh are served by one more after it. `held` is
/// the version the collection answers for, which the live view compares with the
/// store's.
async fn reload_task(held: Arc<AtomicU64>, mut asks: watch::Receiver<u64>, answers: Answers) {
    while asks.changed().await.is_ok() {
        asks.borrow_and_update();
        let memories = answers.memories.clone();
        match offload(&answers.waits, move || memories.refresh()).await {
            Ok(Ok(version)) => {
                held.store(version, AtomicOrdering::Relaxed);
                if !answers.send(Action::IndexReloaded) {
                    return;
                }
                answers.facets();
            }
            Ok(Err(e)) => {
                answers.send(Action::IndexReloadFailed(e.to_string()));
            }
            Err(reason) => {
                answers.send(Action::IndexReloadFailed(reason));
            }
        }
    }
}

/// Reads the detail of each memory asked for, only the newest when the user moves
/// faster than the store.
async fn detail_task(mut requests: mpsc::UnboundedReceiver<String>, answers: Answers) {
    while let Some(mut id) = requests.recv().await {
        while let Ok(newer) = requests.try_recv() {
            id = newer;
        }
        let asked = id.clone();
        let action = answers.run(move |m| read_detail(m, &asked)).await;
        let action = match action {
            Action::StoreFailed(reason) => Action::DetailFailed { id, reason },
            a => a,
        };
        if !answers.send(action) {
            return;
        }
    }
}

/// Lists queue pages off the loop, the newest request first.
async fn review_task(mut requests: mpsc::UnboundedReceiver<ReviewJob>, answers: Answers) {
    while let Some(mut job) = requests.recv().await {
        while let Ok(newer) = requests.try_recv() {
            job = newer;
        }
        let (generation, request) = job;
        let action = answers
            .run(move |m| super::review_job::run_review(m, generation, &request))
            .await;
        if !answers.send(action) {
            return;
        }
    }
}
