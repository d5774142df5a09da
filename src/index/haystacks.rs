//! The persisted literal and fuzzy haystacks, packed in chunks of consecutive
//! documents, so a literal or fuzzy query over the whole store reads a few hundred
//! large values (only the text it searches) instead of one record per memory.

use memchr::memmem::Finder;
use redb::{ReadableTable, StorageError, Table, TableDefinition};

/// Chunk number (document / [`CHUNK_DOCS`]) → the haystacks of its documents.
pub const HAYSTACKS: TableDefinition<u32, &[u8]> = TableDefinition::new("haystacks");

/// Documents per chunk (small, so one write rewrites little).
pub const CHUNK_DOCS: u32 = 256;

const SLOTS: usize = CHUNK_DOCS as usize;
/// Bytes of the two offset tables at the start of a chunk.
const HEADER: usize = 2 * (SLOTS + 1) * 4;

/// The literal (lowercased) and fuzzy haystacks of one document; both empty when the
/// document holds no memory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Haystacks {
    /// The lowercased literal haystack.
    pub literal: Vec<u8>,
    /// The fuzzy haystack.
    pub fuzzy: Vec<u8>,
}

/// A stored chunk read in place.
pub struct Chunk<'a> {
    bytes: &'a [u8],
}

fn offset(bytes: &[u8], i: usize) -> Option<usize> {
    let at = i * 4;
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize)
}

impl<'a> Chunk<'a> {
    /// Checks a stored chunk; `None` when it is damaged.
    pub fn parse(bytes: &'a [u8]) -> Option<Chunk<'a>> {
        let data = bytes.len().checked_sub(HEADER)?;
        let mut last = 0;
        for i in 0..2 * (SLOTS + 1) {
            let o = offset(bytes, i)?;
            // the fuzzy table starts where the literal one ends; neither runs backwards
            if o < last || o > data {
                return None;
            }
            last = o;
        }
        (offset(bytes, SLOTS)? == offset(bytes, SLOTS + 1)?
            && offset(bytes, 2 * SLOTS + 1)? == data)
            .then_some(Chunk { bytes })
    }

    fn range(&self, table: usize, slot: usize) -> &'a [u8] {
        let base = table * (SLOTS + 1);
        let (from, to) = (
            offset(self.bytes, base + slot).unwrap_or(0),
            offset(self.bytes, base + slot + 1).unwrap_or(0),
        );
        self.bytes.get(HEADER + from..HEADER + to).unwrap_or(&[])
    }

    /// The literal haystack of slot `slot` (document `chunk * CHUNK_DOCS + slot`).
    pub fn literal(&self, slot: usize) -> &'a [u8] {
        self.range(0, slot)
    }

    /// The fuzzy haystack of slot `slot`.
    pub fn fuzzy(&self, slot: usize) -> &'a [u8] {
        self.range(1, slot)
    }

    /// Calls `hit` once for every slot whose literal haystack contains the word `finder`
    /// looks for (`len` bytes long), in one pass over the chunk's literal text: a match
    /// counts only when it lies inside one haystack.
    pub fn literal_hits(&self, finder: &Finder<'_>, len: usize, mut hit: impl FnMut(usize)) {
        let start = |slot: usize| offset(self.bytes, slot).unwrap_or(0);
        let text = self.bytes.get(HEADER..HEADER + start(SLOTS)).unwrap_or(&[]);
        let mut at = 0;
        while let Some(found) = text.get(at..).and_then(|rest| finder.find(rest)) {
            let p = at + found;
            // the slot whose haystack holds position p: the last starting at or before it
            let (mut lo, mut hi) = (0, SLOTS);
            while lo + 1 < hi {
                let mid = (lo + hi) / 2;
                if start(mid) <= p { lo = mid } else { hi = mid }
            }
            let slot = (lo..SLOTS).find(|&s| start(s + 1) > p).unwrap_or(SLOTS - 1);
            let end = start(slot + 1);
            if p + len <= end {
                hit(slot);
                at = end;
            } else {
                at = p + 1;
            }
        }
    }
}

