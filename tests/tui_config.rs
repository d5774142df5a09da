//! The config file: key overrides per part of the screen, unbinding, theme colours,
//! mouse; a bad file falls back to the defaults with the problem reported; help lists
//! the keys in force; NO_COLOR and 256-colour fallbacks.

use memlens::tui::action::Action;
use memlens::tui::config::Config;
use memlens::tui::keymap::{Key, Keymap, Section};
use memlens::tui::theme::{ColorMode, Rgb, Theme};
use memlens::tui::view::{Look, help};
use ratatui::style::Color;

fn help_text(keymap: &Keymap) -> String {
    let theme = Theme::new(ColorMode::NoColor);
    let look = Look {
        theme: &theme,
        keymap,
        now: memlens::model::Timestamp(0),
    };
    help::lines(keymap, None, &look)
        .iter()
        .map(|l| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn key(text: &str) -> Key {
    Key::parse(text).unwrap_or_else(|| panic!("{text} parses"))
}

#[test]
fn overrides_rebind_unbind_and_add_keys_and_help_follows() {
    let text = r#"
mouse = false
[keys.list]
"x" = "select_next"
"j" = "none"
"ctrl-n" = "next_tab"
[keys.filters]
"H" = "reset_filter"
"#;
    let config = Config::parse(text, ColorMode::NoColor).expect("valid config");
    assert!(!config.mouse);
    let km = &config.keymap;
    assert_eq!(
        km.lookup(Section::List, key("x")),
        Some(&Action::SelectNext)
    );
    assert_eq!(km.lookup(Section::List, key("j")), None, "unbound");
    assert_eq!(
        km.lookup(Section::List, key("down")),
        Some(&Action::SelectNext)
    );
    assert_eq!(
        km.lookup(Section::List, key("ctrl-n")),
        Some(&Action::NextTab)
    );
    assert_eq!(
        km.lookup(Section::Filters, key("H")),
        Some(&Action::ResetFilter)
    );
    let help = help_text(km);
    let line = help
        .lines()
        .find(|l| l.contains("next memory"))
        .expect("next memory listed");
    assert!(line.contains('x') && !line.contains(" j "), "{line}");
    assert!(help.contains("Ctrl-n"), "{help}");
    // every default binding not overridden is still listed
    assert!(help.contains("Ctrl-c"));
}

#[test]
fn the_default_keys_of_the_spec_are_bound() {
    let km = Keymap::default();
    let cases = [
        (Section::List, "j", Action::SelectNext),
        (Section::List, "k", Action::SelectPrevious),
        (Section::List, "g", Action::SelectFirst),
        (Section::List, "G", Action::SelectLast),
        (Section::List, "pgdn", Action::PageDown),
        (Section::List, "[", Action::PreviousTab),
        (Section::List, "]", Action::NextTab),
        (Section::List, "6", Action::ShowProperty),
        (Section::List, "o", Action::FlipOrder),
        (Section::List, "p", Action::PickPropertyField),
        (Section::List, "enter", Action::FocusDetail),
        (Section::List, "tab", Action::CycleFocus),
        (Section::Global, "/", Action::FocusSearch),
        (Section::Global, "f", Action::ToggleFilters),
        (Section::Global, "?", Action::ToggleHelp),
        (Section::Global, "q", Action::CloseOrQuit),
        (Section::Search, "ctrl-t", Action::CycleEngine),
        (Section::Search, "ctrl-u", Action::ClearQuery),
        (Section::Search, "enter", Action::LeaveSearch),
        (Section::Search, "esc", Action::LeaveSearch),
        (Section::Filters, "h", Action::LowerBoundDown),
        (Section::Filters, "L", Action::UpperBoundUp),
        (Section::Filters, "0", Action::ResetFilter),
        (Section::Filters, "esc", Action::CloseFilters),
        (Section::Detail, "enter", Action::FollowRelationship),
        (Section::Detail, "backspace", Action::GoBack),
        (Section::Everywhere, "ctrl-c", Action::Quit),
    ];
    for (section, k, action) in cases {
        assert_eq!(km.lookup(section, key(k)), Some(&action), "{section:?} {k}");
    }
    // the curation keys of SPEC §5, in the list and the detail pane alike
    let curation = [
        ("e", Action::Edit),
        ("t", Action::SetType),
        ("s", Action::SetScope),
        ("a", Action::Approve),
        ("x", Action::Reject),
        ("r", Action::Rate),
        ("d", Action::Delete),
        ("R", Action::Restore),
        ("P", Action::Purge),
        ("l", Action::Link),
        ("L", Action::Unlink),
        ("space", Action::ToggleMark),
        ("u", Action::Undo),
    ];
    for (k, action) in curation {
        assert_eq!(km.lookup(Section::Curation, key(k)), Some(&action), "{k}");
        assert_eq!(km.lookup(Section::List, key(k)), None, "{k} not shadowed");
        assert_eq!(km.lookup(Section::Detail, key(k)), None, "{k} not shadowed");
    }
    for (section, k, action) in [
        (Section::Editor, "tab", Action::EditorNextField),
        (Section::Editor, "backtab", Action::EditorPreviousField),
        (Section::Editor, "ctrl-s", Action::EditorSave),
        (Section::Editor, "esc", Action::EditorCancel),
        (Section::Prompt, "enter", Action::PromptAccept),
        (Section::Prompt, "esc", Action::CloseOverlay),
        (Section::Confirm, "y", Action::ConfirmYes),
        (Section::Confirm, "n", Action::ConfirmNo),
        (Section::Rate, "4", Action::Rate4),
    ] {
        assert_eq!(km.lookup(section, key(k)), Some(&action), "{section:?} {k}");
    }
}

#[test]
fn a_bad_config_is_an_error_naming_the_problem() {
    let cases = [
        ("[keys.list]\nj = \"fly\"\n", "fly"),
        ("[keys.lists]\nj = \"select_next\"\n", "lists"),
        ("[keys.list]\n\"ctrl-\" = \"select_next\"\n", "ctrl-"),
        ("[theme]\naccent = \"blue-ish\"\n", "blue-ish"),
        ("mouse = \"maybe\"\n", "mouse"),
        ("colour = 1\n", "colour"),
        ("[keys.list\n", "keys"),
    ];
    for (text, needle) in cases {
        let err = Config::parse(text, ColorMode::NoColor).expect_err(text);
        assert!(err.contains(needle), "{text:?} → {err}");
        assert!(!err.contains('\n'), "one line: {err}");
    }
}

#[test]
fn a_bad_file_on_disk_falls_back_to_the_defaults_with_the_error() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("config.toml");
    std::fs::write(&path, "[keys.list]\nj = \"fly\"\n").expect("write");
    let config = Config::load(Some(&path), ColorMode::NoColor);
    let err = config.error.expect("reported");
    assert!(err.contains("config.toml") && err.contains("fly"), "{err}");
    assert_eq!(
        config.keymap.lookup(Section::List, key("j")),
        Some(&Action::SelectNext),
        "defaults in force"
    );
    let missing = Config::load(Some(&dir.path().join("none.toml")), ColorMode::NoColor);
    assert!(missing.error.is_none(), "a missing file is no error");
}

/// An action name written short or misspelt is answered with the name meant; one
/// nothing resembles gets no guess.
#[test]
fn an_unknown_action_is_answered_with_the_name_meant() {
    for (written, meant) in [
        ("select_prev", Some("select_previous")),
        ("aprove", Some("approve")),
        ("fly", None),
    ] {
        let text = format!("[keys.list]\na = \"{written}\"\n");
        let err = Config::parse(&text, ColorMode::NoColor).expect_err(&text);
        match meant {
            Some(name) => assert!(err.contains(&format!("did you mean `{name}`?")), "{err}"),
            None => assert!(!err.contains("did you mean"), "{err}"),
        }
    }
}

/// The help overlay begins with the whole of the config file's problem, wrapped: the
/// status line shows only its start.
#[test]
fn the_help_overlay_shows_the_config_problem_whole() {
    use memlens::tui::headless::Headless;
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("config.toml");
    std::fs::write(&path, "[keys.list]\na = \"select_prev\"\n").expect("write");
    let config = Config::load(Some(&path), ColorMode::NoColor);
    assert!(config.error.is_some());
    let store = dir.path().join("s.redb");
    let memories = std::sync::Arc::new(memlens::collection::LocalCollection::over(
        std::sync::Arc::new(memlens::store::Store::open(&store).expect("store")),
    ));
    let mut b = Headless::new(memories, config, (80, 24));
    b.dispatch(Action::ToggleHelp);
    let (w, h) = b.state.size;
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).expect("term");
    b.draw(&mut t, memlens::model::Timestamp::now())
        .expect("draw");
    let buf = t.backend().buffer().clone();
    let screen: String = (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>() + "\n")
        .collect();
    // the overlay's text, row by row, between its borders
    let inside: Vec<&str> = screen
        .lines()
        .filter_map(|row| row.split('┃').nth(1))
        .map(str::trim)
        .collect();
    let flat = inside.join(" ");
    assert!(flat.contains("did you mean `select_previous`?"), "{screen}");
    assert!(flat.contains("(`none` unbinds)"), "{screen}");
}

