//! Read-only snapshots of a store.

use super::error::{StoreError, StoreResult};
use super::links::{COUNT_SOURCE, check_row, read_count};
use super::open::storage_error;
use super::tables::{BACKLINKS, IDS, MEMORIES, META, decode_doc};
use crate::model::Memory;
use redb::{
    ReadOnlyTable, ReadTransaction, ReadableDatabase, ReadableTable, ReadableTableMetadata,
};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// A consistent view of the store at one moment; writers do not disturb it.
pub struct StoreReader {
    /// The memories table once a read has opened it (opening it reads the table
    /// directory's pages again each time); dropped first, before the transaction.
    memories: OnceLock<Box<ReadOnlyTable<u32, &'static [u8]>>>,
    txn: ReadTransaction,
    path: PathBuf,
    /// The database the snapshot reads, kept open (dropped after the transaction) so
    /// that [`StoreReader::again`] can take a newer snapshot of it.
    database: Owned,
}

/// Documents this close to each other are read through one range: the rows between
/// them are passed over, which costs less than walking down the tree again.
const NEAR_DOCS: u32 = 32;

/// The database a [`StoreReader`] keeps open for as long as it reads.
#[derive(Clone)]
pub(super) enum Owned {
    /// Opened read-only ([`super::Store::snapshot`]).
    ReadOnly(Arc<redb::ReadOnlyDatabase>),
    /// Opened for writing, by a [`super::Store`] or handed over by one
    /// ([`super::Store::into_reader`]).
    Writable(Arc<redb::Database>),
}

impl From<redb::ReadOnlyDatabase> for Owned {
    fn from(db: redb::ReadOnlyDatabase) -> Owned {
        Owned::ReadOnly(Arc::new(db))
    }
}

impl StoreReader {
    pub(super) fn owning(txn: ReadTransaction, path: PathBuf, database: Owned) -> StoreReader {
        StoreReader {
            memories: OnceLock::new(),
            txn,
            path,
            database,
        }
    }

    /// A new snapshot of the same store as it is now: what every process committed
    /// since this one was taken.
    pub fn again(&self) -> StoreResult<StoreReader> {
        let txn = match &self.database {
            Owned::ReadOnly(db) => db.begin_read(),
            Owned::Writable(db) => db.begin_read(),
        }
        .map_err(|e| self.err(e))?;
        Ok(StoreReader::owning(
            txn,
            self.path.clone(),
            self.database.clone(),
        ))
    }

    fn err(&self, e: impl std::fmt::Display) -> StoreError {
        storage_error(&self.path, e)
    }

    /// One of the store's tables as this snapshot holds it; an error when the store
    /// has no such table or it cannot be read.
    pub fn table<K: redb::Key + 'static, V: redb::Value + 'static>(
        &self,
        table: redb::TableDefinition<K, V>,
    ) -> StoreResult<ReadOnlyTable<K, V>> {
        self.txn.open_table(table).map_err(|e| self.err(e))
    }

    /// [`StoreReader::table`], `None` when the store has no such table yet.
    pub fn table_if_present<K: redb::Key + 'static, V: redb::Value + 'static>(
        &self,
        table: redb::TableDefinition<K, V>,
    ) -> StoreResult<Option<ReadOnlyTable<K, V>>> {
        match self.txn.open_table(table) {
            Ok(t) => Ok(Some(t)),
            Err(redb::TableError::TableDoesNotExist(_)) => Ok(None),
            Err(e) => Err(self.err(e)),
        }
    }

    /// True when the snapshot's persisted index (postings, facts, columns, haystacks)
    /// is complete and of this version, so a search may read it.
    pub fn index_is_current(&self) -> StoreResult<bool> {
        crate::index::index_is_current(&self.txn).map_err(|e| self.err(e))
    }

    /// The store file this snapshot reads.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// The number of the last change committed before this snapshot (0 for a store no
    /// commit has changed yet): it moves whenever any process writes.
    pub fn change_number(&self) -> StoreResult<u64> {
        let meta = match self.txn.open_table(META) {
            Ok(meta) => meta,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(0),
            Err(e) => return Err(self.err(e)),
        };
        let value = meta
            .get(super::shared::CHANGE_KEY)
            .map_err(|e| self.err(e))?;
        Ok(super::shared::change_number(
            value.as_ref().map(|v| v.value()),
        ))
    }

    /// What was written between change `since` and this snapshot: the memories to read
    /// again, or everything when the log does not reach back that far.
    pub fn changes_since(&self, since: u64) -> StoreResult<super::Since> {
        let now = self.change_number()?;
        let log = match self.txn.open_table(super::changes::CHANGES) {
            Ok(log) => Some(log),
            Err(redb::TableError::TableDoesNotExist(_)) => None,
            Err(e) => return Err(self.err(e)),
        };
        super::changes::since(log.as_ref(), since, now).map_err(|e| self.err(e))
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
        self.find(&ids, id)
    }

    /// The document number `ids` holds for `id`. A lookup that finds nothing is checked
    /// against the rows on either side of where `id` would be: damage that changed a
    /// key leaves its row in place, so the row that was `id` is then a neighbour naming
    /// a memory of another id, and the miss is reported as damage instead of as a
    /// memory that is not there.
    fn find(&self, ids: &ReadOnlyTable<&str, u32>, id: &str) -> StoreResult<Option<u32>> {
        if let Some(doc) = ids.get(id).map_err(|e| self.err(e))? {
            return Ok(Some(doc.value()));
        }
        let before = ids.range(..id).map_err(|e| self.err(e))?.next_back();
        let after = ids.range(id..).map_err(|e| self.err(e))?.next();
        for row in [before, after].into_iter().flatten() {
            let (key, doc) = row.map_err(|e| self.err(e))?;
            let named = self.get_doc(doc.value())?.map(|m| m.id);
            if named.as_deref() != Some(key.value()) {
                return Err(self.err(format!(
                    "corrupted: the id table is damaged near `{id}` (`{}` names record {})",
                    key.value(),
                    doc.value()
                )));
            }
        }
        Ok(None)
    }

