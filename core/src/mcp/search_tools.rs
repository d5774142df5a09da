//! The search tools: hivelore's `mem_search` and remember-mcp's `remember_search_by`,
//! each turned into the [`SearchRequest`] and [`Listing`] that `memlens search` builds
//! and answered by [`listing::answer`], the function the command line calls.

use super::params::Parameters;
use super::schema::input_schema;
use super::{MemoryServer, ToolError};
use crate::model::{FEEL_DIMS, Timestamp, input_dim_index};
use crate::search::listing::{self, Listing};
use crate::search::{
    BrowseMode, Engine, Filters, NumericField, Order, SearchRequest, SearchResponse, broad, output,
};
use rmcp::model::CallToolResult;
use rmcp::{schemars, tool, tool_router};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// Results a search returns unless told otherwise (both tools' schemas).
pub const DEFAULT_LIMIT: usize = 10;
/// The most results one call returns.
pub const MAX_LIMIT: usize = 100;

/// The arguments of `mem_search` (hivelore's schema).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemSearchParams {
    /// Substring matched against id, tags and body (every word; else any word)
    pub query: String,
    /// Restrict results to a single scope (personal, team, module, shared)
    pub scope: Option<String>,
    /// Restrict results to a memory type. session_recap is excluded by default; use
    /// type='session_recap' to include them.
    #[serde(rename = "type")]
    pub memory_type: Option<String>,
    /// Include session_recap memories in search results (excluded by default)
    pub include_session_recap: Option<bool>,
    /// Restrict results to a module
    pub module: Option<String>,
    /// Filter by a single status (draft, proposed, validated, deprecated, stale,
    /// rejected). Omit to return all statuses.
    pub status: Option<String>,
    /// When true, exclude memories with status=rejected from results
    pub exclude_rejected: Option<bool>,
    /// Max results (default 10, at most 100)
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u64>,
    /// Semantic similarity search: not available in memlens (an error says so)
    pub semantic: Option<bool>,
    /// Rank the filtered memories with Okapi BM25 instead of literal AND/OR
    pub lexical_rank: Option<bool>,
    /// Minimum cosine similarity (semantic mode only)
    #[schemars(range(min = 0.0, max = 1.0))]
    pub min_score: Option<f64>,
    /// Increment read_count on returned memories (default true)
    pub track: Option<bool>,
}

/// The filters of `remember_search_by` (remember-mcp's schema).
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchByFilters {
    /// Include only these content types
    pub types: Option<Vec<String>>,
    /// Exclude these content types
    pub exclude_types: Option<Vec<String>>,
    /// Any of these tags
    pub tags: Option<Vec<String>>,
    /// Lowest weight
    pub weight_min: Option<f64>,
    /// Highest weight
    pub weight_max: Option<f64>,
    /// Lowest confidentiality level, 1 public … 5 secret (remember-core's `trust_score`,
    /// which this filter compares there); memories without a level are left out
    pub trust_min: Option<f64>,
    /// Highest confidentiality level, 1 public … 5 secret (remember-core's `trust_score`);
    /// memories without a level are left out
    pub trust_max: Option<f64>,
    /// Created on or after (ISO 8601)
    pub date_from: Option<String>,
    /// Created on or before (ISO 8601; a date includes that whole day)
    pub date_to: Option<String>,
    /// Minimum Bayesian rating
    pub rating_min: Option<f64>,
    /// Fewest relationships
    pub relationship_count_min: Option<f64>,
    /// Most relationships
    pub relationship_count_max: Option<f64>,
    /// Only memories with (true) or without (false) relationships
    pub has_relationships: Option<bool>,
}

/// The modes of `remember_search_by`.
pub const SEARCH_BY_MODES: [&str; 8] = [
    "byTime",
    "byDensity",
    "byRating",
    "byDiscovery",
    "byProperty",
    "bySignificance",
    "byBroad",
    "byRandom",
];

/// The arguments of `remember_search_by` (remember-mcp's schema, plus `seed`).
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchByParams {
    /// Search mode to use
    #[schemars(extend("enum" = SEARCH_BY_MODES))]
    pub mode: String,
    /// Optional search query (only memories matching it are listed)
    pub query: Option<String>,
    /// Sort order, asc or desc (default desc)
    #[schemars(extend("enum" = ["asc", "desc"]))]
    pub sort_order: Option<String>,
    /// Property to sort by (byProperty only): any feel_* or functional_* score, a
    /// composite, weight, trust, confidence, trust_level (remember-mcp's trust_score),
    /// rating_bayesian, rating_count, rating_sum, relationship_count, read_count (remember-mcp's
    /// access_count), rem_visits, created_at, updated_at
    pub sort_field: Option<String>,
    /// Max results (default 10, byBroad 50; at most 100)
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u64>,
    /// Pagination offset (byRandom: through the sample's order for the same seed)
    pub offset: Option<u64>,
    /// Standard search filters
    pub filters: Option<SearchByFilters>,
    /// Soft-deleted memories: exclude (default), include or only
    #[schemars(extend("enum" = ["exclude", "include", "only"]))]
    pub deleted_filter: Option<String>,
    /// byRandom: the same seed draws the same sample
    pub seed: Option<u64>,
}

