//! What the official MCP Inspector (`scripts/mcp_inspector.sh`, its CLI mode) got from
//! `memlens mcp`, kept in tests/mcp_support/inspector/: memlens still answers the same,
//! so a change that would break that client shows here without a network.

mod mcp_support;

use mcp_support::{Client, memlens};
use serde_json::{Value, json};
use std::path::Path;

fn saved(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mcp_support/inspector")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("the inspector printed JSON")
}

/// `v` with every number as an f64: JavaScript prints 3.0 as 3.
fn numbers_as_floats(v: &Value) -> Value {
    match v {
        Value::Number(n) => json!(n.as_f64()),
        Value::Array(a) => Value::Array(a.iter().map(numbers_as_floats).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), numbers_as_floats(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[tokio::test]
async fn memlens_answers_what_the_inspector_saw() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store.redb");
    let input =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_support/inspector/memories.jsonl");
    let out = memlens(&[
        "import",
        "--db",
        db.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let client = Client::spawn(&db).await;

    let listed = saved("tools_list.json");
    let mut seen: Vec<String> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    let mut now: Vec<String> = client
        .service
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    seen.sort();
    now.sort();
    assert_eq!(
        seen, now,
        "the tools changed: run scripts/mcp_inspector.sh again"
    );
    for t in listed["tools"].as_array().unwrap() {
        assert_eq!(t["inputSchema"]["type"], "object", "{}", t["name"]);
    }

    let search = saved("mem_search.json");
    let a = client
        .ok("mem_search", json!({"query": "fox", "track": false}))
        .await;
    assert_eq!(
        numbers_as_floats(&a),
        numbers_as_floats(&search["structuredContent"])
    );
    assert_eq!(search["isError"], json!(false));
    assert_eq!(search["structuredContent"]["total"], 2);

    let by = saved("search_by.json");
    let a = client
        .ok("remember_search_by", json!({"mode": "byTime", "limit": 2}))
        .await;
    assert_eq!(
        numbers_as_floats(&a),
        numbers_as_floats(&by["structuredContent"])
    );

    let refused = saved("semantic.json");
    assert_eq!(refused["isError"], json!(true));
    let message = client
        .refused("mem_search", json!({"query": "fox", "semantic": true}))
        .await;
    assert_eq!(json!(message), refused["content"][0]["text"]);
    client.close().await;
}
