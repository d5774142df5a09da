//! The fuzzy engine: skim's score (see [`crate::search::skim`]) of each memory's
//! headline, tags and id (SPEC §3.2).

use crate::search::corpus::Corpus;
use crate::search::engine::{Match, scan};
use crate::search::skim::FuzzyPattern;

/// Scores every memory of `set` (ascending slots) with `query` as the pattern.
pub(crate) fn search(c: &Corpus, set: &[u32], query: &str) -> Vec<Match> {
    search_in(set, query, |slot| c.fuzzy.get(slot as usize))
}

/// [`search`] over any haystacks: `hay` gives the fuzzy haystack of each number in `set`.
pub(crate) fn search_in<'h>(
    set: &[u32],
    query: &str,
    hay: impl Fn(u32) -> &'h str + Sync,
) -> Vec<Match> {
    let pattern = FuzzyPattern::new(query);
    scan(set, |slot| {
        pattern.score(hay(slot)).map(|score| Match {
            slot,
            score: score as f64,
        })
    })
}
