//! The fuzzy engine: skim's score (see [`crate::search::skim`]) of each memory's
//! headline, tags and id (SPEC §3.2).
//!
//! Deciding whether a memory matches is a subsequence test; its score costs far more.
//! So only what the page's order needs is scored: by relevance, the best `k`, where a
//! memory whose score's upper bound cannot beat the `k`-th found so far (score, then
//! time rank) is skipped; by ascending relevance, the worst `k`, where a memory whose
//! score's lower bound cannot come under the `k`-th is skipped; in any other order
//! only the page's memories, after it is cut.

use crate::search::corpus::Corpus;
use crate::search::engine::{Match, in_pieces};
use crate::search::order::Placed;
use crate::search::request::{BrowseMode, Order, SearchRequest};
use crate::search::skim::{FuzzyPattern, Scored};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// How many of the matches' scores the order of the page needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ranking {
    /// The best `k` by relevance (score descending, then time rank).
    Best(usize),
    /// The worst `k` by relevance (score ascending, then time rank descending):
    /// ascending relevance.
    Worst(usize),
    /// None: the page is in another order; its own scores are added once it is cut.
    Page,
}

impl Ranking {
    /// How many matches the engine ranks itself, and whether the worst (else the best):
    /// `None` when it keeps no list of its own.
    pub(crate) fn kept(self) -> Option<(usize, bool)> {
        match self {
            Ranking::Best(k) => Some((k, false)),
            Ranking::Worst(k) => Some((k, true)),
            Ranking::Page => None,
        }
    }

    /// What a request for the first `upto` matches of a query needs.
    pub(crate) fn of(req: &SearchRequest, upto: usize) -> Ranking {
        match (req.mode, req.order) {
            (BrowseMode::Relevance, Some(Order::Asc)) => Ranking::Worst(upto),
            (BrowseMode::Relevance, _) => Ranking::Best(upto),
            _ => Ranking::Page,
        }
    }
}

/// What a fuzzy query found.
pub(crate) struct Found {
    /// Every match in slot order, unscored (NaN).
    pub matches: Vec<Match>,
    /// With [`Ranking::Best`] (or [`Ranking::Worst`]): the best (worst) `k` matches,
    /// in that order, with their scores, followed by up to [`SPARE`] runners-up.
    pub best: Option<Vec<Match>>,
}

/// What one part of a scan found: its matches in slot order and the keys it kept
/// ([`Best::kept`]).
pub(crate) type Part = (Vec<u32>, Vec<(u64, u32)>);

impl Found {
    /// What the parts of a scan found, in slot order (the matches unscored); the best
    /// (or worst) list made as `ranking` keeps one.
    pub(crate) fn of_parts(parts: Vec<Part>, ranking: Ranking) -> Found {
        // sized once: grown a doubling at a time, the matches were copied (and their
        // pages faulted in) about twice over
        let mut matches = Vec::with_capacity(parts.iter().map(|(slots, _)| slots.len()).sum());
        let mut kept = Vec::new();
        for (slots, top) in parts {
            matches.extend(slots.into_iter().map(|slot| Match {
                slot,
                score: f64::NAN,
            }));
            kept.extend(top);
        }
        Found {
            matches,
            best: ranking.kept().map(|(k, worst)| top(kept, k, worst)),
        }
    }
}

/// The `k`-th best key found so far by any part of a search (0 before `k` are found):
/// no memory whose key cannot exceed it can reach the page. (With
/// [`Ranking::Worst`], the keys are inverted: [`Best::keyed`].) Shared between threads and
/// between the chunks of a progressive search.
#[derive(Default)]
pub(crate) struct Floor {
    /// The floor itself: the `k`-th best key of `best`, or the seeds' when higher.
    key: AtomicU64,
    /// The best `k` keys any part has found (the worst on top). Each part keeps its own
    /// best too, but the floor must be the `k`-th of all of them: each part's own
    /// `k`-th alone stays lower when the best are spread over the parts.
    best: Mutex<BinaryHeap<Reverse<u64>>>,
}

