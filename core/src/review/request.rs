//! A review queue as a request of the front door ([`crate::collection::Collection::review`]):
//! the queue, narrowed to what a search finds, one page of it; and the queues kept
//! current across snapshots ([`LiveReview`]) so that asking again after a write costs
//! the write, not a pass over the store.

use super::scan::{Entry, Review};
use super::update::UPDATE_AT_MOST;
use super::{Queue, ReviewOptions};
use crate::model::Memory;
use crate::search::output::hit_json;
use crate::search::{Filters, Hit, SearchRequest};
use crate::store::{Since, StoreReader, StoreResult};
use serde_json::{Map, Value, json};

/// One page of one queue, narrowed to a search.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewRequest {
    /// The queue.
    pub queue: Queue,
    /// Keeps the entries whose memory this search finds (a pair: either memory): its
    /// query, engine and filters. Its mode, order, offset and limit do not apply. With
    /// no query and no filter set the whole queue is kept.
    pub narrow: SearchRequest,
    /// Entries to skip.
    pub offset: usize,
    /// Entries to return at most.
    pub limit: usize,
    /// The project the memories are about, when there is one: a memory anchored to a
    /// file gone from it is stale.
    pub root: Option<std::path::PathBuf>,
}

impl ReviewRequest {
    /// The first `limit` entries of the whole of `queue`.
    pub fn of(queue: Queue, limit: usize) -> ReviewRequest {
        ReviewRequest {
            queue,
            narrow: SearchRequest::default(),
            offset: 0,
            limit,
            root: None,
        }
    }

    /// The search that narrows the queue: the request's, except that session recaps,
    /// which the queues hold like any memory, are not left out unless its filters name
    /// the types to keep (a query or a filter narrows the queue, never drops its
    /// recaps on the side).
    pub fn narrowing_search(&self) -> SearchRequest {
        let mut search = self.narrow.clone();
        if search.filters.types.is_empty() {
            search.filters.include_session_recap = true;
        }
        search
    }

    /// True when the request narrows the queue at all.
    pub fn narrows(&self) -> bool {
        !self.narrow.query.trim().is_empty() || self.narrow.filters != Filters::default()
    }
}

/// One entry of a page: the memory (as a search hit), why it waits, and for a pair the
/// other memory.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewItem {
    /// The memory (of a pair: the one to keep).
    pub hit: Hit,
    /// Why it is in the queue, in a few words.
    pub reason: String,
    /// The other memory of a pair: the one to merge or supersede.
    pub other: Option<Hit>,
    /// How alike the pair is (Jaccard of shingles; 1 for the same text).
    pub similarity: Option<f64>,
}

/// A page of a queue.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewPage {
    /// The queue.
    pub queue: Queue,
    /// Entries in the (narrowed) queue.
    pub total: usize,
    /// The page's entries, in the queue's order.
    pub items: Vec<ReviewItem>,
    /// Every queue's count, narrowed the same way, by [`Queue::index`].
    pub counts: [Option<usize>; 6],
}

/// The page `request` asks of `review`, read from `reader`'s snapshot. `matching`:
/// the record numbers the request's search finds (ascending), when it narrows.
pub fn page(
    reader: &StoreReader,
    review: &Review,
    request: &ReviewRequest,
    matching: Option<&[u32]>,
) -> StoreResult<ReviewPage> {
    let kept = |e: &Entry| {
        matching.is_none_or(|docs| {
            docs.binary_search(&e.doc).is_ok()
                || e.other
                    .as_ref()
                    .is_some_and(|(doc, _)| docs.binary_search(doc).is_ok())
        })
    };
    let counts = Queue::ALL.map(|q| {
        review.count(q).map(|n| match matching {
            None => n,
            Some(_) => review.entries(q).iter().filter(|e| kept(e)).count(),
        })
    });
    let entries = review.entries(request.queue).iter().filter(|e| kept(e));
    let mut items = Vec::new();
    for e in entries.skip(request.offset).take(request.limit) {
        let Some(memory) = reader.get_doc(e.doc)? else {
            continue;
        };
        let other = match &e.other {
            Some((doc, _)) => match reader.get_doc(*doc)? {
                Some(m) => Some(hit(reader, m, None)?),
                None => None,
            },
            None => None,
        };
        items.push(ReviewItem {
            hit: hit(reader, memory, e.similarity)?,
            reason: e.reason.clone(),
            other,
            similarity: e.similarity,
        });
    }
    Ok(ReviewPage {
        queue: request.queue,
        total: counts[request.queue.index()].unwrap_or(0),
        items,
        counts,
    })
}

/// A memory as a search hit (its relationship count read).
fn hit(reader: &StoreReader, memory: Memory, score: Option<f64>) -> StoreResult<Hit> {
    Ok(Hit {
        relationship_count: reader.relationship_count(&memory)?,
        memory,
        score,
        match_quality: None,
        is_discovery: None,
    })
}

impl ReviewItem {
    /// The entry as JSON: the memory's fields as `search --json` shows a result, the
    /// reason, and for a pair the other memory and how alike they are.
    pub fn json(&self) -> Map<String, Value> {
        let mut o = match hit_json(&brief(&self.hit), "") {
            Value::Object(o) => o,
            _ => Map::new(),
        };
        o.insert("reason".into(), self.reason.clone().into());
        if let Some(other) = &self.other {
            o.insert("other".into(), hit_json(other, ""));
        }
        if let Some(s) = self.similarity {
            o.insert("similarity".into(), json!((s * 1000.0).round() / 1000.0));
        }
        o
    }
}

/// The hit without its score (the similarity is shown as itself).
fn brief(hit: &Hit) -> Hit {
    Hit {
        score: None,
        ..hit.clone()
    }
}

/// Every queue, kept current across the snapshots it is asked of: updated from the
/// store's change log after a write (listed anew when the log cannot say what changed,
/// or names more than [`UPDATE_AT_MOST`] memories), its clock moved to now.
#[derive(Debug)]
pub struct LiveReview {
    /// The store's change number the queues hold.
    change: u64,
    review: Review,
}

impl LiveReview {
    /// The queues as of `reader`'s snapshot at `options.now`, from `kept` (updated in
    /// place) or listed anew into it (also when the project root is another).
    pub fn current<'k>(
        kept: &'k mut Option<LiveReview>,
        reader: &StoreReader,
        options: &ReviewOptions,
    ) -> StoreResult<&'k Review> {
        let change = reader.change_number()?;
        let fresh = match kept.as_mut() {
            Some(live) if live.review.options.root != options.root => true,
            Some(live) if live.change == change => false,
            Some(live) => match reader.changes_since(live.change)? {
                Since::Nothing => false,
                Since::Ids(ids) if ids.len() <= UPDATE_AT_MOST => {
                    live.review.update(reader, &ids)?;
                    false
                }
                Since::Ids(_) | Since::Everything => true,
            },
            None => true,
        };
        let live = match kept.take().filter(|_| !fresh) {
            Some(live) => live,
            None => LiveReview {
                change,
                review: Review::of(reader, options, &Queue::ALL)?,
            },
        };
        let live = kept.insert(live);
        live.change = change;
        live.review.tick(reader, options.now)?;
        Ok(&live.review)
    }
}
