//! Backlink changes gathered during one write transaction and written at its commit:
//! sorted by target, an import's backlinks go into their table in key order, beside
//! the search index on a second thread, instead of one insert at a random place per
//! relationship while the memories are written.

use super::tables::BACKLINKS;
use redb::WriteTransaction;

/// The backlink changes of one write transaction, not yet written.
#[derive(Debug, Default)]
pub(super) struct PendingLinks {
    /// (target, linking memory, present) in the order they happened.
    changes: Vec<(String, String, bool)>,
}

impl PendingLinks {
    /// Records that `source` now links (`present`) or no longer links to `target`.
    pub(super) fn set(&mut self, target: &str, source: &str, present: bool) {
        self.changes
            .push((target.to_string(), source.to_string(), present));
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
        // stable: the changes of one pair stay in the order they happened
        self.changes.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        let mut table = txn.open_multimap_table(BACKLINKS)?;
        let mut changes = self.changes.iter().peekable();
        while let Some((target, source, present)) = changes.next() {
            if changes
                .peek()
                .is_some_and(|(t, s, _)| t == target && s == source)
            {
                continue;
            }
            if *present {
                table.insert(target.as_str(), source.as_str())?;
            } else {
                table.remove(target.as_str(), source.as_str())?;
            }
        }
        Ok(())
    }
}
