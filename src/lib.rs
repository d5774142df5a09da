//! memlens: browse and curate the memories AI coding agents keep, over one redb file.

pub mod index;
pub mod model;
pub mod search;
pub mod store;