impl Floor {
    /// The floor the matches among `seeds` set, given that each is a memory the
    /// filters keep (the last query's best matches, when the new query extends it).
    pub(crate) fn seeded(c: &Corpus, query: &str, seeds: &[u32], ranking: Ranking) -> Floor {
        let floor = Floor::default();
        let Ranking::Best(k) = ranking else {
            return floor;
        };
        if k == 0 || seeds.len() < k {
            return floor;
        }
        let pattern = FuzzyPattern::new(query);
        let mut keys: Vec<u64> = seeds
            .iter()
            .filter_map(|&slot| {
                let score = pattern.score(c.fuzzy.get(slot as usize))?;
                Some(key(score, c.time_rank[slot as usize]))
            })
            .collect();
        if keys.len() >= k {
            keys.sort_unstable_by(|a, b| b.cmp(a));
            // the k-th seed itself must still beat the floor
            floor.raise(keys[k - 1].saturating_sub(1));
        }
        floor
    }

    fn get(&self) -> u64 {
        self.key.load(Ordering::Relaxed)
    }

    fn raise(&self, key: u64) {
        self.key.fetch_max(key, Ordering::Relaxed);
    }

    /// Counts a key found among the best `k` of its part; the floor rises to the
    /// `k`-th of all such keys once there are `k`.
    fn offer(&self, key: u64, k: usize) {
        if key <= self.get() {
            return;
        }
        let Ok(mut best) = self.best.lock() else {
            return;
        };
        best.push(Reverse(key));
        if best.len() > k {
            best.pop();
        }
        if best.len() == k
            && let Some(Reverse(kth)) = best.peek()
        {
            self.raise(*kth);
        }
    }
}

/// A match's place in relevance order as one integer, larger is better: the score,
/// then the earlier time rank.
fn key(score: i64, rank: u32) -> u64 {
    let score =
        (score.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) - i64::from(i32::MIN)) as u64;
    (score << 32) | u64::from(u32::MAX - rank)
}

/// The score a [`key`] holds.
fn score_of(key: u64) -> i64 {
    (key >> 32) as i64 + i64::from(i32::MIN)
}

/// The most score with which a memory of time rank `rank` stays under the key `bar`
/// (`u64::MAX`: nothing found yet).
fn most_under(bar: u64, rank: u32) -> i64 {
    if bar == u64::MAX {
        return i64::MAX;
    }
    if u64::from(u32::MAX - rank) < bar & u64::from(u32::MAX) {
        score_of(bar)
    } else {
        score_of(bar) - 1
    }
}

/// The least score with which a memory of time rank `rank` beats the key `bar`.
fn least_beating(bar: u64, rank: u32) -> i64 {
    if bar == 0 {
        return i64::MIN;
    }
    if u64::from(u32::MAX - rank) > bar & u64::from(u32::MAX) {
        score_of(bar)
    } else {
        score_of(bar) + 1
    }
}

/// The memories of `set` (ascending slots) that `query` matches, scored as `ranking`
/// asks. `floor` carries the best keys between calls over parts of one search.
pub(crate) fn run(c: &Corpus, set: &[u32], query: &str, ranking: Ranking, floor: &Floor) -> Found {
    let pattern = FuzzyPattern::new(query);
    let parts = in_pieces(set.len(), |range| {
        vec![best_of(c, &pattern, &set[range], ranking, floor)]
    });
    Found::of_parts(parts, ranking)
}

/// Scored matches kept beyond the page's `k`, all below its `k`-th: likely among the best
/// of a longer query, they let the next keystroke start from a floor near its final one
/// ([`Floor::seeded`]).
const SPARE: usize = 256;

/// The first `k` (and up to [`SPARE`] more) of `keyed` (key, slot) pairs, best first,
/// as matches; `worst` when the keys are inverted ([`Best::keyed`]).
fn top(mut keyed: Vec<(u64, u32)>, k: usize, worst: bool) -> Vec<Match> {
    keyed.sort_unstable_by(|a, b| b.cmp(a));
    keyed.truncate(k.saturating_add(SPARE));
    keyed
        .into_iter()
        .map(|(key, slot)| Match {
            slot,
            score: score_of(if worst { !key } else { key }) as f64,
        })
        .collect()
}

