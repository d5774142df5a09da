//! What the fuzz targets share: a sink that keeps what a reader delivers, one scratch
//! store that every import runs into (as a dry run: the whole pipeline, ids checked
//! against the store, nothing committed), and the round-trip checks.

#![allow(dead_code)]

use memlens::exchange::{
    Format, ImportOptions, ImportSource, RecordSink, import, import::read_source,
    json_line::write_json_line,
};
use memlens::model::{Memory, Timestamp};
use memlens::store::{Store, tables};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A fixed clock, so that a crash reproduces.
pub const NOW: Timestamp = Timestamp(1_780_000_000_000);

/// What a reader delivered.
#[derive(Default)]
pub struct Collect {
    /// Valid memories, in order.
    pub memories: Vec<Memory>,
    /// Problems counted.
    pub problems: usize,
}

impl RecordSink for Collect {
    fn file(&mut self, _name: &str) {}
    fn memory(&mut self, _line: usize, memory: Memory) {
        self.memories.push(memory);
    }
    fn problem(&mut self, _line: usize, _field: &str, _reason: String) {
        self.problems += 1;
    }
    fn warning(&mut self, _line: usize, _field: &str, _reason: String) {}
}

/// A directory of this process for scratch files and the store.
pub fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("memlens-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch directory");
        dir
    })
}

/// The scratch store, created once, holding one memory so that conflicts are met.
pub fn store() -> &'static Store {
    static STORE: OnceLock<Store> = OnceLock::new();
    STORE.get_or_init(|| {
        let store = Store::open(&scratch().join("store.redb")).expect("scratch store");
        let seed = ImportSource::Text {
            name: "seed.jsonl".into(),
            text: r#"{"id":"a","body":"stored"}"#.into(),
            format: Format::Jsonl,
        };
        let options = ImportOptions {
            now: NOW,
            ..ImportOptions::default()
        };
        import(&store, &[seed], &options).expect("seed import");
        store
    })
}

/// Writes `bytes` to a scratch file named `name` and returns its path.
pub fn file(name: &str, bytes: &[u8]) -> PathBuf {
    let path = scratch().join(name);
    std::fs::write(&path, bytes).expect("scratch file");
    path
}

/// Runs the whole import of `source` into the scratch store as a dry run. Errors are
/// expected (bad input is an error); a panic is what the fuzzer finds.
pub fn dry_import(source: ImportSource) {
    let options = ImportOptions {
        dry_run: true,
        now: NOW,
        ..ImportOptions::default()
    };
    let _outcome = import(store(), &[source], &options);
}

/// Reads `source` into a [`Collect`] (errors are expected, not panics).
pub fn collect(source: &ImportSource) -> Collect {
    let mut sink = Collect::default();
    let _outcome = read_source(source, &mut sink, NOW);
    sink
}

/// Every memory read must survive the store's encoding and memlens's own canonical
/// JSONL unchanged.
pub fn check_round_trips(memories: &[Memory]) {
    let mut lines = Vec::new();
    for m in memories {
        let stored = tables::decode(&tables::encode(m)).expect("a stored memory decodes");
        assert_eq!(&stored, m, "the store's encoding changed a memory");
        write_json_line(m, &mut lines);
        lines.push(b'\n');
    }
    let Ok(text) = String::from_utf8(lines) else {
        panic!("canonical JSONL is not UTF-8");
    };
    let again = collect(&ImportSource::Text {
        name: "again.jsonl".into(),
        text,
        format: Format::Jsonl,
    });
    assert_eq!(again.problems, 0, "memlens's own export does not import");
    assert_eq!(again.memories, memories, "an export re-imports differently");
}

/// Input as text, or `None` when it is not UTF-8.
pub fn text(data: &[u8]) -> Option<String> {
    std::str::from_utf8(data).ok().map(str::to_string)
}
