//! A damaged store file is an error, never a panic or a hang: a real store imported by
//! the binary is damaged in seeded ways (single bit flips, 4 KiB ranges overwritten at
//! random offsets, the file cut short), and every read subcommand and two writes run
//! on each damaged copy must end within a time limit with exit code 0 or 1, never a
//! panic message.
//!
//! The default test runs a few hundred commands; the ignored one runs thousands
//! (`cargo test --release --test store_damage -- --ignored`; `MEMLENS_DAMAGED_COPIES`
//! sets how many copies).

mod exchange_support;

use exchange_support::generate::{self, Rng};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one command may take on a damaged store before it counts as hung.
const TIME_LIMIT: Duration = Duration::from_secs(20);

/// The commands run on every damaged copy: each read subcommand with each engine and a
/// few modes and filters, and two writes.
const COMMANDS: &[&[&str]] = &[
    &["stats"],
    &["get", "m0000007"],
    &["get", "--json", "m0001500"],
    &["search", "retry", "cache"],
    &["search", "--engine", "bm25", "--json", "ledger"],
    &["search", "--engine", "fuzzy", "migr"],
    &[
        "search",
        "--mode",
        "rating",
        "--filter",
        "feel_humor=0.2..0.9",
    ],
    &[
        "search",
        "--mode",
        "property",
        "--sort-field",
        "weight",
        "--filter",
        "type=decision,gotcha",
    ],
    &[
        "search",
        "--mode",
        "discovery",
        "--filter",
        "deleted=include",
    ],
    &["export", "--include-deleted"],
    &["rate", "m0000007", "4"],
    &["approve", "m0000042", "m0002000"],
];

/// How one command on one damaged copy ended.
#[derive(Debug, Default)]
struct Tally {
    runs: usize,
    succeeded: usize,
    damaged: usize,
    other_errors: usize,
}

/// A store of `n` generated memories imported by the binary into `dir`.
fn imported_store(dir: &Path, n: usize) -> PathBuf {
    let file = dir.join("gen.jsonl");
    std::fs::write(&file, generate::jsonl(&generate::memories(11, n))).unwrap();
    let db = dir.join("good.redb");
    let out = Command::new(env!("CARGO_BIN_EXE_memlens"))
        .args([
            "import",
            "--db",
            db.to_str().unwrap(),
            file.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    db
}

/// The `k`-th damaged copy of `good`: a bit flipped, a 4 KiB range overwritten with
/// random bytes, or the file cut short, at a random offset.
fn damaged(good: &[u8], rng: &mut Rng, k: usize) -> Vec<u8> {
    let mut bytes = good.to_vec();
    match k % 3 {
        0 => {
            let at = rng.below(bytes.len());
            bytes[at] ^= 1 << rng.below(8);
        }
        1 => {
            let at = rng.below(bytes.len() - 4096);
            for b in &mut bytes[at..at + 4096] {
                *b = rng.next() as u8;
            }
        }
        _ => bytes.truncate(rng.below(bytes.len())),
    }
    bytes
}

/// Runs `memlens --db db args…`, killing it after [`TIME_LIMIT`]; its exit code (None
/// when a signal ended it) and stderr. Panics, naming the command, when it hangs.
fn run_limited(dir: &Path, db: &Path, args: &[&str]) -> (Option<i32>, String) {
    let err_file = dir.join("stderr.txt");
    let mut child = Command::new(env!("CARGO_BIN_EXE_memlens"))
        .arg("--db")
        .arg(db)
        .args(args)
        .env_remove("MEMLENS_DB")
        .env("HOME", dir)
        .env("XDG_DATA_HOME", dir.join("data"))
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&err_file).unwrap())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("memlens {args:?} on a damaged store still ran after {TIME_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    (status.code(), std::fs::read_to_string(&err_file).unwrap())
}

/// Damages `copies` copies of a fresh store of `memories` memories and runs every
/// command on each (a fresh copy per command, as writes change the file).
fn every_command_on_damaged_copies(seed: u64, memories: usize, copies: usize) -> Tally {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read(imported_store(dir.path(), memories)).unwrap();
    let db = dir.path().join("damaged.redb");
    let mut rng = Rng::new(seed);
    let mut tally = Tally::default();
    for k in 0..copies {
        let bytes = damaged(&good, &mut rng, k);
        for args in COMMANDS {
            std::fs::write(&db, &bytes).unwrap();
            let (code, stderr) = run_limited(dir.path(), &db, args);
            let case = format!("copy {k} (seed {seed}), memlens {args:?}: exit {code:?}\n{stderr}");
            assert!(matches!(code, Some(0 | 1)), "{case}");
            assert!(!stderr.contains("panicked"), "{case}");
            tally.runs += 1;
            match code {
                Some(0) => tally.succeeded += 1,
                _ if stderr.contains("the store is damaged") => tally.damaged += 1,
                _ => tally.other_errors += 1,
            }
        }
    }
    eprintln!("{tally:?}");
    tally
}

#[test]
fn the_undamaged_store_answers_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let good = imported_store(dir.path(), 3000);
    let db = dir.path().join("copy.redb");
    for args in COMMANDS {
        std::fs::copy(&good, &db).unwrap();
        let (code, stderr) = run_limited(dir.path(), &db, args);
        assert_eq!(code, Some(0), "memlens {args:?}: {stderr}");
    }
}

#[test]
fn a_damaged_store_is_an_error_never_a_panic_or_a_hang() {
    let tally = every_command_on_damaged_copies(1, 3000, 24);
    // the damage is real: some commands find it and say so
    assert!(tally.damaged > 0, "{tally:?}");
}

#[test]
#[ignore = "thousands of runs; see the module documentation"]
fn thousands_of_damaged_stores_are_errors_never_panics_or_hangs() {
    let copies = std::env::var("MEMLENS_DAMAGED_COPIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    let mut total = Tally::default();
    for seed in 2..6 {
        let t = every_command_on_damaged_copies(seed, 3000, copies / 4);
        total.runs += t.runs;
        total.succeeded += t.succeeded;
        total.damaged += t.damaged;
        total.other_errors += t.other_errors;
    }
    eprintln!("all seeds: {total:?}");
    assert!(total.damaged > 0, "{total:?}");
}
