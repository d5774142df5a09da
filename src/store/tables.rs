//! The redb tables of a memlens store and how a memory is encoded in them.
//!
//! Memories live under a dense `u32` document number so that search indexes (postings,
//! numeric columns) can refer to them compactly; `IDS` maps the user's id to it.

use crate::model::{Memory, Timestamp};
use redb::{MultimapTableDefinition, TableDefinition};

/// Key/value metadata: the format marker, schema version, next document number.
pub const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");
/// Document number → encoded memory.
pub const MEMORIES: TableDefinition<u32, &[u8]> = TableDefinition::new("memories");
/// Memory id → document number.
pub const IDS: TableDefinition<&str, u32> = TableDefinition::new("ids");
/// (Target id, id of a memory whose `relationships` names it) → nothing: the reverse
/// edges, one row each, sorted by target. A plain table, so that an import appends its
/// backlinks through one cursor, in key order, as it does its ids.
pub const BACKLINKS: TableDefinition<(&str, &str), ()> = TableDefinition::new("backlink_rows");
/// Target id → id of each memory naming it: where stores of schema 3 and before keep
/// their reverse edges. Moved into [`BACKLINKS`] by the first writable open.
pub const OLD_BACKLINKS: MultimapTableDefinition<&str, &str> =
    MultimapTableDefinition::new("backlinks");

/// Marker stored under `format` in `META`.
pub const FORMAT_MARKER: &[u8] = b"memlens";
/// Schema version this build writes and reads. Version 4 keeps backlinks as rows of
/// [`BACKLINKS`]; version 3 wrote scores in two bytes where it can (compact memories of
/// tag 2); version 2 stored memories in their first compact form, and version 1 as
/// JSON lines, both still read. The first writable open of a store of an older version
/// moves its backlinks into their rows and stamps it 4, so an older memlens refuses it
/// from then on; each memory is rewritten in the current form when it is next written.
pub const SCHEMA_VERSION: u32 = 4;
/// The first schema version whose backlinks are rows of [`BACKLINKS`].
pub const BACKLINK_ROWS_SCHEMA: u32 = 4;
/// `META` key of the format marker.
pub const KEY_FORMAT: &str = "format";
/// `META` key of the schema version.
pub const KEY_SCHEMA: &str = "schema_version";
/// `META` key of the next free document number.
pub const KEY_NEXT_DOC: &str = "next_doc";
/// `META` keys that belong to the store format and cannot be set from outside.
pub const RESERVED_META_KEYS: [&str; 5] = [
    KEY_FORMAT,
    KEY_SCHEMA,
    KEY_NEXT_DOC,
    crate::index::KEY_INDEX,
    crate::index::facts::KEY_TOTALS,
];

/// Encodes a memory for the `MEMORIES` table (its compact form).
pub fn encode(memory: &Memory) -> Vec<u8> {
    let mut out = Vec::new();
    encode_into(memory, &mut out);
    out
}

/// Appends the encoding of [`encode`] to `out` (reusing its allocation).
pub fn encode_into(memory: &Memory, out: &mut Vec<u8>) {
    super::compact::encode_into(memory, out);
}

/// Decodes a memory written by [`encode`], or the canonical JSON line that stores of
/// schema 1 hold; `None` when the bytes are damaged.
pub fn decode(bytes: &[u8]) -> Option<Memory> {
    if bytes.first() != Some(&b'{') {
        return super::compact::decode(bytes);
    }
    let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let obj = value.as_object()?;
    Memory::from_json(obj, Timestamp(0)).ok().map(|(m, _)| m)
}

/// Decodes the memory stored under `doc`, or the error saying the file is damaged.
pub fn decode_doc(path: &std::path::Path, doc: u32, bytes: &[u8]) -> super::StoreResult<Memory> {
    decode(bytes).ok_or_else(|| super::StoreError::corrupt_record(path, doc))
}
