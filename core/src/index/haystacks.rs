//! The persisted literal and fuzzy haystacks, each kind in its own table of chunks of
//! consecutive documents, so a literal or fuzzy query over the whole store reads a few
//! thousand large values holding only the text it searches, instead of one record per
//! memory. They are the only stored copy of that text: opening a store reads them
//! beside the search records.
//!
//! A chunk holds up to [`MAX_SLOTS`] consecutive documents, as many as fit in
//! [`TARGET_BYTES`] (a chunk of one large memory may be larger): redb stores a value
//! larger than a page in a run of pages whose count is a power of two, so a chunk that
//! just fits 64 KiB leaves almost nothing of its run unused, whatever the size of the
//! memories, where a fixed number of documents left a third of it on average. Each
//! chunk is stored under its first document; [`apply`] (in `haystack_writes`) builds
//! and changes them. The two tables are chunked apart: a fuzzy haystack is a third
//! the size of a literal one, so its chunks hold about three times the documents.

use super::sealed::Sealed;
use memchr::memmem::Finder;
use redb::{AccessGuard, ReadableTable, StorageError, TableDefinition};
use std::ops::Bound;

/// A chunk's first document → the lowercased literal haystacks of its documents.
pub const LITERAL_TEXT: TableDefinition<u32, Sealed> = TableDefinition::new("literal_text");

/// A chunk's first document → the fuzzy haystacks of its documents.
pub const FUZZY_TEXT: TableDefinition<u32, Sealed> = TableDefinition::new("fuzzy_text");

/// The table an index before version 13 kept both haystacks in, dropped by the rebuild.
pub const OLD_HAYSTACKS: TableDefinition<u32, Sealed> = TableDefinition::new("haystacks");

/// The most documents a chunk holds.
pub const MAX_SLOTS: usize = 1024;

/// The size a write fills a chunk up to: a 64 KiB run of pages, less room for the
/// page header redb puts before the value.
pub const TARGET_BYTES: usize = (64 << 10) - 256;

/// Bytes of a chunk's header: its slot count and its offset table.
pub(crate) const fn header_bytes(slots: usize) -> usize {
    4 + (slots + 1) * 4
}

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

/// A stored chunk of one kind of haystack, read in place.
pub struct Chunk<'a> {
    bytes: &'a [u8],
    slots: usize,
}

fn offset(bytes: &[u8], i: usize) -> Option<usize> {
    let at = 4 + i * 4;
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize)
}

impl<'a> Chunk<'a> {
    /// Checks a stored chunk; `None` when it is damaged.
    pub fn parse(bytes: &'a [u8]) -> Option<Chunk<'a>> {
        let slots = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
        if slots == 0 || slots > MAX_SLOTS {
            return None;
        }
        let data = bytes.len().checked_sub(header_bytes(slots))?;
        let mut last = 0;
        for i in 0..=slots {
            let o = offset(bytes, i)?;
            // the offsets never run backwards
            if o < last || o > data {
                return None;
            }
            last = o;
        }
        (offset(bytes, 0)? == 0 && last == data).then_some(Chunk { bytes, slots })
    }

    /// How many documents it holds (some perhaps without a memory).
    pub fn len(&self) -> usize {
        self.slots
    }

    /// True when it holds no document (never, for a parsed chunk).
    pub fn is_empty(&self) -> bool {
        self.slots == 0
    }

    fn start(&self, slot: usize) -> usize {
        offset(self.bytes, slot).unwrap_or(0)
    }

    /// The haystack of slot `slot` (the chunk's first document + `slot`): empty when
    /// the document holds no memory (a memory's haystacks are never empty: both hold
    /// its id).
    pub fn get(&self, slot: usize) -> &'a [u8] {
        if slot >= self.slots {
            return &[];
        }
        let (from, to) = (self.start(slot), self.start(slot + 1));
        let header = header_bytes(self.slots);
        self.bytes.get(header + from..header + to).unwrap_or(&[])
    }

