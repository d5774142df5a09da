//! The literal and fuzzy engines over the haystack chunks of a store snapshot, for a
//! searcher that holds no text of its own (the planner's, answering before the
//! in-memory index is loaded). Only the chunks that hold memories of the filtered set
//! are read, each core reading its share, and the text is never copied; the matches
//! are the ones the in-memory engines find (`tests/search_plan.rs`).

use crate::index::haystacks::{self, HAYSTACKS};
use crate::search::engine::{self, Match};
use crate::search::literal;
use crate::search::skim::FuzzyPattern;
use crate::store::StoreReader;
use memchr::memmem::Finder;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

/// Calls `f` with the position in `docs`, the chunk's first document, the chunk and the
/// slot in it of every document at a position in `part`, in order (reading only the
/// chunks those documents are in). `Some(true)` when every one was found and `f`
/// accepted each (returned true); `None` when the table cannot be read or a chunk is
/// damaged.
fn each_haystack(
    reader: &StoreReader,
    docs: &[u32],
    part: Range<usize>,
    mut f: impl FnMut(usize, u32, &haystacks::Chunk<'_>, usize) -> bool,
) -> Option<bool> {
    let (Some(&first), Some(&last)) = (docs.get(part.start), docs.get(part.end.wrapping_sub(1)))
    else {
        return Some(true);
    };
    let table = reader.txn().open_table(HAYSTACKS).ok()?;
    let mut next = part.start;
    let mut accepted = true;
    haystacks::for_each_covering(&table, first..=last, |chunk, c| {
        while next < part.end {
            let doc = docs[next];
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

/// The literal engine (SPEC §3.2, with its OR fallback) over the memories stored under
/// `docs` (ascending); a match's slot is its position in `docs`. `None` when a haystack
/// is missing or damaged.
pub(crate) fn literal(
    reader: &StoreReader,
    docs: &[u32],
    words: &[String],
) -> Option<literal::LiteralOutcome> {
    // counted chunk by chunk as they are read (one pass per word over a chunk's text)
    let finders: Vec<Finder<'_>> = words.iter().map(|w| Finder::new(w.as_bytes())).collect();
    let incomplete = AtomicBool::new(false);
    let counts: Vec<(u32, u32)> = engine::in_parts(docs.len(), |part| {
        let mut counts = Vec::new();
        let mut in_chunk: Option<(u32, Vec<u32>)> = None;
        let whole = each_haystack(reader, docs, part, |pos, chunk, c, slot| {
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
            incomplete.store(true, Ordering::Relaxed);
        }
        counts
    });
    if incomplete.load(Ordering::Relaxed) {
        return None;
    }
    Some(literal::from_counts(&counts, words.len()))
}

/// The fuzzy engine over the memories stored under `docs` (ascending), every match
/// scored, each chunk's haystacks scored where they are stored; a match's slot is its
/// position in `docs`. `None` when a haystack is missing or damaged.
pub(crate) fn fuzzy(reader: &StoreReader, docs: &[u32], pattern: &str) -> Option<Vec<Match>> {
    let pattern = FuzzyPattern::new(pattern);
    let incomplete = AtomicBool::new(false);
    let matches = engine::in_parts(docs.len(), |part| {
        let mut found = Vec::new();
        let whole = each_haystack(reader, docs, part, |pos, _, c, slot| {
            let Ok(hay) = std::str::from_utf8(c.fuzzy(slot)) else {
                return false;
            };
            if let Some(score) = pattern.score(hay) {
                found.push(Match {
                    slot: pos as u32,
                    score: score as f64,
                });
            }
            !hay.is_empty()
        });
        if whole != Some(true) {
            incomplete.store(true, Ordering::Relaxed);
        }
        found
    });
    (!incomplete.load(Ordering::Relaxed)).then_some(matches)
}
