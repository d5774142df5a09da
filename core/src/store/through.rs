//! Writing a commit through to the files a store mirrors, before it is committed.
//!
//! A store can be the index of files that are the source of truth (a hivelore
//! project's `.ai/memories`). Every commit that puts or purges memories then calls the
//! hook first, inside the transaction: the hook writes the files, and when it refuses
//! (a file changed on disk since it was read, a write failed) the commit is abandoned,
//! so the store is never ahead of the files. A crash between the files and the commit
//! leaves the files ahead, which the next open reads back.

use super::StoreWriter;

/// What a store's commits are written through to.
pub trait WriteThrough: Send + Sync {
    /// Called once per commit with the ids put or purged in it (in order, possibly
    /// repeated), each with the read count it had before that put or purge, so reads
    /// can be added to a count others keep too; `writer` shows the transaction's view (a
    /// purged id reads as `None`). An `Err` aborts the commit with that message.
    fn before_commit(&self, writer: &StoreWriter, touched: &[(String, u32)]) -> Result<(), String>;
}
