//! `memlens check --repair`: a new store built from every memory that can be read, in
//! one transaction, put in place of the old file, which is kept beside it.
//!
//! Everything memlens derives from the memories (ids, backlinks, the search indexes
//! and their totals) is written afresh by the one write transaction that stores them,
//! as an import writes it. A memory whose bytes fail their checksum or do not decode,
//! and the second of two memories with one id, is not stored as a memory: its bytes
//! go, as they were, into the new store's [`DAMAGED`] table (where the memories an
//! earlier repair set aside are carried over too), and the report names each one.
//! The old file is renamed, not removed, so a repair never loses a byte.

use super::Store;
use super::check::Scratch;
use super::error::{StoreError, StoreResult};
use super::guard::guarded_store;
use super::open::{self, storage_error};
use super::tables::{DAMAGED, MEMORIES, META, RESERVED_META_KEYS, damage_detail, decode};
use redb::{Database, ReadableDatabase, ReadableTable, TableError};
use serde::Serialize;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// A memory a repair could not keep as a memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SetAside {
    /// Its number in the old store.
    pub record: u32,
    /// Why: a bad checksum, undecodable bytes, a second memory with an id.
    pub reason: String,
    /// Its key in the new store's `damaged` table, where its bytes are.
    pub damaged_key: u64,
}

/// What a repair did.
#[derive(Debug, Clone, Serialize)]
pub struct RepairOutcome {
    /// Memories stored in the repaired store.
    pub saved: usize,
    /// Memories set aside, with their bytes in the `damaged` table.
    pub set_aside: Vec<SetAside>,
    /// Where the store as it was before the repair is kept.
    pub old_store: PathBuf,
}

/// Repairs the store at `path`: reads it through a scratch copy at `scratch`, writes
/// the new store at `fresh`, then renames the store to `old` and `fresh` to `path`.
pub fn repair(path: &Path, scratch: &Path, fresh: &Path, old: &Path) -> StoreResult<RepairOutcome> {
    // held read-only so that no other memlens writes the store until it is replaced
    let hold = super::check::hold(path)?;
    let salvage = {
        let _copy = Scratch::copy_held(path, scratch)?;
        guarded_store(scratch, || read_everything(scratch))
            .map_err(|e| unreadable(path, scratch, &e))?
    };
    let _ = std::fs::remove_file(fresh);
    let outcome = guarded_store(fresh, || write_fresh(fresh, &salvage));
    let (saved, set_aside) = match outcome {
        Ok(done) => done,
        Err(e) => {
            let _ = std::fs::remove_file(fresh);
            return Err(e);
        }
    };
    let io = |p: &Path, source| StoreError::Io {
        path: p.to_path_buf(),
        source,
    };
    std::fs::rename(path, old).map_err(|e| io(old, e))?;
    if let Err(e) = std::fs::rename(fresh, path) {
        // put the old store back rather than leave none
        let _ = std::fs::rename(old, path);
        return Err(io(path, e));
    }
    drop(hold);
    Ok(RepairOutcome {
        saved,
        set_aside,
        old_store: old.to_path_buf(),
    })
}

/// What a repair reads of the old store.
pub(super) struct Salvage {
    /// (record, stored bytes) of every memory row, in record order.
    pub(super) rows: Vec<(u32, Vec<u8>)>,
    /// Metadata keys that are not the store format's own (a demo marker).
    meta: Vec<(String, Vec<u8>)>,
    /// Rows an earlier repair set aside.
    damaged: Vec<(u64, Vec<u8>)>,
}

/// The error of a repair that could not read the memories of the copy at `scratch`,
/// told of the store at `path` (the copy is gone by the time it is read).
fn unreadable(path: &Path, scratch: &Path, e: &StoreError) -> StoreError {
    let why = match e {
        StoreError::Corrupt { detail, .. } | StoreError::Storage { detail, .. } => detail.clone(),
        other => other
            .to_string()
            .replace(&scratch.display().to_string(), &path.display().to_string()),
    };
    StoreError::Unreadable {
        path: path.to_path_buf(),
        detail: why,
    }
}

