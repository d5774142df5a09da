//! What makes search fast: index tables kept in the same write transaction as the
//! memories they describe, so they are never stale, even after a crash.
//!
//! Each memory has a [`SearchRecord`] under its document number in `SEARCH_DOCS`: its
//! tokens with frequencies, its literal and fuzzy haystacks and the fields filters and
//! browse modes read. A put writes one record and a purge removes it, so a write costs
//! one extra insert; the searcher builds numeric columns from the records when it opens
//! and the BM25 inverted index from their term lists on first need.
//!
//! Why per-memory records and not persisted postings: a posting list per term costs a
//! B-tree update per distinct term of every written memory (about thirty for a 200-byte
//! memory), which would dominate imports and curation writes; one record per memory
//! keeps a write at one extra insert and is rebuilt from the memory itself when missing
//! or of another version (stores written before the index existed still open).

mod prepare;
pub mod record;
pub mod tokenize;

pub use record::{RecordView, SearchRecord};

use crate::model::Memory;
use redb::{Table, TableDefinition, WriteTransaction};

/// Document number → encoded [`SearchRecord`].
pub const SEARCH_DOCS: TableDefinition<u32, &[u8]> = TableDefinition::new("search_docs");

/// Creates the index tables of a new store.
pub fn create_tables(txn: &WriteTransaction) -> Result<(), redb::Error> {
    txn.open_table(SEARCH_DOCS)?;
    Ok(())
}

/// The stored bytes of a memory's search record (what [`IndexWriter::change`] writes),
/// so a reader thread can prepare them before the write.
pub fn record_bytes(m: &Memory) -> Vec<u8> {
    let mut w = Vec::with_capacity(m.body.len() * 3 + 256);
    prepare::encode_record(m, &mut w);
    w
}

/// Brings the indexes up to date for one document: `old` is what was stored under
/// `doc` before (if anything), `new` what is stored now (`None` when purged).
pub fn on_change(
    txn: &WriteTransaction,
    doc: u32,
    old: Option<&Memory>,
    new: Option<&Memory>,
) -> Result<(), redb::Error> {
    IndexWriter::open(txn)?.change(doc, old, new)
}

/// The index tables held open for many changes in one write transaction (opening a
/// redb table per change costs about as much as the insert itself).
pub struct IndexWriter<'w> {
    docs: Table<'w, u32, &'static [u8]>,
}

impl<'w> IndexWriter<'w> {
    /// Opens the index tables of `txn`.
    pub fn open(txn: &'w WriteTransaction) -> Result<IndexWriter<'w>, redb::Error> {
        Ok(IndexWriter {
            docs: txn.open_table(SEARCH_DOCS)?,
        })
    }

    /// Like [`on_change`], with the tables already open.
    pub fn change(
        &mut self,
        doc: u32,
        _old: Option<&Memory>,
        new: Option<&Memory>,
    ) -> Result<(), redb::Error> {
        match new {
            Some(m) => self.put_record(doc, &record_bytes(m)),
            None => {
                self.docs.remove(doc)?;
                Ok(())
            }
        }
    }

    /// Stores a memory under `doc` given its [`record_bytes`] (prepared elsewhere);
    /// the same as [`change`](Self::change) with that memory as `new`.
    pub fn put_record(&mut self, doc: u32, record: &[u8]) -> Result<(), redb::Error> {
        self.docs.insert(doc, record)?;
        Ok(())
    }
}
