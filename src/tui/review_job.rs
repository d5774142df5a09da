//! The background job behind a queue page: the queues of a fresh snapshot, the page's
//! memories (and each pair's other memory), and every queue's count.

use super::action::Action;
use super::review::QueueRow;
use crate::model::Timestamp;
use crate::review::{Queue, Review, ReviewOptions};
use crate::search::{Hit, SearchResponse};
use crate::store::{Store, StoreResult};
use std::time::Instant;

/// Lists one page of `queue` and counts every queue, as of now.
pub fn run_review(
    store: &Store,
    generation: u64,
    queue: Queue,
    offset: usize,
    limit: usize,
) -> Action {
    let started = Instant::now();
    match read_page(store, queue, offset, limit) {
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

fn read_page(store: &Store, queue: Queue, offset: usize, limit: usize) -> StoreResult<Page> {
    let reader = store.read()?;
    let options = ReviewOptions::at(Timestamp::now());
    let review = Review::of(&reader, &options, &Queue::ALL)?;
    let entries = review.entries(queue);
    let mut hits = Vec::new();
    let mut rows = Vec::new();
    for e in entries.iter().skip(offset).take(limit) {
        let Some(memory) = reader.get_doc(e.doc)? else {
            continue;
        };
        let other = match &e.other {
            Some((doc, _)) => reader.get_doc(*doc)?,
            None => None,
        };
        let relationship_count = reader.relationship_count(&memory)?;
        hits.push(Hit {
            memory,
            relationship_count,
            score: e.similarity,
            match_quality: None,
            is_discovery: None,
        });
        rows.push(QueueRow {
            reason: e.reason.clone(),
            other,
            similarity: e.similarity,
        });
    }
    let counts = Queue::ALL.map(|q| review.count(q));
    let response = SearchResponse {
        total: entries.len(),
        hits,
        notice: None,
        damage: None,
    };
    Ok((response, rows, counts))
}
