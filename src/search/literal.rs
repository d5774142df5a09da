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
    let finders: Vec<Finder<'_>> = words.iter().map(|w| Finder::new(w.as_bytes())).collect();
    let all = words.len() as f64;
    let mut matches = scan(within.unwrap_or(set), |slot| {
        let hay = c.literal.get(slot as usize);
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
        let hay = c.literal.get(slot as usize);
        let n = finders.iter().filter(|f| f.find(hay).is_some()).count();
        (n > 0).then_some(Match {
            slot,
            score: n as f64,
        })
    });
    let partial = !matches.is_empty();
    LiteralOutcome { matches, partial }
}
