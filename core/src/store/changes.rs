//! The change number and the change log. Every commit advances a number in the
//! metadata table and notes which memories it wrote under that number, so a process
//! that keeps a copy of what it read — the browser's search index, an agent's server —
//! learns with one small read that some process wrote since, and which memories to read
//! again instead of loading everything.

use super::shared::{CHANGE_KEY, change_number};
use super::tables::META;
use redb::{ReadableTable, TableDefinition, WriteTransaction};

/// Change number → what that commit wrote: [`EVERYTHING`], or [`IDS`] followed by the
/// ids of the memories it wrote, separated by newlines (an id holds no control
/// character).
pub const CHANGES: TableDefinition<u64, &[u8]> = TableDefinition::new("changes");

/// The first byte of a change that names its memories.
const IDS: u8 = 0;
/// The first byte of a change that wrote too many memories to name (an import, a
/// repair, an index rebuild): a reader loads everything again.
const EVERYTHING: u8 = 1;

/// Changes kept in the log; a reader further behind loads everything again.
pub const KEPT: u64 = 1024;
/// The most ids one change names; a larger one is logged as [`EVERYTHING`].
pub const MOST_IDS: usize = 4096;

/// What was written between two change numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Since {
    /// Nothing: the numbers are the same.
    Nothing,
    /// Only these memories (by id, each once, in the order first written).
    Ids(Vec<String>),
    /// More than the log can say: read everything again.
    Everything,
}

/// Advances the change number in `txn` and logs what it wrote: `ids`, or everything
/// when `None` (or when they are too many). Returns the new number. Entries older than
/// the last [`KEPT`] are dropped.
pub(super) fn record(txn: &WriteTransaction, ids: Option<&[String]>) -> Result<u64, redb::Error> {
    let mut meta = txn.open_table(META)?;
    let number = change_number(meta.get(CHANGE_KEY)?.as_ref().map(|v| v.value())) + 1;
    meta.insert(CHANGE_KEY, number.to_le_bytes().as_slice())?;
    let mut log = txn.open_table(CHANGES)?;
    let value = match ids.filter(|ids| ids.len() <= MOST_IDS) {
        Some(ids) => {
            let mut value = vec![IDS];
            for (i, id) in ids.iter().enumerate() {
                if i > 0 {
                    value.push(b'\n');
                }
                value.extend_from_slice(id.as_bytes());
            }
            value
        }
        None => vec![EVERYTHING],
    };
    log.insert(number, value.as_slice())?;
    if number > KEPT {
        log.retain_in(..=number - KEPT, |_, _| false)?;
    }
    Ok(number)
}

/// What the log of a snapshot whose number is `now` says was written after change
/// `since`.
pub(super) fn since(
    log: Option<&impl ReadableTable<u64, &'static [u8]>>,
    since: u64,
    now: u64,
) -> Result<Since, redb::StorageError> {
    if since == now {
        return Ok(Since::Nothing);
    }
    let Some(log) = log.filter(|_| since < now) else {
        return Ok(Since::Everything);
    };
    let mut ids: Vec<String> = Vec::new();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut expected = since + 1;
    for entry in log.range(since + 1..=now)? {
        let (number, value) = entry?;
        let value = value.value();
        if number.value() != expected || value.first() != Some(&IDS) {
            return Ok(Since::Everything);
        }
        expected += 1;
        let Ok(text) = std::str::from_utf8(&value[1..]) else {
            return Ok(Since::Everything);
        };
        for id in text.split('\n').filter(|id| !id.is_empty()) {
            if !seen.contains(id) {
                seen.insert(id.to_string());
                ids.push(id.to_string());
            }
        }
    }
    if expected != now + 1 {
        return Ok(Since::Everything);
    }
    Ok(Since::Ids(ids))
}