/// Every match of `part` (ascending slots), and the best (or worst) `k` of them by key
/// with some runners-up ([`SPARE`]), as `ranking` asks. Walks the part from its end,
/// the newest memories of a store that grew by adding, so that ties with the best
/// found are settled early.
fn best_of(
    c: &Corpus,
    pattern: &FuzzyPattern,
    part: &[u32],
    ranking: Ranking,
    floor: &Floor,
) -> Part {
    let mut slots = Vec::new();
    let mut best = Best::new(ranking, floor);
    let rank = |slot: u32| c.time_rank[slot as usize];
    let hay = |slot: u32| c.fuzzy.get(slot as usize);
    let len = |slot: u32| hay(slot).len();
    match matches_among(c, pattern, part, best.ranks()) {
        Some(matched) => best.scan(
            pattern,
            matched.newest_first(),
            rank,
            (hay, len),
            &mut slots,
        ),
        None => best.scan(pattern, untested(part), rank, (hay, len), &mut slots),
    }
    slots.reverse();
    (slots, best.kept())
}

/// The slots of `part` (ascending) whose haystack the pattern matches, found in one pass
/// over the haystacks from its first slot to its last ([`FuzzyPattern::matches_in`]),
/// with their greedy matches when `scored` (they are to be scored); `None` when the
/// pattern cannot be matched that way, or when `part` holds too few of the slots in
/// between for one pass over all of them to pay.
fn matches_among(
    c: &Corpus,
    pattern: &FuzzyPattern,
    part: &[u32],
    scored: bool,
) -> Option<Matched> {
    let (&lo, &last) = (part.first()?, part.last()?);
    let hi = last as usize + 1;
    if part.len() * SPARSEST_PASS < hi - lo as usize {
        return None;
    }
    let mut matched = Matched::new(scored);
    let mut at = 0;
    for (first, strings, range) in c.fuzzy.parts_in(lo as usize, hi) {
        let text = strings.buffer.as_bytes();
        pattern.matches_in(
            text,
            range,
            |i| strings.starts.get(i),
            |i, greedy| {
                let slot = (first + i) as u32;
                if reaches(part, &mut at, slot) {
                    matched.push(slot, greedy);
                }
            },
        )?;
    }
    Some(matched)
}

/// The memories a one-pass test ([`FuzzyPattern::matches_in`]) found the pattern in, in
/// the order found, with each one's greedy match when they are to be scored: the first
/// position of each pattern character, in bytes from its haystack's start, where its
/// score starts from instead of looking for them again.
#[derive(Debug, Default)]
pub(crate) struct Matched {
    /// The memories' slots (positions, for a scan of stored text).
    pub(crate) slots: Vec<u32>,
    /// Their greedy matches one after another, when kept.
    first: Vec<u32>,
    keep_first: bool,
}

impl Matched {
    /// None found yet; their greedy matches are kept when `keep_first`.
    pub(crate) fn new(keep_first: bool) -> Matched {
        Matched {
            keep_first,
            ..Matched::default()
        }
    }

    /// Forgets every memory found.
    pub(crate) fn clear(&mut self) {
        self.slots.clear();
        self.first.clear();
    }

    /// Adds a memory found, with its greedy match.
    pub(crate) fn push(&mut self, slot: u32, greedy: &[u32]) {
        self.slots.push(slot);
        if self.keep_first {
            self.first.extend_from_slice(greedy);
        }
    }

    /// The memories found, the last first, each known to match, with its greedy
    /// match (empty when not kept).
    pub(crate) fn newest_first(&self) -> impl Iterator<Item = Candidate<'_>> {
        let each = self.first.len().checked_div(self.slots.len()).unwrap_or(0);
        let at = move |i: usize| &self.first[i * each..(i + 1) * each];
        (0..self.slots.len())
            .rev()
            .map(move |i| (self.slots[i], Some(at(i))))
    }
}

