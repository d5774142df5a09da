//! The redb tables of a memlens store and how a memory is encoded in them.
//!
//! Memories live under a dense `u32` document number so that search indexes (postings,
//! numeric columns) can refer to them compactly; `IDS` maps the user's id to it.

use super::sealed::Sealed;
use crate::model::{Memory, Timestamp};
use redb::{MultimapTableDefinition, TableDefinition};

pub use super::compact::{Damage, is_summed};

/// Key/value metadata: the format marker, schema version, next document number.
pub const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");
/// Document number → encoded memory.
pub const MEMORIES: TableDefinition<u32, &[u8]> = TableDefinition::new("memories");
/// Memory id → document number.
pub const IDS: TableDefinition<&str, u32> = TableDefinition::new("ids");
/// (Target id, id of a memory whose `relationships` names it) → an empty value sealed
/// under that key (see [`super::sealed`]): the reverse edges, one row each,
/// sorted by target. A plain table, so that an import appends its backlinks through one
/// cursor, in key order, as it does its ids.
pub const BACKLINKS: TableDefinition<(&str, &str), Sealed> = TableDefinition::new("backlink_rows");
/// The rows of [`BACKLINKS`] as stores of schema 4 and 5 keep them, without a
/// checksum; sealed by the first writable open.
pub const UNSEALED_BACKLINKS: TableDefinition<(&str, &str), ()> =
    TableDefinition::new("backlink_rows");
/// Target id → id of each memory naming it: where stores of schema 3 and before keep
/// their reverse edges. Moved into [`BACKLINKS`] by the first writable open.
pub const OLD_BACKLINKS: MultimapTableDefinition<&str, &str> =
    MultimapTableDefinition::new("backlinks");

/// Stored bytes of memories `memlens check --repair` could not read (a bad checksum, or
/// not a memory at all), kept aside under a number of their own so that nothing is lost
/// silently; no other command reads them.
pub const DAMAGED: TableDefinition<u64, &[u8]> = TableDefinition::new("damaged");

/// Marker stored under `format` in `META`.
pub const FORMAT_MARKER: &[u8] = b"memlens";
/// Schema version this build writes and reads. Version 6 seals every index value and
/// backlink row with a checksum ([`super::sealed`]; [`SEALED_SCHEMA`]). Version 5
/// stores every memory with its
/// checksum (compact memories of tag 3); version 4 keeps backlinks as rows of
/// [`BACKLINKS`]; version 3 wrote scores in two bytes where it can (compact memories of
/// tag 2); version 2 stored memories in their first compact form, and version 1 as
/// JSON lines, both still read. The first writable open of a store of an older version
/// moves its backlinks into their rows and stamps it 4, so an older memlens refuses it
/// from then on. The same open rewrites every memory of a store older than 5 with its
/// checksum ([`CHECKSUM_SCHEMA`]) and seals the backlink rows of a store older than 6 (its
/// index, of an older index version, is rebuilt sealed by the same open). Version 6 also
/// ([`SCORES_31_SCHEMA`]) holds the 31 scored dimensions and may end a memory with its
/// confidentiality level and its raters.
pub const SCHEMA_VERSION: u32 = 6;
/// The first schema version with 31 scored dimensions (`functional_valence` and
/// `functional_coherence_tension` beside the 29 of before, which keep their places, so
/// its upgrade rewrites nothing), remember-core's confidentiality level and one rating
/// per rater: an older memlens must refuse such a store rather than read its memories
/// as damaged.
pub const SCORES_31_SCHEMA: u32 = 6;
/// The first schema version whose index values and backlink rows are sealed.
pub const SEALED_SCHEMA: u32 = 6;
/// The first schema version whose memories all carry their checksum.
pub const CHECKSUM_SCHEMA: u32 = 5;
/// The first schema version whose backlinks are rows of [`BACKLINKS`].
pub const BACKLINK_ROWS_SCHEMA: u32 = 4;
/// `META` key of the format marker.
pub const KEY_FORMAT: &str = "format";
/// `META` key of the schema version.
pub const KEY_SCHEMA: &str = "schema_version";
/// `META` key of the next free document number.
pub const KEY_NEXT_DOC: &str = "next_doc";

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
/// schema 1 hold, or says why the bytes are damaged.
pub fn decode(bytes: &[u8]) -> Result<Memory, Damage> {
    if bytes.first() != Some(&b'{') {
        return super::compact::decode(bytes);
    }
    let json = || {
        let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
        let obj = value.as_object()?;
        Memory::from_json(obj, Timestamp(0)).ok().map(|(m, _)| m)
    };
    json().ok_or(Damage::Undecodable)
}

/// The id stored memory bytes name, as far as they can be read.
pub fn stored_id(bytes: &[u8]) -> Option<String> {
    if bytes.first() == Some(&b'{') {
        let value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
        return value.get("id")?.as_str().map(str::to_string);
    }
    super::compact::stored_id(bytes)
}

/// What is wrong with the memory stored under `doc` as `bytes`, naming it by the id
/// the bytes hold as far as it can be read.
pub fn damage_detail(doc: u32, bytes: &[u8], damage: Damage) -> String {
    let what = match damage {
        Damage::Checksum => "does not match its checksum",
        Damage::Undecodable => "cannot be decoded",
    };
    match stored_id(bytes) {
        Some(id) => format!("memory record {doc} (stored id `{id}`) {what}"),
        None => format!("memory record {doc} {what}"),
    }
}
