//! Slot-indexed storage cut into parts of [`PART_SLOTS`] slots, each part behind an
//! `Arc`. The searcher an update builds after a write shares every part the write did
//! not touch with the searcher it updates, and copies only the parts that hold a
//! changed or new slot: a million memories' haystacks are about a gigabyte, and an
//! agent's one new memory should not copy them.

use std::sync::Arc;

/// Slots a part holds. Small in debug builds, so that the tests' small collections
/// cross part boundaries and share parts; what a search answers never depends on it.
pub(crate) const PART_SLOTS: usize = if cfg!(debug_assertions) { 16 } else { 4096 };

/// What one part holds for its slots, numbered from 0 within the part.
pub(crate) trait Part: Default + Clone {
    /// Gives the part's slots `at..` the values of `src`'s slots `from..to`.
    fn append(&mut self, at: usize, src: &Self, from: usize, to: usize);

    /// An empty part about to be filled slot after slot.
    fn fresh() -> Self {
        Self::default()
    }
}

/// A value per slot kept in [`Parts`]: what an update takes runs of.
pub(crate) trait Slotted: Default {
    /// Gives the slots `at..` the values of `src`'s slots `from..to` (`at` is at or
    /// past every slot written so far); whole parts are shared, not copied.
    fn append(&mut self, at: usize, src: &Self, from: usize, to: usize);
}

/// Values for slots `0..slots`, [`PART_SLOTS`] slots a part. A sparse kind of part may
/// hold no value for some slots, and parts past the last value need not exist. The
/// part being filled is held apart, unshared, so that filling it needs no atomic
/// operation per slot; a part becomes shared once the slots move past it.
#[derive(Debug, Clone)]
pub(crate) struct Parts<P> {
    parts: Vec<Arc<P>>,
    /// The slots from `parts.len() * PART_SLOTS` on.
    tail: P,
    slots: usize,
}

impl<P: Default> Default for Parts<P> {
    fn default() -> Parts<P> {
        Parts {
            parts: Vec::new(),
            tail: P::default(),
            slots: 0,
        }
    }
}

impl<P: Part> Parts<P> {
    /// Part number `k`, if it exists.
    #[inline]
    fn numbered(&self, k: usize) -> Option<&P> {
        match self.parts.get(k) {
            Some(part) => Some(part),
            None if k == self.parts.len() => Some(&self.tail),
            None => None,
        }
    }

    /// The part holding `slot` and the slot's number within it, if that part exists.
    #[inline]
    pub(crate) fn part(&self, slot: usize) -> Option<(&P, usize)> {
        self.numbered(slot / PART_SLOTS)
            .map(|p| (p, slot % PART_SLOTS))
    }

    /// Slots covered so far (one past the last slot written or appended).
    pub(crate) fn slots(&self) -> usize {
        self.slots
    }

    /// Every part with the number of its first slot.
    pub(crate) fn each(&self) -> impl Iterator<Item = (usize, &P)> {
        let tail = (self.slots > self.parts.len() * PART_SLOTS).then_some(&self.tail);
        self.parts
            .iter()
            .map(|p| &**p)
            .chain(tail)
            .enumerate()
            .map(|(k, p)| (k * PART_SLOTS, p))
    }

    /// Shares the parts before part number `k` (the part being filled among them).
    fn close_before(&mut self, k: usize) {
        while self.parts.len() < k {
            let filled = std::mem::replace(&mut self.tail, P::fresh());
            self.parts.push(Arc::new(filled));
        }
    }

    /// The part to write `slot` into and the slot's number within it (slots are
    /// written in ascending order, or rewritten); a shared part is copied first.
    #[inline]
    pub(crate) fn writing(&mut self, slot: usize) -> (&mut P, usize) {
        if slot >= self.slots {
            self.slots = slot + 1;
        }
        let k = slot / PART_SLOTS;
        if k == self.parts.len() {
            return (&mut self.tail, slot % PART_SLOTS);
        }
        self.writing_elsewhere(k, slot)
    }

    /// [`Parts::writing`] into a part other than the one being filled.
    #[cold]
    #[inline(never)]
    fn writing_elsewhere(&mut self, k: usize, slot: usize) -> (&mut P, usize) {
        if k < self.parts.len() {
            return (Arc::make_mut(&mut self.parts[k]), slot % PART_SLOTS);
        }
        self.close_before(k);
        (&mut self.tail, slot % PART_SLOTS)
    }

