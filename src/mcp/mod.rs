//! `memlens mcp`: the agents' memory tools over the Model Context Protocol (stdio), with
//! the names and parameters agents already call in hivelore (`mem_*`) and remember-mcp
//! (`remember_*`), so existing prompts keep working. Every tool calls the library code
//! the command line calls — the same [`crate::search::SearchRequest`], filters and
//! [`crate::search::listing::answer`], the same [`crate::curate::Change`] — and opens
//! the store only for the span of one call (see [`crate::store::shared`]), so a person's
//! commands and other agents' servers share the file.
//!
//! One file per group of tools: [`search_tools`] (`mem_search`, `remember_search_by`),
//! [`memory_tools`] (`remember_create_memory`, `remember_update_memory`, `mem_get`),
//! [`curation_tools`] (approve, reject, rate, delete, link, unlink). Bad arguments
//! answer a tool error with a message (rmcp turns arguments that do not deserialize into
//! one too); nothing a caller sends ends the server.

pub mod curation_tools;
mod error;
pub mod memory_tools;
mod params;
mod schema;
pub mod search_tools;

pub use error::ToolError;

use crate::store::{Store, StoreReader};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, tool_handler};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The server: the store's path and the tools.
#[derive(Clone)]
pub struct MemoryServer {
    path: Arc<PathBuf>,
    tool_router: ToolRouter<MemoryServer>,
}

impl MemoryServer {
    /// A server of the store at `path` (opened per call, never held between calls).
    pub fn new(path: &Path) -> MemoryServer {
        MemoryServer {
            path: Arc::new(path.to_path_buf()),
            tool_router: MemoryServer::search_tools()
                + MemoryServer::memory_tools()
                + MemoryServer::curation_tools(),
        }
    }

    /// Runs `work` with the store opened for writing (waiting while another process
    /// holds it), off the async threads, as a tool's answer.
    async fn writing(
        &self,
        work: impl FnOnce(&Store) -> Result<Value, ToolError> + Send + 'static,
    ) -> CallToolResult {
        let path = Arc::clone(&self.path);
        blocking(move || {
            crate::store::guarded(&path, || {
                let store = crate::commands::open_existing(&path)?;
                work(&store)
            })
        })
        .await
    }

    /// Runs `work` on a snapshot of the store (read-only when it can be), off the async
    /// threads, as a tool's answer.
    async fn reading(
        &self,
        work: impl FnOnce(StoreReader) -> Result<Value, ToolError> + Send + 'static,
    ) -> CallToolResult {
        let path = Arc::clone(&self.path);
        blocking(move || {
            crate::store::guarded(&path, || {
                let reader = crate::commands::read_existing(&path)?;
                work(reader)
            })
        })
        .await
    }
}

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
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("memlens", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "memlens: the memories agents keep, shared with the people who curate them. \
                 mem_search and remember_search_by find memories; remember_create_memory and \
                 remember_update_memory write them; mem_get reads one; mem_approve, mem_reject, \
                 remember_rate, remember_delete, mem_link and mem_unlink curate.",
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
    let running = MemoryServer::new(path)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| ServeError::Protocol(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| ServeError::Protocol(e.to_string()))?;
    Ok(())
}
