//! Search: filters, the literal / BM25 / fuzzy engines and the browse modes (SPEC §3),
//! shared by the TUI and `memlens search`.
//!
//! [`Searcher`] holds one store snapshot in memory: numeric columns, interned types,
//! modules and tags and the literal and fuzzy haystacks, read from the search records
//! and haystack chunks `index` keeps beside the memories ([`Searcher::open`], which
//! reads BM25's terms from the persisted postings), or built from the memories
//! themselves with each memory's BM25 terms ([`Searcher::load`]). Every answer equals
//! the brute-force reading of SPEC §3 (`tests/search_oracle.rs` holds it to that).
//! [`quick`] answers the commonest requests (the time-ordered list, BM25 relevance,
//! under the default filters) from the persisted postings and facts alone, without
//! loading the store: `memlens search` and the browser's first screen use it, and
//! `tests/search_quick.rs` holds it to the searcher's answers.
//!
//! Choices where SPEC is silent:
//! - A query of only whitespace is no query (browse). Literal words are distinct
//!   (`foo foo` is one word). BM25 query tokens count once, summed in query order.
//! - BM25 tokens are found in the original text and then lowercased; a token must have
//!   at least 2 characters after lowercasing.
//! - A notice (`no memory matches every word…`, `no ranked match…`) is given only when
//!   its fallback shows something; BM25's fallback keeps the literal `match_quality`.
//! - `order` flips the mode's own key; ties still fall to created_at desc, id asc.
//!   Relevance ascending is the relevance list reversed. Discovery ascending orders
//!   both pools ascending and keeps the slots. `is_discovery` marks memories from the
//!   discovery pool, also when they fill in after the rated pool ran out.
//! - `created_at=..2026-06-30` includes that whole day; tags and modules match exactly.
//! - The fuzzy score is the one a fresh `SkimMatcherV2::default()` gives each haystack
//!   (a reused matcher's score can depend on the haystacks before; see `skim`).
//! - Histograms use the field's nominal range (feel_*, composites, weight, trust,
//!   confidence, rating) or else the range of the values present.
//! - Literal and fuzzy queries that extend the previous one (same filters) only re-check
//!   the previous matches. BM25 reads the persisted postings in a searcher opened on a
//!   store ([`Searcher::open`]); a loaded one scans its terms until [`Searcher::warm`]
//!   builds an in-memory inverted index. Long scans can report partial pages
//!   ([`Searcher::search_progressive`]); the list they settle on is the exact one.

mod arena;
pub mod bm25;
pub mod broad;
mod carry;
mod column;
mod corpus;
pub(crate) mod engine;
mod filter;
mod filter_parse;
mod fixed;
pub mod fuzzy;
mod histogram;
mod incremental;
mod kept;
pub mod listing;
pub mod literal;
mod literal_postings;
mod offsets;
mod order;
pub(crate) use order::sort_field;
pub mod output;
mod parts;
pub mod plan;
mod progressive;
pub mod quick;
pub mod random;
pub mod request;
mod searcher;
pub mod skim;
mod stored;
mod stored_text;

pub use filter::SESSION_RECAP;
pub use filter_parse::FilterError;
pub(crate) use filter_parse::lowercase;
pub use histogram::{Histogram, bin_of, nominal_range};
pub use kept::KeptCorpus;
pub use listing::Listing;
pub use progressive::Progress;
pub use request::{
    BrowseMode, DeletedFilter, Engine, Filters, Hit, MatchQuality, NumericField, Order, Range,
    SearchRequest, SearchResponse,
};
pub use searcher::Searcher;

/// Asked between the chunks of a long scan: true once a newer request has superseded
/// the one being answered, which then stops and answers nothing.
pub type Stop<'a> = &'a (dyn Fn() -> bool + Sync);

/// A [`Stop`] that never stops: the scan runs to its end.
pub(crate) fn never() -> bool {
    false
}
