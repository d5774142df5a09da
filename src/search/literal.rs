//! The literal engine: case-insensitive substrings of the searched fields, every word
//! first, any word when no memory has them all (SPEC §3.2).

use crate::search::corpus::Corpus;
use crate::search::engine::{Match, scan};
use memchr::memmem::Finder;

/// The notice shown when the literal engine falls back to partial matches.
pub const PARTIAL_NOTICE: &str = "no memory matches every word; showing partial matches";

/// What the literal engine found.
pub(crate) struct LiteralOutcome {
    /// The matches; `score` is the number of words matched.
    pub matches: Vec<Match>,
    /// True when these are the OR fallback's partial matches.
    pub partial: bool,
}

/// The memories of `slots` that contain every word (no fallback).
pub(crate) fn all_words(c: &Corpus, slots: &[u32], words: &[String]) -> Vec<Match> {
    let finders: Vec<Finder<'_>> = words.iter().map(|w| Finder::new(w.as_bytes())).collect();
    let all = words.len() as f64;
    scan(slots, |slot| {
        let hay = c.literal.get(slot as usize);
        finders
            .iter()
            .all(|f| f.find(hay).is_some())
            .then_some(Match { slot, score: all })
    })
}

/// Runs the literal engine over `set` (ascending slots) for distinct lowercased `words`.
/// `within`, when given, is a subset of `set` known to hold every memory that matches
/// all the words (from a previous, narrower query); the OR fallback always scans `set`.
pub(crate) fn search(
    c: &Corpus,
    set: &[u32],
    within: Option<&[u32]>,
    words: &[String],
) -> LiteralOutcome {
    search_in(set, within, words, |slot| c.literal.get(slot as usize))
}

/// [`search`] over any haystacks: `hay` gives the lowercased literal haystack of each
/// number in `set`.
pub(crate) fn search_in<'h>(
    set: &[u32],
    within: Option<&[u32]>,
    words: &[String],
    hay: impl Fn(u32) -> &'h [u8] + Sync,
) -> LiteralOutcome {
    let finders: Vec<Finder<'_>> = words.iter().map(|w| Finder::new(w.as_bytes())).collect();
    let all = words.len() as f64;
    let mut matches = scan(within.unwrap_or(set), |slot| {
        let hay = hay(slot);
        finders
            .iter()
            .all(|f| f.find(hay).is_some())
            .then_some(Match { slot, score: all })
    });
    if !matches.is_empty() || words.len() < 2 {
        return LiteralOutcome {
            matches,
            partial: false,
        };
    }
    matches = scan(set, |slot| {
        let hay = hay(slot);
        let n = finders.iter().filter(|f| f.find(hay).is_some()).count();
        (n > 0).then_some(Match {
            slot,
            score: n as f64,
        })
    });
    let partial = !matches.is_empty();
    LiteralOutcome { matches, partial }
}

/// The outcome of [`search_in`] over a whole set, given how many of the `words` each
/// memory contains, as (number, count) pairs in ascending numbers: every word first,
/// any word when no memory has them all.
pub(crate) fn from_counts(counts: &[(u32, u32)], words: usize) -> LiteralOutcome {
    let with = |keep: &dyn Fn(u32) -> bool| -> Vec<Match> {
        counts
            .iter()
            .filter(|&&(_, n)| keep(n))
            .map(|&(slot, n)| Match {
                slot,
                score: f64::from(n),
            })
            .collect()
    };
    let all = with(&|n| n as usize == words);
    if !all.is_empty() || words < 2 {
        return LiteralOutcome {
            matches: all,
            partial: false,
        };
    }
    let matches = with(&|n| n > 0);
    let partial = !matches.is_empty();
    LiteralOutcome { matches, partial }
}
