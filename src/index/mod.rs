//! What makes search fast: index tables kept in the same write transaction as the
//! memories they describe, so they are never stale, even after a crash.
//!
//! Each memory has a [`SearchRecord`] under its document number in `SEARCH_DOCS`: its
//! tokens with frequencies, its literal and fuzzy haystacks and the fields filters and
//! browse modes read. A put writes one record and a purge removes it, so a write costs
//! one extra insert; the searcher builds postings and numeric columns from the records.

pub mod record;
pub mod tokenize;

pub use record::{RecordView, SearchRecord};

use crate::model::Memory;
use redb::{TableDefinition, WriteTransaction};

/// Document number → encoded [`SearchRecord`].
pub const SEARCH_DOCS: TableDefinition<u32, &[u8]> = TableDefinition::new("search_docs");

/// Creates the index tables of a new store.
pub fn create_tables(txn: &WriteTransaction) -> Result<(), redb::Error> {
    txn.open_table(SEARCH_DOCS)?;
    Ok(())
}

/// Brings the indexes up to date for one document: `old` is what was stored under
/// `doc` before (if anything), `new` what is stored now (`None` when purged).
pub fn on_change(
    txn: &WriteTransaction,
    doc: u32,
    _old: Option<&Memory>,
    new: Option<&Memory>,
) -> Result<(), redb::Error> {
    let mut table = txn.open_table(SEARCH_DOCS)?;
    match new {
        Some(m) => {
            table.insert(doc, SearchRecord::of(m).encode().as_slice())?;
        }
        None => {
            table.remove(doc)?;
        }
    }
    Ok(())
}
