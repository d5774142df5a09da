//! Search: filters, the literal / BM25 / fuzzy engines and the browse modes.

pub mod request;

pub use request::{
    BrowseMode, DeletedFilter, Engine, Filters, Hit, MatchQuality, NumericField, Order, Range,
    SearchRequest, SearchResponse,
};
