//! Answers read straight from the persisted index, without loading the store: the
//! time-ordered list and BM25 relevance under the default filters (any `deleted`
//! choice). Only the page's memories are decoded, so the cost follows the number of
//! memories a query touches, not the size of the store. Any other request, a store
//! whose index is not current, or a BM25 query without a ranked hit (which falls back
//! to literal matches) is left to [`Searcher`](crate::search::Searcher): this module
//! answers `None` and never a different list.

use crate::index::facts::{self, FACTS, Fact};
use crate::index::index_is_current;
use crate::index::postings::{self, POSTINGS};
use crate::index::tokenize::query_tokens;
use crate::search::bm25;
use crate::search::request::{
    BrowseMode, DeletedFilter, Engine, Filters, Hit, Order, SearchRequest, SearchResponse,
};
use crate::store::{StoreError, StoreReader, StoreResult};
use std::cmp::Ordering;

/// A candidate for the page: its document, relevance (0 when browsing) and created_at.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    doc: u32,
    score: f64,
    created: i64,
}

/// What a request asks of the quick path, when it can answer it.
enum Plan {
    /// No query: by created_at in this direction.
    Browse(Order),
    /// BM25 relevance with these distinct query tokens.
    Bm25(Vec<String>),
}

fn plan(req: &SearchRequest) -> Option<Plan> {
    let defaults = Filters {
        deleted: req.filters.deleted,
        ..Filters::default()
    };
    if req.filters != defaults {
        return None;
    }
    if req.query.trim().is_empty() {
        return match req.mode {
            BrowseMode::Relevance | BrowseMode::Time => {
                Some(Plan::Browse(req.order.unwrap_or(Order::Desc)))
            }
            _ => None,
        };
    }
    let relevance = req.mode == BrowseMode::Relevance && req.order != Some(Order::Asc);
    if req.engine != Engine::Bm25 || !relevance {
        return None;
    }
    let terms = query_tokens(&req.query);
    (!terms.is_empty()).then_some(Plan::Bm25(terms))
}

fn storage(reader: &StoreReader, e: impl std::fmt::Display) -> StoreError {
    crate::search::searcher::storage(reader, e)
}

/// Answers `req` from the persisted index when it can; `Ok(None)` when the request
/// needs the full searcher. The answer is the one [`Searcher::search`] gives.
///
/// [`Searcher::search`]: crate::search::Searcher::search
pub fn answer(reader: &StoreReader, req: &SearchRequest) -> StoreResult<Option<SearchResponse>> {
    let Some(plan) = plan(req) else {
        return Ok(None);
    };
    if !index_is_current(reader.txn()).map_err(|e| storage(reader, e))? {
        return Ok(None);
    }
    let facts_table = reader
        .txn()
        .open_table(FACTS)
        .map_err(|e| storage(reader, e))?;
    let mut kept: Vec<(u32, Fact)> = Vec::new();
    facts::for_each(&facts_table, |doc, fact| {
        if passes(&fact, req.filters.deleted) {
            kept.push((doc, fact));
        }
    })
    .map_err(|e| storage(reader, e))?;
    let (candidates, scored) = match plan {
        Plan::Browse(order) => {
            let c = kept
                .iter()
                .map(|&(doc, f)| Candidate {
                    doc,
                    score: 0.0,
                    created: f.created_at,
                })
                .collect::<Vec<_>>();
            (Sorted::ByTime(order, c), false)
        }
        Plan::Bm25(terms) => match score(reader, &kept, &terms)? {
            Some(hits) if !hits.is_empty() => (Sorted::ByScore(hits), true),
            _ => return Ok(None),
        },
    };
    page(reader, candidates, scored, req.offset, req.limit)
}

/// Whether a memory passes the default filters with this `deleted` choice (session
/// recaps are hidden unless the types filter names them, and it names none here).
fn passes(fact: &Fact, deleted: DeletedFilter) -> bool {
    let deleted_ok = match deleted {
        DeletedFilter::Exclude => !fact.deleted,
        DeletedFilter::Include => true,
        DeletedFilter::Only => fact.deleted,
    };
    deleted_ok && !fact.session_recap
}

