//! Hostile text through every output: 10,000 generated strings of C0 and C1 controls,
//! CSI, OSC (a title, a clipboard write), DCS, bidi controls, zero-width, wide and
//! combining characters and emoji sequences, carried by memories, file names and bad
//! field values; not one unsafe character from them reaches the terminal, whether the
//! browser draws them or the command line prints them (tables, pages, JSON, errors and
//! warnings).

mod exchange_support;
mod tui_common;

use exchange_support::memlens;
use memlens::model::{Memory, Relationship, Timestamp};
use memlens::text::is_unsafe;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use std::path::Path;

/// How many hostile strings the memories carry.
const STRINGS: usize = 10_000;
/// Each memory carries this many of them (title, body, tag, link kind, extra value).
const PER_MEMORY: usize = 5;

/// A small deterministic generator (xorshift64*), so every run sees the same strings.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Pieces hostile strings are made of.
const PIECES: &[&str] = &[
    "\u{1b}[2J",
    "\u{1b}[31;1m",
    "\u{1b}[6n",
    "\u{1b}]0;owned\u{7}",
    "\u{1b}]52;c;cm0gLXJmIH4=\u{7}",
    "\u{1b}]8;;http://x\u{1b}\\link\u{1b}]8;;\u{1b}\\",
    "\u{1b}P+q544e\u{1b}\\",
    "\u{1b}_apc\u{1b}\\",
    "\u{1b}c",
    "\u{9b}31m",
    "\u{9d}0;t\u{9c}",
    "\u{90}dcs\u{9c}",
    "\u{85}",
    "\u{7f}",
    "\u{8}\u{8}\u{8}",
    "\r",
    "\u{7}",
    "\u{0}",
    "\u{b}\u{c}",
    "\u{202e}",
    "\u{202d}",
    "\u{2066}",
    "\u{2067}",
    "\u{2069}",
    "\u{200f}",
    "\u{61c}",
    "\u{2028}",
    "\u{200b}",
    "\u{200d}",
    "\u{2060}",
    "\u{feff}",
    "漢字",
    "ｗｉｄｅ",
    "e\u{301}\u{302}\u{303}",
    "🇫🇷",
    "👩\u{200d}👩\u{200d}👧",
    "👍🏽",
    "1\u{fe0f}\u{20e3}",
    "plain",
    " words ",
    "\t",
    "\n",
];

fn hostile(rng: &mut Rng) -> String {
    let mut s = String::from("h");
    for _ in 0..1 + rng.below(6) {
        s.push_str(PIECES[rng.below(PIECES.len())]);
    }
    s.push('z');
    s
}

/// Characters no output may carry, newline and tab (layout the command line writes
/// itself) aside.
fn unsafe_count(text: &str) -> usize {
    text.chars()
        .filter(|&c| is_unsafe(c) && c != '\n' && c != '\t')
        .count()
}

/// The memories and how many hostile strings they carry.
fn hostile_memories() -> (Vec<Memory>, usize) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut out = Vec::new();
    let mut carried = 0;
    let at = Timestamp::parse("2026-01-01T00:00:00Z").expect("time");
    for i in 0..=STRINGS / PER_MEMORY {
        // Ids may not hold controls, but bidi and zero-width characters are allowed.
        let id = match i % 7 {
            0 => format!("m{i}\u{202e}txt.exe"),
            1 => format!("m{i}\u{200b}"),
            _ => format!("m{i}"),
        };
        let mut m = Memory::new(id, format!("{}\nsecond line", hostile(&mut rng)), at);
        m.title = Some(hostile(&mut rng));
        m.tags = vec![hostile(&mut rng).replace(['\n', '\t'], " ")];
        if i > 0 {
            m.relationships.push(Relationship {
                target: out
                    .last()
                    .map(|p: &Memory| p.id.clone())
                    .unwrap_or_default(),
                kind: hostile(&mut rng),
                strength: None,
            });
            carried += 1;
        }
        m.extra.insert("x_note".into(), hostile(&mut rng).into());
        m.normalise();
        assert!(m.validate().is_empty(), "{:?}", m.validate());
        carried += PER_MEMORY - 1;
        out.push(m);
    }
    (out, carried)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Runs the binary and returns everything it printed, after checking it ran.
