//! A write killed at any moment leaves the store as it was before it or as it is after
//! it, never in between, and never damaged: `memlens import` of a generated JSONL file
//! and the curation verbs (`rate`, `approve`, `link`, `delete`, `merge`) are killed
//! with SIGKILL after a random delay (seeded), then `memlens check` must find the store
//! clean and `memlens export` must print exactly the store before the write or the
//! store the same write gives when it runs to its end on a copy (times the write itself
//! stamps, within a day of now, are compared as "now").
//!
//! The default test kills a few dozen writes. `MEMLENS_KILLS` sets how many the ignored
//! test kills (`scripts/kill_soak.sh` runs it for thousands); `MEMLENS_KILL_SEED` the
//! seed.

#![cfg(unix)]

mod exchange_support;

use exchange_support::generate::{self, Rng};
use exchange_support::{memlens, stderr, stdout};
use memlens::model::Timestamp;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Memories in the store before the first kill.
const BASE: usize = 2_000;
/// Memories in each killed import.
const IMPORTED: usize = 2_000;

/// How the kills ended.
#[derive(Debug, Default)]
struct Tally {
    kills: usize,
    /// The store was left needing crash recovery (the kill came during a write).
    recoveries: usize,
    /// The store was as before the write.
    before: usize,
    /// The store was as after the write.
    after: usize,
}

/// A temporary home with a store of [`BASE`] memories.
struct Bench {
    _home: tempfile::TempDir,
    home: PathBuf,
    db: PathBuf,
    rng: Rng,
    tally: Tally,
    /// The store's export as the last kill left it.
    current: Option<Vec<Value>>,
}

