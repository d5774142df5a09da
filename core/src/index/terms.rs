//! Interning BM25 terms to dense numbers, fast for the millions of lookups of a load
//! or an import.
//!
//! An import's vocabulary (100,000 memories hold about 180,000 distinct terms) is far
//! larger than the processor's caches, so a lookup mostly waits for memory. Terms of up
//! to 15 bytes, nearly all of them, are therefore kept inline in one open-addressed
//! table whose slot for a term is known before the lookup, so the caller can ask for
//! it ahead ([`TermIds::prefetch`]) while it handles the terms before.

use foldhash::HashMap;

/// A short term's key: its bytes zero-padded, with its length in the last byte.
type Key = u128;

/// The key of no term (a length byte above 15): marks an empty slot.
const EMPTY: Key = Key::MAX;

/// One slot of the short-term table.
#[derive(Debug, Clone, Copy)]
struct Slot {
    key: Key,
    id: u32,
}

const EMPTY_SLOT: Slot = Slot { key: EMPTY, id: 0 };

/// Term → term number. Terms of up to 15 bytes are keyed inline (no pointer to chase
/// while loading millions of them); longer ones by their bytes.
#[derive(Debug, Default)]
pub(crate) struct TermIds {
    /// Open addressing with linear probing; empty or at most 70% full.
    slots: Vec<Slot>,
    /// Short terms held.
    short: usize,
    long: HashMap<Box<[u8]>, u32>,
}

fn inline_key(term: &[u8]) -> Option<Key> {
    if term.len() > 15 {
        return None;
    }
    let mut key = [0u8; 16];
    key[..term.len()].copy_from_slice(term);
    key[15] = term.len() as u8;
    Some(Key::from_le_bytes(key))
}

/// The first slot to probe for `key` in a table of `len` slots (a power of two).
fn home(key: Key, len: usize) -> usize {
    let (lo, hi) = (key as u64, (key >> 64) as u64);
    let mixed = (lo ^ hi.wrapping_mul(0x9E37_79B9_7F4A_7C15)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (mixed >> (64 - len.trailing_zeros())) as usize
}

impl TermIds {
    /// The number of a term, if any document has it.
    pub(crate) fn get(&self, term: &[u8]) -> Option<u32> {
        match inline_key(term) {
            Some(_) if self.slots.is_empty() => None,
            Some(k) => self.find(k).ok().map(|at| self.slots[at].id),
            None => self.long.get(term).copied(),
        }
    }

    /// The number of a term, given the next free number when it is new.
    pub(crate) fn intern(&mut self, term: &[u8]) -> u32 {
        let next = u32::try_from(self.len()).unwrap_or(u32::MAX);
        match inline_key(term) {
            Some(k) => match self.find_or_make_room(k) {
                Ok(at) => self.slots[at].id,
                Err(at) => {
                    self.slots[at] = Slot { key: k, id: next };
                    self.short += 1;
                    if self.short * 10 > self.slots.len() * 7 {
                        self.grow();
                    }
                    next
                }
            },
            None => match self.long.get(term) {
                Some(&id) => id,
                None => {
                    self.long.insert(term.into(), next);
                    next
                }
            },
        }
    }

    /// Asks the processor to start loading the slot of `term`, which a lookup of it
    /// soon after will read.
    #[inline]
    pub(crate) fn prefetch(&self, term: &[u8]) {
        #[cfg(target_arch = "x86_64")]
        if let (Some(k), false) = (inline_key(term), self.slots.is_empty()) {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let slot = &self.slots[home(k, self.slots.len())];
            // SAFETY: a prefetch is a hint that never faults and changes nothing the
            // program can see; the pointer is in bounds besides.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(slot).cast()) }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = term;
    }

    /// Number of distinct terms.
    pub(crate) fn len(&self) -> usize {
        self.short + self.long.len()
    }

    /// [`find`](Self::find), making the first table when there is none.
    fn find_or_make_room(&mut self, key: Key) -> Result<usize, usize> {
        if self.slots.is_empty() {
            self.grow();
        }
        self.find(key)
    }

    /// `Ok(slot holding key)` or `Err(empty slot where it would go)`, in a table that
    /// has slots (it always has an empty one, being at most 70% full).
    fn find(&self, key: Key) -> Result<usize, usize> {
        let mask = self.slots.len() - 1;
        let mut at = home(key, self.slots.len());
        loop {
            let slot = self.slots[at];
            if slot.key == key {
                return Ok(at);
            }
            if slot.key == EMPTY {
                return Err(at);
            }
            at = (at + 1) & mask;
        }
    }

    /// Doubles the table (or makes its first one).
    fn grow(&mut self) {
        let len = (self.slots.len() * 2).max(1024);
        let old = std::mem::replace(&mut self.slots, vec![EMPTY_SLOT; len]);
        let mask = len - 1;
        for slot in old.into_iter().filter(|s| s.key != EMPTY) {
            let mut at = home(slot.key, len);
            while self.slots[at].key != EMPTY {
                at = (at + 1) & mask;
            }
            self.slots[at] = slot;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_dense_stable_and_found_again() {
        let mut ids = TermIds::default();
        let words: Vec<String> = (0..5000)
            .map(|i| match i % 3 {
                0 => format!("w{i}"),
                1 => format!("a-longer-term-number-{i}"),
                _ => "x".repeat(1 + i % 15) + &i.to_string(),
            })
            .collect();
        let mut expected = std::collections::HashMap::new();
        for (round, w) in words.iter().chain(words.iter()).enumerate() {
            let next = expected.len() as u32;
            let id = ids.intern(w.as_bytes());
            let want = *expected.entry(w.clone()).or_insert(next);
            assert_eq!(id, want, "{w} in round {round}");
            ids.prefetch(w.as_bytes());
        }
        assert_eq!(ids.len(), expected.len());
        for (w, &id) in &expected {
            assert_eq!(ids.get(w.as_bytes()), Some(id), "{w}");
        }
        assert_eq!(ids.get(b"absent"), None);
        assert_eq!(ids.get(b"an absent long term"), None);
        assert_eq!(ids.get(b""), None);
        assert_eq!(ids.intern(b""), expected.len() as u32);
    }
}
