//! Interning BM25 terms to dense numbers, fast for the millions of lookups of a load
//! or an import.

use foldhash::HashMap;

/// Term → term number. Terms of up to 15 bytes are keyed inline (no pointer to chase
/// while loading millions of them); longer ones by their bytes.
#[derive(Debug, Default)]
pub(crate) struct TermIds {
    short: HashMap<u128, u32>,
    long: HashMap<Box<[u8]>, u32>,
}

fn inline_key(term: &[u8]) -> Option<u128> {
    if term.len() > 15 {
        return None;
    }
    let mut key = [0u8; 16];
    key[..term.len()].copy_from_slice(term);
    key[15] = term.len() as u8;
    Some(u128::from_le_bytes(key))
}

impl TermIds {
    /// The number of a term, if any document has it.
    pub(crate) fn get(&self, term: &[u8]) -> Option<u32> {
        match inline_key(term) {
            Some(k) => self.short.get(&k).copied(),
            None => self.long.get(term).copied(),
        }
    }
    /// The number of a term, given the next free number when it is new.
    pub(crate) fn intern(&mut self, term: &[u8]) -> u32 {
        let next = (self.short.len() + self.long.len()) as u32;
        match inline_key(term) {
            Some(k) => *self.short.entry(k).or_insert(next),
            None => match self.long.get(term) {
                Some(&id) => id,
                None => {
                    self.long.insert(term.into(), next);
                    next
                }
            },
        }
    }
    /// Number of distinct terms.
    pub(crate) fn len(&self) -> usize {
        self.short.len() + self.long.len()
    }
}
