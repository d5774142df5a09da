//! The one checksum of every stored index value: a value type for redb tables,
//! [`Sealed`], whose stored bytes are the payload followed by the CRC-32 of the row's
//! key and the payload, and whose only way to the payload, [`SealedBytes::open`],
//! checks it.
//!
//! An index table is declared `TableDefinition<K, Sealed>`; writing takes a
//! [`SealedBuf`] built from the key and the payload, reading gives [`SealedBytes`],
//! which hand out the payload only for the key they were sealed under. A flipped bit or
//! an overwritten range in a value, or in its key (a value read under another key), is
//! then [`IndexDamage`] — a redb `Corrupted` error, which the store reports as
//! `StoreError::Corrupt` naming the file — instead of a changed search answer. A new
//! index table gets this by declaring its values `Sealed`; the type leaves no other way
//! to read or write them. Values kept elsewhere (the totals in `META`) use
//! [`seal_into`] and [`open`] directly.

use redb::{TypeName, Value};
use std::fmt;

/// Bytes of the checksum that ends every sealed value.
pub const CHECKSUM_BYTES: usize = 4;

/// A key whose bytes a seal covers, as it is stored.
pub trait SealKey {
    /// Feeds the key's bytes to the checksum.
    fn feed(&self, sum: &mut crc32fast::Hasher);
}

impl SealKey for u32 {
    fn feed(&self, sum: &mut crc32fast::Hasher) {
        sum.update(&self.to_le_bytes());
    }
}

impl SealKey for &[u8] {
    fn feed(&self, sum: &mut crc32fast::Hasher) {
        sum.update(&(self.len() as u64).to_le_bytes());
        sum.update(self);
    }
}

impl SealKey for &str {
    fn feed(&self, sum: &mut crc32fast::Hasher) {
        self.as_bytes().feed(sum);
    }
}

impl<A: SealKey, B: SealKey> SealKey for (A, B) {
    fn feed(&self, sum: &mut crc32fast::Hasher) {
        self.0.feed(sum);
        self.1.feed(sum);
    }
}

fn checksum(key: &impl SealKey, payload: &[u8]) -> u32 {
    let mut sum = crc32fast::Hasher::new();
    key.feed(&mut sum);
    sum.update(payload);
    sum.finalize()
}

/// A stored index value that does not match its checksum (or is too short to have
/// one): the index is damaged where it was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexDamage;

impl fmt::Display for IndexDamage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "corrupted: a stored search index value does not match its checksum \
             (`memlens check --repair` rebuilds the index from the memories)",
        )
    }
}

impl std::error::Error for IndexDamage {}

impl From<IndexDamage> for redb::StorageError {
    fn from(damage: IndexDamage) -> redb::StorageError {
        redb::StorageError::Corrupted(damage.to_string())
    }
}

impl From<IndexDamage> for redb::Error {
    fn from(damage: IndexDamage) -> redb::Error {
        redb::Error::from(redb::StorageError::from(damage))
    }
}

/// Appends `payload` sealed under `key` to `out`.
pub fn seal_into(key: &impl SealKey, payload: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(payload);
    out.extend(checksum(key, payload).to_le_bytes());
}

/// The payload of `stored` bytes sealed under `key`, once their checksum matches.
pub fn open<'a>(key: &impl SealKey, stored: &'a [u8]) -> Result<&'a [u8], IndexDamage> {
    let at = stored
        .len()
        .checked_sub(CHECKSUM_BYTES)
        .ok_or(IndexDamage)?;
    let (payload, sum) = stored.split_at(at);
    let sum = u32::from_le_bytes(sum.try_into().map_err(|_| IndexDamage)?);
    if sum == checksum(key, payload) {
        Ok(payload)
    } else {
        Err(IndexDamage)
    }
}

/// The value type of every index table: a payload sealed under its key.
#[derive(Debug)]
pub struct Sealed;

/// A sealed value as stored: read it with [`open`](SealedBytes::open).
#[derive(Debug, Clone, Copy)]
pub struct SealedBytes<'a>(&'a [u8]);

impl<'a> SealedBytes<'a> {
    /// The payload, when the value was sealed under `key` and is intact.
    pub fn open(self, key: &impl SealKey) -> Result<&'a [u8], IndexDamage> {
        open(key, self.0)
    }

    /// The payload of a value whose [`open`](SealedBytes::open) has already succeeded
    /// (a reader holding a value for many reads checks it once).
    pub fn opened_before(self) -> &'a [u8] {
        &self.0[..self.0.len().saturating_sub(CHECKSUM_BYTES)]
    }

    /// The stored bytes, checksum included (for digests that compare a whole table).
    pub fn stored(self) -> &'a [u8] {
        self.0
    }
}

impl<'a> SealedBytes<'a> {
    /// Bytes made by [`seal_into`], to insert as they are (rows encoded on one thread
    /// and written on another).
    pub fn from_sealed(stored: &'a [u8]) -> SealedBytes<'a> {
        SealedBytes(stored)
    }
}

/// A value sealed for writing, in a buffer that can be reused from row to row.
#[derive(Debug, Default, Clone)]
pub struct SealedBuf(Vec<u8>);

impl SealedBuf {
    /// `payload` sealed under `key`.
    pub fn new(key: &impl SealKey, payload: &[u8]) -> SealedBuf {
        let mut buf = SealedBuf(Vec::with_capacity(payload.len() + CHECKSUM_BYTES));
        seal_into(key, payload, &mut buf.0);
        buf
    }

    /// Replaces the buffer's value with `payload` sealed under `key`; returns it.
    pub fn seal(&mut self, key: &impl SealKey, payload: &[u8]) -> SealedBytes<'_> {
        self.0.clear();
        seal_into(key, payload, &mut self.0);
        SealedBytes(&self.0)
    }

    /// The value to insert.
    pub fn value(&self) -> SealedBytes<'_> {
        SealedBytes(&self.0)
    }
}

impl Value for Sealed {
    type SelfType<'a> = SealedBytes<'a>;
    type AsBytes<'a> = &'a [u8];

    fn fixed_width() -> Option<usize> {
        None
    }

    fn from_bytes<'a>(data: &'a [u8]) -> SealedBytes<'a>
    where
        Self: 'a,
    {
        SealedBytes(data)
    }

    fn as_bytes<'a, 'b: 'a>(value: &'a SealedBytes<'b>) -> &'a [u8]
    where
        Self: 'b,
    {
        value.0
    }

    fn type_name() -> TypeName {
        TypeName::new("memlens::Sealed")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_value_opens_under_its_own_key_only() {
        let buf = SealedBuf::new(&7u32, b"payload");
        assert_eq!(buf.value().open(&7u32), Ok(&b"payload"[..]));
        assert_eq!(buf.value().open(&8u32), Err(IndexDamage));
        let row = ("target", "source");
        let buf = SealedBuf::new(&row, b"");
        assert_eq!(buf.value().open(&row), Ok(&b""[..]));
        assert_eq!(buf.value().open(&("targets", "ource")), Err(IndexDamage));
    }

    #[test]
    fn every_flipped_bit_and_every_short_value_is_damage() {
        let key: &[u8] = b"term";
        let buf = SealedBuf::new(&key, b"a posting block of some length");
        let stored = buf.value().stored().to_vec();
        for bit in 0..stored.len() * 8 {
            let mut bad = stored.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(open(&key, &bad), Err(IndexDamage), "bit {bit}");
        }
        for len in 0..stored.len() {
            assert!(open(&key, &stored[..len]).is_err(), "cut to {len}");
        }
    }
}
