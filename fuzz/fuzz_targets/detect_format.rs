//! `--format auto`: detection of a file by its name and first record, then the import's
//! checks (`common::check_import`) in the format detected and with the format left to
//! detection, as `memlens import` does it.
//!
//! The first byte picks the file's name (`.jsonl`, `.json`, `.gz`, `.md`, none).

#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use memlens::exchange::ImportSource;
use memlens::exchange::detect::{detect, detect_line};

const NAMES: [&str; 5] = ["in.jsonl", "in.json", "in.jsonl.gz", "in.md", "in"];

fuzz_target!(|data: &[u8]| {
    let Some((&choice, rest)) = data.split_first() else {
        return;
    };
    let name = NAMES[usize::from(choice) % NAMES.len()];
    let path = common::file(name, rest);
    if let Ok(text) = std::str::from_utf8(rest) {
        let _ = detect_line(text);
    }
    if let Ok(format) = detect(&path) {
        common::check_import(data, ImportSource::Path(path.clone(), Some(format)));
    }
    common::check_import(data, ImportSource::Path(path, None));
});
