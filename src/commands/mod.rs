//! One function per subcommand. Each writes its output to the writers it is given (so
//! tests can read it) and returns a [`CommandError`] that `main` prints as `error: …`.

pub mod browse;
pub mod check;
pub mod demo;
pub mod export;
pub mod get;
pub mod import;
pub mod import_allocator;
pub mod mcp;
pub mod review;
pub mod stats;

use crate::exchange::ExchangeError;
use crate::paths::NoDataDir;
use crate::store::{LongStep, Store, StoreError, guarded};
use std::path::{Path, PathBuf};

/// Why a subcommand failed.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// The store could not be opened or used.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// An import or export failed.
    #[error(transparent)]
    Exchange(#[from] ExchangeError),
    /// No default place for the store.
    #[error(transparent)]
    NoDataDir(#[from] NoDataDir),
    /// A command that only reads was pointed at a file that does not exist.
    #[error(
        "{path}: no store here yet; import memories first (memlens import --db {path} FILE) or try `memlens demo`"
    )]
    NoStore {
        /// The path given.
        path: PathBuf,
    },
    /// `demo` was pointed at a file that is not a demo store.
    #[error(
        "{path}: {reason}; `memlens demo` only replaces a missing file or an earlier demo store, so pick another --db path"
    )]
    NotADemo {
        /// The path given.
        path: PathBuf,
        /// What the file is.
        reason: String,
    },
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
    /// The front door refused a request (a damaged index value, a change refused).
    #[error(transparent)]
    Collection(crate::collection::CollectionError),
}

impl From<crate::collection::CollectionError> for CommandError {
    fn from(e: crate::collection::CollectionError) -> CommandError {
        match e {
            crate::collection::CollectionError::Store(e) => CommandError::Store(e),
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

/// Opens a store that must already exist (commands that only read never create one).
pub fn open_existing(path: &Path) -> CommandResult<Store> {
    if !path.exists() {
        return Err(CommandError::NoStore {
            path: path.to_path_buf(),
        });
    }
    guarded(path, || {
        let announce = announce_long_steps(path);
        Ok(crate::store::shared::store_when_free(|| {
            Store::open_announcing(path, &announce)
        })?)
    })
}

/// What runs before an open of the store at `path` takes a long step over every
/// memory (once after an upgrade): it says so on stderr, so that the wait is explained.
pub fn announce_long_steps(path: &Path) -> impl Fn(LongStep) + '_ {
    move |step| {
        use std::io::Write;
        let _ = writeln!(crate::text::stderr(), "{}", long_step_notice(path, step));
    }
}

/// What `memlens` says before an open of the store at `path` takes `step`.
pub fn long_step_notice(path: &Path, step: LongStep) -> String {
    let what = match step {
        LongStep::RebuildIndex => "rebuilding the search index for this version of memlens",
        LongStep::AddChecksums => "adding a checksum to every memory for this version of memlens",
    };
    format!(
        "memlens: {}: {what} (once; a large store takes a while)",
        path.display()
    )
}

/// What `memlens` says before it rebuilds the index of the store at `path`.
pub fn rebuild_notice(path: &Path) -> String {
    long_step_notice(path, LongStep::RebuildIndex)
}

/// A snapshot of a store that must already exist, for commands that only read: opened
/// without write access when it can be, so reading never writes to the file.
pub fn read_existing(path: &Path) -> CommandResult<crate::store::StoreReader> {
    guarded(path, || {
        match crate::store::shared::store_when_free(|| Store::snapshot(path))? {
            Some(reader) => Ok(reader),
            None => Ok(open_existing(path)?.into_reader()?),
        }
    })
}

/// A temporary file beside `path` (same directory, so renaming it into place is
/// atomic), named after it, this process and `purpose`.
pub fn temp_beside(path: &Path, purpose: &str) -> PathBuf {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    dir.join(format!(".{name}.{}.{purpose}", std::process::id()))
}

/// `1 memory`, `3 memories`.
pub fn memories(n: usize) -> String {
    if n == 1 {
        "1 memory".into()
    } else {
        format!("{n} memories")
    }
}
