//! The fuzzy engine: skim's matcher on each memory's headline, tags and id (SPEC §3.2).

use crate::search::corpus::Corpus;
use crate::search::engine::{Match, scan};
use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;

/// Runs the matcher over `set` (ascending slots) with `query` as the pattern.
pub(crate) fn search(c: &Corpus, set: &[u32], query: &str) -> Vec<Match> {
    let matcher = SkimMatcherV2::default();
    scan(set, |slot| {
        matcher
            .fuzzy_match(c.fuzzy.get(slot as usize), query)
            .map(|score| Match {
                slot,
                score: score as f64,
            })
    })
}
