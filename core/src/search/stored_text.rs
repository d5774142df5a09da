//! The literal and fuzzy engines over the haystack chunks of a store snapshot, for a
//! searcher that holds no text of its own (the planner's, answering before the
//! in-memory index is loaded). Only the chunks that hold memories of the filtered set
//! are read, each core reading its share, and the text is never copied; the matches
//! are the ones the in-memory engines find (`tests/search_plan.rs`).

use crate::index::haystacks::{self, FUZZY_TEXT, LITERAL_TEXT, Walk};
use crate::index::sealed::Sealed;
use crate::search::Stop;
use crate::search::corpus::Corpus;
use crate::search::engine;
use crate::search::fuzzy::{self, Best, Floor, Matched, Ranking};
use crate::search::literal;
use crate::search::order::Placed;
use crate::search::skim::FuzzyPattern;
use crate::store::StoreReader;
use memchr::memmem::Finder;
use std::cell::Cell;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

/// Calls `f` with the positions in `docs` of the documents of each chunk of `table`
/// that holds some at a position in `part`, the chunk's first document and the chunk,
/// in the order `walk` gives (reading only those chunks). `Some(true)` when every
/// document was found and `f` accepted each chunk (returned true); `None` when the
/// table cannot be read, a chunk is damaged, or `stop` said to stop before the last
/// chunk.
fn each_chunk(
    reader: &StoreReader,
    table: redb::TableDefinition<'static, u32, Sealed>,
    (docs, part): (&[u32], Range<usize>),
    walk: Walk,
    stop: Stop<'_>,
    mut f: impl FnMut(Range<usize>, u32, &haystacks::Chunk<'_>) -> bool,
) -> Option<bool> {
    let (Some(&first), Some(&last)) = (docs.get(part.start), docs.get(part.end.wrapping_sub(1)))
    else {
        return Some(true);
    };
    let table = reader.table(table).ok()?;
    // the positions not yet given to a chunk
    let mut left = part.clone();
    let mut accepted = true;
    let mut stopped = false;
    haystacks::walk_covering(&table, first..=last, walk, |chunk, c| {
        if stop() {
            stopped = true;
            return false;
        }
        let holds = |pos: usize| docs[pos] >= chunk && ((docs[pos] - chunk) as usize) < c.len();
        let held = match walk {
            Walk::OldestFirst => {
                let start = left.start;
                while left.start < left.end && holds(left.start) {
                    left.start += 1;
                }
                start..left.start
            }
            Walk::NewestFirst => {
                let end = left.end;
                while left.start < left.end && holds(left.end - 1) {
                    left.end -= 1;
                }
                left.end..end
            }
        };
        if !held.is_empty() {
            accepted &= f(held, chunk, c);
        }
        true
    })
    .ok()?;
    if stopped {
        return None;
    }
    Some(accepted && left.is_empty())
}

/// [`each_chunk`] of the literal haystacks one document at a time: `f` gets its
/// position in `docs`, its chunk's first document, the chunk and its slot in it, and
/// says whether it is whole.
fn each_literal(
    reader: &StoreReader,
    (docs, part): (&[u32], Range<usize>),
    stop: Stop<'_>,
    mut f: impl FnMut(usize, u32, &haystacks::Chunk<'_>, usize) -> bool,
) -> Option<bool> {
    each_chunk(
        reader,
        LITERAL_TEXT,
        (docs, part),
        Walk::OldestFirst,
        stop,
        |positions, chunk, c| {
            let mut accepted = true;
            for pos in positions {
                accepted &= f(pos, chunk, c, (docs[pos] - chunk) as usize);
            }
            accepted
        },
    )
}

/// The literal engine (SPEC §3.2, with its OR fallback) over the memories stored under
/// `docs` (ascending); a match's slot is its position in `docs`. `None` when a haystack
/// is missing or damaged, or `stop` stopped the scan.
pub(crate) fn literal(
    reader: &StoreReader,
    docs: &[u32],
    words: &[String],
    stop: Stop<'_>,
) -> Option<literal::LiteralOutcome> {
    if let Some(holding) = crate::search::literal_postings::word_docs(reader, words) {
        let counts = crate::search::literal_postings::counts(docs, &holding);
        return Some(literal::from_counts(&counts, words.len()));
    }
    // counted chunk by chunk as they are read (one pass per word over a chunk's text)
    let finders: Vec<Finder<'_>> = words.iter().map(|w| Finder::new(w.as_bytes())).collect();
    let incomplete = AtomicBool::new(false);
    let counts: Vec<(u32, u32)> = engine::in_parts(docs.len(), |part| {
        let mut counts = Vec::new();
        let mut in_chunk: Option<(u32, Vec<u32>)> = None;
        let whole = each_literal(reader, (docs, part), stop, |pos, chunk, c, slot| {
            if in_chunk.as_ref().is_none_or(|(n, _)| *n != chunk) {
                let mut words_in = vec![0u32; c.len()];
                for (f, w) in finders.iter().zip(words) {
                    c.hits(f, w.len(), |s| words_in[s] += 1);
                }
                in_chunk = Some((chunk, words_in));
            }
            let n = in_chunk.as_ref().map_or(0, |(_, w)| w[slot]);
            if n > 0 {
                counts.push((pos as u32, n));
            }
            !c.get(slot).is_empty()
        });
        if whole != Some(true) {
            incomplete.store(true, Ordering::Relaxed);
        }
        counts
    });
    if incomplete.load(Ordering::Relaxed) {
        return None;
    }
    Some(literal::from_counts(&counts, words.len()))
}

/// The fuzzy engine over the memories stored under `docs` (ascending), each chunk's
/// haystacks tested where they are stored, scored as `ranking` asks (as the loaded
/// engine scores them, [`fuzzy::run`]); a match's slot is its position in `docs`, and
/// `rank` gives the time rank of a position (asked only when the ranking keeps a list).
/// `None` when a haystack is missing or damaged, or `stop` stopped the scan.
pub(crate) fn fuzzy(
    reader: &StoreReader,
    docs: &[u32],
    (query, ranking): (&str, Ranking),
    rank: &(dyn Fn(u32) -> u32 + Sync),
    stop: Stop<'_>,
) -> Option<fuzzy::Found> {
    let pattern = FuzzyPattern::new(query);
    let floor = Floor::default();
    let incomplete = AtomicBool::new(false);
    let parts = engine::in_pieces(docs.len(), |part| {
        let mut found = Vec::new();
        let mut best = Best::new(ranking, &floor);
        let mut matched = Matched::new(best.ranks());
        // newest first, as the loaded scan walks: a tie in score goes to the newer
        // memory, so the floor settles early
        let walk = Walk::NewestFirst;
        let whole = each_chunk(
            reader,
            FUZZY_TEXT,
            (docs, part),
            walk,
            stop,
            |positions, chunk, c| {
                let slot = |pos: u32| (docs[pos as usize] - chunk) as usize;
                // a memory of the set without a haystack: the chunk is damaged
                if positions
                    .clone()
                    .any(|pos| c.get(slot(pos as u32)).is_empty())
                {
                    return false;
                }
                // a haystack is checked as UTF-8 when it is scored (the subsequence test
                // reads bytes), and only then: most are never scored; one that is not
                // UTF-8 is damage
                let (first, last) = (slot(positions.start as u32), slot(positions.end as u32 - 1));
                let damaged = Cell::new(false);
                let hay = |pos: u32| {
                    std::str::from_utf8(c.get(slot(pos))).unwrap_or_else(|_| {
                        damaged.set(true);
                        ""
                    })
                };
                let len = |pos: u32| c.get(slot(pos)).len();
                // the positions whose haystack holds the pattern, found in one pass over
                // the chunk's text, are the only ones worth scoring
                let (within, mut at) = (&docs[positions.clone()], 0);
                matched.clear();
                let one_pass = pattern.matches_in(
                    c.text(),
                    first..last + 1,
                    |s| c.start_of(s),
                    |s, greedy| {
                        if fuzzy::reaches(within, &mut at, chunk + s as u32) {
                            matched.push((positions.start + at) as u32, greedy);
                        }
                    },
                );
                match one_pass {
                    Some(()) => best.scan(
                        &pattern,
                        matched.newest_first(),
                        rank,
                        (hay, len),
                        &mut found,
                    ),
                    None => {
                        let rev = (positions.start as u32..positions.end as u32).rev();
                        let untested = rev.map(|pos| (pos, None));
                        best.scan(&pattern, untested, rank, (hay, len), &mut found)
                    }
                }
                !damaged.get()
            },
        );
        if whole != Some(true) {
            incomplete.store(true, Ordering::Relaxed);
        }
        found.reverse();
        vec![(found, best.kept())]
    });
    if incomplete.load(Ordering::Relaxed) {
        return None;
    }
    Some(fuzzy::Found::of_parts(parts, ranking))
}

/// Scores the page's fuzzy matches, cut from unscored ones ([`Ranking::Page`]),
/// reading their haystacks from the snapshot; `None` when one cannot be read.
pub(crate) fn score_page(
    reader: &StoreReader,
    c: &Corpus,
    query: &str,
    page: &mut [Placed],
) -> Option<()> {
    let pattern = FuzzyPattern::new(query);
    let table = reader.table(FUZZY_TEXT).ok()?;
    let mut chunks = haystacks::ChunkCursor::new(&table);
    for (m, _) in page {
        let text = chunks.get(c.docs[m.slot as usize]).ok()??;
        if let Some(score) = pattern.score(std::str::from_utf8(text).ok()?) {
            m.score = score as f64;
        }
    }
    Some(())
}
