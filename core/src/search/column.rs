//! A numeric column (`feel_*`, the composites, confidence, rem_visits, and weight and
//! trust, which every memory has): one presence bit per memory, a running count per 64
//! memories, and only the values that are there. Scores are mostly written with a few
//! decimals (0.7, 0.85, 0.193), so a value that is exactly some number of thousandths is
//! kept in two bytes; any other value is kept whole beside them, and a column where
//! those are common keeps every value whole. A `feel_*` score present in four memories
//! of ten costs about a byte a memory instead of the 8 of a dense column; every value
//! reads back bit for bit.

use super::parts::{Part, Parts, Slotted};

/// An optional `f64` per slot, filled in slot order, kept in shared parts (see
/// [`Parts`]).
#[derive(Debug, Default, Clone)]
pub(crate) struct Column {
    parts: Parts<ColumnPart>,
}

impl Column {
    /// The value of `slot`, if it has one.
    #[inline]
    pub(crate) fn get(&self, slot: usize) -> Option<f64> {
        let (part, i) = self.parts.part(slot)?;
        part.get(i)
    }

    /// Gives `slot` the value `v`; slots come in ascending order.
    pub(crate) fn push(&mut self, slot: usize, v: f64) {
        let (part, i) = self.parts.writing(slot);
        part.push(i, v);
    }

    /// Gives `slot` the value `v` when there is one.
    pub(crate) fn push_opt(&mut self, slot: usize, v: Option<f64>) {
        if let Some(v) = v {
            self.push(slot, v);
        }
    }

    /// True when no slot has a value.
    pub(crate) fn is_empty(&self) -> bool {
        self.parts.each().all(|(_, p)| p.is_empty())
    }

    /// True when every value is a whole number of thousandths, which
    /// [`thousandths`](Self::thousandths) then gives.
    pub(crate) fn all_thousandths(&self) -> bool {
        self.parts.each().all(|(_, p)| p.all_thousandths())
    }

    /// The value of `slot` in thousandths, if it has one; meaningful only when
    /// [`all_thousandths`](Self::all_thousandths) holds (else `None`).
    #[inline]
    pub(crate) fn thousandths(&self, slot: usize) -> Option<i16> {
        let (part, i) = self.parts.part(slot)?;
        part.thousandths(i)
    }
}

/// The values of one part of a [`Column`].
#[derive(Debug, Default, Clone)]
struct ColumnPart {
    /// Bit `s % 64` of word `s / 64`: whether slot `s` has a value.
    present: Vec<u64>,
    /// How many values lie in the words before each word.
    before: Vec<u32>,
    /// The values, in slot order.
    values: Values,
}

/// The values of a [`Column`], in slot order.
#[derive(Debug, Clone)]
enum Values {
    /// Each value in thousandths, or [`ODD`] for a value that is not a whole number of
    /// thousandths; those are in `odd`, at the positions `odd_at` (ascending).
    Thousandths {
        short: Vec<i16>,
        odd_at: Vec<u32>,
        odd: Vec<f64>,
    },
    /// Every value whole, once odd values became common.
    Whole(Vec<f64>),
}

impl Default for Values {
    fn default() -> Values {
        Values::Thousandths {
            short: Vec::new(),
            odd_at: Vec::new(),
            odd: Vec::new(),
        }
    }
}

/// The mark of a value kept whole in [`Values::Thousandths`].
const ODD: i16 = i16::MIN;

/// A column keeps every value whole once more than one value in this many is odd.
const ODD_SHARE: usize = 4;

/// The value `q` thousandths stands for.
#[inline]
fn from_thousandths(q: i16) -> f64 {
    f64::from(q) / 1000.0
}

/// `v` in thousandths, when that gives back exactly `v`.
fn thousandths(v: f64) -> Option<i16> {
    let q = (v * 1000.0).round();
    if !(f64::from(ODD) < q && q <= f64::from(i16::MAX)) {
        return None;
    }
    let q = q as i16;
    (from_thousandths(q).to_bits() == v.to_bits()).then_some(q)
}

impl Values {
    fn len(&self) -> usize {
        match self {
            Values::Thousandths { short, .. } => short.len(),
            Values::Whole(values) => values.len(),
        }
    }

