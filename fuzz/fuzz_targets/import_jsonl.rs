//! Canonical JSONL: the reader (both its fast path and `Memory::from_json`) on every
//! input; for what reads clean, the round trip of what it read and the whole import
//! into a store (see `common::check_import`).

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
    common::check_import(data, source);
});
