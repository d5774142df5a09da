//! What `update` asks the outside world to do: search, compute histograms, read a
//! memory's detail, write a change, reload the search index, quit. The app hands them
//! to the worker; tests run them inline.

pub use super::write::WriteJob;
use crate::search::{Filters, NumericField, SearchRequest};

/// One slider histogram to compute.
#[derive(Debug, Clone, PartialEq)]
pub struct HistogramJob {
    /// The filter row it is drawn in.
    pub row: usize,
    /// The field.
    pub field: NumericField,
    /// Every filter; the histogram leaves out the range on `field` itself, and counts
    /// how many memories that range keeps.
    pub filters: Filters,
}

/// A request from `update` to the world outside the state.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Run a search; the answer carries `generation` back.
    Search {
        /// Tag of this request; answers with another tag are stale.
        generation: u64,
        /// What to search.
        request: Box<SearchRequest>,
        /// The seed of a random draw from what `request` finds, instead of its page.
        draw: Option<u64>,
        /// The memory the selection stays on (a refresh after the store changed): when
        /// the change moved it off the page asked for, the answer is the page around it.
        keep: Option<String>,
    },
    /// Compute slider histograms, in the order given; a newer batch replaces this one.
    Histograms {
        /// Tag of this batch.
        generation: u64,
        /// The histograms, most wanted first.
        jobs: Vec<HistogramJob>,
    },
    /// Read a memory with its linked memories for the detail pane.
    LoadDetail {
        /// The memory's id.
        id: String,
    },
    /// Write to the store (a change, undo, redo or tracked read), one at a time, in order.
    Write(WriteJob),
    /// Bring the collection up to date after a write (an update from the store's
    /// change log); answered with `IndexReloaded`.
    ReloadIndex,
    /// Search for the link picker; the answer carries `generation` back.
    LinkSearch {
        /// Tag of this request; answers with another tag are stale.
        generation: u64,
        /// What to search.
        request: Box<SearchRequest>,
    },
    /// Find the ids of every memory in the current list, to mark them all.
    MarkAll {
        /// Tag of this request; answers with another tag are stale.
        generation: u64,
        /// The list's request, all of it.
        request: Box<SearchRequest>,
    },
    /// List a page of a review queue (and count every queue); answers `ReviewDone`
    /// with `generation`.
    Review {
        /// Tag of this request; answers with another tag are stale.
        generation: u64,
        /// The queue, the search narrowing it, and the page.
        request: Box<crate::review::ReviewRequest>,
    },
    /// Leave the program.
    Quit,
}
