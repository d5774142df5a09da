//! Many puts in one write transaction with the tables opened once: the fast path for
//! imports (opening a redb table per record costs more than the insert itself).

use super::error::{StoreError, StoreResult};
use super::links::PendingLinks;
use super::new_ids::NewIds;
use super::open::storage_error;
use super::tables::{IDS, MEMORIES, decode_doc, encode_into};
use crate::index::{IndexEntry, IndexWriter, PendingIndex};
use crate::model::{Checked, Memory};
use crate::schema::appends::Appends;
use redb::{ReadableTable, Table, WriteTransaction};
use std::path::Path;

/// The memory tables of one write transaction, held open for a run of puts.
/// Obtained from [`super::StoreWriter::bulk`]; drop it before `commit`. While it lives,
/// `MEMORIES`, `IDS` and the index tables (an [`IndexWriter`]) are open, so nothing
/// else may open them in the same transaction; backlinks are gathered and written at
/// the commit.
pub struct BulkWriter<'w> {
    path: &'w Path,
    next_doc: &'w mut Option<u32>,
    memories: Table<'w, u32, &'static [u8]>,
    ids: Table<'w, &'static str, u32>,
    links: &'w mut PendingLinks,
    /// New memories waiting to be appended to `memories`.
    appended: &'w mut Appends,
    /// Ids of memories new to the store, not yet in `ids`.
    new_ids: &'w mut NewIds,
    index: IndexWriter<'w>,
    buffer: Vec<u8>,
    /// Bytes of rows and index entries written through this writer.
    written: usize,
    /// Bytes after which a write in steps takes its next step (`usize::MAX`: never).
    pub(super) step_bytes: usize,
}

/// A memory with the check that the store can take it made, and usually its index
/// entry and its stored form computed (on any thread: an import does all three on its
/// reader thread, leaving the writer only the writes, unless the writer is waiting for
/// work).
#[derive(Debug)]
pub struct Prepared {
    memory: Memory,
    /// `None`: left to the writer.
    entry: Option<IndexEntry>,
    /// The memory encoded as the store keeps it; `None`: left to the writer.
    encoded: Option<Vec<u8>>,
    /// Why the store cannot take the memory, if it cannot.
    refusal: Option<String>,
}

impl Prepared {
    /// Checks `memory` and computes its index entry and stored form.
    pub fn new(memory: Memory) -> Prepared {
        let refusal = refusal(&memory);
        Prepared::with(memory, refusal, true)
    }

    /// Checks `memory` and leaves its index entry and stored form to the writer: what a
    /// reader thread hands over when the writer would otherwise wait for it.
    pub fn without_entry(memory: Memory) -> Prepared {
        let refusal = refusal(&memory);
        Prepared::with(memory, refusal, false)
    }

    /// A memory already normalised and checked against the data model, which the
    /// store takes as it is. Its index entry and stored form are computed when
    /// `with_entry`, else left to the writer.
    pub fn of_checked(memory: Checked, with_entry: bool) -> Prepared {
        Prepared::with(memory.into_memory(), None, with_entry)
    }

    fn with(memory: Memory, refusal: Option<String>, with_entry: bool) -> Prepared {
        Prepared {
            entry: with_entry.then(|| IndexEntry::of(&memory)),
            encoded: with_entry.then(|| super::tables::encode(&memory)),
            memory,
            refusal,
        }
    }

    /// The index entry: the one computed ahead, or one computed now into `built`.
    fn entry<'a>(&'a self, built: &'a mut Option<IndexEntry>) -> &'a IndexEntry {
        match &self.entry {
            Some(entry) => entry,
            None => built.insert(IndexEntry::of(&self.memory)),
        }
    }

    /// The memory itself.
    pub fn memory(&self) -> &Memory {
        &self.memory
    }

    /// `Err` when the store cannot take the memory.
    fn accepted(&self) -> StoreResult<()> {
        refused(&self.memory, self.refusal.clone())
    }
}