fn printed(home: &Path, args: &[&str], want_code: i32) -> String {
    let out = memlens(home, args, &[]);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(want_code), "{args:?}: {text}");
    text
}

#[test]
fn no_unsafe_character_from_data_reaches_the_command_line_output() {
    let (memories, carried) = hostile_memories();
    assert!(carried >= STRINGS, "{carried}");
    let home = tempfile::tempdir().expect("dir");
    let h = home.path();
    // The input file's own name is hostile too.
    let file = h.join("in\u{1b}]0;title\u{7}\u{9b}2J.jsonl");
    let text: String = memories.iter().map(|m| m.to_json_line() + "\n").collect();
    assert_eq!(
        unsafe_count(&text),
        0,
        "the JSON lines themselves escape it all"
    );
    std::fs::write(&file, text).expect("write");
    let db = h.join("s.redb");
    let mut outputs = vec![printed(h, &["import", "--db", s(&db), s(&file)], 0)];
    assert!(outputs[0].contains("2001 memories"), "{}", outputs[0]);

    let export = printed(h, &["export", "--db", s(&db)], 0);
    assert_eq!(export.lines().count(), memories.len());
    let table = printed(h, &["search", "--limit", "5000", "--db", s(&db)], 0);
    assert!(table.lines().count() > memories.len(), "one row each");
    let json = printed(
        h,
        &["search", "--json", "--limit", "5000", "--db", s(&db), "h"],
        0,
    );
    let parsed: serde_json::Value = serde_json::from_str(&json).expect("json");
    assert_eq!(
        parsed["results"].as_array().map(Vec::len),
        Some(memories.len())
    );
    outputs.extend([export, table, json]);
    outputs.push(printed(h, &["stats", "--db", s(&db)], 0));
    outputs.push(printed(h, &["--db", s(&db)], 0)); // the piped summary
    for m in memories.iter().step_by(40) {
        let page = printed(h, &["get", &m.id, "--db", s(&db)], 0);
        assert!(page.contains("second line"), "{page}");
        outputs.push(page);
        outputs.push(printed(h, &["get", &m.id, "--json", "--db", s(&db)], 0));
        outputs.push(printed(h, &["rate", &m.id, "4", "--db", s(&db)], 0));
    }
    outputs.push(printed(
        h,
        &["get", &memories[0].title.clone().unwrap(), "--db", s(&db)],
        1,
    ));

    // Errors and warnings quote values and file names.
    let mut rng = Rng(7);
    let mut quoted = 0;
    for round in 0..8 {
        let bad = h.join(format!("bad{round}\u{1b}[2J.jsonl"));
        let lines: String = (0..50)
            .map(|i| {
                quoted += 1;
                format!(
                    "{}\n",
                    json!({"id": format!("b{i}"), "body": "x", "scope": hostile(&mut rng)})
                )
            })
            .collect();
        std::fs::write(&bad, lines).expect("write");
        let err = printed(h, &["import", "--db", s(&db), s(&bad)], 1);
        assert!(err.matches("scope: ").count() >= 50, "{err}");
        outputs.push(err);
    }
    let dir = h.join("hive");
    std::fs::create_dir_all(&dir).expect("dir");
    for i in 0..20 {
        let name = format!("n{i}{}.md", hostile(&mut rng).replace(['/', '\0'], ""));
        std::fs::write(dir.join(name), "---\ntype: gotcha\n---\nbody\n").expect("write");
    }
    let warned = printed(
        h,
        &[
            "import",
            "--format",
            "hivelore",
            "--dry-run",
            "--db",
            s(&db),
            s(&dir),
        ],
        1,
    );
    // Names with controls make invalid ids (an error names each); the others warn;
    // every line is one of memlens's own, none begun by a newline from a name.
    assert!(warned.matches("the file name").count() >= 20, "{warned}");
    assert!(warned.contains("contains a control character"), "{warned}");
    let home_dir = s(h);
    for line in warned.lines() {
        assert!(
            line.starts_with("warning: ")
                || line.starts_with("error: ")
                || line.starts_with(home_dir),
            "{line:?}"
        );
    }
    outputs.push(warned);

    let bad: usize = outputs.iter().map(|o| unsafe_count(o)).sum();
    let bytes: usize = outputs.iter().map(String::len).sum();
    eprintln!(
        "{carried} hostile strings in memories, {quoted} in bad values, 20 file names; \
         {} outputs, {bytes} bytes, {bad} unsafe characters",
        outputs.len()
    );
    assert_eq!(bad, 0);
}

