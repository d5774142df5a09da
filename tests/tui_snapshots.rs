//! Snapshots of each pane and of the whole screen at 80×24 and 120×40, drawn into
//! ratatui's TestBackend from a fixed store; times and the store path are filtered out.

mod tui_common;

use memlens::tui::action::Action;
use memlens::tui::config::Config;
use memlens::tui::headless::Headless;
use memlens::tui::keymap::Keymap;
use memlens::tui::theme::{ColorMode, Theme};
use memlens::tui::view::{self, Look};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use tui_common::{fixture, now, session};

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    // the search time's width moves the padding before the path: take both out together
    s.add_filter(r"\d+\.\d ms(.*?) +/\S*test\.redb", "[ms]$1 [store]");
    s.add_filter(r"\d+\.\d ms", "[ms]");
    s.add_filter(r"/[^ ]*test\.redb", "[store]");
    // a status line too long for the path: its padding moves with the write time
    s.add_filter(r#"(?m)( undo) +"$"#, r#"$1""#);
    s
}

fn screen(b: &Headless, size: (u16, u16)) -> String {
    let mut t = Terminal::new(TestBackend::new(size.0, size.1)).expect("terminal");
    b.draw(&mut t, now()).expect("draw");
    t.backend().to_string()
}

/// Draws one pane with `draw` into a backend of the pane's own size.
fn pane(
    b: &Headless,
    area: Rect,
    draw: fn(&mut ratatui::Frame<'_>, Rect, &memlens::tui::state::State, &Look<'_>),
) -> String {
    let mut t = Terminal::new(TestBackend::new(area.width, area.height)).expect("terminal");
    let theme = Theme::new(ColorMode::NoColor);
    let keymap = Keymap::default();
    let look = Look {
        theme: &theme,
        keymap: &keymap,
        now: now(),
    };
    t.draw(|f| draw(f, f.area(), &b.state, &look))
        .expect("draw");
    t.backend().to_string()
}

/// A session with a query, a followed-up selection and the detail pane focused.
fn browsing(size: (u16, u16)) -> Headless {
    let f = fixture();
    let mut b = session(&f, size);
    b.dispatch(Action::SelectNext);
    // keep the fixture's directory alive by leaking it: the session reads the store
    std::mem::forget(f);
    b
}

#[test]
fn whole_screen_browse_80x24_and_120x40() {
    settings().bind(|| {
        for size in [(80, 24), (120, 40)] {
            let b = browsing(size);
            insta::assert_snapshot!(format!("browse_{}x{}", size.0, size.1), screen(&b, size));
        }
    });
}

#[test]
fn whole_screen_query_filters_and_help() {
    settings().bind(|| {
        for size in [(80, 24), (120, 40)] {
            let mut b = browsing(size);
            b.type_keys("/ledger");
            insta::assert_snapshot!(format!("query_{}x{}", size.0, size.1), screen(&b, size));
            b.dispatch(Action::LeaveSearch);
            b.type_keys("f");
            for _ in 0..17 {
                b.type_keys("j");
            }
            b.type_keys("llllHH");
            insta::assert_snapshot!(format!("filters_{}x{}", size.0, size.1), screen(&b, size));
            b.type_keys("?");
            insta::assert_snapshot!(format!("help_{}x{}", size.0, size.1), screen(&b, size));
        }
    });
}

#[test]
fn each_pane_on_its_own() {
    settings().bind(|| {
        let mut b = browsing((120, 40));
        let areas = view::layout((120, 40), false).expect("layout");
        insta::assert_snapshot!("pane_tabs", pane(&b, areas.tabs, view::tabs::draw));
        insta::assert_snapshot!(
            "pane_search_bar",
            pane(&b, areas.search, view::search_bar::draw)
        );
        insta::assert_snapshot!("pane_list", pane(&b, areas.list, view::list::draw));
        insta::assert_snapshot!(
            "pane_detail",
            pane(&b, areas.detail.expect("detail"), view::detail::draw)
        );
        insta::assert_snapshot!("pane_status", pane(&b, areas.status, view::status::draw));
        b.type_keys("f");
        let areas = view::layout((120, 40), true).expect("layout");
        insta::assert_snapshot!(
            "pane_filters",
            pane(&b, areas.filters.expect("filters"), view::filters::draw)
        );
        b.dispatch(Action::CloseFilters);
        b.type_keys("p");
        insta::assert_snapshot!("overlay_picker", screen(&b, (80, 24)));
    });
}

