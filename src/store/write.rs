//! The single durable write transaction: memories, their links and the search indexes
//! change together or not at all.

use super::error::{StoreError, StoreResult};
use super::open::storage_error;
use super::tables::{BACKLINKS, IDS, KEY_NEXT_DOC, MEMORIES, META, decode, encode};
use crate::model::Memory;
use redb::{ReadableTable, WriteTransaction};
use std::path::PathBuf;

/// An open write transaction. Dropping it without `commit` discards every change.
pub struct StoreWriter {
    txn: WriteTransaction,
    path: PathBuf,
    next_doc: Option<u32>,
}

impl StoreWriter {
    pub(super) fn new(txn: WriteTransaction, path: PathBuf) -> StoreWriter {
        StoreWriter {
            txn,
            path,
            next_doc: None,
        }
    }

    fn err(&self, e: impl std::fmt::Display) -> StoreError {
        storage_error(&self.path, e)
    }

    /// The underlying redb transaction, for the search indexes.
    pub fn txn(&self) -> &WriteTransaction {
        &self.txn
    }

    /// The document number of a memory id.
    pub fn doc_of(&self, id: &str) -> StoreResult<Option<u32>> {
        let ids = self.txn.open_table(IDS).map_err(|e| self.err(e))?;
        Ok(ids.get(id).map_err(|e| self.err(e))?.map(|v| v.value()))
    }

    fn get_doc(&self, doc: u32) -> StoreResult<Option<Memory>> {
        let table = self.txn.open_table(MEMORIES).map_err(|e| self.err(e))?;
        let Some(bytes) = table.get(doc).map_err(|e| self.err(e))? else {
            return Ok(None);
        };
        decode(bytes.value())
            .map(Some)
            .ok_or_else(|| StoreError::Corrupt {
                path: self.path.clone(),
                detail: format!("record {doc} cannot be decoded"),
            })
    }

    /// The memory with this id, as this transaction sees it.
    pub fn get(&self, id: &str) -> StoreResult<Option<Memory>> {
        match self.doc_of(id)? {
            Some(doc) => self.get_doc(doc),
            None => Ok(None),
        }
    }

    fn allocate_doc(&mut self) -> StoreResult<u32> {
        let next = match self.next_doc {
            Some(n) => n,
            None => {
                let meta = self.txn.open_table(META).map_err(|e| self.err(e))?;
                let stored = meta.get(KEY_NEXT_DOC).map_err(|e| self.err(e))?;
                stored
                    .and_then(|v| <[u8; 4]>::try_from(v.value()).ok())
                    .map(u32::from_le_bytes)
                    .unwrap_or(0)
            }
        };
        let after = next
            .checked_add(1)
            .ok_or_else(|| self.err("document numbers exhausted"))?;
        self.next_doc = Some(after);
        Ok(next)
    }

    fn set_backlinks(&self, memory: &Memory, present: bool) -> StoreResult<()> {
        let mut table = self
            .txn
            .open_multimap_table(BACKLINKS)
            .map_err(|e| self.err(e))?;
        for rel in &memory.relationships {
            if present {
                table
                    .insert(rel.target.as_str(), memory.id.as_str())
                    .map_err(|e| self.err(e))?;
            } else {
                table
                    .remove(rel.target.as_str(), memory.id.as_str())
                    .map_err(|e| self.err(e))?;
            }
        }
        Ok(())
    }

    /// Inserts the memory, or replaces the one with the same id; returns the old record.
    pub fn put(&mut self, memory: &Memory) -> StoreResult<Option<Memory>> {
        let (doc, old) = match self.doc_of(&memory.id)? {
            Some(doc) => (doc, self.get_doc(doc)?),
            None => {
                let doc = self.allocate_doc()?;
                let mut ids = self.txn.open_table(IDS).map_err(|e| self.err(e))?;
                ids.insert(memory.id.as_str(), doc)
                    .map_err(|e| self.err(e))?;
                (doc, None)
            }
        };
        if let Some(old) = &old {
            self.set_backlinks(old, false)?;
        }
        self.set_backlinks(memory, true)?;
        {
            let mut table = self.txn.open_table(MEMORIES).map_err(|e| self.err(e))?;
            table
                .insert(doc, encode(memory).as_slice())
                .map_err(|e| self.err(e))?;
        }
        crate::index::on_change(&self.txn, doc, old.as_ref(), Some(memory))
            .map_err(|e| self.err(e))?;
        Ok(old)
    }

    /// Removes a memory for good (links from other memories to it stay, shown as missing).
    pub fn purge(&mut self, id: &str) -> StoreResult<Memory> {
        let doc = self
            .doc_of(id)?
            .ok_or_else(|| StoreError::UnknownId(id.to_string()))?;
        let old = self
            .get_doc(doc)?
            .ok_or_else(|| StoreError::UnknownId(id.to_string()))?;
        self.set_backlinks(&old, false)?;
        {
            let mut ids = self.txn.open_table(IDS).map_err(|e| self.err(e))?;
            ids.remove(id).map_err(|e| self.err(e))?;
            let mut table = self.txn.open_table(MEMORIES).map_err(|e| self.err(e))?;
            table.remove(doc).map_err(|e| self.err(e))?;
        }
        crate::index::on_change(&self.txn, doc, Some(&old), None).map_err(|e| self.err(e))?;
        Ok(old)
    }

    /// Makes every change durable at once.
    pub fn commit(self) -> StoreResult<()> {
        if let Some(next) = self.next_doc {
            let mut meta = self.txn.open_table(META).map_err(|e| self.err(e))?;
            meta.insert(KEY_NEXT_DOC, next.to_le_bytes().as_slice())
                .map_err(|e| self.err(e))?;
        }
        let path = self.path.clone();
        self.txn.commit().map_err(|e| storage_error(&path, e))
    }
}
