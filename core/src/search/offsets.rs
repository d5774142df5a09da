//! Where each slot's part of a flat buffer starts: four bytes an offset while the
//! buffer is under 4 GiB (a million memories' haystacks take a quarter of that), eight
//! once it grows past.

/// Offsets into a flat buffer, ascending, the first one 0: part `i` of the buffer is
/// `get(i)..get(i + 1)`.
#[derive(Debug, Clone)]
pub(crate) enum Offsets {
    /// Every offset fits in a `u32`.
    Short(Vec<u32>),
    /// Some offset does not.
    Long(Vec<usize>),
}

impl Default for Offsets {
    fn default() -> Offsets {
        Offsets::Short(vec![0])
    }
}

impl Offsets {
    /// Room for `n` offsets after the first.
    pub(crate) fn with_capacity(n: usize) -> Offsets {
        let mut short = Vec::with_capacity(n + 1);
        short.push(0);
        Offsets::Short(short)
    }

    /// Offset number `i`.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> usize {
        match self {
            Offsets::Short(v) => v[i] as usize,
            Offsets::Long(v) => v[i],
        }
    }

    /// The range of part `i`.
    #[inline]
    pub(crate) fn part(&self, i: usize) -> std::ops::Range<usize> {
        self.get(i)..self.get(i + 1)
    }

    /// How many offsets there are (one more than parts).
    pub(crate) fn len(&self) -> usize {
        match self {
            Offsets::Short(v) => v.len(),
            Offsets::Long(v) => v.len(),
        }
    }

    /// Adds the offset where the next part starts (the buffer's length now).
    pub(crate) fn push(&mut self, at: usize) {
        match self {
            Offsets::Short(v) => match u32::try_from(at) {
                Ok(at) => v.push(at),
                Err(_) => {
                    let mut long: Vec<usize> = v.iter().map(|&x| x as usize).collect();
                    long.push(at);
                    *self = Offsets::Long(long);
                }
            },
            Offsets::Long(v) => v.push(at),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Offsets;

    #[test]
    fn offsets_past_four_gibibytes_switch_to_eight_bytes_and_keep_the_earlier_ones() {
        let mut o = Offsets::default();
        let big = u32::MAX as usize;
        o.push(10);
        o.push(big);
        assert!(matches!(o, Offsets::Short(_)));
        o.push(big + 1);
        assert!(matches!(o, Offsets::Long(_)));
        o.push(big + 7);
        assert_eq!(o.len(), 5);
        assert_eq!(
            (0..5).map(|i| o.get(i)).collect::<Vec<_>>(),
            [0, 10, big, big + 1, big + 7]
        );
        assert_eq!(o.part(1), 10..big);
        assert_eq!(o.part(3), big + 1..big + 7);
    }
}
