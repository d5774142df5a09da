//! memlens's reading of a project it curated in place, held to what the real hivelore
//! serves from the same project: `tests/data/hivelore_served.json` is the output of
//! `scripts/hivelore_reads_back.sh`, which runs the commands of
//! `tests/data/hivelore_verbs.txt` on a copy of the fixtures and loads the result with
//! hivelore's own loader, usage index and lifecycle code. This test runs the same
//! commands and checks, memory by memory, the status, `related_ids` and read count the
//! test reader sees against hivelore's, and that every memory hivelore retires for its
//! status is one the reader does not serve.

mod exchange_support;
mod project_support;

use project_support::{TempProject, load, reads};
use serde_json::Value;
use std::process::Command;

#[test]
fn what_hivelore_serves_after_every_verb_is_what_memlens_wrote() {
    let Some(project) = TempProject::new("served") else {
        return;
    };
    let verbs = include_str!("data/hivelore_verbs.txt");
    for line in verbs.lines().filter(|l| !l.trim().is_empty()) {
        let out = Command::new(env!("CARGO_BIN_EXE_memlens"))
            .arg("--hivelore")
            .arg(&project.root)
            .args(line.split_whitespace())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{line}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let hivelore: Value = serde_json::from_str(include_str!("data/hivelore_served.json")).unwrap();
    assert_eq!(hivelore["invalid"], 0);
    let expected = hivelore["memories"].as_array().unwrap();
    let loaded = load(&project.memories());
    assert_eq!(loaded.len(), expected.len());
    for e in expected {
        let id = e["id"].as_str().unwrap();
        let m = &loaded[id];
        assert_eq!(m.status(), e["status"], "{id}: status");
        let related: Vec<Value> = m.related().into_iter().map(Value::from).collect();
        assert_eq!(Value::from(related), e["related_ids"], "{id}: related_ids");
        assert_eq!(
            reads(&project.root, id),
            e["read_count"].as_u64().unwrap(),
            "{id}: reads"
        );
        if !m.served() {
            assert_eq!(
                e["retired"], true,
                "{id}: hivelore retires what the reader does not serve"
            );
        }
    }
}
