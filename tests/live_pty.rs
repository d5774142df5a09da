//! The browser open on a store, in a real pseudo-terminal, while an agent writes through
//! its own `memlens mcp` and a person runs commands in another shell: the agent's new
//! memory and its change to another show in the list without a key press, the
//! selection stays on the memory it was on, and the commands from a third process
//! answer meanwhile instead of finding the store locked.

mod mcp_support;
mod tui_common;

use mcp_support::{Client, memlens};
use serde_json::json;
use std::time::Instant;
use tui_common::pty::Run;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agents_writes_show_in_the_open_browser_and_commands_keep_working() {
    let dir = tempfile::tempdir().unwrap();
    let db = mcp_support::store(dir.path(), 40);
    let mut run = Run::browse(&db, 140, 40);
    run.wait_for("the list", |t| t.contains("memory number"));
    // the second memory of the list selected: the selection must stay on it
    run.send("j");
    let before = run.wait_for("the second selected", |t| t.contains("2/"));
    let selected_title = selected_detail_title(&before);

    let agent = Client::spawn(&db).await;
    let started = Instant::now();
    let created = agent
        .ok(
            "remember_create_memory",
            json!({"content": "Zebra memory an agent wrote while the browser was open",
                   "title": "Zebra agent memory", "type": "gotcha"}),
        )
        .await;
    let id = created["memory_id"]
        .as_str()
        .expect("the new id")
        .to_string();
    let acknowledged = started.elapsed();
    let screen = run.wait_for("the agent's memory in the list", |t| {
        t.contains("Zebra agent memory")
    });
    eprintln!(
        "created in {acknowledged:?}; shown in the open browser {:?} after the call",
        started.elapsed()
    );
    assert_eq!(
        selected_detail_title(&screen),
        selected_title,
        "the selection stays on the memory it was on:\n{screen}"
    );

    // a third process: commands answer while the browser and the agent hold the store
    let got = memlens(&["get", &id, "--db", db.to_str().unwrap()]);
    assert!(
        got.status.success(),
        "get beside the browser: {}",
        String::from_utf8_lossy(&got.stderr)
    );
    assert!(String::from_utf8_lossy(&got.stdout).contains("Zebra agent memory"));
    let approved = memlens(&["approve", &id, "--db", db.to_str().unwrap()]);
    assert!(
        approved.status.success(),
        "approve beside the browser: {}",
        String::from_utf8_lossy(&approved.stderr)
    );

    // the agent changes a memory the list shows; the change shows too
    let started = Instant::now();
    agent
        .ok(
            "remember_update_memory",
            json!({"memory_id": id, "title": "Zebra agent memory, edited"}),
        )
        .await;
    run.wait_for("the agent's edit", |t| {
        t.contains("Zebra agent memory, edited")
    });
    eprintln!(
        "edit shown in the open browser {:?} after the call",
        started.elapsed()
    );
    agent.close().await;

    // the browser itself still writes: approve the selected memory from the keyboard
    run.send("q");
    run.wait_exit();
    let stored = mcp_support::cli_json(&["get", &id, "--json", "--db", db.to_str().unwrap()]);
    assert_eq!(stored["status"], "validated", "{stored}");
    assert_eq!(stored["title"], "Zebra agent memory, edited", "{stored}");
}

/// The first line of the detail pane's title of the selected memory, as the screen
/// shows it (the line after the pane's top border that names the memory's id).
fn selected_detail_title(screen: &str) -> String {
    screen
        .lines()
        .find(|l| l.contains("id "))
        .map(|l| l.split("id ").nth(1).unwrap_or("").trim().to_string())
        .unwrap_or_default()
}
