//! The random draw (remember-core's byRandom): a uniform sample of `limit` memories
//! from the whole set the filters and the query keep — remember-core draws only from
//! the first 1,000 — with that set's size, repeatable with a seed.

use crate::search::engine::Match;
use crate::search::request::{BrowseMode, SearchRequest, SearchResponse};
use crate::search::searcher::{Answer, Searcher};
use std::collections::HashSet;

/// A small, fast, seedable generator (SplitMix64); the same seed gives the same draw
/// on every machine.
#[derive(Debug, Clone)]
pub struct Draw(u64);

impl Draw {
    /// A generator started from `seed`.
    pub fn seeded(seed: u64) -> Draw {
        Draw(seed)
    }

    /// A seed from the clock and the process, for a draw nobody asked to repeat.
    pub fn fresh_seed() -> u64 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        nanos ^ (u64::from(std::process::id()) << 32)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0), each equally likely up to 2^-64.
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }

    /// `k` distinct positions of `0..n` (all of them when `k >= n`), every set of `k`
    /// equally likely and in random order (Floyd's sampling, then a shuffle).
    pub fn positions(&mut self, n: usize, k: usize) -> Vec<usize> {
        let k = k.min(n);
        let mut chosen = HashSet::with_capacity(k);
        let mut out = Vec::with_capacity(k);
        for j in n - k..n {
            let t = self.below(j + 1);
            let pick = if chosen.contains(&t) { j } else { t };
            chosen.insert(pick);
            out.push(pick);
        }
        for i in (1..out.len()).rev() {
            out.swap(i, self.below(i + 1));
        }
        out
    }
}

/// A uniform sample of `req.limit` memories of everything `req` finds (its filters and
/// query; mode, order and offset do not apply), drawn with `seed`. `total` is the size
/// of the set drawn from.
pub fn sample(searcher: &Searcher, req: &SearchRequest, seed: u64) -> SearchResponse {
    let mut draw = Draw::seeded(seed);
    if req.query.trim().is_empty() {
        let selection = searcher.select(&req.filters);
        let set = &selection.set;
        let placed = draw
            .positions(set.len(), req.limit)
            .into_iter()
            .map(|p| {
                let slot = set[p];
                (Match { slot, score: 0.0 }, None)
            })
            .collect::<Vec<_>>();
        let upto = placed.len();
        let answer = Answer {
            total: set.len(),
            placed,
            notice: None,
            quality: None,
            scored: false,
        };
        return searcher.respond(answer, 0, upto);
    }
    // A query: every match is found (in a fixed order) and the sample taken of them.
    let all = searcher.search(&SearchRequest {
        mode: BrowseMode::Time,
        order: None,
        offset: 0,
        limit: usize::MAX,
        ..req.clone()
    });
    let hits = draw
        .positions(all.hits.len(), req.limit)
        .into_iter()
        .map(|p| all.hits[p].clone())
        .collect();
    SearchResponse {
        total: all.total,
        hits,
        notice: all.notice,
        damage: all.damage,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_distinct_in_range_and_repeat_with_the_seed() {
        for (n, k) in [(0, 3), (1, 1), (5, 10), (100, 7), (1000, 1000)] {
            let a = Draw::seeded(9).positions(n, k);
            assert_eq!(a.len(), k.min(n));
            let set: HashSet<_> = a.iter().copied().collect();
            assert_eq!(set.len(), a.len());
            assert!(a.iter().all(|&p| p < n));
            assert_eq!(a, Draw::seeded(9).positions(n, k));
        }
        assert_ne!(
            Draw::seeded(1).positions(1000, 5),
            Draw::seeded(2).positions(1000, 5)
        );
    }

    #[test]
    fn every_position_is_drawn_about_equally_often() {
        // 20,000 draws of 3 of 10: each position expects 6,000; a count outside
        // ±500 (over 7 standard deviations) would mean a biased draw.
        let mut counts = [0u32; 10];
        let mut draw = Draw::seeded(42);
        for _ in 0..20_000 {
            for p in draw.positions(10, 3) {
                counts[p] += 1;
            }
        }
        for (p, c) in counts.iter().enumerate() {
            assert!((5_500..=6_500).contains(c), "position {p}: {c}");
        }
    }
}
