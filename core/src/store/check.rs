//! `memlens check`: verifies a store end to end and says what to do about each problem.
//!
//! The check never changes the store: it copies the file to a scratch file beside it
//! (holding the store read-only meanwhile, so no writer changes it under the copy) and
//! checks the copy, which may need redb's crash recovery or integrity repair to be read
//! at all. In order:
//! 1. redb's own integrity check ([`redb::Database::check_integrity`]): the checksum of
//!    every page of every table and the file's allocation bookkeeping;
//! 2. the format marker and the schema (an older one is upgraded in the copy, as the
//!    next writable open of the store would);
//! 3. what memlens keeps ([`super::check_tables`]): every memory's checksum, `IDS`
//!    against `MEMORIES`, the next document number, the backlinks in both directions,
//!    and every index table against the entries computed afresh from the memories.

use super::check_tables;
use super::error::{StoreError, StoreResult};
use super::guard::guarded_store;
use super::open::{self, storage_error};
use redb::{Database, ReadableDatabase};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Which part of the store a problem is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Area {
    /// The redb file itself (pages, bookkeeping, format marker, schema).
    File,
    /// A stored memory (its checksum or its encoding).
    Memory,
    /// The id → document number table.
    Ids,
    /// The reverse edges of relationships.
    Backlinks,
    /// A search index table or a total derived from the memories.
    Index,
}

/// One thing wrong with a store, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Where it is.
    pub area: Area,
    /// What is wrong.
    pub problem: String,
    /// What to do.
    pub fix: String,
}

/// What a check found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CheckReport {
    /// The store file checked.
    pub store: PathBuf,
    /// Memory records in the store; `None` when the check stopped before it could
    /// count them (the file itself could not be read that far).
    pub memories: Option<u64>,
    /// Memories an earlier repair set aside (the `damaged` table), if any.
    pub set_aside: u64,
    /// Every problem found, in the order the checks ran.
    pub problems: Vec<Problem>,
}

impl CheckReport {
    /// True when nothing is wrong.
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty()
    }

    pub(super) fn add(&mut self, area: Area, problem: impl Into<String>, fix: impl Into<String>) {
        self.problems.push(Problem {
            area,
            problem: problem.into(),
            fix: fix.into(),
        });
    }
}

/// What to do when the memlens tables disagree: `--repair` rebuilds them.
pub(super) const REBUILD: &str =
    "run `memlens check --repair`: it rebuilds the ids, backlinks and indexes from the memories";
/// What to do when a memory itself is damaged.
pub(super) const SET_ASIDE: &str = "run `memlens check --repair` to keep every other memory and set this one aside (its bytes are kept), then restore it from a backup or an export";
/// What to do when redb cannot read the file.
const RESTORE: &str = "restore the store from a backup or an export; `memlens check --repair` saves every memory that can still be read";

/// Checks the store at `path` through a scratch copy at `scratch` (removed afterwards;
/// the store itself is never written). `Err` only when the check could not run (the
/// file is missing, another process holds it, it is not a memlens store, the copy
/// failed); damage is reported in the [`CheckReport`].
pub fn check(path: &Path, scratch: &Path) -> StoreResult<CheckReport> {
    let mut report = CheckReport {
        store: path.to_path_buf(),
        ..CheckReport::default()
    };
    let _scratch = Scratch::copy(path, scratch)?;
    let db = match guarded_store(scratch, || open_scratch(scratch)) {
        Ok(db) => db,
        Err(e) => {
            report.add(
                Area::File,
                redb_said(path, scratch, &e),
                what_repair_saves(scratch),
            );
            return Ok(report);
        }
    };
    let mut db = db;
    match guarded_store(scratch, || {
        db.check_integrity().map_err(|e| storage_error(scratch, e))
    }) {
        Ok(true) => {}
        Ok(false) => report.add(
            Area::File,
            "redb's integrity check found damaged pages or bookkeeping; it could read the store only by repairing it (perhaps by going back to an earlier commit)",
            RESTORE,
        ),
        Err(e) => {
            report.add(Area::File, redb_said(path, scratch, &e), RESTORE);
            return Ok(report);
        }
    }
    let upgraded = guarded_store(scratch, || {
        open::check_or_stamp(&db, scratch, &|_| {}).map(|()| db)
    });
    let db = match upgraded {
        Ok(db) => db,
        Err(e @ (StoreError::NotAStore { .. } | StoreError::NewerSchema { .. })) => {
            return Err(rename_path(e, path));
        }
        Err(e) => {
            report.add(Area::File, redb_said(path, scratch, &e), RESTORE);
            return Ok(report);
        }
    };
    let tables = guarded_store(scratch, || {
        let txn = db.begin_read().map_err(|e| storage_error(scratch, e))?;
        check_tables::check(&txn, &mut report).map_err(|e| storage_error(scratch, e))
    });
    if let Err(e) = tables {
        report.add(Area::File, redb_said(path, scratch, &e), RESTORE);
    }
    Ok(report)
}

