//! The persisted per-memory facts a query needs beside the postings: whether a
//! document holds a memory, whether it is soft-deleted or a session recap (the default
//! filters), its BM25 length and its created_at, as fixed-size rows packed in chunks
//! of consecutive documents, so a whole store's facts read in a few large values.

use redb::{ReadableTable, StorageError, Table, TableDefinition};

/// Chunk number (document / [`CHUNK_DOCS`]) → the packed rows of its documents.
pub const FACTS: TableDefinition<u32, &[u8]> = TableDefinition::new("facts");

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

/// Calls `f` with every stored memory's document number and fact, in document order.
/// A damaged chunk is an error.
pub fn for_each<T: ReadableTable<u32, &'static [u8]>>(
    table: &T,
    mut f: impl FnMut(u32, Fact),
) -> Result<(), StorageError> {
    for entry in table.iter()? {
        let (chunk, rows) = entry?;
        let (chunk, rows) = (chunk.value(), rows.value());
        if rows.len() != ROW * CHUNK_DOCS as usize {
            return Err(StorageError::Corrupted(format!(
                "facts chunk {chunk} has {} bytes",
                rows.len()
            )));
        }
        for (i, row) in rows.chunks_exact(ROW).enumerate() {
            if let Some(fact) = Fact::from_row(row) {
                f(chunk * CHUNK_DOCS + i as u32, fact);
            }
        }
    }
    Ok(())
}

/// Writes `changes` (sorted by document, at most one per document; `None` = no memory
/// under that document any more).
pub(crate) fn apply(
    table: &mut Table<'_, u32, &'static [u8]>,
    changes: &[(u32, Option<Fact>)],
) -> Result<(), StorageError> {
    let mut i = 0;
    while i < changes.len() {
        let chunk = changes[i].0 / CHUNK_DOCS;
        let mut rows = match table.get(chunk)? {
            Some(v) if v.value().len() == ROW * CHUNK_DOCS as usize => v.value().to_vec(),
            Some(v) => {
                return Err(StorageError::Corrupted(format!(
                    "facts chunk {chunk} has {} bytes",
                    v.value().len()
                )));
            }
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
            table.insert(chunk, rows.as_slice())?;
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
}
