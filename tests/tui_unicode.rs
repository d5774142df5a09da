//! Memories whose text holds flag emoji (regional indicator pairs), emoji ZWJ
//! sequences, emoji with a variation selector, combining marks and zero-width
//! characters, drawn into ratatui's TestBackend at 80×24 and 120×40 in the list, the
//! detail pane and the filter panel: every pane border stays in its column, each row's
//! cells add up to exactly the terminal's width, the list's right column stays at the
//! pane's edge, and no grapheme is split. The oracles are the layout itself (where the
//! panes are), ratatui's buffer (the cells it really gives a string) and
//! unicode-segmentation's graphemes.

mod tui_common;

use memlens::model::{Memory, Timestamp};
use memlens::tui::action::Action;
use memlens::tui::headless::Headless;
use memlens::tui::view;
use memlens::tui::view::text::{truncate, width, wrap};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::{Buffer, CellWidth};
use ratatui::layout::Rect;
use tui_common::{fixture_with, memories, now, session};
use unicode_segmentation::UnicodeSegmentation;

/// Text that a per-character width gets wrong.
const TRICKY: [&str; 8] = [
    "flags 🇫🇷🇩🇪🇯🇵 and 🇬🇧🇺🇸🇨🇦 here",
    "family 👨\u{200D}👩\u{200D}👧\u{200D}👦 pride 🏳\u{FE0F}\u{200D}🌈 cook 🧑\u{200D}🍳",
    "hearts ❤\u{FE0F} plane ✈\u{FE0F} keycap 1\u{FE0F}\u{20E3}",
    "combining e\u{301}\u{301}\u{301} a\u{308}o\u{332} zalgo z\u{336}\u{334}\u{335}",
    "zero\u{200B}width\u{FEFF}join\u{200D}er\u{2060}word\u{200C}s",
    "wide 漢字テスト 한국어 and ｆｕｌｌ",
    "skin 👋\u{1F3FD} thumbs 👍\u{1F3FF} mixed 🇫🇷👨\u{200D}👩\u{200D}👧 end",
    "\u{301}starts with a combining mark and \u{200D} a lone joiner",
];

/// The standard memories plus one per tricky text (title, body, tags), newest first.
fn tricky_memories() -> Vec<Memory> {
    let mut all = memories();
    let base = Timestamp::parse("2026-05-01T00:00:00Z").expect("time");
    for (i, text) in TRICKY.iter().enumerate() {
        let body = format!("{text}\n\n{}", [*text; 6].join(" "));
        let mut m = Memory::new(
            format!("tricky-{i}"),
            body,
            Timestamp(base.0 + i as i64 * 1_000_000_000),
        );
        m.title = Some(format!("{text} {text}"));
        m.tags = vec![
            text.split_whitespace().nth(1).unwrap_or("x").to_string(),
            "ok".into(),
        ];
        all.push(m);
    }
    all
}

fn draw(b: &Headless, size: (u16, u16)) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(size.0, size.1)).expect("terminal");
    b.draw(&mut t, now()).expect("draw");
    t.backend().buffer().clone()
}

