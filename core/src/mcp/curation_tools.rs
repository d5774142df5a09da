//! The curation verbs agents call: approve, reject (with a reason), rate 1–5, soft
//! delete (with a reason), link and unlink. Each sends the [`Change`] that `memlens
//! approve|reject|rate|delete|link|unlink` sends and answers with the lines that command
//! prints; a person can undo it from the browser like any other change.

use super::params::Parameters;
use super::schema::input_schema;
use super::{MemoryServer, ToolError};
use crate::curate::{Change, Edit, apply};
use rmcp::model::CallToolResult;
use rmcp::{Peer, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;
use serde_json::json;

/// One memory.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IdParams {
    /// The memory's id
    pub id: String,
}

/// One memory and why.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RejectParams {
    /// The memory's id
    pub id: String,
    /// Why it is rejected (kept as stale_reason; without one, a recorded stale_reason stays)
    pub reason: Option<String>,
}

/// A rating.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RateParams {
    /// The memory's id
    pub memory_id: String,
    /// A whole number 1–5
    #[schemars(range(min = 1, max = 5))]
    pub rating: i64,
}

/// A soft delete.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteParams {
    /// The memory's id
    pub memory_id: String,
    /// Why it is deleted
    pub reason: Option<String>,
}

/// Two memories to link.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkParams {
    /// One memory (it holds the relationship)
    pub a: String,
    /// The other memory
    pub b: String,
    /// The relationship kind (default related)
    pub kind: Option<String>,
}

/// Two memories to unlink.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnlinkParams {
    /// One memory
    pub a: String,
    /// The other memory
    pub b: String,
}

impl MemoryServer {
    /// Applies `change` and answers with what changed, as the command prints it.
    async fn curate(&self, change: Result<Change, ToolError>) -> CallToolResult {
        self.writing(move |store| {
            let change = change?;
            let applied = apply(store, &change)?;
            let mut lines = Vec::new();
            crate::curate::report(&change, &applied, &mut lines)?;
            let changed: Vec<&str> = applied.changed().iter().map(|e| e.id.as_str()).collect();
            let mut answer = json!({
                "changed": changed,
                "unchanged": applied.unchanged,
                "report": String::from_utf8_lossy(&lines).trim_end(),
            });
            let deleted = applied.left_deleted();
            if !deleted.is_empty() {
                answer["still_deleted"] = json!(deleted);
                answer["note"] = json!(super::STILL_DELETED);
            }
            Ok(answer)
        })
        .await
    }
}

/// The rater of an agent's ratings: `agent:` and the name its client gave when the
/// session began (`agent` alone without one), never the person's name, so that a
/// person's rating and each agent's are kept apart.
pub(super) fn agent_rater(client: Option<String>) -> String {
    let name: String = client
        .unwrap_or_default()
        .chars()
        .filter(|c| !c.is_control())
        .collect();
    match name.trim() {
        "" => "agent".to_string(),
        name => format!("agent:{name}"),
    }
}

#[tool_router(router = curation_tools, vis = "pub(super)")]
impl MemoryServer {
    /// hivelore's approve.
    #[tool(
        name = "mem_approve",
        description = "Approve a memory: status validated, validated_by agent (a memory that asks a person's approval still waits for one).",
        input_schema = input_schema::<IdParams>()
    )]
    pub async fn mem_approve(&self, Parameters(p): Parameters<IdParams>) -> CallToolResult {
        self.curate(Ok(Change::edit([p.id], Edit::ApproveByAgent)))
            .await
    }

    /// hivelore's reject.
    #[tool(
        name = "mem_reject",
        description = "Reject a memory: status rejected; the reason, when given, kept as stale_reason.",
        input_schema = input_schema::<RejectParams>()
    )]
    pub async fn mem_reject(&self, Parameters(p): Parameters<RejectParams>) -> CallToolResult {
        let edit = Edit::RejectByAgent { reason: p.reason };
        self.curate(Ok(Change::edit([p.id], edit))).await
    }

    /// remember-mcp's rating.
    #[tool(
        name = "remember_rate",
        description = "Rate a memory 1–5 as this agent (rated by `agent:` and the client's name; a new rating replaces this agent's earlier one); its Bayesian rating follows.",
        input_schema = input_schema::<RateParams>()
    )]
    pub async fn remember_rate(
        &self,
        Parameters(p): Parameters<RateParams>,
        peer: Peer<RoleServer>,
    ) -> CallToolResult {
        let rater = agent_rater(peer.peer_info().map(|info| info.client_info.name.clone()));
        let change = u8::try_from(p.rating)
            .ok()
            .filter(|n| (1..=5).contains(n))
            .map(|rating| Change::edit([p.memory_id], Edit::RateAs { rater, rating }))
            .ok_or_else(|| {
                ToolError::usage(format!("rating: {} is not a whole number 1–5", p.rating))
            });
        self.curate(change).await
    }

    /// remember-mcp's delete (soft).
    #[tool(
        name = "remember_delete",
        description = "Soft-delete a memory with a reason; it stays in the store and can be restored.",
        input_schema = input_schema::<DeleteParams>()
    )]
    pub async fn remember_delete(&self, Parameters(p): Parameters<DeleteParams>) -> CallToolResult {
        self.curate(Ok(Change::edit(
            [p.memory_id],
            Edit::Delete { reason: p.reason },
        )))
        .await
    }

    /// Link two memories.
    #[tool(
        name = "mem_link",
        description = "Link two memories (undirected); linking again with another kind changes the kind.",
        input_schema = input_schema::<LinkParams>()
    )]
    pub async fn mem_link(&self, Parameters(p): Parameters<LinkParams>) -> CallToolResult {
        self.curate(Ok(Change::Link {
            a: p.a,
            b: p.b,
            kind: p.kind.unwrap_or_default(),
        }))
        .await
    }

    /// Unlink two memories.
    #[tool(
        name = "mem_unlink",
        description = "Remove the link between two memories, whichever side holds it.",
        input_schema = input_schema::<UnlinkParams>()
    )]
    pub async fn mem_unlink(&self, Parameters(p): Parameters<UnlinkParams>) -> CallToolResult {
        self.curate(Ok(Change::Unlink { a: p.a, b: p.b })).await
    }
}
