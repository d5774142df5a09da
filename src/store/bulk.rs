//! Many puts in one write transaction with the tables opened once: the fast path for
//! imports (opening a redb table per record costs more than the insert itself).

use super::error::{StoreError, StoreResult};
use super::open::storage_error;
use super::tables::{BACKLINKS, IDS, MEMORIES, decode, encode_into};
use crate::model::Memory;
use redb::{MultimapTable, ReadableTable, Table, WriteTransaction};
use std::path::Path;

/// The memory tables of one write transaction, held open for a run of puts.
/// Obtained from [`super::StoreWriter::bulk`]; drop it before `commit`. While it lives,
/// `MEMORIES`, `IDS` and `BACKLINKS` are open, so `index::on_change` (called on every
/// put) must keep to its own tables.
pub struct BulkWriter<'w> {
    txn: &'w WriteTransaction,
    path: &'w Path,
    next_doc: &'w mut Option<u32>,
    memories: Table<'w, u32, &'static [u8]>,
    ids: Table<'w, &'static str, u32>,
    backlinks: MultimapTable<'w, &'static str, &'static str>,
    buffer: Vec<u8>,
}

/// What a [`BulkWriter::put`] did.
#[derive(Debug)]
pub struct PutOutcome {
    /// The document number the memory is stored under.
    pub doc: u32,
    /// The record it replaced, if the id was already stored.
    pub old: Option<Memory>,
}

impl<'w> BulkWriter<'w> {
    pub(super) fn new(
        txn: &'w WriteTransaction,
        path: &'w Path,
        next_doc: &'w mut Option<u32>,
    ) -> StoreResult<BulkWriter<'w>> {
        let err = |e: redb::TableError| storage_error(path, e);
        Ok(BulkWriter {
            txn,
            path,
            next_doc,
            memories: txn.open_table(MEMORIES).map_err(err)?,
            ids: txn.open_table(IDS).map_err(err)?,
            backlinks: txn.open_multimap_table(BACKLINKS).map_err(err)?,
            buffer: Vec::new(),
        })
    }

    fn err(&self, e: impl std::fmt::Display) -> StoreError {
        storage_error(self.path, e)
    }

    /// The next document number a new memory would get (every number below it has been
    /// handed out, in this transaction or before).
    pub fn next_doc(&self) -> u32 {
        self.next_doc.unwrap_or(0)
    }

    /// The document number of a memory id, as this transaction sees it.
    pub fn doc_of(&self, id: &str) -> StoreResult<Option<u32>> {
        Ok(self
            .ids
            .get(id)
            .map_err(|e| self.err(e))?
            .map(|v| v.value()))
    }

    /// The memory stored under a document number, as this transaction sees it.
    pub fn get_doc(&self, doc: u32) -> StoreResult<Option<Memory>> {
        let Some(bytes) = self.memories.get(doc).map_err(|e| self.err(e))? else {
            return Ok(None);
        };
        decode(bytes.value())
            .map(Some)
            .ok_or_else(|| StoreError::Corrupt {
                path: self.path.to_path_buf(),
                detail: format!("record {doc} cannot be decoded"),
            })
    }

    fn allocate_doc(&mut self) -> StoreResult<u32> {
        let next = self.next_doc.unwrap_or(0);
        let after = next
            .checked_add(1)
            .ok_or_else(|| self.err("document numbers exhausted"))?;
        *self.next_doc = Some(after);
        Ok(next)
    }

    fn set_backlinks(&mut self, memory: &Memory, present: bool) -> StoreResult<()> {
        for rel in &memory.relationships {
            let done = if present {
                self.backlinks
                    .insert(rel.target.as_str(), memory.id.as_str())
            } else {
                self.backlinks
                    .remove(rel.target.as_str(), memory.id.as_str())
            };
            done.map_err(|e| storage_error(self.path, e))?;
        }
        Ok(())
    }

    /// Inserts the memory, or replaces the one with the same id.
    pub fn put(&mut self, memory: &Memory) -> StoreResult<PutOutcome> {
        let mut buffer = std::mem::take(&mut self.buffer);
        buffer.clear();
        encode_into(memory, &mut buffer);
        let outcome = self.put_encoded(memory, &buffer);
        self.buffer = buffer;
        outcome
    }

    /// [`put`](Self::put) with the memory already encoded by [`encode_into`] (so a
    /// reader thread can do that work); `encoded` must be exactly that encoding.
    pub fn put_encoded(&mut self, memory: &Memory, encoded: &[u8]) -> StoreResult<PutOutcome> {
        let (doc, old) = match self.doc_of(&memory.id)? {
            Some(doc) => (doc, self.get_doc(doc)?),
            None => {
                let doc = self.allocate_doc()?;
                self.ids
                    .insert(memory.id.as_str(), doc)
                    .map_err(|e| storage_error(self.path, e))?;
                (doc, None)
            }
        };
        if let Some(old) = &old {
            self.set_backlinks(old, false)?;
        }
        self.set_backlinks(memory, true)?;
        self.memories
            .insert(doc, encoded)
            .map_err(|e| storage_error(self.path, e))?;
        crate::index::on_change(self.txn, doc, old.as_ref(), Some(memory))
            .map_err(|e| self.err(e))?;
        Ok(PutOutcome { doc, old })
    }

    /// Inserts a memory whose id the caller has just looked up with
    /// [`doc_of`](Self::doc_of) and found absent (saving a second lookup); `encoded`
    /// must be its [`encode_into`] encoding. Returns its document number.
    pub fn insert_new_encoded(&mut self, memory: &Memory, encoded: &[u8]) -> StoreResult<u32> {
        let doc = self.allocate_doc()?;
        let previous = self
            .ids
            .insert(memory.id.as_str(), doc)
            .map_err(|e| storage_error(self.path, e))?
            .map(|v| v.value());
        if let Some(previous) = previous {
            // The id was stored after all: undo and take the general path.
            self.ids
                .insert(memory.id.as_str(), previous)
                .map_err(|e| storage_error(self.path, e))?;
            return self.put_encoded(memory, encoded).map(|o| o.doc);
        }
        self.set_backlinks(memory, true)?;
        self.memories
            .insert(doc, encoded)
            .map_err(|e| storage_error(self.path, e))?;
        crate::index::on_change(self.txn, doc, None, Some(memory)).map_err(|e| self.err(e))?;
        Ok(doc)
    }

    /// Removes a memory for good; returns it.
    pub fn purge(&mut self, id: &str) -> StoreResult<Memory> {
        let doc = self
            .doc_of(id)?
            .ok_or_else(|| StoreError::UnknownId(id.to_string()))?;
        let old = self
            .get_doc(doc)?
            .ok_or_else(|| StoreError::UnknownId(id.to_string()))?;
        self.set_backlinks(&old, false)?;
        self.ids
            .remove(id)
            .map_err(|e| storage_error(self.path, e))?;
        self.memories
            .remove(doc)
            .map_err(|e| storage_error(self.path, e))?;
        crate::index::on_change(self.txn, doc, Some(&old), None).map_err(|e| self.err(e))?;
        Ok(old)
    }
}
