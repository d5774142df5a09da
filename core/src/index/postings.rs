//! The persisted inverted index: for every BM25 term, the documents that contain it
//! with the term's frequency, in blocks of consecutive documents.
//!
//! A block is keyed by [`key`]`(term, first document)` and holds up to [`MAX_BLOCK`] postings,
//! so a write that touches one memory rewrites one small block per term it changes
//! instead of a whole posting list, and a query reads a term's blocks in document order.

use super::sealed::{self, Sealed, SealedBuf, SealedBytes};
use redb::{ReadableTable, StorageError, Table, TableDefinition};

/// [`key`]`(term, first document of the block)` → the block's postings, encoded by
/// [`encode`].
pub const POSTINGS: TableDefinition<&[u8], Sealed> = TableDefinition::new("postings");

/// The key of a term's block starting at `doc`: the term, a NUL, then `doc` big-endian.
/// Terms never contain NUL, so keys sort by term, then document (and compare as plain
/// bytes, which keeps B-tree lookups cheap).
pub fn key(term: &str, doc: u32) -> Vec<u8> {
    let mut k = Vec::with_capacity(term.len() + 5);
    key_into(&mut k, term, doc);
    k
}

/// Appends [`key`]`(term, doc)` to `k`.
fn key_into(k: &mut Vec<u8>, term: &str, doc: u32) {
    k.extend_from_slice(term.as_bytes());
    k.push(0);
    k.extend_from_slice(&doc.to_be_bytes());
}

/// The first document of a block, from its key.
pub fn key_doc(key: &[u8]) -> Option<u32> {
    let tail = key.len().checked_sub(4).and_then(|at| key.get(at..))?;
    Some(u32::from_be_bytes(tail.try_into().ok()?))
}

/// The term of a block, from its key.
pub fn key_term(key: &[u8]) -> Option<&str> {
    let at = key.len().checked_sub(5)?;
    (key.get(at) == Some(&0))
        .then(|| std::str::from_utf8(&key[..at]).ok())
        .flatten()
}

fn damaged(key: &[u8]) -> StorageError {
    StorageError::Corrupted(format!(
        "postings block {} cannot be decoded",
        String::from_utf8_lossy(key)
    ))
}

/// A block is split once it holds more postings than this.
pub const MAX_BLOCK: usize = 256;
/// The size of the blocks a split (or a fresh build) makes.
const SPLIT_BLOCK: usize = 128;

/// One posting: a document and how often the term occurs in it.
pub type Posting = (u32, u32);

fn put_varint(w: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        w.push((v as u8) | 0x80);
        v >>= 7;
    }
    w.push(v as u8);
}

fn get_varint(bytes: &[u8], at: &mut usize) -> Option<u32> {
    let mut v: u32 = 0;
    for shift in (0..35).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= u32::from(b & 0x7f).checked_shl(shift)?;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// A block's stored form: the count, then each posting as (document − previous
/// document, frequency), the first relative to `start`.
pub fn encode(start: u32, postings: &[Posting]) -> Vec<u8> {
    let mut w = Vec::with_capacity(postings.len() * 3 + 2);
    encode_into(&mut w, start, postings);
    w
}

/// Appends [`encode`]`(start, postings)` to `w`.
fn encode_into(w: &mut Vec<u8>, start: u32, postings: &[Posting]) {
    put_varint(w, u32::try_from(postings.len()).unwrap_or(u32::MAX));
    let mut prev = start;
    for &(doc, tf) in postings {
        put_varint(w, doc.wrapping_sub(prev));
        put_varint(w, tf);
        prev = doc;
    }
}

/// Appends the postings of a block stored by [`encode`] to `out`; `None` when the
/// bytes are damaged.
pub fn decode_into(start: u32, bytes: &[u8], out: &mut Vec<Posting>) -> Option<()> {
    let mut at = 0;
    let count = get_varint(bytes, &mut at)?;
    let mut doc = start;
    for _ in 0..count {
        doc = doc.checked_add(get_varint(bytes, &mut at)?)?;
        let tf = get_varint(bytes, &mut at)?;
        out.push((doc, tf));
    }
    (at == bytes.len()).then_some(())
}

/// Every posting of `term`, in document order, read from any readable postings table.
/// `None` when a block cannot be decoded; a block that fails its checksum is an error.
pub fn read_term<T: ReadableTable<&'static [u8], Sealed>>(
    table: &T,
    term: &str,
) -> Result<Option<Vec<Posting>>, StorageError> {
    let mut out = Vec::new();
    let (low, high) = (key(term, 0), key(term, u32::MAX));
    for entry in table.range(low.as_slice()..=high.as_slice())? {
        let (k, value) = entry?;
        let Some(start) = key_doc(k.value()) else {
            return Ok(None);
        };
        if decode_into(start, value.value().open(&k.value())?, &mut out).is_none() {
            return Ok(None);
        }
    }
    Ok(Some(out))
}