#[test]
fn colours_follow_no_color_and_colorterm() {
    assert_eq!(
        ColorMode::from_env(Some("1"), Some("truecolor")),
        ColorMode::NoColor
    );
    assert_eq!(
        ColorMode::from_env(Some(""), Some("truecolor")),
        ColorMode::TrueColor
    );
    assert_eq!(
        ColorMode::from_env(None, Some("24bit")),
        ColorMode::TrueColor
    );
    assert_eq!(ColorMode::from_env(None, None), ColorMode::Ansi256);
    let config =
        Config::parse("[theme]\naccent = \"#ff0000\"\n", ColorMode::TrueColor).expect("valid");
    assert_eq!(config.theme.accent().fg, Some(Color::Rgb(255, 0, 0)));
    let config =
        Config::parse("[theme]\naccent = \"#ff0000\"\n", ColorMode::Ansi256).expect("valid");
    assert_eq!(config.theme.accent().fg, Some(Color::Indexed(196)));
    let mono = Theme::new(ColorMode::NoColor);
    for style in [
        mono.accent(),
        mono.selected(),
        mono.muted(),
        mono.error(),
        mono.bar(),
    ] {
        assert_eq!((style.fg, style.bg), (None, None), "{style:?}");
    }
    // the 256-colour mapping picks the nearest grey for greys and the cube for colours
    assert_eq!(Rgb(0x80, 0x80, 0x80).to_ansi256(), 244);
    assert_eq!(Rgb(0, 0, 0xff).to_ansi256(), 21);
}

