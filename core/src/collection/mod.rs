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
//!   to its end is exact;
//! - **the undo history** of the changes made through it.
//!
//! The browser's worker (`tui::worker`) is channels and newest-wins around these
//! calls; the headless browser the tests drive calls them inline.
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

mod detail;
mod gate;
mod local;

pub use detail::{Detail, Link};
pub use local::LocalCollection;

use crate::curate::{Applied, Change, CurateError};
use crate::model::Memory;
use crate::project::sync::Synced;
use crate::project::{Project, ProjectError};
use crate::review::{ReviewPage, ReviewRequest};
use crate::search::{Filters, Histogram, NumericField, SearchRequest, SearchResponse};
use crate::store::StoreError;
use std::sync::mpsc::Receiver;

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
    /// A hivelore project's files could not be read.
    #[error(transparent)]
    Project(#[from] ProjectError),
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
        superseded: crate::search::Stop<'_>,
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
    ) -> CollectionResult<Histogram> {
        match self.histogram_unless(filters, field, bins, &crate::search::never)? {
            Some(histogram) => Ok(histogram),
            None => unreachable!("a histogram that is never stopped is built"),
        }
    }

    /// [`Collection::histogram`], stopping early with `Ok(None)` once `superseded` says
    /// a newer request should go first (a slider's histogram gives way to a search).
    fn histogram_unless(
        &self,
        filters: &Filters,
        field: NumericField,
        bins: usize,
        superseded: crate::search::Stop<'_>,
    ) -> CollectionResult<Option<Histogram>>;

    /// The distinct types, tags and modules, each sorted: the filter panel's choices.
    fn facet_names(&self) -> CollectionResult<[Vec<String>; 3]>;

    /// Where the memory `id` is in the whole list `request` gives (its offset and limit
    /// aside), 0 first; `None` when it is not among the matches. The browser asks it to
    /// keep its selection on a memory that another writer's changes moved off its page.
    fn locate(&self, request: &SearchRequest, id: &str) -> CollectionResult<Option<usize>>;

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

    /// Where the memories are, for a person to read: the store's path.
    fn name(&self) -> String;

    /// What the next undo would take back and the next redo apply again, and how many
    /// changes the history holds.
    fn history(&self) -> History;

    /// One memory with the memories it is linked with, both ways: a detail view.
    fn detail(&self, id: &str) -> CollectionResult<Option<Detail>>;

    /// Counts one read of a memory (SPEC's `read_count`; not a change, never undone)
    /// and returns it as stored now.
    fn track_read(&self, id: &str) -> CollectionResult<Memory>;

    /// Reads a hivelore project's files into the collection: the memory files at
    /// `paths` (under `.ai/memories`), or every file when `None`, and `usage.json` when
    /// `usage` (not a change, never undone).
    fn read_project(
        &self,
        _project: &Project,
        _paths: Option<&[String]>,
        _usage: bool,
    ) -> CollectionResult<Synced> {
        Err(CollectionError::ReadOnly)
    }

    /// Builds what makes every later request fast (the in-memory index) and returns
    /// when it is in use. Answers are the same before, during and after.
    fn load(&self) -> CollectionResult<()> {
        Ok(())
    }

    /// The version of the memories now: a number that moves with every write any
    /// process makes (cheap to read; a watcher compares it with [`Collection::refresh`]'s).
    fn version(&self) -> CollectionResult<u64>;

    /// Brings what answers up to date with the writes any process made (an update,
    /// not a reload) and returns the version it now answers for. Searches do this
    /// themselves; a client calls it to show another writer's change unasked.
    fn refresh(&self) -> CollectionResult<u64> {
        self.version()
    }
}

/// What the undo history holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct History {
    /// The change the next undo would take back, in words.
    pub next_undo: Option<String>,
    /// The change the next redo would apply again, in words.
    pub next_redo: Option<String>,
    /// Changes that can be undone.
    pub changes: usize,
}