#[tool_router(router = search_tools, vis = "pub(super)")]
impl MemoryServer {
    /// hivelore's `mem_search`.
    #[tool(
        name = "mem_search",
        description = "Search memories by substring (every word, else any word) over id, title, type, module, tags and body, with hivelore's filters; lexical_rank ranks by BM25. Returns matches with id, type, scope, status, confidence, body, snippet, match_quality and score, the total, and any notice.",
        input_schema = input_schema::<MemSearchParams>()
    )]
    pub async fn mem_search(&self, Parameters(p): Parameters<MemSearchParams>) -> CallToolResult {
        let (req, track) = match mem_search_request(&p) {
            Ok(built) => built,
            Err(e) => return super::result(Err(e)),
        };
        if track {
            self.with_open(move |open| {
                let mut resp = listing::answer(&*open.memories, &req, Listing::Page)?;
                let store = &open.store;
                crate::curate::track_hits(store, &mut resp.hits)?;
                mem_search_json(&req, resp)
            })
            .await
        } else {
            self.reading(move |memories| {
                mem_search_json(&req, listing::answer(memories, &req, Listing::Page)?)
            })
            .await
        }
    }

    /// remember-mcp's `remember_search_by`.
    #[tool(
        name = "remember_search_by",
        description = "List memories in a browse mode: byTime (newest first), byDensity (most linked), byRating (Bayesian rating), byDiscovery (rated with every fifth slot unrated), byProperty (sort_field required), bySignificance (total_significance), byBroad (newest first, each memory as content_head/mid/tail slices of about 100 characters; default limit 50), byRandom (a uniform sample of the whole filtered set, with its size; seed repeats a draw). The answer is `memlens search --json`'s.",
        input_schema = input_schema::<SearchByParams>()
    )]
    pub async fn remember_search_by(
        &self,
        Parameters(p): Parameters<SearchByParams>,
    ) -> CallToolResult {
        let (req, listing) = match search_by_request(&p) {
            Ok(built) => built,
            Err(e) => return super::result(Err(e)),
        };
        self.reading(move |memories| {
            let resp = listing::answer(memories, &req, listing)?;
            ok_response(&resp)?;
            Ok(output::listing_json(&req, listing, &resp))
        })
        .await
    }
}

/// A page the store could not fully read is an error, as on the command line.
fn ok_response(resp: &SearchResponse) -> Result<(), ToolError> {
    match &resp.damage {
        Some(damage) => Err(ToolError::usage(damage.clone())),
        None => Ok(()),
    }
}

/// A tool's `limit`: `default` when absent, else 1–[`MAX_LIMIT`].
pub(super) fn limit_of(limit: Option<u64>, default: usize) -> Result<usize, ToolError> {
    match limit {
        None => Ok(default),
        Some(n) if (1..=MAX_LIMIT as u64).contains(&n) => Ok(n as usize),
        Some(n) => Err(ToolError::usage(format!(
            "limit: {n} is outside 1–{MAX_LIMIT}"
        ))),
    }
}

/// The request and whether to track reads, for `mem_search`'s arguments.
pub fn mem_search_request(p: &MemSearchParams) -> Result<(SearchRequest, bool), ToolError> {
    if p.semantic == Some(true) {
        return Err(ToolError::usage(
            "semantic search is not available in this memlens (it keeps no embeddings); \
             use lexical_rank: true for BM25 ranking, or leave semantic out for literal matching",
        ));
    }
    if let Some(s) = p.min_score
        && !(0.0..=1.0).contains(&s)
    {
        return Err(ToolError::usage(format!("min_score: {s} is outside 0–1")));
    }
    let mut filters = Filters::default();
    let pairs = [
        ("scope", p.scope.clone()),
        ("type", p.memory_type.clone()),
        ("module", p.module.clone()),
        ("status", p.status.clone()),
        (
            "exclude_rejected",
            p.exclude_rejected.map(|b| b.to_string()),
        ),
        (
            "include_session_recap",
            p.include_session_recap.map(|b| b.to_string()),
        ),
    ];
    for (key, value) in pairs {
        if let Some(v) = value {
            filters.apply_kv(key, &v)?;
        }
    }
    let lexical = p.lexical_rank == Some(true) && !p.query.trim().is_empty();
    let req = SearchRequest {
        query: p.query.clone(),
        engine: if lexical {
            Engine::Bm25
        } else {
            Engine::Literal
        },
        filters,
        mode: BrowseMode::Relevance,
        order: None,
        offset: 0,
        limit: limit_of(p.limit, DEFAULT_LIMIT)?,
    };
    Ok((req, p.track.unwrap_or(true)))
}

