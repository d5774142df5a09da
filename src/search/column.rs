//! A numeric column most memories may leave empty (`feel_*`, confidence, composites):
//! one presence bit per memory, a running count per 64 memories, and only the values
//! that are there. A `feel_*` score present in four memories of ten costs 3.5 bytes a
//! memory instead of the 8 of a dense column.

/// An optional `f64` per slot, filled in slot order.
#[derive(Debug, Default, Clone)]
pub(crate) struct Column {
    /// Bit `s % 64` of word `s / 64`: whether slot `s` has a value.
    present: Vec<u64>,
    /// How many values lie in the words before each word.
    before: Vec<u32>,
    /// The values, in slot order.
    values: Vec<f64>,
}

impl Column {
    /// The value of `slot`, if it has one.
    #[inline]
    pub(crate) fn get(&self, slot: usize) -> Option<f64> {
        let word = *self.present.get(slot / 64)?;
        let bit = 1u64 << (slot % 64);
        if word & bit == 0 {
            return None;
        }
        let rank = self.before[slot / 64] as usize + (word & (bit - 1)).count_ones() as usize;
        Some(self.values[rank])
    }

    /// Gives `slot` the value `v`; slots come in ascending order.
    pub(crate) fn push(&mut self, slot: usize, v: f64) {
        let word = slot / 64;
        debug_assert!(
            self.present.len() <= word + 1,
            "slots are pushed in ascending order"
        );
        while self.present.len() <= word {
            self.present.push(0);
            self.before.push(self.values.len() as u32);
        }
        self.present[word] |= 1 << (slot % 64);
        self.values.push(v);
    }

    /// Gives `slot` the value `v` when there is one.
    pub(crate) fn push_opt(&mut self, slot: usize, v: Option<f64>) {
        if let Some(v) = v {
            self.push(slot, v);
        }
    }

    /// True when no slot has a value.
    pub(crate) fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::Column;
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
    }
}
