//! The single durable write transaction: memories, their links and the search indexes
//! change together or not at all.

use super::bulk::BulkWriter;
use super::error::{StoreError, StoreResult};
use super::links::PendingLinks;
use super::new_ids::NewIds;
use super::open::storage_error;
use super::steps::Steps;
use super::tables::{IDS, KEY_NEXT_DOC, MEMORIES, META, RESERVED_META_KEYS, decode_doc};
use crate::commit::both;
use crate::index::PendingIndex;
use crate::model::Memory;
use crate::schema::appends::Appends;
use redb::{ReadableTable, WriteTransaction};
use std::path::{Path, PathBuf};

/// Why a writer whose checkpoint failed refuses everything after it.
const ENDED: &str = "the write transaction ended at a failed checkpoint";

/// The transaction of a writer, or the error saying a failed checkpoint ended it.
fn live<'t>(txn: &'t Option<WriteTransaction>, path: &Path) -> StoreResult<&'t WriteTransaction> {
    txn.as_ref().ok_or_else(|| storage_error(path, ENDED))
}

impl Drop for StoreWriter {
    fn drop(&mut self) {
        // a failed undo leaves the database unclosed, so the steps never persist
        let _ = self.undo_steps();
    }
}

/// Backlink changes and new ids from which a commit writes them on a second thread.
const PARALLEL_LINKS: usize = 1_000;

/// An open write transaction. Dropping it without `commit` discards every change, the
/// steps of a write [in steps](super::Store::write_in_steps) included
/// ([`abandon`](StoreWriter::abandon) does the same and says whether undoing them
/// failed).
pub struct StoreWriter {
    /// `None` only after a checkpoint committed the last one and could not begin the
    /// next: every call then fails.
    txn: Option<WriteTransaction>,
    path: PathBuf,
    /// How a write in steps commits its steps and undoes them.
    steps: Option<Steps>,
    next_doc: Option<u32>,
    /// Postings and facts changes, written at commit.
    pending: PendingIndex,
    /// Backlink changes, written at commit.
    links: PendingLinks,
    /// New memories not yet in `MEMORIES` (see [`BulkWriter::insert_if_new`]).
    appended: Appends,
    /// Their ids, not yet in `IDS`.
    new_ids: NewIds,
    /// Where the commit is written through first (see [`super::WriteThrough`]).
    pub(super) write_through: Option<std::sync::Arc<dyn super::WriteThrough>>,
    /// Ids put or purged through [`put`](Self::put) and [`purge`](Self::purge), in order,
    /// each with the read count it had before (0 for a new memory).
    touched: Vec<(String, u32)>,
    /// True once [`bulk`](Self::bulk) was handed out: the commit may have written any
    /// number of memories, so the change log says everything changed.
    bulk_used: bool,
}

impl StoreWriter {
    pub(super) fn new(txn: WriteTransaction, path: PathBuf, steps: Option<Steps>) -> StoreWriter {
        StoreWriter {
            txn: Some(txn),
            path,
            steps,
            next_doc: None,
            pending: PendingIndex::default(),
            links: PendingLinks::default(),
            appended: Appends::default(),
            new_ids: NewIds::default(),
            write_through: None,
            touched: Vec::new(),
            bulk_used: false,
        }
    }

    fn err(&self, e: impl std::fmt::Display) -> StoreError {
        storage_error(&self.path, e)
    }

    /// The underlying redb transaction, for the store's own layers (its layout and
    /// its index); every other writer opens tables with [`StoreWriter::table`].
    pub(crate) fn txn(&self) -> StoreResult<&WriteTransaction> {
        live(&self.txn, &self.path)
    }

