//! What a search asks for (query, engine, filters, browse mode, order, page) and what it
//! answers. The TUI and `memlens search` build the same `SearchRequest`.

use crate::model::{Composite, FEEL_COUNT, FEEL_DIMS, Memory, Scope, Status, Timestamp};

/// How the query text is matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Engine {
    /// Case-insensitive substrings, every word (else any word, with a notice).
    #[default]
    Literal,
    /// Okapi BM25 ranking over the filtered set.
    Bm25,
    /// Skim fuzzy matching on headline, tags and id.
    Fuzzy,
}

impl Engine {
    /// All engines in the order `Ctrl-t` cycles them.
    pub const ALL: [Engine; 3] = [Engine::Literal, Engine::Bm25, Engine::Fuzzy];

    /// The engine's name on the command line and in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Literal => "literal",
            Engine::Bm25 => "bm25",
            Engine::Fuzzy => "fuzzy",
        }
    }

    /// The next engine in the cycle literal → bm25 → fuzzy → literal.
    pub fn next(self) -> Engine {
        match self {
            Engine::Literal => Engine::Bm25,
            Engine::Bm25 => Engine::Fuzzy,
            Engine::Fuzzy => Engine::Literal,
        }
    }
}

/// Ascending or descending.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Order {
    /// Smallest first.
    Asc,
    /// Largest first.
    Desc,
}

impl Order {
    /// The other direction.
    pub fn flip(self) -> Order {
        match self {
            Order::Asc => Order::Desc,
            Order::Desc => Order::Asc,
        }
    }
    /// `asc` or `desc`.
    pub fn as_str(self) -> &'static str {
        match self {
            Order::Asc => "asc",
            Order::Desc => "desc",
        }
    }
}

/// A numeric property a list can be sorted or filtered by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NumericField {
    /// One `feel_*` dimension, by index into `FEEL_DIMS`.
    Feel(usize),
    /// A composite significance.
    Composite(Composite),
    /// `weight`.
    Weight,
    /// `trust`.
    Trust,
    /// `confidence`.
    Confidence,
    /// `trust_score`: remember-core's confidentiality level, 1 public … 5 secret.
    TrustLevel,
    /// `rating_bayesian` (derived).
    RatingBayesian,
    /// `rating_count`.
    RatingCount,
    /// `rating_sum`: the sum of every rating (the imported aggregate and the raters').
    RatingSum,
    /// `relationship_count` (derived from the store).
    RelationshipCount,
    /// `read_count`.
    ReadCount,
    /// `rem_visits`.
    RemVisits,
    /// `created_at`, as seconds since the epoch.
    CreatedAt,
    /// `updated_at`, as seconds since the epoch.
    UpdatedAt,
}

impl NumericField {
    /// Every field, in the order the Property picker lists them.
    pub fn all() -> Vec<NumericField> {
        let mut out: Vec<NumericField> = Composite::ALL
            .into_iter()
            .map(NumericField::Composite)
            .collect();
        out.extend((0..FEEL_COUNT).map(NumericField::Feel));
        out.extend([
            NumericField::Weight,
            NumericField::Trust,
            NumericField::Confidence,
            NumericField::TrustLevel,
            NumericField::RatingBayesian,
            NumericField::RatingCount,
            NumericField::RatingSum,
            NumericField::RelationshipCount,
            NumericField::ReadCount,
            NumericField::RemVisits,
            NumericField::CreatedAt,
            NumericField::UpdatedAt,
        ]);
        out
    }

    /// The field's name as in JSON and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            NumericField::Feel(i) => FEEL_DIMS[i].field,
            NumericField::Composite(c) => c.field(),
            NumericField::Weight => "weight",
            NumericField::Trust => "trust",
            NumericField::Confidence => "confidence",
            NumericField::TrustLevel => "trust_level",
            NumericField::RatingBayesian => "rating_bayesian",
            NumericField::RatingCount => "rating_count",
            NumericField::RatingSum => "rating_sum",
            NumericField::RelationshipCount => "relationship_count",
            NumericField::ReadCount => "read_count",
            NumericField::RemVisits => "rem_visits",
            NumericField::CreatedAt => "created_at",
            NumericField::UpdatedAt => "updated_at",
        }
    }

    /// The field with this name.
    pub fn parse(name: &str) -> Option<NumericField> {
        if let Some(c) = Composite::from_field(name) {
            return Some(NumericField::Composite(c));
        }
        if let Some(i) = crate::model::input_dim_index(name) {
            return Some(NumericField::Feel(i));
        }
        NumericField::all().into_iter().find(|f| f.name() == name)
    }

    /// The field's value for a memory; `relationship_count` must be supplied by the caller
    /// because it depends on the rest of the store. `None` when the memory lacks it.
    pub fn value(self, m: &Memory, relationship_count: u32) -> Option<f64> {
        match self {
            NumericField::Feel(i) => m.feel[i],
            NumericField::Composite(c) => m.composite(c),
            NumericField::Weight => Some(m.weight),
            NumericField::Trust => Some(m.trust),
            NumericField::Confidence => m.confidence,
            NumericField::TrustLevel => m.trust_level.map(|l| f64::from(l.number())),
            NumericField::RatingBayesian => Some(m.rating_bayesian()),
            NumericField::RatingCount => Some(f64::from(m.rating_count)),
            NumericField::RatingSum => Some(f64::from(m.rating_sum)),
            NumericField::RelationshipCount => Some(f64::from(relationship_count)),
            NumericField::ReadCount => Some(f64::from(m.read_count)),
            NumericField::RemVisits => m.rem_visits.map(f64::from),
            NumericField::CreatedAt => Some(m.created_at.as_secs_f64()),
            NumericField::UpdatedAt => Some(m.updated_at.as_secs_f64()),
        }
    }
}

