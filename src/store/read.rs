//! Read-only snapshots of a store.

use super::error::{StoreError, StoreResult};
use super::open::storage_error;
use super::tables::{BACKLINKS, IDS, MEMORIES, META, decode_doc};
use crate::model::Memory;
use redb::{ReadTransaction, ReadableTable, ReadableTableMetadata};
use std::collections::BTreeSet;
use std::path::PathBuf;

/// A consistent view of the store at one moment; writers do not disturb it.
pub struct StoreReader {
    txn: ReadTransaction,
    path: PathBuf,
    /// The database a reader opened on its own keeps open (and locked); dropped after
    /// the transaction.
    _database: Option<Owned>,
}

/// A database a [`StoreReader`] keeps open for as long as it reads.
#[expect(
    dead_code,
    reason = "held only so that the database closes after the reader"
)]
pub(super) enum Owned {
    /// Opened read-only ([`super::Store::snapshot`]).
    ReadOnly(redb::ReadOnlyDatabase),
    /// A store opened for writing and handed over ([`super::Store::into_reader`]).
    Writable(std::sync::Arc<redb::Database>),
}

impl From<redb::ReadOnlyDatabase> for Owned {
    fn from(db: redb::ReadOnlyDatabase) -> Owned {
        Owned::ReadOnly(db)
    }
}

impl StoreReader {
    pub(super) fn new(txn: ReadTransaction, path: PathBuf) -> StoreReader {
        StoreReader {
            txn,
            path,
            _database: None,
        }
    }

    pub(super) fn owning(txn: ReadTransaction, path: PathBuf, database: Owned) -> StoreReader {
        StoreReader {
            txn,
            path,
            _database: Some(database),
        }
    }

    fn err(&self, e: impl std::fmt::Display) -> StoreError {
        storage_error(&self.path, e)
    }

    /// The underlying redb transaction, for the search indexes.
    pub fn txn(&self) -> &ReadTransaction {
        &self.txn
    }

    /// The store file this snapshot reads.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Number of memories stored (soft-deleted ones included).
    pub fn len(&self) -> StoreResult<u64> {
        let table = self.txn.open_table(MEMORIES).map_err(|e| self.err(e))?;
        table.len().map_err(|e| self.err(e))
    }

    /// True when the store holds no memory.
    pub fn is_empty(&self) -> StoreResult<bool> {
        Ok(self.len()? == 0)
    }

    /// The document number of a memory id.
    pub fn doc_of(&self, id: &str) -> StoreResult<Option<u32>> {
        let ids = self.txn.open_table(IDS).map_err(|e| self.err(e))?;
        Ok(ids.get(id).map_err(|e| self.err(e))?.map(|v| v.value()))
    }

    /// The memory stored under a document number.
    pub fn get_doc(&self, doc: u32) -> StoreResult<Option<Memory>> {
        let table = self.txn.open_table(MEMORIES).map_err(|e| self.err(e))?;
        let Some(bytes) = table.get(doc).map_err(|e| self.err(e))? else {
            return Ok(None);
        };
        decode_doc(&self.path, doc, bytes.value()).map(Some)
    }

    /// The memory with this id (the id table naming a memory of another id, or none,
    /// is damage).
    pub fn get(&self, id: &str) -> StoreResult<Option<Memory>> {
        match self.doc_of(id)? {
            Some(doc) => match self.get_doc(doc)? {
                Some(m) if m.id == id => Ok(Some(m)),
                _ => Err(self.misfiled(id, doc)),
            },
            None => Ok(None),
        }
    }

    /// The error for an id table naming record `doc` for `id`, which holds no memory of
    /// that id.
    fn misfiled(&self, id: &str, doc: u32) -> StoreError {
        StoreError::Corrupt {
            path: self.path.clone(),
            detail: format!(
                "the ids name record {doc} for `{id}`, which holds another memory or none"
            ),
        }
    }

