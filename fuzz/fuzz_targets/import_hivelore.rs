//! hivelore: one memory file (frontmatter and body) and the usage sidecar; what was
//! read must render and read back the same; then the same files as a tree, through the
//! import's checks (`common::check_import`).
//!
//! The input is the `.md` file, then optionally a line `%%usage%%` and `usage.json`.

#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use memlens::exchange::hivelore::{read::parse_memory, read::parse_usage, write::render};
use memlens::exchange::{Format, ImportSource};
use std::collections::HashMap;

const USAGE_MARK: &[u8] = b"\n%%usage%%\n";

fuzz_target!(|data: &[u8]| {
    let (file, usage) = match data.windows(USAGE_MARK.len()).position(|w| w == USAGE_MARK) {
        Some(at) => (&data[..at], Some(&data[at + USAGE_MARK.len()..])),
        None => (data, None),
    };
    let counts = usage
        .and_then(|u| std::str::from_utf8(u).ok())
        .and_then(|u| parse_usage(u).ok())
        .unwrap_or_default();
    if let Ok(text) = std::str::from_utf8(file) {
        let mut read = common::Collect::default();
        parse_memory(text, "fuzz.md", "fuzz", &mut read, &counts, common::NOW);
        if read.problems == 0 {
            common::check_round_trips(&read.memories);
            for m in &read.memories {
                let mut again = common::Collect::default();
                parse_memory(
                    &render(m),
                    "fuzz.md",
                    "fuzz",
                    &mut again,
                    &HashMap::new(),
                    common::NOW,
                );
                assert_eq!(again.problems, 0, "a rendered memory does not read back");
                let [back] = &again.memories[..] else {
                    panic!(
                        "a rendered memory reads as {} memories",
                        again.memories.len()
                    );
                };
                let mut back = back.clone();
                back.source = m.source.clone();
                assert_eq!(&back, m, "a rendered memory reads back differently");
            }
        }
    }
    let root = common::scratch().join("tree");
    let memories = root.join(".ai/memories");
    let cache = root.join(".ai/.cache");
    let _ = std::fs::create_dir_all(&memories);
    let _ = std::fs::create_dir_all(&cache);
    let _ = std::fs::write(memories.join("fuzz.md"), file);
    let usage_path = cache.join("usage.json");
    match usage {
        Some(u) => {
            let _ = std::fs::write(&usage_path, u);
        }
        None => {
            let _ = std::fs::remove_file(&usage_path);
        }
    }
    common::check_import(data, ImportSource::Path(root, Some(Format::Hivelore)));
});
