//! Bit rot never reads back as truth: a store imported and curated by the binary is
//! damaged in seeded ways (a single bit flipped, or a range of 1–64 bytes overwritten
//! with random bytes, at a random offset), and on each damaged copy every read command
//! (`get`, `search` with each engine, `export`, `stats`) must either print exactly what
//! it prints on the undamaged store, or fail with exit 1 and an `error:` saying the
//! store is damaged; never a panic (exit 101), a hang (killed after a time limit), or a
//! changed answer. `memlens check` must find every damage that changed any answer;
//! when it finds none (a flip in free space), every answer must be unchanged.
//!
//! The default test damages a few dozen copies; the ignored one `MEMLENS_FLIPS` (1,000
//! by default) and prints the tally (`cargo test --release --test corruption --
//! --ignored --nocapture`).

mod exchange_support;

use exchange_support::generate::{self, Rng};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one command may take on a damaged store before it counts as hung.
const TIME_LIMIT: Duration = Duration::from_secs(20);

/// The read commands compared with their answers on the undamaged store.
const COMMANDS: &[&[&str]] = &[
    &["get", "m0000007"],
    &["get", "--json", "m0000900"],
    &["search", "--limit", "30", "retry", "cache"],
    &[
        "search", "--engine", "bm25", "--json", "--limit", "30", "ledger",
    ],
    &["search", "--engine", "fuzzy", "--limit", "30", "migr"],
    &[
        "search",
        "--mode",
        "rating",
        "--limit",
        "30",
        "--filter",
        "feel_humor=0.2..0.9",
    ],
    &["export", "--include-deleted"],
    &["stats", "--json"],
];

/// What one command printed and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Answer {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// How the damaged copies fared.
#[derive(Debug, Default)]
struct Tally {
    /// Damaged copies.
    copies: usize,
    /// Copies on which every command answered as on the undamaged store.
    all_correct: usize,
    /// Copies on which some command reported the damage (and none changed its answer).
    reported: usize,
    /// Copies `memlens check` found damaged.
    check_found: usize,
    /// Command runs: correct, reporting damage.
    runs_correct: usize,
    runs_reported: usize,
    /// Failures: a changed answer, a panic, a hang, a damage check missed.
    silently_changed: Vec<String>,
    panics: Vec<String>,
    hangs: Vec<String>,
    check_missed: Vec<String>,
}

/// A store of 1,000 generated memories imported by the binary into `dir`, with a few
/// curation writes on top (so that pages written in place are damaged too).
fn store(dir: &Path) -> PathBuf {
    let file = dir.join("gen.jsonl");
    std::fs::write(&file, generate::jsonl(&generate::memories(13, 1_000))).unwrap();
    let db = dir.join("good.redb");
    let f = file.to_str().unwrap();
    for args in [
        &["import", f][..],
        &["rate", "m0000007", "5"],
        &["link", "m0000007", "m0000900"],
        &["delete", "m0000042"],
        &["approve", "m0000900"],
    ] {
        let a = run(dir, &db, args);
        assert_eq!(a.code, Some(0), "{args:?}: {}", a.stderr);
    }
    db
}

/// Runs `memlens --db db args…`, killing it after [`TIME_LIMIT`] (`code` is then
/// `None` and `stderr` says so).
fn run(dir: &Path, db: &Path, args: &[&str]) -> Answer {
    let out_file = dir.join("stdout.txt");
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
        .stdout(std::fs::File::create(&out_file).unwrap())
        .stderr(std::fs::File::create(&err_file).unwrap())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if start.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let read = |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
    Answer {
        code: status.and_then(|s| s.code()),
        stdout: read(&out_file),
        stderr: match status {
            Some(_) => read(&err_file),
            None => format!("hung: still running after {TIME_LIMIT:?}"),
        },
    }
}

/// True when `a` is a failure saying the store is damaged.
fn reports_damage(a: &Answer) -> bool {
    a.code == Some(1)
        && a.stderr.starts_with("error: ")
        && (a.stderr.contains("damaged") || a.stderr.contains("corrupt"))
}

/// `good` damaged at a random offset: a bit flipped, or 1–64 bytes overwritten; the
/// bytes and what was done.
fn damaged(good: &[u8], rng: &mut Rng, k: usize) -> (Vec<u8>, String) {
    let mut bytes = good.to_vec();
    if k.is_multiple_of(2) {
        let at = rng.below(bytes.len());
        let bit = rng.below(8);
        bytes[at] ^= 1 << bit;
        (bytes, format!("bit {bit} of byte {at} flipped"))
    } else {
        let len = 1 + rng.below(64);
        let at = rng.below(bytes.len() - len);
        for b in &mut bytes[at..at + len] {
            *b = rng.next() as u8;
        }
        (bytes, format!("bytes {at}..{} overwritten", at + len))
    }
}