/// A memory a [`Best::scan`] is given: its slot and, when the pattern is known to match
/// it, its greedy match (empty when not known; `None` when it is yet to be tested).
pub(crate) type Candidate<'a> = (u32, Option<&'a [u32]>);

/// The slots of `part`, the last first, yet to be tested.
pub(crate) fn untested(part: &[u32]) -> impl Iterator<Item = Candidate<'static>> + '_ {
    part.iter().rev().map(|&slot| (slot, None))
}

/// Moves `at` forward through `sorted` (ascending) to the first item not below `x`;
/// whether that item is `x`. Walking a sorted set alongside the ascending hits of a
/// [`FuzzyPattern::matches_in`] pass keeps the hits that belong to it.
pub(crate) fn reaches(sorted: &[u32], at: &mut usize, x: u32) -> bool {
    while sorted.get(*at).is_some_and(|&y| y < x) {
        *at += 1;
    }
    sorted.get(*at) == Some(&x)
}

/// [`matches_among`] passes over the haystacks of a part's whole span when the part
/// holds at least one slot in this many of it.
const SPARSEST_PASS: usize = 4;

/// The best `k` keys of one part of a search, and the floor shared by all parts.
pub(crate) struct Best<'a> {
    /// The best keys found, the worst on top.
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    /// The best of the keys scored but not (or no longer) among the best `k`.
    spare: BinaryHeap<Reverse<(u64, u32)>>,
    k: usize,
    /// Whether the keys are inverted, to keep the worst `k` ([`Ranking::Worst`]).
    worst: bool,
    floor: &'a Floor,
}