impl Bench {
    fn new(seed: u64) -> Bench {
        let home = tempfile::tempdir().unwrap();
        let h = home.path().to_path_buf();
        let file = h.join("base.jsonl");
        std::fs::write(&file, generate::jsonl(&generate::memories(seed, BASE))).unwrap();
        let db = h.join("s.redb");
        let out = memlens(&h, &["import", "--db", s(&db), s(&file)], &[]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        Bench {
            _home: home,
            home: h,
            db,
            rng: Rng::new(seed),
            tally: Tally::default(),
            current: None,
        }
    }

    /// The store's memories as `export` prints them, the write's own times masked.
    fn export(&self, db: &Path) -> Vec<Value> {
        let out = memlens(
            &self.home,
            &["export", "--include-deleted", "--db", s(db)],
            &[],
        );
        assert_eq!(out.status.code(), Some(0), "export: {}", stderr(&out));
        stdout(&out)
            .lines()
            .map(|l| masked(serde_json::from_str(l).expect("a JSON line")))
            .collect()
    }

    /// Runs `args` (a write) to its end on a copy of the store: the store after it, and
    /// how long it took.
    fn oracle(&self, args: &[String]) -> (Vec<Value>, Duration) {
        let copy = self.home.join("oracle.redb");
        std::fs::copy(&self.db, &copy).unwrap();
        let started = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_memlens"))
            .args(args)
            .args(["--db", s(&copy)])
            .current_dir(&self.home)
            .output()
            .unwrap();
        let took = started.elapsed();
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let after = self.export(&copy);
        std::fs::remove_file(&copy).unwrap();
        (after, took)
    }

    /// Runs `args` on the store, kills it after a random part of `took` (a little more,
    /// so that some kills come after the end), and checks the store.
    fn kill(&mut self, args: &[String]) {
        let before = match self.current.take() {
            Some(export) => export,
            None => self.export(&self.db),
        };
        let (after, took) = self.oracle(args);
        let limit = took.as_micros() as usize * 6 / 5 + 1;
        let delay = Duration::from_micros(self.rng.below(limit) as u64);
        let mut child = Command::new(env!("CARGO_BIN_EXE_memlens"))
            .args(args)
            .args(["--db", s(&self.db)])
            .current_dir(&self.home)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill(); // SIGKILL
        let status = child.wait().unwrap();
        assert_ne!(status.code(), Some(101), "{args:?} panicked");
        self.tally.kills += 1;
        let needs_recovery = memlens::store::Store::snapshot(&self.db).unwrap().is_none();
        self.tally.recoveries += usize::from(needs_recovery);
        let check = memlens(&self.home, &["check", "--db", s(&self.db)], &[]);
        assert_eq!(
            check.status.code(),
            Some(0),
            "{args:?} killed after {delay:?}: check: {}{}",
            stdout(&check),
            stderr(&check)
        );
        let now = self.export(&self.db);
        if now == before {
            self.tally.before += 1;
            self.current = Some(now);
        } else if now == after {
            self.tally.after += 1;
            self.current = Some(now);
        } else {
            let lost = before.iter().filter(|m| !now.contains(m)).count();
            let extra = now.iter().filter(|m| !before.contains(m)).count();
            panic!(
                "{args:?} killed after {delay:?}: the store is neither before nor after it ({} memories before, {} after, {} now; {lost} of before's are gone, {extra} are new)",
                before.len(),
                after.len(),
                now.len()
            );
        }
    }

    /// An import of [`IMPORTED`] new memories (linking to the base ones).
    fn import_args(&mut self, round: usize) -> Vec<String> {
        let mut memories = generate::memories(self.rng.next(), IMPORTED);
        for m in &mut memories {
            m.id = format!("r{round}-{}", m.id);
        }
        let file = self.home.join(format!("round{round}.jsonl"));
        std::fs::write(&file, generate::jsonl(&memories)).unwrap();
        vec!["import".into(), file.to_string_lossy().into_owned()]
    }

    /// A curation write on random base memories.
    fn curation_args(&mut self) -> Vec<String> {
        let mut id = || format!("m{:07}", self.rng.below(BASE));
        let (a, b) = (id(), id());
        let stars = (1 + self.rng.below(5)).to_string();
        let args: Vec<String> = match self.rng.below(5) {
            0 => vec!["rate".into(), a, stars],
            1 => vec!["approve".into(), a, b],
            2 => vec!["link".into(), a, b],
            3 => vec!["delete".into(), a],
            _ => vec!["merge".into(), a, b],
        };
        args
    }
}

/// `v` with every timestamp within a day of now (written by the write under test)
/// replaced by `"now"`.
fn masked(v: Value) -> Value {
    let now = Timestamp::now().0;
    const DAY: i64 = 86_400_000_000_000;
    match v {
        Value::String(text) => match Timestamp::parse(&text) {
            Some(t) if (t.0 - now).abs() < DAY => Value::String("now".into()),
            _ => Value::String(text),
        },
        Value::Array(items) => Value::Array(items.into_iter().map(masked).collect()),
        Value::Object(fields) => {
            Value::Object(fields.into_iter().map(|(k, v)| (k, masked(v))).collect())
        }
        other => other,
    }
}

/// Kills `imports` imports and `curations` curation writes, interleaved.
fn run(seed: u64, imports: usize, curations: usize) -> Tally {
    let mut bench = Bench::new(seed);
    let total = imports + curations;
    for i in 0..total {
        let args = if i * imports / total.max(1) != (i + 1) * imports / total.max(1) {
            bench.import_args(i)
        } else {
            bench.curation_args()
        };
        bench.kill(&args);
    }
    eprintln!("{:?}", bench.tally);
    bench.tally
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn killed_imports_and_curation_writes_leave_the_store_before_or_after_and_clean() {
    let tally = run(7, 8, 22);
    assert_eq!(tally.kills, 30);
    assert_eq!(tally.before + tally.after, tally.kills);
    // the delays spread over the whole write: some kills land before, some after
    assert!(tally.before > 0 && tally.after > 0, "{tally:?}");
}

#[test]
#[ignore = "thousands of kills; run by scripts/kill_soak.sh"]
fn many_killed_writes() {
    let kills = env_usize("MEMLENS_KILLS", 2_000);
    let minutes = env_usize("MEMLENS_KILL_MINUTES", usize::MAX / 120);
    let seed = env_usize("MEMLENS_KILL_SEED", 11) as u64;
    let started = Instant::now();
    let mut all = Tally::default();
    // a fresh store every 40 kills, so that the imports do not grow one without end
    let mut batch = 0;
    while all.kills < kills && started.elapsed() < Duration::from_secs(minutes as u64 * 60) {
        let t = run(seed + batch, 10, 30);
        all.kills += t.kills;
        all.recoveries += t.recoveries;
        all.before += t.before;
        all.after += t.after;
        batch += 1;
        println!(
            "kills: {}, left needing recovery: {}, as before: {}, as after: {}, lost or half-applied: 0 ({:.0?})",
            all.kills,
            all.recoveries,
            all.before,
            all.after,
            started.elapsed()
        );
    }
}