/// The stored form of a chunk's haystacks (exactly [`CHUNK_DOCS`] of them).
pub fn encode(docs: &[Haystacks]) -> Vec<u8> {
    let literal: usize = docs.iter().map(|h| h.literal.len()).sum();
    let fuzzy: usize = docs.iter().map(|h| h.fuzzy.len()).sum();
    let mut w = Vec::with_capacity(HEADER + literal + fuzzy);
    let mut at = 0u32;
    let mut push = |w: &mut Vec<u8>, len: usize| {
        w.extend_from_slice(&at.to_le_bytes());
        at += len as u32;
    };
    for h in docs {
        push(&mut w, h.literal.len());
    }
    push(&mut w, 0);
    for h in docs {
        push(&mut w, h.fuzzy.len());
    }
    push(&mut w, 0);
    for h in docs {
        w.extend_from_slice(&h.literal);
    }
    for h in docs {
        w.extend_from_slice(&h.fuzzy);
    }
    w
}

/// Calls `f` with every chunk number and chunk, in order; a damaged chunk is an error.
pub fn for_each<T: ReadableTable<u32, &'static [u8]>>(
    table: &T,
    mut f: impl FnMut(u32, &Chunk<'_>),
) -> Result<(), StorageError> {
    for entry in table.iter()? {
        let (chunk, bytes) = entry?;
        let parsed = Chunk::parse(bytes.value()).ok_or_else(|| damaged(chunk.value()))?;
        f(chunk.value(), &parsed);
    }
    Ok(())
}

fn damaged(chunk: u32) -> StorageError {
    StorageError::Corrupted(format!("haystacks chunk {chunk} cannot be decoded"))
}

/// Writes `changes` (sorted by document, at most one per document; empty haystacks =
/// no memory under that document any more).
pub(crate) fn apply(
    table: &mut Table<'_, u32, &'static [u8]>,
    changes: &[(u32, Haystacks)],
) -> Result<(), StorageError> {
    let mut i = 0;
    while i < changes.len() {
        let chunk = changes[i].0 / CHUNK_DOCS;
        let mut docs: Vec<Haystacks> = match table.get(chunk)? {
            Some(v) => {
                let c = Chunk::parse(v.value()).ok_or_else(|| damaged(chunk))?;
                (0..SLOTS)
                    .map(|s| Haystacks {
                        literal: c.literal(s).to_vec(),
                        fuzzy: c.fuzzy(s).to_vec(),
                    })
                    .collect()
            }
            None => vec![Haystacks::default(); SLOTS],
        };
        while i < changes.len() && changes[i].0 / CHUNK_DOCS == chunk {
            let (doc, h) = &changes[i];
            docs[(doc % CHUNK_DOCS) as usize] = h.clone();
            i += 1;
        }
        if docs
            .iter()
            .all(|h| h.literal.is_empty() && h.fuzzy.is_empty())
        {
            table.remove(chunk)?;
        } else {
            table.insert(chunk, encode(&docs).as_slice())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_keeps_every_haystack_and_rejects_damage() {
        let mut docs = vec![Haystacks::default(); SLOTS];
        docs[0].literal = b"first".to_vec();
        docs[3] = Haystacks {
            literal: b"x\ny".to_vec(),
            fuzzy: b"X Y".to_vec(),
        };
        docs[SLOTS - 1].fuzzy = "é".as_bytes().to_vec();
        let bytes = encode(&docs);
        let c = Chunk::parse(&bytes).expect("parses");
        for (s, h) in docs.iter().enumerate() {
            assert_eq!(c.literal(s), h.literal.as_slice(), "literal {s}");
            assert_eq!(c.fuzzy(s), h.fuzzy.as_slice(), "fuzzy {s}");
        }
        assert!(Chunk::parse(&bytes[..bytes.len() - 1]).is_none());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(Chunk::parse(&longer).is_none());
        let finder = Finder::new(b"x");
        let mut hits = Vec::new();
        c.literal_hits(&finder, 1, |s| hits.push(s));
        assert_eq!(hits, vec![3]);
        // "tx" spans the end of slot 0 ("first") and slot 3 ("x\ny"): no hit
        let spans = Finder::new(b"tx");
        let mut none = Vec::new();
        c.literal_hits(&spans, 2, |s| none.push(s));
        assert!(none.is_empty(), "{none:?}");
        let mut backwards = bytes.clone();
        backwards[4..8].copy_from_slice(&100u32.to_le_bytes());
        assert!(Chunk::parse(&backwards).is_none());
    }
}
