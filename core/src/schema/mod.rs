//! The layout of the redb file that both the store and the index write: the table
//! definitions and metadata keys ([`tables`]), the memory record format ([`compact`]),
//! checksummed rows ([`sealed`]) and rows appended in key order ([`appends`]). It sits below `store` and `index` and imports
//! neither, so the index can read the store's tables without depending on the store.

pub(crate) mod appends;
pub mod compact;
pub mod sealed;
pub mod tables;
