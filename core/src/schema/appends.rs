//! Rows added at the end of a table, in key order. An import gives its new memories
//! ever larger document numbers, so instead of one B-tree descent per row they wait
//! here and go in through a redb cursor at the table's end, which packs them into full
//! leaves with one update of the parent pages per megabyte.

use crate::schema::sealed::{self, Sealed, SealedBytes};
use redb::Table;
use std::ops::Bound;

/// A value type whose rows [`Appends`] can hold: made from the bytes pushed.
pub(crate) trait RowValue: redb::Value + 'static {
    /// The value stored as `bytes`.
    fn row(bytes: &[u8]) -> Self::SelfType<'_>;
}

impl RowValue for &'static [u8] {
    fn row(bytes: &[u8]) -> &[u8] {
        bytes
    }
}

impl RowValue for Sealed {
    fn row(bytes: &[u8]) -> SealedBytes<'_> {
        // pushed by `push_sealed`
        SealedBytes::from_sealed(bytes)
    }
}

/// The rows gathered before [`Appends::is_full`] asks for them to be written.
const WRITE_AT_BYTES: usize = 4 << 20;

/// Rows waiting to be appended to a table keyed by document number, in ascending
/// order of document.
#[derive(Debug, Default)]
pub(crate) struct Appends {
    keys: Vec<u32>,
    /// Where each row's value ends in `bytes`.
    ends: Vec<usize>,
    bytes: Vec<u8>,
}

impl Appends {
    /// Adds a row; `key` must be greater than every key added before it and every key
    /// of the table it goes to (else [`write`](Self::write) fails).
    pub(crate) fn push(&mut self, key: u32, value: &[u8]) {
        self.keys.push(key);
        self.bytes.extend_from_slice(value);
        self.ends.push(self.bytes.len());
    }

    /// Adds a row of an index table: `payload` sealed under `key` (see
    /// [`crate::schema::sealed`]); otherwise as [`push`](Self::push).
    pub(crate) fn push_sealed(&mut self, key: u32, payload: &[u8]) {
        self.keys.push(key);
        sealed::seal_into(&key, payload, &mut self.bytes);
        self.ends.push(self.bytes.len());
    }

    /// True when no row is waiting.
    pub(crate) fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// True when enough rows wait that they should be written now.
    pub(crate) fn is_full(&self) -> bool {
        self.bytes.len() >= WRITE_AT_BYTES
    }

    /// The value of a waiting row.
    pub(crate) fn get(&self, key: u32) -> Option<&[u8]> {
        let i = self.keys.binary_search(&key).ok()?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        Some(&self.bytes[start..self.ends[i]])
    }

    /// Appends every waiting row to `table` and forgets them. Fails with
    /// `UnorderedKey` when a row's key is not above the table's last key.
    pub(crate) fn write<V: RowValue>(
        &mut self,
        table: &mut Table<'_, u32, V>,
    ) -> Result<(), redb::Error> {
        if self.is_empty() {
            return Ok(());
        }
        let mut cursor = table.upper_bound_mut(Bound::<u32>::Unbounded)?;
        let mut start = 0;
        for (&key, &end) in self.keys.iter().zip(&self.ends) {
            cursor.insert_before(key, V::row(&self.bytes[start..end]))?;
            start = end;
        }
        cursor.close()?;
        self.keys.clear();
        self.ends.clear();
        self.bytes.clear();
        Ok(())
    }

    /// [`write`](Self::write) into `definition`'s table of `txn`, opened for it.
    pub(crate) fn write_into<V: RowValue>(
        &mut self,
        txn: &redb::WriteTransaction,
        definition: redb::TableDefinition<u32, V>,
    ) -> Result<(), redb::Error> {
        if self.is_empty() {
            return Ok(());
        }
        let mut table = txn.open_table(definition)?;
        self.write(&mut table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use redb::{ReadableDatabase, ReadableTable, TableDefinition};

    const T: TableDefinition<u32, &[u8]> = TableDefinition::new("t");

    #[test]
    fn appended_rows_read_back_and_out_of_order_ones_are_refused() {
        let file = tempfile::NamedTempFile::new().unwrap();
        let db = redb::Database::create(file.path()).unwrap();
        let txn = db.begin_write().unwrap();
        let mut appends = Appends::default();
        txn.open_table(T)
            .unwrap()
            .insert(3, b"three".as_slice())
            .unwrap();
        for key in 10..2_000u32 {
            appends.push(key, key.to_string().as_bytes());
        }
        assert_eq!(appends.get(1_234), Some(b"1234".as_slice()));
        assert_eq!(appends.get(5), None);
        appends.write_into(&txn, T).unwrap();
        assert!(appends.is_empty());
        appends.push(7, b"seven");
        assert!(appends.write_into(&txn, T).is_err());
        txn.commit().unwrap();
        let read = db.begin_read().unwrap();
        let table = read.open_table(T).unwrap();
        let rows: Vec<(u32, Vec<u8>)> = table
            .iter()
            .unwrap()
            .map(|r| {
                let (k, v) = r.unwrap();
                (k.value(), v.value().to_vec())
            })
            .collect();
        let mut expected = vec![(3, b"three".to_vec())];
        expected.extend((10..2_000u32).map(|k| (k, k.to_string().into_bytes())));
        assert_eq!(rows, expected);
    }
}
