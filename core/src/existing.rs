//! Opening a store that must already exist, as every client does: commands that only
//! read never create one, and the agents' server serves only a store that is there.
//! An open that takes a long step over every memory (once after an upgrade) says so on
//! stderr first, so that the wait is explained.

use crate::store::{LongStep, Store, StoreError, StoreReader, guarded};
use std::path::{Path, PathBuf};

/// Why an existing store could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// No file at the path.
    #[error(
        "{path}: no store here yet; import memories first (memlens import --db {path} FILE), or try `memlens demo`, which opens example memories in a store of its own"
    )]
    NoStore {
        /// The path given.
        path: PathBuf,
    },
    /// The file is there but holds nothing (no store was ever written to it).
    #[error(
        "{path}: the file is empty, not a memlens store; nothing was written to it (give the path of a store, or import memories into this one: memlens import --db {path} FILE)"
    )]
    Empty {
        /// The path given.
        path: PathBuf,
    },
    /// The file is there but could not be opened or read.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Nothing when a file that is not empty is at `path`, else the error that says to
/// import first (an empty file would otherwise be made a new store by opening it).
pub fn must_exist(path: &Path) -> Result<(), OpenError> {
    let path_buf = || path.to_path_buf();
    match std::fs::metadata(path) {
        // what `Path::exists` says no to
        Err(_) => Err(OpenError::NoStore { path: path_buf() }),
        Ok(m) if m.is_file() && m.len() == 0 => Err(OpenError::Empty { path: path_buf() }),
        // anything else is the store's open to judge (and to explain)
        _ => Ok(()),
    }
}

/// Opens the store at `path`, which must already exist.
pub fn open_existing(path: &Path) -> Result<Store, OpenError> {
    must_exist(path)?;
    guarded(path, || {
        let announce = announce_long_steps(path);
        Ok(crate::store::shared::store_when_free(|| {
            Store::open_announcing(path, &announce)
        })?)
    })
}

/// A snapshot of a store that must already exist, for what only reads: opened without
/// write access when it can be, so reading never writes to the file.
pub fn read_existing(path: &Path) -> Result<StoreReader, OpenError> {
    must_exist(path)?;
    guarded(path, || {
        match crate::store::shared::store_when_free(|| Store::snapshot(path))? {
            Some(reader) => Ok(reader),
            None => Ok(open_existing(path)?.into_reader()?),
        }
    })
}

/// What runs before an open of the store at `path` takes a long step over every
/// memory: it says so on stderr.
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