#[test]
fn curation_keys_and_tracked_reads_are_set_in_the_config_and_help_follows() {
    let text = r#"
track_reads = false
[keys.curation]
"A" = "approve"
"a" = "none"
"ctrl-z" = "undo"
[keys.rate]
"0" = "rate_5"
[keys.editor]
"ctrl-w" = "editor_save"
"#;
    let config = Config::parse(text, ColorMode::NoColor).expect("valid config");
    assert!(!config.track_reads);
    let km = &config.keymap;
    assert_eq!(
        km.lookup(Section::Curation, key("A")),
        Some(&Action::Approve)
    );
    assert_eq!(km.lookup(Section::Curation, key("a")), None);
    assert_eq!(
        km.lookup(Section::Curation, key("ctrl-z")),
        Some(&Action::Undo)
    );
    assert_eq!(km.lookup(Section::Rate, key("0")), Some(&Action::Rate5));
    assert_eq!(
        km.lookup(Section::Editor, key("ctrl-w")),
        Some(&Action::EditorSave)
    );
    let help = help_text(km);
    assert!(help.contains("Curation"), "{help}");
    let approve = help
        .lines()
        .find(|l| l.contains("approve (validated)"))
        .expect("approve listed");
    assert!(approve.trim_start().starts_with('A'), "{approve}");
    let undo = help
        .lines()
        .find(|l| l.contains("undo the newest change"))
        .expect("undo listed");
    assert!(undo.contains("Ctrl-z") && undo.contains('u'), "{undo}");
    assert!(help.contains("Ctrl-w"), "{help}");
    assert!(Config::parse("track_reads = \"no\"\n", ColorMode::NoColor).is_err());
    assert!(Config::defaults(ColorMode::NoColor).track_reads);
}