    /// The memory stored under a document number.
    pub fn get_doc(&self, doc: u32) -> StoreResult<Option<Memory>> {
        let table = self.memories_table()?;
        let Some(bytes) = table.get(doc).map_err(|e| self.err(e))? else {
            return Ok(None);
        };
        decode_doc(&self.path, doc, bytes.value()).map(Some)
    }

    /// Reads the memories stored under `docs` and hands each to `each` with its place
    /// in `docs` (`None` where none is stored), every place once, in document order.
    /// A run of near documents is read through one range, so a page holding many of
    /// them is read once rather than once for each: the ten thousand newest of 1M
    /// memories read 9,700 pages one by one and 1,100 so. A table that cannot be opened
    /// or read fails the memories it holds back.
    pub fn each_doc(&self, docs: &[u32], mut each: impl FnMut(usize, StoreResult<Option<Memory>>)) {
        let mut by_doc: Vec<usize> = (0..docs.len()).collect();
        by_doc.sort_unstable_by_key(|&i| docs[i]);
        let table = match self.memories_table() {
            Ok(table) => table,
            Err(e) => {
                let detail = e.to_string();
                return by_doc.iter().for_each(|&i| each(i, Err(self.err(&detail))));
            }
        };
        for run in by_doc.chunk_by(|&a, &b| docs[b] - docs[a] <= NEAR_DOCS) {
            let mut wanted = run.iter().copied().peekable();
            if let Err(e) = self.read_run(table, docs, &mut wanted, &mut each) {
                let detail = e.to_string();
                wanted
                    .by_ref()
                    .for_each(|i| each(i, Err(self.err(&detail))));
            }
            wanted.for_each(|i| each(i, Ok(None)));
        }
    }

    /// Reads the places of `wanted` (ascending by their documents in `docs`) through
    /// one range, handing each found or passed over to `each`; the places it did not
    /// reach stay in `wanted`.
    fn read_run(
        &self,
        table: &ReadOnlyTable<u32, &'static [u8]>,
        docs: &[u32],
        wanted: &mut std::iter::Peekable<impl Iterator<Item = usize>>,
        each: &mut impl FnMut(usize, StoreResult<Option<Memory>>),
    ) -> Result<(), redb::StorageError> {
        let Some(&first) = wanted.peek() else {
            return Ok(());
        };
        for row in table.range(docs[first]..)? {
            let (key, bytes) = row?;
            let doc = key.value();
            while let Some(i) = wanted.next_if(|&i| docs[i] <= doc) {
                let memory = if docs[i] == doc {
                    decode_doc(&self.path, doc, bytes.value()).map(Some)
                } else {
                    Ok(None)
                };
                each(i, memory);
            }
            if wanted.peek().is_none() {
                break;
            }
        }
        Ok(())
    }

    /// The memories table, opened once for the snapshot.
    fn memories_table(&self) -> StoreResult<&ReadOnlyTable<u32, &'static [u8]>> {
        if let Some(table) = self.memories.get() {
            return Ok(table);
        }
        let table = self.txn.open_table(MEMORIES).map_err(|e| self.err(e))?;
        Ok(self.memories.get_or_init(|| Box::new(table)))
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

    /// Ids of the memories whose relationships name `id`, sorted; an error when a row
    /// fails its checksum or the rows found are not as many as the count row says.
    fn backlinks(&self, id: &str) -> StoreResult<Vec<String>> {
        let table = self.txn.open_table(BACKLINKS).map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        let mut count = None;
        // A damaged key misleads the search within its page, so the rows on either side
        // of `id`'s rows are opened too: one of them is then the damaged row.
        if let Some(row) = table
            .range(..(id, COUNT_SOURCE))
            .map_err(|e| self.err(e))?
            .next_back()
        {
            let (key, sealed) = row.map_err(|e| self.err(e))?;
            let (target, source) = key.value();
            check_row(target, source, sealed.value()).map_err(|e| self.err(e))?;
        }
        for row in table.range((id, "")..).map_err(|e| self.err(e))? {
            let (key, sealed) = row.map_err(|e| self.err(e))?;
            let (target, source) = key.value();
            if target != id {
                check_row(target, source, sealed.value()).map_err(|e| self.err(e))?;
                break;
            }
            if source == COUNT_SOURCE {
                count = Some(read_count(target, sealed.value()).map_err(|e| self.err(e))?);
                continue;
            }
            sealed
                .value()
                .open(&(target, source))
                .map_err(|e| self.err(e))?;
            out.push(source.to_string());
        }
        if count.unwrap_or(0) != out.len() as u64 {
            return Err(self.err(format!(
                "corrupted: the backlinks of `{id}` are not as many as their count row says"
            )));
        }
        Ok(out)
    }

    /// Ids of the distinct memories in the store linked to `memory` in either direction
    /// (soft-deleted ones included, missing targets and itself left out), sorted.
    pub fn linked_ids(&self, memory: &Memory) -> StoreResult<Vec<String>> {
        let ids = self.txn.open_table(IDS).map_err(|e| self.err(e))?;
        let mut linked = BTreeSet::new();
        for rel in &memory.relationships {
            if rel.target != memory.id && self.find(&ids, &rel.target)?.is_some() {
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
