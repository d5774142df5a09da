//! The literal engine: case-insensitive substrings of the searched fields, every word
//! first, any word when no memory has them all (SPEC §3.2).

use crate::search::corpus::{Corpus, PREFETCH_AHEAD, letter_bit};
use crate::search::engine::{Match, PARALLEL_FROM, in_parts, scan};
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

/// Runs the literal engine over `set` (ascending slots, `member` its membership by
/// slot) for distinct lowercased `words`. `within`, when given, is a subset of `set`
/// known to hold every memory that matches all the words (from a previous, narrower
/// query); the OR fallback always scans `set`.
pub(crate) fn search(
    c: &Corpus,
    set: &[u32],
    member: &[bool],
    within: Option<&[u32]>,
    words: &[String],
) -> LiteralOutcome {
    let candidates = within.unwrap_or(set);
    if let [word] = words
        && let Some(bit) = letter_bit(word)
    {
        // one letter: a byte below 0x80 never occurs inside another character's bytes,
        // so holding the letter is holding the word
        let letters = c.letters();
        return LiteralOutcome {
            matches: scan(candidates, |slot| {
                (letters[slot as usize] & bit != 0).then_some(Match { slot, score: 1.0 })
            }),
            partial: false,
        };
    }
    let matches = if candidates.len() >= c.len() / ONE_PASS_SHARE && c.len() >= PARALLEL_FROM {
        let narrowed: Vec<bool>;
        let keep: &[bool] = match within {
            Some(w) => {
                let mut inside = vec![false; c.len()];
                for &s in w {
                    inside[s as usize] = true;
                }
                narrowed = inside;
                &narrowed
            }
            None => member,
        };
        one_pass(c, keep, words)
    } else {
        all_words(c, candidates, words)
    };
    if !matches.is_empty() || words.len() < 2 {
        return LiteralOutcome {
            matches,
            partial: false,
        };
    }
    let matches = if set.len() >= c.len() / ONE_PASS_SHARE && c.len() >= PARALLEL_FROM {
        any_word_one_pass(c, member, words)
    } else {
        let finders: Vec<Finder<'_>> = words.iter().map(|w| Finder::new(w.as_bytes())).collect();
        scan(set, |slot| {
            let hay = c.literal.get(slot as usize);
            let n = finders.iter().filter(|f| f.find(hay).is_some()).count();
            (n > 0).then_some(Match {
                slot,
                score: n as f64,
            })
        })
    };
    let partial = !matches.is_empty();
    LiteralOutcome { matches, partial }
}

/// The memories `keep` holds that contain at least one of the words, scored by how
/// many, with one sweep of all the haystacks per word.
fn any_word_one_pass(c: &Corpus, keep: &[bool], words: &[String]) -> Vec<Match> {
    let mut counts = vec![0u32; c.len()];
    for w in words {
        for m in one_pass(c, keep, std::slice::from_ref(w)) {
            counts[m.slot as usize] += 1;
        }
    }
    (0u32..)
        .zip(counts)
        .filter(|&(_, n)| n > 0)
        .map(|(slot, n)| Match {
            slot,
            score: f64::from(n),
        })
        .collect()
}

/// When the candidates are at least 1/ONE_PASS_SHARE of the corpus, one pass over all
/// the haystacks beats a search of each candidate's.
const ONE_PASS_SHARE: usize = 8;

/// The memories `keep` holds that contain every word, found by searching the longest
/// word through all the haystacks at once (split between the cores by [`in_parts`])
/// and checking the others in the memories it names; in slot order.
fn one_pass(c: &Corpus, keep: &[bool], words: &[String]) -> Vec<Match> {
    let Some(longest) = words.iter().max_by_key(|w| w.len()) else {
        return Vec::new();
    };
    let first = Finder::new(longest.as_bytes());
    let others: Vec<Finder<'_>> = words
        .iter()
        .filter(|w| *w != longest)
        .map(|w| Finder::new(w.as_bytes()))
        .collect();
    let all = words.len() as f64;
    in_parts(c.len(), |range| {
        let mut out = Vec::new();
        for_each_containing(c, range.start, range.end, &first, |slot| {
            if keep[slot] {
                let hay = c.literal.get(slot);
                if others.iter().all(|f| f.find(hay).is_some()) {
                    out.push(Match {
                        slot: slot as u32,
                        score: all,
                    });
                }
            }
        });
        out
    })
}

/// Calls `f` with each slot of `lo..hi` whose literal haystack contains `finder`'s
/// needle, in order, sweeping each part of the haystacks in one pass. A match that
/// runs from one haystack into the next does not count.
fn for_each_containing(
    c: &Corpus,
    lo: usize,
    hi: usize,
    finder: &Finder<'_>,
    mut f: impl FnMut(usize),
) {
    let needle = finder.needle().len();
    for (first, part, range) in c.literal.parts_in(lo, hi) {
        let (starts, bytes) = (&part.starts, &part.buffer);
        let end = starts.get(range.end);
        let mut i = range.start;
        let mut pos = starts.get(i);
        while let Some(found) = finder.find(&bytes[pos..end]) {
            let at = pos + found;
            while starts.get(i + 1) <= at {
                i += 1;
            }
            let doc_end = starts.get(i + 1);
            c.literal.prefetch(first + i + PREFETCH_AHEAD);
            // a match crossing into the next haystack means no later one fits in this one
            if at + needle <= doc_end {
                f(first + i);
            }
            pos = doc_end;
        }
    }
}

/// The outcome of [`search`] over a whole set, given how many of the `words` each
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
