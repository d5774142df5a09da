//! A `memlens mcp` server keeps its store open and its index loaded between calls;
//! every answer must still be what a fresh process reads: writes by the command line
//! and by another server, made between two calls, show in the next one.

mod mcp_support;

use mcp_support::{Client, cli_json, memlens, store};
use serde_json::{Value, json};
use std::time::Duration;

/// The listings compared after every write: one per kind of answer the server keeps
/// in memory (a time page over everything, a literal search, a BM25 search, a
/// property page, a random draw).
fn listings() -> Vec<(Value, Vec<&'static str>)> {
    vec![
        (
            json!({"mode": "byTime", "limit": 100, "deleted_filter": "include"}),
            vec!["--mode=time", "--limit=100", "--filter=deleted=include"],
        ),
        (
            json!({"mode": "byTime", "query": "zulu", "limit": 100}),
            vec!["--mode=time", "--limit=100", "zulu"],
        ),
        (
            json!({"mode": "byDensity", "limit": 20}),
            vec!["--mode=density", "--limit=20"],
        ),
        (
            json!({"mode": "byProperty", "sort_field": "rating_bayesian", "limit": 20}),
            vec![
                "--mode=property",
                "--sort-field=rating_bayesian",
                "--limit=20",
            ],
        ),
        (
            json!({"mode": "byRandom", "seed": 11, "limit": 10, "query": "alpha"}),
            vec!["--mode=random", "--seed=11", "--limit=10", "alpha"],
        ),
    ]
}

/// Asserts that `client` answers every listing as the command line does now.
async fn answers_as_fresh_process(client: &Client, db: &str, after: &str) {
    for (args, flags) in listings() {
        let tool = client.ok("remember_search_by", args.clone()).await;
        let mut cli = vec!["search", "--json", "--db", db];
        cli.extend(flags);
        let fresh = cli_json(&cli);
        if tool != fresh {
            let ids = |v: &Value| -> Vec<Value> {
                let results = v["results"].as_array().cloned().unwrap_or_default();
                results.iter().map(|m| m["id"].clone()).collect()
            };
            panic!(
                "after {after}: {args}\nserver:        total {} {:?}\nfresh process: total {} {:?}",
                tool["total"],
                ids(&tool),
                fresh["total"],
                ids(&fresh)
            );
        }
    }
}

fn run(args: &[&str]) {
    let out = memlens(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test]
async fn a_server_answers_what_other_processes_wrote_since_its_last_call() {
    let dir = tempfile::tempdir().unwrap();
    let db = store(dir.path(), 300);
    let dbs = db.to_str().unwrap();
    let agent = Client::spawn(&db).await;
    let other = Client::spawn(&db).await;
    // the first answers come while the index loads; wait for it to be in memory so
    // that the answers after the writes come from the loaded index
    answers_as_fresh_process(&agent, dbs, "opening").await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    answers_as_fresh_process(&agent, dbs, "loading").await;

    let new = dir.path().join("new.jsonl");
    std::fs::write(
        &new,
        concat!(
            r#"{"id":"z1","body":"zulu one, linked","relationships":[{"target":"m010"}]}"#,
            "\n",
            r#"{"id":"z2","body":"zulu two","rating_sum":25,"rating_count":5}"#,
            "\n"
        ),
    )
    .unwrap();
    let writes: Vec<Vec<&str>> = vec![
        vec!["import", new.to_str().unwrap()],
        vec!["approve", "m004"],
        vec!["rate", "m006", "5"],
        vec!["link", "m020", "m021"],
        vec!["set", "m030", "body=zulu now"],
        vec!["delete", "z2"],
        vec!["restore", "z2"],
        vec!["purge", "--yes", "m040"],
    ];
    for write in &writes {
        let mut args = write.clone();
        args.extend(["--db", dbs]);
        run(&args);
        answers_as_fresh_process(&agent, dbs, &write.join(" ")).await;
    }

    // another server's writes, made between two of this one's calls
    let created = other
        .ok(
            "remember_create_memory",
            json!({"id": "z3", "content": "zulu three from another agent", "tags": ["t1"]}),
        )
        .await;
    assert_eq!(created["memory_id"], "z3");
    answers_as_fresh_process(&agent, dbs, "another server's create").await;
    other
        .ok(
            "remember_update_memory",
            json!({"memory_id": "z1", "content": "zulu one, rewritten"}),
        )
        .await;
    answers_as_fresh_process(&agent, dbs, "another server's update").await;
    let found = agent
        .ok("mem_search", json!({"query": "rewritten", "track": false}))
        .await;
    assert_eq!(found["matches"][0]["id"], "z1", "{found}");
    // and this server's own tracked reads count on the next call
    let tracked = agent.ok("mem_search", json!({"query": "zulu"})).await;
    assert!(tracked["total"].as_u64().unwrap() >= 3, "{tracked}");
    answers_as_fresh_process(&agent, dbs, "tracked reads").await;
    assert_eq!(
        cli_json(&["get", "z3", "--json", "--db", dbs])["read_count"],
        1
    );
    agent.close().await;
    other.close().await;
}
