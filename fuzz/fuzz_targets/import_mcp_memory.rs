//! The MCP memory server's `memory.jsonl` (entities and relations): the reader on every
//! input; for what reads clean, the round trip of what it read through canonical JSONL
//! and the whole import (see `common::check_import`).

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
    common::check_import(data, source);
});