    #[inline]
    fn get(&self, i: usize) -> f64 {
        match self {
            Values::Thousandths { short, odd_at, odd } => match short[i] {
                ODD => odd_at
                    .binary_search(&(i as u32))
                    .map_or(f64::NAN, |at| odd[at]),
                q => from_thousandths(q),
            },
            Values::Whole(values) => values[i],
        }
    }

    fn push(&mut self, v: f64) {
        let (short, odd_at, odd) = match self {
            Values::Whole(values) => return values.push(v),
            Values::Thousandths { short, odd_at, odd } => (short, odd_at, odd),
        };
        if let Some(q) = thousandths(v) {
            short.push(q);
            return;
        }
        odd_at.push(short.len() as u32);
        odd.push(v);
        short.push(ODD);
        if odd.len() > 64 && odd.len() * ODD_SHARE > short.len() {
            let whole = (0..self.len()).map(|i| self.get(i)).collect();
            *self = Values::Whole(whole);
        }
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Slotted for Column {
    fn append(&mut self, at: usize, src: &Column, from: usize, to: usize) {
        self.parts.append(at, &src.parts, from, to);
    }
}

impl Part for ColumnPart {
    fn append(&mut self, at: usize, src: &Self, from: usize, to: usize) {
        self.copy_from(at, src, from, to);
    }
}

impl ColumnPart {
    /// Where the value of `slot` lies among the values, if it has one.
    #[inline]
    fn rank(&self, slot: usize) -> Option<usize> {
        let word = *self.present.get(slot / 64)?;
        let bit = 1u64 << (slot % 64);
        if word & bit == 0 {
            return None;
        }
        Some(self.before[slot / 64] as usize + (word & (bit - 1)).count_ones() as usize)
    }

    /// The value of `slot`, if it has one.
    #[inline]
    fn get(&self, slot: usize) -> Option<f64> {
        self.rank(slot).map(|rank| self.values.get(rank))
    }

    /// Gives `slot` the value `v`; slots come in ascending order.
    fn push(&mut self, slot: usize, v: f64) {
        debug_assert!(
            self.present.len() <= slot / 64 + 1,
            "slots are pushed in ascending order"
        );
        self.mark(slot);
        self.values.push(v);
    }

    /// Gives the slots `at..` the values of `src`'s slots `from..to`, in order (slots
    /// come in ascending order, as for [`ColumnPart::push`]). Reads only the slots that have
    /// a value, and copies a value kept in thousandths as it is.
    fn copy_from(&mut self, at: usize, src: &ColumnPart, from: usize, to: usize) {
        let mut word = from / 64;
        while word * 64 < to {
            let Some(&bits) = src.present.get(word) else {
                return;
            };
            let lo = word * 64;
            let mut w = bits;
            if lo < from {
                w &= !0u64 << (from - lo);
            }
            if to - lo < 64 {
                w &= (1u64 << (to - lo)) - 1;
            }
            while w != 0 {
                let bit = w.trailing_zeros() as usize;
                let rank =
                    src.before[word] as usize + (bits & ((1u64 << bit) - 1)).count_ones() as usize;
                let slot = at + lo + bit - from;
                let short = match &src.values {
                    Values::Thousandths { short, .. } if short[rank] != ODD => Some(short[rank]),
                    _ => None,
                };
                match (short, matches!(self.values, Values::Thousandths { .. })) {
                    (Some(q), true) => {
                        self.mark(slot);
                        if let Values::Thousandths { short: mine, .. } = &mut self.values {
                            mine.push(q);
                        }
                    }
                    _ => self.push(slot, src.values.get(rank)),
                }
                w &= w - 1;
            }
            word += 1;
        }
    }

    /// Marks `slot` present (its value is pushed next); slots come in ascending order.
    fn mark(&mut self, slot: usize) {
        let word = slot / 64;
        while self.present.len() <= word {
            self.present.push(0);
            self.before.push(self.values.len() as u32);
        }
        self.present[word] |= 1 << (slot % 64);
    }

    /// True when no slot has a value.
    fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// True when every value is a whole number of thousandths, which
    /// [`thousandths`](Self::thousandths) then gives.
    fn all_thousandths(&self) -> bool {
        matches!(&self.values, Values::Thousandths { odd, .. } if odd.is_empty())
    }

    /// The value of `slot` in thousandths, if it has one; meaningful only when
    /// [`all_thousandths`](Self::all_thousandths) holds (else `None`).
    #[inline]
    fn thousandths(&self, slot: usize) -> Option<i16> {
        let Values::Thousandths { short, .. } = &self.values else {
            return None;
        };
        self.rank(slot).map(|rank| short[rank])
    }
}

#[cfg(test)]
mod tests {
    use super::Column;
    use crate::search::parts::Slotted;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn every_slot_reads_back_what_was_pushed(
            values in prop::collection::vec(prop::option::weighted(0.4, -1e9f64..1e9), 0..700),
        ) {
            let mut col = Column::default();
            for (slot, v) in values.iter().enumerate() {
                col.push_opt(slot, *v);
            }
            prop_assert_eq!(col.is_empty(), values.iter().all(Option::is_none));
            for (slot, v) in values.iter().enumerate() {
                prop_assert_eq!(col.get(slot), *v);
            }
            for slot in values.len()..values.len() + 130 {
                prop_assert_eq!(col.get(slot), None);
            }
        }

        #[test]
        fn short_decimals_odd_values_and_signed_zeros_read_back_bit_for_bit(
            values in (0u32..12).prop_flat_map(|odd_weight| prop::collection::vec(
                prop::option::weighted(0.6, prop_oneof![
                    12 => (-1000i32..=1000)
                        .prop_map(|q| format!("{:.3}", f64::from(q) / 1000.0).parse().unwrap_or(0.0)),
                    2 => (-40_000i32..=40_000).prop_map(|q| f64::from(q) / 1000.0),
                    odd_weight => -1.0f64..1.0,
                    1 => prop_oneof![Just(0.0), Just(-0.0), Just(1e-300), Just(32.767), Just(-32.767)],
                ]),
                0..900,
            )),
        ) {
            let mut col = Column::default();
            for (slot, v) in values.iter().enumerate() {
                col.push_opt(slot, *v);
            }
            for (slot, v) in values.iter().enumerate() {
                prop_assert_eq!(col.get(slot).map(f64::to_bits), v.map(f64::to_bits), "slot {}", slot);
            }
        }
    }

    proptest! {
        #[test]
        fn appended_runs_read_back_as_pushed_one_by_one(
            a in prop::collection::vec(prop::option::weighted(0.5, prop_oneof![
                4 => (-1000i32..=1000).prop_map(|q| f64::from(q) / 1000.0),
                1 => -1.0f64..1.0,
            ]), 0..400),
            b in prop::collection::vec(prop::option::weighted(0.5, (-1000i32..=1000).prop_map(|q| f64::from(q) / 1000.0)), 0..400),
            cuts in prop::collection::vec((0usize..400, 0usize..400, any::<bool>()), 0..6),
        ) {
            let (mut ca, mut cb) = (Column::default(), Column::default());
            a.iter().enumerate().for_each(|(s, v)| ca.push_opt(s, *v));
            b.iter().enumerate().for_each(|(s, v)| cb.push_opt(s, *v));
            let (mut out, mut want, mut at) = (Column::default(), Vec::new(), 0);
            for (x, y, from_a) in cuts {
                let (src, col) = if from_a { (&a, &ca) } else { (&b, &cb) };
                let (from, to) = (x.min(y).min(src.len()), x.max(y).min(src.len()));
                out.append(at, col, from, to);
                want.extend_from_slice(&src[from..to]);
                at += to - from;
            }
            for (slot, v) in want.iter().enumerate() {
                prop_assert_eq!(out.get(slot).map(f64::to_bits), v.map(f64::to_bits), "slot {}", slot);
            }
            prop_assert_eq!(out.get(want.len()), None);
        }
    }

    #[test]
    fn scores_with_three_decimals_stay_short_and_odd_ones_do_not() {
        let mut col = super::ColumnPart::default();
        for slot in 0..1000 {
            col.push(slot, format!("0.{:03}", slot % 1000).parse().unwrap_or(0.0));
        }
        assert!(matches!(col.values, super::Values::Thousandths { ref odd, .. } if odd.is_empty()));
        for slot in 1000..2000 {
            col.push(slot, 1.0 / (slot as f64));
        }
        assert!(matches!(col.values, super::Values::Whole(_)));
        assert_eq!(col.get(5), Some(0.005));
        assert_eq!(col.get(1999), Some(1.0 / 1999.0));
    }
}