/// The BM25 score of every kept memory holding a query term, exactly as
/// [`bm25::search`] computes it (N, df and avgdl over the kept memories; terms summed
/// in query order); only scores above zero. `None` when a postings block is damaged.
fn score(
    reader: &StoreReader,
    kept: &[(u32, Fact)],
    terms: &[String],
) -> StoreResult<Option<Vec<Candidate>>> {
    let n = kept.len() as f64;
    if kept.is_empty() {
        return Ok(Some(Vec::new()));
    }
    let total: u64 = kept.iter().map(|(_, f)| u64::from(f.length)).sum();
    let avgdl = total as f64 / n;
    let table = reader
        .txn()
        .open_table(POSTINGS)
        .map_err(|e| storage(reader, e))?;
    // document → position in `kept`
    let last = kept.last().map_or(0, |(d, _)| *d as usize);
    let mut pos_of = vec![u32::MAX; last + 1];
    for (pos, (doc, _)) in kept.iter().enumerate() {
        pos_of[*doc as usize] = pos as u32;
    }
    // (position in `kept`, tf of each query term), in the order first found
    let mut found: Vec<(usize, Vec<u32>)> = Vec::new();
    let mut at = vec![u32::MAX; kept.len()];
    let mut df = vec![0usize; terms.len()];
    for (k, term) in terms.iter().enumerate() {
        let Some(list) = postings::read_term(&table, term).map_err(|e| storage(reader, e))? else {
            return Ok(None);
        };
        for (doc, tf) in list {
            let pos = pos_of.get(doc as usize).copied().unwrap_or(u32::MAX);
            if pos == u32::MAX {
                continue;
            }
            df[k] += 1;
            let i = &mut at[pos as usize];
            if *i == u32::MAX {
                *i = found.len() as u32;
                found.push((pos as usize, vec![0; terms.len()]));
            }
            found[*i as usize].1[k] = tf;
        }
    }
    let idfs: Vec<f64> = df.iter().map(|&d| bm25::idf(n, d as f64)).collect();
    let hits = found
        .into_iter()
        .filter_map(|(pos, tfs)| {
            let (doc, fact) = kept[pos];
            let dl = f64::from(fact.length);
            let mut score = 0.0;
            for (&tf, &w) in tfs.iter().zip(&idfs) {
                if tf > 0 {
                    score += bm25::term_score(w, f64::from(tf), dl, avgdl);
                }
            }
            (score > 0.0).then_some(Candidate {
                doc,
                score,
                created: fact.created_at,
            })
        })
        .collect();
    Ok(Some(hits))
}

/// Candidates with the order they are to be listed in.
enum Sorted {
    /// By created_at in this direction.
    ByTime(Order, Vec<Candidate>),
    /// By score desc, then created_at desc.
    ByScore(Vec<Candidate>),
}

/// Orders two candidates by everything but the id (the last tie-break).
fn before(sorted: &Sorted) -> impl Fn(&Candidate, &Candidate) -> Ordering + use<> {
    let time_order = match sorted {
        Sorted::ByTime(order, _) => Some(*order),
        Sorted::ByScore(_) => None,
    };
    move |a, b| match time_order {
        Some(Order::Asc) => a.created.cmp(&b.created),
        Some(Order::Desc) => b.created.cmp(&a.created),
        None => b
            .score
            .total_cmp(&a.score)
            .then_with(|| b.created.cmp(&a.created)),
    }
}

/// Cuts the page `offset..offset + limit` and reads its memories. Only the memories
/// that can reach the page are decoded: those ranked above the page's end by score and
/// time, and those tied with its last one (their ids decide).
fn page(
    reader: &StoreReader,
    sorted: Sorted,
    scored: bool,
    offset: usize,
    limit: usize,
) -> StoreResult<Option<SearchResponse>> {
    let cmp = before(&sorted);
    let (Sorted::ByTime(_, mut all) | Sorted::ByScore(mut all)) = sorted;
    let total = all.len();
    let upto = offset.saturating_add(limit).min(total);
    if upto == 0 {
        return Ok(Some(SearchResponse {
            total,
            hits: Vec::new(),
            notice: None,
        }));
    }
    if upto < total {
        all.select_nth_unstable_by(upto - 1, &cmp);
        let boundary = all[upto - 1];
        let (head, tail) = all.split_at_mut(upto);
        let ties: Vec<Candidate> = tail
            .iter()
            .copied()
            .filter(|c| cmp(c, &boundary) == Ordering::Equal)
            .collect();
        let mut head = head.to_vec();
        head.extend(ties);
        all = head;
    }
    let mut read = Vec::with_capacity(all.len());
    for c in all {
        let Some(memory) = reader.get_doc(c.doc)? else {
            return Ok(None);
        };
        read.push((c, memory));
    }
    read.sort_by(|(a, ma), (b, mb)| cmp(a, b).then_with(|| ma.id.cmp(&mb.id)));
    let mut hits = Vec::with_capacity(upto - offset.min(upto));
    for (c, memory) in read.into_iter().take(upto).skip(offset) {
        hits.push(Hit {
            relationship_count: reader.relationship_count(&memory)?,
            score: scored.then_some(c.score),
            match_quality: None,
            is_discovery: None,
            memory,
        });
    }
    Ok(Some(SearchResponse {
        total,
        hits,
        notice: None,
    }))
}
