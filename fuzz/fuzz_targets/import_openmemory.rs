//! OpenMemory's export, as `memories.jsonl` and as `memories.jsonl.gz`: the reader and
//! the gzip reader with its ratio guard on every input; for what reads clean, the round
//! trip of what it read and the whole import (see `common::check_import`).
//!
//! The first byte chooses: even, the rest is the `.jsonl` file; odd, the rest is
//! compressed by the target and read as `.gz` (so the fuzzer reaches the records);
//! a multiple of 3 also reads the rest as raw `.gz` bytes (so it reaches the decoder).

#![no_main]

#[path = "common.rs"]
mod common;

use flate2::{Compression, write::GzEncoder};
use libfuzzer_sys::fuzz_target;
use memlens::exchange::{Format, ImportSource};
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let Some((&choice, rest)) = data.split_first() else {
        return;
    };
    let source = if choice % 2 == 0 {
        ImportSource::Path(
            common::file("memories.jsonl", rest),
            Some(Format::Openmemory),
        )
    } else {
        let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
        gz.write_all(rest).expect("compress in memory");
        let bytes = gz.finish().expect("compress in memory");
        ImportSource::Path(
            common::file("memories.jsonl.gz", &bytes),
            Some(Format::Openmemory),
        )
    };
    common::check_import(data, source);
    if choice % 3 == 0 {
        let raw = common::file("raw.jsonl.gz", rest);
        common::check_import(data, ImportSource::Path(raw, Some(Format::Openmemory)));
    }
});
