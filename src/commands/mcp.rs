//! `memlens mcp`: serves the agents' memory tools ([`memlens::mcp`]) on standard input and
//! output until the client closes them.

use super::{CommandError, CommandResult};
use std::path::Path;

/// Runs the server on a runtime of its own. Nothing else may write to stdout meanwhile:
/// it carries the protocol.
pub fn run(store_path: &Path) -> CommandResult<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CommandError::io("tokio runtime", e))?;
    runtime
        .block_on(memlens::mcp::serve_stdio(store_path))
        .map_err(CommandError::Serve)
}