    /// Gives the slots `at..` the values of `src`'s slots `from..to` (`at` is at or
    /// past every slot written so far). A whole shared part of `src` that lands on a
    /// whole part here is shared, not copied.
    pub(crate) fn append(&mut self, at: usize, src: &Parts<P>, from: usize, to: usize) {
        let (mut s, mut d) = (from, at);
        while s < to {
            let k = s / PART_SLOTS;
            let Some(part) = src.numbered(k) else {
                // a sparse source holds nothing past its last part
                break;
            };
            let part_end = ((k + 1) * PART_SLOTS).min(to);
            let whole = part_end == (k + 1) * PART_SLOTS || to >= src.slots;
            let fresh = self.parts.len() <= d / PART_SLOTS && self.slots <= d;
            if s % PART_SLOTS == 0
                && d % PART_SLOTS == 0
                && whole
                && fresh
                && let Some(shared) = src.parts.get(k)
            {
                self.close_before(d / PART_SLOTS);
                self.parts.push(shared.clone());
                let n = part_end - s;
                (s, d) = (part_end, d + n);
                self.slots = self.slots.max(d);
                continue;
            }
            let n = (part_end - s).min(PART_SLOTS - d % PART_SLOTS);
            let (mine, local) = self.writing(d);
            let from_local = s % PART_SLOTS;
            mine.append(local, part, from_local, from_local + n);
            (s, d) = (s + n, d + n);
        }
        self.slots = self.slots.max(at + (to - from));
    }
}

#[cfg(test)]
mod tests {
    use super::{PART_SLOTS, Part, Parts};
    use proptest::prelude::*;
    use std::sync::Arc;

    /// A dense test part: one number per slot.
    #[derive(Debug, Default, Clone)]
    struct Numbers(Vec<u32>);

    impl Part for Numbers {
        fn append(&mut self, at: usize, src: &Self, from: usize, to: usize) {
            assert_eq!(at, self.0.len(), "dense parts are appended at their end");
            self.0.extend_from_slice(&src.0[from..to]);
        }
    }

    fn of(values: &[u32]) -> Parts<Numbers> {
        let mut p: Parts<Numbers> = Parts::default();
        for (slot, &v) in values.iter().enumerate() {
            p.writing(slot).0.0.push(v);
        }
        p
    }

    fn read(p: &Parts<Numbers>) -> Vec<u32> {
        (0..p.slots())
            .map(|s| p.part(s).map(|(part, i)| part.0[i]).unwrap_or(u32::MAX))
            .collect()
    }

    proptest! {
        #[test]
        fn appended_runs_read_back_in_order(
            a in prop::collection::vec(any::<u32>(), 0..PART_SLOTS * 5),
            b in prop::collection::vec(any::<u32>(), 0..PART_SLOTS * 3),
            cuts in prop::collection::vec((0usize..PART_SLOTS * 5, 0usize..PART_SLOTS * 5, any::<bool>()), 0..6),
        ) {
            let (pa, pb) = (of(&a), of(&b));
            let (mut out, mut want) = (Parts::<Numbers>::default(), Vec::new());
            for (x, y, from_a) in cuts {
                let (src, parts) = if from_a { (&a, &pa) } else { (&b, &pb) };
                let (from, to) = (x.min(y).min(src.len()), x.max(y).min(src.len()));
                out.append(want.len(), parts, from, to);
                want.extend_from_slice(&src[from..to]);
            }
            prop_assert_eq!(read(&out), want);
        }
    }

    #[test]
    fn an_edit_in_one_part_shares_every_other_part() {
        let old: Vec<u32> = (0..PART_SLOTS as u32 * 4 + 3).collect();
        let p = of(&old);
        let edited = of(&[7]);
        let changed = PART_SLOTS * 2 + 1;
        let mut out = Parts::<Numbers>::default();
        out.append(0, &p, 0, changed);
        out.append(changed, &edited, 0, 1);
        out.append(changed + 1, &p, changed + 1, old.len());
        let mut want = old.clone();
        want[changed] = 7;
        assert_eq!(read(&out), want);
        let shared = |k: usize| Arc::ptr_eq(&out.parts[k], &p.parts[k]);
        // the last, partly filled part is the one being filled: copied, not shared
        assert_eq!(
            (0..4).map(shared).collect::<Vec<_>>(),
            [true, true, false, true]
        );
    }
}