    /// Calls `f` with every memory and its document number, in document order.
    pub fn for_each(&self, mut f: impl FnMut(u32, Memory)) -> StoreResult<()> {
        let table = self.txn.open_table(MEMORIES).map_err(|e| self.err(e))?;
        for entry in table.iter().map_err(|e| self.err(e))? {
            let (doc, bytes) = entry.map_err(|e| self.err(e))?;
            let memory = decode_doc(&self.path, doc.value(), bytes.value())?;
            f(doc.value(), memory);
        }
        Ok(())
    }

    /// Calls `f` with every memory in id order (byte order of the ids), as exports
    /// write them; stops early when `f` returns an error.
    pub fn try_for_each_by_id<E: From<StoreError>>(
        &self,
        mut f: impl FnMut(Memory) -> Result<(), E>,
    ) -> Result<(), E> {
        let ids = self.txn.open_table(IDS).map_err(|e| self.err(e))?;
        let table = self.txn.open_table(MEMORIES).map_err(|e| self.err(e))?;
        for entry in ids.iter().map_err(|e| self.err(e))? {
            let (id, doc) = entry.map_err(|e| self.err(e))?;
            let doc = doc.value();
            let Some(bytes) = table.get(doc).map_err(|e| self.err(e))? else {
                return Err(self.misfiled(id.value(), doc).into());
            };
            let memory = decode_doc(&self.path, doc, bytes.value())?;
            if memory.id != id.value() {
                return Err(self.misfiled(id.value(), doc).into());
            }
            f(memory)?;
        }
        Ok(())
    }

    /// The metadata value stored under `key` (see `StoreWriter::set_meta`).
    pub fn meta(&self, key: &str) -> StoreResult<Option<Vec<u8>>> {
        let meta = self.txn.open_table(META).map_err(|e| self.err(e))?;
        Ok(meta
            .get(key)
            .map_err(|e| self.err(e))?
            .map(|v| v.value().to_vec()))
    }

    /// Every memory, in document order.
    pub fn memories(&self) -> StoreResult<Vec<Memory>> {
        let mut out = Vec::new();
        self.for_each(|_, m| out.push(m))?;
        Ok(out)
    }

    /// Ids of the memories whose relationships name `id`, sorted.
    fn backlinks(&self, id: &str) -> StoreResult<Vec<String>> {
        let table = self.txn.open_table(BACKLINKS).map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for row in table.range((id, "")..).map_err(|e| self.err(e))? {
            let (key, _) = row.map_err(|e| self.err(e))?;
            let (target, source) = key.value();
            if target != id {
                break;
            }
            out.push(source.to_string());
        }
        Ok(out)
    }

    /// Ids of the distinct memories in the store linked to `memory` in either direction
    /// (soft-deleted ones included, missing targets and itself left out), sorted.
    pub fn linked_ids(&self, memory: &Memory) -> StoreResult<Vec<String>> {
        let ids = self.txn.open_table(IDS).map_err(|e| self.err(e))?;
        let mut linked = BTreeSet::new();
        for rel in &memory.relationships {
            if rel.target != memory.id
                && ids
                    .get(rel.target.as_str())
                    .map_err(|e| self.err(e))?
                    .is_some()
            {
                linked.insert(rel.target.clone());
            }
        }
        for source in self.backlinks(&memory.id)? {
            if source != memory.id {
                linked.insert(source);
            }
        }
        Ok(linked.into_iter().collect())
    }

    /// Ids of the memories that link to `id` (the reverse edges of relationships).
    pub fn linked_from(&self, id: &str) -> StoreResult<Vec<String>> {
        self.backlinks(id)
    }

    /// `relationship_count`: distinct memories in the store linked to this one.
    pub fn relationship_count(&self, memory: &Memory) -> StoreResult<u32> {
        Ok(u32::try_from(self.linked_ids(memory)?.len()).unwrap_or(u32::MAX))
    }
}
