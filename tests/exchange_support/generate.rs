//! Seeded, realistic memories for round-trip tests and the import benchmark: bodies of
//! about 200 bytes, tags, scopes, statuses, ratings, some `feel_*` scores, links,
//! soft deletes, unknown fields and a little non-ASCII text.

use memlens::model::{FEEL_DIMS, Memory, Relationship, Scope, Source, Status, Timestamp};
use serde_json::json;

/// A small xorshift generator: deterministic across platforms and runs.
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next() % 1_000_000) as f64 / 1e6 < p
    }
    /// A value in `lo..=hi` with three decimals.
    pub fn unit(&mut self, lo: f64, hi: f64) -> f64 {
        let steps = ((hi - lo) * 1000.0) as usize;
        lo + self.below(steps + 1) as f64 / 1000.0
    }
    /// One of the items.
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const WORDS: &[&str] = &[
    "ledger",
    "retry",
    "timeout",
    "migration",
    "cache",
    "index",
    "webhook",
    "payout",
    "schema",
    "deploy",
    "rollback",
    "token",
    "queue",
    "backoff",
    "idempotent",
    "latency",
    "flaky",
    "fixture",
    "release",
    "config",
    "parser",
    "budget",
    "tenant",
    "audit",
    "replica",
    "shard",
    "lock",
    "commit",
    "review",
    "metric",
    "alert",
    "trace",
    "span",
    "buffer",
    "encoder",
    "über",
    "naïve",
    "café",
    "数据",
    "résumé",
];
const TYPES: &[&str] = &[
    "convention",
    "decision",
    "gotcha",
    "architecture",
    "glossary",
    "skill",
    "attempt",
    "session_recap",
    "note",
    "todo",
    "event",
    "person",
    "journal",
];
const TAGS: &[&str] = &[
    "rust", "api", "ci", "db", "perf", "security", "testing", "ops", "ux", "docs", "infra",
];
const MODULES: &[&str] = &["ledger", "api", "web", "payouts", "recon"];

fn sentence(rng: &mut Rng, words: usize) -> String {
    let mut s = String::new();
    for i in 0..words {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(rng.pick(WORDS));
    }
    s
}

/// The `i`-th memory of a collection of `n` made from `seed` (links point at other
/// memories of the same collection, a few at missing ones).
pub fn memory(rng: &mut Rng, i: usize, n: usize) -> Memory {
    let base = 1_735_689_600_000_000_000i64; // 2025-01-01
    let created = Timestamp(
        base + (rng.below(40_000_000) as i64) * 1_000_000_000 + rng.below(1000) as i64 * 1_000_000,
    );
    let id = format!("m{i:07}");
    let mut body = format!("# {}\n\n", sentence(rng, 4));
    while body.len() < 190 {
        body.push_str(&sentence(rng, 6));
        body.push_str(". ");
    }
    let mut m = Memory::new(id, body.trim_end().to_string(), created);
    if rng.chance(0.7) {
        m.title = Some(sentence(rng, 3));
    }
    m.memory_type = rng.pick(TYPES).to_string();
    m.scope = Scope::ALL[rng.below(Scope::ALL.len())];
    if m.scope == Scope::Module || rng.chance(0.1) {
        m.module = Some(rng.pick(MODULES).to_string());
    }
    m.status = Status::ALL[rng.below(Status::ALL.len())];
    for _ in 0..rng.below(4) {
        m.tags.push(rng.pick(TAGS).to_string());
    }
    m.normalise();
    m.weight = rng.unit(0.0, 1.0);
    m.trust = rng.unit(0.0, 1.0);
    if rng.chance(0.3) {
        m.confidence = Some(rng.unit(0.0, 1.0));
    }
    m.updated_at = Timestamp(created.0 + rng.below(1000) as i64 * 60_000_000_000);
    if rng.chance(0.05) {
        m.deleted_at = Some(m.updated_at);
        m.deleted_reason = rng.chance(0.5).then(|| "superseded".to_string());
    }
    if rng.chance(0.4) {
        m.read_count = rng.below(30) as u32;
        m.last_read_at = Some(Timestamp(m.updated_at.0 + 3_600_000_000_000));
    }
    if rng.chance(0.5) {
        m.rating_count = rng.below(12) as u32;
        m.rating_sum = m.rating_count * (1 + rng.below(5) as u32);
    }
    for _ in 0..rng.below(3) {
        let target = if rng.chance(0.9) {
            format!("m{:07}", rng.below(n))
        } else {
            "missing-memory".to_string()
        };
        let kind = rng
            .pick(&["related", "supersedes", "depends_on"])
            .to_string();
        let strength = rng.chance(0.3).then(|| rng.unit(0.0, 1.0));
        if target != m.id {
            m.relationships.push(Relationship {
                target,
                kind,
                strength,
            });
        }
    }
    if rng.chance(0.6) {
        for (d, dim) in FEEL_DIMS.iter().enumerate() {
            if rng.chance(0.3) {
                m.feel[d] = Some(rng.unit(dim.min, dim.max));
            }
        }
    }
    if rng.chance(0.1) {
        m.rem_visits = Some(rng.below(9) as u32);
    }
    if rng.chance(0.3) {
        m.source = Some(Source {
            system: rng
                .pick(&["hivelore", "openmemory", "mcp-memory"])
                .to_string(),
            path: Some(format!("team/{}.md", m.id)),
            id: None,
            keys: Vec::new(),
        });
    }
    if rng.chance(0.3) {
        m.extra.insert(
            "anchor".into(),
            json!({"paths": [format!("src/{}.rs", rng.pick(WORDS))], "symbols": []}),
        );
        m.extra.insert("revision_count".into(), json!(rng.below(5)));
        m.extra
            .insert("verified_at".into(), json!(m.created_at.to_string()));
    }
    m
}

/// `n` memories from `seed`.
pub fn memories(seed: u64, n: usize) -> Vec<Memory> {
    let mut rng = Rng::new(seed);
    (0..n).map(|i| memory(&mut rng, i, n)).collect()
}

/// The same memories as canonical JSONL text.
pub fn jsonl(memories: &[Memory]) -> String {
    let mut text = String::new();
    for m in memories {
        text.push_str(&m.to_json_line());
        text.push('\n');
    }
    text
}
