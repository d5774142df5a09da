//! The one function every client answers a search with — `memlens search`, the agents'
//! tools — whatever list it asks for: a page in a browse mode's order, the broad scan,
//! or a random draw.

use crate::collection::{Collection, CollectionError};
use crate::search::request::{SearchRequest, SearchResponse};
use crate::search::{broad, random};

/// Which list a request is answered with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Listing {
    /// The page `offset..offset+limit` of the request's mode and order.
    #[default]
    Page,
    /// The time-ordered page, each memory shown by slices of its body
    /// ([`broad::hit_json`]).
    Broad,
    /// A uniform sample of `limit` memories of all that match, drawn with the seed
    /// (a fresh one when `None`).
    Random {
        /// Makes the draw repeatable.
        seed: Option<u64>,
    },
}

impl Listing {
    /// The name of the listing's mode on the command line (`broad`, `random`), or
    /// `None` for a page (named by its browse mode).
    pub fn mode_name(self) -> Option<&'static str> {
        match self {
            Listing::Page => None,
            Listing::Broad => Some("broad"),
            Listing::Random { .. } => Some("random"),
        }
    }
}

/// Answers `req` as `listing` asks, through the front door: a page or the broad scan
/// is [`Collection::search`], a random draw [`Collection::sample`].
pub fn answer(
    memories: &dyn Collection,
    req: &SearchRequest,
    listing: Listing,
) -> Result<SearchResponse, CollectionError> {
    match listing {
        Listing::Page => memories.search(req),
        Listing::Broad => memories.search(&broad::request(req)),
        Listing::Random { seed } => {
            memories.sample(req, seed.unwrap_or_else(random::Draw::fresh_seed))
        }
    }
}