    /// The haystacks of every slot, one after another: slot `s`'s runs from
    /// [`start_of`](Self::start_of)`(s)` to `start_of(s + 1)`.
    pub fn text(&self) -> &'a [u8] {
        let header = header_bytes(self.slots);
        self.bytes
            .get(header..header + self.start(self.slots))
            .unwrap_or(&[])
    }

    /// Where slot `slot`'s haystack begins in [`text`](Self::text) (for the slot past
    /// the last, where the last ends).
    pub fn start_of(&self, slot: usize) -> usize {
        self.start(slot.min(self.slots))
    }

    /// Calls `hit` once for every slot whose haystack contains the word `finder` looks
    /// for (`len` bytes long), in one pass over the chunk's text: a match counts only
    /// when it lies inside one haystack.
    pub fn hits(&self, finder: &Finder<'_>, len: usize, mut hit: impl FnMut(usize)) {
        let slots = self.slots;
        let start = |slot: usize| self.start(slot);
        let header = header_bytes(slots);
        let text = self.bytes.get(header..header + start(slots)).unwrap_or(&[]);
        let mut at = 0;
        while let Some(found) = text.get(at..).and_then(|rest| finder.find(rest)) {
            let p = at + found;
            // the slot whose haystack holds position p: the last starting at or before it
            let (mut lo, mut hi) = (0, slots);
            while lo + 1 < hi {
                let mid = (lo + hi) / 2;
                if start(mid) <= p { lo = mid } else { hi = mid }
            }
            let slot = (lo..slots).find(|&s| start(s + 1) > p).unwrap_or(slots - 1);
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

/// The stored form of a chunk holding the haystacks `slots` of consecutive documents
/// (at least one; empty: no memory), copied once.
pub fn encode(slots: &[&[u8]]) -> Vec<u8> {
    let text: usize = slots.iter().map(|t| t.len()).sum();
    let mut w = Vec::with_capacity(header_bytes(slots.len()) + text);
    w.extend_from_slice(&(slots.len() as u32).to_le_bytes());
    let mut at = 0u32;
    w.extend_from_slice(&at.to_le_bytes());
    for t in slots {
        at += t.len() as u32;
        w.extend_from_slice(&at.to_le_bytes());
    }
    for t in slots {
        w.extend_from_slice(t);
    }
    w
}

/// Calls `f` with every chunk's first document and the chunk, in order; a damaged
/// chunk is an error.
pub fn for_each<T: ReadableTable<u32, Sealed>>(
    table: &T,
    f: impl FnMut(u32, &Chunk<'_>),
) -> Result<(), StorageError> {
    for_each_covering(table, 0..=u32::MAX, f)
}

/// [`for_each`] over the chunks that hold documents of `docs` only.
pub fn for_each_covering<T: ReadableTable<u32, Sealed>>(
    table: &T,
    docs: std::ops::RangeInclusive<u32>,
    mut f: impl FnMut(u32, &Chunk<'_>),
) -> Result<(), StorageError> {
    walk_covering(table, docs, Walk::OldestFirst, |first, chunk| {
        f(first, chunk);
        true
    })
}

/// The order in which [`walk_covering`] visits chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Walk {
    /// Ascending first documents: the order the store grew in.
    OldestFirst,
    /// Descending first documents: the newest memories first.
    NewestFirst,
}

/// [`for_each_covering`] in the order `walk` gives, for as long as `f` says to go on
/// (returns true): the chunks after one it stopped at are not read. Each chunk is read
/// once: a chunk is a page of its own, and the request's page cache is too small to
/// keep one for a second look.
pub fn walk_covering<T: ReadableTable<u32, Sealed>>(
    table: &T,
    docs: std::ops::RangeInclusive<u32>,
    walk: Walk,
    mut f: impl FnMut(u32, &Chunk<'_>) -> bool,
) -> Result<(), StorageError> {
    let (start, end) = (*docs.start(), *docs.end());
    let mut visit = |first: u32, bytes: StoredChunk<'_>| {
        let parsed = Chunk::parse(bytes.value().open(&first)?).ok_or_else(|| damaged(first))?;
        Ok::<bool, StorageError>(f(first, &parsed))
    };
    match walk {
        Walk::OldestFirst => {
            // the chunk holding the first document starts at or before it
            let after = match chunk_before(table, start)? {
                Some((first, bytes)) => {
                    if !visit(first, bytes)? || first >= end {
                        return Ok(());
                    }
                    Bound::Excluded(first)
                }
                None => Bound::Included(start),
            };
            for entry in table.range::<u32>((after, Bound::Included(end)))? {
                let (first, bytes) = entry?;
                if !visit(first.value(), bytes)? {
                    break;
                }
            }
        }
        Walk::NewestFirst => {
            // down from the last document to the chunk that starts at or before the first
            for entry in table.range(..=end)?.rev() {
                let (first, bytes) = entry?;
                let first = first.value();
                if !visit(first, bytes)? || first <= start {
                    break;
                }
            }
        }
    }
    Ok(())
}

/// A stored chunk's bytes, read from its table.
pub(crate) type StoredChunk<'t> = AccessGuard<'t, Sealed>;

/// The chunk stored at or before `doc` (the one that holds it, if any chunk does):
/// its first document and its stored bytes.
pub(crate) fn chunk_before<'t, T: ReadableTable<u32, Sealed>>(
    table: &'t T,
    doc: u32,
) -> Result<Option<(u32, StoredChunk<'t>)>, StorageError> {
    match table.range(..=doc)?.next_back() {
        Some(entry) => {
            let (first, bytes) = entry?;
            Ok(Some((first.value(), bytes)))
        }
        None => Ok(None),
    }
}

/// The first document of the chunk stored after `doc`, if any.
pub(crate) fn next_chunk_after<T: ReadableTable<u32, Sealed>>(
    table: &T,
    doc: u32,
) -> Result<Option<u32>, StorageError> {
    let after = (Bound::Excluded(doc), Bound::Unbounded);
    match table.range::<u32>(after)?.next() {
        Some(entry) => Ok(Some(entry?.0.value())),
        None => Ok(None),
    }
}

/// Reads the haystacks of documents asked for in ascending order (mostly), holding
/// the one chunk they are in: a pass over every document reads each chunk once.
pub struct ChunkCursor<'t, T> {
    table: &'t T,
    /// The chunk held: its first document, how many it holds and its stored bytes
    /// (`None` when damaged); `None` before the first read.
    held: Option<(u32, usize, Option<StoredChunk<'t>>)>,
}

impl<'t, T: ReadableTable<u32, Sealed>> ChunkCursor<'t, T> {
    /// A cursor over the chunks of `table`.
    pub fn new(table: &'t T) -> ChunkCursor<'t, T> {
        ChunkCursor { table, held: None }
    }

    /// The haystack stored for `doc`; `None` when no chunk holds it, or it holds no
    /// memory's text for it. A damaged chunk is an error.
    pub fn get(&mut self, doc: u32) -> Result<Option<&[u8]>, StorageError> {
        let holds =
            |first: u32, slots: usize| doc >= first && u64::from(doc - first) < slots as u64;
        if !self
            .held
            .as_ref()
            .is_some_and(|&(first, slots, _)| holds(first, slots))
        {
            self.held = Some(match chunk_before(self.table, doc)? {
                Some((first, guard)) => {
                    let bytes = guard.value().open(&first)?;
                    let slots = Chunk::parse(bytes).ok_or_else(|| damaged(first))?.len();
                    (first, slots, Some(guard))
                }
                None => (doc, 0, None),
            });
        }
        let Some((first, slots, Some(guard))) = &self.held else {
            return Ok(None);
        };
        if !holds(*first, *slots) {
            return Ok(None);
        }
        // checked when it was read
        let c = Chunk {
            bytes: guard.value().opened_before(),
            slots: *slots,
        };
        let text = c.get((doc - first) as usize);
        Ok((!text.is_empty()).then_some(text))
    }
}

/// Reads both haystacks of documents asked for in ascending order (mostly): a
/// [`ChunkCursor`] over each table.
pub struct TextCursor<'t, T> {
    literal: ChunkCursor<'t, T>,
    fuzzy: ChunkCursor<'t, T>,
}

impl<'t, T: ReadableTable<u32, Sealed>> TextCursor<'t, T> {
    /// A cursor over the literal table `literal` and the fuzzy table `fuzzy`.
    pub fn new(literal: &'t T, fuzzy: &'t T) -> TextCursor<'t, T> {
        TextCursor {
            literal: ChunkCursor::new(literal),
            fuzzy: ChunkCursor::new(fuzzy),
        }
    }

    /// Both haystacks stored for `doc`; `None` when either table lacks its haystack or
    /// the fuzzy one is not UTF-8. A damaged chunk is an error.
    pub fn text(&mut self, doc: u32) -> Result<Option<Text<'_>>, StorageError> {
        let Some(literal) = self.literal.get(doc)? else {
            return Ok(None);
        };
        let Some(fuzzy) = self.fuzzy.get(doc)? else {
            return Ok(None);
        };
        Ok(Text::new(literal, fuzzy))
    }
}

