//! Rebuilding the index (search records, postings, facts and haystacks) from the
//! stored memories, for stores written before it existed (or of another index
//! version), and the marker that says the index of a store is complete. The pass that
//! decodes and indexes every memory on both cores also serves `Searcher::load`.

use super::facts::FACTS;
use super::haystacks::{FUZZY_TEXT, LITERAL_TEXT, OLD_HAYSTACKS};
use super::postings::POSTINGS;
use super::{IndexEntry, PendingIndex, SEARCH_DOCS};
use crate::parallel::in_parts;
use crate::schema::tables::{MEMORIES, META, decode};
use redb::{ReadTransaction, ReadableTable, StorageError, TableError, WriteTransaction};

/// `META` key of the index version; present only when postings and facts are complete.
pub const KEY_INDEX: &str = "index_version";
/// The version of the persisted postings and facts this build writes.
/// Version 9 holds the 31 scored dimensions, seals every value ([`super::sealed`]),
/// keeps the per-field columns ([`super::columns`]) and indexes hivelore's anchors,
/// domain and topic. Version 10 adds the three composites' columns, 11 relationship_count's,
/// 12 the vocabulary; 13 keeps the literal and fuzzy haystacks in tables of their own.
pub const INDEX_VERSION: u32 = 13;

/// Memories decoded at a time while rebuilding or loading (enough to share between the
/// cores).
const BATCH: usize = 16_384;

/// True when the snapshot's postings and facts are complete and of this version, so
/// queries may read them instead of loading every memory.
pub fn index_is_current(txn: &ReadTransaction) -> Result<bool, redb::Error> {
    let meta = match txn.open_table(META) {
        Ok(t) => t,
        Err(TableError::TableDoesNotExist(_)) => return Ok(false),
        Err(e) => return Err(e.into()),
    };
    let stored = meta.get(KEY_INDEX)?;
    Ok(stored.is_some_and(|v| v.value() == INDEX_VERSION.to_le_bytes()))
}

/// Marks the index of the store written by `txn` as complete.
pub(crate) fn stamp(txn: &WriteTransaction) -> Result<(), redb::Error> {
    txn.open_table(META)?
        .insert(KEY_INDEX, INDEX_VERSION.to_le_bytes().as_slice())?;
    Ok(())
}

/// Rebuilds the whole index from the stored memories, then stamps the index version.
pub fn rebuild(txn: &WriteTransaction) -> Result<(), redb::Error> {
    txn.delete_table(SEARCH_DOCS)?;
    txn.delete_table(POSTINGS)?;
    txn.delete_table(FACTS)?;
    txn.delete_table(OLD_HAYSTACKS)?;
    txn.delete_table(LITERAL_TEXT)?;
    txn.delete_table(FUZZY_TEXT)?;
    txn.delete_table(super::columns::COLUMNS)?;
    txn.delete_table(super::vocabulary::VOCABULARY)?;
    txn.open_table(super::vocabulary::VOCABULARY)?;
    txn.open_table(super::columns::COLUMNS)?;
    txn.open_table(SEARCH_DOCS)?;
    txn.open_table(POSTINGS)?;
    txn.open_table(FACTS)?;
    txn.open_table(LITERAL_TEXT)?;
    txn.open_table(FUZZY_TEXT)?;
    txn.open_table(META)?.remove(super::facts::KEY_TOTALS)?;
    let mut pending = PendingIndex::default();
    {
        let memories = txn.open_table(MEMORIES)?;
        let mut records = txn.open_table(SEARCH_DOCS)?;
        let mut sealed = super::sealed::SealedBuf::default();
        each_memory_indexed(&memories, redb::Error::from, |doc, _, entry| {
            let entry = entry.ok_or_else(|| {
                StorageError::Corrupted(format!("memory record {doc} cannot be decoded"))
            })?;
            records.insert(doc, sealed.seal(&doc, entry.record()))?;
            pending.add_new(doc, &entry);
            Ok(())
        })?;
    }
    pending.flush(txn)?;
    super::link_counts::refresh_all(txn)?;
    stamp(txn)
}

/// Calls `f` with every stored memory in document order: its number, its stored
/// bytes and its index entry (`None` when the bytes cannot be decoded). Memories are
/// decoded and indexed in batches on every core, which is most of the work.
pub(crate) fn each_memory_indexed<E>(
    memories: &impl ReadableTable<u32, &'static [u8]>,
    storage: impl Fn(StorageError) -> E,
    mut f: impl FnMut(u32, &[u8], Option<IndexEntry>) -> Result<(), E>,
) -> Result<(), E> {
    let mut stored = memories.iter().map_err(&storage)?;
    let mut batch: Vec<(u32, Vec<u8>)> = Vec::with_capacity(BATCH);
    loop {
        batch.clear();
        for entry in stored.by_ref().take(BATCH) {
            let (doc, raw) = entry.map_err(&storage)?;
            batch.push((doc.value(), raw.value().to_vec()));
        }
        if batch.is_empty() {
            return Ok(());
        }
        let entries = in_parts(batch.len(), |part| {
            batch[part]
                .iter()
                .map(|(_, raw)| decode(raw).ok().map(|m| IndexEntry::of(&m)))
                .collect()
        });
        for ((doc, raw), entry) in batch.iter().zip(entries) {
            f(*doc, raw, entry)?;
        }
    }
}
