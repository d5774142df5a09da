//! The agents' tool calls through `memlens mcp` (SPEC §6: ≤ 10 ms p95 at 100k, ≤ 50 ms at
//! 1M), each next to its peer: the same request from the command line, a whole process.
//! Also the time from an agent's create to the memory being readable by another process.
//!
//! Run: `cargo bench --bench mcp` (`MEMLENS_BENCH_N` sets the store size, default 100k;
//! `MEMLENS_BENCH_CALLS` the calls per tool, default 200; `MEMLENS_BENCH_SETTLE_MS` how
//! long to wait after the first call for the server's index to load, default 3000). The store is built once from
//! `memlens::corpus` (seed 2026). A real rmcp client spawns the release binary.

use memlens::corpus::{CorpusSpec, generate};
use memlens::store::Store;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};
use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_memlens");

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// p50 and p95 in ms.
fn summary(series: &mut [Duration]) -> (f64, f64) {
    series.sort_unstable();
    let at = |p: f64| ms(series[((series.len() as f64 - 1.0) * p).round() as usize]);
    (at(0.5), at(0.95))
}

fn cli(args: &[&str]) -> Duration {
    let start = Instant::now();
    let out = Command::new(BIN).args(args).output().expect("run memlens");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    start.elapsed()
}

#[tokio::main]
async fn main() {
    let n = env_usize("MEMLENS_BENCH_N", 100_000);
    let calls = env_usize("MEMLENS_BENCH_CALLS", 200).max(1);
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temporary directory");
    let path = dir.path().join("mcp-bench.redb");
    {
        let store = Store::open(&path).expect("open store");
        let mut w = store.write().expect("write");
        for m in generate(CorpusSpec {
            seed: 2026,
            size: n,
            body_bytes_target: 200,
        }) {
            w.put(&m).expect("put");
        }
        w.commit().expect("commit");
    }
    let db = path.to_str().expect("path").to_string();
    println!("store: {n} memories at {db}");

    let transport = TokioChildProcess::new(tokio::process::Command::new(BIN).configure(|c| {
        c.arg("mcp").arg("--db").arg(&db);
    }))
    .expect("spawn memlens mcp");
    let client = ().serve(transport).await.expect("handshake");
    let call = |name: &'static str, args: Value| {
        let Value::Object(args) = args else {
            unreachable!()
        };
        let client = &client;
        async move {
            let start = Instant::now();
            let r = client
                .call_tool(CallToolRequestParams::new(name).with_arguments(args))
                .await
                .expect("call");
            assert_ne!(r.is_error, Some(true), "{name}: {:?}", r.content);
            start.elapsed()
        }
    };

    // the server opens the store and starts loading its index when it starts; the
    // first call is answered from the index on disk meanwhile
    let first = call("remember_search_by", json!({"mode": "byTime"})).await;
    println!("  first call (index loading)        {:>8.2}", ms(first));
    let settle = env_usize("MEMLENS_BENCH_SETTLE_MS", 3000);
    tokio::time::sleep(Duration::from_millis(settle as u64)).await;

    let cases: Vec<(&str, &'static str, Value, Vec<&str>)> = vec![
        (
            "mem_search literal",
            "mem_search",
            json!({"query": "the", "track": false}),
            vec!["search", "--json", "--limit=10", "the"],
        ),
        (
            "mem_search lexical_rank",
            "mem_search",
            json!({"query": "the river", "lexical_rank": true, "track": false}),
            vec![
                "search",
                "--json",
                "--limit=10",
                "--engine=bm25",
                "the",
                "river",
            ],
        ),
        (
            "remember_search_by byTime",
            "remember_search_by",
            json!({"mode": "byTime"}),
            vec!["search", "--json", "--limit=10", "--mode=time"],
        ),
        (
            "remember_search_by byProperty",
            "remember_search_by",
            json!({"mode": "byProperty", "sort_field": "weight", "filters": {"types": ["note"]}}),
            vec![
                "search",
                "--json",
                "--limit=10",
                "--mode=property",
                "--sort-field=weight",
                "--filter=type=note",
            ],
        ),
        (
            "remember_search_by byRandom",
            "remember_search_by",
            json!({"mode": "byRandom", "seed": 1}),
            vec![
                "search",
                "--json",
                "--limit=10",
                "--mode=random",
                "--seed=1",
            ],
        ),
    ];
    println!(
        "{calls} calls per tool, {} CLI runs per peer (p50 / p95, ms):",
        calls / 10 + 1
    );
    for (label, tool, args, flags) in cases {
        let mut through = Vec::with_capacity(calls);
        for _ in 0..calls {
            through.push(call(tool, args.clone()).await);
        }
        let mut peer = Vec::new();
        let mut argv = flags.clone();
        argv.extend(["--db", db.as_str()]);
        for _ in 0..calls / 10 + 1 {
            peer.push(cli(&argv));
        }
        let (a50, a95) = summary(&mut through);
        let (p50, p95) = summary(&mut peer);
        println!(
            "  {label:<32} server {a50:>8.2} {a95:>8.2}   CLI {p50:>8.2} {p95:>8.2}   ×{:.2} the CLI at p95",
            a95 / p95
        );
    }

    let mut created = Vec::new();
    let mut seen = Vec::new();
    for i in 0..calls.min(50) {
        let id = format!("bench-created-{i}");
        let start = Instant::now();
        call(
            "remember_create_memory",
            json!({"id": id, "content": "a memory an agent just wrote"}),
        )
        .await;
        created.push(start.elapsed());
        let out = Command::new(BIN)
            .args(["get", &id, "--json", "--db", &db])
            .output()
            .expect("get");
        assert!(out.status.success());
        seen.push(start.elapsed());
    }
    // an agent's search right after its own write: the server brings its index up to
    // date with the change first
    let mut after_write = Vec::new();
    for i in 0..calls.min(50) {
        call(
            "remember_create_memory",
            json!({"id": format!("bench-then-{i}"), "content": "written, then searched"}),
        )
        .await;
        after_write.push(
            call(
                "mem_search",
                json!({"query": "the river", "lexical_rank": true, "track": false}),
            )
            .await,
        );
    }
    let (w50, w95) = summary(&mut after_write);
    let (c50, c95) = summary(&mut created);
    let (s50, s95) = summary(&mut seen);
    println!("  remember_create_memory (durable)  {c50:>8.2} {c95:>8.2}");
    println!("  create → `memlens get` sees it     {s50:>8.2} {s95:>8.2}");
    println!("  mem_search right after a create    {w50:>8.2} {w95:>8.2}");
    println!("target (SPEC §6): a tool call ≤ 10 ms p95 at 100k, ≤ 50 ms at 1M");
    let _ = client.cancel().await;
}
