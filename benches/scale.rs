//! memlens at scale (SPEC §6), each figure beside its peer measured in the same run:
//! bulk import (vs SQLite FTS5 and tantivy-py), open to first frame and resident memory
//! (vs fzf reading the fuzzy haystacks), bytes written per keystroke at 200×50, one
//! durable curation write (vs a bare redb commit), and `memlens search` as a whole
//! process (vs `grep -F` on the literal haystacks, `sqlite3` FTS5 and `fzf --filter` on
//! the fuzzy haystacks: each peer searches the text memlens's engine searches).
//!
//! Run: `scripts/bench_peers.sh` once (as root), then
//! `MEMLENS_BENCH_N=100000 cargo bench --bench scale` (default 100000; 1000000 for 1M).
//! `MEMLENS_BENCH_RUNS` sets the repetitions (default 5), `MEMLENS_BENCH_IMPORT_RUNS`
//! the import repetitions (default 3, 1 at 500k and more). The corpus is
//! `memlens::corpus` (seed 2026, ~200-byte bodies); the `memlens` binary is the one
//! cargo builds for this benchmark. A missing peer prints "peer missing".

#[path = "scale_support/import.rs"]
mod import;
#[path = "scale_support/pty.rs"]
mod pty;

use import::{Files, fts5_import, import, tantivy_import, write_corpus};
use memlens::corpus::{Corpus, sources};
use memlens::curate::{Change, Edit, apply};
use memlens::store::Store;
use pty::{Session, fzf_count, memlens_matches};
use redb::TableDefinition;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const MEMLENS: &str = env!("CARGO_BIN_EXE_memlens");
/// The peer's table for the curation measure: one small key rewritten per commit.
const SCRATCH: TableDefinition<&str, u64> = TableDefinition::new("bench_scratch");
const COLS: u16 = 200;
const ROWS: u16 = 50;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Median and p95 in milliseconds.
fn p50_p95(mut v: Vec<Duration>) -> (f64, f64) {
    if v.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    v.sort_unstable();
    let at = |p: f64| v[(((v.len() - 1) as f64) * p).round() as usize].as_secs_f64() * 1e3;
    (at(0.5), at(0.95))
}

