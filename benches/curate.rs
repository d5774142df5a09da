//! One durable curation write at 100k memories (SPEC §6: ≤ 5 ms p99), next to its
//! peer: a bare redb commit of one small key in the same file.
//!
//! Run: `cargo bench --bench curate` (set `MEMLENS_BENCH_N` for another store size and
//! `MEMLENS_BENCH_WRITES` for another number of timed writes). The store is built once
//! from `memlens::corpus` (seed 2026) and inserted in one transaction.

use memlens::corpus::{CorpusSpec, Rng, generate};
use memlens::curate::{Change, Edit, UndoStack, apply};
use memlens::model::{Memory, Status};
use memlens::store::Store;
use redb::TableDefinition;
use std::time::{Duration, Instant};

/// The peer's table: one small key rewritten per commit.
const SCRATCH: TableDefinition<&str, u64> = TableDefinition::new("bench_scratch");

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Times one call.
fn time(mut f: impl FnMut()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let n = env_usize("MEMLENS_BENCH_N", 100_000);
    let writes = env_usize("MEMLENS_BENCH_WRITES", 500).max(1);
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temporary directory");
    let path = dir.path().join("curate-bench.redb");
    let store = Store::open(&path).expect("open store");

    let mut rng = Rng(0x6d65_6d6c_656e_7321);
    let memories: Vec<Memory> = generate(CorpusSpec {
        seed: 2026,
        size: n,
        body_bytes_target: 200,
    })
    .collect();
    let build = time(|| {
        let mut w = store.write().expect("write");
        for m in &memories {
            w.put(m).expect("put");
        }
        w.commit().expect("commit");
    });
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    println!(
        "store: {n} memories built in {:.2} s ({:.0}/s), file {:.1} MB at {}",
        build.as_secs_f64(),
        n as f64 / build.as_secs_f64(),
        size as f64 / 1e6,
        path.display()
    );

    // Rates go to even-numbered memories and approves to odd ones, so no rate touches an
    // approved memory and every approve can be undone at the end.
    let id = |rng: &mut Rng, parity: usize| {
        memories[(rng.below(n / 2) * 2 + parity).min(n - 1)]
            .id
            .clone()
    };
    let mut stack = UndoStack::new(writes);
    let (mut peer, mut rate, mut approve, mut undo) = (vec![], vec![], vec![], vec![]);
    // Interleaved, so drift in the disk's speed hits every series alike.
    for i in 0..writes {
        peer.push(time(|| {
            let w = store.write().expect("write");
            {
                let mut t = w.table(SCRATCH).expect("scratch table");
                t.insert("counter", i as u64).expect("insert");
            }
            w.commit().expect("commit");
        }));
        let change = Change::edit([id(&mut rng, 0)], Edit::Rate(1 + rng.below(5) as u8));
        rate.push(time(|| {
            apply(&store, &change).expect("rate");
        }));
        // Draft memories only, so every approve really writes.
        let target = loop {
            let candidate = id(&mut rng, 1);
            let r = store.read().expect("read");
            if r.get(&candidate)
                .ok()
                .flatten()
                .is_some_and(|m| m.status != Status::Validated && !m.is_deleted())
            {
                break candidate;
            }
        };
        let change = Change::edit([target], Edit::Approve);
        approve.push(time(|| {
            stack.apply(&store, &change).expect("approve");
        }));
    }
    for _ in 0..stack.len() {
        undo.push(time(|| {
            stack.undo(&store).expect("undo");
        }));
    }

    println!("{writes} durable writes each (p50 / p99 / max, ms):");
    let peer_p = summarise(&mut peer);
    println!(
        "  {:<34} {:>7.3} {:>7.3} {:>7.3}",
        "peer: redb commit of one small key", peer_p.0, peer_p.1, peer_p.2
    );
    for (name, series) in [
        ("rate one memory", &mut rate),
        ("approve one memory (undoable)", &mut approve),
        ("undo one approve", &mut undo),
    ] {
        let (p50, p99, max) = summarise(series);
        println!(
            "  {name:<34} {p50:>7.3} {p99:>7.3} {max:>7.3}   ×{:.2} / ×{:.2} the peer",
            p50 / peer_p.0,
            p99 / peer_p.1
        );
    }
    println!("target (SPEC §6): one curation write ≤ 5 ms p99");
}

fn summarise(series: &mut [Duration]) -> (f64, f64, f64) {
    series.sort_unstable();
    (
        ms(percentile(series, 0.5)),
        ms(percentile(series, 0.99)),
        ms(percentile(series, 1.0)),
    )
}
