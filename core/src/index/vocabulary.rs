//! Every BM25 term of the store, sorted and packed in chunks, so that a literal query
//! word made of word characters finds the terms that contain it in a few hundred
//! values instead of the haystacks of every memory (`search::literal_postings`).
//!
//! A chunk holds consecutive terms, each followed by `\n` (a term never holds one),
//! and is stored under its first term. A write adds the terms it touched
//! ([`add`]): the vocabulary holds every term with postings, and perhaps some whose
//! postings a later write emptied, which name no memory; a rebuild starts it afresh.

use super::sealed::{Sealed, SealedBuf};
use memchr::memmem::Finder;
use redb::{ReadableTable, StorageError, Table, TableDefinition};
use std::ops::Bound;

/// A chunk's first term → the chunk's terms, each followed by `\n`.
pub const VOCABULARY: TableDefinition<&str, Sealed> = TableDefinition::new("vocabulary");

/// A chunk is split in two once its terms take more bytes than this.
const MAX_CHUNK: usize = 8 << 10;

/// Adds `terms` (ascending, perhaps some already there) to the vocabulary in `table`.
/// Each chunk that gains terms is rewritten once, split when it grows too large.
pub(crate) fn add(
    table: &mut Table<'_, &'static str, Sealed>,
    terms: &[&str],
) -> Result<(), StorageError> {
    let mut i = 0;
    let mut buf = SealedBuf::default();
    while i < terms.len() {
        let term = terms[i];
        // the chunk a term goes to: the last one starting at or before it, else the first
        let at = match table.range::<&str>(..=term)?.next_back() {
            Some(row) => Some(row?.0.value().to_string()),
            None => table.first()?.map(|(k, _)| k.value().to_string()),
        };
        let Some(at) = at else {
            write_chunks(table, terms, &mut buf)?;
            return Ok(());
        };
        let next = table
            .range::<&str>((Bound::Excluded(at.as_str()), Bound::Unbounded))?
            .next()
            .transpose()?
            .map(|(k, _)| k.value().to_string());
        let upto = match &next {
            Some(next) => i + terms[i..].partition_point(|t| *t < next.as_str()),
            None => terms.len(),
        };
        let stored = table
            .get(at.as_str())?
            .ok_or_else(|| damaged(&at))?
            .value()
            .open(&at.as_str())
            .map_err(|_| damaged(&at))
            .map(<[u8]>::to_vec)?;
        let held = std::str::from_utf8(&stored).map_err(|_| damaged(&at))?;
        let held: Vec<&str> = held.split_terminator('\n').collect();
        // most writes bring no new term: the chunk is rewritten only when one is
        if terms[i..upto]
            .iter()
            .any(|t| held.binary_search(t).is_err())
        {
            let merged = merge(&held, &terms[i..upto]);
            table.remove(at.as_str())?;
            write_chunks(table, &merged, &mut buf)?;
        }
        i = upto;
    }
    Ok(())
}

fn damaged(chunk: &str) -> StorageError {
    StorageError::Corrupted(format!("vocabulary chunk {chunk:?} cannot be read"))
}

