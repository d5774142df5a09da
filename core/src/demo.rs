//! The demo store (`memlens demo`): a fresh store built from the demo collection embedded in the binary
//! (`assets/demo.jsonl`), marked as a demo store in its metadata.
//!
//! The store is built beside its final name and renamed into place, so the file at the
//! path is always either the old store or the complete new one. An existing file is
//! replaced only when it is an earlier demo store: a person's real store is never
//! touched. [`build_at`] returns the path; `main` decides what to open on it.

use crate::exchange::ExchangeError;
use crate::exchange::{Format, ImportOptions, ImportSource, OnConflict, import_into};
use crate::model::Timestamp;
use crate::store::{Store, StoreError};
use std::path::{Path, PathBuf};

/// Why the demo store could not be built.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    /// The path holds something that is not an earlier demo store.
    #[error(
        "{path}: {reason}; `memlens demo` only replaces a missing file or an earlier demo store, so pick another --db path"
    )]
    NotADemo {
        /// The path given.
        path: PathBuf,
        /// What the file is.
        reason: String,
    },
    /// The file could not be read, written or renamed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The store could not be opened or written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The demo collection did not import.
    #[error(transparent)]
    Exchange(#[from] ExchangeError),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> DemoError + '_ {
    move |source| DemoError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The demo collection.
pub const DEMO_JSONL: &str = include_str!("../../assets/demo.jsonl");
/// Name the demo collection's problems would be reported under.
pub const DEMO_NAME: &str = "assets/demo.jsonl";
/// `META` key that marks a demo store.
pub const DEMO_KEY: &str = "demo";
/// Its value.
pub const DEMO_MARKER: &[u8] = b"memlens demo collection";

/// Builds the demo store at `path` (replacing an earlier demo store there) and returns
/// the path.
pub fn build_at(path: &Path, now: Timestamp) -> Result<PathBuf, DemoError> {
    if path.exists() {
        crate::store::guarded(path, || check_replaceable(path))?;
    }
    let temp = crate::existing::temp_beside(path, "building");
    let built = build(&temp, now).and_then(|()| std::fs::rename(&temp, path).map_err(io(path)));
    if built.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    built.map(|()| path.to_path_buf())
}

/// True when the store at `path` is a demo store.
pub fn is_demo_store(store: &Store) -> Result<bool, StoreError> {
    Ok(store.read()?.meta(DEMO_KEY)?.as_deref() == Some(DEMO_MARKER))
}

fn check_replaceable(path: &Path) -> Result<(), DemoError> {
    let not_demo = |reason: &str| DemoError::NotADemo {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    };
    let meta = std::fs::metadata(path).map_err(io(path))?;
    if meta.is_dir() {
        return Err(not_demo("it is a directory"));
    }
    if meta.len() == 0 {
        return Err(not_demo("it is an empty file, not a demo store"));
    }
    let store = match Store::open(path) {
        Ok(store) => store,
        Err(StoreError::NotAStore { .. }) => return Err(not_demo("it is not a memlens store")),
        Err(StoreError::NewerSchema { .. }) => {
            return Err(not_demo("it is a store of a newer memlens"));
        }
        Err(e) => return Err(e.into()),
    };
    if is_demo_store(&store)? {
        Ok(())
    } else {
        Err(not_demo("it is a memlens store that is not a demo store"))
    }
}

fn build(temp: &Path, now: Timestamp) -> Result<(), DemoError> {
    if temp.exists() {
        std::fs::remove_file(temp).map_err(io(temp))?;
    }
    // a fresh file: nothing to rebuild
    let store = Store::open_for_import(temp, &|_| {})?;
    let mut writer = store.write()?;
    let source = ImportSource::Text {
        name: DEMO_NAME.into(),
        text: DEMO_JSONL.into(),
        format: Format::Jsonl,
    };
    let options = ImportOptions {
        on_conflict: OnConflict::Fail,
        dry_run: false,
        now,
        ..ImportOptions::default()
    };
    import_into(&mut writer, &[source], &options)?;
    writer.set_meta(DEMO_KEY, DEMO_MARKER)?;
    writer.commit()?;
    Ok(())
}
