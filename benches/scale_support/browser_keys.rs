//! Keys pressed in the real browser while its in-memory index loads: the browser runs
//! in a pty read back through vt100 (no screen-reading process competes with it for
//! the cores), one key is sent once its first screen is up and the status line says it
//! is loading, and the screen is read every millisecond until it shows the answer.

use super::pty::Session;
use std::path::Path;
use std::time::{Duration, Instant};

const COLS: u16 = 160;
const ROWS: u16 = 40;
const LIMIT: Duration = Duration::from_secs(30);
const CTRL_T: &str = "\x14";

/// The status line: the last line that holds a match count.
fn status(text: &str) -> String {
    text.lines()
        .rfind(|l| l.contains(" matches") || l.contains(" match "))
        .unwrap_or("")
        .to_string()
}

fn loading(text: &str) -> bool {
    status(text).contains("loading")
}

/// The list's first rows (a tab switch changes them).
fn rows(text: &str) -> Vec<String> {
    text.lines()
        .skip(5)
        .take(7)
        .map(|l| l.chars().take(70).collect())
        .collect()
}

/// Reads the screen every millisecond until `ok(screen)`; the screen then.
fn until(s: &Session, ok: impl Fn(&str) -> bool) -> Option<String> {
    s.screen_when(LIMIT, Duration::from_millis(1), ok)
}

/// A new answer's status line (while a search runs the status line holds no count).
fn answered(before: &str, now: &str) -> bool {
    let (b, n) = (status(before), status(now));
    !n.is_empty() && n != b
}

/// What is done before the key: nothing, the weight slider chosen in the filter panel,
/// or a query typed (and an engine change answered).
#[derive(Clone, Copy)]
enum Before {
    Nothing,
    WeightSlider,
    Typed(&'static str, usize),
}

fn prepare(s: &mut Session, before: Before, first: &str) -> Option<()> {
    match before {
        Before::Nothing => {}
        Before::WeightSlider => {
            s.send("f");
            until(s, |t| t.contains("Filters"))?;
            s.send(&"j".repeat(8));
            until(s, |t| t.contains("▸weight") && loading(t))?;
        }
        Before::Typed(word, engine_changes) => {
            s.send("/");
            s.send(word);
            let count = |t: &str| super::pty::memlens_matches(&status(t));
            let was = count(first);
            let mut shown = until(s, |t| t.contains(word) && loading(t) && count(t) != was)?;
            for _ in 0..engine_changes {
                s.send(CTRL_T);
                let then = shown.clone();
                shown = until(s, |t| answered(&then, t) && loading(t))?;
            }
        }
    }
    Some(())
}

/// One press in a fresh browser: the ms from the key to its answer on screen, and
/// whether the index was still loading then; `None` when the browser's load ended
/// before the key could be sent.
fn one(memlens: &str, store: &Path, home: &Path, before: Before, key: &str) -> Option<(f64, bool)> {
    let store_arg = store.to_string_lossy();
    // dropping the session hangs up: the browser closes the store as a user's does
    let mut s = Session::start(memlens, &["--db", &store_arg], COLS, ROWS, home);
    press(&mut s, before, key)
}

/// [`one`] in the browser `s`.
fn press(s: &mut Session, before: Before, key: &str) -> Option<(f64, bool)> {
    let first = until(s, loading)?;
    prepare(s, before, &first)?;
    let at = Duration::from_millis(super::env_usize("MEMLENS_BENCH_PRESS_AT_MS", 0) as u64);
    std::thread::sleep(at.saturating_sub(s.started.elapsed()));
    let shown = s.text();
    let tab = matches!(before, Before::Nothing);
    let pressed = Instant::now();
    s.send(key);
    // a tab switch's answer can say the same count in the same time as the screen
    // before it (both "94933 matches · 5.8 ms"): its rows tell it
    let now = until(s, |t| {
        if tab {
            !status(t).is_empty() && rows(t) != rows(&shown)
        } else {
            answered(&shown, t)
        }
    })?;
    let ms = pressed.elapsed().as_secs_f64() * 1e3;
    if std::env::var_os("MEMLENS_BENCH_EACH").is_some() {
        let at = (pressed - s.started).as_secs_f64();
        let said = status(&now);
        println!(
            "  {key:?} pressed {at:.2} s after the start: {ms:.0} ms; {}",
            said.trim()
        );
    }
    Some((ms, loading(&now)))
}

/// Prints median and max ms of each key, `runs` presses each in a fresh browser.
pub fn in_the_browser(memlens: &str, store: &Path, runs: usize) {
    let home = tempfile::tempdir().expect("home");
    println!(
        "\n| key pressed while the index loads (the browser in a pty) | median ms | max ms | answers during the load |"
    );
    println!("|---|---|---|---|");
    let cases = [
        ("tab switch → Density", Before::Nothing, "3"),
        ("tab switch → Rating", Before::Nothing, "4"),
        ("tab switch → Discovery", Before::Nothing, "5"),
        ("filter step → weight ≥ 0.05", Before::WeightSlider, "l"),
        (
            "engine change → bm25 (water)",
            Before::Typed("water", 0),
            CTRL_T,
        ),
        (
            "engine change → fuzzy (water)",
            Before::Typed("water", 1),
            CTRL_T,
        ),
    ];
    // MEMLENS_BENCH_KEYS=T presses only the keys whose row names hold T
    let only = std::env::var("MEMLENS_BENCH_KEYS").unwrap_or_default();
    for (name, before, key) in cases.into_iter().filter(|(n, ..)| n.contains(&only)) {
        let (mut times, mut during, mut missed) = (Vec::<f64>::new(), 0, 0);
        for _ in 0..runs {
            match one(memlens, store, home.path(), before, key) {
                Some((ms, loading)) => {
                    times.push(ms);
                    during += usize::from(loading);
                }
                None => missed += 1,
            }
        }
        let (pressed, max) = (times.len(), times.iter().copied().fold(f64::NAN, f64::max));
        let median = super::median(times);
        let missed = match missed {
            0 => String::new(),
            m => format!(" ({m} not pressed: the load had ended)"),
        };
        println!("| {name} | {median:.0} | {max:.0} | {during} of {pressed}{missed} |");
    }
}