/// `mem_search`'s answer: hivelore's fields for each match (id, scope, type, module,
/// tags, status, confidence, read_count, snippet, file_path, score) with title, body and
/// match_quality, then total, mode and notice.
fn mem_search_json(req: &SearchRequest, resp: SearchResponse) -> Result<Value, ToolError> {
    ok_response(&resp)?;
    let now = Timestamp::now();
    let matches: Vec<Value> = resp
        .hits
        .iter()
        .map(|hit| {
            let full = output::hit_json(hit, &req.query);
            let m = &hit.memory;
            let mut o = Map::new();
            o.insert("id".into(), m.id.clone().into());
            o.insert("scope".into(), m.scope.as_str().into());
            o.insert("type".into(), m.memory_type.clone().into());
            if let Some(module) = &m.module {
                o.insert("module".into(), module.clone().into());
            }
            o.insert("tags".into(), m.tags.clone().into());
            o.insert("status".into(), m.status.as_str().into());
            o.insert("confidence".into(), m.confidence_tier(now).as_str().into());
            o.insert("read_count".into(), m.read_count.into());
            for key in ["snippet", "score", "match_quality", "title"] {
                if let Some(v) = full.get(key) {
                    o.insert(key.into(), v.clone());
                }
            }
            if let Some(path) = m.source.as_ref().and_then(|s| s.path.clone()) {
                o.insert("file_path".into(), path.into());
            }
            o.insert(
                "body".into(),
                crate::project::private::shown(&m.body).into_owned().into(),
            );
            Value::Object(o)
        })
        .collect();
    let ranked = req.engine == Engine::Bm25 && resp.notice.is_none();
    let mut out = json!({
        "matches": matches,
        "total": resp.total,
        "mode": if ranked { "lexical_ranked" } else { "literal" },
    });
    if let (Some(notice), Value::Object(o)) = (resp.notice, &mut out) {
        o.insert("notice".into(), notice.into());
    }
    Ok(out)
}

/// The numeric field a `sort_field` names: memlens's names, remember-mcp's other names
/// for the scored dimensions, and its `trust_score` (the confidentiality level, as
/// remember-core stores it) and `access_count`.
fn sort_field(name: &str) -> Result<NumericField, ToolError> {
    let name = match name {
        "trust_score" => "trust_level",
        "access_count" => "read_count",
        other => other,
    };
    if let Some(i) = input_dim_index(name) {
        return Ok(NumericField::Feel(i));
    }
    NumericField::parse(name).ok_or_else(|| {
        let names: Vec<&str> = NumericField::all().iter().map(|f| f.name()).collect();
        ToolError::usage(format!(
            "sort_field: unknown numeric field `{name}`; one of {}",
            names.join(", ")
        ))
    })
}

/// `LO..HI` with either bound left out, for a range filter.
fn range(lo: Option<f64>, hi: Option<f64>) -> Option<String> {
    (lo.is_some() || hi.is_some()).then(|| {
        let show = |b: Option<f64>| b.map(|v| v.to_string()).unwrap_or_default();
        format!("{}..{}", show(lo), show(hi))
    })
}

/// The items of a list argument, trimmed, the blank ones left out.
fn items(list: Option<&[String]>) -> Vec<String> {
    (list.unwrap_or_default().iter())
        .map(|item| item.trim())
        .filter(|item| !item.is_empty())
        .map(str::to_string)
        .collect()
}

