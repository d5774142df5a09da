//! One function per subcommand. Each writes its output to the writers it is given (so
//! tests can read it) and returns a [`CommandError`] that `main` prints as `error: …`.

pub mod allocation;
pub mod browse;
pub mod check;
pub mod curate;
pub mod export;
pub mod get;
pub mod import;
pub mod mcp;
pub mod review;
pub mod search;
pub mod stats;

use memlens::demo::DemoError;
use memlens::exchange::ExchangeError;
pub use memlens::existing::{OpenError, must_exist, open_existing, read_existing, temp_beside};
use memlens::paths::NoDataDir;
use memlens::store::StoreError;
use std::path::PathBuf;

/// Why a subcommand failed.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// The store could not be opened or used.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// An import or export failed.
    #[error(transparent)]
    Exchange(#[from] ExchangeError),
    /// An import stopped by an input it could not read (a file cut short, a directory
    /// it may not read): nothing was written.
    #[error("{0}; nothing was imported (the store is unchanged)")]
    ImportStopped(ExchangeError),
    /// No default place for the store.
    #[error(transparent)]
    NoDataDir(#[from] NoDataDir),
    /// The store is not there, or could not be opened.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// The demo store could not be built.
    #[error(transparent)]
    Demo(#[from] DemoError),
    /// Output could not be written.
    #[error("{path}: {source}")]
    Io {
        /// Where it was being written.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// `memlens check` found problems (listed on stdout).
    #[error("{path}: {problems}; see above for what to do")]
    ProblemsFound {
        /// The store checked.
        path: PathBuf,
        /// How many, in words.
        problems: String,
    },
    /// The arguments do not make sense together (exit code 2).
    #[error("{0}")]
    Usage(String),
    /// `memlens mcp` stopped with an error (the session broke).
    #[error(transparent)]
    Serve(#[from] memlens::mcp::ServeError),
    /// The front door refused a request (a damaged index value, a change refused).
    #[error(transparent)]
    Collection(memlens::collection::CollectionError),
}

impl From<memlens::collection::CollectionError> for CommandError {
    fn from(e: memlens::collection::CollectionError) -> CommandError {
        match e {
            memlens::collection::CollectionError::Store(e) => CommandError::Store(e),
            other => CommandError::Collection(other),
        }
    }
}

impl CommandError {
    /// Lines to print after the `error:` line (the problems of a failed import).
    pub fn details(&self) -> Vec<String> {
        match self {
            CommandError::Exchange(ExchangeError::Invalid { problems, .. }) => problems.lines(),
            _ => Vec::new(),
        }
    }

    /// True when output went to a pipe its reader closed (`memlens export | head`):
    /// not a failure worth reporting.
    pub fn is_broken_pipe(&self) -> bool {
        let io = match self {
            CommandError::Io { source, .. } => source,
            CommandError::Exchange(ExchangeError::Io { source, .. }) => source,
            _ => return false,
        };
        io.kind() == std::io::ErrorKind::BrokenPipe
    }

    /// The process exit code: 2 for a usage error, else 1.
    pub fn exit_code(&self) -> u8 {
        match self {
            CommandError::Usage(_) => 2,
            _ => 1,
        }
    }

    /// An output error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> CommandError {
        CommandError::Io {
            path: path.into(),
            source,
        }
    }
}

/// Result of a subcommand.
pub type CommandResult<T> = Result<T, CommandError>;

pub use memlens::words::memories;