/// The order of the result list (SPEC §3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BrowseMode {
    /// The engine's order while a query is active; time without one.
    #[default]
    Relevance,
    /// created_at.
    Time,
    /// relationship_count, then created_at desc.
    Density,
    /// rating_bayesian.
    Rating,
    /// Rated pool with every fifth slot from the discovery pool.
    Discovery,
    /// Any numeric field; memories without it come last.
    Property(NumericField),
    /// Property `total_significance`, desc.
    Significance,
}

impl BrowseMode {
    /// The mode's name on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            BrowseMode::Relevance => "relevance",
            BrowseMode::Time => "time",
            BrowseMode::Density => "density",
            BrowseMode::Rating => "rating",
            BrowseMode::Discovery => "discovery",
            BrowseMode::Property(_) => "property",
            BrowseMode::Significance => "significance",
        }
    }
}

/// An inclusive range; either bound may be absent. A range with any bound excludes
/// memories that lack the field.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Range {
    /// Lower bound, inclusive.
    pub min: Option<f64>,
    /// Upper bound, inclusive.
    pub max: Option<f64>,
}

impl Range {
    /// True when neither bound is set (the filter is off).
    pub fn is_open(&self) -> bool {
        self.min.is_none() && self.max.is_none()
    }

    /// Whether a value passes; an absent value passes only an open range.
    pub fn admits(&self, value: Option<f64>) -> bool {
        if self.is_open() {
            return true;
        }
        let Some(v) = value else { return false };
        self.min.is_none_or(|lo| v >= lo) && self.max.is_none_or(|hi| v <= hi)
    }
}

/// How soft-deleted memories are treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DeletedFilter {
    /// Hide them (the default).
    #[default]
    Exclude,
    /// Show them with the rest.
    Include,
    /// Show only them.
    Only,
}

impl DeletedFilter {
    /// Whether a memory that is (or is not) soft-deleted passes this choice.
    pub fn keeps(self, deleted: bool) -> bool {
        match self {
            DeletedFilter::Exclude => !deleted,
            DeletedFilter::Include => true,
            DeletedFilter::Only => deleted,
        }
    }
}

/// Every filter of SPEC §3.1; all optional and ANDed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Filters {
    /// Any of these types (empty = any). Naming `session_recap` shows recaps.
    pub types: Vec<String>,
    /// None of these types; wins over `types`.
    pub exclude_types: Vec<String>,
    /// Any of these scopes.
    pub scopes: Vec<Scope>,
    /// Any of these modules.
    pub modules: Vec<String>,
    /// Any of these statuses.
    pub statuses: Vec<Status>,
    /// Hide rejected memories.
    pub exclude_rejected: bool,
    /// Show `session_recap` memories even when `types` does not name them.
    pub include_session_recap: bool,
    /// Any of these tags.
    pub tags: Vec<String>,
    /// Range on weight.
    pub weight: Range,
    /// Range on trust.
    pub trust: Range,
    /// Earliest created_at, inclusive.
    pub created_from: Option<Timestamp>,
    /// Latest created_at, inclusive.
    pub created_to: Option<Timestamp>,
    /// Minimum rating_bayesian.
    pub rating_min: Option<f64>,
    /// Range on relationship_count.
    pub relationship_count: Range,
    /// Only memories with (true) or without (false) relationships.
    pub has_relationships: Option<bool>,
    /// Soft-deleted memories: exclude, include or only.
    pub deleted: DeletedFilter,
    /// A range of confidentiality levels (1 public … 5 secret); a memory without one
    /// is left out by any bound.
    pub trust_level: Range,
    /// A range per `feel_*` dimension, indexed like `FEEL_DIMS`.
    pub feel: [Range; FEEL_COUNT],
    /// A range per composite, indexed like `Composite::ALL`.
    pub composites: [Range; 3],
}

/// One search: query, engine, filters, order and page.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRequest {
    /// The query text; empty = browse.
    pub query: String,
    /// The matching engine.
    pub engine: Engine,
    /// Which memories take part.
    pub filters: Filters,
    /// The order of the list.
    pub mode: BrowseMode,
    /// Direction; `None` = the mode's default.
    pub order: Option<Order>,
    /// Results to skip.
    pub offset: usize,
    /// Results to return at most.
    pub limit: usize,
}

impl Default for SearchRequest {
    fn default() -> Self {
        SearchRequest {
            query: String::new(),
            engine: Engine::default(),
            filters: Filters::default(),
            mode: BrowseMode::default(),
            order: None,
            offset: 0,
            limit: 50,
        }
    }
}

/// Whether a literal result matched every word or only some.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatchQuality {
    /// Every query word matched.
    All,
    /// Only some did (the OR fallback).
    Partial,
}

/// One result of a search.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// The memory.
    pub memory: Memory,
    /// Its relationship_count in the store.
    pub relationship_count: u32,
    /// BM25 or fuzzy score, when the engine ranks.
    pub score: Option<f64>,
    /// Literal engine: all words or partial.
    pub match_quality: Option<MatchQuality>,
    /// Discovery mode: whether this slot came from the discovery pool.
    pub is_discovery: Option<bool>,
}

/// The answer to a `SearchRequest`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SearchResponse {
    /// How many memories match in all (not just this page).
    pub total: usize,
    /// The requested page, in order.
    pub hits: Vec<Hit>,
    /// A notice for the user (OR fallback, literal fallback).
    pub notice: Option<String>,
    /// Why a memory of the page could not be read (the store is damaged: the error
    /// naming the file and the memory); the page then lacks that memory.
    pub damage: Option<String>,
}