type PostingsTable<'w> = Table<'w, &'static [u8], Sealed>;

/// A stored block: its first document, its postings and the first document of the
/// term's next block, if any.
type Located = (u32, Vec<Posting>, Option<u32>);

/// The block of `term` that a change to `doc` belongs in: the last block starting at
/// or before `doc`, else the term's first block; with the start of the block after it.
fn locate(
    table: &PostingsTable<'_>,
    term: &str,
    doc: u32,
) -> Result<Option<Located>, StorageError> {
    let (low, at, high) = (key(term, 0), key(term, doc), key(term, u32::MAX));
    let found = match table.range(low.as_slice()..=at.as_slice())?.next_back() {
        Some(entry) => Some(entry?),
        None => match table.range(low.as_slice()..=high.as_slice())?.next() {
            Some(entry) => Some(entry?),
            None => None,
        },
    };
    let Some((k, value)) = found else {
        return Ok(None);
    };
    let start = key_doc(k.value()).ok_or_else(|| damaged(k.value()))?;
    let mut postings = Vec::new();
    if decode_into(start, value.value().open(&k.value())?, &mut postings).is_none() {
        return Err(damaged(k.value()));
    }
    drop((k, value));
    let next = match start.checked_add(1) {
        Some(after) => {
            let after = key(term, after);
            match table.range(after.as_slice()..=high.as_slice())?.next() {
                Some(entry) => {
                    let (k, _) = entry?;
                    Some(key_doc(k.value()).ok_or_else(|| damaged(k.value()))?)
                }
                None => None,
            }
        }
        None => None,
    };
    Ok(Some((start, postings, next)))
}

/// `postings` with `edits` applied; both sorted by document, an edit's frequency 0
/// removing the document.
fn merge(postings: &[Posting], edits: &[Posting]) -> Vec<Posting> {
    let mut out = Vec::with_capacity(postings.len() + edits.len());
    let (mut i, mut j) = (0, 0);
    while i < postings.len() || j < edits.len() {
        let take_edit = match (postings.get(i), edits.get(j)) {
            (Some(p), Some(e)) if p.0 == e.0 => {
                i += 1;
                true
            }
            (Some(p), Some(e)) => e.0 < p.0,
            (None, Some(_)) => true,
            _ => false,
        };
        if take_edit {
            if edits[j].1 > 0 {
                out.push(edits[j]);
            }
            j += 1;
        } else {
            out.push(postings[i]);
            i += 1;
        }
    }
    out
}

/// The blocks a run of postings written anew is stored in.
fn blocks(postings: &[Posting]) -> std::slice::Chunks<'_, Posting> {
    let size = if postings.len() > MAX_BLOCK {
        SPLIT_BLOCK
    } else {
        MAX_BLOCK
    };
    postings.chunks(size)
}

/// Writes the blocks of a term that has none stored yet.
fn write_new(
    table: &mut PostingsTable<'_>,
    term: &str,
    postings: &[Posting],
) -> Result<(), StorageError> {
    for block in blocks(postings) {
        let first = block[0].0;
        let key = key(term, first);
        let value = SealedBuf::new(&key.as_slice(), &encode(first, block));
        table.insert(key.as_slice(), value.value())?;
    }
    Ok(())
}

/// Buffers reused to encode the blocks of one term after another.
#[derive(Debug, Default)]
struct BlockScratch {
    kept: Vec<Posting>,
    key: Vec<u8>,
    payload: Vec<u8>,
    /// The block sealed under its key, as stored.
    value: Vec<u8>,
}

