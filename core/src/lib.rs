//! memlens: browse and curate the memories AI coding agents keep, over one redb file.

pub mod allocator;
pub(crate) mod beside;
pub(crate) mod codec;
pub mod collection;
pub(crate) mod commit;
pub mod corpus;
pub mod curate;
pub mod demo;
pub mod exchange;
pub mod existing;
pub mod index;
pub mod mcp;
pub mod model;
pub(crate) mod parallel;
pub mod paths;
/// A hivelore project curated in place, its files the source of truth.
pub mod project;
pub mod review;
/// The layout of the redb file, below the store and the index.
pub mod schema;
pub mod search;
pub mod stable_hash;
pub mod store;
pub mod text;
pub mod tui;
pub mod words;
