//! A collection that answers as the local one does except where a test makes it
//! misbehave: a load held until the test lets it go, a load or a search that panics
//! (as redb does on a damaged page), a refresh that fails, a search that runs until a
//! newer request stops it.

use memlens::collection::{
    Changed, Collection, CollectionError, CollectionResult, Detail, History, LocalCollection,
};
use memlens::curate::{Applied, Change};
use memlens::model::Memory;
use memlens::review::{ReviewPage, ReviewRequest};
use memlens::search::{Filters, Histogram, NumericField, SearchRequest, SearchResponse};
use std::sync::Mutex;
use std::sync::mpsc::Receiver;

/// How a [`Hooked`] collection misbehaves.
#[derive(Default)]
pub struct Hooks {
    /// The load waits for a message (or a hang-up) on this before it starts.
    pub hold_load: Option<Mutex<Receiver<()>>>,
    /// The load panics with this message.
    pub load_panics: Option<&'static str>,
    /// Every search and histogram panics with this message.
    pub search_panics: Option<&'static str>,
    /// Every refresh fails with this reason.
    pub refresh_fails: Option<&'static str>,
    /// A search for this query runs until a newer request supersedes it, as a long
    /// scan would, and then stops; not superseded within ten seconds, it answers.
    pub long_query: Option<&'static str>,
}

/// The local collection with [`Hooks`].
pub struct Hooked {
    /// The collection that answers.
    pub inner: LocalCollection,
    /// How it misbehaves.
    pub hooks: Hooks,
}

impl Hooked {
    fn searching(&self) {
        if let Some(message) = self.hooks.search_panics {
            panic!("{message}");
        }
    }
}

impl Collection for Hooked {
    fn search(&self, request: &SearchRequest) -> CollectionResult<SearchResponse> {
        self.searching();
        self.inner.search(request)
    }
    fn search_unless(
        &self,
        request: &SearchRequest,
        superseded: memlens::search::Stop<'_>,
    ) -> CollectionResult<Option<SearchResponse>> {
        self.searching();
        if self.hooks.long_query == Some(request.query.as_str()) {
            let started = std::time::Instant::now();
            while started.elapsed() < std::time::Duration::from_secs(10) {
                if superseded() {
                    return Ok(None);
                }
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            // never superseded: it answers, as a scan that ran to its end does
        }
        self.inner.search_unless(request, superseded)
    }
    fn sample(&self, request: &SearchRequest, seed: u64) -> CollectionResult<SearchResponse> {
        self.searching();
        self.inner.sample(request, seed)
    }
    fn histogram_unless(
        &self,
        filters: &Filters,
        field: NumericField,
        bins: usize,
        superseded: memlens::search::Stop<'_>,
    ) -> CollectionResult<Option<Histogram>> {
        self.searching();
        self.inner
            .histogram_unless(filters, field, bins, superseded)
    }
    fn facet_names(&self) -> CollectionResult<[Vec<String>; 3]> {
        self.inner.facet_names()
    }
    fn locate(&self, request: &SearchRequest, id: &str) -> CollectionResult<Option<usize>> {
        self.searching();
        self.inner.locate(request, id)
    }
    fn get(&self, id: &str) -> CollectionResult<Option<Memory>> {
        self.inner.get(id)
    }
    fn review(&self, request: &ReviewRequest) -> CollectionResult<ReviewPage> {
        self.inner.review(request)
    }
    fn apply(&self, change: &Change) -> CollectionResult<Applied> {
        self.inner.apply(change)
    }
    fn undo(&self) -> CollectionResult<Applied> {
        self.inner.undo()
    }
    fn redo(&self) -> CollectionResult<Applied> {
        self.inner.redo()
    }
    fn subscribe(&self) -> Receiver<Changed> {
        self.inner.subscribe()
    }
    fn name(&self) -> String {
        self.inner.name()
    }
    fn history(&self) -> History {
        self.inner.history()
    }
    fn detail(&self, id: &str) -> CollectionResult<Option<Detail>> {
        self.inner.detail(id)
    }
    fn track_read(&self, id: &str) -> CollectionResult<Memory> {
        self.inner.track_read(id)
    }
    fn load(&self) -> CollectionResult<()> {
        if let Some(gate) = &self.hooks.hold_load {
            let _ = gate.lock().expect("gate").recv();
        }
        if let Some(message) = self.hooks.load_panics {
            panic!("{message}");
        }
        self.inner.load()
    }
    fn version(&self) -> CollectionResult<u64> {
        self.inner.version()
    }
    fn refresh(&self) -> CollectionResult<u64> {
        match self.hooks.refresh_fails {
            Some(reason) => Err(CollectionError::Damaged(reason.into())),
            None => self.inner.refresh(),
        }
    }
}
