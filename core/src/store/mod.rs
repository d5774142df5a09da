//! The redb file: opening it safely, reading snapshots, and durable write transactions
//! that keep memories, links and search indexes in step.

mod bulk;
mod changes;
pub mod check;
mod check_tables;
mod checksums;
mod error;
mod guard;
mod links;
mod new_ids;
mod open;
mod read;
pub mod repair;
pub mod shared;
mod steps;
pub mod tables;
mod through;
mod write;
mod writeback;

pub use bulk::{BulkWriter, Prepared, PutOutcome};
pub use changes::Since;
pub use error::{StoreError, StoreResult};
pub use guard::{guarded, guarded_store};
pub use open::{LongStep, Sharing};
pub use read::StoreReader;
pub use steps::STEP_BYTES;
pub use through::WriteThrough;
pub use write::StoreWriter;

use redb::ReadableDatabase;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An open memlens store: one redb file, which other memlens processes may hold open
/// at the same time (see [`Sharing`]).
pub struct Store {
    db: Arc<redb::Database>,
    path: PathBuf,
    sharing: open::Sharing,
    /// The files every commit is written through to first, when the store is the
    /// index of a source such as a hivelore project.
    write_through: Option<Arc<dyn WriteThrough>>,
}

impl Store {
    /// Opens the store at `path`, creating it (and its directory) when missing.
    pub fn open(path: &Path) -> StoreResult<Store> {
        Store::open_announcing(path, &|_| {})
    }

    /// [`Store::open`], running `before_long` first when the open is about to take a
    /// [`LongStep`] over every memory (once after an upgrade; tens of seconds for a
    /// million memories), so a caller can say so.
    pub fn open_announcing(path: &Path, before_long: &dyn Fn(LongStep)) -> StoreResult<Store> {
        Store::open_with_cache(path, open::BROWSE_CACHE_BYTES, before_long)
    }

    /// [`Store::open_announcing`] for a bulk import: a larger page cache, as the import
    /// rewrites many pages of one transaction, and the file held by this process alone
    /// when no other process has it open, so that the import can be written
    /// [in steps](Store::write_in_steps); beside other processes (an open browser, an
    /// agent's server) the store is shared and the import is one transaction.
    pub fn open_for_import(path: &Path, before_long: &dyn Fn(LongStep)) -> StoreResult<Store> {
        let cache = open::BULK_CACHE_BYTES;
        match Store::open_with(path, cache, open::Sharing::Exclusive, before_long) {
            Err(StoreError::Locked { .. }) => shared::store_when_free(|| {
                Store::open_with(path, cache, open::Sharing::Shared, before_long)
            }),
            other => other,
        }
    }

    fn open_with_cache(
        path: &Path,
        cache_bytes: usize,
        before_long: &dyn Fn(LongStep),
    ) -> StoreResult<Store> {
        Store::open_with(path, cache_bytes, open::Sharing::Shared, before_long)
    }

    fn open_with(
        path: &Path,
        cache_bytes: usize,
        sharing: open::Sharing,
        before_long: &dyn Fn(LongStep),
    ) -> StoreResult<Store> {
        let db = open::open_database(path, cache_bytes, sharing, before_long)?;
        Ok(Store {
            db: Arc::new(db),
            path: path.to_path_buf(),
            sharing,
            write_through: None,
        })
    }

    /// This store, with every later commit of a change to memories written through
    /// `hook` first (a refusal aborts the commit).
    pub fn with_write_through(mut self, hook: Arc<dyn WriteThrough>) -> Store {
        self.write_through = Some(hook);
        self
    }

    /// A write transaction that is not written through (bringing the store up to date
    /// from the very files it would be written to).
    pub fn write_unmirrored(&self) -> StoreResult<StoreWriter> {
        let txn = self.db.begin_write().map_err(|e| self.storage(e))?;
        Ok(StoreWriter::new(txn, self.path.clone(), None))
    }

    /// A read-only snapshot of the store at `path`, opened without write access (for
    /// commands that only read); `None` when the store has to be opened with
    /// [`Store::open`] first (missing, empty, needing crash recovery, an index rebuild or a
    /// schema upgrade).
    pub fn snapshot(path: &Path) -> StoreResult<Option<StoreReader>> {
        open::read_only_snapshot(path)
    }

    /// The file this store lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A consistent read-only snapshot of the store.
    pub fn read(&self) -> StoreResult<StoreReader> {
        let txn = self.db.begin_read().map_err(|e| self.storage(e))?;
        Ok(StoreReader::owning(
            txn,
            self.path.clone(),
            read::Owned::Writable(Arc::clone(&self.db)),
        ))
    }

    /// A snapshot that keeps the store open for as long as it is read (for a command
    /// that reads once and has no other use for the store).
    pub fn into_reader(self) -> StoreResult<StoreReader> {
        let txn = self.db.begin_read().map_err(|e| self.storage(e))?;
        Ok(StoreReader::owning(
            txn,
            self.path,
            read::Owned::Writable(self.db),
        ))
    }

    /// Starts the one write transaction; nothing is visible until `commit`.
    pub fn write(&self) -> StoreResult<StoreWriter> {
        let txn = self.db.begin_write().map_err(|e| self.storage(e))?;
        let mut writer = StoreWriter::new(txn, self.path.clone(), None);
        writer.write_through = self.write_through.clone();
        Ok(writer)
    }

    /// Starts a write taken in steps of about `step_bytes` (a large import; see
    /// [`STEP_BYTES`]): a [`checkpoint`](StoreWriter::checkpoint) once a bulk writer has
    /// written that much commits it without waiting for the disk, `commit` makes it all
    /// durable, and [`abandon`](StoreWriter::abandon) (or a failed `commit`, or dropping
    /// the writer) undoes every step. No other process sees a step: only a store this
    /// process holds alone ([`Store::open_for_import`]) takes steps; a shared one writes
    /// one transaction. Should undoing them fail, the database is never closed, so its
    /// next open recovers the store as it was before the first step.
    pub fn write_in_steps(&self, step_bytes: usize) -> StoreResult<StoreWriter> {
        let txn = self.db.begin_write().map_err(|e| self.storage(e))?;
        if self.sharing == open::Sharing::Shared {
            return Ok(StoreWriter::new(txn, self.path.clone(), None));
        }
        let steps = steps::Steps::begin(Arc::clone(&self.db), &txn, step_bytes)
            .map_err(|e| self.storage(e))?;
        Ok(StoreWriter::new(txn, self.path.clone(), Some(steps)))
    }

    fn storage(&self, e: impl std::fmt::Display) -> StoreError {
        open::storage_error(&self.path, e)
    }
}
