//! Random key sequences with random resizes — curation keys, overlays and the editor
//! included — never panic and never leave the selection outside the list, the chosen
//! filter outside the panel, a scroll past its text, a write unanswered, or a mark on a
//! memory that is gone.

mod tui_common;

use memlens::tui::action::Action;
use memlens::tui::config::Config;
use memlens::tui::headless::Headless;
use memlens::tui::theme::ColorMode;
use memlens::tui::update::list_rows;
use proptest::prelude::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyModifiers};
use std::sync::OnceLock;

#[derive(Debug, Clone)]
enum Step {
    Key(KeyCode, KeyModifiers),
    Resize(u16, u16),
}

fn step() -> impl Strategy<Value = Step> {
    let chars = prop::sample::select(
        "jkgGhlHL0[]123456opfq?/ntaex \u{8}dRPyulLrsV+-DU"
            .chars()
            .collect::<Vec<_>>(),
    );
    prop_oneof![
        6 => chars.prop_map(|c| Step::Key(KeyCode::Char(c), KeyModifiers::NONE)),
        2 => prop::sample::select(vec![
            KeyCode::Enter, KeyCode::Esc, KeyCode::Tab, KeyCode::Backspace, KeyCode::Up,
            KeyCode::Down, KeyCode::PageUp, KeyCode::PageDown, KeyCode::Home, KeyCode::End,
        ])
        .prop_map(|k| Step::Key(k, KeyModifiers::NONE)),
        1 => prop::sample::select(vec!['t', 'u', 'r', 's', 'c'])
            .prop_map(|c| Step::Key(KeyCode::Char(c), KeyModifiers::CONTROL)),
        1 => (10u16..220, 4u16..70).prop_map(|(w, h)| Step::Resize(w, h)),
    ]
}

fn fixture() -> &'static tui_common::Fixture {
    static F: OnceLock<tui_common::Fixture> = OnceLock::new();
    F.get_or_init(tui_common::fixture)
}

fn check(b: &Headless) {
    let s = &b.state;
    let total = s.results.total;
    if total == 0 {
        assert_eq!(s.selected, 0);
    } else {
        assert!(s.selected < total, "selected {} of {total}", s.selected);
        let rows = list_rows(s);
        assert!(s.list_top <= s.selected && s.selected < s.list_top + rows.max(1));
    }
    assert!(s.filter_row < s.filter_rows().len());
    assert_eq!(s.writing, 0, "every write answered");
    if s.overlay == Some(memlens::tui::state::Overlay::Editor) {
        assert!(s.editor.is_some(), "the editor overlay has an editor");
    }
    let reader = fixture().store.read().expect("read");
    for id in &s.marked {
        assert!(
            reader.get(id).expect("get").is_some(),
            "{id} is marked but gone"
        );
    }
    if !s.filters_open {
        let max = memlens::tui::view::detail::max_scroll(s);
        assert!(
            s.detail_scroll <= max,
            "scroll {} past {max}",
            s.detail_scroll
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    #[test]
    fn random_keys_and_resizes_keep_the_state_sound(steps in prop::collection::vec(step(), 1..80)) {
        // the store is shared by every case and curation keys change it: each session
        // searches what the store holds now
        let f = fixture();
        let mut b = Headless::new(
            f.collection(),
            Config::defaults(ColorMode::NoColor),
            (100, 30),
        );
        let (mut w, mut h) = (100u16, 30u16);
        let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("terminal");
        for step in steps {
            if b.state.quitting {
                break;
            }
            match step {
                Step::Key(code, mods) => b.press(code, mods),
                Step::Resize(nw, nh) => {
                    (w, h) = (nw, nh);
                    terminal.backend_mut().resize(w, h);
                    b.dispatch(Action::Resize(w, h));
                }
            }
            check(&b);
            b.draw(&mut terminal, tui_common::now()).expect("draw");
        }
    }
}