/// The filters of `remember_search_by`: the lists taken item by item, the rest parsed
/// by the command line's filter parser.
pub(super) fn search_by_filters(
    f: &SearchByFilters,
    deleted: Option<&str>,
) -> Result<Filters, ToolError> {
    let dates = (f.date_from.is_some() || f.date_to.is_some()).then(|| {
        format!(
            "{}..{}",
            f.date_from.as_deref().unwrap_or_default(),
            f.date_to.as_deref().unwrap_or_default()
        )
    });
    // (the filter, the arguments it comes from, their value)
    let pairs = [
        (
            "weight",
            "filters.weight_min/weight_max",
            range(f.weight_min, f.weight_max),
        ),
        // remember-core compares `trust_score`, the confidentiality level
        (
            "trust_level",
            "filters.trust_min/trust_max (a level 1 … 5)",
            range(f.trust_min, f.trust_max),
        ),
        ("created_at", "filters.date_from/date_to", dates),
        (
            "rating_min",
            "filters.rating_min",
            f.rating_min.map(|v| v.to_string()),
        ),
        (
            "relationship_count",
            "filters.relationship_count_min/relationship_count_max",
            range(f.relationship_count_min, f.relationship_count_max),
        ),
        (
            "has_relationships",
            "filters.has_relationships",
            f.has_relationships.map(|b| b.to_string()),
        ),
        ("deleted", "deleted_filter", deleted.map(str::to_string)),
    ];
    // each item of a list is one value, a comma in it and all (the command line's
    // `tag=a,b` is two); an empty list filters nothing
    let mut filters = Filters {
        // memory types are lowercase, as on the command line
        types: crate::search::lowercase(items(f.types.as_deref())),
        exclude_types: crate::search::lowercase(items(f.exclude_types.as_deref())),
        tags: items(f.tags.as_deref()),
        ..Filters::default()
    };
    for (key, given, value) in pairs {
        if let Some(v) = value {
            filters
                .apply_kv(key, &v)
                .map_err(|e| ToolError::Usage(format!("{given}: {e}")))?;
        }
    }
    Ok(filters)
}

/// The request and listing for `remember_search_by`'s arguments.
pub fn search_by_request(p: &SearchByParams) -> Result<(SearchRequest, Listing), ToolError> {
    let (mode, listing) = match p.mode.as_str() {
        "byTime" => (BrowseMode::Time, Listing::Page),
        "byDensity" => (BrowseMode::Density, Listing::Page),
        "byRating" => (BrowseMode::Rating, Listing::Page),
        "byDiscovery" => (BrowseMode::Discovery, Listing::Page),
        "byProperty" => {
            let field = p.sort_field.as_deref().ok_or_else(|| {
                ToolError::usage(format!(
                    "byProperty needs sort_field: a numeric field such as {}, weight or total_significance",
                    FEEL_DIMS[0].field
                ))
            })?;
            (BrowseMode::Property(sort_field(field)?), Listing::Page)
        }
        "bySignificance" => (BrowseMode::Significance, Listing::Page),
        "byBroad" => (BrowseMode::Time, Listing::Broad),
        "byRandom" => (
            BrowseMode::Time,
            Listing::Random {
                seed: Some(
                    p.seed
                        .unwrap_or_else(crate::search::random::Draw::fresh_seed),
                ),
            },
        ),
        other => {
            return Err(ToolError::usage(format!(
                "unknown mode `{other}`; one of {}",
                SEARCH_BY_MODES.join(", ")
            )));
        }
    };
    if p.sort_field.is_some() && p.mode != "byProperty" {
        return Err(ToolError::usage(format!(
            "sort_field applies to byProperty, not {}",
            p.mode
        )));
    }
    let order = match p.sort_order.as_deref() {
        None => None,
        Some("asc") => Some(Order::Asc),
        Some("desc") => Some(Order::Desc),
        Some(other) => {
            return Err(ToolError::usage(format!(
                "sort_order: `{other}` is not asc or desc"
            )));
        }
    };
    let default_limit = if listing == Listing::Broad {
        broad::DEFAULT_LIMIT
    } else {
        DEFAULT_LIMIT
    };
    let filters = search_by_filters(
        p.filters.as_ref().unwrap_or(&SearchByFilters::default()),
        p.deleted_filter.as_deref(),
    )?;
    let req = SearchRequest {
        query: p.query.clone().unwrap_or_default(),
        engine: Engine::Literal,
        filters,
        mode,
        order,
        offset: usize::try_from(p.offset.unwrap_or(0)).unwrap_or(usize::MAX),
        limit: limit_of(p.limit, default_limit)?,
    };
    Ok((req, listing))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_argument_out_of_its_range_is_named_as_the_agent_gave_it() {
        let bad = SearchByFilters {
            trust_min: Some(0.5),
            ..SearchByFilters::default()
        };
        let said = search_by_filters(&bad, None)
            .expect_err("refused")
            .to_string();
        assert!(said.starts_with("filters.trust_min/trust_max"), "{said}");
        let good = SearchByFilters {
            trust_min: Some(2.0),
            weight_max: Some(0.5),
            ..SearchByFilters::default()
        };
        assert!(search_by_filters(&good, None).is_ok());
    }
}
