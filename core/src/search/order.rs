//! The browse modes of SPEC §3.3: putting matches in order, ties always falling to
//! created_at desc, then id asc, so every order is total and stable.

use crate::model::Composite;
use crate::model::derived::RATED_THRESHOLD;
use crate::search::corpus::{Column, Corpus, Fixed};
use crate::search::engine::{Match, PARALLEL_FROM, threads};
use crate::search::request::{BrowseMode, NumericField, Order};

/// One placed result: the match and, in discovery mode, whether it filled a
/// discovery slot.
pub(crate) type Placed = (Match, Option<bool>);

/// A match's place in an order: the order is that of ascending `(key, tie)` pairs,
/// where the tie is the time rank (or its reverse), unique per memory, so every order
/// is total.
type SortKey = (u64, u32);

/// The first `k` of `items` in the order of `key`: the keys are computed once and
/// compared as plain integers. For a short page of a long list, each core keeps the
/// best of its half as it goes (see [`best_of`]), so the whole list is never sorted.
fn top_by_key(items: Vec<Match>, k: usize, key: impl Fn(&Match) -> SortKey + Sync) -> Vec<Match> {
    if k == 0 {
        return Vec::new();
    }
    if k < items.len() / SHORT_PAGE {
        let mut best =
            crate::parallel::in_light_parts(items.len(), |range| best_of(&items[range], k, &key));
        best.sort_unstable_by_key(|e| e.0);
        best.truncate(k);
        return best.into_iter().map(|(_, m)| m).collect();
    }
    // keys are unique (the time rank breaks every tie), so the order is total
    let mut keyed: Vec<(SortKey, u32)> = items
        .iter()
        .enumerate()
        .map(|(i, m)| (key(m), i as u32))
        .collect();
    if k < keyed.len() / 2 {
        keyed.select_nth_unstable(k - 1);
        keyed.truncate(k);
    }
    keyed.sort_unstable();
    keyed.truncate(k);
    keyed.into_iter().map(|(_, i)| items[i as usize]).collect()
}

/// A page is short when the list is at least this many times as long.
const SHORT_PAGE: usize = 8;

/// At most `k` of `items`, holding the first `k` of them in the order of `key`: a
/// buffer of twice `k` cut back to its best `k` whenever it fills, after which
/// anything not better than the `k`-th kept is passed over with one comparison.
fn best_of(items: &[Match], k: usize, key: &impl Fn(&Match) -> SortKey) -> Vec<(SortKey, Match)> {
    let mut kept: Vec<(SortKey, Match)> = Vec::with_capacity(2 * k);
    let mut worst: Option<SortKey> = None;
    for m in items {
        let m_key = key(m);
        if worst.is_some_and(|w| m_key >= w) {
            continue;
        }
        kept.push((m_key, *m));
        if kept.len() == 2 * k {
            kept.select_nth_unstable_by_key(k - 1, |e| e.0);
            kept.truncate(k);
            worst = kept.iter().map(|e| e.0).max();
        }
    }
    kept
}

/// The time rank of a match: created_at desc, id asc, the universal tie-break.
fn rank(c: &Corpus, m: &Match) -> u32 {
    c.time_rank[m.slot as usize]
}

/// The memories to put in order: the matches of a query, or the slots a browse keeps
/// (each with score 0), which are ordered without being copied into matches.
pub(crate) enum Matched<'a> {
    /// A query's matches.
    Scored(Vec<Match>),
    /// The slots a browse keeps.
    Slots(std::borrow::Cow<'a, [u32]>),
}

impl Matched<'_> {
    fn len(&self) -> usize {
        match self {
            Matched::Scored(m) => m.len(),
            Matched::Slots(s) => s.len(),
        }
    }

    #[inline]
    fn at(&self, i: usize) -> Match {
        match self {
            Matched::Scored(m) => m[i],
            Matched::Slots(s) => Match {
                slot: s[i],
                score: 0.0,
            },
        }
    }

    fn into_matches(self) -> Vec<Match> {
        match self {
            Matched::Scored(m) => m,
            Matched::Slots(s) => (0..s.len())
                .map(|i| Match {
                    slot: s[i],
                    score: 0.0,
                })
                .collect(),
        }
    }

    /// The memories whose slot `keep` admits, and the others.
    fn partition(self, keep: impl Fn(u32) -> bool) -> (Matched<'static>, Matched<'static>) {
        match self {
            Matched::Scored(m) => {
                let (a, b) = m.into_iter().partition(|m| keep(m.slot));
                (Matched::Scored(a), Matched::Scored(b))
            }
            Matched::Slots(s) => {
                let (a, b): (Vec<u32>, Vec<u32>) = s.iter().partition(|&&slot| keep(slot));
                (Matched::Slots(a.into()), Matched::Slots(b.into()))
            }
        }
    }
}

