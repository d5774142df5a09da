//! Search: filters, the literal / BM25 / fuzzy engines and the browse modes.

pub mod bm25;
pub mod command;
mod corpus;
mod engine;
mod filter;
mod filter_parse;
pub mod fuzzy;
mod histogram;
pub mod literal;
mod order;
pub mod output;
mod progressive;
pub mod request;
mod searcher;

pub use filter::SESSION_RECAP;
pub use filter_parse::FilterError;
pub use histogram::{Histogram, bin_of, nominal_range};
pub use request::{
    BrowseMode, DeletedFilter, Engine, Filters, Hit, MatchQuality, NumericField, Order, Range,
    SearchRequest, SearchResponse,
};
pub use progressive::Progress;
pub use searcher::Searcher;
