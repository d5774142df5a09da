//! The ids of memories new to the store, gathered during one write transaction and
//! written to `IDS` at its commit. An import checks each id against a hash map instead
//! of inserting it into the B-tree at once; at the commit the ids go in together, in key
//! order, through a cursor at the table's end when they all sort after its last id (a
//! first import, or ids that only grow), else one by one in key order.

use super::tables::IDS;
use foldhash::HashMap;
use redb::{ReadableTable, WriteTransaction};
use std::ops::Bound;

/// New ids and the document numbers they were given, not yet in `IDS`.
#[derive(Debug, Default)]
pub(super) struct NewIds {
    docs: HashMap<Box<str>, u32>,
}

impl NewIds {
    /// The document a new id was given.
    pub(super) fn get(&self, id: &str) -> Option<u32> {
        self.docs.get(id).copied()
    }

    /// Records `id` as new under `doc`; the caller has checked it is in neither this
    /// set nor the table.
    pub(super) fn insert(&mut self, id: &str, doc: u32) {
        self.docs.insert(id.into(), doc);
    }

    /// Forgets a new id (its memory was purged in the same transaction).
    pub(super) fn remove(&mut self, id: &str) -> Option<u32> {
        self.docs.remove(id)
    }

    /// Number of new ids.
    pub(super) fn len(&self) -> usize {
        self.docs.len()
    }

    /// Writes the new ids into `IDS` of `txn`.
    pub(super) fn write(self, txn: &WriteTransaction) -> Result<(), redb::Error> {
        if self.docs.is_empty() {
            return Ok(());
        }
        let mut rows: Vec<(&str, u32)> = self.docs.iter().map(|(id, &doc)| (&**id, doc)).collect();
        // in the order they came (an export lists its memories by id)
        radsort::sort_by_key(&mut rows, |row| row.1);
        if !rows.windows(2).all(|w| w[0].0 < w[1].0) {
            rows.sort_unstable_by(|a, b| a.0.cmp(b.0));
        }
        let mut table = txn.open_table(IDS)?;
        let after_last = match table.last()? {
            None => true,
            Some((last, _)) => last.value() < rows[0].0,
        };
        if after_last {
            let mut cursor = table.upper_bound_mut(Bound::<&str>::Unbounded)?;
            for (id, doc) in rows {
                cursor.insert_before(id, doc)?;
            }
            cursor.close()?;
        } else {
            for (id, doc) in rows {
                table.insert(id, doc)?;
            }
        }
        Ok(())
    }
}
