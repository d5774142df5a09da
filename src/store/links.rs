//! Backlink changes gathered during one write transaction and written at its commit:
//! sorted by target, an import's backlinks go into their table in key order, beside
//! the search index on a second thread, instead of one insert at a random place per
//! relationship while the memories are written.

use super::tables::BACKLINKS;
use crate::commit::last_per_key;
use redb::WriteTransaction;

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
        let mut table = txn.open_multimap_table(BACKLINKS)?;
        for ((target, source), present) in &self.changes {
            if *present {
                table.insert(target.as_str(), source.as_str())?;
            } else {
                table.remove(target.as_str(), source.as_str())?;
            }
        }
        Ok(())
    }
}
