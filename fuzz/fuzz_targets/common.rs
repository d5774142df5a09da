//! What the fuzz targets share: a sink that keeps what a reader delivers and checks
//! that the store would take it, one scratch store that imports run into (as a dry
//! run: the whole pipeline, ids checked against the store, nothing committed), and the
//! round-trip checks.
//!
//! Every input is read by the import's own reader into [`Collect`], with no store (the
//! fast part, where the input is parsed and validated). Only an input that reads clean,
//! and a fixed one in [`FAILING_SAMPLE`] of the others, also goes through the whole
//! import, whose outcome must agree with what the reader found.

#![allow(dead_code)]

use memlens::exchange::{
    ExchangeError, Format, ImportOptions, ImportSource, ImportSummary, RecordSink, import,
    import::read_source, json_line::write_json_line,
};
use memlens::model::{Checked, Memory, Timestamp};
use memlens::store::{Prepared, Store, tables};
use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// A fixed clock, so that a crash reproduces.
pub const NOW: Timestamp = Timestamp(1_780_000_000_000);

/// The id of the one memory in the scratch store.
pub const STORED_ID: &str = "a";

/// One in this many inputs that do not read clean also runs the whole import (chosen
/// by a hash of the input, so that a run reproduces).
pub const FAILING_SAMPLE: u64 = 16;

/// What a reader delivered.
#[derive(Default)]
pub struct Collect {
    /// Valid memories, in order.
    pub memories: Vec<Memory>,
    /// Problems counted.
    pub problems: usize,
    /// True when the reader stopped with an error of its own (I/O, too large, bad path).
    pub failed: bool,
}

impl Collect {
    /// True when the reader finished and found no problem.
    pub fn clean(&self) -> bool {
        !self.failed && self.problems == 0
    }

    /// Keeps `memory` after checking that the store takes it as it is and preparing
    /// its index entry and stored form, as the import's reader thread does.
    fn keep(&mut self, memory: Memory) {
        let broken = memory.validate();
        assert!(
            broken.is_empty(),
            "a reader delivered a memory the store refuses: {broken:?}"
        );
        assert!(
            memory.is_normalised(),
            "a reader delivered a memory that is not normalised"
        );
        let prepared = Prepared::new(memory);
        self.memories.push(prepared.memory().clone());
    }
}

impl RecordSink for Collect {
    fn file(&mut self, _name: &str) {}
    fn memory(&mut self, _line: usize, memory: Memory) {
        self.keep(memory);
    }
    fn checked_memory(&mut self, _line: usize, memory: Checked) {
        self.keep(memory.into_memory());
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
            text: format!(r#"{{"id":"{STORED_ID}","body":"stored"}}"#),
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
pub fn dry_import(source: ImportSource) -> Result<ImportSummary, ExchangeError> {
    let options = ImportOptions {
        dry_run: true,
        now: NOW,
        ..ImportOptions::default()
    };
    import(store(), &[source], &options)
}

/// Reads `source` into a [`Collect`] (errors are expected, not panics).
pub fn collect(source: &ImportSource) -> Collect {
    let mut sink = Collect::default();
    sink.failed = read_source(source, &mut sink, NOW).is_err();
    sink
}

/// The importer's checks, for the input `data` read as `source`: the reader alone on
/// every input; for one that reads clean, the round trips and the whole import, which
/// must take every memory unless an id is repeated or already stored, and then fail
/// only on those ids; for a sample of the others, the whole import, which must fail.
pub fn check_import(data: &[u8], source: ImportSource) {
    let read = collect(&source);
    if read.clean() {
        check_round_trips(&read.memories);
        expect_clean_import(&read.memories, dry_import(source));
    } else if sampled(data) {
        match dry_import(source) {
            Ok(_) => panic!("an input the reader finds fault with imports"),
            Err(ExchangeError::Invalid { problems, .. }) => {
                assert!(!read.failed, "a reader error became input problems");
                assert!(
                    problems.total >= read.problems,
                    "the import lost problems the reader found"
                );
            }
            Err(ExchangeError::Store(e)) => panic!("the store failed: {e}"),
            Err(_) => assert!(read.failed, "the import failed where the reader did not"),
        }
    }
}

/// True for the one input in [`FAILING_SAMPLE`] whose hash says so.
fn sampled(data: &[u8]) -> bool {
    let mut hasher = DefaultHasher::new();
    data.hash(&mut hasher);
    hasher.finish() % FAILING_SAMPLE == 0
}

/// What a dry import of memories that read clean must give.
fn expect_clean_import(memories: &[Memory], outcome: Result<ImportSummary, ExchangeError>) {
    let mut ids = HashSet::new();
    let conflict = memories
        .iter()
        .any(|m| m.id == STORED_ID || !ids.insert(m.id.as_str()));
    match outcome {
        Ok(summary) => {
            assert!(!conflict, "a repeated or stored id was imported");
            assert_eq!(
                summary.read,
                memories.len(),
                "the import read another count"
            );
            assert_eq!(
                summary.added,
                memories.len(),
                "the import added another count"
            );
        }
        Err(ExchangeError::Invalid { problems, .. }) => {
            assert!(conflict, "clean memories with new ids failed: {problems:?}");
            assert!(
                problems.shown.iter().all(|p| p.field == "id"),
                "clean memories failed on more than their ids: {problems:?}"
            );
        }
        Err(e) => panic!("an input that reads clean does not import: {e}"),
    }
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
    assert!(again.clean(), "memlens's own export does not import");
    assert_eq!(again.memories, memories, "an export re-imports differently");
}

/// Input as text, or `None` when it is not UTF-8.
pub fn text(data: &[u8]) -> Option<String> {
    std::str::from_utf8(data).ok().map(str::to_string)
}
