//! Helpers shared by the import/export, store and command-line tests.

#![allow(dead_code)]

pub mod generate;

use memlens::exchange::{
    ExchangeError, Format, ImportOptions, ImportSource, ImportSummary, OnConflict, export_jsonl,
    import,
};
use memlens::model::Timestamp;
use memlens::store::Store;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The shared hivelore fixtures, or `None` (with a one-line message) when absent.
pub fn hivelore_fixtures() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/hivelore/memories");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipped: {} not found (shared fixtures absent)",
            dir.display()
        );
        None
    }
}

/// A fresh store in a temporary directory.
pub fn temp_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("store.redb")).expect("open store");
    (dir, store)
}

/// A fixed import time, so runs are reproducible.
pub fn now() -> Timestamp {
    Timestamp::parse("2026-06-01T12:00:00Z").expect("time")
}

/// Options with the fixed time.
pub fn options(on_conflict: OnConflict) -> ImportOptions {
    ImportOptions {
        on_conflict,
        dry_run: false,
        now: now(),
        ..ImportOptions::default()
    }
}

/// Imports JSONL text named `name`.
pub fn import_jsonl(store: &Store, name: &str, text: &str) -> Result<ImportSummary, ExchangeError> {
    let source = ImportSource::Text {
        name: name.into(),
        text: text.into(),
        format: Format::Jsonl,
    };
    import(store, &[source], &options(OnConflict::Fail))
}

/// Imports files or directories (formats detected).
pub fn import_paths(
    store: &Store,
    paths: &[&Path],
    on_conflict: OnConflict,
) -> Result<ImportSummary, ExchangeError> {
    let sources: Vec<ImportSource> = paths
        .iter()
        .map(|p| ImportSource::Path(p.to_path_buf(), None))
        .collect();
    import(store, &sources, &options(on_conflict))
}

/// The canonical JSONL export of a store, soft-deleted memories included.
pub fn export_all(store: &Store) -> String {
    let mut out = Vec::new();
    export_jsonl(
        &store.read().expect("read"),
        &mut out,
        true,
        Path::new("memory"),
    )
    .expect("export");
    String::from_utf8(out).expect("utf-8")
}

/// Runs the built `memlens` binary with `args`, `MEMLENS_DB` unset unless given, and
/// `HOME`/`XDG_DATA_HOME` pointed at `home` so the default store is a temporary one.
pub fn memlens(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_memlens"));
    cmd.args(args)
        .env_remove("MEMLENS_DB")
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("NO_COLOR", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run memlens")
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
