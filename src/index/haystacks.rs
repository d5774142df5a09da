//! The persisted literal and fuzzy haystacks, packed in chunks of consecutive
//! documents, so a literal or fuzzy query over the whole store reads a few hundred
//! large values (only the text it searches) instead of one record per memory. They are
//! the only stored copy of that text: opening a store reads them beside the search
//! records.

use memchr::memmem::Finder;
use redb::{AccessGuard, ReadableTable, StorageError, Table, TableDefinition};

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

impl Haystacks {
    /// The haystacks borrowed; `None` when the fuzzy one is not UTF-8.
    pub fn text(&self) -> Option<Text<'_>> {
        Text::new(&self.literal, &self.fuzzy)
    }
}

/// One document's literal and fuzzy haystacks, borrowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Text<'a> {
    /// The lowercased literal haystack (UTF-8, not re-validated when read).
    pub literal: &'a [u8],
    /// The fuzzy haystack.
    pub fuzzy: &'a str,
}

impl<'a> Text<'a> {
    /// The two haystacks; `None` when the fuzzy one is not UTF-8.
    pub fn new(literal: &'a [u8], fuzzy: &'a [u8]) -> Option<Text<'a>> {
        let fuzzy = std::str::from_utf8(fuzzy).ok()?;
        Some(Text { literal, fuzzy })
    }

    /// A copy of both haystacks.
    pub fn owned(self) -> Haystacks {
        Haystacks {
            literal: self.literal.to_vec(),
            fuzzy: self.fuzzy.as_bytes().to_vec(),
        }
    }
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

    /// Both haystacks of slot `slot`, when it holds a memory's (a memory's literal
    /// haystack is never empty: it holds the id) and they are readable.
    pub fn text(&self, slot: usize) -> Option<Text<'a>> {
        let literal = self.literal(slot);
        if literal.is_empty() {
            return None;
        }
        Text::new(literal, self.fuzzy(slot))
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
    let slots: Vec<Slot<'_>> = docs
        .iter()
        .map(|h| (h.literal.as_slice(), h.fuzzy.as_slice()))
        .collect();
    encode_slots(&slots)
}

/// One document's literal and fuzzy haystacks as bytes (both empty: no memory).
type Slot<'a> = (&'a [u8], &'a [u8]);

/// The no-memory slot.
const EMPTY_SLOT: Slot<'static> = (&[], &[]);

/// [`encode`] from borrowed haystacks, copied once, into the stored chunk.
fn encode_slots(slots: &[Slot<'_>]) -> Vec<u8> {
    let text: usize = slots.iter().map(|(l, f)| l.len() + f.len()).sum();
    let mut w = Vec::with_capacity(HEADER + text);
    let mut at = 0u32;
    let mut push = |w: &mut Vec<u8>, len: usize| {
        w.extend_from_slice(&at.to_le_bytes());
        at += len as u32;
    };
    for (literal, _) in slots {
        push(&mut w, literal.len());
    }
    push(&mut w, 0);
    for (_, fuzzy) in slots {
        push(&mut w, fuzzy.len());
    }
    push(&mut w, 0);
    for (literal, _) in slots {
        w.extend_from_slice(literal);
    }
    for (_, fuzzy) in slots {
        w.extend_from_slice(fuzzy);
    }
    w
}

/// Calls `f` with every chunk number and chunk, in order; a damaged chunk is an error.
pub fn for_each<T: ReadableTable<u32, &'static [u8]>>(
    table: &T,
    f: impl FnMut(u32, &Chunk<'_>),
) -> Result<(), StorageError> {
    for_each_in(table, 0..=u32::MAX, f)
}

/// [`for_each`] over the chunks numbered in `chunks` only.
pub fn for_each_in<T: ReadableTable<u32, &'static [u8]>>(
    table: &T,
    chunks: std::ops::RangeInclusive<u32>,
    mut f: impl FnMut(u32, &Chunk<'_>),
) -> Result<(), StorageError> {
    for entry in table.range(chunks)? {
        let (chunk, bytes) = entry?;
        let parsed = Chunk::parse(bytes.value()).ok_or_else(|| damaged(chunk.value()))?;
        f(chunk.value(), &parsed);
    }
    Ok(())
}

/// Reads the haystacks of documents asked for in ascending order (mostly), holding
/// the one chunk they are in: a pass over every document reads each chunk once.
pub struct ChunkCursor<'t, T> {
    table: &'t T,
    /// The chunk held: its number and its stored bytes (`None` when it is missing or
    /// damaged).
    held: Option<(u32, Option<AccessGuard<'t, &'static [u8]>>)>,
}

impl<'t, T: ReadableTable<u32, &'static [u8]>> ChunkCursor<'t, T> {
    /// A cursor over the chunks of `table`.
    pub fn new(table: &'t T) -> ChunkCursor<'t, T> {
        ChunkCursor { table, held: None }
    }

    /// The haystacks stored for `doc`; `None` when its chunk is missing or damaged or
    /// holds no memory's text for it.
    pub fn text(&mut self, doc: u32) -> Result<Option<Text<'_>>, StorageError> {
        let chunk = doc / CHUNK_DOCS;
        if self.held.as_ref().is_none_or(|(held, _)| *held != chunk) {
            let guard = self
                .table
                .get(chunk)?
                .filter(|g| Chunk::parse(g.value()).is_some());
            self.held = Some((chunk, guard));
        }
        let Some((_, Some(guard))) = &self.held else {
            return Ok(None);
        };
        // checked when it was read
        let c = Chunk {
            bytes: guard.value(),
        };
        Ok(c.text((doc % CHUNK_DOCS) as usize))
    }
}

fn damaged(chunk: u32) -> StorageError {
    StorageError::Corrupted(format!("haystacks chunk {chunk} cannot be decoded"))
}

/// Writes `changes` (sorted by document, at most one per document; `None` = no memory
/// under that document any more). Each chunk is built straight from the stored one (if
/// any) and the new haystacks, copying the text once.
pub(crate) fn apply(
    table: &mut Table<'_, u32, &'static [u8]>,
    changes: &[(u32, Option<Text<'_>>)],
) -> Result<(), StorageError> {
    let mut i = 0;
    while i < changes.len() {
        let chunk = changes[i].0 / CHUNK_DOCS;
        // a copy, as the table is written below
        let stored = table.get(chunk)?.map(|v| v.value().to_vec());
        let mut slots: Vec<Slot<'_>> = match &stored {
            Some(bytes) => {
                let c = Chunk::parse(bytes).ok_or_else(|| damaged(chunk))?;
                (0..SLOTS).map(|s| (c.literal(s), c.fuzzy(s))).collect()
            }
            None => vec![EMPTY_SLOT; SLOTS],
        };
        while i < changes.len() && changes[i].0 / CHUNK_DOCS == chunk {
            let (doc, text) = &changes[i];
            slots[(doc % CHUNK_DOCS) as usize] =
                text.map_or(EMPTY_SLOT, |t| (t.literal, t.fuzzy.as_bytes()));
            i += 1;
        }
        if slots.iter().all(|&slot| slot == EMPTY_SLOT) {
            table.remove(chunk)?;
        } else {
            table.insert(chunk, encode_slots(&slots).as_slice())?;
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
