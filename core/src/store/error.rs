//! Store errors, each saying which file and what to do.

use std::path::PathBuf;

/// Everything that can go wrong opening or using a store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file exists but is not a memlens store.
    #[error("{path}: not a memlens store ({detail}); pass another --db path or move the file away")]
    NotAStore {
        /// The file.
        path: PathBuf,
        /// What was found instead.
        detail: String,
    },
    /// The file was written by a newer memlens.
    #[error(
        "{path}: written by a newer memlens (store schema {found}, this build reads up to {supported}); upgrade memlens"
    )]
    NewerSchema {
        /// The file.
        path: PathBuf,
        /// Schema version in the file.
        found: u32,
        /// Newest schema this build understands.
        supported: u32,
    },
    /// Another process holds the file.
    #[error(
        "{path}: the store is open in another memlens process; wait for it to finish (an import, a write) or close it (a browser), then try again"
    )]
    Locked {
        /// The file.
        path: PathBuf,
    },
    /// The file is damaged.
    #[error(
        "{path}: the store is damaged ({detail}); `memlens check --db {path}` tells what is damaged and what `memlens check --repair` can save, else restore it from a backup or an export"
    )]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What redb reported.
        detail: String,
    },
    /// Nothing of the file can be read: not even a repair saves anything of it.
    #[error(
        "{path}: nothing in the store can be read ({detail}), so nothing was repaired and the file is unchanged; restore it from a backup or an export"
    )]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// What redb reported.
        detail: String,
    },
    /// The file or its directory cannot be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A storage operation failed.
    #[error("{path}: storage error: {detail}")]
    Storage {
        /// The file.
        path: PathBuf,
        /// What redb reported.
        detail: String,
    },
    /// The files a store mirrors (a hivelore project) refused a change, which was
    /// therefore not committed: a file changed on disk since it was read, or could not
    /// be written. The text says which and why.
    #[error("{0}")]
    WriteThrough(String),
    /// No memory has this id.
    #[error("no memory with id `{0}`")]
    UnknownId(String),
    /// A memory that breaks a rule of the data model, or is not normalised, was refused;
    /// nothing of it was written.
    #[error("memory `{id}` cannot be stored: {detail}")]
    Invalid {
        /// The memory's id.
        id: String,
        /// The first rule it breaks.
        detail: String,
    },
}

impl StoreError {
    /// A storage error of the store in `path`: [`StoreError::Corrupt`] when it says the
    /// file is damaged (redb's `Corrupted`, a failed index checksum), else
    /// [`StoreError::Storage`].
    pub fn of_storage(path: &std::path::Path, e: impl std::fmt::Display) -> StoreError {
        let detail = e.to_string();
        // a read past the end of the file: a page the store points to is not there
        let cut_short = detail.contains("failed to fill whole buffer");
        if cut_short || detail.to_lowercase().contains("corrupt") {
            let detail = if cut_short {
                format!("the file ends before data it points to, as if cut short: {detail}")
            } else {
                detail
            };
            StoreError::Corrupt {
                path: path.to_path_buf(),
                detail,
            }
        } else {
            StoreError::Storage {
                path: path.to_path_buf(),
                detail,
            }
        }
    }

    /// The memory stored under document number `doc` in `path` cannot be decoded.
    pub fn corrupt_record(path: &std::path::Path, doc: u32) -> StoreError {
        StoreError::Corrupt {
            path: path.to_path_buf(),
            detail: format!("record {doc} cannot be decoded"),
        }
    }

    /// The memory stored under document number `doc` in `path` as `bytes` is damaged
    /// (`damage` says how); the error names it by its id as far as that can be read.
    pub fn damaged_memory(
        path: &std::path::Path,
        doc: u32,
        bytes: &[u8],
        damage: super::tables::Damage,
    ) -> StoreError {
        StoreError::Corrupt {
            path: path.to_path_buf(),
            detail: super::tables::damage_detail(doc, bytes, damage),
        }
    }
}

/// Result of a store operation.
pub type StoreResult<T> = Result<T, StoreError>;
