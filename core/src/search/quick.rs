//! The requests the browser's first screen and an agent's commonest call make — the
//! time-ordered list, and literal, BM25 and fuzzy relevance descending, under the
//! default filters (any `deleted` choice) — answered from the persisted index by the
//! planner ([`crate::search::plan::from_stored`]). The planner answers every other
//! request too; this entry keeps the narrower promise for the callers that only want
//! an answer that needs no column beyond the facts.

use crate::search::plan;
use crate::search::request::{BrowseMode, Filters, Order, SearchRequest, SearchResponse};
use crate::store::{StoreReader, StoreResult};

/// Whether `req` is one of the commonest requests this entry answers.
fn is_common(req: &SearchRequest) -> bool {
    let defaults = Filters {
        deleted: req.filters.deleted,
        ..Filters::default()
    };
    if req.filters != defaults {
        return false;
    }
    if req.query.trim().is_empty() {
        return matches!(req.mode, BrowseMode::Relevance | BrowseMode::Time);
    }
    req.mode == BrowseMode::Relevance && req.order != Some(Order::Asc)
}

/// Answers one of the commonest requests from the persisted index; `Ok(None)` for any
/// other request, or when the persisted index cannot answer. The answer is the one
/// [`Searcher::search`](crate::search::Searcher::search) gives.
pub fn answer(reader: &StoreReader, req: &SearchRequest) -> StoreResult<Option<SearchResponse>> {
    if !is_common(req) {
        return Ok(None);
    }
    plan::from_stored(reader, req)
}
