//! The background job behind a queue page: the queues brought up to date with the
//! store ([`LiveReview`]: listed once, then updated from the change log after each
//! write, whoever made it), narrowed to the browser's search, one page of them with
//! each pair's other memory, and every queue's count.

use super::action::Action;
use super::review::QueueRow;
use crate::model::Timestamp;
use crate::review::{LiveReview, ReviewOptions, ReviewRequest, request};
use crate::search::SearchResponse;
use crate::search::plan::{self, Index};
use crate::store::{Store, StoreResult};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

/// The queues the browser's pages are asked of, kept current across writes.
#[derive(Clone, Default)]
pub struct Reviews(Arc<Mutex<Option<LiveReview>>>);

/// Lists one page of a queue and counts every queue, as of now.
pub fn run_review(
    store: &Store,
    reviews: &Reviews,
    generation: u64,
    request: &ReviewRequest,
) -> Action {
    let started = Instant::now();
    match read_page(store, reviews, request) {
        Ok((response, rows, counts)) => Action::ReviewDone {
            generation,
            response,
            rows,
            counts,
            elapsed: started.elapsed(),
        },
        Err(e) => Action::StoreFailed(e.to_string()),
    }
}

type Page = (SearchResponse, Vec<QueueRow>, [Option<usize>; 6]);

fn read_page(store: &Store, reviews: &Reviews, req: &ReviewRequest) -> StoreResult<Page> {
    let reader = store.read()?;
    let matching = match req.narrows() {
        true => Some(plan::matching(Index::Stored(&reader), &req.narrow)?),
        false => None,
    };
    let mut kept = reviews.0.lock().unwrap_or_else(PoisonError::into_inner);
    let review = LiveReview::current(&mut kept, &reader, &ReviewOptions::at(Timestamp::now()))?;
    let page = request::page(&reader, review, req, matching.as_deref())?;
    let mut hits = Vec::with_capacity(page.items.len());
    let mut rows = Vec::with_capacity(page.items.len());
    for item in page.items {
        hits.push(item.hit);
        rows.push(QueueRow {
            reason: item.reason,
            other: item.other.map(|o| o.memory),
            similarity: item.similarity,
        });
    }
    let response = SearchResponse {
        total: page.total,
        hits,
        notice: None,
        damage: None,
    };
    Ok((response, rows, page.counts))
}
