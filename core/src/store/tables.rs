//! The store's tables: the layout of [`crate::schema::tables`], and the store's error
//! for a memory record that cannot be decoded.

pub use crate::schema::tables::*;

use crate::model::Memory;

/// Decodes the memory stored under `doc`, or the error saying the file is damaged,
/// naming the memory.
pub fn decode_doc(path: &std::path::Path, doc: u32, bytes: &[u8]) -> super::StoreResult<Memory> {
    decode(bytes).map_err(|damage| super::StoreError::damaged_memory(path, doc, bytes, damage))
}

/// `META` keys that belong to the store format and cannot be set from outside.
pub const RESERVED_META_KEYS: [&str; 6] = [
    KEY_FORMAT,
    super::shared::CHANGE_KEY,
    KEY_SCHEMA,
    KEY_NEXT_DOC,
    crate::index::KEY_INDEX,
    crate::index::facts::KEY_TOTALS,
];