/// Problems in one drawn screen: rows whose cells do not add up to the width, and
/// pane borders out of their columns.
fn problems(buf: &Buffer, size: (u16, u16), filters_open: bool, what: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (w, h) = size;
    for y in 0..h {
        let mut x = 0u16;
        let mut used = 0u16;
        while x < w {
            let cell = &buf[(x, y)];
            let cells = cell.symbol().cell_width().max(1);
            used += cells;
            x += cells;
        }
        if used != w {
            let row: String = (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect();
            out.push(format!("{what}: row {y} takes {used} cells of {w}: {row}"));
        }
    }
    let areas = view::layout(size, filters_open).expect("a layout");
    let right = areas.detail.or(areas.filters).expect("a right pane");
    for pane in [areas.list, right] {
        for y in pane.y + 1..pane.bottom() - 1 {
            for x in [pane.x, pane.right() - 1] {
                let symbol = buf[(x, y)].symbol();
                if !matches!(symbol, "│" | "┃" | "║") {
                    let row: String = (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect();
                    out.push(format!("{what}: border at ({x}, {y}) is {symbol:?}: {row}"));
                }
            }
        }
    }
    out
}

#[test]
fn tricky_text_keeps_every_border_and_row_width_in_every_view() {
    let f = fixture_with(tricky_memories());
    let mut found = Vec::new();
    for size in [(80u16, 24u16), (120, 40)] {
        for (i, _) in TRICKY.iter().enumerate() {
            let mut b = session(&f, size);
            // the tricky memory under the cursor, its detail shown
            b.type_keys("/");
            b.type_keys(&format!("tricky-{i}"));
            b.dispatch(Action::LeaveSearch);
            b.dispatch(Action::FocusDetail);
            let what = format!("{}x{} tricky-{i}", size.0, size.1);
            found.extend(problems(
                &draw(&b, size),
                size,
                false,
                &format!("{what} detail"),
            ));
            // the whole list of them (an empty query lists the newest first)
            b.type_keys("/");
            b.press(
                ratatui::crossterm::event::KeyCode::Char('u'),
                ratatui::crossterm::event::KeyModifiers::CONTROL,
            );
            // a word no memory holds: every row is a partial match, flagged `~` at the
            // right edge of the list, whatever its headline takes
            b.type_keys("tricky qqqq");
            b.dispatch(Action::LeaveSearch);
            for _ in 0..i {
                b.dispatch(Action::SelectNext);
            }
            let buf = draw(&b, size);
            found.extend(problems(&buf, size, false, &format!("{what} list")));
            found.extend(flags_misplaced(&buf, size, &format!("{what} list")));
            b.dispatch(Action::ToggleFilters);
            found.extend(problems(
                &draw(&b, size),
                size,
                true,
                &format!("{what} filters"),
            ));
        }
    }
    assert!(
        found.is_empty(),
        "{} problems:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// Rows of the list whose right-column flag is not at the pane's inner edge.
fn flags_misplaced(buf: &Buffer, size: (u16, u16), what: &str) -> Vec<String> {
    let list = view::layout(size, false).expect("layout").list;
    let edge = list.right() - 2;
    let mut out = Vec::new();
    let mut rows = 0;
    for y in list.y + 1..list.bottom() - 1 {
        let row: String = (list.x + 1..edge + 1)
            .map(|x| buf[(x, y)].symbol().to_string())
            .collect();
        if row.trim().is_empty() {
            continue;
        }
        rows += 1;
        if buf[(edge, y)].symbol() != "~" {
            out.push(format!(
                "{what}: row {y} ends in {:?}, not the flag: {row}",
                buf[(edge, y)].symbol()
            ));
        }
    }
    if rows < TRICKY.len() {
        out.push(format!("{what}: only {rows} rows drawn"));
    }
    out
}

/// The cells ratatui's buffer really takes to draw `text` on one line.
fn drawn_width(text: &str) -> usize {
    let mut buf = Buffer::empty(Rect::new(0, 0, 400, 1));
    let (x, _) = buf.set_stringn(0, 0, text, 400, ratatui::style::Style::default());
    usize::from(x)
}

/// The graphemes ratatui draws (it drops those of no width).
fn drawn_graphemes(text: &str) -> Vec<&str> {
    text.graphemes(true)
        .filter(|g| g.cell_width() > 0)
        .collect()
}

#[test]
fn width_truncate_and_wrap_measure_as_ratatuis_buffer_draws() {
    for text in TRICKY {
        let line = memlens::tui::view::text::inert(text).into_owned();
        assert_eq!(width(&line), drawn_width(&line), "width of {line:?}");
        for max in 1..=width(&line) + 1 {
            let cut = truncate(&line, max);
            assert!(
                drawn_width(&cut) <= max,
                "{max}: {cut:?} takes {}",
                drawn_width(&cut)
            );
            assert_eq!(width(&cut), drawn_width(&cut), "{cut:?}");
            let kept = cut.strip_suffix('…').unwrap_or(&cut);
            assert!(line.starts_with(kept), "{max}: {cut:?} is not a prefix");
            // never inside a grapheme: what is kept is whole graphemes of the line
            let whole = line.graphemes(true).scan(0, |at, g| {
                *at += g.len();
                Some(*at)
            });
            assert!(
                kept.is_empty() || whole.into_iter().any(|end| end == kept.len()),
                "{max}: {cut:?} splits a grapheme"
            );
            let lines = wrap(text, max);
            for l in &lines {
                assert!(
                    drawn_width(l) <= max.max(drawn_width(l.graphemes(true).next().unwrap_or(""))),
                    "{max}: {l:?} is wider"
                );
            }
            let rejoined: Vec<&str> = lines
                .iter()
                .flat_map(|l| drawn_graphemes(l))
                .filter(|g| *g != " ")
                .collect();
            let expected: Vec<&str> = drawn_graphemes(&line)
                .into_iter()
                .filter(|g| *g != " ")
                .collect();
            assert_eq!(rejoined, expected, "{max}: wrap lost or split graphemes");
        }
    }
}