/// How the memories created at the same instant are put in id order when the corpus
/// holds no time ranks (one read from the persisted index for one request): sorts the
/// slots given by id, ascending; false when the ids cannot be read.
pub(crate) type IdOrder<'a> = &'a dyn Fn(&mut [u32]) -> bool;

/// The first `k` of `items` in the order of ascending `(primary, tie)` pairs, where the
/// tie is the time order (created_at desc, id asc), or its reverse when `reversed`.
/// With time ranks in the corpus the tie is the rank; without, it is created_at, and
/// the ids of the few memories still tied among the first `k` are read through `ids`.
/// `None` when those ids cannot be read.
fn top(
    c: &Corpus,
    items: Matched<'_>,
    k: usize,
    primary: impl Fn(&Match) -> u64 + Sync,
    reversed: bool,
    ids: Option<IdOrder<'_>>,
) -> Option<Vec<Match>> {
    match ids.filter(|_| c.time_rank.is_empty()) {
        None => Some(top_by_key(items.into_matches(), k, |m| {
            let rank = rank(c, m);
            (primary(m), if reversed { !rank } else { rank })
        })),
        Some(ids) => {
            let key = |m: &Match| {
                // created_at descending; ascending when reversed
                let at = (c.created[m.slot as usize] as u64) ^ (1 << 63);
                (primary(m), if reversed { at } else { !at })
            };
            top_unranked(&items, k, &key, reversed, ids)
        }
    }
}

/// [`top`] without time ranks: the first `k` by `key` (primary, created_at) with every
/// memory tied with the `k`-th kept, then the runs still tied put in id order.
fn top_unranked(
    items: &Matched<'_>,
    k: usize,
    key: &(impl Fn(&Match) -> (u64, u64) + Sync),
    reversed: bool,
    ids: IdOrder<'_>,
) -> Option<Vec<Match>> {
    if k == 0 {
        return Some(Vec::new());
    }
    let mut kept = crate::parallel::in_light_parts(items.len(), |range| {
        best_with_ties(items, range, k, key, !reversed)
    });
    cut_keeping_ties(&mut kept, k);
    kept.sort_unstable_by_key(|e| (e.0, e.1.slot));
    for run in kept.chunk_by_mut(|a, b| a.0 == b.0) {
        if run.len() > 1 {
            let mut slots: Vec<u32> = run.iter().map(|e| e.1.slot).collect();
            if !ids(&mut slots) {
                return None;
            }
            if reversed {
                slots.reverse();
            }
            let mut place: Vec<(u32, usize)> =
                slots.iter().enumerate().map(|(i, &s)| (s, i)).collect();
            place.sort_unstable();
            let at = |slot: u32| {
                place
                    .binary_search_by_key(&slot, |p| p.0)
                    .map_or(0, |i| place[i].1)
            };
            run.sort_by_key(|e| at(e.1.slot));
        }
    }
    kept.truncate(k);
    Some(kept.into_iter().map(|(_, m)| m).collect())
}

/// Keyed items holding the first `k` of `items` by `key` and every item whose key
/// equals the `k`-th's: [`best_of`] that keeps the ties at the cut. `from_the_end`
/// walks the range backwards: where the key prefers the newer memories, which a store
/// mostly holds in the later slots, the cut then settles within the first few hundred
/// and every older memory is passed over with one comparison. The kept set is the same
/// either way.
fn best_with_ties(
    items: &Matched<'_>,
    range: std::ops::Range<usize>,
    k: usize,
    key: &impl Fn(&Match) -> (u64, u64),
    from_the_end: bool,
) -> Vec<((u64, u64), Match)> {
    let capacity = 2 * k.min(range.len());
    if from_the_end {
        best_with_ties_of(range.rev().map(|i| items.at(i)), capacity, k, key)
    } else {
        best_with_ties_of(range.map(|i| items.at(i)), capacity, k, key)
    }
}