/// What to do with a store redb will not open: what `--repair` would read of it (the
/// scratch copy, read as a repair reads it), or, when it can read nothing, a backup.
fn what_repair_saves(scratch: &Path) -> String {
    match guarded_store(scratch, || super::repair::read_everything(scratch)) {
        Ok(salvage) => format!(
            "restore the store from a backup or an export; `memlens check --repair` saves the {} memories that can still be read",
            salvage.rows.len()
        ),
        Err(_) => "nothing in it can be read, not even by `memlens check --repair`: restore the store from a backup or an export".into(),
    }
}

/// Opens the scratch copy for writing (recovering it when the store was not closed
/// cleanly, as any writable open of the store would).
fn open_scratch(scratch: &Path) -> StoreResult<Database> {
    Database::builder()
        .set_cache_size(open::BROWSE_CACHE_BYTES)
        .open(scratch)
        .map_err(|e| storage_error(scratch, e))
}

/// What redb (or the guard) reported on the scratch copy, naming the store instead.
fn redb_said(path: &Path, scratch: &Path, e: &StoreError) -> String {
    let text = e.to_string().replace(&scratch.display().to_string(), "");
    let detail = match e {
        StoreError::Corrupt { detail, .. } | StoreError::Storage { detail, .. } => detail.clone(),
        _ => text,
    };
    format!(
        "redb cannot read {} as it is: {detail}",
        path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned()
        )
    )
}

/// `e` about the store at `path` rather than its scratch copy.
fn rename_path(e: StoreError, path: &Path) -> StoreError {
    match e {
        StoreError::NotAStore { detail, .. } => StoreError::NotAStore {
            path: path.to_path_buf(),
            detail,
        },
        StoreError::NewerSchema {
            found, supported, ..
        } => StoreError::NewerSchema {
            path: path.to_path_buf(),
            found,
            supported,
        },
        other => other,
    }
}

/// A copy of the store at a scratch path, removed when dropped.
pub(super) struct Scratch {
    path: PathBuf,
}

impl Scratch {
    /// Copies `store` to `scratch` while holding it read-only (so that no other memlens
    /// writes it meanwhile); a store that needs crash recovery, which a read-only open
    /// refuses, is copied as it is (no process holds it, or it would not need one).
    pub(super) fn copy(store: &Path, scratch: &Path) -> StoreResult<Scratch> {
        let hold = hold(store)?;
        let made = Scratch::copy_held(store, scratch)?;
        drop(hold);
        Ok(made)
    }

    /// [`Scratch::copy`] for a caller that holds the store itself ([`hold`]).
    pub(super) fn copy_held(store: &Path, scratch: &Path) -> StoreResult<Scratch> {
        let io = |path: &Path, source| StoreError::Io {
            path: path.to_path_buf(),
            source,
        };
        if !store.is_file() {
            return Err(io(
                store,
                std::io::Error::new(std::io::ErrorKind::NotFound, "no store file here"),
            ));
        }
        let made = Scratch {
            path: scratch.to_path_buf(),
        };
        std::fs::copy(store, scratch).map_err(|e| io(scratch, e))?;
        Ok(made)
    }
}

/// The store at `path` opened read-only, so that no other memlens opens it for writing
/// while this one reads it; `None` when it cannot be opened read-only because it needs
/// crash recovery or is damaged (no process holds it then, or it would be refused as
/// locked).
pub(super) fn hold(path: &Path) -> StoreResult<Option<redb::ReadOnlyDatabase>> {
    match guarded_store(path, || {
        open::open_read_only(path, open::BROWSE_CACHE_BYTES)
    }) {
        Ok(db) => Ok(db),
        Err(e @ StoreError::Locked { .. }) => Err(e),
        Err(_) => Ok(None),
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}