/// Damages `copies` copies of a fresh store and runs every command and the check on
/// each (a fresh copy per command, as an open may recover or upgrade the file).
fn damaged_copies(seed: u64, copies: usize) -> Tally {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good_path = store(d);
    let good = std::fs::read(&good_path).unwrap();
    let db = d.join("damaged.redb");
    let baseline: Vec<Answer> = COMMANDS
        .iter()
        .map(|args| {
            std::fs::write(&db, &good).unwrap();
            let a = run(d, &db, args);
            assert_eq!(
                a.code,
                Some(0),
                "{args:?} on the undamaged store: {}",
                a.stderr
            );
            a
        })
        .collect();
    let mut rng = Rng::new(seed);
    let mut tally = Tally::default();
    for k in 0..copies {
        let (bytes, what) = damaged(&good, &mut rng, k);
        tally.copies += 1;
        let mut changed_any = false;
        let mut reported_any = false;
        for (args, want) in COMMANDS.iter().zip(&baseline) {
            std::fs::write(&db, &bytes).unwrap();
            let got = run(d, &db, args);
            let case = || {
                format!(
                    "seed {seed}, {what}: memlens {args:?}: exit {:?}: {}",
                    got.code,
                    first_line(&got.stderr)
                )
            };
            if got == *want {
                tally.runs_correct += 1;
            } else if got.code.is_none() {
                tally.hangs.push(case());
                changed_any = true;
            } else if got.code == Some(101) || got.stderr.contains("panicked") {
                tally.panics.push(case());
                changed_any = true;
            } else if reports_damage(&got) {
                tally.runs_reported += 1;
                reported_any = true;
                changed_any = true;
            } else {
                tally.silently_changed.push(case());
                changed_any = true;
            }
        }
        std::fs::write(&db, &bytes).unwrap();
        let check = run(d, &db, &["check"]);
        assert!(
            matches!(check.code, Some(0 | 1)),
            "seed {seed}, {what}: memlens check: exit {:?}: {}",
            check.code,
            check.stderr
        );
        let found = check.code == Some(1);
        tally.check_found += usize::from(found);
        if changed_any && !found {
            tally.check_missed.push(format!("seed {seed}, {what}"));
        }
        if !changed_any {
            tally.all_correct += 1;
        } else if reported_any {
            tally.reported += 1;
        }
    }
    tally
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

fn merge(all: &mut Tally, t: Tally) {
    all.copies += t.copies;
    all.all_correct += t.all_correct;
    all.reported += t.reported;
    all.check_found += t.check_found;
    all.runs_correct += t.runs_correct;
    all.runs_reported += t.runs_reported;
    all.silently_changed.extend(t.silently_changed);
    all.panics.extend(t.panics);
    all.hangs.extend(t.hangs);
    all.check_missed.extend(t.check_missed);
}

fn summary(t: &Tally) -> String {
    let list = |v: &[String]| v.iter().map(|c| format!("\n  {c}")).collect::<String>();
    format!(
        "{} damaged copies: {} answered every command exactly as before, {} had damage reported, check found {}; {} runs correct, {} reported damage; silently changed: {}{}; panics: {}{}; hangs: {}{}; damage check missed: {}{}",
        t.copies,
        t.all_correct,
        t.reported,
        t.check_found,
        t.runs_correct,
        t.runs_reported,
        t.silently_changed.len(),
        list(&t.silently_changed),
        t.panics.len(),
        list(&t.panics),
        t.hangs.len(),
        list(&t.hangs),
        t.check_missed.len(),
        list(&t.check_missed),
    )
}

fn assert_sound(t: &Tally) {
    let s = summary(t);
    eprintln!("{s}");
    assert!(
        t.silently_changed.is_empty()
            && t.panics.is_empty()
            && t.hangs.is_empty()
            && t.check_missed.is_empty(),
        "{s}"
    );
}

#[test]
fn damage_is_reported_or_harmless_never_a_changed_answer() {
    let t = damaged_copies(1, 80);
    // the damage is real: some of it is found
    assert!(t.check_found > 0, "{}", summary(&t));
    assert_sound(&t);
}

#[test]
#[ignore = "a thousand damaged copies; see the module documentation"]
fn a_thousand_damaged_copies() {
    let copies: usize = std::env::var("MEMLENS_FLIPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000);
    let mut all = Tally::default();
    let mut seed = 100;
    while all.copies < copies {
        let batch = damaged_copies(seed, 100.min(copies - all.copies));
        merge(&mut all, batch);
        seed += 1;
        eprintln!("{} copies so far", all.copies);
    }
    assert_sound(&all);
}
