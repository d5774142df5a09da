//! What hivelore searches beside the text — anchor paths and symbols, domain, topic —
//! is searched by memlens too, in literal and BM25, on the real fixtures opened as a
//! project; and `<private>` text is not matched.

mod exchange_support;
mod project_support;

use project_support::{TempProject, load};
use serde_json::Value;
use std::collections::BTreeSet;
use std::process::Command;

fn search(project: &TempProject, args: &[&str]) -> BTreeSet<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_memlens"))
        .arg("--hivelore")
        .arg(&project.root)
        .args([
            "search",
            "--json",
            "--limit",
            "500",
            "--filter",
            "deleted=include",
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

/// The anchor strings of one memory.
fn anchors(front: &serde_json::Map<String, Value>, key: &str) -> Vec<String> {
    front
        .get("anchor")
        .and_then(|a| a.get(key))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_lowercase)
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_path_or_symbol_query_finds_the_memories_whose_anchors_name_it() {
    let Some(project) = TempProject::new("anchors") else {
        return;
    };
    let memories = load(&project.memories());
    for (query, key) in [
        ("get-briefing.ts", "paths"),
        ("config.ts", "paths"),
        ("serializeMemory", "symbols"),
    ] {
        let q = query.to_lowercase();
        let named: BTreeSet<String> = memories
            .iter()
            // hidden by default, in hivelore as in memlens
            .filter(|(_, m)| m.front["type"] != "session_recap")
            .filter(|(_, m)| anchors(&m.front, key).iter().any(|a| a.contains(&q)))
            .map(|(id, _)| id.clone())
            .collect();
        assert!(!named.is_empty(), "the fixtures anchor {query}");
        let found = search(&project, &[query]);
        assert!(
            named.is_subset(&found),
            "literal `{query}`: missing {:?}",
            named.difference(&found).collect::<Vec<_>>()
        );
        let bm25 = search(&project, &["--engine", "bm25", query]);
        assert!(
            named.is_subset(&bm25),
            "bm25 `{query}`: missing {:?}",
            named.difference(&bm25).collect::<Vec<_>>()
        );
    }
    // domain and topic are searched too
    let with_topic: Vec<(String, String)> = memories
        .iter()
        .filter(|(_, m)| m.front["type"] != "session_recap")
        .filter_map(|(id, m)| {
            m.front
                .get("topic")
                .and_then(Value::as_str)
                .map(|t| (id.clone(), t.to_string()))
        })
        .collect();
    if let Some((id, topic)) = with_topic.first() {
        assert!(search(&project, &[topic]).contains(id), "topic `{topic}`");
    }
}

#[test]
fn private_text_is_not_matched_and_not_shown() {
    let Some(project) = TempProject::new("private") else {
        return;
    };
    let path = project.memories().join("team/2026-12-01-gotcha-secret.md");
    let text = "---\nid: 2026-12-01-gotcha-secret\ntype: gotcha\nstatus: proposed\ncreated_at: '2026-12-01T00:00:00.000Z'\n---\n# Token rotation\n\nRotate it. <private>hunter2zebra</private> Done.\n";
    std::fs::write(&path, text).unwrap();
    assert!(search(&project, &["hunter2zebra"]).is_empty());
    assert!(search(&project, &["--engine", "bm25", "hunter2zebra"]).is_empty());
    assert!(search(&project, &["rotation"]).contains("2026-12-01-gotcha-secret"));
    let get = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_memlens"))
            .arg("--hivelore")
            .arg(&project.root)
            .args(extra)
            .args(["get", "2026-12-01-gotcha-secret"])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let masked = get(&[]);
    assert!(
        !masked.contains("hunter2zebra") && masked.contains("[private: 12 characters hidden]"),
        "{masked}"
    );
    assert!(get(&["--reveal-private"]).contains("<private>hunter2zebra</private>"));
    // and a change written through keeps the block byte for byte
    let out = Command::new(env!("CARGO_BIN_EXE_memlens"))
        .arg("--hivelore")
        .arg(&project.root)
        .args(["approve", "2026-12-01-gotcha-secret"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        text.replace("status: proposed", "status: validated")
            .replace("Z'\n---", "Z'\nvalidated_by: human\n---")
    );
}
