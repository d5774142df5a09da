//! Answers read straight from the persisted index, without loading the store: the
//! time-ordered list, and literal, BM25 and fuzzy relevance, under the default filters
//! (any `deleted` choice). The facts give the filtered set, the postings BM25's
//! statistics and matches, the haystack chunks the text literal and fuzzy search, and
//! only the page's memories are decoded. Any other request (another mode or filter, or
//! a store whose index is not current or is damaged) is left to
//! [`Searcher`](crate::search::Searcher): this module answers `None` then, and never a
//! different list.

use crate::index::facts::{self, FACTS, Fact, Totals};
use crate::index::haystacks::{self, HAYSTACKS};
use crate::index::index_is_current;
use crate::index::tokenize::{literal_words, query_tokens};
use crate::search::corpus::ByteArena;
use crate::search::request::{
    BrowseMode, DeletedFilter, Engine, Filters, Hit, MatchQuality, Order, SearchRequest,
    SearchResponse,
};
use crate::search::searcher::storage;
use crate::search::{bm25, engine, fuzzy, literal};
use crate::store::tables::META;
use crate::store::{StoreReader, StoreResult};
use memchr::memmem::Finder;
use std::cmp::Ordering;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};

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
    /// BM25 relevance with these distinct query tokens, or literal relevance with these
    /// words when nothing ranks.
    Bm25 {
        terms: Vec<String>,
        words: Vec<String>,
    },
    /// Literal relevance with these distinct lowercased words.
    Literal(Vec<String>),
    /// Fuzzy relevance with this pattern.
    Fuzzy(String),
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
    if req.mode != BrowseMode::Relevance || req.order == Some(Order::Asc) {
        return None;
    }
    Some(match req.engine {
        Engine::Bm25 => Plan::Bm25 {
            terms: query_tokens(&req.query),
            words: literal_words(&req.query),
        },
        Engine::Literal => Plan::Literal(literal_words(&req.query)),
        Engine::Fuzzy => Plan::Fuzzy(req.query.clone()),
    })
}

/// One page's worth of what an engine found, before the page is cut.
struct Found {
    sorted: Sorted,
    scored: bool,
    quality: Option<MatchQuality>,
    notice: Option<&'static str>,
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
    let kept = || -> StoreResult<Vec<(u32, Fact)>> {
        let table = reader
            .txn()
            .open_table(FACTS)
            .map_err(|e| storage(reader, e))?;
        let mut kept = Vec::new();
        facts::for_each(&table, |doc, fact| {
            if passes(&fact, req.filters.deleted) {
                kept.push((doc, fact));
            }
        })
        .map_err(|e| storage(reader, e))?;
        Ok(kept)
    };
    let found = match plan {
        Plan::Browse(order) => {
            let c = kept()?
                .iter()
                .map(|&(doc, f)| Candidate {
                    doc,
                    score: 0.0,
                    created: f.created_at,
                })
                .collect::<Vec<_>>();
            Some(Found {
                sorted: Sorted::ByTime(order, c),
                scored: false,
                quality: None,
                notice: None,
            })
        }
        Plan::Bm25 { terms, words } => match score(reader, req.filters.deleted, &terms)? {
            Some(hits) if !hits.is_empty() => Some(Found {
                sorted: Sorted::ByScore(hits),
                scored: true,
                quality: None,
                notice: None,
            }),
            Some(_) => literal(reader, &kept()?, &words, Some(bm25::FALLBACK_NOTICE)),
            None => None,
        },
        Plan::Literal(words) => literal(reader, &kept()?, &words, None),
        Plan::Fuzzy(pattern) => fuzzy(reader, &kept()?, &pattern),
    };
    match found {
        Some(found) => page(reader, found, req.offset, req.limit),
        None => Ok(None),
    }
}