/// The ascending terms of both (each ascending), each once.
fn merge<'a>(held: &[&'a str], new: &[&'a str]) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::with_capacity(held.len() + new.len());
    let (mut i, mut j) = (0, 0);
    while i < held.len() && j < new.len() {
        match held[i].cmp(new[j]) {
            std::cmp::Ordering::Less => {
                out.push(held[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(new[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(held[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&held[i..]);
    out.extend_from_slice(&new[j..]);
    out
}

/// Writes ascending `terms` as chunks of at most [`MAX_CHUNK`] / 2 bytes (one chunk
/// when they fit in [`MAX_CHUNK`]), each under its first term.
fn write_chunks(
    table: &mut Table<'_, &'static str, Sealed>,
    terms: &[&str],
    buf: &mut SealedBuf,
) -> Result<(), StorageError> {
    let bytes: usize = terms.iter().map(|t| t.len() + 1).sum();
    let target = if bytes <= MAX_CHUNK {
        MAX_CHUNK
    } else {
        MAX_CHUNK / 2
    };
    let mut chunk = String::new();
    let mut first = 0;
    for (i, term) in terms.iter().enumerate() {
        if !chunk.is_empty() && chunk.len() + term.len() + 1 > target {
            table.insert(terms[first], buf.seal(&terms[first], chunk.as_bytes()))?;
            chunk.clear();
            first = i;
        }
        chunk.push_str(term);
        chunk.push('\n');
    }
    if !chunk.is_empty() {
        table.insert(terms[first], buf.seal(&terms[first], chunk.as_bytes()))?;
    }
    Ok(())
}

/// The terms of the vocabulary in `table` that contain `word` (which holds no `\n`),
/// ascending; `None` when more than `most` do.
pub fn containing(
    table: &impl ReadableTable<&'static str, Sealed>,
    word: &str,
    most: usize,
) -> Result<Option<Vec<String>>, StorageError> {
    let finder = Finder::new(word.as_bytes());
    let mut found = Vec::new();
    for row in table.iter()? {
        let (key, value) = row?;
        let key = key.value();
        let chunk = value.value().open(&key).map_err(|_| damaged(key))?;
        let mut from = 0;
        while let Some(hit) = finder.find(&chunk[from..]) {
            let hit = from + hit;
            let start = memchr::memrchr(b'\n', &chunk[..hit]).map_or(0, |at| at + 1);
            let end = memchr::memchr(b'\n', &chunk[hit..]).map_or(chunk.len(), |at| hit + at);
            let term = std::str::from_utf8(&chunk[start..end]).map_err(|_| damaged(key))?;
            if found.len() == most {
                return Ok(None);
            }
            found.push(term.to_string());
            from = end;
        }
    }
    Ok(Some(found))
}

/// Every term of the vocabulary in `table`, ascending (for `memlens check`).
pub fn all(table: &impl ReadableTable<&'static str, Sealed>) -> Result<Vec<String>, StorageError> {
    let mut out = Vec::new();
    for row in table.iter()? {
        let (key, value) = row?;
        let key = key.value();
        let chunk = value.value().open(&key).map_err(|_| damaged(key))?;
        let chunk = std::str::from_utf8(chunk).map_err(|_| damaged(key))?;
        out.extend(chunk.split_terminator('\n').map(str::to_string));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use redb::{Database, ReadableDatabase, ReadableTableMetadata, backends::InMemoryBackend};

    fn db() -> Database {
        Database::builder()
            .create_with_backend(InMemoryBackend::new())
            .unwrap()
    }

    fn add_all(db: &Database, terms: &[&str]) {
        let mut sorted = terms.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        let txn = db.begin_write().unwrap();
        add(&mut txn.open_table(VOCABULARY).unwrap(), &sorted).unwrap();
        txn.commit().unwrap();
    }

    fn read<T>(
        db: &Database,
        f: impl FnOnce(&redb::ReadOnlyTable<&'static str, Sealed>) -> T,
    ) -> T {
        let txn = db.begin_read().unwrap();
        f(&txn.open_table(VOCABULARY).unwrap())
    }

    #[test]
    fn terms_added_in_many_writes_are_all_there_once_and_in_order() {
        let db = db();
        let mut expected: Vec<String> = Vec::new();
        // enough terms for many chunks, added in interleaved batches and again
        for round in 0..6u32 {
            let batch: Vec<String> = (0..4000u32)
                .filter(|i| i % 6 == round % 6 || i % 7 == 0)
                .map(|i| format!("term{:05}x{}", i * 7919 % 4000, i % 3))
                .collect();
            let refs: Vec<&str> = batch.iter().map(String::as_str).collect();
            add_all(&db, &refs);
            expected.extend(batch);
        }
        add_all(&db, &["aaa", "zzz"]);
        expected.extend(["aaa".to_string(), "zzz".to_string()]);
        expected.sort_unstable();
        expected.dedup();
        let stored = read(&db, |t| all(t).unwrap());
        assert_eq!(stored, expected);
        let chunks = read(&db, |t| t.len().unwrap());
        assert!(chunks > 1, "{chunks} chunks");
    }

    #[test]
    fn containing_finds_every_term_holding_the_word_and_no_other() {
        let db = db();
        let terms: Vec<String> = (0..3000u32)
            .map(|i| format!("{}w{}", i % 97, i * 31 % 1009))
            .collect();
        let refs: Vec<&str> = terms.iter().map(String::as_str).collect();
        add_all(&db, &refs);
        for word in ["w1", "5w", "12w100", "w", "nothing", "w10"] {
            let mut expected: Vec<String> =
                terms.iter().filter(|t| t.contains(word)).cloned().collect();
            expected.sort_unstable();
            expected.dedup();
            let found = read(&db, |t| containing(t, word, usize::MAX).unwrap()).unwrap();
            assert_eq!(found, expected, "{word}");
            if !expected.is_empty() {
                let capped = read(&db, |t| containing(t, word, expected.len() - 1).unwrap());
                assert_eq!(capped, None, "{word}");
            }
        }
    }

    #[test]
    fn a_damaged_chunk_is_an_error() {
        let db = db();
        add_all(&db, &["alpha", "beta"]);
        let txn = db.begin_write().unwrap();
        {
            let mut t = txn.open_table(VOCABULARY).unwrap();
            let mut buf = SealedBuf::default();
            let wrong = buf.seal(&"other", b"alpha\nbeta\n");
            t.insert("alpha", wrong).unwrap();
        }
        txn.commit().unwrap();
        assert!(read(&db, |t| containing(t, "al", 10)).is_err());
        assert!(read(&db, all).is_err());
    }
}
