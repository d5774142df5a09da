//! Bulk import throughput (SPEC §6: ≥ 100k memories/s; 1M in ≤ 10 s), next to its
//! peer: SQLite FTS5 loading the same id, title and body text, when `sqlite3` is on
//! the machine.
//!
//! Run: `cargo bench --bench import` (`MEMLENS_BENCH_N` sets the number of memories,
//! default 100000; `MEMLENS_BENCH_RUNS` the runs, default 5). Memories come from
//! `memlens::corpus` (seed 2026, ~200-byte bodies of real text, tags, ratings, links,
//! `feel_*` scores), written once as canonical JSONL; each run imports that file into a
//! fresh store in one durable transaction, as `memlens import` does.

use memlens::corpus::{CorpusSpec, generate};
use memlens::exchange::import::read_source;
use memlens::exchange::{Collected, Format, ImportOptions, ImportSource, OnConflict, import};
use memlens::model::Timestamp;
use memlens::store::Store;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort_unstable();
    v[v.len() / 2]
}

fn rate(n: usize, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64()
}

fn main() {
    let n = env_usize("MEMLENS_BENCH_N", 100_000);
    let runs = env_usize("MEMLENS_BENCH_RUNS", 5).max(1);
    let dir = tempfile::tempdir().expect("temp dir");
    let memories: Vec<memlens::model::Memory> = generate(CorpusSpec {
        seed: 2026,
        size: n,
        body_bytes_target: 200,
    })
    .collect();
    let text: String = memories.iter().map(|m| m.to_json_line() + "\n").collect();
    let input = dir.path().join("memories.jsonl");
    std::fs::write(&input, &text).expect("write input");
    println!(
        "import benchmark: {n} memories, {:.1} MB of JSONL ({} bytes/memory), {runs} runs",
        text.len() as f64 / 1e6,
        text.len() / n.max(1)
    );

    let options = ImportOptions {
        on_conflict: OnConflict::Fail,
        dry_run: false,
        now: Timestamp(0),
        ..ImportOptions::default()
    };
    let mut parse = Vec::new();
    let mut full = Vec::new();
    for run in 0..runs {
        let started = Instant::now();
        let mut sink = Collected::default();
        read_source(
            &ImportSource::Path(input.clone(), Some(Format::Jsonl)),
            &mut sink,
            Timestamp(0),
        )
        .expect("parse");
        parse.push(started.elapsed());
        assert_eq!(sink.memories.len(), n);
        drop(sink);

        let store_path = dir.path().join(format!("run{run}.redb"));
        let store = Store::open(&store_path).expect("store");
        let started = Instant::now();
        let summary = import(
            &store,
            &[ImportSource::Path(input.clone(), Some(Format::Jsonl))],
            &options,
        )
        .expect("import");
        full.push(started.elapsed());
        assert_eq!(summary.added, n);
        drop(store);
        let size = std::fs::metadata(&store_path).map(|m| m.len()).unwrap_or(0);
        let _ = std::fs::remove_file(&store_path);
        println!(
            "  run {run}: import {:>8.1} ms ({:>9.0} memories/s), parse only {:>7.1} ms, store file {:.1} MB",
            full[run].as_secs_f64() * 1e3,
            rate(n, full[run]),
            parse[run].as_secs_f64() * 1e3,
            size as f64 / 1e6
        );
    }
    let import_median = median(full);
    let parse_median = median(parse);
    println!(
        "memlens import: median {:.1} ms = {:.0} memories/s (target ≥ 100000/s); parse only {:.0} memories/s",
        import_median.as_secs_f64() * 1e3,
        rate(n, import_median),
        rate(n, parse_median)
    );
    println!(
        "  projected 1M: {:.1} s (target ≤ 10 s)",
        import_median.as_secs_f64() * 1_000_000.0 / n as f64
    );

    match fts5_median(dir.path(), &memories, runs) {
        Some(fts) => println!(
            "sqlite3 FTS5 load of the same text: median {:.1} ms = {:.0} memories/s; memlens/FTS5 throughput ratio {:.2}",
            fts.as_secs_f64() * 1e3,
            rate(n, fts),
            fts.as_secs_f64() / import_median.as_secs_f64()
        ),
        None => println!("sqlite3 not found: FTS5 comparison skipped"),
    }
}

/// Times `sqlite3` loading id, title and body into an FTS5 table in one transaction.
fn fts5_median(dir: &Path, memories: &[memlens::model::Memory], runs: usize) -> Option<Duration> {
    let ok = Command::new("sqlite3")
        .arg("-version")
        .stdout(Stdio::null())
        .status()
        .ok()?
        .success();
    if !ok {
        return None;
    }
    let quote = |s: &str| format!("'{}'", s.replace('\'', "''"));
    let mut sql =
        String::from("CREATE VIRTUAL TABLE memories USING fts5(id, title, body);\nBEGIN;\n");
    for m in memories {
        sql.push_str(&format!(
            "INSERT INTO memories VALUES({},{},{});\n",
            quote(&m.id),
            quote(m.title.as_deref().unwrap_or("")),
            quote(&m.body)
        ));
    }
    sql.push_str("COMMIT;\n");
    let script = dir.join("load.sql");
    std::fs::write(&script, sql).ok()?;
    let mut times = Vec::new();
    for run in 0..runs {
        let db = dir.join(format!("fts{run}.sqlite"));
        let started = Instant::now();
        let mut child = Command::new("sqlite3")
            .arg(&db)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .ok()?;
        let bytes = std::fs::read(&script).ok()?;
        child.stdin.take()?.write_all(&bytes).ok()?;
        if !child.wait().ok()?.success() {
            return None;
        }
        times.push(started.elapsed());
        let _ = std::fs::remove_file(&db);
    }
    Some(median(times))
}
