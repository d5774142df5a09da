//! Every subcommand on a hivelore project (`--hivelore`): `review` lists the project's
//! queues as it lists those of a store holding the same files, and `mcp`, whose writes
//! would not reach the files, is refused with a usage error.

mod exchange_support;
mod project_support;

use project_support::TempProject;
use serde_json::Value;
use std::process::{Command, Output};

fn memlens(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memlens"))
        .args(args)
        .env_remove("MEMLENS_DB")
        .output()
        .expect("run memlens")
}

/// The ids `review QUEUE --json` lists, in order.
fn listed(out: &Output) -> Vec<String> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    doc["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e["id"].as_str().expect("id").to_string())
        .collect()
}

#[test]
fn review_lists_a_projects_queues_and_mcp_is_refused() {
    let Some(project) = TempProject::new("commands") else {
        return;
    };
    let root = project.root.to_str().expect("path").to_string();
    let dir = tempfile::tempdir().expect("dir");
    let db = dir.path().join("s.redb");
    let db = db.to_str().expect("path");
    let memories = project.memories();
    let imported = memlens(&[
        "import",
        "--db",
        db,
        "--format",
        "hivelore",
        memories.to_str().expect("path"),
    ]);
    assert!(
        imported.status.success(),
        "{}",
        String::from_utf8_lossy(&imported.stderr)
    );
    let mut seen = 0;
    for queue in ["pending", "stale", "agent", "duplicates"] {
        let args = ["review", queue, "--json", "--limit", "100"];
        let from_project = listed(&memlens(&[&["--hivelore", &root], &args[..]].concat()));
        let from_store = listed(&memlens(&[&args[..], &["--db", db]].concat()));
        assert_eq!(from_project, from_store, "{queue}");
        seen += from_project.len();
    }
    assert!(seen > 0, "the fixtures wait in some queue");
    let mcp = memlens(&["--hivelore", &root, "mcp"]);
    assert_eq!(mcp.status.code(), Some(2));
    let said = String::from_utf8_lossy(&mcp.stderr);
    assert!(said.contains("hivelore project"), "{said}");
}
