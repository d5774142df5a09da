//! Writing haystack changes into their chunks ([`super::haystacks`]), one table of
//! one kind of haystack at a time: a changed document's chunk is read, changed and
//! written back; a document no chunk holds (a memory new to the store) joins the chunk
//! that ends before it while that chunk has room, or starts the next one. An import of
//! many new memories so fills each chunk up to its target size, one after another.

use super::haystacks::{
    Chunk, MAX_SLOTS, TARGET_BYTES, Text, chunk_before, damaged, encode, header_bytes,
    next_chunk_after,
};
use super::sealed::{Sealed, SealedBuf};
use redb::{StorageError, Table};
use std::borrow::Cow;

/// The chunk being changed: its first document, its slots' haystacks (copied from the
/// stored chunk, as the table is written while they are held, or borrowed from the
/// changes), their bytes, and the first document of the chunk after it, which it must
/// not grow into.
struct OpenChunk<'t> {
    first: u32,
    slots: Vec<Cow<'t, [u8]>>,
    bytes: usize,
    next: Option<u32>,
    changed: bool,
}

impl<'t> OpenChunk<'t> {
    /// The stored chunk that holds `doc` or ends before it, or else an empty one
    /// starting at `doc`.
    fn around<'a>(table: &Table<'a, u32, Sealed>, doc: u32) -> Result<Self, StorageError> {
        let next = next_chunk_after(table, doc)?;
        let Some((first, stored)) = chunk_before(table, doc)? else {
            return Ok(OpenChunk::empty(doc, next));
        };
        let c = Chunk::parse(stored.value().open(&first)?).ok_or_else(|| damaged(first))?;
        let slots: Vec<Cow<'t, [u8]>> = (0..c.len())
            .map(|s| Cow::Owned(c.get(s).to_vec()))
            .collect();
        let bytes = slots.iter().map(|t| t.len()).sum();
        Ok(OpenChunk {
            first,
            slots,
            bytes,
            next,
            changed: false,
        })
    }

    fn empty(first: u32, next: Option<u32>) -> Self {
        OpenChunk {
            first,
            slots: Vec::new(),
            bytes: 0,
            next,
            changed: false,
        }
    }

    /// True when the chunk holds `doc`, or can grow to hold it (after its last
    /// document) with a haystack of `len` bytes, more than none: below the next chunk,
    /// within [`MAX_SLOTS`], and within [`TARGET_BYTES`] unless it holds nothing yet.
    fn takes(&self, doc: u32, len: usize) -> bool {
        let Some(offset) = doc.checked_sub(self.first) else {
            return false;
        };
        let slots = offset as usize + 1;
        if slots <= self.slots.len() {
            return true;
        }
        let size = header_bytes(slots) + self.bytes + len;
        len > 0
            && self.next.is_none_or(|next| doc < next)
            && slots <= MAX_SLOTS
            && (self.bytes == 0 || size <= TARGET_BYTES)
    }

    /// Sets the haystack of `doc`, which the chunk [takes](Self::takes).
    fn set(&mut self, doc: u32, text: &'t [u8]) {
        let at = (doc - self.first) as usize;
        if at >= self.slots.len() {
            self.slots.resize(at + 1, Cow::Borrowed(&[]));
        }
        self.bytes = self.bytes - self.slots[at].len() + text.len();
        self.slots[at] = Cow::Borrowed(text);
        self.changed = true;
    }

    /// Writes the chunk back if it changed: removed when it holds no memory any more.
    fn write(self, table: &mut Table<'_, u32, Sealed>) -> Result<(), StorageError> {
        if !self.changed {
            return Ok(());
        }
        let slots: Vec<&[u8]> = self.slots.iter().map(|t| &**t).collect();
        if slots.iter().all(|t| t.is_empty()) {
            table.remove(self.first)?;
        } else {
            let stored = SealedBuf::new(&self.first, &encode(&slots));
            table.insert(self.first, stored.value())?;
        }
        Ok(())
    }
}

/// Writes `changes` (sorted by document, at most one per document; empty = no memory
/// under that document any more) into the chunks of `table`. Each chunk is built
/// straight from the stored one (if any) and the new haystacks, copying the new text
/// once.
pub(crate) fn apply(
    table: &mut Table<'_, u32, Sealed>,
    changes: &[(u32, &[u8])],
) -> Result<(), StorageError> {
    let mut open: Option<OpenChunk<'_>> = None;
    for &(doc, text) in changes {
        let len = text.len();
        if let Some(chunk) = open.as_mut()
            && chunk.takes(doc, len)
        {
            chunk.set(doc, text);
            continue;
        }
        if let Some(chunk) = open.take() {
            chunk.write(table)?;
        }
        let mut chunk = OpenChunk::around(table, doc)?;
        if !chunk.takes(doc, len) {
            if len == 0 {
                // a document no chunk holds is left without a memory: nothing to do
                continue;
            }
            chunk = OpenChunk::empty(doc, chunk.next);
        }
        chunk.set(doc, text);
        open = Some(chunk);
    }
    if let Some(chunk) = open {
        chunk.write(table)?;
    }
    Ok(())
}