/// Reads every memory row, the other metadata and the set-aside rows of the (recovered)
/// scratch copy, without trusting any index.
///
/// A file redb will not open for writing (one cut short past its free pages, say) is
/// read through a read-only open, which reads what its pages still hold.
pub(super) fn read_everything(scratch: &Path) -> StoreResult<Salvage> {
    match Database::builder()
        .set_cache_size(open::BROWSE_CACHE_BYTES)
        .open(scratch)
    {
        Ok(db) => read_rows(&db, scratch),
        Err(refused) => match open::open_read_only(scratch, open::BROWSE_CACHE_BYTES) {
            Ok(Some(db)) => read_rows(&db, scratch),
            _ => Err(storage_error(scratch, refused)),
        },
    }
}

/// [`read_everything`] of an open database.
fn read_rows(db: &impl ReadableDatabase, scratch: &Path) -> StoreResult<Salvage> {
    let err = |e: redb::Error| storage_error(scratch, e);
    let txn = db.begin_read().map_err(|e| err(e.into()))?;
    let mut salvage = Salvage {
        rows: Vec::new(),
        meta: Vec::new(),
        damaged: Vec::new(),
    };
    let memories = txn.open_table(MEMORIES).map_err(|e| err(e.into()))?;
    for row in memories.iter().map_err(|e| err(e.into()))? {
        let (doc, raw) = row.map_err(|e| err(e.into()))?;
        salvage.rows.push((doc.value(), raw.value().to_vec()));
    }
    let meta = txn.open_table(META).map_err(|e| err(e.into()))?;
    for row in meta.iter().map_err(|e| err(e.into()))? {
        let (key, value) = row.map_err(|e| err(e.into()))?;
        if !RESERVED_META_KEYS.contains(&key.value()) {
            salvage
                .meta
                .push((key.value().to_string(), value.value().to_vec()));
        }
    }
    match txn.open_table(DAMAGED) {
        Ok(table) => {
            for row in table.iter().map_err(|e| err(e.into()))? {
                let (key, raw) = row.map_err(|e| err(e.into()))?;
                salvage.damaged.push((key.value(), raw.value().to_vec()));
            }
        }
        Err(TableError::TableDoesNotExist(_)) => {}
        Err(e) => return Err(err(e.into())),
    }
    Ok(salvage)
}

/// Writes the new store at `fresh` in one transaction: the memories that read back,
/// the metadata, and every other row into `DAMAGED`.
fn write_fresh(fresh: &Path, salvage: &Salvage) -> StoreResult<(usize, Vec<SetAside>)> {
    let store = Store::open(fresh)?;
    let mut w = store.write()?;
    let mut ids = HashSet::new();
    let mut set_aside = Vec::new();
    let mut next_key = salvage
        .damaged
        .iter()
        .map(|(k, _)| k + 1)
        .max()
        .unwrap_or(0);
    let mut aside: Vec<(u64, &[u8])> = salvage
        .damaged
        .iter()
        .map(|(k, raw)| (*k, raw.as_slice()))
        .collect();
    let mut saved = 0;
    {
        let mut bulk = w.bulk()?;
        for (doc, raw) in &salvage.rows {
            let reason = match decode(raw) {
                Ok(memory) if ids.insert(memory.id.clone()) => {
                    bulk.put(&memory)?;
                    saved += 1;
                    continue;
                }
                Ok(memory) => format!(
                    "memory record {doc}: a second memory with the id `{}`",
                    memory.id
                ),
                Err(damage) => damage_detail(*doc, raw, damage),
            };
            set_aside.push(SetAside {
                record: *doc,
                reason,
                damaged_key: next_key,
            });
            aside.push((next_key, raw));
            next_key += 1;
        }
    }
    for (key, value) in &salvage.meta {
        w.set_meta(key, value)?;
    }
    {
        let mut table = w
            .txn()?
            .open_table(DAMAGED)
            .map_err(|e| storage_error(fresh, e))?;
        for (key, raw) in aside {
            table
                .insert(key, raw)
                .map_err(|e| storage_error(fresh, e))?;
        }
    }
    w.commit()?;
    Ok((saved, set_aside))
}
