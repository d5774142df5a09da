//! The random draw (remember-core's byRandom): a uniform sample of `limit` memories
//! from the whole set the filters and the query keep — remember-core draws only from
//! the first 1,000 — with that set's size, repeatable with a seed.

use crate::search::engine::Match;
use crate::search::request::{BrowseMode, SearchRequest, SearchResponse};
use crate::search::searcher::{Answer, Searcher};
use std::collections::BinaryHeap;

/// Where a draw's seed comes from when nobody asked to repeat it.
pub struct Draw;

impl Draw {
    /// A seed from the clock and the process, for a draw nobody asked to repeat.
    pub fn fresh_seed() -> u64 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        nanos ^ (u64::from(std::process::id()) << 32)
    }
}

/// The place of the memory `id` in the draw of `seed`: a hash of the two, the same on
/// every machine. A draw keeps the `limit` memories of lowest place (bottom-k sampling):
/// every set of `limit` is equally likely, and a memory that leaves the set (deleted,
/// filtered out) gives its place to the next one while the others stay drawn, so the
/// list a person curates does not reshuffle under them.
pub fn place(seed: u64, id: &str) -> u64 {
    use crate::stable_hash::{hash_bytes, mix};
    mix(hash_bytes(id.as_bytes()) ^ mix(seed.wrapping_add(0x9E37_79B9_7F4A_7C15)))
}

/// The `k` items of lowest place (ties by position), in order of place.
fn lowest<T>(items: impl Iterator<Item = (u64, T)>, k: usize) -> Vec<T> {
    let mut heap: BinaryHeap<(u64, usize, Wrapped<T>)> = BinaryHeap::with_capacity(k + 1);
    if k == 0 {
        return Vec::new();
    }
    for (i, (place, item)) in items.enumerate() {
        if heap.len() < k {
            heap.push((place, i, Wrapped(item)));
        } else if let Some(top) = heap.peek()
            && (place, i) < (top.0, top.1)
        {
            heap.pop();
            heap.push((place, i, Wrapped(item)));
        }
    }
    let mut kept = heap.into_vec();
    kept.sort_unstable_by_key(|(place, i, _)| (*place, *i));
    kept.into_iter().map(|(_, _, Wrapped(item))| item).collect()
}

/// An item that a heap carries without comparing it (places and positions decide).
struct Wrapped<T>(T);

impl<T> PartialEq for Wrapped<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl<T> Eq for Wrapped<T> {}
impl<T> PartialOrd for Wrapped<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Wrapped<T> {
    fn cmp(&self, _: &Self) -> std::cmp::Ordering {
        std::cmp::Ordering::Equal
    }
}

/// A uniform sample of `req.limit` memories of everything `req` finds (its filters and
/// query; mode and order do not apply), drawn with `seed` and listed in the order of
/// their [`place`]; `req.offset` pages through that order (the next `limit` after the
/// first `offset`). `total` is the size of the set drawn from.
pub fn sample(searcher: &Searcher, req: &SearchRequest, seed: u64) -> SearchResponse {
    if req.query.trim().is_empty() {
        let selection = searcher.select(&req.filters);
        let set = &selection.set;
        let ids = &searcher.corpus.ids;
        let placed = lowest(
            set.iter()
                .map(|&slot| (place(seed, ids.get(slot as usize)), slot)),
            req.offset.saturating_add(req.limit),
        )
        .into_iter()
        .map(|slot| (Match { slot, score: 0.0 }, None))
        .collect::<Vec<_>>();
        let upto = placed.len();
        let answer = Answer {
            total: set.len(),
            placed,
            notice: None,
            quality: None,
            scored: false,
        };
        return searcher.respond(answer, req.offset.min(upto), upto);
    }
    // A query: every match is found and the sample taken of them.
    let all = searcher.search(&SearchRequest {
        mode: BrowseMode::Time,
        order: None,
        offset: 0,
        limit: usize::MAX,
        ..req.clone()
    });
    let hits = lowest(
        all.hits
            .into_iter()
            .map(|hit| (place(seed, &hit.memory.id), hit)),
        req.offset.saturating_add(req.limit),
    )
    .into_iter()
    .skip(req.offset)
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

    fn ids(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("m{i:04}")).collect()
    }

    fn draw(ids: &[String], seed: u64, k: usize) -> Vec<String> {
        lowest(ids.iter().map(|id| (place(seed, id), id.clone())), k)
    }

    #[test]
    fn a_draw_is_distinct_repeats_with_its_seed_and_is_the_lowest_places() {
        let all = ids(1000);
        for k in [0, 1, 7, 1000, 2000] {
            let a = draw(&all, 9, k);
            assert_eq!(a.len(), k.min(all.len()));
            let distinct: std::collections::HashSet<_> = a.iter().collect();
            assert_eq!(distinct.len(), a.len());
            assert_eq!(a, draw(&all, 9, k));
            // brute force: sort everything by place, take the first k
            let mut sorted = all.clone();
            sorted.sort_by_key(|id| place(9, id));
            sorted.truncate(k);
            assert_eq!(a, sorted);
        }
        assert_ne!(draw(&all, 1, 5), draw(&all, 2, 5));
    }

    #[test]
    fn every_memory_is_drawn_about_equally_often() {
        // 20,000 seeds drawing 3 of 10: each memory expects 6,000; a count outside
        // ±500 (over 7 standard deviations) would mean a biased draw.
        // And each of the 120 sets of 3 expects about 167: outside ±90 (7 standard
        // deviations) would mean some sets are favoured (a place made by XOR alone was).
        let all = ids(10);
        let mut counts = [0u32; 10];
        let mut sets = std::collections::HashMap::new();
        for seed in 0..20_000 {
            let mut set = draw(&all, seed, 3);
            for id in &set {
                counts[all.iter().position(|m| m == id).unwrap()] += 1;
            }
            set.sort();
            *sets.entry(set).or_insert(0u32) += 1;
        }
        for (p, c) in counts.iter().enumerate() {
            assert!((5_500..=6_500).contains(c), "memory {p}: {c}");
        }
        assert_eq!(sets.len(), 120, "every set of 3 is drawn");
        for (set, c) in &sets {
            assert!((77..=257).contains(c), "{set:?}: {c}");
        }
    }

    #[test]
    fn a_memory_leaving_the_pool_gives_its_place_and_the_rest_stay() {
        let mut all = ids(500);
        let before = draw(&all, 5, 20);
        let gone = before[7].clone();
        all.retain(|id| *id != gone);
        let after = draw(&all, 5, 20);
        let kept: Vec<_> = before.iter().filter(|id| **id != gone).cloned().collect();
        assert_eq!(after[..19], kept[..]);
        assert!(!before.contains(&after[19]));
    }
}