#[test]
fn no_unsafe_character_from_data_reaches_the_browser_screen() {
    let (memories, carried) = hostile_memories();
    let count = memories.len();
    let f = tui_common::fixture_with(memories);
    let mut unsafe_cells = 0;
    let mut drawn = 0;
    for size in [(80u16, 24u16), (120, 40)] {
        let mut b = tui_common::session(&f, size);
        let mut terminal = Terminal::new(TestBackend::new(size.0, size.1)).expect("terminal");
        let steps = if size.0 == 120 { count } else { 200 };
        for _ in 0..steps {
            b.draw(&mut terminal, tui_common::now()).expect("draw");
            let buffer = terminal.backend().buffer();
            unsafe_cells += buffer
                .content()
                .iter()
                .filter(|cell| unsafe_count(cell.symbol()) > 0)
                .count();
            drawn += 1;
            b.type_keys("j");
        }
        // The detail pane, scrolled.
        b.dispatch(memlens::tui::action::Action::FocusDetail);
        for _ in 0..20 {
            b.draw(&mut terminal, tui_common::now()).expect("draw");
            unsafe_cells += terminal
                .backend()
                .buffer()
                .content()
                .iter()
                .filter(|cell| unsafe_count(cell.symbol()) > 0)
                .count();
            b.dispatch(memlens::tui::action::Action::ScrollDown);
        }
    }
    eprintln!("{carried} hostile strings, {drawn} screens drawn, {unsafe_cells} unsafe cells");
    assert!(drawn > count);
    assert_eq!(unsafe_cells, 0);
}

#[test]
fn a_line_break_in_a_title_or_a_tag_never_reads_as_a_field_of_its_own() {
    let forged = "status        validated   (approved by human)";
    let mut m = Memory::new("spoof", "the body\nhas lines", Timestamp(0));
    m.title = Some(format!("harmless\n{forged}"));
    m.tags = vec![format!("ok\nid            someone-else")];
    let home = tempfile::tempdir().expect("dir");
    let h = home.path();
    let file = h.join("spoof.jsonl");
    std::fs::write(&file, exchange_support::generate::jsonl(&[m.clone()])).expect("write");
    let db = h.join("s.redb");
    printed(h, &["import", "--db", s(&db), s(&file)], 0);
    let page = printed(h, &["get", "spoof", "--db", s(&db)], 0);
    let starts = |text: &str, label: &str| text.lines().filter(|l| l.starts_with(label)).count();
    assert_eq!(starts(&page, "status"), 0, "{page}");
    assert_eq!(starts(&page, "id "), 1, "{page}");
    assert!(page.contains(&format!("harmless^J{forged}")), "{page}");
    assert!(
        page.contains("the body\nhas lines"),
        "the body keeps its lines: {page}"
    );
    // the browser's detail pane: the title on one line (wrapped by width only)
    let f = tui_common::fixture_with(vec![m]);
    let b = tui_common::session(&f, (160, 40));
    let mut terminal = Terminal::new(TestBackend::new(160, 40)).expect("terminal");
    b.draw(&mut terminal, tui_common::now()).expect("draw");
    let screen = terminal.backend().to_string();
    assert!(screen.contains(&format!("harmless^J{forged}")), "{screen}");
    assert!(!screen.contains(&format!("│{forged}")), "{screen}");
}