/// [`best_with_ties`] over the items `walk` hands out.
fn best_with_ties_of(
    walk: impl Iterator<Item = Match>,
    capacity: usize,
    k: usize,
    key: &impl Fn(&Match) -> (u64, u64),
) -> Vec<((u64, u64), Match)> {
    let mut kept: Vec<((u64, u64), Match)> = Vec::with_capacity(capacity);
    let mut worst: Option<(u64, u64)> = None;
    let mut cut_at = 2 * k;
    for m in walk {
        let m_key = key(&m);
        if worst.is_some_and(|w| m_key > w) {
            continue;
        }
        kept.push((m_key, m));
        if kept.len() >= cut_at {
            worst = cut_keeping_ties(&mut kept, k);
            // many ties at the cut: cut again only once the buffer has doubled
            cut_at = (2 * kept.len()).max(2 * k);
        }
    }
    kept
}

/// Cuts `kept` to its first `k` by key and every item tied with the `k`-th; returns
/// that key.
fn cut_keeping_ties(kept: &mut Vec<((u64, u64), Match)>, k: usize) -> Option<(u64, u64)> {
    if kept.len() <= k {
        return None;
    }
    kept.select_nth_unstable_by_key(k - 1, |e| e.0);
    let kth = kept[k - 1].0;
    let mut i = k;
    while i < kept.len() {
        if kept[i].0 == kth {
            i += 1;
        } else {
            kept.swap_remove(i);
        }
    }
    Some(kth)
}

