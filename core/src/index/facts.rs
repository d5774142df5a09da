//! The persisted per-memory facts a query needs beside the postings: whether a
//! document holds a memory, whether it is soft-deleted or a session recap (the default
//! filters), its BM25 length and its created_at, as fixed-size rows packed in chunks
//! of consecutive documents, so a whole store's facts read in a few large values.

use super::sealed::{self, Sealed, SealedBuf};
use crate::model::Memory;
use crate::model::SESSION_RECAP;
use crate::schema::tables::META;
use redb::{ReadableTable, StorageError, Table, TableDefinition, WriteTransaction};

/// Chunk number (document / [`CHUNK_DOCS`]) → the packed rows of its documents.
pub const FACTS: TableDefinition<u32, Sealed> = TableDefinition::new("facts");

/// Documents per chunk.
pub const CHUNK_DOCS: u32 = 1024;
/// Bytes per row: flags, length (u32), created_at (i64).
const ROW: usize = 13;

const PRESENT: u8 = 1;
const DELETED: u8 = 2;
const RECAP: u8 = 4;

/// What the facts table knows of one memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fact {
    /// Soft-deleted.
    pub deleted: bool,
    /// Of type `session_recap` (hidden by the default filters).
    pub session_recap: bool,
    /// Number of BM25 tokens (dl).
    pub length: u32,
    /// created_at, nanoseconds since the epoch.
    pub created_at: i64,
}

impl Fact {
    /// The facts of a stored search record (what [`Fact::of_memory`] must agree with).
    #[cfg(test)]
    pub fn of_record(r: &super::RecordView<'_>) -> Fact {
        Fact {
            deleted: r.deleted,
            session_recap: r.memory_type == SESSION_RECAP,
            length: r.length,
            created_at: r.created_at,
        }
    }

    /// The facts of a memory whose BM25 length is `length`.
    pub fn of_memory(m: &Memory, length: u32) -> Fact {
        Fact {
            deleted: m.deleted_at.is_some(),
            session_recap: m.memory_type == SESSION_RECAP,
            length,
            created_at: m.created_at.0,
        }
    }

    fn row(fact: Option<&Fact>) -> [u8; ROW] {
        let mut row = [0u8; ROW];
        if let Some(f) = fact {
            row[0] = PRESENT
                | if f.deleted { DELETED } else { 0 }
                | if f.session_recap { RECAP } else { 0 };
            row[1..5].copy_from_slice(&f.length.to_le_bytes());
            row[5..13].copy_from_slice(&f.created_at.to_le_bytes());
        }
        row
    }

    fn from_row(row: &[u8]) -> Option<Fact> {
        let flags = *row.first()?;
        if flags & PRESENT == 0 {
            return None;
        }
        Some(Fact {
            deleted: flags & DELETED != 0,
            session_recap: flags & RECAP != 0,
            length: u32::from_le_bytes(row.get(1..5)?.try_into().ok()?),
            created_at: i64::from_le_bytes(row.get(5..13)?.try_into().ok()?),
        })
    }
}

/// `META` key of the [`Totals`].
pub const KEY_TOTALS: &str = "facts_totals";

/// How many memories the default filters can show (session recaps left out), and their
/// summed BM25 lengths, live and soft-deleted apart: BM25's N and avgdl under the
/// default filters without reading every fact.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    /// Live memories.
    pub live: u64,
    /// Their summed lengths.
    pub live_length: u64,
    /// Soft-deleted memories.
    pub deleted: u64,
    /// Their summed lengths.
    pub deleted_length: u64,
}

impl Totals {
    fn encode(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (i, v) in [
            self.live,
            self.live_length,
            self.deleted,
            self.deleted_length,
        ]
        .iter()
        .enumerate()
        {
            out[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
        }
        out
    }

    fn decode(bytes: &[u8]) -> Option<Totals> {
        let at = |i: usize| -> Option<u64> {
            Some(u64::from_le_bytes(
                bytes.get(i * 8..i * 8 + 8)?.try_into().ok()?,
            ))
        };
        (bytes.len() == 32).then_some(())?;
        Some(Totals {
            live: at(0)?,
            live_length: at(1)?,
            deleted: at(2)?,
            deleted_length: at(3)?,
        })
    }

    /// The stored totals of a snapshot; `None` when absent or damaged.
    pub fn read<T: ReadableTable<&'static str, &'static [u8]>>(
        meta: &T,
    ) -> Result<Option<Totals>, StorageError> {
        match meta.get(KEY_TOTALS)? {
            Some(v) => Ok(Totals::decode(sealed::open(&KEY_TOTALS, v.value())?)),
            None => Ok(None),
        }
    }
}

/// A change to the [`Totals`], gathered over a write transaction.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct TotalsChange([i64; 4]);

impl TotalsChange {
    /// Counts `fact` in (`sign` 1) or out (`sign` −1).
    pub(crate) fn count(&mut self, fact: &Fact, sign: i64) {
        if fact.session_recap {
            return;
        }
        let at = if fact.deleted { 2 } else { 0 };
        self.0[at] += sign;
        self.0[at + 1] += sign * i64::from(fact.length);
    }