/// Writes both haystacks of `changes` (sorted by document, at most one per document;
/// `None` = no memory under that document any more): the literal ones into `literal`,
/// the fuzzy ones into `fuzzy`.
pub(crate) fn apply_text(
    literal: &mut Table<'_, u32, Sealed>,
    fuzzy: &mut Table<'_, u32, Sealed>,
    changes: &[(u32, Option<Text<'_>>)],
) -> Result<(), StorageError> {
    let kind = |pick: fn(Text<'_>) -> &[u8]| -> Vec<(u32, &[u8])> {
        changes
            .iter()
            .map(|&(doc, text)| (doc, text.map_or(&[][..], pick)))
            .collect()
    };
    apply(literal, &kind(|t| t.literal))?;
    apply(fuzzy, &kind(|t| t.fuzzy.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::haystacks::{LITERAL_TEXT, for_each};
    use redb::{Database, ReadableDatabase};

    /// The literal haystack of document `doc`, `len` bytes long.
    fn literal(doc: u32, len: usize) -> String {
        let mut s = format!("doc{doc} ");
        s.extend(std::iter::repeat_n('x', len.saturating_sub(s.len())));
        s
    }

    /// Applies `docs` (document, literal length) in one write transaction.
    fn write(db: &Database, docs: &[(u32, Option<usize>)]) {
        let texts: Vec<(u32, Option<String>)> = docs
            .iter()
            .map(|&(doc, len)| (doc, len.map(|len| literal(doc, len))))
            .collect();
        let changes: Vec<(u32, &[u8])> = texts
            .iter()
            .map(|(doc, t)| (*doc, t.as_ref().map_or(&[][..], |t| t.as_bytes())))
            .collect();
        let txn = db.begin_write().expect("write");
        apply(&mut txn.open_table(LITERAL_TEXT).expect("table"), &changes).expect("apply");
        txn.commit().expect("commit");
    }

    /// Every stored chunk: first document, documents held, stored bytes, and the
    /// literal haystack of each slot.
    fn chunks(db: &Database) -> Vec<(u32, usize, usize, Vec<String>)> {
        let txn = db.begin_read().expect("read");
        let table = txn.open_table(LITERAL_TEXT).expect("table");
        let mut out = Vec::new();
        for_each(&table, |first, c| {
            let texts = (0..c.len())
                .map(|s| String::from_utf8(c.get(s).to_vec()).expect("UTF-8"))
                .collect();
            let bytes: usize = (0..c.len()).map(|s| c.get(s).len()).sum();
            out.push((first, c.len(), header_bytes(c.len()) + bytes, texts));
        })
        .expect("chunks");
        out
    }

    fn database() -> (tempfile::TempDir, Database) {
        let dir = tempfile::tempdir().expect("dir");
        let db = Database::create(dir.path().join("chunks.redb")).expect("create");
        (dir, db)
    }

    #[test]
    fn new_documents_fill_each_chunk_to_its_target_then_start_the_next() {
        let (_dir, db) = database();
        // 3,000 documents of 300 to 1,100 bytes, some numbers skipped (purged before)
        let docs: Vec<(u32, Option<usize>)> = (0..3_000u32)
            .filter(|d| d % 97 != 5)
            .map(|d| (d, Some(300 + (d as usize * 37) % 800)))
            .collect();
        write(&db, &docs[..1_000]);
        // the rest one transaction at a time at first, as single writes add them
        for d in &docs[1_000..1_010] {
            write(&db, std::slice::from_ref(d));
        }
        write(&db, &docs[1_010..]);
        let stored = chunks(&db);
        let mut next_doc = 0;
        for (i, (first, len, size, texts)) in stored.iter().enumerate() {
            assert!(*first >= next_doc, "chunk at {first} overlaps");
            next_doc = first + *len as u32;
            assert!(
                *size <= TARGET_BYTES && *len <= MAX_SLOTS,
                "chunk at {first}: {size} B"
            );
            for (slot, text) in texts.iter().enumerate() {
                let doc = first + slot as u32;
                match docs.iter().find(|d| d.0 == doc) {
                    Some(&(_, Some(len))) => assert_eq!(*text, literal(doc, len)),
                    _ => assert!(text.is_empty(), "text for document {doc}"),
                }
            }
            // a chunk ends only where the next document would not have fitted
            if let Some((next_first, ..)) = stored.get(i + 1) {
                let (doc, Some(text_len)) = docs
                    .iter()
                    .find(|d| d.0 >= next_doc)
                    .copied()
                    .expect("next")
                else {
                    unreachable!()
                };
                let slots = (doc - first) as usize + 1;
                let grown = size - header_bytes(*len) + header_bytes(slots) + text_len;
                assert!(
                    grown > TARGET_BYTES || slots > MAX_SLOTS,
                    "chunk at {first} ({size} B) ended before {next_first}"
                );
            }
        }
        let held: usize = stored
            .iter()
            .map(|c| c.3.iter().filter(|t| !t.is_empty()).count())
            .sum();
        assert_eq!(held, docs.len());
        // 64 KiB chunks: a few dozen for about 2 MB of text
        assert!(stored.len() < 40, "{} chunks", stored.len());
    }

    #[test]
    fn a_large_document_has_a_chunk_of_its_own_and_an_emptied_chunk_goes() {
        let (_dir, db) = database();
        write(
            &db,
            &[(0, Some(100)), (1, Some(TARGET_BYTES * 2)), (2, Some(100))],
        );
        let stored = chunks(&db);
        let spans: Vec<(u32, usize)> = stored.iter().map(|c| (c.0, c.1)).collect();
        assert_eq!(spans, [(0, 1), (1, 1), (2, 1)]);
        // a change inside a chunk rewrites it in place; emptying one removes it
        write(&db, &[(1, None), (2, Some(50))]);
        let stored = chunks(&db);
        let spans: Vec<(u32, usize)> = stored.iter().map(|c| (c.0, c.1)).collect();
        assert_eq!(spans, [(0, 1), (2, 1)]);
        assert_eq!(stored[1].3, [literal(2, 50)]);
        // a removal of a document no chunk holds changes nothing
        write(&db, &[(1, None), (9, None)]);
        assert_eq!(chunks(&db).len(), 2);
    }

    #[test]
    fn a_walk_visits_the_chunks_covering_its_documents_in_order_until_told_to_stop() {
        use crate::index::haystacks::{Walk, walk_covering};
        let (_dir, db) = database();
        // about 30 chunks, with gaps between documents (none stored under 0..5 either)
        let docs: Vec<(u32, Option<usize>)> = (5..3_000u32)
            .filter(|d| d % 97 != 5)
            .map(|d| (d, Some(300 + (d as usize * 37) % 800)))
            .collect();
        write(&db, &docs);
        let firsts: Vec<u32> = chunks(&db).iter().map(|c| c.0).collect();
        assert!(firsts.len() > 20, "{} chunks", firsts.len());
        let txn = db.begin_read().expect("read");
        let table = txn.open_table(LITERAL_TEXT).expect("table");
        let walked = |range: std::ops::RangeInclusive<u32>, walk: Walk, at_most: usize| {
            let mut seen = Vec::new();
            walk_covering(&table, range, walk, |first, c| {
                assert!(!c.is_empty());
                seen.push(first);
                seen.len() < at_most
            })
            .expect("walk");
            seen
        };
        let ends = [
            0,
            4,
            5,
            6,
            firsts[3],
            firsts[3] + 1,
            firsts[10] - 1,
            2_999,
            5_000,
        ];
        for &start in &ends {
            for &end in ends.iter().filter(|&&e| e >= start) {
                // the chunk holding `start` (the last one starting at or before it), then
                // every chunk starting up to `end`
                let before = firsts.iter().rev().find(|&&f| f <= start).copied();
                let expected: Vec<u32> = firsts
                    .iter()
                    .copied()
                    .filter(|&f| Some(f) == before || (f > start && f <= end))
                    .collect();
                let newest: Vec<u32> = expected.iter().rev().copied().collect();
                assert_eq!(walked(start..=end, Walk::OldestFirst, usize::MAX), expected);
                assert_eq!(walked(start..=end, Walk::NewestFirst, usize::MAX), newest);
                for stop in [1, 2] {
                    let cut = stop.min(expected.len());
                    let oldest = walked(start..=end, Walk::OldestFirst, stop);
                    assert_eq!(oldest, expected[..cut], "{start}..={end} stop {stop}");
                    let newest_cut = walked(start..=end, Walk::NewestFirst, stop);
                    assert_eq!(newest_cut, newest[..cut], "{start}..={end} stop {stop}");
                }
            }
        }
    }
}
