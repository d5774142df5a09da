//! What a searcher learned from the last requests (the memories the last filters keep,
//! the matches of the last query), carried into the searcher an update builds, so the
//! first request after a write (an agent searching right after its own create, the
//! browser's refresh) does not select and scan the whole collection again. Only for an
//! update that kept every slot's number: each memory that did not change keeps its
//! place in both, and the changed ones are tested again.

use super::filter::CompiledFilters;
use super::searcher::{Memo, Searcher, Selection};
use std::sync::{Arc, PoisonError};

impl Searcher {
    /// Takes over `old`'s last selection and last query's matches, given that the
    /// memories at slots `moved` are the only ones that changed, were added or have a
    /// new relationship count, and that every other slot holds the memory it held in
    /// `old`.
    pub(crate) fn carry_from(&self, old: &Searcher, moved: &[usize]) {
        let c = &self.corpus;
        let mut moved = moved.to_vec();
        moved.sort_unstable();
        moved.dedup();
        let moved = &moved[..];
        let is_moved = |s: u32| moved.binary_search(&(s as usize)).is_ok();
        let last = old
            .selection
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some((filters, kept)) = last {
            let compiled = CompiledFilters::new(c, &filters, None);
            let set = renewed(&kept.set, moved, is_moved, |s| compiled.passes(c, s));
            let kept = Arc::new(Selection::of(set, c.len()));
            *self
                .selection
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some((filters, kept));
        }
        self.inherit_orders(old, moved);
        let memo = old
            .memo
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some(memo) = memo {
            // every match of the query among the memories that did not change is still
            // one; a changed memory the filters keep may be one now
            let compiled = CompiledFilters::new(c, &memo.filters, None);
            let slots = renewed(&memo.slots, moved, is_moved, |s| compiled.passes(c, s));
            let best = memo
                .best
                .iter()
                .copied()
                .filter(|&s| !is_moved(s))
                .collect();
            *self.memo.lock().unwrap_or_else(PoisonError::into_inner) = Some(Memo {
                slots,
                best,
                ..memo
            });
        }
    }
}

impl Searcher {
    /// Takes over `old`'s browse orders (computed, or inherited and not yet needed),
    /// to be brought up to date on first need (see [`super::order::repermuted`]).
    fn inherit_orders(&self, old: &Searcher, moved: &[usize]) {
        let mut mine = self
            .inherited
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let theirs = old.inherited.lock().unwrap_or_else(PoisonError::into_inner);
        for (key, (order, since)) in theirs.iter() {
            let mut all: Vec<usize> = since.iter().chain(moved).copied().collect();
            all.sort_unstable();
            all.dedup();
            mine.insert(*key, (Arc::clone(order), Arc::new(all)));
        }
        drop(theirs);
        let computed = old
            .permutations
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let moved = Arc::new(moved.to_vec());
        for (key, order) in computed.iter() {
            mine.insert(*key, (Arc::clone(order), Arc::clone(&moved)));
        }
    }
}

/// `slots` without the `moved` ones, plus the moved ones `keep` accepts, ascending.
fn renewed(
    slots: &[u32],
    moved: &[usize],
    is_moved: impl Fn(u32) -> bool,
    keep: impl Fn(usize) -> bool,
) -> Vec<u32> {
    let mut out: Vec<u32> = slots.iter().copied().filter(|&s| !is_moved(s)).collect();
    out.extend(moved.iter().filter(|&&s| keep(s)).map(|&s| s as u32));
    out.sort_unstable();
    out.dedup();
    out
}
