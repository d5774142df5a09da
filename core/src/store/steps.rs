//! A write transaction taken in steps: a large import commits what it has written
//! every so often without waiting for the disk (redb's non-durable commit), so that
//! redb checksums its pages while they are still in memory instead of reading back
//! the ones it had to write out, and writes each of them once. Only the last commit is
//! durable; a savepoint taken before the first step undoes them all when the run fails,
//! and a crash before the last one leaves the store as it was.

use redb::{Database, Durability, Savepoint, WriteTransaction};
use std::sync::Arc;

/// The bytes of rows and index entries an import writes per step (16 MiB): a quarter
/// of its page cache, so that the pages of a step are all still in the cache's write
/// buffer (half of it) when the step is committed and redb checksums them.
pub const STEP_BYTES: usize = super::open::BULK_CACHE_BYTES / 4;

/// What a write in steps needs besides its transaction.
pub(super) struct Steps {
    db: Arc<Database>,
    /// The store before the first step.
    before: Savepoint,
    /// Steps committed so far.
    taken: usize,
    /// Bytes written per step.
    bytes: usize,
}

impl Steps {
    /// Steps of `bytes` for a transaction just begun on `db` (nothing opened in it yet).
    pub(super) fn begin(
        db: Arc<Database>,
        txn: &WriteTransaction,
        bytes: usize,
    ) -> Result<Steps, redb::Error> {
        let before = txn.ephemeral_savepoint()?;
        Ok(Steps {
            db,
            before,
            taken: 0,
            bytes,
        })
    }

    /// Bytes written per step.
    pub(super) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Steps committed so far.
    pub(super) fn taken(&self) -> usize {
        self.taken
    }

    /// Commits `txn` without waiting for the disk and begins the next transaction.
    pub(super) fn take(
        &mut self,
        mut txn: WriteTransaction,
    ) -> Result<WriteTransaction, redb::Error> {
        txn.set_durability(Durability::None)?;
        txn.commit()?;
        self.taken += 1;
        Ok(self.db.begin_write()?)
    }

    /// Undoes every step taken (the current transaction already dropped). Should that
    /// fail, the database is never closed, so redb does not record the steps as its
    /// state: the next open recovers the store as it was before the first step.
    pub(super) fn undo(self) -> Result<(), redb::Error> {
        if self.taken == 0 {
            return Ok(());
        }
        let undone = self.restore();
        if undone.is_err() {
            std::mem::forget(Arc::clone(&self.db));
        }
        undone
    }

    fn restore(&self) -> Result<(), redb::Error> {
        let mut txn = self.db.begin_write()?;
        txn.restore_savepoint(&self.before)?;
        txn.commit()?;
        Ok(())
    }
}