impl BlockScratch {
    /// Calls `f(key, value)` for each block of `term` written anew from `edits` (as for
    /// [`apply`]; those with frequency 0 are left out), the value sealed under its key.
    fn each_block<E>(
        &mut self,
        term: &str,
        edits: &[Posting],
        mut f: impl FnMut(&[u8], &[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        self.kept.clear();
        self.kept.extend(edits.iter().copied().filter(|e| e.1 > 0));
        for block in blocks(&self.kept) {
            let first = block[0].0;
            self.key.clear();
            key_into(&mut self.key, term, first);
            self.payload.clear();
            encode_into(&mut self.payload, first, block);
            self.value.clear();
            sealed::seal_into(&self.key.as_slice(), &self.payload, &mut self.value);
            f(&self.key, &self.value)?;
        }
        Ok(())
    }
}

/// The blocks of terms that sort after those an [`Appender`] is writing, encoded (on
/// another thread) until it can append them.
#[derive(Debug, Default)]
pub(crate) struct EncodedBlocks {
    scratch: BlockScratch,
    /// Each block's key then value, back to back.
    bytes: Vec<u8>,
    /// Each block's key length and value length.
    sizes: Vec<(u32, u32)>,
}

impl EncodedBlocks {
    /// Encodes the blocks of `term`, which sorts after every term encoded before;
    /// `edits` are as for [`apply`], those with frequency 0 left out.
    pub(crate) fn add(&mut self, term: &str, edits: &[Posting]) {
        let (bytes, sizes) = (&mut self.bytes, &mut self.sizes);
        let _ = self.scratch.each_block(term, edits, |key, value| {
            bytes.extend_from_slice(key);
            bytes.extend_from_slice(value);
            // a key holds a term and a block at most MAX_BLOCK postings
            sizes.push((key.len() as u32, value.len() as u32));
            Ok::<(), std::convert::Infallible>(())
        });
    }
}

/// Writes postings into a table that holds none yet (a first import) through one
/// cursor at the table's end: terms given in key order have their blocks appended and
/// packed into full pages instead of each descending the tree.
pub(crate) struct Appender<'t> {
    cursor: redb::CursorMut<'t, &'static [u8], Sealed>,
    scratch: BlockScratch,
}

impl<'t> Appender<'t> {
    /// An appender at the end of `table`.
    pub(crate) fn new(table: &'t mut PostingsTable<'_>) -> Result<Appender<'t>, StorageError> {
        Ok(Appender {
            cursor: table.upper_bound_mut(std::ops::Bound::<&[u8]>::Unbounded)?,
            scratch: BlockScratch::default(),
        })
    }

    /// Appends the blocks of `term`, which sorts after every term appended before;
    /// `edits` are as for [`apply`], those with frequency 0 left out.
    pub(crate) fn add(&mut self, term: &str, edits: &[Posting]) -> Result<(), redb::Error> {
        let cursor = &mut self.cursor;
        self.scratch.each_block(term, edits, |key, value| {
            cursor
                .insert_before(key, SealedBytes::from_sealed(value))
                .map_err(redb::Error::from)
        })
    }

    /// Appends blocks encoded elsewhere, all of them after every block appended before.
    pub(crate) fn add_encoded(&mut self, blocks: &EncodedBlocks) -> Result<(), redb::Error> {
        let mut at = 0;
        for &(key, value) in &blocks.sizes {
            let (key, value) = (key as usize, value as usize);
            let (k, v) = blocks.bytes[at..at + key + value].split_at(key);
            self.cursor.insert_before(k, SealedBytes::from_sealed(v))?;
            at += key + value;
        }
        Ok(())
    }

    /// Writes what the cursor still holds.
    pub(crate) fn close(self) -> Result<(), StorageError> {
        self.cursor.close()
    }
}

/// Applies `edits` (sorted by document, at most one per document; frequency 0 =
/// the document no longer contains the term) to the stored blocks of `term`.
pub(crate) fn apply(
    table: &mut PostingsTable<'_>,
    term: &str,
    edits: &[Posting],
) -> Result<(), StorageError> {
    let mut i = 0;
    while i < edits.len() {
        let (start, postings, next) = match locate(table, term, edits[i].0)? {
            Some(block) => block,
            None => (edits[i].0, Vec::new(), None),
        };
        let upto = match next {
            Some(next) => i + edits[i..].partition_point(|e| e.0 < next),
            None => edits.len(),
        };
        let merged = merge(&postings, &edits[i..upto]);
        if !postings.is_empty() {
            table.remove(key(term, start).as_slice())?;
        }
        write_new(table, term, &merged)?;
        i = upto;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_survives_encoding_and_rejects_damage() {
        let postings = vec![(7, 1), (8, 300), (1_000_000, 2), (u32::MAX, 1)];
        let bytes = encode(7, &postings);
        let mut back = Vec::new();
        decode_into(7, &bytes, &mut back).unwrap();
        assert_eq!(back, postings);
        let mut out = Vec::new();
        assert!(decode_into(7, &bytes[..bytes.len() - 1], &mut out).is_none());
        let mut longer = bytes.clone();
        longer.push(1);
        assert!(decode_into(7, &longer, &mut Vec::new()).is_none());
    }

    #[test]
    fn merging_inserts_replaces_and_removes() {
        let old = vec![(1, 1), (3, 2), (5, 1)];
        let edits = vec![(0, 4), (3, 0), (4, 1), (5, 9), (6, 0)];
        assert_eq!(merge(&old, &edits), vec![(0, 4), (1, 1), (4, 1), (5, 9)]);
        assert_eq!(merge(&[], &[(2, 0)]), vec![]);
    }
}