    /// One of the store's tables, open for writing in this transaction (created when
    /// absent).
    pub fn table<K: redb::Key + 'static, V: redb::Value + 'static>(
        &self,
        table: redb::TableDefinition<K, V>,
    ) -> StoreResult<redb::Table<'_, K, V>> {
        self.txn()?.open_table(table).map_err(|e| self.err(e))
    }

    /// In a write [in steps](super::Store::write_in_steps), commits what is written so
    /// far without waiting for the disk and goes on in a new transaction; the changes
    /// still gathered (index, links, new ids) go on with it. Otherwise does nothing.
    /// Drop every [`BulkWriter`] first.
    pub fn checkpoint(&mut self) -> StoreResult<()> {
        let (Some(steps), Some(txn)) = (self.steps.as_mut(), self.txn.take()) else {
            return Ok(());
        };
        let path = &self.path;
        self.txn = Some(steps.take(txn).map_err(|e| storage_error(path, e))?);
        Ok(())
    }

    /// Steps committed so far by [`checkpoint`](Self::checkpoint).
    pub fn steps_taken(&self) -> usize {
        self.steps.as_ref().map_or(0, Steps::taken)
    }

    /// Discards every change, those of the steps already committed included.
    pub fn abandon(mut self) -> StoreResult<()> {
        self.undo_steps()
    }

    /// Ends the transaction, discarding its changes, then undoes the steps taken (an
    /// undo begins a transaction of its own, so this one must end first).
    fn undo_steps(&mut self) -> StoreResult<()> {
        self.txn = None;
        match self.steps.take() {
            Some(steps) => steps.undo().map_err(|e| self.err(e)),
            None => Ok(()),
        }
    }

    /// The document number of a memory id.
    pub fn doc_of(&self, id: &str) -> StoreResult<Option<u32>> {
        if let Some(doc) = self.new_ids.get(id) {
            return Ok(Some(doc));
        }
        let ids = self.txn()?.open_table(IDS).map_err(|e| self.err(e))?;
        Ok(ids.get(id).map_err(|e| self.err(e))?.map(|v| v.value()))
    }

    fn get_doc(&self, doc: u32) -> StoreResult<Option<Memory>> {
        if let Some(bytes) = self.appended.get(doc) {
            return decode_doc(&self.path, doc, bytes).map(Some);
        }
        let table = self.txn()?.open_table(MEMORIES).map_err(|e| self.err(e))?;
        let Some(bytes) = table.get(doc).map_err(|e| self.err(e))? else {
            return Ok(None);
        };
        decode_doc(&self.path, doc, bytes.value()).map(Some)
    }

    /// The memory with this id, as this transaction sees it.
    pub fn get(&self, id: &str) -> StoreResult<Option<Memory>> {
        match self.doc_of(id)? {
            Some(doc) => self.get_doc(doc),
            None => Ok(None),
        }
    }

    /// The next document number a new memory would get (every number below it has been
    /// handed out, in this transaction or before).
    pub fn next_doc(&mut self) -> StoreResult<u32> {
        self.load_next_doc()?;
        Ok(self.next_doc.unwrap_or(0))
    }

    /// Loads the next free document number from `META` once per transaction.
    fn load_next_doc(&mut self) -> StoreResult<()> {
        if self.next_doc.is_none() {
            let next = {
                let meta = self.txn()?.open_table(META).map_err(|e| self.err(e))?;
                let stored = meta.get(KEY_NEXT_DOC).map_err(|e| self.err(e))?;
                stored
                    .and_then(|v| <[u8; 4]>::try_from(v.value()).ok())
                    .map(u32::from_le_bytes)
                    .unwrap_or(0)
            };
            self.next_doc = Some(next);
        }
        Ok(())
    }

    /// The memory tables held open for many puts (the import path). Drop the
    /// returned writer before calling `commit`.
    pub fn bulk(&mut self) -> StoreResult<BulkWriter<'_>> {
        self.bulk_used = true;
        self.bulk_writer()
    }

    fn bulk_writer(&mut self) -> StoreResult<BulkWriter<'_>> {
        self.load_next_doc()?;
        let txn = live(&self.txn, &self.path)?;
        let mut bulk = BulkWriter::new(
            txn,
            &self.path,
            &mut self.next_doc,
            &mut self.pending,
            &mut self.links,
            &mut self.appended,
            &mut self.new_ids,
        )?;
        bulk.step_bytes = self.steps.as_ref().map_or(usize::MAX, Steps::bytes);
        Ok(bulk)
    }

    /// Inserts the memory, or replaces the one with the same id; returns the old record.
    pub fn put(&mut self, memory: &Memory) -> StoreResult<Option<Memory>> {
        let old = self.bulk_writer()?.put(memory)?.old;
        let reads = old.as_ref().map_or(0, |m| m.read_count);
        self.touched.push((memory.id.clone(), reads));
        Ok(old)
    }

    /// Removes a memory for good (links from other memories to it stay, shown as missing).
    pub fn purge(&mut self, id: &str) -> StoreResult<Memory> {
        let old = self.bulk_writer()?.purge(id)?;
        self.touched.push((id.to_string(), old.read_count));
        Ok(old)
    }

    /// Stores a value under `key` in the store's metadata table (for markers such as
    /// "this is a demo store"); the memlens format keys are refused.
    pub fn set_meta(&self, key: &str, value: &[u8]) -> StoreResult<()> {
        if RESERVED_META_KEYS.contains(&key) {
            return Err(self.err(format!("metadata key `{key}` is reserved")));
        }
        let mut meta = self.txn()?.open_table(META).map_err(|e| self.err(e))?;
        meta.insert(key, value).map_err(|e| self.err(e))?;
        Ok(())
    }

    /// The metadata value stored under `key`, as this transaction sees it.
    pub fn meta(&self, key: &str) -> StoreResult<Option<Vec<u8>>> {
        let meta = self.txn()?.open_table(META).map_err(|e| self.err(e))?;
        Ok(meta
            .get(key)
            .map_err(|e| self.err(e))?
            .map(|v| v.value().to_vec()))
    }

    /// Makes every change durable at once, the index with the memories. Many
    /// backlinks and new ids (an import's) are written on a second thread while the
    /// index is.
    /// In a write in steps, a failed commit undoes the steps too.
    pub fn commit(mut self) -> StoreResult<()> {
        let written: Option<Vec<String>> =
            (!self.bulk_used).then(|| self.touched.iter().map(|(id, _)| id.clone()).collect());
        if let Some(hook) = self.write_through.take()
            && !self.touched.is_empty()
        {
            let touched = std::mem::take(&mut self.touched);
            hook.before_commit(&self, &touched)
                .map_err(StoreError::WriteThrough)?;
        }
        match self.commit_all(written.as_deref()) {
            Ok(()) => {
                // committed: the steps are kept
                self.steps = None;
                Ok(())
            }
            Err(e) => {
                self.undo_steps()?;
                Err(e)
            }
        }
    }

    fn commit_all(&mut self, written: Option<&[String]>) -> StoreResult<()> {
        let txn = live(&self.txn, &self.path)?;
        self.appended
            .write_into(txn, MEMORIES)
            .map_err(|e| self.err(e))?;
        let mut links = std::mem::take(&mut self.links);
        let counts = links.take_counts();
        let new_ids = std::mem::take(&mut self.new_ids);
        let pending = &mut self.pending;
        let apart = links.len() + new_ids.len() >= PARALLEL_LINKS;
        let write_links = || links.write(txn).and_then(|()| new_ids.write(txn));
        let (linked, indexed) = both(apart, write_links, || pending.flush(txn));
        indexed
            .and(linked)
            .and_then(|()| crate::index::link_counts::refresh(txn, counts))
            .map_err(|e| storage_error(&self.path, e))?;
        if let Some(next) = self.next_doc {
            let mut meta = txn.open_table(META).map_err(|e| self.err(e))?;
            meta.insert(KEY_NEXT_DOC, next.to_le_bytes().as_slice())
                .map_err(|e| self.err(e))?;
        }
        super::changes::record(txn, written).map_err(|e| self.err(e))?;
        let txn = self.txn.take().ok_or_else(|| self.err(ENDED))?;
        super::open::commit_durably(txn).map_err(|e| self.err(e))
    }
}
