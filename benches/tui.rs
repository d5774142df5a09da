//! The browser's own costs, measured in-process on the demo store and on 100k generated
//! memories: start to first frame, keystroke to results on screen, bytes written per
//! keystroke at 200×50, and a curation key (the durable write, the search index rebuilt
//! after it, and the whole key → refreshed list). Prints medians / p95 and ratios
//! against a named peer.
//!
//! `cargo bench --bench tui` (set `MEMLENS_BENCH_N` to change the 100k).

use memlens::collection::LocalCollection;
use memlens::model::{Memory, Timestamp};
use memlens::search::{SearchRequest, Searcher};
use memlens::store::Store;
use memlens::tui::action::Action;
use memlens::tui::config::Config;
use memlens::tui::headless::Headless;
use memlens::tui::terminal::FrameWriter;
use memlens::tui::theme::ColorMode;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{KeyCode, KeyModifiers};
use ratatui::layout::Rect;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// `n` memories from `memlens::corpus` (seed 2026, ~200-byte bodies of real text).
fn generated(n: usize) -> Vec<Memory> {
    memlens::corpus::generate(memlens::corpus::CorpusSpec {
        seed: 2026,
        size: n,
        body_bytes_target: 200,
    })
    .collect()
}

fn demo() -> Vec<Memory> {
    let text = std::fs::read_to_string("assets/demo.jsonl").expect("assets/demo.jsonl");
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(l).ok())
        .filter_map(|o| Memory::from_json(&o, Timestamp::now()).ok().map(|(m, _)| m))
        .collect()
}

fn store_of(dir: &tempfile::TempDir, memories: &[Memory]) -> Store {
    let store = Store::open(&dir.path().join("bench.redb")).expect("store");
    let mut w = store.write().expect("write");
    for m in memories {
        w.put(m).expect("put");
    }
    w.commit().expect("commit");
    store
}

fn stats(mut samples: Vec<Duration>) -> (f64, f64) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let median = ms(samples[samples.len() / 2]);
    let p95 = ms(samples[(samples.len() * 95 / 100).min(samples.len() - 1)]);
    (median, p95)
}

/// A terminal that counts what it would send.
fn counting_terminal(
    w: u16,
    h: u16,
) -> (
    Terminal<CrosstermBackend<FrameWriter<std::io::Sink>>>,
    Arc<std::sync::atomic::AtomicU64>,
) {
    let writer = FrameWriter::new(std::io::sink(), true);
    let counter = writer.counter();
    let mut t = Terminal::new(CrosstermBackend::new(writer)).expect("terminal");
    t.resize(Rect::new(0, 0, w, h)).expect("size");
    (t, counter)
}

fn first_frame(label: &str, memories: &[Memory], jsonl_peer: &str) {
    let dir = tempfile::tempdir().expect("dir");
    drop(store_of(&dir, memories));
    let path = dir.path().join("bench.redb");
    let mut blank = Vec::new();
    let mut full = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        let store = Arc::new(Store::open(&path).expect("open"));
        let state = memlens::tui::state::State::new(path.display().to_string(), (120, 40));
        let config = Config::defaults(ColorMode::TrueColor);
        let (mut t, _) = counting_terminal(120, 40);
        memlens::tui::app::draw(&mut t, &state, &config, Timestamp::now()).expect("draw");
        blank.push(started.elapsed());
        // the program's own collection, as the browser opens it
        let memories = Arc::new(LocalCollection::over(store.clone()));
        let b = Headless::new(memories, config, (120, 40));
        b.draw(&mut t, Timestamp::now()).expect("draw");
        full.push(started.elapsed());
        drop(b);
    }
    let mut peer = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        let text = std::fs::read_to_string(jsonl_peer).unwrap_or_default();
        std::hint::black_box(text.lines().count());
        peer.push(started.elapsed());
    }
    let (b, _) = stats(blank);
    let (f, _) = stats(full);
    let (p, _) = stats(peer);
    println!(
        "{label:<10} start → first frame (\"loading…\") {b:8.2} ms | → first frame with results {f:8.2} ms | peer: read the JSONL text {p:7.2} ms | ratio {:.1}×",
        f / p.max(1e-6)
    );
}

