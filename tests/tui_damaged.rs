//! End to end: the browser on damaged stores. A real store is imported with `memlens
//! import`, then copies of its file are damaged at seeded random places (bytes
//! overwritten, bits flipped); the browser opens each one in a real pseudo-terminal,
//! `q` is pressed, and it must exit within seconds, never with a panic, leaving the
//! terminal as it found it. When the damage shows, it says so.

mod tui_common;

use std::path::Path;
use std::time::{Duration, Instant};
use tui_common::pty::{Run, binary, not_restored};

/// Damaged copies tried in all.
const VARIANTS: u64 = 60;
/// Runs side by side.
const THREADS: u64 = 3;

/// A small deterministic generator (splitmix64), so every run damages the same bytes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Memories enough to fill many pages of the store, as canonical JSONL.
fn corpus() -> String {
    let topics = [
        "ledger", "webhooks", "payouts", "deploy", "console", "recon",
    ];
    let types = ["decision", "gotcha", "note"];
    let mut out = String::new();
    for i in 0..400 {
        let topic = topics[i % topics.len()];
        let links = if i > 0 {
            serde_json::json!([{ "target": format!("mem-{:04}", i - 1) }])
        } else {
            serde_json::json!([])
        };
        let line = serde_json::json!({
            "id": format!("mem-{i:04}"),
            "title": format!("note {i} on the {topic} service"),
            "body": format!("Memory {i} about {topic}. {}", "It explains a choice at length. ".repeat(i % 9 + 1)),
            "type": types[i % 3],
            "tags": [topic, if i % 2 == 0 { "even" } else { "odd" }],
            "created_at": format!("2026-0{}-{:02}T10:00:00Z", 1 + i % 6, 1 + i % 28),
            "relationships": links,
        });
        out.push_str(&line.to_string());
        out.push('\n');
    }
    out
}

/// Imports the corpus into a new store at `db` with the real binary.
fn import(dir: &Path, db: &Path) {
    let jsonl = dir.join("memories.jsonl");
    std::fs::write(&jsonl, corpus()).expect("write jsonl");
    let out = std::process::Command::new(binary())
        .arg("import")
        .arg("--db")
        .arg(db)
        .arg(&jsonl)
        .output()
        .expect("run import");
    assert!(
        out.status.success(),
        "import failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Damages `bytes` in place: a few ranges overwritten with noise, or single bits
/// flipped, at offsets drawn from `rng`.
fn damage(bytes: &mut [u8], rng: &mut Rng) -> String {
    let len = bytes.len();
    let mut said = Vec::new();
    if rng.next().is_multiple_of(2) {
        for _ in 0..1 + rng.below(6) {
            let at = rng.below(len);
            let n = (1 + rng.below(2048)).min(len - at);
            for b in &mut bytes[at..at + n] {
                *b = rng.next() as u8;
            }
            said.push(format!("{n} bytes at {at}"));
        }
    } else {
        for _ in 0..1 + rng.below(32) {
            let at = rng.below(len);
            let bit = rng.below(8);
            bytes[at] ^= 1 << bit;
            said.push(format!("bit {bit} at {at}"));
        }
    }
    said.join(", ")
}

/// What one damaged store did.
struct Outcome {
    /// What went wrong, if anything.
    problem: Option<String>,
    /// True when memlens told of the damage (an `error:` line or the status line).
    noticed: bool,
    /// True when the browser opened (and so had a terminal to restore).
    browsed: bool,
}

/// Opens the browser on one damaged store, presses `q` and judges what it did.
fn try_variant(db: &Path, what: &str) -> Outcome {
    let mut noticed = false;
    let mut browsed = false;
    let problem = judge(db, what, &mut noticed, &mut browsed);
    Outcome {
        problem,
        noticed,
        browsed,
    }
}

fn judge(db: &Path, what: &str, noticed: &mut bool, browsed: &mut bool) -> Option<String> {
    let mut run = Run::browse(db, 80, 24);
    // Let it open the store, load and search (or fail to) before quitting.
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(5) && run.running() {
        let text = run.text();
        if text.contains(" match") || text.contains("damaged") {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let screen = run.text();
    *noticed = screen.contains("damaged") || screen.contains("corrupt");
    if run.running() {
        run.send("q");
    }
    let Some(status) = run.exit_within(Duration::from_secs(5)) else {
        return Some(format!(
            "{what}: still running 5 s after q; screen:\n{screen}"
        ));
    };
    let raw = run.raw();
    let output = String::from_utf8_lossy(&raw);
    *noticed |= output.contains("error: ");
    *browsed = tui_common::pty::find(&raw, b"\x1b[?1049h").is_some();
    if status.exit_code() == 101 || output.contains("panicked") {
        return Some(format!("{what}: panicked: {output}"));
    }
    if !matches!(status.exit_code(), 0 | 1) {
        return Some(format!("{what}: exit status {status:?}"));
    }
    if status.exit_code() == 1 && !output.contains("error: ") {
        return Some(format!("{what}: failed without an error line: {output}"));
    }
    let left = not_restored(&raw);
    if !left.is_empty() {
        return Some(format!("{what}: left {left:?} on"));
    }
    if !run.cooked() {
        return Some(format!("{what}: the terminal was left in raw mode"));
    }
    None
}

#[test]
fn damaged_stores_never_freeze_the_browser_and_q_always_quits() {
    let dir = tempfile::tempdir().expect("dir");
    let clean = dir.path().join("clean.redb");
    import(dir.path(), &clean);
    let original = std::fs::read(&clean).expect("read store");
    let outcomes: Vec<Outcome> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                let (dir, original) = (dir.path(), &original);
                scope.spawn(move || {
                    let mut found = Vec::new();
                    for v in (t..VARIANTS).step_by(THREADS as usize) {
                        let mut rng = Rng(0x6d65_6d6c_656e_7300 + v);
                        let mut bytes = original.clone();
                        let what = format!("variant {v} ({})", damage(&mut bytes, &mut rng));
                        let db = dir.join(format!("v{v}.redb"));
                        std::fs::write(&db, &bytes).expect("write damaged copy");
                        found.push(try_variant(&db, &what));
                    }
                    found
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("worker"))
            .collect()
    });
    let noticed = outcomes.iter().filter(|o| o.noticed).count();
    let browsed = outcomes.iter().filter(|o| o.browsed).count();
    let in_browser = outcomes.iter().filter(|o| o.browsed && o.noticed).count();
    eprintln!(
        "{noticed} of {VARIANTS} damaged stores told of damage; {browsed} opened the browser, {in_browser} of them told of damage there"
    );
    let problems: Vec<String> = outcomes.into_iter().filter_map(|o| o.problem).collect();
    assert!(
        problems.is_empty(),
        "{} of {VARIANTS} damaged stores went wrong:\n{}",
        problems.len(),
        problems.join("\n")
    );
    // The damage has to bite, and some of it only once the browser runs, for the test
    // to mean anything.
    assert!(
        noticed >= VARIANTS as usize / 6 && in_browser >= 2,
        "only {noticed} of {VARIANTS} damaged stores told of damage, {in_browser} in the browser"
    );
}