/// Loads `text` as the config file, as the browser does at start.
fn load(text: &str) -> Config {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("config.toml");
    std::fs::write(&path, text).expect("write config");
    Config::load(Some(&path), ColorMode::NoColor)
}

#[test]
fn a_config_cannot_take_ctrl_c_away_from_quitting() {
    for text in [
        "[keys.everywhere]\n\"ctrl-c\" = \"none\"\n",
        "[keys.everywhere]\n\"ctrl-c\" = \"select_next\"\n",
        // and every other way to quit unbound along with it
        "[keys.everywhere]\n\"ctrl-c\" = \"none\"\n[keys.global]\n\"q\" = \"none\"\n",
    ] {
        let config = load(text);
        let error = config
            .error
            .as_deref()
            .unwrap_or_else(|| panic!("{text}: no error"));
        assert!(
            error.contains("ctrl-c") && error.contains("always quits"),
            "{error}"
        );
        assert_eq!(
            config.keymap.lookup(Section::Everywhere, key("ctrl-c")),
            Some(&Action::Quit),
            "{text}"
        );
    }
    // binding it to quit again is no problem
    let same = load("[keys.everywhere]\n\"ctrl-c\" = \"quit\"\n");
    assert_eq!(same.error, None);
    // unbinding q leaves Ctrl-c, which is enough
    let no_q = load("[keys.global]\n\"q\" = \"none\"\n");
    assert_eq!(no_q.error, None);
    assert_eq!(no_q.keymap.lookup(Section::Global, key("q")), None);
}

#[test]
fn a_config_cannot_leave_an_overlay_that_no_key_closes() {
    for (text, section) in [
        (
            "[keys.help]\n\"esc\" = \"none\"\n\"?\" = \"none\"\n\"q\" = \"none\"\n",
            "help",
        ),
        ("[keys.prompt]\n\"esc\" = \"scroll_down\"\n", "prompt"),
        ("[keys.editor]\n\"esc\" = \"none\"\n", "editor"),
        (
            "[keys.confirm]\n\"n\" = \"none\"\n\"esc\" = \"none\"\n",
            "confirm",
        ),
        // a key taken everywhere never reaches the overlay
        ("[keys.everywhere]\n\"esc\" = \"select_next\"\n", "prompt"),
    ] {
        let config = load(text);
        let error = config
            .error
            .as_deref()
            .unwrap_or_else(|| panic!("{text}: no error"));
        assert!(
            error.contains(&format!("[keys.{section}]")) && error.contains("closes it"),
            "{text}: {error}"
        );
        // the defaults are in force: every overlay closes again
        assert_eq!(config.keymap, Keymap::default(), "{text}");
    }
    // one way out is enough
    let one = load("[keys.help]\n\"esc\" = \"none\"\n\"?\" = \"none\"\n");
    assert_eq!(one.error, None);
}

/// Every line of the default help fits the overlay's inner width (62 columns), so none
/// is cut off at any terminal size.
#[test]
fn every_help_line_fits_the_overlay() {
    let config = Config::defaults(ColorMode::NoColor);
    let text = help_text(&config.keymap);
    let long: Vec<&str> = text.lines().filter(|l| l.chars().count() > 62).collect();
    assert!(long.is_empty(), "{long:#?}");
}
