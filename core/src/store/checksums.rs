//! The one-time rewrite that gives every memory of a store of an older schema its
//! checksum: each memory stored in a form without one (a JSON line of schema 1, the
//! compact forms of schemas 2 to 4) is decoded and stored again in the current form.
//! The memories are the same, so the index and the links stay as they are.

use super::tables::{MEMORIES, decode, encode_into, is_summed};
use redb::{ReadableTable, WriteTransaction};

/// Memories read at a time before they are written back (the table cannot be written
/// while it is read).
const BATCH: usize = 8_192;

/// Rewrites every memory of `txn` that has no checksum with one. A memory that
/// cannot be decoded is left as it is, byte for byte: `memlens check` reports it, and
/// nothing of it is lost.
pub(super) fn add_checksums(txn: &WriteTransaction) -> Result<(), redb::Error> {
    let mut table = txn.open_table(MEMORIES)?;
    let mut from = 0u32;
    let mut rewritten: Vec<(u32, Vec<u8>)> = Vec::with_capacity(BATCH);
    loop {
        rewritten.clear();
        let mut last = None;
        for entry in table.range(from..)?.take(BATCH) {
            let (doc, raw) = entry?;
            last = Some(doc.value());
            let raw = raw.value();
            if is_summed(raw) {
                continue;
            }
            if let Ok(memory) = decode(raw) {
                let mut bytes = Vec::with_capacity(raw.len() + 4);
                encode_into(&memory, &mut bytes);
                rewritten.push((doc.value(), bytes));
            }
        }
        for (doc, bytes) in &rewritten {
            table.insert(*doc, bytes.as_slice())?;
        }
        match last.and_then(|d| d.checked_add(1)) {
            Some(next) => from = next,
            None => return Ok(()),
        }
    }
}
