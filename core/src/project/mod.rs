//! A hivelore project curated in place: its `.ai/memories` files are the source of
//! truth, and the memlens store is that project's index.
//!
//! - The index lives in `<project>/.ai/.cache/memlens/index.redb`. hivelore keeps its
//!   own machine-local state (`usage.json`, embeddings) in `.ai/.cache/`, which its
//!   `init` git-ignores; memlens also writes a `.gitignore` of `*` into its directory,
//!   so the index stays out of git even in a project whose ignore rules lack it. The
//!   index goes with the project when it is moved or deleted.
//! - Opening brings the index up to date from the files changed since (size and
//!   modification time, then a content hash) and from `usage.json` ([`sync`]).
//! - Every commit is written through to the files first ([`through`]): only files whose
//!   text changes are written, each atomically (a temporary file and a rename), and
//!   within a file only the frontmatter entries that change.
//! - What hivelore has no field for (ratings, titles, scores, link kinds and strengths,
//!   deletion details) lives only in the index, keyed by id, and is kept when the file
//!   changes ([`merge`]).

pub mod deleted;
pub mod files;
pub mod live;
pub mod merge;
#[cfg(target_os = "linux")]
pub mod notify;
pub mod private;
pub mod splice;
pub mod sync;
pub mod through;
pub mod usage;

use crate::store::{LongStep, Store, StoreError};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why a project could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    /// The path is neither a project with `.ai/memories` nor such a directory.
    #[error(
        "{0}: not a hivelore project (no .ai/memories directory); pass the project root or its .ai/memories"
    )]
    NotAProject(PathBuf),
    /// A file or directory of the project could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The index store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl ProjectError {
    /// An I/O error on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> ProjectError {
        ProjectError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Where a hivelore project's parts are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    /// The project root (the directory holding `.ai`).
    pub root: PathBuf,
    /// Its `.ai/memories` directory.
    pub memories: PathBuf,
}

impl Project {
    /// The project at `path`: its root or its `.ai/memories` directory.
    pub fn locate(path: &Path) -> Result<Project, ProjectError> {
        let nested = path.join(".ai").join("memories");
        if nested.is_dir() {
            return Ok(Project {
                root: path.to_path_buf(),
                memories: nested,
            });
        }
        let is_memories = path.file_name().is_some_and(|n| n == "memories")
            && path
                .parent()
                .and_then(Path::file_name)
                .is_some_and(|n| n == ".ai");
        match path.parent().and_then(Path::parent) {
            Some(root) if is_memories && path.is_dir() => Ok(Project {
                root: if root.as_os_str().is_empty() {
                    PathBuf::from(".")
                } else {
                    root.to_path_buf()
                },
                memories: path.to_path_buf(),
            }),
            _ => Err(ProjectError::NotAProject(path.to_path_buf())),
        }
    }

    /// `.ai/.cache`, where hivelore keeps machine-local state.
    pub fn cache_dir(&self) -> PathBuf {
        self.root.join(".ai").join(".cache")
    }

    /// The directory of memlens's index.
    pub fn index_dir(&self) -> PathBuf {
        self.cache_dir().join("memlens")
    }

    /// The index store file.
    pub fn index_path(&self) -> PathBuf {
        self.index_dir().join("index.redb")
    }

    /// hivelore's read counts, `.ai/.cache/usage.json`.
    pub fn usage_path(&self) -> PathBuf {
        self.cache_dir().join(usage::USAGE_FILE)
    }

    /// A memory file's path from its path relative to `.ai/memories` (`/`-separated).
    pub fn file(&self, relative: &str) -> PathBuf {
        relative
            .split('/')
            .fold(self.memories.clone(), |p, part| p.join(part))
    }

    /// Opens the project's index, brings it up to date from the files, and returns it
    /// with every later change written through to the files.
    pub fn open(
        &self,
        before_long: &dyn Fn(LongStep),
    ) -> Result<(Store, sync::Synced), ProjectError> {
        let dir = self.index_dir();
        std::fs::create_dir_all(&dir).map_err(|e| ProjectError::io(&dir, e))?;
        let ignore = dir.join(".gitignore");
        if !ignore.exists() {
            std::fs::write(&ignore, "*\n").map_err(|e| ProjectError::io(&ignore, e))?;
        }
        let store = Store::open_announcing(&self.index_path(), before_long)?;
        let synced = sync::bring_up_to_date(&store, self)?;
        let hook = Arc::new(through::Through::new(self.clone()));
        Ok((store.with_write_through(hook), synced))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_is_found_from_its_root_or_its_memories() {
        let dir = std::env::temp_dir().join(format!("memlens-locate-{}", std::process::id()));
        let memories = dir.join(".ai").join("memories");
        std::fs::create_dir_all(&memories).unwrap();
        assert_eq!(Project::locate(&dir).unwrap().memories, memories);
        assert_eq!(Project::locate(&memories).unwrap().root, dir);
        assert!(Project::locate(&dir.join(".ai")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