/// Why the store could not read back a memory as it was given, if it could not: it
/// breaks a rule of the data model, or normalising would change it.
fn refusal(memory: &Memory) -> Option<String> {
    if let Some(e) = memory.validate().into_iter().next() {
        return Some(e.to_string());
    }
    if !memory.is_normalised() {
        return Some("not normalised (blank or padded title, tags, module or link kind)".into());
    }
    None
}

/// Refuses a memory the store could not read back as it was given.
fn check(memory: &Memory) -> StoreResult<()> {
    refused(memory, refusal(memory))
}

fn refused(memory: &Memory, refusal: Option<String>) -> StoreResult<()> {
    match refusal {
        None => Ok(()),
        Some(detail) => Err(StoreError::Invalid {
            id: memory.id.clone(),
            detail,
        }),
    }
}

/// The stored form of `memory`: `encoded` when given, else encoded into `buffer`.
fn stored_form<'a>(
    buffer: &'a mut Vec<u8>,
    memory: &Memory,
    encoded: Option<&'a [u8]>,
) -> &'a [u8] {
    encoded.unwrap_or_else(|| {
        buffer.clear();
        encode_into(memory, buffer);
        buffer
    })
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
        pending: &'w mut PendingIndex,
        links: &'w mut PendingLinks,
        appended: &'w mut Appends,
        new_ids: &'w mut NewIds,
    ) -> StoreResult<BulkWriter<'w>> {
        let err = |e: redb::TableError| storage_error(path, e);
        Ok(BulkWriter {
            path,
            next_doc,
            memories: txn.open_table(MEMORIES).map_err(err)?,
            ids: txn.open_table(IDS).map_err(err)?,
            links,
            appended,
            new_ids,
            index: IndexWriter::open(txn, pending).map_err(|e| storage_error(path, e))?,
            buffer: Vec::new(),
            written: 0,
            step_bytes: usize::MAX,
        })
    }

    fn err(&self, e: impl std::fmt::Display) -> StoreError {
        storage_error(self.path, e)
    }

    /// True once this writer has written enough for a write in steps to take a step
    /// ([`super::StoreWriter::checkpoint`]).
    pub fn step_is_due(&self) -> bool {
        self.written >= self.step_bytes
    }

    /// The next document number a new memory would get (every number below it has been
    /// handed out, in this transaction or before).
    pub fn next_doc(&self) -> u32 {
        self.next_doc.unwrap_or(0)
    }

    /// The document number of a memory id, as this transaction sees it.
    pub fn doc_of(&self, id: &str) -> StoreResult<Option<u32>> {
        if let Some(doc) = self.new_ids.get(id) {
            return Ok(Some(doc));
        }
        Ok(self
            .ids
            .get(id)
            .map_err(|e| self.err(e))?
            .map(|v| v.value()))
    }

    /// The memory stored under a document number, as this transaction sees it.
    pub fn get_doc(&self, doc: u32) -> StoreResult<Option<Memory>> {
        if let Some(bytes) = self.appended.get(doc) {
            return decode_doc(self.path, doc, bytes).map(Some);
        }
        let Some(bytes) = self.memories.get(doc).map_err(|e| self.err(e))? else {
            return Ok(None);
        };
        decode_doc(self.path, doc, bytes.value()).map(Some)
    }

    fn allocate_doc(&mut self) -> StoreResult<u32> {
        let next = self.next_doc.unwrap_or(0);
        let after = next
            .checked_add(1)
            .ok_or_else(|| self.err("document numbers exhausted"))?;
        *self.next_doc = Some(after);
        Ok(next)
    }

    fn set_backlinks(&mut self, memory: &Memory, present: bool) {
        for rel in &memory.relationships {
            self.links.set(&rel.target, &memory.id, present);
        }
    }

    /// Inserts the memory, or replaces the one with the same id.
    pub fn put(&mut self, memory: &Memory) -> StoreResult<PutOutcome> {
        check(memory)?;
        self.put_parts(memory, &IndexEntry::of(memory), None)
    }

    /// [`put`](Self::put) with the index entry already computed.
    pub fn put_prepared(&mut self, prepared: &Prepared) -> StoreResult<PutOutcome> {
        prepared.accepted()?;
        let mut built = None;
        let encoded = prepared.encoded.as_deref();
        self.put_parts(&prepared.memory, prepared.entry(&mut built), encoded)
    }

    /// Writes the new memories waiting to be appended (before any other change to
    /// the table, which could otherwise come before them).
    fn write_appended(&mut self) -> StoreResult<()> {
        self.appended
            .write(&mut self.memories)
            .map_err(|e| storage_error(self.path, e))
    }

    /// Stores a memory already checked (`encoded`: its stored form, when computed).
    fn put_parts(
        &mut self,
        memory: &Memory,
        entry: &IndexEntry,
        encoded: Option<&[u8]>,
    ) -> StoreResult<PutOutcome> {
        self.write_appended()?;
        let (doc, old) = match self.doc_of(&memory.id)? {
            Some(doc) => (doc, self.get_doc(doc)?),
            None => {
                let doc = self.allocate_doc()?;
                self.ids
                    .insert(memory.id.as_str(), doc)
                    .map_err(|e| storage_error(self.path, e))?;
                self.links.appeared(&memory.id);
                (doc, None)
            }
        };
        if let Some(old) = &old {
            self.set_backlinks(old, false);
        }
        self.write_parts(doc, memory, entry, encoded, old.as_ref())?;
        Ok(PutOutcome { doc, old })
    }

    /// Notes the backlinks of a memory being stored.
    fn link(&mut self, memory: &Memory) {
        if !memory.relationships.is_empty() {
            self.set_backlinks(memory, true);
        }
    }

    /// The memory's own rows: its backlinks, its encoding (`encoded`, or made here)
    /// and its index entry.
    fn write_parts(
        &mut self,
        doc: u32,
        memory: &Memory,
        entry: &IndexEntry,
        encoded: Option<&[u8]>,
        old: Option<&Memory>,
    ) -> StoreResult<()> {
        self.link(memory);
        let row = stored_form(&mut self.buffer, memory, encoded);
        self.written += row.len() + entry.size();
        self.memories
            .insert(doc, row)
            .map_err(|e| storage_error(self.path, e))?;
        self.index
            .put_entry(doc, entry, old)
            .map_err(|e| storage_error(self.path, e))
    }

    /// Inserts the memory if its id is not stored yet and returns `Ok(doc)`; when it
    /// is, changes nothing and returns `Err(doc)` of the stored one. A new memory's
    /// rows wait to be appended at the tables' ends, and its id to be written at the
    /// commit.
    pub fn insert_if_new(&mut self, prepared: &Prepared) -> StoreResult<Result<u32, u32>> {
        let memory = &prepared.memory;
        prepared.accepted()?;
        if let Some(previous) = self.doc_of(&memory.id)? {
            return Ok(Err(previous));
        }
        let doc = self.allocate_doc()?;
        self.new_ids.insert(&memory.id, doc);
        self.links.appeared(&memory.id);
        // a number never handed out before: the row goes at the end of each table
        self.link(memory);
        let row = stored_form(&mut self.buffer, memory, prepared.encoded.as_deref());
        self.appended.push(doc, row);
        self.written += row.len();
        if self.appended.is_full() {
            self.write_appended()?;
        }
        let mut built = None;
        let entry = prepared.entry(&mut built);
        self.written += entry.size();
        self.index
            .append_entry(doc, entry)
            .map_err(|e| storage_error(self.path, e))?;
        Ok(Ok(doc))
    }

    /// Removes a memory for good; returns it.
    pub fn purge(&mut self, id: &str) -> StoreResult<Memory> {
        self.write_appended()?;
        let doc = self
            .doc_of(id)?
            .ok_or_else(|| StoreError::UnknownId(id.to_string()))?;
        let old = self
            .get_doc(doc)?
            .ok_or_else(|| StoreError::UnknownId(id.to_string()))?;
        self.set_backlinks(&old, false);
        self.links.appeared(id);
        if self.new_ids.remove(id).is_none() {
            self.ids
                .remove(id)
                .map_err(|e| storage_error(self.path, e))?;
        }
        self.memories
            .remove(doc)
            .map_err(|e| storage_error(self.path, e))?;
        self.index
            .change(doc, Some(&old), None)
            .map_err(|e| self.err(e))?;
        Ok(old)
    }
}