fn keystrokes(label: &str, memories: &[Memory]) {
    let dir = tempfile::tempdir().expect("dir");
    let store = Arc::new(store_of(&dir, memories));
    let mut b = Headless::new(
        Arc::new(LocalCollection::over(store)),
        Config::defaults(ColorMode::TrueColor),
        (200, 50),
    );
    let (mut t, counter) = counting_terminal(200, 50);
    b.draw(&mut t, Timestamp::now()).expect("draw");
    let full_frame = counter.load(Ordering::Relaxed);
    b.press(KeyCode::Char('/'), KeyModifiers::NONE);
    b.draw(&mut t, Timestamp::now()).expect("draw");
    let mut latency = Vec::new();
    let mut bytes = Vec::new();
    let mut peer = Vec::new();
    let queries = [
        "l",
        "le",
        "led",
        "ledg",
        "ledge",
        "ledger",
        "ledger ",
        "ledger r",
        "ledger re",
        "ledger ret",
    ];
    for round in 0..5 {
        for q in queries {
            let c = q.chars().last().unwrap_or(' ');
            let before = counter.load(Ordering::Relaxed);
            let started = Instant::now();
            b.press(KeyCode::Char(c), KeyModifiers::NONE);
            b.draw(&mut t, Timestamp::now()).expect("draw");
            latency.push(started.elapsed());
            bytes.push(counter.load(Ordering::Relaxed) - before);
            let request = SearchRequest {
                query: b.state.query_text(),
                limit: memlens::tui::state::PAGE_SIZE,
                ..SearchRequest::default()
            };
            let started = Instant::now();
            std::hint::black_box(b.memories().search(&request).expect("search"));
            peer.push(started.elapsed());
        }
        b.press(KeyCode::Char('u'), KeyModifiers::CONTROL);
        b.draw(&mut t, Timestamp::now()).expect("draw");
        let _ = round;
    }
    // a key that changes nothing: nothing is sent
    b.press(KeyCode::Esc, KeyModifiers::NONE);
    b.draw(&mut t, Timestamp::now()).expect("draw");
    let before = counter.load(Ordering::Relaxed);
    b.press(KeyCode::Char('z'), KeyModifiers::NONE);
    b.draw(&mut t, Timestamp::now()).expect("draw");
    let idle = counter.load(Ordering::Relaxed) - before;
    // a slider step with the filter panel open
    b.press(KeyCode::Char('f'), KeyModifiers::NONE);
    let mut slider = Vec::new();
    for _ in 0..20 {
        b.press(KeyCode::Char('j'), KeyModifiers::NONE);
        let started = Instant::now();
        b.dispatch(Action::LowerBoundUp);
        b.draw(&mut t, Timestamp::now()).expect("draw");
        slider.push(started.elapsed());
    }
    let (lm, lp) = stats(latency);
    let (pm, pp) = stats(peer);
    let (sm, sp) = stats(slider);
    bytes.sort_unstable();
    let bm = bytes[bytes.len() / 2];
    let bmax = bytes.last().copied().unwrap_or(0);
    println!(
        "{label:<10} keystroke → results drawn: median {lm:7.2} ms p95 {lp:7.2} ms | peer: the search alone {pm:7.2} / {pp:7.2} ms | ratio {:.2}×",
        lm / pm.max(1e-6)
    );
    println!(
        "{label:<10} slider step (search + 37 histograms + draw): median {sm:7.2} ms p95 {sp:7.2} ms"
    );
    println!(
        "{label:<10} bytes per keystroke at 200×50: median {bm} max {bmax} | unchanged screen {idle} | peer: a full redraw {full_frame} ({:.0}%)",
        bm as f64 * 100.0 / full_frame.max(1) as f64
    );
}

