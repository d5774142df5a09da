//! A value of one fixed size per slot (created_at, type, status, the counts) kept in
//! shared parts (see [`Parts`]), read like a vector by slot.

use super::parts::{Part, Parts, Slotted};
use std::ops::Index;

impl<T: Clone> Part for Vec<T> {
    fn append(&mut self, at: usize, src: &Self, from: usize, to: usize) {
        debug_assert_eq!(at, self.len(), "values are appended at the end");
        self.extend_from_slice(&src[from..to]);
    }

    /// Room for a whole part: filling it never moves it.
    fn fresh() -> Self {
        Vec::with_capacity(super::parts::PART_SLOTS)
    }
}

/// One `T` per slot, pushed in slot order.
#[derive(Debug, Clone)]
pub(crate) struct Fixed<T> {
    parts: Parts<Vec<T>>,
}

impl<T> Default for Fixed<T> {
    fn default() -> Fixed<T> {
        Fixed {
            parts: Parts::default(),
        }
    }
}

impl<T: Clone> Fixed<T> {
    /// Adds the value of the next slot.
    #[inline]
    pub(crate) fn push(&mut self, value: T) {
        let (part, _) = self.parts.writing(self.parts.slots());
        part.push(value);
    }

    /// Adds `values` as the values of the next slots, a run at a time.
    pub(crate) fn extend_from_slice(&mut self, values: &[T]) {
        let mut rest = values;
        while !rest.is_empty() {
            let slot = self.parts.slots();
            let room = super::parts::PART_SLOTS - slot % super::parts::PART_SLOTS;
            let (run, later) = rest.split_at(room.min(rest.len()));
            // the part of the run's last slot is the part of its first
            let (part, _) = self.parts.writing(slot + run.len() - 1);
            part.extend_from_slice(run);
            rest = later;
        }
    }

    /// Adds the values of every slot of `other` after the last slot held.
    pub(crate) fn append(&mut self, other: &Fixed<T>) {
        self.parts.append(self.len(), &other.parts, 0, other.len());
    }

    /// Slots held.
    pub(crate) fn len(&self) -> usize {
        self.parts.slots()
    }

    /// The value of `slot`, if there is one.
    #[inline]
    pub(crate) fn get(&self, slot: usize) -> Option<&T> {
        let (part, i) = self.parts.part(slot)?;
        part.get(i)
    }

    /// The value of the last slot.
    pub(crate) fn last(&self) -> Option<&T> {
        self.len().checked_sub(1).and_then(|slot| self.get(slot))
    }

    /// Gives `slot`, which holds a value already, the value `value`.
    pub(crate) fn set(&mut self, slot: usize, value: T) {
        let (part, i) = self.parts.writing(slot);
        part[i] = value;
    }

    /// Every value in slot order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        self.parts.each().flat_map(|(_, part)| part.iter())
    }

    /// The values of the slots of `range` a part at a time: each run's first slot and
    /// its values.
    pub(crate) fn runs(
        &self,
        range: std::ops::Range<usize>,
    ) -> impl Iterator<Item = (usize, &[T])> {
        self.parts.each().filter_map(move |(first, part)| {
            let lo = range.start.max(first);
            let hi = range.end.min(first + part.len());
            (lo < hi).then(|| (lo, &part[lo - first..hi - first]))
        })
    }

    /// The first slot whose value `pred` rejects, when `pred` holds for a prefix of the
    /// slots (as [`slice::partition_point`]).
    pub(crate) fn partition_point(&self, pred: impl Fn(&T) -> bool) -> usize {
        for (first, part) in self.parts.each() {
            match part.last() {
                Some(last) if pred(last) => {}
                _ => return first + part.partition_point(&pred),
            }
        }
        self.len()
    }
}

impl<T: Clone> Slotted for Fixed<T> {
    fn append(&mut self, at: usize, src: &Fixed<T>, from: usize, to: usize) {
        self.parts.append(at, &src.parts, from, to);
    }
}

impl<T: Clone + Ord> Fixed<T> {
    /// The slot holding `value` in values ascending (as [`slice::binary_search`]).
    pub(crate) fn binary_search(&self, value: &T) -> Result<usize, usize> {
        let at = self.partition_point(|v| v < value);
        match self.get(at) {
            Some(v) if v == value => Ok(at),
            _ => Err(at),
        }
    }
}

impl<T: Clone> Index<usize> for Fixed<T> {
    type Output = T;
    #[inline]
    fn index(&self, slot: usize) -> &T {
        let (part, i) = self
            .parts
            .part(slot)
            .unwrap_or_else(|| panic!("slot {slot} of {}", self.len()));
        &part[i]
    }
}

impl<T: Clone> FromIterator<T> for Fixed<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Fixed<T> {
        let mut out = Fixed::default();
        for v in iter {
            out.push(v);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::Fixed;
    use crate::search::parts::PART_SLOTS;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn reads_and_searches_like_the_vector_it_holds(
            mut values in prop::collection::vec(0u32..1000, 0..PART_SLOTS * 4),
            probe in 0u32..1001,
            run_len in 1usize..PART_SLOTS * 2,
        ) {
            values.sort_unstable();
            values.dedup();
            let fixed: Fixed<u32> = values.iter().copied().collect();
            prop_assert_eq!(fixed.len(), values.len());
            // the same values added in runs of any length read alike
            let mut in_runs: Fixed<u32> = Fixed::default();
            for run in values.chunks(run_len) {
                in_runs.extend_from_slice(run);
            }
            prop_assert_eq!(in_runs.iter().copied().collect::<Vec<_>>(), values.clone());
            prop_assert_eq!(in_runs.len(), values.len());
            // any range read run by run holds its values, each run where it starts
            let (a, b) = (probe as usize % (values.len() + 1), run_len % (values.len() + 1));
            let range = a.min(b)..a.max(b);
            let mut read = Vec::new();
            for (first, run) in fixed.runs(range.clone()) {
                prop_assert_eq!(first, range.start + read.len());
                read.extend_from_slice(run);
            }
            prop_assert_eq!(&read[..], &values[range]);
            prop_assert_eq!(fixed.iter().copied().collect::<Vec<_>>(), values.clone());
            prop_assert_eq!(fixed.last(), values.last());
            prop_assert_eq!(fixed.partition_point(|&v| v < probe), values.partition_point(|&v| v < probe));
            prop_assert_eq!(fixed.binary_search(&probe), values.binary_search(&probe));
        }
    }
}
