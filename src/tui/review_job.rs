//! The background job behind a queue page: the queues of a fresh snapshot, the page's
//! memories (and each pair's other memory), and every queue's count. The queues of the
//! last snapshot listed are kept while the store has not changed, so paging and moving
//! between queues do not scan the store again.

use super::action::Action;
use super::review::QueueRow;
use crate::model::Timestamp;
use crate::review::{Queue, Review, ReviewOptions};
use crate::search::{Hit, SearchResponse};
use crate::store::{Store, StoreResult};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The queues of the newest snapshot listed, shared by the pages asked of it.
#[derive(Clone, Default)]
pub struct Reviews(Arc<Mutex<Option<Kept>>>);

/// Queues as of one change of the store.
struct Kept {
    /// The store's change number they were listed at.
    change: u64,
    /// When: the stale queue depends on the clock, so they are kept a minute at most.
    at: Instant,
    review: Arc<Review>,
}

/// How long listed queues are kept while nothing changes.
const KEEP: Duration = Duration::from_secs(60);

impl Reviews {
    /// The queues of `reader`'s snapshot: the kept ones when the store has not changed
    /// since (and they are under a minute old), else listed anew and kept.
    fn of(&self, reader: &crate::store::StoreReader) -> StoreResult<Arc<Review>> {
        let change = reader.change_number()?;
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(k) = kept.as_ref()
            && k.change == change
            && k.at.elapsed() < KEEP
        {
            return Ok(k.review.clone());
        }
        let options = ReviewOptions::at(Timestamp::now());
        let review = Arc::new(Review::of(reader, &options, &Queue::ALL)?);
        *kept = Some(Kept {
            change,
            at: Instant::now(),
            review: review.clone(),
        });
        Ok(review)
    }
}

/// Lists one page of `queue` and counts every queue, as of now.
pub fn run_review(
    store: &Store,
    reviews: &Reviews,
    generation: u64,
    queue: Queue,
    offset: usize,
    limit: usize,
) -> Action {
    let started = Instant::now();
    match read_page(store, reviews, queue, offset, limit) {
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

fn read_page(
    store: &Store,
    reviews: &Reviews,
    queue: Queue,
    offset: usize,
    limit: usize,
) -> StoreResult<Page> {
    let reader = store.read()?;
    let review = reviews.of(&reader)?;
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
