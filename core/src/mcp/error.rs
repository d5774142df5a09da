//! What a tool call can fail with; each becomes an error result whose text is the
//! message, the same message the command line prints after `error:`.

use crate::collection::CollectionError;
use crate::curate::CurateError;
use crate::existing::OpenError;
use crate::search::FilterError;
use crate::store::StoreError;

/// Why a tool call failed. Nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The arguments make no sense (an unknown mode, a value out of range, …).
    #[error("{0}")]
    Usage(String),
    /// A filter that does not parse.
    #[error(transparent)]
    Filter(#[from] FilterError),
    /// A curation change that was refused.
    #[error(transparent)]
    Curate(#[from] CurateError),
    /// The store could not be used.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The store could not be opened.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// The front door could not answer (a damaged store, a refused change).
    #[error(transparent)]
    Collection(#[from] CollectionError),
}

impl ToolError {
    /// A usage error with this message.
    pub fn usage(message: impl Into<String>) -> ToolError {
        ToolError::Usage(message.into())
    }
}