pub(crate) fn damaged(first: u32) -> StorageError {
    StorageError::Corrupted(format!(
        "haystacks chunk at document {first} cannot be decoded"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunk_keeps_every_haystack_and_rejects_damage() {
        let slots = 40;
        let mut docs: Vec<&[u8]> = vec![b""; slots];
        docs[0] = b"first";
        docs[3] = b"x\ny";
        docs[4] = b"X Y";
        docs[slots - 1] = "é".as_bytes();
        let bytes = encode(&docs);
        let c = Chunk::parse(&bytes).expect("parses");
        for (s, h) in docs.iter().enumerate() {
            assert_eq!(c.get(s), *h, "slot {s}");
        }
        assert_eq!(c.get(slots), b"");
        // the text of all slots, each where start_of says
        for (s, h) in docs.iter().enumerate() {
            assert_eq!(&c.text()[c.start_of(s)..c.start_of(s + 1)], *h, "slot {s}");
        }
        assert_eq!(c.start_of(slots + 5), c.text().len());
        assert!(Chunk::parse(&bytes[..bytes.len() - 1]).is_none());
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(Chunk::parse(&longer).is_none());
        let finder = Finder::new(b"x");
        let mut hits = Vec::new();
        c.hits(&finder, 1, |s| hits.push(s));
        assert_eq!(hits, vec![3]);
        // "tx" spans the end of slot 0 ("first") and slot 3 ("x\ny"): no hit
        let spans = Finder::new(b"tx");
        let mut none = Vec::new();
        c.hits(&spans, 2, |s| none.push(s));
        assert!(none.is_empty(), "{none:?}");
        let mut backwards = bytes.clone();
        backwards[8..12].copy_from_slice(&100u32.to_le_bytes());
        assert!(Chunk::parse(&backwards).is_none());
        for count in [0u32, slots as u32 + 1, MAX_SLOTS as u32 + 1] {
            let mut miscounted = bytes.clone();
            miscounted[..4].copy_from_slice(&count.to_le_bytes());
            assert!(Chunk::parse(&miscounted).is_none(), "{count} slots");
        }
    }
}