/// How the key of a field's order is read for each memory: the key's ascending order
/// is the field's order in the chosen direction, before the time-rank tie-break, and
/// memories without a value come last. The narrowest key that gives that order is
/// taken, as a radix sort skips the bytes no key differs in.
enum FieldKey<'c> {
    /// Time: the time rank alone (descending), or created_at (ascending).
    Time(Order),
    /// A whole number per memory: the number, or its complement when descending.
    Count(&'c Fixed<u32>, Order),
    /// A column holding whole thousandths only: those, in 17 bits.
    Thousandths(&'c Column, Order),
    /// Any other field: the bits of its value.
    Value(NumericField, Order),
}

impl<'c> FieldKey<'c> {
    fn new(c: &'c Corpus, field: Option<NumericField>, order: Order) -> FieldKey<'c> {
        let Some(f) = field else {
            return FieldKey::Time(order);
        };
        if let Some(counts) = c.counts(f) {
            return FieldKey::Count(counts, order);
        }
        match c.column(f) {
            Some(column) if column.all_thousandths() => FieldKey::Thousandths(column, order),
            _ => FieldKey::Value(f, order),
        }
    }

    #[inline]
    fn of(&self, c: &Corpus, slot: usize) -> u64 {
        match *self {
            FieldKey::Time(Order::Desc) => 0,
            FieldKey::Time(Order::Asc) => (c.created[slot] as u64) ^ (1 << 63),
            FieldKey::Count(counts, Order::Asc) => u64::from(counts[slot]),
            FieldKey::Count(counts, Order::Desc) => u64::from(!counts[slot]),
            FieldKey::Thousandths(column, order) => match column.thousandths(slot) {
                None => 1 << 16,
                Some(q) => match order {
                    Order::Asc => (i32::from(q) - i32::from(i16::MIN)) as u64,
                    Order::Desc => (i32::from(i16::MAX) - i32::from(q)) as u64,
                },
            },
            FieldKey::Value(f, order) => match c.value(slot, f) {
                None => u64::MAX,
                Some(v) => match order {
                    Order::Asc => ordered_bits(v),
                    Order::Desc => !ordered_bits(v),
                },
            },
        }
    }
}

/// What a list is sorted by, apart from relevance and discovery.
pub(crate) fn sort_field(mode: BrowseMode) -> Option<NumericField> {
    match mode {
        BrowseMode::Density => Some(NumericField::RelationshipCount),
        BrowseMode::Rating => Some(NumericField::RatingBayesian),
        BrowseMode::Property(f) => Some(f),
        BrowseMode::Significance => Some(NumericField::Composite(Composite::TotalSignificance)),
        _ => None,
    }
}

/// Puts `matches` in the order of `mode` far enough that the first `upto` are final;
/// `relevance` says whether a query ranked them (without one, relevance is time).
/// `ids` orders memories created at the same instant when the corpus holds no time
/// ranks; `None` when they cannot be read.
pub(crate) fn arrange(
    c: &Corpus,
    matches: Matched<'_>,
    mode: BrowseMode,
    order: Option<Order>,
    relevance: bool,
    upto: usize,
    ids: Option<IdOrder<'_>>,
) -> Option<Vec<Placed>> {
    let order = order.unwrap_or(Order::Desc);
    let top = match mode {
        // score desc then time order; ascending reverses both
        BrowseMode::Relevance if relevance => {
            let asc = order == Order::Asc;
            let score = |m: &Match| match asc {
                false => !ordered_bits(m.score),
                true => ordered_bits(m.score),
            };
            top(c, matches, upto, score, asc, ids)?
        }
        BrowseMode::Relevance | BrowseMode::Time => by_field(c, matches, None, order, upto, ids)?,
        BrowseMode::Discovery => return discovery(c, matches, order, upto, ids),
        _ => {
            let field = sort_field(mode).unwrap_or(NumericField::CreatedAt);
            by_field(c, matches, Some(field), order, upto, ids)?
        }
    };
    Some(top.into_iter().map(|m| (m, None)).collect())
}

/// The first `k` of `items` in `field`'s order (time when `None`) in direction `order`.
fn by_field(
    c: &Corpus,
    items: Matched<'_>,
    field: Option<NumericField>,
    order: Order,
    k: usize,
    ids: Option<IdOrder<'_>>,
) -> Option<Vec<Match>> {
    let key = FieldKey::new(c, field, order);
    top(c, items, k, |m| key.of(c, m.slot as usize), false, ids)
}

/// A key whose unsigned order is the order of `v` (−0.0 and 0.0 equal).
fn ordered_bits(v: f64) -> u64 {
    let v = if v == 0.0 { 0.0 } else { v };
    let bits = v.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// The whole collection in the order of `field` (or time), for browsing by walking it.
/// Radix-sorts plain integer keys, stably from the time rank's order so that the rank
/// breaks every tie, which gives exactly the order of [`by_field`].
pub(crate) fn permutation(c: &Corpus, field: Option<NumericField>, order: Order) -> Vec<u32> {
    let n = c.len();
    let mut by_rank = vec![0u32; n];
    for (slot, &rank) in c.time_rank.iter().enumerate() {
        by_rank[rank as usize] = slot as u32;
    }
    let key = FieldKey::new(c, field, order);
    let sorted = |slots: &[u32]| {
        let mut keyed: Vec<(u64, u32)> = slots
            .iter()
            .map(|&slot| (key.of(c, slot as usize), slot))
            .collect();
        radsort::sort_by_key(&mut keyed, |&(key, _)| key);
        keyed
    };
    if threads() < 2 || n < PARALLEL_FROM {
        return sorted(&by_rank).into_iter().map(|(_, slot)| slot).collect();
    }
    // two halves of the time order sorted on both cores, then merged: on equal keys the
    // first half's memories come first, as their time ranks are lower
    let (early, late) = by_rank.split_at(n / 2);
    let (late, early) = crate::commit::both(true, || sorted(late), || sorted(early));
    let mut out = Vec::with_capacity(n);
    let (mut i, mut j) = (0, 0);
    while i < early.len() && j < late.len() {
        if early[i].0 <= late[j].0 {
            out.push(early[i].1);
            i += 1;
        } else {
            out.push(late[j].1);
            j += 1;
        }
    }
    out.extend(early[i..].iter().map(|&(_, slot)| slot));
    out.extend(late[j..].iter().map(|&(_, slot)| slot));
    out
}

/// [`permutation`] of `c`, given `old`, the permutation of a corpus whose slots hold the
/// same memories with the same keys and the same relative time order, except the slots
/// `moved` (ascending; new slots among them): the others keep their order, and the moved
/// ones are merged in.
pub(crate) fn repermuted(
    c: &Corpus,
    old: &[u32],
    field: Option<NumericField>,
    order: Order,
    moved: &[usize],
) -> Vec<u32> {
    let key = FieldKey::new(c, field, order);
    let full = |slot: u32| (key.of(c, slot as usize), c.time_rank[slot as usize]);
    let is_moved = |slot: u32| moved.binary_search(&(slot as usize)).is_ok();
    let mut fresh: Vec<(u64, u32, u32)> = moved
        .iter()
        .map(|&s| {
            let (k, rank) = full(s as u32);
            (k, rank, s as u32)
        })
        .collect();
    fresh.sort_unstable();
    let mut out = Vec::with_capacity(c.len());
    let mut fresh = fresh.into_iter().peekable();
    for slot in old.iter().copied().filter(|&s| !is_moved(s)) {
        let here = full(slot);
        while let Some(&(k, rank, s)) = fresh.peek()
            && (k, rank) < here
        {
            out.push(s);
            fresh.next();
        }
        out.push(slot);
    }
    out.extend(fresh.map(|(_, _, s)| s));
    out
}

/// Rated pool by rating, discovery pool by time; every fifth position (p + 1 divisible
/// by 5) comes from the discovery pool; when one pool runs out the other fills. The
/// first `upto` places take at most `upto` of each pool, so only those are ordered.
fn discovery(
    c: &Corpus,
    matches: Matched<'_>,
    order: Order,
    upto: usize,
    ids: Option<IdOrder<'_>>,
) -> Option<Vec<Placed>> {
    let (rated, fresh) = matches.partition(|slot| is_rated(c, slot));
    let by_rating = Some(NumericField::RatingBayesian);
    let rated = by_field(c, rated, by_rating, order, upto, ids)?;
    let fresh = by_field(c, fresh, None, order, upto, ids)?;
    Some(interleave(rated.into_iter(), fresh.into_iter(), upto))
}

/// True when a memory belongs to the rated pool of discovery mode.
pub(crate) fn is_rated(c: &Corpus, slot: u32) -> bool {
    c.rating_count[slot as usize] >= RATED_THRESHOLD
}

/// The memories of one discovery pool (`rated` or not) that `member` keeps, in the
/// order of `perm` (the whole collection in the pool's order).
pub(crate) fn pool<'a>(
    c: &'a Corpus,
    perm: &'a [u32],
    member: &'a [bool],
    rated: bool,
) -> impl Iterator<Item = Match> + 'a {
    perm.iter()
        .copied()
        .filter(move |&s| member[s as usize] && is_rated(c, s) == rated)
        .map(|slot| Match { slot, score: 0.0 })
}

/// The discovery interleave of two ordered pools, up to `upto` results.
pub(crate) fn interleave(
    rated: impl Iterator<Item = Match>,
    fresh: impl Iterator<Item = Match>,
    upto: usize,
) -> Vec<Placed> {
    let mut out = Vec::new();
    let (mut r, mut f) = (rated.peekable(), fresh.peekable());
    while out.len() < upto {
        let slot_is_discovery = (out.len() + 1) % 5 == 0;
        let take_fresh = match (r.peek(), f.peek()) {
            (None, None) => break,
            (Some(_), None) => false,
            (None, Some(_)) => true,
            (Some(_), Some(_)) => slot_is_discovery,
        };
        let next = if take_fresh { f.next() } else { r.next() };
        if let Some(m) = next {
            out.push((m, Some(take_fresh)));
        }
    }
    out
}

/// Each slot's position in the time order (created_at descending) of `created`: its
/// time rank. `ties` puts each run of memories created at the very same instant in its
/// final order (by id). A store that grew by adding holds its memories in the order
/// they were created: then slot s has rank n - 1 - s but in a run of equal times, found
/// in one pass ([`creation_runs`]); otherwise the slots are sorted
/// ([`sorted_by_time`]).
pub(crate) fn time_ranks<E>(
    created: &Fixed<i64>,
    mut ties: impl FnMut(&mut [u32]) -> Result<(), E>,
) -> Result<Vec<u32>, E> {
    let n = created.len();
    let Some(runs) = creation_runs(created) else {
        let mut order = sorted_by_time(created);
        for run in order.chunk_by_mut(|&a, &b| created[a as usize] == created[b as usize]) {
            if run.len() > 1 {
                ties(run)?;
            }
        }
        return Ok(ranks(&order));
    };
    let mut rank: Vec<u32> = (0..n as u32).rev().collect();
    for run in runs {
        let mut tied: Vec<u32> = run.clone().rev().map(|s| s as u32).collect();
        ties(&mut tied)?;
        for (at, &slot) in (n - run.end..).zip(&tied) {
            rank[slot as usize] = at as u32;
        }
    }
    Ok(rank)
}

/// When the times of `created` never decrease from one slot to the next (a store that
/// grew by adding): its runs of two or more equal times, as ranges of slots; `None`
/// otherwise. One pass over the times, a part at a time.
fn creation_runs(created: &Fixed<i64>) -> Option<Vec<std::ops::Range<usize>>> {
    let mut runs = Vec::new();
    let (mut start, mut last) = (0, None);
    for (first, times) in created.runs(0..created.len()) {
        for (slot, &at) in (first..).zip(times) {
            match last {
                Some(l) if at < l => return None,
                Some(l) if at == l => continue,
                _ => {}
            }
            if slot - start > 1 {
                runs.push(start..slot);
            }
            (start, last) = (slot, Some(at));
        }
    }
    if created.len() - start > 1 {
        runs.push(start..created.len());
    }
    Some(runs)
}

/// The slots of `created` by created_at descending (ties in no given order),
/// radix-sorted on the top 32 bits of the span first (half the passes over half the
/// bytes of sorting the whole key), then each run of equal tops by the whole key.
fn sorted_by_time(created: &Fixed<i64>) -> Vec<u32> {
    // ascending: created_at descending
    let key = |at: i64| !((at as u64) ^ (1 << 63));
    let full = |slot: u32| key(created[slot as usize]);
    let (lo, hi) = created
        .iter()
        .map(|&at| key(at))
        .fold((u64::MAX, 0), |(lo, hi), k| (lo.min(k), hi.max(k)));
    let shift = (64 - hi.saturating_sub(lo).leading_zeros()).saturating_sub(32);
    let mut keyed: Vec<(u32, u32)> = Vec::with_capacity(created.len());
    keyed.extend(
        created
            .iter()
            .enumerate()
            .map(|(s, &at)| (((key(at) - lo) >> shift) as u32, s as u32)),
    );
    radsort::sort_by_key(&mut keyed, |&(top, _)| top);
    for run in keyed.chunk_by_mut(|a, b| a.0 == b.0) {
        if run.len() > 1 {
            run.sort_unstable_by_key(|&(_, slot)| full(slot));
        }
    }
    keyed.into_iter().map(|(_, slot)| slot).collect()
}

/// Each slot's position in `order`.
pub(crate) fn ranks(order: &[u32]) -> Vec<u32> {
    let mut rank = vec![0u32; order.len()];
    for (pos, &slot) in order.iter().enumerate() {
        rank[slot as usize] = pos as u32;
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The time order by its definition: created_at descending, then id ascending.
    fn sorted_plainly(created: &[i64], ids: &[u32]) -> Vec<u32> {
        let mut order: Vec<u32> = (0..created.len() as u32).collect();
        order.sort_by_key(|&s| (std::cmp::Reverse(created[s as usize]), ids[s as usize]));
        order
    }

    fn time_ranks_of(created: &[i64], ids: &[u32]) -> Vec<u32> {
        let fixed: Fixed<i64> = created.iter().copied().collect();
        let ranks = time_ranks(&fixed, |run: &mut [u32]| {
            run.sort_by_key(|&s| ids[s as usize]);
            Ok::<(), ()>(())
        });
        ranks.expect("no error")
    }

    proptest! {
        #[test]
        fn the_time_order_of_any_instants_is_the_plain_sort(
            created in proptest::collection::vec(-3i64..3, 0..200),
            seed in any::<u64>(),
        ) {
            let ids: Vec<u32> = (0..created.len() as u32)
                .map(|s| (u64::from(s).wrapping_mul(seed | 1) >> 7) as u32)
                .collect();
            prop_assert_eq!(time_ranks_of(&created, &ids), ranks(&sorted_plainly(&created, &ids)));
        }

        #[test]
        fn the_time_order_of_a_store_that_grew_by_adding_is_the_plain_sort(
            steps in proptest::collection::vec(prop_oneof![Just(0i64), 1i64..1000, Just(i64::MAX / 4)], 0..300),
            start in any::<i64>().prop_map(|s| s / 2),
            seed in any::<u64>(),
        ) {
            let mut at = start;
            let created: Vec<i64> = steps.iter().map(|&d| { at = at.saturating_add(d); at }).collect();
            let ids: Vec<u32> = (0..created.len() as u32)
                .map(|s| (u64::from(s).wrapping_mul(seed | 1) >> 7) as u32)
                .collect();
            prop_assert_eq!(time_ranks_of(&created, &ids), ranks(&sorted_plainly(&created, &ids)));
        }
    }
}
