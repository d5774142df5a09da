//! The MCP memory server's `memory.jsonl` (entities and relations): the reader, the
//! whole import, and the round trip of what it read through canonical JSONL.

#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use memlens::exchange::{Format, ImportSource};

fuzz_target!(|data: &[u8]| {
    let source = match common::text(data) {
        Some(text) => ImportSource::Text {
            name: "memory.jsonl".into(),
            text,
            format: Format::McpMemory,
        },
        None => ImportSource::Path(common::file("memory.jsonl", data), Some(Format::McpMemory)),
    };
    let read = common::collect(&source);
    if read.problems == 0 {
        common::check_round_trips(&read.memories);
    }
    common::dry_import(source);
});