/// A curation key: the write alone (peer: a bare redb commit of the same record), the
/// index rebuild that follows it in the background, and the whole key → list redrawn
/// (the headless browser runs the rebuild inline, so this is the worst case).
fn curation(label: &str, memories: &[Memory]) {
    use memlens::curate::{Change, Edit};
    use memlens::tui::write::{WriteJob, run_write};
    let dir = tempfile::tempdir().expect("dir");
    let store = Arc::new(store_of(&dir, memories));
    let ids: Vec<String> = memories.iter().take(40).map(|m| m.id.clone()).collect();
    let memories = LocalCollection::over(store.clone());
    let mut write = Vec::new();
    let mut peer = Vec::new();
    for (round, id) in ids.iter().enumerate().take(30) {
        let edit = if round % 2 == 0 {
            Edit::Approve
        } else {
            Edit::Rate(3)
        };
        let job = WriteJob::Change {
            token: round as u64,
            change: Change::edit([id.clone()], edit),
        };
        let started = Instant::now();
        std::hint::black_box(run_write(&memories, &job));
        write.push(started.elapsed());
        let memory = store
            .read()
            .expect("read")
            .get(id)
            .expect("get")
            .expect("stored");
        let started = Instant::now();
        let mut w = store.write().expect("write");
        w.put(&memory).expect("put");
        w.commit().expect("commit");
        peer.push(started.elapsed());
    }
    let mut load = Vec::new();
    let mut open = Vec::new();
    let mut apply = Vec::new();
    // the browser's searcher (opened), updated after a one-memory write
    let base = Searcher::open(store.read().expect("read")).expect("open");
    for _ in 0..5 {
        let started = Instant::now();
        let updated = base.apply(store.read().expect("read"), &ids[..1]);
        std::hint::black_box(updated.expect("apply"));
        apply.push(started.elapsed());
        let started = Instant::now();
        std::hint::black_box(Searcher::load(&store.read().expect("read")).expect("load"));
        load.push(started.elapsed());
        let started = Instant::now();
        std::hint::black_box(Searcher::open(store.read().expect("read")).expect("open"));
        open.push(started.elapsed());
    }
    let mut b = Headless::new(
        Arc::new(LocalCollection::over(store.clone())),
        Config::defaults(ColorMode::TrueColor),
        (200, 50),
    );
    let (mut t, _) = counting_terminal(200, 50);
    b.draw(&mut t, Timestamp::now()).expect("draw");
    let mut whole = Vec::new();
    for round in 0..6 {
        let key = if round % 2 == 0 { 'a' } else { 'u' };
        let started = Instant::now();
        b.press(KeyCode::Char(key), KeyModifiers::NONE);
        b.draw(&mut t, Timestamp::now()).expect("draw");
        whole.push(started.elapsed());
    }
    let (wm, wp) = stats(write);
    let (pm, pp) = stats(peer);
    let (lm, _) = stats(load);
    let (om, _) = stats(open);
    let (am, _) = stats(apply);
    let (hm, hp) = stats(whole);
    println!(
        "{label:<10} curation write, durable: median {wm:6.2} ms p95 {wp:6.2} ms | peer: bare redb put+commit {pm:6.2} / {pp:6.2} ms | ratio {:.2}×",
        wm / pm.max(1e-6)
    );
    println!(
        "{label:<10} index rebuild after a write (background): Searcher::load {lm:8.2} ms | Searcher::open {om:8.2} ms"
    );
    println!(
        "{label:<10} index update after a write (background): Searcher::apply (opened) {am:8.2} ms | ratio to load {:.2}×",
        am / lm.max(1e-6)
    );
    println!(
        "{label:<10} key → written, index rebuilt, list redrawn (inline): median {hm:8.2} ms p95 {hp:8.2} ms"
    );
}

fn main() {
    let n: usize = std::env::var("MEMLENS_BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let demo = demo();
    let dir = tempfile::tempdir().expect("dir");
    let demo_jsonl = "assets/demo.jsonl".to_string();
    first_frame("demo", &demo, &demo_jsonl);
    keystrokes("demo", &demo);
    curation("demo", &demo);
    let big = generated(n);
    let big_jsonl = dir.path().join("big.jsonl");
    let text: String = big.iter().map(|m| m.to_json_line() + "\n").collect();
    std::fs::write(&big_jsonl, text).expect("write jsonl");
    let label = format!("{}k", n / 1000);
    first_frame(&label, &big, &big_jsonl.to_string_lossy());
    keystrokes(&label, &big);
    curation(&label, &big);
}
