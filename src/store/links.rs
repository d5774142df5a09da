//! Backlink changes gathered during one write transaction and written at its commit:
//! sorted by target, an import's backlinks go into their table in key order, beside
//! the search index on a second thread, instead of one insert at a random place per
//! relationship while the memories are written. When they all sort after the table's
//! last row (a first import), they are appended through one cursor at its end.

use super::tables::{BACKLINKS, OLD_BACKLINKS};
use crate::commit::last_per_key;
use redb::{ReadableMultimapTable, ReadableTable, WriteTransaction};
use std::ops::Bound;

/// The backlink changes of one write transaction, not yet written.
#[derive(Debug, Default)]
pub(super) struct PendingLinks {
    /// ((target, linking memory), present) in the order they happened.
    changes: Vec<((String, String), bool)>,
}

impl PendingLinks {
    /// Records that `source` now links (`present`) or no longer links to `target`.
    pub(super) fn set(&mut self, target: &str, source: &str, present: bool) {
        self.changes
            .push(((target.to_string(), source.to_string()), present));
    }

    /// Number of changes gathered.
    pub(super) fn len(&self) -> usize {
        self.changes.len()
    }

    /// Writes the changes into `BACKLINKS` of `txn`: for each (target, source) the one
    /// that happened last.
    pub(super) fn write(mut self, txn: &WriteTransaction) -> Result<(), redb::Error> {
        if self.changes.is_empty() {
            return Ok(());
        }
        last_per_key(&mut self.changes);
        let mut table = txn.open_table(BACKLINKS)?;
        let ((first_target, first_source), _) = &self.changes[0];
        let after_last = match table.last()? {
            None => true,
            Some((last, _)) => last.value() < (first_target.as_str(), first_source.as_str()),
        };
        if after_last {
            // nothing stored to remove: the rows present go at the end, in key order
            let mut cursor = table.upper_bound_mut(Bound::<(&str, &str)>::Unbounded)?;
            for ((target, source), present) in &self.changes {
                if *present {
                    cursor.insert_before((target.as_str(), source.as_str()), ())?;
                }
            }
            cursor.close()?;
            return Ok(());
        }
        for ((target, source), present) in &self.changes {
            let row = (target.as_str(), source.as_str());
            if *present {
                table.insert(row, ())?;
            } else {
                table.remove(row)?;
            }
        }
        Ok(())
    }
}

/// Moves the backlinks of a store of schema 3 or before from their multimap
/// ([`OLD_BACKLINKS`]) into rows of [`BACKLINKS`], and drops the multimap.
pub(super) fn move_old_backlinks(txn: &WriteTransaction) -> Result<(), redb::Error> {
    let mut rows: Vec<(String, String)> = Vec::new();
    {
        let old = txn.open_multimap_table(OLD_BACKLINKS)?;
        for entry in old.iter()? {
            let (target, sources) = entry?;
            for source in sources {
                rows.push((target.value().to_string(), source?.value().to_string()));
            }
        }
    }
    txn.delete_multimap_table(OLD_BACKLINKS)?;
    let mut table = txn.open_table(BACKLINKS)?;
    for (target, source) in &rows {
        table.insert((target.as_str(), source.as_str()), ())?;
    }
    Ok(())
}
