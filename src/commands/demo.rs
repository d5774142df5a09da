//! `memlens demo`: a fresh store built from the demo collection embedded in the binary
//! (`assets/demo.jsonl`), marked as a demo store in its metadata.
//!
//! The store is built beside its final name and renamed into place, so the file at the
//! path is always either the old store or the complete new one. An existing file is
//! replaced only when it is an earlier demo store: a person's real store is never
//! touched. [`run`] returns the path; `main` decides what to open on it.

use super::{CommandError, CommandResult};
use crate::exchange::{Format, ImportOptions, ImportSource, OnConflict, import_into};
use crate::model::Timestamp;
use crate::store::{Store, StoreError};
use std::path::{Path, PathBuf};

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
pub fn run(path: &Path, now: Timestamp) -> CommandResult<PathBuf> {
    if path.exists() {
        crate::store::guarded(path, || check_replaceable(path))?;
    }
    let temp = super::temp_beside(path, "building");
    let built = build(&temp, now)
        .and_then(|()| std::fs::rename(&temp, path).map_err(|e| CommandError::io(path, e)));
    if built.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    built.map(|()| path.to_path_buf())
}

/// True when the store at `path` is a demo store.
pub fn is_demo_store(store: &Store) -> Result<bool, StoreError> {
    Ok(store.read()?.meta(DEMO_KEY)?.as_deref() == Some(DEMO_MARKER))
}

fn check_replaceable(path: &Path) -> CommandResult<()> {
    let not_demo = |reason: &str| CommandError::NotADemo {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    };
    let meta = std::fs::metadata(path).map_err(|e| CommandError::io(path, e))?;
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

fn build(temp: &Path, now: Timestamp) -> CommandResult<()> {
    if temp.exists() {
        std::fs::remove_file(temp).map_err(|e| CommandError::io(temp, e))?;
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
