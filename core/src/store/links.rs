//! Backlink changes gathered during one write transaction and written at its commit:
//! sorted by target, an import's backlinks go into their table in key order, beside
//! the search index on a second thread, instead of one insert at a random place per
//! relationship while the memories are written. When they all sort after the table's
//! last row (a first import), they are appended through one cursor at its end.

use super::tables::{BACKLINKS, OLD_BACKLINKS, UNSEALED_BACKLINKS};
use crate::commit::last_per_key;
use crate::index::link_counts::LinkCountChanges;
use crate::schema::sealed::{IndexDamage, Sealed, SealedBuf, SealedBytes};
use redb::{ReadableMultimapTable, ReadableTable, WriteTransaction};
use std::ops::Bound;

/// The backlink changes of one write transaction, not yet written.
#[derive(Debug, Default)]
pub(super) struct PendingLinks {
    /// ((target, linking memory), present) in the order they happened.
    changes: Vec<((String, String), bool)>,
    /// The memories whose relationship_count these changes may change.
    counts: LinkCountChanges,
}

impl PendingLinks {
    /// Records that `source` now links (`present`) or no longer links to `target`.
    pub(super) fn set(&mut self, target: &str, source: &str, present: bool) {
        self.counts.link(target, source);
        self.changes
            .push(((target.to_string(), source.to_string()), present));
    }

    /// Notes that `id` was added to the store or purged from it: the memories linked
    /// with it are recounted.
    pub(super) fn appeared(&mut self, id: &str) {
        self.counts.appeared(id);
    }

    /// The memories to recount at the commit, taken out.
    pub(super) fn take_counts(&mut self) -> LinkCountChanges {
        std::mem::take(&mut self.counts)
    }

    /// Number of changes gathered.
    pub(super) fn len(&self) -> usize {
        self.changes.len()
    }

    /// Writes the changes into `BACKLINKS` of `txn`: for each (target, source) the one
    /// that happened last, and each changed target's count row.
    pub(super) fn write(mut self, txn: &WriteTransaction) -> Result<(), redb::Error> {
        if self.changes.is_empty() {
            return Ok(());
        }
        last_per_key(&mut self.changes);
        let mut table = txn.open_table(BACKLINKS)?;
        let ((first_target, _), _) = &self.changes[0];
        let after_last = match table.last()? {
            None => true,
            Some((last, _)) => last.value().0 < first_target.as_str(),
        };
        if after_last {
            // nothing stored to remove or count: the rows present go at the end, in key
            // order, each target's count row first
            let present: Vec<&(String, String)> = self
                .changes
                .iter()
                .filter(|(_, present)| *present)
                .map(|(row, _)| row)
                .collect();
            let mut cursor = table.upper_bound_mut(Bound::<(&str, &str)>::Unbounded)?;
            for group in present.chunk_by(|a, b| a.0 == b.0) {
                let target = group[0].0.as_str();
                let count = count_row(target, group.len() as u64);
                cursor.insert_before((target, COUNT_SOURCE), count.value())?;
                for (target, source) in group {
                    let row = (target.as_str(), source.as_str());
                    cursor.insert_before(row, SealedBuf::new(&row, b"").value())?;
                }
            }
            cursor.close()?;
            return Ok(());
        }
        let mut counted: Vec<(&str, i64)> = Vec::new();
        for ((target, source), present) in &self.changes {
            let row = (target.as_str(), source.as_str());
            let changed = if *present {
                table
                    .insert(row, SealedBuf::new(&row, b"").value())?
                    .is_none()
            } else {
                table.remove(row)?.is_some()
            };
            if changed {
                let by = if *present { 1 } else { -1 };
                match counted.last_mut() {
                    Some((t, n)) if *t == target.as_str() => *n += by,
                    _ => counted.push((target.as_str(), by)),
                }
            }
        }
        for (target, by) in counted {
            let now = stored_count(&table, target)?;
            let next = now.checked_add_signed(by).ok_or_else(|| {
                redb::StorageError::Corrupted(format!("the backlink count of `{target}` is wrong"))
            })?;
            if next == 0 {
                table.remove((target, COUNT_SOURCE))?;
            } else {
                table.insert((target, COUNT_SOURCE), count_row(target, next).value())?;
            }
        }
        Ok(())
    }
}

/// The source of a target's count row, `(target, "")`: no id is empty, and it sorts
/// before the target's rows. Its value is the number of rows that follow it, so that a
/// row lost to damage (its key changed, so a lookup no longer finds it) is a count that
/// does not match instead of a smaller `relationship_count`.
pub(crate) const COUNT_SOURCE: &str = "";

/// The count row of `target`, sealed.
fn count_row(target: &str, count: u64) -> SealedBuf {
    SealedBuf::new(&(target, COUNT_SOURCE), &count.to_le_bytes())
}

/// The number of rows of `target` its count row holds (0 when it has none).
fn stored_count(
    table: &impl ReadableTable<(&'static str, &'static str), Sealed>,
    target: &str,
) -> Result<u64, redb::Error> {
    match table.get((target, COUNT_SOURCE))? {
        None => Ok(0),
        Some(v) => read_count(target, v.value()),
    }
}

/// Checks the seal of the backlink row `(target, source)`, a count row or not.
pub(crate) fn check_row(
    target: &str,
    source: &str,
    value: SealedBytes<'_>,
) -> Result<(), redb::Error> {
    if source == COUNT_SOURCE {
        read_count(target, value).map(|_| ())
    } else {
        value
            .open(&(target, source))
            .map(|_| ())
            .map_err(Into::into)
    }
}

/// The count a count row of `target` holds, or the error saying it is damaged.
pub(crate) fn read_count(target: &str, value: SealedBytes<'_>) -> Result<u64, redb::Error> {
    let bytes = value.open(&(target, COUNT_SOURCE))?;
    let bytes: [u8; 8] = bytes.try_into().map_err(|_| IndexDamage)?;
    Ok(u64::from_le_bytes(bytes))
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
    insert_rows(txn, &rows)
}

/// Seals the backlink rows of a store of schema 4 or 5, which have no checksum
/// ([`UNSEALED_BACKLINKS`]): the table is read, dropped and written anew.
pub(super) fn seal_backlinks(txn: &WriteTransaction) -> Result<(), redb::Error> {
    let mut rows: Vec<(String, String)> = Vec::new();
    {
        let old = txn.open_table(UNSEALED_BACKLINKS)?;
        for entry in old.iter()? {
            let (key, _) = entry?;
            let (target, source) = key.value();
            rows.push((target.to_string(), source.to_string()));
        }
    }
    txn.delete_table(UNSEALED_BACKLINKS)?;
    insert_rows(txn, &rows)
}

fn insert_rows(txn: &WriteTransaction, rows: &[(String, String)]) -> Result<(), redb::Error> {
    let mut links = PendingLinks::default();
    for (target, source) in rows {
        links.set(target, source, true);
    }
    links.write(txn)
}