fn have(program: &str, arg: &str) -> bool {
    Command::new(program)
        .arg(arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs a command with stdout discarded; its wall time, or `None` when it failed.
fn timed(cmd: &mut Command) -> Option<Duration> {
    let started = Instant::now();
    let status = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .ok()?;
    status.success().then(|| started.elapsed())
}

/// Table rows, printed as they come and again at the end as one markdown table.
struct Table(Vec<String>);

impl Table {
    fn row(
        &mut self,
        measure: &str,
        memlens: String,
        peer: &str,
        peer_value: String,
        ratio: String,
        target: &str,
    ) {
        let line =
            format!("| {measure} | {memlens} | {peer} | {peer_value} | {ratio} | {target} |");
        println!("{line}");
        self.0.push(line);
    }
}

fn ratio(a: f64, b: f64) -> String {
    if a.is_finite() && b.is_finite() && b > 0.0 {
        format!("×{:.2}", a / b)
    } else {
        "—".into()
    }
}

fn main() {
    let n = env_usize("MEMLENS_BENCH_N", 100_000).max(100);
    let runs = env_usize("MEMLENS_BENCH_RUNS", 5).max(1);
    let import_runs = env_usize(
        "MEMLENS_BENCH_IMPORT_RUNS",
        if n >= 500_000 { 1 } else { 3 },
    )
    .max(1);
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir");
    let started = Instant::now();
    let files = write_corpus(dir.path(), n);
    let jsonl_size = std::fs::metadata(&files.jsonl)
        .map(|m| m.len())
        .unwrap_or(0);
    println!(
        "scale benchmark: {n} memories ({:.1} s to generate), {runs} runs, {import_runs} import runs",
        started.elapsed().as_secs_f64()
    );
    println!(
        "  JSONL {:.1} MB, plain text {:.1} MB ({} bytes/memory)",
        jsonl_size as f64 / 1e6,
        files.text_bytes as f64 / 1e6,
        files.text_bytes / n as u64
    );
    for s in sources() {
        println!("  source: {s}");
    }
    println!(
        "\n| measure | memlens | peer | peer figure | memlens/peer | SPEC target |\n|---|---|---|---|---|---|"
    );
    let mut table = Table(Vec::new());

    let store = import(&mut table, dir.path(), &files, n, import_runs);
    let fts = fts5_import(&mut table, dir.path(), &files, n, import_runs);
    tantivy_import(&mut table, dir.path(), &files, n);
    terminal(&mut table, dir.path(), &store, &files, n, runs);
    curation(&mut table, &store, n);
    search_processes(&mut table, &store, fts.as_deref(), &files, runs);

    println!(
        "\nall rows ({n} memories):\n| measure | memlens | peer | peer figure | memlens/peer | SPEC target |\n|---|---|---|---|---|---|"
    );
    for line in &table.0 {
        println!("{line}");
    }
}

/// Open to first frame, resident memory and bytes per keystroke, memlens and fzf in a pty.
fn terminal(table: &mut Table, dir: &Path, store: &Path, files: &Files, n: usize, runs: usize) {
    let limit = Duration::from_secs(120);
    let store_arg = store.to_string_lossy().to_string();
    let mut frames = Vec::new();
    let mut loaded = Vec::new();
    let mut rss = None;
    let mut keys = None;
    for run in 0..runs {
        let mut s = Session::start(MEMLENS, &["--db", &store_arg], COLS, ROWS, dir);
        let Some(t) = s.wait_for(limit, |text| memlens_matches(text).is_some_and(|m| m > 0)) else {
            println!(
                "  memlens showed no results within {limit:?}:\n{}",
                s.text()
            );
            return;
        };
        frames.push(t);
        if let Some(t) = s.wait_for(limit, idle) {
            loaded.push(t);
        }
        if run + 1 == runs {
            s.settle(Duration::from_millis(300), Duration::from_secs(60), idle);
            rss = s.memory();
            keys = Some(keystrokes(&mut s));
        }
    }
    let (f50, f95) = p50_p95(frames);

    // fzf reads what memlens's fuzzy engine searches: the fuzzy haystacks
    let lines = files.fuzzy.to_string_lossy().to_string();
    let mut fzf_frames = Vec::new();
    let mut fzf_rss = None;
    if have("fzf", "--version") {
        for _ in 0..runs {
            let s = Session::start(
                "sh",
                &["-c", &format!("exec fzf < '{lines}'")],
                COLS,
                ROWS,
                dir,
            );
            match s.wait_for(limit, |text| {
                fzf_count(text).is_some_and(|(a, b)| a == n && b == n)
            }) {
                Some(t) => fzf_frames.push(t),
                None => break,
            }
            std::thread::sleep(Duration::from_millis(200));
            fzf_rss = s.memory();
        }
    }
    let (z50, z95) = p50_p95(fzf_frames.clone());
    let peer = if fzf_frames.is_empty() {
        "peer missing".to_string()
    } else {
        format!("{z50:.0} ms p50, {z95:.0} ms p95")
    };
    table.row(
        "open store to first frame with results, 200×50",
        format!("{f50:.0} ms p50, {f95:.0} ms p95"),
        "fzf reading the fuzzy haystacks until its counter shows all",
        peer,
        ratio(f95, z95),
        "≤ 100 ms / ≤ 300 ms",
    );

    let (l50, l95) = p50_p95(loaded);
    table.row(
        "open store to the in-memory index loaded (every filter and mode at full speed)",
        format!("{l50:.0} ms p50, {l95:.0} ms p95"),
        "—",
        String::new(),
        String::new(),
        "— (the first frame above needs no load)",
    );

    let per = |bytes: u64| (bytes as f64 - files.text_bytes as f64) / n as f64;
    let per_line = |bytes: u64| (bytes as f64 - files.fuzzy_bytes as f64) / n as f64;
    let (m_rss, m_hwm) = rss.unwrap_or((0, 0));
    let (z_rss, _) = fzf_rss.unwrap_or((0, 0));
    table.row(
        "resident memory with the index loaded (VmRSS; beyond the text, per memory)",
        format!(
            "{:.0} MB ({:.0} B/memory; peak {:.0} MB)",
            m_rss as f64 / 1e6,
            per(m_rss),
            m_hwm as f64 / 1e6
        ),
        "fzf holding the fuzzy haystacks (beyond them, per line)",
        if fzf_rss.is_some() {
            format!(
                "{:.0} MB ({:.0} B/line)",
                z_rss as f64 / 1e6,
                per_line(z_rss)
            )
        } else {
            "peer missing".into()
        },
        ratio(per(m_rss), per_line(z_rss)),
        "≤ 600 B/memory; ≤ 600 MB at 1M",
    );
    if let Some((typed, noop)) = keys {
        let mut sorted = typed.clone();
        sorted.sort_unstable();
        let median = sorted.get(sorted.len() / 2).copied().unwrap_or(0);
        let max = sorted.last().copied().unwrap_or(0);
        table.row(
            "bytes written per keystroke, 200×50 (query typed letter by letter)",
            format!("median {median} B, max {max} B; no-op key {noop} B"),
            "ratatui diffing",
            format!("per key: {typed:?}"),
            String::new(),
            "≤ 16 KB; 0 when nothing changed",
        );
    }
}

/// True when the screen shows no search or load in progress (the first answers come
/// from the store's persisted index while the in-memory index loads).
fn idle(text: &str) -> bool {
    !text.contains("searching…") && !text.contains("loading…") && !text.contains("loading the")
}

/// Types a query letter by letter, then a key that changes nothing: bytes per key.
fn keystrokes(s: &mut Session) -> (Vec<u64>, u64) {
    let quiet = Duration::from_millis(400);
    let limit = Duration::from_secs(120);
    s.send("/");
    let mut before = s.settle(quiet, limit, idle);
    let mut typed = Vec::new();
    for c in "water".chars() {
        s.send(&c.to_string());
        let after = s.settle(quiet, limit, idle);
        typed.push(after - before);
        before = after;
    }
    // Back to the list, to the first row; moving up from there changes nothing.
    s.send("\u{1b}");
    std::thread::sleep(Duration::from_millis(150));
    s.send("g");
    let before = s.settle(quiet, limit, idle);
    s.send("k");
    let after = s.settle(quiet, limit, idle);
    (typed, after - before)
}

/// 300 durable single curation writes, interleaved with a bare redb commit.
fn curation(table: &mut Table, store: &Path, n: usize) {
    let writes = env_usize("MEMLENS_BENCH_WRITES", 300).max(1);
    let store = match Store::open(store) {
        Ok(s) => s,
        Err(e) => {
            println!("  cannot open the store for curation: {e}");
            return;
        }
    };
    let (mut ours, mut peer) = (Vec::new(), Vec::new());
    for i in 0..writes {
        let started = Instant::now();
        let w = store.write().expect("write");
        {
            let mut t = w.table(SCRATCH).expect("scratch table");
            t.insert("counter", i as u64).expect("insert");
        }
        w.commit().expect("commit");
        peer.push(started.elapsed());
        let id = Corpus::id_of((i * 7919) % n);
        let change = Change::edit([id], Edit::Rate(1 + (i % 5) as u8));
        let started = Instant::now();
        apply(&store, &change).expect("rate");
        ours.push(started.elapsed());
    }
    let p99 = |mut v: Vec<Duration>| {
        v.sort_unstable();
        let at = |p: f64| v[(((v.len() - 1) as f64) * p).round() as usize].as_secs_f64() * 1e3;
        (at(0.5), at(0.99))
    };
    let (o50, o99) = p99(ours);
    let (r50, r99) = p99(peer);
    table.row(
        &format!("one durable curation write (rate; {writes} writes, in-process)"),
        format!("{o50:.2} ms p50, {o99:.2} ms p99"),
        "redb commit of one small key",
        format!("{r50:.2} ms p50, {r99:.2} ms p99"),
        ratio(o99, r99),
        "≤ 5 ms p99",
    );
}

/// `memlens search` as a whole process against each engine's peer, per query.
fn search_processes(
    table: &mut Table,
    store: &Path,
    fts: Option<&Path>,
    files: &Files,
    runs: usize,
) {
    let queries =
        std::env::var("MEMLENS_BENCH_QUERIES").unwrap_or_else(|_| "time,water,xylophone".into());
    let (literal, fuzzy) = (
        files.literal.to_string_lossy().to_string(),
        files.fuzzy.to_string_lossy().to_string(),
    );
    let has_fzf = have("fzf", "--version");
    for q in queries.split(',').filter(|q| !q.is_empty()) {
        for (engine, peer_name) in [
            ("literal", "grep -F Q literal haystacks \\| wc -l"),
            ("bm25", "sqlite3 FTS5 MATCH … ORDER BY rank LIMIT 50"),
            ("fuzzy", "fzf --filter Q < fuzzy haystacks \\| head -50"),
        ] {
            let ours: Vec<Duration> = (0..runs)
                .filter_map(|_| {
                    timed(
                        Command::new(MEMLENS)
                            .arg("--db")
                            .arg(store)
                            .args(["search", "--engine", engine, "--limit", "50", q]),
                    )
                })
                .collect();
            let peer_cmd = |_: ()| -> Option<Command> {
                match engine {
                    "literal" => {
                        let mut c = Command::new("sh");
                        let q = q.to_lowercase();
                        c.args(["-c", &format!("grep -F '{q}' '{literal}' | wc -l")]);
                        Some(c)
                    }
                    "bm25" => {
                        let db = fts?;
                        let mut c = Command::new("sqlite3");
                        c.arg(db).arg(format!(
                            "SELECT rowid FROM t WHERE t MATCH '{q}' ORDER BY rank LIMIT 50"
                        ));
                        Some(c)
                    }
                    _ if has_fzf => {
                        let mut c = Command::new("sh");
                        c.args(["-c", &format!("fzf --filter '{q}' < '{fuzzy}' | head -50")]);
                        Some(c)
                    }
                    _ => None,
                }
            };
            let theirs: Vec<Duration> = (0..runs)
                .filter_map(|_| peer_cmd(()).and_then(|mut c| timed(&mut c)))
                .collect();
            let (o50, o95) = p50_p95(ours);
            let (t50, t95) = p50_p95(theirs.clone());
            let peer = if theirs.is_empty() {
                "peer missing".into()
            } else {
                format!("{t50:.0} ms p50, {t95:.0} ms p95")
            };
            table.row(
                &format!("`memlens search --engine {engine} --limit 50 {q}`, whole process"),
                format!("{o50:.0} ms p50, {o95:.0} ms p95"),
                peer_name,
                peer,
                ratio(o50, t50),
                "faster than the peer at 100k; ≤ 2× at 1M",
            );
        }
    }
}
