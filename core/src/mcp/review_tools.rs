//! The review queues for agents: `memlens_review` lists one queue (approval, pending,
//! agent, stale, duplicates, conflicts) narrowed to a search, as `memlens review` and
//! the browser's Review tab list it — the same front-door request
//! ([`crate::collection::Collection::review`]), so a person and an agent see the same
//! lists, and an agent can say what waits for a person.

use super::params::Parameters;
use super::schema::input_schema;
use super::search_tools::{DEFAULT_LIMIT, SearchByFilters, limit_of, search_by_filters};
use super::{MemoryServer, ToolError};
use crate::collection::Collection;
use crate::review::{Queue, ReviewRequest};
use crate::search::{Engine, SearchRequest};
use rmcp::model::CallToolResult;
use rmcp::{schemars, tool, tool_router};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// The queue names, as the command line takes them.
const QUEUES: [&str; 6] = [
    "approval",
    "pending",
    "agent",
    "stale",
    "duplicates",
    "conflicts",
];

/// The arguments of `memlens_review`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReviewParams {
    /// The queue: approval (needs a person's approval), pending (draft and proposed,
    /// most read first), agent (validated by an agent or automatically), stale,
    /// duplicates (pairs), conflicts (pairs)
    #[schemars(extend("enum" = QUEUES))]
    pub queue: String,
    /// Keep only entries whose memory (of a pair: either one) matches this query
    /// (every word, else any word)
    pub query: Option<String>,
    /// Rank the query with BM25 instead of literal matching (the set kept is the same
    /// kind: what the engine finds)
    pub lexical_rank: Option<bool>,
    /// Keep only entries whose memory (of a pair: either one) passes these filters
    pub filters: Option<SearchByFilters>,
    /// Max entries (default 10, at most 100)
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u64>,
    /// Entries to skip
    pub offset: Option<u64>,
}

#[tool_router(router = review_tools, vis = "pub(super)")]
impl MemoryServer {
    /// The review queues.
    #[tool(
        name = "memlens_review",
        description = "List what waits for a person in one review queue: approval, pending, agent, stale, duplicates or conflicts (pairs: the memory to keep and the other one), narrowed to a query and filters. Returns the queue, its total, every queue's count, and the entries with their reason.",
        input_schema = input_schema::<ReviewParams>()
    )]
    pub async fn memlens_review(&self, Parameters(p): Parameters<ReviewParams>) -> CallToolResult {
        let request = review_request(&p);
        self.reading(move |memories| {
            let page = memories.review(&request?)?;
            let counts: Map<String, Value> = Queue::ALL
                .iter()
                .filter_map(|q| page.counts[q.index()].map(|n| (q.as_str().to_string(), n.into())))
                .collect();
            let entries: Vec<Value> = page.items.iter().map(|i| Value::Object(i.json())).collect();
            Ok(json!({
                "queue": page.queue.as_str(),
                "total": page.total,
                "counts": counts,
                "entries": entries,
            }))
        })
        .await
    }
}

/// The front door's request for `memlens_review`'s arguments.
pub fn review_request(p: &ReviewParams) -> Result<ReviewRequest, ToolError> {
    let queue: Queue = p.queue.parse().map_err(ToolError::Usage)?;
    let filters = match &p.filters {
        Some(f) => search_by_filters(f, None)?,
        None => Default::default(),
    };
    let query = p.query.clone().unwrap_or_default();
    Ok(ReviewRequest {
        queue,
        narrow: SearchRequest {
            engine: match p.lexical_rank {
                Some(true) => Engine::Bm25,
                _ => Engine::Literal,
            },
            query,
            filters,
            ..SearchRequest::default()
        },
        offset: p.offset.unwrap_or(0) as usize,
        limit: limit_of(p.limit, DEFAULT_LIMIT)?,
        root: None,
    })
}
