//! What the `memlens mcp` tests share: a store made by the real binary, a real MCP
//! client (rmcp's) speaking to a spawned `memlens mcp`, and the command line beside it.
#![allow(dead_code)]

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_memlens")
}

/// `n` memories with varied types, tags, scores, ratings and links, as JSONL.
pub fn corpus(n: usize) -> String {
    let types = ["note", "decision", "gotcha", "session_recap", "todo"];
    let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"];
    let mut out = String::new();
    for i in 0..n {
        let mut m = json!({
            "id": format!("m{i:03}"),
            "body": format!(
                "{} {} memory number {i} {}",
                words[i % words.len()],
                words[(i / 2) % words.len()],
                "lorem ipsum ".repeat(i % 40)
            ),
            "type": types[i % types.len()],
            "tags": [format!("t{}", i % 4)],
            "weight": (i % 10) as f64 / 10.0,
            "created_at": format!("2026-0{}-{:02}T10:00:00Z", 1 + i % 6, 1 + i % 27),
            "rating_sum": (i % 7) * 4,
            "rating_count": i % 7,
        });
        if i % 3 == 0 {
            m["feel_humor"] = json!((i % 11) as f64 / 10.0);
        }
        if i % 5 == 1 && i > 1 {
            m["relationships"] = json!([{"target": format!("m{:03}", i - 1)}]);
        }
        if i % 9 == 0 {
            m["deleted_at"] = json!("2026-07-01T00:00:00Z");
        }
        out.push_str(&m.to_string());
        out.push('\n');
    }
    out
}

/// A store of [`corpus`]`(n)` imported by the binary into `dir`.
pub fn store(dir: &Path, n: usize) -> PathBuf {
    store_of(dir, &corpus(n))
}

/// A store of these JSONL lines imported by the binary into `dir`.
pub fn store_of(dir: &Path, jsonl: &str) -> PathBuf {
    let input = dir.join("memories.jsonl");
    std::fs::write(&input, jsonl).expect("write corpus");
    let db = dir.join("store.redb");
    let out = memlens(&[
        "import",
        "--db",
        db.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    db
}

/// Runs the command line.
pub fn memlens(args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .env_remove("MEMLENS_DB")
        .env("NO_COLOR", "1")
        .output()
        .expect("run memlens")
}

/// Runs the command line and reads its stdout as JSON.
pub fn cli_json(args: &[&str]) -> Value {
    let out = memlens(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

/// A real MCP client connected to a spawned `memlens mcp --db DB`.
pub struct Client {
    /// The running client service.
    pub service: RunningService<RoleClient, ()>,
}

/// What one tool call answered.
#[derive(Debug)]
pub struct Answer {
    /// Whether the server marked it an error.
    pub is_error: bool,
    /// Its text.
    pub text: String,
    /// Its structured content (the JSON answer of a successful call).
    pub json: Value,
}

impl Client {
    /// Spawns the server on `db` and completes the MCP handshake.
    pub async fn spawn(db: &Path) -> Client {
        let db = db.to_path_buf();
        let transport =
            TokioChildProcess::new(tokio::process::Command::new(bin()).configure(|cmd| {
                cmd.arg("mcp").arg("--db").arg(&db).env_remove("MEMLENS_DB");
            }))
            .expect("spawn memlens mcp");
        let service = ().serve(transport).await.expect("MCP handshake");
        Client { service }
    }

    /// Calls a tool; a protocol error (rather than an error result) fails the test.
    pub async fn call(&self, name: &str, arguments: Value) -> Answer {
        let Value::Object(arguments) = arguments else {
            panic!("arguments must be an object")
        };
        let params = CallToolRequestParams::new(name.to_string()).with_arguments(arguments);
        let result: CallToolResult = self
            .service
            .call_tool(params)
            .await
            .unwrap_or_else(|e| panic!("{name}: protocol error {e}"));
        let text = result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect::<Vec<_>>()
            .join("\n");
        Answer {
            is_error: result.is_error == Some(true),
            json: result.structured_content.clone().unwrap_or(Value::Null),
            text,
        }
    }

    /// Calls a tool that must succeed; its JSON answer.
    pub async fn ok(&self, name: &str, arguments: Value) -> Value {
        let a = self.call(name, arguments.clone()).await;
        assert!(!a.is_error, "{name} {arguments}: {}", a.text);
        a.json
    }

    /// Calls a tool that must fail; its message.
    pub async fn refused(&self, name: &str, arguments: Value) -> String {
        let a = self.call(name, arguments.clone()).await;
        assert!(a.is_error, "{name} {arguments} should fail: {}", a.text);
        assert!(
            !a.text.trim().is_empty(),
            "{name}: an error needs a message"
        );
        a.text
    }

    /// Ends the session.
    pub async fn close(self) {
        let _ = self.service.cancel().await;
    }
}
