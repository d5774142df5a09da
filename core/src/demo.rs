//! The demo store (`memlens demo`): a fresh store built from the demo collection embedded in the binary
//! (`assets/demo.jsonl`), marked as a demo store in its metadata.
//!
//! The store is built beside its final name and renamed into place, so the file at the
//! path is always either the old store or the complete new one. An existing file is
//! replaced only when it is an earlier demo store: a person's real store is never
//! touched. An earlier demo store that holds changes made since it was built (an
//! import, a curation: anything but tracked reads) is not lost either: it is renamed
//! aside, and [`Built::kept`] names where. [`build_at`] returns the path; `main`
//! decides what to open on it.

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
/// `META` key of the demo store's [`digest`] as it was built.
pub const DIGEST_KEY: &str = "demo_digest";

/// What [`build_at`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Built {
    /// The demo store, fresh.
    pub path: PathBuf,
    /// Where the earlier demo store went, when it held changes made since it was built.
    pub kept: Option<PathBuf>,
}

/// Builds the demo store at `path`, replacing an earlier demo store there; one that
/// holds changes made since it was built (or was built before memlens could tell) is
/// renamed aside first, beside it.
pub fn build_at(path: &Path, now: Timestamp) -> Result<Built, DemoError> {
    let earlier = if path.exists() {
        Some(crate::store::guarded(path, || check_replaceable(path))?)
    } else {
        None
    };
    let temp = crate::existing::temp_beside(path, "building");
    let built = build(&temp, now).and_then(|()| {
        let kept = match earlier {
            Some(Earlier::Changed) => Some(keep_aside(path, now)?),
            _ => None,
        };
        std::fs::rename(&temp, path).map_err(io(path))?;
        Ok(kept)
    });
    if built.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    Ok(Built {
        path: path.to_path_buf(),
        kept: built?,
    })
}

/// An earlier demo store at the path.
enum Earlier {
    /// As it was built (tracked reads aside).
    AsBuilt,
    /// Changed since it was built, or of a version that kept no digest.
    Changed,
}

/// Renames the demo store at `path` to a free name beside it that says when it was
/// put aside; returns that name.
fn keep_aside(path: &Path, now: Timestamp) -> Result<PathBuf, DemoError> {
    let stem = path
        .file_stem()
        .map_or("demo".into(), |s| s.to_string_lossy());
    let when = now.to_string().replace(':', "-");
    let when = when
        .split('.')
        .next()
        .unwrap_or(&when)
        .trim_end_matches('Z');
    let name = |n: usize| {
        let suffix = if n == 0 {
            String::new()
        } else {
            format!("-{n}")
        };
        path.with_file_name(format!("{stem}.kept-{when}{suffix}.redb"))
    };
    let mut n = 0;
    while name(n).exists() {
        n += 1;
    }
    let aside = name(n);
    std::fs::rename(path, &aside).map_err(io(path))?;
    Ok(aside)
}

/// A digest of every memory of `store` as a person or an agent left it: everything but
/// the tracked reads (`read_count`, `last_read_at`), which browsing the demo adds.
pub fn digest(store: &Store) -> Result<u64, StoreError> {
    use crate::stable_hash::{hash_bytes, mix};
    let mut memories = store.read()?.memories()?;
    memories.sort_by(|a, b| a.id.cmp(&b.id));
    let mut h = mix(memories.len() as u64);
    for mut m in memories {
        m.read_count = 0;
        m.last_read_at = None;
        h = mix(h ^ hash_bytes(&crate::schema::tables::encode(&m)));
    }
    Ok(h)
}

/// True when the store at `path` is a demo store.
pub fn is_demo_store(store: &Store) -> Result<bool, StoreError> {
    Ok(store.read()?.meta(DEMO_KEY)?.as_deref() == Some(DEMO_MARKER))
}

fn check_replaceable(path: &Path) -> Result<Earlier, DemoError> {
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
    if !is_demo_store(&store)? {
        return Err(not_demo("it is a memlens store that is not a demo store"));
    }
    let built = store.read()?.meta(DIGEST_KEY)?;
    let now = digest(&store)?.to_le_bytes();
    Ok(if built.as_deref() == Some(now.as_slice()) {
        Earlier::AsBuilt
    } else {
        Earlier::Changed
    })
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
    let digest = digest(&store)?;
    let writer = store.write()?;
    writer.set_meta(DIGEST_KEY, &digest.to_le_bytes())?;
    writer.commit()?;
    Ok(())
}