#[test]
fn a_terminal_below_the_minimum_gets_the_too_small_screen() {
    settings().bind(|| {
        let mut b = browsing((60, 20));
        b.dispatch(Action::Resize(60, 20));
        let text = screen(&b, (60, 20));
        assert!(text.contains("too small"), "{text}");
        assert!(text.contains("60×20"), "{text}");
        insta::assert_snapshot!("too_small_60x20", text);
        // narrower than its sentences: they wrap, nothing is cut
        b.dispatch(Action::Resize(24, 10));
        let text = screen(&b, (24, 10));
        let words: Vec<&str> = text.split_whitespace().collect();
        for word in ["memlens:", "small", "24×10", "Ctrl-c", "quit"] {
            assert!(
                words.iter().any(|w| w.trim_matches('"') == word),
                "{word}: {text}"
            );
        }
    });
}

#[test]
fn keys_pressed_on_the_too_small_screen_change_nothing() {
    use ratatui::crossterm::event::{KeyCode, KeyModifiers};
    let mut b = browsing((120, 40));
    let before = screen(&b, (120, 40));
    let written = |b: &Headless| b.memories().version().expect("version");
    let version = written(&b);
    b.dispatch(Action::Resize(30, 8));
    // delete, open the editor and type into it, move, reject
    b.type_keys("dexyzjGr");
    b.press(KeyCode::Enter, KeyModifiers::NONE);
    b.press(KeyCode::Char('s'), KeyModifiers::CONTROL);
    b.dispatch(Action::Resize(120, 40));
    assert_eq!(screen(&b, (120, 40)), before);
    assert_eq!(written(&b), version, "nothing was written");
    // the same screen answers a key once it is drawn
    b.type_keys("j");
    assert_ne!(screen(&b, (120, 40)), before);
}

#[test]
fn a_bad_config_is_reported_on_screen() {
    let f = fixture();
    let config = Config::parse("[keys.list]\nj = \"fly_away\"\n", ColorMode::NoColor)
        .expect_err("unknown action");
    let mut defaults = Config::defaults(ColorMode::NoColor);
    defaults.error = Some(format!("config not used: {config}"));
    let mut b = tui_common::session_with(&f, (120, 40), defaults);
    let text = screen(&b, (120, 40));
    assert!(text.contains("config not used"), "{text}");
    assert!(text.contains("fly_away"), "{text}");
    // what a change did shows first, and the config problem stays after it
    b.type_keys("a");
    let text = screen(&b, (120, 40));
    let status = text.lines().last().unwrap_or_default();
    let (report, problem) = (status.find("approve `"), status.find("config not used"));
    assert!(
        report.is_some() && problem.is_some() && report < problem,
        "{status}"
    );
}

