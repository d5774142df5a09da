//! One durable curation write at 100k memories (SPEC §6: ≤ 5 ms p99), next to its
//! peer: a bare redb commit of one small key in the same file.
//!
//! Run: `cargo bench --bench curate` (set `MEMLENS_BENCH_N` for another store size and
//! `MEMLENS_BENCH_WRITES` for another number of timed writes). The store is built once
//! from memories generated in code with a seeded RNG and inserted in one transaction.

use memlens::curate::{Change, Edit, UndoStack, apply};
use memlens::model::{FEEL_DIMS, Memory, Status, Timestamp};
use memlens::store::Store;
use redb::TableDefinition;
use std::time::{Duration, Instant};

/// The peer's table: one small key rewritten per commit.
const SCRATCH: TableDefinition<&str, u64> = TableDefinition::new("bench_scratch");

const WORDS: [&str; 24] = [
    "store", "index", "search", "memory", "agent", "commit", "redb", "token", "query", "slider",
    "decision", "gotcha", "module", "review", "latency", "cache", "budget", "schema", "import",
    "export", "terminal", "render", "filter", "ranking",
];
const TYPES: [&str; 5] = ["note", "decision", "gotcha", "convention", "session_recap"];

/// splitmix64: a small, seeded, reproducible generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A memory of about 200 bytes of body, with tags, a few scores and sometimes a link.
fn generate(rng: &mut Rng, i: usize, n: usize) -> Memory {
    let mut body = String::with_capacity(220);
    while body.len() < 200 {
        body.push_str(WORDS[rng.below(WORDS.len())]);
        body.push(' ');
    }
    let created = Timestamp(1_700_000_000_000_000_000 + i as i64 * 60_000_000_000);
    let mut m = Memory::new(format!("mem-{i:07}"), body.trim_end(), created);
    m.title = Some(format!("{} {}", WORDS[rng.below(24)], WORDS[rng.below(24)]));
    m.memory_type = TYPES[rng.below(TYPES.len())].into();
    m.tags = (0..rng.below(4))
        .map(|_| WORDS[rng.below(WORDS.len())].to_string())
        .collect();
    for _ in 0..rng.below(6) {
        let d = rng.below(FEEL_DIMS.len());
        m.feel[d] = Some(rng.unit() * (FEEL_DIMS[d].max - FEEL_DIMS[d].min) + FEEL_DIMS[d].min);
    }
    if rng.below(4) == 0 {
        let target = rng.below(n);
        if target != i {
            m.relationships.push(memlens::model::Relationship {
                target: format!("mem-{target:07}"),
                kind: "related".into(),
                strength: None,
            });
        }
    }
    m.normalise();
    m
}

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
    let memories: Vec<Memory> = (0..n).map(|i| generate(&mut rng, i, n)).collect();
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
                let mut t = w.txn().open_table(SCRATCH).expect("scratch table");
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
                .is_some_and(|m| m.status != Status::Validated)
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