/// Calls `f` with the position in `kept`, the chunk's first document, the chunk and
/// the slot in it of every kept memory at a position in `part`, in order (reading only
/// the chunks those memories are in). `Some(true)` when every one was found and `f`
/// accepted each (returned true); `None` when the table cannot be read or a chunk is
/// damaged.
fn each_haystack(
    reader: &StoreReader,
    kept: &[(u32, Fact)],
    part: Range<usize>,
    mut f: impl FnMut(usize, u32, &haystacks::Chunk<'_>, usize) -> bool,
) -> Option<bool> {
    let (Some(first), Some(last)) = (kept.get(part.start), kept.get(part.end.wrapping_sub(1)))
    else {
        return Some(true);
    };
    let table = reader.txn().open_table(HAYSTACKS).ok()?;
    let mut next = part.start;
    let mut accepted = true;
    haystacks::for_each_covering(&table, first.0..=last.0, |chunk, c| {
        while next < part.end {
            let doc = kept[next].0;
            let slot = doc.wrapping_sub(chunk) as usize;
            if doc < chunk || slot >= c.len() {
                break;
            }
            accepted &= f(next, chunk, c, slot);
            next += 1;
        }
    })
    .ok()?;
    Some(accepted && next == part.end)
}

/// The fuzzy haystacks of the kept memories, in their order; `None` when one is missing
/// or damaged.
fn fuzzy_haystacks(reader: &StoreReader, kept: &[(u32, Fact)]) -> Option<ByteArena> {
    let mut out = ByteArena::new();
    let whole = each_haystack(reader, kept, 0..kept.len(), |_, _, c, slot| {
        out.push(c.fuzzy(slot));
        !c.fuzzy(slot).is_empty()
    })?;
    (whole && std::str::from_utf8(&out.bytes).is_ok()).then_some(out)
}

/// The candidates of the matches an engine found among the kept memories.
fn candidates(kept: &[(u32, Fact)], matches: Vec<engine::Match>) -> Vec<Candidate> {
    matches
        .into_iter()
        .map(|m| {
            let (doc, fact) = kept[m.slot as usize];
            Candidate {
                doc,
                score: m.score,
                created: fact.created_at,
            }
        })
        .collect()
}

/// The literal engine over the kept memories (SPEC §3.2, with its OR fallback);
/// `fallback` is the notice when it stands in for BM25.
fn literal(
    reader: &StoreReader,
    kept: &[(u32, Fact)],
    words: &[String],
    fallback: Option<&'static str>,
) -> Option<Found> {
    // counted chunk by chunk as they are read (one pass per word over a chunk's text),
    // each core reading its share of the chunks: the text is never copied
    let finders: Vec<Finder<'_>> = words.iter().map(|w| Finder::new(w.as_bytes())).collect();
    let incomplete = AtomicBool::new(false);
    let counts: Vec<(u32, u32)> = engine::in_parts(kept.len(), |part| {
        let mut counts = Vec::new();
        let mut in_chunk: Option<(u32, Vec<u32>)> = None;
        let whole = each_haystack(reader, kept, part, |pos, chunk, c, slot| {
            if in_chunk.as_ref().is_none_or(|(n, _)| *n != chunk) {
                let mut words_in = vec![0u32; c.len()];
                for (f, w) in finders.iter().zip(words) {
                    c.literal_hits(f, w.len(), |s| words_in[s] += 1);
                }
                in_chunk = Some((chunk, words_in));
            }
            let n = in_chunk.as_ref().map_or(0, |(_, w)| w[slot]);
            if n > 0 {
                counts.push((pos as u32, n));
            }
            !c.literal(slot).is_empty()
        });
        if whole != Some(true) {
            incomplete.store(true, AtomicOrdering::Relaxed);
        }
        counts
    });
    if incomplete.load(AtomicOrdering::Relaxed) {
        return None;
    }
    let found = literal::from_counts(&counts, words.len());
    let outcome = engine::literal_outcome(found, fallback);
    Some(Found {
        sorted: Sorted::ByScore(candidates(kept, outcome.matches)),
        scored: outcome.scored,
        quality: outcome.quality,
        notice: outcome.notice,
    })
}

/// The fuzzy engine over the kept memories.
fn fuzzy(reader: &StoreReader, kept: &[(u32, Fact)], pattern: &str) -> Option<Found> {
    let hay = fuzzy_haystacks(reader, kept)?;
    let all: Vec<u32> = (0..kept.len() as u32).collect();
    let matches = fuzzy::search_in(&all, pattern, |p| {
        std::str::from_utf8(hay.get(p as usize)).unwrap_or_default()
    });
    Some(Found {
        sorted: Sorted::ByScore(candidates(kept, matches)),
        scored: true,
        quality: None,
        notice: None,
    })
}

/// Whether a memory passes the default filters with this `deleted` choice (session
/// recaps are hidden unless the types filter names them, and it names none here).
fn passes(fact: &Fact, deleted: DeletedFilter) -> bool {
    deleted.keeps(fact.deleted) && !fact.session_recap
}

/// The BM25 score of every memory the default filters keep (with this `deleted`
/// choice) that holds a query term, exactly as [`bm25::search`] computes it: N and
/// avgdl from the stored totals, df and the frequencies from the postings, the facts
/// of those memories only; scores above zero. `None` when the totals or a postings
/// block cannot be read.
fn score(
    reader: &StoreReader,
    deleted: DeletedFilter,
    terms: &[String],
) -> StoreResult<Option<Vec<Candidate>>> {
    let meta = reader
        .txn()
        .open_table(META)
        .map_err(|e| storage(reader, e))?;
    let Some(t) = Totals::read(&meta).map_err(|e| storage(reader, e))? else {
        return Ok(None);
    };
    let (n, total) = match deleted {
        DeletedFilter::Exclude => (t.live, t.live_length),
        DeletedFilter::Only => (t.deleted, t.deleted_length),
        DeletedFilter::Include => (t.live + t.deleted, t.live_length + t.deleted_length),
    };
    if n == 0 || terms.is_empty() {
        return Ok(Some(Vec::new()));
    }
    let (n, avgdl) = (n as f64, total as f64 / n as f64);
    let Some(lists) = bm25::read_persisted(reader, terms) else {
        return Ok(None);
    };
    let mut docs: Vec<u32> = lists.iter().flatten().map(|&(doc, _)| doc).collect();
    docs.sort_unstable();
    docs.dedup();
    let table = reader
        .txn()
        .open_table(FACTS)
        .map_err(|e| storage(reader, e))?;
    let facts = facts::get_many(&table, &docs).map_err(|e| storage(reader, e))?;
    if facts.iter().any(Option::is_none) {
        // every document of the postings holds a memory, which has its facts: a chunk
        // that cannot be found is damage, not a memory that is not there
        let lost = redb::StorageError::Corrupted("a facts chunk of the index is missing".into());
        return Err(storage(reader, lost));
    }
    // every document of the lists is in `docs`, and they come in the same order
    let mut pos = 0;
    let found = bm25::gather(lists.iter().map(|l| l.iter().copied()), |doc| {
        while docs[pos] < doc {
            pos += 1;
        }
        facts[pos]
            .filter(|f| passes(f, deleted))
            .map(|_| pos as u32)
    });
    let fact = |pos: u32| facts[pos as usize].unwrap_or(NO_FACT);
    let hits = bm25::rank(&found, n, avgdl, |pos| f64::from(fact(pos).length))
        .into_iter()
        .map(|(pos, score)| Candidate {
            doc: docs[pos as usize],
            score,
            created: fact(pos).created_at,
        })
        .collect();
    Ok(Some(hits))
}

/// Stands in for a fact that `gather` never hands out (it keeps only stored memories).
const NO_FACT: Fact = Fact {
    deleted: false,
    session_recap: false,
    length: 0,
    created_at: 0,
};

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
    found: Found,
    offset: usize,
    limit: usize,
) -> StoreResult<Option<SearchResponse>> {
    let Found {
        sorted,
        scored,
        quality,
        notice,
    } = found;
    let cmp = before(&sorted);
    let (Sorted::ByTime(_, mut all) | Sorted::ByScore(mut all)) = sorted;
    let total = all.len();
    let upto = offset.saturating_add(limit).min(total);
    if upto == 0 {
        return Ok(Some(SearchResponse {
            total,
            hits: Vec::new(),
            notice: notice.map(str::to_string),
            damage: None,
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
            match_quality: quality,
            is_discovery: None,
            memory,
        });
    }
    Ok(Some(SearchResponse {
        total,
        hits,
        notice: notice.map(str::to_string),
        damage: None,
    }))
}
