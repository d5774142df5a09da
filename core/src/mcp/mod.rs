//! `memlens mcp`: the agents' memory tools over the Model Context Protocol (stdio), with
//! the names and parameters agents already call in hivelore (`mem_*`) and remember-mcp
//! (`remember_*`), so existing prompts keep working. Every tool calls the library code
//! the command line calls — the same [`crate::search::SearchRequest`], filters and
//! [`crate::search::listing::answer`], the same [`crate::curate::Change`] — on one
//! collection the server holds open ([`held`]); the store is shared, so the browser, a
//! person's commands and other agents' servers use the same file at once and every
//! call sees what they wrote.
//!
//! One file per group of tools: [`search_tools`] (`mem_search`, `remember_search_by`),
//! [`memory_tools`] (`remember_create_memory`, `remember_update_memory`, `mem_get`),
//! [`curation_tools`] (approve, reject, rate, delete, link, unlink), [`review_tools`]
//! (`memlens_review`: the review queues). Bad arguments
//! answer a tool error with a message (rmcp turns arguments that do not deserialize into
//! one too); nothing a caller sends ends the server.

pub mod curation_tools;
mod error;
mod held;
pub mod memory_tools;
mod params;
pub mod review_tools;
mod schema;
pub mod search_tools;
mod stdio;

pub use error::ToolError;

use crate::collection::LocalCollection;
use crate::store::Store;
use held::{Held, Open};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, tool_handler};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

/// The server: the store it holds and the tools.
#[derive(Clone)]
pub struct MemoryServer {
    held: Arc<Held>,
    tool_router: ToolRouter<MemoryServer>,
}

impl MemoryServer {
    /// A server of the store at `path`, opened by the first call and kept open.
    pub fn new(path: &Path) -> MemoryServer {
        MemoryServer {
            held: Arc::new(Held::new(path)),
            tool_router: MemoryServer::search_tools()
                + MemoryServer::memory_tools()
                + MemoryServer::curation_tools()
                + MemoryServer::review_tools(),
        }
    }

    /// Opens the store now (when it exists) and starts loading its index, so that the
    /// first call finds them ready; a store that cannot be opened yet is tried again
    /// by each call, which answers why.
    pub async fn open_early(&self) {
        let held = Arc::clone(&self.held);
        let _ = tokio::task::spawn_blocking(move || held.open()).await;
    }

    /// Runs `work` on the open store, off the async threads, as a tool's answer.
    async fn with_open(
        &self,
        work: impl FnOnce(&Open) -> Result<Value, ToolError> + Send + 'static,
    ) -> CallToolResult {
        let held = Arc::clone(&self.held);
        blocking(move || {
            crate::store::guarded(held.path(), || {
                let open = held.open()?;
                work(&open)
            })
        })
        .await
    }

    /// Runs `work` with the store to write to, as a tool's answer.
    async fn writing(
        &self,
        work: impl FnOnce(&Store) -> Result<Value, ToolError> + Send + 'static,
    ) -> CallToolResult {
        self.with_open(move |open| work(&open.store)).await
    }

    /// Runs `work` on the collection (searches and reads), as a tool's answer.
    async fn reading(
        &self,
        work: impl FnOnce(&LocalCollection) -> Result<Value, ToolError> + Send + 'static,
    ) -> CallToolResult {
        self.with_open(move |open| work(&open.memories)).await
    }
}

/// What a write to a soft-deleted memory answers beside its result: the change is
/// kept, but no search lists the memory until a person restores it.
const STILL_DELETED: &str = "changed, but the memory is soft-deleted: no search lists it until it is restored (memlens restore ID)";

/// Runs blocking store work on tokio's blocking threads and turns its outcome into a
/// tool result: JSON on success, an error result with the message otherwise.
async fn blocking(
    work: impl FnOnce() -> Result<Value, ToolError> + Send + 'static,
) -> CallToolResult {
    let outcome = match tokio::task::spawn_blocking(work).await {
        Ok(outcome) => outcome,
        Err(e) => Err(ToolError::Usage(format!("the tool failed: {e}"))),
    };
    result(outcome)
}

/// A tool's outcome as an MCP result.
fn result(outcome: Result<Value, ToolError>) -> CallToolResult {
    match outcome {
        Ok(value) => CallToolResult::structured(value),
        Err(e) => CallToolResult::error(vec![ContentBlock::text(e.to_string())]),
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for MemoryServer {
    /// Calls the tool named; a name of no tool is invalid params naming it and the
    /// tools there are (the protocol library's own error said only "tool not found").
    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        if !self.tool_router.has_route(&request.name) {
            let names: Vec<String> = (self.tool_router.list_all().into_iter())
                .map(|t| t.name.to_string())
                .collect();
            let message = format!(
                "no tool is named {:?}; the tools are {}",
                request.name,
                names.join(", ")
            );
            return Err(rmcp::ErrorData::invalid_params(message, None));
        }
        let call = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        self.tool_router.call(call).await
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("memlens", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "memlens: the memories agents keep, shared with the people who curate them. \
                 mem_search and remember_search_by find memories; remember_create_memory and \
                 remember_update_memory write them; mem_get reads one; mem_approve, mem_reject, \
                 remember_rate, remember_delete, mem_link and mem_unlink curate; memlens_review \
                 lists what waits for a person (approval, pending, duplicates, …).",
            )
    }
}

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The MCP session could not start or broke.
    #[error("MCP server: {0}")]
    Protocol(String),
}

/// Serves the tools on standard input and output until the client closes them.
pub async fn serve_stdio(path: &Path) -> Result<(), ServeError> {
    let server = MemoryServer::new(path);
    server.open_early().await;
    let (transport, carried) = stdio::lines(tokio::io::stdin(), tokio::io::stdout());
    let carrying = tokio::spawn(carried);
    let served = match server.serve(transport).await {
        Ok(running) => running.waiting().await.map(drop).map_err(|e| e.to_string()),
        // the client left before the session began: nothing was asked, nothing failed
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => Ok(()),
        Err(e) => Err(e.to_string()),
    };
    // every line the server wrote reaches the client before the process ends
    let _ = carrying.await;
    served.map_err(ServeError::Protocol)
}