    /// Adds the change to the stored totals (absent = zero) of `txn`.
    pub(crate) fn write(&mut self, txn: &WriteTransaction) -> Result<(), redb::Error> {
        if self.0 == [0; 4] {
            return Ok(());
        }
        let mut meta = txn.open_table(META)?;
        let now = Totals::read(&meta)?.unwrap_or_default();
        let add = |v: u64, d: i64| -> Result<u64, StorageError> {
            v.checked_add_signed(d)
                .ok_or_else(|| StorageError::Corrupted("facts totals out of range".into()))
        };
        let next = Totals {
            live: add(now.live, self.0[0])?,
            live_length: add(now.live_length, self.0[1])?,
            deleted: add(now.deleted, self.0[2])?,
            deleted_length: add(now.deleted_length, self.0[3])?,
        };
        let mut stored = Vec::with_capacity(36);
        sealed::seal_into(&KEY_TOTALS, &next.encode(), &mut stored);
        meta.insert(KEY_TOTALS, stored.as_slice())?;
        self.0 = [0; 4];
        Ok(())
    }
}

/// The facts of `docs` (ascending), each `None` when no memory is stored under it; reads
/// each chunk that holds one of them once.
pub fn get_many<T: ReadableTable<u32, Sealed>>(
    table: &T,
    docs: &[u32],
) -> Result<Vec<Option<Fact>>, StorageError> {
    let mut out = Vec::with_capacity(docs.len());
    let mut i = 0;
    while i < docs.len() {
        let chunk = docs[i] / CHUNK_DOCS;
        let stored = table.get(chunk)?;
        let rows = match &stored {
            Some(v) => Some(checked(chunk, v.value().open(&chunk)?)?),
            None => None,
        };
        while i < docs.len() && docs[i] / CHUNK_DOCS == chunk {
            let at = (docs[i] % CHUNK_DOCS) as usize * ROW;
            out.push(rows.and_then(|r| Fact::from_row(&r[at..at + ROW])));
            i += 1;
        }
    }
    Ok(out)
}

/// The rows of a stored chunk, or the error saying it is damaged (of the wrong size).
fn checked(chunk: u32, rows: &[u8]) -> Result<&[u8], StorageError> {
    if rows.len() == ROW * CHUNK_DOCS as usize {
        Ok(rows)
    } else {
        Err(StorageError::Corrupted(format!(
            "facts chunk {chunk} has {} bytes",
            rows.len()
        )))
    }
}

/// Calls `f` with every stored memory's document number and fact, in document order.
/// A damaged chunk is an error.
pub fn for_each<T: ReadableTable<u32, Sealed>>(
    table: &T,
    f: impl FnMut(u32, Fact),
) -> Result<(), StorageError> {
    for_each_in(table, .., f)
}

/// [`for_each`] over the chunks numbered in `chunks`.
pub fn for_each_in<T: ReadableTable<u32, Sealed>>(
    table: &T,
    chunks: impl std::ops::RangeBounds<u32>,
    mut f: impl FnMut(u32, Fact),
) -> Result<(), StorageError> {
    each_chunk_in(table, chunks, |facts| {
        for (doc, fact) in facts.present() {
            f(doc, fact);
        }
    })
}

/// The facts of one stored chunk, in document order.
#[derive(Clone, Copy)]
pub struct ChunkFacts<'a> {
    first: u32,
    rows: &'a [u8],
}

impl<'a> ChunkFacts<'a> {
    /// Each document that holds a memory, with its fact.
    pub fn present(self) -> impl Iterator<Item = (u32, Fact)> + 'a {
        let rows = self.rows.chunks_exact(ROW).map(Fact::from_row);
        (self.first..)
            .zip(rows)
            .filter_map(|(doc, fact)| Some((doc, fact?)))
    }
}

/// Calls `f` with the facts of every stored chunk numbered in `chunks`, in order. A
/// damaged chunk is an error.
pub fn each_chunk_in<T: ReadableTable<u32, Sealed>>(
    table: &T,
    chunks: impl std::ops::RangeBounds<u32>,
    mut f: impl FnMut(ChunkFacts<'_>),
) -> Result<(), StorageError> {
    for entry in table.range(chunks)? {
        let (chunk, rows) = entry?;
        let chunk = chunk.value();
        let rows = checked(chunk, rows.value().open(&chunk)?)?;
        f(ChunkFacts {
            first: chunk * CHUNK_DOCS,
            rows,
        });
    }
    Ok(())
}

/// Writes `changes` (sorted by document, at most one per document; `None` = no memory
/// under that document any more).
pub(crate) fn apply(
    table: &mut Table<'_, u32, Sealed>,
    changes: &[(u32, Option<Fact>)],
) -> Result<(), StorageError> {
    let mut i = 0;
    while i < changes.len() {
        let chunk = changes[i].0 / CHUNK_DOCS;
        let mut rows = match table.get(chunk)? {
            Some(v) => checked(chunk, v.value().open(&chunk)?)?.to_vec(),
            None => vec![0u8; ROW * CHUNK_DOCS as usize],
        };
        while i < changes.len() && changes[i].0 / CHUNK_DOCS == chunk {
            let (doc, fact) = &changes[i];
            let at = (doc % CHUNK_DOCS) as usize * ROW;
            rows[at..at + ROW].copy_from_slice(&Fact::row(fact.as_ref()));
            i += 1;
        }
        if rows.iter().step_by(ROW).all(|flags| flags & PRESENT == 0) {
            table.remove(chunk)?;
        } else {
            table.insert(chunk, SealedBuf::new(&chunk, &rows).value())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_keeps_every_fact() {
        for fact in [
            Fact {
                deleted: true,
                session_recap: false,
                length: 7,
                created_at: -5,
            },
            Fact {
                deleted: false,
                session_recap: true,
                length: u32::MAX,
                created_at: i64::MAX,
            },
        ] {
            assert_eq!(Fact::from_row(&Fact::row(Some(&fact))), Some(fact));
        }
        assert_eq!(Fact::from_row(&Fact::row(None)), None);
    }

    #[test]
    fn totals_survive_encoding() {
        let t = Totals {
            live: 3,
            live_length: u64::MAX,
            deleted: 0,
            deleted_length: 7,
        };
        assert_eq!(Totals::decode(&t.encode()), Some(t));
        assert_eq!(Totals::decode(&t.encode()[..31]), None);
    }
}
