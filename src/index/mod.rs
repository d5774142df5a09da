//! What makes search fast: index tables kept in the same write transaction as the
//! memories they describe, so they are never stale.

use crate::model::Memory;
use redb::WriteTransaction;

/// Creates the index tables of a new store.
pub fn create_tables(_txn: &WriteTransaction) -> Result<(), redb::Error> {
    Ok(())
}

/// Brings the indexes up to date for one document: `old` is what was stored under
/// `doc` before (if anything), `new` what is stored now (`None` when purged).
pub fn on_change(
    _txn: &WriteTransaction,
    _doc: u32,
    _old: Option<&Memory>,
    _new: Option<&Memory>,
) -> Result<(), redb::Error> {
    Ok(())
}
