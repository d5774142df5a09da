//! What each background job asks of the collection — a search, a slider histogram, a
//! link-picker search, the ids to mark, a memory's detail, the filter choices — as
//! plain functions that answer with an action. The worker runs them off the UI loop;
//! the headless browser runs them inline.

use super::action::Action;
use super::effect::HistogramJob;
use super::state::{DetailView, Facets, SliderHistogram};
use crate::collection::Collection;
use crate::search::{Filters, NumericField, SearchRequest};
use std::time::Instant;

/// Bins per slider histogram (the view resamples them to the slider's width).
pub const HISTOGRAM_BINS: usize = 48;

/// Runs one search (or, with `draw`, a random draw of what it finds) and tags the
/// answer; with `keep`, the page around that memory when it is among the matches but
/// not on the page asked for.
pub fn run_search(
    memories: &dyn Collection,
    generation: u64,
    (request, draw, keep): (&SearchRequest, Option<u64>, Option<&str>),
) -> Action {
    run_search_unless(memories, generation, (request, draw, keep), &|| false)
}

/// [`run_search`] that answers [`Action::SearchSuperseded`] when a newer request
/// stopped it.
pub fn run_search_unless(
    memories: &dyn Collection,
    generation: u64,
    (request, draw, keep): (&SearchRequest, Option<u64>, Option<&str>),
    superseded: crate::search::Stop<'_>,
) -> Action {
    let started = Instant::now();
    let answer = match draw {
        Some(_) if superseded() => Ok(None),
        Some(seed) => memories.sample(request, seed).map(|r| Some((0, r))),
        None => memories
            .search_unless(request, superseded)
            .and_then(|found| match (found, keep) {
                (Some(response), Some(id)) => around(memories, request, response, id, superseded),
                (found, _) => Ok(found.map(|r| (request.offset, r))),
            }),
    };
    match answer {
        Ok(Some((offset, response))) => Action::SearchDone {
            generation,
            response,
            offset,
            elapsed: started.elapsed(),
        },
        Ok(None) => Action::SearchSuperseded,
        Err(e) => Action::StoreFailed(e.to_string()),
    }
}

/// The page `response` answered for `request` when it holds the memory `id` or the
/// memory is not among the matches any more; else the page around where it is now,
/// with its offset.
fn around(
    memories: &dyn Collection,
    request: &SearchRequest,
    response: crate::search::SearchResponse,
    id: &str,
    superseded: crate::search::Stop<'_>,
) -> crate::collection::CollectionResult<Option<(usize, crate::search::SearchResponse)>> {
    let asked = (request.offset, response);
    if asked.1.hits.iter().any(|h| h.memory.id == id) || superseded() {
        return Ok(Some(asked));
    }
    let Some(at) = memories.locate(request, id)? else {
        return Ok(Some(asked));
    };
    let moved = SearchRequest {
        offset: super::navigate::page_around(at),
        ..request.clone()
    };
    Ok(memories
        .search_unless(&moved, superseded)?
        .map(|r| (moved.offset, r)))
}

/// Computes one slider histogram and tags it.
pub fn run_histogram(memories: &dyn Collection, generation: u64, job: &HistogramJob) -> Action {
    match run_histogram_unless(memories, generation, job, &crate::search::never) {
        Some(action) => action,
        None => unreachable!("a histogram that is never stopped is built"),
    }
}

/// [`run_histogram`] that gives way, answering `None`, once `gave_way` says a newer
/// request should go first (it is asked between two chunks of the work).
pub fn run_histogram_unless(
    memories: &dyn Collection,
    generation: u64,
    job: &HistogramJob,
    gave_way: crate::search::Stop<'_>,
) -> Option<Action> {
    match memories.histogram_unless(&job.filters, job.field, HISTOGRAM_BINS, gave_way) {
        Ok(Some(h)) => Some(Action::HistogramDone {
            generation,
            row: job.row,
            histogram: SliderHistogram {
                min: h.min,
                max: h.max,
                counts: h.counts,
                kept: h.kept,
                present: h.present,
            },
        }),
        Ok(None) => None,
        Err(e) => Some(Action::StoreFailed(e.to_string())),
    }
}

/// Searches for the link picker and tags the answer.
pub fn run_link_search(
    memories: &dyn Collection,
    generation: u64,
    request: &SearchRequest,
) -> Action {
    match memories.search(request) {
        Ok(response) => Action::LinkSearchDone {
            generation,
            response,
        },
        Err(e) => Action::StoreFailed(e.to_string()),
    }
}

/// Lists the ids of every memory a request matches, for marking them all.
pub fn run_mark_all(memories: &dyn Collection, generation: u64, request: &SearchRequest) -> Action {
    match memories.search(request) {
        Ok(response) => Action::MarkAllDone {
            generation,
            ids: response.hits.into_iter().map(|h| h.memory.id).collect(),
        },
        Err(e) => Action::StoreFailed(e.to_string()),
    }
}

/// Reads a memory and the memories it is linked with, for the detail pane.
pub fn read_detail(memories: &dyn Collection, id: &str) -> Action {
    match memories.detail(id) {
        Ok(Some(detail)) => Action::DetailLoaded(Box::new(DetailView {
            memory: detail.memory,
            relationship_count: detail.relationship_count,
            links: Some(detail.links),
        })),
        Ok(None) => Action::DetailFailed {
            id: id.to_string(),
            reason: format!("no memory with id `{id}`"),
        },
        Err(e) => Action::DetailFailed {
            id: id.to_string(),
            reason: e.to_string(),
        },
    }
}

/// Gathers the choices of the type / tag / module filters and the slider spans.
pub fn read_facets(memories: &dyn Collection) -> Result<Facets, String> {
    let [types, tags, modules] = memories.facet_names().map_err(|e| e.to_string())?;
    let all = Filters {
        deleted: crate::search::DeletedFilter::Include,
        ..Filters::default()
    };
    let span = |field| {
        memories
            .histogram(&all, field, 1)
            .map_err(|e| e.to_string())
    };
    let created = span(NumericField::CreatedAt)?;
    let links = span(NumericField::RelationshipCount)?;
    let secs = |v: f64| crate::model::Timestamp((v * 1e9) as i64);
    Ok(Facets {
        types,
        tags,
        modules,
        max_relationships: links.max.max(0.0) as u32,
        created_span: (created.present > 0).then(|| (secs(created.min), secs(created.max))),
    })
}