/// The curation overlays, each drawn over the whole screen.
#[test]
fn the_editor_prompts_and_pickers() {
    use ratatui::crossterm::event::{KeyCode, KeyModifiers};
    settings().bind(|| {
        for size in [(80, 24), (120, 40)] {
            let mut b = browsing(size);
            b.type_keys("e");
            b.press(KeyCode::BackTab, KeyModifiers::NONE);
            b.type_keys("Edited: ");
            insta::assert_snapshot!(format!("editor_{}x{}", size.0, size.1), screen(&b, size));
            b.press(KeyCode::Esc, KeyModifiers::NONE);
            insta::assert_snapshot!(
                format!("confirm_drop_edits_{}x{}", size.0, size.1),
                screen(&b, size)
            );
        }
        let size = (100, 30);
        let mut b = browsing(size);
        b.type_keys("x");
        b.type_keys("superseded by the ");
        insta::assert_snapshot!("prompt_reject", screen(&b, size));
        b.press(KeyCode::Esc, KeyModifiers::NONE);
        b.type_keys("P");
        insta::assert_snapshot!("confirm_purge", screen(&b, size));
        b.type_keys("n");
        b.type_keys("r");
        insta::assert_snapshot!("rate", screen(&b, size));
        b.press(KeyCode::Esc, KeyModifiers::NONE);
        b.type_keys("tj");
        insta::assert_snapshot!("picker_type", screen(&b, size));
        b.press(KeyCode::Esc, KeyModifiers::NONE);
        b.type_keys("s");
        insta::assert_snapshot!("picker_scope", screen(&b, size));
        b.press(KeyCode::Esc, KeyModifiers::NONE);
        b.type_keys("L");
        insta::assert_snapshot!("picker_unlink", screen(&b, size));
        b.press(KeyCode::Esc, KeyModifiers::NONE);
        b.type_keys("l");
        b.type_keys("ledger");
        b.press(KeyCode::Down, KeyModifiers::NONE);
        insta::assert_snapshot!("link_picker", screen(&b, size));
        b.press(KeyCode::Enter, KeyModifiers::NONE);
        insta::assert_snapshot!("prompt_link_kind", screen(&b, size));
    });
}

/// Marks in the list, their count, and the status line after a change.
#[test]
fn marks_and_the_report_of_a_change() {
    use ratatui::crossterm::event::{KeyCode, KeyModifiers};
    settings().bind(|| {
        let size = (100, 30);
        let mut b = browsing(size);
        b.press(KeyCode::Char(' '), KeyModifiers::NONE);
        b.press(KeyCode::Char(' '), KeyModifiers::NONE);
        b.type_keys("a");
        insta::assert_snapshot!("marked_and_approved", screen(&b, size));
        b.type_keys("u");
        let text = screen(&b, size);
        assert!(text.contains("undone: approve 2 memories"), "{text}");
        b.press(KeyCode::Esc, KeyModifiers::NONE);
        b.type_keys("D");
        insta::assert_snapshot!("deleted_only", screen(&b, size));
    });
}

/// While the index loads, the status line says so beside the count of the first
/// answer (which the persisted index gave), and "loading…" only while no answer is in.
#[test]
fn the_status_line_while_the_index_loads() {
    let mut b = browsing((120, 40));
    let areas = view::layout((120, 40), false).expect("layout");
    let total = b.state.results.total;
    assert!(total > 0);
    b.state.loading = true;
    b.state.searching = false;
    let answered = pane(&b, areas.status, view::status::draw);
    assert!(answered.contains(&format!("{total} matches")), "{answered}");
    assert!(answered.contains("loading the index"), "{answered}");
    b.state.searching = true;
    let waiting = pane(&b, areas.status, view::status::draw);
    assert!(waiting.contains("loading…"), "{waiting}");
    assert!(!waiting.contains("matches"), "{waiting}");
    b.state.loading = false;
    b.state.searching = false;
    let loaded = pane(&b, areas.status, view::status::draw);
    assert!(loaded.contains(&format!("{total} matches")), "{loaded}");
    assert!(!loaded.contains("loading"), "{loaded}");
}

#[test]
fn a_narrow_detail_pane_wraps_long_fields_instead_of_cutting_them() {
    use memlens::model::{Memory, Timestamp};
    let read = Timestamp::parse("2026-11-28T11:09:00.229Z").expect("time");
    let mut m = Memory::new("narrow", "body", Timestamp(0));
    m.read_count = 3;
    m.last_read_at = Some(read);
    m.tags = (0..6).map(|i| format!("tag-number-{i}")).collect();
    let f = tui_common::fixture_with(vec![m]);
    let b = tui_common::session(&f, (80, 24));
    let text = screen(&b, (80, 24));
    assert!(text.contains("2026-11-28T11:09:00.229Z"), "{text}");
    for i in 0..6 {
        assert!(text.contains(&format!("tag-number-{i}")), "{text}");
    }
}
