//! The background job behind a queue page: one page of a review queue from the
//! collection (which keeps the queues current from the change log after each write,
//! whoever made it), narrowed to the browser's search, each pair's other memory, and
//! every queue's count.

use super::action::Action;
use super::review::QueueRow;
use crate::collection::Collection;
use crate::review::ReviewRequest;
use crate::search::SearchResponse;
use std::time::Instant;

/// Lists one page of a queue and counts every queue, as of now.
pub fn run_review(memories: &dyn Collection, generation: u64, request: &ReviewRequest) -> Action {
    let started = Instant::now();
    let page = match memories.review(request) {
        Ok(page) => page,
        Err(e) => return Action::StoreFailed(e.to_string()),
    };
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
    Action::ReviewDone {
        generation,
        response: SearchResponse {
            total: page.total,
            hits,
            notice: None,
            damage: None,
        },
        rows,
        counts: page.counts,
        elapsed: started.elapsed(),
    }
}