impl<'a> Best<'a> {
    /// The best (or worst) `k` of a part that has scored nothing yet, as `ranking`
    /// asks (none kept with [`Ranking::Page`]).
    pub(crate) fn new(ranking: Ranking, floor: &'a Floor) -> Best<'a> {
        let (k, worst) = ranking.kept().unwrap_or((0, false));
        Best {
            heap: BinaryHeap::with_capacity(k + 1),
            spare: BinaryHeap::with_capacity(SPARE + 1),
            k,
            worst,
            floor,
        }
    }

    /// The key a match is kept by: [`key`], inverted when the worst are kept.
    fn keyed(&self, score: i64, rank: u32) -> u64 {
        let key = key(score, rank);
        if self.worst { !key } else { key }
    }

    /// Whether it keeps any: its scan scores the memories it is given.
    pub(crate) fn ranks(&self) -> bool {
        self.k > 0
    }

    /// The keys kept: the best `k` and the runners-up, in no order.
    pub(crate) fn kept(self) -> Vec<(u64, u32)> {
        let kept = self.heap.into_iter().chain(self.spare);
        kept.map(|Reverse(e)| e).collect()
    }

    /// Tests the memories `candidates` gives, in that order, adding to `found` those
    /// the pattern matches and scoring into the best `k` those that can still be among
    /// them. `rank` gives a memory's time rank (not asked when `k` is 0), `hay` its
    /// fuzzy haystack and `len` that haystack's length in bytes (asked first, as it
    /// may tell the haystack need not be read). Until a floor is known, first the
    /// memories that hold the pattern as one run, the likely best; then the others,
    /// against the floor those set. A memory the pattern is known to match comes with
    /// its greedy match ([`Candidate`]).
    pub(crate) fn scan<'h, 'c>(
        &mut self,
        pattern: &FuzzyPattern,
        candidates: impl Iterator<Item = Candidate<'c>>,
        rank: impl Fn(u32) -> u32,
        (hay, len): (impl Fn(u32) -> &'h str, impl Fn(u32) -> usize),
        found: &mut Vec<u32>,
    ) {
        let ranked = self.k > 0;
        let rank = |slot| if ranked { rank(slot) } else { 0 };
        let mut later = Vec::new();
        for (slot, known) in candidates {
            let scored = match known {
                // nothing to rank and it matches: nothing to score
                Some(_) if !ranked => Scored::Above,
                // among the worst, one that certainly scores above the k-th so far
                // (whatever its time rank) is told from where its characters stand,
                // without reading it
                Some(first)
                    if self.worst
                        && pattern.surely_above(len(slot), first, self.ceiling(u32::MAX)) =>
                {
                    Scored::Above
                }
                Some(first) => self.score_match(pattern, hay(slot), first, rank(slot)),
                None => self.score(pattern, hay(slot), rank(slot)),
            };
            match scored {
                Scored::Missed => continue,
                Scored::Below | Scored::Above => {}
                Scored::Later => later.push((slot, known.unwrap_or_default())),
                Scored::Score(score) => self.offer(score, rank(slot), slot),
            }
            found.push(slot);
        }
        for (slot, first) in later {
            // each of them matched
            let rank = rank(slot);
            let least = self.least(rank);
            if let Scored::Score(score) = pattern.score_match_from(hay(slot), first, least) {
                self.offer(score, rank, slot);
            }
        }
    }

    /// With [`Ranking::Worst`]: the most score with which a memory of time rank `rank`
    /// can still be among the worst `k` (the last rank has the most: ties in score go
    /// to the older).
    fn ceiling(&self, rank: u32) -> i64 {
        most_under(!self.floor.get(), rank)
    }

    /// Scores a memory of time rank `rank` that may not match, as far as it can still be
    /// among the best `k`.
    fn score(&self, pattern: &FuzzyPattern, hay: &str, rank: u32) -> Scored {
        if self.worst {
            return pattern.score_upto(hay, self.ceiling(rank));
        }
        match self.least(rank) {
            i64::MIN => pattern.score_runs_from(hay, &[], i64::MIN),
            least => pattern.score_from(hay, least),
        }
    }

    /// [`Best::score`] of a memory the pattern matches, from its greedy match `first`.
    fn score_match(&self, pattern: &FuzzyPattern, hay: &str, first: &[u32], rank: u32) -> Scored {
        if self.worst {
            return pattern.score_match_upto(hay, first, self.ceiling(rank));
        }
        match self.least(rank) {
            i64::MIN => pattern.score_runs_from(hay, first, i64::MIN),
            least => pattern.score_match_from(hay, first, least),
        }
    }

    /// The least score with which a memory of time rank `rank` can still be among the
    /// best `k`.
    fn least(&self, rank: u32) -> i64 {
        if self.k == 0 {
            return i64::MAX;
        }
        // every key this part kept was offered to the floor, so the floor is never
        // below this part's own k-th
        least_beating(self.floor.get(), rank)
    }

    /// Keeps a scored memory if it is among the best `k` so far.
    fn offer(&mut self, score: i64, rank: u32, slot: u32) {
        if self.k == 0 {
            return;
        }
        let key = self.keyed(score, rank);
        self.heap.push(Reverse((key, slot)));
        if self.heap.len() > self.k
            && let Some(out) = self.heap.pop()
        {
            self.spare.push(out);
            if self.spare.len() > SPARE {
                self.spare.pop();
            }
        }
        self.floor.offer(key, self.k);
    }
}

/// The best (or worst, as `ranking` keeps) `k` with runners-up of two such lists, in
/// that order.
pub(crate) fn merge_best(c: &Corpus, a: Vec<Match>, b: Vec<Match>, ranking: Ranking) -> Vec<Match> {
    let (k, worst) = ranking.kept().unwrap_or((0, false));
    let keyed: Vec<(u64, u32)> = a
        .into_iter()
        .chain(b)
        .map(|m| {
            let key = key(m.score as i64, c.time_rank[m.slot as usize]);
            (if worst { !key } else { key }, m.slot)
        })
        .collect();
    top(keyed, k, worst)
}

/// Scores the page's matches, cut from unscored ones ([`Ranking::Page`]).
pub(crate) fn score_page(c: &Corpus, query: &str, page: &mut [Placed]) {
    let pattern = FuzzyPattern::new(query);
    for (m, _) in page {
        if let Some(score) = pattern.score(c.fuzzy.get(m.slot as usize)) {
            m.score = score as f64;
        }
    }
}
