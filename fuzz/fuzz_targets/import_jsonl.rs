//! Canonical JSONL: the reader (both its fast path and `Memory::from_json`), the whole
//! import into a store, and the round trip of what it read.

#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use memlens::exchange::{Format, ImportSource};

fuzz_target!(|data: &[u8]| {
    let source = match common::text(data) {
        Some(text) => ImportSource::Text {
            name: "fuzz.jsonl".into(),
            text,
            format: Format::Jsonl,
        },
        None => ImportSource::Path(common::file("fuzz.jsonl", data), Some(Format::Jsonl)),
    };
    let read = common::collect(&source);
    if read.problems == 0 {
        common::check_round_trips(&read.memories);
    }
    common::dry_import(source);
});
